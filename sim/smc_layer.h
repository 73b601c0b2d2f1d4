/* The SMC-R layer of one virtual stack: the glue between the stack's sockets (sim/sock.h,
 * the SMC seam), the SMC-R protocol core (model/smcr.h, one smcr_ctx per stack) and the
 * simulated RNICs (sim/rnic.h, one VF per activated adapter).
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
#include "sim/rnic.h"
#include "sim/sock.h"
#include "sim/stack.h"

typedef struct smc_layer smc_layer;

typedef struct smc_layer_config {
	/* Core settings: buffer sizes, TEST_LINK time, link and connection limits, host name.
	 * v1/v2 and the UEIDs are taken from stack_smcr(st) (v2 needs at least one UEID). */
	smcr_settings core;
	/* PNet id of interfaces without one (smc_layer_set_pnet) and of adapter ports whose
	 * configuration has none: by default every interface and RoCE port of the stack is on
	 * one physical network. */
	char default_pnet[17];
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
/* The PNet id of an interface ("" = the default). Set before activation. */
void smc_layer_set_pnet(smc_layer *l, const netif *nif, const char *pnet_id);
/* Activate the stack's configured PFIDs/ports among `adapters`. Returns the number of
 * ports registered with the core, or a negative SMCR_ERR_* (an adapter with no free VF,
 * too many GIDs). PFIDs with no adapter in the list are skipped. */
int smc_layer_activate(smc_layer *l, rnic *const *adapters, size_t n_adapters);

stack *smc_layer_stack(const smc_layer *l);
smcr_ctx *smc_layer_ctx(const smc_layer *l);

/* One activated RoCE port. */
typedef struct smc_layer_port {
	rnic *adapter;
	rnic_vf *vf;
	uint8_t port;         /* 1-based adapter port */
	uint32_t port_index;  /* the core's */
} smc_layer_port;

size_t smc_layer_n_ports(const smc_layer *l);
const smc_layer_port *smc_layer_port_get(const smc_layer *l, size_t i);

/* One connection the layer handled (CLC run over its TCP connection), for reports. */
typedef struct smc_layer_conn {
	uint64_t id;               /* 1, 2, ... per layer, creation order */
	bool server;
	sock_mode mode;            /* SMCR, FALLBACK, or TCP while still in the handshake */
	bool handshake;            /* CLC not finished yet */
	uint32_t fallback_reason;  /* local reason, 0 none */
	uint32_t peer_diagnosis;   /* the peer's Decline code, 0 none */
	uint32_t local_ip, peer_ip;
	uint16_t local_port, peer_port;
	bool has_core;             /* core_info is valid */
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
	uint64_t handshakes;       /* connections handed over by the stack */
	uint64_t established, fallbacks, aborted;
	uint64_t clc_bytes_out, clc_bytes_in;
	uint64_t core_calls;       /* entries into the core (for benchmarks) */
	uint64_t steered_frames;   /* RoCE v2 frames handed from an interface to a VF */
	uint64_t mem_refused;      /* buffer allocations refused by the fixed-memory cap */
	uint64_t mem_used;         /* bytes of core memory held now */
} smc_layer_counters;

const smc_layer_counters *smc_layer_counters_get(const smc_layer *l);

#endif
