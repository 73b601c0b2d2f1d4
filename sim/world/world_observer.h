/* Watching a running world from outside (sim/observe/ does: the event stream, the
 * statistics, the pictures). The world calls an observer at the points its event log
 * already marks — every CLC, LLC and CDC message of a core, the cores' link and link-group
 * events, connections opening and ending, the timeline's actions, expectations — and on a
 * sampling clock of virtual time. An observer only reads (through the accessors below and
 * the cores' introspection), so a run with one behaves exactly as a run without: the same
 * engine events, the same fingerprint, the same output. Every callback is optional and is
 * read when it is due: an observer that needs the world (to name things) may fill its
 * callbacks in after world_new(), which only keeps the pointer. */
#ifndef SIM_WORLD_OBSERVER_H
#define SIM_WORLD_OBSERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "model/smcr.h"
#include "sim/net/sock.h"
#include "sim/scenario/scn_model.h"
#include "sim/smc/smc_layer.h"

typedef struct world world;
typedef struct app_flow app_flow; /* sim/app/app.h */

/* What became of a connect attempt (sim/world/world_connect.c). */
typedef enum world_connect_kind {
	WORLD_CONNECT_OK = 0,      /* connected (its mode says how) */
	WORLD_CONNECT_NO_ROUTE,    /* the client's stack has no route to the address */
	WORLD_CONNECT_ARP,         /* the next hop never answered ARP (wrong subnet or VLAN) */
	WORLD_CONNECT_SYN_TIMEOUT, /* the SYN was never answered: SYN retries exhausted */
	WORLD_CONNECT_REFUSED,     /* the SYN was answered with a reset */
	WORLD_CONNECT_FAILED,      /* another error */
	WORLD_CONNECT_PENDING,     /* still connecting (the run ended first) */
} world_connect_kind;
/* "connected", "no_route", "arp_unanswered", "syn_timeout", "refused", "failed", "pending" */
const char *world_connect_kind_name(world_connect_kind k);

/* One end of one connection of a connecting app (its "flow"), as the world knows it. */
typedef struct world_conn_view {
	uint64_t flow;              /* the connection's number in the run (1, 2, … opening order) */
	char name[48];              /* the connecting app's instance: "bulk.3" (or "bulk" if conns=1) */
	uint32_t app, listener;     /* scenario app indices: the connecting and the listening app */
	uint32_t stack, peer_stack; /* scenario stack indices of this end and the other */
	bool server;                /* this end is the accepted one */
	bool connected;             /* its mode is known */
	sock_mode mode;
	uint32_t fallback_reason;   /* this end's local reason (SMCR_DECL_*), 0 none */
	uint32_t peer_diagnosis;    /* the peer's Decline code, 0 none */
	uint32_t local_ip, peer_ip; /* host order; 0 while unknown */
	uint16_t local_port, peer_port;
	int err;                 /* how it ended (negative errno), 0 */
	uint64_t sent, received; /* bytes written, bytes received and verified */
	sock *s;                 /* its socket while open, else NULL (observers only read it) */
	const app_flow *af;      /* the connection's two ends and what they measured (app_flow_result) */
	/* a client end that did not connect: what became of it and why, in words */
	world_connect_kind connect;
	char cause[200];
} world_conn_view;

typedef enum world_conn_what {
	WORLD_CONN_OPENED = 1, /* connected: mode (and fallback reason) decided */
	WORLD_CONN_CLOSED,     /* closed, or failed (err; a connect that failed: connect, cause) */
	WORLD_CONN_PENDING,    /* the run ended with this client still connecting (connect, cause) */
} world_conn_what;

typedef struct world_observer {
	void *ctx;
	/* A CLC, LLC or CDC message stack `stack` (scenario index) sent or received. */
	void (*message)(void *ctx, world *w, uint32_t stack, const smcr_trace_msg *m);
	/* A core event of stack `stack`: links, link groups, rejections, decode errors. */
	void (*core_event)(void *ctx, world *w, uint32_t stack, const smcr_event *ev);
	/* A connection end opened or ended. */
	void (*conn)(void *ctx, world *w, world_conn_what what, const world_conn_view *c);
	/* A timeline action (fail, restore, set, start, stop) was just applied. */
	void (*timeline)(void *ctx, world *w, const scn_event *ev);
	/* An expectation was checked: ok or not, the measured detail. */
	void (*expect)(void *ctx, world *w, const scn_expect *x, bool ok, const char *detail);
	/* Statistics: at every multiple of sample_ns of virtual time, after the engine events
	 * due then (none while the engine has nothing to do), and once at the end. */
	uint64_t sample_ns;
	void (*sample)(void *ctx, world *w, uint64_t t);
	/* The run is over: the last sample was taken, the final expectations checked. */
	void (*finish)(void *ctx, world *w);
} world_observer;

/* For observers: the parts of a world by scenario index (NULL out of range; a stack
 * without SMC-R has no layer). */
stack *world_stack_at(const world *w, uint32_t si);
smc_layer *world_layer_at(const world *w, uint32_t si);
/* Every connection end the run has had so far (open, ended, or a client still
 * connecting), in opening order, the client end before the server end. */
void world_foreach_end(const world *w, void (*fn)(void *arg, const world_conn_view *c), void *arg);
/* The connection end of stack `si` with this 4-tuple (host order), whether or not the
 * application has seen it yet (an accepted end is named during its CLC handshake too);
 * false if no flow has it. */
bool world_find_end(const world *w, uint32_t si, uint32_t local_ip, uint16_t local_port, uint32_t peer_ip,
                    uint16_t peer_port, world_conn_view *out);

#endif
