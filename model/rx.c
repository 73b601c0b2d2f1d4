/* The receive side of a connection (Linux smc_cdc.c receive half, smc_rx.c).
 *
 * A CDC names its connection by the alert token we chose; CDCs older than the last one
 * (16-bit sequence compare) are ignored, as are cursors that go backwards. New producer
 * bytes become readable; the peer's consumer cursor frees space in its RMBE and may let
 * pending data go. A CDC with the failover-validation flag only checks that we saw the
 * sender's last completed CDC; if not, data may be lost and the connection is aborted.
 * Reading advances our consumer cursor; smc_tx_consumer_update() decides when the peer
 * hears of it. */
#include "model/rx_int.h"

#include <string.h>

#include "model/buf_int.h"
#include "model/cdc.h"
#include "model/close_int.h"
#include "model/conn_int.h"
#include "model/ctx_int.h"
#include "model/decode_err.h"
#include "model/lgr_int.h"
#include "model/link_int.h"
#include "model/minmax_int.h"
#include "model/smcr.h"
#include "model/smcr_err.h"
#include "model/tx_int.h"

static bool cdc_before(uint16_t a, uint16_t b) { return (int16_t)(uint16_t)(a - b) < 0; }

/* smc_cdc_cursor_to_host(): ignore a cursor that moves backwards. */
static void cursor_to_host(smcr_cursor *local, const smcr_cursor *peer)
{
	if (local->wrap > peer->wrap && peer->wrap)
		return;
	if (local->wrap == peer->wrap && local->count > peer->count)
		return;
	*local = *peer;
}

static void handle_urg_data_arrival(smcr_conn *conn, uint32_t *diff_prod)
{
	conn->urg_curs = conn->local_rx_ctrl.prod;
	conn->urg_state = SMCR_URG_VALID;
	if (!conn->ctx->set.oob_inline && *diff_prod)
		(*diff_prod)--; /* the urgent byte is skipped in the stream */
	uint8_t *base = conn->rmb->cpu;
	conn->urg_rx_byte = conn->urg_curs.count ? base[conn->urg_curs.count - 1] : base[conn->rmbe_size - 1];
	conn->ctx->stats.urg_rx_cnt++;
}

/* smc_cdc_msg_recv_action() */
static void recv_action(smcr_conn *conn, smcr_link *lnk, const smcr_cdc_msg *cdc)
{
	smcr_ctx *ctx = conn->ctx;
	smcr_cursor prod_old = conn->local_rx_ctrl.prod;
	smcr_cursor cons_old = conn->local_rx_ctrl.cons;
	conn->local_rx_ctrl.seqno = cdc->seqno;
	conn->local_rx_ctrl.token = cdc->token;
	if (conn->rmbe_size && cdc->prod.count < conn->rmbe_size)
		cursor_to_host(&conn->local_rx_ctrl.prod, &cdc->prod);
	if (conn->peer_rmbe_size && cdc->cons.count < conn->peer_rmbe_size)
		cursor_to_host(&conn->local_rx_ctrl.cons, &cdc->cons);
	conn->local_rx_ctrl.prod_flags = cdc->prod_flags;
	conn->local_rx_ctrl.conn_flags = cdc->conn_flags;

	uint32_t diff_cons = conn->peer_rmbe_size ? smcr_curs_diff(conn->peer_rmbe_size, &cons_old, &conn->local_rx_ctrl.cons) : 0;
	if (diff_cons) {
		conn->peer_rmbe_space += diff_cons;
		if (conn->peer_rmbe_space > conn->peer_rmbe_size)
			conn->peer_rmbe_space = conn->peer_rmbe_size;
	}
	uint32_t diff_prod = conn->rmbe_size ? smcr_curs_diff(conn->rmbe_size, &prod_old, &conn->local_rx_ctrl.prod) : 0;
	if (diff_prod) {
		lnk->bytes_in += diff_prod;
		conn->bytes_received += diff_prod;
		ctx->stats.rx_bytes += diff_prod;
		ctx->stats.rx_cnt++;
		if (conn->local_rx_ctrl.prod_flags & SMCR_CDC_URG_PRESENT)
			handle_urg_data_arrival(conn, &diff_prod);
		conn->bytes_to_rcv += diff_prod;
		if (conn->bytes_to_rcv > conn->rmbe_size)
			conn->bytes_to_rcv = conn->rmbe_size;
		smcr_conn_wake(conn, true, false);
	} else {
		if (conn->local_rx_ctrl.prod_flags & SMCR_CDC_WRITE_BLOCKED) {
			ctx->stats.rx_rmb_full++;
			smcr_conn_wake(conn, true, false);
		}
		if (conn->local_rx_ctrl.prod_flags & SMCR_CDC_URG_PENDING)
			conn->urg_state = SMCR_URG_NOTYET;
	}
	/* trigger the send side: RDMA write into the peer RMBE and CDC */
	if ((diff_cons && smcr_tx_prepared_sends(conn)) ||
	    (conn->local_rx_ctrl.prod_flags & (SMCR_CDC_CONS_UPD_REQ | SMCR_CDC_URG_PENDING))) {
		if (conn->mode == SMCR_MODE_SMCR)
			smcr_tx_sndbuf_nonempty(conn);
	}
	if (diff_cons && conn->urg_tx_pend && conn->peer_rmbe_space == conn->peer_rmbe_size) {
		/* urgent data confirmed by the peer: ready for more */
		conn->urg_tx_pend = false;
		smcr_conn_wake(conn, false, true);
	}
	if (conn->local_rx_ctrl.conn_flags & SMCR_CDC_PEER_CONN_ABORT) {
		conn->sk_err = SMCR_ERR_CLOSED; /* ECONNRESET */
		conn->local_tx_ctrl.conn_flags |= SMCR_CDC_PEER_CONN_ABORT;
	}
	if (conn->local_rx_ctrl.conn_flags &
	    (SMCR_CDC_PEER_CONN_CLOSED | SMCR_CDC_PEER_CONN_ABORT | SMCR_CDC_PEER_DONE_WRITING)) {
		conn->rcv_shutdown = true;
		if (conn->mode == SMCR_MODE_SMCR)
			smcr_close_passive(conn);
	}
}

/* smc_cdc_msg_validate(): after a failover the peer names its last completed CDC. */
static void msg_validate(smcr_conn *conn, smcr_link *lnk, const smcr_cdc_msg *cdc)
{
	int16_t diff = (int16_t)(uint16_t)(conn->local_rx_ctrl.seqno - cdc->seqno);
	if (diff >= 0)
		return;
	/* a CDC the peer completed never reached us: data may be lost, drop the connection */
	conn->out_of_sync = true;
	conn->local_tx_ctrl.conn_flags |= SMCR_CDC_PEER_CONN_ABORT;
	conn->lnk = lnk;
	if (conn->mode == SMCR_MODE_SMCR) {
		smcr_ctx *ctx = conn->ctx;
		conn->sk_err = SMCR_ERR_CLOSED;
		if (ctx->cb.aborted && !ctx->freeing && !conn->host_closed)
			ctx->cb.aborted(ctx->user, conn, SMCR_ERR_CLOSED);
		smcr_close_abort(conn);
		smcr_close_active_abort(conn);
	}
}

void smcr_cdc_rx(smcr_link *lnk, const uint8_t *buf, uint32_t len)
{
	smcr_ctx *ctx = lnk->ctx;
	smcr_cdc_msg cdc;
	smcr_decode_err err;
	memset(&err, 0, sizeof(err));
	if (smcr_cdc_decode(&cdc, buf, len, &err)) {
		ctx->stats.decode_errors++;
		smcr_event ev;
		memset(&ev, 0, sizeof(ev));
		ev.type = SMCR_EV_DECODE_ERROR;
		ev.lgr_id = lnk->lgr->id;
		ev.decode_err = &err;
		ev.text = "CDC";
		smcr_emit(ctx, &ev);
		return;
	}
	smcr_conn *conn = smcr_lgr_find_conn(lnk->lgr, cdc.token);
	if (!conn) {
		ctx->stats.cdc_unknown_token++;
		return;
	}
	if (conn->out_of_sync)
		return;
	if (cdc.prod_flags & SMCR_CDC_FAILOVER_VALIDATION) {
		msg_validate(conn, lnk, &cdc);
		return;
	}
	if (cdc_before(cdc.seqno, conn->local_rx_ctrl.seqno))
		return; /* an old CDC */
	recv_action(conn, lnk, &cdc);
}

/* smc_rx_update_consumer(): advance the consumer cursor, skip a non-inline urgent byte. */
static void update_consumer(smcr_conn *conn, smcr_cursor cons, uint32_t len)
{
	bool force = false;
	smcr_curs_add(&cons, conn->rmbe_size, len);
	if (conn->urg_state == SMCR_URG_VALID || conn->urg_rx_skip_pend) {
		uint32_t ahead = smcr_curs_diff(conn->rmbe_size, &cons, &conn->urg_curs);
		bool reached = smcr_curs_comp(conn->rmbe_size, &cons, &conn->urg_curs) >= 0;
		if (conn->ctx->set.oob_inline) {
			if (reached) {
				force = true;
				conn->urg_state = SMCR_URG_READ;
			}
		} else if (!reached && ahead == 1) {
			force = true; /* skip the urgent byte */
			smcr_curs_add(&cons, conn->rmbe_size, 1);
			conn->urg_rx_skip_pend = false;
		} else if (reached) {
			conn->urg_state = SMCR_URG_READ;
		}
	}
	conn->local_tx_ctrl.cons = cons;
	smcr_tx_consumer_update(conn, force);
}

/* Out of the RMB: into buf, or shown to visit. */
static void get_span(uint8_t *buf, smcr_visit_fn visit, void *vctx, const uint8_t *src, size_t n)
{
	if (visit)
		visit(vctx, src, n);
	else
		memcpy(buf, src, n);
}

static ssize_t conn_recv(smcr_conn *conn, uint8_t *buf, smcr_visit_fn visit, void *vctx,
                         size_t len, uint32_t flags, uint64_t now)
{
	if (!conn || (!buf && !visit && len))
		return SMCR_ERR_INVAL;
	if (conn->mode == SMCR_MODE_FALLBACK)
		return SMCR_ERR_INVAL;
	if (conn->mode != SMCR_MODE_SMCR)
		return SMCR_ERR_STATE;
	if (flags & SMCR_MSG_OOB) {
		/* smc_rx_recv_urg() */
		if (conn->ctx->set.oob_inline || conn->urg_state != SMCR_URG_VALID || !len)
			return conn->urg_state == SMCR_URG_NOTYET ? SMCR_ERR_AGAIN : SMCR_ERR_INVAL;
		get_span(buf, visit, vctx, &conn->urg_rx_byte, 1);
		if (!(flags & SMCR_MSG_PEEK)) {
			conn->urg_state = SMCR_URG_READ;
			conn->urg_rx_skip_pend = true;
		}
		return 1;
	}
	if (conn->state == SMCR_PEERFINCLOSEWAIT)
		return 0;
	uint32_t readable = conn->bytes_to_rcv;
	if (!readable || !conn->rmb) {
		if (conn->rcv_shutdown || conn->state == SMCR_CLOSED)
			return conn->sk_err && !conn->rcv_shutdown ? conn->sk_err : 0;
		if (conn->sk_err)
			return conn->sk_err;
		return SMCR_ERR_AGAIN;
	}
	smcr_ctx *ctx = conn->ctx;
	smcr_ctx_enter(ctx, now);
	/* smc_rx_recvmsg's statistics (SMC_STAT_RMB_RX_FULL, _SIZE_SMALL) */
	if (readable >= conn->rmbe_size)
		ctx->stats.rx_buf_full++;
	if (len < readable)
		ctx->stats.rx_size_small++;
	smcr_cursor cons = conn->local_tx_ctrl.cons;
	if (conn->urg_state == SMCR_URG_VALID) {
		/* stop at the urgent mark */
		uint32_t ahead = smcr_curs_diff(conn->rmbe_size, &cons, &conn->urg_curs);
		if (smcr_curs_comp(conn->rmbe_size, &cons, &conn->urg_curs) < 0 && ahead) {
			uint32_t lim = ctx->set.oob_inline ? ahead : ahead - 1;
			if (lim && lim < readable)
				readable = lim;
		}
	}
	uint32_t copylen = len < readable ? (uint32_t)len : readable;
	uint32_t off = cons.count;
	uint32_t first = smcr_min32(copylen, conn->rmbe_size - off);
	get_span(buf, visit, vctx, conn->rmb->cpu + off, first);
	if (copylen > first)
		get_span(buf ? buf + first : NULL, visit, vctx, conn->rmb->cpu, copylen - first);
	if (copylen)
		ctx->stats.rx_pload_hist[smcr_stat_bucket(copylen)]++; /* SMC_STAT_RX_PAYLOAD */
	if (!(flags & SMCR_MSG_PEEK)) {
		conn->bytes_to_rcv -= copylen;
		update_consumer(conn, cons, copylen);
		if (!conn->bytes_to_rcv && conn->rmb)
			smcr_buf_drained(conn, conn->rmb);
	}
	smcr_ctx_leave(ctx);
	return (ssize_t)copylen;
}

ssize_t smcr_conn_recv(smcr_conn *conn, uint8_t *buf, size_t len, uint32_t flags, uint64_t now)
{
	return conn_recv(conn, buf, NULL, NULL, len, flags, now);
}

ssize_t smcr_conn_recv_visit(smcr_conn *conn, size_t len, uint32_t flags, uint64_t now,
                             smcr_visit_fn visit, void *ctx)
{
	if (!visit)
		return SMCR_ERR_INVAL;
	return conn_recv(conn, NULL, visit, ctx, len, flags, now);
}
