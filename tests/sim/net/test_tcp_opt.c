/* TCP option codec: Linux's byte layout, and the SMC option's recognition rules. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/net/tcp_opt.h"

Test(tcp_opt, syn_with_everything_is_laid_out_like_linux)
{
	tcp_opts o = { .has_mss = true, .mss = 1460, .sack_perm = true, .has_ts = true, .tsval = 0x01020304, .tsecr = 0, .has_wscale = true, .wscale = 7, .smc = true };
	uint8_t out[TCP_MAX_OPT_LEN];
	size_t n = tcp_opts_write(out, &o, true);
	const uint8_t want[] = { 0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a, 0x01, 0x02, 0x03, 0x04,
		                 0x00, 0x00, 0x00, 0x00, 0x01, 0x03, 0x03, 0x07, 0x01, 0x01, 0xfe, 0x06,
		                 0xe2, 0xd4, 0xc3, 0xd9 };
	cr_assert_eq(n, sizeof want);
	cr_assert_eq(tcp_opts_len(&o, true), sizeof want);
	cr_assert_arr_eq(out, want, sizeof want);
}

Test(tcp_opt, syn_without_timestamps_pads_sack_permitted_with_nops)
{
	tcp_opts o = { .has_mss = true, .mss = 8960, .sack_perm = true, .has_wscale = true, .wscale = 2 };
	uint8_t out[TCP_MAX_OPT_LEN];
	size_t n = tcp_opts_write(out, &o, true);
	const uint8_t want[] = { 0x02, 0x04, 0x23, 0x00, 0x01, 0x01, 0x04, 0x02, 0x01, 0x03, 0x03, 0x02 };
	cr_assert_eq(n, sizeof want);
	cr_assert_arr_eq(out, want, sizeof want);
}

Test(tcp_opt, data_segment_carries_only_timestamps_and_sack)
{
	tcp_opts o = { .has_mss = true, .mss = 1460, .smc = true, .has_ts = true, .tsval = 7, .tsecr = 9, .n_sack = 2, .sack = { { 100, 200 }, { 300, 400 } } };
	uint8_t out[TCP_MAX_OPT_LEN];
	size_t n = tcp_opts_write(out, &o, false);
	cr_assert_eq(n, 12 + 4 + 16);
	const uint8_t ts[] = { 0x01, 0x01, 0x08, 0x0a, 0, 0, 0, 7, 0, 0, 0, 9 };
	cr_assert_arr_eq(out, ts, sizeof ts);
	const uint8_t sack_hdr[] = { 0x01, 0x01, 0x05, 18, 0, 0, 0, 100 };
	cr_assert_arr_eq(out + 12, sack_hdr, sizeof sack_hdr);
}

Test(tcp_opt, parse_round_trips_a_syn)
{
	tcp_opts o = { .has_mss = true, .mss = 1460, .sack_perm = true, .has_ts = true, .tsval = 5, .tsecr = 6, .has_wscale = true, .wscale = 7, .smc = true };
	uint8_t out[TCP_MAX_OPT_LEN];
	size_t n = tcp_opts_write(out, &o, true);
	tcp_opts p;
	cr_assert(tcp_opts_parse(out, n, true, &p));
	cr_assert(p.has_mss && p.mss == 1460);
	cr_assert(p.sack_perm);
	cr_assert(p.has_ts && p.tsval == 5 && p.tsecr == 6);
	cr_assert(p.has_wscale && p.wscale == 7);
	cr_assert(p.smc);
}

Test(tcp_opt, smc_option_is_recognised_only_on_syn)
{
	const uint8_t opt[] = { 0x01, 0x01, 0xfe, 0x06, 0xe2, 0xd4, 0xc3, 0xd9 };
	tcp_opts p;
	cr_assert(tcp_opts_parse(opt, sizeof opt, true, &p));
	cr_assert(p.smc);
	cr_assert(tcp_opts_parse(opt, sizeof opt, false, &p));
	cr_assert_not(p.smc);
}

Test(tcp_opt, smc_option_needs_the_magic_and_an_even_length_of_at_least_six)
{
	const uint8_t wrong_magic[] = { 0xfe, 0x06, 0xe2, 0xd4, 0xc3, 0xd8, 0x00, 0x00 };
	const uint8_t odd_len[] = { 0xfe, 0x07, 0xe2, 0xd4, 0xc3, 0xd9, 0x00, 0x00 };
	const uint8_t long_even[] = { 0xfe, 0x08, 0xe2, 0xd4, 0xc3, 0xd9, 0xaa, 0xbb };
	const uint8_t fastopen[] = { 0xfe, 0x04, 0xf9, 0x89, 0x00, 0x00, 0x00, 0x00 };
	tcp_opts p;
	tcp_opts_parse(wrong_magic, sizeof wrong_magic, true, &p);
	cr_assert_not(p.smc);
	tcp_opts_parse(odd_len, sizeof odd_len, true, &p);
	cr_assert_not(p.smc);
	tcp_opts_parse(long_even, sizeof long_even, true, &p);
	cr_assert(p.smc, "an even length above 6 with the magic counts (Linux)");
	tcp_opts_parse(fastopen, sizeof fastopen, true, &p);
	cr_assert_not(p.smc);
}

Test(tcp_opt, smc_option_position_in_the_list_does_not_matter)
{
	const uint8_t opt[] = { 0xfe, 0x06, 0xe2, 0xd4, 0xc3, 0xd9, 0x02, 0x04, 0x05, 0xb4, 0x01, 0x00 };
	tcp_opts p;
	cr_assert(tcp_opts_parse(opt, sizeof opt, true, &p));
	cr_assert(p.smc);
	cr_assert(p.has_mss && p.mss == 1460);
}

Test(tcp_opt, malformed_list_keeps_what_came_before)
{
	const uint8_t opt[] = { 0x02, 0x04, 0x05, 0xb4, 0x03, 0x09, 0x07 };
	tcp_opts p;
	cr_assert_not(tcp_opts_parse(opt, sizeof opt, true, &p));
	cr_assert(p.has_mss && p.mss == 1460);
	cr_assert_not(p.has_wscale);
	const uint8_t zero_len[] = { 0x08, 0x00, 0x01 };
	cr_assert_not(tcp_opts_parse(zero_len, sizeof zero_len, false, &p));
}

Test(tcp_opt, window_scale_above_fourteen_is_clamped)
{
	const uint8_t opt[] = { 0x01, 0x03, 0x03, 0x0f };
	tcp_opts p;
	cr_assert(tcp_opts_parse(opt, sizeof opt, true, &p));
	cr_assert_eq(p.wscale, 14);
}

/* The timestamps-only list of a data segment or ACK, read by the short path, on a SYN and
 * off it; a list that only looks like it (other kinds, lengths) goes through the loop. */
Test(tcp_opt, timestamps_only_parses_like_the_list)
{
	const uint8_t ts[] = { 0x01, 0x01, 0x08, 0x0a, 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04 };
	for (int syn = 0; syn < 2; syn++) {
		tcp_opts o;
		cr_assert(tcp_opts_parse(ts, sizeof ts, syn, &o));
		static const tcp_opts want = { .has_ts = true, .tsval = 0xdeadbeef, .tsecr = 0x01020304 }; /* padding zero */
		cr_assert_eq(memcmp(&o, &want, sizeof o), 0, "syn %d", syn);
	}
	/* the same twelve bytes with a bad timestamp length: the loop finds it malformed */
	uint8_t bad[sizeof ts];
	memcpy(bad, ts, sizeof ts);
	bad[3] = 0x0b;
	tcp_opts o;
	cr_assert_not(tcp_opts_parse(bad, sizeof bad, false, &o));
	cr_assert_not(o.has_ts);
	/* NOP NOP and an 8-byte SACK block + padding: no timestamps */
	const uint8_t sack[] = { 0x01, 0x01, 0x05, 0x0a, 0, 0, 0, 1, 0, 0, 0, 2 };
	cr_assert(tcp_opts_parse(sack, sizeof sack, false, &o));
	cr_assert_not(o.has_ts);
	cr_assert_eq(o.n_sack, 1);
}
