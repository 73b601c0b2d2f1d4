/* Links (link.c): one RC QP pair between a local and a peer RoCE port, its states
 * UNUSED -> ACTIVATING -> ACTIVE -> INACTIVE, QP setup, going down and being cleared, its
 * send slots and receive buffers (wr.c) and its TEST_LINK keepalive. */
#ifndef SMCR_LINK_INT_H
#define SMCR_LINK_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/list_int.h"
#include "model/smcr.h"
#include "model/timer_int.h"

typedef struct smcr_link smcr_link;
typedef struct smcr_lgr smcr_lgr;
typedef struct smcr_send_slot smcr_send_slot;
typedef struct smcr_dev_pick smcr_dev_pick;

struct smcr_link {
	smcr_list reap_node; /* ctx->reap_links once cleared */
	uint64_t id;
	smcr_ctx *ctx;
	struct smcr_lgr *lgr;
	uint8_t idx;       /* slot in lgr->lnk[] */
	uint8_t link_id;   /* wire link number */
	uint32_t link_uid; /* htonl(lgr num + link id) read as big-endian number */
	uint32_t peer_link_uid;
	smcr_link_state state;
	bool asym;
	uint32_t port_index;
	uint8_t gid[16];
	uint16_t sgid_index;
	uint8_t mac[6];
	uint16_t vlan_id;
	uint8_t peer_gid[16];
	uint8_t peer_mac[6];
	uint32_t peer_qpn;
	uint32_t peer_psn;
	uint8_t peer_mtu;
	smcr_mtu path_mtu;
	uint32_t psn_initial;
	smcr_tp_qp *qp;
	uint32_t qpn;
	/* send slots: n_slots regular 48-byte slots plus one v2 slot (8192) at the end */
	smcr_send_slot *slots;
	uint16_t n_slots;
	uint16_t slots_busy;
	uint8_t *tx_bufs;
	smcr_tp_mr *tx_mr;
	smcr_mr_info tx_mr_info;
	uint32_t wr_gen;
	/* receive buffers */
	uint8_t *rx_bufs;
	uint32_t rx_buf_size;
	uint16_t n_rx;
	smcr_tp_mr *rx_mr;
	smcr_mr_info rx_mr_info;
	/* waiting for a send slot */
	smcr_list slot_waiters; /* conns (conn->slot_node) */
	smcr_list llc_outq;     /* smcr_llc_out */
	smcr_timer slot_timer;
	/* keepalive */
	uint64_t last_rx;
	uint64_t testlink_time;
	smcr_timer testlink_timer;
	bool testlink_pending;
	uint32_t conn_cnt;
	/* counters */
	uint64_t bytes_out, bytes_in, ops_out, ops_in, llc_out, llc_in, cdc_out, cdc_in;
};

static inline bool smcr_link_usable(const smcr_link *l)
{
	return l && (l->state == SMCR_LNK_ACTIVE || l->state == SMCR_LNK_ACTIVATING);
}
static inline bool smcr_link_active(const smcr_link *l) { return l && l->state == SMCR_LNK_ACTIVE; }
/* Usable and still with its QP: messages can be posted on it. */
static inline bool smcr_link_sendable(const smcr_link *l) { return smcr_link_usable(l) && l->qp; }

int smcr_link_init(smcr_lgr *lgr, int idx, const smcr_dev_pick *dev, smcr_link **out);
int smcr_link_ready(smcr_link *lnk); /* INIT, RTR (+ RTS for the server), post recvs */
int smcr_link_modify_rts(smcr_link *lnk);
void smcr_link_set_uid(smcr_link *lnk);
void smcr_link_activate(smcr_link *lnk); /* smc_llc_link_active */
/* The link is down (Linux smcr_link_down): its state, events, keepalive; what that sets
 * off for its connections and the lgr runs through ctx->hooks.link_failed (failover.c). */
void smcr_link_down(smcr_link *lnk, smcr_linkdown_reason why);
/* Its QP to RESET (pending work flushed). */
void smcr_link_qp_reset(smcr_link *lnk);
void smcr_link_clear(smcr_link *lnk, bool log);
void smcr_link_fill_info(const smcr_link *lnk, smcr_link_info *out);
void smcr_link_emit(smcr_link *lnk, smcr_event_type type, smcr_linkdown_reason why, uint32_t reason);

#endif
