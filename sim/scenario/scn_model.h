/* The scenario file's typed, fully resolved in-memory description (docs/scenario-format.md).
 *
 * scn_load_file() / scn_load_string() lex, parse and check a whole file. They return a
 * scenario only if no error at all was found; otherwise NULL, with every error (up to a
 * cap) in the scn_diag as "FILE:LINE:COLUMN: what was found; expected what".
 *
 * In a returned scenario every reference is an index into the owning array (never
 * SCN_NONE unless documented), every attribute holds its value (given or default, see
 * scn_defaults.c), and every item remembers where it was written (scn_loc), so the
 * runner can report an expectation's FILE:LINE. Arrays are in file order; the timeline is
 * sorted by time, then file order. */
#ifndef SIM_SCN_MODEL_H
#define SIM_SCN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/engine/rng.h"
#include "sim/host/host_profile.h"
#include "sim/scenario/scn_diag.h"
#include "sim/scenario/scn_kernel.h"

#define SCN_NAME_MAX 31     /* switch, wire, adapter, stack, interface, app names */
#define SCN_HOSTNAME_MAX 32 /* CLC v2 host name field */
#define SCN_PNETID_MAX 16   /* physical network id (z/OS HCD, Linux pnet table) */
#define SCN_UEID_MAX 32     /* CLC v2 EID length */
#define SCN_MAX_UEIDS 4     /* a stack's UEID table (Linux SMC_MAX_UEID; a Proposal can carry 8) */
#define SCN_NONE UINT32_MAX /* "no index" */

/* --- fabric ---------------------------------------------------------------------- */

/* VLANs a switch or trunk carries: all, or the listed ids (1..4094). */
typedef struct scn_vlan_set {
	bool all;
	uint64_t bits[64]; /* bit v set = VLAN v carried (when !all) */
} scn_vlan_set;

bool scn_vlan_set_has(const scn_vlan_set *s, uint16_t vlan);

/* Properties of one simulated cable (a trunk wire or the access wire of an endpoint). */
typedef struct scn_link_params {
	uint64_t latency_ns;
	uint64_t bandwidth_bps;
	uint32_t mtu;      /* largest Ethernet payload; for an interface its IP MTU */
	sim_ratio loss;    /* frame dropped */
	sim_ratio dup;     /* frame delivered twice */
	sim_ratio reorder; /* frame held back behind the next one */
	sim_ratio corrupt; /* one bit flipped */
} scn_link_params;

/* Bits of a `set` event's mask: which scn_link_params fields it changes. */
enum {
	SCN_SET_LATENCY = 1u << 0,
	SCN_SET_BANDWIDTH = 1u << 1,
	SCN_SET_LOSS = 1u << 2,
	SCN_SET_DUP = 1u << 3,
	SCN_SET_REORDER = 1u << 4,
	SCN_SET_CORRUPT = 1u << 5,
};

/* A switch's congestion features (docs/congestion.md); buffer 0 = none (the default). */
typedef struct scn_switch_qos {
	uint64_t buffer;    /* bytes of shared buffer */
	sim_ratio alpha;    /* dynamic threshold factor, (0, 1] */
	uint8_t pfc;        /* class-enable vector of the lossless priorities */
	uint64_t xoff, xon; /* ingress thresholds per (port, priority); xoff 0 = dynamic */
	uint64_t headroom;  /* per (port, lossless priority) */
	uint16_t quanta;    /* of an XOFF */
	bool ecn;
	uint64_t kmin, kmax; /* RED marking thresholds, bytes of the egress queue */
	sim_ratio pmax;
	bool trust_dscp; /* classify by DSCP (class selector: DSCP >> 3) instead of PCP */
} scn_switch_qos;

typedef struct scn_switch {
	char name[SCN_NAME_MAX + 1];
	scn_loc loc;
	scn_vlan_set vlans;
	scn_switch_qos qos;
	uint32_t segment; /* L2 segment: switches joined by wires share one (0, 1, … in file order) */
} scn_switch;

typedef struct scn_wire {
	char name[SCN_NAME_MAX + 1];
	scn_loc loc;
	uint32_t sw_a, sw_b; /* switch indices */
	scn_link_params link;
	scn_vlan_set vlans;
} scn_wire;

typedef enum scn_roce {
	SCN_ROCE_V1 = 1,
	SCN_ROCE_V2 = 2,
	SCN_ROCE_BOTH = 3,
} scn_roce;

typedef struct scn_adapter_port {
	uint32_t sw;                     /* switch index */
	uint8_t mac[6];                  /* the physical port's MAC (VMACs are the runner's business) */
	char pnetid[SCN_PNETID_MAX + 1]; /* "" = none */
} scn_adapter_port;

/* Congestion attributes of an adapter (all off or unset by default). */
typedef struct scn_adapter_cc {
	bool dcqcn;    /* ECT(0) on RoCE v2, CNPs, DCQCN rate limiter */
	int pcp, dscp; /* -1 = not given */
	uint8_t cnp_pcp, cnp_dscp;
	uint64_t cnp_interval_ns;
	uint64_t txwindow_ns; /* wire time the adapter keeps queued on its access wire */
	bool txwindow_given;  /* written: else the runner picks 1us on a lossless priority */
	sim_ratio g;
	uint64_t alpha_timer_ns, rate_timer_ns;
	uint64_t byte_counter; /* 0 = no byte counter */
	uint32_t recovery;     /* F */
	uint64_t rai_bps, rhai_bps, min_bps;
	bool rx_stall;                     /* rxstall= given: the receive side stops draining */
	uint64_t rx_stall_ns, rx_stall_for_ns; /* from when, for how long */
} scn_adapter_cc;

typedef struct scn_adapter {
	char name[SCN_NAME_MAX + 1];
	scn_loc loc;
	uint16_t pfid;
	uint8_t n_ports; /* 1 or 2 */
	scn_adapter_port port[2];
	uint32_t mtu; /* largest RoCE MTU the ports support: 256..4096 */
	scn_roce roce;
	scn_link_params link; /* access wires of both ports (mtu unused) */
	scn_adapter_cc cc;
} scn_adapter;

/* --- stacks ---------------------------------------------------------------------- */

typedef enum scn_personality {
	SCN_PERS_ZOS,
	SCN_PERS_LINUX,
} scn_personality;
#define SCN_N_PERS 2

typedef struct scn_interface {
	char name[SCN_NAME_MAX + 1];
	scn_loc loc;
	uint32_t sw;        /* switch index */
	uint32_t ip;        /* host order */
	uint8_t prefix_len; /* 1..32 */
	uint16_t vlan;      /* 0 = untagged */
	uint8_t mac[6];
	char pnetid[SCN_PNETID_MAX + 1];
	scn_link_params link; /* link.mtu is the interface's IP MTU */
} scn_interface;

typedef struct scn_route {
	scn_loc loc;
	uint32_t dest;      /* host order, host bits zero */
	uint8_t prefix_len; /* 0 = default route */
	uint32_t via;       /* gateway, on the subnet of `iface` */
	uint32_t iface;     /* index in the stack's interfaces */
} scn_route;

/* `smcr pfid=…`: the stack activates one port of an adapter. */
typedef struct scn_smcr_port {
	scn_loc loc;
	uint16_t pfid;
	uint32_t adapter; /* index of the adapter with that PFID */
	uint8_t port;     /* 1 or 2 */
	uint32_t mtu;     /* RoCE MTU this stack configures for it */
} scn_smcr_port;

/* `smcr …` settings of a stack (defaults per personality). */
typedef struct scn_smcr_config {
	scn_loc loc; /* of the `smcr` settings statement, or of the stack if none */
	bool enable;
	uint32_t mtu;         /* default for activations without mtu= */
	uint64_t fixedmemory; /* bytes of buffer storage; 0 = no limit */
	uint64_t rmbsize;     /* receive buffer (RMB) per connection */
	uint64_t sndbufsize;  /* send buffer per connection */
	bool v2;
	uint8_t n_ueids;
	char ueids[SCN_MAX_UEIDS][SCN_UEID_MAX + 1];
	uint64_t keepalive_ns; /* TCP keepalive idle time; 0 = off */
	uint64_t testlink_ns;  /* LLC TEST_LINK idle time; 0 = off */
	uint8_t maxlinks;      /* 1..2 */
	uint8_t maxconns;      /* 16..255 */
	uint8_t release;       /* SMC-Rv2 release offered: 0 (v2.0) or 1 (v2.1) */
	/* from the stack's kernel (scn_kernel.h), not attributes of their own: */
	uint16_t feature_mask; /* SMC_FEATURE_MASK */
	uint8_t rmbe_max_code; /* largest RMB and send buffer, 16 KiB << code */
	bool v2_capable;       /* the kernel has SMC-Rv2 at all */
	uint64_t autocork;     /* net.smc.autocorking_size, 0 = off */
	bool limiths;          /* net.smc.limit_smc_hs */
	uint32_t hsqueue;      /* server handshakes the handshake workqueue runs at once */
} scn_smcr_config;

typedef struct scn_stack {
	char name[SCN_NAME_MAX + 1];
	scn_loc loc;
	scn_personality personality;
	scn_kernel kernel; /* personality=linux: its kernel (kernel=, default 6.12) */
	char hostname[SCN_HOSTNAME_MAX + 1];
	bool forwarding;
	scn_interface *ifaces;
	size_t n_ifaces;
	scn_route *routes;
	size_t n_routes;
	scn_smcr_port *smcr_ports;
	size_t n_smcr_ports;
	scn_smcr_config smcr;
	host_profile host; /* `host=` on the stack line, then the `host` statement's overrides */
	scn_loc host_loc;  /* of the `host` statement (line 0: none) */
	uint64_t tcp_sndbuf, tcp_rcvbuf; /* the `tcp` statement (0: the personality's) */
	scn_loc tcp_loc;
} scn_stack;

/* --- applications ---------------------------------------------------------------- */

typedef enum scn_app_role {
	SCN_ROLE_LISTEN,
	SCN_ROLE_CONNECT,
} scn_app_role;

/* listen: echo, sink, responder; connect: bulk (to a sink), echo (to an echo), rr and
 * crr (to a responder). */
typedef enum scn_app_kind {
	SCN_KIND_BULK,
	SCN_KIND_ECHO,
	SCN_KIND_RR,
	SCN_KIND_SINK,
	SCN_KIND_RESPONDER,
	SCN_KIND_CRR,
} scn_app_kind;

typedef enum scn_close {
	SCN_CLOSE_AFTER, /* when the exchange is done */
	SCN_CLOSE_NEVER,
	SCN_CLOSE_AT, /* at close_at_ns */
} scn_close;

/* How a connect endpoint was written: STACK:PORT, STACK.IFACE:PORT or A.B.C.D:PORT. */
typedef enum scn_endpoint_form {
	SCN_EP_STACK,
	SCN_EP_IFACE,
	SCN_EP_IP,
} scn_endpoint_form;

typedef struct scn_app {
	char name[SCN_NAME_MAX + 1];
	scn_loc loc;
	uint32_t stack;
	scn_app_role role;
	scn_app_kind kind;
	bool smc;          /* an SMC socket (else plain TCP) */
	uint16_t port;     /* listen: local port; connect: destination port */
	bool start_never;  /* start only from the timeline */
	uint64_t start_ns; /* when it starts (unless start_never) */
	/* connect only (zero for listeners): */
	scn_endpoint_form ep_form;
	uint32_t dst_stack;
	uint32_t dst_iface; /* interface of dst_stack that owns dst_ip */
	uint32_t dst_ip;
	uint32_t listener;    /* app index of the listener it reaches */
	uint64_t bytes;       /* bulk, echo */
	uint64_t write;       /* bulk, echo: bytes per send (and the listener's receive) call; 0: 64 KiB */
	uint32_t cpu;         /* the host CPU its sockets run on, plus one; 0: in turn */
	uint64_t request;     /* rr, crr */
	uint64_t response;    /* rr, crr */
	uint64_t count;       /* rr: requests per connection; crr: per client (UINT64_MAX with duration) */
	uint64_t think_ns;    /* rr, crr: pause after each transaction */
	uint64_t duration_ns; /* bulk, rr, crr: instead of bytes or count (0: not given) */
	uint32_t conns;       /* connections, named NAME.1 … NAME.N when > 1 */
	uint64_t interval_ns; /* between opening successive connections */
	scn_close close;
	uint64_t close_at_ns;
	bool cork;        /* TCP_CORK: each message held until it is written whole */
	bool more;        /* MSG_MORE on every piece of a message but its last */
	bool nodelay;     /* TCP_NODELAY (default yes) */
	int8_t limiths;   /* listen: SMC_LIMIT_HS, -1 = the stack's limiths */
	uint64_t work_ns; /* listen, responder: its own CPU time per request (host category app) */
} scn_app;

/* --- reports, expectations, timeline --------------------------------------------- */

typedef enum scn_report_format {
	SCN_REPORT_AUTO,    /* each stack in its personality's style */
	SCN_REPORT_NETSTAT, /* z/OS NETSTAT DEVLINKS SMC style */
	SCN_REPORT_SMC,     /* smc-tools smcr/smcss style */
	SCN_REPORT_JSON,
	SCN_REPORT_SMC_CHK, /* smc_chk's verdict per connection (after json: the parser's name order) */
} scn_report_format;

typedef struct scn_report {
	scn_loc loc;
	scn_report_format format;
	uint32_t stack; /* SCN_NONE = all stacks */
	bool has_smcid;
	uint32_t smcid; /* only the link with this link ID */
} scn_report;

typedef enum scn_metric {
	SCN_M_LINKGROUPS, /* link groups between two stacks */
	SCN_M_LINKS,      /* links in their link group(s) */
	SCN_M_CONNS,      /* connections in their link group(s) */
	SCN_M_MODE,       /* mode of an app's connections */
	SCN_M_SENT,       /* bytes an app wrote */
	SCN_M_DELIVERED,  /* bytes an app wrote that its peers received intact */
	SCN_M_RECEIVED,   /* bytes an app received intact */
	SCN_M_ABORTED,    /* connections aborted (all stacks, or one) */
	SCN_M_FALLBACK,   /* connections of a stack that fell back to TCP */
	/* application results (sim/app/app_result.h) */
	SCN_M_OPS,        /* operations an app completed */
	SCN_M_LATENCY,    /* a statistic of its transaction latencies */
	SCN_M_CONNECT,    /* a statistic of its connect times */
	SCN_M_FCT,        /* a statistic of its flow completion times */
	SCN_M_THROUGHPUT, /* its payload rate, both ways */
	SCN_M_CPU,        /* CPU time of a stack's host */
} scn_metric;

/* The statistic of a distribution an expectation names (as sim/app/app_hist.h). */
typedef enum scn_stat {
	SCN_STAT_MIN,
	SCN_STAT_MEAN,
	SCN_STAT_P50,
	SCN_STAT_P90,
	SCN_STAT_P99,
	SCN_STAT_P999,
	SCN_STAT_MAX,
} scn_stat;
const char *scn_stat_name(scn_stat s); /* "min" … "p99.9" … "max" */

/* `expect cpu`: which CPU time (a category of sim/host/host.h, or all of it) and per what. */
typedef enum scn_cpu_cat {
	SCN_CPU_ALL,
	SCN_CPU_APP,
	SCN_CPU_TCPIP,
	SCN_CPU_SMCR,
	SCN_CPU_IRQ,
} scn_cpu_cat;
typedef enum scn_cpu_per {
	SCN_PER_TOTAL,   /* CPU time (a duration) */
	SCN_PER_TXN,     /* per transaction of the stack's applications (a duration) */
	SCN_PER_MIB,     /* per MiB its applications moved (a duration) */
	SCN_PER_UTIL,    /* busy / (elapsed x CPUs) (a ratio) */
	SCN_PER_BUSIEST, /* the busiest CPU's busy / elapsed (a ratio) */
} scn_cpu_per;
const char *scn_cpu_cat_name(scn_cpu_cat c); /* "" for all, "app", "tcpip", "smcr", "irq" */
const char *scn_cpu_per_name(scn_cpu_per p); /* "", "txn", "MiB", "util", "busiest" */

typedef enum scn_cmp {
	SCN_CMP_EQ,
	SCN_CMP_NE,
	SCN_CMP_LT,
	SCN_CMP_LE,
	SCN_CMP_GT,
	SCN_CMP_GE,
} scn_cmp;

typedef enum scn_mode {
	SCN_MODE_SMCR,     /* the connection runs over SMC-R */
	SCN_MODE_TCP,      /* plain TCP socket, SMC never attempted */
	SCN_MODE_FALLBACK, /* SMC attempted, fell back to TCP */
} scn_mode;

/* An app, or one connection of it (instance 1..conns; 0 = all its connections). */
typedef struct scn_app_ref {
	uint32_t app;
	uint32_t instance;
} scn_app_ref;

typedef enum scn_rhs_kind {
	SCN_RHS_NUMBER,  /* value */
	SCN_RHS_MODE,    /* mode */
	SCN_RHS_COUNTER, /* rhs_metric of rhs_app (sent/delivered/received) */
} scn_rhs_kind;

typedef struct scn_expect {
	scn_loc loc;
	bool timed;     /* `at TIME expect …` */
	uint64_t at_ns; /* when timed; else checked at the end of the run */
	scn_metric metric;
	uint32_t stack_a; /* linkgroups/links/conns/fallback; aborted: SCN_NONE = all */
	uint32_t stack_b; /* linkgroups/links/conns */
	scn_app_ref app;  /* mode/sent/delivered/received */
	scn_cmp cmp;
	scn_rhs_kind rhs;
	uint64_t value;
	scn_mode mode;
	scn_metric rhs_metric;
	scn_app_ref rhs_app;
	bool has_reason; /* mode == FALLBACK and fallback: only this reason */
	uint32_t reason; /* CLC decline / fallback reason code */
	scn_loc app_loc; /* where the app was named (ops, latency, connect, fct, throughput) */
	scn_stat stat;   /* latency, connect, fct */
	scn_cpu_cat cpu_cat; /* cpu */
	scn_cpu_per cpu_per; /* cpu; with util/busiest the value is ratio in parts per billion */
	sim_ratio ratio;     /* cpu util/busiest: the ratio as written */
} scn_expect;

typedef enum scn_event_kind {
	SCN_EV_FAIL,
	SCN_EV_RESTORE,
	SCN_EV_SET,
	SCN_EV_START_APP,
	SCN_EV_STOP_APP,
	SCN_EV_REPORT,
	SCN_EV_EXPECT,
} scn_event_kind;

typedef enum scn_target_kind {
	SCN_TGT_NONE,
	SCN_TGT_ADAPTER,
	SCN_TGT_WIRE,
	SCN_TGT_SWITCH,
	SCN_TGT_INTERFACE,
	SCN_TGT_APP,
} scn_target_kind;

typedef struct scn_event {
	scn_loc loc;
	uint64_t at_ns;
	uint32_t order; /* file order among events */
	scn_event_kind kind;
	scn_target_kind target_kind;
	uint32_t target;     /* index in the target kind's array (interface: in the stack) */
	uint32_t stack;      /* interface targets: the stack */
	uint8_t port;        /* adapter targets: 0 = whole adapter, else 1..2 */
	uint32_t set_mask;   /* SCN_SET_* */
	scn_link_params set; /* the fields named by set_mask */
	scn_report report;   /* SCN_EV_REPORT */
	uint32_t expect;     /* SCN_EV_EXPECT: index into expects */
} scn_event;

/* --- parameters ------------------------------------------------------------------ */

/* The kind of a `param`: what its value must parse as (docs/scenario-format.md). */
typedef enum scn_param_kind {
	SCN_PARAM_INT,
	SCN_PARAM_DURATION,
	SCN_PARAM_SIZE,
	SCN_PARAM_RATE,
	SCN_PARAM_RATIO,
	SCN_PARAM_BOOL,
	SCN_PARAM_TEXT,
} scn_param_kind;

typedef struct scn_param {
	char name[SCN_NAME_MAX + 1];
	char *value; /* the resolved text: the --set value, else the default */
	scn_param_kind kind;
	bool overridden; /* given with --set */
	scn_loc loc;
} scn_param;

/* --- limits ---------------------------------------------------------------------- */

/* What one scenario may hold (docs/scenario-format.md, Limits). A file over a limit is
 * refused before anything is built: loops that would exceed one are refused when they
 * start, from the sizes their bounds give. Together they keep a loaded scenario's model
 * under about 250 MB. */
#define SCN_MAX_FILE_BYTES (64u << 20)
#define SCN_MAX_STATEMENTS 1000000u /* statements after loops are expanded */
#define SCN_MAX_ITERATIONS 1000000u /* iterations of all loops together */
#define SCN_MAX_LOOP_DEPTH 16u
#define SCN_MAX_PARAMS 1024u
#define SCN_MAX_SWITCHES 16384u
#define SCN_MAX_WIRES 65536u
#define SCN_MAX_ADAPTERS 65536u /* every PFID once */
#define SCN_MAX_STACKS 65536u
#define SCN_MAX_IFACES 262144u
#define SCN_MAX_IFACES_PER_STACK 1024u
#define SCN_MAX_ROUTES 262144u
#define SCN_MAX_APPS 262144u
#define SCN_MAX_CONNS 4194304u   /* the conns= of all connecting apps together */
#define SCN_MAX_TIMELINE 262144u /* `at` lines */
#define SCN_MAX_EXPECTS 262144u  /* `expect` lines */
/* What a run would need, estimated from what bench scale measured (a stack about 320 KiB
 * in a 10,000-stack leaf-spine world, ARP storm included; an idle SMC-R connection about
 * 16 KiB, both ends): a scenario over SCN_MAX_MEMORY_ESTIMATE is refused. */
#define SCN_EST_STACK_BYTES (320ull << 10)
#define SCN_EST_CONN_BYTES (16ull << 10)
#define SCN_MAX_MEMORY_ESTIMATE (32ull << 30)

/* --- the scenario ---------------------------------------------------------------- */

typedef struct scn_scenario {
	char *file;  /* as given to the loader; every scn_loc.file points here */
	char *title; /* "" if none */
	uint64_t seed;
	bool has_seed;
	uint64_t end_ns; /* the run's end (default SCN_DEFAULT_END_NS) */
	bool has_end;    /* `end` was given (else: run until idle, at most end_ns) */
	scn_switch *switches;
	size_t n_switches;
	scn_wire *wires;
	size_t n_wires;
	scn_adapter *adapters;
	size_t n_adapters;
	scn_stack *stacks;
	size_t n_stacks;
	scn_app *apps;
	size_t n_apps;
	scn_event *events; /* sorted by (at_ns, order) */
	size_t n_events;
	scn_expect *expects; /* file order, timed ones included */
	size_t n_expects;
	scn_report *reports; /* top-level `report`: printed at the end of the run */
	size_t n_reports;
	scn_param *params; /* file order */
	size_t n_params;
	void *iters; /* GStringChunk: the iteration texts scn_loc.iter points to */
	void *index; /* name lookups of scn_find_stack/app (scn_model.c) */
} scn_scenario;

#define SCN_DEFAULT_END_NS (3600ULL * 1000000000ULL) /* without `end`: at most 1h */
#define SCN_MAX_END_NS (24ULL * 3600ULL * 1000000000ULL)

/* How to load: `--set NAME=VALUE` overrides of the file's parameters. */
typedef struct scn_load_opts {
	const char *const *set;
	size_t n_set;
} scn_load_opts;

/* Load a scenario. NULL if anything was wrong (the diag says what); the caller owns the
 * result (scn_free). `name` is what messages call the file. opts may be NULL. */
scn_scenario *scn_load_file(const char *path, scn_diag *diag);
scn_scenario *scn_load_string(const char *name, const char *text, size_t len, scn_diag *diag);
scn_scenario *scn_load_file_opts(const char *path, const scn_load_opts *opts, scn_diag *diag);
scn_scenario *scn_load_string_opts(const char *name, const char *text, size_t len, const scn_load_opts *opts,
                                   scn_diag *diag);

/* The run's end as `end` and `--end` read it: a duration with a unit (or 0), 1ns..24h.
 * False with a message ("bad duration …; expected …") in err. */
bool scn_parse_end_time(const char *text, uint64_t *ns, char *err, size_t len);
/* A seed as `seed` and `--seed` read it: an integer 0..2^64-1. */
bool scn_parse_seed(const char *text, uint64_t *seed, char *err, size_t len);
void scn_free(scn_scenario *scn);

/* Print the resolved scenario in canonical scenario syntax (every default spelled out).
 * Loading the output gives a scenario whose dump is identical. */
void scn_dump(const scn_scenario *scn, FILE *out);

/* Print the attribute defaults of both personalities (smcr-sim run --defaults). */
void scn_print_defaults(FILE *out);

/* Lookups by name; SCN_NONE if absent. */
uint32_t scn_find_stack(const scn_scenario *scn, const char *name);
/* The PNET ID of interface `spec` (STACK.IFACE, or IFACE when one stack alone has it), as
 * smc_chk -i prints it: its pnetid=, else the stack's default physical network ("SIMNET",
 * as the reports name it). 0, or -1 with the reason in err. */
int scn_iface_pnetid(const scn_scenario *scn, const char *spec, char *out, size_t outlen, char *err, size_t errlen);
uint32_t scn_find_app(const scn_scenario *scn, const char *name);

/* Names for enums as written in scenario files. */
const char *scn_personality_name(scn_personality p);
const char *scn_kind_name(scn_app_kind k);
const char *scn_report_format_name(scn_report_format f);
const char *scn_param_kind_name(scn_param_kind k);
/* True if `measured cmp expected` holds. */
bool scn_cmp_holds(scn_cmp c, uint64_t measured, uint64_t expected);

/* The expectation as canonical scenario text ("expect links ZOSA ZOSB == 2"), for
 * run-time messages. Returns buf. */
char *scn_format_expect(const scn_scenario *scn, const scn_expect *e, char *buf, size_t len);
/* What a timeline event acts on, as the event log names it ("adapter RA1 port 2", "wire
 * T1", "switch SW1", "interface ZOSA.osd1", "app bulk"; "-" for none). */
void scn_event_target_text(const scn_scenario *s, const scn_event *ev, char *buf, size_t len);

#endif
