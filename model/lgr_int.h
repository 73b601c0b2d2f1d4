/* Link groups (lgr.c): creation and the reuse match, connection registration with alert
 * tokens and link balancing, lgr types, the idle linger and the ways an lgr ends. */
#ifndef SMCR_LGR_INT_H
#define SMCR_LGR_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/buf_int.h"
#include "model/conn_int.h"
#include "model/index_int.h"
#include "model/list_int.h"
#include "model/llc_flow_int.h"
#include "model/smcr.h"
#include "model/timer_int.h"

typedef struct smcr_lgr smcr_lgr;
typedef struct smcr_link smcr_link;
typedef struct smcr_hs_ini smcr_hs_ini;

#define SMCR_TOKEN_BUCKETS 64

struct smcr_lgr {
	smcr_list node;            /* ctx->lgrs, creation order */
	smcr_index_node peer_node; /* ctx->lgrs_by_peer while listed */
	uint64_t id;
	uint32_t num; /* Linux lgr id: counter in steps of 256 */
	smcr_ctx *ctx;
	smcr_role role;
	smcr_lgr_type type;
	uint8_t version; /* 1 or 2 */
	uint8_t peer_system_id[8];
	uint16_t vlan_id;
	char pnet_id[17];
	bool sync_err;
	bool terminating;
	bool freeing;
	bool listed; /* still in ctx->lgrs (matchable) */
	bool dead;
	smcr_link *lnk[SMCR_LINKS_PER_LGR_MAX];
	uint8_t next_link_id;
	smcr_list conns; /* registered connections (conn->lgr_node) */
	struct smcr_conn *token_hash[SMCR_TOKEN_BUCKETS];
	uint32_t conns_num;
	/* storage as z/OS lays it out (IP Configuration Guide, SMC-R usage of memory buffers):
	 * RMBs are 1 MB blocks cut into RMBEs of one size; a link group starts with three
	 * and keeps what it grew to. Per statistics size bucket: the connections holding an
	 * RMBE of it now and at most; the blocks that took (smcr_zos_blocks, stats) */
	uint32_t zos_live[9], zos_high[9];
	uint32_t zos_blocks;
	smcr_list rmbs, sndbufs;
	uint32_t bufs_reusable[2]; /* send buffers [0] and RMBs [1] neither used nor being unused:
	                            * none, and a new connection need not walk the list */
	smcr_rtoken rtokens[SMCR_RMBS_PER_LGR_MAX][SMCR_LINKS_PER_LGR_MAX];
	/* a cleared link's column, kept while a server handshake still waits for the Confirm
	 * of a connection its Accept put on that link (smcr_hs_rescue_link); rare, on demand */
	smcr_rtoken *rtokens_gone[SMCR_LINKS_PER_LGR_MAX];
	uint8_t rtokens_used[(SMCR_RMBS_PER_LGR_MAX + 7) / 8];
	uint8_t max_conns, max_links;
	/* v2 */
	char negotiated_eid[SMCR_EID_LEN];
	uint8_t peer_os, peer_release;
	char peer_hostname[SMCR_HOSTNAME_LEN];
	bool uses_gateway;
	uint8_t nexthop_mac[6];
	uint32_t saddr;
	/* LLC */
	smcr_llc_flow lcl;
	smcr_llc_qentry *delayed_event;
	smcr_list event_q;
	bool llc_running;
	smcr_list flow_waiters;
	uint32_t termination_rsn;
	smcr_timer free_timer, llc_timer, flow_timer, term_timer;
	uint64_t term_wait_link; /* DELETE_LINK ALL sent on this link, awaiting completion */
	uint8_t term_links;      /* links (bit per index) the DELETE_LINK ALL may still try */
	bool term_orderly;       /* ... and its orderly flag and reason */
	uint32_t term_rsn;
};

int smcr_lgr_create(smcr_ctx *ctx, smcr_conn *conn, smcr_hs_ini *ini, smcr_lgr **out);
smcr_lgr *smcr_lgr_match(smcr_ctx *ctx, smcr_role role, const smcr_hs_ini *ini);
int smcr_lgr_register_conn(smcr_lgr *lgr, smcr_conn *conn, bool first);
void smcr_lgr_unregister_conn(smcr_conn *conn);
/* The lgr's connection with this alert token: a look into its token index, which the
 * receive path and the trace both make (inline: a lookup, no protocol). */
static inline smcr_conn *smcr_lgr_find_conn(const smcr_lgr *lgr, uint32_t token)
{
	for (smcr_conn *c = lgr->token_hash[token % SMCR_TOKEN_BUCKETS]; c; c = c->token_next)
		if (c->alert_token_local == token)
			return c;
	return NULL;
}
void smcr_lgr_set_type(smcr_lgr *lgr, smcr_lgr_type t);
void smcr_lgr_set_type_asym(smcr_lgr *lgr, smcr_lgr_type t, int asym_idx);
void smcr_lgr_schedule_free(smcr_lgr *lgr);
/* Abnormal termination here; cause: a few words for logs (NULL: the reason code says it). */
void smcr_lgr_terminate(smcr_lgr *lgr, uint32_t rsn, const char *cause);
/* The peer's DELETE LINK ALL (m) ends the lgr: orderly or not, as its flag says. */
void smcr_lgr_end_by_peer(smcr_lgr *lgr, const smcr_llc_msg *m);
void smcr_lgr_cleanup_early(smcr_lgr *lgr);
void smcr_lgr_on_free_timer(smcr_lgr *lgr);
void smcr_lgr_on_term_timer(smcr_lgr *lgr);
void smcr_lgr_term_send_result(smcr_lgr *lgr, bool ok); /* the DELETE_LINK ALL completed */
void smcr_lgr_free_now(smcr_lgr *lgr);
uint32_t smcr_lgr_active_links(const smcr_lgr *lgr);
smcr_link *smcr_lgr_usable_link(const smcr_lgr *lgr);
void smcr_lgr_fill_info(const smcr_lgr *lgr, smcr_lgr_info *out);

#endif
