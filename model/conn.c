/* Connections (Linux struct smc_connection / smc_sock): creation, leaving the link group
 * (smc_conn_free), being killed with the lgr (smc_conn_kill), lifetime and getters.
 *
 * A connection is freed when the application has closed it and the protocol is done with
 * it: fallen back, failed, or CLOSED. Until then it stays in the context, still answering
 * CDCs for its close handshake. */
#include "model/conn_int.h"

#include <string.h>

#include "model/buf_int.h"
#include "model/cdc.h"
#include "model/close_int.h"
#include "model/ctx_int.h"
#include "model/handshake_int.h"
#include "model/index_int.h"
#include "model/lgr_int.h"
#include "model/link_int.h"
#include "model/list_int.h"
#include "model/llc_flow_int.h"
#include "model/mem_int.h"
#include "model/smcr.h"
#include "model/smcr_err.h"
#include "model/timer_int.h"
#include "model/wr_int.h"

smcr_conn *smcr_conn_new(smcr_ctx *ctx, smcr_role role, const smcr_tcp_info *tcp, void *user)
{
	smcr_conn *c = smcr_alloc(ctx, sizeof(*c));
	if (!c)
		return NULL;
	/* the TCP view is the handshake's alone: a connection on SMC-R does not carry it */
	c->tcp = smcr_alloc(ctx, sizeof(*c->tcp));
	if (!c->tcp || smcr_timer_reserve(ctx, 2)) {
		smcr_free(ctx, c->tcp);
		smcr_free(ctx, c);
		return NULL;
	}
	c->id = ++ctx->next_conn_id;
	c->ctx = ctx;
	c->user = user;
	c->role = role;
	*c->tcp = *tcp;
	c->state = SMCR_INIT;
	c->mode = SMCR_MODE_HANDSHAKE;
	c->rtoken_idx = -1;
	c->urg_state = SMCR_URG_READ;
	smcr_list_init(&c->lgr_node);
	smcr_list_init(&c->slot_node);
	smcr_list_init(&c->lock_node);
	smcr_timer_init(&c->clc_timer, SMCR_TMR_CONN_CLC, c);
	smcr_timer_init(&c->close_timer, SMCR_TMR_CONN_CLOSE, c);
	smcr_list_add_tail(&ctx->conns, &c->node);
	smcr_index_add(ctx, &ctx->conns_by_id, &c->id_node, c->id);
	return c;
}

void smcr_conn_set_state(smcr_conn *conn, smcr_conn_state st)
{
	if (conn->state == st)
		return;
	conn->state = st;
	smcr_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = SMCR_EV_CONN_STATE;
	ev.conn_id = conn->id;
	ev.lgr_id = conn->lgr ? conn->lgr->id : 0;
	ev.conn_state = st;
	smcr_emit(conn->ctx, &ev);
}

void smcr_conn_init_cursors(smcr_conn *conn)
{
	/* smc_tx_init/smc_rx_init: everything starts at (0, 0) */
	uint32_t token = conn->local_tx_ctrl.token;
	memset(&conn->local_tx_ctrl, 0, sizeof(conn->local_tx_ctrl));
	memset(&conn->local_rx_ctrl, 0, sizeof(conn->local_rx_ctrl));
	conn->local_tx_ctrl.token = token;
	memset(&conn->local_tx_ctrl_fin, 0, sizeof(conn->local_tx_ctrl_fin));
	memset(&conn->tx_curs_prep, 0, sizeof(smcr_cursor));
	memset(&conn->tx_curs_sent, 0, sizeof(smcr_cursor));
	memset(&conn->tx_curs_fin, 0, sizeof(smcr_cursor));
	memset(&conn->rx_curs_confirmed, 0, sizeof(smcr_cursor));
	memset(&conn->rx_curs_confirmed_fin, 0, sizeof(smcr_cursor));
	conn->tx_cdc_seq = conn->tx_cdc_seq_fin = 0;
	conn->sndbuf_space = conn->sndbuf ? conn->sndbuf->len : 0;
	conn->peer_rmbe_space = conn->peer_rmbe_size;
	conn->bytes_to_rcv = 0;
	conn->urg_state = SMCR_URG_READ;
}

/* smc_conn_free() waits for the CDCs still in flight (smc_cdc_wait_pend_tx_wr) before the
 * connection leaves the lgr: one that fails with its link must be sent again on another
 * link (model/failover.c), or the peer never hears of the close. */
static bool must_wait_cdcs(const smcr_conn *conn)
{
	const smcr_lgr *lgr = conn->lgr;
	return lgr && conn->registered && conn->cdc_pend_tx_wr && !lgr->dead && !lgr->terminating &&
	       !conn->ctx->freeing && smcr_link_sendable(conn->lnk);
}

/* smc_conn_free(): leave the lgr; the buffers stay with it for reuse. */
void smcr_conn_free_lgr(smcr_conn *conn)
{
	smcr_lgr *lgr = conn->lgr;
	if (must_wait_cdcs(conn) || (conn->failover_pending && lgr && !lgr->dead && !lgr->terminating)) {
		conn->free_deferred = true;
		return;
	}
	conn->free_deferred = false;
	smcr_wr_dismiss_conn(conn);
	if (!lgr)
		return;
	smcr_llc_remove_waiters_conn(lgr, conn->id);
	if (conn->registered) {
		smcr_lgr_unregister_conn(conn);
		if (!lgr->dead)
			smcr_buf_unuse(conn);
	}
	conn->rmb = conn->sndbuf = NULL;
	conn->lnk = NULL;
	conn->lgr = NULL;
	if (!lgr->conns_num && !lgr->dead)
		smcr_lgr_schedule_free(lgr);
}

void smcr_conn_tcp(smcr_conn *conn, smcr_tcp_action act)
{
	smcr_ctx *ctx = conn->ctx;
	if (conn->tcp_released)
		return;
	if (act != SMCR_TCP_SHUTDOWN)
		conn->tcp_released = true;
	if (ctx->cb.tcp_control && !ctx->freeing)
		ctx->cb.tcp_control(ctx->user, conn, act);
}

void smcr_conn_wake(smcr_conn *conn, bool readable, bool writable)
{
	smcr_ctx *ctx = conn->ctx;
	if (ctx->freeing || conn->host_closed || !conn->established_reported)
		return;
	if (readable && ctx->cb.readable)
		ctx->cb.readable(ctx->user, conn);
	if (writable && ctx->cb.writable)
		ctx->cb.writable(ctx->user, conn);
}

/* smc_conn_kill(): the lgr ends under the connection. */
void smcr_conn_kill(smcr_conn *conn)
{
	smcr_ctx *ctx = conn->ctx;
	if (conn->mode == SMCR_MODE_SMCR) {
		smcr_close_abort(conn);
		conn->killed = true;
		conn->sk_err = SMCR_ERR_CLOSED; /* ECONNABORTED */
	} else {
		conn->killed = true;
	}
	smcr_wr_dismiss_conn(conn);
	conn->free_deferred = false;
	conn->failover_pending = false;
	if (conn->lgr)
		smcr_llc_remove_waiters_conn(conn->lgr, conn->id);
	smcr_lgr_unregister_conn(conn);
	conn->rmb = conn->sndbuf = NULL; /* they go with the lgr */
	conn->bytes_to_rcv = 0;
	conn->lnk = NULL;
	conn->lgr = NULL;
	if (conn->mode != SMCR_MODE_SMCR) {
		/* the handshake notices when it continues; but one waiting to confirm its rkeys
		 * on this lgr (a reused one) would wait for ever: its flow waiter went with the
		 * lgr (smcr_llc_remove_waiters_conn above). Linux: smc_llc_lgr_clear wakes the
		 * waiter, smcr_lgr_reg_rmbs fails and the handshake declines with
		 * SMC_CLC_DECL_ERR_REGBUF and falls back. (A first link's wait ends through its
		 * own flow: smcr_hs_established sees killed.) */
		const smcr_hs_role *r = smcr_ctx_role(ctx, conn->role);
		if (conn->hs == r->wait_rkey)
			r->rkey_done(conn, SMCR_ERR_CLOSED);
		return;
	}
	smcr_conn_wake(conn, true, true);
	if (ctx->cb.aborted && !ctx->freeing && !conn->host_closed)
		ctx->cb.aborted(ctx->user, conn, SMCR_ERR_CLOSED);
	smcr_close_active_abort(conn);
}

/* The last CDC in flight of a connection that had left already completed (or moved). */
void smcr_conn_free_deferred_done(smcr_conn *conn)
{
	if (!conn->free_deferred || must_wait_cdcs(conn) || conn->failover_pending)
		return;
	smcr_conn_free_lgr(conn);
	smcr_conn_maybe_reap(conn);
}

void smcr_conn_maybe_reap(smcr_conn *conn)
{
	if (conn->dead || !conn->host_closed)
		return;
	bool done = conn->mode == SMCR_MODE_FALLBACK ||
	            (conn->mode == SMCR_MODE_HANDSHAKE && conn->hs == SMCR_HS_DONE) ||
	            (conn->mode == SMCR_MODE_SMCR && conn->state == SMCR_CLOSED);
	if (!done)
		return;
	smcr_ctx *ctx = conn->ctx;
	if (conn->lgr)
		smcr_conn_free_lgr(conn);
	if (conn->free_deferred)
		return; /* smcr_conn_free_deferred_done() comes back */
	smcr_hs_lock_release(conn);
	smcr_wr_unwait(conn);
	smcr_timer_cancel(ctx, &conn->clc_timer);
	smcr_timer_cancel(ctx, &conn->close_timer);
	conn->dead = true;
	smcr_list_del(&conn->node);
	smcr_index_del(&ctx->conns_by_id, &conn->id_node);
	smcr_list_add_tail(&ctx->reap_conns, &conn->node);
}

void smcr_conn_reap(smcr_conn *conn)
{
	smcr_ctx *ctx = conn->ctx;
	if (!ctx->freeing && !conn->dead)
		return;
	if (ctx->freeing) {
		smcr_lgr_unregister_conn(conn);
		smcr_list_del(&conn->lock_node);
		smcr_list_del(&conn->slot_node);
		smcr_timer_cancel(ctx, &conn->clc_timer);
		smcr_timer_cancel(ctx, &conn->close_timer);
	}
	smcr_list_del(&conn->node);
	smcr_index_del(&ctx->conns_by_id, &conn->id_node);
	if (!conn->freed_reported && !ctx->freeing && ctx->cb.conn_freed) {
		conn->freed_reported = true;
		ctx->cb.conn_freed(ctx->user, conn);
	}
	smcr_free(ctx, conn->clc_buf);
	smcr_free(ctx, conn->ini);
	smcr_free(ctx, conn->tcp);
	smcr_timer_reserve(ctx, -2);
	smcr_free(ctx, conn);
}

/* Getters -------------------------------------------------------------------------------- */

void *smcr_conn_user(const smcr_conn *conn) { return conn->user; }
uint64_t smcr_conn_id(const smcr_conn *conn) { return conn->id; }
smcr_conn_state smcr_conn_get_state(const smcr_conn *conn) { return conn->state; }
size_t smcr_conn_readable(const smcr_conn *conn) { return conn->bytes_to_rcv; }
size_t smcr_conn_writable(const smcr_conn *conn)
{
	return conn->mode == SMCR_MODE_SMCR && !conn->urg_tx_pend ? conn->sndbuf_space : 0;
}

bool smcr_conn_at_urgent_mark(const smcr_conn *conn)
{
	if (conn->urg_state != SMCR_URG_VALID || !conn->rmbe_size)
		return false;
	return smcr_curs_diff(conn->rmbe_size, &conn->local_tx_ctrl.cons, &conn->urg_curs) == 1;
}

void smcr_conn_fill_info(const smcr_conn *conn, smcr_conn_info *out)
{
	memset(out, 0, sizeof(*out));
	out->id = conn->id;
	out->role = conn->role;
	out->state = conn->state;
	out->mode = conn->mode;
	out->fallback_reason = conn->fallback_rsn;
	out->peer_diagnosis = conn->peer_diagnosis;
	out->lgr_id = conn->lgr ? conn->lgr->id : 0;
	out->link_id = conn->lnk ? conn->lnk->id : 0;
	out->version = conn->version;
	out->local_token = conn->alert_token_local;
	out->peer_token = conn->local_tx_ctrl.token;
	out->sndbuf_size = conn->sndbuf ? conn->sndbuf->len : 0;
	out->rmbe_size = conn->rmbe_size;
	out->peer_rmbe_size = conn->peer_rmbe_size;
	out->rx_prod = conn->local_rx_ctrl.prod;
	out->rx_cons = conn->local_tx_ctrl.cons;
	out->tx_prod = conn->local_tx_ctrl.prod;
	out->tx_cons = conn->local_rx_ctrl.cons;
	out->tx_prep = conn->tx_curs_prep;
	out->tx_sent = conn->tx_curs_sent;
	out->tx_fin = conn->tx_curs_fin;
	out->rx_prod_flags = conn->local_rx_ctrl.prod_flags;
	out->rx_conn_flags = conn->local_rx_ctrl.conn_flags;
	out->tx_prod_flags = conn->local_tx_ctrl.prod_flags;
	out->tx_conn_flags = conn->local_tx_ctrl.conn_flags;
	out->bytes_to_rcv = conn->bytes_to_rcv;
	out->sndbuf_space = conn->sndbuf_space;
	out->peer_rmbe_space = conn->peer_rmbe_space;
	out->bytes_sent = conn->bytes_sent;
	out->bytes_received = conn->bytes_received;
	out->shutdown_wr = conn->send_shutdown;
	out->shutdown_rd = conn->rcv_shutdown;
}

int smcr_conn_get_info(const smcr_conn *conn, smcr_conn_info *out)
{
	if (!conn || !out)
		return SMCR_ERR_INVAL;
	smcr_conn_fill_info(conn, out);
	return 0;
}
