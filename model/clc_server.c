/* The server side of the CLC handshake (Linux af_smc.c smc_listen_work,
 * smc_listen_find_device, smc_listen_rdma_finish, smcr_serv_conf_first_link).
 *
 * Proposal (6 s) -> v2 checks (v2 extension, UEIDs, v2.1 max_conns/max_links) -> under the
 * server handshake lock: IP prefix check for v1, VLAN, RoCEv2 with a common UEID, RoCEv1 ->
 * link group (reuse an existing one of this peer, or first contact) -> buffers ->
 * [CONFIRM_RKEY on a reused lgr] -> Accept -> Confirm (6 s) -> [first contact: QP to RTS,
 * CONFIRM_LINK request, response within 2 s, then an ADD_LINK attempt]. The server
 * declines with the Proposal's version. */
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

static uint8_t prop_version(const smcr_conn *conn)
{
	return conn->ini && conn->ini->prop.version > 1 ? 2 : 1;
}

static void srv_lock_granted(smcr_conn *conn);

int smcr_conn_accept(smcr_ctx *ctx, const smcr_tcp_info *tcp, void *conn_user, uint64_t now,
                     smcr_conn **out)
{
	return smcr_hs_open(ctx, SMCR_ROLE_SERVER, tcp, conn_user, now, out);
}

static int srv_start(smcr_conn *conn)
{
	if (!conn->tcp->peer_smc) {
		smcr_hs_fallback(conn, SMCR_DECL_PEERNOSMC);
		return 0;
	}
	smcr_hs_wait_clc(conn, SMCR_HS_SRV_WAIT_PROPOSAL, SMCR_CLC_WAIT_TIME);
	return 0;
}

static bool eid_match(const smcr_ctx *ctx, const smcr_clc_proposal *p, char out[SMCR_EID_LEN])
{
	for (uint8_t i = 0; i < p->n_eids && i < SMCR_MAX_EIDS; i++)
		for (uint8_t j = 0; j < ctx->set.n_ueids; j++)
			if (!memcmp(p->eids[i], ctx->set.ueids[j], SMCR_EID_LEN)) {
				memcpy(out, p->eids[i], SMCR_EID_LEN);
				return true;
			}
	return false;
}

static void on_proposal(smcr_conn *conn, const uint8_t *msg, size_t len)
{
	smcr_ctx *ctx = conn->ctx;
	smcr_hs_ini *ini = smcr_alloc(ctx, sizeof(*ini));
	if (!ini) {
		smcr_hs_decline_fallback(conn, SMCR_DECL_MEM, 1);
		return;
	}
	conn->ini = ini;
	ini->port_v1 = ini->port_v2 = -1;
	smcr_decode_err err;
	memset(&err, 0, sizeof(err));
	if (smcr_clc_decode_proposal(&ini->prop, msg, len, &err)) {
		ctx->stats.decode_errors++;
		smcr_event ev = { .type = SMCR_EV_DECODE_ERROR, .conn_id = conn->id, .decode_err = &err, .text = "CLC" };
		smcr_emit(ctx, &ev);
		smcr_hs_error(conn, SMCR_ERR_PROTO);
		return;
	}
	const smcr_clc_proposal *p = &ini->prop;
	if (conn->tcp->ipsec) {
		smcr_hs_decline_fallback(conn, SMCR_DECL_IPSEC, prop_version(conn));
		return;
	}
	/* smc_listen_v2_check() */
	bool r1 = p->typev1 == SMCR_CLC_TYPE_R || p->typev1 == SMCR_CLC_TYPE_BOTH;
	bool r2 = p->version > 1 && (p->typev2 == SMCR_CLC_TYPE_R || p->typev2 == SMCR_CLC_TYPE_BOTH);
	ini->offer_v1 = r1 && ctx->set.v1;
	ini->offer_v2 = r2 && ctx->set.v2;
	uint32_t rc = 0;
	if (!ini->offer_v2) {
		rc = SMCR_DECL_PEERNOSMC;
	} else if (!p->n_eids) {
		ini->offer_v2 = false;
		rc = SMCR_DECL_NOUEID;
	}
	if (!ini->offer_v1 && !ini->offer_v2) {
		smcr_hs_decline(conn, rc ? rc : SMCR_DECL_PEERNOSMC);
		return;
	}
	/* v2.1 feature negotiation (smc_clc_srv_v2x_features_validate) */
	ini->max_conns = SMCR_CONN_PER_LGR_MAX;
	ini->max_links = SMCR_LINKS_ADD_LNK_MAX;
	/* the server's Accept carries its own mask; the client ANDs and its Confirm says the
	 * common one (smc_clc_srv_v2x_features_validate, smc_clc_v2x_features_confirm_check) */
	ini->feature_mask = ctx->set.feature_mask;
	if (ini->offer_v2) {
		ini->release = p->release < ctx->set.release ? p->release : ctx->set.release;
		if (ini->release >= 1) {
			ini->max_conns = p->max_conns < ctx->set.max_conns ? p->max_conns : ctx->set.max_conns;
			if (ini->max_conns < 16) {
				smcr_hs_decline(conn, SMCR_DECL_MAXCONNERR);
				return;
			}
			ini->max_links = p->max_links < ctx->set.max_links ? p->max_links : ctx->set.max_links;
			if (ini->max_links < 1) {
				smcr_hs_decline(conn, SMCR_DECL_MAXLINKERR);
				return;
			}
		}
	}
	if (!smcr_hs_lock_acquire(conn)) {
		conn->hs = SMCR_HS_SRV_WAIT_LOCK;
		return;
	}
	srv_lock_granted(conn);
}

static void send_accept(smcr_conn *conn)
{
	conn->ini->accept_lnk_idx1 = conn->lnk ? (uint8_t)(conn->lnk->idx + 1) : 0;
	smcr_clc_accept m;
	uint8_t buf[SMCR_CLC_MAX_LEN];
	ssize_t n = -1;
	if (!smcr_hs_fill_accept(conn, &m, SMCR_CLC_ACCEPT, conn->ini->first_contact_local))
		n = smcr_clc_encode_accept(buf, sizeof(buf), &m);
	if (n < 0 || smcr_clc_send(conn, buf, (size_t)n)) {
		smcr_hs_error(conn, SMCR_ERR_CLOSED);
		return;
	}
	smcr_hs_wait_clc(conn, SMCR_HS_SRV_WAIT_CONFIRM, SMCR_CLC_WAIT_TIME);
}

/* smc_listen_rdma_init(): lgr (reuse or first contact) and buffers. */
static uint32_t rdma_init(smcr_conn *conn, const smcr_dev_pick *dev)
{
	smcr_ctx *ctx = conn->ctx;
	smcr_hs_ini *ini = conn->ini;
	if (ini->version == 2) {
		ini->port_v2 = dev->port;
		memcpy(ini->gid_v2, dev->gid, 16);
		ini->sgid_index_v2 = dev->sgid_index;
	} else {
		ini->port_v1 = dev->port;
		memcpy(ini->gid_v1, dev->gid, 16);
		ini->sgid_index_v1 = dev->sgid_index;
	}
	conn->version = ini->version;
	ini->first_contact_local = true;
	smcr_lgr *lgr = smcr_lgr_match(ctx, SMCR_ROLE_SERVER, ini);
	if (lgr) {
		ini->first_contact_local = false;
		int rc = smcr_lgr_register_conn(lgr, conn, false);
		if (rc)
			return (uint32_t)rc;
	} else {
		int rc = smcr_lgr_create(ctx, conn, ini, &lgr);
		if (rc)
			return (uint32_t)rc;
		rc = smcr_lgr_register_conn(lgr, conn, true);
		if (rc) {
			conn->lgr = lgr;
			return (uint32_t)rc;
		}
	}
	if (smcr_buf_create(conn))
		return SMCR_DECL_MEM;
	smcr_conn_init_cursors(conn); /* smc_rx_init/smc_tx_init come before the Accept */
	return 0;
}

/* smc_listen_find_device() for SMC-R under smc_server_lgr_pending. */
static void srv_lock_granted(smcr_conn *conn)
{
	smcr_ctx *ctx = conn->ctx;
	smcr_hs_ini *ini = conn->ini;
	const smcr_clc_proposal *p = &ini->prop;
	uint32_t stored = 0;
	/* check for matching IP prefix and subnet length (v1) */
	bool prfx_ok = p->typev1 == SMCR_CLC_TYPE_NONE || smcr_prefix_match(conn->tcp, p);
	if (!prfx_ok)
		stored = SMCR_DECL_DIFFPREFIX;
	if (conn->tcp->vlan_id < 0) {
		smcr_hs_decline(conn, stored ? stored : SMCR_DECL_GETVLANERR);
		return;
	}
	ini->vlan_id = (uint16_t)conn->tcp->vlan_id;
	bool found = false;
	/* RoCEv2: a common UEID and a RoCEv2 device that reaches the client's GID */
	if (ini->offer_v2 && eid_match(ctx, p, ini->negotiated_eid)) {
		memcpy(ini->peer_system_id, p->peer_id, 8);
		memcpy(ini->peer_gid, p->roce_v2_gid, 16);
		memcpy(ini->peer_mac, p->mac, 6);
		smcr_dev_pick dev;
		bool ok = smcr_port_find(ctx, conn->tcp, ini->vlan_id, true, &dev);
		if (ok) {
			ini->uses_gateway = false;
			memset(ini->nexthop_mac, 0, 6);
			if (ctx->cb.route_lookup) {
				bool gw = false;
				uint8_t mac[6] = { 0 };
				if (ctx->cb.route_lookup(ctx->user, conn->tcp->local_ipv4, smcr_gid_ipv4(p->roce_v2_gid),
				                         mac, &gw))
					ok = false;
				ini->uses_gateway = gw;
				memcpy(ini->nexthop_mac, mac, 6);
			}
			if (ok && !ini->uses_gateway) {
				static const uint8_t zero[6];
				if (memcmp(p->mac, zero, 6))
					memcpy(ini->nexthop_mac, p->mac, 6);
			}
		}
		if (!ok) {
			if (!stored)
				stored = SMCR_DECL_NOSMCRDEV;
		} else {
			ini->version = 2;
			uint32_t rc = rdma_init(conn, &dev);
			if (!rc) {
				found = true;
			} else {
				if (!stored)
					stored = rc;
				smcr_hs_abort_conn_setup(conn, ini->first_contact_local);
				ini->version = 0;
			}
		}
	}
	/* RoCEv1: needs the prefix match */
	if (!found) {
		if (!prfx_ok || !ini->offer_v1) {
			smcr_hs_decline(conn, stored ? stored : SMCR_DECL_NOSMCDEV);
			return;
		}
		memcpy(ini->peer_system_id, p->peer_id, 8);
		memcpy(ini->peer_gid, p->gid, 16);
		memcpy(ini->peer_mac, p->mac, 6);
		smcr_dev_pick dev;
		if (!smcr_port_find(ctx, conn->tcp, ini->vlan_id, false, &dev)) {
			smcr_hs_decline(conn, SMCR_DECL_NOSMCDEV);
			return;
		}
		ini->version = 1;
		ini->release = 0;
		uint32_t rc = rdma_init(conn, &dev);
		if (rc) {
			smcr_hs_decline(conn, stored ? stored : rc);
			return;
		}
	}
	conn->version = ini->version;
	if (!ini->first_contact_local) {
		/* smc_listen_rdma_reg(): CONFIRM_RKEY before the Accept */
		conn->hs = SMCR_HS_SRV_WAIT_RKEY;
		smcr_llc_add_waiter(conn->lgr, SMCR_FW_CONN_RKEY, SMCR_LLC_FLOW_WAIT_TIME, conn->id, NULL, 0, 0);
		return;
	}
	send_accept(conn);
}

/* Deviation from Linux (docs/deviations.md): the link the Accept named on a reused link
 * group was cleared before the client's Confirm came (a failover skips connections still
 * in the handshake, smc_switch_conns: SMC_INIT). Linux keeps the connection on the gone
 * link and both ends stall; the client, which confirmed without waiting for an answer,
 * moved its side to a surviving link like any other connection when it lost the link.
 * Take the connection there as well: the client's CONFIRM_RKEY told us its RMB on every
 * link, so the row the Confirm's rkey names in the cleared column (kept for this) holds
 * its rkey on the surviving link. */
static bool rescue_link(smcr_conn *conn, const smcr_clc_accept *c)
{
	smcr_lgr *lgr = conn->lgr;
	uint8_t idx1 = conn->ini->accept_lnk_idx1;
	int row = idx1 ? smcr_rtoken_find_gone(lgr, (uint8_t)(idx1 - 1), c->rmb_vaddr, c->rkey) : -1;
	for (int i = 0; row >= 0 && i < SMCR_LINKS_PER_LGR_MAX; i++) {
		smcr_link *l = lgr->lnk[i];
		if (!smcr_link_active(l) || !lgr->rtokens[row][l->idx].rkey)
			continue;
		conn->lnk = l;
		l->conn_cnt++;
		conn->rtoken_idx = row;
		lgr->ctx->stats.failovers++;
		return true;
	}
	return false;
}

static void on_confirm(smcr_conn *conn, const uint8_t *msg, size_t len)
{
	smcr_ctx *ctx = conn->ctx;
	smcr_hs_ini *ini = conn->ini;
	smcr_clc_accept c;
	smcr_decode_err err;
	memset(&err, 0, sizeof(err));
	if (smcr_clc_decode_accept(&c, msg, len, &err) || c.type != SMCR_CLC_CONFIRM) {
		ctx->stats.decode_errors++;
		smcr_event ev = { .type = SMCR_EV_DECODE_ERROR, .conn_id = conn->id, .decode_err = &err, .text = "CLC" };
		smcr_emit(ctx, &ev);
		smcr_hs_error(conn, SMCR_ERR_PROTO);
		return;
	}
	bool rescued = !conn->killed && conn->lgr && !conn->lnk && !ini->first_contact_local && rescue_link(conn, &c);
	if (conn->killed || !conn->lgr || !conn->lnk) {
		smcr_hs_decline(conn, SMCR_DECL_INTERR);
		return;
	}
	smcr_lgr *lgr = conn->lgr;
	smcr_link *link = conn->lnk;
	bool local_first = ini->first_contact_local;
	/* smc_clc_v2x_features_confirm_check() */
	if (conn->version == 2 && c.first_contact && c.version > 1) {
		if (c.fce.release != ini->release) {
			smcr_hs_decline(conn, SMCR_DECL_RELEASEERR);
			return;
		}
		if (ini->release >= 1) {
			if (c.fce.max_conns != ini->max_conns) {
				smcr_hs_decline(conn, SMCR_DECL_MAXCONNERR);
				return;
			}
			if (c.fce.max_links != ini->max_links) {
				smcr_hs_decline(conn, SMCR_DECL_MAXLINKERR);
				return;
			}
			ini->feature_mask = c.fce.feature_mask; /* the common features, as the client says */
		}
	}
	if (local_first) {
		/* smc_link_save_peer_info() */
		link->peer_qpn = c.qpn;
		memcpy(link->peer_gid, ini->peer_gid, 16);
		static const uint8_t zero[6];
		memcpy(link->peer_mac, memcmp(ini->peer_mac, zero, 6) ? ini->peer_mac : c.mac, 6);
		if (conn->version == 2 && !memcmp(lgr->nexthop_mac, zero, 6) && !lgr->uses_gateway)
			memcpy(lgr->nexthop_mac, c.mac, 6);
		link->peer_psn = c.psn;
		link->peer_mtu = c.qp_mtu;
		if (conn->version == 2 && c.first_contact) {
			lgr->peer_os = c.fce.os_type;
			lgr->peer_release = c.fce.release;
			memcpy(lgr->peer_hostname, c.fce.hostname, SMCR_HOSTNAME_LEN);
		}
	}
	int rc = rescued ? 0 : smcr_hs_rtoken_handling(conn, link, &c);
	if (rc) {
		smcr_hs_decline(conn, (uint32_t)rc);
		return;
	}
	/* the cursors started before the Accept (smc_rx_init), a CDC may have come in already */
	smcr_hs_save_peer_info(conn, &c);
	if (!local_first) {
		smcr_hs_established(conn);
		return;
	}
	if (smcr_link_ready(link)) {
		smcr_hs_decline(conn, SMCR_DECL_ERR_RDYLNK);
		return;
	}
	/* QP confirmation over the RoCE fabric */
	conn->hs = SMCR_HS_SRV_WAIT_LINK;
	smcr_llc_add_waiter(lgr, SMCR_FW_FIRST, SMCR_LLC_FLOW_WAIT_TIME, conn->id, NULL, 0, 0);
}

static void srv_on_msg(smcr_conn *conn, const uint8_t *msg, size_t len, const smcr_clc_hdr *hdr)
{
	if (hdr->type == SMCR_CLC_PROPOSAL && conn->hs == SMCR_HS_SRV_WAIT_PROPOSAL)
		on_proposal(conn, msg, len);
	else if (hdr->type == SMCR_CLC_CONFIRM && conn->hs == SMCR_HS_SRV_WAIT_CONFIRM)
		on_confirm(conn, msg, len);
}

const smcr_hs_role smcr_hs_server = {
	.start = srv_start,
	.on_msg = srv_on_msg,
	.lock_granted = srv_lock_granted,
	.rkeys_confirmed = send_accept,
	.decline_version = prop_version,
	.wait_rkey = SMCR_HS_SRV_WAIT_RKEY,
	.wait_link = SMCR_HS_SRV_WAIT_LINK,
	.wait_decline = SMCR_HS_SRV_WAIT_DECLINE,
	.rkey_done = smcr_hs_rkey_done,
	.first_link_done = smcr_hs_first_link_done,
};
