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
