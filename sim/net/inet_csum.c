/* Internet checksum: 16-bit big-endian words summed in 32 bits, folded at the end. */
#include "sim/net/inet_csum.h"

uint32_t inet_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	/* 32-bit big-endian words: 2^16 = 1 modulo 0xffff, so their sum folds to the same
	 * one's-complement sum as 16-bit words, at half the additions. */
	uint64_t acc = sum;
	size_t i = 0;
	for (; i + 3 < len; i += 4)
		acc += (uint32_t)p[i] << 24 | (uint32_t)p[i + 1] << 16 | (uint32_t)p[i + 2] << 8 | p[i + 3];
	for (; i + 1 < len; i += 2)
		acc += (uint32_t)((p[i] << 8) | p[i + 1]);
	if (i < len)
		acc += (uint32_t)(p[i] << 8); /* an odd last byte is padded with zero */
	while (acc >> 32)
		acc = (acc & 0xffffffffu) + (acc >> 32);
	return (uint32_t)acc;
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
