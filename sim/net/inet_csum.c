/* Internet checksum: 16-bit big-endian words summed in one's complement, folded at the end. */
#include "sim/net/inet_csum.h"

#include <stdbool.h>
#include <string.h>

/* The sum of the little-endian 16-bit words of n 64-byte blocks, as vectors: each 32-bit
 * lane adds the low and the high half of its words apart, so nothing carries between
 * words. A lane grows by at most 0xffff per vector: 65536 vectors fit in 32 bits, then
 * the lanes are folded into 64 bits. One function per vector width (the accumulators must
 * be the machine's registers: wider vectors than the target has are spilled to memory on
 * every step), compiled for AVX-512 and AVX2 as well as the baseline and picked at
 * start-up, as the pattern's blocks are (sim/engine/pattern.c); every variant gives the
 * same sum. */
#if defined(__GNUC__)
#define CSUM_VECTOR 1
typedef uint32_t csum_v16 __attribute__((vector_size(16)));
typedef uint32_t csum_v32 __attribute__((vector_size(32)));
typedef uint32_t csum_v64 __attribute__((vector_size(64)));

#define SUM_BLOCKS_FN(fn, target_attr, vec)                                   \
	target_attr static uint64_t fn(const uint8_t *p, size_t n)            \
	{                                                                     \
		const size_t per_block = 64 / sizeof(vec);                    \
		size_t left = n * per_block; /* vectors */                    \
		uint64_t total = 0;                                           \
		while (left) {                                                \
			size_t k = left < 65536 ? left : 65536;               \
			vec lo = { 0 }, hi = { 0 };                           \
			for (size_t v = 0; v < k; v++) {                      \
				vec x;                                        \
				memcpy(&x, p + sizeof(vec) * v, sizeof(vec)); \
				lo += x & 0xffffu;                            \
				hi += x >> 16;                                \
			}                                                     \
			for (unsigned j = 0; j < sizeof(vec) / 4; j++)        \
				total += (uint64_t)lo[j] + hi[j];             \
			p += sizeof(vec) * k;                                 \
			left -= k;                                            \
		}                                                             \
		return total;                                                 \
	}

#if defined(__x86_64__)
#define CSUM_X86 1
SUM_BLOCKS_FN(sum_blocks_avx512, __attribute__((target("avx512f"))), csum_v64)
SUM_BLOCKS_FN(sum_blocks_avx2, __attribute__((target("avx2"))), csum_v32)
#endif
SUM_BLOCKS_FN(sum_blocks_base, , csum_v16)

static uint64_t (*sum_blocks)(const uint8_t *, size_t) = sum_blocks_base;
static const char *impl = "base";

bool inet_csum_set_impl(const char *name)
{
	if (!strcmp(name, "base")) {
		sum_blocks = sum_blocks_base;
		impl = "base";
		return true;
	}
#ifdef CSUM_X86
	__builtin_cpu_init();
	if (!strcmp(name, "avx512") && __builtin_cpu_supports("avx512f")) {
		sum_blocks = sum_blocks_avx512;
		impl = "avx512";
		return true;
	}
	if (!strcmp(name, "avx2") && __builtin_cpu_supports("avx2")) {
		sum_blocks = sum_blocks_avx2;
		impl = "avx2";
		return true;
	}
#endif
	return false;
}

__attribute__((constructor)) static void inet_csum_init(void)
{
	if (!inet_csum_set_impl("avx512") && !inet_csum_set_impl("avx2"))
		inet_csum_set_impl("base");
}
#else
static const char *impl = "scalar";

bool inet_csum_set_impl(const char *name) { return !strcmp(name, "scalar"); }
#endif

const char *inet_csum_impl(void)
{
	return impl;
}

uint32_t inet_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	/* The one's-complement sum does not depend on byte order: summing the words as the
	 * CPU loads them (little-endian) gives the byte-swapped sum, swapped back once at the
	 * end (RFC 1071, section 2(B)). And since 2^16 = 1 modulo 0xffff, a 64-bit load is
	 * worth the sum of its four 16-bit words, and a carry out of 64 bits is worth 1: two
	 * 64-bit accumulators count their carries (so consecutive additions do not wait for
	 * each other), folded into 32-bit halves at the end. */
	uint64_t a0 = 0, a1 = 0, c = 0, blocks = 0;
	size_t i = 0;
#ifdef CSUM_VECTOR
	if (len >= 64) { /* a segment's payload: whole blocks as vectors */
		blocks = sum_blocks(p, len / 64);
		i = len / 64 * 64;
	}
#endif
	for (; i + 16 <= len; i += 16) {
		uint64_t w0, w1;
		memcpy(&w0, p + i, 8);
		memcpy(&w1, p + i + 8, 8);
		c += __builtin_add_overflow(a0, w0, &a0);
		c += __builtin_add_overflow(a1, w1, &a1);
	}
	if (i + 8 <= len) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		c += __builtin_add_overflow(a0, w, &a0);
		i += 8;
	}
	uint64_t acc = (a0 & 0xffffffffu) + (a0 >> 32) + (a1 & 0xffffffffu) + (a1 >> 32) + c;
	acc += (blocks & 0xffffffffu) + (blocks >> 32);
	if (i + 4 <= len) { /* two words: the high one is worth 2^16, which is 1 */
		uint32_t w;
		memcpy(&w, p + i, 4);
		acc += w;
		i += 4;
	}
	if (i + 2 <= len) {
		acc += (uint32_t)(p[i] | p[i + 1] << 8);
		i += 2;
	}
	if (i < len)
		acc += p[i]; /* an odd last byte is the high byte of a word padded with zero */
	while (acc >> 16)
		acc = (acc & 0xffffu) + (acc >> 16);
	/* swapped back; zero only when every byte was (so a sum of zeros stays zero) */
	uint64_t total = (uint64_t)sum + (((acc & 0xffu) << 8) | (acc >> 8));
	while (total >> 32)
		total = (total & 0xffffffffu) + (total >> 32);
	return (uint32_t)total;
}

uint16_t inet_csum_finish(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffffu) + (sum >> 16);
	return (uint16_t)~sum;
}

uint16_t inet_csum(const uint8_t *p, size_t len)
{
	return inet_csum_finish(inet_csum_add(0, p, len));
}

uint16_t inet_csum20(const uint8_t *p)
{
	/* five little-endian 32-bit words, each worth the sum of its two 16-bit words; folded
	 * and swapped back as inet_csum_add does */
	uint64_t acc = 0;
	for (unsigned k = 0; k < 5; k++) {
		uint32_t w;
		memcpy(&w, p + 4 * k, 4);
		acc += w;
	}
	while (acc >> 16)
		acc = (acc & 0xffffu) + (acc >> 16);
	return (uint16_t)~(((acc & 0xffu) << 8) | (acc >> 8));
}

uint32_t inet_csum_pseudo4(uint32_t src, uint32_t dst, uint8_t proto, uint16_t len)
{
	uint64_t acc = (src >> 16) + (src & 0xffffu) + (dst >> 16) + (dst & 0xffffu) + proto + len;
	return (uint32_t)acc;
}
