/* The client side of the CLC handshake (Linux af_smc.c __smc_connect, smc_connect_rdma,
 * smcr_clnt_conf_first_link).
 *
 * Proposal (v2 format always, as Linux: SMC-Rv1 with the IP prefix, SMC-Rv2 with the v2
 * extension and UEIDs) -> Accept or Decline (6 s) -> link group: first contact creates
 * one, otherwise the Accept's QPN names the link of an existing one (none: Decline
 * SYNCERR with out-of-sync) -> buffers -> [CONFIRM_RKEY on a reused lgr] -> Confirm ->
 * [first contact: CONFIRM_LINK within 4 s, then an optional ADD_LINK within 2 s].
 * Before the Accept a Linux client without ISMv2 declines with version 1. */
#include "model/handshake_int.h"

#include <string.h>

#include "model/addr_int.h"
#include "model/buf_int.h"
#include "model/clc.h"
#include "model/conn_int.h"
#include "model/ctx_int.h"
#include "model/decode_err.h"
#include "model/lgr_int.h"
#include "model/link_int.h"
#include "model/llc_flow_int.h"
#include "model/mem_int.h"
#include "model/port_int.h"
#include "model/smcr.h"
#include "model/smcr_err.h"

static uint8_t decl_version(const smcr_conn *conn) { return conn->version ? conn->version : 1; }

static void clnt_lock_granted(smcr_conn *conn);

int smcr_conn_connect(smcr_ctx *ctx, const smcr_tcp_info *tcp, void *conn_user, uint64_t now,
                      smcr_conn **out)
{
	return smcr_hs_open(ctx, SMCR_ROLE_CLIENT, tcp, conn_user, now, out);
}

static const uint8_t zero6[6];

static int clnt_start(smcr_conn *conn)
{
	smcr_ctx *ctx = conn->ctx;
	const smcr_tcp_info *tcp = conn->tcp;
	if (!tcp->peer_smc) {
		smcr_hs_fallback(conn, SMCR_DECL_PEERNOSMC);
		return 0;
	}
	if (tcp->ipsec) {
		smcr_hs_decline_fallback(conn, SMCR_DECL_IPSEC, 1);
		return 0;
	}
	smcr_hs_ini *ini = smcr_alloc(ctx, sizeof(*ini));
	if (!ini) {
		smcr_hs_decline_fallback(conn, SMCR_DECL_MEM, 1);
		return 0;
	}
	conn->ini = ini;
	ini->port_v1 = ini->port_v2 = -1;
	/* get vlan id from IP device */
	if (tcp->vlan_id < 0) {
		smcr_hs_decline_fallback(conn, SMCR_DECL_GETVLANERR, 1);
		return 0;
	}
	ini->vlan_id = (uint16_t)tcp->vlan_id;
	/* smc_find_proposal_devices() */
	smcr_dev_pick p1, p2;
	ini->offer_v1 = ctx->set.v1 && smcr_port_find(ctx, tcp, ini->vlan_id, false, &p1);
	ini->offer_v2 = ctx->set.v2 && tcp->family == 4 && ctx->set.n_ueids > 0 &&
	                smcr_port_find(ctx, tcp, ini->vlan_id, true, &p2);
	if (!ini->offer_v1 && !ini->offer_v2) {
		smcr_hs_decline_fallback(conn, SMCR_DECL_NOSMCDEV, 1);
		return 0;
	}
	smcr_clc_proposal *p = smcr_alloc(ctx, sizeof(*p));
	if (!p) {
		smcr_hs_decline_fallback(conn, SMCR_DECL_MEM, 1);
		return 0;
	}
	p->version = 2;
	p->typev1 = ini->offer_v1 ? SMCR_CLC_TYPE_R : SMCR_CLC_TYPE_NONE;
	p->typev2 = ini->offer_v2 ? SMCR_CLC_TYPE_R : SMCR_CLC_TYPE_NONE;
	if (p->typev1 != SMCR_CLC_TYPE_NONE && !smcr_prefix_set(tcp, p)) {
		if (p->typev2 == SMCR_CLC_TYPE_NONE) {
			smcr_free(ctx, p);
			smcr_hs_decline_fallback(conn, SMCR_DECL_CNFERR, 1);
			return 0;
		}
		p->typev1 = SMCR_CLC_TYPE_NONE;
		ini->offer_v1 = false;
	}
	if (ini->offer_v1) {
		ini->port_v1 = p1.port;
		memcpy(ini->gid_v1, p1.gid, 16);
		ini->sgid_index_v1 = p1.sgid_index;
		memcpy(p->peer_id, ctx->system_id, 8);
		memcpy(p->gid, p1.gid, 16);
		memcpy(p->mac, ctx->ports[p1.port].d.mac, 6);
	}
	if (ini->offer_v2) {
		ini->port_v2 = p2.port;
		memcpy(ini->gid_v2, p2.gid, 16);
		ini->sgid_index_v2 = p2.sgid_index;
		p->n_eids = ctx->set.n_ueids;
		for (uint8_t i = 0; i < ctx->set.n_ueids; i++)
			memcpy(p->eids[i], ctx->set.ueids[i], SMCR_EID_LEN);
		p->release = ctx->set.release;
		p->seid_indicator = false;
		memcpy(p->roce_v2_gid, p2.gid, 16);
		if (p->release >= 1) {
			/* v2.1 (Linux 6.6+); a v2.0 sender (Linux 6.1) keeps these bytes reserved */
			p->max_conns = ctx->set.max_conns;
			p->max_links = ctx->set.max_links;
			p->feature_mask = ctx->set.feature_mask; /* SMC_FEATURE_MASK */
		}
	}
	uint8_t buf[SMCR_CLC_MAX_LEN];
	ssize_t n = smcr_clc_encode_proposal(buf, sizeof(buf), p);
	smcr_free(ctx, p);
	if (n < 0 || smcr_clc_send(conn, buf, (size_t)n)) {
		smcr_hs_error(conn, n < 0 ? (int)n : SMCR_ERR_CLOSED);
		return 0;
	}
	smcr_hs_wait_clc(conn, SMCR_HS_CLNT_WAIT_ACCEPT, SMCR_CLC_WAIT_TIME);
	(void)zero6;
	return 0;
}

/* smc_connect_rdma_v2_prepare() + the v2.1 feature checks of the Accept's FCE */
static uint32_t v2_prepare(smcr_conn *conn)
{
	smcr_ctx *ctx = conn->ctx;
	smcr_hs_ini *ini = conn->ini;
	const smcr_clc_accept *a = &ini->aclc;
	memcpy(ini->negotiated_eid, a->eid, SMCR_EID_LEN);
	/* smc_connect_rdma(): v1 and v2.0 values unless a v2.1 first contact says otherwise */
	ini->max_conns = SMCR_CONN_PER_LGR_MAX;
	ini->max_links = SMCR_LINKS_ADD_LNK_MAX;
	ini->feature_mask = ctx->set.feature_mask;
	if (!ini->first_contact_peer)
		return 0;
	ini->release = a->fce.release;
	if (ini->release > 1)
		return SMCR_DECL_RELEASEERR;
	if (ini->release >= 1) {
		if (a->fce.max_conns < 16)
			return SMCR_DECL_MAXCONNERR;
		if (a->fce.max_links < 1 || a->fce.max_links > 2)
			return SMCR_DECL_MAXLINKERR;
		ini->max_conns = a->fce.max_conns;
		ini->max_links = a->fce.max_links;
		/* the common features (smc_clc_clnt_v2x_features_validate): only the client ANDs */
		ini->feature_mask &= a->fce.feature_mask;
	}
	if (a->fce.v2_direct) {
		memcpy(ini->nexthop_mac, a->mac, 6);
		ini->uses_gateway = false;
		return 0;
	}
	if (!ctx->cb.route_lookup)
		return SMCR_DECL_NOROUTE;
	bool gw = false;
	if (ctx->cb.route_lookup(ctx->user, conn->tcp->local_ipv4, smcr_gid_ipv4(a->gid), ini->nexthop_mac, &gw))
		return SMCR_DECL_NOROUTE;
	ini->uses_gateway = gw;
	if (!gw)
		return SMCR_DECL_NOINDIRECT; /* peer claims indirect, but it is direct */
	return 0;
}

static void on_accept(smcr_conn *conn, const uint8_t *msg, size_t len)
{
	smcr_ctx *ctx = conn->ctx;
	smcr_hs_ini *ini = conn->ini;
	smcr_decode_err err;
	memset(&err, 0, sizeof(err));
	if (smcr_clc_decode_accept(&ini->aclc, msg, len, &err) || ini->aclc.type != SMCR_CLC_ACCEPT) {
		ctx->stats.decode_errors++;
		smcr_event ev = { .type = SMCR_EV_DECODE_ERROR, .conn_id = conn->id, .decode_err = &err, .text = "CLC" };
		smcr_emit(ctx, &ev);
		smcr_hs_error(conn, SMCR_ERR_PROTO);
		return;
	}
	const smcr_clc_accept *a = &ini->aclc;
	/* smc_connect_check_aclc(): the Accept's version must be one we proposed */
	uint8_t version = a->version == 1 ? 1 : 2;
	conn->version = version;
	ini->version = version;
	if ((version == 1 && !ini->offer_v1) || (version == 2 && !ini->offer_v2)) {
		smcr_hs_decline_fallback(conn, SMCR_DECL_MODEUNSUPP, version);
		return;
	}
	ini->ib_clcqpn = a->qpn;
	ini->first_contact_peer = a->first_contact;
	memcpy(ini->peer_system_id, a->peer_id, 8);
	memcpy(ini->peer_gid, a->gid, 16);
	memcpy(ini->peer_mac, a->mac, 6);
	if (version == 2) {
		uint32_t rc = v2_prepare(conn);
		if (rc) {
			smcr_hs_decline_fallback(conn, rc, version);
			return;
		}
	}
	if (!smcr_hs_lock_acquire(conn)) {
		conn->hs = SMCR_HS_CLNT_WAIT_LOCK;
		return;
	}
	clnt_lock_granted(conn);
}

static void send_confirm(smcr_conn *conn)
{
	smcr_ctx *ctx = conn->ctx;
	smcr_hs_ini *ini = conn->ini;
	smcr_link *link = conn->lnk;
	if (conn->version == 2 && ini->first_contact_local) {
		/* smc_fill_gid_list(): our link's GID, then an alternate device's */
		ini->n_gids = 1;
		memcpy(ini->gids[0], link->gid, 16);
		smcr_dev_pick alt;
		if (smcr_port_find_alt(ctx, conn->lgr, link->port_index, &alt)) {
			memcpy(ini->gids[1], alt.gid, 16);
			ini->n_gids = 2;
		}
	}
	smcr_clc_accept m;
	uint8_t buf[SMCR_CLC_MAX_LEN];
	ssize_t n = -1;
	if (!smcr_hs_fill_accept(conn, &m, SMCR_CLC_CONFIRM, ini->first_contact_local))
		n = smcr_clc_encode_accept(buf, sizeof(buf), &m);
	if (n < 0 || smcr_clc_send(conn, buf, (size_t)n)) {
		smcr_hs_error(conn, SMCR_ERR_CLOSED);
		return;
	}
	if (!ini->first_contact_local) {
		smcr_hs_established(conn);
		return;
	}
	/* QP confirmation over the RoCE fabric */
	conn->hs = SMCR_HS_CLNT_WAIT_LINK;
	smcr_llc_add_waiter(conn->lgr, SMCR_FW_FIRST, SMCR_LLC_FLOW_WAIT_TIME, conn->id, NULL,
	                    0, 0);
}

/* smc_connect_rdma() under smc_client_lgr_pending */
static void clnt_lock_granted(smcr_conn *conn)
{
	smcr_ctx *ctx = conn->ctx;
	smcr_hs_ini *ini = conn->ini;
	const smcr_clc_accept *a = &ini->aclc;
	smcr_link *link = NULL;
	ini->first_contact_local = true;
	if (!ini->first_contact_peer) {
		smcr_lgr *lgr = smcr_lgr_match(ctx, SMCR_ROLE_CLIENT, ini);
		if (!lgr) {
			/* the server reuses an lgr we do not know: out of sync */
			smcr_hs_decline_fallback(conn, SMCR_DECL_SYNCERR, conn->version);
			return;
		}
		ini->first_contact_local = false;
		int rc = smcr_lgr_register_conn(lgr, conn, false);
		if (rc) {
			smcr_hs_decline_fallback(conn, (uint32_t)rc, conn->version);
			return;
		}
		/* the link the server chose */
		for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++) {
			smcr_link *l = lgr->lnk[i];
			if (l && l->peer_qpn == a->qpn && smcr_gid_eq(l->peer_gid, a->gid) &&
			    (a->version > 1 || smcr_mac_eq(l->peer_mac, a->mac)) && smcr_link_usable(l)) {
				link = l;
				break;
			}
		}
		if (!link) {
			smcr_hs_decline(conn, SMCR_DECL_NOSRVLINK);
			return;
		}
		if (conn->lnk != link) {
			if (conn->lnk && conn->lnk->conn_cnt)
				conn->lnk->conn_cnt--;
			conn->lnk = link;
			link->conn_cnt++;
		}
	} else {
		smcr_lgr *lgr;
		int rc = smcr_lgr_create(ctx, conn, ini, &lgr);
		if (rc) {
			smcr_hs_decline_fallback(conn, (uint32_t)rc, conn->version);
			return;
		}
		rc = smcr_lgr_register_conn(lgr, conn, true);
		if (rc) {
			conn->lgr = lgr;
			smcr_hs_decline(conn, (uint32_t)rc);
			return;
		}
		link = conn->lnk;
		if (conn->version == 2) {
			lgr->peer_os = a->fce.os_type;
			lgr->peer_release = a->fce.release;
			memcpy(lgr->peer_hostname, a->fce.hostname, SMCR_HOSTNAME_LEN);
		}
	}
	smcr_hs_save_peer_info(conn, a);
	if (smcr_buf_create(conn)) {
		smcr_hs_decline(conn, SMCR_DECL_MEM);
		return;
	}
	if (ini->first_contact_local) {
		/* smc_link_save_peer_info() */
		link->peer_qpn = a->qpn;
		memcpy(link->peer_gid, ini->peer_gid, 16);
		memcpy(link->peer_mac, ini->peer_mac, 6);
		link->peer_psn = a->psn;
		link->peer_mtu = a->qp_mtu;
	}
	int rc = smcr_hs_rtoken_handling(conn, link, a);
	if (rc) {
		smcr_hs_decline(conn, (uint32_t)rc);
		return;
	}
	smcr_conn_init_cursors(conn);
	if (ini->first_contact_local) {
		if (smcr_link_ready(link)) {
			smcr_hs_decline(conn, SMCR_DECL_ERR_RDYLNK);
			return;
		}
		send_confirm(conn);
		return;
	}
	/* register the RMB on all links and confirm its rkeys at the peer */
	conn->hs = SMCR_HS_CLNT_WAIT_RKEY;
	smcr_llc_add_waiter(conn->lgr, SMCR_FW_CONN_RKEY, SMCR_LLC_FLOW_WAIT_TIME, conn->id, NULL, 0, 0);
}

static void clnt_on_msg(smcr_conn *conn, const uint8_t *msg, size_t len, const smcr_clc_hdr *hdr)
{
	if (hdr->type == SMCR_CLC_ACCEPT && conn->hs == SMCR_HS_CLNT_WAIT_ACCEPT)
		on_accept(conn, msg, len);
}

const smcr_hs_role smcr_hs_client = {
	.start = clnt_start,
	.on_msg = clnt_on_msg,
	.lock_granted = clnt_lock_granted,
	.rkeys_confirmed = send_confirm,
	.decline_version = decl_version,
	.wait_rkey = SMCR_HS_CLNT_WAIT_RKEY,
	.wait_link = SMCR_HS_CLNT_WAIT_LINK,
	.wait_decline = SMCR_HS_CLNT_WAIT_DECLINE,
	.rkey_done = smcr_hs_rkey_done,
	.first_link_done = smcr_hs_first_link_done,
};
