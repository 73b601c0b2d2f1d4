/* Event-free switch hops: the records of frames that crossed a switch before their time.
 * For sim/fabric/hop.c, wire.c and switch.c only.
 *
 * A frame entering a wire whose far end is a switch port (the usual access wire of an
 * adapter or a stack) arrives there at t1, where the switch forwards it onto another wire,
 * from whose far end it arrives at t2: two events, the first of which only moves the
 * frame along. When that crossing's outcome is already decided (an untagged unicast
 * frame to a learned port, a switch without congestion features, no tap at the switch,
 * wires without faults), wire.c makes it at once, as the frame enters the first wire: the
 * switch learns and counts, the frame joins the second wire's queue with its arrival at
 * t2, and no event runs at t1. The crossing stays exact as long as nothing that happens
 * before its place in the run order, (t1, s1) (s1: the order its arrival event would have
 * had), could have changed it; until then it is open, and undone (the frame goes back to
 * an arrival event at (t1, s1), as if never crossed) when:
 *  - another frame enters the second wire before that place (it is queued first);
 *  - anything is posted for t2 in that time (its event would have run before the frame's
 *    arrival, which now would run first): the engine's watched times tell;
 *  - the fabric changes (carrier, taps, a wire's parameters, a switch's ports or state,
 *    a learned station moving or being flushed).
 * Outputs are exactly those of the events it saves; the fingerprint is not (it folds
 * the events that run). */
#ifndef SIM_HOP_INT_H
#define SIM_HOP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/engine/engine.h"
#include "sim/fabric/fabric.h"
#include "sim/fabric/fdb.h"
#include "sim/fabric/switch.h"

/* What a switch did for one crossing, to be undone. */
typedef struct hop_fwd {
	sim_switch *sw;
	uint32_t in, out;   /* port indices */
	uint16_t vid;       /* the frame's VLAN */
	sim_fdb_entry *src; /* the source MAC's entry, refreshed (NULL: none, a multicast source) ... */
	sim_time seen_was;  /* ... and when it was seen before */
	sim_plug *egress;   /* the out port's plug */
} hop_fwd;

typedef struct hop_rec hop_rec;
struct hop_rec {
	void *d1, *d2;       /* the wire directions it crossed between (wire.c's) */
	sim_time t1;         /* its arrival at the switch ... */
	uint64_t s1;         /* ... and that arrival's order */
	uint32_t gen1;       /* d1's generation when it entered (a wire going down kills it) */
	sim_time t2;         /* its arrival at the far end of d2 ... */
	uint64_t s2;         /* ... and that arrival's order */
	uint64_t tx_free_was; /* d2's transmitter, before it */
	uint64_t tail_seq_was;
	sim_time tail_at_was;
	hop_fwd fwd;
	hop_rec *dir_next;          /* d2's records, in queue order */
	hop_rec *t2_next, *t2_prev; /* the records watching the same slot of time */
	hop_rec *live_next, *live_prev;
};

typedef struct sim_hops sim_hops;

/* fabric.c: the fabric's hops (NULL: every hop an event). */
sim_hops *sim_fabric_hops(const sim_fabric *fab);

/* The fabric's hops (made with it); NULL when another fabric has the engine's watch. */
sim_hops *sim_hops_new(sim_fabric *fab, sim_engine *eng);
void sim_hops_free(sim_hops *h);
bool sim_hops_enabled(const sim_hops *h);
void sim_hops_set_enabled(sim_hops *h, bool on);

/* A record for a crossing being made, and the posting order of its run (while set, the
 * watch judges sequences taken for t2 by (t1, s1), not by the engine's place). */
hop_rec *sim_hops_begin(sim_hops *h, sim_time t1, uint64_t s1);
/* The crossing was made: its record watches t2 from now on. */
void sim_hops_commit(sim_hops *h, hop_rec *r);
/* The crossing could not be made after all (nothing was changed). */
void sim_hops_cancel(sim_hops *h, hop_rec *r);
/* Its frame left d2's queue: the record goes. */
void sim_hops_release(sim_hops *h, hop_rec *r);
/* Whether the run is still before the record's place (it can be undone). */
bool sim_hops_open(const sim_hops *h, const hop_rec *r);
/* Undo every open crossing (of switch sw, or of all when NULL): the fabric changed. */
void sim_hops_abort(sim_hops *h, const sim_switch *sw);

/* wire.c: undo r and every later record of r's second wire (all open). */
void sim_wire_hop_undo(sim_hops *h, hop_rec *r);
/* switch.c: whether frame f reaching switch port `port` at `at` would go out of exactly one
 * other port, untagged, onto a wire, decided now (fwd filled; nothing changed); then make
 * the switch's part of it, or undo that. */
bool sim_switch_hop_decide(const sim_plug *port, const sim_frame *f, sim_time at, hop_fwd *fwd);
void sim_switch_hop_apply(hop_fwd *fwd, const sim_frame *f, sim_time at);
/* Ingress to egress through the switch of fwd. */
sim_time sim_switch_hop_latency(const hop_fwd *fwd);
void sim_switch_hop_undo(const hop_fwd *fwd, const sim_frame *f, sim_time at);

#endif
