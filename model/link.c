/* Links (Linux smcr_link_init, smc_ib.c QP setup, smcr_link_down/_clear, TEST_LINK).
 *
 * A link is one RC QP pair between a local and a peer RoCE port: the 7-tuple
 * (local MAC, GID, QPN, peer MAC, GID, QPN, VLAN), a 1-byte link number assigned by the
 * server and a 4-byte link user id (Linux: htonl(lgr id + link id)). States UNUSED ->
 * ACTIVATING -> ACTIVE -> INACTIVE. QP attributes are exactly the ones smc_ib.c sets. */
#include "model/link_int.h"

#include <string.h>

#include "model/buf_int.h"
#include "model/conn_int.h"
#include "model/ctx_int.h"
#include "model/lgr_int.h"
#include "model/list_int.h"
#include "model/llc_flow_int.h"
#include "model/mem_int.h"
#include "model/port_int.h"
#include "model/smcr.h"
#include "model/smcr_err.h"
#include "model/smcr_transport.h"
#include "model/timer_int.h"
#include "model/wr_int.h"

#define SMCR_QP_MIN_RNR_TIMER 5
#define SMCR_QP_TIMEOUT 15
#define SMCR_QP_RETRY_CNT 7
#define SMCR_QP_RNR_RETRY 7

/* smcr_next_link_id(): per-lgr counter, skipping 0 and ids of usable links. */
static uint8_t next_link_id(smcr_lgr *lgr)
{
	for (;;) {
		uint8_t id = ++lgr->next_link_id;
		if (!id)
			id = ++lgr->next_link_id;
		bool used = false;
		for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++)
			if (smcr_link_usable(lgr->lnk[i]) && lgr->lnk[i]->link_id == id)
				used = true;
		if (!used)
			return id;
	}
}

void smcr_link_set_uid(smcr_link *lnk)
{
	/* htonl(*(u32 *)lgr->id + link_id); lgr->id holds the counter in host order */
	lnk->link_uid = lnk->lgr->num + lnk->link_id;
}

int smcr_link_init(smcr_lgr *lgr, int idx, const smcr_dev_pick *dev, smcr_link **out)
{
	smcr_ctx *ctx = lgr->ctx;
	if (dev->port < 0 || (uint32_t)dev->port >= ctx->n_ports)
		return SMCR_ERR_INVAL;
	smcr_link *lnk = smcr_alloc(ctx, sizeof(*lnk));
	if (!lnk)
		return SMCR_ERR_NOMEM;
	if (smcr_timer_reserve(ctx, 2)) {
		smcr_free(ctx, lnk);
		return SMCR_ERR_NOMEM;
	}
	const smcr_port_desc *pd = &ctx->ports[dev->port].d;
	lnk->ctx = ctx;
	lnk->lgr = lgr;
	lnk->idx = (uint8_t)idx;
	smcr_list_init(&lnk->reap_node);
	smcr_list_init(&lnk->slot_waiters);
	smcr_list_init(&lnk->llc_outq);
	smcr_timer_init(&lnk->slot_timer, SMCR_TMR_LINK_SLOT, lnk);
	smcr_timer_init(&lnk->testlink_timer, SMCR_TMR_LINK_TESTLINK, lnk);
	lnk->port_index = (uint32_t)dev->port;
	memcpy(lnk->gid, dev->gid, 16);
	lnk->sgid_index = dev->sgid_index;
	memcpy(lnk->mac, pd->mac, 6);
	lnk->vlan_id = lgr->vlan_id;
	lnk->path_mtu = pd->active_mtu;
	lnk->link_id = next_link_id(lgr);
	uint8_t r[3];
	smcr_rand(ctx, r, sizeof(r));
	lnk->psn_initial = (uint32_t)r[0] | ((uint32_t)r[1] << 8) | ((uint32_t)r[2] << 16);
	lnk->testlink_time = ctx->set.testlink_time;
	lnk->id = ++ctx->next_link_id;
	smcr_link_set_uid(lnk);
	int rc = smcr_wr_alloc_link(lnk);
	if (rc)
		goto fail;
	smcr_qp_caps caps = {
		.max_send_wr = (uint32_t)lnk->n_slots * 3u,
		.max_recv_wr = lnk->n_rx,
		.max_send_sge = 2,
		.max_recv_sge = 1,
		.max_inline_data = 0,
	};
	lnk->qp = ctx->ops->create_qp(ctx->tp, pd->dev, pd->port, &caps, lnk, &lnk->qpn);
	if (!lnk->qp) {
		rc = SMCR_ERR_TRANSPORT;
		goto fail_wr;
	}
	rc = smcr_ctx_register_link(ctx, lnk);
	if (rc)
		goto fail_qp;
	lnk->state = SMCR_LNK_ACTIVATING;
	lgr->lnk[idx] = lnk;
	*out = lnk;
	return 0;
fail_qp:
	ctx->ops->destroy_qp(ctx->tp, lnk->qp);
fail_wr:
	smcr_wr_free_link(lnk);
fail:
	smcr_timer_reserve(ctx, -2);
	smcr_free(ctx, lnk);
	return rc;
}

static int modify(smcr_link *lnk, const smcr_qp_attr *a)
{
	smcr_ctx *ctx = lnk->ctx;
	return ctx->ops->modify_qp(ctx->tp, lnk->qp, a) ? SMCR_ERR_TRANSPORT : 0;
}

static int modify_init(smcr_link *lnk)
{
	smcr_qp_attr a;
	memset(&a, 0, sizeof(a));
	a.state = SMCR_QPS_INIT;
	a.pkey_index = 0;
	a.port = lnk->ctx->ports[lnk->port_index].d.port;
	a.access = SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE;
	return modify(lnk, &a);
}

static int modify_rtr(smcr_link *lnk)
{
	smcr_lgr *lgr = lnk->lgr;
	smcr_qp_attr a;
	memset(&a, 0, sizeof(a));
	a.state = SMCR_QPS_RTR;
	a.path_mtu = lnk->peer_mtu && lnk->peer_mtu < lnk->path_mtu ? (smcr_mtu)lnk->peer_mtu : lnk->path_mtu;
	memcpy(a.ah.dgid, lnk->peer_gid, 16);
	a.ah.sgid_index = lnk->sgid_index;
	a.ah.hop_limit = 1;
	if (lgr->version == 2 && lgr->uses_gateway) {
		a.ah.hop_limit = 64; /* IPV6_DEFAULT_HOPLIMIT */
		memcpy(a.ah.dmac, lgr->nexthop_mac, 6);
	} else {
		memcpy(a.ah.dmac, lnk->peer_mac, 6);
	}
	a.dest_qpn = lnk->peer_qpn;
	a.rq_psn = lnk->peer_psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = SMCR_QP_MIN_RNR_TIMER;
	return modify(lnk, &a);
}

int smcr_link_modify_rts(smcr_link *lnk)
{
	smcr_qp_attr a;
	memset(&a, 0, sizeof(a));
	a.state = SMCR_QPS_RTS;
	a.timeout = SMCR_QP_TIMEOUT;
	a.retry_cnt = SMCR_QP_RETRY_CNT;
	a.rnr_retry = SMCR_QP_RNR_RETRY;
	a.sq_psn = lnk->psn_initial;
	a.max_rd_atomic = 1;
	return modify(lnk, &a);
}

/* smc_ib_ready_link(): INIT, RTR, post every receive buffer, and RTS for the server (the
 * client moves to RTS when the CONFIRM_LINK request arrives). */
int smcr_link_ready(smcr_link *lnk)
{
	int rc = modify_init(lnk);
	if (!rc)
		rc = modify_rtr(lnk);
	if (!rc)
		rc = smcr_wr_post_recvs(lnk);
	if (!rc && lnk->lgr->role == SMCR_ROLE_SERVER)
		rc = smcr_link_modify_rts(lnk);
	return rc;
}

void smcr_link_fill_info(const smcr_link *lnk, smcr_link_info *out)
{
	const smcr_ctx *ctx = lnk->ctx;
	memset(out, 0, sizeof(*out));
	out->id = lnk->id;
	out->lgr_id = lnk->lgr ? lnk->lgr->id : 0;
	out->link_id = lnk->link_id;
	out->link_uid = lnk->link_uid;
	out->peer_link_uid = lnk->peer_link_uid;
	out->state = lnk->state;
	out->port_index = lnk->port_index;
	if (lnk->port_index < ctx->n_ports) {
		memcpy(out->ibdev, ctx->ports[lnk->port_index].d.name, sizeof(out->ibdev));
		out->ibport = ctx->ports[lnk->port_index].d.port;
	}
	memcpy(out->local_mac, lnk->mac, 6);
	memcpy(out->local_gid, lnk->gid, 16);
	out->local_qpn = lnk->qpn;
	memcpy(out->peer_mac, lnk->peer_mac, 6);
	memcpy(out->peer_gid, lnk->peer_gid, 16);
	out->peer_qpn = lnk->peer_qpn;
	out->vlan_id = lnk->vlan_id;
	out->path_mtu = lnk->peer_mtu && lnk->peer_mtu < lnk->path_mtu ? (smcr_mtu)lnk->peer_mtu : lnk->path_mtu;
	out->psn = lnk->psn_initial;
	out->peer_psn = lnk->peer_psn;
	out->asymmetric = lnk->asym;
	out->conn_cnt = lnk->conn_cnt;
	out->bytes_out = lnk->bytes_out;
	out->bytes_in = lnk->bytes_in;
	out->ops_out = lnk->ops_out;
	out->ops_in = lnk->ops_in;
	out->llc_out = lnk->llc_out;
	out->llc_in = lnk->llc_in;
	out->cdc_out = lnk->cdc_out;
	out->cdc_in = lnk->cdc_in;
}

void smcr_link_emit(smcr_link *lnk, smcr_event_type type, smcr_linkdown_reason why, uint32_t reason)
{
	smcr_link_info info;
	smcr_link_fill_info(lnk, &info);
	smcr_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.lgr_id = info.lgr_id;
	ev.link = &info;
	ev.linkdown = why;
	ev.reason = reason;
	ev.text = type == SMCR_EV_LINK_DOWN ? smcr_linkdown_reason_text(why) : NULL;
	smcr_emit(lnk->ctx, &ev);
}

void smcr_link_activate(smcr_link *lnk)
{
	/* smc_llc_link_active() */
	lnk->state = SMCR_LNK_ACTIVE;
	lnk->last_rx = lnk->ctx->now;
	smcr_link_emit(lnk, SMCR_EV_LINK_ADDED, SMCR_LINKDOWN_NONE, 0);
	if (lnk->testlink_time)
		smcr_timer_arm(lnk->ctx, &lnk->testlink_timer, lnk->ctx->now + lnk->testlink_time);
}

void smcr_link_qp_reset(smcr_link *lnk)
{
	if (!lnk->qp)
		return;
	smcr_qp_attr a;
	memset(&a, 0, sizeof(a));
	a.state = SMCR_QPS_RESET;
	lnk->ctx->ops->modify_qp(lnk->ctx->tp, lnk->qp, &a);
}

void smcr_link_clear(smcr_link *lnk, bool log)
{
	smcr_ctx *ctx = lnk->ctx;
	smcr_lgr *lgr = lnk->lgr;
	if (lnk->state == SMCR_LNK_UNUSED)
		return;
	ctx->hooks.link_orphans(lnk);
	if (lnk->state == SMCR_LNK_UNUSED)
		return;
	if (log)
		smcr_link_emit(lnk, SMCR_EV_LINK_REMOVED, SMCR_LINKDOWN_NONE, 0);
	smcr_timer_cancel(ctx, &lnk->testlink_timer);
	smcr_timer_cancel(ctx, &lnk->slot_timer);
	/* nothing of this lgr may point at the link any more; a server handshake whose
	 * Accept named it may still take its connection elsewhere at the Confirm
	 * (smcr_srv rescue, model/clc_server.c): keep the link's rtokens for it */
	bool hs_on_link = false;
	smcr_list *pos;
	smcr_list_for_each(pos, &lgr->conns) {
		smcr_conn *c = SMCR_CONTAINER_OF(pos, smcr_conn, lgr_node);
		if (c->lnk == lnk) {
			hs_on_link |= c->mode == SMCR_MODE_HANDSHAKE && lgr->role == SMCR_ROLE_SERVER;
			c->lnk = NULL;
		}
	}
	while (!smcr_list_empty(&lnk->slot_waiters)) {
		smcr_conn *c = SMCR_CONTAINER_OF(lnk->slot_waiters.next, smcr_conn, slot_node);
		smcr_wr_unwait(c);
	}
	smcr_buf_unmap_link(lgr, lnk);
	if (hs_on_link)
		smcr_rtoken_keep_gone(lgr, lnk->idx);
	smcr_rtoken_clear_link(lgr, lnk->idx);
	smcr_link_qp_reset(lnk);
	if (lnk->qp)
		ctx->ops->destroy_qp(ctx->tp, lnk->qp);
	lnk->qp = NULL;
	smcr_wr_free_link(lnk);
	smcr_ctx_unregister_link(ctx, lnk);
	lnk->state = SMCR_LNK_UNUSED;
	lnk->peer_qpn = 0;
	if (lgr->lnk[lnk->idx] == lnk)
		lgr->lnk[lnk->idx] = NULL;
	smcr_list_add_tail(&ctx->reap_links, &lnk->reap_node);
}

/* smcr_link_down_cond_sched() + smcr_link_down(). */
void smcr_link_down(smcr_link *lnk, smcr_linkdown_reason why)
{
	smcr_ctx *ctx = lnk->ctx;
	if (lnk->state != SMCR_LNK_ACTIVE && lnk->state != SMCR_LNK_ACTIVATING)
		return; /* smc_link_downing() */
	bool was_active = lnk->state == SMCR_LNK_ACTIVE;
	lnk->state = SMCR_LNK_INACTIVE;
	ctx->stats.link_down_cnt++;
	smcr_timer_cancel(ctx, &lnk->testlink_timer);
	lnk->testlink_pending = false;
	smcr_link_emit(lnk, SMCR_EV_LINK_DOWN, why, 0);
	/* what a failed link sets off (its connections move, the peer is told):
	 * failover.c, through the hook the face registered */
	ctx->hooks.link_failed(lnk, why, was_active);
}
