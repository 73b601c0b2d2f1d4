/* Internals of the SMC-R layer (sim/smc/smc_layer.h), shared by its files:
 *   smc_layer.c  the layer: core context, VFs and ports, timers, memory cap, reports
 *   smc_conn.c   one connection: the stack's hooks, the core's callbacks, CLC framing,
 *                the data path for the socket
 *   smc_steer.c  routed RoCE v2 frames from a stack interface to the VF */
#ifndef SIM_SMC_LAYER_INT_H
#define SIM_SMC_LAYER_INT_H

#include "sim/net/netif.h"
#include "sim/engine/rng.h"
#include "sim/rdma/lazy_arena.h"
#include "sim/rdma/sim_transport.h"
#include "sim/smc/smc_layer.h"
#include "sim/rdma/verbs_transport.h"

#define SMC_MAX_ADAPTERS SMCR_CFG_MAX_PFIDS

typedef struct smc_vf {
	smc_layer *l;
	rnic *adapter;
	rnic_vf *vf;
	int32_t port_index[RNIC_MAX_PORTS + 1]; /* by 1-based port; -1 = not activated */
	host_irq cq_irq; /* its completion queues' interrupts (one vector, as Linux's
	                  * per-device send and receive CQs on one CPU) */
} smc_vf;

/* One real RDMA device this layer opened (--real-hw): one verbs context per device. */
typedef struct smc_real_dev {
	smc_layer *l;
	char name[32];
	smcr_tp_dev *dev;
	unsigned watch[2]; /* sim_realtime watch ids, 0 = none */
} smc_real_dev;

typedef struct smc_conn smc_conn;
struct smc_conn {
	smc_layer *l;
	smc_conn *prev, *next; /* the layer's list, creation order */
	uint64_t id;
	sock *s;         /* NULL once released to the stack */
	smcr_conn *conn; /* NULL once the core freed it */
	bool server;
	bool established;   /* SMC-R data path */
	bool fallen;        /* continues on TCP: the application owns the TCP stream */
	bool fallback_told; /* sock_smc_fallback called */
	bool close_called;  /* smcr_conn_close called */
	bool close_wanted;  /* call smcr_conn_close when the layer is outside the core */
	bool abort_wanted;  /* the application aborted: reset the TCP connection */
	bool in_pump;       /* feeding CLC bytes: a fallback waits until they are consumed */
	bool pending_fallback;
	bool dead; /* core conn freed and socket released: free it */
	int abort_err;
	uint32_t reason, peer_diag;
	uint32_t local_ip, peer_ip;
	uint16_t local_port, peer_port;
	uint8_t *out; /* CLC bytes TCP did not take yet */
	size_t out_len;
	smc_conn *work_next; /* on the layer's deferred-work list */
	bool on_work;
	bool hs_counted; /* a server handshake counted in ctr.srv_hs_active */
};

typedef struct smc_steer_tap {
	smc_layer *l;
	netif *nif;
	netif_tap_fn prev; /* a tap that was there before (chained) */
	void *prev_ctx;
} smc_steer_tap;

typedef struct smc_pnet_map {
	const netif *nif;
	char pnet[17];
} smc_pnet_map;

/* An interface that shares an adapter port's network (smc_layer_associate). */
typedef struct smc_port_assoc {
	uint16_t pfid;
	uint8_t port;
	const netif *nif;
} smc_port_assoc;

#define SMC_MAX_ASSOCS 64

struct smc_layer {
	stack *st;
	smc_layer_config cfg;
	smcr_ctx *ctx;
	sim_transport *tp;
	sim_rng rng;
	smcr_mem mem;
	uint64_t mem_cap;          /* 0 = none */
	uint64_t core_heap;        /* heap blocks the core holds, as the allocator sizes them */
	lazy_arena_idle idle_bufs; /* its buffers waiting to give their pages back */
	sim_event timer;
	unsigned depth; /* calls into the core in progress */
	bool freeing;
	smc_vf vfs[SMC_MAX_ADAPTERS];
	size_t n_vfs;
	verbs_transport *vt; /* real devices (cfg.real_hw), else NULL */
	smc_real_dev rdevs[SMC_MAX_ADAPTERS];
	size_t n_rdevs;
	sim_realtime *rt; /* the driver watching rdevs, or NULL */
	smc_layer_port ports[SMCR_MAX_PORTS];
	size_t n_ports;
	smc_pnet_map pnets[STACK_MAX_NETIFS];
	size_t n_pnets;
	smc_port_assoc assocs[SMC_MAX_ASSOCS];
	size_t n_assocs;
	smc_steer_tap taps[STACK_MAX_NETIFS];
	smc_conn *head, *tail;
	uint64_t next_conn_id;
	smc_conn *work_head, *work_tail;
	smc_layer_event_fn event_fn;
	void *event_user;
	smc_layer_trace_fn trace_fn;
	void *trace_user;
	smc_layer_port_fn port_fn;
	void *port_user;
	smc_layer_counters ctr;
	uint32_t k_steer;
	const sock *telling; /* the socket being told of its fallback */
	uint32_t telling_reason, telling_diag;
};

/* Bracket every call into the core: the outermost leave runs deferred work and re-arms
 * the layer's timer from smcr_ctx_next_expiry(). */
void smc_layer_enter(smc_layer *l);
void smc_layer_leave(smc_layer *l);
uint64_t smc_layer_now(const smc_layer *l);

/* smc_conn.c */
extern const sock_smc_hooks smc_conn_hooks;
extern const smcr_callbacks smc_conn_core_callbacks;
void smc_conn_do_work(smc_conn *c);
void smc_conn_teardown(smc_conn *c);
const char *smc_layer_pnet_of(const smc_layer *l, const netif *nif);

/* The IB MTU enum of a configured MTU in bytes (rounded down). */
smcr_mtu smc_layer_mtu_enum(uint32_t bytes);

/* smc_real.c */
verbs_transport *smc_real_transport_new(smc_layer *l);
void smc_real_free(smc_layer *l);
/* The VLANs of the stack's interfaces in PNet `pnet` (at least VLAN 0). */
size_t smc_layer_pnet_vlans(const smc_layer *l, const char *pnet, uint16_t *vids, size_t max);

/* smc_steer.c */
void smc_steer_attach(smc_layer *l);
void smc_steer_detach(smc_layer *l);

void smc_conn_host_clc(smc_layer *l);

#endif
