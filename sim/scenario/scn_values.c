/* Typed values of scenario files: exact parsers and canonical formatters. */
#include <stdio.h>
#include <string.h>

#include "sim/scenario/scn_values.h"

typedef unsigned __int128 u128;

const char scn_why_overflow[] = "expected a smaller number";

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* clang-format off */ /* a table laid out by hand */
static const uint64_t pow10_table[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
	100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
	10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL,
};
/* clang-format on */

/* A decimal number "123" or "1.25": value = mant / 10^scale. *end points after it.
 * Returns 1; 0 if there is no digit or a '.' without digits after it; -1 if its integer
 * part is too large for 64 bits (an overflow); 2 if it has more non-zero decimals than
 * 64 bits hold (too precise for any unit). */
static int parse_decimal(const char *s, const char **end, uint64_t *mant, unsigned *scale)
{
	const char *p = s;
	uint64_t m = 0;
	unsigned sc = 0;
	bool over = false, precise = false;
	if (!is_digit(*p))
		return 0;
	while (is_digit(*p)) {
		if (m > (UINT64_MAX - 9) / 10)
			over = true;
		else
			m = m * 10 + (uint64_t)(*p - '0');
		p++;
	}
	if (*p == '.') {
		p++;
		if (!is_digit(*p))
			return 0;
		while (is_digit(*p)) {
			/* digits past what 64 bits hold: zeros are harmless, others are too precise */
			if (m > (UINT64_MAX - 9) / 10 || sc >= 19) {
				if (*p != '0')
					precise = true;
			} else {
				m = m * 10 + (uint64_t)(*p - '0');
				sc++;
			}
			p++;
		}
	}
	*end = p;
	*mant = m;
	*scale = sc;
	return over ? -1 : precise ? 2
	                           : 1;
}

/* mant / 10^scale * mult, if it is a whole number that fits: 1; not whole: 0; too big: -1. */
static int scale_exact(uint64_t mant, unsigned scale, uint64_t mult, uint64_t *out)
{
	u128 prod = (u128)mant * mult;
	u128 div = pow10_table[scale];
	if (prod % div)
		return 0;
	u128 q = prod / div;
	if (q > UINT64_MAX)
		return -1;
	*out = (uint64_t)q;
	return 1;
}

bool scn_parse_uint(const char *s, uint64_t *out, const char **why)
{
	uint64_t v = 0;
	if ((s[0] == '0') && (s[1] == 'x' || s[1] == 'X'))
		return scn_parse_hex(s, 16, out, why);
	if (!*s) {
		*why = "expected an integer";
		return false;
	}
	for (const char *p = s; *p; p++) {
		if (!is_digit(*p)) {
			*why = "expected a decimal or 0x-prefixed hex integer";
			return false;
		}
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) {
			/* the rest must still be digits, else it is malformed rather than large */
			for (const char *q = p; *q; q++)
				if (!is_digit(*q)) {
					*why = "expected a decimal or 0x-prefixed hex integer";
					return false;
				}
			*why = SCN_WHY_OVERFLOW;
			return false;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return true;
}

bool scn_parse_hex(const char *s, unsigned max_digits, uint64_t *out, const char **why)
{
	const char *p = s;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (!*p) {
		*why = "expected hex digits";
		return false;
	}
	uint64_t v = 0;
	unsigned digits = 0;
	for (; *p; p++) {
		int h = hex_value(*p);
		if (h < 0) {
			*why = "expected hex digits 0-9, a-f";
			return false;
		}
		/* leading zeros do not count against the width ("00000018" is a fine PFID) */
		if (digits || h)
			digits++;
		v = (v << 4) | (uint64_t)h;
		if (digits > 16 && max_digits >= 16) {
			*why = SCN_WHY_OVERFLOW;
			return false;
		}
		if (digits > max_digits) {
			switch (max_digits) {
			case 4: *why = "expected at most 4 hex digits"; break;
			case 8: *why = "expected at most 8 hex digits"; break;
			default: *why = "expected fewer hex digits"; break;
			}
			return false;
		}
	}
	*out = v;
	return true;
}

typedef struct unit {
	const char *suffix;
	uint64_t mult;
} unit;

static const unit *find_unit(const unit *units, size_t n, const char *suffix)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(units[i].suffix, suffix))
			return &units[i];
	return NULL;
}

static const unit duration_units[] = {
	{ "ns", 1ULL },
	{ "us", 1000ULL },
	{ "ms", 1000000ULL },
	{ "s", 1000000000ULL },
	{ "m", 60000000000ULL },
	{ "h", 3600000000000ULL },
};

bool scn_parse_duration(const char *s, unsigned flags, uint64_t *ns, const char **why)
{
	const char *end;
	uint64_t mant;
	unsigned scale;
	int dec = parse_decimal(s, &end, &mant, &scale);
	if (dec == 0) {
		*why = "expected a duration such as 10s, 250ms or 3us";
		return false;
	}
	uint64_t mult;
	if (!*end) {
		if (mant == 0) {
			*ns = 0;
			return true;
		}
		if (!(flags & SCN_DUR_BARE_NS)) {
			*why = "expected a unit after the number: ns, us, ms, s, m or h";
			return false;
		}
		mult = 1;
	} else {
		const unit *u = find_unit(duration_units, sizeof(duration_units) / sizeof(duration_units[0]), end);
		if (!u) {
			*why = "expected a unit ns, us, ms, s, m or h";
			return false;
		}
		mult = u->mult;
	}
	if (dec < 0) {
		*why = SCN_WHY_OVERFLOW;
		return false;
	}
	int r = dec == 2 ? 0 : scale_exact(mant, scale, mult, ns);
	if (r == 0)
		*why = "expected a whole number of nanoseconds";
	else if (r < 0)
		*why = SCN_WHY_OVERFLOW;
	return r == 1;
}

static const unit size_units[] = {
	{ "K", 1ULL << 10 },
	{ "KiB", 1ULL << 10 },
	{ "M", 1ULL << 20 },
	{ "MiB", 1ULL << 20 },
	{ "G", 1ULL << 30 },
	{ "GiB", 1ULL << 30 },
	{ "T", 1ULL << 40 },
	{ "TiB", 1ULL << 40 },
	{ "KB", 1000ULL },
	{ "MB", 1000000ULL },
	{ "GB", 1000000000ULL },
	{ "TB", 1000000000000ULL },
};

bool scn_parse_size(const char *s, uint64_t *bytes, const char **why)
{
	const char *end;
	uint64_t mant;
	unsigned scale;
	int dec = parse_decimal(s, &end, &mant, &scale);
	if (dec == 0) {
		*why = "expected a size such as 4096, 64K or 1MiB";
		return false;
	}
	uint64_t mult = 1;
	if (*end) {
		const unit *u = find_unit(size_units, sizeof(size_units) / sizeof(size_units[0]), end);
		if (!u) {
			*why = "expected a unit K, KiB, M, MiB, G, GiB, T, TiB, KB, MB, GB or TB";
			return false;
		}
		mult = u->mult;
	}
	if (dec < 0) {
		*why = SCN_WHY_OVERFLOW;
		return false;
	}
	int r = dec == 2 ? 0 : scale_exact(mant, scale, mult, bytes);
	if (r == 0)
		*why = "expected a whole number of bytes";
	else if (r < 0)
		*why = SCN_WHY_OVERFLOW;
	return r == 1;
}

static const unit rate_units[] = {
	{ "bps", 1ULL },
	{ "Kbps", 1000ULL },
	{ "Mbps", 1000000ULL },
	{ "Gbps", 1000000000ULL },
	{ "Tbps", 1000000000000ULL },
	{ "K", 1000ULL },
	{ "M", 1000000ULL },
	{ "G", 1000000000ULL },
	{ "T", 1000000000000ULL },
};

bool scn_parse_rate(const char *s, uint64_t *bps, const char **why)
{
	const char *end;
	uint64_t mant;
	unsigned scale;
	int dec = parse_decimal(s, &end, &mant, &scale);
	if (dec == 0) {
		*why = "expected a rate such as 10Gbps, 100Mbps or 25G";
		return false;
	}
	const unit *u = *end ? find_unit(rate_units, sizeof(rate_units) / sizeof(rate_units[0]), end) : NULL;
	if (!u) {
		*why = "expected a unit bps, Kbps, Mbps, Gbps, Tbps (or K, M, G, T)";
		return false;
	}
	if (dec < 0) {
		*why = SCN_WHY_OVERFLOW;
		return false;
	}
	int r = dec == 2 ? 0 : scale_exact(mant, scale, u->mult, bps);
	if (r == 0)
		*why = "expected a whole number of bits per second";
	else if (r < 0)
		*why = SCN_WHY_OVERFLOW;
	return r == 1;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static void reduce(uint64_t num, uint64_t den, sim_ratio *r)
{
	if (num == 0) {
		*r = (sim_ratio){ 0, 1 };
		return;
	}
	uint64_t g = gcd(num, den);
	*r = (sim_ratio){ num / g, den / g };
}

bool scn_parse_ratio(const char *s, sim_ratio *r, const char **why)
{
	static const char *shape = "expected a probability such as 1/1000, 0.001 or 0.1%";
	const char *slash = strchr(s, '/');
	if (slash) {
		char num_text[32];
		size_t n = (size_t)(slash - s);
		uint64_t num, den;
		const char *w;
		if (n == 0 || n >= sizeof(num_text)) {
			*why = shape;
			return false;
		}
		memcpy(num_text, s, n);
		num_text[n] = 0;
		for (size_t i = 0; i < n; i++)
			if (!is_digit(num_text[i])) {
				*why = shape;
				return false;
			}
		if (!*(slash + 1) || !scn_parse_uint(num_text, &num, &w) || !scn_parse_uint(slash + 1, &den, &w) ||
		    (slash[1] == '0' && (slash[2] == 'x' || slash[2] == 'X'))) {
			*why = shape;
			return false;
		}
		if (den == 0) {
			*why = "expected a non-zero denominator";
			return false;
		}
		if (num > den) {
			*why = "expected a probability between 0 and 1";
			return false;
		}
		reduce(num, den, r);
		return true;
	}
	const char *end;
	uint64_t mant;
	unsigned scale;
	if (parse_decimal(s, &end, &mant, &scale) != 1) {
		*why = shape;
		return false;
	}
	unsigned extra = 0;
	if (!strcmp(end, "%"))
		extra = 2; /* percent: two more decimal places */
	else if (*end) {
		*why = shape;
		return false;
	}
	if (scale + extra > 19) {
		*why = "expected at most 17 decimal places";
		return false;
	}
	uint64_t den = pow10_table[scale + extra];
	if (mant > den) {
		*why = "expected a probability between 0 and 1";
		return false;
	}
	reduce(mant, den, r);
	return true;
}

bool scn_parse_bool(const char *s, bool *b, const char **why)
{
	if (!strcmp(s, "yes") || !strcmp(s, "on") || !strcmp(s, "true")) {
		*b = true;
		return true;
	}
	if (!strcmp(s, "no") || !strcmp(s, "off") || !strcmp(s, "false")) {
		*b = false;
		return true;
	}
	*why = "expected yes or no (on/off, true/false)";
	return false;
}

/* Four decimal octets; *end points after the last digit. */
static bool parse_quad(const char *s, const char **end, uint32_t *addr, const char **why)
{
	const char *p = s;
	uint32_t a = 0;
	for (int i = 0; i < 4; i++) {
		if (i && *p++ != '.') {
			*why = "expected an IPv4 address such as 10.1.1.1";
			return false;
		}
		if (!is_digit(*p)) {
			*why = "expected an IPv4 address such as 10.1.1.1";
			return false;
		}
		if (p[0] == '0' && is_digit(p[1])) {
			*why = "expected octets without leading zeros";
			return false;
		}
		unsigned v = 0;
		int digits = 0;
		while (is_digit(*p)) {
			v = v * 10 + (unsigned)(*p++ - '0');
			if (++digits > 3)
				break;
		}
		if (digits > 3 || v > 255) {
			*why = "expected octets 0..255";
			return false;
		}
		a = (a << 8) | v;
	}
	*end = p;
	*addr = a;
	return true;
}

bool scn_parse_ipv4(const char *s, uint32_t *addr, const char **why)
{
	const char *end;
	if (!parse_quad(s, &end, addr, why))
		return false;
	if (*end) {
		*why = "expected an IPv4 address such as 10.1.1.1";
		return false;
	}
	return true;
}

bool scn_parse_prefix(const char *s, uint32_t *addr, uint8_t *len, const char **why)
{
	const char *end;
	if (!parse_quad(s, &end, addr, why)) {
		if (!strcmp(*why, "expected an IPv4 address such as 10.1.1.1"))
			*why = "expected an address and prefix length such as 10.1.1.1/24";
		return false;
	}
	if (*end != '/' || !is_digit(end[1])) {
		*why = "expected an address and prefix length such as 10.1.1.1/24";
		return false;
	}
	const char *p = end + 1;
	unsigned v = 0;
	int digits = 0;
	while (is_digit(*p) && digits < 3) {
		v = v * 10 + (unsigned)(*p++ - '0');
		digits++;
	}
	if (*p || v > 32 || (digits > 1 && end[1] == '0')) {
		*why = "expected a prefix length 0..32";
		return false;
	}
	*len = (uint8_t)v;
	return true;
}

bool scn_parse_mac(const char *s, uint8_t mac[6], const char **why)
{
	const char *p = s;
	for (int i = 0; i < 6; i++) {
		if (i && *p++ != ':')
			goto bad;
		int hi = hex_value(p[0]), lo = hi >= 0 ? hex_value(p[1]) : -1;
		if (hi < 0 || lo < 0)
			goto bad;
		mac[i] = (uint8_t)(hi << 4 | lo);
		p += 2;
	}
	if (*p)
		goto bad;
	return true;
bad:
	*why = "expected a MAC address such as 02:00:00:00:01:01";
	return false;
}

bool scn_valid_name(const char *s, const char **why)
{
	size_t n = strlen(s);
	if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z'))) {
		*why = "expected a name starting with a letter";
		return false;
	}
	for (size_t i = 1; i < n; i++) {
		char c = s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) || c == '_' || c == '-')) {
			*why = "expected a name of letters, digits, '_' and '-'";
			return false;
		}
	}
	if (n > 31) {
		*why = "expected a name of at most 31 characters";
		return false;
	}
	return true;
}

/* value as "<whole><suffix>" with the largest unit that divides it exactly */
static char *format_units(uint64_t v, const unit *units, size_t n, char *buf, size_t len)
{
	if (v == 0) {
		snprintf(buf, len, "0");
		return buf;
	}
	for (size_t i = n; i-- > 0;) {
		if (v % units[i].mult == 0) {
			snprintf(buf, len, "%llu%s", (unsigned long long)(v / units[i].mult), units[i].suffix);
			return buf;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

char *scn_format_duration(uint64_t ns, char *buf, size_t len)
{
	return format_units(ns, duration_units, sizeof(duration_units) / sizeof(duration_units[0]), buf, len);
}

char *scn_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const unit binary[] = { { "", 1 }, { "K", 1ULL << 10 }, { "M", 1ULL << 20 }, { "G", 1ULL << 30 }, { "T", 1ULL << 40 } };
	return format_units(bytes, binary, sizeof(binary) / sizeof(binary[0]), buf, len);
}

char *scn_format_rate(uint64_t bps, char *buf, size_t len)
{
	return format_units(bps, rate_units, 5, buf, len); /* bps … Tbps */
}

char *scn_format_ratio(sim_ratio r, char *buf, size_t len)
{
	if (r.num == 0)
		snprintf(buf, len, "0");
	else if (r.num == r.den)
		snprintf(buf, len, "1");
	else
		snprintf(buf, len, "%llu/%llu", (unsigned long long)r.num, (unsigned long long)r.den);
	return buf;
}
