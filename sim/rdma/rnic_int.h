/* Internal structures shared by the adapter (rnic.c), memory regions (mr.c) and the QP
 * engine (qp.c, qp_requester.c, qp_responder.c). Not for use outside those files. */
#ifndef SIM_RNIC_INT_H
#define SIM_RNIC_INT_H

#include "sim/engine/u64map.h"
#include "sim/rdma/mr.h"
#include "sim/rdma/qp.h"
#include "sim/rdma/rnic.h"
#include "sim/fabric/roce.h"

/* QPNs of an adapter start at 0x000100 + PFID (low 10 bits) << 12: distinct across the
 * adapters of a capture, which makes traces easier to read; 0 and 1 are never used. */
#define RNIC_QPN_BASE 0x000100u

/* The last answer of the VMAC index for one kind of question on a port: frames of a
 * connection ask the same one again and again. Valid while the index is as it was
 * (rnic.vmac_gen). */
typedef struct vmac_memo {
	uint64_t key;
	uint32_t gen;
	struct rnic_vf *vf;
} vmac_memo;

typedef struct rnic_port {
	/* what a frame received reads first, with the endpoint's ctx pointing here: an ARP
	 * storm brings every request to every port */
	rnic *r;
	uint8_t num;
	bool rx_stalled; /* rnic_rx_stall.c */
	sim_endpoint ep;
	vmac_memo rx_memo, tx_memo; /* frames received, frames sent (the turnaround check) */
	uint8_t pmac[6];
	char pnet_id[17];
	uint32_t eth_mtu;
	smcr_mtu ib_mtu;
	/* PFC/PAUSE from the link partner: frames of a paused priority wait here, in order,
	 * until resume_ev[p] finds the priority unpaused; the time paused is summed */
	sim_frame *held_head[SIM_PRIOS], *held_tail[SIM_PRIOS];
	sim_event resume_ev[SIM_PRIOS];
	sim_time pause_end[SIM_PRIOS]; /* end of the pause counted in paused_total */
	sim_time paused_total[SIM_PRIOS];
	uint64_t pause_frames;
	/* a stalled receive side (rnic_rx_stall.c): what arrived meanwhile, in order, and the
	 * event that starts the stall, refreshes its XOFF and ends it */
	sim_frame *rx_head, *rx_tail;
	uint64_t rx_bytes;
	sim_time rx_stalled_since, rx_stalled_total;
	sim_event stall_ev;
	/* the live QPs on this port, in QP number order (numbers only grow): whom a resumed
	 * link or priority restarts, without walking every QP number the adapter handed out */
	struct rnic_qp *qps_head, *qps_tail;
} rnic_port;

typedef struct vf_ipv4 {
	uint32_t addr;
	uint16_t vid;
	uint8_t prefix_len;
} vf_ipv4;

typedef struct vf_port {
	uint8_t vmac[6];
	uint64_t vmac_key;
	uint16_t vlans[RNIC_MAX_VLANS];
	uint32_t n_vlans;
	vf_ipv4 ipv4[SMCR_MAX_GIDS];
	uint32_t n_ipv4;
	smcr_gid_entry gids[SMCR_MAX_GIDS];
	uint32_t n_gids;
} vf_port;

/* Something the VF reports to its host: a completion or an async event. */
typedef struct vf_item {
	sim_time at;
	const rnic_qp *qp; /* the QP it belongs to (NULL for port events); only compared */
	bool is_async;
	bool dead; /* its QP was destroyed: not delivered */
	uint8_t port;
	smcr_async_event ev;
	smcr_wc wc;
} vf_item;

typedef struct mr_slot {
	rnic_mr *mr; /* NULL when free */
	uint8_t tag; /* bumped at every reuse */
	uint32_t next_free;
} mr_slot;

struct rnic_mr {
	rnic_vf *vf;
	rnic_mr *same_addr; /* the next live region of the VF at the same address */
	uint32_t slot;
	uint32_t lkey, rkey;
	uint32_t access; /* beside the keys: 56 bytes, one 64-byte heap block (a million idle
	                  * connections hold four million regions) */
	uint8_t *addr;
	size_t len;
	uint64_t iova;
};

struct rnic_vf {
	rnic *r;
	uint32_t number; /* 1-based, in activation order */
	uint64_t id;
	char stack[32];
	rnic_host host;
	vf_port ports[RNIC_MAX_PORTS];
	mr_slot *mrs;
	uint32_t n_mr_slots, cap_mr_slots, mr_free; /* mr_free: UINT32_MAX = none */
	u64map mr_by_addr;                          /* live regions by host address (chains: rnic_mr.same_addr) */
	uint64_t next_iova;
	rnic_qp *qps;   /* every live QP of the VF, newest first */
	vf_item *items; /* FIFO ring of pending reports */
	size_t item_head, item_count, item_cap;
	sim_event item_ev;
	bool notes_writes; /* rnic_vf_notes_writes: WRITE payloads may stay in host memory */
	sim_host *costs;   /* rnic_vf_set_host: the host whose CPUs post and poll (NULL: none) */
	bool delivering;   /* inside a host callback ... */
	bool doomed;     /* ... which deactivated the VF: free it afterwards */
};

/* Between two VFs of one port, through the adapter's embedded switch. */
#define RNIC_LOOP_DELAY 300u

struct rnic {
	sim_fabric *fab;
	sim_engine *eng;
	sim_frame_pool *frames; /* the fabric's */
	uint64_t id;
	rnic_config cfg;
	rnic_port ports[RNIC_MAX_PORTS];
	rnic_vf *vfs[RNIC_MAX_VFS];
	uint32_t n_vf_slots;
	u64map vf_by_vmac; /* active VFs by (port, VMAC) */
	uint32_t vmac_gen; /* bumped at every change of vf_by_vmac (from 1: a zero memo is stale) */
	uint32_t vf_counter;
	uint32_t qpn_base;
	rnic_qp **qps; /* by qpn - qpn_base; NULL once destroyed */
	size_t n_qps, cap_qps;
	rnic_stats st;
	uint32_t k_qp_tx, k_qp_retry, k_qp_rnr, k_vf_report, k_loop, k_qp_cc, k_qp_cnp, k_resume;
	uint8_t prio, cnp_prio; /* priorities of the data and of the CNPs the adapter sends */
	sim_tap_fn loop_tap;    /* observer of turnaround frames (captures), or NULL */
	sim_frame *rx_frame; /* the frame being received (rnic_port_receive), for the
	                            * responder: where its payload is (sim_frame_bytes_at) */
	void *loop_tap_ctx;
};

/* Send work queue entry. */
typedef struct swqe {
	uint64_t wr_id;
	smcr_wr_opcode opcode;
	uint32_t flags;
	uint32_t num_sge;
	smcr_sge sge[SMCR_MAX_SGE];
	const uint8_t *host[SMCR_MAX_SGE]; /* resolved at the first transmission */
	bool resolved;
	uint64_t remote_addr;
	uint32_t rkey;
	uint32_t length;
	uint32_t npkts;
	uint32_t first_psn;
	sim_time ready_at; /* its doorbell reaches the adapter then (0: at once) */
} swqe;

/* Receive work queue entry. */
typedef struct rwqe {
	uint64_t wr_id;
	uint32_t num_sge;
	smcr_sge sge[SMCR_MAX_SGE];
	uint8_t *host[SMCR_MAX_SGE];
	uint32_t length;
} rwqe;

enum resp_msg { RESP_IDLE = 0,
	        RESP_SEND,
	        RESP_WRITE };

struct rnic_qp {
	rnic *r;
	rnic_vf *vf;
	rnic_port *port;
	rnic_qp *next_in_vf;
	rnic_qp *port_prev, *port_next; /* port->qps_head list */
	uint64_t id;
	uint32_t qpn;
	void *ctx;
	smcr_qp_state state;
	smcr_qp_caps caps;

	/* attributes */
	uint32_t access;
	smcr_mtu mtu;
	uint32_t mtu_bytes;
	uint32_t dest_qpn;
	uint8_t min_rnr_timer, timeout, retry_cnt, rnr_retry;
	roce_addr addr; /* headers of every packet this QP sends */

	/* requester */
	swqe *sq;
	uint8_t *sq_inline; /* max_inline_data bytes per SQ slot */
	uint32_t sq_cap, sq_head, sq_count;
	uint32_t tx_idx, tx_pkt; /* next packet to send: SQ position (from head), packet */
	uint32_t next_psn;       /* first PSN of the next new WQE */
	uint32_t una;            /* oldest unacknowledged PSN */
	uint32_t sent_end;       /* one past the highest PSN ever sent */
	uint8_t retry_left, rnr_left;
	bool rnr_wait;
	uint32_t since_ackreq;
	sim_time retry_deadline; /* local ACK timeout; SIM_TIME_NEVER = not running */
	sim_event tx_ev, retry_ev, rnr_ev;

	/* responder */
	rwqe *rq;
	uint32_t rq_cap, rq_head, rq_count;
	uint32_t epsn, msn;
	enum resp_msg resp;
	uint32_t resp_offset; /* SEND: bytes placed in the RQ head so far */
	uint8_t *write_dst;   /* WRITE: where the next byte goes */
	uint32_t write_left;
	struct lazy_arena_buf *write_lazy; /* WRITE: the arena buffer it goes to, or NULL */
	bool nak_sent;

	/* congestion control: the DCQCN reaction point and its timers; the notification
	 * point: the end of its CNP interval, and whether a marked frame arrived in it (then
	 * cnp_ev sends the CNP when the interval ends) */
	bool ecn; /* DCQCN on and RoCE v2: frames ECN-capable */
	dcqcn_rp rp;
	sim_event cc_ev;
	sim_time cnp_next;
	bool cnp_pending;
	sim_event cnp_ev;

	rnic_qp_stats st;
};

/* rnic.c */
uint32_t rnic_register_qp(rnic *r, rnic_qp *qp);
void rnic_unregister_qp(rnic *r, rnic_qp *qp);
void rnic_vf_report_wc(rnic_vf *vf, const rnic_qp *qp, const smcr_wc *wc);
void rnic_vf_report_async(rnic_vf *vf, const rnic_qp *qp, smcr_async_event ev, uint8_t port, void *qp_ctx);
void rnic_vf_forget_qp(rnic_vf *vf, const rnic_qp *qp);
const smcr_gid_entry *rnic_vf_gid(const rnic_vf *vf, uint8_t port, uint16_t index);
/* Send a frame of priority prio out of a port, counting it; held while prio is paused. */
void rnic_port_send(rnic_port *port, sim_frame *f, unsigned prio);
/* Whether priority prio of the port is paused now (PFC/PAUSE from the link partner). */
bool rnic_port_paused(const rnic_port *port, unsigned prio, sim_time *until);

/* mr.c */
void rnic_mr_free_all(rnic_vf *vf);

/* qp.c */
void qp_to_error(rnic_qp *qp, uint32_t sq_fail_idx, smcr_wc_status sq_status, smcr_wc_status rq_head_status);
void qp_complete_send(rnic_qp *qp, const swqe *w, smcr_wc_status status);
void qp_receive(rnic_qp *qp, const roce_pkt *pkt);
static inline swqe *qp_sq_at(rnic_qp *qp, uint32_t i) { return &qp->sq[(qp->sq_head + i) % qp->sq_cap]; }
static inline rwqe *qp_rq_head(rnic_qp *qp) { return &qp->rq[qp->rq_head]; }

/* qp_requester.c */
void req_kick(rnic_qp *qp, sim_time at);
void req_on_ack(rnic_qp *qp, const roce_pkt *pkt);
void req_tx_event(sim_engine *eng, sim_event *ev);
void req_retry_event(sim_engine *eng, sim_event *ev);
void req_rnr_event(sim_engine *eng, sim_event *ev);
void req_cc_event(sim_engine *eng, sim_event *ev);
void resp_cnp_event(sim_engine *eng, sim_event *ev);
void req_on_cnp(rnic_qp *qp);

/* qp_responder.c */
void resp_on_request(rnic_qp *qp, const roce_pkt *pkt);
/* Notification point: a CE-marked packet arrived for qp. */
void resp_on_congestion(rnic_qp *qp);

#define SQ_NONE UINT32_MAX

/* RDMA WRITE packets with at least this much payload leave it in host memory until the
 * responder copies it (rnic_vf_notes_writes); below, a second copy costs less than the
 * bookkeeping. */
#define RNIC_DEFER_MIN 1024u

/* The receive path (rnic.c): a frame taken off the wire, parsed and given to its QP. */
void rnic_port_receive(rnic_port *port, sim_frame *f);
/* The receive stall (rnic_rx_stall.c): arm it when the adapter is made; while it lasts,
 * hold keeps a frame (true) instead of receiving it; free drops what is still held. */
void rnic_rx_stall_init(rnic_port *port);
bool rnic_rx_stall_hold(rnic_port *port, sim_frame *f);
void rnic_rx_stall_free(rnic_port *port);

#endif
