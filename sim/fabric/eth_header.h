/* Ethernet II and IEEE 802.1Q framing: constants, a header parser and VLAN tag
 * insertion/removal in place (using the frame's headroom, never copying the payload). */
#ifndef SIM_ETH_HEADER_H
#define SIM_ETH_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/fabric/frame.h"

#define SIM_ETH_ALEN 6
#define SIM_ETH_HLEN 14          /* dst, src, ethertype */
#define SIM_VLAN_HLEN 4          /* TPID + TCI */
#define SIM_ETH_MIN_FRAME 60     /* without FCS */
#define SIM_ETH_WIRE_OVERHEAD 24 /* preamble+SFD 8, FCS 4, inter-frame gap 12 */

#define SIM_ETHERTYPE_IPV4 0x0800
#define SIM_ETHERTYPE_ARP 0x0806
#define SIM_ETHERTYPE_VLAN 0x8100
#define SIM_ETHERTYPE_IPV6 0x86DD
#define SIM_ETHERTYPE_ROCE 0x8915

#define SIM_VLAN_VID_MASK 0x0FFFu
#define SIM_VLAN_MAX_VID 4094u

typedef struct sim_eth_hdr {
	const uint8_t *dst;
	const uint8_t *src;
	bool tagged;
	uint16_t tci;       /* PCP:3 DEI:1 VID:12, when tagged */
	uint16_t ethertype; /* the inner type when tagged */
	uint32_t hlen;      /* 14 or 18 */
} sim_eth_hdr;

/* Parse the Ethernet (and one 802.1Q) header. Returns false if the frame is too short. */
bool sim_eth_parse(const uint8_t *p, uint32_t len, sim_eth_hdr *out);

static inline bool sim_mac_is_multicast(const uint8_t *mac) { return (mac[0] & 1u) != 0; }
/* A MAC as a 48-bit integer (stable key for tables). */
static inline uint64_t sim_mac_key(const uint8_t *mac)
{
	return ((uint64_t)mac[0] << 40) | ((uint64_t)mac[1] << 32) | ((uint64_t)mac[2] << 24) |
	       ((uint64_t)mac[3] << 16) | ((uint64_t)mac[4] << 8) | mac[5];
}

/* Write an Ethernet header, with an 802.1Q tag when vlan_tci != 0, at p.
 * Returns the bytes written (14 or 18). */
uint32_t sim_eth_write(uint8_t *p, const uint8_t *dst, const uint8_t *src, uint16_t vlan_tci,
                       uint16_t ethertype);

/* Insert an 802.1Q tag with this TCI after the source MAC (the frame must be untagged). */
void sim_vlan_insert(sim_frame *f, uint16_t tci);
/* Remove the 802.1Q tag (the frame must be tagged); returns its TCI. */
uint16_t sim_vlan_strip(sim_frame *f);

#endif
