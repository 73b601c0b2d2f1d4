/* Text forms of IPv4 and MAC addresses. */
#include "sim/addr/addr_text.h"

#include <stdio.h>

char *addr_text_ipv4(uint32_t addr, char *out, size_t len)
{
	snprintf(out, len, "%u.%u.%u.%u", addr >> 24, (addr >> 16) & 255u, (addr >> 8) & 255u, addr & 255u);
	return out;
}

char *addr_text_mac(const uint8_t mac[6], char *out, size_t len)
{
	snprintf(out, len, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	return out;
}
