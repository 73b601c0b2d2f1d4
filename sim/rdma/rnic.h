/* Simulated RoCE adapters (RNICs) and their virtual functions.
 *
 * An adapter has a PFID, one or two ports (each with a physical MAC, a PNet ID and an
 * interface MTU) and attaches each port to the fabric through a sim_endpoint. A TCP/IP
 * stack that activates the adapter gets its own virtual function (VF), as z/OS shared RoCE
 * does: the VF has its own VMAC per port (02:PP:PP:pp:VV:VV = locally administered, PFID,
 * port, VF number; distinct per stack even on a shared adapter), its own GID table per port,
 * protection domain (memory regions, keys), QPs and completion delivery. The VF is what
 * model/ calls `smcr_tp_dev`; rnic_vf_port_desc() fills the smcr_port_desc the core uses.
 *
 * GID table of a VF port, in this order (index = position):
 *   one RoCE v1 GID per configured VLAN (fe80::/64 + modified EUI-64 of the VMAC; VLAN 0 =
 *   untagged; by default just VLAN 0), then one RoCE v2 GID (::ffff:a.b.c.d) per IPv4
 *   address the stack assigned, on that address's VLAN. At most SMCR_MAX_GIDS entries.
 *
 * Frames from one VF to another VF of the same port (stacks sharing the adapter) are
 * turned around by the adapter's embedded switch and never reach the wire.
 *
 * Everything the adapter reports to its host (work completions, port and QP events) is
 * delivered through the host callbacks from an engine event, event_delay after it
 * happened, in order. Received frames are dropped and counted when they are not for a VF
 * (MAC, VLAN, GID), malformed, or fail the ICRC check; the ICRC of every accepted frame is
 * folded into the engine fingerprint.
 */
#ifndef SIM_RNIC_H
#define SIM_RNIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/smcr_transport.h"
#include "sim/fabric/endpoint.h"
#include "sim/fabric/fabric.h"
#include "sim/host/host.h"
#include "sim/rdma/dcqcn.h"

typedef struct rnic rnic;
typedef struct rnic_vf rnic_vf;

#define RNIC_MAX_PORTS 2
#define RNIC_MAX_VFS 64
#define RNIC_MAX_VLANS 4

typedef struct rnic_port_config {
	uint8_t mac[6]; /* physical MAC; all zero = 06:PP:PP:pp:00:00 */
	char pnet_id[17];
	uint32_t eth_mtu; /* interface MTU; the port's IB MTU is the largest that fits */
} rnic_port_config;

/* Congestion features of an adapter (all off by default: frames as without them).
 *  - pcp: the 802.1p priority of every RoCE frame, in an 802.1Q tag (a priority tag with
 *    VID 0 on an untagged GID); -1 = no tag of its own.
 *  - dscp: the DSCP of RoCE v2 frames (upper six bits of the IPv4 TOS); -1 = the address
 *    handle's traffic class.
 *  - The adapter's priority, whose PFC PAUSE it honours, is pcp if set, else dscp >> 3 if
 *    set (the class selector), else 0. PAUSE/PFC from the link partner is always
 *    honoured: frames of a paused priority wait in the adapter, QPs stop feeding it.
 *  - dcqcn: RoCE v2 frames are ECN-capable (ECT(0)); a CE-marked frame makes the receiving
 *    QP send a CNP to its peer QP (at most one per dcqcn.cnp_interval), with cnp_pcp (when
 *    pcp is set) and cnp_dscp, never ECN-capable itself; a CNP received cuts the QP's rate
 *    (sim/rdma/dcqcn.h). RoCE v1 has no IP ECN field: a v1 QP's frames are never marked,
 *    so it never sees a CNP and its limiter stays idle at line rate. */
typedef struct rnic_cc_config {
	bool dcqcn;
	int pcp, dscp;
	uint8_t cnp_pcp, cnp_dscp;
	dcqcn_params dp;
} rnic_cc_config;

/* The priority such an adapter sends RoCE data with: the PCP, else the DSCP's class, else
 * 0; it is also the priority whose PAUSE it honours. */
unsigned rnic_cc_priority(const rnic_cc_config *cc);

typedef struct rnic_config {
	char name[32];
	uint16_t pfid;
	uint8_t nports; /* 1 or 2 */
	rnic_port_config ports[RNIC_MAX_PORTS];
	sim_time doorbell_delay; /* post_send to first packet on an idle QP */
	sim_time event_delay;    /* an event (completion, port change) to its delivery */
	sim_time tx_window;      /* the adapter keeps at most this much wire time queued */
	uint32_t ack_req_every;  /* AckReq on every Nth packet of long messages (and the last) */
	/* A receive side that stops draining (a stalled host): from rx_stall_at for
	 * rx_stall_for (0 = never) the adapter takes no frame off the wire, holds what still
	 * arrives and pauses its priority with PFC (sim/rdma/rnic_rx_stall.c) */
	sim_time rx_stall_at, rx_stall_for;
	uint8_t roce; /* GID types the adapter offers: RNIC_ROCE_V1 | RNIC_ROCE_V2
	                            * (0 = both); Soft-RoCE (rxe), for one, has RoCE v2 only */
	rnic_cc_config cc;
} rnic_config;

#define RNIC_ROCE_V1 1u
#define RNIC_ROCE_V2 2u

typedef struct rnic_host {
	/* A completion; wc->qp_ctx is the QP's create-time context. */
	void (*completion)(void *ctx, const smcr_wc *wc);
	/* Port up/down (qp_ctx NULL) or a QP that went to ERR without a completion of its own
	 * (port = the QP's port). */
	void (*async_event)(void *ctx, smcr_async_event ev, uint8_t port, void *qp_ctx);
	void *ctx;
} rnic_host;

typedef struct rnic_stats {
	uint64_t tx_frames, tx_bytes;
	uint64_t tx_looped; /* frames to another VF of the same port, kept inside */
	uint64_t rx_frames, rx_accepted;
	uint64_t rx_not_mine;      /* no VF with this destination MAC (floods, broadcasts) */
	uint64_t rx_not_roce;      /* for a VF but not RoCE (another ethertype or UDP port) */
	uint64_t rx_vlan_mismatch; /* the VF has no GID on that VLAN */
	uint64_t rx_gid_mismatch;  /* destination GID / IPv4 address not the VF's */
	uint64_t rx_malformed;
	uint64_t rx_icrc_errors;
	uint64_t rx_no_qp;       /* unknown QPN, another VF's QP, or a QP not ready */
	uint64_t rx_ecn_ce;      /* accepted RoCE v2 frames that arrived CE-marked */
	uint64_t cnp_tx, cnp_rx; /* CNPs sent (notification point) and received (reaction point) */
	uint64_t tx_held;        /* frames held because their priority was paused */
	uint64_t pfc_tx;         /* PFC frames the adapter sent (XOFF and XON): receive stalls */
	uint64_t rx_stall_held;  /* frames that arrived while the receive side was stalled */
	uint64_t rx_stall_peak;  /* the most bytes held at once during a stall */
} rnic_stats;

/* Defaults: 1 port, eth MTU 1500 (IB MTU 1024), doorbell 200 ns, events 100 ns,
 * tx window 10 us, AckReq every 16 packets; congestion features off, DCQCN parameters of
 * dcqcn_params_default(), CNPs with PCP 6 and DSCP 48 (the ConnectX defaults). */
void rnic_config_default(rnic_config *c, const char *name, uint16_t pfid);

rnic *rnic_new(sim_fabric *fab, const rnic_config *cfg);
/* Frees the VFs, their QPs and MRs. */
void rnic_free(rnic *r);

/* The port's endpoint, to attach to a switch port or wire end. port is 1-based. */
sim_endpoint *rnic_port_endpoint(rnic *r, uint8_t port);
uint64_t rnic_id(const rnic *r);
uint16_t rnic_pfid(const rnic *r);
uint8_t rnic_nports(const rnic *r);
bool rnic_port_active(const rnic *r, uint8_t port);
const rnic_stats *rnic_stats_get(const rnic *r);
/* Live objects of all its VFs: queue pairs and memory regions (a run that has ended
 * cleanly has freed them all). */
void rnic_live_objects(const rnic *r, size_t *qps, size_t *mrs);
/* The live QP numbered qpn on this adapter, or NULL (for observers: its statistics). */
const struct rnic_qp *rnic_find_qp(const rnic *r, uint32_t qpn);
/* Observe frames the adapter turns around between VFs of one port (they never reach the
 * port's plug): fn sees each with the port's endpoint plug, SIM_TAP_OUT and the time it
 * was sent. NULL removes it. */
void rnic_set_loop_tap(rnic *r, sim_tap_fn fn, void *ctx);

/* Time (ns, up to now) the link partner kept the port's priority prio paused, and the
 * PAUSE/PFC frames the port received. */
sim_time rnic_port_paused_ns(const rnic *r, uint8_t port, unsigned prio);
uint64_t rnic_port_pause_frames(const rnic *r, uint8_t port);
/* Virtual ns the port's receive side has been stalled so far (rx_stall_at/for). */
sim_time rnic_port_rx_stalled_ns(const rnic *r, uint8_t port);
/* The priority the adapter sends RoCE data with (see rnic_cc_config). */
unsigned rnic_priority(const rnic *r);
const rnic_config *rnic_config_get(const rnic *r);
/* The adapter's QPs in number order, for reports: i < rnic_qp_slots(); NULL = destroyed. */
size_t rnic_qp_slots(const rnic *r);
const struct rnic_qp *rnic_qp_at(const rnic *r, size_t i);

/* A stack activates the adapter: a new VF. NULL when all VFs are in use. */
rnic_vf *rnic_activate(rnic *r, const char *stack_name, const rnic_host *host);
/* Destroys the VF's QPs (no further completions) and MRs. */
void rnic_deactivate(rnic_vf *vf);
/* The host promises to call rnic_host_writes before it changes (writes, zeroes, frees or
 * lets go of the pages of) any memory an RDMA WRITE of this VF may send from. Then the
 * adapter may leave a WRITE packet's payload in that memory while the packet is in flight
 * and have the responder copy it from there (one copy instead of two, sim/fabric/frame.h
 * deferred copies); a tap, a capture or anything else that reads the frame gets the bytes
 * copied into it first. Without the promise every payload is copied when it is sent. */
void rnic_vf_notes_writes(rnic_vf *vf);
/* The host the VF's work comes from (sim/host): with costs, posting a work request
 * costs its CPU the profile's smc_wr_ns, the request reaches the adapter at the host's
 * time plus rnic_doorbell_ns, and completions are written rnic_cqe_ns after they
 * happen (instead of the adapter's doorbell_delay and event_delay). */
void rnic_vf_set_host(rnic_vf *vf, sim_host *h);
/* n bytes at p of host memory are about to change: packets in flight take their bytes
 * from there first. */
void rnic_host_writes(rnic *r, const void *p, size_t n);

uint32_t rnic_vf_number(const rnic_vf *vf);
/* Heap held for the VF's memory regions (regions, key slots, the address index) and its
 * QPs (QPs and their work queues), in the allocator's units: memory measurements. */
typedef struct rnic_vf_mem_census {
	uint64_t mrs, mr_bytes, qps, qp_bytes;
} rnic_vf_mem_census;
void rnic_vf_mem_census_add(const rnic_vf *vf, rnic_vf_mem_census *out);
const uint8_t *rnic_vf_vmac(const rnic_vf *vf, uint8_t port);
/* Configure the VLANs the VF's port is on (v1 GIDs): vid 0 = untagged. Rebuilds the GID
 * table and reports SMCR_EV_GID_CHANGE. Errors: SMCR_ERR_INVAL, SMCR_ERR_LIMIT. */
int rnic_vf_set_vlans(rnic_vf *vf, uint8_t port, const uint16_t *vids, size_t n);
/* Assign an IPv4 address (host order) of an interface with prefix_len bits of network (0 =
 * unknown) on a VLAN: adds a RoCE v2 GID. */
int rnic_vf_add_ipv4(rnic_vf *vf, uint8_t port, uint32_t ipv4, uint8_t prefix_len, uint16_t vid);
int rnic_vf_del_ipv4(rnic_vf *vf, uint8_t port, uint32_t ipv4);
/* What the core needs to know about a port of this VF. */
void rnic_vf_port_desc(const rnic_vf *vf, uint8_t port, smcr_port_desc *out);

#endif
