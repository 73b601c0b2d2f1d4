/* The Internet checksum (RFC 1071) for IPv4, ICMP and TCP, including the IPv4
 * pseudo-header TCP sums over. Sums are kept unfolded in 32 bits so a checksum can be
 * built from several pieces; every piece but the last must have an even length. */
#ifndef SIM_INET_CSUM_H
#define SIM_INET_CSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

uint32_t inet_csum_add(uint32_t sum, const uint8_t *p, size_t len);
/* Fold to 16 bits and complement: the value written into a header. */
uint16_t inet_csum_finish(uint32_t sum);
/* Checksum of one contiguous block (0 when a received header with its checksum sums right). */
uint16_t inet_csum(const uint8_t *p, size_t len);
/* inet_csum of 20 bytes (an IPv4 header without options): the same value, without the
 * general loop's set-up. */
uint16_t inet_csum20(const uint8_t *p);
/* Partial sum of the IPv4 pseudo-header (addresses in host order). */
uint32_t inet_csum_pseudo4(uint32_t src, uint32_t dst, uint8_t proto, uint16_t len);

/* Whole 64-byte blocks are summed as vectors, compiled several times; the fastest the CPU
 * runs is chosen at start-up. inet_csum_impl(): "avx512", "avx2", "base" (baseline
 * vectors) or "scalar" (no vector extension); inet_csum_set_impl() picks one for tests
 * and benchmarks, false when this CPU or build has no such variant. Every variant gives
 * the same sums. */
const char *inet_csum_impl(void);
bool inet_csum_set_impl(const char *name);

#endif
