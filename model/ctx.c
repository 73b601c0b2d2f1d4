/* The context's services (model/ctx_int.h): the enter/leave bracket of every public entry
 * point, events to the host and their texts, randomness, the registry of live links by id
 * for completion routing, connections by id, fallback counters. Everything in the core
 * calls these; they call nothing of the protocol: what ends during a call is freed at the
 * outermost leave through the hooks the face registered (model/smcr.c).
 *
 * Every public entry point brackets its work with smcr_ctx_enter()/_leave(): objects that
 * end during a call are unlinked at once but freed only when the outermost call returns,
 * so callbacks may call back into the core without pulling memory from under a caller. */
#include "model/ctx_int.h"

#include <string.h>

#include "model/conn_int.h"
#include "model/index_int.h"
#include "model/link_int.h"
#include "model/list_int.h"
#include "model/mem_int.h"
#include "model/smcr.h"
#include "model/smcr_err.h"
#include "model/timer_int.h"

void smcr_ctx_enter(smcr_ctx *ctx, uint64_t now)
{
	if (now > ctx->now)
		ctx->now = now;
	ctx->depth++;
}

void smcr_ctx_leave(smcr_ctx *ctx)
{
	if (--ctx->depth > 0)
		return;
	ctx->depth++; /* reaping may call back into the core */
	while (!smcr_list_empty(&ctx->reap_conns))
		ctx->hooks.conn_reap(ctx->reap_conns.next);
	while (!smcr_list_empty(&ctx->reap_lgrs)) {
		smcr_list *n = ctx->reap_lgrs.next;
		smcr_list_del(n);
		ctx->hooks.lgr_free(n);
	}
	while (!smcr_list_empty(&ctx->reap_links)) {
		smcr_link *l = SMCR_CONTAINER_OF(ctx->reap_links.next, smcr_link, reap_node);
		smcr_list_del(&l->reap_node);
		smcr_timer_reserve(ctx, -2);
		smcr_free(ctx, l);
	}
	ctx->depth--;
}

void smcr_rand(smcr_ctx *ctx, void *dst, size_t len) { ctx->cb.rand(ctx->user, dst, len); }

void smcr_emit(smcr_ctx *ctx, const smcr_event *ev)
{
	if (ctx->cb.event)
		ctx->cb.event(ctx->user, ev);
}

void smcr_emit_simple(smcr_ctx *ctx, smcr_event_type type, uint64_t lgr_id, uint64_t conn_id,
                      uint32_t reason, const char *text)
{
	smcr_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.lgr_id = lgr_id;
	ev.conn_id = conn_id;
	ev.reason = reason;
	ev.text = text;
	smcr_emit(ctx, &ev);
}

const char *smcr_linkdown_reason_text(smcr_linkdown_reason r)
{
	switch (r) {
	case SMCR_LINKDOWN_NONE: return "none";
	case SMCR_LINKDOWN_WC_ERROR: return "work completion error";
	case SMCR_LINKDOWN_QP_FATAL: return "QP fatal error";
	case SMCR_LINKDOWN_PORT_ERROR: return "port error";
	case SMCR_LINKDOWN_TESTLINK: return "TEST_LINK timeout";
	case SMCR_LINKDOWN_SLOT_TIMEOUT: return "send slot timeout";
	case SMCR_LINKDOWN_PEER_DELETE: return "deleted by peer";
	case SMCR_LINKDOWN_ADD_FAILED: return "link setup failed";
	case SMCR_LINKDOWN_LGR_END: return "link group ended";
	case SMCR_LINKDOWN_LOCAL: return "local request";
	case SMCR_LINKDOWN_ASYM_UNNEEDED: return "asymmetric link no longer needed";
	}
	return "unknown";
}

const char *smcr_lgr_end_text(smcr_lgr_end e)
{
	switch (e) {
	case SMCR_LGR_END_NONE: return "ended";
	case SMCR_LGR_END_ABNORMAL: return "terminated abnormally";
	case SMCR_LGR_END_PEER_ABNORMAL: return "terminated by the peer";
	case SMCR_LGR_END_PEER_ORDERLY: return "ended by the peer (orderly)";
	case SMCR_LGR_END_IDLE: return "ended when idle (orderly)";
	}
	return "ended";
}

/* Live links by id --------------------------------------------------------------------- */

static int64_t link_slot(const smcr_ctx *ctx, uint64_t id)
{
	uint32_t lo = 0, hi = ctx->n_links;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (ctx->links[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ctx->n_links && ctx->links[lo]->id == id ? (int64_t)lo : -1 - (int64_t)lo;
}

smcr_link *smcr_ctx_find_link(const smcr_ctx *ctx, uint64_t id)
{
	if (!id)
		return NULL;
	int64_t s = link_slot(ctx, id);
	return s >= 0 ? ctx->links[s] : NULL;
}

int smcr_ctx_register_link(smcr_ctx *ctx, smcr_link *lnk)
{
	if (ctx->n_links == ctx->links_cap) {
		uint32_t cap = ctx->links_cap ? ctx->links_cap * 2 : 16;
		smcr_link **v = smcr_alloc(ctx, cap * sizeof(*v));
		if (!v)
			return SMCR_ERR_NOMEM;
		if (ctx->n_links)
			memcpy(v, ctx->links, ctx->n_links * sizeof(*v));
		smcr_free(ctx, ctx->links);
		ctx->links = v;
		ctx->links_cap = cap;
	}
	/* ids grow, so appending keeps the vector sorted */
	ctx->links[ctx->n_links++] = lnk;
	return 0;
}

void smcr_ctx_unregister_link(smcr_ctx *ctx, smcr_link *lnk)
{
	int64_t s = link_slot(ctx, lnk->id);
	if (s < 0)
		return;
	memmove(&ctx->links[s], &ctx->links[s + 1], (ctx->n_links - (uint32_t)s - 1) * sizeof(*ctx->links));
	ctx->n_links--;
}

smcr_conn *smcr_ctx_find_conn(const smcr_ctx *ctx, uint64_t id)
{
	if (!id)
		return NULL;
	smcr_index_node *n = smcr_index_find(&ctx->conns_by_id, id);
	if (!n)
		return NULL;
	smcr_conn *c = SMCR_CONTAINER_OF(n, smcr_conn, id_node);
	return c->dead ? NULL : c;
}

/* Counters ---------------------------------------------------------------------------- */

static void fback_count(smcr_fback_count *arr, uint32_t code)
{
	for (int i = 0; i < SMCR_MAX_FBACK_RSN; i++) {
		if (arr[i].code == code) {
			arr[i].count++;
			return;
		}
		if (!arr[i].code) {
			arr[i].code = code;
			arr[i].count = 1;
			return;
		}
	}
}

void smcr_stat_fallback(smcr_ctx *ctx, smcr_role role, uint32_t reason)
{
	if (role == SMCR_ROLE_SERVER) {
		ctx->stats.srv_fback++;
		fback_count(ctx->stats.srv_fback_rsn, reason);
	} else {
		ctx->stats.clnt_fback++;
		fback_count(ctx->stats.clnt_fback_rsn, reason);
	}
}
