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

/* zlib-compatible chaining: crc32(0, a+b) == crc32(crc32(0, a), b). Start with 0. */
uint32_t icrc_crc32(uint32_t crc, const void *buf, size_t len);

/* icrc_crc32(icrc_crc32(crc, a, alen), b, blen), in one pass when a is short (a masked
 * header in front of a payload): one final reduction instead of two. */
uint32_t icrc_crc32_2(uint32_t crc, const void *a, size_t alen, const void *b, size_t blen);

/* The two implementations, for tests and benchmarks. icrc_crc32_clmul() must only be
 * called when icrc_have_clmul() is true. */
uint32_t icrc_crc32_table(uint32_t crc, const void *buf, size_t len);
uint32_t icrc_crc32_clmul(uint32_t crc, const void *buf, size_t len);
bool icrc_have_clmul(void);
/* "vpclmul" (AVX-512 folding, 256 bytes a round), "pclmul" or "slice8": what icrc_crc32()
 * uses on this machine. */
const char *icrc_impl_name(void);

#endif
