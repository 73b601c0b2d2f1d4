/* Work requests of a link (Linux smc_wr.c): send slots, receive buffers, wr_id encoding and
 * the completion demultiplexer, which hands what completed to the handlers registered in
 * ctx->hooks (CDC and LLC receivers, the CDC sender, the lgr's end, the link's failure).
 *
 * Every link has `send_wr` 48-byte send slots (LLC and CDC messages, one SEND each) plus
 * one 8192-byte slot for long SMC-Rv2 LLC messages, and `recv_wr` receive buffers (48
 * bytes for v1, 8192 for v2). SENDs are signaled and solicited; RDMA WRITEs unsignaled.
 *
 * wr_id = link id (32 bits) | kind (2 bits) | generation (14 bits) | index (16 bits). The
 * generation makes a late completion for a slot that was reused recognisable. Work that
 * finds no free slot waits on the link (LLC messages first, then connections in arrival
 * order); if nothing frees up within 10 s the link goes down, as in Linux. */
#include "model/wr_int.h"

#include <string.h>

#include "model/conn_int.h"
#include "model/ctx_int.h"
#include "model/lgr_int.h"
#include "model/link_int.h"
#include "model/list_int.h"
#include "model/llc.h"
#include "model/mem_int.h"
#include "model/smcr.h"
#include "model/smcr_err.h"
#include "model/smcr_transport.h"
#include "model/timer_int.h"
#include "model/trace_int.h"

#define SMCR_WR_BUF_SIZE 48
#define SMCR_WR_BUF_V2_SIZE 8192

#define SMCR_WRID_KIND_SEND 1u
#define SMCR_WRID_KIND_WRITE 2u
#define SMCR_WRID_KIND_RECV 3u

static uint64_t mk_wrid(const smcr_link *lnk, uint32_t kind, uint32_t gen, uint32_t idx)
{
	return ((uint64_t)(uint32_t)lnk->id << 32) | ((uint64_t)(kind & 3u) << 30) |
	       ((uint64_t)(gen & 0x3fffu) << 16) | (idx & 0xffffu);
}

static uint32_t wrid_kind(uint64_t w) { return (uint32_t)(w >> 30) & 3u; }
static uint32_t wrid_gen(uint64_t w) { return (uint32_t)(w >> 16) & 0x3fffu; }
static uint32_t wrid_idx(uint64_t w) { return (uint32_t)w & 0xffffu; }

int smcr_wr_alloc_link(smcr_link *lnk)
{
	smcr_ctx *ctx = lnk->ctx;
	const smcr_port_desc *pd = &ctx->ports[lnk->port_index].d;
	bool v2 = lnk->lgr->version == 2;
	lnk->n_slots = ctx->set.send_wr;
	lnk->n_rx = ctx->set.recv_wr;
	lnk->rx_buf_size = v2 ? SMCR_WR_BUF_V2_SIZE : SMCR_WR_BUF_SIZE;
	size_t v2len = v2 ? SMCR_WR_BUF_V2_SIZE : SMCR_WR_BUF_SIZE;
	size_t txlen = (size_t)lnk->n_slots * SMCR_WR_BUF_SIZE + v2len;
	size_t rxlen = (size_t)lnk->n_rx * lnk->rx_buf_size;
	lnk->slots = smcr_alloc(ctx, ((size_t)lnk->n_slots + 1) * sizeof(*lnk->slots));
	lnk->tx_bufs = smcr_alloc(ctx, txlen);
	lnk->rx_bufs = smcr_alloc(ctx, rxlen);
	if (!lnk->slots || !lnk->tx_bufs || !lnk->rx_bufs)
		goto fail;
	for (uint32_t i = 0; i <= lnk->n_slots; i++)
		lnk->slots[i].buf = lnk->tx_bufs + (size_t)i * SMCR_WR_BUF_SIZE;
	lnk->tx_mr = ctx->ops->reg_mr(ctx->tp, pd->dev, lnk->tx_bufs, txlen, SMCR_ACCESS_LOCAL_WRITE, &lnk->tx_mr_info);
	if (!lnk->tx_mr)
		goto fail;
	lnk->rx_mr = ctx->ops->reg_mr(ctx->tp, pd->dev, lnk->rx_bufs, rxlen, SMCR_ACCESS_LOCAL_WRITE, &lnk->rx_mr_info);
	if (!lnk->rx_mr)
		goto fail;
	return 0;
fail:
	smcr_wr_free_link(lnk);
	return SMCR_ERR_NOMEM;
}

void smcr_wr_free_link(smcr_link *lnk)
{
	smcr_ctx *ctx = lnk->ctx;
	while (!smcr_list_empty(&lnk->llc_outq)) {
		smcr_llc_out *o = SMCR_CONTAINER_OF(lnk->llc_outq.next, smcr_llc_out, node);
		smcr_list_del(&o->node);
		smcr_free(ctx, o);
	}
	if (lnk->tx_mr)
		ctx->ops->dereg_mr(ctx->tp, lnk->tx_mr);
	if (lnk->rx_mr)
		ctx->ops->dereg_mr(ctx->tp, lnk->rx_mr);
	lnk->tx_mr = lnk->rx_mr = NULL;
	smcr_free(ctx, lnk->slots);
	smcr_free(ctx, lnk->tx_bufs);
	smcr_free(ctx, lnk->rx_bufs);
	lnk->slots = NULL;
	lnk->tx_bufs = lnk->rx_bufs = NULL;
	lnk->slots_busy = 0;
}

static int post_recv(smcr_link *lnk, uint32_t i)
{
	smcr_ctx *ctx = lnk->ctx;
	smcr_recv_wr wr;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mk_wrid(lnk, SMCR_WRID_KIND_RECV, 0, i);
	wr.num_sge = 1;
	wr.sg_list[0].addr = lnk->rx_bufs + (size_t)i * lnk->rx_buf_size;
	wr.sg_list[0].length = lnk->rx_buf_size;
	wr.sg_list[0].lkey = lnk->rx_mr_info.lkey;
	return ctx->ops->post_recv(ctx->tp, lnk->qp, &wr) ? SMCR_ERR_TRANSPORT : 0;
}

int smcr_wr_post_recvs(smcr_link *lnk)
{
	for (uint32_t i = 0; i < lnk->n_rx; i++) {
		int rc = post_recv(lnk, i);
		if (rc)
			return rc;
	}
	return 0;
}

static smcr_send_slot *take(smcr_link *lnk, uint32_t i)
{
	smcr_send_slot *s = &lnk->slots[i];
	uint8_t *buf = s->buf;
	uint32_t gen = s->gen + 1;
	memset(s, 0, sizeof(*s));
	s->buf = buf;
	s->gen = gen & 0x3fffu;
	s->busy = true;
	if (i < lnk->n_slots)
		lnk->slots_busy++;
	return s;
}

smcr_send_slot *smcr_wr_get_slot(smcr_link *lnk)
{
	if (!lnk->slots || lnk->slots_busy >= lnk->n_slots)
		return NULL;
	for (uint32_t i = 0; i < lnk->n_slots; i++)
		if (!lnk->slots[i].busy)
			return take(lnk, i);
	return NULL;
}

void smcr_wr_put_slot(smcr_link *lnk, smcr_send_slot *s)
{
	if (!s->busy)
		return;
	s->busy = false;
	s->conn_id = 0;
	if (s != &lnk->slots[lnk->n_slots])
		lnk->slots_busy--;
}

static uint32_t slot_index(const smcr_link *lnk, const smcr_send_slot *s)
{
	return (uint32_t)(s - lnk->slots);
}

int smcr_wr_send_slot(smcr_link *lnk, smcr_send_slot *s, uint32_t len)
{
	smcr_ctx *ctx = lnk->ctx;
	smcr_send_wr wr;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mk_wrid(lnk, SMCR_WRID_KIND_SEND, s->gen, slot_index(lnk, s));
	wr.opcode = SMCR_WR_SEND;
	wr.send_flags = SMCR_SEND_SIGNALED | SMCR_SEND_SOLICITED;
	wr.num_sge = 1;
	wr.sg_list[0].addr = s->buf;
	wr.sg_list[0].length = len;
	wr.sg_list[0].lkey = lnk->tx_mr_info.lkey;
	if (!lnk->qp || ctx->ops->post_send(ctx->tp, lnk->qp, &wr)) {
		smcr_wr_put_slot(lnk, s);
		lnk->ctx->hooks.link_down(lnk, SMCR_LINKDOWN_WC_ERROR);
		return SMCR_ERR_TRANSPORT;
	}
	lnk->ops_out++;
	smcr_trace_wr(lnk, s->kind == SMCR_SLOT_CDC ? SMCR_TRACE_CDC : SMCR_TRACE_LLC, true,
	              s->kind == SMCR_SLOT_CDC ? s->conn_id : 0, s->buf, len);
	return 0;
}

int smcr_wr_post_write(smcr_link *lnk, const smcr_sge *sges, uint32_t n, uint64_t raddr, uint32_t rkey)
{
	smcr_ctx *ctx = lnk->ctx;
	smcr_send_wr wr;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mk_wrid(lnk, SMCR_WRID_KIND_WRITE, 0, 0);
	wr.opcode = SMCR_WR_RDMA_WRITE;
	wr.num_sge = n;
	uint32_t bytes = 0;
	for (uint32_t i = 0; i < n && i < SMCR_MAX_SGE; i++) {
		wr.sg_list[i] = sges[i];
		bytes += sges[i].length;
	}
	wr.remote_addr = raddr;
	wr.rkey = rkey;
	if (!lnk->qp || ctx->ops->post_send(ctx->tp, lnk->qp, &wr)) {
		lnk->ctx->hooks.link_down(lnk, SMCR_LINKDOWN_WC_ERROR);
		return SMCR_ERR_TRANSPORT;
	}
	lnk->ops_out++;
	lnk->bytes_out += bytes;
	return 0;
}

static void arm_slot_timer(smcr_link *lnk)
{
	if (!smcr_timer_armed(&lnk->slot_timer))
		smcr_timer_arm(lnk->ctx, &lnk->slot_timer, lnk->ctx->now + SMCR_WR_SLOT_WAIT_TIME);
}

static int send_llc_now(smcr_link *lnk, smcr_send_slot *s, const uint8_t *buf, uint32_t len, bool notify)
{
	memcpy(s->buf, buf, len);
	s->kind = SMCR_SLOT_LLC;
	s->notify_lgr = notify;
	lnk->llc_out++;
	return smcr_wr_send_slot(lnk, s, len);
}

int smcr_wr_send_llc(smcr_link *lnk, const uint8_t *buf, uint32_t len, bool notify_lgr)
{
	/* The DELETE_LINK ALL of an ending lgr may go on a link the end already deactivated
	 * (the next one, when the first send failed); it takes a free slot or none, as
	 * Linux's smc_wr_tx_get_free_slot() does not wait once the lgr is terminating. */
	bool ending = notify_lgr && !smcr_link_usable(lnk);
	if ((!smcr_link_sendable(lnk) && !(ending && lnk->qp)) || !lnk->slots)
		return SMCR_ERR_STATE;
	if (len > SMCR_WR_BUF_V2_SIZE || (len > SMCR_WR_BUF_SIZE && lnk->lgr->version != 2))
		return SMCR_ERR_INVAL;
	if (ending) {
		smcr_send_slot *s = len > SMCR_WR_BUF_SIZE ? (lnk->slots[lnk->n_slots].busy ? NULL : take(lnk, lnk->n_slots))
		                                           : smcr_wr_get_slot(lnk);
		return s ? send_llc_now(lnk, s, buf, len, notify_lgr) : SMCR_ERR_AGAIN;
	}
	if (smcr_list_empty(&lnk->llc_outq)) {
		smcr_send_slot *s = NULL;
		if (len > SMCR_WR_BUF_SIZE) {
			if (!lnk->slots[lnk->n_slots].busy)
				s = take(lnk, lnk->n_slots);
		} else {
			s = smcr_wr_get_slot(lnk);
		}
		if (s)
			return send_llc_now(lnk, s, buf, len, notify_lgr);
	}
	smcr_llc_out *o = smcr_alloc(lnk->ctx, sizeof(*o) + len);
	if (!o)
		return SMCR_ERR_NOMEM;
	memcpy(o->buf, buf, len);
	o->len = (uint16_t)len;
	o->notify_lgr = notify_lgr;
	smcr_list_add_tail(&lnk->llc_outq, &o->node);
	arm_slot_timer(lnk);
	return 0;
}

void smcr_wr_wait_slot(smcr_link *lnk, smcr_conn *conn)
{
	if (smcr_list_linked(&conn->slot_node))
		return;
	smcr_list_add_tail(&lnk->slot_waiters, &conn->slot_node);
	arm_slot_timer(lnk);
}

void smcr_wr_unwait(smcr_conn *conn)
{
	smcr_list_del(&conn->slot_node);
	smcr_list_init(&conn->slot_node);
}

/* Free slots went back: LLC messages first, then waiting connections. */
static void wake_waiters(smcr_link *lnk)
{
	uint64_t id = lnk->id;
	smcr_ctx *ctx = lnk->ctx;
	while (!smcr_list_empty(&lnk->llc_outq) && smcr_link_sendable(lnk)) {
		smcr_llc_out *o = SMCR_CONTAINER_OF(lnk->llc_outq.next, smcr_llc_out, node);
		smcr_send_slot *s = NULL;
		if (o->len > SMCR_WR_BUF_SIZE) {
			if (!lnk->slots[lnk->n_slots].busy)
				s = take(lnk, lnk->n_slots);
		} else {
			s = smcr_wr_get_slot(lnk);
		}
		if (!s)
			break;
		smcr_list_del(&o->node);
		send_llc_now(lnk, s, o->buf, o->len, o->notify_lgr);
		smcr_free(ctx, o);
		if (smcr_ctx_find_link(ctx, id) != lnk)
			return;
	}
	while (smcr_list_empty(&lnk->llc_outq) && !smcr_list_empty(&lnk->slot_waiters) &&
	       lnk->slots_busy < lnk->n_slots && smcr_link_sendable(lnk)) {
		smcr_conn *c = SMCR_CONTAINER_OF(lnk->slot_waiters.next, smcr_conn, slot_node);
		smcr_wr_unwait(c);
		ctx->hooks.slot_free(c);
		if (smcr_ctx_find_link(ctx, id) != lnk)
			return;
	}
	if (smcr_list_empty(&lnk->llc_outq) && smcr_list_empty(&lnk->slot_waiters))
		smcr_timer_cancel(ctx, &lnk->slot_timer);
}

void smcr_wr_on_slot_timer(smcr_link *lnk)
{
	if (smcr_list_empty(&lnk->llc_outq) && smcr_list_empty(&lnk->slot_waiters))
		return;
	lnk->ctx->hooks.link_down(lnk, SMCR_LINKDOWN_SLOT_TIMEOUT);
}

void smcr_wr_dismiss_conn(smcr_conn *conn)
{
	smcr_lgr *lgr = conn->lgr;
	smcr_wr_unwait(conn);
	if (!lgr)
		return;
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++) {
		smcr_link *l = lgr->lnk[i];
		if (!l || !l->slots)
			continue;
		for (uint32_t j = 0; j < l->n_slots; j++)
			if (l->slots[j].busy && l->slots[j].conn_id == conn->id)
				l->slots[j].conn_id = 0;
	}
}

static void send_done(smcr_link *lnk, const smcr_wc *wc)
{
	uint32_t idx = wrid_idx(wc->wr_id);
	if (!lnk->slots || idx > lnk->n_slots)
		return;
	smcr_send_slot *s = &lnk->slots[idx];
	if (!s->busy || s->gen != wrid_gen(wc->wr_id))
		return; /* late completion of a slot already reused */
	smcr_send_slot copy = *s;
	smcr_lgr *lgr = lnk->lgr;
	uint64_t id = lnk->id;
	bool ok = wc->status == SMCR_WC_SUCCESS;
	smcr_wr_put_slot(lnk, s);
	if (!ok) {
		/* the failover (or the lgr's end) takes care of the connection: this CDC's
		 * count was reset when it moved, and it may already have others in flight */
		copy.conn_id = 0;
		lnk->ctx->hooks.link_down(lnk, SMCR_LINKDOWN_WC_ERROR);
	}
	if (copy.kind == SMCR_SLOT_CDC) {
		if (lnk->cdc_out < UINT64_MAX)
			lnk->cdc_out++;
		lgr->ctx->hooks.cdc_sent(lnk, &copy, ok && lnk->state != SMCR_LNK_INACTIVE);
	}
	/* the waiter of an ending lgr's DELETE_LINK ALL is done whatever the status */
	if (copy.notify_lgr && lgr->term_wait_link == id)
		lgr->ctx->hooks.lgr_term_sent(lgr, true);
	lnk = smcr_ctx_find_link(lgr->ctx, id);
	if (lnk && lnk->slots)
		wake_waiters(lnk);
}

static void recv_done(smcr_link *lnk, const smcr_wc *wc)
{
	smcr_ctx *ctx = lnk->ctx;
	uint32_t idx = wrid_idx(wc->wr_id);
	if (!lnk->rx_bufs || idx >= lnk->n_rx)
		return;
	if (wc->status != SMCR_WC_SUCCESS) {
		if (wc->status == SMCR_WC_RETRY_EXC_ERR || wc->status == SMCR_WC_RNR_RETRY_EXC_ERR ||
		    wc->status == SMCR_WC_WR_FLUSH_ERR)
			lnk->ctx->hooks.link_down(lnk, SMCR_LINKDOWN_WC_ERROR);
		else if (smcr_link_usable(lnk))
			post_recv(lnk, idx);
		return;
	}
	uint64_t id = lnk->id;
	lnk->last_rx = ctx->now;
	lnk->ops_in++;
	uint32_t len = wc->byte_len < lnk->rx_buf_size ? wc->byte_len : lnk->rx_buf_size;
	/* copy out: the handlers may repost or free the buffer */
	uint8_t small[SMCR_WR_BUF_SIZE];
	uint8_t *msg = small;
	if (len > sizeof(small)) {
		msg = smcr_alloc(ctx, len);
		if (!msg) {
			post_recv(lnk, idx);
			return;
		}
	}
	memcpy(msg, lnk->rx_bufs + (size_t)idx * lnk->rx_buf_size, len);
	if (smcr_link_usable(lnk))
		post_recv(lnk, idx);
	smcr_trace_wr(lnk, len >= 1 && msg[0] == SMCR_CDC_TYPE ? SMCR_TRACE_CDC : SMCR_TRACE_LLC, false, 0, msg, len);
	if (len >= 1 && msg[0] == SMCR_CDC_TYPE) {
		lnk->cdc_in++;
		ctx->hooks.rx_cdc(lnk, msg, len);
	} else {
		lnk->llc_in++;
		ctx->hooks.rx_llc(lnk, msg, len);
	}
	if (msg != small)
		smcr_free(ctx, msg);
	(void)id;
}

int smcr_wr_on_completion(smcr_ctx *ctx, const smcr_wc *wc)
{
	smcr_link *lnk = smcr_ctx_find_link(ctx, wc->wr_id >> 32);
	if (!lnk || (wc->qp_ctx && wc->qp_ctx != (void *)lnk))
		return SMCR_ERR_NOTFOUND; /* a QP that no longer exists */
	switch (wrid_kind(wc->wr_id)) {
	case SMCR_WRID_KIND_SEND:
		send_done(lnk, wc);
		break;
	case SMCR_WRID_KIND_WRITE:
		if (wc->status != SMCR_WC_SUCCESS)
			lnk->ctx->hooks.link_down(lnk, SMCR_LINKDOWN_WC_ERROR);
		break;
	case SMCR_WRID_KIND_RECV:
		recv_done(lnk, wc);
		break;
	default:
		return SMCR_ERR_INVAL;
	}
	return 0;
}
