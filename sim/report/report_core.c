/* Report rows from a core's introspection (see report_core.h). */
#include "sim/report/report_core.h"

#include <stdio.h>
#include <string.h>

typedef struct lgr_lookup {
	uint64_t id;
	uint32_t num;
} lgr_lookup;

static void match_lgr(void *arg, const smcr_lgr_info *li)
{
	lgr_lookup *q = arg;
	if (li->id == q->id)
		q->num = li->lgr_num;
}

uint32_t report_core_lgr_num(const smcr_ctx *ctx, uint64_t lgr_id)
{
	lgr_lookup q = { lgr_id, (uint32_t)lgr_id };
	smcr_ctx_foreach_lgr(ctx, match_lgr, &q);
	return q.num;
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

void report_core_lgr(report_lgr *g, const smcr_lgr_info *li)
{
	g->id = li->lgr_num;
	g->role = li->role == SMCR_ROLE_SERVER ? REPORT_ROLE_SERVER : REPORT_ROLE_CLIENT;
	g->type = lgr_type(li->type);
	g->version = li->version;
	memcpy(g->peer_system_id, li->peer_system_id, 8);
	size_t n = sizeof(li->peer_hostname); /* blank-padded on the wire, not terminated */
	while (n && (li->peer_hostname[n - 1] == ' ' || !li->peer_hostname[n - 1]))
		n--;
	snprintf(g->peer_host, sizeof(g->peer_host), "%.*s", (int)n, li->peer_hostname);
	g->vlan = li->vlan_id ? li->vlan_id : REPORT_NO_VLAN;
	snprintf(g->pnetid, sizeof(g->pnetid), "%s", li->pnet_id);
	g->n_links = li->n_links;
	g->n_conns = li->conns_num;
	g->buf_storage = li->rmb_bytes;
	g->sndbuf_storage = li->sndbuf_bytes;
	g->max_links = li->max_links;
	g->max_conns = li->max_conns;
}

report_link *report_core_add_link(smcr_report *r, const smcr_ctx *ctx, const smcr_link_info *li,
                                  uint32_t stack_id, uint32_t rnic_id)
{
	report_link *k = report_add_link(r);
	k->stack_id = stack_id;
	k->lgr_id = report_core_lgr_num(ctx, li->lgr_id);
	k->link_num = li->link_id;
	k->local_link_id = li->link_uid;
	k->remote_link_id = li->peer_link_uid;
	k->state = (report_link_state)li->state;
	k->rnic_id = rnic_id;
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
	for (size_t i = 0; i < r->n_rnics; i++) {
		report_rnic *rn = &r->rnics[i];
		if (rn->id != rnic_id)
			continue;
		rn->bytes_in += li->bytes_in;
		rn->bytes_out += li->bytes_out;
		rn->ops_in += li->ops_in;
		rn->ops_out += li->ops_out;
	}
	return k;
}

void report_core_stats(report_stats *rs, const smcr_ctx *ctx)
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
	/* the core's last two buckets (1024K, >1024K) fold into the report's >512K */
	size_t nb = sizeof(s.rmb_size_hist) / sizeof(s.rmb_size_hist[0]);
	for (size_t i = 0; i < nb; i++)
		rs->rx_rmb_hist[i < REPORT_BUF_BUCKETS ? i : REPORT_BUF_BUCKETS - 1] += s.rmb_size_hist[i];
	for (int i = 0; i < SMCR_MAX_FBACK_RSN; i++) {
		for (uint32_t n = 0; n < s.clnt_fback_rsn[i].count; n++)
			report_stats_add_fallback(rs, s.clnt_fback_rsn[i].code, false);
		for (uint32_t n = 0; n < s.srv_fback_rsn[i].count; n++)
			report_stats_add_fallback(rs, s.srv_fback_rsn[i].code, true);
	}
}
