/* Report of a node's core (see node_report.h). */
#include "sim/node_report.h"

#include <stdio.h>
#include <string.h>

typedef struct fill {
	smcr_report *r;
	const smcr_ctx *ctx;
	uint32_t rnic_base;
} fill;

static uint32_t lgr_num(const smcr_ctx *ctx, uint64_t lgr_id);

typedef struct find_lgr {
	uint64_t id;
	uint32_t num;
} find_lgr;

static void find_lgr_fn(void *arg, const smcr_lgr_info *li)
{
	find_lgr *f = arg;
	if (li->id == f->id)
		f->num = li->lgr_num;
}

static uint32_t lgr_num(const smcr_ctx *ctx, uint64_t lgr_id)
{
	find_lgr f = { lgr_id, (uint32_t)lgr_id };
	smcr_ctx_foreach_lgr(ctx, find_lgr_fn, &f);
	return f.num;
}

static report_lgr_type lgr_type(smcr_lgr_type t)
{
	switch (t) {
	case SMCR_LGR_SINGLE:
		return REPORT_LGR_SINGLE;
	case SMCR_LGR_SYMMETRIC:
		return REPORT_LGR_SYM;
	case SMCR_LGR_ASYMMETRIC_PEER:
		return REPORT_LGR_ASYMP;
	case SMCR_LGR_ASYMMETRIC_LOCAL:
		return REPORT_LGR_ASYML;
	case SMCR_LGR_NONE:
		break;
	}
	return REPORT_LGR_NONE;
}

static void fill_lgr(void *arg, const smcr_lgr_info *li)
{
	fill *f = arg;
	report_lgr *g = report_add_lgr(f->r);
	g->id = li->lgr_num;
	g->stack_id = 1;
	g->role = li->role == SMCR_ROLE_SERVER ? REPORT_ROLE_SERVER : REPORT_ROLE_CLIENT;
	g->type = lgr_type(li->type);
	g->version = li->version;
	memcpy(g->peer_system_id, li->peer_system_id, 8);
	size_t n = sizeof(li->peer_hostname);
	while (n && (li->peer_hostname[n - 1] == ' ' || !li->peer_hostname[n - 1]))
		n--;
	snprintf(g->peer_host, sizeof(g->peer_host), "%.*s", (int)n, li->peer_hostname);
	g->vlan = li->vlan_id ? li->vlan_id : REPORT_NO_VLAN;
	snprintf(g->pnetid, sizeof(g->pnetid), "%s", li->pnet_id);
	g->n_links = li->n_links;
	g->n_conns = li->conns_num;
	g->buf_storage = li->rmb_bytes;
	g->max_links = li->max_links;
	g->max_conns = li->max_conns;
}

static void fill_link(void *arg, const smcr_link_info *li)
{
	fill *f = arg;
	report_link *k = report_add_link(f->r);
	k->stack_id = 1;
	k->lgr_id = lgr_num(f->ctx, li->lgr_id);
	k->link_num = li->link_id;
	k->local_link_id = li->link_uid;
	k->remote_link_id = li->peer_link_uid;
	k->state = (report_link_state)li->state;
	k->rnic_id = f->rnic_base + li->port_index;
	memcpy(k->local_mac, li->local_mac, 6);
	memcpy(k->remote_mac, li->peer_mac, 6);
	memcpy(k->local_gid, li->local_gid, 16);
	memcpy(k->remote_gid, li->peer_gid, 16);
	k->local_qpn = li->local_qpn;
	k->remote_qpn = li->peer_qpn;
	k->vlan = li->vlan_id ? li->vlan_id : REPORT_NO_VLAN;
	k->mtu = li->path_mtu ? smcr_mtu_bytes(li->path_mtu) : 0;
	k->bytes_in = li->bytes_in;
	k->bytes_out = li->bytes_out;
	k->ops_in = li->ops_in;
	k->ops_out = li->ops_out;
	k->n_conns = li->conn_cnt;
	for (size_t i = 0; i < f->r->n_rnics; i++) {
		report_rnic *rn = &f->r->rnics[i];
		if (rn->id != k->rnic_id)
			continue;
		rn->bytes_in += li->bytes_in;
		rn->bytes_out += li->bytes_out;
		rn->ops_in += li->ops_in;
		rn->ops_out += li->ops_out;
	}
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
		k->lgr_id = lgr_num(f->ctx, ci->lgr_id);
	k->local_token = ci->local_token;
	k->peer_token = ci->peer_token;
	k->rmbe_size = ci->rmbe_size;
	k->peer_rmbe_size = ci->peer_rmbe_size;
	k->sndbuf_size = ci->sndbuf_size;
	k->bytes_sent = ci->bytes_sent;
	k->bytes_received = ci->bytes_received;
}

static void fill_stats(report_stats *rs, const smcr_ctx *ctx)
{
	smcr_stats s;
	smcr_ctx_get_stats(ctx, &s);
	rs->clnt_v1_succ = s.clnt_v1_succ;
	rs->clnt_v2_succ = s.clnt_v2_succ;
	rs->srv_v1_succ = s.srv_v1_succ;
	rs->srv_v2_succ = s.srv_v2_succ;
	rs->clnt_hshake_err = s.clnt_hshake_err;
	rs->srv_hshake_err = s.srv_hshake_err;
	rs->rx_bytes = s.rx_bytes;
	rs->tx_bytes = s.tx_bytes;
	rs->rx_cnt = s.rx_cnt;
	rs->tx_cnt = s.tx_cnt;
	for (int i = 0; i < 9; i++)
		rs->rx_rmb_hist[i < REPORT_BUF_BUCKETS ? i : REPORT_BUF_BUCKETS - 1] += s.rmb_size_hist[i];
	for (int i = 0; i < SMCR_MAX_FBACK_RSN; i++) {
		for (uint32_t n = 0; n < s.clnt_fback_rsn[i].count; n++)
			report_stats_add_fallback(rs, s.clnt_fback_rsn[i].code, false);
		for (uint32_t n = 0; n < s.srv_fback_rsn[i].count; n++)
			report_stats_add_fallback(rs, s.srv_fback_rsn[i].code, true);
	}
}

void node_fill_report(const smcr_ctx *ctx, const char *name, smcr_report *r)
{
	report_stack *rs = report_add_stack(r);
	rs->id = 1;
	snprintf(rs->name, sizeof(rs->name), "%s", name);
	rs->os = REPORT_OS_LINUX;
	memcpy(rs->system_id, smcr_ctx_system_id(ctx), 8);
	fill_stats(&rs->stats, ctx);
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
