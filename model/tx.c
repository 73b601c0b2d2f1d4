/* The send side of a connection (Linux smc_tx.c, smc_cdc.c send half).
 *
 * Application data goes into the send buffer ring (tx_curs_prep). When the peer's RMBE has
 * room, up to two RDMA WRITEs (two when the destination wraps, each gathering up to two
 * pieces of the send ring) place it at the peer (tx_curs_sent, producer cursor), then one
 * CDC announces the new producer cursor. Send buffer space comes back when that CDC's send
 * completes (tx_curs_fin). While CDCs are in flight small writes are corked (Linux
 * autocorking, min(sndbuf/2, 64 KiB)) and pushed when the last CDC completes. Every CDC
 * carries the current consumer cursor; a CDC just for the consumer cursor follows the
 * Linux policy of smc_tx_consumer_update(). */
#include "model/tx_int.h"

#include <string.h>

#include "model/buf_int.h"
#include "model/cdc.h"
#include "model/close_int.h"
#include "model/conn_int.h"
#include "model/ctx_int.h"
#include "model/failover_int.h"
#include "model/lgr_int.h"
#include "model/link_int.h"
#include "model/mem_int.h"
#include "model/minmax_int.h"
#include "model/smcr.h"
#include "model/smcr_err.h"
#include "model/smcr_transport.h"
#include "model/wr_int.h"


uint32_t smcr_tx_prepared_sends(const smcr_conn *conn)
{
	if (!conn->sndbuf)
		return 0;
	return smcr_curs_diff(conn->sndbuf->len, &conn->tx_curs_sent, &conn->tx_curs_prep);
}

static bool rxed_any_close(const smcr_conn *conn)
{
	return conn->local_rx_ctrl.conn_flags & (SMCR_CDC_PEER_CONN_CLOSED | SMCR_CDC_PEER_CONN_ABORT);
}

/* smc_tx_rdma_writes(): as much as the peer RMBE takes, in at most two WRITEs. */
static int rdma_writes(smcr_conn *conn, smcr_link *lnk)
{
	smcr_ctx *ctx = conn->ctx;
	smcr_buf *sb = conn->sndbuf;
	smcr_lgr *lgr = conn->lgr;
	uint32_t sndlen = sb->len;
	smcr_cursor sent = conn->tx_curs_sent;
	smcr_cursor prep = conn->tx_curs_prep;
	uint32_t to_send = smcr_curs_diff(sndlen, &sent, &prep);
	if (!to_send)
		return 0;
	uint32_t space = conn->peer_rmbe_space;
	if (!space) {
		ctx->stats.tx_peer_full++;
		return 0;
	}
	smcr_cursor prod = conn->local_tx_ctrl.prod;
	smcr_cursor cons = conn->local_rx_ctrl.cons;
	/* if the usable window closes, ask the peer to report once it opens again */
	if (to_send >= space)
		conn->local_tx_ctrl.prod_flags |= SMCR_CDC_WRITE_BLOCKED;
	else
		conn->local_tx_ctrl.prod_flags &= (uint8_t)~SMCR_CDC_WRITE_BLOCKED;
	uint32_t len = to_send < space ? to_send : space;
	uint32_t dst_off = prod.count, dst_len;
	if (prod.wrap == cons.wrap)
		dst_len = smcr_min32(conn->peer_rmbe_size - prod.count, len); /* free space wraps */
	else
		dst_len = len;
	uint32_t dst_len_sum = dst_len;
	uint32_t src_off = sent.count, src_len;
	if (sent.count + dst_len <= sndlen)
		src_len = dst_len;
	else
		src_len = sndlen - sent.count;
	uint32_t src_len_sum = src_len;
	const smcr_rtoken *rt = &lgr->rtokens[conn->rtoken_idx][lnk->idx];
	uint32_t lkey = sb->mr[lnk->idx].info.lkey;
	for (int dstchunk = 0; dstchunk < 2; dstchunk++) {
		smcr_sge sges[SMCR_MAX_SGE];
		uint32_t n = 0;
		for (int srcchunk = 0; srcchunk < 2; srcchunk++) {
			sges[n].addr = sb->cpu + src_off;
			sges[n].length = src_len;
			sges[n].lkey = lkey;
			n++;
			src_off += src_len;
			if (src_off >= sndlen)
				src_off -= sndlen;
			if (src_len_sum == dst_len)
				break;
			src_len = dst_len - src_len; /* remainder */
			src_len_sum += src_len;
		}
		int rc = smcr_wr_post_write(lnk, sges, n, rt->vaddr + conn->tx_off + dst_off, rt->rkey);
		if (rc)
			return rc;
		if (dst_len_sum == len)
			break;
		dst_off = 0; /* the RMBE ring wraps */
		dst_len = len - dst_len;
		dst_len_sum += dst_len;
		src_len = smcr_min32(dst_len, sndlen - src_off);
		src_len_sum = src_len;
	}
	if (conn->urg_tx_pend && len == to_send)
		conn->local_tx_ctrl.prod_flags |= SMCR_CDC_URG_PRESENT;
	/* smc_tx_advance_cursors() */
	smcr_curs_add(&conn->local_tx_ctrl.prod, conn->peer_rmbe_size, len);
	conn->peer_rmbe_space -= len;
	smcr_curs_add(&conn->tx_curs_sent, sndlen, len);
	conn->bytes_sent += len;
	ctx->stats.tx_bytes += len;
	return 0;
}

/* smc_cdc_msg_send() */
static int cdc_msg_send(smcr_conn *conn, smcr_link *lnk, smcr_send_slot *s)
{
	s->kind = SMCR_SLOT_CDC;
	s->conn_id = conn->id;
	s->cursor = conn->tx_curs_sent;
	s->p_cursor = conn->local_tx_ctrl.prod;
	s->ctrl_seq = conn->tx_cdc_seq;
	conn->tx_cdc_seq++;
	conn->local_tx_ctrl.seqno = conn->tx_cdc_seq;
	smcr_cursor cfed = conn->local_tx_ctrl.cons;
	s->c_cursor = cfed;
	smcr_cdc_msg m;
	m.seqno = conn->local_tx_ctrl.seqno;
	m.token = conn->local_tx_ctrl.token;
	m.prod = conn->local_tx_ctrl.prod;
	m.cons = cfed;
	m.prod_flags = conn->local_tx_ctrl.prod_flags;
	m.conn_flags = conn->local_tx_ctrl.conn_flags;
	if (conn->close_flags_held) {
		/* data rewound by a failover goes out first (model/failover.c) */
		if (smcr_tx_prepared_sends(conn))
			m.conn_flags &= (uint8_t) ~(SMCR_CDC_PEER_DONE_WRITING | SMCR_CDC_PEER_CONN_CLOSED);
		else
			conn->close_flags_held = false;
	}
	smcr_cdc_encode(s->buf, &m);
	conn->cdc_pend_tx_wr++;
	int rc = smcr_wr_send_slot(lnk, s, SMCR_CDC_LEN);
	if (rc) {
		conn->tx_cdc_seq--;
		conn->local_tx_ctrl.seqno = conn->tx_cdc_seq;
		conn->cdc_pend_tx_wr--;
		return rc;
	}
	lnk->cdc_out++;
	conn->rx_curs_confirmed = cfed;
	conn->local_rx_ctrl.prod_flags &= (uint8_t)~SMCR_CDC_CONS_UPD_REQ;
	conn->cons_update_pending = false;
	return 0;
}

/* A connection whose link had no free send slot queues on it. */
static smcr_send_slot *slot_or_wait(smcr_conn *conn, smcr_link *lnk)
{
	smcr_send_slot *s = smcr_wr_get_slot(lnk);
	if (!s)
		smcr_wr_wait_slot(lnk, conn);
	return s;
}

int smcr_cdc_get_slot_and_msg_send(smcr_conn *conn)
{
	smcr_link *lnk = conn->lnk;
	if (!smcr_link_sendable(lnk) || !conn->registered)
		return SMCR_ERR_STATE;
	if (conn->failover_pending) {
		conn->cons_update_pending = true; /* after the switch to the new link */
		return SMCR_ERR_AGAIN;
	}
	smcr_send_slot *s = slot_or_wait(conn, lnk);
	if (!s) {
		conn->cons_update_pending = true;
		return SMCR_ERR_AGAIN;
	}
	return cdc_msg_send(conn, lnk, s);
}

/* smc_tx_sndbuf_nonempty(): write what the window allows and send a CDC. Nothing happens
 * without prepared data or without room at the peer (Linux since the tx_pushing rework). */
int smcr_tx_sndbuf_nonempty(smcr_conn *conn)
{
	if (!smcr_tx_prepared_sends(conn))
		return 0;
	if (!conn->peer_rmbe_space) {
		conn->ctx->stats.tx_peer_full++;
		return 0;
	}
	if (conn->killed || (conn->local_rx_ctrl.conn_flags & SMCR_CDC_PEER_CONN_ABORT))
		return SMCR_ERR_CLOSED;
	smcr_link *lnk = conn->lnk;
	if (!smcr_link_sendable(lnk) || !conn->sndbuf || !conn->registered)
		return SMCR_ERR_STATE;
	if (conn->failover_pending)
		return 0; /* the switch to the new link resends first */
	smcr_send_slot *s = slot_or_wait(conn, lnk);
	if (!s) {
		conn->tx_pending = true;
		return 0;
	}
	conn->tx_pending = false;
	if (!(conn->local_tx_ctrl.prod_flags & SMCR_CDC_URG_PRESENT)) {
		int rc = rdma_writes(conn, lnk);
		if (rc) {
			smcr_wr_put_slot(lnk, s);
			return rc;
		}
	}
	int rc = cdc_msg_send(conn, lnk, s);
	if (!rc && (conn->local_tx_ctrl.prod_flags & SMCR_CDC_URG_PRESENT))
		conn->local_tx_ctrl.prod_flags &= (uint8_t) ~(SMCR_CDC_URG_PENDING | SMCR_CDC_URG_PRESENT);
	if (!rc)
		smcr_close_wake_tx_prepared(conn);
	return rc;
}

void smcr_tx_slot_available(smcr_conn *conn)
{
	if (conn->dead)
		return;
	if (conn->failover_pending) {
		smcr_failover_slot_available(conn);
		return;
	}
	if (conn->tx_pending) {
		smcr_tx_sndbuf_nonempty(conn);
		return;
	}
	if (conn->cons_update_pending)
		smcr_cdc_get_slot_and_msg_send(conn);
}

/* smc_cdc_tx_handler(): the CDC's send completed. */
void smcr_cdc_tx_done(smcr_link *lnk, smcr_send_slot *s, bool ok)
{
	smcr_conn *conn = smcr_ctx_find_conn(lnk->ctx, s->conn_id);
	if (!conn || !conn->sndbuf)
		return; /* dismissed */
	if (conn->cdc_pend_tx_wr)
		conn->cdc_pend_tx_wr--;
	if (ok) {
		uint32_t diff = smcr_curs_diff(conn->sndbuf->len, &conn->tx_curs_fin, &s->cursor);
		conn->sndbuf_space += diff;
		conn->tx_curs_fin = s->cursor;
		conn->local_tx_ctrl_fin = s->p_cursor;
		conn->rx_curs_confirmed_fin = s->c_cursor;
		conn->tx_cdc_seq_fin = s->ctrl_seq;
		if (diff && conn->sndbuf_space == conn->sndbuf->len)
			smcr_buf_drained(conn, conn->sndbuf); /* everything sent was confirmed */
	}
	if (!conn->cdc_pend_tx_wr && smcr_tx_prepared_sends(conn))
		smcr_tx_sndbuf_nonempty(conn); /* push what autocorking held back */
	if (conn->sndbuf_space && conn->tx_nospace) {
		conn->tx_nospace = false;
		conn->ctx->stats.tx_buf_full++;
	}
	if (conn->sndbuf_space && !conn->urg_tx_pend)
		smcr_conn_wake(conn, false, true);
	smcr_close_wake_tx_prepared(conn);
	smcr_conn_free_deferred_done(conn);
}

static uint32_t curs_diff_large(uint32_t size, const smcr_cursor *old, const smcr_cursor *new_)
{
	uint64_t v;
	if (old->wrap < new_->wrap)
		v = (uint64_t)(size - old->count) + new_->count + (uint64_t)(new_->wrap - old->wrap - 1) * size;
	else if (old->wrap > new_->wrap) /* wrap switched from 0xffff to 0 */
		v = (uint64_t)(size - old->count) + new_->count + (uint64_t)(new_->wrap + 0xffffu - old->wrap) * size;
	else
		return new_->count > old->count ? new_->count - old->count : 0;
	return v > size ? size : (uint32_t)v;
}

/* smc_tx_consumer_update() */
void smcr_tx_consumer_update(smcr_conn *conn, bool force)
{
	if (!conn->rmbe_size)
		return;
	smcr_cursor cons = conn->local_tx_ctrl.cons;
	smcr_cursor cfed = conn->rx_curs_confirmed;
	smcr_cursor prod = conn->local_rx_ctrl.prod;
	uint32_t to_confirm = smcr_curs_diff(conn->rmbe_size, &cfed, &cons);
	uint32_t sender_free = conn->rmbe_size - curs_diff_large(conn->rmbe_size, &cfed, &prod);
	uint8_t pf = conn->local_rx_ctrl.prod_flags;
	if ((pf & SMCR_CDC_CONS_UPD_REQ) || force ||
	    (to_confirm > conn->rmbe_update_limit &&
	     (sender_free <= conn->rmbe_size / 2 || (pf & SMCR_CDC_WRITE_BLOCKED)))) {
		if (conn->killed || (conn->local_rx_ctrl.conn_flags & SMCR_CDC_PEER_CONN_ABORT))
			return; /* nothing to confirm to a connection that is gone */
		if (smcr_cdc_get_slot_and_msg_send(conn) < 0)
			return; /* sent once a slot frees up */
	}
	if ((conn->local_rx_ctrl.prod_flags & SMCR_CDC_WRITE_BLOCKED) && !conn->bytes_to_rcv)
		conn->local_rx_ctrl.prod_flags &= (uint8_t)~SMCR_CDC_WRITE_BLOCKED;
}

/* smc_should_autocork(): net.smc.autocorking_size 0 turns it off */
static bool should_autocork(const smcr_conn *conn)
{
	uint32_t corking = smcr_min32(conn->sndbuf->len >> 1, conn->ctx->set.autocorking_size);
	return conn->cdc_pend_tx_wr && smcr_tx_prepared_sends(conn) <= corking;
}

/* smc_tx_should_cork(): autocorking, or MSG_MORE / TCP_CORK while the send buffer has room */
static bool should_cork(const smcr_conn *conn, uint32_t flags)
{
	if (should_autocork(conn))
		return true;
	return ((flags & SMCR_MSG_MORE) || conn->corked) && conn->sndbuf_space;
}

/* Into the send buffer at off: from data, or written there by fill. */
static void put_span(uint8_t *dst, const uint8_t *data, smcr_fill_fn fill, void *fctx, size_t n)
{
	if (fill)
		fill(fctx, dst, n);
	else
		memcpy(dst, data, n);
}

static ssize_t conn_send(smcr_conn *conn, const uint8_t *data, smcr_fill_fn fill, void *fctx,
                         size_t len, uint32_t flags, uint64_t now)
{
	if (!conn || (!data && !fill && len))
		return SMCR_ERR_INVAL;
	if (conn->mode == SMCR_MODE_FALLBACK)
		return SMCR_ERR_INVAL; /* the host sends on TCP */
	if (conn->mode != SMCR_MODE_SMCR)
		return SMCR_ERR_STATE;
	if (conn->state != SMCR_ACTIVE && conn->state != SMCR_APPCLOSEWAIT1)
		return SMCR_ERR_CLOSED;
	if (conn->sk_err || conn->send_shutdown || conn->killed ||
	    (conn->local_tx_ctrl.conn_flags & SMCR_CDC_PEER_CONN_ABORT) || !conn->sndbuf)
		return SMCR_ERR_CLOSED;
	if (rxed_any_close(conn))
		return SMCR_ERR_CLOSED;
	if (!len)
		return 0;
	smcr_ctx *ctx = conn->ctx;
	/* smc_tx_sendmsg(): every send call, before it waits for room */
	if (len > conn->sndbuf->len)
		ctx->stats.tx_size_small++;
	if (len > conn->peer_rmbe_size)
		ctx->stats.tx_peer_size_small++;
	if (!conn->sndbuf_space || conn->urg_tx_pend) {
		conn->tx_nospace = conn->tx_nospace || !conn->sndbuf_space;
		return SMCR_ERR_AGAIN;
	}
	smcr_ctx_enter(ctx, now);
	if (flags & SMCR_MSG_OOB)
		conn->local_tx_ctrl.prod_flags |= SMCR_CDC_URG_PENDING;
	smcr_buf *sb = conn->sndbuf;
	smcr_buf_filling(ctx, sb);
	uint32_t copylen = len < conn->sndbuf_space ? (uint32_t)len : conn->sndbuf_space;
	uint32_t off = conn->tx_curs_prep.count;
	uint32_t first = smcr_min32(copylen, sb->len - off);
	smcr_buf_mem_write(ctx, sb->cpu + off, first);
	put_span(sb->cpu + off, data, fill, fctx, first);
	if (copylen > first) {
		smcr_buf_mem_write(ctx, sb->cpu, copylen - first);
		put_span(sb->cpu, data ? data + first : NULL, fill, fctx, copylen - first);
	}
	smcr_curs_add(&conn->tx_curs_prep, sb->len, copylen);
	conn->sndbuf_space -= copylen;
	ctx->stats.tx_cnt++;
	ctx->stats.tx_pd[smcr_stat_bucket(len)]++;
	if ((flags & SMCR_MSG_OOB) && copylen == len) {
		conn->urg_tx_pend = true;
		ctx->stats.urg_tx_cnt++;
	}
	if ((flags & SMCR_MSG_OOB) || !should_cork(conn, flags))
		smcr_tx_sndbuf_nonempty(conn);
	smcr_ctx_leave(ctx);
	return (ssize_t)copylen;
}

ssize_t smcr_conn_send(smcr_conn *conn, const uint8_t *data, size_t len, uint32_t flags, uint64_t now)
{
	return conn_send(conn, data, NULL, NULL, len, flags, now);
}

ssize_t smcr_conn_send_fill(smcr_conn *conn, size_t len, uint32_t flags, uint64_t now,
                            smcr_fill_fn fill, void *ctx)
{
	if (!fill)
		return SMCR_ERR_INVAL;
	return conn_send(conn, NULL, fill, ctx, len, flags, now);
}

/* smc_setsockopt() TCP_CORK / TCP_NODELAY: outside SMC_INIT, SMC_LISTEN and SMC_CLOSED an
 * uncork or Nagle off counts and pushes what is held (smc_tx_pending) */
static bool push_state(const smcr_conn *conn)
{
	return conn->mode == SMCR_MODE_SMCR && conn->state != SMCR_INIT && conn->state != SMCR_LISTEN &&
	       conn->state != SMCR_CLOSED;
}

static void push_held(smcr_conn *conn, uint64_t *cnt, uint64_t now)
{
	smcr_ctx *ctx = conn->ctx;
	smcr_ctx_enter(ctx, now);
	(*cnt)++;
	if (conn->sndbuf && smcr_tx_prepared_sends(conn) && !conn->killed)
		smcr_tx_sndbuf_nonempty(conn);
	smcr_ctx_leave(ctx);
}

int smcr_conn_set_cork(smcr_conn *conn, bool on, uint64_t now)
{
	if (!conn)
		return SMCR_ERR_INVAL;
	conn->corked = on;
	if (!on && push_state(conn))
		push_held(conn, &conn->ctx->stats.cork_cnt, now);
	return 0;
}

int smcr_conn_set_nodelay(smcr_conn *conn, bool on, uint64_t now)
{
	if (!conn)
		return SMCR_ERR_INVAL;
	if (on && push_state(conn))
		push_held(conn, &conn->ctx->stats.ndly_cnt, now);
	return 0;
}
