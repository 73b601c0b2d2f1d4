/* The applications' byte pattern (sim/pattern.h): any chunking gives the same bytes,
 * the byte at an offset depends on the seed and the offset only, and a check names the
 * first wrong byte exactly. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/pattern.h"

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
