/* Re-drive: value maps, and our messages against the recorded ones. A message is compared
 * in two steps: the mapped fields (identities and random values) are paired with the
 * recorded ones (learned on first sight, checked afterwards) and replaced by them; then
 * the message is encoded again and compared byte by byte with the recorded bytes, so
 * every other difference shows, reserved bytes included. */
#include <inttypes.h>
#include <string.h>

#include "model/byteorder.h"
#include "sim/redrive/redrive_int.h"

static const char *kind_name[RD_N_KINDS] = {
	[RD_QPN] = "QPN",
	[RD_PSN] = "PSN",
	[RD_RKEY] = "rkey",
	[RD_VADDR] = "RMB address",
	[RD_TOKEN] = "alert token",
	[RD_LINK_UID] = "link id",
	[RD_LINK_NUM] = "link number",
	[RD_PEER_ID] = "system id",
	[RD_GID] = "GID",
	[RD_MAC] = "MAC",
};

/* ---- maps ---- */

void rd_map_free(rd_map *m)
{
	for (int k = 0; k < RD_N_KINDS; k++)
		g_free(m->p[k]);
	memset(m, 0, sizeof(*m));
}

int rd_map_pair(rd_map *m, rd_kind k, const void *live, const void *rec, size_t len, void *other)
{
	for (size_t i = 0; i < m->n[k]; i++) {
		rd_pair *p = &m->p[k][i];
		bool la = !memcmp(p->a, live, len), rb = !memcmp(p->b, rec, len);
		if (la && rb)
			return 0;
		if (la || rb) {
			if (other)
				memcpy(other, la ? p->b : p->a, len);
			return -1;
		}
	}
	if (m->n[k] == m->cap[k]) {
		m->cap[k] = m->cap[k] ? m->cap[k] * 2 : 8;
		m->p[k] = g_realloc_n(m->p[k], m->cap[k], sizeof(rd_pair));
	}
	rd_pair *p = &m->p[k][m->n[k]++];
	memset(p, 0, sizeof(*p));
	memcpy(p->a, live, len);
	memcpy(p->b, rec, len);
	return 0;
}

/* Forget the pairs of live or rec (an RMB that another connection reuses). */
static void map_unpair(rd_map *m, rd_kind k, const void *live, const void *rec, size_t len)
{
	size_t j = 0;
	for (size_t i = 0; i < m->n[k]; i++)
		if (memcmp(m->p[k][i].a, live, len) && memcmp(m->p[k][i].b, rec, len))
			m->p[k][j++] = m->p[k][i];
	m->n[k] = j;
}

/* The other side of the pair whose recorded (b) or live (a) value is `key`. */
static bool map_find(const rd_map *m, rd_kind k, bool by_rec, const void *key, size_t len, void *out)
{
	for (size_t i = 0; i < m->n[k]; i++) {
		const rd_pair *p = &m->p[k][i];
		if (!memcmp(by_rec ? p->b : p->a, key, len)) {
			memcpy(out, by_rec ? p->a : p->b, len);
			return true;
		}
	}
	return false;
}

bool rd_map_live(const rd_map *m, rd_kind k, const void *rec, size_t len, void *live_out)
{
	return map_find(m, k, true, rec, len, live_out);
}

bool rd_map_rec(const rd_map *m, rd_kind k, const void *live, size_t len, void *rec_out)
{
	return map_find(m, k, false, live, len, rec_out);
}

void rd_rmb_add(redrive *rd, bool ours, uint32_t rec_rkey, uint64_t rec_va, uint32_t live_rkey, uint64_t live_va,
                uint32_t size)
{
	rd_rmb **arr = ours ? &rd->rmb_o : &rd->rmb_r;
	size_t *n = ours ? &rd->n_rmb_o : &rd->n_rmb_r, *cap = ours ? &rd->cap_rmb_o : &rd->cap_rmb_r;
	for (size_t i = 0; i < *n; i++)
		if ((*arr)[i].rec_rkey == rec_rkey && (*arr)[i].live_rkey == live_rkey) {
			(*arr)[i].rec_va = rec_va;
			(*arr)[i].live_va = live_va;
			if (size)
				(*arr)[i].size = size;
			return;
		}
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*arr = g_realloc_n(*arr, *cap, sizeof(rd_rmb));
	}
	(*arr)[(*n)++] = (rd_rmb){ rec_rkey, live_rkey, rec_va, live_va, size };
}

/* The newest entry wins: RMBs (and so rkeys) are reused by later connections. */
const rd_rmb *rd_rmb_by_rec(const redrive *rd, bool ours, uint32_t rec_rkey)
{
	const rd_rmb *arr = ours ? rd->rmb_o : rd->rmb_r;
	size_t n = ours ? rd->n_rmb_o : rd->n_rmb_r;
	for (size_t i = n; i > 0; i--)
		if (arr[i - 1].rec_rkey == rec_rkey)
			return &arr[i - 1];
	return NULL;
}

const rd_rmb *rd_rmb_by_live(const redrive *rd, bool ours, uint32_t live_rkey)
{
	const rd_rmb *arr = ours ? rd->rmb_o : rd->rmb_r;
	size_t n = ours ? rd->n_rmb_o : rd->n_rmb_r;
	for (size_t i = n; i > 0; i--)
		if (arr[i - 1].live_rkey == live_rkey)
			return &arr[i - 1];
	return NULL;
}

/* ---- comparing one field ---- */

typedef struct cmp {
	redrive *rd;
	const rd_msg *rec;
	char name[64];
	bool ok;
} cmp;

static void hex(char *out, size_t n, const uint8_t *p, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; i < len && o + 3 < n; i++)
		o += (size_t)snprintf(out + o, n - o, "%02x", p[i]);
	if (len && o < n)
		out[o] = 0;
	if (!len && n)
		out[0] = 0;
}

/* A field of ours that is one of our own values of kind k: pair it with the recorded one
 * and put the recorded value in its place. */
static void own(cmp *c, const char *field, rd_kind k, void *ours, const void *rec, size_t len)
{
	static const uint8_t zero[16];
	if (!memcmp(ours, zero, len) && !memcmp(rec, zero, len))
		return;
	uint8_t other[16];
	if (rd_map_pair(&c->rd->map_o, k, ours, rec, len, other)) {
		char a[40], b[40], x[40];
		hex(a, sizeof(a), ours, len);
		hex(b, sizeof(b), rec, len);
		hex(x, sizeof(x), other, len);
		rd_diff(c->rd, c->rec->frame, c->name, "%s (%s): ours %s, recorded %s, but they were paired with %s before",
		        field, kind_name[k], a, b, x);
		c->ok = false;
	}
	memcpy(ours, rec, len);
}

/* A field of ours that names one of the feeder's (R's) values: it must read back as the
 * recorded value. */
static void theirs(cmp *c, const char *field, rd_kind k, void *ours, const void *rec, size_t len)
{
	uint8_t back[16];
	if (rd_map_rec(&c->rd->map_r, k, ours, len, back)) {
		if (memcmp(back, rec, len)) {
			char a[40], b[40];
			hex(a, sizeof(a), back, len);
			hex(b, sizeof(b), rec, len);
			rd_diff(c->rd, c->rec->frame, c->name, "%s (%s, the fed side's): ours names %s, recorded %s", field,
			        kind_name[k], a, b);
			c->ok = false;
		}
		memcpy(ours, rec, len);
	}
	/* an unknown value is left as is: the byte comparison shows it */
}

static void own32(cmp *c, const char *field, rd_kind k, uint32_t *ours, uint32_t rec)
{
	uint8_t a[4], b[4];
	put_be32(a, *ours);
	put_be32(b, rec);
	own(c, field, k, a, b, 4);
	*ours = get_be32(a);
}

static void theirs32(cmp *c, const char *field, rd_kind k, uint32_t *ours, uint32_t rec)
{
	uint8_t a[4], b[4];
	put_be32(a, *ours);
	put_be32(b, rec);
	theirs(c, field, k, a, b, 4);
	*ours = get_be32(a);
}

/* Our side announces an RMB for a new connection (CONFIRM RKEY, Accept, Confirm) that is
 * paired with another recorded RMB, or Linux announces one that is paired with another of
 * ours: the two took different buffers (a free one reused, or a new one). Which buffers are free when a connection
 * takes one depends on when the DELETE RKEY of the connections before it completed
 * (smcr_buf_unuse sets used = 0 after the response, in another work item than the
 * handshake's), so the two RMBs are paired anew for this connection and a note says so. */
static void repair_reused_rmb(cmp *c, uint32_t live_rkey, uint64_t live_va, uint32_t rec_rkey, uint64_t rec_va)
{
	redrive *rd = c->rd;
	const rd_rmb *ol = rd_rmb_by_live(rd, true, live_rkey), *orr = rd_rmb_by_rec(rd, true, rec_rkey);
	bool ours_elsewhere = ol && (ol->rec_rkey != rec_rkey || ol->rec_va != rec_va);
	bool recs_elsewhere = orr && (orr->live_rkey != live_rkey || orr->live_va != live_va);
	if (!ours_elsewhere && !recs_elsewhere)
		return;
	uint8_t a[8], b[8];
	put_be32(a, live_rkey);
	put_be32(b, rec_rkey);
	map_unpair(&rd->map_o, RD_RKEY, a, b, 4);
	put_be64(a, live_va);
	put_be64(b, rec_va);
	map_unpair(&rd->map_o, RD_VADDR, a, b, 8);
	rd_note(rd, "frame %" PRIu64 ": our side took %s RMB, Linux %s one: which buffers are free then depends on when "
	            "the DELETE RKEYs before completed",
	        c->rec->frame, ol ? "an earlier" : "a new", orr ? "an earlier" : "a new");
}

/* An RMB of ours named as (rkey, address): pair both, remember the RMB. `announce`: it is
 * given to the peer for a connection here (it may be a reused buffer). */
static void own_rmb(cmp *c, uint32_t *rkey, uint64_t *va, uint32_t rec_rkey, uint64_t rec_va, uint32_t size,
                    bool announce)
{
	uint32_t live_rkey = *rkey;
	uint64_t live_va = *va;
	if (announce)
		repair_reused_rmb(c, live_rkey, live_va, rec_rkey, rec_va);
	own32(c, "rkey", RD_RKEY, rkey, rec_rkey);
	uint8_t a[8], b[8];
	put_be64(a, *va);
	put_be64(b, rec_va);
	own(c, "RMB address", RD_VADDR, a, b, 8);
	*va = rec_va;
	rd_rmb_add(c->rd, true, rec_rkey, rec_va, live_rkey, live_va, size);
}

/* A (rkey, address) of ours that names the feeder's RMB. */
static void theirs_rmb(cmp *c, uint32_t *rkey, uint64_t *va, uint32_t rec_rkey, uint64_t rec_va)
{
	const rd_rmb *r = rd_rmb_by_live(c->rd, false, *rkey);
	if (!r)
		return;
	if (r->rec_rkey != rec_rkey || *va - r->live_va != rec_va - r->rec_va) {
		rd_diff(c->rd, c->rec->frame, c->name,
		        "rkey/address name the fed side's RMB %08" PRIx32 "+%" PRIu64 ", recorded %08" PRIx32 "+%" PRIu64,
		        r->rec_rkey, *va - r->live_va, rec_rkey, rec_va - r->rec_va);
		c->ok = false;
	}
	*rkey = rec_rkey;
	*va = rec_va;
}

/* The bytes after substitution against the recorded bytes. */
static void bytes(cmp *c, const uint8_t *ours, size_t olen, const uint8_t *rec, size_t rlen)
{
	if (olen != rlen) {
		rd_diff(c->rd, c->rec->frame, c->name, "length: ours %zu bytes, recorded %zu", olen, rlen);
		c->ok = false;
	}
	size_t n = olen < rlen ? olen : rlen;
	int runs = 0;
	for (size_t i = 0; i < n && runs < 4;) {
		if (ours[i] == rec[i]) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && ours[j] != rec[j] && j - i < 16)
			j++;
		char a[40], b[40];
		hex(a, sizeof(a), ours + i, j - i);
		hex(b, sizeof(b), rec + i, j - i);
		rd_diff(c->rd, c->rec->frame, c->name, "bytes %zu..%zu: ours %s, recorded %s", i, j - 1, a, b);
		c->ok = false;
		runs++;
		i = j;
	}
}

/* ---- per message family ---- */

static void compare_clc(cmp *c, const uint8_t *ours, uint32_t len)
{
	const rd_msg *rec = c->rec;
	smcr_decode_err e;
	uint8_t out[SMCR_CLC_MAX_LEN];
	ssize_t n = -1;
	if (len < 8 || rec->len < 8 || ours[4] != rec->data[4]) {
		rd_diff(c->rd, rec->frame, c->name, "type: ours %s, recorded %s", len > 4 ? smcr_clc_type_name(ours[4]) : "?",
		        smcr_clc_type_name(rec->data[4]));
		c->ok = false;
		return;
	}
	switch (ours[4]) {
	case SMCR_CLC_PROPOSAL: {
		smcr_clc_proposal a, b;
		if (smcr_clc_decode_proposal(&a, ours, len, &e) || smcr_clc_decode_proposal(&b, rec->data, rec->len, &e))
			break;
		own(c, "peer id", RD_PEER_ID, a.peer_id, b.peer_id, 8);
		own(c, "GID", RD_GID, a.gid, b.gid, 16);
		own(c, "MAC", RD_MAC, a.mac, b.mac, 6);
		own(c, "RoCE v2 GID", RD_GID, a.roce_v2_gid, b.roce_v2_gid, 16);
		if (c->rd->addr_mapped && a.typev1 != SMCR_CLC_TYPE_NONE && b.typev1 != SMCR_CLC_TYPE_NONE) {
			/* the world's addresses stand for the recording's: the IP area is mapped */
			a.ipv4_subnet = b.ipv4_subnet;
			a.ipv4_prefix_len = b.ipv4_prefix_len;
			a.n_ipv6 = b.n_ipv6;
			memcpy(a.ipv6, b.ipv6, sizeof(a.ipv6));
		}
		n = smcr_clc_encode_proposal(out, sizeof(out), &a);
		break;
	}
	case SMCR_CLC_ACCEPT:
	case SMCR_CLC_CONFIRM: {
		smcr_clc_accept a, b;
		if (smcr_clc_decode_accept(&a, ours, len, &e) || smcr_clc_decode_accept(&b, rec->data, rec->len, &e))
			break;
		own(c, "peer id", RD_PEER_ID, a.peer_id, b.peer_id, 8);
		own(c, "GID", RD_GID, a.gid, b.gid, 16);
		own(c, "MAC", RD_MAC, a.mac, b.mac, 6);
		own32(c, "QPN", RD_QPN, &a.qpn, b.qpn);
		own32(c, "alert token", RD_TOKEN, &a.rmbe_alert_token, b.rmbe_alert_token);
		own32(c, "PSN", RD_PSN, &a.psn, b.psn);
		own_rmb(c, &a.rkey, &a.rmb_vaddr, b.rkey, b.rmb_vaddr, smcr_rmbe_size_bytes(a.rmbe_size), true);
		for (uint8_t i = 0; i < a.n_gids && i < b.n_gids; i++)
			own(c, "GID list", RD_GID, a.gids[i], b.gids[i], 16);
		n = smcr_clc_encode_accept(out, sizeof(out), &a);
		break;
	}
	case SMCR_CLC_DECLINE: {
		smcr_clc_decline a, b;
		if (smcr_clc_decode_decline(&a, ours, len, &e) || smcr_clc_decode_decline(&b, rec->data, rec->len, &e))
			break;
		own(c, "peer id", RD_PEER_ID, a.peer_id, b.peer_id, 8);
		n = smcr_clc_encode_decline(out, sizeof(out), &a);
		break;
	}
	default:
		break;
	}
	if (n < 0) {
		bytes(c, ours, len, rec->data, rec->len); /* not decodable: raw bytes */
		return;
	}
	bytes(c, out, (size_t)n, rec->data, rec->len);
}

static void compare_llc(cmp *c, const uint8_t *ours, uint32_t len)
{
	const rd_msg *rec = c->rec;
	smcr_llc_msg a, b;
	smcr_decode_err e;
	if (smcr_llc_decode(&a, ours, len, &e) || smcr_llc_decode(&b, rec->data, rec->len, &e)) {
		bytes(c, ours, len, rec->data, rec->len);
		return;
	}
	if (a.type != b.type || a.version != b.version) {
		rd_diff(c->rd, rec->frame, c->name, "type: ours %s v%u, recorded %s v%u", smcr_llc_type_name(a.type), a.version,
		        smcr_llc_type_name(b.type), b.version);
		c->ok = false;
		return;
	}
	bool resp = a.flags & SMCR_LLC_FLAG_RESP;
	switch ((smcr_llc_type)a.type) {
	case SMCR_LLC_CONFIRM_LINK:
		own(c, "MAC", RD_MAC, a.u.confirm_link.mac, b.u.confirm_link.mac, 6);
		own(c, "GID", RD_GID, a.u.confirm_link.gid, b.u.confirm_link.gid, 16);
		own32(c, "QPN", RD_QPN, &a.u.confirm_link.qpn, b.u.confirm_link.qpn);
		own(c, "link number", RD_LINK_NUM, &a.u.confirm_link.link_id, &b.u.confirm_link.link_id, 1);
		own32(c, "link id", RD_LINK_UID, &a.u.confirm_link.link_uid, b.u.confirm_link.link_uid);
		break;
	case SMCR_LLC_ADD_LINK:
		own(c, "MAC", RD_MAC, a.u.add_link.mac, b.u.add_link.mac, 6);
		own(c, "GID", RD_GID, a.u.add_link.gid, b.u.add_link.gid, 16);
		own32(c, "QPN", RD_QPN, &a.u.add_link.qpn, b.u.add_link.qpn);
		own(c, "link number", RD_LINK_NUM, &a.u.add_link.link_id, &b.u.add_link.link_id, 1);
		own32(c, "PSN", RD_PSN, &a.u.add_link.psn, b.u.add_link.psn);
		/* the sender's own GID on the new link (smc_llc_fill_ext_v2: link_new->gid) */
		own(c, "client target GID", RD_GID, a.u.add_link.client_target_gid, b.u.add_link.client_target_gid, 16);
		for (uint16_t i = 0; i < a.u.add_link.n_rkeys && i < b.u.add_link.n_rkeys; i++) {
			own32(c, "rkey (known)", RD_RKEY, &a.u.add_link.rkeys[i].rkey_known, b.u.add_link.rkeys[i].rkey_known);
			own_rmb(c, &a.u.add_link.rkeys[i].rkey_new, &a.u.add_link.rkeys[i].vaddr_new,
			        b.u.add_link.rkeys[i].rkey_new, b.u.add_link.rkeys[i].vaddr_new, 0, false);
		}
		break;
	case SMCR_LLC_ADD_LINK_CONT:
		own(c, "link number", RD_LINK_NUM, &a.u.add_link_cont.link_id, &b.u.add_link_cont.link_id, 1);
		for (uint8_t i = 0; i < a.u.add_link_cont.n_here && i < b.u.add_link_cont.n_here; i++) {
			own32(c, "rkey (known)", RD_RKEY, &a.u.add_link_cont.rkeys[i].rkey_known,
			      b.u.add_link_cont.rkeys[i].rkey_known);
			own_rmb(c, &a.u.add_link_cont.rkeys[i].rkey_new, &a.u.add_link_cont.rkeys[i].vaddr_new,
			        b.u.add_link_cont.rkeys[i].rkey_new, b.u.add_link_cont.rkeys[i].vaddr_new, 0, false);
		}
		break;
	case SMCR_LLC_DELETE_LINK:
		own(c, "link number", RD_LINK_NUM, &a.u.delete_link.link_id, &b.u.delete_link.link_id, 1);
		break;
	case SMCR_LLC_CONFIRM_RKEY:
		/* a request names our RMB; the response echoes the fed side's request */
		if (!resp) {
			own_rmb(c, &a.u.confirm_rkey.rkey, &a.u.confirm_rkey.vaddr, b.u.confirm_rkey.rkey, b.u.confirm_rkey.vaddr, 0,
			        true);
			for (uint8_t i = 0; i < a.u.confirm_rkey.n_other && i < b.u.confirm_rkey.n_other && i < 2; i++) {
				own(c, "link number", RD_LINK_NUM, &a.u.confirm_rkey.other[i].link_id, &b.u.confirm_rkey.other[i].link_id,
				    1);
				own_rmb(c, &a.u.confirm_rkey.other[i].rkey, &a.u.confirm_rkey.other[i].vaddr,
				        b.u.confirm_rkey.other[i].rkey, b.u.confirm_rkey.other[i].vaddr, 0, false);
			}
		} else {
			theirs_rmb(c, &a.u.confirm_rkey.rkey, &a.u.confirm_rkey.vaddr, b.u.confirm_rkey.rkey, b.u.confirm_rkey.vaddr);
			for (uint8_t i = 0; i < a.u.confirm_rkey.n_other && i < b.u.confirm_rkey.n_other && i < 2; i++)
				theirs_rmb(c, &a.u.confirm_rkey.other[i].rkey, &a.u.confirm_rkey.other[i].vaddr,
				           b.u.confirm_rkey.other[i].rkey, b.u.confirm_rkey.other[i].vaddr);
		}
		break;
	case SMCR_LLC_DELETE_RKEY:
		for (uint8_t i = 0; i < a.u.delete_rkey.n_rkeys && i < b.u.delete_rkey.n_rkeys; i++) {
			if (!resp)
				own32(c, "rkey", RD_RKEY, &a.u.delete_rkey.rkeys[i], b.u.delete_rkey.rkeys[i]);
			else
				theirs32(c, "rkey", RD_RKEY, &a.u.delete_rkey.rkeys[i], b.u.delete_rkey.rkeys[i]);
		}
		break;
	case SMCR_LLC_REQ_ADD_LINK:
		for (uint8_t i = 0; i < a.u.req_add_link.n_gids && i < b.u.req_add_link.n_gids; i++)
			own(c, "GID", RD_GID, a.u.req_add_link.gids[i], b.u.req_add_link.gids[i], 16);
		break;
	case SMCR_LLC_TEST_LINK:
	case SMCR_LLC_CONFIRM_RKEY_CONT:
		break;
	}
	uint8_t out[SMCR_LLC_V2_MAX_LEN];
	ssize_t n = smcr_llc_encode(out, sizeof(out), &a, a.version == 2 ? b.order : SMCR_LLC_V2_LE);
	if (n < 0)
		bytes(c, ours, len, rec->data, rec->len);
	else
		bytes(c, out, (size_t)n, rec->data, rec->len);
}

static void compare_cdc(cmp *c, const uint8_t *ours, uint32_t len)
{
	/* the alert token is the fed side's (kept as recorded); nothing else is an identity */
	bytes(c, ours, len, c->rec->data, c->rec->len);
}

bool rd_compare(redrive *rd, const rd_msg *rec, const uint8_t *ours, uint32_t len)
{
	cmp c = { .rd = rd, .rec = rec, .ok = true };
	rd_msg_name(rec, c.name, sizeof(c.name));
	switch (rec->kind) {
	case REPLAY_MSG_CLC:
		compare_clc(&c, ours, len);
		break;
	case REPLAY_MSG_LLC:
		compare_llc(&c, ours, len);
		break;
	case REPLAY_MSG_CDC:
		compare_cdc(&c, ours, len);
		break;
	case REPLAY_MSG_WRITE:
		break;
	}
	return c.ok;
}

bool rd_compare_write(redrive *rd, const rd_msg *rec, uint32_t rkey, uint64_t va, uint32_t len)
{
	cmp c = { .rd = rd, .rec = rec, .ok = true };
	rd_msg_name(rec, c.name, sizeof(c.name));
	uint64_t v = va;
	theirs_rmb(&c, &rkey, &v, rec->rkey, rec->va);
	if (len != rec->wire_len) {
		rd_diff(rd, rec->frame, c.name, "length: ours %" PRIu32 " bytes, recorded %" PRIu32, len, rec->wire_len);
		c.ok = false;
	}
	return c.ok;
}
