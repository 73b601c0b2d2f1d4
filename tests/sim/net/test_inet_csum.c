/* The Internet checksum against the RFC 1071 definition: 16-bit big-endian words summed
 * with end-around carry, one word at a time, at every length, alignment and start sum. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "sim/engine/rng.h"
#include "sim/net/inet_csum.h"

static uint16_t reference(uint32_t start, const uint8_t *p, size_t len)
{
	uint32_t sum = start;
	while (sum >> 16)
		sum = (sum & 0xffffu) + (sum >> 16);
	for (size_t i = 0; i < len; i += 2) {
		sum += (uint32_t)(p[i] << 8) | (i + 1 < len ? p[i + 1] : 0u);
		sum = (sum & 0xffffu) + (sum >> 16);
	}
	return (uint16_t)~sum;
}

Test(inet_csum, every_length_alignment_and_start_sum_matches_the_definition)
{
	static uint8_t buf[2100];
	sim_rng rng;
	sim_rng_stream(&rng, 1, "test.inet_csum", 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)sim_rng_below(&rng, 256);
	for (size_t len = 0; len <= 2048; len += len < 80 ? 1 : 37) {
		for (size_t off = 0; off < 8; off++) {
			uint32_t start = (uint32_t)sim_rng_below(&rng, 1ull << 32);
			if (off == 0)
				start = 0;
			uint16_t got = inet_csum_finish(inet_csum_add(start, buf + off, len));
			cr_assert_eq(got, reference(start, buf + off, len), "len %zu offset %zu", len, off);
		}
	}
}

Test(inet_csum, pieces_sum_like_the_whole)
{
	static uint8_t buf[1600];
	sim_rng rng;
	sim_rng_stream(&rng, 2, "test.inet_csum", 1);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)sim_rng_below(&rng, 256);
	for (size_t cut = 0; cut <= 1500; cut += 2) {
		uint32_t pseudo = inet_csum_pseudo4(0x0a000001u, 0x0a000002u, 6, 1501);
		uint32_t s = inet_csum_add(inet_csum_add(pseudo, buf, cut), buf + cut, 1501 - cut);
		cr_assert_eq(inet_csum_finish(s), reference(pseudo, buf, 1501), "cut %zu", cut);
	}
}

Test(inet_csum, zeros_and_all_ones)
{
	static uint8_t zeros[64], ones[64];
	memset(ones, 0xff, sizeof(ones));
	cr_assert_eq(inet_csum(zeros, sizeof(zeros)), 0xffff);
	cr_assert_eq(inet_csum_add(0, zeros, sizeof(zeros)), 0);
	cr_assert_eq(inet_csum(ones, sizeof(ones)), reference(0, ones, sizeof(ones)));
	cr_assert_eq(inet_csum(ones, 7), reference(0, ones, 7));
}

/* Every compiled variant of the block loop against the definition, with lengths that
 * cross the vector blocks, a buffer long enough that the lanes are folded on the way
 * (65536 blocks of all-ones words is the most a lane takes before it is folded), and an
 * unknown name refused. */
Test(inet_csum, every_variant_matches_the_definition)
{
	static const char *const impls[] = { "avx512", "avx2", "base", "scalar" };
	enum { BIG = 65537 * 64 + 90 };
	static uint8_t buf[BIG];
	memset(buf, 0xff, sizeof(buf));
	sim_rng rng;
	sim_rng_stream(&rng, 3, "test.inet_csum", 2);
	for (size_t i = 0; i < 4096; i++)
		buf[i] = (uint8_t)sim_rng_below(&rng, 256);
	uint16_t big_want = reference(0, buf + 3, BIG - 3);
	const char *chosen = inet_csum_impl();
	unsigned tried = 0;
	for (size_t v = 0; v < sizeof(impls) / sizeof(impls[0]); v++) {
		if (!inet_csum_set_impl(impls[v]))
			continue;
		tried++;
		for (size_t len = 0; len <= 1600; len += len < 200 ? 1 : 61)
			for (size_t off = 0; off < 4; off++)
				cr_assert_eq(inet_csum_finish(inet_csum_add(0x1234, buf + off, len)),
				             reference(0x1234, buf + off, len), "%s: len %zu offset %zu", impls[v], len, off);
		cr_assert_eq(inet_csum(buf + 3, BIG - 3), big_want, "%s: %d bytes", impls[v], BIG - 3);
	}
	cr_assert_geq(tried, 2, "at least the baseline and one more variant here");
	cr_assert(inet_csum_set_impl(chosen));
	cr_assert_not(inet_csum_set_impl("sse9"));
}

Test(inet_csum, twenty_bytes_like_the_general_loop)
{
	uint8_t h[20];
	sim_rng rng;
	sim_rng_stream(&rng, 4, "test.inet_csum", 3);
	for (unsigned n = 0; n < 20000; n++) {
		for (size_t i = 0; i < sizeof(h); i++)
			h[i] = (uint8_t)(n < 2 ? (n ? 0xff : 0) : sim_rng_below(&rng, 256)); /* zeros, all ones, then any */
		cr_assert_eq(inet_csum20(h), inet_csum(h, sizeof(h)), "header %u", n);
		cr_assert_eq(inet_csum20(h), reference(0, h, sizeof(h)), "header %u", n);
	}
}
