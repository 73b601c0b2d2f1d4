/* Scenario value parsers and formatters: exact values, precise refusals, round trips. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/scenario/scn_values.h"

static uint64_t dur(const char *s)
{
	uint64_t v = 0;
	const char *why = NULL;
	cr_assert(scn_parse_duration(s, 0, &v, &why), "'%s' refused: %s", s, why);
	return v;
}

static const char *dur_why(const char *s, unsigned flags)
{
	uint64_t v;
	const char *why = NULL;
	cr_assert_not(scn_parse_duration(s, flags, &v, &why), "'%s' accepted as %llu", s, (unsigned long long)v);
	return why;
}

Test(scn_values, durations_are_exact_in_every_unit)
{
	cr_assert_eq(dur("0"), 0);
	cr_assert_eq(dur("150ns"), 150);
	cr_assert_eq(dur("3us"), 3000);
	cr_assert_eq(dur("2.5ms"), 2500000);
	cr_assert_eq(dur("10s"), 10000000000ULL);
	cr_assert_eq(dur("2m"), 120000000000ULL);
	cr_assert_eq(dur("1.5h"), 5400000000000ULL);
	cr_assert_eq(dur("0.000000001s"), 1);
}

Test(scn_values, durations_refuse_missing_units_fractions_of_ns_and_junk)
{
	cr_assert_str_eq(dur_why("10", 0), "expected a unit after the number: ns, us, ms, s, m or h");
	cr_assert_str_eq(dur_why("1.5ns", 0), "expected a whole number of nanoseconds");
	cr_assert_str_eq(dur_why("5x", 0), "expected a unit ns, us, ms, s, m or h");
	cr_assert_str_eq(dur_why("-1s", 0), "expected a duration such as 10s, 250ms or 3us");
	cr_assert_str_eq(dur_why(".5s", 0), "expected a duration such as 10s, 250ms or 3us");
	cr_assert_str_eq(dur_why("5.s", 0), "expected a duration such as 10s, 250ms or 3us");
	/* too large for 64 bits of ns: an overflow, which callers report as out of range */
	cr_assert_eq(dur_why("99999999999h", 0), SCN_WHY_OVERFLOW);
	cr_assert_eq(dur_why("99999999999999999999s", 0), SCN_WHY_OVERFLOW);
	cr_assert_str_eq(dur_why("1.00000000000000000000000001s", 0), "expected a whole number of nanoseconds");
	uint64_t zeros;
	const char *w;
	cr_assert(scn_parse_duration("1.500000000000000000000000s", 0, &zeros, &w) && zeros == 1500000000ULL);
	cr_assert_str_eq(dur_why("", 0), "expected a duration such as 10s, 250ms or 3us");
}

Test(scn_values, bare_nanoseconds_only_when_asked)
{
	uint64_t v;
	const char *why;
	cr_assert(scn_parse_duration("5000", SCN_DUR_BARE_NS, &v, &why));
	cr_assert_eq(v, 5000);
	cr_assert_str_eq(dur_why("1.5", SCN_DUR_BARE_NS), "expected a whole number of nanoseconds");
}

Test(scn_values, sizes_binary_and_decimal_units)
{
	static const struct {
		const char *text;
		uint64_t bytes;
	} ok[] = {
		{ "0", 0 },
		{ "4096", 4096 },
		{ "64K", 65536 },
		{ "64KiB", 65536 },
		{ "1M", 1048576 },
		{ "100MiB", 104857600 },
		{ "2G", 2147483648ULL },
		{ "1T", 1099511627776ULL },
		{ "10KB", 10000 },
		{ "3MB", 3000000 },
		{ "1GB", 1000000000 },
		{ "1.5K", 1536 },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint64_t v;
		const char *why;
		cr_assert(scn_parse_size(ok[i].text, &v, &why), "'%s' refused", ok[i].text);
		cr_assert_eq(v, ok[i].bytes, "'%s' gave %llu", ok[i].text, (unsigned long long)v);
	}
	uint64_t v;
	const char *why;
	cr_assert_not(scn_parse_size("64k", &v, &why));
	cr_assert_str_eq(why, "expected a unit K, KiB, M, MiB, G, GiB, T, TiB, KB, MB, GB or TB");
	cr_assert_not(scn_parse_size("0.5", &v, &why));
	cr_assert_str_eq(why, "expected a whole number of bytes");
	cr_assert_not(scn_parse_size("20000000T", &v, &why));
	cr_assert_eq(why, SCN_WHY_OVERFLOW);
	cr_assert_not(scn_parse_size("18446744073709551616", &v, &why));
	cr_assert_eq(why, SCN_WHY_OVERFLOW);
}

Test(scn_values, rates_need_a_unit)
{
	uint64_t v;
	const char *why;
	cr_assert(scn_parse_rate("10Gbps", &v, &why));
	cr_assert_eq(v, 10000000000ULL);
	cr_assert(scn_parse_rate("25G", &v, &why));
	cr_assert_eq(v, 25000000000ULL);
	cr_assert(scn_parse_rate("100Mbps", &v, &why));
	cr_assert_eq(v, 100000000);
	cr_assert(scn_parse_rate("2.5Gbps", &v, &why));
	cr_assert_eq(v, 2500000000ULL);
	cr_assert(scn_parse_rate("9600bps", &v, &why));
	cr_assert_eq(v, 9600);
	cr_assert_not(scn_parse_rate("1000", &v, &why));
	cr_assert_str_eq(why, "expected a unit bps, Kbps, Mbps, Gbps, Tbps (or K, M, G, T)");
	cr_assert_not(scn_parse_rate("10GB", &v, &why));
	cr_assert_not(scn_parse_rate("0.5bps", &v, &why));
	cr_assert_str_eq(why, "expected a whole number of bits per second");
}

static sim_ratio ratio(const char *s)
{
	sim_ratio r = { 99, 99 };
	const char *why = NULL;
	cr_assert(scn_parse_ratio(s, &r, &why), "'%s' refused: %s", s, why);
	return r;
}

Test(scn_values, ratios_are_exact_reduced_fractions)
{
	sim_ratio r = ratio("0.5%");
	cr_assert(r.num == 1 && r.den == 200, "0.5%% gave %llu/%llu", (unsigned long long)r.num, (unsigned long long)r.den);
	r = ratio("1/1000");
	cr_assert(r.num == 1 && r.den == 1000);
	r = ratio("2/1000");
	cr_assert(r.num == 1 && r.den == 500);
	r = ratio("0");
	cr_assert(r.num == 0 && r.den == 1);
	r = ratio("1");
	cr_assert(r.num == 1 && r.den == 1);
	r = ratio("0.25");
	cr_assert(r.num == 1 && r.den == 4);
	r = ratio("100%");
	cr_assert(r.num == 1 && r.den == 1);
	r = ratio("0.001%");
	cr_assert(r.num == 1 && r.den == 100000);
}

Test(scn_values, ratios_refuse_more_than_one_zero_denominators_and_junk)
{
	sim_ratio r;
	const char *why;
	cr_assert_not(scn_parse_ratio("3/2", &r, &why));
	cr_assert_str_eq(why, "expected a probability between 0 and 1");
	cr_assert_not(scn_parse_ratio("1/0", &r, &why));
	cr_assert_str_eq(why, "expected a non-zero denominator");
	cr_assert_not(scn_parse_ratio("101%", &r, &why));
	cr_assert_str_eq(why, "expected a probability between 0 and 1");
	cr_assert_not(scn_parse_ratio("1.5", &r, &why));
	cr_assert_not(scn_parse_ratio("half", &r, &why));
	cr_assert_str_eq(why, "expected a probability such as 1/1000, 0.001 or 0.1%");
	cr_assert_not(scn_parse_ratio("1/", &r, &why));
	cr_assert_not(scn_parse_ratio("/5", &r, &why));
	cr_assert_not(scn_parse_ratio("1/0x10", &r, &why));
}

Test(scn_values, integers_decimal_and_hex_without_signs)
{
	uint64_t v;
	const char *why;
	cr_assert(scn_parse_uint("42", &v, &why) && v == 42);
	cr_assert(scn_parse_uint("0x0010", &v, &why) && v == 16);
	cr_assert(scn_parse_uint("18446744073709551615", &v, &why) && v == UINT64_MAX);
	cr_assert_not(scn_parse_uint("18446744073709551616", &v, &why));
	cr_assert_eq(why, SCN_WHY_OVERFLOW);
	cr_assert_not(scn_parse_uint("184467440737095516160000x", &v, &why));
	cr_assert_str_eq(why, "expected a decimal or 0x-prefixed hex integer", "junk after many digits is malformed");
	cr_assert_not(scn_parse_uint("0x10000000000000000", &v, &why));
	cr_assert_eq(why, SCN_WHY_OVERFLOW);
	cr_assert_not(scn_parse_uint("-1", &v, &why));
	cr_assert_str_eq(why, "expected a decimal or 0x-prefixed hex integer");
	cr_assert_not(scn_parse_uint("0x", &v, &why));
	cr_assert_not(scn_parse_uint("12abc", &v, &why));
	cr_assert(scn_parse_hex("0018", 4, &v, &why) && v == 0x18);
	cr_assert(scn_parse_hex("0x00000018", 4, &v, &why) && v == 0x18);
	cr_assert_not(scn_parse_hex("12345", 4, &v, &why));
	cr_assert_str_eq(why, "expected at most 4 hex digits");
	cr_assert_not(scn_parse_hex("00g1", 4, &v, &why));
	cr_assert_str_eq(why, "expected hex digits 0-9, a-f");
}

Test(scn_values, booleans)
{
	bool b;
	const char *why;
	const char *yes[] = { "yes", "on", "true" }, *no[] = { "no", "off", "false" };
	for (int i = 0; i < 3; i++) {
		cr_assert(scn_parse_bool(yes[i], &b, &why) && b);
		cr_assert(scn_parse_bool(no[i], &b, &why) && !b);
	}
	cr_assert_not(scn_parse_bool("YES", &b, &why));
	cr_assert_str_eq(why, "expected yes or no (on/off, true/false)");
}

Test(scn_values, ipv4_addresses_and_prefixes)
{
	uint32_t a;
	uint8_t len;
	const char *why;
	cr_assert(scn_parse_ipv4("10.1.1.1", &a, &why));
	cr_assert_eq(a, 0x0a010101);
	cr_assert(scn_parse_ipv4("255.255.255.255", &a, &why) && a == 0xffffffffu);
	cr_assert_not(scn_parse_ipv4("10.1.1.256", &a, &why));
	cr_assert_str_eq(why, "expected octets 0..255");
	cr_assert_not(scn_parse_ipv4("10.01.1.1", &a, &why));
	cr_assert_str_eq(why, "expected octets without leading zeros");
	cr_assert_not(scn_parse_ipv4("10.1.1", &a, &why));
	cr_assert_str_eq(why, "expected an IPv4 address such as 10.1.1.1");
	cr_assert_not(scn_parse_ipv4("10.1.1.1.1", &a, &why));
	cr_assert(scn_parse_prefix("10.1.1.0/24", &a, &len, &why) && a == 0x0a010100 && len == 24);
	cr_assert(scn_parse_prefix("0.0.0.0/0", &a, &len, &why) && len == 0);
	cr_assert_not(scn_parse_prefix("10.1.1.0/33", &a, &len, &why));
	cr_assert_str_eq(why, "expected a prefix length 0..32");
	cr_assert_not(scn_parse_prefix("10.1.1.0", &a, &len, &why));
	cr_assert_str_eq(why, "expected an address and prefix length such as 10.1.1.1/24");
	cr_assert_not(scn_parse_prefix("10.1.1.0/024", &a, &len, &why));
}

Test(scn_values, macs)
{
	uint8_t m[6];
	const char *why;
	cr_assert(scn_parse_mac("02:00:0A:ff:01:9b", m, &why));
	cr_assert(m[0] == 2 && m[2] == 0x0a && m[3] == 0xff && m[5] == 0x9b);
	cr_assert_not(scn_parse_mac("02:00:00:00:01", m, &why));
	cr_assert_str_eq(why, "expected a MAC address such as 02:00:00:00:01:01");
	cr_assert_not(scn_parse_mac("02-00-00-00-01-01", m, &why));
	cr_assert_not(scn_parse_mac("02:00:00:00:01:0g", m, &why));
	cr_assert_not(scn_parse_mac("02:00:00:00:01:011", m, &why));
}

Test(scn_values, names)
{
	const char *why;
	cr_assert(scn_valid_name("ZOSA", &why));
	cr_assert(scn_valid_name("sw_1-b", &why));
	cr_assert(scn_valid_name("a234567890123456789012345678901", &why));
	cr_assert_not(scn_valid_name("a2345678901234567890123456789012", &why));
	cr_assert_str_eq(why, "expected a name of at most 31 characters");
	cr_assert_not(scn_valid_name("1abc", &why));
	cr_assert_str_eq(why, "expected a name starting with a letter");
	cr_assert_not(scn_valid_name("a.b", &why));
	cr_assert_str_eq(why, "expected a name of letters, digits, '_' and '-'");
	cr_assert_not(scn_valid_name("", &why));
}

Test(scn_values, formatters_print_what_the_parsers_read_back)
{
	char buf[SCN_FMT_LEN];
	static const uint64_t durations[] = { 0, 1, 999, 1000, 2500000, 1000000000, 90000000000ULL, 120000000000ULL,
		                              3600000000000ULL, 7200000000001ULL };
	for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		uint64_t back;
		const char *why;
		scn_format_duration(durations[i], buf, sizeof(buf));
		cr_assert(scn_parse_duration(buf, 0, &back, &why) && back == durations[i], "%s", buf);
	}
	cr_assert_str_eq(scn_format_duration(2500000, buf, sizeof(buf)), "2500us");
	cr_assert_str_eq(scn_format_duration(7200000000000ULL, buf, sizeof(buf)), "2h");
	cr_assert_str_eq(scn_format_size(65536, buf, sizeof(buf)), "64K");
	cr_assert_str_eq(scn_format_size(10000, buf, sizeof(buf)), "10000");
	cr_assert_str_eq(scn_format_size(256ULL << 20, buf, sizeof(buf)), "256M");
	cr_assert_str_eq(scn_format_rate(25000000000ULL, buf, sizeof(buf)), "25Gbps");
	cr_assert_str_eq(scn_format_rate(1500, buf, sizeof(buf)), "1500bps");
	cr_assert_str_eq(scn_format_ratio((sim_ratio){ 1, 200 }, buf, sizeof(buf)), "1/200");
	cr_assert_str_eq(scn_format_ratio((sim_ratio){ 0, 1 }, buf, sizeof(buf)), "0");
}
