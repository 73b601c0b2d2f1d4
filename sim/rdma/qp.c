/* RC queue pairs: creation, the state machine with its attribute checks, posting work,
 * the error state and its flushes. The requester and responder halves live in
 * qp_requester.c and qp_responder.c. */
#include "sim/rdma/qp.h"

#include <stdlib.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/fabric/gid.h"
#include "sim/engine/oom.h"
#include "sim/rdma/rnic_int.h"

rnic_qp *rnic_qp_create(rnic_vf *vf, uint8_t port, const smcr_qp_caps *caps, void *qp_ctx)
{
	rnic *r = vf->r;
	if (port < 1 || port > r->cfg.nports || !caps)
		return NULL;
	if (caps->max_send_wr == 0 || caps->max_send_wr > RNIC_MAX_QP_WR || caps->max_recv_wr > RNIC_MAX_QP_WR ||
	    caps->max_send_sge > SMCR_MAX_SGE || caps->max_recv_sge > SMCR_MAX_SGE ||
	    caps->max_inline_data > RNIC_MAX_INLINE)
		return NULL;
	rnic_qp *qp = sim_xcalloc(1, sizeof(*qp), "queue pairs");
	qp->r = r;
	qp->vf = vf;
	qp->port = &r->ports[port - 1];
	qp->id = sim_fabric_new_id(r->fab);
	qp->ctx = qp_ctx;
	qp->caps = *caps;
	qp->state = SMCR_QPS_RESET;
	qp->sq_cap = caps->max_send_wr;
	qp->sq = sim_xcalloc(qp->sq_cap, sizeof(*qp->sq), "queue pairs' send queues");
	if (caps->max_inline_data)
		qp->sq_inline = sim_xcalloc(qp->sq_cap, caps->max_inline_data, "queue pairs' send queues");
	qp->rq_cap = caps->max_recv_wr ? caps->max_recv_wr : 1;
	qp->rq = sim_xcalloc(qp->rq_cap, sizeof(*qp->rq), "queue pairs' receive queues");
	qp->retry_deadline = SIM_TIME_NEVER;
	qp->qpn = rnic_register_qp(r, qp);
	sim_event_init(&qp->tx_ev, r->k_qp_tx, qp->id, req_tx_event, qp);
	sim_event_init(&qp->retry_ev, r->k_qp_retry, qp->id, req_retry_event, qp);
	sim_event_init(&qp->rnr_ev, r->k_qp_rnr, qp->id, req_rnr_event, qp);
	sim_event_init(&qp->cc_ev, r->k_qp_cc, qp->id, req_cc_event, qp);
	sim_event_init(&qp->cnp_ev, r->k_qp_cnp, qp->id, resp_cnp_event, qp);
	dcqcn_rp_init(&qp->rp, sim_endpoint_link_bps(&qp->port->ep));
	qp->next_in_vf = vf->qps;
	vf->qps = qp;
	return qp;
}

uint32_t rnic_qp_num(const rnic_qp *qp) { return qp->qpn; }
smcr_qp_state rnic_qp_state(const rnic_qp *qp) { return qp->state; }
const rnic_qp_stats *rnic_qp_stats_get(const rnic_qp *qp) { return &qp->st; }
uint64_t rnic_qp_rate_bps(const rnic_qp *qp) { return qp->rp.rc_bps; }
bool rnic_qp_rate_limited(const rnic_qp *qp) { return qp->rp.limited; }
const struct dcqcn_stats *rnic_qp_dcqcn_stats(const rnic_qp *qp) { return &qp->rp.st; }
uint32_t rnic_qp_dest_num(const rnic_qp *qp) { return qp->dest_qpn; }

static void cancel_timers(rnic_qp *qp)
{
	qp->retry_deadline = SIM_TIME_NEVER;
	sim_event_cancel(qp->r->eng, &qp->tx_ev);
	sim_event_cancel(qp->r->eng, &qp->retry_ev);
	sim_event_cancel(qp->r->eng, &qp->rnr_ev);
	sim_event_cancel(qp->r->eng, &qp->cc_ev);
	sim_event_cancel(qp->r->eng, &qp->cnp_ev);
	qp->cnp_pending = false;
}

void rnic_qp_destroy(rnic_qp *qp)
{
	if (!qp)
		return;
	rnic_vf *vf = qp->vf;
	cancel_timers(qp);
	rnic_vf_forget_qp(vf, qp);
	rnic_unregister_qp(qp->r, qp);
	for (rnic_qp **pp = &vf->qps; *pp; pp = &(*pp)->next_in_vf) {
		if (*pp == qp) {
			*pp = qp->next_in_vf;
			break;
		}
	}
	free(qp->sq);
	free(qp->sq_inline);
	free(qp->rq);
	free(qp);
}

/* --- completions and the error state ---------------------------------------------- */

void qp_complete_send(rnic_qp *qp, const swqe *w, smcr_wc_status status)
{
	if (status == SMCR_WC_SUCCESS && !(w->flags & SMCR_SEND_SIGNALED))
		return;
	smcr_wc wc = {
		.wr_id = w->wr_id,
		.qp_ctx = qp->ctx,
		.status = status,
		.opcode = w->opcode == SMCR_WR_RDMA_WRITE ? SMCR_WC_RDMA_WRITE : SMCR_WC_SEND,
		.byte_len = status == SMCR_WC_SUCCESS ? w->length : 0,
		.qp_num = qp->qpn,
	};
	rnic_vf_report_wc(qp->vf, qp, &wc);
}

static void complete_recv(rnic_qp *qp, const rwqe *w, smcr_wc_status status)
{
	smcr_wc wc = { .wr_id = w->wr_id, .qp_ctx = qp->ctx, .status = status, .opcode = SMCR_WC_RECV, .qp_num = qp->qpn };
	rnic_vf_report_wc(qp->vf, qp, &wc);
}

void qp_to_error(rnic_qp *qp, uint32_t sq_fail_idx, smcr_wc_status sq_status, smcr_wc_status rq_head_status)
{
	if (qp->state == SMCR_QPS_ERR)
		return;
	qp->state = SMCR_QPS_ERR;
	cancel_timers(qp);
	/* completions keep work-request order: the failed WR with its error, all others flushed */
	for (uint32_t i = 0; i < qp->sq_count; i++)
		qp_complete_send(qp, qp_sq_at(qp, i), i == sq_fail_idx ? sq_status : SMCR_WC_WR_FLUSH_ERR);
	qp->sq_head = qp->sq_count = 0;
	qp->tx_idx = qp->tx_pkt = 0;
	for (uint32_t i = 0; i < qp->rq_count; i++)
		complete_recv(qp, &qp->rq[(qp->rq_head + i) % qp->rq_cap], i == 0 ? rq_head_status : SMCR_WC_WR_FLUSH_ERR);
	qp->rq_head = qp->rq_count = 0;
	qp->resp = RESP_IDLE;
}

/* --- state machine ------------------------------------------------------------------- */

static void reset_queues(rnic_qp *qp)
{
	cancel_timers(qp);
	qp->sq_head = qp->sq_count = qp->tx_idx = qp->tx_pkt = 0;
	qp->rq_head = qp->rq_count = 0;
	qp->resp = RESP_IDLE;
	qp->nak_sent = qp->rnr_wait = false;
	qp->since_ackreq = 0;
	qp->msn = 0;
}

static int check_init(const rnic_qp *qp, const smcr_qp_attr *a)
{
	if (a->port != qp->port->num || a->pkey_index != 0)
		return SMCR_ERR_INVAL;
	if (a->access & ~(uint32_t)(SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE | SMCR_ACCESS_REMOTE_READ))
		return SMCR_ERR_INVAL;
	return SMCR_ERR_OK;
}

static int to_rtr(rnic_qp *qp, const smcr_qp_attr *a)
{
	if (a->path_mtu < SMCR_MTU_256 || a->path_mtu > SMCR_MTU_4096 || a->path_mtu > qp->port->ib_mtu)
		return SMCR_ERR_INVAL;
	if (a->dest_qpn > 0xFFFFFF || a->rq_psn > 0xFFFFFF || a->min_rnr_timer > 31 || a->max_dest_rd_atomic > 16)
		return SMCR_ERR_INVAL;
	const smcr_gid_entry *g = rnic_vf_gid(qp->vf, qp->port->num, a->ah.sgid_index);
	if (!g)
		return SMCR_ERR_INVAL;
	if (g->type == SMCR_GID_ROCE_V2 && !gid_is_ipv4_mapped(a->ah.dgid))
		return SMCR_ERR_INVAL;
	qp->mtu = a->path_mtu;
	qp->mtu_bytes = smcr_mtu_bytes(a->path_mtu);
	qp->dest_qpn = a->dest_qpn;
	qp->min_rnr_timer = a->min_rnr_timer;
	qp->epsn = a->rq_psn;
	qp->msn = 0;
	qp->nak_sent = false;
	qp->resp = RESP_IDLE;

	roce_addr *ad = &qp->addr;
	memset(ad, 0, sizeof(*ad));
	ad->version = g->type == SMCR_GID_ROCE_V1 ? ROCE_V1 : ROCE_V2;
	memcpy(ad->dmac, a->ah.dmac, 6);
	memcpy(ad->smac, qp->vf->ports[qp->port->num - 1].vmac, 6);
	ad->vlan_tci = g->vlan_id;
	memcpy(ad->sgid, g->gid, 16);
	memcpy(ad->dgid, a->ah.dgid, 16);
	const rnic_cc_config *cc = &qp->r->cfg.cc;
	ad->traffic_class = a->ah.traffic_class;
	if (cc->pcp >= 0)
		ad->vlan_tci = (uint16_t)(((unsigned)cc->pcp & 7u) << 13 | g->vlan_id);
	qp->ecn = cc->dcqcn && ad->version == ROCE_V2;
	if (ad->version == ROCE_V2 && cc->dscp >= 0)
		ad->traffic_class = (uint8_t)((ad->traffic_class & 3u) | (unsigned)cc->dscp << 2);
	if (qp->ecn)
		ad->traffic_class = (uint8_t)((ad->traffic_class & ~3u) | SIM_ECN_ECT0);
	/* the rate limiter starts at the rate of the link the port is on now */
	dcqcn_rp_init(&qp->rp, sim_endpoint_link_bps(&qp->port->ep));
	qp->cnp_next = 0;
	qp->cnp_pending = false;
	sim_event_cancel(qp->r->eng, &qp->cnp_ev);
	ad->hop_limit = a->ah.hop_limit ? a->ah.hop_limit : 64;
	/* an ephemeral source port (>= 0xC000) derived from the QPN, as RoCE v2 stacks do */
	ad->udp_sport = (uint16_t)(0xC000u | (qp->qpn & 0x3FFFu));
	return SMCR_ERR_OK;
}

static int rts_params(rnic_qp *qp, const smcr_qp_attr *a, bool set_psn)
{
	if (a->timeout > 31 || a->retry_cnt > 7 || a->rnr_retry > 7 || a->sq_psn > 0xFFFFFF || a->max_rd_atomic > 16)
		return SMCR_ERR_INVAL;
	qp->timeout = a->timeout;
	qp->retry_cnt = a->retry_cnt;
	qp->rnr_retry = a->rnr_retry;
	qp->retry_left = a->retry_cnt;
	qp->rnr_left = a->rnr_retry;
	if (set_psn)
		qp->next_psn = qp->una = qp->sent_end = a->sq_psn;
	return SMCR_ERR_OK;
}

int rnic_qp_modify(rnic_qp *qp, const smcr_qp_attr *a)
{
	if (!a)
		return SMCR_ERR_INVAL;
	smcr_qp_state from = qp->state;
	int rc;
	switch (a->state) {
	case SMCR_QPS_RESET:
		reset_queues(qp);
		qp->state = SMCR_QPS_RESET;
		return SMCR_ERR_OK;
	case SMCR_QPS_ERR:
		qp_to_error(qp, SQ_NONE, SMCR_WC_WR_FLUSH_ERR, SMCR_WC_WR_FLUSH_ERR);
		return SMCR_ERR_OK;
	case SMCR_QPS_INIT:
		if (from != SMCR_QPS_RESET && from != SMCR_QPS_INIT)
			return SMCR_ERR_STATE;
		if ((rc = check_init(qp, a)))
			return rc;
		qp->access = a->access;
		qp->state = SMCR_QPS_INIT;
		return SMCR_ERR_OK;
	case SMCR_QPS_RTR:
		if (from != SMCR_QPS_INIT)
			return SMCR_ERR_STATE;
		if ((rc = to_rtr(qp, a)))
			return rc;
		qp->state = SMCR_QPS_RTR;
		return SMCR_ERR_OK;
	case SMCR_QPS_RTS:
		if (from != SMCR_QPS_RTR && from != SMCR_QPS_RTS)
			return SMCR_ERR_STATE;
		if ((rc = rts_params(qp, a, from == SMCR_QPS_RTR)))
			return rc;
		qp->state = SMCR_QPS_RTS;
		if (qp->sq_count)
			req_kick(qp, sim_now(qp->r->eng));
		return SMCR_ERR_OK;
	default:
		return SMCR_ERR_INVAL;
	}
}

/* --- posting work ------------------------------------------------------------------------ */

int rnic_qp_post_send(rnic_qp *qp, const smcr_send_wr *wr)
{
	if (!wr || wr->num_sge > qp->caps.max_send_sge || wr->num_sge > SMCR_MAX_SGE)
		return SMCR_ERR_INVAL;
	if (wr->opcode != SMCR_WR_SEND && wr->opcode != SMCR_WR_RDMA_WRITE)
		return SMCR_ERR_INVAL;
	if (qp->state != SMCR_QPS_RTS && qp->state != SMCR_QPS_ERR)
		return SMCR_ERR_STATE;
	uint64_t len = 0;
	for (uint32_t i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > RNIC_MAX_MSG)
		return SMCR_ERR_INVAL;
	bool inl = (wr->send_flags & SMCR_SEND_INLINE) != 0;
	if (inl && len > qp->caps.max_inline_data)
		return SMCR_ERR_INVAL;
	if (qp->sq_count == qp->sq_cap)
		return SMCR_ERR_AGAIN;
	uint32_t slot = (qp->sq_head + qp->sq_count) % qp->sq_cap;
	swqe *w = &qp->sq[slot];
	memset(w, 0, sizeof(*w));
	w->wr_id = wr->wr_id;
	w->opcode = wr->opcode;
	w->flags = wr->send_flags;
	w->num_sge = wr->num_sge;
	memcpy(w->sge, wr->sg_list, sizeof(w->sge));
	w->remote_addr = wr->remote_addr;
	w->rkey = wr->rkey;
	w->length = (uint32_t)len;
	if (qp->state == SMCR_QPS_ERR) {
		qp_complete_send(qp, w, SMCR_WC_WR_FLUSH_ERR);
		return SMCR_ERR_OK;
	}
	if (inl) {
		/* the data is copied now: the caller may reuse its buffer at once */
		uint8_t *dst = qp->sq_inline + (size_t)slot * qp->caps.max_inline_data;
		uint32_t off = 0;
		for (uint32_t i = 0; i < wr->num_sge; i++) {
			memcpy(dst + off, wr->sg_list[i].addr, wr->sg_list[i].length);
			off += wr->sg_list[i].length;
		}
		w->num_sge = 1;
		w->host[0] = dst;
		w->sge[0].length = off;
		w->resolved = true;
	}
	w->npkts = w->length ? (w->length + qp->mtu_bytes - 1) / qp->mtu_bytes : 1;
	w->first_psn = qp->next_psn;
	qp->next_psn = roce_psn_add(qp->next_psn, w->npkts);
	qp->sq_count++;
	sim_host *h = qp->vf->costs;
	if (host_has_costs(h)) {
		/* the host builds and posts the request, then rings the doorbell */
		const host_profile *p = host_get_profile(h);
		w->ready_at = host_run_here(h, HOST_CAT_SMCR, p->smc_wr_ns) + p->rnic_doorbell_ns;
		if (!qp->rnr_wait)
			req_kick(qp, w->ready_at);
		return SMCR_ERR_OK;
	}
	if (!sim_event_pending(&qp->tx_ev) && !qp->rnr_wait)
		req_kick(qp, sim_now(qp->r->eng) + qp->r->cfg.doorbell_delay);
	return SMCR_ERR_OK;
}

int rnic_qp_post_recv(rnic_qp *qp, const smcr_recv_wr *wr)
{
	if (!wr || wr->num_sge > qp->caps.max_recv_sge || wr->num_sge > SMCR_MAX_SGE)
		return SMCR_ERR_INVAL;
	if (qp->state == SMCR_QPS_RESET)
		return SMCR_ERR_STATE;
	if (qp->rq_count == qp->rq_cap || qp->caps.max_recv_wr == 0)
		return SMCR_ERR_AGAIN;
	rwqe w = { .wr_id = wr->wr_id, .num_sge = wr->num_sge };
	memcpy(w.sge, wr->sg_list, sizeof(w.sge));
	uint64_t len = 0;
	for (uint32_t i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > RNIC_MAX_MSG)
		return SMCR_ERR_INVAL;
	w.length = (uint32_t)len;
	if (qp->state == SMCR_QPS_ERR) {
		complete_recv(qp, &w, SMCR_WC_WR_FLUSH_ERR);
		return SMCR_ERR_OK;
	}
	qp->rq[(qp->rq_head + qp->rq_count) % qp->rq_cap] = w;
	qp->rq_count++;
	return SMCR_ERR_OK;
}

/* --- receive dispatch ---------------------------------------------------------------------- */

void qp_receive(rnic_qp *qp, const roce_pkt *pkt)
{
	if (qp->state != SMCR_QPS_RTR && qp->state != SMCR_QPS_RTS) {
		qp->r->st.rx_no_qp++;
		return;
	}
	if (pkt->bth.opcode == ROCE_OP_CNP) {
		req_on_cnp(qp);
		return;
	}
	if (pkt->addr.version == ROCE_V2 && (pkt->addr.traffic_class & 3u) == SIM_ECN_CE)
		resp_on_congestion(qp);
	if (pkt->bth.opcode == ROCE_OP_ACK) {
		if (qp->state == SMCR_QPS_RTS)
			req_on_ack(qp, pkt);
		return;
	}
	resp_on_request(qp, pkt);
}
