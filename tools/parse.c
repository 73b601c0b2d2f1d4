/* Small parsers shared by the subcommands. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli.h"

int cli_parse_u64(const char *text, unsigned long long *out)
{
	if (!text || !*text || *text == '-' || *text == '+')
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_duration(const char *text, unsigned long long *ns, char *err, unsigned long errlen)
{
	static const struct { const char *suffix; unsigned long long mult; } units[] = {
		{ "ns", 1ULL }, { "us", 1000ULL }, { "ms", 1000000ULL }, { "s", 1000000000ULL },
		{ "m", 60000000000ULL }, { "h", 3600000000000ULL },
	};
	if (!text || !*text || *text == '-' || *text == '+') {
		snprintf(err, errlen, "expected a duration such as 10s, 250ms or 5000ns, got '%s'", text ? text : "");
		return -1;
	}
	const char *p = text;
	unsigned long long whole = 0, frac = 0, frac_div = 1;
	int digits = 0;
	while (*p >= '0' && *p <= '9') {
		if (whole > (~0ULL - 9) / 10)
			goto bad;
		whole = whole * 10 + (unsigned long long)(*p++ - '0');
		digits++;
	}
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			if (frac_div < 1000000000000ULL) {
				frac = frac * 10 + (unsigned long long)(*p - '0');
				frac_div *= 10;
			}
			p++;
			digits++;
		}
	}
	if (!digits)
		goto bad;
	unsigned long long mult = 1;
	if (*p) {
		size_t i;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(p, units[i].suffix))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			goto bad;
		mult = units[i].mult;
	} else if (frac_div != 1) {
		goto bad; /* a fraction of a nanosecond means nothing */
	}
	if (whole > ~0ULL / mult)
		goto bad;
	*ns = whole * mult + frac * mult / frac_div;
	return 0;
bad:
	snprintf(err, errlen, "expected a duration such as 10s, 250ms or 5000ns, got '%s'", text);
	return -1;
}
