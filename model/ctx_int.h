/* The context's internals: what one TCP/IP stack's SMC-R world holds (made by the face,
 * smcr.c), and its services (ctx.c): the enter/leave bracket of every public entry point
 * (objects that end during a call are freed when the outermost call returns), events to
 * the host, and lookups by id. */
#ifndef SMCR_CTX_INT_H
#define SMCR_CTX_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index_int.h"
#include "model/list_int.h"
#include "model/llc_flow_int.h"
#include "model/port_int.h"
#include "model/smcr.h"

typedef struct smcr_link smcr_link;
typedef struct smcr_timer smcr_timer;
typedef struct smcr_lgr smcr_lgr;
typedef struct smcr_send_slot smcr_send_slot;
typedef struct smcr_hs_role smcr_hs_role;
typedef struct smcr_buf smcr_buf;

/* How a lower file of the core reaches one above it without depending on it: the face
 * (smcr.c) registers these when it makes the context (Linux registers its handlers the
 * same way: smc_wr_rx_register_handler, the handshake's and LLC's own tables). */
typedef struct smcr_hooks {
	/* ctx.c, at the outermost leave: free what ended during the call (the connection's
	 * or the lgr's list node on ctx->reap_conns, ctx->reap_lgrs, already unlinked) */
	void (*conn_reap)(smcr_list *node);
	void (*lgr_free)(smcr_list *node);
	/* wr.c, the completion demultiplexer (Linux smc_wr_rx_handler, smc_wr_tx_pend_priv):
	 * a received message by its type, a sent CDC message or a DELETE_LINK ALL the lgr
	 * waits for completed, a send slot free for a connection waiting for one, and a
	 * completion error that takes the link down */
	void (*rx_cdc)(smcr_link *lnk, const uint8_t *buf, uint32_t len);
	void (*rx_llc)(smcr_link *lnk, const uint8_t *buf, uint32_t len);
	void (*cdc_sent)(smcr_link *lnk, smcr_send_slot *s, bool ok);
	void (*lgr_term_sent)(smcr_lgr *lgr, bool ok);
	void (*slot_free)(smcr_conn *conn);
	void (*link_down)(smcr_link *lnk, smcr_linkdown_reason why);
	/* link.c: a link went down, or is cleared with connections still on it: what that
	 * sets off for them and for the lgr (failover.c) */
	void (*link_failed)(smcr_link *lnk, smcr_linkdown_reason why, bool was_active);
	void (*link_orphans)(smcr_link *lnk);
	/* buf.c and the LLC flow engine's waiters: an RMB whose connection ended is deleted at
	 * the peer before its reuse (llc_rkey.c), and is free once that is done (buf.c) */
	void (*rmb_delete_rkey)(smcr_lgr *lgr, smcr_buf *rmb);
	void (*rmb_unused)(smcr_lgr *lgr, smcr_buf *rmb);
} smcr_hooks;

struct smcr_ctx {
	smcr_mem mem;
	uint64_t mem_bytes;
	smcr_callbacks cb;
	void *user;
	const smcr_transport_ops *ops;
	void *tp;
	smcr_settings set;
	uint8_t system_id[8];
	bool system_id_valid;
	uint8_t system_id_rnd[2];
	smcr_port ports[SMCR_MAX_PORTS];
	uint32_t n_ports;
	smcr_list lgrs;          /* listed lgrs */
	smcr_index lgrs_by_peer; /* the same, found by what a reuse must match (smcr_lgr_match) */
	smcr_list dying_lgrs;    /* terminated lgrs still finishing */
	smcr_list conns;         /* live connections, creation order */
	smcr_index conns_by_id;  /* the same, found by id (smcr_ctx_find_conn) */
	uint64_t next_lgr_id, next_link_id, next_conn_id;
	uint32_t lgr_num;
	uint32_t next_token;
	/* live links by id (sorted) for wr_id / qp_ctx routing */
	smcr_link **links;
	uint32_t n_links, links_cap;
	/* timers */
	smcr_timer **heap;
	uint32_t heap_len, heap_cap, timers_reserved;
	uint64_t timer_seq;
	uint64_t now;
	int depth;
	/* objects to free when the outermost call returns */
	smcr_list reap_conns;
	smcr_list reap_lgrs;
	smcr_list reap_links;
	/* handshake serialisation (smc_server_lgr_pending / smc_client_lgr_pending) */
	uint64_t srv_lock_owner, clnt_lock_owner;
	smcr_list srv_lock_waiters, clnt_lock_waiters;
	smcr_stats stats;
	bool freeing; /* smcr_ctx_free: no callbacks, no protocol */
	smcr_hooks hooks;
	smcr_llc_handlers llc; /* what the LLC flow engine runs (llc_flow_int.h) */
	const smcr_hs_role *roles[2]; /* the handshake's roles by smcr_role (handshake_int.h) */
};

static inline const smcr_hs_role *smcr_ctx_role(const smcr_ctx *ctx, smcr_role role) { return ctx->roles[role]; }

void smcr_ctx_enter(smcr_ctx *ctx, uint64_t now);
void smcr_ctx_leave(smcr_ctx *ctx);
void smcr_emit(smcr_ctx *ctx, const smcr_event *ev);
void smcr_emit_simple(smcr_ctx *ctx, smcr_event_type type, uint64_t lgr_id, uint64_t conn_id,
                      uint32_t reason, const char *text);
void smcr_rand(smcr_ctx *ctx, void *dst, size_t len);
smcr_link *smcr_ctx_find_link(const smcr_ctx *ctx, uint64_t id);
int smcr_ctx_register_link(smcr_ctx *ctx, smcr_link *lnk);
void smcr_ctx_unregister_link(smcr_ctx *ctx, smcr_link *lnk);
smcr_conn *smcr_ctx_find_conn(const smcr_ctx *ctx, uint64_t id);
void smcr_stat_fallback(smcr_ctx *ctx, smcr_role role, uint32_t reason);

/* smc_stats' bucket of a size: 8K, 16K, ... 1024K, >1024K (fls64((len - 1) >> 13), at
 * most SMC_BUF_MAX - 1) */
static inline unsigned smcr_stat_bucket(uint64_t len)
{
	unsigned idx = 0;
	for (uint64_t v = len ? (len - 1) >> 13 : 0; v && idx < 8; v >>= 1)
		idx++;
	return idx;
}

#endif
