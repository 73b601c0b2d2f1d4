/* ARP (RFC 826) for one interface: a cache of resolved neighbours that expire, requests
 * retried on a timer, and packets held while their next hop is being resolved (sent in
 * order once the reply arrives, dropped when resolution gives up). */
#ifndef SIM_ARP_H
#define SIM_ARP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "sim/engine/engine.h"

typedef struct netif netif;
typedef struct pkt pkt;

#define ARP_PKT_LEN 28

typedef struct arp_held arp_held; /* a queued IPv4 packet */

typedef enum arp_state {
	ARP_PENDING,  /* request sent, waiting for a reply */
	ARP_RESOLVED, /* MAC known until `expires` */
} arp_state;

typedef struct arp_entry {
	struct arp_entry *next; /* cache list, in creation order */
	netif *nif;
	uint32_t ip;
	uint8_t mac[6];
	arp_state state;
	sim_time expires; /* RESOLVED: when the entry goes stale */
	uint32_t tries;   /* PENDING: requests sent so far */
	arp_held *held_head, *held_tail;
	uint32_t n_held;
	sim_event retry; /* PENDING: next request or give-up */
} arp_entry;

typedef struct arp_counters {
	uint64_t requests_sent, replies_sent;
	uint64_t requests_received, replies_received;
	uint64_t resolved;     /* entries that went from PENDING to RESOLVED */
	uint64_t failed;       /* resolutions given up */
	uint64_t held_dropped; /* packets dropped: queue full or resolution failed */
	uint64_t malformed;
	uint64_t evicted;
} arp_counters;

typedef struct arp_cache {
	arp_entry *head;   /* creation order: what eviction and listing go by */
	GHashTable *by_ip; /* address -> entry, for finding only (NULL while small) */
	uint64_t ip_bits;  /* a bit per address in the cache (6 bits of a hash): clear = absent */
	arp_counters ctr;
	size_t n;
} arp_cache;

void arp_cache_init(arp_cache *c);
/* Drop every entry and held packet, cancelling timers. */
void arp_cache_clear(netif *nif);

/* Send an IPv4 packet (p holds the IP datagram) to next hop `nexthop` on nif. */
void arp_output(netif *nif, uint32_t nexthop, pkt *p);
/* An ARP packet (after the Ethernet header). */
void arp_input(netif *nif, const uint8_t *msg, size_t len);
/* The MAC for ip if resolved and fresh (for tests and reports). */
bool arp_lookup(const netif *nif, uint32_t ip, uint8_t mac[6]);

#endif
