/* Failover (Linux smc_core.c smc_switch_conns/smc_switch_cursor, smc_cdc.c
 * smcr_cdc_msg_send_validation).
 *
 * When a link fails and another active link of the group remains, every connection on the
 * failed link moves over. Active connections rewind their send side to the last CDC whose
 * send had completed (what the peer surely knows), skip what the peer has already
 * consumed, send a CDC with failover validation (sequence number of the last completed CDC)
 * and resend the rest by RDMA WRITE on the new link; rewritten bytes land at the same RMBE
 * offsets with the same content, so nothing is lost or duplicated. Without another link
 * the lgr is terminated and its connections are aborted.
 *
 * Unlike Linux, a connection that is closing gets the same treatment when CDCs of it were
 * in flight on the failed link (docs/deviations.md): its last data, its close flags and its
 * consumer cursor may have been lost with them. */
#include "model/failover_int.h"

#include <string.h>

#include "model/cdc.h"
#include "model/conn_int.h"
#include "model/ctx_int.h"
#include "model/lgr_int.h"
#include "model/link_int.h"
#include "model/list_int.h"
#include "model/llc_flow_int.h"
#include "model/llc_link_int.h"
#include "model/smcr.h"
#include "model/tx_int.h"
#include "model/wr_int.h"

static void switch_link(smcr_conn *conn, smcr_link *to)
{
	if (conn->lnk == to)
		return;
	smcr_wr_unwait(conn);
	if (conn->lnk && conn->lnk->conn_cnt)
		conn->lnk->conn_cnt--;
	conn->lnk = to;
	to->conn_cnt++;
}

/* smcr_cdc_msg_send_validation() */
static int send_validation(smcr_conn *conn, smcr_link *lnk, smcr_send_slot *s)
{
	s->kind = SMCR_SLOT_CDC;
	s->conn_id = conn->id;
	s->cursor = conn->tx_curs_sent;
	s->p_cursor = conn->local_tx_ctrl.prod;
	s->c_cursor = conn->rx_curs_confirmed_fin; /* announces no consumer cursor */
	s->ctrl_seq = conn->tx_cdc_seq;
	smcr_cdc_msg m;
	memset(&m, 0, sizeof(m));
	m.seqno = conn->tx_cdc_seq_fin; /* sequence number of the last completed CDC */
	m.token = conn->local_tx_ctrl.token;
	m.prod_flags = SMCR_CDC_FAILOVER_VALIDATION;
	smcr_cdc_encode(s->buf, &m);
	conn->cdc_pend_tx_wr++;
	int rc = smcr_wr_send_slot(lnk, s, SMCR_CDC_LEN);
	if (rc)
		conn->cdc_pend_tx_wr--;
	else
		lnk->cdc_out++;
	return rc;
}

/* Nothing left to prepare and the close flags were set: the CDC that carried them may
 * be lost with the failed link, and no data CDC will repeat them. */
static bool close_flags_unsent(const smcr_conn *conn)
{
	return (conn->local_tx_ctrl.conn_flags & SMCR_CDC_CLOSE_FLAGS) && !smcr_tx_prepared_sends(conn);
}

/* smc_switch_cursor() */
static int switch_cursor(smcr_conn *conn, smcr_send_slot *s)
{
	smcr_link *lnk = conn->lnk;
	conn->tx_curs_sent = conn->tx_curs_fin;
	smcr_cursor fin = conn->local_tx_ctrl_fin;
	conn->local_tx_ctrl.prod = fin; /* rewind: the next RDMA writes (tx.c) resend from here */
	smcr_cursor cons = conn->local_rx_ctrl.cons;
	if (smcr_curs_comp(conn->peer_rmbe_size, &cons, &fin) > 0) {
		/* the peer consumed beyond what we know was confirmed: skip that part */
		uint32_t diff = smcr_curs_diff(conn->peer_rmbe_size, &fin, &cons);
		smcr_curs_add(&conn->tx_curs_sent, conn->sndbuf->len, diff);
		smcr_curs_add(&conn->tx_curs_fin, conn->sndbuf->len, diff);
		conn->sndbuf_space += diff;
		smcr_curs_add(&conn->local_tx_ctrl.prod, conn->peer_rmbe_size, diff);
		smcr_curs_add(&conn->local_tx_ctrl_fin, conn->peer_rmbe_size, diff);
	}
	/* smc_write_space() */
	conn->peer_rmbe_space = conn->peer_rmbe_size -
	                        smcr_curs_diff(conn->peer_rmbe_size, &cons, &conn->local_tx_ctrl.prod);
	/* Deviation (docs/deviations.md): the close flags go out again only with the last of
	 * the rewound data, never ahead of it (the peer would take end of stream too early). */
	conn->close_flags_held = smcr_tx_prepared_sends(conn) != 0;
	if (conn->state == SMCR_INIT) {
		smcr_wr_put_slot(lnk, s);
		return 0;
	}
	int rc = send_validation(conn, lnk, s);
	if (!rc) {
		uint16_t seq = conn->tx_cdc_seq;
		conn->tx_pending = false;
		smcr_tx_sndbuf_nonempty(conn);
		/* Deviation (docs/deviations.md): a CDC with the close flags flushed with the
		 * failed link is sent again; Linux leaves closing connections as they are. */
		if (seq == conn->tx_cdc_seq && close_flags_unsent(conn) && !conn->killed)
			smcr_cdc_get_slot_and_msg_send(conn);
		/* Deviation from Linux (docs/deviations.md): a consumer-cursor update posted on
		 * the failed link may never have arrived, yet Linux advanced rx_curs_confirmed
		 * when it was posted (smc_cdc_msg_send) and, since the tx_pushing rework,
		 * smc_tx_sndbuf_nonempty() no longer sends an empty CDC that would repeat it. A
		 * peer that filled our RMB would then wait for ever. Fall back to what a
		 * completed CDC surely told the peer and let the usual policy re-announce it. */
		conn->rx_curs_confirmed = conn->rx_curs_confirmed_fin;
		smcr_tx_consumer_update(conn, false);
		smcr_conn_wake(conn, true, false);
	}
	return rc;
}

static bool just_switch(smcr_conn_state st)
{
	switch (st) {
	case SMCR_CLOSED:
	case SMCR_PEERCLOSEWAIT1:
	case SMCR_PEERCLOSEWAIT2:
	case SMCR_APPFINCLOSEWAIT:
	case SMCR_APPCLOSEWAIT1:
	case SMCR_APPCLOSEWAIT2:
	case SMCR_PEERFINCLOSEWAIT:
	case SMCR_PEERABORTWAIT:
	case SMCR_PROCESSABORT:
		return true;
	case SMCR_ACTIVE:
	case SMCR_INIT:
	case SMCR_LISTEN:
		return false;
	}
	return false;
}

/* CDCs in flight on the failed link will not complete for us; true if there were any. */
static bool dismiss_on_link(smcr_conn *conn, smcr_link *from)
{
	if (from->slots)
		for (uint32_t j = 0; j <= from->n_slots; j++)
			if (from->slots[j].busy && from->slots[j].conn_id == conn->id)
				from->slots[j].conn_id = 0;
	bool in_flight = conn->cdc_pend_tx_wr != 0;
	conn->cdc_pend_tx_wr = 0;
	return in_flight;
}

smcr_link *smcr_switch_conns(smcr_lgr *lgr, smcr_link *from, bool is_dev_err)
{
	smcr_ctx *ctx = lgr->ctx;
	smcr_link *to = NULL;
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++) {
		smcr_link *l = lgr->lnk[i];
		if (!smcr_link_active(l) || l == from)
			continue;
		if (is_dev_err && l->port_index == from->port_index)
			continue;
		to = l;
		break;
	}
	if (!to) {
		smcr_lgr_terminate(lgr, 0, "no usable link left");
		return NULL;
	}
	uint64_t to_id = to->id;
	smcr_list *pos, *tmp;
	smcr_list_for_each_safe(pos, tmp, &lgr->conns) {
		smcr_conn *c = SMCR_CONTAINER_OF(pos, smcr_conn, lgr_node);
		if (c->lnk != from || c->mode != SMCR_MODE_SMCR)
			continue; /* handshake connections have no link yet in Linux's view */
		bool in_flight = dismiss_on_link(c, from);
		bool unconfirmed = in_flight || c->tx_curs_sent.wrap != c->tx_curs_fin.wrap ||
		                   c->tx_curs_sent.count != c->tx_curs_fin.count;
		if (just_switch(c->state) && !unconfirmed) {
			switch_link(c, to);
			smcr_conn_free_deferred_done(c);
			continue;
		}
		ctx->stats.failovers++;
		switch_link(c, to);
		smcr_send_slot *s = smcr_wr_get_slot(to);
		if (!s) {
			c->failover_pending = true;
			smcr_wr_wait_slot(to, c);
			continue;
		}
		if (switch_cursor(c, s)) {
			smcr_link *t = smcr_ctx_find_link(ctx, to_id);
			if (t)
				smcr_link_down(t, SMCR_LINKDOWN_WC_ERROR);
			return NULL;
		}
		if (smcr_ctx_find_link(ctx, to_id) != to)
			return NULL;
		smcr_conn_free_deferred_done(c);
	}
	return to;
}

void smcr_failover_slot_available(smcr_conn *conn)
{
	smcr_link *lnk = conn->lnk;
	if (!smcr_link_sendable(lnk)) {
		conn->failover_pending = false;
		smcr_conn_free_deferred_done(conn);
		return;
	}
	smcr_send_slot *s = smcr_wr_get_slot(lnk);
	if (!s) {
		smcr_wr_wait_slot(lnk, conn);
		return;
	}
	conn->failover_pending = false;
	if (switch_cursor(conn, s))
		smcr_link_down(lnk, SMCR_LINKDOWN_WC_ERROR);
	else
		smcr_conn_free_deferred_done(conn);
}

/* A link is cleared while connections still use it (a DELETE_LINK for a link whose failure
 * is being handled, say): they move like on a link failure instead of being left without a
 * link, as long as the lgr has another active link. */
void smcr_failover_orphans(smcr_link *lnk)
{
	smcr_lgr *lgr = lnk->lgr;
	if (!lgr || !lgr->listed || lgr->terminating)
		return;
	bool other = false;
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++)
		if (lgr->lnk[i] != lnk && smcr_link_active(lgr->lnk[i]))
			other = true;
	if (!other)
		return;
	smcr_list *pos;
	smcr_list_for_each(pos, &lgr->conns) {
		smcr_conn *c = SMCR_CONTAINER_OF(pos, smcr_conn, lgr_node);
		if (c->lnk == lnk && c->mode == SMCR_MODE_SMCR) {
			smcr_switch_conns(lgr, lnk, false);
			return;
		}
	}
}

/* smcr_link_down()'s consequences once the link is down (link.c): the connections move to
 * another link (or the lgr ends), a flow waiting on the link learns of it, and the peer is
 * told with a DELETE_LINK (the server at once; the client when no other LLC flow runs, or
 * after waiting up to 2 s for it). */
void smcr_failover_link_down(smcr_link *lnk, smcr_linkdown_reason why, bool was_active)
{
	smcr_ctx *ctx = lnk->ctx;
	smcr_lgr *lgr = lnk->lgr;
	if (!lgr->listed || lgr->terminating) {
		smcr_llc_link_unusable(lnk);
		return; /* the lgr is ending: its cleanup clears the link */
	}
	smcr_link_qp_reset(lnk);
	/* A link still being set up carries no connections: any other active link, even on
	 * the same device, keeps the lgr (Linux's smc_link_downing() ignores such a link).
	 * Only a port error rules out the other links of the port (they go down with it).
	 * Deviation (docs/deviations.md): Linux's smcr_link_down() passes is_dev_err for any
	 * cause, so a link whose peer became unreachable (retries exceeded) also ends an lgr
	 * whose other link starts at the same port, an asymmetric one, while that link works.
	 * The connections move before an LLC flow waiting on the link learns of its end (in
	 * Linux the flow runs in another worker once smcr_link_down() is done): the flow
	 * could go on with a DELETE_LINK it held back, which clears the link. */
	uint64_t id = lnk->id;
	smcr_link *to = smcr_switch_conns(lgr, lnk, was_active && why == SMCR_LINKDOWN_PORT_ERROR);
	uint64_t to_id = to ? to->id : 0;
	if (smcr_ctx_find_link(ctx, id) == lnk)
		smcr_llc_link_unusable(lnk);
	if (!to) {
		/* no other link: smc_switch_conns() terminated the lgr */
		smcr_link_clear(lnk, true);
		return;
	}
	if (smcr_ctx_find_link(ctx, to_id) != to || smcr_ctx_find_link(ctx, id) != lnk ||
	    !lgr->listed || lgr->terminating)
		return; /* the woken flow deleted the link already, or more */
	smcr_lgr_set_type(lgr, SMCR_LGR_SINGLE);
	uint8_t del_link_id = lnk->link_id;
	if (lgr->role == SMCR_ROLE_SERVER) {
		smcr_llc_srv_delete_link_local(to, del_link_id);
		return;
	}
	if (lgr->lcl.type != SMCR_FLOW_NONE) {
		/* another LLC flow is running: wait up to 2 s for it */
		smcr_llc_add_waiter(lgr, SMCR_FW_CLNT_LINKDOWN, SMCR_LLC_WAIT_TIME, 0, NULL, lnk->id, to->id);
		return;
	}
	smcr_llc_clnt_linkdown_send(lgr, lnk->id, to->id);
}
