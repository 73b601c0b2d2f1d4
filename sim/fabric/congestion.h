/* What crosses the seam between the fabric's congestion machinery (switch buffers, PFC,
 * ECN marking) and the adapters (PAUSE honoured at egress, CNPs, DCQCN):
 *
 *  - A frame's priority (0..7): the PCP of its 802.1Q tag, or for RoCE v2 (IPv4) the DSCP
 *    of its TOS byte mapped through a table the scenario gives (sim_prio_map). Untagged
 *    frames without a DSCP mapping get the map's default priority.
 *  - Its ECN field (RFC 3168: the low two bits of the IPv4 TOS byte): Not-ECT 00, ECT(1)
 *    01, ECT(0) 10, CE 11. A switch marks CE only on ECT frames; RoCE v2's ICRC masks the
 *    whole TOS byte, so marking needs only the IPv4 header checksum fixed. RoCE v1 (GRH,
 *    ethertype 0x8915) has no IP ECN field: a switch never marks it.
 *  - MAC control frames (ethertype 0x8808, to 01:80:C2:00:00:01, never forwarded):
 *    802.1Qbb PFC (opcode 0x0101: a class-enable vector, then 8 quanta, one per priority)
 *    and 802.3x PAUSE (opcode 0x0001: one quanta for the whole link). A quantum is 512 bit
 *    times at the link's rate; quanta 0 means resume (XON).
 *  - The endpoint consumes MAC control frames (they never reach rx), keeps per priority
 *    the time until which its link partner paused it, and tells its owner through a pause
 *    callback, so an adapter can hold (and later restart) its egress for that priority.
 */
#ifndef SIM_CONGESTION_H
#define SIM_CONGESTION_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/engine/engine.h"
#include "sim/fabric/frame.h"

#define SIM_PRIOS 8u

#define SIM_ETHERTYPE_MAC_CONTROL 0x8808
#define SIM_MACCTL_PAUSE 0x0001u /* 802.3x: the whole link */
#define SIM_MACCTL_PFC 0x0101u   /* 802.1Qbb: per priority */
#define SIM_PAUSE_QUANTUM_BITS 512u
/* Destination of every PAUSE/PFC frame (a MAC control address bridges never forward). */
extern const uint8_t sim_macctl_dst[6];

/* ECN codepoints (RFC 3168). */
enum {
	SIM_ECN_NOT_ECT = 0,
	SIM_ECN_ECT1 = 1,
	SIM_ECN_ECT0 = 2,
	SIM_ECN_CE = 3,
};

/* A decoded PAUSE or PFC frame. For 802.3x PAUSE, class_enable is 0xFF and all 8 quanta
 * carry the one value. */
typedef struct sim_pause_frame {
	uint16_t opcode;      /* SIM_MACCTL_PAUSE or SIM_MACCTL_PFC */
	uint8_t class_enable; /* bit p set: quanta[p] applies to priority p */
	uint16_t quanta[SIM_PRIOS];
} sim_pause_frame;

/* How a port classifies frames to priorities. */
typedef enum sim_prio_trust {
	SIM_TRUST_PCP = 0,  /* 802.1Q PCP; untagged frames: default_prio */
	SIM_TRUST_DSCP = 1, /* IPv4 DSCP through dscp[]; non-IPv4 frames: PCP, else default_prio */
} sim_prio_trust;

typedef struct sim_prio_map {
	sim_prio_trust trust;
	uint8_t default_prio;
	uint8_t dscp[64]; /* DSCP -> priority */
} sim_prio_map;

/* Trust PCP, default priority 0, DSCP d -> d >> 3 (the class selector). */
void sim_prio_map_default(sim_prio_map *m);

/* The priority of a complete Ethernet frame under map m. */
unsigned sim_frame_priority(const sim_prio_map *m, const uint8_t *p, uint32_t len);

/* The IPv4 header of an Ethernet frame (tagged or not), or NULL when it is not IPv4. */
const uint8_t *sim_frame_ipv4(const uint8_t *p, uint32_t len);
/* The frame's ECN codepoint (SIM_ECN_NOT_ECT for anything not IPv4). */
unsigned sim_frame_ecn(const uint8_t *p, uint32_t len);
/* Set CE on an ECT IPv4 frame (copy on write) and fix its header checksum.
 * Returns false (frame untouched) when it is not ECN-capable. */
bool sim_frame_mark_ce(sim_frame *f);
/* Set the ECN codepoint of an IPv4 header in place, fixing its checksum (for senders
 * that build the header themselves: an adapter setting ECT(0) on RoCE v2). */
void sim_ipv4_set_ecn(uint8_t *ipv4_hdr, unsigned ecn);

/* Build a PFC frame from src: bit p of class_enable set = quanta[p] applies. */
sim_frame *sim_pfc_build(sim_frame_pool *pool, const uint8_t src[6], uint8_t class_enable,
                         const uint16_t quanta[SIM_PRIOS]);
/* Build an 802.3x PAUSE frame. */
sim_frame *sim_pause_build(sim_frame_pool *pool, const uint8_t src[6], uint16_t quanta);
/* Whether the frame is MAC control (ethertype 0x8808, untagged or tagged). */
bool sim_frame_is_mac_control(const uint8_t *p, uint32_t len);
/* Decode a PAUSE or PFC frame; false for anything else (other opcodes, short frames). */
bool sim_pause_parse(const uint8_t *p, uint32_t len, sim_pause_frame *out);

/* How long `quanta` pause quanta last on a link of `bps` bits per second (ns, rounded
 * up; an infinite-rate link (bps 0) counts as 100 Gb/s so a pause still takes time). */
sim_time sim_pause_quanta_ns(uint16_t quanta, uint64_t bps);

/* The callback through which an endpoint's owner learns that its link partner paused
 * priority `prio` until `until` (until <= at: resumed, an XON or quanta 0). Called once
 * per enabled priority of each PAUSE/PFC frame received, from an engine event. */
typedef void (*sim_pause_fn)(void *ctx, unsigned prio, uint16_t quanta, sim_time until, sim_time at);

#endif
