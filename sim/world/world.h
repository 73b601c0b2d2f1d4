/* The world: a running scenario. world_new() builds everything an scn_scenario
 * (sim/scenario/scn_model.h) declares on one engine — switches, trunk wires, RoCE adapters with
 * their access wires, stacks with their interfaces (each on its own access wire), routes,
 * forwarding, the SMC-R layer of every SMC-R enabled stack (sim/smc/smc_layer.h) and the
 * applications — and world_run() executes it: applications start and close at their
 * times, the timeline's events (fail/restore, set, start/stop, report, expect) happen at
 * theirs, expectations are checked when due and at the end.
 *
 * Output goes to opts.out: reports (timeline snapshots and the final `report`s), one line
 * per failed expectation ("FILE:LINE: expectation failed: expect … (measured …)"), with
 * verbose on also an event log (timeline actions, connections, link groups and links,
 * IST2406I-style groups for link failures), and a closing summary with the fingerprint.
 * Everything printed depends only on the scenario and the seed.
 *
 * Fabric conventions (the scenario language leaves them to the runner):
 *  - every switch port is an 802.1Q trunk: untagged frames are VLAN 1, tagged frames keep
 *    their VLAN if the switch (and, between switches, the wire) carries it;
 *  - an adapter port's Ethernet MTU is its RoCE MTU plus 80 bytes of RoCE headers (its
 *    access wire allows that);
 *  - an interface or adapter port without a PNet id belongs to the stack's one default
 *    physical network ("SIMNET"): all of a stack's interfaces reach all its RoCE ports;
 *  - VMACs are the adapter's per-VF MACs (02:PF:ID:port:VF), distinct per stack.
 */
#ifndef SIM_WORLD_H
#define SIM_WORLD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/fabric/capture_file.h"
#include "sim/engine/engine.h"
#include "sim/fabric/fabric.h"
#include "sim/fabric/plug.h"
#include "sim/fabric/switch.h"
#include "sim/smc/realhw_map.h"
#include "sim/report/report.h"
#include "sim/scenario/scn_model.h"
#include "sim/smc/smc_layer.h"
#include "sim/net/stack.h"
#include "sim/world/world_observer.h"

typedef struct world world;

typedef enum world_style {
	WORLD_STYLE_SCENARIO, /* as each `report` says */
	WORLD_STYLE_NETSTAT,
	WORLD_STYLE_SMC,
	WORLD_STYLE_SMC_CHK, /* smc_chk's verdicts */
} world_style;

/* Where the whole-fabric capture taps (sim/world/world_capture.c). */
typedef enum world_taps {
	WORLD_TAPS_INGRESS = 0, /* each frame once, where it enters the fabric */
	WORLD_TAPS_BOTH = 1,    /* every access port in both directions */
} world_taps;

typedef struct world_opts {
	uint64_t seed; /* used when has_seed; else the scenario's */
	bool has_seed;
	uint64_t end_ns; /* used when has_end; else the scenario's */
	bool has_end;
	FILE *out;                  /* NULL: stdout */
	FILE *progress;             /* a progress line every ~second of wall time, or NULL */
	bool json;                  /* reports and the summary as one JSON document */
	world_style style;          /* text reports: override the scenario's formats */
	bool verbose;               /* event log */
	bool quiet;                 /* no timeline reports, no final reports, no summary (report cmd) */
	const char *pcap_path;      /* capture of the whole fabric, or NULL */
	const char *pcap_stack_dir; /* one capture per stack in this directory, or NULL */
	capture_format pcap_format; /* pcapng (default) or pcap */
	uint32_t pcap_snaplen;      /* frames cut to this many bytes; 0 = whole frames */
	world_taps pcap_taps;
	/* A capture that grows past this many bytes is said once on `warnings` (how large it
	 * will be at the end, and --pcap-snaplen); 0 or no stream: never. */
	uint64_t pcap_warn_bytes;
	FILE *warnings;
	const char *spare_port_switch; /* one more port on this switch, for an injector
	                                * (replay --mode timing); captured as "SW/replay" */
	/* --real-hw: the scenario's adapters are these RDMA devices (NULL: simulated). The
	 * engine then runs in real time and the run ends at the scenario's end or as soon as
	 * everything is done (see world_run). */
	const realhw_map *real_hw;
	/* Called every WORLD_POLL_EVENTS events while the world runs (NULL: never), for a
	 * caller that has other work to serve meanwhile (a sweep's rank 0 handing out points
	 * while it runs one itself). It must not touch the world. */
	void (*poll)(void *arg);
	void *poll_arg;
	/* Stop the run once this many events have run (0: no limit): a caller that runs
	 * worlds it did not write (the swarm) is safe from an event storm; world_over_budget()
	 * says it happened. */
	uint64_t max_events;
	/* Watches the run (sim/world/world_observer.h), or NULL. */
	const world_observer *observer;
	/* Every switch hop its own engine event (sim_fabric_set_event_hops): the same output,
	 * more events and another fingerprint; for comparing with the event-free hops. */
	bool event_hops;
} world_opts;

#define WORLD_POLL_EVENTS 4096

void world_opts_default(world_opts *o);

/* Build the world. NULL on failure with the reason in err. The scenario must outlive it. */
world *world_new(const scn_scenario *scn, const world_opts *o, char *err, size_t errlen);
/* Free the world and close its captures; -1 when a capture could not be written whole (said
 * on stderr), else 0: a command exits non-zero then, the capture lost data. */
int world_free(world *w);

/* Run to the end; returns the number of failed expectations. With real_hw the engine
 * follows the wall clock, completions of the real devices wake it, and the run also ends
 * once everything is done: the timeline is over, every application has started, opened
 * its connections and seen them closed, and no SMC-R connection is left in any stack (a
 * scenario with connections that stay open runs to its end). */
uint64_t world_run(world *w);

/* Run until virtual time `t` (absolute), executing timeline events due until then, without
 * the end-of-run checks. For tests. */
void world_run_until(world *w, sim_time t);
/* The end-of-run part of world_run (final expectations and reports, summary). */
uint64_t world_finish(world *w);

sim_engine *world_engine(const world *w);
sim_fabric *world_fabric(const world *w);
/* The adapter of the scenario's adapter `index`. */
rnic *world_rnic(const world *w, uint32_t index);
/* The switch of the scenario's switch `index`. */
sim_switch *world_switch(const world *w, uint32_t index);
/* The run's end (virtual ns), 0 if it runs until nothing is left to do. */
uint64_t world_end_time(const world *w);
const scn_scenario *world_scenario(const world *w);
/* The spare switch port (world_opts.spare_port_switch), or NULL. */
sim_plug *world_spare_port(const world *w);
uint64_t world_fingerprint(const world *w);
/* The run stopped at world_opts.max_events. */
bool world_over_budget(const world *w);
uint64_t world_events(const world *w);

stack *world_stack(const world *w, const char *name);
smc_layer *world_layer(const world *w, const char *name);

/* One connection of a connecting application, as both of its ends saw it. */
typedef struct world_conn_summary {
	const char *app;               /* the connecting app's name */
	uint32_t instance;             /* 1..conns */
	uint32_t client_ip, server_ip; /* host order */
	uint16_t client_port, server_port;
	bool opened;                     /* the client's TCP connection got a local port */
	sock_mode mode;                  /* as the client saw it */
	uint32_t fallback_reason;        /* the client's local reason, or 0 */
	sock_mode server_mode;           /* as the server saw it (when server_seen) */
	uint32_t server_fallback_reason; /* the server's local reason, or 0 */
	uint64_t client_sent, client_received, server_sent, server_received;
	/* what each end's application saw (the server's only when server_seen) */
	bool server_seen;                          /* the listener accepted it and paired it with this client */
	bool client_ended, server_ended;           /* closed, failed or refused */
	int client_err, server_err;                /* the socket error that ended it (0: none) */
	bool client_bad, server_bad;               /* received bytes that differ from the peer's pattern */
	uint64_t client_verified, server_verified; /* bytes received that matched the pattern */
	uint64_t t_connected, t_ended;             /* client side, engine ns (0: not yet) */
	uint64_t t_server_ended;
	world_connect_kind connect;                /* what became of the client's connect */
	char connect_cause[200];                   /* in words, when it did not connect ("" if it did) */
} world_conn_summary;


/* Every connection of the run so far, in the order they were opened. */
void world_foreach_conn(const world *w, void (*fn)(void *arg, const world_conn_summary *c), void *arg);

/* An ARP entry, live now, that holds a MAC other than that of the interface owning its
 * address (a corrupted ARP message taught it). */
typedef struct world_wrong_arp {
	uint32_t holder_ip; /* the interface holding the entry, host order */
	uint32_t target_ip; /* the entry's address */
	char text[200];     /* "S01.if0's ARP entry for 10.1.0.1 holds …, not S00.if0's …" */
} world_wrong_arp;
void world_foreach_wrong_arp(const world *w, void (*fn)(void *arg, const world_wrong_arp *e), void *arg);

/* Engine times (ns) of the first connection of connecting app `name` and of the end of
 * its last one; false if it has none, or one is still open. */
bool world_app_span(const world *w, const char *name, uint64_t *first_connect, uint64_t *last_end);

/* A failed expectation, as its line printed it. */
typedef struct world_failure {
	uint32_t line;      /* in the scenario file */
	uint64_t at_ns;     /* when it was checked */
	const char *expect; /* "expect delivered bulk == 1M" */
	const char *detail; /* "measured 0" */
} world_failure;

/* Every failed expectation so far, in the order they were checked. */
void world_foreach_failure(const world *w, void (*fn)(void *arg, const world_failure *f), void *arg);
uint64_t world_expectations_passed(const world *w);

/* What is alive in the world now: after a run that ended cleanly and went idle, only the
 * listeners' TCP control blocks remain (everything else was freed). */
typedef struct world_live {
	size_t pending_events; /* timers and postings in the engine */
	size_t frames;         /* frame buffers in use (in flight, queued, held) */
	size_t qps, mrs;       /* over every adapter */
	size_t tcp_pcbs;       /* over every stack */
	size_t smc_conns;      /* SMC connections the layers still know */
	size_t lgrs, links;    /* in the cores (terminating ones included) */
	size_t listeners;      /* listening applications started */
	char first_conn[160];  /* the first SMC connection left, in words ("" if none) */
} world_live;
void world_live_count(const world *w, world_live *out);

/* Measure a metric of an expectation (as the run would check it now). */
uint64_t world_measure(world *w, const scn_expect *e, char *detail, size_t detail_len);

/* Fill a report of the world now (stack_filter: SCN_NONE = every stack). */
void world_fill_report(world *w, smcr_report *r, uint32_t stack_filter);
/* Print a report now in `format` (SCN_REPORT_AUTO: each stack in its style). */
void world_print_report(world *w, FILE *out, scn_report_format format, uint32_t stack_filter, bool has_smcid,
                        uint32_t smcid);

#endif
