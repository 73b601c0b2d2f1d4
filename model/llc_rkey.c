/* RMB rkeys at the peer (Linux smc_llc.c CONFIRM_RKEY/DELETE_RKEY, smcr_lgr_reg_rmbs and
 * smcr_buf_unuse).
 *
 * A connection that joins an existing link group registers its RMB on every active link
 * and tells the peer all of its rkeys in one CONFIRM_RKEY (the first entry is the rkey on
 * the link the message travels on, up to two more for the other links). When a connection
 * ends its RMB stays with the lgr; DELETE_RKEY withdraws it at the peer before reuse. Both
 * requests are answered at any time, from the remote flow. */
#include "model/llc_rkey_int.h"

#include <string.h>

#include "model/buf_int.h"
#include "model/conn_int.h"
#include "model/ctx_int.h"
#include "model/handshake_int.h"
#include "model/lgr_int.h"
#include "model/link_int.h"
#include "model/llc.h"
#include "model/llc_flow_int.h"
#include "model/smcr.h"
#include "model/smcr_err.h"

/* The steps of each procedure: what it waits for (see llc_link.c). */
typedef enum rkey_step {
	RKEY_START = 0, /* register the RMB on every link, CONFIRM_RKEY */
	RKEY_WAIT_CONFIRM_RKEY_RESPONSE,
} rkey_step;

typedef enum del_rkey_step {
	DEL_RKEY_START = 0, /* DELETE_RKEY for the RMB */
	DEL_RKEY_WAIT_DELETE_RKEY_RESPONSE,
} del_rkey_step;

static void rkey_done(smcr_lgr *lgr, int rc)
{
	uint64_t conn_id = lgr->lcl.conn_id;
	smcr_ctx *ctx = lgr->ctx;
	smcr_llc_flow_stop(lgr);
	smcr_conn *c = smcr_ctx_find_conn(ctx, conn_id);
	if (!c)
		return;
	smcr_ctx_role(ctx, c->role)->rkey_done(c, rc);
}

static int send_confirm_rkey(smcr_lgr *lgr, smcr_link *send_link, smcr_buf *rmb)
{
	smcr_llc_msg m;
	smcr_llc_init_msg(lgr, &m, SMCR_LLC_CONFIRM_RKEY);
	uint8_t n = 0;
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++) {
		smcr_link *l = lgr->lnk[i];
		if (!smcr_link_active(l) || l == send_link || n >= 3)
			continue;
		m.u.confirm_rkey.other[n].link_id = l->link_id;
		m.u.confirm_rkey.other[n].rkey = rmb->mr[l->idx].info.rkey;
		m.u.confirm_rkey.other[n].vaddr = rmb->mr[l->idx].info.iova;
		n++;
	}
	m.u.confirm_rkey.n_other = n;
	m.u.confirm_rkey.rkey = rmb->mr[send_link->idx].info.rkey;
	m.u.confirm_rkey.vaddr = rmb->mr[send_link->idx].info.iova;
	return smcr_llc_send(send_link, &m);
}

void smcr_llc_proc_rkey(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_llc_flow *f = &lgr->lcl;
	smcr_conn *c = smcr_ctx_find_conn(lgr->ctx, f->conn_id);
	switch ((rkey_step)f->step) {
	case RKEY_START: {
		smcr_link *send_link = c ? c->lnk : NULL;
		if (!c || !c->rmb || !smcr_link_usable(send_link)) {
			rkey_done(lgr, SMCR_ERR_STATE);
			return;
		}
		for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++) {
			smcr_link *l = lgr->lnk[i];
			if (smcr_link_active(l) && smcr_buf_map_link(lgr, c->rmb, l)) {
				rkey_done(lgr, SMCR_ERR_TRANSPORT);
				return;
			}
		}
		if (send_confirm_rkey(lgr, send_link, c->rmb)) {
			rkey_done(lgr, SMCR_ERR_TRANSPORT);
			return;
		}
		f->link_id = send_link->id;
		f->step = RKEY_WAIT_CONFIRM_RKEY_RESPONSE;
		if (!smcr_llc_wait_msg(lgr, send_link, SMCR_LLC_WAIT_TIME, SMCR_LLC_CONFIRM_RKEY))
			return;
		why = SMCR_WAKE_MSG; /* the response is there already */
	}
		/* fall through */
	case RKEY_WAIT_CONFIRM_RKEY_RESPONSE: {
		smcr_llc_qentry *q = smcr_llc_flow_take(lgr, SMCR_LLC_CONFIRM_RKEY, why, NULL);
		int rc = (!q || (q->msg.flags & SMCR_LLC_FLAG_RKEY_NEG)) ? SMCR_ERR_PROTO : 0;
		smcr_llc_flow_qentry_del(lgr);
		if (!rc && c && c->rmb)
			c->rmb->is_conf_rkey = true;
		rkey_done(lgr, rc);
		return;
	}
	}
}

void smcr_llc_proc_del_rkey(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_llc_flow *f = &lgr->lcl;
	smcr_buf *rmb = f->buf;
	switch ((del_rkey_step)f->step) {
	case DEL_RKEY_START: {
		smcr_link *send_link = smcr_lgr_usable_link(lgr);
		if (!send_link || !rmb)
			break;
		smcr_llc_msg m;
		smcr_llc_init_msg(lgr, &m, SMCR_LLC_DELETE_RKEY);
		m.u.delete_rkey.n_rkeys = 1;
		m.u.delete_rkey.rkeys[0] = rmb->mr[send_link->idx].info.rkey;
		if (smcr_llc_send(send_link, &m))
			break;
		f->step = DEL_RKEY_WAIT_DELETE_RKEY_RESPONSE;
		if (!smcr_llc_wait_msg(lgr, send_link, SMCR_LLC_WAIT_TIME, SMCR_LLC_DELETE_RKEY))
			return;
		why = SMCR_WAKE_MSG; /* the response is there already */
	}
		/* fall through */
	case DEL_RKEY_WAIT_DELETE_RKEY_RESPONSE:
		if (smcr_llc_flow_take(lgr, SMCR_LLC_DELETE_RKEY, why, NULL))
			smcr_llc_flow_qentry_del(lgr);
		break;
	}
	if (rmb)
		rmb->is_conf_rkey = false;
	smcr_llc_flow_stop(lgr);
	if (rmb)
		smcr_buf_unuse_done(lgr, rmb);
}

/* smc_llc_rmt_conf_rkey(): remember the peer RMB's rkeys, answer with the echo. */
void smcr_llc_rmt_conf_rkey(smcr_lgr *lgr, smcr_llc_qentry *q)
{
	smcr_link *link = smcr_ctx_find_link(lgr->ctx, q->link_id);
	if (!link)
		return;
	smcr_llc_msg m = q->msg;
	uint8_t n = m.u.confirm_rkey.n_other;
	int rk = -1;
	if (n <= 3)
		rk = smcr_rtoken_add(lgr, link->idx, m.u.confirm_rkey.vaddr, m.u.confirm_rkey.rkey);
	if (rk < 0) {
		m.flags |= SMCR_LLC_FLAG_RKEY_NEG | SMCR_LLC_FLAG_RKEY_RETRY;
	} else {
		for (uint8_t i = 0; i < n && i < 2; i++)
			smcr_rtoken_set2(lgr, rk, m.u.confirm_rkey.other[i].link_id, m.u.confirm_rkey.other[i].vaddr,
			                 m.u.confirm_rkey.other[i].rkey);
	}
	m.flags |= SMCR_LLC_FLAG_RESP;
	m.length = SMCR_LLC_LEN;
	smcr_llc_send(link, &m);
}

/* smc_llc_rmt_delete_rkey(): forget the rkeys on every link, report failures. */
void smcr_llc_rmt_delete_rkey(smcr_lgr *lgr, smcr_llc_qentry *q)
{
	smcr_link *link = smcr_ctx_find_link(lgr->ctx, q->link_id);
	if (!link)
		return;
	smcr_llc_msg m = q->msg;
	if (lgr->version == 2) {
		uint8_t inval = 0;
		for (uint32_t i = 0; i < m.u.delete_rkey.n_rkeys && i < SMCR_LLC_MAX_RKEY_PAIRS; i++)
			if (smcr_rtoken_delete(lgr, link->idx, m.u.delete_rkey.rkeys[i]))
				inval++;
		memset(m.u.delete_rkey.rkeys, 0, sizeof(m.u.delete_rkey.rkeys));
		m.length = SMCR_LLC_LEN;
		m.u.delete_rkey.err_mask = 0;
		if (inval) {
			m.flags |= SMCR_LLC_FLAG_RKEY_NEG;
			m.u.delete_rkey.err_mask = inval;
		}
	} else {
		uint8_t mask = 0;
		uint32_t max = m.u.delete_rkey.n_rkeys < 8 ? m.u.delete_rkey.n_rkeys : 8;
		for (uint32_t i = 0; i < max; i++)
			if (smcr_rtoken_delete(lgr, link->idx, m.u.delete_rkey.rkeys[i]))
				mask = (uint8_t)(mask | (1u << (8 - 1 - i)));
		if (mask) {
			m.flags |= SMCR_LLC_FLAG_RKEY_NEG;
			m.u.delete_rkey.err_mask = mask;
		}
	}
	m.flags |= SMCR_LLC_FLAG_RESP;
	smcr_llc_send(link, &m);
}

void smcr_llc_rkey_register(smcr_llc_handlers *h)
{
	h->proc[SMCR_PROC_RKEY] = smcr_llc_proc_rkey;
	h->proc[SMCR_PROC_DEL_RKEY] = smcr_llc_proc_del_rkey;
	h->rmt_conf_rkey = smcr_llc_rmt_conf_rkey;
	h->rmt_delete_rkey = smcr_llc_rmt_delete_rkey;
}

void smcr_llc_delete_rkey_later(smcr_lgr *lgr, smcr_buf *rmb)
{
	smcr_llc_add_waiter(lgr, SMCR_FW_DEL_RKEY, SMCR_LLC_FLOW_WAIT_TIME, 0, rmb, 0, 0);
}
