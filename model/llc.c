/* LLC codec: every link layer control message of SMC-R v1 and v2 (Linux smc_llc.c).
 *
 * Receive checks follow Linux: the type byte must be one Linux registers a handler for
 * (smc_llc_rx_handlers), at least 44 bytes, v1 length byte 44, v2 16-bit length >= 44.
 * Linux reads the v2 length (and the ADD_LINK rkey count) in its own CPU order; we accept
 * either order, take the one that equals the received byte count, and fail precisely
 * when neither does.
 */
#include "model/llc.h"

#include <stdio.h>
#include <string.h>

#include "model/smcr_err.h"
#include "model/byteorder.h"

#define LLC_V2_BIT 0x20
#define ADD_LINK_EXT_OFF 44
#define ADD_LINK_EXT_HDR_LEN 28 /* v2_direct, reserved, target GID, reserved, count */
#define ADD_LINK_PAIRS_OFF 72
#define RKEY_PAIR_LEN 16
#define REQ_ADD_LINK_GIDS_OFF 28
#define DEL_RKEY_KEYS_OFF 8
#define DEL_RKEY_V1_SLOTS 8
#define RKEY_ENTRY_LEN 13

const char *smcr_llc_type_name(uint8_t type)
{
	if (type == SMCR_CDC_TYPE)
		return "CDC";
	if ((type & 0xF0) == LLC_V2_BIT)
		type &= 0x0F;
	switch (type) {
	case SMCR_LLC_CONFIRM_LINK: return "CONFIRM_LINK";
	case SMCR_LLC_ADD_LINK: return "ADD_LINK";
	case SMCR_LLC_ADD_LINK_CONT: return "ADD_LINK_CONT";
	case SMCR_LLC_DELETE_LINK: return "DELETE_LINK";
	case SMCR_LLC_REQ_ADD_LINK: return "REQUEST_ADD_LINK";
	case SMCR_LLC_CONFIRM_RKEY: return "CONFIRM_RKEY";
	case SMCR_LLC_TEST_LINK: return "TEST_LINK";
	case SMCR_LLC_CONFIRM_RKEY_CONT: return "CONFIRM_RKEY_CONT";
	case SMCR_LLC_DELETE_RKEY: return "DELETE_RKEY";
	default: return "UNKNOWN";
	}
}

const char *smcr_llc_del_reason_text(uint32_t reason)
{
	switch (reason) {
	case 0: return "ok";
	case SMCR_LLC_DEL_LOST_PATH: return "lost path";
	case SMCR_LLC_DEL_OP_INIT_TERM: return "operator initiated termination";
	case SMCR_LLC_DEL_PROG_INIT_TERM: return "program initiated termination";
	case SMCR_LLC_DEL_PROT_VIOL: return "LLC protocol violation";
	case SMCR_LLC_DEL_NO_ASYM_NEEDED: return "asymmetric link no longer needed";
	case SMCR_LLC_DEL_NOLNK: return "unknown link id";
	case SMCR_LLC_DEL_NOLGR: return "unknown link group";
	default: return "unknown reason";
	}
}

/* The full type bytes Linux registers receive handlers for: v1 has no REQUEST_ADD_LINK,
 * v2 has no ADD_LINK_CONT and no CONFIRM_RKEY_CONT. */
static bool type_handled(uint8_t type, uint8_t version)
{
	switch (type) {
	case SMCR_LLC_CONFIRM_LINK:
	case SMCR_LLC_ADD_LINK:
	case SMCR_LLC_DELETE_LINK:
	case SMCR_LLC_CONFIRM_RKEY:
	case SMCR_LLC_TEST_LINK:
	case SMCR_LLC_DELETE_RKEY:
		return version == 1 || version == 2;
	case SMCR_LLC_ADD_LINK_CONT:
	case SMCR_LLC_CONFIRM_RKEY_CONT:
		return version == 1;
	case SMCR_LLC_REQ_ADD_LINK:
		return version == 2;
	default:
		return false;
	}
}

static uint8_t *put_u16_order(uint8_t *p, uint16_t v, smcr_llc_v2_order order)
{
	return order == SMCR_LLC_V2_BE ? put_be16(p, v) : put_le16(p, v);
}

static uint8_t *put_pair(uint8_t *p, const smcr_rkey_pair *r)
{
	p = put_be32(p, r->rkey_known);
	p = put_be32(p, r->rkey_new);
	return put_be64(p, r->vaddr_new);
}

static void get_pair(smcr_rkey_pair *r, const uint8_t *p)
{
	r->rkey_known = get_be32(p);
	r->rkey_new = get_be32(p + 4);
	r->vaddr_new = get_be64(p + 8);
}

static uint8_t *put_entry(uint8_t *p, const smcr_rkey_entry *e)
{
	p = put_u8(p, e->link_id);
	p = put_be32(p, e->rkey);
	return put_be64(p, e->vaddr);
}

static void get_entry(smcr_rkey_entry *e, const uint8_t *p)
{
	e->link_id = p[0];
	e->rkey = get_be32(p + 1);
	e->vaddr = get_be64(p + 5);
}

static unsigned min_u(unsigned a, unsigned b) { return a < b ? a : b; }

/* Bytes the message takes on the wire, or 0 when the content cannot be encoded. */
static size_t encoded_len(const smcr_llc_msg *m)
{
	switch ((smcr_llc_type)m->type) {
	case SMCR_LLC_ADD_LINK:
		if (m->version == 2 && m->u.add_link.v2_ext) {
			if (m->u.add_link.n_rkeys > SMCR_LLC_MAX_RKEY_PAIRS)
				return 0;
			return ADD_LINK_PAIRS_OFF + RKEY_PAIR_LEN * (size_t)m->u.add_link.n_rkeys;
		}
		return SMCR_LLC_LEN;
	case SMCR_LLC_ADD_LINK_CONT:
		return m->u.add_link_cont.n_here > 2 ? 0 : SMCR_LLC_LEN;
	case SMCR_LLC_REQ_ADD_LINK: {
		if (m->u.req_add_link.n_gids > SMCR_LLC_MAX_REQ_GIDS)
			return 0;
		size_t n = REQ_ADD_LINK_GIDS_OFF + 16 * (size_t)m->u.req_add_link.n_gids;
		return n < SMCR_LLC_LEN ? SMCR_LLC_LEN : n;
	}
	case SMCR_LLC_DELETE_RKEY: {
		if (m->version == 1)
			return m->u.delete_rkey.n_rkeys > DEL_RKEY_V1_SLOTS ? 0 : SMCR_LLC_LEN;
		size_t n = DEL_RKEY_KEYS_OFF + 4 * (size_t)m->u.delete_rkey.n_rkeys;
		return n < SMCR_LLC_LEN ? SMCR_LLC_LEN : n;
	}
	case SMCR_LLC_CONFIRM_LINK:
	case SMCR_LLC_DELETE_LINK:
	case SMCR_LLC_CONFIRM_RKEY:
	case SMCR_LLC_TEST_LINK:
	case SMCR_LLC_CONFIRM_RKEY_CONT:
		return SMCR_LLC_LEN;
	}
	return 0;
}

ssize_t smcr_llc_encode(uint8_t *out, size_t outlen, const smcr_llc_msg *m, smcr_llc_v2_order order)
{
	if (!type_handled(m->type, m->version) || (order != SMCR_LLC_V2_LE && order != SMCR_LLC_V2_BE))
		return SMCR_ERR_INVAL;
	size_t len = encoded_len(m);
	if (!len)
		return SMCR_ERR_INVAL;
	if (outlen < len)
		return SMCR_ERR_NOBUF;
	memset(out, 0, len);
	out[0] = (uint8_t)(m->version == 2 ? LLC_V2_BIT | m->type : m->type);
	if (m->version == 1) {
		out[1] = SMCR_LLC_LEN;
		/* the reject reason shares byte 2 with the v2 length, so v2 cannot carry it */
		if (m->type == SMCR_LLC_ADD_LINK)
			out[2] = m->reject_reason & 0x0F;
	} else {
		put_u16_order(out + 1, (uint16_t)len, order);
	}
	out[3] = m->flags;
	uint8_t *p = out + 4;
	switch ((smcr_llc_type)m->type) {
	case SMCR_LLC_CONFIRM_LINK: {
		const typeof(m->u.confirm_link) *c = &m->u.confirm_link;
		if (c->qpn > 0xFFFFFF)
			return SMCR_ERR_INVAL;
		p = put_bytes(p, c->mac, 6);
		p = put_bytes(p, c->gid, 16);
		p = put_be24(p, c->qpn);
		p = put_u8(p, c->link_id);
		p = put_be32(p, c->link_uid);
		p = put_u8(p, c->max_links);
		p = put_u8(p, c->max_conns);
		break;
	}
	case SMCR_LLC_ADD_LINK: {
		const typeof(m->u.add_link) *a = &m->u.add_link;
		if (a->qpn > 0xFFFFFF || a->psn > 0xFFFFFF || a->mtu > 15)
			return SMCR_ERR_INVAL;
		p = put_bytes(p, a->mac, 6);
		p = put_zero(p, 2);
		p = put_bytes(p, a->gid, 16);
		p = put_be24(p, a->qpn);
		p = put_u8(p, a->link_id);
		p = put_u8(p, a->mtu);
		p = put_be24(p, a->psn);
		if (m->version == 2 && a->v2_ext) {
			p = out + ADD_LINK_EXT_OFF;
			p = put_u8(p, a->v2_direct ? 0x80 : 0);
			p = put_u8(p, 0);
			p = put_bytes(p, a->client_target_gid, 16);
			p = put_zero(p, 8);
			p = put_u16_order(p, a->n_rkeys, order);
			for (unsigned i = 0; i < a->n_rkeys; i++)
				p = put_pair(p, &a->rkeys[i]);
		}
		break;
	}
	case SMCR_LLC_ADD_LINK_CONT: {
		const typeof(m->u.add_link_cont) *c = &m->u.add_link_cont;
		p = put_u8(p, c->link_id);
		p = put_u8(p, c->n_remaining);
		p = put_zero(p, 2);
		for (unsigned i = 0; i < c->n_here; i++)
			p = put_pair(p, &c->rkeys[i]);
		break;
	}
	case SMCR_LLC_DELETE_LINK:
		p = put_u8(p, m->u.delete_link.link_id);
		p = put_be32(p, m->u.delete_link.reason);
		break;
	case SMCR_LLC_REQ_ADD_LINK:
		p = out + 24;
		p = put_u8(p, m->u.req_add_link.n_gids);
		p = put_zero(p, 3);
		for (unsigned i = 0; i < m->u.req_add_link.n_gids; i++)
			p = put_bytes(p, m->u.req_add_link.gids[i], 16);
		break;
	case SMCR_LLC_CONFIRM_RKEY: {
		const typeof(m->u.confirm_rkey) *c = &m->u.confirm_rkey;
		p = put_u8(p, c->n_other);
		p = put_be32(p, c->rkey);
		p = put_be64(p, c->vaddr);
		for (unsigned i = 0; i < min_u(c->n_other, 2); i++)
			p = put_entry(p, &c->other[i]);
		break;
	}
	case SMCR_LLC_CONFIRM_RKEY_CONT: {
		const typeof(m->u.confirm_rkey_cont) *c = &m->u.confirm_rkey_cont;
		p = put_u8(p, c->n_remaining);
		for (unsigned i = 0; i < min_u(c->n_remaining, 3); i++)
			p = put_entry(p, &c->entries[i]);
		break;
	}
	case SMCR_LLC_DELETE_RKEY: {
		const typeof(m->u.delete_rkey) *d = &m->u.delete_rkey;
		p = put_u8(p, d->n_rkeys);
		p = put_u8(p, d->err_mask);
		p = put_zero(p, 2);
		for (unsigned i = 0; i < d->n_rkeys; i++)
			p = put_be32(p, d->rkeys[i]);
		break;
	}
	case SMCR_LLC_TEST_LINK:
		p = put_bytes(p, m->u.test_link.user_data, 16);
		break;
	}
	(void)p;
	return (ssize_t)len;
}

/* v2: which byte order makes the 16-bit length equal the received byte count. */
static int resolve_v2_length(smcr_llc_msg *m, const uint8_t *buf, size_t len, const char *name,
                             smcr_decode_err *err)
{
	uint16_t le = get_le16(buf + 1), be = get_be16(buf + 1);
	bool le_ok = le == len, be_ok = be == len;
	if (!le_ok && !be_ok)
		return smcr_decode_fail(err, SMCR_ERR_LENGTH, name, "length", 1, be,
		                        "%zu (the received bytes) in either byte order (little-endian reads %u)", len, le);
	m->order = le_ok ? SMCR_LLC_V2_LE : SMCR_LLC_V2_BE;
	m->order_ambiguous = le_ok && be_ok;
	m->length = (uint16_t)len;
	return 0;
}

/* ADD_LINK v2 extension: the rkey count uses the length's byte order and must account for
 * every byte; when the length read the same both ways, the count decides the order. */
static int decode_add_link_ext(smcr_llc_msg *m, const uint8_t *buf, size_t len, const char *name,
                               smcr_decode_err *err)
{
	typeof(m->u.add_link) *a = &m->u.add_link;
	if (len < ADD_LINK_PAIRS_OFF)
		return smcr_decode_fail(err, SMCR_ERR_SHORT, name, "v2 extension", ADD_LINK_EXT_OFF, len,
		                        "44 bytes (no extension) or >= %d", ADD_LINK_PAIRS_OFF);
	size_t room = len - ADD_LINK_PAIRS_OFF;
	uint16_t n_le = get_le16(buf + 70), n_be = get_be16(buf + 70);
	bool fit_le = (size_t)n_le * RKEY_PAIR_LEN == room, fit_be = (size_t)n_be * RKEY_PAIR_LEN == room;
	uint16_t n;
	if (m->order_ambiguous && fit_le != fit_be) {
		m->order = fit_le ? SMCR_LLC_V2_LE : SMCR_LLC_V2_BE;
		m->order_ambiguous = false;
	}
	n = m->order == SMCR_LLC_V2_LE ? n_le : n_be;
	bool fits = m->order == SMCR_LLC_V2_LE ? fit_le : fit_be;
	if (!fits)
		return smcr_decode_fail(err, SMCR_ERR_FIELD, name, "num_rkeys", 70, n,
		                        "%s%zu (16-byte pairs after offset %d, %s like the length)",
		                        room % RKEY_PAIR_LEN ? "a whole number of pairs, not " : "", room / RKEY_PAIR_LEN,
		                        ADD_LINK_PAIRS_OFF, m->order == SMCR_LLC_V2_LE ? "little-endian" : "big-endian");
	if (n > SMCR_LLC_MAX_RKEY_PAIRS)
		return smcr_decode_fail(err, SMCR_ERR_FIELD, name, "num_rkeys", 70, n, "<= %d", SMCR_LLC_MAX_RKEY_PAIRS);
	a->v2_ext = true;
	a->v2_direct = buf[ADD_LINK_EXT_OFF] & 0x80;
	memcpy(a->client_target_gid, buf + 46, 16);
	a->n_rkeys = n;
	for (unsigned i = 0; i < n; i++)
		get_pair(&a->rkeys[i], buf + ADD_LINK_PAIRS_OFF + RKEY_PAIR_LEN * i);
	return 0;
}

/* Bytes 0-3 (smc_llc_rx_handler's checks): a type Linux handles in this version, at least
 * 44 bytes, the length for the version, the flags. *name: the type's name for errors. */
static int decode_header(smcr_llc_msg *m, const uint8_t *buf, size_t len, const char **name,
                         smcr_decode_err *err)
{
	if (len < 1)
		return smcr_decode_fail(err, SMCR_ERR_SHORT, "LLC", "type", 0, len, ">= %d bytes", SMCR_LLC_LEN);
	uint8_t raw = buf[0];
	uint8_t version = (raw & 0xF0) == LLC_V2_BIT ? 2 : (raw & 0xF0) == 0 ? 1
	                                                                     : 0;
	uint8_t type = raw & 0x0F;
	if (!type_handled(type, version))
		return smcr_decode_fail(err, SMCR_ERR_TYPE, "LLC", "type", 0, raw, "%s",
		                        raw == SMCR_CDC_TYPE ? "an LLC type (0xFE is a CDC message)"
		                                             : "a type Linux handles: 0x01-0x04, 0x06-0x09, 0x21, "
		                                               "0x22, 0x24-0x27, 0x29");
	*name = smcr_llc_type_name(raw);
	if (len < SMCR_LLC_LEN)
		return smcr_decode_fail(err, SMCR_ERR_SHORT, *name, "message", 0, len, ">= %d bytes", SMCR_LLC_LEN);
	if (len > SMCR_LLC_V2_MAX_LEN)
		return smcr_decode_fail(err, SMCR_ERR_LENGTH, *name, "message", 0, len, "<= %d bytes",
		                        SMCR_LLC_V2_MAX_LEN);
	m->type = type;
	m->version = version;
	m->flags = buf[3];
	if (version == 1) {
		if (buf[1] != SMCR_LLC_LEN)
			return smcr_decode_fail(err, SMCR_ERR_LENGTH, *name, "length", 1, buf[1], "%d", SMCR_LLC_LEN);
		m->length = SMCR_LLC_LEN; /* Linux reads 44 bytes; anything after is ignored */
		if (type == SMCR_LLC_ADD_LINK)
			m->reject_reason = buf[2] & 0x0F;
	} else {
		int rc = resolve_v2_length(m, buf, len, *name, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The type's fields, with the checks of the types that carry counts. */
static int decode_body(smcr_llc_msg *m, const uint8_t *buf, size_t len, const char *name,
                       smcr_decode_err *err)
{
	uint8_t type = m->type, version = m->version;
	const uint8_t *p = buf + 4;
	switch ((smcr_llc_type)type) {
	case SMCR_LLC_CONFIRM_LINK: {
		typeof(m->u.confirm_link) *c = &m->u.confirm_link;
		memcpy(c->mac, p, 6);
		memcpy(c->gid, p + 6, 16);
		c->qpn = get_be24(p + 22);
		c->link_id = p[25];
		c->link_uid = get_be32(p + 26);
		c->max_links = p[30];
		c->max_conns = p[31];
		break;
	}
	case SMCR_LLC_ADD_LINK: {
		typeof(m->u.add_link) *a = &m->u.add_link;
		memcpy(a->mac, p, 6);
		memcpy(a->gid, p + 8, 16);
		a->qpn = get_be24(p + 24);
		a->link_id = p[27];
		a->mtu = p[28] & 0x0F;
		a->psn = get_be24(p + 29);
		if (version == 2 && len > SMCR_LLC_LEN) {
			int rc = decode_add_link_ext(m, buf, len, name, err);
			if (rc < 0)
				return rc;
		}
		break;
	}
	case SMCR_LLC_ADD_LINK_CONT: {
		typeof(m->u.add_link_cont) *c = &m->u.add_link_cont;
		c->link_id = p[0];
		c->n_remaining = p[1];
		c->n_here = (uint8_t)min_u(c->n_remaining, 2);
		for (unsigned i = 0; i < c->n_here; i++)
			get_pair(&c->rkeys[i], buf + 8 + RKEY_PAIR_LEN * i);
		break;
	}
	case SMCR_LLC_DELETE_LINK:
		m->u.delete_link.link_id = p[0];
		m->u.delete_link.reason = get_be32(p + 1);
		break;
	case SMCR_LLC_REQ_ADD_LINK: {
		uint8_t g = buf[24];
		if (g > SMCR_LLC_MAX_REQ_GIDS)
			return smcr_decode_fail(err, SMCR_ERR_FIELD, name, "gid_cnt", 24, g, "<= %d", SMCR_LLC_MAX_REQ_GIDS);
		if (REQ_ADD_LINK_GIDS_OFF + 16 * (size_t)g > len)
			return smcr_decode_fail(err, SMCR_ERR_SHORT, name, "gid list", REQ_ADD_LINK_GIDS_OFF, len,
			                        ">= %zu bytes for %u GIDs", REQ_ADD_LINK_GIDS_OFF + 16 * (size_t)g, g);
		m->u.req_add_link.n_gids = g;
		for (unsigned i = 0; i < g; i++)
			memcpy(m->u.req_add_link.gids[i], buf + REQ_ADD_LINK_GIDS_OFF + 16 * i, 16);
		break;
	}
	case SMCR_LLC_CONFIRM_RKEY: {
		typeof(m->u.confirm_rkey) *c = &m->u.confirm_rkey;
		c->n_other = p[0];
		c->rkey = get_be32(p + 1);
		c->vaddr = get_be64(p + 5);
		for (unsigned i = 0; i < min_u(c->n_other, 2); i++)
			get_entry(&c->other[i], buf + 17 + RKEY_ENTRY_LEN * i);
		break;
	}
	case SMCR_LLC_CONFIRM_RKEY_CONT: {
		typeof(m->u.confirm_rkey_cont) *c = &m->u.confirm_rkey_cont;
		c->n_remaining = p[0];
		for (unsigned i = 0; i < min_u(c->n_remaining, 3); i++)
			get_entry(&c->entries[i], buf + 5 + RKEY_ENTRY_LEN * i);
		break;
	}
	case SMCR_LLC_DELETE_RKEY: {
		typeof(m->u.delete_rkey) *d = &m->u.delete_rkey;
		uint8_t k = p[0];
		if (version == 1 && k > DEL_RKEY_V1_SLOTS)
			return smcr_decode_fail(err, SMCR_ERR_FIELD, name, "num_rkeys", 4, k, "<= %d (v1)", DEL_RKEY_V1_SLOTS);
		if (DEL_RKEY_KEYS_OFF + 4 * (size_t)k > len)
			return smcr_decode_fail(err, SMCR_ERR_SHORT, name, "rkey list", DEL_RKEY_KEYS_OFF, len,
			                        ">= %zu bytes for %u rkeys", DEL_RKEY_KEYS_OFF + 4 * (size_t)k, k);
		d->n_rkeys = k;
		d->err_mask = p[1];
		for (unsigned i = 0; i < k; i++)
			d->rkeys[i] = get_be32(buf + DEL_RKEY_KEYS_OFF + 4 * i);
		break;
	}
	case SMCR_LLC_TEST_LINK:
		memcpy(m->u.test_link.user_data, p, 16);
		break;
	}
	return 0;
}

int smcr_llc_decode(smcr_llc_msg *m, const uint8_t *buf, size_t len, smcr_decode_err *err)
{
	memset(m, 0, sizeof(*m));
	const char *name = "LLC";
	int rc = decode_header(m, buf, len, &name, err);
	return rc < 0 ? rc : decode_body(m, buf, len, name, err);
}

void smcr_llc_describe(const smcr_llc_msg *m, char *out, size_t outlen)
{
	if (!outlen)
		return;
	int n = snprintf(out, outlen, "LLC %s%s %s flags 0x%02x", smcr_llc_type_name(m->type),
	                 m->version == 2 ? " v2" : "", m->flags & SMCR_LLC_FLAG_RESP ? "resp" : "req", m->flags);
	if (n < 0 || (size_t)n >= outlen)
		return;
	char *o = out + n;
	size_t left = outlen - (size_t)n;
	switch ((smcr_llc_type)m->type) {
	case SMCR_LLC_CONFIRM_LINK:
		snprintf(o, left, " link %u qpn 0x%06x uid 0x%08x max_links %u max_conns %u", m->u.confirm_link.link_id,
		         m->u.confirm_link.qpn, m->u.confirm_link.link_uid, m->u.confirm_link.max_links,
		         m->u.confirm_link.max_conns);
		break;
	case SMCR_LLC_ADD_LINK:
		snprintf(o, left, " link %u qpn 0x%06x mtu %u psn 0x%06x%s%s rkeys %u", m->u.add_link.link_id,
		         m->u.add_link.qpn, m->u.add_link.mtu, m->u.add_link.psn,
		         m->flags & SMCR_LLC_FLAG_ADD_LNK_REJ ? " rejected" : "",
		         m->u.add_link.v2_direct ? " direct" : "", m->u.add_link.n_rkeys);
		break;
	case SMCR_LLC_ADD_LINK_CONT:
		snprintf(o, left, " link %u remaining %u", m->u.add_link_cont.link_id, m->u.add_link_cont.n_remaining);
		break;
	case SMCR_LLC_DELETE_LINK:
		snprintf(o, left, " link %u%s%s reason 0x%08x (%s)", m->u.delete_link.link_id,
		         m->flags & SMCR_LLC_FLAG_DEL_LINK_ALL ? " all" : "",
		         m->flags & SMCR_LLC_FLAG_DEL_LINK_ORDERLY ? " orderly" : "", m->u.delete_link.reason,
		         smcr_llc_del_reason_text(m->u.delete_link.reason));
		break;
	case SMCR_LLC_REQ_ADD_LINK:
		snprintf(o, left, " gids %u", m->u.req_add_link.n_gids);
		break;
	case SMCR_LLC_CONFIRM_RKEY:
		snprintf(o, left, " rkey 0x%08x vaddr 0x%016llx others %u%s", m->u.confirm_rkey.rkey,
		         (unsigned long long)m->u.confirm_rkey.vaddr, m->u.confirm_rkey.n_other,
		         m->flags & SMCR_LLC_FLAG_RKEY_NEG ? " negative" : "");
		break;
	case SMCR_LLC_CONFIRM_RKEY_CONT:
		snprintf(o, left, " remaining %u", m->u.confirm_rkey_cont.n_remaining);
		break;
	case SMCR_LLC_DELETE_RKEY:
		snprintf(o, left, " rkeys %u first 0x%08x err 0x%02x", m->u.delete_rkey.n_rkeys,
		         m->u.delete_rkey.n_rkeys ? m->u.delete_rkey.rkeys[0] : 0, m->u.delete_rkey.err_mask);
		break;
	case SMCR_LLC_TEST_LINK:
		break;
	}
}
