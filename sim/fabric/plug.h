/* Plugs: the places where fabric objects meet. A switch port, each end of a wire and each
 * endpoint (a NIC port) is a plug; two plugs are connected by sim_plug_connect(), like a
 * cable into a socket. Frames cross a connection in zero time; delays belong to wires
 * (latency, serialization) and switches (forwarding latency).
 *
 * Carrier: a plug is `up` when its owner can carry frames (switch alive and port enabled,
 * wire up, endpoint administratively up). The connection has carrier when both plugs are
 * up. Frames offered without carrier are dropped and counted. When carrier changes, both
 * owners hear about it (carrier_changed), which is how a NIC learns that its link went down.
 *
 * Taps: every plug has one optional tap that sees each frame crossing it, in both
 * directions, with its virtual timestamp. IN = from the peer into the plug's owner, OUT =
 * from the owner to the peer. An unused tap costs one NULL check. Taps only look.
 */
#ifndef SIM_PLUG_H
#define SIM_PLUG_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/engine/engine.h"
#include "sim/fabric/frame.h"

typedef struct sim_fabric sim_fabric;
typedef struct sim_plug sim_plug;

typedef enum sim_plug_kind {
	SIM_PLUG_SWITCH_PORT = 1,
	SIM_PLUG_WIRE_END = 2,
	SIM_PLUG_ENDPOINT = 3,
} sim_plug_kind;

typedef enum sim_tap_dir {
	SIM_TAP_IN = 0,  /* peer -> owner */
	SIM_TAP_OUT = 1, /* owner -> peer */
} sim_tap_dir;

/* `at` is the virtual time the frame crosses the plug (>= now). */
typedef void (*sim_tap_fn)(void *ctx, const sim_plug *plug, sim_tap_dir dir, sim_time at,
                           const sim_frame *f);

/* What a frame crossing reads comes first, in 64 bytes: a broadcast crosses thousands of
 * plugs, each a cache miss. */
struct sim_plug {
	sim_fabric *fab;
	uint64_t id;
	sim_plug_kind kind;
	bool up;      /* the owner's side can carry frames */
	bool carrier; /* up, connected and the peer up: kept by plug.c whenever one changes, so
	               * a sender (a switch flooding to every port) need not read the peer */
	sim_plug *peer;
	sim_tap_fn tap;
	void *tap_ctx;
	/* Owner hooks. receive() takes ownership of f, which reaches the plug at time `at`. */
	void (*receive)(sim_plug *self, sim_frame *f, sim_time at);
	void *owner;
	void (*carrier_changed)(sim_plug *self);
	uint64_t drops_no_carrier; /* frames offered to this plug's peer without carrier */
	char name[48];
};

/* For owners: set up an embedded plug (gets a fresh id; starts up, unconnected). */
void sim_plug_init(sim_plug *p, sim_fabric *fab, sim_plug_kind kind, const char *name, void *owner,
                   void (*receive)(sim_plug *, sim_frame *, sim_time),
                   void (*carrier_changed)(sim_plug *));

/* Connect two free plugs. Errors (negative SMCR_ERR_*): STATE if either is already
 * connected; INVAL for a plug with itself, endpoint with endpoint, or wire end with wire
 * end (a wire's carrier depends on the far side, which would loop). */
int sim_plug_connect(sim_plug *a, sim_plug *b);
void sim_plug_disconnect(sim_plug *p);

static inline bool sim_plug_carrier(const sim_plug *p) { return p->carrier; }

/* For owners: change this side's up state; both sides hear of a carrier change. */
void sim_plug_set_up(sim_plug *p, bool up);

/* For owners: hand f (ownership passes) to the peer, arriving at time `at` (>= now).
 * Without carrier the frame is dropped and counted; returns false then. Runs both taps. */
bool sim_plug_send(sim_plug *p, sim_frame *f, sim_time at);

void sim_plug_set_tap(sim_plug *p, sim_tap_fn fn, void *ctx);

/* Ask for what sending to p reads (its first 64 bytes, which an embedded plug may
 * spread over two cache lines). Only a hint: nothing changes. */
static inline void sim_plug_prefetch(const sim_plug *p)
{
	__builtin_prefetch(p);
	__builtin_prefetch((const char *)p + 63);
}

#endif
