/* LLC link procedures (Linux smc_llc.c, af_smc.c): first-link confirmation (both roles),
 * ADD_LINK (server and client, v1 with ADD_LINK_CONT rkey exchange, v2 with the rkey
 * extension), the client's reject and suggestion, v2 REQUEST_ADD_LINK, DELETE_LINK (single,
 * all, both roles, with Linux's echo behaviour) and deleting a leftover asymmetric link.
 *
 * Each procedure is a small state machine: its steps are the messages it waits for (the
 * enums below), kept in lgr->lcl.step; see llc_flow.c for how waits suspend and resume it.
 * The code follows the Linux functions step by step; their names are given where a block
 * corresponds to one. */
#include "model/llc_link_int.h"

#include <string.h>

#include "model/addr_int.h"
#include "model/buf_int.h"
#include "model/clc.h"
#include "model/conn_int.h"
#include "model/ctx_int.h"
#include "model/failover_int.h"
#include "model/handshake_int.h"
#include "model/lgr_int.h"
#include "model/link_int.h"
#include "model/llc.h"
#include "model/llc_flow_int.h"
#include "model/mem_int.h"
#include "model/port_int.h"
#include "model/smcr.h"

/* The link the flow talks on, and the link it adds or deletes (NULL once gone). */
static smcr_link *flow_link(smcr_lgr *lgr) { return smcr_ctx_find_link(lgr->ctx, lgr->lcl.link_id); }
static smcr_link *flow_link_new(smcr_lgr *lgr) { return smcr_ctx_find_link(lgr->ctx, lgr->lcl.link_new_id); }

/* Steps ------------------------------------------------------------------------------------
 * A procedure's step (lgr->lcl.step) is the message it waits for; every procedure starts at
 * 0, its START step. A step function handles what it waited for, acts, and either waits
 * again (await_msg) or ends the procedure. The procedure's driver runs steps until one
 * has to wait: it returns then, and the flow engine calls it again with why the wait
 * ended (a message, a timeout, a failure of the link or the lgr). */

/* smcr_clnt_conf_first_link */
typedef enum clnt_first_step {
	CLNT_FIRST_START = 0,
	CLNT_FIRST_WAIT_CONFIRM_LINK, /* the server's CONFIRM_LINK request */
	CLNT_FIRST_WAIT_ADD_LINK,     /* an ADD_LINK request for a second link, or none */
} clnt_first_step;

/* smcr_serv_conf_first_link */
typedef enum srv_first_step {
	SRV_FIRST_START = 0,
	SRV_FIRST_WAIT_CONFIRM_LINK_RESPONSE, /* the client's CONFIRM_LINK response */
} srv_first_step;

/* smc_llc_srv_add_link + smc_llc_delete_asym_link */
typedef enum srv_add_step {
	SRV_ADD_START = 0,
	SRV_ADD_WAIT_ADD_LINK_RESPONSE,     /* the client's ADD_LINK response (or reject) */
	SRV_ADD_WAIT_ADD_LINK_CONT,         /* v1: the client's rkeys, ADD_LINK_CONT */
	SRV_ADD_WAIT_CONFIRM_LINK_RESPONSE, /* the client's CONFIRM_LINK on the new link */
	SRV_ADD_WAIT_DELETE_LINK_RESPONSE,  /* the asymmetric link deleted at the client */
} srv_add_step;

/* smc_llc_cli_add_link */
typedef enum clnt_add_step {
	CLNT_ADD_START = 0,
	CLNT_ADD_WAIT_ADD_LINK_CONT, /* v1: the server's rkeys, ADD_LINK_CONT */
	CLNT_ADD_WAIT_CONFIRM_LINK,  /* the server's CONFIRM_LINK on the new link */
} clnt_add_step;

/* smc_llc_process_srv_delete_link */
typedef enum srv_del_step {
	SRV_DEL_START = 0,
	SRV_DEL_WAIT_DELETE_LINK_RESPONSE, /* the client's DELETE_LINK response */
} srv_del_step;

/* What a step leaves its procedure to do. */
typedef enum step_next {
	STEP_STOP = 0, /* nothing now: it waits to be resumed, or it is over */
	STEP_GO_ON,    /* the message it waits for is there already: run its step now */
} step_next;

/* Wait at `step` for a message of type exp (0: any) for at most timeout; lnk (or NULL)
 * ends the wait early when it becomes unusable. */
static step_next await_msg(smcr_lgr *lgr, int step, smcr_link *lnk, uint64_t timeout, uint8_t exp)
{
	lgr->lcl.step = step;
	return smcr_llc_wait_msg(lgr, lnk, timeout, exp) ? STEP_GO_ON : STEP_STOP;
}

/* Messages ------------------------------------------------------------------------------- */

static int send_confirm_link(smcr_link *lnk, bool resp)
{
	smcr_lgr *lgr = lnk->lgr;
	smcr_llc_msg m;
	smcr_llc_init_msg(lgr, &m, SMCR_LLC_CONFIRM_LINK);
	m.flags = SMCR_LLC_FLAG_NO_RMBE_EYEC | (resp ? SMCR_LLC_FLAG_RESP : 0);
	memcpy(m.u.confirm_link.mac, lnk->mac, 6);
	memcpy(m.u.confirm_link.gid, lnk->gid, 16);
	m.u.confirm_link.qpn = lnk->qpn;
	m.u.confirm_link.link_id = lnk->link_id;
	m.u.confirm_link.link_uid = lnk->link_uid;
	m.u.confirm_link.max_links = 2; /* SMC_LINKS_ADD_LNK_MAX */
	if (lgr->version == 2 && lgr->peer_release >= 1) {
		m.u.confirm_link.max_conns = lgr->max_conns;
		m.u.confirm_link.max_links = lgr->max_links;
	}
	return smcr_llc_send(lnk, &m);
}

static int send_delete_link(smcr_link *lnk, uint8_t link_del_id, bool resp, bool orderly, uint32_t reason)
{
	smcr_llc_msg m;
	smcr_llc_init_msg(lnk->lgr, &m, SMCR_LLC_DELETE_LINK);
	if (resp)
		m.flags |= SMCR_LLC_FLAG_RESP;
	if (orderly)
		m.flags |= SMCR_LLC_FLAG_DEL_LINK_ORDERLY;
	if (link_del_id)
		m.u.delete_link.link_id = link_del_id;
	else
		m.flags |= SMCR_LLC_FLAG_DEL_LINK_ALL;
	m.u.delete_link.reason = reason;
	return smcr_llc_send(lnk, &m);
}

/* smc_llc_send_link_delete_all(): on the first sendable link. */
static void send_link_delete_all(smcr_lgr *lgr, bool orderly, uint32_t rsn)
{
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++) {
		smcr_link *l = lgr->lnk[i];
		if (!smcr_link_sendable(l))
			continue;
		smcr_llc_msg m;
		smcr_llc_init_msg(lgr, &m, SMCR_LLC_DELETE_LINK);
		m.flags = SMCR_LLC_FLAG_DEL_LINK_ALL | (orderly ? SMCR_LLC_FLAG_DEL_LINK_ORDERLY : 0);
		m.u.delete_link.reason = rsn;
		if (!smcr_llc_send(l, &m))
			break;
	}
}

static void fill_rkeys_v2(smcr_lgr *lgr, smcr_llc_msg *m, smcr_link *link, smcr_link *link_new)
{
	/* smc_llc_fill_ext_v2(): one pair per used RMB */
	m->u.add_link.v2_direct = !lgr->uses_gateway;
	memcpy(m->u.add_link.client_target_gid, link_new->gid, 16);
	uint32_t pos = 0, n = 0;
	smcr_buf *b;
	while (n < lgr->conns_num && n < SMCR_LLC_MAX_RKEY_PAIRS && (b = smcr_buf_next_used_rmb(lgr, &pos))) {
		m->u.add_link.rkeys[n].rkey_known = b->mr[link->idx].info.rkey;
		m->u.add_link.rkeys[n].rkey_new = b->mr[link_new->idx].info.rkey;
		m->u.add_link.rkeys[n].vaddr_new = b->mr[link_new->idx].info.iova;
		n++;
	}
	m->u.add_link.n_rkeys = (uint16_t)n;
}

/* smc_llc_send_add_link(): on `link`, announcing mac/gid (and link_new's QP). */
static int send_add_link(smcr_link *link, const uint8_t mac[6], const uint8_t gid[16],
                         smcr_link *link_new, bool resp)
{
	smcr_lgr *lgr = link->lgr;
	smcr_llc_msg m;
	smcr_llc_init_msg(lgr, &m, SMCR_LLC_ADD_LINK);
	if (resp)
		m.flags |= SMCR_LLC_FLAG_RESP;
	memcpy(m.u.add_link.mac, mac, 6);
	memcpy(m.u.add_link.gid, gid, 16);
	if (link_new) {
		m.u.add_link.link_id = link_new->link_id;
		m.u.add_link.qpn = link_new->qpn;
		m.u.add_link.psn = link_new->psn_initial;
		uint8_t mtu = (uint8_t)link_new->path_mtu;
		if (resp && link_new->peer_mtu && link_new->peer_mtu < mtu)
			mtu = link_new->peer_mtu;
		m.u.add_link.mtu = mtu;
	}
	if (lgr->version == 2 && link_new) {
		m.u.add_link.v2_ext = true;
		fill_rkeys_v2(lgr, &m, link, link_new);
	}
	return smcr_llc_send(link, &m);
}

/* smc_llc_add_link_cont(): up to two rkey pairs, counting down what is left. */
static int send_add_link_cont(smcr_lgr *lgr, smcr_link *link, smcr_link *link_new)
{
	smcr_llc_flow *f = &lgr->lcl;
	smcr_llc_msg m;
	smcr_llc_init_msg(lgr, &m, SMCR_LLC_ADD_LINK_CONT);
	m.u.add_link_cont.link_id = link_new->link_id;
	m.u.add_link_cont.n_remaining = f->rkeys_send;
	uint8_t n = f->rkeys_send, here = 0;
	for (uint8_t i = 0; i < (n < 2 ? n : 2); i++) {
		smcr_buf *b = smcr_buf_next_used_rmb(lgr, &f->buf_pos);
		if (!b) {
			m.u.add_link_cont.n_remaining = (uint8_t)(m.u.add_link_cont.n_remaining - f->rkeys_send);
			f->rkeys_send = 0;
			break;
		}
		m.u.add_link_cont.rkeys[i].rkey_known = b->mr[link->idx].info.rkey;
		m.u.add_link_cont.rkeys[i].rkey_new = b->mr[link_new->idx].info.rkey;
		m.u.add_link_cont.rkeys[i].vaddr_new = b->mr[link_new->idx].info.iova;
		here++;
		f->rkeys_send--;
	}
	m.u.add_link_cont.n_here = here;
	if (lgr->role == SMCR_ROLE_CLIENT)
		m.flags |= SMCR_LLC_FLAG_RESP;
	return smcr_llc_send(link, &m);
}

static void save_rkeys_cont(smcr_lgr *lgr, smcr_link *link, smcr_link *link_new, const smcr_llc_msg *q)
{
	smcr_llc_flow *f = &lgr->lcl;
	uint8_t recv = q->u.add_link_cont.n_remaining;
	uint8_t max = recv < 2 ? recv : 2;
	for (uint8_t i = 0; i < max && i < q->u.add_link_cont.n_here; i++) {
		const smcr_rkey_pair *p = &q->u.add_link_cont.rkeys[i];
		smcr_rtoken_set(lgr, link->idx, link_new->idx, p->rkey_known, p->vaddr_new, p->rkey_new);
	}
	f->rkeys_recv = (uint8_t)(recv - max);
}

static void save_rkeys_v2(smcr_lgr *lgr, smcr_link *link, smcr_link *link_new, const smcr_llc_msg *q)
{
	uint16_t max = q->u.add_link.n_rkeys;
	if (max > SMCR_LLC_MAX_RKEY_PAIRS)
		max = SMCR_LLC_MAX_RKEY_PAIRS;
	for (uint16_t i = 0; i < max; i++) {
		const smcr_rkey_pair *p = &q->u.add_link.rkeys[i];
		smcr_rtoken_set(lgr, link->idx, link_new->idx, p->rkey_known, p->vaddr_new, p->rkey_new);
	}
}

static void save_add_link_info(smcr_link *l, const smcr_llc_msg *q)
{
	l->peer_qpn = q->u.add_link.qpn;
	memcpy(l->peer_gid, q->u.add_link.gid, 16);
	memcpy(l->peer_mac, q->u.add_link.mac, 6);
	l->peer_psn = q->u.add_link.psn;
	l->peer_mtu = q->u.add_link.mtu;
}

static void save_peer_uid(smcr_lgr *lgr, const smcr_llc_qentry *q)
{
	smcr_link *l = smcr_ctx_find_link(lgr->ctx, q->link_id);
	if (l)
		l->peer_link_uid = q->msg.u.confirm_link.link_uid;
}

/* smc_llc_alloc_alt_link() */
static int alloc_alt_link(smcr_lgr *lgr, smcr_lgr_type new_t)
{
	bool asym = new_t == SMCR_LGR_ASYMMETRIC_LOCAL || new_t == SMCR_LGR_ASYMMETRIC_PEER;
	if (lgr->type == SMCR_LGR_SYMMETRIC || (lgr->type != SMCR_LGR_SINGLE && asym))
		return -1;
	if (asym) {
		for (int i = SMCR_LINKS_PER_LGR_MAX - 1; i >= 0; i--)
			if (!lgr->lnk[i])
				return i;
	} else {
		for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++)
			if (!lgr->lnk[i])
				return i;
	}
	return -1;
}

static void pick_same_port(const smcr_link *link, smcr_dev_pick *dev)
{
	dev->port = (int32_t)link->port_index;
	memcpy(dev->gid, link->gid, 16);
	dev->sgid_index = link->sgid_index;
}

/* smc_llc_find_asym_link(): two usable links with the same local GID; the asymmetric one
 * is the one whose peer GID another link shares. */
static smcr_link *find_asym_link(smcr_lgr *lgr)
{
	int i, j = 0, k;
	bool found = false;
	for (i = 0; i < SMCR_LINKS_PER_LGR_MAX && !found; i++) {
		for (j = i + 1; j < SMCR_LINKS_PER_LGR_MAX; j++) {
			if (!smcr_link_usable(lgr->lnk[i]) || !smcr_link_usable(lgr->lnk[j]))
				continue;
			if (smcr_gid_eq(lgr->lnk[i]->gid, lgr->lnk[j]->gid)) {
				found = true;
				break;
			}
		}
		if (found)
			break;
	}
	if (!found)
		return NULL;
	for (k = 0; k < SMCR_LINKS_PER_LGR_MAX; k++) {
		if (!smcr_link_usable(lgr->lnk[k]))
			continue;
		if (k != i && smcr_gid_eq(lgr->lnk[i]->peer_gid, lgr->lnk[k]->peer_gid))
			return lgr->lnk[i];
		if (k != j && smcr_gid_eq(lgr->lnk[j]->peer_gid, lgr->lnk[k]->peer_gid))
			return lgr->lnk[j];
	}
	return NULL;
}

static void clear_new_link(smcr_lgr *lgr)
{
	smcr_link *n = flow_link_new(lgr);
	if (n) {
		n->state = SMCR_LNK_INACTIVE;
		smcr_link_clear(n, false);
	}
	lgr->lcl.link_new_id = 0;
}

/* smc_llc_alloc_alt_link() + smcr_link_init(): the new link, on dev, in the flow. */
static smcr_link *new_alt_link(smcr_lgr *lgr, const smcr_dev_pick *dev)
{
	int idx = alloc_alt_link(lgr, lgr->lcl.lgr_new_t);
	smcr_link *n;
	if (idx < 0 || smcr_link_init(lgr, idx, dev, &n))
		return NULL;
	lgr->lcl.link_new_id = n->id;
	return n;
}

/* The new link is confirmed: active, and the lgr of the type the flow decided. */
static void new_link_active(smcr_lgr *lgr, smcr_link *link_new)
{
	smcr_lgr_type t = lgr->lcl.lgr_new_t;
	smcr_link_activate(link_new);
	if (t == SMCR_LGR_ASYMMETRIC_LOCAL || t == SMCR_LGR_ASYMMETRIC_PEER)
		smcr_lgr_set_type_asym(lgr, t, link_new->idx);
	else
		smcr_lgr_set_type(lgr, t);
}

/* The first-link procedure of a new connection's lgr ends: the handshake goes on. */
static step_next first_done(smcr_lgr *lgr, uint32_t rc)
{
	uint64_t conn_id = lgr->lcl.conn_id;
	smcr_role role = lgr->role;
	smcr_ctx *ctx = lgr->ctx;
	smcr_llc_flow_stop(lgr);
	smcr_conn *c = smcr_ctx_find_conn(ctx, conn_id);
	if (!c)
		return STEP_STOP;
	smcr_ctx_role(ctx, role)->first_link_done(c, rc);
	return STEP_STOP;
}

/* The peer knows the first connection's RMB from the CLC handshake. */
static void first_rmb_confirmed(smcr_lgr *lgr)
{
	smcr_conn *c = smcr_ctx_find_conn(lgr->ctx, lgr->lcl.conn_id);
	if (c && c->rmb)
		c->rmb->is_conf_rkey = true;
}

/* First link, client (smcr_clnt_conf_first_link) ----------------------------------------- */

static step_next clnt_first_start(smcr_lgr *lgr)
{
	/* receive CONFIRM LINK request from server over RoCE fabric; the client waits twice
	 * the server's time so Declines do not cross */
	return await_msg(lgr, CLNT_FIRST_WAIT_CONFIRM_LINK, NULL, 2 * SMCR_LLC_WAIT_TIME, SMCR_LLC_CONFIRM_LINK);
}

static step_next clnt_first_on_confirm_link(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_link *link = flow_link(lgr);
	smcr_llc_qentry *q = smcr_llc_flow_take(lgr, SMCR_LLC_CONFIRM_LINK, why, NULL);
	if (!q || !link)
		return first_done(lgr, SMCR_HS_RC_DECLINE_WAIT_FAIL);
	save_peer_uid(lgr, q);
	/* smc_llc_eval_conf_link(): the server assigns the link id */
	link->link_id = q->msg.u.confirm_link.link_id;
	smcr_link_set_uid(link);
	bool eyec = !(q->msg.flags & SMCR_LLC_FLAG_NO_RMBE_EYEC);
	smcr_llc_flow_qentry_del(lgr);
	if (eyec)
		return first_done(lgr, SMCR_DECL_RMBE_EC);
	if (smcr_link_modify_rts(link))
		return first_done(lgr, SMCR_DECL_ERR_RDYLNK);
	first_rmb_confirmed(lgr); /* implicit on first contact */
	if (send_confirm_link(link, true))
		return first_done(lgr, SMCR_DECL_TIMEOUT_CL);
	smcr_link_activate(link);
	smcr_lgr_set_type(lgr, SMCR_LGR_SINGLE);
	/* optional 2nd link, receive ADD LINK request from server */
	return await_msg(lgr, CLNT_FIRST_WAIT_ADD_LINK, NULL, SMCR_LLC_WAIT_TIME, SMCR_LLC_ADD_LINK);
}

static step_next clnt_first_on_add_link(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_llc_flow *f = &lgr->lcl;
	smcr_llc_qentry *q = smcr_llc_flow_take(lgr, SMCR_LLC_ADD_LINK, why, NULL);
	if (!q) {
		/* no ADD_LINK: a Decline within 1 s fails the connection, else go on with one
		 * link */
		return first_done(lgr, SMCR_HS_RC_DECLINE_WAIT_OK);
	}
	/* the flow goes on as the client's ADD_LINK, the request its trigger */
	f->qentry = NULL;
	f->proc = SMCR_PROC_CLNT_ADD;
	f->step = CLNT_ADD_START;
	f->req = q;
	smcr_llc_proc_clnt_add(lgr, SMCR_WAKE_START);
	return STEP_STOP;
}

void smcr_llc_proc_clnt_first(smcr_lgr *lgr, smcr_llc_wake why)
{
	step_next next;
	do {
		next = STEP_STOP;
		switch ((clnt_first_step)lgr->lcl.step) {
		case CLNT_FIRST_START: next = clnt_first_start(lgr); break;
		case CLNT_FIRST_WAIT_CONFIRM_LINK: next = clnt_first_on_confirm_link(lgr, why); break;
		case CLNT_FIRST_WAIT_ADD_LINK: next = clnt_first_on_add_link(lgr, why); break;
		}
		why = SMCR_WAKE_MSG;
	} while (next == STEP_GO_ON);
}

/* First link, server (smcr_serv_conf_first_link) ----------------------------------------- */

static step_next srv_first_start(smcr_lgr *lgr)
{
	smcr_link *link = flow_link(lgr);
	if (!link || send_confirm_link(link, false))
		return first_done(lgr, SMCR_DECL_TIMEOUT_CL);
	return await_msg(lgr, SRV_FIRST_WAIT_CONFIRM_LINK_RESPONSE, link, SMCR_LLC_WAIT_TIME, SMCR_LLC_CONFIRM_LINK);
}

static step_next srv_first_on_confirm_link(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_llc_flow *f = &lgr->lcl;
	smcr_link *link = flow_link(lgr);
	smcr_llc_qentry *q = smcr_llc_flow_take(lgr, SMCR_LLC_CONFIRM_LINK, why, NULL);
	if (!q || !link)
		return first_done(lgr, SMCR_HS_RC_DECLINE_WAIT_FAIL);
	save_peer_uid(lgr, q);
	bool eyec = !(q->msg.flags & SMCR_LLC_FLAG_NO_RMBE_EYEC);
	smcr_llc_flow_qentry_del(lgr);
	if (eyec)
		return first_done(lgr, SMCR_DECL_RMBE_EC);
	first_rmb_confirmed(lgr);
	smcr_link_activate(link);
	smcr_lgr_set_type(lgr, SMCR_LGR_SINGLE);
	/* initial contact - try to establish second link */
	f->proc = SMCR_PROC_SRV_ADD;
	f->step = SRV_ADD_START;
	f->req = NULL;
	smcr_llc_proc_srv_add(lgr, SMCR_WAKE_START);
	return STEP_STOP;
}

void smcr_llc_proc_srv_first(smcr_lgr *lgr, smcr_llc_wake why)
{
	step_next next;
	do {
		next = STEP_STOP;
		switch ((srv_first_step)lgr->lcl.step) {
		case SRV_FIRST_START: next = srv_first_start(lgr); break;
		case SRV_FIRST_WAIT_CONFIRM_LINK_RESPONSE: next = srv_first_on_confirm_link(lgr, why); break;
		}
		why = SMCR_WAKE_MSG;
	} while (next == STEP_GO_ON);
}

/* ADD_LINK, server (smc_llc_srv_add_link + smc_llc_delete_asym_link) ----------------------
 * ADD_LINK request -> the client's ADD_LINK response -> v1: ADD_LINK_CONT both ways until
 * every rkey is told (v2: the rkeys came with the ADD_LINKs) -> CONFIRM_LINK request on the
 * new link -> the client's response: the link is active. Once the lgr is symmetric, an
 * asymmetric link left from before is deleted (DELETE_LINK and its response). */

static step_next srv_add_send_rkeys(smcr_lgr *lgr);
static step_next srv_add_confirm_new_link(smcr_lgr *lgr);
static step_next srv_add_delete_asym_link(smcr_lgr *lgr);

static step_next srv_add_finish(smcr_lgr *lgr)
{
	smcr_llc_flow *f = &lgr->lcl;
	if (f->send_req_add_link_resp && f->req) {
		/* smc_llc_send_req_add_link_response(): the request echoed, body zeroed */
		smcr_link *l = smcr_ctx_find_link(lgr->ctx, f->req->link_id);
		if (l) {
			smcr_llc_msg m;
			smcr_llc_init_msg(lgr, &m, SMCR_LLC_REQ_ADD_LINK);
			m.flags = (uint8_t)(f->req->msg.flags | SMCR_LLC_FLAG_RESP);
			smcr_llc_send(l, &m);
		}
	}
	if (f->conn_id)
		return first_done(lgr, 0);
	smcr_llc_flow_stop(lgr);
	return STEP_STOP;
}

static step_next srv_add_fail(smcr_lgr *lgr)
{
	clear_new_link(lgr);
	return srv_add_finish(lgr);
}

/* The link the server talks on: the flow's, else the one the trigger came on if it is
 * active, else the first active one. */
static smcr_link *srv_add_talk_link(smcr_lgr *lgr)
{
	smcr_llc_flow *f = &lgr->lcl;
	if (f->link_id)
		return flow_link(lgr);
	smcr_link *l = f->req ? smcr_ctx_find_link(lgr->ctx, f->req->link_id) : NULL;
	if (!smcr_link_active(l))
		l = smcr_lgr_usable_link(lgr);
	if (l)
		f->link_id = l->id;
	return l;
}

static step_next srv_add_start(smcr_lgr *lgr)
{
	smcr_llc_flow *f = &lgr->lcl;
	smcr_link *link = srv_add_talk_link(lgr);
	if (!link)
		return srv_add_finish(lgr);
	f->send_req_add_link_resp = f->req && f->req->msg.type == SMCR_LLC_REQ_ADD_LINK;
	if (lgr->type == SMCR_LGR_SINGLE && lgr->max_links <= 1)
		return srv_add_finish(lgr);
	/* ignore the client's add link recommendation, start a new flow */
	smcr_dev_pick dev;
	f->lgr_new_t = SMCR_LGR_SYMMETRIC;
	if (!smcr_port_find_alt(lgr->ctx, lgr, link->port_index, &dev)) {
		f->lgr_new_t = SMCR_LGR_ASYMMETRIC_LOCAL;
		pick_same_port(link, &dev);
	}
	smcr_link *n = new_alt_link(lgr, &dev);
	if (!n)
		return srv_add_finish(lgr);
	if (smcr_buf_map_lgr(n) || send_add_link(link, n->mac, n->gid, n, false))
		return srv_add_fail(lgr);
	f->send_req_add_link_resp = false;
	/* receive ADD LINK response over the RoCE fabric */
	return await_msg(lgr, SRV_ADD_WAIT_ADD_LINK_RESPONSE, link, SMCR_LLC_WAIT_TIME, SMCR_LLC_ADD_LINK);
}

static step_next srv_add_on_add_link_response(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_llc_flow *f = &lgr->lcl;
	smcr_link *link = flow_link(lgr);
	smcr_link *link_new = flow_link_new(lgr);
	smcr_llc_qentry *q = smcr_llc_flow_take(lgr, SMCR_LLC_ADD_LINK, why, NULL);
	if (!q || !link || !link_new)
		return srv_add_fail(lgr);
	if (q->msg.flags & SMCR_LLC_FLAG_ADD_LNK_REJ) {
		smcr_emit_simple(lgr->ctx, SMCR_EV_ADD_LINK_REJECTED, lgr->id, 0, q->msg.reject_reason, NULL);
		smcr_llc_flow_qentry_del(lgr);
		return srv_add_fail(lgr);
	}
	if (lgr->type == SMCR_LGR_SINGLE && smcr_gid_eq(q->msg.u.add_link.gid, link->peer_gid) &&
	    (lgr->version == 2 || smcr_mac_eq(q->msg.u.add_link.mac, link->peer_mac)))
		f->lgr_new_t = SMCR_LGR_ASYMMETRIC_PEER;
	save_add_link_info(link_new, &q->msg);
	if (smcr_link_ready(link_new) || smcr_buf_map_lgr(link_new)) {
		smcr_llc_flow_qentry_del(lgr);
		return srv_add_fail(lgr);
	}
	if (lgr->version == 2) {
		save_rkeys_v2(lgr, link, link_new, &q->msg);
		smcr_llc_flow_qentry_del(lgr);
		return srv_add_confirm_new_link(lgr);
	}
	smcr_llc_flow_qentry_del(lgr);
	/* smc_llc_srv_rkey_exchange(): the server sends first */
	f->rkeys_send = (uint8_t)(lgr->conns_num > 255 ? 255 : lgr->conns_num);
	f->buf_pos = 0;
	return srv_add_send_rkeys(lgr);
}

static step_next srv_add_send_rkeys(smcr_lgr *lgr)
{
	smcr_link *link = flow_link(lgr);
	send_add_link_cont(lgr, link, flow_link_new(lgr));
	return await_msg(lgr, SRV_ADD_WAIT_ADD_LINK_CONT, link, SMCR_LLC_WAIT_TIME, SMCR_LLC_ADD_LINK_CONT);
}

static step_next srv_add_on_add_link_cont(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_llc_flow *f = &lgr->lcl;
	smcr_link *link = flow_link(lgr);
	smcr_link *link_new = flow_link_new(lgr);
	smcr_llc_qentry *q = smcr_llc_flow_take(lgr, SMCR_LLC_ADD_LINK_CONT, why, NULL);
	if (!q || !link || !link_new)
		return srv_add_fail(lgr);
	save_rkeys_cont(lgr, link, link_new, &q->msg);
	smcr_llc_flow_qentry_del(lgr);
	if (f->rkeys_send || f->rkeys_recv)
		return srv_add_send_rkeys(lgr);
	return srv_add_confirm_new_link(lgr);
}

/* smc_llc_srv_conf_link(): CONFIRM_LINK request on the new link */
static step_next srv_add_confirm_new_link(smcr_lgr *lgr)
{
	smcr_link *link = flow_link(lgr);
	smcr_link *link_new = flow_link_new(lgr);
	if (!link_new || send_confirm_link(link_new, false))
		return srv_add_fail(lgr);
	return await_msg(lgr, SRV_ADD_WAIT_CONFIRM_LINK_RESPONSE, link, SMCR_LLC_WAIT_FIRST_TIME, 0);
}

static step_next srv_add_on_confirm_link_response(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_link *link = flow_link(lgr);
	smcr_link *link_new = flow_link_new(lgr);
	smcr_llc_qentry *q = smcr_llc_flow_take(lgr, 0, why, NULL);
	if (!q || q->msg.type != SMCR_LLC_CONFIRM_LINK || !link_new) {
		if (link && link_new)
			send_delete_link(link, link_new->link_id, false, false, SMCR_LLC_DEL_LOST_PATH);
		smcr_llc_flow_qentry_del(lgr);
		return srv_add_fail(lgr);
	}
	save_peer_uid(lgr, q);
	new_link_active(lgr, link_new);
	smcr_llc_flow_qentry_del(lgr);
	lgr->lcl.link_new_id = 0;
	if (lgr->type != SMCR_LGR_SYMMETRIC)
		return srv_add_finish(lgr);
	return srv_add_delete_asym_link(lgr);
}

/* smc_llc_delete_asym_link(): its connections move to another link, which carries the
 * DELETE_LINK; the flow becomes a DELETE_LINK flow. */
static step_next srv_add_delete_asym_link(smcr_lgr *lgr)
{
	smcr_llc_flow *f = &lgr->lcl;
	smcr_link *asym = find_asym_link(lgr);
	if (!asym || !smcr_link_usable(asym))
		return srv_add_finish(lgr);
	asym->state = SMCR_LNK_INACTIVE;
	smcr_llc_link_unusable(asym);
	smcr_link *to = smcr_switch_conns(lgr, asym, false);
	if (!to) {
		smcr_link_clear(asym, true);
		return srv_add_finish(lgr);
	}
	f->type = SMCR_FLOW_DEL_LINK; /* change the flow type from ADD_LINK */
	f->link_new_id = asym->id;    /* the link to delete */
	f->link_id = to->id;
	if (send_delete_link(to, asym->link_id, false, true, SMCR_LLC_DEL_NO_ASYM_NEEDED)) {
		smcr_link_down(to, SMCR_LINKDOWN_WC_ERROR);
		smcr_link *a = flow_link_new(lgr);
		if (a)
			smcr_link_clear(a, true);
		return srv_add_finish(lgr);
	}
	return await_msg(lgr, SRV_ADD_WAIT_DELETE_LINK_RESPONSE, to, SMCR_LLC_WAIT_TIME, SMCR_LLC_DELETE_LINK);
}

static step_next srv_add_on_delete_link_response(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_link *link = flow_link(lgr);
	smcr_llc_qentry *q = smcr_llc_flow_take(lgr, SMCR_LLC_DELETE_LINK, why, NULL);
	if (!q) {
		if (link)
			smcr_link_down(link, SMCR_LINKDOWN_WC_ERROR);
	} else {
		smcr_llc_flow_qentry_del(lgr);
	}
	smcr_link *a = flow_link_new(lgr);
	if (a)
		smcr_link_clear(a, true);
	lgr->lcl.link_new_id = 0;
	return srv_add_finish(lgr);
}

void smcr_llc_proc_srv_add(smcr_lgr *lgr, smcr_llc_wake why)
{
	step_next next;
	do {
		next = STEP_STOP;
		switch ((srv_add_step)lgr->lcl.step) {
		case SRV_ADD_START: next = srv_add_start(lgr); break;
		case SRV_ADD_WAIT_ADD_LINK_RESPONSE: next = srv_add_on_add_link_response(lgr, why); break;
		case SRV_ADD_WAIT_ADD_LINK_CONT: next = srv_add_on_add_link_cont(lgr, why); break;
		case SRV_ADD_WAIT_CONFIRM_LINK_RESPONSE: next = srv_add_on_confirm_link_response(lgr, why); break;
		case SRV_ADD_WAIT_DELETE_LINK_RESPONSE: next = srv_add_on_delete_link_response(lgr, why); break;
		}
		why = SMCR_WAKE_MSG;
	} while (next == STEP_GO_ON);
}

/* ADD_LINK, client (smc_llc_cli_add_link) ------------------------------------------------
 * The server's ADD_LINK request -> our ADD_LINK response with the new link (or a reject)
 * -> v1: ADD_LINK_CONT both ways, the server's first -> the server's CONFIRM_LINK request
 * on the new link -> our response: the link is active. */

static step_next clnt_add_finish(smcr_lgr *lgr)
{
	if (lgr->lcl.conn_id)
		return first_done(lgr, 0);
	smcr_llc_flow_stop(lgr);
	return STEP_STOP;
}

/* smc_llc_cli_add_link_reject(): echo the request with RESP|REJ, reason 1. */
static step_next clnt_add_reject(smcr_lgr *lgr)
{
	smcr_llc_qentry *req = lgr->lcl.req;
	if (req) {
		smcr_link *l = smcr_ctx_find_link(lgr->ctx, req->link_id);
		if (l) {
			smcr_llc_msg m = req->msg;
			m.flags |= SMCR_LLC_FLAG_RESP | SMCR_LLC_FLAG_ADD_LNK_REJ;
			m.reject_reason = SMCR_LLC_REJ_NO_ALT_PATH;
			m.length = SMCR_LLC_LEN;
			m.version = lgr->version == 2 ? 2 : 1;
			m.u.add_link.n_rkeys = 0;
			m.u.add_link.v2_ext = false;
			smcr_llc_send(l, &m);
		}
	}
	return clnt_add_finish(lgr);
}

static step_next clnt_add_clear_reject(smcr_lgr *lgr)
{
	clear_new_link(lgr);
	return clnt_add_reject(lgr);
}

/* Whether the client takes the server's ADD_LINK (req, on link) and on which device;
 * false: it rejects it. */
static bool clnt_add_choose_device(smcr_lgr *lgr, smcr_link *link, const smcr_llc_msg *req,
                                   smcr_dev_pick *dev)
{
	smcr_llc_flow *f = &lgr->lcl;
	if (!req->u.add_link.mtu)
		return false;
	if (lgr->type == SMCR_LGR_SINGLE && lgr->max_links <= 1)
		return false;
	f->lgr_new_t = SMCR_LGR_SYMMETRIC;
	bool alt = smcr_port_find_alt(lgr->ctx, lgr, link->port_index, dev);
	if (smcr_gid_eq(req->u.add_link.gid, link->peer_gid) &&
	    (lgr->version == 2 || smcr_mac_eq(req->u.add_link.mac, link->peer_mac))) {
		/* the server used the same RNIC again: only useful if we have another */
		if (!alt)
			return false;
		f->lgr_new_t = SMCR_LGR_ASYMMETRIC_PEER;
	}
	if (!alt) {
		f->lgr_new_t = SMCR_LGR_ASYMMETRIC_LOCAL;
		pick_same_port(link, dev);
	}
	return true;
}

/* v1 rkey exchange (smc_llc_cli_rkey_exchange): the client waits for the server's next
 * ADD_LINK_CONT. */
static step_next clnt_add_await_rkeys(smcr_lgr *lgr)
{
	return await_msg(lgr, CLNT_ADD_WAIT_ADD_LINK_CONT, NULL, SMCR_LLC_WAIT_TIME, SMCR_LLC_ADD_LINK_CONT);
}

/* smc_llc_cli_conf_link(): CONFIRM LINK request over the new link */
static step_next clnt_add_await_confirm_link(smcr_lgr *lgr)
{
	return await_msg(lgr, CLNT_ADD_WAIT_CONFIRM_LINK, NULL, SMCR_LLC_WAIT_FIRST_TIME, 0);
}

static step_next clnt_add_start(smcr_lgr *lgr)
{
	smcr_llc_flow *f = &lgr->lcl;
	const smcr_llc_msg *req = f->req ? &f->req->msg : NULL;
	smcr_link *link = f->req ? smcr_ctx_find_link(lgr->ctx, f->req->link_id) : NULL;
	if (!req || !smcr_link_usable(link))
		return clnt_add_finish(lgr);
	f->link_id = link->id;
	smcr_dev_pick dev;
	if (!clnt_add_choose_device(lgr, link, req, &dev))
		return clnt_add_reject(lgr);
	smcr_link *n = new_alt_link(lgr, &dev);
	if (!n)
		return clnt_add_reject(lgr);
	save_add_link_info(n, req);
	n->link_id = req->u.add_link.link_id; /* the server assigns link ids */
	smcr_link_set_uid(n);
	if (smcr_link_ready(n) || smcr_buf_map_lgr(n) || send_add_link(link, n->mac, n->gid, n, true))
		return clnt_add_clear_reject(lgr);
	if (lgr->version == 2) {
		save_rkeys_v2(lgr, link, n, req);
		return clnt_add_await_confirm_link(lgr);
	}
	/* smc_llc_cli_rkey_exchange(): the client waits first */
	f->rkeys_send = (uint8_t)(lgr->conns_num > 255 ? 255 : lgr->conns_num);
	f->buf_pos = 0;
	return clnt_add_await_rkeys(lgr);
}

static step_next clnt_add_on_add_link_cont(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_llc_flow *f = &lgr->lcl;
	smcr_link *link = flow_link(lgr);
	smcr_link *lnk_new = flow_link_new(lgr);
	smcr_llc_qentry *q = smcr_llc_flow_take(lgr, SMCR_LLC_ADD_LINK_CONT, why, NULL);
	if (!q || !link || !lnk_new)
		return clnt_add_clear_reject(lgr);
	save_rkeys_cont(lgr, link, lnk_new, &q->msg);
	smcr_llc_flow_qentry_del(lgr);
	if (send_add_link_cont(lgr, link, lnk_new))
		return clnt_add_clear_reject(lgr);
	if (f->rkeys_send || f->rkeys_recv)
		return clnt_add_await_rkeys(lgr);
	return clnt_add_await_confirm_link(lgr);
}

static step_next clnt_add_on_confirm_link(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_link *link = flow_link(lgr);
	smcr_link *lnk_new = flow_link_new(lgr);
	smcr_llc_qentry *q = smcr_llc_flow_take(lgr, 0, why, NULL);
	if (!lnk_new || !link) {
		smcr_llc_flow_qentry_del(lgr);
		return clnt_add_clear_reject(lgr);
	}
	if (!q) {
		send_delete_link(link, lnk_new->link_id, false, false, SMCR_LLC_DEL_LOST_PATH);
		return clnt_add_clear_reject(lgr);
	}
	if (q->msg.type != SMCR_LLC_CONFIRM_LINK) {
		/* received DELETE_LINK instead: answer it */
		smcr_llc_msg m = q->msg;
		m.flags |= SMCR_LLC_FLAG_RESP;
		smcr_llc_send(link, &m);
		smcr_llc_flow_qentry_del(lgr);
		return clnt_add_clear_reject(lgr);
	}
	save_peer_uid(lgr, q);
	smcr_llc_flow_qentry_del(lgr);
	if (smcr_link_modify_rts(lnk_new) || smcr_buf_map_lgr(lnk_new) ||
	    send_confirm_link(lnk_new, true)) {
		send_delete_link(link, lnk_new->link_id, false, false, SMCR_LLC_DEL_LOST_PATH);
		return clnt_add_clear_reject(lgr);
	}
	new_link_active(lgr, lnk_new);
	lgr->lcl.link_new_id = 0;
	return clnt_add_finish(lgr);
}

void smcr_llc_proc_clnt_add(smcr_lgr *lgr, smcr_llc_wake why)
{
	step_next next;
	do {
		next = STEP_STOP;
		switch ((clnt_add_step)lgr->lcl.step) {
		case CLNT_ADD_START: next = clnt_add_start(lgr); break;
		case CLNT_ADD_WAIT_ADD_LINK_CONT: next = clnt_add_on_add_link_cont(lgr, why); break;
		case CLNT_ADD_WAIT_CONFIRM_LINK: next = clnt_add_on_confirm_link(lgr, why); break;
		}
		why = SMCR_WAKE_MSG;
	} while (next == STEP_GO_ON);
}

/* Client invitation (smc_llc_cli_add_link_invite) and v2 REQUEST_ADD_LINK ------------------- */

void smcr_llc_cli_add_link_invite(smcr_link *link)
{
	smcr_lgr *lgr = link->lgr;
	smcr_ctx *ctx = lgr->ctx;
	if (lgr->type == SMCR_LGR_SYMMETRIC || lgr->type == SMCR_LGR_ASYMMETRIC_PEER) {
		smcr_llc_flow_stop(lgr);
		return;
	}
	if (lgr->version == 2) {
		/* smc_llc_send_request_add_link(): only with a second GID to offer */
		smcr_dev_pick alt;
		if (!smcr_port_find_alt(ctx, lgr, link->port_index, &alt)) {
			smcr_llc_flow_stop(lgr);
			return;
		}
		smcr_llc_msg m;
		smcr_llc_init_msg(lgr, &m, SMCR_LLC_REQ_ADD_LINK);
		m.u.req_add_link.n_gids = 2;
		memcpy(m.u.req_add_link.gids[0], link->gid, 16);
		memcpy(m.u.req_add_link.gids[1], alt.gid, 16);
		if (smcr_llc_send(link, &m)) {
			smcr_llc_flow_stop(lgr);
			return;
		}
		/* REQ_ADD_LINK flow: wait for the server (no timer, as Linux) */
		lgr->lcl.type = SMCR_FLOW_REQ_ADD_LINK;
		lgr->lcl.proc = SMCR_PROC_CLNT_REQ_ADD;
		return;
	}
	if (lgr->type == SMCR_LGR_SINGLE && lgr->max_links <= 1) {
		smcr_llc_flow_stop(lgr);
		return;
	}
	smcr_dev_pick alt;
	if (smcr_port_find_alt(ctx, lgr, link->port_index, &alt))
		send_add_link(link, ctx->ports[alt.port].d.mac, alt.gid, NULL, false);
	smcr_llc_flow_stop(lgr);
}

void smcr_llc_proc_clnt_req_add(smcr_lgr *lgr, smcr_llc_wake why)
{
	/* only a failure (lgr end) wakes this flow; the server's answer ends it */
	if (why == SMCR_WAKE_FAIL)
		smcr_llc_flow_stop(lgr);
}

void smcr_llc_add_link_local(smcr_link *lnk)
{
	/* smc_llc_add_link_local(): an empty ADD_LINK request enqueued locally */
	smcr_llc_msg m;
	smcr_llc_init_msg(lnk->lgr, &m, SMCR_LLC_ADD_LINK);
	smcr_llc_enqueue_local(lnk, &m);
}

/* DELETE_LINK ------------------------------------------------------------------------------- */

void smcr_llc_srv_delete_link_local(smcr_link *lnk, uint8_t del_link_id)
{
	smcr_llc_msg m;
	smcr_llc_init_msg(lnk->lgr, &m, SMCR_LLC_DELETE_LINK);
	m.u.delete_link.link_id = del_link_id;
	m.u.delete_link.reason = SMCR_LLC_DEL_LOST_PATH;
	m.flags |= SMCR_LLC_FLAG_DEL_LINK_ORDERLY;
	smcr_llc_enqueue_local(lnk, &m);
}

static smcr_link *link_by_num(smcr_lgr *lgr, uint8_t num)
{
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++)
		if (lgr->lnk[i] && lgr->lnk[i]->link_id == num)
			return lgr->lnk[i];
	return NULL;
}

static void after_link_removed(smcr_lgr *lgr)
{
	uint32_t active = smcr_lgr_active_links(lgr);
	if (active == 1) {
		smcr_lgr_set_type(lgr, SMCR_LGR_SINGLE);
	} else if (!active) {
		smcr_lgr_set_type(lgr, SMCR_LGR_NONE);
		smcr_lgr_terminate(lgr, 0, "no usable link left");
	}
}

/* smc_llc_process_cli_delete_link(): answer, then remove the link. */
void smcr_llc_process_cli_delete_link(smcr_lgr *lgr, smcr_llc_qentry *q)
{
	smcr_link *lnk = smcr_ctx_find_link(lgr->ctx, q->link_id);
	smcr_llc_msg m = q->msg;
	if (m.flags & SMCR_LLC_FLAG_DEL_LINK_ALL) {
		smcr_free(lgr->ctx, q);
		smcr_lgr_end_by_peer(lgr, &m);
		return;
	}
	smcr_link *lnk_del = link_by_num(lgr, m.u.delete_link.link_id);
	m.flags |= SMCR_LLC_FLAG_RESP;
	smcr_free(lgr->ctx, q);
	if (!lnk_del) {
		m.u.delete_link.reason = SMCR_LLC_DEL_NOLNK;
		if (lnk)
			smcr_llc_send(lnk, &m);
		return;
	}
	smcr_link *lnk_asym = find_asym_link(lgr);
	m.u.delete_link.reason = 0;
	if (lnk)
		smcr_llc_send(lnk, &m); /* response */
	if (lnk_del->state == SMCR_LNK_ACTIVE || lnk_del->state == SMCR_LNK_ACTIVATING) {
		smcr_link_emit(lnk_del, SMCR_EV_LINK_DOWN, SMCR_LINKDOWN_PEER_DELETE, m.u.delete_link.reason);
		lnk_del->state = SMCR_LNK_INACTIVE;
		smcr_llc_link_unusable(lnk_del);
		smcr_switch_conns(lgr, lnk_del, false);
	}
	bool was_asym = lnk_del == lnk_asym;
	smcr_link_clear(lnk_del, true);
	if (!was_asym)
		after_link_removed(lgr);
}

void smcr_llc_clnt_linkdown_send(smcr_lgr *lgr, uint64_t link_id, uint64_t to_link_id)
{
	smcr_link *lnk = smcr_ctx_find_link(lgr->ctx, link_id);
	smcr_link *to = smcr_ctx_find_link(lgr->ctx, to_link_id);
	if (!lnk || !lgr->listed)
		return;
	if (to)
		send_delete_link(to, lnk->link_id, false, true, SMCR_LLC_DEL_LOST_PATH);
	smcr_link_clear(lnk, true);
}

/* smc_llc_process_srv_delete_link(): send the request (the peer's request echoed, or the
 * local trigger), wait for the response, then remove the link and try a new one. */

/* The link is gone at both ends (or the client did not answer): clear it, and with one
 * link left try to add an asymmetric one again. */
static step_next srv_del_remove_link(smcr_lgr *lgr)
{
	smcr_link *lnk_del = flow_link_new(lgr);
	if (lnk_del)
		smcr_link_clear(lnk_del, true);
	after_link_removed(lgr);
	smcr_link *lnk = flow_link(lgr);
	if (lgr->type == SMCR_LGR_SINGLE && lgr->listed && smcr_link_active(lnk)) {
		/* trigger setup of an asymmetric alternate link */
		smcr_llc_flow_stop(lgr);
		if ((lnk = smcr_ctx_find_link(lgr->ctx, lnk->id)) != NULL)
			smcr_llc_add_link_local(lnk);
		return STEP_STOP;
	}
	smcr_llc_flow_stop(lgr);
	return STEP_STOP;
}

static step_next srv_del_start(smcr_lgr *lgr)
{
	smcr_llc_flow *f = &lgr->lcl;
	smcr_llc_qentry *q = f->req;
	smcr_link *lnk = q ? smcr_ctx_find_link(lgr->ctx, q->link_id) : NULL;
	if (!q) {
		smcr_llc_flow_stop(lgr);
		return STEP_STOP;
	}
	if (q->msg.flags & SMCR_LLC_FLAG_DEL_LINK_ALL) {
		/* delete the entire lgr: echo, then terminate */
		uint32_t rsn = q->msg.u.delete_link.reason;
		send_link_delete_all(lgr, true, rsn);
		smcr_llc_msg m = q->msg;
		smcr_llc_flow_stop(lgr);
		smcr_lgr_end_by_peer(lgr, &m);
		return STEP_STOP;
	}
	smcr_link *lnk_del = link_by_num(lgr, q->msg.u.delete_link.link_id);
	if (!lnk_del) {
		smcr_llc_flow_stop(lgr); /* asymmetric link already deleted */
		return STEP_STOP;
	}
	f->link_new_id = lnk_del->id;
	f->link_id = lnk ? lnk->id : 0;
	if (lnk_del->state == SMCR_LNK_ACTIVE || lnk_del->state == SMCR_LNK_ACTIVATING) {
		if (!q->local)
			smcr_link_emit(lnk_del, SMCR_EV_LINK_DOWN, SMCR_LINKDOWN_PEER_DELETE,
			               q->msg.u.delete_link.reason);
		lnk_del->state = SMCR_LNK_INACTIVE;
		smcr_llc_link_unusable(lnk_del);
		smcr_switch_conns(lgr, lnk_del, false);
	}
	if (lgr->listed && lnk && smcr_link_usable(lnk)) {
		smcr_llc_msg m = q->msg; /* sent back as our own request */
		if (!smcr_llc_send(lnk, &m))
			return await_msg(lgr, SRV_DEL_WAIT_DELETE_LINK_RESPONSE, lnk, SMCR_LLC_WAIT_TIME,
			                 SMCR_LLC_DELETE_LINK);
	}
	return srv_del_remove_link(lgr);
}

static step_next srv_del_on_delete_link_response(smcr_lgr *lgr, smcr_llc_wake why)
{
	if (smcr_llc_flow_take(lgr, SMCR_LLC_DELETE_LINK, why, NULL))
		smcr_llc_flow_qentry_del(lgr);
	return srv_del_remove_link(lgr);
}

void smcr_llc_proc_srv_del(smcr_lgr *lgr, smcr_llc_wake why)
{
	step_next next;
	do {
		next = STEP_STOP;
		switch ((srv_del_step)lgr->lcl.step) {
		case SRV_DEL_START: next = srv_del_start(lgr); break;
		case SRV_DEL_WAIT_DELETE_LINK_RESPONSE: next = srv_del_on_delete_link_response(lgr, why); break;
		}
		why = SMCR_WAKE_MSG;
	} while (next == STEP_GO_ON);
}

void smcr_llc_link_register(smcr_llc_handlers *h)
{
	h->proc[SMCR_PROC_CLNT_FIRST] = smcr_llc_proc_clnt_first;
	h->proc[SMCR_PROC_SRV_FIRST] = smcr_llc_proc_srv_first;
	h->proc[SMCR_PROC_SRV_ADD] = smcr_llc_proc_srv_add;
	h->proc[SMCR_PROC_CLNT_ADD] = smcr_llc_proc_clnt_add;
	h->proc[SMCR_PROC_CLNT_REQ_ADD] = smcr_llc_proc_clnt_req_add;
	h->proc[SMCR_PROC_SRV_DEL] = smcr_llc_proc_srv_del;
	h->cli_add_link_invite = smcr_llc_cli_add_link_invite;
	h->cli_delete_link = smcr_llc_process_cli_delete_link;
	h->clnt_linkdown_send = smcr_llc_clnt_linkdown_send;
}
