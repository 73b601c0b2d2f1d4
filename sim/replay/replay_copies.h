/* Frames captured twice: the same packet recorded at two points of a fabric (a capture
 * with several taps, `smcr-sim run --pcap X --pcap-taps both`, a SPAN of two ports, a
 * router's ports) is one packet, not a retransmission.
 *
 * A frame is a copy when the same network-layer bytes (everything after the Ethernet
 * header and tags; for IP the TTL / hop limit and the IPv4 header checksum left out, as a
 * router changes them) were seen less than the copy window ago at another point: another
 * capture interface, or the same one with another TTL (a router forwarded it). The same
 * bytes again at a point that already had them are a real resend (the sender sent the
 * packet again: RoCE go-back-N, a TCP retransmission) and are decoded as such. Classic
 * pcap files have no interfaces, so there only forwarded copies can be told apart. */
#ifndef SIM_REPLAY_COPIES_H
#define SIM_REPLAY_COPIES_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/replay/replay_frame.h"

#define RP_COPY_WINDOW_NS 5000000ull /* 5 ms: far longer than a fabric's latency */

typedef struct rp_copies rp_copies;

rp_copies *rp_copies_new(uint64_t window_ns);
void rp_copies_free(rp_copies *c);
/* Is this frame (parsed, seen at ts on capture interface iface) a copy of one already
 * seen? Records it either way. */
bool rp_copies_check(rp_copies *c, uint64_t ts_ns, uint32_t iface, const rp_frame *f);

#endif
