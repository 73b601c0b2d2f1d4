/* GIDs and MACs: comparing them, and the IPv4 address in an IPv4-mapped RoCE v2 GID. */
#ifndef SMCR_ADDR_INT_H
#define SMCR_ADDR_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline bool smcr_gid_eq(const uint8_t *a, const uint8_t *b) { return !memcmp(a, b, 16); }
static inline bool smcr_mac_eq(const uint8_t *a, const uint8_t *b) { return !memcmp(a, b, 6); }
static inline uint32_t smcr_gid_ipv4(const uint8_t gid[16])
{
	return ((uint32_t)gid[12] << 24) | ((uint32_t)gid[13] << 16) | ((uint32_t)gid[14] << 8) | gid[15];
}

#endif
