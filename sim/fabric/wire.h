/* Point-to-point wires: a full-duplex Ethernet link between two plugs.
 *
 * Each direction is a FIFO transmitter: a frame waits until the previous one has been
 * serialized (bandwidth: frame + preamble, FCS and inter-frame gap, at least the 60-byte
 * minimum frame), then travels for `latency`. Frames larger than the MTU (L2 payload,
 * excluding the Ethernet header and one 802.1Q tag) are dropped and counted, as is a frame
 * that would make the queue exceed queue_limit bytes.
 *
 * Faults are integer ratios drawn from seeded streams named "fabric.wire.loss",
 * ".dup", ".reorder", ".corrupt", indexed by 2 * wire id + direction, so turning one fault on
 * never shifts another's draws:
 *   loss      the frame is serialized but never arrives
 *   duplicate a second copy arrives right after the original
 *   reorder   the frame gets an extra delay, uniform in [1, reorder_delay] ns, and may be
 *             overtaken by later frames
 *   corrupt   one uniformly chosen bit of the frame is flipped (receivers find out through
 *             their checksums: a RoCE adapter drops the frame on its ICRC)
 * Taking a wire down drops everything queued or in flight; both ends lose carrier.
 */
#ifndef SIM_WIRE_H
#define SIM_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/fabric/fabric.h"
#include "sim/fabric/plug.h"
#include "sim/engine/rng.h"

typedef struct sim_wire sim_wire;

typedef struct sim_wire_params {
	sim_time latency;       /* propagation delay, ns */
	uint64_t bandwidth_bps; /* bits per second; 0 = infinite (no serialization delay) */
	uint32_t mtu;           /* largest L2 payload in bytes */
	uint64_t queue_limit;   /* bytes allowed to wait per direction; 0 = unlimited */
	sim_ratio loss, duplicate, reorder, corrupt;
	sim_time reorder_delay; /* largest extra delay of a reordered frame, ns */
} sim_wire_params;

typedef struct sim_wire_stats {
	uint64_t frames_in, bytes_in; /* offered at the sending end */
	uint64_t delivered;           /* handed to the receiving end's peer */
	uint64_t lost, duplicated, reordered, corrupted;
	uint64_t mtu_drops, queue_drops, down_drops, runts;
} sim_wire_stats;

/* 25 Gb/s, 500 ns, MTU 1500, unlimited queue, no faults. */
void sim_wire_params_default(sim_wire_params *p);

sim_wire *sim_wire_new(sim_fabric *fab, const char *name, const sim_wire_params *p);
/* side 0 or 1. */
sim_plug *sim_wire_end(sim_wire *w, unsigned side);
const char *sim_wire_name(const sim_wire *w);

/* Change parameters (faults, bandwidth...) from now on; frames in flight keep their times. */
void sim_wire_set_params(sim_wire *w, const sim_wire_params *p);
const sim_wire_params *sim_wire_params_get(const sim_wire *w);

void sim_wire_set_up(sim_wire *w, bool up);

/* Statistics of the direction that starts at end `side`. */
const sim_wire_stats *sim_wire_stats_get(const sim_wire *w, unsigned side);

/* When the transmitter that starts at this wire end is idle (ns, may be in the past). */
sim_time sim_wire_end_tx_idle_at(const sim_plug *end);

/* Hints for a sender about to send into this end (a switch flooding to every port asks
 * for the ports a few places ahead): stage 0 asks for the direction's lines a frame sent
 * in reads, stage 1 (later, once those are in) for the FIFO slot it will fill. Nothing
 * changes. */
void sim_wire_end_prefetch(const sim_plug *end, unsigned stage);

/* The parameters of the wire this end belongs to. */
const sim_wire_params *sim_wire_end_params(const sim_plug *end);

#endif
