/* Report of a node's core (see node_report.h). */
#include "sim/node/node_report.h"

#include <stdio.h>
#include <string.h>

#include "sim/report/report_core.h"

typedef struct fill {
	smcr_report *r;
	const smcr_ctx *ctx;
	uint32_t rnic_base;
} fill;

static void fill_lgr(void *arg, const smcr_lgr_info *li)
{
	fill *f = arg;
	report_lgr *g = report_add_lgr(f->r);
	report_core_lgr(g, li);
	g->stack_id = 1;
}

static void fill_link(void *arg, const smcr_link_info *li)
{
	fill *f = arg;
	report_core_add_link(f->r, f->ctx, li, 1, f->rnic_base + li->port_index);
}

static void fill_conn(void *arg, const smcr_conn_info *ci)
{
	fill *f = arg;
	report_conn *k = report_add_conn(f->r);
	k->id = (uint32_t)ci->id;
	k->stack_id = 1;
	k->family = 4;
	k->role = ci->role == SMCR_ROLE_SERVER ? REPORT_ROLE_SERVER : REPORT_ROLE_CLIENT;
	k->state = (report_conn_state)ci->state;
	k->mode = ci->mode == SMCR_MODE_FALLBACK ? REPORT_MODE_TCP : REPORT_MODE_SMCR;
	k->smc_version = ci->version;
	k->fallback_reason = ci->fallback_reason;
	k->peer_diagnosis = ci->peer_diagnosis;
	if (ci->lgr_id)
		k->lgr_id = report_core_lgr_num(f->ctx, ci->lgr_id);
	k->local_token = ci->local_token;
	k->peer_token = ci->peer_token;
	k->rmbe_size = ci->rmbe_size;
	k->peer_rmbe_size = ci->peer_rmbe_size;
	k->sndbuf_size = ci->sndbuf_size;
	k->bytes_sent = ci->bytes_sent;
	k->bytes_received = ci->bytes_received;
}

void node_fill_report(const smcr_ctx *ctx, const char *name, smcr_report *r)
{
	report_stack *rs = report_add_stack(r);
	rs->id = 1;
	snprintf(rs->name, sizeof(rs->name), "%s", name);
	rs->os = REPORT_OS_LINUX;
	memcpy(rs->system_id, smcr_ctx_system_id(ctx), 8);
	report_core_stats(&rs->stats, ctx);
	fill f = { r, ctx, (uint32_t)r->n_rnics + 1 };
	const smcr_port_desc *d;
	for (uint32_t p = 0; (d = smcr_ctx_port(ctx, p)) != NULL; p++) {
		report_rnic *rn = report_add_rnic(r);
		rn->id = f.rnic_base + p;
		rn->stack_id = 1;
		snprintf(rn->name, sizeof(rn->name), "%.16s", d->name);
		snprintf(rn->pnetid, sizeof(rn->pnetid), "%s", d->pnet_id);
		rn->port = d->port;
		memcpy(rn->mac, d->mac, 6);
		if (d->n_gids)
			memcpy(rn->gids[rn->n_gids++], d->gids[d->n_gids - 1].gid, 16);
		rn->mtu = smcr_mtu_bytes(d->active_mtu);
		rn->status = d->state == SMCR_PORT_ACTIVE ? REPORT_RNIC_READY : REPORT_RNIC_FAILED;
	}
	smcr_ctx_foreach_lgr(ctx, fill_lgr, &f);
	smcr_ctx_foreach_link(ctx, fill_link, &f);
	smcr_ctx_foreach_conn(ctx, fill_conn, &f);
	report_sort(r);
}
