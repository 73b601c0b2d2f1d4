/* Byte fixtures for codec tests: hex text (as copied from captures and dissectors) to
 * bytes, and a byte-by-byte comparison that names the first difference. */
#ifndef TESTS_SUPPORT_BYTES_H
#define TESTS_SUPPORT_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* Parse hex digit pairs (either case), ignoring everything else (spaces, line breaks);
 * fails the test on more than cap bytes or an odd number of digits. Returns the count. */
size_t bytes_from_hex(const char *s, uint8_t *out, size_t cap);
/* Fail the test unless got equals want: the length first, then the first byte that differs. */
void bytes_assert_eq(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len);

#endif
