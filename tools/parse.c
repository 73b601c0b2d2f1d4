/* Small parsers shared by the subcommands; the value syntax itself lives in sim/scenario/scn_values.c
 * so that scenario files and the command line read values the same way. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sim/scenario/scn_values.h"
#include "tools/cli.h"

int cli_parse_u64(const char *text, unsigned long long *out)
{
	uint64_t v;
	const char *why;
	if (!text || !scn_parse_uint(text, &v, &why))
		return -1;
	*out = v;
	return 0;
}

int cli_parse_duration(const char *text, unsigned long long *ns, char *err, unsigned long errlen)
{
	uint64_t v;
	const char *why;
	if (!text || !scn_parse_duration(text, SCN_DUR_BARE_NS, &v, &why)) {
		/* the value parser's reason may hold the examples already */
		const char *reason = text ? why : "expected a duration";
		snprintf(err, errlen, "bad duration '%s': %s%s", text ? text : "", reason,
		         strstr(reason, "such as") ? "" : " (such as 10s, 250ms or 5000ns)");
		return -1;
	}
	*ns = v;
	return 0;
}

int cli_parse_size(const char *text, uint64_t bare_unit, uint64_t *bytes)
{
	uint64_t v;
	const char *why;
	if (!text || !scn_parse_size(text, &v, &why))
		return -1;
	/* a bare number: what the option counted before it took units (MiB, KiB), or bytes */
	bool bare = text[0] && strspn(text, "0123456789") == strlen(text);
	if (bare && bare_unit > 1) {
		if (v > UINT64_MAX / bare_unit)
			return -1;
		v *= bare_unit;
	}
	*bytes = v;
	return 0;
}
