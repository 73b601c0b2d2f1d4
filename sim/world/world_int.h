/* Internals of the world (sim/world/world.h), shared by its files:
 *   world.c           building and freeing the fabric, adapters, stacks and layers
 *   world_apps.c      the scenario's applications and their connections (flows)
 *   world_run.c       the run loop, the timeline, expectations, the event log, summary
 *   world_report.c    filling and printing operator reports
 *   world_results.c   what the applications and hosts measured (world_results.h)
 *   world_capture.c   captures of the fabric and per stack, packet comments */
#ifndef SIM_WORLD_INT_H
#define SIM_WORLD_INT_H

#include <glib.h>

#include "sim/app/app.h"
#include "sim/app/app_result.h"
#include "sim/fabric/fabric.h"
#include "sim/report/json_writer.h"
#include "sim/net/netif_fabric.h"
#include "sim/engine/realtime.h"
#include "sim/rdma/rnic.h"
#include "sim/fabric/switch.h"
#include "sim/fabric/wire.h"
#include "sim/world/world.h"

typedef struct world_adapter {
	rnic *r;
	sim_wire *wire[RNIC_MAX_PORTS]; /* access wires */
	sim_switch *sw[RNIC_MAX_PORTS];
	uint32_t sw_port[RNIC_MAX_PORTS];
	bool failed; /* the whole adapter */
	bool port_failed[RNIC_MAX_PORTS];
} world_adapter;

typedef struct world_iface {
	netif *nif;
	netif_fabric_port port;
	sim_wire *wire;
	sim_switch *sw;
	uint32_t sw_port;
	bool failed;
} world_iface;

typedef struct world_host {
	stack *st;
	smc_layer *l;
	world_iface *ifs;
	size_t n_ifs;
	uint32_t report_id;  /* 1-based, scenario order */
	uint64_t *lgrs_seen; /* link groups connections were logged on (verbose) */
	size_t n_lgrs_seen;
	/* the host's CPU accounts when one of its connection ends last ended (world_results.c):
	 * what the applications' window cost, without the timers' work long after */
	bool cpu_snap;
	host_cpu_stats snap_tot;
	uint64_t snap_busiest; /* the busiest CPU's busy time then */
	sim_time snap_free_at; /* when the work charged by then was done */
} world_host;

typedef struct world_flow world_flow;
typedef struct world_capture world_capture;
typedef struct world_app world_app;

/* One connection of a connecting app (instance K): the library's flow with both ends
 * (sim/app/app.h: what each end wrote, read and verified) and what the world knows of it. */
struct world_flow {
	app_flow af;                 /* first: an end's flow is its world_flow */
	world *w;
	uint32_t app;                /* client app index */
	uint32_t listener;           /* listening app index */
	uint32_t instance;           /* 1..conns */
	uint64_t seq;                /* creation order, from 1 */
	uint64_t key;                /* (server stack, client ip, client port) */
	uint32_t stack[2];           /* scenario stack of the client end [0] and the server end [1] */
	uint32_t peer_diag[2];       /* the peer's decline diagnosis of a fallen-back end, or 0 */
	/* each end's TCP addresses once connected (host order), kept for the reports of
	 * connections already closed (smc_chk) */
	uint32_t local_ip[2], peer_ip[2];
	uint16_t local_port[2], peer_port[2];
	bool srv_seen;
	bool foreign; /* adopted: its client is not ours (replay's recorded peer) */
	/* a client's connect that failed (world_connect.c); it began at af.t_start */
	uint8_t fail;       /* world_connect_kind, 0 while none */
	int fail_err;
	uint32_t fail_addr; /* ARP: the next hop that never answered */
	uint32_t syns;      /* SYNs sent before it failed */
};

typedef app_end world_end;

static inline world_flow *world_flow_of(const world_end *e) { return (world_flow *)e->f; }
/* The scenario stack an end runs on. */
static inline uint32_t world_end_stack(const world_end *e) { return world_flow_of(e)->stack[e->server]; }
static inline uint32_t world_end_peer_diag(const world_end *e) { return world_flow_of(e)->peer_diag[e->server]; }

/* An instance of a connecting app whose connections follow one another (crr) or pause
 * (think time): the library's app_client and which app and instance it is. */
typedef struct world_client {
	app_client c;
	world *w;
	uint32_t app, instance;
} world_client;

struct world_app {
	world *w;
	uint32_t idx;
	app_spec spec;          /* connect apps: what each connection runs */
	app_listener *listener; /* listen apps */
	world_client **clients; /* its instances that need one, in creation order */
	size_t n_clients, cap_clients;
	bool running;
	uint64_t starts;    /* times it was started */
	/* its flows in creation order (a client: those it opened; a listener: those aimed
	 * at it), so closing and counting one app does not walk every flow of the world */
	world_flow **flows;
	size_t n_flows, cap_flows;
};

struct world {
	const scn_scenario *scn;
	world_opts o;
	FILE *out;
	uint64_t seed, end_ns;
	bool has_end;
	sim_engine *eng;
	sim_fabric *fab;
	sim_switch **sw;
	uint32_t *sw_used;
	sim_wire **trunks;
	world_adapter *ad;
	world_host *st;
	world_app *apps;
	world_flow **flows;
	size_t n_flows, cap_flows;
	uint64_t n_clients; /* world_client instances made so far (their timers' entity) */
	GHashTable *flow_by_key;
	report_event *events; /* link failures and removals, for reports and the log */
	size_t n_events, cap_events;
	uint64_t expect_passed, expect_failed;
	GArray *failures; /* world_failure, with the texts in failure_text */
	GStringChunk *failure_text;
	size_t next_timeline;
	uint32_t k_app_open, k_app_close;
	world_capture *cap;   /* --pcap, --pcap-per-stack */
	sim_switch *spare_sw; /* opts.spare_port_switch */
	uint32_t spare_port;
	json_writer json;
	bool json_open;
	bool finished;
	bool freeing; /* taking the world down: no more log lines */
	double wall_start, wall_last_progress;
	uint64_t progress_events;
	uint64_t progress_slices; /* poll slices since the last progress check */
	sim_time progress_vt;     /* virtual time at the last progress line */
	realhw_map real;          /* --real-hw mapping with the scenario's PNet ids */
	sim_realtime *rt;         /* real-time driver (real_hw), else NULL */
	sim_event done_check;     /* real_hw: ends the run once everything is done */
	bool done;
	bool over_budget;         /* max_events reached: the run stopped */
	sim_time obs_next_sample; /* the observer's next sample (world_observe.c) */
	sim_time obs_last_sample;
	bool obs_sampled; /* a sample was taken (obs_last_sample is valid) */
};

/* world.c */
world_host *world_stack_of_layer(world *w, const smc_layer *l);
double world_wall_seconds(void);
void world_log_prefix(world *w, FILE *out);

/* world_capture.c */
int world_capture_open(world *w, char *err, size_t errlen);
int world_capture_close(world *w);
void world_capture_links_changed(world *w);

/* world_apps.c: a connection's name, "bulk.3" (the app's name alone when it opens one) */
void world_flow_name(const world *w, const world_flow *f, char *buf, size_t len);

/* world_results.c: take the host's CPU accounts as they are now (an end of it ended) */
void world_cpu_snapshot(world *w, uint32_t stack_idx);

/* world_connect.c: a client's connect that failed (at_once: sock_connect refused it) */
void world_connect_failed(world *w, world_flow *f, sock *s, int err, bool at_once);
world_connect_kind world_connect_kind_of(const world_flow *f);
/* The cause in words: why it did not connect, or that it is still connecting. */
void world_connect_cause(const world *w, const world_flow *f, char *buf, size_t n);
/* The run's JSON result: "connects", the attempts and every one that did not connect. */
void world_json_connects(world *w, json_writer *j);

/* world_apps.c */
void world_apps_init(world *w);
void world_apps_free(world *w);
void world_app_start(world *w, uint32_t app);
void world_app_stop(world *w, uint32_t app);
uint64_t world_app_counter(world *w, scn_metric m, scn_app_ref ref);
/* Every application started, opened its connections and saw them closed. */
bool world_apps_done(const world *w);

/* world_results.c: what the applications and hosts measured (sim/app/app_result.h) */
/* A result expectation (ops, latency, connect, fct, throughput, cpu): *v measured and the
 * detail; false when there is nothing to measure (no transaction, no connection). */
bool world_result_measure(world *w, const scn_expect *x, uint64_t *v, char *detail, size_t dlen);
bool world_metric_is_result(scn_metric m);
void world_print_results(world *w, FILE *out);
void world_json_results(world *w, json_writer *j);

/* world_observe.c: the observer's hooks (each does nothing without an observer) */
void world_obs_attach(world *w, world_host *ws);
void world_obs_core_event(world *w, const smc_layer *l, const smcr_event *ev);
void world_obs_conn(world *w, const world_end *e, world_conn_what what);
void world_obs_timeline(world *w, const scn_event *ev);
void world_obs_expect(world *w, const scn_expect *x, bool ok, const char *detail);
/* The time of the next sample, SIM_TIME_NEVER when none; take it after the engine ran up
 * to t (idle: it had nothing left to run, and nothing will happen before `until`). */
sim_time world_obs_next_sample(const world *w);
void world_obs_sample(world *w, sim_time t, bool idle, sim_time until);
void world_obs_finish(world *w);

/* world_report.c */
void world_log_connected(world *w, const world_end *e, sock *s);
void world_log_closed(world *w, const world_end *e);
/* A server end that declined with MEM under its stack's fixed-memory limit (the log). */
void world_log_server_fallback(world *w, const world_end *e);
/* A client whose connect failed before it had a socket (no route): the log and observers. */
void world_log_connect_failed(world *w, const world_flow *f);
/* At the end of the run: every connect still pending, in the log and to observers. */
void world_log_pending_connects(world *w);
void world_on_layer_event(void *user, smc_layer *l, const smcr_event *ev);
void world_on_port_event(void *user, smc_layer *l, uint32_t port_index, bool up);
void world_report_snapshot(world *w, const scn_report *rep, const char *why);
/* world_fabric.c: switch congestion counters (nothing when no switch has a buffer). */
void world_print_fabric(world *w, FILE *out);
void world_write_fabric_json(world *w, json_writer *j);

/* world_congestion.c: the adapters' congestion counters, only when in use */
bool world_cc_in_use(const world *w);
void world_print_congestion(world *w, FILE *out);
void world_json_congestion(world *w, json_writer *j);

#endif
