/* Byte fixtures for codec tests (see bytes.h). */
#include "tests/support/bytes.h"

#include <criterion/criterion.h>

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t bytes_from_hex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;
	for (; *s; s++) {
		int v = hex_digit(*s);
		if (v < 0)
			continue;
		if (hi < 0) {
			hi = v;
		} else {
			cr_assert_lt(n, cap);
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	cr_assert_eq(hi, -1, "odd number of hex digits");
	return n;
}

void bytes_assert_eq(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len)
{
	cr_assert_eq(got_len, want_len, "length %zu, expected %zu", got_len, want_len);
	for (size_t i = 0; i < want_len; i++)
		cr_assert_eq(got[i], want[i], "byte %zu: 0x%02x, expected 0x%02x", i, got[i], want[i]);
}

void bytes_rng_seed(bytes_rng *r, uint64_t seed) { r->state = seed; }

uint64_t bytes_rng_u64(bytes_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t bytes_rng_below(bytes_rng *r, uint64_t n)
{
	/* the high half of a 128-bit product: a bias of at most n / 2^64, nothing a test sees */
	return (uint64_t)(((unsigned __int128)bytes_rng_u64(r) * n) >> 64);
}
