/* Link groups (Linux smc_core.c): creation, the reuse match rules, connection
 * registration with alert tokens and link balancing, types, idle linger and termination.
 *
 * An lgr is listed (matchable) from creation until it starts ending. Ending is either the
 * idle linger running out (DELETE_LINK ALL + ORDERLY, reason 0x00030000) or termination
 * (connections killed, DELETE_LINK ALL with the termination reason). Both wait for the send
 * completion of that DELETE_LINK (at most 2 s, like smc_llc_send_message_wait) before the
 * QPs are destroyed, so the message really leaves; a send that fails or times out is made
 * again on the next link. */
#include "model/lgr_int.h"

#include <string.h>

#include "model/addr_int.h"
#include "model/buf_int.h"
#include "model/clc.h"
#include "model/conn_int.h"
#include "model/ctx_int.h"
#include "model/handshake_int.h"
#include "model/index_int.h"
#include "model/link_int.h"
#include "model/list_int.h"
#include "model/llc.h"
#include "model/llc_flow_int.h"
#include "model/mem_int.h"
#include "model/port_int.h"
#include "model/smcr.h"
#include "model/smcr_err.h"
#include "model/timer_int.h"

static void term_send_done(smcr_lgr *lgr);

/* What an lgr reuse must match exactly, as one key for ctx->lgrs_by_peer (FNV-1a). */
static uint64_t match_key(smcr_role role, const uint8_t peer_system_id[8], uint8_t version, uint16_t vlan_id)
{
	uint8_t k[12];
	k[0] = (uint8_t)role;
	k[1] = version;
	k[2] = (uint8_t)(vlan_id >> 8);
	k[3] = (uint8_t)vlan_id;
	memcpy(&k[4], peer_system_id, 8);
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < sizeof(k); i++) {
		h ^= k[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static smcr_lgr *lgr_alloc(smcr_ctx *ctx)
{
	smcr_lgr *lgr = smcr_alloc(ctx, sizeof(*lgr));
	if (!lgr)
		return NULL;
	if (smcr_timer_reserve(ctx, 4)) {
		smcr_free(ctx, lgr);
		return NULL;
	}
	lgr->ctx = ctx;
	smcr_list_init(&lgr->node);
	smcr_list_init(&lgr->conns);
	smcr_list_init(&lgr->rmbs);
	smcr_list_init(&lgr->sndbufs);
	smcr_timer_init(&lgr->free_timer, SMCR_TMR_LGR_FREE, lgr);
	smcr_timer_init(&lgr->llc_timer, SMCR_TMR_LGR_LLC, lgr);
	smcr_timer_init(&lgr->flow_timer, SMCR_TMR_LGR_FLOW, lgr);
	smcr_timer_init(&lgr->term_timer, SMCR_TMR_LGR_TERM, lgr);
	smcr_llc_lgr_init(lgr);
	return lgr;
}

int smcr_lgr_create(smcr_ctx *ctx, smcr_conn *conn, smcr_hs_ini *ini, smcr_lgr **out)
{
	int32_t port = ini->version == 2 ? ini->port_v2 : ini->port_v1;
	if (port < 0)
		return (int)SMCR_DECL_INTERR;
	smcr_lgr *lgr = lgr_alloc(ctx);
	if (!lgr)
		return (int)SMCR_DECL_MEM;
	lgr->id = ++ctx->next_lgr_id;
	ctx->lgr_num += 256; /* SMC_LGR_NUM_INCR */
	lgr->num = ctx->lgr_num;
	lgr->role = conn->role;
	lgr->version = ini->version;
	lgr->vlan_id = ini->vlan_id;
	memcpy(lgr->peer_system_id, ini->peer_system_id, 8);
	memcpy(lgr->pnet_id, ctx->ports[port].d.pnet_id, 16);
	lgr->type = SMCR_LGR_NONE;
	/* smc_lgr_create(): the sysctls only bound what a v2.1 first contact negotiates;
	 * v1 and v2.0 link groups take SMC_CONN_PER_LGR_MAX and SMC_LINKS_ADD_LNK_MAX */
	lgr->max_conns = SMCR_CONN_PER_LGR_MAX;
	lgr->max_links = SMCR_LINKS_ADD_LNK_MAX;
	if (ini->version == 2) {
		memcpy(lgr->negotiated_eid, ini->negotiated_eid, SMCR_EID_LEN);
		lgr->uses_gateway = ini->uses_gateway;
		memcpy(lgr->nexthop_mac, ini->nexthop_mac, 6);
		lgr->saddr = conn->tcp->local_ipv4;
		if (ini->release >= 1) {
			lgr->max_conns = ini->max_conns;
			lgr->max_links = ini->max_links;
		}
	}
	smcr_dev_pick dev;
	memset(&dev, 0, sizeof(dev));
	dev.port = port;
	memcpy(dev.gid, ini->version == 2 ? ini->gid_v2 : ini->gid_v1, 16);
	dev.sgid_index = ini->version == 2 ? ini->sgid_index_v2 : ini->sgid_index_v1;
	smcr_link *lnk;
	int rc = smcr_link_init(lgr, 0, &dev, &lnk);
	if (rc) {
		smcr_llc_lgr_clear(lgr);
		smcr_timer_reserve(ctx, -4);
		smcr_free(ctx, lgr);
		return rc == SMCR_ERR_NOMEM ? (int)SMCR_DECL_MEM : (int)SMCR_DECL_INTERR;
	}
	smcr_list_add_tail(&ctx->lgrs, &lgr->node);
	if (++ctx->stats.lgrs_now > ctx->stats.lgr_peak)
		ctx->stats.lgr_peak = ctx->stats.lgrs_now;
	smcr_zos_blocks_update(lgr); /* the basic set */
	smcr_index_add(ctx, &ctx->lgrs_by_peer, &lgr->peer_node,
	               match_key(lgr->role, lgr->peer_system_id, lgr->version, lgr->vlan_id));
	lgr->listed = true;
	smcr_emit_simple(ctx, SMCR_EV_LGR_CREATED, lgr->id, conn->id, 0, NULL);
	*out = lgr;
	return 0;
}

/* smc_lgr_find(): the first listed lgr, in creation order, that the connection may join.
 * Only lgrs of the same role, peer, version and VLAN can match; the index hands those
 * (and any that share their key) over in creation order, so the first match is the one a
 * walk of every listed lgr would find. */
smcr_lgr *smcr_lgr_match(smcr_ctx *ctx, smcr_role role, const smcr_hs_ini *ini)
{
	uint64_t key = match_key(role, ini->peer_system_id, ini->version, ini->vlan_id);
	for (smcr_index_node *n = smcr_index_find(&ctx->lgrs_by_peer, key); n; n = smcr_index_next(n)) {
		smcr_lgr *lgr = SMCR_CONTAINER_OF(n, smcr_lgr, peer_node);
		if (lgr->role != role || memcmp(lgr->peer_system_id, ini->peer_system_id, 8) ||
		    lgr->sync_err || lgr->terminating || lgr->version != ini->version ||
		    lgr->vlan_id != ini->vlan_id)
			continue;
		if (role == SMCR_ROLE_SERVER &&
		    (lgr->conns_num >= lgr->max_conns || lgr->conns_num >= SMCR_RMBS_PER_LGR_MAX))
			continue;
		for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++) {
			smcr_link *l = lgr->lnk[i];
			if (!smcr_link_active(l))
				continue;
			if ((role == SMCR_ROLE_SERVER || l->peer_qpn == ini->ib_clcqpn) &&
			    smcr_gid_eq(l->peer_gid, ini->peer_gid) &&
			    (ini->version == 2 || smcr_mac_eq(l->peer_mac, ini->peer_mac)))
				return lgr;
		}
	}
	return NULL;
}

/* smcr_lgr_conn_assign_link(): the server balances (odd connection count -> the second
 * usable link); the client takes any link for now, the Accept's QPN decides later. */
static int assign_link(smcr_lgr *lgr, smcr_conn *conn, bool first)
{
	smcr_link_state expected = first ? SMCR_LNK_ACTIVATING : SMCR_LNK_ACTIVE;
	conn->lnk = NULL;
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++) {
		smcr_link *l = lgr->lnk[i];
		if (!l || l->state != expected || l->asym)
			continue;
		if (lgr->role == SMCR_ROLE_CLIENT) {
			conn->lnk = l;
			break;
		}
		if (lgr->conns_num % 2) {
			for (int j = i + 1; j < SMCR_LINKS_PER_LGR_MAX; j++) {
				smcr_link *l2 = lgr->lnk[j];
				if (l2 && l2->state == expected && !l2->asym) {
					conn->lnk = l2;
					break;
				}
			}
		}
		if (!conn->lnk)
			conn->lnk = l;
		break;
	}
	if (!conn->lnk)
		return (int)SMCR_DECL_NOACTLINK;
	conn->lnk->conn_cnt++;
	return 0;
}

int smcr_lgr_register_conn(smcr_lgr *lgr, smcr_conn *conn, bool first)
{
	smcr_ctx *ctx = lgr->ctx;
	int rc = assign_link(lgr, conn, first);
	if (rc)
		return rc;
	conn->lgr = lgr;
	/* a token not yet used in this lgr, from the context-wide counter (Linux: nexttoken) */
	while (!conn->alert_token_local) {
		uint32_t t = ++ctx->next_token;
		if (t && !smcr_lgr_find_conn(lgr, t))
			conn->alert_token_local = t;
	}
	uint32_t b = conn->alert_token_local % SMCR_TOKEN_BUCKETS;
	conn->token_next = lgr->token_hash[b];
	lgr->token_hash[b] = conn;
	smcr_list_add_tail(&lgr->conns, &conn->lgr_node);
	lgr->conns_num++;
	if (++ctx->stats.conns_now > ctx->stats.conn_peak)
		ctx->stats.conn_peak = ctx->stats.conns_now;
	conn->registered = true;
	smcr_timer_cancel(ctx, &lgr->free_timer);
	return 0;
}

void smcr_lgr_unregister_conn(smcr_conn *conn)
{
	smcr_lgr *lgr = conn->lgr;
	if (!lgr || !conn->registered)
		return;
	smcr_conn **pp = &lgr->token_hash[conn->alert_token_local % SMCR_TOKEN_BUCKETS];
	while (*pp && *pp != conn)
		pp = &(*pp)->token_next;
	if (*pp)
		*pp = conn->token_next;
	conn->token_next = NULL;
	smcr_list_del(&conn->lgr_node);
	if (conn->lnk && conn->lnk->conn_cnt)
		conn->lnk->conn_cnt--;
	lgr->conns_num--;
	if (lgr->ctx->stats.conns_now)
		lgr->ctx->stats.conns_now--;
	conn->alert_token_local = 0;
	conn->registered = false;
}

static const char *type_name(smcr_lgr_type t)
{
	switch (t) {
	case SMCR_LGR_NONE: return "NONE";
	case SMCR_LGR_SINGLE: return "SINGLE";
	case SMCR_LGR_SYMMETRIC: return "SYMMETRIC";
	case SMCR_LGR_ASYMMETRIC_PEER: return "ASYMMETRIC_PEER";
	case SMCR_LGR_ASYMMETRIC_LOCAL: return "ASYMMETRIC_LOCAL";
	}
	return "?";
}

void smcr_lgr_set_type(smcr_lgr *lgr, smcr_lgr_type t)
{
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++)
		if (smcr_link_usable(lgr->lnk[i]))
			lgr->lnk[i]->asym = false;
	if (lgr->type == t)
		return;
	lgr->type = t;
	smcr_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = SMCR_EV_LGR_TYPE;
	ev.lgr_id = lgr->id;
	ev.lgr_type = t;
	ev.text = type_name(t);
	smcr_emit(lgr->ctx, &ev);
}

void smcr_lgr_set_type_asym(smcr_lgr *lgr, smcr_lgr_type t, int asym_idx)
{
	smcr_lgr_set_type(lgr, t);
	if (lgr->lnk[asym_idx])
		lgr->lnk[asym_idx]->asym = true;
}

uint32_t smcr_lgr_active_links(const smcr_lgr *lgr)
{
	uint32_t n = 0;
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++)
		if (smcr_link_active(lgr->lnk[i]))
			n++;
	return n;
}

smcr_link *smcr_lgr_usable_link(const smcr_lgr *lgr)
{
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++)
		if (smcr_link_active(lgr->lnk[i]))
			return lgr->lnk[i];
	return NULL;
}

void smcr_lgr_schedule_free(smcr_lgr *lgr)
{
	if (lgr->terminating || lgr->freeing || !lgr->listed)
		return;
	uint64_t delay = lgr->role == SMCR_ROLE_CLIENT ? SMCR_LGR_FREE_DELAY_CLNT : SMCR_LGR_FREE_DELAY_SERV;
	smcr_timer_arm(lgr->ctx, &lgr->free_timer, lgr->ctx->now + delay);
}

static void delist(smcr_lgr *lgr)
{
	if (!lgr->listed)
		return;
	smcr_list_del(&lgr->node);
	smcr_index_del(&lgr->ctx->lgrs_by_peer, &lgr->peer_node);
	smcr_list_add_tail(&lgr->ctx->dying_lgrs, &lgr->node);
	lgr->listed = false;
}

/* smc_llc_send_link_delete_all(): DELETE_LINK ALL on the links in turn, each send waited
 * for (2 s at most, smc_llc_send_message_wait), until one went out. A send that cannot be
 * posted or whose wait times out moves on to the next link, as in Linux. A send that
 * completes with an error counts as sent, as in Linux (smc_wr_tx_process_cqe() completes
 * the waiter whatever the status): when it was flushed on a path that just died, a peer
 * whose other link still works learns of the end only from its TEST_LINK. */
static int send_delete_all(smcr_lgr *lgr, smcr_link *l)
{
	smcr_llc_msg m;
	smcr_llc_init_msg(lgr, &m, SMCR_LLC_DELETE_LINK);
	m.flags = SMCR_LLC_FLAG_DEL_LINK_ALL | (lgr->term_orderly ? SMCR_LLC_FLAG_DEL_LINK_ORDERLY : 0);
	m.u.delete_link.reason = lgr->term_rsn;
	return smcr_llc_send_wait(l, &m);
}

static void delete_all_next(smcr_lgr *lgr)
{
	smcr_ctx *ctx = lgr->ctx;
	lgr->term_wait_link = 0;
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++) {
		if (!(lgr->term_links & (1u << i)))
			continue;
		lgr->term_links &= (uint8_t) ~(1u << i);
		smcr_link *l = lgr->lnk[i];
		if (!l)
			continue;
		if (send_delete_all(lgr, l) == 0 && !lgr->dead) {
			lgr->term_wait_link = l->id;
			smcr_timer_arm(ctx, &lgr->term_timer, ctx->now + SMCR_LLC_WAIT_TIME);
			return;
		}
		if (lgr->dead)
			return;
	}
	term_send_done(lgr);
}

/* The links are deactivated at once (smcr_lgr_link_deactivate_all), the DELETE_LINK ALL
 * still goes out on them; the QPs are destroyed once it did. */
static void lgr_end(smcr_lgr *lgr, bool orderly, uint32_t rsn)
{
	lgr->term_orderly = orderly;
	lgr->term_rsn = rsn;
	lgr->term_links = 0;
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++)
		if (smcr_link_sendable(lgr->lnk[i]) && lgr->lnk[i]->state == SMCR_LNK_ACTIVE)
			lgr->term_links |= (uint8_t)(1u << i);
	/* the first candidate is sent on while still active, as before the links go */
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX && lgr->term_links; i++) {
		if (!(lgr->term_links & (1u << i)))
			continue;
		lgr->term_links &= (uint8_t) ~(1u << i);
		if (send_delete_all(lgr, lgr->lnk[i]) == 0) {
			lgr->term_wait_link = lgr->lnk[i]->id;
			break;
		}
	}
	/* smcr_lgr_link_deactivate_all() */
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++) {
		smcr_link *l = lgr->lnk[i];
		if (smcr_link_usable(l)) {
			l->state = SMCR_LNK_INACTIVE;
			smcr_llc_link_unusable(l);
		}
	}
	if (lgr->term_wait_link)
		smcr_timer_arm(lgr->ctx, &lgr->term_timer, lgr->ctx->now + SMCR_LLC_WAIT_TIME);
	else
		delete_all_next(lgr);
}

void smcr_lgr_term_send_result(smcr_lgr *lgr, bool ok)
{
	if (lgr->dead)
		return;
	smcr_timer_cancel(lgr->ctx, &lgr->term_timer);
	if (ok)
		term_send_done(lgr);
	else
		delete_all_next(lgr);
}

static void term_send_done(smcr_lgr *lgr)
{
	if (lgr->dead)
		return;
	lgr->term_wait_link = 0;
	lgr->term_links = 0;
	smcr_timer_cancel(lgr->ctx, &lgr->term_timer);
	/* smc_lgr_free(): clear every link, free the buffers; memory goes when the call
	 * that got here returns */
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++)
		if (lgr->lnk[i])
			smcr_link_clear(lgr->lnk[i], false);
	smcr_llc_lgr_clear(lgr);
	smcr_buf_free_all(lgr);
	smcr_timer_cancel(lgr->ctx, &lgr->free_timer);
	smcr_timer_cancel(lgr->ctx, &lgr->llc_timer);
	smcr_timer_cancel(lgr->ctx, &lgr->flow_timer);
	lgr->dead = true;
	smcr_list_del(&lgr->node);
	smcr_index_del(&lgr->ctx->lgrs_by_peer, &lgr->peer_node);
	smcr_list_add_tail(&lgr->ctx->reap_lgrs, &lgr->node);
	smcr_emit_simple(lgr->ctx, SMCR_EV_LGR_FREED, lgr->id, 0, 0, NULL);
}

/* the wait for the DELETE_LINK ALL's completion ran out: -ENODATA, the next link */
void smcr_lgr_on_term_timer(smcr_lgr *lgr) { smcr_lgr_term_send_result(lgr, false); }

static void emit_end(smcr_lgr *lgr, smcr_lgr_end how, uint32_t reason, const char *cause)
{
	smcr_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = SMCR_EV_LGR_TERMINATED;
	ev.lgr_id = lgr->id;
	ev.lgr_end = how;
	ev.reason = reason;
	ev.text = cause;
	smcr_emit(lgr->ctx, &ev);
}

void smcr_lgr_on_free_timer(smcr_lgr *lgr)
{
	/* smc_lgr_free_work() */
	if (lgr->freeing || lgr->terminating || lgr->conns_num)
		return;
	delist(lgr);
	lgr->freeing = true;
	smcr_llc_lgr_clear(lgr);
	emit_end(lgr, SMCR_LGR_END_IDLE, SMCR_LLC_DEL_PROG_INIT_TERM, NULL);
	lgr_end(lgr, true, SMCR_LLC_DEL_PROG_INIT_TERM);
}

/* smc_lgr_terminate_sched() + __smc_lgr_terminate() */
static void terminate(smcr_lgr *lgr, smcr_lgr_end how, uint32_t reason, const char *cause)
{
	if (lgr->terminating || lgr->dead)
		return;
	lgr->terminating = true;
	lgr->freeing = true;
	delist(lgr);
	smcr_timer_cancel(lgr->ctx, &lgr->free_timer);
	if (how != SMCR_LGR_END_PEER_ORDERLY)
		lgr->ctx->stats.lgr_terminated_cnt++;
	emit_end(lgr, how, reason, cause);
	/* kill the connections (smc_conn_kill) */
	while (!smcr_list_empty(&lgr->conns)) {
		smcr_conn *c = SMCR_CONTAINER_OF(lgr->conns.next, smcr_conn, lgr_node);
		smcr_conn_kill(c);
	}
	/* the LLC machinery stops: waiting flows and initiators fail */
	smcr_llc_lgr_clear(lgr);
	uint32_t r = lgr->termination_rsn ? lgr->termination_rsn : SMCR_LLC_DEL_PROG_INIT_TERM;
	lgr_end(lgr, false, r);
}

void smcr_lgr_terminate(smcr_lgr *lgr, uint32_t rsn, const char *cause)
{
	if (lgr->terminating || lgr->dead)
		return;
	if (rsn && !lgr->termination_rsn)
		lgr->termination_rsn = rsn;
	terminate(lgr, SMCR_LGR_END_ABNORMAL, lgr->termination_rsn, cause);
}

void smcr_lgr_end_by_peer(smcr_lgr *lgr, const smcr_llc_msg *m)
{
	/* Linux terminates either way (smc_lgr_terminate_sched); the orderly flag says
	 * whether the peer ended an idle lgr or gave up on it */
	bool orderly = m->flags & SMCR_LLC_FLAG_DEL_LINK_ORDERLY;
	terminate(lgr, orderly ? SMCR_LGR_END_PEER_ORDERLY : SMCR_LGR_END_PEER_ABNORMAL, m->u.delete_link.reason, NULL);
}

void smcr_lgr_cleanup_early(smcr_lgr *lgr)
{
	if (lgr)
		smcr_lgr_terminate(lgr, 0, "the handshake that created it failed");
}

void smcr_lgr_free_now(smcr_lgr *lgr)
{
	smcr_ctx *ctx = lgr->ctx;
	if (!lgr->dead) {
		for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++)
			if (lgr->lnk[i])
				smcr_link_clear(lgr->lnk[i], false);
		smcr_llc_lgr_clear(lgr);
		smcr_buf_free_all(lgr);
		smcr_timer_cancel(ctx, &lgr->free_timer);
		smcr_timer_cancel(ctx, &lgr->llc_timer);
		smcr_timer_cancel(ctx, &lgr->flow_timer);
		smcr_timer_cancel(ctx, &lgr->term_timer);
	}
	smcr_index_del(&ctx->lgrs_by_peer, &lgr->peer_node);
	smcr_timer_reserve(ctx, -4);
	ctx->stats.zos_rmb_blocks_now -= lgr->zos_blocks;
	if (ctx->stats.lgrs_now)
		ctx->stats.lgrs_now--;
	smcr_free(ctx, lgr);
}

void smcr_lgr_fill_info(const smcr_lgr *lgr, smcr_lgr_info *out)
{
	memset(out, 0, sizeof(*out));
	out->id = lgr->id;
	out->lgr_num = lgr->num;
	out->role = lgr->role;
	out->type = lgr->type;
	out->version = lgr->version;
	memcpy(out->peer_system_id, lgr->peer_system_id, 8);
	out->vlan_id = lgr->vlan_id;
	memcpy(out->pnet_id, lgr->pnet_id, sizeof(out->pnet_id));
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++)
		if (lgr->lnk[i])
			out->link_ids[out->n_links++] = lgr->lnk[i]->id;
	out->conns_num = lgr->conns_num;
	const smcr_list *pos;
	for (pos = lgr->sndbufs.next; pos != &lgr->sndbufs; pos = pos->next)
		out->sndbuf_bytes += SMCR_CONTAINER_OF(pos, smcr_buf, node)->len;
	for (pos = lgr->rmbs.next; pos != &lgr->rmbs; pos = pos->next)
		out->rmb_bytes += SMCR_CONTAINER_OF(pos, smcr_buf, node)->len;
	out->terminating = lgr->terminating || lgr->freeing;
	out->max_conns = lgr->max_conns;
	out->max_links = lgr->max_links;
	out->peer_release = lgr->peer_release;
	out->peer_os = lgr->peer_os;
	memcpy(out->negotiated_eid, lgr->negotiated_eid, SMCR_EID_LEN);
	memcpy(out->peer_hostname, lgr->peer_hostname, SMCR_HOSTNAME_LEN);
	out->v2_direct = !lgr->uses_gateway;
}
