/* Buffers of a link group (Linux smc_core.c __smc_buf_create and friends).
 *
 * Each connection gets a send buffer (never visible to the peer) and an RMB with one RMBE
 * (RMBE index 1, the data ring starts at offset 0, no eyecatcher). Buffers stay with the
 * link group when their connection ends and are reused by later connections of the same
 * size; an RMB is registered as one memory region per link. The peer's RMBs are known as
 * rtokens: (rkey, address) per peer RMB per link. */
#include "model/buf_int.h"

#include <string.h>

#include "model/clc.h"
#include "model/conn_int.h"
#include "model/ctx_int.h"
#include "model/lgr_int.h"
#include "model/link_int.h"
#include "model/list_int.h"
#include "model/llc_flow_int.h"
#include "model/mem_int.h"
#include "model/smcr.h"
#include "model/smcr_err.h"
#include "model/smcr_transport.h"

static uint32_t rmb_wnd_update_limit(uint32_t rmbe_size)
{
	/* smc_rmb_wnd_update_limit(): min(rmbe_size / 10, SOCK_MIN_SNDBUF / 2), where
	 * SOCK_MIN_SNDBUF = 2 * (2048 + SKB_TRUESIZE overhead) is 4608 on x86-64. */
	uint32_t a = rmbe_size / 10, b = 4608 / 2;
	return a < b ? a : b;
}

/* A buffer given to a connection (SMC_STAT_RMB_SIZE add: the size histogram and the bytes
 * connections hold) */
static void stat_size(smcr_ctx *ctx, uint32_t size, bool is_rmb)
{
	smcr_stats *st = &ctx->stats;
	if (is_rmb) {
		st->rmb_size_hist[smcr_stat_bucket(size)]++;
		st->rmb_bytes_used += size;
		if (st->rmb_bytes_used > st->rmb_bytes_peak)
			st->rmb_bytes_peak = st->rmb_bytes_used;
	} else {
		st->sndbuf_size_hist[smcr_stat_bucket(size)]++;
		st->sndbuf_bytes_used += size;
		if (st->sndbuf_bytes_used > st->sndbuf_bytes_peak)
			st->sndbuf_bytes_peak = st->sndbuf_bytes_used;
	}
}

/* z/OS's RMB blocks of a link group from its connections' RMBE sizes: elements of 32K at
 * least, as many to a 1 MB block as fit (a larger element takes whole blocks), the most
 * each size ever had at once, and three blocks at least (the basic set) */
static uint32_t zos_blocks_of(const smcr_lgr *lgr)
{
	uint64_t blocks = 0;
	for (unsigned b = 0; b < 9; b++) {
		uint64_t elem = (uint64_t)8192 << b, n = lgr->zos_high[b];
		if (elem < 32768)
			elem = 32768;
		if (!n)
			continue;
		if (elem <= 1048576) {
			uint64_t per = 1048576 / elem;
			blocks += (n + per - 1) / per;
		} else {
			blocks += n * (elem / 1048576);
		}
	}
	return blocks < 3 ? 3 : (uint32_t)blocks;
}

void smcr_zos_blocks_update(smcr_lgr *lgr)
{
	smcr_stats *st = &lgr->ctx->stats;
	uint32_t now = zos_blocks_of(lgr);
	st->zos_rmb_blocks_now = st->zos_rmb_blocks_now - lgr->zos_blocks + now;
	lgr->zos_blocks = now;
	if (st->zos_rmb_blocks_now > st->zos_rmb_blocks_peak)
		st->zos_rmb_blocks_peak = st->zos_rmb_blocks_now;
}

static void zos_rmb_given(smcr_lgr *lgr, uint32_t size)
{
	unsigned b = smcr_stat_bucket(size);
	if (++lgr->zos_live[b] > lgr->zos_high[b]) {
		lgr->zos_high[b] = lgr->zos_live[b];
		smcr_zos_blocks_update(lgr);
	}
}

/* ... and given back (SMC_STAT_RMB_SIZE subtract, smc_buf_unuse) */
static void stat_unuse(smcr_ctx *ctx, uint32_t size, bool is_rmb)
{
	uint64_t *used = is_rmb ? &ctx->stats.rmb_bytes_used : &ctx->stats.sndbuf_bytes_used;
	*used = *used >= size ? *used - size : 0;
}

static bool reusable(const smcr_buf *b) { return !b->used && !b->unusing; }

/* Every change of a listed buffer's used and unusing goes through here, keeping the
 * link group's count of reusable buffers. */
static void buf_set(smcr_lgr *lgr, smcr_buf *b, bool used, bool unusing)
{
	if (reusable(b))
		lgr->bufs_reusable[b->is_rmb]--;
	b->used = used;
	b->unusing = unusing;
	if (reusable(b))
		lgr->bufs_reusable[b->is_rmb]++;
}

/* The newest reusable buffer of the size, now used: Linux adds a new buffer at the head
 * of its size's list (smc_lgr_buf_list_add: list_add) and smc_buf_get_slot takes the
 * first free one from the head, so the most recently created free buffer goes first
 * (seen in a 6.12 capture: a fifth connection takes the third RMB, not the first). */
static smcr_buf *get_slot(smcr_lgr *lgr, bool is_rmb, uint8_t code)
{
	if (!lgr->bufs_reusable[is_rmb])
		return NULL;
	smcr_list *head = is_rmb ? &lgr->rmbs : &lgr->sndbufs;
	for (smcr_list *pos = head->prev; pos != head; pos = pos->prev) {
		smcr_buf *b = SMCR_CONTAINER_OF(pos, smcr_buf, node);
		if (b->size_code == code && reusable(b)) {
			buf_set(lgr, b, true, false);
			return b;
		}
	}
	return NULL;
}

static uint32_t reg_access(bool is_rmb)
{
	return is_rmb ? (SMCR_ACCESS_REMOTE_WRITE | SMCR_ACCESS_LOCAL_WRITE) : SMCR_ACCESS_LOCAL_WRITE;
}

int smcr_buf_map_link(smcr_lgr *lgr, smcr_buf *buf, smcr_link *lnk)
{
	smcr_ctx *ctx = lgr->ctx;
	if (buf->mr[lnk->idx].mr)
		return 0;
	const smcr_port_desc *pd = &ctx->ports[lnk->port_index].d;
	smcr_mr_info info;
	smcr_tp_mr *mr = ctx->ops->reg_mr(ctx->tp, pd->dev, buf->cpu, buf->len, reg_access(buf->is_rmb), &info);
	if (!mr) {
		buf->is_reg_err = true;
		return SMCR_ERR_TRANSPORT;
	}
	buf->mr[lnk->idx].mr = mr;
	buf->mr[lnk->idx].info = info;
	return 0;
}

static void unmap_one(smcr_ctx *ctx, smcr_buf *buf, int idx)
{
	if (!buf->mr[idx].mr)
		return;
	ctx->ops->dereg_mr(ctx->tp, buf->mr[idx].mr);
	buf->mr[idx].mr = NULL;
	memset(&buf->mr[idx].info, 0, sizeof(buf->mr[idx].info));
}

/* Map (register) the buffer on every usable link (smcr_buf_map_usable_links). */
static int map_usable_links(smcr_lgr *lgr, smcr_buf *buf)
{
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++) {
		smcr_link *l = lgr->lnk[i];
		if (!smcr_link_usable(l))
			continue;
		int rc = smcr_buf_map_link(lgr, buf, l);
		if (rc)
			return rc;
	}
	return 0;
}

static void buf_free(smcr_lgr *lgr, smcr_buf *buf)
{
	smcr_ctx *ctx = lgr->ctx;
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++)
		unmap_one(ctx, buf, i);
	if (reusable(buf))
		lgr->bufs_reusable[buf->is_rmb]--;
	smcr_list_del(&buf->node);
	smcr_buf_mem_free(ctx, buf->cpu, buf->len);
	smcr_free(ctx, buf);
}

static int buf_create_one(smcr_conn *conn, bool is_rmb, uint32_t want)
{
	smcr_lgr *lgr = conn->lgr;
	smcr_ctx *ctx = conn->ctx;
	smcr_list *head = is_rmb ? &lgr->rmbs : &lgr->sndbufs;
	smcr_buf *buf = NULL;
	bool downgraded = false;
	/* smc_compress_bufsize(): at most SMCR_RMBE_SIZES (the kernel's largest buffer) */
	int code = smcr_rmbe_size_code(want);
	if (code > ctx->set.rmbe_max_code)
		code = ctx->set.rmbe_max_code;
	for (; code >= 0; code--) {
		uint32_t size = smcr_rmbe_size_bytes((uint8_t)code);
		buf = get_slot(lgr, is_rmb, (uint8_t)code);
		if (buf) {
			smcr_buf_mem_reset(ctx, buf->cpu, buf->len);
			buf->told_idle = false;
			if (is_rmb)
				ctx->stats.rmb_reuse++;
			else
				ctx->stats.sndbuf_reuse++;
			stat_size(ctx, size, is_rmb);
			break;
		}
		buf = smcr_alloc(ctx, sizeof(*buf));
		if (!buf)
			return SMCR_ERR_NOMEM; /* descriptor: Linux -ENOMEM stops here */
		buf->cpu = smcr_buf_mem_alloc(ctx, size);
		if (!buf->cpu) {
			/* buffer memory: Linux retries with the next smaller size; a host that
			 * declines at its memory limit instead (z/OS FIXEDMEMORY) does not */
			smcr_free(ctx, buf);
			buf = NULL;
			if (!ctx->set.buf_downgrade)
				break;
			if (!downgraded && is_rmb)
				ctx->stats.rmb_downgrade++;
			else if (!downgraded)
				ctx->stats.sndbuf_downgrade++;
			downgraded = true;
			continue;
		}
		buf->len = size;
		buf->size_code = (uint8_t)code;
		buf->is_rmb = is_rmb;
		buf->used = true;
		smcr_list_add_tail(head, &buf->node);
		if (is_rmb)
			ctx->stats.rmb_alloc++;
		else
			ctx->stats.sndbuf_alloc++;
		stat_size(ctx, size, is_rmb);
		break;
	}
	if (!buf)
		return SMCR_ERR_NOMEM;
	if (map_usable_links(lgr, buf)) {
		/* smcr_buf_unuse(): a buffer that failed registration is not reused */
		buf_free(lgr, buf);
		return SMCR_ERR_NOMEM;
	}
	if (is_rmb) {
		zos_rmb_given(lgr, buf->len);
		conn->rmb = buf;
		conn->rmbe_size = buf->len;
		conn->rmbe_size_code = buf->size_code;
		conn->rmbe_update_limit = rmb_wnd_update_limit(buf->len);
		conn->bytes_to_rcv = 0;
	} else {
		conn->sndbuf = buf;
		conn->sndbuf_space = buf->len;
	}
	return 0;
}

int smcr_buf_create(smcr_conn *conn)
{
	uint32_t snd = conn->tcp->sndbuf ? conn->tcp->sndbuf : conn->ctx->set.sndbuf_size;
	uint32_t rcv = conn->tcp->rcvbuf ? conn->tcp->rcvbuf : conn->ctx->set.rmb_size;
	int rc = buf_create_one(conn, false, snd);
	if (rc)
		return rc;
	rc = buf_create_one(conn, true, rcv);
	if (rc) {
		stat_unuse(conn->ctx, conn->sndbuf->len, false);
		buf_set(conn->lgr, conn->sndbuf, false, conn->sndbuf->unusing);
		conn->sndbuf = NULL;
		return rc;
	}
	return 0;
}

int smcr_buf_map_lgr(smcr_link *lnk)
{
	smcr_lgr *lgr = lnk->lgr;
	smcr_list *heads[2] = { &lgr->rmbs, &lgr->sndbufs };
	for (int h = 0; h < 2; h++) {
		smcr_list *pos;
		smcr_list_for_each(pos, heads[h]) {
			smcr_buf *b = SMCR_CONTAINER_OF(pos, smcr_buf, node);
			if (!b->used)
				continue;
			int rc = smcr_buf_map_link(lgr, b, lnk);
			if (rc)
				return rc;
		}
	}
	return 0;
}

void smcr_buf_unmap_link(smcr_lgr *lgr, smcr_link *lnk)
{
	smcr_list *heads[2] = { &lgr->rmbs, &lgr->sndbufs };
	for (int h = 0; h < 2; h++) {
		smcr_list *pos;
		smcr_list_for_each(pos, heads[h])
			unmap_one(lgr->ctx, SMCR_CONTAINER_OF(pos, smcr_buf, node), lnk->idx);
	}
}

void smcr_buf_unuse_done(smcr_lgr *lgr, smcr_buf *buf)
{
	if (buf->is_reg_err) {
		buf_set(lgr, buf, buf->used, false);
		buf_free(lgr, buf);
		return;
	}
	buf_set(lgr, buf, false, false);
}

void smcr_buf_unuse(smcr_conn *conn)
{
	smcr_lgr *lgr = conn->lgr;
	if (conn->sndbuf) {
		stat_unuse(conn->ctx, conn->sndbuf->len, false);
		buf_set(lgr, conn->sndbuf, false, conn->sndbuf->unusing);
		conn->sndbuf = NULL;
	}
	smcr_buf *rmb = conn->rmb;
	if (!rmb)
		return;
	stat_unuse(conn->ctx, rmb->len, true);
	if (lgr->zos_live[smcr_stat_bucket(rmb->len)])
		lgr->zos_live[smcr_stat_bucket(rmb->len)]--;
	smcr_buf_drained(conn, rmb); /* nobody reads it any more */
	conn->rmb = NULL;
	if (rmb->is_conf_rkey && lgr->listed && !lgr->terminating) {
		/* unregister the RMB with the peer (DELETE_RKEY) before it can be reused */
		buf_set(lgr, rmb, rmb->used, true);
		lgr->ctx->hooks.rmb_delete_rkey(lgr, rmb);
		return;
	}
	smcr_buf_unuse_done(lgr, rmb);
}

void smcr_buf_free_all(smcr_lgr *lgr)
{
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++) {
		smcr_free(lgr->ctx, lgr->rtokens_gone[i]);
		lgr->rtokens_gone[i] = NULL;
	}
	smcr_list *heads[2] = { &lgr->sndbufs, &lgr->rmbs };
	for (int h = 0; h < 2; h++) {
		while (!smcr_list_empty(heads[h]))
			buf_free(lgr, SMCR_CONTAINER_OF(heads[h]->next, smcr_buf, node));
	}
}

void smcr_buf_drained(const smcr_conn *conn, smcr_buf *buf)
{
	/* what the peer wrote into an RMB is what its producer cursor moved; nobody but the
	 * core writes into a send buffer */
	uint64_t peer_bytes = buf->is_rmb ? conn->bytes_received : 0;
	buf->told_idle = smcr_buf_mem_idle(conn->ctx, buf->cpu, buf->len, true, peer_bytes);
}

void smcr_buf_filling(smcr_ctx *ctx, smcr_buf *buf)
{
	if (buf->told_idle)
		buf->told_idle = !smcr_buf_mem_idle(ctx, buf->cpu, buf->len, false, 0);
}

/* In Linux's order (smc_llc_get_first_rmb, smc_llc_get_next_rmb): the size lists from the
 * smallest, each from its head, where the newest buffer is. */
smcr_buf *smcr_buf_next_used_rmb(const smcr_lgr *lgr, uint32_t *pos)
{
	uint32_t i = 0;
	for (int code = 0; code < 16; code++) {
		for (const smcr_list *p = lgr->rmbs.prev; p != &lgr->rmbs; p = p->prev) {
			smcr_buf *b = SMCR_CONTAINER_OF(p, smcr_buf, node);
			if (b->size_code != code)
				continue;
			if (i++ < *pos || !b->used)
				continue;
			*pos = i;
			return b;
		}
	}
	*pos = i;
	return NULL;
}

/* rtokens ------------------------------------------------------------------------------- */

static bool rt_used(const smcr_lgr *lgr, int i) { return lgr->rtokens_used[i / 8] & (1u << (i % 8)); }
static void rt_mark(smcr_lgr *lgr, int i, bool on)
{
	if (on)
		lgr->rtokens_used[i / 8] = (uint8_t)(lgr->rtokens_used[i / 8] | (1u << (i % 8)));
	else
		lgr->rtokens_used[i / 8] = (uint8_t)(lgr->rtokens_used[i / 8] & ~(1u << (i % 8)));
}

int smcr_rtoken_add(smcr_lgr *lgr, uint8_t link_idx, uint64_t vaddr, uint32_t rkey)
{
	for (int i = 0; i < SMCR_RMBS_PER_LGR_MAX; i++)
		if (rt_used(lgr, i) && lgr->rtokens[i][link_idx].rkey == rkey &&
		    lgr->rtokens[i][link_idx].vaddr == vaddr)
			return i; /* already known (e.g. from CONFIRM_RKEY) */
	for (int i = 0; i < SMCR_RMBS_PER_LGR_MAX; i++) {
		if (rt_used(lgr, i))
			continue;
		rt_mark(lgr, i, true);
		memset(lgr->rtokens[i], 0, sizeof(lgr->rtokens[i]));
		lgr->rtokens[i][link_idx].rkey = rkey;
		lgr->rtokens[i][link_idx].vaddr = vaddr;
		return i;
	}
	return SMCR_ERR_LIMIT;
}

void smcr_rtoken_set(smcr_lgr *lgr, uint8_t link_idx, uint8_t link_idx_new, uint32_t rkey_known,
                     uint64_t vaddr_new, uint32_t rkey_new)
{
	for (int i = 0; i < SMCR_RMBS_PER_LGR_MAX; i++) {
		if (rt_used(lgr, i) && lgr->rtokens[i][link_idx].rkey == rkey_known) {
			lgr->rtokens[i][link_idx_new].rkey = rkey_new;
			lgr->rtokens[i][link_idx_new].vaddr = vaddr_new;
			return;
		}
	}
}

void smcr_rtoken_set2(smcr_lgr *lgr, int rtok_idx, uint8_t link_id, uint64_t vaddr, uint32_t rkey)
{
	for (int i = 0; i < SMCR_LINKS_PER_LGR_MAX; i++) {
		if (lgr->lnk[i] && lgr->lnk[i]->link_id == link_id) {
			lgr->rtokens[rtok_idx][i].rkey = rkey;
			lgr->rtokens[rtok_idx][i].vaddr = vaddr;
			return;
		}
	}
}

int smcr_rtoken_delete(smcr_lgr *lgr, uint8_t link_idx, uint32_t rkey)
{
	for (int i = 0; i < SMCR_RMBS_PER_LGR_MAX; i++) {
		if (rt_used(lgr, i) && lgr->rtokens[i][link_idx].rkey == rkey) {
			memset(lgr->rtokens[i], 0, sizeof(lgr->rtokens[i]));
			rt_mark(lgr, i, false);
			return 0;
		}
	}
	return SMCR_ERR_NOTFOUND;
}

void smcr_rtoken_keep_gone(smcr_lgr *lgr, uint8_t link_idx)
{
	smcr_rtoken **gone = &lgr->rtokens_gone[link_idx];
	if (!*gone)
		*gone = smcr_alloc(lgr->ctx, SMCR_RMBS_PER_LGR_MAX * sizeof(**gone));
	if (!*gone)
		return; /* without memory the rescue fails and the server declines as before */
	for (int i = 0; i < SMCR_RMBS_PER_LGR_MAX; i++)
		(*gone)[i] = rt_used(lgr, i) ? lgr->rtokens[i][link_idx] : (smcr_rtoken){ 0 };
}

int smcr_rtoken_find_gone(const smcr_lgr *lgr, uint8_t link_idx, uint64_t vaddr, uint32_t rkey)
{
	const smcr_rtoken *gone = lgr->rtokens_gone[link_idx];
	for (int i = 0; gone && i < SMCR_RMBS_PER_LGR_MAX; i++)
		if (rt_used(lgr, i) && gone[i].rkey == rkey && gone[i].vaddr == vaddr)
			return i;
	return -1;
}

void smcr_rtoken_clear_link(smcr_lgr *lgr, uint8_t link_idx)
{
	for (int i = 0; i < SMCR_RMBS_PER_LGR_MAX; i++)
		memset(&lgr->rtokens[i][link_idx], 0, sizeof(lgr->rtokens[i][link_idx]));
}
