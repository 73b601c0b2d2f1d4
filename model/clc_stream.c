/* The CLC handshake's common machinery (Linux smc_clc.c smc_clc_wait_msg/send_decline,
 * af_smc.c fallback and decline paths): framing CLC messages out of the TCP byte stream,
 * the 6 s / 1 s waits, Declines, fallback, handshake errors and the serialisation of
 * handshakes (Linux smc_server_lgr_pending / smc_client_lgr_pending mutexes); what both
 * roles do alike: opening a connection, the Accept/Confirm contents, saving the peer's
 * RMB and rkey.
 *
 * Framing: Linux peeks the 8-byte header and then reads exactly `length` bytes, so what
 * follows a Decline stays in the socket for the application. Here the core takes every
 * byte the host offers, frames messages itself and hands the unread rest back with the
 * fallback callback. Any malformed message, or a type other than the expected one or a
 * Decline, is a protocol error: the connection fails, no fallback (Linux -EPROTO). */
#include "model/handshake_int.h"

#include <string.h>

#include "model/buf_int.h"
#include "model/clc.h"
#include "model/close_int.h"
#include "model/conn_int.h"
#include "model/ctx_int.h"
#include "model/decode_err.h"
#include "model/lgr_int.h"
#include "model/link_int.h"
#include "model/list_int.h"
#include "model/llc_flow_int.h"
#include "model/mem_int.h"
#include "model/smcr.h"
#include "model/smcr_err.h"
#include "model/timer_int.h"
#include "model/trace_int.h"

#define CLC_INPUT_MAX (64 * 1024)

static void clc_process(smcr_conn *conn);

int smcr_clc_send(smcr_conn *conn, const uint8_t *buf, size_t len)
{
	smcr_ctx *ctx = conn->ctx;
	if (ctx->freeing)
		return SMCR_ERR_STATE;
	int rc = ctx->cb.clc_send(ctx->user, conn, buf, len);
	if (rc >= 0)
		smcr_trace_clc(conn, true, buf, len);
	return rc < 0 ? rc : 0;
}

int smcr_hs_open(smcr_ctx *ctx, smcr_role role, const smcr_tcp_info *tcp, void *conn_user, uint64_t now,
                 smcr_conn **out)
{
	if (!ctx || !tcp || !out)
		return SMCR_ERR_INVAL;
	smcr_ctx_enter(ctx, now);
	smcr_conn *conn = smcr_conn_new(ctx, role, tcp, conn_user);
	if (!conn) {
		smcr_ctx_leave(ctx);
		return SMCR_ERR_NOMEM;
	}
	*out = conn;
	smcr_ctx_role(ctx, role)->start(conn);
	smcr_ctx_leave(ctx);
	return 0;
}

/* smc_clc_send_decline() */
static int send_decline(smcr_conn *conn, uint32_t reason, uint8_t version)
{
	smcr_ctx *ctx = conn->ctx;
	smcr_clc_decline d;
	memset(&d, 0, sizeof(d));
	d.version = version == 2 ? 2 : 1;
	d.out_of_sync = reason == SMCR_DECL_SYNCERR;
	if (ctx->system_id_valid)
		memcpy(d.peer_id, ctx->system_id, 8);
	d.diagnosis = reason;
	d.os_type = d.version == 1 ? 0 : ctx->set.os_type;
	uint8_t buf[64];
	ssize_t n = smcr_clc_encode_decline(buf, sizeof(buf), &d);
	if (n < 0)
		return (int)n;
	return smcr_clc_send(conn, buf, (size_t)n);
}

static void hs_finish_common(smcr_conn *conn)
{
	conn->hs = SMCR_HS_DONE;
	smcr_timer_cancel(conn->ctx, &conn->clc_timer);
	smcr_hs_lock_release(conn);
	if (conn->lgr)
		smcr_llc_remove_waiters_conn(conn->lgr, conn->id);
}

/* The handshake is over: its scratch and its view of the TCP connection go. */
static void drop_ini(smcr_conn *conn)
{
	smcr_free(conn->ctx, conn->ini);
	conn->ini = NULL;
	smcr_free(conn->ctx, conn->tcp);
	conn->tcp = NULL;
}

/* smc_switch_to_fallback() + finishing in state connected */
void smcr_hs_fallback(smcr_conn *conn, uint32_t reason)
{
	smcr_ctx *ctx = conn->ctx;
	hs_finish_common(conn);
	drop_ini(conn);
	conn->mode = SMCR_MODE_FALLBACK;
	conn->fallback_rsn = reason;
	smcr_stat_fallback(ctx, conn->role, reason);
	smcr_conn_set_state(conn, SMCR_ACTIVE);
	uint8_t *rest = conn->clc_buf;
	size_t rest_len = conn->clc_len;
	conn->clc_buf = NULL;
	conn->clc_len = conn->clc_cap = 0;
	if (ctx->cb.fallback && !ctx->freeing)
		ctx->cb.fallback(ctx->user, conn, reason, conn->peer_diagnosis, rest, rest_len);
	smcr_free(ctx, rest);
	smcr_conn_maybe_reap(conn);
}

void smcr_hs_decline_fallback(smcr_conn *conn, uint32_t reason, uint8_t version)
{
	if (reason != SMCR_DECL_PEERDECL && send_decline(conn, reason, version)) {
		smcr_hs_error(conn, SMCR_ERR_CLOSED);
		return;
	}
	smcr_hs_fallback(conn, reason);
}

/* The connection fails without fallback (Linux: negative reason code, sk_err set). */
void smcr_hs_error(smcr_conn *conn, int err)
{
	smcr_ctx *ctx = conn->ctx;
	hs_finish_common(conn);
	bool local_first = conn->ini && conn->ini->first_contact_local;
	smcr_hs_abort_conn_setup(conn, local_first);
	drop_ini(conn);
	if (conn->role == SMCR_ROLE_SERVER)
		ctx->stats.srv_hshake_err++;
	else
		ctx->stats.clnt_hshake_err++;
	conn->sk_err = err;
	smcr_conn_set_state(conn, SMCR_CLOSED);
	if (ctx->cb.aborted && !ctx->freeing)
		ctx->cb.aborted(ctx->user, conn, err);
	smcr_conn_tcp(conn, SMCR_TCP_CLOSE);
	smcr_conn_maybe_reap(conn);
}

void smcr_hs_established(smcr_conn *conn)
{
	smcr_ctx *ctx = conn->ctx;
	uint8_t v = conn->version;
	if (conn->killed) {
		/* The lgr ended while the handshake finished (its link failed while the client
		 * waited for ADD_LINK, say). Linux completes connect() on the killed connection
		 * and only later calls fail; the connection ends with the error right away here,
		 * the peer having seen the end of the lgr as well. */
		smcr_hs_error(conn, SMCR_ERR_CLOSED);
		return;
	}
	hs_finish_common(conn);
	drop_ini(conn);
	conn->mode = SMCR_MODE_SMCR;
	smcr_free(ctx, conn->clc_buf);
	conn->clc_buf = NULL;
	conn->clc_len = conn->clc_cap = 0;
	if (conn->role == SMCR_ROLE_SERVER) {
		if (v == 2)
			ctx->stats.srv_v2_succ++;
		else
			ctx->stats.srv_v1_succ++;
	} else {
		if (v == 2)
			ctx->stats.clnt_v2_succ++;
		else
			ctx->stats.clnt_v1_succ++;
	}
	if (conn->state == SMCR_INIT)
		smcr_conn_set_state(conn, SMCR_ACTIVE);
	conn->established_reported = true;
	if (ctx->cb.established && !ctx->freeing)
		ctx->cb.established(ctx->user, conn);
	/* data or close flags may have arrived while the handshake was finishing */
	if (conn->bytes_to_rcv)
		smcr_conn_wake(conn, true, false);
	if (conn->local_rx_ctrl.conn_flags && !conn->host_closed)
		smcr_close_passive(conn);
}

/* smc_conn_abort(): leave the lgr; a failed first contact ends the new lgr too. */
void smcr_hs_abort_conn_setup(smcr_conn *conn, bool local_first)
{
	smcr_lgr *lgr = conn->lgr;
	smcr_conn_free_lgr(conn);
	if (local_first && lgr && !lgr->dead)
		smcr_lgr_cleanup_early(lgr);
}

void smcr_hs_wait_clc(smcr_conn *conn, smcr_hs_state st, uint64_t timeout)
{
	conn->hs = st;
	smcr_timer_arm(conn->ctx, &conn->clc_timer, conn->ctx->now + timeout);
	clc_process(conn); /* bytes may be waiting already */
	if (conn->hs == st && conn->tcp_eof)
		smcr_hs_error(conn, SMCR_ERR_CLOSED); /* and nothing more will come */
}

/* Which message each state reads (0: none: CLC bytes wait in the buffer). */
static uint8_t expected_type(smcr_hs_state st)
{
	switch (st) {
	case SMCR_HS_CLNT_WAIT_ACCEPT:
		return SMCR_CLC_ACCEPT;
	case SMCR_HS_SRV_WAIT_PROPOSAL:
		return SMCR_CLC_PROPOSAL;
	case SMCR_HS_SRV_WAIT_CONFIRM:
		return SMCR_CLC_CONFIRM;
	case SMCR_HS_CLNT_WAIT_DECLINE:
	case SMCR_HS_SRV_WAIT_DECLINE:
		return SMCR_CLC_DECLINE;
	case SMCR_HS_DONE:
	case SMCR_HS_CLNT_WAIT_LOCK:
	case SMCR_HS_CLNT_WAIT_RKEY:
	case SMCR_HS_CLNT_WAIT_LINK:
	case SMCR_HS_SRV_WAIT_LOCK:
	case SMCR_HS_SRV_WAIT_RKEY:
	case SMCR_HS_SRV_WAIT_LINK:
		return 0;
	}
	return 0;
}

static void decode_error(smcr_conn *conn, const smcr_decode_err *err)
{
	smcr_ctx *ctx = conn->ctx;
	ctx->stats.decode_errors++;
	smcr_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = SMCR_EV_DECODE_ERROR;
	ev.conn_id = conn->id;
	ev.lgr_id = conn->lgr ? conn->lgr->id : 0;
	ev.decode_err = err;
	ev.text = "CLC";
	smcr_emit(ctx, &ev);
}

static void peer_declined(smcr_conn *conn, const uint8_t *msg, size_t len)
{
	smcr_clc_decline d;
	smcr_decode_err err;
	memset(&err, 0, sizeof(err));
	if (smcr_clc_decode_decline(&d, msg, len, &err)) {
		decode_error(conn, &err);
		smcr_hs_error(conn, SMCR_ERR_PROTO);
		return;
	}
	conn->peer_diagnosis = d.diagnosis;
	if (d.out_of_sync && conn->lgr) {
		/* the peer does not know the lgr we used: it is out of sync, end it */
		smcr_lgr *lgr = conn->lgr;
		lgr->sync_err = true;
		smcr_lgr_terminate(lgr, 0, "the peer declined: link group out of sync");
	}
	bool wait_decline = conn->hs == SMCR_HS_CLNT_WAIT_DECLINE || conn->hs == SMCR_HS_SRV_WAIT_DECLINE;
	(void)wait_decline;
	bool local_first = conn->ini && conn->ini->first_contact_local;
	smcr_hs_abort_conn_setup(conn, local_first);
	smcr_hs_fallback(conn, SMCR_DECL_PEERDECL);
}

/* The version a Decline carries: the server answers in the Proposal's version, the client
 * in the Accept's (v1 before it). */
static uint8_t decline_version(const smcr_conn *conn)
{
	if (conn->role == SMCR_ROLE_SERVER)
		return conn->ini && conn->ini->prop.version > 1 ? 2 : 1;
	return conn->version ? conn->version : 1;
}

static void decline_wait_expired(smcr_conn *conn)
{
	/* no Decline within 1 s after an LLC timeout */
	smcr_hs_ini *ini = conn->ini;
	uint32_t pending = ini ? ini->decl_rc : SMCR_HS_RC_DECLINE_WAIT_FAIL;
	if (pending == SMCR_HS_RC_DECLINE_WAIT_OK) {
		smcr_hs_established(conn);
		return;
	}
	bool local_first = ini && ini->first_contact_local;
	smcr_hs_abort_conn_setup(conn, local_first);
	smcr_hs_decline_fallback(conn, SMCR_DECL_TIMEOUT_CL, decline_version(conn));
}

void smcr_hs_on_clc_timer(smcr_conn *conn)
{
	smcr_hs_state st = conn->hs;
	if (st == SMCR_HS_CLNT_WAIT_DECLINE || st == SMCR_HS_SRV_WAIT_DECLINE)
		decline_wait_expired(conn);
	else if (st == SMCR_HS_CLNT_WAIT_ACCEPT || st == SMCR_HS_SRV_WAIT_PROPOSAL ||
	         st == SMCR_HS_SRV_WAIT_CONFIRM)
		smcr_hs_error(conn, SMCR_ERR_AGAIN); /* smc_clc_wait_msg() timed out: -EAGAIN */
}

static void clc_process(smcr_conn *conn)
{
	uint64_t id = conn->id;
	smcr_ctx *ctx = conn->ctx;
	while (conn->mode == SMCR_MODE_HANDSHAKE && !conn->dead) {
		uint8_t exp = expected_type(conn->hs);
		if (!exp || conn->clc_len < SMCR_CLC_HDR_LEN)
			return;
		smcr_clc_hdr hdr;
		smcr_decode_err err;
		memset(&err, 0, sizeof(err));
		int rc = smcr_clc_peek(conn->clc_buf, conn->clc_len, &hdr, &err);
		if (rc == SMCR_ERR_SHORT)
			return;
		if (rc < 0 || (hdr.type != SMCR_CLC_DECLINE && hdr.type != exp)) {
			if (rc < 0)
				decode_error(conn, &err);
			smcr_hs_error(conn, SMCR_ERR_PROTO);
			return;
		}
		if (conn->clc_len < hdr.length)
			return;
		/* take the message out of the stream buffer before acting on it */
		uint8_t *msg = smcr_alloc(ctx, hdr.length);
		if (!msg)
			return;
		memcpy(msg, conn->clc_buf, hdr.length);
		conn->clc_len -= hdr.length;
		memmove(conn->clc_buf, conn->clc_buf + hdr.length, conn->clc_len);
		smcr_timer_cancel(ctx, &conn->clc_timer);
		smcr_trace_clc(conn, false, msg, hdr.length);
		if (hdr.type == SMCR_CLC_DECLINE) {
			peer_declined(conn, msg, hdr.length);
		} else {
			smcr_ctx_role(ctx, conn->role)->on_msg(conn, msg, hdr.length, &hdr);
		}
		smcr_free(ctx, msg);
		if (smcr_ctx_find_conn(ctx, id) != conn)
			return;
	}
}

/* How many of `len` new stream bytes belong to the CLC message being read. Linux reads
 * the messages one by one (the header peeked, then exactly its length; smc_clc_wait_msg)
 * and only when it waits for one: what follows a message not yet acted on stays in the
 * TCP stream (the application's data after a Decline that arrives while the server still
 * confirms the first link). A header that is not CLC takes everything: processing fails
 * on it. */
static size_t clc_take(const smcr_conn *conn, const uint8_t *buf, size_t len)
{
	uint8_t h[SMCR_CLC_HDR_LEN];
	size_t have = conn->clc_len < SMCR_CLC_HDR_LEN ? conn->clc_len : SMCR_CLC_HDR_LEN;
	memcpy(h, conn->clc_buf ? conn->clc_buf : h, have);
	if (have < SMCR_CLC_HDR_LEN) {
		size_t more = SMCR_CLC_HDR_LEN - have;
		if (len < more)
			return len;
		memcpy(h + have, buf, more);
	}
	smcr_clc_hdr hdr;
	if (smcr_clc_peek(h, sizeof(h), &hdr, NULL) < 0)
		return len;
	if (conn->clc_len >= hdr.length)
		return 0; /* a whole message waits to be acted on */
	size_t need = hdr.length - conn->clc_len;
	return len < need ? len : need;
}

ssize_t smcr_conn_clc_input(smcr_conn *conn, const uint8_t *buf, size_t len, uint64_t now)
{
	if (!conn || (!buf && len))
		return SMCR_ERR_INVAL;
	if (conn->mode == SMCR_MODE_FALLBACK)
		return 0;
	if (conn->mode == SMCR_MODE_SMCR || conn->hs == SMCR_HS_DONE)
		return (ssize_t)len; /* the TCP connection is idle under SMC-R: ignore */
	smcr_ctx *ctx = conn->ctx;
	size_t take = clc_take(conn, buf, len);
	if (!take)
		return 0;
	smcr_ctx_enter(ctx, now);
	if (conn->clc_len + take > CLC_INPUT_MAX)
		take = CLC_INPUT_MAX - conn->clc_len;
	if (conn->clc_len + take > conn->clc_cap) {
		size_t cap = conn->clc_cap ? conn->clc_cap : 256;
		while (cap < conn->clc_len + take)
			cap *= 2;
		uint8_t *nb = smcr_alloc(ctx, cap);
		if (!nb) {
			smcr_ctx_leave(ctx);
			return 0;
		}
		if (conn->clc_len)
			memcpy(nb, conn->clc_buf, conn->clc_len);
		smcr_free(ctx, conn->clc_buf);
		conn->clc_buf = nb;
		conn->clc_cap = cap;
	}
	memcpy(conn->clc_buf + conn->clc_len, buf, take);
	conn->clc_len += take;
	clc_process(conn);
	smcr_ctx_leave(ctx);
	return (ssize_t)take;
}

int smcr_conn_tcp_closed(smcr_conn *conn, bool reset, uint64_t now)
{
	(void)reset;
	if (!conn)
		return SMCR_ERR_INVAL;
	if (conn->mode != SMCR_MODE_HANDSHAKE || conn->hs == SMCR_HS_DONE)
		return 0; /* SMC-R does not watch the idle TCP connection */
	if (!reset && !expected_type(conn->hs)) {
		/* Linux reads the CLC socket only while it waits for a CLC message: a peer that
		 * sent its data and shut down (the server still confirming the first link) is
		 * no error; a later CLC wait finds the end of the stream */
		conn->tcp_eof = true;
		return 0;
	}
	smcr_ctx_enter(conn->ctx, now);
	/* a CLC wait sees EOF or a reset: -ECONNRESET */
	smcr_hs_error(conn, SMCR_ERR_CLOSED);
	smcr_ctx_leave(conn->ctx);
	return 0;
}

/* Handshake serialisation --------------------------------------------------------------- */

bool smcr_hs_lock_acquire(smcr_conn *conn)
{
	smcr_ctx *ctx = conn->ctx;
	bool srv = conn->role == SMCR_ROLE_SERVER;
	uint64_t *owner = srv ? &ctx->srv_lock_owner : &ctx->clnt_lock_owner;
	if (!*owner || *owner == conn->id) {
		*owner = conn->id;
		return true;
	}
	smcr_list_add_tail(srv ? &ctx->srv_lock_waiters : &ctx->clnt_lock_waiters, &conn->lock_node);
	return false;
}

void smcr_hs_lock_release(smcr_conn *conn)
{
	smcr_ctx *ctx = conn->ctx;
	bool srv = conn->role == SMCR_ROLE_SERVER;
	uint64_t *owner = srv ? &ctx->srv_lock_owner : &ctx->clnt_lock_owner;
	smcr_list *waiters = srv ? &ctx->srv_lock_waiters : &ctx->clnt_lock_waiters;
	smcr_list_del(&conn->lock_node);
	smcr_list_init(&conn->lock_node);
	if (*owner != conn->id)
		return;
	*owner = 0;
	if (smcr_list_empty(waiters) || ctx->freeing)
		return;
	smcr_conn *next = SMCR_CONTAINER_OF(waiters->next, smcr_conn, lock_node);
	smcr_list_del(&next->lock_node);
	smcr_list_init(&next->lock_node);
	*owner = next->id;
	smcr_ctx_role(ctx, next->role)->lock_granted(next);
}

/* Accept/Confirm contents (smc_clc_send_confirm_accept) ---------------------------------- */

int smcr_hs_fill_accept(smcr_conn *conn, smcr_clc_accept *m, smcr_clc_type type, bool first_contact)
{
	smcr_ctx *ctx = conn->ctx;
	smcr_link *lnk = conn->lnk;
	smcr_hs_ini *ini = conn->ini;
	if (!lnk || !conn->rmb || !ini)
		return SMCR_ERR_STATE;
	memset(m, 0, sizeof(*m));
	m->type = type;
	m->version = conn->version;
	m->first_contact = first_contact;
	memcpy(m->peer_id, ctx->system_id, 8);
	memcpy(m->gid, lnk->gid, 16);
	memcpy(m->mac, lnk->mac, 6);
	m->qpn = lnk->qpn;
	m->rkey = conn->rmb->mr[lnk->idx].info.rkey;
	m->rmbe_idx = 1; /* for now: 1 RMB = 1 RMBE */
	m->rmbe_alert_token = conn->alert_token_local;
	uint8_t mtu = (uint8_t)lnk->path_mtu;
	if (type == SMCR_CLC_CONFIRM && lnk->peer_mtu && lnk->peer_mtu < mtu)
		mtu = lnk->peer_mtu;
	m->qp_mtu = mtu;
	m->rmbe_size = conn->rmbe_size_code;
	m->rmb_vaddr = conn->rmb->mr[lnk->idx].info.iova;
	m->psn = lnk->psn_initial;
	if (conn->version == 2) {
		memcpy(m->eid, ini->negotiated_eid, SMCR_EID_LEN);
		if (first_contact) {
			/* smc_clc_fill_fce_v2x() */
			m->fce.v2_direct = !conn->lgr->uses_gateway;
			m->fce.os_type = ctx->set.os_type;
			m->fce.release = ini->release;
			memcpy(m->fce.hostname, ctx->set.hostname, SMCR_HOSTNAME_LEN);
			if (ini->release >= 1) {
				m->fce.max_conns = ini->max_conns;
				m->fce.max_links = ini->max_links;
				m->fce.feature_mask = ini->feature_mask;
			}
			if (type == SMCR_CLC_CONFIRM) {
				m->n_gids = ini->n_gids;
				for (uint8_t i = 0; i < ini->n_gids && i < 2; i++)
					memcpy(m->gids[i], ini->gids[i], 16);
			}
		}
	}
	return 0;
}

/* smc_conn_save_peer_info(): where our data goes in the peer's RMB, and its alert token */
void smcr_hs_save_peer_info(smcr_conn *conn, const smcr_clc_accept *m)
{
	conn->peer_rmbe_idx = m->rmbe_idx;
	conn->local_tx_ctrl.token = m->rmbe_alert_token;
	conn->peer_rmbe_size = smcr_rmbe_size_bytes(m->rmbe_size);
	conn->peer_rmbe_space = conn->peer_rmbe_size;
	conn->tx_off = conn->peer_rmbe_size * (uint32_t)(m->rmbe_idx ? m->rmbe_idx - 1 : 0);
}

/* smc_rmb_rtoken_handling() */
int smcr_hs_rtoken_handling(smcr_conn *conn, smcr_link *lnk, const smcr_clc_accept *m)
{
	int idx = smcr_rtoken_add(conn->lgr, lnk->idx, m->rmb_vaddr, m->rkey);
	if (idx < 0)
		return (int)SMCR_DECL_ERR_RTOK;
	conn->rtoken_idx = idx;
	return 0;
}

/* What both roles do alike ------------------------------------------------------------- */

void smcr_hs_decline(smcr_conn *conn, uint32_t rc)
{
	bool local_first = conn->ini && conn->ini->first_contact_local;
	smcr_hs_abort_conn_setup(conn, local_first);
	smcr_hs_decline_fallback(conn, rc, smcr_ctx_role(conn->ctx, conn->role)->decline_version(conn));
}

/* The RMB's rkeys on a reused lgr are confirmed (or not): the handshake goes on. */
void smcr_hs_rkey_done(smcr_conn *conn, int rc)
{
	const smcr_hs_role *r = smcr_ctx_role(conn->ctx, conn->role);
	if (conn->hs != r->wait_rkey)
		return;
	if (rc || conn->killed) {
		smcr_hs_decline(conn, SMCR_DECL_ERR_REGBUF);
		return;
	}
	r->rkeys_confirmed(conn);
}

/* A new lgr's first link is confirmed over the fabric (or not): established, or wait for
 * the peer's Decline, or decline. */
void smcr_hs_first_link_done(smcr_conn *conn, uint32_t rc)
{
	const smcr_hs_role *r = smcr_ctx_role(conn->ctx, conn->role);
	if (conn->hs != r->wait_link)
		return;
	if (rc == 0) {
		smcr_hs_established(conn);
		return;
	}
	if (rc == SMCR_HS_RC_DECLINE_WAIT_FAIL || rc == SMCR_HS_RC_DECLINE_WAIT_OK) {
		conn->ini->decl_rc = rc;
		smcr_hs_wait_clc(conn, r->wait_decline, SMCR_CLC_WAIT_TIME_SHORT);
		return;
	}
	smcr_hs_decline(conn, rc);
}
