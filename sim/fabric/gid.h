/* RoCE GIDs: how an adapter's addresses become the 16-byte identifiers in GRHs, CLC and LLC.
 *  - RoCE v1 (and the link-local v2 entry): fe80::/64 + modified EUI-64 of the (V)MAC:
 *    insert FF:FE between the third and fourth byte and flip the universal/local bit
 *    (0x02 of the first byte), RFC 4291 appendix A.
 *  - RoCE v2 over IPv4: the IPv4-mapped address ::ffff:a.b.c.d. */
#ifndef SIM_GID_H
#define SIM_GID_H

#include <stdbool.h>
#include <stdint.h>

#define GID_LEN 16
#define GID_STRLEN 46 /* INET6_ADDRSTRLEN */

void gid_from_mac(const uint8_t mac[6], uint8_t gid[GID_LEN]);
/* ipv4 in host order (10.0.0.1 = 0x0A000001). */
void gid_from_ipv4(uint32_t ipv4, uint8_t gid[GID_LEN]);
bool gid_is_ipv4_mapped(const uint8_t gid[GID_LEN]);
/* The IPv4 address of an IPv4-mapped GID (host order). */
uint32_t gid_ipv4(const uint8_t gid[GID_LEN]);
/* Recover the MAC from a link-local EUI-64 GID; false if the GID is not of that form. */
bool gid_to_mac(const uint8_t gid[GID_LEN], uint8_t mac[6]);
/* Text form as inet_ntop prints it ("fe80::ff:fe00:2", "::ffff:10.0.0.2"). */
void gid_format(const uint8_t gid[GID_LEN], char out[GID_STRLEN]);

#endif
