/* The applications' byte pattern (sim/engine/pattern.h): any chunking gives the same bytes,
 * the byte at an offset depends on the seed and the offset only, and a check names the
 * first wrong byte exactly. */
#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>

#include "sim/engine/pattern.h"
#include "sim/engine/rng.h"

#define N 4096

static uint8_t one_byte(uint64_t seed, uint64_t off)
{
	uint8_t b;
	pattern_fill(seed, off, &b, 1);
	return b;
}

Test(pattern, any_chunking_gives_the_same_bytes)
{
	static uint8_t whole[N], part[N];
	pattern_fill(7, 1000, whole, N);
	for (size_t i = 0; i < N; i += 97)
		cr_assert_eq(whole[i], one_byte(7, 1000 + i), "byte %zu", i);
	/* odd starts and lengths cover the unaligned head, the word and block loops, the tail */
	size_t cuts[] = { 0, 1, 3, 8, 13, 64, 65, 130, 200, 511, 1024, 1999, 3000, N };
	for (size_t c = 0; c + 1 < sizeof(cuts) / sizeof(cuts[0]); c++)
		pattern_fill(7, 1000 + cuts[c], part + cuts[c], cuts[c + 1] - cuts[c]);
	cr_assert_eq(memcmp(whole, part, N), 0);
	cr_assert_eq(pattern_check(7, 1000, whole, N), N);
	for (size_t off = 0; off < 130; off += 7)
		cr_assert_eq(pattern_check(7, 1000 + off, whole + off, N - off - 5), N - off - 5);
}

Test(pattern, seeds_and_offsets_differ)
{
	static uint8_t a[N], b[N];
	pattern_fill(1, 0, a, N);
	pattern_fill(2, 0, b, N);
	cr_assert_neq(memcmp(a, b, N), 0);
	pattern_fill(1, 8, b, N);
	cr_assert_neq(memcmp(a, b, 64), 0, "a stream shifted by one word does not match");
	pattern_fill(1, 64, b, N);
	cr_assert_neq(memcmp(a, b, 64), 0, "nor one shifted by a block");
	cr_assert_lt(pattern_check(1, 1, a, N), 8, "nor one shifted by a byte");
}

Test(pattern, a_check_names_the_first_wrong_byte)
{
	static uint8_t buf[N];
	size_t where[] = { 0, 5, 8, 63, 64, 100, 777, N - 1 };
	for (size_t k = 0; k < sizeof(where) / sizeof(where[0]); k++) {
		pattern_fill(3, 12345, buf, N);
		buf[where[k]] ^= 0x10;
		cr_assert_eq(pattern_check(3, 12345, buf, N), where[k]);
		if (where[k] > 3)
			cr_assert_eq(pattern_check(3, 12345 + 3, buf + 3, N - 3), where[k] - 3);
	}
	/* a lost byte: everything after it is one off */
	pattern_fill(3, 0, buf, N);
	memmove(buf + 300, buf + 301, N - 301);
	cr_assert_eq(pattern_check(3, 0, buf, N - 1), 300);
}

/* The definition, written out: word w of the stream is mix(key + w / 8) + (w % 8) * STEP,
 * little-endian, with key = mix(seed ^ "pattern"). */
static uint8_t reference_byte(uint64_t seed, uint64_t i)
{
	uint64_t key = sim_mix64(seed ^ 0x7061747465726e00ull);
	uint64_t w = i / 8;
	uint64_t word = sim_mix64(key + w / 8) + (w % 8) * 0x9e3779b97f4a7c15ull;
	return (uint8_t)(word >> (8 * (i % 8)));
}

static const char *const impls[] = { "avx512", "avx2", "base", "scalar" };

Test(pattern, every_variant_gives_the_defined_bytes_and_finds_the_first_wrong_one)
{
	static uint8_t buf[N + 64];
	const char *chosen = pattern_impl();
	unsigned tried = 0;
	for (size_t v = 0; v < sizeof(impls) / sizeof(impls[0]); v++) {
		if (!pattern_set_impl(impls[v]))
			continue;
		tried++;
		for (uint64_t off = 0; off < 200; off += 13) {
			size_t len = N - (size_t)off % 77;
			pattern_fill(11, 5000 + off, buf, len);
			for (size_t i = 0; i < len; i++)
				cr_assert_eq(buf[i], reference_byte(11, 5000 + off + i), "%s: offset %llu byte %zu", impls[v],
				             (unsigned long long)off, i);
			cr_assert_eq(pattern_check(11, 5000 + off, buf, len), len, "%s", impls[v]);
			/* a wrong byte in each block of a group of four, and in the tail */
			size_t where[] = { 3, 64 + 17, 128 + 40, 192 + 63, 256 + 1, len - 70, len - 1 };
			for (size_t k = 0; k < sizeof(where) / sizeof(where[0]); k++) {
				buf[where[k]] ^= 0x80;
				cr_assert_eq(pattern_check(11, 5000 + off, buf, len), where[k], "%s: wrong byte at %zu", impls[v],
				             where[k]);
				buf[where[k]] ^= 0x80;
			}
		}
	}
	cr_assert_geq(tried, 2, "at least the baseline and one more variant here");
	cr_assert(pattern_set_impl(chosen));
	cr_assert_not(pattern_set_impl("sse9"));
}

/* The bytes the sample traces and the Linux interop recordings carry (traces/): any
 * change of the pattern would show here first. */
Test(pattern, the_bytes_are_those_of_the_recorded_traces)
{
	static uint8_t buf[1 << 20];
	/* SHA-256 (GLib) of the bytes whose CRC-32 was pinned here before (0x3d7d5385 and
	 * 0xabf08075): the same bytes, pinned without the fabric's CRC */
	pattern_fill(7, 12345, buf, sizeof(buf));
	gchar *h = g_compute_checksum_for_data(G_CHECKSUM_SHA256, buf, sizeof(buf));
	cr_assert_str_eq(h, "18b100a4853900d98fc8bc027a8c32e89c7e258f3dfebc928783b3524b5635db");
	g_free(h);
	pattern_fill(0xdeadbeefcafef00dull, (1ull << 40) + 5, buf, 100003);
	h = g_compute_checksum_for_data(G_CHECKSUM_SHA256, buf, 100003);
	cr_assert_str_eq(h, "23e4792d837eaa391cccc3bf8c1072b6fce05031f3cbf8c22eb010ca8bf86860");
	g_free(h);
}

/* Short spans at every position in a block (the ends of a span are built a block at a
 * time): the defined bytes, and a wrong byte anywhere in them found exactly. */
Test(pattern, short_spans_at_every_place_in_a_block)
{
	uint8_t buf[200];
	for (uint64_t off = 640; off < 640 + 64; off++) {
		for (size_t len = 0; len <= 140; len += len < 70 ? 1 : 7) {
			pattern_fill(9, off, buf, len);
			for (size_t i = 0; i < len; i++)
				cr_assert_eq(buf[i], reference_byte(9, off + i), "offset %llu len %zu byte %zu",
				             (unsigned long long)off, len, i);
			cr_assert_eq(pattern_check(9, off, buf, len), len);
			for (size_t i = 0; i < len; i += 5) {
				buf[i] ^= 0x01;
				cr_assert_eq(pattern_check(9, off, buf, len), i, "offset %llu len %zu wrong byte %zu",
				             (unsigned long long)off, len, i);
				buf[i] ^= 0x01;
			}
		}
	}
}
