/* Byte fixtures for codec tests: hex text (as copied from captures and dissectors) to
 * bytes, a byte-by-byte comparison that names the first difference, and the seeded
 * draws of the mutation tests. */
#ifndef TESTS_SUPPORT_BYTES_H
#define TESTS_SUPPORT_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* Parse hex digit pairs (either case), ignoring everything else (spaces, line breaks);
 * fails the test on more than cap bytes or an odd number of digits. Returns the count. */
size_t bytes_from_hex(const char *s, uint8_t *out, size_t cap);
/* Fail the test unless got equals want: the length first, then the first byte that differs. */
void bytes_assert_eq(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len);

/* Seeded draws for mutating messages (splitmix64): the core's codec tests need nothing of
 * the simulator, whose streams are sim/engine/rng.h. Same seed, same draws. */
typedef struct bytes_rng {
	uint64_t state;
} bytes_rng;

void bytes_rng_seed(bytes_rng *r, uint64_t seed);
uint64_t bytes_rng_u64(bytes_rng *r);
/* In [0, n), n > 0. */
uint64_t bytes_rng_below(bytes_rng *r, uint64_t n);

#endif
