/* Closing a connection (Linux smc_close.c), with Linux's state numbers (smcr.h).
 *
 * The connection-state flags of the CDC carry the close: "done writing" (shutdown write),
 * "closed", "abort" (close with unread data, or a local abort). close() in ACTIVE first
 * lets the send buffer drain (at most 2 s), then sends "closed" and shuts the TCP socket
 * down (FIN); the TCP connection is released once the SMC connection is CLOSED and the
 * application has closed. Received flags drive the passive side (smc_close_passive_work).
 * The 2 s drain is a timer here where Linux sleeps. */
#include "model/close_int.h"

#include "model/cdc.h"
#include "model/conn_int.h"
#include "model/ctx_int.h"
#include "model/handshake_int.h"
#include "model/link_int.h"
#include "model/smcr.h"
#include "model/smcr_err.h"
#include "model/timer_int.h"
#include "model/tx_int.h"

static bool rxed_any_close(const smcr_conn *c)
{
	return c->local_rx_ctrl.conn_flags & (SMCR_CDC_PEER_CONN_CLOSED | SMCR_CDC_PEER_CONN_ABORT);
}

static bool sent_any_close(const smcr_conn *c)
{
	return c->local_tx_ctrl.conn_flags & (SMCR_CDC_PEER_CONN_CLOSED | SMCR_CDC_PEER_CONN_ABORT);
}

static void send_ctrl(smcr_conn *conn)
{
	if (conn->lnk && smcr_link_sendable(conn->lnk) && conn->registered)
		smcr_cdc_get_slot_and_msg_send(conn);
}

/* smc_close_final(): "closed", or "abort" when unread data is left. */
static void close_final(smcr_conn *conn)
{
	if (conn->bytes_to_rcv)
		conn->local_tx_ctrl.conn_flags |= SMCR_CDC_PEER_CONN_ABORT;
	else
		conn->local_tx_ctrl.conn_flags |= SMCR_CDC_PEER_CONN_CLOSED;
	send_ctrl(conn);
}

/* smc_close_wr(): "done writing" */
static void close_wr(smcr_conn *conn)
{
	conn->local_tx_ctrl.conn_flags |= SMCR_CDC_PEER_DONE_WRITING;
	send_ctrl(conn);
}

int smcr_close_abort(smcr_conn *conn)
{
	conn->local_tx_ctrl.conn_flags |= SMCR_CDC_PEER_CONN_ABORT;
	send_ctrl(conn);
	return 0;
}

/* The connection reached CLOSED: if the application closed it too, it leaves the lgr and
 * the TCP socket is released. */
static void closed_cleanup(smcr_conn *conn)
{
	if (conn->state != SMCR_CLOSED || !conn->sock_dead)
		return;
	smcr_timer_cancel(conn->ctx, &conn->close_timer);
	conn->close_flush_wait = false;
	smcr_conn_free_lgr(conn);
	smcr_conn_tcp(conn, SMCR_TCP_CLOSE);
	smcr_conn_maybe_reap(conn);
}

/* Start waiting (2 s at most) until everything prepared is written to the peer. */
static bool flush_wait(smcr_conn *conn, bool is_shutdown)
{
	if (conn->close_flush_wait)
		return true;
	if (!smcr_tx_prepared_sends(conn) || conn->killed || conn->sk_err)
		return false;
	if (!conn->lnk || !smcr_link_sendable(conn->lnk))
		return false;
	smcr_tx_sndbuf_nonempty(conn); /* send out corked data */
	if (!smcr_tx_prepared_sends(conn))
		return false;
	conn->close_flush_wait = true;
	conn->close_flush_is_shutdown = is_shutdown;
	smcr_timer_arm(conn->ctx, &conn->close_timer, conn->ctx->now + SMCR_CLOSE_WAIT_TIME);
	return true;
}

static void close_active_step(smcr_conn *conn, bool flushed)
{
	switch (conn->state) {
	case SMCR_INIT:
		smcr_conn_set_state(conn, SMCR_CLOSED);
		break;
	case SMCR_ACTIVE:
		if (!flushed && flush_wait(conn, false))
			return;
		close_final(conn);
		smcr_conn_set_state(conn, SMCR_PEERCLOSEWAIT1);
		/* shut the TCP socket down before the peer closes it (no TIME_WAIT there) */
		smcr_conn_tcp(conn, SMCR_TCP_SHUTDOWN);
		break;
	case SMCR_APPFINCLOSEWAIT:
		if ((conn->local_tx_ctrl.conn_flags & SMCR_CDC_PEER_DONE_WRITING) && !sent_any_close(conn))
			close_final(conn);
		smcr_conn_set_state(conn, SMCR_CLOSED);
		break;
	case SMCR_APPCLOSEWAIT1:
	case SMCR_APPCLOSEWAIT2:
		if (!flushed && !rxed_any_close(conn) && flush_wait(conn, false))
			return;
		close_final(conn);
		smcr_conn_set_state(conn, rxed_any_close(conn) ? SMCR_CLOSED : SMCR_PEERFINCLOSEWAIT);
		break;
	case SMCR_PEERCLOSEWAIT1:
	case SMCR_PEERCLOSEWAIT2:
		if ((conn->local_tx_ctrl.conn_flags & SMCR_CDC_PEER_DONE_WRITING) && !sent_any_close(conn))
			close_final(conn);
		break;
	case SMCR_PEERFINCLOSEWAIT:
		break;
	case SMCR_PROCESSABORT:
		smcr_close_abort(conn);
		smcr_conn_set_state(conn, SMCR_CLOSED);
		break;
	case SMCR_PEERABORTWAIT:
		smcr_conn_set_state(conn, SMCR_CLOSED);
		break;
	case SMCR_CLOSED:
	case SMCR_LISTEN:
		break;
	}
}

static int close_active(smcr_conn *conn)
{
	close_active_step(conn, false);
	return 0;
}

static void shutdown_write_step(smcr_conn *conn, bool flushed)
{
	if (conn->state == SMCR_ACTIVE) {
		if (!flushed && flush_wait(conn, true))
			return;
		close_wr(conn);
		smcr_conn_set_state(conn, SMCR_PEERCLOSEWAIT1);
	} else if (conn->state == SMCR_APPCLOSEWAIT1) {
		if (!flushed && !rxed_any_close(conn) && flush_wait(conn, true))
			return;
		close_wr(conn);
		smcr_conn_set_state(conn, SMCR_APPCLOSEWAIT2);
	}
	smcr_conn_tcp(conn, SMCR_TCP_SHUTDOWN_WR);
}

static int close_shutdown_write(smcr_conn *conn)
{
	shutdown_write_step(conn, false);
	return 0;
}

static void flush_done(smcr_conn *conn)
{
	if (!conn->close_flush_wait)
		return;
	conn->close_flush_wait = false;
	smcr_timer_cancel(conn->ctx, &conn->close_timer);
	if (conn->close_flush_is_shutdown)
		shutdown_write_step(conn, true);
	else
		close_active_step(conn, true);
	closed_cleanup(conn);
}

void smcr_close_wake_tx_prepared(smcr_conn *conn)
{
	if (conn->close_flush_wait && !smcr_tx_prepared_sends(conn))
		flush_done(conn);
}

void smcr_close_on_timer(smcr_conn *conn) { flush_done(conn); }

/* smc_close_passive_abort_received() */
static void passive_abort_received(smcr_conn *conn)
{
	switch (conn->state) {
	case SMCR_INIT:
	case SMCR_ACTIVE:
	case SMCR_APPCLOSEWAIT1:
	case SMCR_APPFINCLOSEWAIT:
		smcr_conn_set_state(conn, SMCR_PROCESSABORT);
		break;
	case SMCR_PEERCLOSEWAIT1:
	case SMCR_PEERCLOSEWAIT2:
		if ((conn->local_tx_ctrl.conn_flags & SMCR_CDC_PEER_DONE_WRITING) && !sent_any_close(conn))
			smcr_conn_set_state(conn, SMCR_PROCESSABORT); /* shut down, not yet closed */
		else
			smcr_conn_set_state(conn, SMCR_CLOSED);
		break;
	case SMCR_APPCLOSEWAIT2:
	case SMCR_PEERFINCLOSEWAIT:
	case SMCR_PEERABORTWAIT:
		smcr_conn_set_state(conn, SMCR_CLOSED);
		break;
	case SMCR_PROCESSABORT:
	case SMCR_CLOSED:
	case SMCR_LISTEN:
		break;
	}
}

/* smc_close_passive_work(): the peer sent done-writing, closed or abort. */
void smcr_close_passive(smcr_conn *conn)
{
	smcr_ctx *ctx = conn->ctx;
	smcr_conn_state old = conn->state;
	uint8_t rx = conn->local_rx_ctrl.conn_flags;
	if (rx & SMCR_CDC_PEER_CONN_ABORT) {
		passive_abort_received(conn);
		if (conn->close_flush_wait) {
			conn->close_flush_wait = false;
			smcr_timer_cancel(ctx, &conn->close_timer);
		}
	} else {
		switch (conn->state) {
		case SMCR_INIT:
		case SMCR_ACTIVE:
			smcr_conn_set_state(conn, SMCR_APPCLOSEWAIT1);
			break;
		case SMCR_PEERCLOSEWAIT1:
			if (rx & SMCR_CDC_PEER_DONE_WRITING)
				smcr_conn_set_state(conn, SMCR_PEERCLOSEWAIT2);
			/* fall through */
		case SMCR_PEERCLOSEWAIT2: /* check for closing */
			if (!rxed_any_close(conn))
				break;
			if (conn->sock_dead && sent_any_close(conn))
				smcr_conn_set_state(conn, SMCR_CLOSED); /* closed locally already */
			else
				smcr_conn_set_state(conn, SMCR_APPFINCLOSEWAIT); /* shut down, not closed */
			break;
		case SMCR_PEERFINCLOSEWAIT:
			if (rxed_any_close(conn))
				smcr_conn_set_state(conn, SMCR_CLOSED);
			break;
		case SMCR_APPCLOSEWAIT1:
		case SMCR_APPCLOSEWAIT2:
		case SMCR_APPFINCLOSEWAIT:
		case SMCR_PEERABORTWAIT:
		case SMCR_PROCESSABORT:
		case SMCR_CLOSED:
		case SMCR_LISTEN:
			break;
		}
	}
	/* An abort is told before the readers wake: Linux sets sk_err (ECONNRESET) in
	 * smc_cdc_msg_recv_action() before the close work wakes them, so the reader that then
	 * sees the end of the stream also sees the error (POLLERR, SO_ERROR), never an orderly
	 * close of a stream whose last bytes the peer dropped. */
	if ((rx & SMCR_CDC_PEER_CONN_ABORT) && !conn->host_closed && !ctx->freeing && ctx->cb.aborted &&
	    old != conn->state)
		ctx->cb.aborted(ctx->user, conn, SMCR_ERR_CLOSED);
	/* wake up readers (end of stream) and writers */
	smcr_conn_wake(conn, true, true);
	if (!conn->host_closed && !ctx->freeing && ctx->cb.peer_closed && old != conn->state)
		ctx->cb.peer_closed(ctx->user, conn);
	if (old != conn->state)
		closed_cleanup(conn);
}

/* smc_close_active_abort(): a local abort, or the lgr ended. */
void smcr_close_active_abort(smcr_conn *conn)
{
	if (conn->state != SMCR_INIT) {
		if (!conn->sk_err)
			conn->sk_err = SMCR_ERR_CLOSED; /* ECONNABORTED */
		smcr_conn_tcp(conn, SMCR_TCP_ABORT);
	}
	if (conn->close_flush_wait) {
		conn->close_flush_wait = false;
		smcr_timer_cancel(conn->ctx, &conn->close_timer);
	}
	switch (conn->state) {
	case SMCR_ACTIVE:
	case SMCR_APPCLOSEWAIT1:
	case SMCR_APPCLOSEWAIT2:
	case SMCR_PEERCLOSEWAIT1:
	case SMCR_PEERCLOSEWAIT2:
	case SMCR_PEERFINCLOSEWAIT:
	case SMCR_PROCESSABORT:
	case SMCR_APPFINCLOSEWAIT:
		smcr_conn_set_state(conn, SMCR_PEERABORTWAIT);
		smcr_conn_set_state(conn, SMCR_CLOSED);
		smcr_conn_free_lgr(conn);
		break;
	case SMCR_INIT:
	case SMCR_PEERABORTWAIT:
	case SMCR_CLOSED:
	case SMCR_LISTEN:
		break;
	}
	smcr_conn_maybe_reap(conn);
}

/* Public API ------------------------------------------------------------------------------ */

int smcr_conn_shutdown_write(smcr_conn *conn, uint64_t now)
{
	if (!conn)
		return SMCR_ERR_INVAL;
	if (conn->mode != SMCR_MODE_SMCR) {
		if (conn->mode == SMCR_MODE_FALLBACK)
			smcr_conn_tcp(conn, SMCR_TCP_SHUTDOWN_WR);
		return conn->mode == SMCR_MODE_FALLBACK ? 0 : SMCR_ERR_STATE;
	}
	smcr_conn_state st = conn->state;
	if (st != SMCR_ACTIVE && st != SMCR_PEERCLOSEWAIT1 && st != SMCR_PEERCLOSEWAIT2 &&
	    st != SMCR_APPCLOSEWAIT1 && st != SMCR_APPCLOSEWAIT2 && st != SMCR_APPFINCLOSEWAIT)
		return SMCR_ERR_STATE; /* ENOTCONN */
	smcr_ctx_enter(conn->ctx, now);
	conn->send_shutdown = true;
	close_shutdown_write(conn);
	smcr_ctx_leave(conn->ctx);
	return 0;
}

int smcr_conn_close(smcr_conn *conn, uint64_t now)
{
	if (!conn || conn->host_closed)
		return SMCR_ERR_INVAL;
	smcr_ctx *ctx = conn->ctx;
	smcr_ctx_enter(ctx, now);
	conn->host_closed = true;
	if (conn->mode == SMCR_MODE_FALLBACK) {
		conn->sock_dead = true;
		smcr_conn_tcp(conn, SMCR_TCP_CLOSE);
		smcr_conn_maybe_reap(conn);
	} else if (conn->mode == SMCR_MODE_HANDSHAKE) {
		conn->sock_dead = true;
		if (conn->hs != SMCR_HS_DONE) {
			/* the application gives up during the handshake */
			bool local_first = conn->ini && conn->ini->first_contact_local;
			conn->hs = SMCR_HS_DONE;
			smcr_timer_cancel(ctx, &conn->clc_timer);
			smcr_hs_lock_release(conn);
			smcr_hs_abort_conn_setup(conn, local_first);
			smcr_conn_set_state(conn, SMCR_CLOSED);
		}
		smcr_conn_tcp(conn, SMCR_TCP_CLOSE);
		smcr_conn_maybe_reap(conn);
	} else {
		close_active(conn);
		conn->sock_dead = true;
		conn->send_shutdown = conn->rcv_shutdown = true;
		closed_cleanup(conn);
	}
	smcr_ctx_leave(ctx);
	return 0;
}

int smcr_conn_abort(smcr_conn *conn, uint64_t now)
{
	if (!conn)
		return SMCR_ERR_INVAL;
	if (conn->mode != SMCR_MODE_SMCR) {
		if (conn->mode == SMCR_MODE_FALLBACK)
			smcr_conn_tcp(conn, SMCR_TCP_ABORT);
		return 0;
	}
	smcr_ctx_enter(conn->ctx, now);
	if (conn->state != SMCR_CLOSED) {
		smcr_close_abort(conn);
		smcr_close_active_abort(conn);
	}
	smcr_ctx_leave(conn->ctx);
	return 0;
}
