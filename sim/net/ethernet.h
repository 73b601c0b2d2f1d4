/* Ethernet II framing with optional 802.1Q tagging: a netif with a VLAN id tags every
 * frame it sends and accepts only frames tagged with that id; a netif without one sends
 * untagged frames and drops tagged ones. Short frames are padded to the 60-byte minimum. */
#ifndef SIM_ETHERNET_H
#define SIM_ETHERNET_H

#include <stddef.h>
#include <stdint.h>

#include "sim/net/netif.h"
#include "sim/net/packet.h"

#define ETH_HLEN 14
#define ETH_VLAN_HLEN 4
#define ETH_MIN_FRAME 60 /* without FCS */
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_ARP 0x0806
#define ETHERTYPE_VLAN 0x8100

extern const uint8_t eth_broadcast[ETH_ALEN];

/* Prepend the Ethernet header (and tag) to p and send it out of nif. */
void ethernet_output(netif *nif, const uint8_t dst[ETH_ALEN], uint16_t ethertype, pkt *p);
/* A received frame: check destination and VLAN, strip the header, dispatch. */
void ethernet_input(netif *nif, const uint8_t *frame, size_t len, unsigned flags);

#endif
