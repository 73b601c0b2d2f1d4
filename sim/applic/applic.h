/* `smcr-sim applicability CAPTURE`: will SMC-R help this workload?
 *
 * 1. The figures z/OS's SMC Applicability Tool (SMCAT, `VARY TCPIP,,SMCAT`; z/OS
 *    Communications Server: IP System Administrator's Commands) reports for a stack's
 *    traffic, from a plain TCP capture, per destination and in total:
 *      - the share of TCP connections that could use SMC (eligible): both ends have
 *        SMC-R and reach each other over it (the set-up: sim/applic/applic_setup.h);
 *      - the share of eligible connections that are well-suited: SMCAT leaves out those
 *        that are short-lived and exchange little data;
 *      - the share of all TCP segments, sent and received, on well-suited connections;
 *      - the application send and receive sizes of the well-suited connections.
 *    SMCAT's own duration and size thresholds are not in the IBM material this project
 *    could read: the defaults here (1 s, 10,000 bytes, the size classes) are assumptions,
 *    options of the command, and every output names them.
 * 2. What SMCAT cannot say: the recorded applications of the eligible connections (their
 *    writes, reads, think times and closes, read from the TCP headers as the re-drive's
 *    recorded-application player takes them: sim/app/app_recorded.h) re-run in the
 *    simulator twice, over TCP and over SMC-R, on one switch whose path delays are the
 *    capture's measured round trips, each host a Linux stack on a host with CPUs and a
 *    cost profile (sim/host/, docs/hosts.md: linux unless chosen); per connection and in
 *    total: request/response latency, throughput, completion, and CPU time (per host and
 *    by category exactly; a connection's as its share of its hosts' time, applic_rerun.c).
 *
 * The capture (pcap or pcapng; Ethernet, Linux cooked, raw IP or loopback; IPv4 and IPv6;
 * one host or a span port) is read once, streaming: connections are tracked at most
 * max_open at a time (the least recently seen go first), ended ones folded into the
 * figures at once, so memory stays bounded whatever the file's size. Headers alone are
 * enough (a snap length of 96 bytes), and segments above the MTU (TSO/GSO) count as the
 * writes they are. Bad input is said with frame numbers and skipped; the result says
 * what it left out. */
#ifndef SIM_APPLIC_H
#define SIM_APPLIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/applic/applic_hosts.h"
#include "sim/applic/applic_setup.h"

#define APPLIC_SIZES 7 /* send/receive size classes: <=1500, <=4K, <=8K, <=16K, <=32K, <=64K, >64K */
#define APPLIC_MAX_NOTES 32

typedef struct applic_opts {
	uint64_t max_gap_ns;    /* time stamp jumps beyond this are closed (0: 1 h) */
	uint64_t short_ns;      /* shorter-lived connections ... (0: 1 s) */
	uint64_t small_bytes;   /* ... that carry fewer bytes both ways are not well-suited (0: 10000) */
	uint64_t pause_ns;      /* a pause this long within one direction ends a write (0: 20 ms) */
	uint32_t max_open;      /* connections tracked at once (0: 262144) */
	uint32_t max_dests;     /* destinations kept apart (0: 4096; the rest are "other") */
	uint32_t rerun_max;     /* eligible connections re-run (0: none re-run) */
	uint32_t steps_max;     /* steps per re-run connection (0: 4096) */
	uint64_t rerun_bytes;   /* bytes re-run at most, all connections together (0: 1 GiB) */
	const applic_setup *setup; /* NULL: applic_setup_default */
	bool has_local;         /* the capturing host: destinations are the other ends */
	uint8_t local_family, local_ip[16];
	uint64_t seed;
	/* the re-run's hosts: a host that is the server end of a re-run connection takes
	 * server_host, every other client_host; not given: its scenario stack's (--scenario),
	 * else linux, the host of the re-run's Linux stacks */
	applic_host_choice client_host, server_host;
	FILE *progress;         /* a progress line about every second (a terminal), or NULL */
} applic_opts;

void applic_opts_default(applic_opts *o);

/* SMCAT's figures for a set of connections. */
typedef struct applic_figures {
	uint64_t conns, eligible, well_suited;
	uint64_t segments, segments_well_suited; /* sent and received */
	uint64_t bytes, bytes_well_suited;       /* payload both ways */
	uint64_t sends[APPLIC_SIZES], recvs[APPLIC_SIZES]; /* of well-suited connections */
	uint64_t not_eligible[APPLIC_INELIG_N];             /* connections, by reason */
} applic_figures;

typedef struct applic_dest {
	uint8_t family, ip[16]; /* family 0: the destinations beyond max_dests */
	applic_figures f;
} applic_dest;

/* One side's measurements of a re-run connection. */
typedef struct applic_meas {
	bool done;                    /* every recorded step ran */
	bool smc;                     /* the connection used SMC-R (the SMC-R run) */
	uint64_t exchanges;           /* request/response pairs measured */
	uint64_t lat_mean_ns, lat_p50_ns, lat_p99_ns;
	uint64_t completion_ns;       /* connect to the last step */
	uint64_t bytes;               /* both ways */
	uint64_t throughput_bps;      /* bytes * 8 / completion */
	uint64_t cpu_client_ns;       /* its share of its client's host's CPU time */
	uint64_t cpu_server_ns;       /* ... of its server's (0 when one host is both) */
	uint64_t cpu_ns;              /* the two */
} applic_meas;

typedef struct applic_rerun_conn {
	uint32_t id; /* the connection's number in the capture */
	uint64_t frame;
	uint8_t family, client[16], server[16];
	uint16_t cport, sport;
	uint64_t steps;
	bool truncated;              /* more steps than steps_max: the rest not re-run */
	uint64_t rec_exchanges, rec_lat_mean_ns, rec_completion_ns, rec_bytes; /* as recorded */
	applic_meas tcp, smcr;
} applic_rerun_conn;

/* CPU time by what it was spent on: sim/host/host.h's categories. */
enum { APPLIC_CPU_APP, APPLIC_CPU_TCPIP, APPLIC_CPU_SMCR, APPLIC_CPU_IRQ, APPLIC_CPU_NCATS };
extern const char *const applic_cpu_names[APPLIC_CPU_NCATS]; /* "app", "tcpip", "smcr", "irq" */

typedef struct applic_rerun_totals {
	uint64_t conns, done, smc, exchanges;
	uint64_t lat_mean_ns, lat_p50_ns, lat_p99_ns; /* over every exchange of every connection */
	uint64_t makespan_ns, bytes, throughput_bps;
	uint64_t cpu_ns;                       /* every host's CPU time */
	uint64_t cpu_cat_ns[APPLIC_CPU_NCATS]; /* ... by category */
	uint64_t cpu_per_exchange_ns;          /* cpu_ns / exchanges (0: none) */
	uint64_t cpu_per_mib_ns;               /* cpu_ns per MiB of payload (0: none) */
} applic_rerun_totals;

/* One host's CPU in one run. */
typedef struct applic_host_cpu {
	uint64_t cpu_ns;
	uint64_t cpu_cat_ns[APPLIC_CPU_NCATS];
	uint64_t busiest_ns; /* its busiest CPU's */
	uint64_t util_ppm;   /* cpu_ns over (makespan x CPUs), parts per million */
	uint64_t busiest_ppm; /* the busiest CPU's time over the makespan */
} applic_host_cpu;

/* A host of the re-run: a simulated stack on a simulated host. */
typedef struct applic_rerun_host {
	uint8_t family, ip[16]; /* the capture's address */
	uint32_t sim_ip;        /* the re-run stack's (host order) */
	bool client, server;    /* the end it is of re-run connections */
	char spec[APPLIC_HOST_SPEC_LEN]; /* its profile: applic_hosts.h */
	const char *from;       /* where it came from: "--client-host", "--server-host",
	                           "scenario" (its stack `stack`), "default" */
	char stack[32];
	unsigned cpus;
	uint64_t conns;         /* re-run connections it is an end of */
	applic_host_cpu tcp, smcr;
} applic_rerun_host;

typedef struct applic_note {
	uint64_t frame; /* 0: about the whole file */
	char text[240];
} applic_note;

typedef struct applic_result {
	/* the capture */
	int linktype;
	uint64_t frames, tcp_segments, not_tcp, bad_frames, time_gaps, out_of_order;
	uint64_t first_ns, last_ns; /* capture span (jumps closed) */
	uint64_t conns_no_syn;      /* connections whose start the capture lacks */
	uint64_t conns_one_way;     /* connections seen in one direction only */
	uint64_t stray_segments;    /* segments of connections the capture has no start or data of */
	uint64_t evicted;           /* connections folded early: more than max_open at once */
	uint64_t resyncs;           /* sequence numbers that jumped beyond belief */
	bool damaged;               /* the file ended in a damaged record */
	applic_note notes[APPLIC_MAX_NOTES];
	size_t n_notes;
	uint64_t notes_total;
	/* SMCAT */
	applic_figures total;
	applic_dest *dests; /* sorted by address, "other" last */
	size_t n_dests;
	bool local_known;
	uint8_t local_family, local_ip[16];
	applic_opts o; /* as used (defaults filled in) */
	const char *setup_said; /* where the set-up came from */
	/* the re-run */
	applic_rerun_conn *rerun;
	size_t n_rerun;
	uint64_t rerun_skipped; /* eligible connections not re-run (limits) */
	bool rerun_ran;
	applic_rerun_host *hosts; /* in the order the re-run made them (capture order) */
	size_t n_hosts;
	applic_rerun_totals tcp, smcr;
	char rerun_note[240];
} applic_result;

/* Read the capture and compute the figures, then (rerun_max > 0) re-run. 0 with res
 * filled (with its notes); -1 when the file cannot be used at all (err). */
int applic_run(const char *path, const applic_opts *o, applic_result *res, char *err, size_t errlen);
void applic_result_free(applic_result *res);

/* The outputs: text, JSON (docs/schema/applicability.schema.json), SVG. */
void applic_print_text(FILE *out, const applic_result *res, const char *name);
void applic_print_json(FILE *out, const applic_result *res, const char *name);
void applic_print_svg(FILE *out, const applic_result *res, const char *name);

/* size class of a send or receive */
unsigned applic_size_class(uint64_t bytes);
extern const char *const applic_size_names[APPLIC_SIZES];

#endif
