/* The SMC-R layer of one virtual stack: the glue between the stack's sockets (sim/net/sock.h,
 * the SMC seam), the SMC-R protocol core (model/smcr.h, one smcr_ctx per stack) and the
 * simulated RNICs (sim/rdma/rnic.h, one VF per activated adapter).
 *
 *   smc_layer *l = smc_layer_new(st, &cfg);     // plugs the hooks into the stack
 *   smc_layer_set_pnet(l, nif, "NET1");         // which RoCE network each interface reaches
 *   smc_layer_activate(l, adapters, n);         // the stack's GLOBALCONFIG SMCR PFIDs
 *   ... run the engine ...
 *   smc_layer_free(l);                          // after the applications, before the stack
 *
 * What it does:
 *  - activation: every PFID/port of stack_smcr(st) whose adapter is given gets a VF of that
 *    adapter (own VMAC and GIDs per stack, even on a shared adapter); each port gets one
 *    RoCE v1 GID per VLAN of the stack's interfaces in its PNet and one RoCE v2 GID per
 *    IPv4 address of those interfaces; its smcr_port_desc (named EZARIUTpffff on z/OS-like
 *    stacks, MTU capped at the configured one) is registered with the core;
 *  - connections: the CLC handshake rides the TCP stream (framed message by message, so
 *    application bytes after a Decline stay in the stream); an established connection
 *    carries data through the core while its TCP connection stays open and idle, and is
 *    closed with it; a fallback keeps the Linux reason (local reason and peer diagnosis);
 *  - eligibility is the core's (Linux rules): SMC-Rv1 needs the same subnet (prefix),
 *    VLAN and PNet; SMC-Rv2 a common UEID and a route (looked up in the stack's routing
 *    table and ARP cache);
 *  - fixed memory: SMC-R buffer allocations beyond smcr_config.fixed_memory fail, so new
 *    connections fall back with SMC_CLC_DECL_MEM (0x01010000), as z/OS FIXEDMEMORY;
 *  - time: the core's pulled timers are one engine event per layer, re-armed after every
 *    call into the core; completions and port events reach the core with `now`;
 *  - routed RoCE v2: a frame for one of the stack's RoCE v2 addresses that arrives at a
 *    stack interface (the router resolved the address to the interface) is handed to the
 *    VF, as a converged NIC's hardware steering does (see smc_steer.c).
 */
#ifndef SIM_SMC_LAYER_H
#define SIM_SMC_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/smcr.h"
#include "sim/rdma/rnic.h"
#include "sim/net/sock.h"
#include "sim/net/stack.h"

typedef struct smc_layer smc_layer;

typedef struct smc_layer_config {
	/* Core settings: buffer sizes, TEST_LINK time, link and connection limits, host name.
	 * v1/v2, the UEIDs and what the personality shows on the wire (the CLC OS type, the
	 * byte order of SMC-Rv2 LLC lengths) are taken from stack_smcr(st) (v2 needs at least
	 * one UEID). */
	smcr_settings core;
	/* PNet id of interfaces without one (smc_layer_set_pnet) and of adapter ports whose
	 * configuration has none: by default every interface and RoCE port of the stack is on
	 * one physical network. */
	char default_pnet[17];
	/* Real RoCE devices (--real-hw): the core's transport is libibverbs
	 * (sim/rdma/verbs_transport.h) instead of simulated VFs; activate the ports with
	 * smc_layer_activate_real(), not smc_layer_activate(). */
	bool real_hw;
	/* Server handshakes the SMC handshake workqueue runs at once; beyond them it counts as
	 * congested for listeners with SMC_LIMIT_HS. Linux: smc_hs_wq is a per-CPU workqueue
	 * with the default max_active, WQ_DFL_ACTIVE (256): workqueue_congested() is true
	 * when works wait. Default 256 (one CPU's pool; assumed). */
	uint32_t hs_queue;
} smc_layer_config;

/* Core defaults; default_pnet "SIMNET". */
void smc_layer_config_default(smc_layer_config *c);

/* Called for every core event (link up/down, link groups), after the core's own
 * processing; `st` says whose. */
typedef void (*smc_layer_event_fn)(void *user, smc_layer *l, const smcr_event *ev);

/* Create the layer and plug it into the stack (stack_set_smc_hooks). NULL on failure. */
smc_layer *smc_layer_new(stack *st, const smc_layer_config *cfg);
/* Unplug and free: connections still held by the layer are reset, VFs deactivated. Free
 * the applications first. */
void smc_layer_free(smc_layer *l);

void smc_layer_set_event_fn(smc_layer *l, smc_layer_event_fn fn, void *user);

/* Called for every CLC, LLC and CDC message the core sends or takes in (model/smcr.h,
 * smcr_trace_msg), for event streams; NULL (the default) turns it off. */
typedef void (*smc_layer_trace_fn)(void *user, smc_layer *l, const smcr_trace_msg *m);
void smc_layer_set_trace_fn(smc_layer *l, smc_layer_trace_fn fn, void *user);
/* Called when an activated RoCE port goes down (the adapter or its link failed) or comes
 * back, before the core hears of it: the interface's outage is what fails its links, so
 * an operator's log names it first. */
typedef void (*smc_layer_port_fn)(void *user, smc_layer *l, uint32_t port_index, bool up);
void smc_layer_set_port_fn(smc_layer *l, smc_layer_port_fn fn, void *user);
/* Tell the port observer (the layer's async paths, simulated and real). */
void smc_layer_port_changed(smc_layer *l, uint32_t port_index, smcr_async_event ev);
/* The PNet id of an interface ("" = the default). Set before activation. */
void smc_layer_set_pnet(smc_layer *l, const netif *nif, const char *pnet_id);
/* Associate an interface with an adapter port: it shares the port's network (the world
 * associates the interfaces plugged into the port's switch). The port's GIDs come from
 * its associated interfaces in its PNet, as a Linux RoCE port's GIDs follow the addresses
 * and VLANs of its netdev (ib_core's GID cache); a port with none gets those of every
 * interface in its PNet. Set before activation. SMCR_ERR_LIMIT when the table is full. */
int smc_layer_associate(smc_layer *l, uint16_t pfid, uint8_t port, const netif *nif);
/* Activate the stack's configured PFIDs/ports among `adapters`. Returns the number of
 * ports registered with the core, or a negative SMCR_ERR_* (an adapter with no free VF,
 * too many GIDs). PFIDs with no adapter in the list are skipped. */
int smc_layer_activate(smc_layer *l, rnic *const *adapters, size_t n_adapters);

smcr_ctx *smc_layer_ctx(const smc_layer *l);

/* One activated RoCE port. */
typedef struct smc_layer_port {
	rnic *adapter;       /* NULL on a real device */
	rnic_vf *vf;         /* NULL on a real device */
	uint8_t port;        /* 1-based adapter port */
	uint32_t port_index; /* the core's */
	uint16_t pfid;       /* the scenario adapter's PFID */
	smcr_tp_dev *dev;    /* the transport's device handle (a VF or a verbs context) */
	uint8_t dev_port;    /* real device: its 1-based port */
} smc_layer_port;

size_t smc_layer_n_ports(const smc_layer *l);
const smc_layer_port *smc_layer_port_get(const smc_layer *l, size_t i);

/* One connection the layer handled (CLC run over its TCP connection), for reports. */
typedef struct smc_layer_conn {
	uint64_t id; /* 1, 2, ... per layer, creation order */
	bool server;
	sock_mode mode;           /* SMCR, FALLBACK, or TCP while still in the handshake */
	bool handshake;           /* CLC not finished yet */
	uint32_t fallback_reason; /* local reason, 0 none */
	uint32_t peer_diagnosis;  /* the peer's Decline code, 0 none */
	uint32_t local_ip, peer_ip;
	uint16_t local_port, peer_port;
	bool has_core; /* core_info is valid */
	smcr_conn_info core_info;
} smc_layer_conn;

/* The layer's view of a socket it holds (in the handshake or on SMC-R); false otherwise. */
bool smc_layer_sock_conn(const smc_layer *l, const sock *s, smc_layer_conn *out);

/* Connections the layer still tracks (open, or closing), in creation order. */
void smc_layer_foreach_conn(const smc_layer *l, void (*fn)(void *arg, const smc_layer_conn *c), void *arg);

/* The fallback reason and the peer's diagnosis of a socket the layer handled: valid for
 * sockets still in the handshake or on SMC-R, and during the on_connect / on_accept
 * callback that reports a fallback (later the socket belongs to the application alone).
 * false if the layer does not know the socket. */
bool smc_layer_sock_reasons(const smc_layer *l, const sock *s, uint32_t *reason, uint32_t *peer_diagnosis);

typedef struct smc_layer_counters {
	uint64_t handshakes; /* connections handed over by the stack */
	uint64_t established, fallbacks, aborted;
	uint64_t clc_bytes_out, clc_bytes_in;
	uint64_t core_calls;     /* entries into the core (for benchmarks) */
	uint64_t steered_frames; /* RoCE v2 frames handed from an interface to a VF */
	uint64_t mem_refused;    /* buffer allocations refused by the fixed-memory cap */
	uint64_t mem_used;       /* bytes of core memory held now */
	uint64_t srv_hs_active;  /* server handshakes in progress now (Linux: works of smc_hs_wq) */
	uint64_t hs_limited;     /* SYNs answered without the SMC option: handshakes congested */
	uint64_t fixed_used;     /* of it, RMBs and send buffers: what fixed_memory limits */
	uint64_t fixed_declined; /* connections that use TCP because the limit refused a buffer */
} smc_layer_counters;

const smc_layer_counters *smc_layer_counters_get(const smc_layer *l);

/* Heap held for SMC-R by the layer, in the allocator's units (each block's usable bytes
 * and its size word), for memory measurements (bench scale). Adds to what out holds.
 * The RMBs' and send buffers' pages are the buffer arena's (lazy_arena_resident). */
typedef struct smc_layer_mem_census {
	uint64_t core_bytes;        /* the core: connections, link groups, links, WR slots and their buffers,
	                             * buffer descriptors, rtokens, indexes, handshake scratch */
	uint64_t conns, conn_bytes; /* the layer's connections (smc_conn, CLC bytes waiting for TCP) */
	rnic_vf_mem_census rdma;    /* its VFs' memory regions and QPs */
} smc_layer_mem_census;
void smc_layer_mem_census_add(const smc_layer *l, smc_layer_mem_census *out);

/* End every link group now as an operator would (smcr_ctx_terminate_all: Linux's module
 * unload): DELETE_LINK ALL to each peer, connections aborted. Returns the groups ended. */
int smc_layer_terminate_all(smc_layer *l);

/* ---- real RoCE devices (--real-hw) -------------------------------------------------
 * A layer made with cfg.real_hw reaches its RoCE ports through libibverbs: each PFID/port
 * the stack activates is mapped to a device and port (one verbs context per device and
 * layer: its own PD, CQs and completion channel, so stacks sharing a device stay apart).
 * The stack's TCP/IP, CLC and applications stay simulated; only the QPs are real. The
 * engine must then run in real time (sim/engine/realtime.h): smc_layer_real_watch() hands the
 * devices' descriptors to the driver, and completions and port events reach the core
 * with the engine's (wall-clock) time.
 *
 * The port given to the core: the device's MAC, its active MTU (capped as in
 * simulation), and one GID: the IPv4-mapped RoCE v2 GID of the mapped address (or the
 * device's first one). It is listed once as a RoCE v2 entry (SMC-Rv2) and once per VLAN of
 * the stack's interfaces in the port's PNet as the entry SMC-Rv1 picks (Soft-RoCE has no
 * RoCE v1 GIDs; between two smcr-sim stacks a v1 CLC handshake works as well over RoCE v2
 * QPs, and its frames are plain RoCE v2). Stacks sharing a device therefore share MAC and
 * GID unless they map different addresses; their links differ by QP numbers. */

typedef struct smc_real_port {
	uint16_t pfid;    /* the scenario's adapter */
	uint8_t port;     /* its port, 1-based */
	char dev[32];     /* RDMA device, e.g. "rxe0" */
	uint8_t dev_port; /* 1-based */
	uint32_t ipv4;    /* use the RoCE v2 GID of this address (host order); 0 = first */
	char pnet_id[17]; /* the scenario adapter port's PNet id ("" = the default) */
	uint32_t mtu;     /* the scenario adapter's largest RoCE MTU in bytes, 0 = none */
} smc_real_port;

/* Activate the stack's configured PFIDs/ports on real devices. Every one must be mapped.
 * Returns the number of ports registered, or a negative SMCR_ERR_* with the reason in err
 * (unmapped PFID, no such RDMA device — with what exists and how to create one —, no such
 * port, no IPv4-mapped GID). Nothing blocks: a missing device fails at once. */
int smc_layer_activate_real(smc_layer *l, const smc_real_port *map, size_t n_map, char *err, size_t errlen);

typedef struct sim_realtime sim_realtime;
/* Let the real-time driver wake the layer when a device has completions or events. The
 * watches end with smc_layer_free(), which must come before sim_realtime_free(). */
void smc_layer_real_watch(smc_layer *l, sim_realtime *rt);

/* Timeline faults on a real device (`fail`/`restore adapter NAME [port=N]`): failing
 * moves the QPs of this stack's links on that port to ERR on the device (real flush
 * completions follow) and tells the core SMCR_EV_PORT_ERR, as a port that went down
 * would; restoring tells it SMCR_EV_PORT_ACTIVE. The device itself stays up: other stacks
 * and processes on it are not touched. port 0 = every port of the PFID. Returns the
 * ports affected. */
int smc_layer_real_fail(smc_layer *l, uint16_t pfid, uint8_t port, bool fail);

#endif
