/* LLC link procedures (Linux smc_llc.c, af_smc.c): first-link confirmation (both roles),
 * ADD_LINK (server and client, v1 with ADD_LINK_CONT rkey exchange, v2 with the rkey
 * extension), the client's reject and suggestion, v2 REQUEST_ADD_LINK, DELETE_LINK (single,
 * all, both roles, with Linux's echo behaviour) and deleting a leftover asymmetric link.
 *
 * Each procedure is a small state machine over lgr->lcl.step; see llc_flow.c for how waits
 * suspend and resume it. The code follows the Linux functions step by step; their names are
 * given where a block corresponds to one. */
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

#define F (&lgr->lcl)

static smcr_link *flow_link(smcr_lgr *lgr) { return smcr_ctx_find_link(lgr->ctx, F->link_id); }
static smcr_link *flow_link_new(smcr_lgr *lgr) { return smcr_ctx_find_link(lgr->ctx, F->link_new_id); }

/* Messages ------------------------------------------------------------------------------- */

int smcr_llc_send_confirm_link(smcr_link *lnk, bool resp)
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

int smcr_llc_send_delete_link(smcr_link *lnk, uint8_t link_del_id, bool resp, bool orderly, uint32_t reason)
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
void smcr_llc_send_link_delete_all(smcr_lgr *lgr, bool orderly, uint32_t rsn)
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
	smcr_llc_msg m;
	smcr_llc_init_msg(lgr, &m, SMCR_LLC_ADD_LINK_CONT);
	m.u.add_link_cont.link_id = link_new->link_id;
	m.u.add_link_cont.n_remaining = F->rkeys_send;
	uint8_t n = F->rkeys_send, here = 0;
	for (uint8_t i = 0; i < (n < 2 ? n : 2); i++) {
		smcr_buf *b = smcr_buf_next_used_rmb(lgr, &F->buf_pos);
		if (!b) {
			m.u.add_link_cont.n_remaining = (uint8_t)(m.u.add_link_cont.n_remaining - F->rkeys_send);
			F->rkeys_send = 0;
			break;
		}
		m.u.add_link_cont.rkeys[i].rkey_known = b->mr[link->idx].info.rkey;
		m.u.add_link_cont.rkeys[i].rkey_new = b->mr[link_new->idx].info.rkey;
		m.u.add_link_cont.rkeys[i].vaddr_new = b->mr[link_new->idx].info.iova;
		here++;
		F->rkeys_send--;
	}
	m.u.add_link_cont.n_here = here;
	if (lgr->role == SMCR_ROLE_CLIENT)
		m.flags |= SMCR_LLC_FLAG_RESP;
	return smcr_llc_send(link, &m);
}

static void save_rkeys_cont(smcr_lgr *lgr, smcr_link *link, smcr_link *link_new, const smcr_llc_msg *q)
{
	uint8_t recv = q->u.add_link_cont.n_remaining;
	uint8_t max = recv < 2 ? recv : 2;
	for (uint8_t i = 0; i < max && i < q->u.add_link_cont.n_here; i++) {
		const smcr_rkey_pair *p = &q->u.add_link_cont.rkeys[i];
		smcr_rtoken_set(lgr, link->idx, link_new->idx, p->rkey_known, p->vaddr_new, p->rkey_new);
	}
	F->rkeys_recv = (uint8_t)(recv - max);
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
	F->link_new_id = 0;
}

/* First link, client (smcr_clnt_conf_first_link) ----------------------------------------- */

static void first_done(smcr_lgr *lgr, uint32_t rc)
{
	uint64_t conn_id = F->conn_id;
	smcr_role role = lgr->role;
	smcr_ctx *ctx = lgr->ctx;
	smcr_llc_flow_stop(lgr);
	smcr_conn *c = smcr_ctx_find_conn(ctx, conn_id);
	if (!c)
		return;
	if (role == SMCR_ROLE_CLIENT)
		smcr_clnt_first_link_done(c, rc);
	else
		smcr_srv_first_link_done(c, rc);
}

void smcr_llc_proc_clnt_first(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_ctx *ctx = lgr->ctx;
	smcr_llc_qentry *q;
	for (;;) {
		smcr_link *link = flow_link(lgr);
		switch (F->step) {
		case 0:
			/* receive CONFIRM LINK request from server over RoCE fabric; the client
			 * waits twice the server's time so Declines do not cross */
			F->step = 1;
			if (!smcr_llc_wait_msg(lgr, NULL, 2 * SMCR_LLC_WAIT_TIME, SMCR_LLC_CONFIRM_LINK))
				return;
			why = SMCR_WAKE_MSG;
			continue;
		case 1: {
			q = smcr_llc_flow_take(lgr, SMCR_LLC_CONFIRM_LINK, why, NULL);
			if (!q || !link) {
				first_done(lgr, SMCR_HS_RC_DECLINE_WAIT_FAIL);
				return;
			}
			save_peer_uid(lgr, q);
			/* smc_llc_eval_conf_link(): the server assigns the link id */
			link->link_id = q->msg.u.confirm_link.link_id;
			smcr_link_set_uid(link);
			bool eyec = !(q->msg.flags & SMCR_LLC_FLAG_NO_RMBE_EYEC);
			smcr_llc_flow_qentry_del(lgr);
			if (eyec) {
				first_done(lgr, SMCR_DECL_RMBE_EC);
				return;
			}
			if (smcr_link_modify_rts(link)) {
				first_done(lgr, SMCR_DECL_ERR_RDYLNK);
				return;
			}
			smcr_conn *c = smcr_ctx_find_conn(ctx, F->conn_id);
			if (c && c->rmb)
				c->rmb->is_conf_rkey = true; /* implicit on first contact */
			if (smcr_llc_send_confirm_link(link, true)) {
				first_done(lgr, SMCR_DECL_TIMEOUT_CL);
				return;
			}
			smcr_link_activate(link);
			smcr_lgr_set_type(lgr, SMCR_LGR_SINGLE);
			/* optional 2nd link, receive ADD LINK request from server */
			F->step = 2;
			if (!smcr_llc_wait_msg(lgr, NULL, SMCR_LLC_WAIT_TIME, SMCR_LLC_ADD_LINK))
				return;
			why = SMCR_WAKE_MSG;
			continue;
		}
		case 2: {
			q = smcr_llc_flow_take(lgr, SMCR_LLC_ADD_LINK, why, NULL);
			if (!q) {
				/* no ADD_LINK: a Decline within 1 s fails the connection, else go on
				 * with one link */
				first_done(lgr, SMCR_HS_RC_DECLINE_WAIT_OK);
				return;
			}
			F->qentry = NULL;
			F->proc = SMCR_PROC_CLNT_ADD;
			F->step = 0;
			F->req = q;
			smcr_llc_proc_clnt_add(lgr, SMCR_WAKE_START);
			return;
		}
		default:
			return;
		}
	}
}

/* First link, server (smcr_serv_conf_first_link) ----------------------------------------- */

void smcr_llc_proc_srv_first(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_ctx *ctx = lgr->ctx;
	for (;;) {
		smcr_link *link = flow_link(lgr);
		switch (F->step) {
		case 0:
			if (!link || smcr_llc_send_confirm_link(link, false)) {
				first_done(lgr, SMCR_DECL_TIMEOUT_CL);
				return;
			}
			F->step = 1;
			if (!smcr_llc_wait_msg(lgr, link, SMCR_LLC_WAIT_TIME, SMCR_LLC_CONFIRM_LINK))
				return;
			why = SMCR_WAKE_MSG;
			continue;
		case 1: {
			smcr_llc_qentry *q = smcr_llc_flow_take(lgr, SMCR_LLC_CONFIRM_LINK, why, NULL);
			if (!q || !link) {
				first_done(lgr, SMCR_HS_RC_DECLINE_WAIT_FAIL);
				return;
			}
			save_peer_uid(lgr, q);
			bool eyec = !(q->msg.flags & SMCR_LLC_FLAG_NO_RMBE_EYEC);
			smcr_llc_flow_qentry_del(lgr);
			if (eyec) {
				first_done(lgr, SMCR_DECL_RMBE_EC);
				return;
			}
			smcr_conn *c = smcr_ctx_find_conn(ctx, F->conn_id);
			if (c && c->rmb)
				c->rmb->is_conf_rkey = true;
			smcr_link_activate(link);
			smcr_lgr_set_type(lgr, SMCR_LGR_SINGLE);
			/* initial contact - try to establish second link */
			F->proc = SMCR_PROC_SRV_ADD;
			F->step = 0;
			F->req = NULL;
			smcr_llc_proc_srv_add(lgr, SMCR_WAKE_START);
			return;
		}
		default:
			return;
		}
	}
}

/* ADD_LINK, server (smc_llc_srv_add_link + smc_llc_delete_asym_link) ---------------------- */

static void srv_add_finish(smcr_lgr *lgr)
{
	if (F->send_req_add_link_resp && F->req) {
		/* smc_llc_send_req_add_link_response(): the request echoed, body zeroed */
		smcr_link *l = smcr_ctx_find_link(lgr->ctx, F->req->link_id);
		if (l) {
			smcr_llc_msg m;
			smcr_llc_init_msg(lgr, &m, SMCR_LLC_REQ_ADD_LINK);
			m.flags = (uint8_t)(F->req->msg.flags | SMCR_LLC_FLAG_RESP);
			smcr_llc_send(l, &m);
		}
	}
	if (F->conn_id) {
		first_done(lgr, 0);
		return;
	}
	smcr_llc_flow_stop(lgr);
}

static void srv_add_fail(smcr_lgr *lgr)
{
	clear_new_link(lgr);
	srv_add_finish(lgr);
}

void smcr_llc_proc_srv_add(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_ctx *ctx = lgr->ctx;
	for (;;) {
		smcr_link *link = flow_link(lgr);
		smcr_link *link_new = flow_link_new(lgr);
		switch (F->step) {
		case 0: {
			if (!F->link_id) {
				/* the link the trigger came on, or the first active one */
				smcr_link *l = F->req ? smcr_ctx_find_link(ctx, F->req->link_id) : NULL;
				if (!smcr_link_active(l))
					l = smcr_lgr_usable_link(lgr);
				if (!l) {
					srv_add_finish(lgr);
					return;
				}
				F->link_id = l->id;
				link = l;
			}
			if (!link) {
				srv_add_finish(lgr);
				return;
			}
			F->send_req_add_link_resp = F->req && F->req->msg.type == SMCR_LLC_REQ_ADD_LINK;
			if (lgr->type == SMCR_LGR_SINGLE && lgr->max_links <= 1) {
				srv_add_finish(lgr);
				return;
			}
			/* ignore the client's add link recommendation, start a new flow */
			smcr_dev_pick dev;
			F->lgr_new_t = SMCR_LGR_SYMMETRIC;
			if (!smcr_port_find_alt(ctx, lgr, link->port_index, &dev)) {
				F->lgr_new_t = SMCR_LGR_ASYMMETRIC_LOCAL;
				pick_same_port(link, &dev);
			}
			int idx = alloc_alt_link(lgr, F->lgr_new_t);
			if (idx < 0) {
				srv_add_finish(lgr);
				return;
			}
			smcr_link *n;
			if (smcr_link_init(lgr, idx, &dev, &n)) {
				srv_add_finish(lgr);
				return;
			}
			F->link_new_id = n->id;
			if (smcr_buf_map_lgr(n) || send_add_link(link, n->mac, n->gid, n, false)) {
				srv_add_fail(lgr);
				return;
			}
			F->send_req_add_link_resp = false;
			/* receive ADD LINK response over the RoCE fabric */
			F->step = 1;
			if (!smcr_llc_wait_msg(lgr, link, SMCR_LLC_WAIT_TIME, SMCR_LLC_ADD_LINK))
				return;
			why = SMCR_WAKE_MSG;
			continue;
		}
		case 1: {
			smcr_llc_qentry *q = smcr_llc_flow_take(lgr, SMCR_LLC_ADD_LINK, why, NULL);
			if (!q || !link || !link_new) {
				srv_add_fail(lgr);
				return;
			}
			if (q->msg.flags & SMCR_LLC_FLAG_ADD_LNK_REJ) {
				smcr_emit_simple(ctx, SMCR_EV_ADD_LINK_REJECTED, lgr->id, 0, q->msg.reject_reason, NULL);
				smcr_llc_flow_qentry_del(lgr);
				srv_add_fail(lgr);
				return;
			}
			if (lgr->type == SMCR_LGR_SINGLE && smcr_gid_eq(q->msg.u.add_link.gid, link->peer_gid) &&
			    (lgr->version == 2 || smcr_mac_eq(q->msg.u.add_link.mac, link->peer_mac)))
				F->lgr_new_t = SMCR_LGR_ASYMMETRIC_PEER;
			save_add_link_info(link_new, &q->msg);
			if (smcr_link_ready(link_new) || smcr_buf_map_lgr(link_new)) {
				smcr_llc_flow_qentry_del(lgr);
				srv_add_fail(lgr);
				return;
			}
			if (lgr->version == 2) {
				save_rkeys_v2(lgr, link, link_new, &q->msg);
				smcr_llc_flow_qentry_del(lgr);
				F->step = 4;
				continue;
			}
			smcr_llc_flow_qentry_del(lgr);
			/* smc_llc_srv_rkey_exchange(): the server sends first */
			F->rkeys_send = (uint8_t)(lgr->conns_num > 255 ? 255 : lgr->conns_num);
			F->buf_pos = 0;
			F->step = 2;
			continue;
		}
		case 2:
			send_add_link_cont(lgr, link, link_new);
			F->step = 3;
			if (!smcr_llc_wait_msg(lgr, link, SMCR_LLC_WAIT_TIME, SMCR_LLC_ADD_LINK_CONT))
				return;
			why = SMCR_WAKE_MSG;
			continue;
		case 3: {
			smcr_llc_qentry *q = smcr_llc_flow_take(lgr, SMCR_LLC_ADD_LINK_CONT, why, NULL);
			if (!q || !link || !link_new) {
				srv_add_fail(lgr);
				return;
			}
			save_rkeys_cont(lgr, link, link_new, &q->msg);
			smcr_llc_flow_qentry_del(lgr);
			F->step = (F->rkeys_send || F->rkeys_recv) ? 2 : 4;
			continue;
		}
		case 4:
			/* smc_llc_srv_conf_link(): CONFIRM_LINK request on the new link */
			if (!link_new || smcr_llc_send_confirm_link(link_new, false)) {
				srv_add_fail(lgr);
				return;
			}
			F->step = 5;
			if (!smcr_llc_wait_msg(lgr, link, SMCR_LLC_WAIT_FIRST_TIME, 0))
				return;
			why = SMCR_WAKE_MSG;
			continue;
		case 5: {
			smcr_llc_qentry *q = smcr_llc_flow_take(lgr, 0, why, NULL);
			if (!q || q->msg.type != SMCR_LLC_CONFIRM_LINK || !link_new) {
				if (link && link_new)
					smcr_llc_send_delete_link(link, link_new->link_id, false, false, SMCR_LLC_DEL_LOST_PATH);
				smcr_llc_flow_qentry_del(lgr);
				srv_add_fail(lgr);
				return;
			}
			save_peer_uid(lgr, q);
			smcr_link_activate(link_new);
			if (F->lgr_new_t == SMCR_LGR_ASYMMETRIC_LOCAL || F->lgr_new_t == SMCR_LGR_ASYMMETRIC_PEER)
				smcr_lgr_set_type_asym(lgr, F->lgr_new_t, link_new->idx);
			else
				smcr_lgr_set_type(lgr, F->lgr_new_t);
			smcr_llc_flow_qentry_del(lgr);
			F->link_new_id = 0;
			if (lgr->type != SMCR_LGR_SYMMETRIC) {
				srv_add_finish(lgr);
				return;
			}
			F->step = 6;
			continue;
		}
		case 6: {
			/* smc_llc_delete_asym_link() */
			smcr_link *asym = find_asym_link(lgr);
			if (!asym || !smcr_link_usable(asym)) {
				srv_add_finish(lgr);
				return;
			}
			asym->state = SMCR_LNK_INACTIVE;
			smcr_llc_link_unusable(asym);
			smcr_link *to = smcr_switch_conns(lgr, asym, false);
			if (!to) {
				smcr_link_clear(asym, true);
				srv_add_finish(lgr);
				return;
			}
			F->type = SMCR_FLOW_DEL_LINK; /* change the flow type from ADD_LINK */
			F->link_new_id = asym->id;    /* the link to delete */
			F->link_id = to->id;
			if (smcr_llc_send_delete_link(to, asym->link_id, false, true, SMCR_LLC_DEL_NO_ASYM_NEEDED)) {
				smcr_link_down(to, SMCR_LINKDOWN_WC_ERROR);
				smcr_link *a = flow_link_new(lgr);
				if (a)
					smcr_link_clear(a, true);
				srv_add_finish(lgr);
				return;
			}
			F->step = 7;
			if (!smcr_llc_wait_msg(lgr, to, SMCR_LLC_WAIT_TIME, SMCR_LLC_DELETE_LINK))
				return;
			why = SMCR_WAKE_MSG;
			continue;
		}
		case 7: {
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
			F->link_new_id = 0;
			srv_add_finish(lgr);
			return;
		}
		default:
			return;
		}
	}
}

/* ADD_LINK, client (smc_llc_cli_add_link) ------------------------------------------------ */

static void clnt_add_finish(smcr_lgr *lgr)
{
	if (F->conn_id) {
		first_done(lgr, 0);
		return;
	}
	smcr_llc_flow_stop(lgr);
}

/* smc_llc_cli_add_link_reject(): echo the request with RESP|REJ, reason 1. */
static void clnt_add_reject(smcr_lgr *lgr)
{
	smcr_llc_qentry *req = F->req;
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
	clnt_add_finish(lgr);
}

static void clnt_add_clear_reject(smcr_lgr *lgr)
{
	clear_new_link(lgr);
	clnt_add_reject(lgr);
}

void smcr_llc_proc_clnt_add(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_ctx *ctx = lgr->ctx;
	for (;;) {
		smcr_link *link = flow_link(lgr);
		smcr_link *lnk_new = flow_link_new(lgr);
		switch (F->step) {
		case 0: {
			const smcr_llc_msg *req = F->req ? &F->req->msg : NULL;
			smcr_link *l = F->req ? smcr_ctx_find_link(ctx, F->req->link_id) : NULL;
			if (!req || !smcr_link_usable(l)) {
				clnt_add_finish(lgr);
				return;
			}
			F->link_id = l->id;
			link = l;
			if (!req->u.add_link.mtu) {
				clnt_add_reject(lgr);
				return;
			}
			if (lgr->type == SMCR_LGR_SINGLE && lgr->max_links <= 1) {
				clnt_add_reject(lgr);
				return;
			}
			F->lgr_new_t = SMCR_LGR_SYMMETRIC;
			smcr_dev_pick dev;
			bool alt = smcr_port_find_alt(ctx, lgr, link->port_index, &dev);
			if (smcr_gid_eq(req->u.add_link.gid, link->peer_gid) &&
			    (lgr->version == 2 || smcr_mac_eq(req->u.add_link.mac, link->peer_mac))) {
				/* the server used the same RNIC again: only useful if we have another */
				if (!alt) {
					clnt_add_reject(lgr);
					return;
				}
				F->lgr_new_t = SMCR_LGR_ASYMMETRIC_PEER;
			}
			if (!alt) {
				F->lgr_new_t = SMCR_LGR_ASYMMETRIC_LOCAL;
				pick_same_port(link, &dev);
			}
			int idx = alloc_alt_link(lgr, F->lgr_new_t);
			if (idx < 0) {
				clnt_add_reject(lgr);
				return;
			}
			smcr_link *n;
			if (smcr_link_init(lgr, idx, &dev, &n)) {
				clnt_add_reject(lgr);
				return;
			}
			F->link_new_id = n->id;
			save_add_link_info(n, req);
			n->link_id = req->u.add_link.link_id; /* the server assigns link ids */
			smcr_link_set_uid(n);
			if (smcr_link_ready(n) || smcr_buf_map_lgr(n) || send_add_link(link, n->mac, n->gid, n, true)) {
				clnt_add_clear_reject(lgr);
				return;
			}
			if (lgr->version == 2) {
				save_rkeys_v2(lgr, link, n, req);
				F->step = 3;
				continue;
			}
			/* smc_llc_cli_rkey_exchange(): the client waits first */
			F->rkeys_send = (uint8_t)(lgr->conns_num > 255 ? 255 : lgr->conns_num);
			F->buf_pos = 0;
			F->step = 1;
			continue;
		}
		case 1:
			F->step = 2;
			if (!smcr_llc_wait_msg(lgr, NULL, SMCR_LLC_WAIT_TIME, SMCR_LLC_ADD_LINK_CONT))
				return;
			why = SMCR_WAKE_MSG;
			continue;
		case 2: {
			smcr_llc_qentry *q = smcr_llc_flow_take(lgr, SMCR_LLC_ADD_LINK_CONT, why, NULL);
			if (!q || !link || !lnk_new) {
				clnt_add_clear_reject(lgr);
				return;
			}
			save_rkeys_cont(lgr, link, lnk_new, &q->msg);
			smcr_llc_flow_qentry_del(lgr);
			if (send_add_link_cont(lgr, link, lnk_new)) {
				clnt_add_clear_reject(lgr);
				return;
			}
			F->step = (F->rkeys_send || F->rkeys_recv) ? 1 : 3;
			continue;
		}
		case 3:
			/* smc_llc_cli_conf_link(): CONFIRM LINK request over the new link */
			F->step = 4;
			if (!smcr_llc_wait_msg(lgr, NULL, SMCR_LLC_WAIT_FIRST_TIME, 0))
				return;
			why = SMCR_WAKE_MSG;
			continue;
		case 4: {
			smcr_llc_qentry *q = smcr_llc_flow_take(lgr, 0, why, NULL);
			if (!lnk_new || !link) {
				smcr_llc_flow_qentry_del(lgr);
				clnt_add_clear_reject(lgr);
				return;
			}
			if (!q) {
				smcr_llc_send_delete_link(link, lnk_new->link_id, false, false, SMCR_LLC_DEL_LOST_PATH);
				clnt_add_clear_reject(lgr);
				return;
			}
			if (q->msg.type != SMCR_LLC_CONFIRM_LINK) {
				/* received DELETE_LINK instead: answer it */
				smcr_llc_msg m = q->msg;
				m.flags |= SMCR_LLC_FLAG_RESP;
				smcr_llc_send(link, &m);
				smcr_llc_flow_qentry_del(lgr);
				clnt_add_clear_reject(lgr);
				return;
			}
			save_peer_uid(lgr, q);
			smcr_llc_flow_qentry_del(lgr);
			if (smcr_link_modify_rts(lnk_new) || smcr_buf_map_lgr(lnk_new) ||
			    smcr_llc_send_confirm_link(lnk_new, true)) {
				smcr_llc_send_delete_link(link, lnk_new->link_id, false, false, SMCR_LLC_DEL_LOST_PATH);
				clnt_add_clear_reject(lgr);
				return;
			}
			smcr_link_activate(lnk_new);
			if (F->lgr_new_t == SMCR_LGR_ASYMMETRIC_LOCAL || F->lgr_new_t == SMCR_LGR_ASYMMETRIC_PEER)
				smcr_lgr_set_type_asym(lgr, F->lgr_new_t, lnk_new->idx);
			else
				smcr_lgr_set_type(lgr, F->lgr_new_t);
			F->link_new_id = 0;
			clnt_add_finish(lgr);
			return;
		}
		default:
			return;
		}
	}
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
		smcr_llc_send_delete_link(to, lnk->link_id, false, true, SMCR_LLC_DEL_LOST_PATH);
	smcr_link_clear(lnk, true);
}

/* smc_llc_process_srv_delete_link(): send the request (the peer's request echoed, or the
 * local trigger), wait for the response, then remove the link and try a new one. */
void smcr_llc_proc_srv_del(smcr_lgr *lgr, smcr_llc_wake why)
{
	smcr_ctx *ctx = lgr->ctx;
	for (;;) {
		switch (F->step) {
		case 0: {
			smcr_llc_qentry *q = F->req;
			smcr_link *lnk = q ? smcr_ctx_find_link(ctx, q->link_id) : NULL;
			if (!q) {
				smcr_llc_flow_stop(lgr);
				return;
			}
			if (q->msg.flags & SMCR_LLC_FLAG_DEL_LINK_ALL) {
				/* delete the entire lgr: echo, then terminate */
				uint32_t rsn = q->msg.u.delete_link.reason;
				smcr_llc_send_link_delete_all(lgr, true, rsn);
				smcr_llc_msg m = q->msg;
				smcr_llc_flow_stop(lgr);
				smcr_lgr_end_by_peer(lgr, &m);
				return;
			}
			smcr_link *lnk_del = link_by_num(lgr, q->msg.u.delete_link.link_id);
			if (!lnk_del) {
				smcr_llc_flow_stop(lgr); /* asymmetric link already deleted */
				return;
			}
			F->link_new_id = lnk_del->id;
			F->link_id = lnk ? lnk->id : 0;
			if (lnk_del->state == SMCR_LNK_ACTIVE || lnk_del->state == SMCR_LNK_ACTIVATING) {
				if (!q->local)
					smcr_link_emit(lnk_del, SMCR_EV_LINK_DOWN, SMCR_LINKDOWN_PEER_DELETE,
					               q->msg.u.delete_link.reason);
				lnk_del->state = SMCR_LNK_INACTIVE;
				smcr_llc_link_unusable(lnk_del);
				smcr_switch_conns(lgr, lnk_del, false);
			}
			F->step = 2;
			if (lgr->listed && lnk && smcr_link_usable(lnk)) {
				smcr_llc_msg m = q->msg; /* sent back as our own request */
				if (!smcr_llc_send(lnk, &m)) {
					F->step = 1;
					if (!smcr_llc_wait_msg(lgr, lnk, SMCR_LLC_WAIT_TIME, SMCR_LLC_DELETE_LINK))
						return;
					why = SMCR_WAKE_MSG;
				}
			}
			continue;
		}
		case 1: {
			smcr_llc_qentry *q2 = smcr_llc_flow_take(lgr, SMCR_LLC_DELETE_LINK, why, NULL);
			if (q2)
				smcr_llc_flow_qentry_del(lgr);
			F->step = 2;
			continue;
		}
		case 2: {
			smcr_link *lnk_del = flow_link_new(lgr);
			if (lnk_del)
				smcr_link_clear(lnk_del, true);
			after_link_removed(lgr);
			smcr_link *lnk = flow_link(lgr);
			if (lgr->type == SMCR_LGR_SINGLE && lgr->listed && smcr_link_active(lnk)) {
				/* trigger setup of an asymmetric alternate link */
				smcr_llc_flow_stop(lgr);
				if ((lnk = smcr_ctx_find_link(ctx, lnk->id)) != NULL)
					smcr_llc_add_link_local(lnk);
				return;
			}
			smcr_llc_flow_stop(lgr);
			return;
		}
		default:
			return;
		}
	}
}
