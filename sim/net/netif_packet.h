/* A netif plugged into a real Ethernet interface through an AF_PACKET socket: the
 * virtual stack's frames (ARP, IPv4, TCP with the SMC option, CLC) go out on the wire
 * with the stack's own MAC and IP, and frames for that MAC (or broadcast/multicast) come
 * back in. The host kernel does not answer for the stack: its address is one the kernel
 * does not have, and frames for a foreign MAC are PACKET_OTHERHOST to the kernel's IP
 * layer, which drops them.
 *
 * The stack's MAC is added to the interface's unicast filter (PACKET_MR_UNICAST; a
 * device without a unicast filter goes promiscuous by itself), and a socket filter lets
 * only frames to that MAC or to a group address reach the process, never our own. Only
 * untagged frames are carried (the kernel strips VLAN tags from packet sockets).
 *
 * It is meant for real-time runs (sim/engine/realtime.h): the host watches netif_packet_fd()
 * and calls netif_packet_process() when it is readable; every waiting frame then goes up
 * through netif_input(). Frames going down are sent at once (short ones padded to the
 * Ethernet minimum of 60 bytes); a full socket buffer drops the frame as a busy NIC
 * queue would, and TCP recovers. Needs CAP_NET_RAW. */
#ifndef SIM_NETIF_PACKET_H
#define SIM_NETIF_PACKET_H

#include <stddef.h>
#include <stdint.h>

#include "sim/net/netif.h"

typedef struct netif_packet netif_packet;

typedef struct netif_packet_counters {
	uint64_t tx_frames, tx_bytes;
	uint64_t tx_dropped; /* the socket refused the frame (buffer full, link down) */
	uint64_t rx_frames, rx_bytes;
	uint64_t rx_skipped; /* frames the filter let through that are not for the netif
	                            * (outgoing copies, truncated ones) */
} netif_packet_counters;

/* Open a packet socket on interface `ifname` and make it nif's link. NULL on failure,
 * with a message naming the call and the interface in err (e.g. "socket(AF_PACKET):
 * Operation not permitted (needs root or CAP_NET_RAW)"). */
netif_packet *netif_packet_open(netif *nif, const char *ifname, char *err, size_t errlen);
/* Detach from the netif and close the socket. */
void netif_packet_close(netif_packet *p);

/* The descriptor to watch for readability (non-blocking). */
int netif_packet_fd(const netif_packet *p);
/* Deliver every frame waiting on the socket; returns the number delivered or -errno. */
int netif_packet_process(netif_packet *p);

const netif_packet_counters *netif_packet_counters_get(const netif_packet *p);

#endif
