/* A network interface (lwIP netif style): an OSA-like Ethernet port of one stack.
 *
 * The boundary to whatever carries frames is two calls wide:
 *   down: the netif hands complete Ethernet frames (no FCS, 802.1Q tag included when the
 *         netif has a VLAN) to its link: link_output(link_ctx, netif, frame, len, flags);
 *   up:   the link delivers received frames with netif_input(netif, frame, len), or
 *         netif_input_flags() with what the frame's producer vouched for, if the link
 *         knows the bytes are still the ones it was given.
 * Frames are borrowed for the duration of the call; a link that delays delivery copies.
 * A link must never call netif_input() from inside link_output(): stacks are not
 * re-entrant, so delivery always goes through an engine event (even with zero latency).
 * An optional tap sees every frame in both directions (pcap capture hooks in there). */
#ifndef SIM_NETIF_H
#define SIM_NETIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/host/host.h"
#include "sim/net/arp.h"

typedef struct stack stack;
typedef struct netif netif;

#define NETIF_NAME_LEN 16
#define ETH_ALEN 6

typedef enum netif_dir {
	NETIF_TX, /* leaving the stack */
	NETIF_RX, /* arriving from the link */
} netif_dir;

/* What the producer of a frame vouches for, from the stack down to its link and from a
 * link up to the receiving stack. NETIF_SUMS_OK: the IPv4 header checksum and the TCP
 * checksum are right (this stack computed them, TCP's segments and resets); a receiver
 * then skips verifying them. A link passes it up only for bytes nobody can have changed
 * on the way (a fabric frame still vouched for: sim_frame_sums_vouched). */
#define NETIF_SUMS_OK 1u

typedef void (*netif_link_output_fn)(void *link_ctx, netif *nif, const uint8_t *frame, size_t len,
                                     unsigned flags);
typedef void (*netif_tap_fn)(void *tap_ctx, const netif *nif, netif_dir dir, const uint8_t *frame,
                             size_t len);

typedef struct netif_counters {
	uint64_t tx_frames, tx_bytes;
	uint64_t tx_no_link; /* frames dropped: no link attached or interface down */
	uint64_t rx_frames, rx_bytes;
	uint64_t rx_not_ours;      /* destination MAC neither ours nor broadcast */
	uint64_t rx_vlan_mismatch; /* tagged with another VLAN, or tagged/untagged wrongly */
	uint64_t rx_malformed;     /* too short, bad tag, unknown ethertype */
} netif_counters;

/* What a frame arriving reads comes first (tap, filter, counters, the ARP cache's head):
 * a broadcast reaches every interface of its segment, each one a few cache misses. */
struct netif {
	netif_tap_fn tap;
	void *tap_ctx;
	bool up;
	uint16_t vlan_id; /* 802.1Q VLAN id 1..4094, 0 = untagged */
	uint8_t mac[ETH_ALEN];
	uint32_t ip4; /* IPv4 address, host order; 0 = none */
	uint8_t ip4_prefix_len;
	netif_counters ctr;
	arp_cache arp;
	stack *stack; /* owner */
	char name[NETIF_NAME_LEN];
	uint32_t index;  /* position in the stack, from 0 */
	uint64_t entity; /* stable id for engine events */
	uint16_t mtu;    /* IP MTU */
	netif_link_output_fn link_output;
	void *link_ctx;
	host_irq rx_irq;   /* receive queue 0's interrupts, on the host's interrupt CPU */
	host_irq *rx_irqs; /* queues 1.. when the host has more (RSS), else NULL */
};

/* Plug the netif into a link (NULL detaches). */
void netif_set_link(netif *nif, netif_link_output_fn fn, void *link_ctx);
void netif_set_tap(netif *nif, netif_tap_fn fn, void *tap_ctx);
void netif_set_up(netif *nif, bool up);
/* Give the interface its IPv4 address; adds the connected route. 0.0.0.0 removes it. */
int netif_set_ipv4(netif *nif, uint32_t addr, uint8_t prefix_len);

/* Up: a frame from the link (everything in it is verified). */
void netif_input(netif *nif, const uint8_t *frame, size_t len);
/* The same with the NETIF_* flags its producer gave it. */
void netif_input_flags(netif *nif, const uint8_t *frame, size_t len, unsigned flags);
/* Down: a complete frame to the link (called by the Ethernet layer). */
void netif_output(netif *nif, const uint8_t *frame, size_t len, unsigned flags);

/* The host's part of a frame accepted by the interface's filter: the NIC's DMA, an
 * interrupt (or a join of the poll running), the driver's work on the frame. The layers
 * above charge their own work; the caller ends it with host_irq_leave(). */
void netif_rx_host(netif *nif, const uint8_t *l3, size_t len, uint16_t ethertype);

/* Does addr lie in the interface's connected subnet? */
bool netif_on_subnet(const netif *nif, uint32_t addr);
uint32_t netif_netmask(const netif *nif);

#endif
