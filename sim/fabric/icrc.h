/* CRC-32 as Ethernet, zlib and the RoCE ICRC use it: IEEE 802.3 polynomial 0x04C11DB7,
 * reflected, initial value and final XOR 0xFFFFFFFF.
 *
 * This sits on the fabric's hot path (every RoCE frame is checksummed once when built and
 * once when received), so there are two implementations with identical results: carry-less
 * multiplication folding (PCLMULQDQ, chosen at run time when the CPU has it) and a portable
 * slicing-by-8 table. The ICRC masking rules themselves live in sim/fabric/roce.c. */
#ifndef SIM_ICRC_H
#define SIM_ICRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Copy n <= 64 bytes with fixed-size moves (the last overlapping), and n <= 128 the same
 * way, for a CRC's staging buffer. A memcpy of a length the compiler only knows to be
 * small (or a loop it recognises as one) becomes `rep movs`, whose start-up cost was a
 * tenth of a 64-byte request/response run. */
static inline void icrc_copy_upto64(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n >= 32) {
		__builtin_memcpy(d, s, 32);
		__builtin_memcpy(d + n - 32, s + n - 32, 32);
	} else if (n >= 16) {
		__builtin_memcpy(d, s, 16);
		__builtin_memcpy(d + n - 16, s + n - 16, 16);
	} else if (n >= 8) {
		__builtin_memcpy(d, s, 8);
		__builtin_memcpy(d + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		__builtin_memcpy(d, s, 4);
		__builtin_memcpy(d + n - 4, s + n - 4, 4);
	} else if (n) {
		d[0] = s[0];
		d[n / 2] = s[n / 2];
		d[n - 1] = s[n - 1];
	}
}

static inline void icrc_copy_short(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n > 64) {
		__builtin_memcpy(d, s, 64);
		icrc_copy_upto64(d + 64, s + 64, n - 64);
	} else {
		icrc_copy_upto64(d, s, n);
	}
}

/* zlib-compatible chaining: crc32(0, a+b) == crc32(crc32(0, a), b). Start with 0. */
uint32_t icrc_crc32(uint32_t crc, const void *buf, size_t len);

/* icrc_crc32(icrc_crc32(crc, a, alen), b, blen), in one pass when a is short (a masked
 * header in front of a payload): one final reduction instead of two. */
uint32_t icrc_crc32_2(uint32_t crc, const void *a, size_t alen, const void *b, size_t blen);

/* Copy len bytes from src to dst (not overlapping) and return icrc_crc32(crc, src, len):
 * one read of the source for both. */
uint32_t icrc_crc32_copy(uint32_t crc, void *dst, const void *src, size_t len);

/* The two implementations, for tests and benchmarks. icrc_crc32_clmul() must only be
 * called when icrc_have_clmul() is true. */
uint32_t icrc_crc32_table(uint32_t crc, const void *buf, size_t len);
uint32_t icrc_crc32_clmul(uint32_t crc, const void *buf, size_t len);
bool icrc_have_clmul(void);
/* "vpclmul" (AVX-512 folding, 256 bytes a round), "pclmul" or "slice8": what icrc_crc32()
 * uses on this machine. */
const char *icrc_impl_name(void);

#endif
