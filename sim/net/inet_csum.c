/* Internet checksum: 16-bit big-endian words summed in one's complement, folded at the end. */
#include "sim/net/inet_csum.h"

#include <string.h>

uint32_t inet_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	/* The one's-complement sum does not depend on byte order: summing the words as the
	 * CPU loads them (little-endian) gives the byte-swapped sum, swapped back once at the
	 * end (RFC 1071, section 2(B)). And since 2^16 = 1 modulo 0xffff, a 64-bit load is
	 * worth the sum of its four 16-bit words, and a carry out of 64 bits is worth 1: two
	 * 64-bit accumulators count their carries (so consecutive additions do not wait for
	 * each other), folded into 32-bit halves at the end. */
	uint64_t a0 = 0, a1 = 0, c = 0;
	size_t i = 0;
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
	for (; i + 1 < len; i += 2)
		acc += (uint32_t)(p[i] | p[i + 1] << 8);
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

uint32_t inet_csum_pseudo4(uint32_t src, uint32_t dst, uint8_t proto, uint16_t len)
{
	uint64_t acc = (src >> 16) + (src & 0xffffu) + (dst >> 16) + (dst & 0xffffu) + proto + len;
	return (uint32_t)acc;
}
