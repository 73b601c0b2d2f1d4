/* Work requests of a link (wr.c): send slots for LLC and CDC messages (a CDC slot remembers
 * the cursors it carries, Linux struct smc_cdc_tx_pend), LLC messages waiting for a slot,
 * receive buffers, RDMA WRITEs and the completion demultiplexer. */
#ifndef SMCR_WR_INT_H
#define SMCR_WR_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/list_int.h"
#include "model/smcr.h"

typedef struct smcr_link smcr_link;

typedef enum smcr_slot_kind { SMCR_SLOT_LLC = 1,
	                      SMCR_SLOT_CDC = 2 } smcr_slot_kind;

typedef struct smcr_send_slot {
	bool busy;
	uint8_t kind;
	bool notify_lgr; /* DELETE_LINK ALL: the lgr waits for this completion */
	uint32_t gen;
	uint8_t *buf;
	/* CDC pending data (struct smc_cdc_tx_pend) */
	uint64_t conn_id;     /* 0 when dismissed */
	smcr_cursor cursor;   /* tx sndbuf cursor sent */
	smcr_cursor p_cursor; /* producer cursor in the peer RMBE */
	smcr_cursor c_cursor; /* consumer cursor this CDC announces */
	uint16_t ctrl_seq;
} smcr_send_slot;

/* An LLC message waiting for a send slot. */
typedef struct smcr_llc_out {
	smcr_list node;
	uint16_t len;
	bool notify_lgr;
	uint8_t buf[];
} smcr_llc_out;

int smcr_wr_alloc_link(smcr_link *lnk);
void smcr_wr_free_link(smcr_link *lnk);
int smcr_wr_post_recvs(smcr_link *lnk);
/* A free regular slot, or NULL. */
smcr_send_slot *smcr_wr_get_slot(smcr_link *lnk);
void smcr_wr_put_slot(smcr_link *lnk, smcr_send_slot *s);
int smcr_wr_send_slot(smcr_link *lnk, smcr_send_slot *s, uint32_t len);
int smcr_wr_post_write(smcr_link *lnk, const smcr_sge *sges, uint32_t n, uint64_t raddr, uint32_t rkey);
/* Send an encoded LLC message; queued until a slot is free. */
int smcr_wr_send_llc(smcr_link *lnk, const uint8_t *buf, uint32_t len, bool notify_lgr);
void smcr_wr_wait_slot(smcr_link *lnk, smcr_conn *conn);
void smcr_wr_unwait(smcr_conn *conn);
void smcr_wr_dismiss_conn(smcr_conn *conn);
int smcr_wr_on_completion(smcr_ctx *ctx, const smcr_wc *wc);
void smcr_wr_on_slot_timer(smcr_link *lnk);

#endif
