/* The responder half of an RC QP: PSN checking, opcode sequencing, SEND into receive
 * WQEs, RDMA WRITE into registered memory, ACK / NAK / RNR NAK generation. */
#include <string.h>

#include "sim/rdma/lazy_arena.h"
#include "sim/rdma/rnic_int.h"

static void send_ack(rnic_qp *qp, uint8_t syndrome, uint32_t psn)
{
	roce_bth bth = { .opcode = ROCE_OP_ACK, .pkey = ROCE_DEFAULT_PKEY, .dest_qp = qp->dest_qpn, .psn = psn };
	roce_aeth aeth = { .syndrome = syndrome, .msn = qp->msn & 0xFFFFFFu };
	qp->addr.ip_id++;
	sim_frame *f = roce_build(sim_fabric_frames(qp->r->fab), &qp->addr, &bth, NULL, &aeth, NULL, 0);
	rnic_port_send(qp->port, f, qp->r->prio);
	qp->st.tx_acks++;
}

/* The CNP itself: to the peer QP, not ECN-capable (a switch never marks it), with its own
 * priority; it opens the next CNP interval. */
static void send_cnp(rnic_qp *qp, sim_time now)
{
	rnic *r = qp->r;
	qp->cnp_next = now + r->cfg.cc.dp.cnp_interval;
	roce_addr a = qp->addr;
	a.traffic_class = (uint8_t)(r->cfg.cc.cnp_dscp << 2 | SIM_ECN_NOT_ECT);
	if (r->cfg.cc.pcp >= 0)
		a.vlan_tci = (uint16_t)(((unsigned)r->cfg.cc.cnp_pcp & 7u) << 13 | (a.vlan_tci & SIM_VLAN_VID_MASK));
	a.ip_id = ++qp->addr.ip_id;
	roce_bth bth = { .opcode = ROCE_OP_CNP, .becn = true, .pkey = ROCE_DEFAULT_PKEY, .dest_qp = qp->dest_qpn };
	sim_frame *f = roce_build(sim_fabric_frames(r->fab), &a, &bth, NULL, NULL, NULL, 0);
	rnic_port_send(qp->port, f, r->cnp_prio);
	qp->st.cnp_tx++;
	r->st.cnp_tx++;
}

/* Notification point, as the DCQCN paper words its NP algorithm (its Figure 6): "If a
 * marked packet arrives for a flow, and no CNP has been sent for the flow in last N
 * microseconds, a CNP is sent immediately. Then, the NIC generates at most one CNP packet
 * every N microseconds for the flow, if any packet that arrives within that time window
 * was marked." So a mark inside the interval is not forgotten: it sends the CNP when the
 * interval ends. */
void resp_on_congestion(rnic_qp *qp)
{
	rnic *r = qp->r;
	qp->st.ecn_ce_rx++;
	r->st.rx_ecn_ce++;
	if (!r->cfg.cc.dcqcn)
		return;
	sim_time now = sim_now(r->eng);
	if (now >= qp->cnp_next) {
		/* a mark in the very nanosecond the interval ends: this CNP is the one the
		 * interval owed, not a second one */
		if (qp->cnp_pending) {
			sim_event_cancel(r->eng, &qp->cnp_ev);
			qp->cnp_pending = false;
		}
		send_cnp(qp, now);
	} else if (!qp->cnp_pending) {
		qp->cnp_pending = true;
		sim_event_schedule(r->eng, &qp->cnp_ev, qp->cnp_next);
	}
}

void resp_cnp_event(sim_engine *eng, sim_event *ev)
{
	rnic_qp *qp = ev->ctx;
	qp->cnp_pending = false;
	if (qp->state == SMCR_QPS_RTR || qp->state == SMCR_QPS_RTS)
		send_cnp(qp, sim_now(eng));
}

/* A class C error: NAK it, then the responder QP goes to ERR (and says so). */
static void resp_fail(rnic_qp *qp, uint8_t nak_code, uint32_t psn, smcr_wc_status rq_head_status)
{
	send_ack(qp, (uint8_t)(ROCE_AETH_NAK | nak_code), psn);
	rnic_vf_report_async(qp->vf, qp, SMCR_EV_QP_FATAL, qp->port->num, qp->ctx);
	qp_to_error(qp, SQ_NONE, SMCR_WC_WR_FLUSH_ERR, rq_head_status);
}

static bool resolve_recv(rnic_qp *qp, rwqe *w)
{
	for (uint32_t i = 0; i < w->num_sge; i++) {
		const smcr_sge *s = &w->sge[i];
		w->host[i] = s->length ? rnic_mr_local(qp->vf, s->lkey, s->addr, s->length, SMCR_ACCESS_LOCAL_WRITE) : NULL;
		if (s->length && !w->host[i])
			return false;
	}
	return true;
}

/* The responder writes n bytes at dst of host memory: a payload still deferred in the
 * sender's memory there is taken first (a QP writing into memory it sends from), then the
 * bytes come from wherever the received frame's are now. */
static void place(rnic_qp *qp, uint8_t *dst, const uint8_t *payload, uint32_t n)
{
	if (sim_frame_pool_deferred(qp->r->frames))
		sim_frame_pool_settle_range(qp->r->frames, dst, n);
	if (qp->r->rx_frame)
		sim_frame_copy_out(qp->r->rx_frame, payload, n, dst); /* a deferred payload pays its ICRC on the way */
	else
		memcpy(dst, payload, n);
}

static void scatter(rnic_qp *qp, rwqe *w, uint32_t off, const uint8_t *src, uint32_t len)
{
	for (uint32_t i = 0; i < w->num_sge && len; i++) {
		uint32_t sl = w->sge[i].length;
		if (off >= sl) {
			off -= sl;
			continue;
		}
		uint32_t take = sl - off < len ? sl - off : len;
		place(qp, w->host[i] + off, src, take);
		src += take;
		len -= take;
		off = 0;
	}
}

static bool op_is_send(uint8_t op) { return op <= ROCE_OP_SEND_ONLY_IMM; }
static bool op_first(uint8_t op)
{
	return op == ROCE_OP_SEND_FIRST || op == ROCE_OP_SEND_ONLY || op == ROCE_OP_SEND_ONLY_IMM ||
	       op == ROCE_OP_WRITE_FIRST || op == ROCE_OP_WRITE_ONLY || op == ROCE_OP_WRITE_ONLY_IMM;
}
static bool op_last(uint8_t op)
{
	return op == ROCE_OP_SEND_LAST || op == ROCE_OP_SEND_LAST_IMM || op == ROCE_OP_SEND_ONLY ||
	       op == ROCE_OP_SEND_ONLY_IMM || op == ROCE_OP_WRITE_LAST || op == ROCE_OP_WRITE_LAST_IMM ||
	       op == ROCE_OP_WRITE_ONLY || op == ROCE_OP_WRITE_ONLY_IMM;
}

static void exec_send(rnic_qp *qp, const roce_pkt *pkt, bool first, bool last)
{
	uint32_t psn = pkt->bth.psn;
	if (first) {
		if (qp->rq_count == 0) {
			/* Receiver Not Ready: the requester waits and retries this PSN; later packets
			 * of the burst are dropped without another NAK */
			qp->st.rnr_naks_tx++;
			qp->nak_sent = true;
			send_ack(qp, (uint8_t)(ROCE_AETH_RNR_NAK | qp->min_rnr_timer), psn);
			return;
		}
		if (!resolve_recv(qp, qp_rq_head(qp))) {
			resp_fail(qp, ROCE_NAK_REM_OP_ERR, psn, SMCR_WC_LOC_PROT_ERR);
			return;
		}
		qp->resp = RESP_SEND;
		qp->resp_offset = 0;
	}
	rwqe *w = qp_rq_head(qp);
	uint32_t len = pkt->payload_len;
	if (len > w->length - qp->resp_offset) {
		resp_fail(qp, ROCE_NAK_INVALID_REQ, psn, SMCR_WC_LOC_LEN_ERR);
		return;
	}
	scatter(qp, w, qp->resp_offset, pkt->payload, len);
	qp->resp_offset += len;
	if (last) {
		smcr_wc wc = { .wr_id = w->wr_id, .qp_ctx = qp->ctx, .status = SMCR_WC_SUCCESS, .opcode = SMCR_WC_RECV, .byte_len = qp->resp_offset, .qp_num = qp->qpn, .solicited = pkt->bth.se };
		rnic_vf_report_wc(qp->vf, qp, &wc);
		qp->rq_head = (qp->rq_head + 1) % qp->rq_cap;
		qp->rq_count--;
		qp->resp = RESP_IDLE;
		qp->msn++;
	}
	qp->epsn = roce_psn_add(psn, 1);
}

static void exec_write(rnic_qp *qp, const roce_pkt *pkt, bool first, bool last)
{
	uint32_t psn = pkt->bth.psn;
	if (pkt->has_imm) {
		/* RDMA WRITE with immediate would consume a receive WQE: not implemented */
		resp_fail(qp, ROCE_NAK_INVALID_REQ, psn, SMCR_WC_WR_FLUSH_ERR);
		return;
	}
	if (first) {
		uint8_t *dst = NULL;
		if (qp->access & SMCR_ACCESS_REMOTE_WRITE)
			dst = rnic_mr_remote(qp->vf, pkt->reth.rkey, pkt->reth.va, pkt->reth.dma_len, SMCR_ACCESS_REMOTE_WRITE);
		if (!dst) {
			resp_fail(qp, ROCE_NAK_REM_ACCESS_ERR, psn, SMCR_WC_WR_FLUSH_ERR);
			return;
		}
		qp->write_dst = dst;
		qp->write_left = pkt->reth.dma_len;
		qp->write_lazy = lazy_arena_find(dst);
		qp->resp = RESP_WRITE;
	}
	uint32_t len = pkt->payload_len;
	if (len > qp->write_left || (last && len != qp->write_left)) {
		resp_fail(qp, ROCE_NAK_INVALID_REQ, psn, SMCR_WC_WR_FLUSH_ERR);
		return;
	}
	place(qp, qp->write_dst, pkt->payload, len);
	if (qp->write_lazy)
		lazy_arena_landed(qp->write_lazy, len); /* in flight until the core sees its CDC */
	qp->write_dst += len;
	qp->write_left -= len;
	if (last) {
		qp->resp = RESP_IDLE;
		qp->msn++;
	}
	qp->epsn = roce_psn_add(psn, 1);
}

void resp_on_request(rnic_qp *qp, const roce_pkt *pkt)
{
	uint32_t psn = pkt->bth.psn;
	uint8_t op = pkt->bth.opcode;
	qp->st.rx_packets++;
	int32_t d = roce_psn_diff(psn, qp->epsn);
	if (d < 0) {
		/* already executed: never again, but tell the requester where we are */
		qp->st.duplicates++;
		if (pkt->bth.ack_req)
			send_ack(qp, ROCE_AETH_ACK | ROCE_AETH_CREDITS_INVALID, roce_psn_add(qp->epsn, 0xFFFFFF));
		return;
	}
	if (d > 0) {
		qp->st.ooo_drops++;
		if (!qp->nak_sent) {
			qp->nak_sent = true;
			qp->st.seq_naks_tx++;
			send_ack(qp, ROCE_AETH_NAK | ROCE_NAK_PSN_SEQ_ERR, qp->epsn);
		}
		return;
	}
	qp->nak_sent = false;
	if (pkt->bth.pkey != ROCE_DEFAULT_PKEY)
		return; /* P_Key violation: silently dropped */

	bool first = op_first(op), last = op_last(op), is_send = op_is_send(op);
	/* opcode sequence: a message starts with FIRST/ONLY and continues with its own kind */
	bool seq_ok = qp->resp == RESP_IDLE   ? first
	              : qp->resp == RESP_SEND ? (is_send && !first)
	                                      : (!is_send && !first);
	uint32_t plen = pkt->payload_len;
	bool len_ok = last ? plen <= qp->mtu_bytes && (first || plen > 0) : plen == qp->mtu_bytes;
	if (!seq_ok || !len_ok) {
		resp_fail(qp, ROCE_NAK_INVALID_REQ, psn, SMCR_WC_WR_FLUSH_ERR);
		return;
	}
	if (is_send)
		exec_send(qp, pkt, first, last);
	else
		exec_write(qp, pkt, first, last);
	if (qp->state == SMCR_QPS_ERR || qp->epsn == psn)
		return; /* failed, or RNR NAKed */
	qp->st.rx_payload_bytes += plen;
	if (pkt->bth.ack_req)
		send_ack(qp, ROCE_AETH_ACK | ROCE_AETH_CREDITS_INVALID, psn);
}
