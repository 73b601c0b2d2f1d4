/* The core's public face for a context: one TCP/IP stack's SMC-R world (Linux: one network
 * namespace). Making and freeing it (and registering the hooks through which its lower
 * files reach the ones above them), settings, ports and system id, the timer, completion
 * and port-event entry points, introspection and counters. The services every file of the
 * core uses (enter/leave, events, lookups by id) are the context's own: model/ctx.c. */
#include "model/ctx_int.h"

#include <string.h>

#include "model/close_int.h"
#include "model/conn_int.h"
#include "model/failover_int.h"
#include "model/handshake_int.h"
#include "model/index_int.h"
#include "model/lgr_int.h"
#include "model/link_int.h"
#include "model/list_int.h"
#include "model/llc.h"
#include "model/llc_flow_int.h"
#include "model/llc_keepalive_int.h"
#include "model/llc_link_int.h"
#include "model/llc_rkey_int.h"
#include "model/mem_int.h"
#include "model/rx_int.h"
#include "model/smcr.h"
#include "model/smcr_err.h"
#include "model/smcr_transport.h"
#include "model/timer_int.h"
#include "model/tx_int.h"
#include "model/wr_int.h"

void smcr_settings_default(smcr_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->rmb_size = 65536;
	s->sndbuf_size = 65536;
	s->testlink_time = SMCR_TESTLINK_DEFAULT_TIME;
	s->max_links = 2;
	s->max_conns = 255;
	s->send_wr = 16;
	s->recv_wr = 48;
	s->v1 = true;
	s->v2 = true;
	s->release = 1;
	s->feature_mask = 0x0001;
	s->rmbe_max_code = 15;
	s->autocorking_size = 64 * 1024; /* SMC_AUTOCORKING_DEFAULT_SIZE */
	s->llc_v2_order = SMCR_LLC_V2_LE;
	s->os_type = SMCR_CLC_OS_LINUX;
	s->buf_downgrade = true;
	memset(s->hostname, ' ', sizeof(s->hostname));
	memcpy(s->hostname, "smcr-sim", 8);
}

static int check_settings(const smcr_settings *s)
{
	if (s->max_links < 1 || s->max_links > 2)
		return SMCR_ERR_INVAL;
	if (s->max_conns < 16)
		return SMCR_ERR_INVAL;
	if (s->send_wr < 2 || s->send_wr > 2048 || s->recv_wr < 2 || s->recv_wr > 2048)
		return SMCR_ERR_INVAL;
	if (s->n_ueids > SMCR_MAX_UEIDS || s->release > 1 || s->rmbe_max_code > 15)
		return SMCR_ERR_INVAL;
	if (!s->os_type || s->os_type > 15 || (s->llc_v2_order != SMCR_LLC_V2_LE && s->llc_v2_order != SMCR_LLC_V2_BE))
		return SMCR_ERR_INVAL; /* 4 bits on the wire; 0 would say nothing */
	return 0;
}

static void conn_reap(smcr_list *node) { smcr_conn_reap(SMCR_CONTAINER_OF(node, smcr_conn, node)); }
static void lgr_free(smcr_list *node) { smcr_lgr_free_now(SMCR_CONTAINER_OF(node, smcr_lgr, node)); }

/* The hooks through which the core's lower files reach the ones above them
 * (model/ctx_int.h). */
static void register_hooks(smcr_ctx *ctx)
{
	ctx->hooks.conn_reap = conn_reap;
	ctx->hooks.lgr_free = lgr_free;
	ctx->hooks.rx_cdc = smcr_cdc_rx;
	ctx->hooks.rx_llc = smcr_llc_rx;
	ctx->hooks.cdc_sent = smcr_cdc_tx_done;
	ctx->hooks.lgr_term_sent = smcr_lgr_term_send_result;
	ctx->hooks.slot_free = smcr_tx_slot_available;
	ctx->hooks.link_down = smcr_link_down;
	ctx->hooks.link_failed = smcr_failover_link_down;
	ctx->hooks.link_orphans = smcr_failover_orphans;
	ctx->hooks.rmb_delete_rkey = smcr_llc_delete_rkey_later;
	ctx->hooks.rmb_unused = smcr_buf_unuse_done;
	smcr_llc_link_register(&ctx->llc);
	smcr_llc_rkey_register(&ctx->llc);
	smcr_llc_keepalive_register(&ctx->llc);
	ctx->roles[SMCR_ROLE_CLIENT] = &smcr_hs_client;
	ctx->roles[SMCR_ROLE_SERVER] = &smcr_hs_server;
}

int smcr_ctx_new(smcr_ctx **out, const smcr_settings *settings, const smcr_callbacks *cb,
                 void *user, const smcr_transport_ops *ops, void *tp, const smcr_mem *mem,
                 uint64_t now)
{
	if (!out || !settings || !cb || !cb->rand || !cb->clc_send || !ops)
		return SMCR_ERR_INVAL;
	int rc = check_settings(settings);
	if (rc)
		return rc;
	if (!mem)
		mem = smcr_mem_default();
	smcr_ctx boot;
	memset(&boot, 0, sizeof(boot));
	boot.mem = *mem;
	smcr_ctx *ctx = smcr_alloc(&boot, sizeof(*ctx));
	if (!ctx)
		return SMCR_ERR_NOMEM;
	ctx->mem = *mem;
	ctx->mem_bytes = boot.mem_bytes;
	ctx->cb = *cb;
	ctx->user = user;
	ctx->ops = ops;
	ctx->tp = tp;
	ctx->set = *settings;
	ctx->now = now;
	smcr_list_init(&ctx->lgrs);
	smcr_index_init(&ctx->lgrs_by_peer);
	smcr_list_init(&ctx->dying_lgrs);
	smcr_list_init(&ctx->conns);
	smcr_index_init(&ctx->conns_by_id);
	smcr_list_init(&ctx->reap_conns);
	smcr_list_init(&ctx->reap_lgrs);
	smcr_list_init(&ctx->reap_links);
	smcr_list_init(&ctx->srv_lock_waiters);
	smcr_list_init(&ctx->clnt_lock_waiters);
	register_hooks(ctx);
	/* Linux draws the system id's 2 random bytes once; alert tokens count up from a
	 * start value (Linux: from boot, here a random one so hosts differ). */
	ctx->cb.rand(ctx->user, ctx->system_id_rnd, sizeof(ctx->system_id_rnd));
	uint8_t t[4];
	ctx->cb.rand(ctx->user, t, sizeof(t));
	ctx->next_token = ((uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 | (uint32_t)t[2] << 8 | t[3]) & 0x00ffffffu;
	*out = ctx;
	return 0;
}

static void free_lgr_list(smcr_ctx *ctx, smcr_list *head)
{
	smcr_list *pos, *tmp;
	smcr_list_for_each_safe(pos, tmp, head) {
		smcr_lgr *lgr = SMCR_CONTAINER_OF(pos, smcr_lgr, node);
		smcr_list_del(&lgr->node);
		smcr_lgr_free_now(lgr);
		(void)ctx;
	}
}

void smcr_ctx_free(smcr_ctx *ctx)
{
	if (!ctx)
		return;
	ctx->depth++;
	ctx->freeing = true;
	smcr_list *pos, *tmp;
	smcr_list_for_each_safe(pos, tmp, &ctx->conns) {
		smcr_conn *c = SMCR_CONTAINER_OF(pos, smcr_conn, node);
		c->dead = true;
		smcr_conn_reap(c);
	}
	smcr_list_for_each_safe(pos, tmp, &ctx->reap_conns) {
		smcr_conn *c = SMCR_CONTAINER_OF(pos, smcr_conn, node);
		smcr_conn_reap(c);
	}
	free_lgr_list(ctx, &ctx->lgrs);
	free_lgr_list(ctx, &ctx->dying_lgrs);
	free_lgr_list(ctx, &ctx->reap_lgrs);
	while (!smcr_list_empty(&ctx->reap_links)) {
		smcr_link *l = SMCR_CONTAINER_OF(ctx->reap_links.next, smcr_link, reap_node);
		smcr_list_del(&l->reap_node);
		smcr_free(ctx, l);
	}
	smcr_free(ctx, ctx->heap);
	smcr_free(ctx, ctx->links);
	smcr_index_clear(ctx, &ctx->conns_by_id);
	smcr_index_clear(ctx, &ctx->lgrs_by_peer);
	smcr_mem mem = ctx->mem;
	smcr_ctx boot;
	memset(&boot, 0, sizeof(boot));
	boot.mem = mem;
	smcr_free(&boot, ctx);
}

/* Ports -------------------------------------------------------------------------------- */

static void set_system_id(smcr_ctx *ctx)
{
	/* Linux smc_ib_define_local_systemid(): 2 random bytes + the MAC of the first
	 * device port with a valid MAC. */
	if (ctx->system_id_valid)
		return;
	for (uint32_t i = 0; i < ctx->n_ports; i++) {
		const smcr_port_desc *d = &ctx->ports[i].d;
		static const uint8_t zero[6];
		if (!memcmp(d->mac, zero, 6))
			continue;
		memcpy(ctx->system_id, ctx->system_id_rnd, 2);
		memcpy(ctx->system_id + 2, d->mac, 6);
		ctx->system_id_valid = true;
		return;
	}
}

int smcr_ctx_add_port(smcr_ctx *ctx, const smcr_port_desc *desc, uint64_t now)
{
	if (!desc || desc->n_gids > SMCR_MAX_GIDS || desc->port < 1)
		return SMCR_ERR_INVAL;
	if (ctx->n_ports >= SMCR_MAX_PORTS)
		return SMCR_ERR_LIMIT;
	smcr_ctx_enter(ctx, now);
	uint32_t i = ctx->n_ports++;
	ctx->ports[i].d = *desc;
	ctx->ports[i].d.pnet_id[sizeof(desc->pnet_id) - 1] = 0;
	ctx->ports[i].d.name[sizeof(desc->name) - 1] = 0;
	ctx->ports[i].index = i;
	set_system_id(ctx);
	smcr_ctx_leave(ctx);
	return (int)i;
}

const smcr_port_desc *smcr_ctx_port(const smcr_ctx *ctx, uint32_t port_index)
{
	return port_index < ctx->n_ports ? &ctx->ports[port_index].d : NULL;
}

const uint8_t *smcr_ctx_system_id(const smcr_ctx *ctx) { return ctx->system_id; }

/* Timers ------------------------------------------------------------------------------- */

uint64_t smcr_ctx_next_expiry(const smcr_ctx *ctx) { return smcr_timer_next(ctx); }

static void dispatch_timer(smcr_ctx *ctx, smcr_timer *t)
{
	(void)ctx;
	switch ((smcr_timer_kind)t->kind) {
	case SMCR_TMR_CONN_CLC:
		smcr_hs_on_clc_timer(t->obj);
		break;
	case SMCR_TMR_CONN_CLOSE:
		smcr_close_on_timer(t->obj);
		break;
	case SMCR_TMR_LGR_FREE:
		smcr_lgr_on_free_timer(t->obj);
		break;
	case SMCR_TMR_LGR_LLC:
		smcr_llc_on_timer(t->obj);
		break;
	case SMCR_TMR_LGR_FLOW:
		smcr_llc_on_flow_timer(t->obj);
		break;
	case SMCR_TMR_LGR_TERM:
		smcr_lgr_on_term_timer(t->obj);
		break;
	case SMCR_TMR_LINK_TESTLINK:
		smcr_llc_testlink_timer(t->obj);
		break;
	case SMCR_TMR_LINK_SLOT:
		smcr_wr_on_slot_timer(t->obj);
		break;
	}
}

int smcr_ctx_handle_expiry(smcr_ctx *ctx, uint64_t now)
{
	smcr_ctx_enter(ctx, now);
	smcr_timer *t;
	while ((t = smcr_timer_pop_due(ctx, now)) != NULL)
		dispatch_timer(ctx, t);
	smcr_ctx_leave(ctx);
	return 0;
}

/* Transport input ---------------------------------------------------------------------- */

int smcr_ctx_on_completion(smcr_ctx *ctx, const smcr_wc *wc, uint64_t now)
{
	if (!wc)
		return SMCR_ERR_INVAL;
	smcr_ctx_enter(ctx, now);
	int rc = smcr_wr_on_completion(ctx, wc);
	smcr_ctx_leave(ctx);
	return rc;
}

static bool link_on_port_usable(const smcr_link *l, uint32_t port)
{
	return l->port_index == port && smcr_link_usable(l);
}

static void port_links_down(smcr_ctx *ctx, uint32_t port)
{
	/* smcr_port_err(): every usable link on the port goes down, however many (Linux walks
	 * every lgr of the device). Collect ids first: link down can free links and switch
	 * connections. Without memory for the list, start over after each link: slower, but
	 * the same links in the same order (a link that went down is no longer usable). */
	uint64_t *ids = ctx->n_links ? smcr_alloc(ctx, ctx->n_links * sizeof(*ids)) : NULL;
	if (!ids) {
		bool again = true;
		while (again) {
			again = false;
			for (uint32_t i = 0; i < ctx->n_links && !again; i++)
				if (link_on_port_usable(ctx->links[i], port)) {
					smcr_link_down(ctx->links[i], SMCR_LINKDOWN_PORT_ERROR);
					again = true; /* the array may have changed: from the start */
				}
		}
		return;
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < ctx->n_links; i++)
		if (link_on_port_usable(ctx->links[i], port))
			ids[n++] = ctx->links[i]->id;
	for (uint32_t i = 0; i < n; i++) {
		smcr_link *l = smcr_ctx_find_link(ctx, ids[i]);
		if (l)
			smcr_link_down(l, SMCR_LINKDOWN_PORT_ERROR);
	}
	smcr_free(ctx, ids);
}

static void port_active(smcr_ctx *ctx, uint32_t port)
{
	/* smcr_port_add(): lgrs with this PNET id that are not symmetric try to add a link. */
	const char *pnet = ctx->ports[port].d.pnet_id;
	smcr_list *pos;
	smcr_list_for_each(pos, &ctx->lgrs) {
		smcr_lgr *lgr = SMCR_CONTAINER_OF(pos, smcr_lgr, node);
		if (!pnet[0] || strncmp(pnet, lgr->pnet_id, 16) || lgr->type == SMCR_LGR_SYMMETRIC ||
		    lgr->type == SMCR_LGR_ASYMMETRIC_PEER || lgr->terminating)
			continue;
		smcr_link *l = smcr_lgr_usable_link(lgr);
		if (l)
			smcr_llc_add_link_local(l);
	}
}

int smcr_ctx_on_async_event(smcr_ctx *ctx, smcr_async_event ev, uint32_t port_index,
                            void *qp_ctx, uint64_t now)
{
	smcr_ctx_enter(ctx, now);
	int rc = 0;
	switch (ev) {
	case SMCR_EV_QP_FATAL: {
		smcr_link *lnk = NULL;
		for (uint32_t i = 0; i < ctx->n_links; i++)
			if ((void *)ctx->links[i] == qp_ctx)
				lnk = ctx->links[i];
		if (lnk)
			smcr_link_down(lnk, SMCR_LINKDOWN_QP_FATAL);
		else
			rc = SMCR_ERR_NOTFOUND;
		break;
	}
	case SMCR_EV_PORT_ERR:
	case SMCR_EV_GID_CHANGE:
		if (port_index >= ctx->n_ports) {
			rc = SMCR_ERR_NOTFOUND;
			break;
		}
		if (ev == SMCR_EV_PORT_ERR)
			ctx->ports[port_index].d.state = SMCR_PORT_DOWN;
		port_links_down(ctx, port_index);
		break;
	case SMCR_EV_PORT_ACTIVE: {
		if (port_index >= ctx->n_ports) {
			rc = SMCR_ERR_NOTFOUND;
			break;
		}
		/* Linux acts on PORT_ACTIVE only for a port it had marked as going away
		 * (smc_ib_global_event_handler: test_and_clear_bit(ports_going_away)); an
		 * event for a port that is up (rxe raises one on every NETDEV_CHANGE of its
		 * netdev) starts no ADD_LINK. */
		bool was_down = ctx->ports[port_index].d.state != SMCR_PORT_ACTIVE;
		ctx->ports[port_index].d.state = SMCR_PORT_ACTIVE;
		set_system_id(ctx);
		if (was_down)
			port_active(ctx, port_index);
		break;
	}
	default:
		rc = SMCR_ERR_INVAL;
	}
	smcr_ctx_leave(ctx);
	return rc;
}

int smcr_ctx_link_fail(smcr_ctx *ctx, uint64_t link_id, uint64_t now)
{
	smcr_ctx_enter(ctx, now);
	smcr_link *lnk = smcr_ctx_find_link(ctx, link_id);
	int rc = SMCR_ERR_NOTFOUND;
	if (lnk) {
		smcr_link_down(lnk, SMCR_LINKDOWN_LOCAL);
		rc = 0;
	}
	smcr_ctx_leave(ctx);
	return rc;
}

int smcr_ctx_terminate_all(smcr_ctx *ctx, uint64_t now)
{
	smcr_ctx_enter(ctx, now);
	int n = 0;
	/* terminating delists the link group: take the first until none is left */
	while (!smcr_list_empty(&ctx->lgrs)) {
		smcr_lgr *lgr = SMCR_CONTAINER_OF(ctx->lgrs.next, smcr_lgr, node);
		smcr_lgr_terminate(lgr, SMCR_LLC_DEL_OP_INIT_TERM, "operator-initiated termination");
		n++;
		if (lgr->listed)
			break; /* cannot happen: a terminated lgr is delisted; never spin */
	}
	smcr_ctx_leave(ctx);
	return n;
}

/* Introspection ------------------------------------------------------------------------ */

static void each_lgr(const smcr_ctx *ctx, const smcr_list *head,
                     void (*fn)(void *arg, const smcr_lgr_info *), void *arg)
{
	const smcr_list *pos;
	for (pos = head->next; pos != head; pos = pos->next) {
		const smcr_lgr *lgr = SMCR_CONTAINER_OF(pos, smcr_lgr, node);
		smcr_lgr_info info;
		smcr_lgr_fill_info(lgr, &info);
		fn(arg, &info);
	}
	(void)ctx;
}

void smcr_ctx_foreach_lgr(const smcr_ctx *ctx, void (*fn)(void *arg, const smcr_lgr_info *),
                          void *arg)
{
	each_lgr(ctx, &ctx->lgrs, fn, arg);
	each_lgr(ctx, &ctx->dying_lgrs, fn, arg);
}

void smcr_ctx_foreach_link(const smcr_ctx *ctx, void (*fn)(void *arg, const smcr_link_info *),
                           void *arg)
{
	for (uint32_t i = 0; i < ctx->n_links; i++) {
		smcr_link_info info;
		smcr_link_fill_info(ctx->links[i], &info);
		fn(arg, &info);
	}
}

void smcr_ctx_foreach_conn(const smcr_ctx *ctx, void (*fn)(void *arg, const smcr_conn_info *),
                           void *arg)
{
	const smcr_list *pos;
	for (pos = ctx->conns.next; pos != &ctx->conns; pos = pos->next) {
		const smcr_conn *c = SMCR_CONTAINER_OF(pos, smcr_conn, node);
		if (c->dead)
			continue;
		smcr_conn_info info;
		smcr_conn_fill_info(c, &info);
		fn(arg, &info);
	}
}

int smcr_ctx_link_info(const smcr_ctx *ctx, uint64_t link_id, smcr_link_info *out)
{
	smcr_link *l = smcr_ctx_find_link(ctx, link_id);
	if (!l)
		return SMCR_ERR_NOTFOUND;
	smcr_link_fill_info(l, out);
	return 0;
}

void smcr_ctx_get_stats(const smcr_ctx *ctx, smcr_stats *out)
{
	*out = ctx->stats;
	out->mem_bytes = ctx->mem_bytes;
}
