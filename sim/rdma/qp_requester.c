/* The requester half of an RC QP: segmentation, pacing, PSNs, ACK/NAK processing,
 * retransmission on timeout and on PSN-sequence NAKs, RNR back-off. */
#include <string.h>

#include "sim/fabric/speed_contracts.h" /* 1: WRITE payloads left in host memory */
#include "sim/rdma/rnic_int.h"

static sim_time req_timeout_ns(uint8_t timeout)
{
	/* 4.096 us * 2^timeout; 0 means "wait forever" */
	return timeout ? (sim_time)4096u << timeout : SIM_TIME_NEVER;
}

static sim_time req_rnr_delay_ns(uint8_t code)
{
	/* IBTA RNR NAK timer field encoding, in microseconds (code 0 is the longest) */
	/* clang-format off */ /* a table laid out by hand */
	static const uint32_t us[32] = {
		655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
		2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
		163840, 245760, 327680, 491520,
	};
	/* clang-format on */
	return (sim_time)us[code & 31u] * SIM_US;
}

static bool outstanding(const rnic_qp *qp) { return roce_psn_diff(qp->sent_end, qp->una) > 0; }

void req_kick(rnic_qp *qp, sim_time at)
{
	if (qp->state != SMCR_QPS_RTS || qp->rnr_wait)
		return;
	if (!sim_event_pending(&qp->tx_ev) || qp->tx_ev.at > at)
		sim_event_schedule(qp->r->eng, &qp->tx_ev, at);
}

/* The local ACK timer restarts on every ACK that makes progress. Moving an engine event
 * that often would leave a stale queue entry per ACK, so the deadline is kept here and
 * the event, once armed, stays put: when it fires early it re-arms for the deadline. */
static void arm_retry(rnic_qp *qp)
{
	sim_time t = req_timeout_ns(qp->timeout);
	if (t == SIM_TIME_NEVER)
		return;
	qp->retry_deadline = sim_now(qp->r->eng) + t;
	if (!sim_event_pending(&qp->retry_ev))
		sim_event_schedule(qp->r->eng, &qp->retry_ev, qp->retry_deadline);
}

static void stop_retry(rnic_qp *qp)
{
	qp->retry_deadline = SIM_TIME_NEVER;
	sim_event_cancel(qp->r->eng, &qp->retry_ev);
}

static uint32_t cursor_psn(rnic_qp *qp)
{
	if (qp->tx_idx < qp->sq_count)
		return roce_psn_add(qp_sq_at(qp, qp->tx_idx)->first_psn, qp->tx_pkt);
	return qp->next_psn;
}

/* Point the transmit cursor at `psn` (go back N). */
static void rewind_to(rnic_qp *qp, uint32_t psn)
{
	for (uint32_t i = 0; i < qp->sq_count; i++) {
		const swqe *w = qp_sq_at(qp, i);
		int32_t d = roce_psn_diff(psn, w->first_psn);
		if (d >= 0 && (uint32_t)d < w->npkts) {
			qp->tx_idx = i;
			qp->tx_pkt = (uint32_t)d;
			return;
		}
	}
	qp->tx_idx = qp->sq_count;
	qp->tx_pkt = 0;
}

/* Resolve the local SGEs of a WQE to host memory (the adapter's DMA read). */
static bool resolve(rnic_qp *qp, swqe *w)
{
	if (w->resolved)
		return true;
	for (uint32_t i = 0; i < w->num_sge; i++) {
		const smcr_sge *s = &w->sge[i];
		w->host[i] = s->length ? rnic_mr_local(qp->vf, s->lkey, s->addr, s->length, 0) : (const uint8_t *)"";
		if (!w->host[i])
			return false;
	}
	w->resolved = true;
	return true;
}

static unsigned gather(const swqe *w, uint32_t off, uint32_t len, roce_seg *segs)
{
	unsigned n = 0;
	for (uint32_t i = 0; i < w->num_sge && len; i++) {
		uint32_t sl = w->sge[i].length;
		if (off >= sl) {
			off -= sl;
			continue;
		}
		uint32_t take = sl - off < len ? sl - off : len;
		segs[n++] = (roce_seg){ w->host[i] + off, take };
		len -= take;
		off = 0;
	}
	return n;
}

static uint8_t opcode_for(const swqe *w, bool first, bool last)
{
	if (w->opcode == SMCR_WR_SEND)
		return first && last ? ROCE_OP_SEND_ONLY : first ? ROCE_OP_SEND_FIRST
		                                   : last        ? ROCE_OP_SEND_LAST
		                                                 : ROCE_OP_SEND_MIDDLE;
	return first && last ? ROCE_OP_WRITE_ONLY : first ? ROCE_OP_WRITE_FIRST
	                                    : last        ? ROCE_OP_WRITE_LAST
	                                                  : ROCE_OP_WRITE_MIDDLE;
}

/* Sends one packet; returns its frame length (for the rate limiter). */
static uint32_t send_packet(rnic_qp *qp, const swqe *w, uint32_t k)
{
	uint32_t psn = roce_psn_add(w->first_psn, k);
	bool first = k == 0, last = k + 1 == w->npkts;
	uint32_t off = k * qp->mtu_bytes;
	uint32_t len = w->length - off < qp->mtu_bytes ? w->length - off : qp->mtu_bytes;
	roce_seg segs[SMCR_MAX_SGE];
	unsigned nseg = gather(w, off, len, segs);
	roce_bth bth = {
		.opcode = opcode_for(w, first, last),
		.se = last && w->opcode == SMCR_WR_SEND && (w->flags & SMCR_SEND_SOLICITED),
		.pkey = ROCE_DEFAULT_PKEY,
		.dest_qp = qp->dest_qpn,
		.psn = psn,
	};
	if (++qp->since_ackreq >= qp->r->cfg.ack_req_every || last) {
		bth.ack_req = true;
		qp->since_ackreq = 0;
	}
	roce_reth reth = { .va = w->remote_addr, .rkey = w->rkey, .dma_len = w->length };
	qp->addr.ip_id++;
	sim_frame_pool *pool = sim_fabric_frames(qp->r->fab);
	/* a WRITE's payload from memory the host tells us about before changing it may stay
	 * there until the responder copies it (inline data lives in the SQ, which the next
	 * post rewrites without a word) */
	sim_frame *f = nseg == 1 && len >= RNIC_DEFER_MIN && w->opcode == SMCR_WR_RDMA_WRITE &&
	                               !(w->flags & SMCR_SEND_INLINE) && qp->vf->notes_writes
	                       ? roce_build_deferred(pool, &qp->addr, &bth, &reth, NULL, segs)
	                       : roce_build(pool, &qp->addr, &bth, &reth, NULL, segs, nseg);
	uint32_t flen = f->len;
	rnic_port_send(qp->port, f, qp->r->prio);
	qp->st.tx_packets++;
	qp->st.tx_payload_bytes += len;
	if (roce_psn_diff(psn, qp->sent_end) < 0)
		qp->st.retransmitted_packets++;
	else
		qp->sent_end = roce_psn_add(psn, 1);
	if (qp->retry_deadline == SIM_TIME_NEVER)
		arm_retry(qp);
	return flen;
}

void req_tx_event(sim_engine *eng, sim_event *ev)
{
	rnic_qp *qp = ev->ctx;
	if (qp->state != SMCR_QPS_RTS || qp->rnr_wait)
		return;
	if (!sim_endpoint_carrier(&qp->port->ep)) {
		/* link down: the transmitter stalls (the adapter resumes when carrier returns),
		 * but the transport timer runs, so a long outage ends in RETRY_EXC_ERR */
		if (qp->tx_idx < qp->sq_count && qp->retry_deadline == SIM_TIME_NEVER)
			arm_retry(qp);
		return;
	}
	sim_time now = sim_now(eng), window = qp->r->cfg.tx_window;
	while (qp->tx_idx < qp->sq_count) {
		/* pace: keep at most `window` of wire time queued in front of the port */
		sim_time idle = sim_endpoint_tx_idle_at(&qp->port->ep);
		if (idle > now + window) {
			sim_event_schedule(eng, &qp->tx_ev, idle - window / 2);
			return;
		}
		/* PFC: nothing new for a paused priority (the port restarts us at its end) */
		sim_time until;
		if (rnic_port_paused(qp->port, qp->r->prio, &until)) {
			sim_event_schedule(eng, &qp->tx_ev, until);
			return;
		}
		/* DCQCN: the next packet no earlier than the current rate allows */
		sim_time paced = dcqcn_rp_tx_at(&qp->rp);
		if (paced > now) {
			sim_event_schedule(eng, &qp->tx_ev, paced);
			return;
		}
		swqe *w = qp_sq_at(qp, qp->tx_idx);
		if (w->ready_at > now) { /* its doorbell has not rung yet (host costs) */
			sim_event_schedule(eng, &qp->tx_ev, w->ready_at);
			return;
		}
		if (!resolve(qp, w)) {
			qp_to_error(qp, qp->tx_idx, SMCR_WC_LOC_PROT_ERR, SMCR_WC_WR_FLUSH_ERR);
			return;
		}
		uint32_t flen = send_packet(qp, w, qp->tx_pkt);
		if (qp->rp.limited)
			dcqcn_rp_on_sent(&qp->rp, &qp->r->cfg.cc.dp, flen, now);
		if (++qp->tx_pkt == w->npkts) {
			qp->tx_idx++;
			qp->tx_pkt = 0;
		}
	}
}

/* Everything up to and including PSN a is acknowledged. */
static void ack_through(rnic_qp *qp, uint32_t a)
{
	bool progress = false;
	while (qp->sq_count) {
		swqe *w = qp_sq_at(qp, 0);
		uint32_t last = roce_psn_add(w->first_psn, w->npkts - 1);
		if (roce_psn_diff(last, a) > 0)
			break;
		qp_complete_send(qp, w, SMCR_WC_SUCCESS);
		qp->sq_head = (qp->sq_head + 1) % qp->sq_cap;
		qp->sq_count--;
		if (qp->tx_idx > 0)
			qp->tx_idx--;
		else
			qp->tx_pkt = 0;
		progress = true;
	}
	uint32_t next = roce_psn_add(a, 1);
	if (roce_psn_diff(next, qp->una) > 0) {
		qp->una = next;
		progress = true;
	}
	/* a retransmission cursor behind what is now acknowledged skips ahead */
	if (roce_psn_diff(cursor_psn(qp), qp->una) < 0)
		rewind_to(qp, qp->una);
	if (!progress)
		return;
	qp->retry_left = qp->retry_cnt;
	qp->rnr_left = qp->rnr_retry;
	if (outstanding(qp))
		arm_retry(qp);
	else
		stop_retry(qp);
}

static smcr_wc_status nak_status(uint8_t code)
{
	switch (code) {
	case ROCE_NAK_INVALID_REQ: return SMCR_WC_REM_INV_REQ_ERR;
	case ROCE_NAK_REM_ACCESS_ERR: return SMCR_WC_REM_ACCESS_ERR;
	case ROCE_NAK_REM_OP_ERR: return SMCR_WC_REM_OP_ERR;
	default: return SMCR_WC_REM_INV_REQ_ERR;
	}
}

void req_on_ack(rnic_qp *qp, const roce_pkt *pkt)
{
	uint32_t psn = pkt->bth.psn;
	uint8_t syn = pkt->aeth.syndrome;
	/* only PSNs we have sent can be acknowledged; older ones are stale duplicates */
	if (roce_psn_diff(psn, qp->sent_end) >= 0)
		return;
	qp->st.acks_rx++;
	if ((syn & ROCE_AETH_TYPE_MASK) == ROCE_AETH_ACK) {
		if (roce_psn_diff(psn, qp->una) >= 0)
			ack_through(qp, psn);
		return;
	}
	if (roce_psn_diff(psn, qp->una) < 0)
		return;
	/* a NAK for PSN p acknowledges everything before p */
	if (psn != qp->una)
		ack_through(qp, roce_psn_add(psn, 0xFFFFFF));
	sim_engine *eng = qp->r->eng;
	switch (syn & ROCE_AETH_TYPE_MASK) {
	case ROCE_AETH_RNR_NAK:
		qp->st.rnr_naks_rx++;
		if (qp->rnr_retry != 7) {
			if (qp->rnr_left == 0) {
				qp_to_error(qp, 0, SMCR_WC_RNR_RETRY_EXC_ERR, SMCR_WC_WR_FLUSH_ERR);
				return;
			}
			qp->rnr_left--;
		}
		rewind_to(qp, psn);
		qp->rnr_wait = true;
		sim_event_cancel(eng, &qp->tx_ev);
		stop_retry(qp);
		sim_event_schedule_in(eng, &qp->rnr_ev, req_rnr_delay_ns(syn & 0x1Fu));
		return;
	case ROCE_AETH_NAK:
		if ((syn & 0x1Fu) == ROCE_NAK_PSN_SEQ_ERR) {
			qp->st.seq_naks_rx++;
			if (qp->retry_left == 0) {
				qp_to_error(qp, 0, SMCR_WC_RETRY_EXC_ERR, SMCR_WC_WR_FLUSH_ERR);
				return;
			}
			qp->retry_left--;
			rewind_to(qp, psn);
			stop_retry(qp); /* restarted by the retransmission */
			req_kick(qp, sim_now(eng));
			return;
		}
		qp_to_error(qp, 0, nak_status(syn & 0x1Fu), SMCR_WC_WR_FLUSH_ERR);
		return;
	default:
		return; /* reserved syndrome type: ignored */
	}
}

void req_retry_event(sim_engine *eng, sim_event *ev)
{
	rnic_qp *qp = ev->ctx;
	if (qp->state != SMCR_QPS_RTS || qp->sq_count == 0 || qp->retry_deadline == SIM_TIME_NEVER)
		return;
	if (sim_now(eng) < qp->retry_deadline) {
		sim_event_schedule(eng, &qp->retry_ev, qp->retry_deadline);
		return;
	}
	qp->st.timeouts++;
	if (qp->retry_left == 0) {
		qp_to_error(qp, 0, SMCR_WC_RETRY_EXC_ERR, SMCR_WC_WR_FLUSH_ERR);
		return;
	}
	qp->retry_left--;
	rewind_to(qp, qp->una);
	arm_retry(qp); /* counts from this retry, sent or not (a stalled link) */
	req_kick(qp, sim_now(eng));
}

void req_rnr_event(sim_engine *eng, sim_event *ev)
{
	rnic_qp *qp = ev->ctx;
	qp->rnr_wait = false;
	req_kick(qp, sim_now(eng));
}

/* --- DCQCN reaction point ------------------------------------------------------------ */

static void arm_cc(rnic_qp *qp)
{
	sim_time t = dcqcn_rp_next_timer(&qp->rp);
	if (t != SIM_TIME_NEVER && (!sim_event_pending(&qp->cc_ev) || qp->cc_ev.at > t))
		sim_event_schedule(qp->r->eng, &qp->cc_ev, t);
}

void req_on_cnp(rnic_qp *qp)
{
	rnic *r = qp->r;
	qp->st.cnp_rx++;
	r->st.cnp_rx++;
	if (!r->cfg.cc.dcqcn || qp->state != SMCR_QPS_RTS)
		return;
	dcqcn_rp_on_cnp(&qp->rp, &r->cfg.cc.dp, sim_now(r->eng));
	arm_cc(qp);
}

void req_cc_event(sim_engine *eng, sim_event *ev)
{
	rnic_qp *qp = ev->ctx;
	dcqcn_rp_on_timer(&qp->rp, &qp->r->cfg.cc.dp, sim_now(eng));
	arm_cc(qp);
}
