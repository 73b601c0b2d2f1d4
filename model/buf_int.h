/* Buffers of a link group (buf.c): RMBs and send buffers, kept with the lgr and reused,
 * each RMB registered once per link; and the peer's RMBs as rtokens (rkey, address) per
 * peer RMB per link. */
#ifndef SMCR_BUF_INT_H
#define SMCR_BUF_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/list_int.h"
#include "model/smcr.h"

typedef struct smcr_lgr smcr_lgr;
typedef struct smcr_link smcr_link;

typedef struct smcr_buf {
	smcr_list node; /* lgr->rmbs or lgr->sndbufs */
	uint8_t *cpu;
	uint32_t len;
	uint8_t size_code;
	bool is_rmb;
	bool used;
	bool is_conf_rkey; /* peer knows its rkeys (CLC first contact or CONFIRM_RKEY) */
	bool is_reg_err;
	bool unusing;   /* DELETE_RKEY in progress before it can be reused */
	bool told_idle; /* the host was told its bytes are not needed (smcr_mem) */
	struct {
		smcr_tp_mr *mr;
		smcr_mr_info info;
	} mr[SMCR_LINKS_PER_LGR_MAX];
} smcr_buf;

#define SMCR_RMBS_PER_LGR_MAX 255

typedef struct smcr_rtoken {
	uint32_t rkey;
	uint64_t vaddr;
} smcr_rtoken;

/* A send buffer and an RMB for the connection, reused from its lgr or new. */
int smcr_buf_create(smcr_conn *conn);
/* A link group's z/OS RMB blocks again (its RMBE counts moved, or it was created with
 * none: the basic three), into the context's statistics. */
void smcr_zos_blocks_update(smcr_lgr *lgr);
int smcr_buf_map_link(smcr_lgr *lgr, smcr_buf *buf, smcr_link *lnk);
int smcr_buf_map_lgr(smcr_link *lnk);
void smcr_buf_unmap_link(smcr_lgr *lgr, smcr_link *lnk);
void smcr_buf_unuse(smcr_conn *conn);
void smcr_buf_free_all(smcr_lgr *lgr);
void smcr_buf_unuse_done(smcr_lgr *lgr, smcr_buf *buf);
/* The connection's consumer caught up with the producer of buf (its RMB or send buffer):
 * its bytes are no longer needed (smcr_mem buf_idle). */
void smcr_buf_drained(const smcr_conn *conn, smcr_buf *buf);
/* The core is about to write into the send buffer buf (the host hears of it if it was
 * told the buffer was idle). */
void smcr_buf_filling(smcr_ctx *ctx, smcr_buf *buf);
/* The used RMB at or after *pos (an index into the lgr's RMB list), *pos moved past it. */
smcr_buf *smcr_buf_next_used_rmb(const smcr_lgr *lgr, uint32_t *pos);

int smcr_rtoken_add(smcr_lgr *lgr, uint8_t link_idx, uint64_t vaddr, uint32_t rkey);
void smcr_rtoken_set(smcr_lgr *lgr, uint8_t link_idx, uint8_t link_idx_new, uint32_t rkey_known,
                     uint64_t vaddr_new, uint32_t rkey_new);
void smcr_rtoken_set2(smcr_lgr *lgr, int rtok_idx, uint8_t link_id, uint64_t vaddr, uint32_t rkey);
int smcr_rtoken_delete(smcr_lgr *lgr, uint8_t link_idx, uint32_t rkey);
void smcr_rtoken_clear_link(smcr_lgr *lgr, uint8_t link_idx);
/* Keep link_idx's column before it is cleared (see lgr->rtokens_gone). */
void smcr_rtoken_keep_gone(smcr_lgr *lgr, uint8_t link_idx);
/* The row whose kept column link_idx held (vaddr, rkey); -1 if none. */
int smcr_rtoken_find_gone(const smcr_lgr *lgr, uint8_t link_idx, uint64_t vaddr, uint32_t rkey);

#endif
