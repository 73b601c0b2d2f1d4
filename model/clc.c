/* CLC codecs: header peek, Proposal, Accept/Confirm (SMC-R), Decline.
 *
 * Encoders write the bytes Linux sends (smc_clc.c: smc_clc_send_proposal,
 * smcr_clc_prep_confirm_accept, smc_clc_send_decline). Decoders apply Linux's receive
 * checks (smc_clc_wait_msg, smc_clc_msg_hdr_valid and the per-type *_valid helpers) in
 * the same order and report the first failure precisely; beyond that they refuse to read
 * outside the message, where Linux would read stale buffer bytes.
 */
#include "model/clc.h"

#include <stdio.h>
#include <string.h>

#include "model/smcr_err.h"
#include "model/byteorder.h"

/* Proposal pieces (Linux struct sizes). */
#define PROP_BASE_LEN 40      /* header, peer id, GID, MAC, IP area offset */
#define PROP_SMCD_AREA_LEN 40 /* ISM GID/CHID, v2 extension offset, vendor, reserved */
#define PROP_PREFIX_LEN 8
#define PROP_IPV6_LEN 17
#define PROP_V2EXT_LEN 40
#define PROP_SMCDV2EXT_LEN 48
#define PROP_GIDCHID_LEN 10
#define PROP_V2EXT_OFF_FIELD 50 /* be16, counted from offset 52 */
#define PROP_V2EXT_BASE 52
/* Largest offsets Linux follows (smc_get_clc_v2_ext, smc_get_clc_smcd_v2_ext): the room
 * its own Proposal buffer has before each extension. */
#define PROP_V2EXT_OFF_MAX 172
#define PROP_SMCDV2EXT_OFF_MAX 288

/* Accept/Confirm pieces. */
#define ACC_EID_OFF 64
#define ACC_FCE_OFF 104
#define ACC_GLE_OFF 156
#define ACC_GLE_HDR_LEN 4
#define SMCD_ACCEPT_V1_LEN 48
#define SMCD_ACCEPT_V2_LEN 78

#define FIRST_CONTACT_BIT 0x08 /* byte 7; out of sync in a Decline */

static bool smcd_offered(smcr_clc_smc_type t) { return t == SMCR_CLC_TYPE_D || t == SMCR_CLC_TYPE_BOTH; }

static bool is_eyecatcher(const uint8_t *p)
{
	uint32_t v = get_be32(p);
	return v == SMCR_CLC_EYECATCHER_R || v == SMCR_CLC_EYECATCHER_D;
}

const char *smcr_clc_type_name(uint8_t type)
{
	switch (type) {
	case SMCR_CLC_PROPOSAL: return "CLC Proposal";
	case SMCR_CLC_ACCEPT: return "CLC Accept";
	case SMCR_CLC_CONFIRM: return "CLC Confirm";
	case SMCR_CLC_DECLINE: return "CLC Decline";
	default: return "CLC message";
	}
}

static uint8_t *put_hdr(uint8_t *p, uint8_t type, size_t len, uint8_t byte7)
{
	p = put_be32(p, SMCR_CLC_EYECATCHER_R);
	p = put_u8(p, type);
	p = put_be16(p, (uint16_t)len);
	return put_u8(p, byte7);
}

int smcr_clc_peek(const uint8_t *buf, size_t len, smcr_clc_hdr *hdr, smcr_decode_err *err)
{
	const char *msg = "CLC header";
	if (len < SMCR_CLC_HDR_LEN)
		return smcr_decode_fail(err, SMCR_ERR_SHORT, msg, "header", 0, len, "%d bytes", SMCR_CLC_HDR_LEN);
	smcr_clc_hdr h = {
		.eyecatcher = get_be32(buf),
		.type = buf[4],
		.length = get_be16(buf + 5),
		.version = (uint8_t)(buf[7] >> 4),
		.flags = buf[7],
	};
	if (hdr)
		*hdr = h;
	if (!is_eyecatcher(buf))
		return smcr_decode_fail(err, SMCR_ERR_EYECATCHER, msg, "eyecatcher", 0, h.eyecatcher,
		                        "0x%08X (SMCR) or 0x%08X (SMCD)", SMCR_CLC_EYECATCHER_R,
		                        SMCR_CLC_EYECATCHER_D);
	if (h.type < SMCR_CLC_PROPOSAL || h.type > SMCR_CLC_DECLINE)
		return smcr_decode_fail(err, SMCR_ERR_TYPE, msg, "type", 4, h.type, "1..4 (Proposal, Accept, Confirm, Decline)");
	msg = smcr_clc_type_name(h.type);
	if (h.version == 0)
		return smcr_decode_fail(err, SMCR_ERR_VERSION, msg, "version", 7, h.version, ">= 1");
	if (h.length < SMCR_CLC_HDR_LEN + SMCR_CLC_TRAILER_LEN || h.length > SMCR_CLC_MAX_LEN)
		return smcr_decode_fail(err, SMCR_ERR_LENGTH, msg, "length", 5, h.length, "%d..%d",
		                        SMCR_CLC_HDR_LEN + SMCR_CLC_TRAILER_LEN, SMCR_CLC_MAX_LEN);
	return h.length;
}

/* Checks shared by every decoder: a valid header of an accepted type whose length field
 * covers exactly the given bytes. */
static int check_header(const uint8_t *buf, size_t len, uint8_t type_a, uint8_t type_b,
                        smcr_clc_hdr *h, smcr_decode_err *err)
{
	int rc = smcr_clc_peek(buf, len, h, err);
	if (rc < 0)
		return rc;
	if (h->type != type_a && h->type != type_b)
		return smcr_decode_fail(err, SMCR_ERR_TYPE, smcr_clc_type_name(h->type), "type", 4, h->type,
		                        "%u (%s)", type_a, smcr_clc_type_name(type_a));
	if (h->length != len)
		return smcr_decode_fail(err, SMCR_ERR_LENGTH, smcr_clc_type_name(h->type), "length", 5, h->length,
		                        "%zu (the bytes of the message)", len);
	return 0;
}

static int check_trailer(const uint8_t *buf, size_t len, const char *msg, smcr_decode_err *err)
{
	const uint8_t *t = buf + len - SMCR_CLC_TRAILER_LEN;
	if (!is_eyecatcher(t))
		return smcr_decode_fail(err, SMCR_ERR_TRAILER, msg, "trailer", (uint32_t)(len - SMCR_CLC_TRAILER_LEN),
		                        get_be32(t), "0x%08X (SMCR) or 0x%08X (SMCD)", SMCR_CLC_EYECATCHER_R,
		                        SMCR_CLC_EYECATCHER_D);
	return 0;
}

/* ------------------------------------------------------------------ Proposal */

static size_t proposal_len(const smcr_clc_proposal *m)
{
	size_t n = PROP_BASE_LEN;
	if (m->version == 1) {
		if (!m->rfc_layout)
			n += PROP_SMCD_AREA_LEN;
		n += PROP_PREFIX_LEN + PROP_IPV6_LEN * (size_t)m->n_ipv6;
		return n + SMCR_CLC_TRAILER_LEN;
	}
	n += PROP_SMCD_AREA_LEN;
	if (m->typev1 != SMCR_CLC_TYPE_NONE)
		n += PROP_PREFIX_LEN + PROP_IPV6_LEN * (size_t)m->n_ipv6;
	if (m->typev2 != SMCR_CLC_TYPE_NONE)
		n += PROP_V2EXT_LEN + SMCR_EID_LEN * (size_t)m->n_eids;
	if (smcd_offered(m->typev2))
		n += PROP_SMCDV2EXT_LEN + PROP_GIDCHID_LEN * (size_t)m->n_ism_gids;
	return n + SMCR_CLC_TRAILER_LEN;
}

static uint8_t *put_prefix_area(uint8_t *p, const smcr_clc_proposal *m)
{
	p = put_be32(p, m->ipv4_subnet);
	p = put_u8(p, m->ipv4_prefix_len);
	p = put_zero(p, 2);
	p = put_u8(p, m->n_ipv6);
	for (unsigned i = 0; i < m->n_ipv6; i++) {
		p = put_bytes(p, m->ipv6[i].prefix, 16);
		p = put_u8(p, m->ipv6[i].len);
	}
	return p;
}

ssize_t smcr_clc_encode_proposal(uint8_t *out, size_t outlen, const smcr_clc_proposal *m)
{
	if (m->version != 1 && m->version != 2)
		return SMCR_ERR_INVAL;
	if ((unsigned)m->typev1 > 3 || (unsigned)m->typev2 > 3)
		return SMCR_ERR_INVAL;
	if (m->version == 1 && m->typev1 == SMCR_CLC_TYPE_NONE)
		return SMCR_ERR_INVAL; /* Linux rejects a v1 Proposal that offers nothing */
	if (m->version == 2 && m->rfc_layout)
		return SMCR_ERR_INVAL;
	if (m->n_ipv6 > SMCR_MAX_IPV6_PREFIXES || m->n_eids > SMCR_MAX_EIDS ||
	    m->n_ism_gids > SMCR_CLC_MAX_ISM_V2 || m->release > 15)
		return SMCR_ERR_INVAL;
	size_t len = proposal_len(m);
	if (outlen < len)
		return SMCR_ERR_NOBUF;

	bool prefix = m->version == 1 || m->typev1 != SMCR_CLC_TYPE_NONE;
	bool area = m->version == 2 || !m->rfc_layout;
	/* v1 messages predate typev2: old Linux sent 0 in those bits (byte 7 = 0x10) */
	uint8_t typev2_bits = m->version == 1 ? 0 : (uint8_t)m->typev2;
	uint8_t *p = put_hdr(out, SMCR_CLC_PROPOSAL, len,
	                     (uint8_t)(m->version << 4 | typev2_bits << 2 | m->typev1));
	p = put_bytes(p, m->peer_id, 8);
	p = put_bytes(p, m->gid, 16);
	p = put_bytes(p, m->mac, 6);
	p = put_be16(p, (uint16_t)(area && prefix ? PROP_SMCD_AREA_LEN : 0));
	if (area) {
		uint16_t v2_off = 0;
		if (m->version == 2 && m->typev2 != SMCR_CLC_TYPE_NONE) {
			/* counted from the end of the offset field to the extension */
			size_t off = PROP_BASE_LEN + PROP_SMCD_AREA_LEN - PROP_V2EXT_BASE;
			if (prefix)
				off += PROP_PREFIX_LEN + PROP_IPV6_LEN * (size_t)m->n_ipv6;
			v2_off = (uint16_t)off;
		}
		p = put_be64(p, m->ism_gid);
		p = put_be16(p, m->ism_chid);
		p = put_be16(p, v2_off);
		p = put_zero(p, 3 + 5 + 20); /* vendor OUI, vendor options, reserved */
	}
	if (prefix)
		p = put_prefix_area(p, m);
	if (m->version == 2 && m->typev2 != SMCR_CLC_TYPE_NONE) {
		p = put_u8(p, m->n_eids);
		p = put_u8(p, smcd_offered(m->typev2) ? m->n_ism_gids : 0);
		p = put_u8(p, 0);
		p = put_u8(p, (uint8_t)(m->release << 4 | (m->seid_indicator ? 1 : 0)));
		p = put_zero(p, 2);
		/* SMC-Dv2 extension offset, counted from the end of this field */
		p = put_be16(p, smcd_offered(m->typev2)
		                        ? (uint16_t)(PROP_V2EXT_LEN - 8 + SMCR_EID_LEN * m->n_eids)
		                        : 0);
		p = put_bytes(p, m->roce_v2_gid, 16);
		p = put_u8(p, m->max_conns);
		p = put_u8(p, m->max_links);
		p = put_be16(p, m->feature_mask);
		p = put_zero(p, 12);
		for (unsigned i = 0; i < m->n_eids; i++)
			p = put_bytes(p, m->eids[i], SMCR_EID_LEN);
		if (smcd_offered(m->typev2)) {
			p = put_bytes(p, m->seid, SMCR_EID_LEN);
			p = put_zero(p, 16);
			for (unsigned i = 0; i < m->n_ism_gids; i++) {
				p = put_be64(p, m->ism_v2[i].gid);
				p = put_be16(p, m->ism_v2[i].chid);
			}
		}
	}
	p = put_be32(p, SMCR_CLC_EYECATCHER_R);
	return p - out;
}

/* Where the parts of a received Proposal lie, as its header, offsets and counts say. */
typedef struct prop_layout {
	smcr_clc_smc_type typev1, typev2;
	uint16_t ipoff; /* iparea_offset */
	size_t pfx;     /* the IP prefix area */
	uint8_t n6;     /* IPv6 prefixes in it */
	size_t v2ext;   /* the v2 extension, 0 if none */
	uint8_t n_eids, n_gids;
} prop_layout;

/* A version 2 Proposal's v2 extension: where it is and its counts. */
static int locate_prop_v2_ext(prop_layout *l, const uint8_t *buf, size_t len, smcr_decode_err *err)
{
	const char *msg = "CLC Proposal";
	/* smc_get_clc_v2_ext: the SMC-D area is unusable when SMC-D v1 is offered with
	 * another IP area offset; offset 0 means no extension */
	uint16_t v2off = len >= PROP_V2EXT_BASE ? get_be16(buf + PROP_V2EXT_OFF_FIELD) : 0;
	bool usable = !(smcd_offered(l->typev1) && l->ipoff != PROP_SMCD_AREA_LEN);
	if (usable && v2off != 0 && v2off <= PROP_V2EXT_OFF_MAX)
		l->v2ext = PROP_V2EXT_BASE + v2off;
	if (l->typev2 == SMCR_CLC_TYPE_NONE)
		return 0;
	if (!l->v2ext)
		return smcr_decode_fail(err, SMCR_ERR_FIELD, msg, "v2_ext_offset", PROP_V2EXT_OFF_FIELD, v2off,
		                        "1..%d (SMCv2 offered needs the v2 extension%s)", PROP_V2EXT_OFF_MAX,
		                        usable ? "" : "; SMC-D area unusable: iparea_offset != 40");
	if (l->v2ext + PROP_V2EXT_LEN > len)
		return smcr_decode_fail(err, SMCR_ERR_SHORT, msg, "v2 extension", (uint32_t)l->v2ext, len,
		                        ">= %zu bytes", l->v2ext + PROP_V2EXT_LEN);
	l->n_eids = buf[l->v2ext];
	if (l->n_eids > SMCR_MAX_EIDS)
		return smcr_decode_fail(err, SMCR_ERR_FIELD, msg, "eid_cnt", (uint32_t)l->v2ext, l->n_eids, "<= %d",
		                        SMCR_MAX_EIDS);
	l->n_gids = buf[l->v2ext + 1];
	if (smcd_offered(l->typev2) && l->n_gids > SMCR_CLC_MAX_ISM_V2)
		return smcr_decode_fail(err, SMCR_ERR_FIELD, msg, "ism_gid_cnt", (uint32_t)(l->v2ext + 1), l->n_gids,
		                        "<= %d", SMCR_CLC_MAX_ISM_V2);
	return 0;
}

/* The length that the version, the types offered and the counts make. */
static size_t prop_expected_len(const prop_layout *l, uint8_t version)
{
	if (version == 1)
		return PROP_BASE_LEN + l->ipoff + PROP_PREFIX_LEN + PROP_IPV6_LEN * (size_t)l->n6 + SMCR_CLC_TRAILER_LEN;
	size_t want = PROP_BASE_LEN + PROP_SMCD_AREA_LEN + SMCR_CLC_TRAILER_LEN;
	if (l->typev1 != SMCR_CLC_TYPE_NONE)
		want += PROP_PREFIX_LEN + PROP_IPV6_LEN * (size_t)l->n6;
	if (l->typev2 != SMCR_CLC_TYPE_NONE)
		want += PROP_V2EXT_LEN + SMCR_EID_LEN * (size_t)l->n_eids;
	if (smcd_offered(l->typev2))
		want += PROP_SMCDV2EXT_LEN + PROP_GIDCHID_LEN * (size_t)l->n_gids;
	return want;
}

/* The v2 extension's fields, and the SMC-Dv2 extension's when it lies inside the body. */
static void get_prop_v2_ext(smcr_clc_proposal *m, const uint8_t *buf, const prop_layout *l, size_t body_end)
{
	const uint8_t *x = buf + l->v2ext;
	m->n_eids = l->n_eids;
	m->n_ism_gids = smcd_offered(l->typev2) ? l->n_gids : 0; /* meaningless otherwise */
	m->release = (uint8_t)(x[3] >> 4);
	m->seid_indicator = x[3] & 1;
	memcpy(m->roce_v2_gid, x + 8, 16);
	m->max_conns = x[24];
	m->max_links = x[25];
	m->feature_mask = get_be16(x + 26);
	for (unsigned i = 0; i < l->n_eids; i++)
		memcpy(m->eids[i], x + PROP_V2EXT_LEN + SMCR_EID_LEN * i, SMCR_EID_LEN);
	uint16_t doff = get_be16(x + 6);
	size_t d = l->v2ext + 8 + doff;
	if (smcd_offered(l->typev2) && doff != 0 && doff <= PROP_SMCDV2EXT_OFF_MAX &&
	    d + PROP_SMCDV2EXT_LEN + PROP_GIDCHID_LEN * (size_t)l->n_gids <= body_end) {
		m->smcd_v2_ext = true;
		memcpy(m->seid, buf + d, SMCR_EID_LEN);
		for (unsigned i = 0; i < l->n_gids; i++) {
			const uint8_t *g = buf + d + PROP_SMCDV2EXT_LEN + PROP_GIDCHID_LEN * i;
			m->ism_v2[i].gid = get_be64(g);
			m->ism_v2[i].chid = get_be16(g + 8);
		}
	}
}

int smcr_clc_decode_proposal(smcr_clc_proposal *m, const uint8_t *buf, size_t len, smcr_decode_err *err)
{
	const char *msg = "CLC Proposal";
	smcr_clc_hdr h;
	int rc = check_header(buf, len, SMCR_CLC_PROPOSAL, SMCR_CLC_PROPOSAL, &h, err);
	if (rc < 0)
		return rc;
	if (len < PROP_BASE_LEN)
		return smcr_decode_fail(err, SMCR_ERR_SHORT, msg, "iparea_offset", 38, len, ">= %d bytes", PROP_BASE_LEN);
	prop_layout l;
	memset(&l, 0, sizeof(l));
	l.typev1 = (smcr_clc_smc_type)(h.flags & 3);
	l.typev2 = (smcr_clc_smc_type)((h.flags >> 2) & 3);

	/* smc_clc_proposal_get_prefix: the prefix area must start within the 40-byte area */
	l.ipoff = get_be16(buf + 38);
	if (l.ipoff > PROP_SMCD_AREA_LEN)
		return smcr_decode_fail(err, SMCR_ERR_FIELD, msg, "iparea_offset", 38, l.ipoff, "<= %d", PROP_SMCD_AREA_LEN);
	l.pfx = PROP_BASE_LEN + l.ipoff;
	if (l.pfx + PROP_PREFIX_LEN > len)
		return smcr_decode_fail(err, SMCR_ERR_SHORT, msg, "ip prefix area", (uint32_t)l.pfx, len,
		                        ">= %zu bytes", l.pfx + PROP_PREFIX_LEN);
	/* Linux checks the count even when no v1 type is offered (the bytes are then part of
	 * the SMC-D area) */
	l.n6 = buf[l.pfx + 7];
	if (l.n6 > SMCR_MAX_IPV6_PREFIXES)
		return smcr_decode_fail(err, SMCR_ERR_FIELD, msg, "ipv6_prefixes_cnt", (uint32_t)(l.pfx + 7), l.n6,
		                        "<= %d", SMCR_MAX_IPV6_PREFIXES);

	if (h.version == 1) {
		if (l.typev1 == SMCR_CLC_TYPE_NONE)
			return smcr_decode_fail(err, SMCR_ERR_FIELD, msg, "typev1", 7, l.typev1,
			                        "SMC-R, SMC-D or both in a version 1 Proposal");
	} else {
		rc = locate_prop_v2_ext(&l, buf, len, err);
		if (rc < 0)
			return rc;
	}
	size_t want = prop_expected_len(&l, h.version);
	if (h.length != want)
		return smcr_decode_fail(err, SMCR_ERR_LENGTH, msg, "length", 5, h.length,
		                        "%zu (from the version, types and counts)", want);
	rc = check_trailer(buf, len, msg, err);
	if (rc < 0)
		return rc;
	/* Linux does not check where the extension lies; we never read past the trailer */
	size_t body_end = len - SMCR_CLC_TRAILER_LEN;
	size_t ext_len = PROP_V2EXT_LEN + SMCR_EID_LEN * (size_t)l.n_eids;
	if (l.typev2 != SMCR_CLC_TYPE_NONE && h.version >= 2 && l.v2ext + ext_len > body_end)
		return smcr_decode_fail(err, SMCR_ERR_FIELD, msg, "v2_ext_offset", PROP_V2EXT_OFF_FIELD,
		                        l.v2ext - PROP_V2EXT_BASE, "<= %zu (extension inside the message)",
		                        body_end - ext_len - PROP_V2EXT_BASE);

	memset(m, 0, sizeof(*m));
	m->version = h.version;
	m->typev1 = l.typev1;
	m->typev2 = h.version == 1 ? SMCR_CLC_TYPE_NONE : l.typev2;
	memcpy(m->peer_id, buf + 8, 8);
	memcpy(m->gid, buf + 16, 16);
	memcpy(m->mac, buf + 32, 6);
	m->iparea_offset = l.ipoff;
	m->rfc_layout = h.version == 1 && l.ipoff == 0;
	if (len >= PROP_BASE_LEN + PROP_SMCD_AREA_LEN && (h.version >= 2 || l.ipoff == PROP_SMCD_AREA_LEN)) {
		m->ism_gid = get_be64(buf + 40);
		m->ism_chid = get_be16(buf + 48);
	}
	if (h.version == 1 || l.typev1 != SMCR_CLC_TYPE_NONE) {
		m->ipv4_subnet = get_be32(buf + l.pfx);
		m->ipv4_prefix_len = buf[l.pfx + 4];
		m->n_ipv6 = l.n6;
		for (unsigned i = 0; i < l.n6; i++) {
			const uint8_t *e = buf + l.pfx + PROP_PREFIX_LEN + PROP_IPV6_LEN * i;
			memcpy(m->ipv6[i].prefix, e, 16);
			m->ipv6[i].len = e[16];
		}
	}
	if (h.version >= 2 && l.typev2 != SMCR_CLC_TYPE_NONE)
		get_prop_v2_ext(m, buf, &l, body_end);
	return 0;
}

/* ------------------------------------------------------------------ Accept / Confirm */

static size_t accept_len(const smcr_clc_accept *m)
{
	if (m->version == 1)
		return SMCR_CLC_ACCEPT_V1_LEN;
	size_t n = SMCR_CLC_ACCEPT_V2_LEN;
	if (m->first_contact) {
		n += SMCR_CLC_FCE_LEN;
		/* Linux always adds the GID list header to a first-contact Confirm */
		if (m->type == SMCR_CLC_CONFIRM)
			n += ACC_GLE_HDR_LEN + 16 * (size_t)m->n_gids;
	}
	return n;
}

ssize_t smcr_clc_encode_accept(uint8_t *out, size_t outlen, const smcr_clc_accept *m)
{
	if (m->type != SMCR_CLC_ACCEPT && m->type != SMCR_CLC_CONFIRM)
		return SMCR_ERR_INVAL;
	if (m->version != 1 && m->version != 2)
		return SMCR_ERR_INVAL;
	if (m->qpn > 0xFFFFFF || m->psn > 0xFFFFFF || m->rmbe_size > 15 || m->qp_mtu > 15 ||
	    m->n_gids > SMCR_MAX_CONFIRM_GIDS || m->fce.os_type > 15 || m->fce.release > 15)
		return SMCR_ERR_INVAL;
	size_t len = accept_len(m);
	if (outlen < len)
		return SMCR_ERR_NOBUF;
	uint8_t *p = put_hdr(out, (uint8_t)m->type, len,
	                     (uint8_t)(m->version << 4 | (m->first_contact ? FIRST_CONTACT_BIT : 0) | SMCR_CLC_TYPE_R));
	p = put_bytes(p, m->peer_id, 8);
	p = put_bytes(p, m->gid, 16);
	p = put_bytes(p, m->mac, 6);
	p = put_be24(p, m->qpn);
	p = put_be32(p, m->rkey);
	p = put_u8(p, m->rmbe_idx);
	p = put_be32(p, m->rmbe_alert_token);
	p = put_u8(p, (uint8_t)(m->rmbe_size << 4 | m->qp_mtu));
	p = put_u8(p, 0);
	p = put_be64(p, m->rmb_vaddr);
	p = put_u8(p, 0);
	p = put_be24(p, m->psn);
	if (m->version >= 2) {
		p = put_bytes(p, m->eid, SMCR_EID_LEN);
		p = put_zero(p, 8);
		if (m->first_contact) {
			const smcr_clc_fce *f = &m->fce;
			p = put_u8(p, f->v2_direct ? 0x80 : 0);
			p = put_u8(p, (uint8_t)(f->os_type << 4 | f->release));
			p = put_zero(p, 2);
			p = put_bytes(p, f->hostname, SMCR_HOSTNAME_LEN);
			p = put_u8(p, f->max_conns);
			p = put_u8(p, f->max_links);
			p = put_be16(p, f->feature_mask);
			p = put_be32(p, f->vendor_exp);
			p = put_zero(p, 8);
			if (m->type == SMCR_CLC_CONFIRM) {
				p = put_u8(p, m->n_gids);
				p = put_zero(p, 3);
				for (unsigned i = 0; i < m->n_gids; i++)
					p = put_bytes(p, m->gids[i], 16);
			}
		}
	}
	p = put_be32(p, SMCR_CLC_EYECATCHER_R);
	return p - out;
}

int smcr_clc_decode_accept(smcr_clc_accept *m, const uint8_t *buf, size_t len, smcr_decode_err *err)
{
	smcr_clc_hdr h;
	int rc = check_header(buf, len, SMCR_CLC_ACCEPT, SMCR_CLC_CONFIRM, &h, err);
	if (rc < 0)
		return rc;
	const char *msg = smcr_clc_type_name(h.type);
	/* smc_clc_msg_acc_conf_valid */
	smcr_clc_smc_type t = (smcr_clc_smc_type)(h.flags & 3);
	if (t != SMCR_CLC_TYPE_R && t != SMCR_CLC_TYPE_D)
		return smcr_decode_fail(err, SMCR_ERR_FIELD, msg, "typev1", 7, t, "0 (SMC-R) or 1 (SMC-D)");
	if (h.version == 1) {
		size_t want = t == SMCR_CLC_TYPE_R ? SMCR_CLC_ACCEPT_V1_LEN : SMCD_ACCEPT_V1_LEN;
		if (h.length != want)
			return smcr_decode_fail(err, SMCR_ERR_LENGTH, msg, "length", 5, h.length, "%zu (%s v1)", want,
			                        t == SMCR_CLC_TYPE_R ? "SMC-R" : "SMC-D");
	} else {
		size_t want = t == SMCR_CLC_TYPE_R ? SMCR_CLC_ACCEPT_V2_LEN : SMCD_ACCEPT_V2_LEN;
		if (h.length < want)
			return smcr_decode_fail(err, SMCR_ERR_LENGTH, msg, "length", 5, h.length, ">= %zu (%s v2)", want,
			                        t == SMCR_CLC_TYPE_R ? "SMC-R" : "SMC-D");
	}
	rc = check_trailer(buf, len, msg, err);
	if (rc < 0)
		return rc;
	if (t == SMCR_CLC_TYPE_D)
		return smcr_decode_fail(err, SMCR_ERR_TYPE, msg, "typev1", 7, t, "0 (SMC-R; SMC-D is not supported)");

	bool fc = h.flags & FIRST_CONTACT_BIT;
	size_t body_end = len - SMCR_CLC_TRAILER_LEN;
	uint8_t n_gids = 0;
	if (h.version >= 2 && fc) {
		/* Linux reads the FCE at its fixed place whatever the length says */
		if (ACC_FCE_OFF + SMCR_CLC_FCE_LEN > body_end)
			return smcr_decode_fail(err, SMCR_ERR_SHORT, msg, "first contact extension", ACC_FCE_OFF, len,
			                        ">= %d bytes (v2 with first contact)",
			                        ACC_FCE_OFF + SMCR_CLC_FCE_LEN + SMCR_CLC_TRAILER_LEN);
		if (h.type == SMCR_CLC_CONFIRM && body_end >= ACC_GLE_OFF + ACC_GLE_HDR_LEN) {
			n_gids = buf[ACC_GLE_OFF];
			if (n_gids > SMCR_MAX_CONFIRM_GIDS)
				return smcr_decode_fail(err, SMCR_ERR_FIELD, msg, "gid_cnt", ACC_GLE_OFF, n_gids, "<= %d",
				                        SMCR_MAX_CONFIRM_GIDS);
			if (ACC_GLE_OFF + ACC_GLE_HDR_LEN + 16 * (size_t)n_gids > body_end)
				return smcr_decode_fail(err, SMCR_ERR_SHORT, msg, "gid list", ACC_GLE_OFF + ACC_GLE_HDR_LEN,
				                        len, ">= %zu bytes for %u GIDs",
				                        ACC_GLE_OFF + ACC_GLE_HDR_LEN + 16 * (size_t)n_gids + SMCR_CLC_TRAILER_LEN,
				                        n_gids);
		}
	}

	memset(m, 0, sizeof(*m));
	m->type = (smcr_clc_type)h.type;
	m->version = h.version;
	m->first_contact = fc;
	memcpy(m->peer_id, buf + 8, 8);
	memcpy(m->gid, buf + 16, 16);
	memcpy(m->mac, buf + 32, 6);
	m->qpn = get_be24(buf + 38);
	m->rkey = get_be32(buf + 41);
	m->rmbe_idx = buf[45];
	m->rmbe_alert_token = get_be32(buf + 46);
	m->rmbe_size = (uint8_t)(buf[50] >> 4);
	m->qp_mtu = buf[50] & 0x0F;
	m->rmb_vaddr = get_be64(buf + 52);
	m->psn = get_be24(buf + 61);
	if (h.version >= 2) {
		memcpy(m->eid, buf + ACC_EID_OFF, SMCR_EID_LEN);
		if (fc) {
			const uint8_t *f = buf + ACC_FCE_OFF;
			m->fce.v2_direct = f[0] & 0x80;
			m->fce.os_type = (uint8_t)(f[1] >> 4);
			m->fce.release = f[1] & 0x0F;
			memcpy(m->fce.hostname, f + 4, SMCR_HOSTNAME_LEN);
			m->fce.max_conns = f[36];
			m->fce.max_links = f[37];
			m->fce.feature_mask = get_be16(f + 38);
			m->fce.vendor_exp = get_be32(f + 40);
		}
		m->n_gids = n_gids;
		for (unsigned i = 0; i < n_gids; i++)
			memcpy(m->gids[i], buf + ACC_GLE_OFF + ACC_GLE_HDR_LEN + 16 * i, 16);
	}
	return 0;
}

/* ------------------------------------------------------------------ Decline */

ssize_t smcr_clc_encode_decline(uint8_t *out, size_t outlen, const smcr_clc_decline *m)
{
	if ((m->version != 1 && m->version != 2) || m->os_type > 15)
		return SMCR_ERR_INVAL;
	size_t len = m->version == 1 ? SMCR_CLC_DECLINE_V1_LEN : SMCR_CLC_DECLINE_V2_LEN;
	if (outlen < len)
		return SMCR_ERR_NOBUF;
	uint8_t *p = put_hdr(out, SMCR_CLC_DECLINE, len,
	                     (uint8_t)(m->version << 4 | (m->out_of_sync ? FIRST_CONTACT_BIT : 0)));
	p = put_bytes(p, m->peer_id, 8);
	p = put_be32(p, m->diagnosis);
	p = put_u8(p, (uint8_t)(m->os_type << 4));
	p = put_zero(p, 3);
	if (m->version == 2)
		for (int i = 0; i < 4; i++)
			p = put_be32(p, m->diag_more[i]);
	p = put_be32(p, SMCR_CLC_EYECATCHER_R);
	return p - out;
}

int smcr_clc_decode_decline(smcr_clc_decline *m, const uint8_t *buf, size_t len, smcr_decode_err *err)
{
	const char *msg = "CLC Decline";
	smcr_clc_hdr h;
	int rc = check_header(buf, len, SMCR_CLC_DECLINE, SMCR_CLC_DECLINE, &h, err);
	if (rc < 0)
		return rc;
	/* smc_clc_msg_decl_valid: exact lengths; Linux does not check a Decline's trailer */
	size_t want = h.version == 1 ? SMCR_CLC_DECLINE_V1_LEN : SMCR_CLC_DECLINE_V2_LEN;
	if (h.length != want)
		return smcr_decode_fail(err, SMCR_ERR_LENGTH, msg, "length", 5, h.length, "%zu (version %s)", want,
		                        h.version == 1 ? "1" : ">= 2");
	memset(m, 0, sizeof(*m));
	m->version = h.version;
	m->out_of_sync = h.flags & FIRST_CONTACT_BIT;
	memcpy(m->peer_id, buf + 8, 8);
	m->diagnosis = get_be32(buf + 16);
	m->os_type = (uint8_t)(buf[20] >> 4);
	if (h.version >= 2)
		for (int i = 0; i < 4; i++)
			m->diag_more[i] = get_be32(buf + 24 + 4 * i);
	return 0;
}

/* ------------------------------------------------------------------ describe */

static const char *smc_type_text(smcr_clc_smc_type t)
{
	switch (t) {
	case SMCR_CLC_TYPE_R: return "R";
	case SMCR_CLC_TYPE_D: return "D";
	case SMCR_CLC_TYPE_NONE: return "none";
	case SMCR_CLC_TYPE_BOTH: return "R+D";
	}
	return "?";
}

static void hex_bytes(char *out, size_t outlen, const uint8_t *b, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 3 <= outlen; i++)
		o += (size_t)snprintf(out + o, outlen - o, "%02x", b[i]);
	if (outlen)
		out[o < outlen ? o : outlen - 1] = '\0';
}

void smcr_clc_describe(const uint8_t *buf, size_t len, char *out, size_t outlen)
{
	smcr_decode_err err = { 0 };
	smcr_clc_hdr h = { 0 };
	char e[256], pid[17];
	if (!outlen)
		return;
	int rc = smcr_clc_peek(buf, len, &h, &err);
	if (rc >= 0 && (size_t)rc != len)
		rc = smcr_decode_fail(&err, SMCR_ERR_LENGTH, smcr_clc_type_name(h.type), "length", 5, h.length,
		                      "%zu (the bytes given)", len);
	if (rc < 0)
		goto bad;
	switch (h.type) {
	case SMCR_CLC_PROPOSAL: {
		smcr_clc_proposal p;
		if ((rc = smcr_clc_decode_proposal(&p, buf, len, &err)) < 0)
			goto bad;
		hex_bytes(pid, sizeof(pid), p.peer_id, 8);
		snprintf(out, outlen,
		         "CLC Proposal v%u len %zu v1=%s v2=%s peer %s ipoff %u prefix %u.%u.%u.%u/%u ipv6 %u eids %u release %u",
		         p.version, len, smc_type_text(p.typev1), smc_type_text(p.typev2), pid, p.iparea_offset,
		         p.ipv4_subnet >> 24, (p.ipv4_subnet >> 16) & 255, (p.ipv4_subnet >> 8) & 255,
		         p.ipv4_subnet & 255, p.ipv4_prefix_len, p.n_ipv6, p.n_eids, p.release);
		return;
	}
	case SMCR_CLC_ACCEPT:
	case SMCR_CLC_CONFIRM: {
		smcr_clc_accept a;
		if ((rc = smcr_clc_decode_accept(&a, buf, len, &err)) < 0)
			goto bad;
		hex_bytes(pid, sizeof(pid), a.peer_id, 8);
		snprintf(out, outlen,
		         "%s v%u len %zu%s peer %s qpn 0x%06x rkey 0x%08x token 0x%08x rmbe %u (code %u) mtu %u "
		         "vaddr 0x%016llx psn 0x%06x gids %u",
		         smcr_clc_type_name(h.type), a.version, len, a.first_contact ? " first-contact" : "", pid, a.qpn,
		         a.rkey, a.rmbe_alert_token, smcr_rmbe_size_bytes(a.rmbe_size), a.rmbe_size, a.qp_mtu,
		         (unsigned long long)a.rmb_vaddr, a.psn, a.n_gids);
		return;
	}
	case SMCR_CLC_DECLINE: {
		smcr_clc_decline d;
		if ((rc = smcr_clc_decode_decline(&d, buf, len, &err)) < 0)
			goto bad;
		snprintf(out, outlen, "CLC Decline v%u len %zu%s diag 0x%08x %s (%s)", d.version, len,
		         d.out_of_sync ? " out-of-sync" : "", d.diagnosis, smcr_decline_name(d.diagnosis),
		         smcr_decline_text(d.diagnosis));
		return;
	}
	default:
		break;
	}
bad:
	smcr_decode_err_format(&err, e, sizeof(e));
	snprintf(out, outlen, "invalid: %s", e);
}
