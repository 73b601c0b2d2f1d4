/* The CLC handshake of a connection: what both roles share (clc_stream.c: framing CLC
 * messages out of the TCP stream, waits, Declines, fallback, the handshake locks, the
 * Accept/Confirm contents, the end of a first link's or an rkey's confirmation) and the
 * client's and server's own steps (clc_client.c, clc_server.c), each behind its role
 * table: the LLC procedures and the shared code call a connection's role, not a file. */
#ifndef SMCR_HANDSHAKE_INT_H
#define SMCR_HANDSHAKE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/clc.h"
#include "model/smcr.h"

typedef struct smcr_link smcr_link;

typedef enum smcr_hs_state {
	SMCR_HS_DONE = 0,
	SMCR_HS_CLNT_WAIT_ACCEPT,
	SMCR_HS_CLNT_WAIT_LOCK,
	SMCR_HS_CLNT_WAIT_RKEY,
	SMCR_HS_CLNT_WAIT_LINK,
	SMCR_HS_CLNT_WAIT_DECLINE,
	SMCR_HS_SRV_WAIT_PROPOSAL,
	SMCR_HS_SRV_WAIT_LOCK,
	SMCR_HS_SRV_WAIT_RKEY,
	SMCR_HS_SRV_WAIT_CONFIRM,
	SMCR_HS_SRV_WAIT_LINK,
	SMCR_HS_SRV_WAIT_DECLINE,
} smcr_hs_state;

/* Handshake scratch (struct smc_init_info). */
typedef struct smcr_hs_ini {
	uint8_t version;          /* negotiated SMC-R version of this connection */
	bool offer_v1, offer_v2;  /* client: what the Proposal offered */
	int32_t port_v1, port_v2; /* chosen ports (-1 none) */
	uint8_t gid_v1[16], gid_v2[16];
	uint16_t sgid_index_v1, sgid_index_v2;
	uint16_t vlan_id;
	bool first_contact_peer;
	bool first_contact_local;
	uint8_t peer_system_id[8];
	uint8_t peer_gid[16];
	uint8_t peer_mac[6];
	uint32_t ib_clcqpn;
	smcr_clc_proposal prop; /* server: the Proposal */
	smcr_clc_accept aclc;   /* client: the Accept */
	char negotiated_eid[SMCR_EID_LEN];
	uint8_t release;
	uint8_t max_conns, max_links;
	uint16_t feature_mask;
	bool uses_gateway;
	uint8_t nexthop_mac[6];
	uint8_t n_gids; /* client v2 FC: GID list for the Confirm */
	uint8_t gids[2][16];
	uint32_t decl_rc; /* first decline reason recorded (ini->rc) */
	uint8_t accept_lnk_idx1; /* server: 1 + the index of the link its Accept named (0: none) */
} smcr_hs_ini;

/* Results of first-link confirmation besides 0 and decline codes: wait 1 s for a Decline
 * from the peer; without one, decline TIMEOUT_CL (FAIL) or carry on with one link (OK). */
#define SMCR_HS_RC_DECLINE_WAIT_FAIL 0xFFFF0001u
#define SMCR_HS_RC_DECLINE_WAIT_OK 0xFFFF0002u

/* One role's part of the handshake (Linux: smc_connect_rdma/smc_listen_work and their
 * helpers). Whoever continues a connection's handshake calls its role's entry through
 * ctx->roles[conn->role] (smcr_ctx_role: the face registers the two tables), never
 * clc_client.c or clc_server.c by name: the shared code, the LLC procedures and the
 * connection's end know no role. */
typedef struct smcr_hs_role {
	int (*start)(smcr_conn *conn);
	void (*on_msg)(smcr_conn *conn, const uint8_t *msg, size_t len, const smcr_clc_hdr *hdr);
	void (*lock_granted)(smcr_conn *conn);
	/* the rkeys of a reused lgr's new RMB are confirmed: the client sends its Confirm,
	 * the server its Accept */
	void (*rkeys_confirmed)(smcr_conn *conn);
	/* a Decline's version: the client's negotiated one, the version the Proposal offered */
	uint8_t (*decline_version)(const smcr_conn *conn);
	smcr_hs_state wait_rkey, wait_link, wait_decline;
	/* the same for both roles (clc_stream.c): the LLC procedures' results */
	void (*rkey_done)(smcr_conn *conn, int rc);
	void (*first_link_done)(smcr_conn *conn, uint32_t rc);
} smcr_hs_role;

extern const smcr_hs_role smcr_hs_client; /* clc_client.c */
extern const smcr_hs_role smcr_hs_server; /* clc_server.c */

/* clc_stream.c: framing, send, decline, fallback */
int smcr_clc_send(smcr_conn *conn, const uint8_t *buf, size_t len);
void smcr_hs_fallback(smcr_conn *conn, uint32_t reason);
void smcr_hs_decline_fallback(smcr_conn *conn, uint32_t reason, uint8_t version);
void smcr_hs_error(smcr_conn *conn, int err);
void smcr_hs_established(smcr_conn *conn);
void smcr_hs_wait_clc(smcr_conn *conn, smcr_hs_state st, uint64_t timeout);
void smcr_hs_on_clc_timer(smcr_conn *conn);
void smcr_hs_lock_release(smcr_conn *conn);
bool smcr_hs_lock_acquire(smcr_conn *conn);
void smcr_hs_abort_conn_setup(smcr_conn *conn, bool local_first);
int smcr_hs_fill_accept(smcr_conn *conn, smcr_clc_accept *m, smcr_clc_type type, bool first_contact);
int smcr_hs_rtoken_handling(smcr_conn *conn, smcr_link *lnk, const smcr_clc_accept *m);
void smcr_hs_save_peer_info(smcr_conn *conn, const smcr_clc_accept *m);
/* smcr_conn_connect/accept: a new connection of that role, its handshake started */
int smcr_hs_open(smcr_ctx *ctx, smcr_role role, const smcr_tcp_info *tcp, void *conn_user, uint64_t now,
                 smcr_conn **out);
/* Decline and fall back (smc_listen_decline, smc_connect_decline_fallback): the setup
 * is undone, the Decline carries the role's version. */
void smcr_hs_decline(smcr_conn *conn, uint32_t rc);
/* The role tables' rkey_done and first_link_done. */
void smcr_hs_rkey_done(smcr_conn *conn, int rc);
void smcr_hs_first_link_done(smcr_conn *conn, uint32_t rc);

#endif
