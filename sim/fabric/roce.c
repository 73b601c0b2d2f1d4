/* RoCE v1/v2 frame codecs and the ICRC. */
#include "sim/fabric/roce.h"

#include <string.h>

#include "model/smcr_err.h"
#include "model/byteorder.h"
#include "sim/fabric/eth_header.h"
#include "sim/fabric/gid.h"
#include "sim/fabric/icrc.h"

/* Bytes of the extension headers an opcode carries (RETH/AETH/IMMDT); -1 for opcodes
 * this implementation does not handle (RDMA READ, atomics, other transports). */
static int roce_opcode_ext_len(uint8_t opcode)
{
	switch (opcode) {
	case ROCE_OP_SEND_FIRST:
	case ROCE_OP_SEND_MIDDLE:
	case ROCE_OP_SEND_LAST:
	case ROCE_OP_SEND_ONLY:
	case ROCE_OP_WRITE_MIDDLE:
	case ROCE_OP_WRITE_LAST:
		return 0;
	case ROCE_OP_SEND_LAST_IMM:
	case ROCE_OP_SEND_ONLY_IMM:
	case ROCE_OP_WRITE_LAST_IMM:
		return ROCE_IMM_LEN;
	case ROCE_OP_WRITE_FIRST:
	case ROCE_OP_WRITE_ONLY:
		return ROCE_RETH_LEN;
	case ROCE_OP_WRITE_ONLY_IMM:
		return ROCE_RETH_LEN + ROCE_IMM_LEN;
	case ROCE_OP_ACK:
		return ROCE_AETH_LEN;
	case ROCE_OP_CNP:
		return ROCE_CNP_RESERVED_LEN;
	default:
		return -1;
	}
}

static bool roce_opcode_has_reth(uint8_t opcode)
{
	return opcode == ROCE_OP_WRITE_FIRST || opcode == ROCE_OP_WRITE_ONLY || opcode == ROCE_OP_WRITE_ONLY_IMM;
}

static bool opcode_has_imm(uint8_t opcode)
{
	return opcode == ROCE_OP_SEND_LAST_IMM || opcode == ROCE_OP_SEND_ONLY_IMM ||
	       opcode == ROCE_OP_WRITE_LAST_IMM || opcode == ROCE_OP_WRITE_ONLY_IMM;
}

static const char *roce_opcode_name(uint8_t opcode)
{
	switch (opcode) {
	case ROCE_OP_SEND_FIRST: return "SEND_FIRST";
	case ROCE_OP_SEND_MIDDLE: return "SEND_MIDDLE";
	case ROCE_OP_SEND_LAST: return "SEND_LAST";
	case ROCE_OP_SEND_LAST_IMM: return "SEND_LAST_IMM";
	case ROCE_OP_SEND_ONLY: return "SEND_ONLY";
	case ROCE_OP_SEND_ONLY_IMM: return "SEND_ONLY_IMM";
	case ROCE_OP_WRITE_FIRST: return "RDMA_WRITE_FIRST";
	case ROCE_OP_WRITE_MIDDLE: return "RDMA_WRITE_MIDDLE";
	case ROCE_OP_WRITE_LAST: return "RDMA_WRITE_LAST";
	case ROCE_OP_WRITE_LAST_IMM: return "RDMA_WRITE_LAST_IMM";
	case ROCE_OP_WRITE_ONLY: return "RDMA_WRITE_ONLY";
	case ROCE_OP_WRITE_ONLY_IMM: return "RDMA_WRITE_ONLY_IMM";
	case ROCE_OP_ACK: return "ACKNOWLEDGE";
	case ROCE_OP_CNP: return "CNP";
	default: return "unknown";
	}
}

uint32_t roce_overhead(roce_version v, bool tagged, uint8_t opcode)
{
	int ext = roce_opcode_ext_len(opcode);
	return SIM_ETH_HLEN + (tagged ? SIM_VLAN_HLEN : 0u) +
	       (v == ROCE_V1 ? ROCE_GRH_LEN : ROCE_IPV4_LEN + ROCE_UDP_LEN) + ROCE_BTH_LEN +
	       (ext > 0 ? (uint32_t)ext : 0u) + ROCE_ICRC_LEN;
}

/* RFC 1071 checksum of an IPv4 header (as stored: 0 = correct when verifying). */
static uint16_t roce_ipv4_checksum(const uint8_t *hdr, uint32_t len)
{
	uint32_t sum = 0;
	for (uint32_t i = 0; i + 1 < len; i += 2)
		sum += get_be16(hdr + i);
	if (len & 1)
		sum += (uint32_t)hdr[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

/* CRC-32 of the 8 bytes of ones that stand for the LRH RoCE does not have: every ICRC
 * starts from here (tests check it against icrc_crc32 of eight 0xFF bytes). */
#define MASKED_LRH_CRC 0x2144df1cu

/* The masks over a copy of the L3 and BTH headers at m. */
static void mask_variant_fields(roce_version v, uint8_t *m)
{
	if (v == ROCE_V2) {
		m[1] = 0xff;                 /* TOS */
		m[8] = 0xff;                 /* TTL */
		m[10] = m[11] = 0xff;        /* header checksum */
		m[ROCE_IPV4_LEN + 6] = 0xff; /* UDP checksum */
		m[ROCE_IPV4_LEN + 7] = 0xff;
		m[ROCE_IPV4_LEN + ROCE_UDP_LEN + 4] = 0xff; /* BTH resv8a / FECN / BECN */
	} else {
		m[0] |= 0x0f;              /* traffic class (low nibble of byte 0) ... */
		m[1] = m[2] = m[3] = 0xff; /* ... and the rest of it, flow label */
		m[7] = 0xff;               /* hop limit */
		m[ROCE_GRH_LEN + 4] = 0xff;
	}
}

/* Packets up to this long (every ACK, CDC and LLC message) are masked in one copy of the
 * whole packet and summed in one pass. */
#define ICRC_WHOLE_MAX 128u

uint32_t roce_icrc(roce_version v, const uint8_t *l3, uint32_t l3_len)
{
	uint32_t hl = v == ROCE_V2 ? ROCE_IPV4_LEN + ROCE_UDP_LEN + ROCE_BTH_LEN : ROCE_GRH_LEN + ROCE_BTH_LEN;
	if (l3_len <= ICRC_WHOLE_MAX) {
		uint8_t whole[ICRC_WHOLE_MAX];
		icrc_copy_short(whole, l3, l3_len);
		mask_variant_fields(v, whole);
		return icrc_crc32(MASKED_LRH_CRC, whole, l3_len);
	}
	uint8_t m[ROCE_GRH_LEN + ROCE_BTH_LEN];
	icrc_copy_short(m, l3, hl);
	mask_variant_fields(v, m);
	return icrc_crc32_2(MASKED_LRH_CRC, m, hl, l3 + hl, l3_len - hl);
}

/* The ICRC so far of a packet whose payload is not in the frame yet: its masked headers
 * from l3 (hdr bytes); the payload, the pad and the final value are owed (the frame pays
 * them when the payload is copied: sim_frame_defer_copy_crc). */
static uint32_t icrc_headers(roce_version v, const uint8_t *l3, uint32_t hdr)
{
	uint8_t m[128]; /* every header up to the payload (68 bytes at most) */
	icrc_copy_short(m, l3, hdr);
	mask_variant_fields(v, m);
	return icrc_crc32(MASKED_LRH_CRC, m, hdr);
}

static sim_frame *build(sim_frame_pool *pool, const roce_addr *a, const roce_bth *bth, const roce_reth *reth,
                        const roce_aeth *aeth, const roce_seg *segs, unsigned nsegs, bool defer)
{
	uint32_t plen = 0;
	for (unsigned i = 0; i < nsegs; i++)
		plen += segs[i].len;
	uint32_t pad = (4u - (plen & 3u)) & 3u;
	int ext = roce_opcode_ext_len(bth->opcode);
	uint32_t ext_len = ext > 0 ? (uint32_t)ext : 0u;
	uint32_t ib_len = ROCE_BTH_LEN + ext_len + plen + pad + ROCE_ICRC_LEN;
	uint32_t l3_hdr = a->version == ROCE_V1 ? ROCE_GRH_LEN : ROCE_IPV4_LEN + ROCE_UDP_LEN;
	uint32_t eth_len = SIM_ETH_HLEN + (a->vlan_tci ? SIM_VLAN_HLEN : 0u);

	sim_frame *f = sim_frame_alloc_data(pool, eth_len + l3_hdr + ib_len);
	uint8_t *start = f->data;
	uint8_t *p = start + sim_eth_write(start, a->dmac, a->smac, a->vlan_tci,
	                                   a->version == ROCE_V1 ? SIM_ETHERTYPE_ROCE : SIM_ETHERTYPE_IPV4);
	uint8_t *l3 = p;
	if (a->version == ROCE_V1) {
		p = put_be32(p, 0x60000000u | ((uint32_t)a->traffic_class << 20) | (a->flow_label & 0xFFFFFu));
		p = put_be16(p, (uint16_t)ib_len);
		p = put_u8(p, ROCE_GRH_NXTHDR);
		p = put_u8(p, a->hop_limit);
		p = put_bytes(p, a->sgid, 16);
		p = put_bytes(p, a->dgid, 16);
	} else {
		uint8_t *ip = p;
		p = put_u8(p, 0x45);
		p = put_u8(p, a->traffic_class);
		p = put_be16(p, (uint16_t)(ROCE_IPV4_LEN + ROCE_UDP_LEN + ib_len));
		p = put_be16(p, a->ip_id);
		p = put_be16(p, 0x4000); /* DF */
		p = put_u8(p, a->hop_limit);
		p = put_u8(p, 17);
		p = put_be16(p, 0);
		p = put_bytes(p, a->sgid + 12, 4);
		p = put_bytes(p, a->dgid + 12, 4);
		put_be16(ip + 10, roce_ipv4_checksum(ip, ROCE_IPV4_LEN));
		p = put_be16(p, a->udp_sport);
		p = put_be16(p, ROCE_UDP_PORT);
		p = put_be16(p, (uint16_t)(ROCE_UDP_LEN + ib_len));
		p = put_be16(p, 0);
	}
	p = put_u8(p, bth->opcode);
	p = put_u8(p, (uint8_t)((bth->se ? 0x80u : 0u) | (bth->mig ? 0x40u : 0u) | (pad << 4) | (bth->tver & 0x0Fu)));
	p = put_be16(p, bth->pkey);
	p = put_u8(p, (uint8_t)((bth->fecn ? 0x80u : 0u) | (bth->becn ? 0x40u : 0u)));
	p = put_be24(p, bth->dest_qp);
	p = put_u8(p, bth->ack_req ? 0x80 : 0);
	p = put_be24(p, bth->psn);
	if (roce_opcode_has_reth(bth->opcode)) {
		p = put_be64(p, reth->va);
		p = put_be32(p, reth->rkey);
		p = put_be32(p, reth->dma_len);
	}
	if (bth->opcode == ROCE_OP_ACK) {
		p = put_u8(p, aeth->syndrome);
		p = put_be24(p, aeth->msn);
	}
	if (opcode_has_imm(bth->opcode))
		p = put_be32(p, 0);
	if (bth->opcode == ROCE_OP_CNP)
		p = put_zero(p, ROCE_CNP_RESERVED_LEN);
	uint32_t crc;
	if (defer) {
		/* one piece, left where it is, and the ICRC over it owed: the frame says so
		 * (sim_frame_defer_copy_crc); paid when the bytes are copied, wherever to */
		uint32_t hdr = (uint32_t)(p - l3);
		uint8_t *payload = p;
		p = put_zero(p + plen, pad);
		crc = icrc_headers(a->version, l3, hdr);
		if (sim_frame_defer_copy_crc(f, payload, segs[0].data, plen, crc, p)) {
			sim_frame_vouch_sums(f);
			return f;
		}
		memcpy(payload, segs[0].data, plen); /* too short to leave out: copied now */
		crc = roce_icrc(a->version, l3, (uint32_t)(p - l3));
	} else {
		for (unsigned i = 0; i < nsegs; i++)
			p = put_bytes(p, segs[i].data, segs[i].len);
		p = put_zero(p, pad);
		crc = roce_icrc(a->version, l3, (uint32_t)(p - l3));
	}
	put_le32(p, crc);
	/* its IPv4 checksum and ICRC are right until somebody writes to it */
	sim_frame_vouch_sums(f);
	return f;
}

sim_frame *roce_build(sim_frame_pool *pool, const roce_addr *a, const roce_bth *bth, const roce_reth *reth,
                      const roce_aeth *aeth, const roce_seg *segs, unsigned nsegs)
{
	return build(pool, a, bth, reth, aeth, segs, nsegs, false);
}

sim_frame *roce_build_deferred(sim_frame_pool *pool, const roce_addr *a, const roce_bth *bth, const roce_reth *reth,
                               const roce_aeth *aeth, const roce_seg *seg)
{
	return build(pool, a, bth, reth, aeth, seg, 1, seg->len > 0);
}

static int fail(smcr_decode_err *err, int code, const char *msg, const char *field, uint32_t off, uint64_t got,
                const char *expected)
{
	return smcr_decode_fail(err, code, msg, field, off, got, "%s", expected);
}

/* The InfiniBand part of a frame: where its BTH starts, and its bytes from there to the
 * end of the ICRC. */
typedef struct ib_span {
	uint32_t off, len;
} ib_span;

/* RoCE v1: the GRH at frame + off. */
static int parse_grh(const uint8_t *frame, uint32_t len, uint32_t off, roce_addr *a, ib_span *ib, smcr_decode_err *err)
{
	const char *msg = "RoCE v1";
	const uint8_t *l3 = frame + off;
	a->version = ROCE_V1;
	if (len - off < ROCE_GRH_LEN)
		return fail(err, SMCR_ERR_SHORT, msg, "GRH", off, len - off, ">= 40 bytes");
	uint32_t w0 = get_be32(l3);
	if ((w0 >> 28) != 6)
		return fail(err, SMCR_ERR_VERSION, msg, "GRH IPVer", off, w0 >> 28, "6");
	a->traffic_class = (uint8_t)(w0 >> 20);
	a->flow_label = w0 & 0xFFFFFu;
	uint16_t paylen = get_be16(l3 + 4);
	if (l3[6] != ROCE_GRH_NXTHDR)
		return fail(err, SMCR_ERR_FIELD, msg, "GRH NxtHdr", off + 6, l3[6], "0x1b (IBA transport)");
	a->hop_limit = l3[7];
	memcpy(a->sgid, l3 + 8, 16);
	memcpy(a->dgid, l3 + 24, 16);
	ib->off = off + ROCE_GRH_LEN;
	/* nothing may follow the ICRC: PayLen must cover the rest of the frame exactly */
	if (paylen != len - ib->off)
		return smcr_decode_fail(err, SMCR_ERR_LENGTH, msg, "GRH PayLen", off + 4, paylen,
		                        "%u (the rest of the frame)", len - ib->off);
	ib->len = paylen;
	return SMCR_ERR_OK;
}

/* RoCE v2: the UDP header after the IPv4 header at frame + uoff; tot is the IP length. */
static int parse_udp(const uint8_t *frame, uint32_t uoff, uint16_t tot, roce_addr *a, ib_span *ib, smcr_decode_err *err)
{
	const char *msg = "RoCE v2";
	const uint8_t *udp = frame + uoff;
	if (get_be16(udp + 2) != ROCE_UDP_PORT)
		return fail(err, SMCR_ERR_TYPE, msg, "UDP destination port", uoff + 2, get_be16(udp + 2), "4791");
	a->udp_sport = get_be16(udp);
	uint16_t ulen = get_be16(udp + 4);
	if (ulen != tot - ROCE_IPV4_LEN)
		return smcr_decode_fail(err, SMCR_ERR_LENGTH, msg, "UDP length", uoff + 4, ulen,
		                        "%u (IPv4 total length - 20)", tot - ROCE_IPV4_LEN);
	ib->off = uoff + ROCE_UDP_LEN;
	ib->len = (uint32_t)ulen - ROCE_UDP_LEN; /* Ethernet padding after the IP packet is ignored */
	return SMCR_ERR_OK;
}

/* RoCE v2: the IPv4 header at frame + off, then UDP. */
static int parse_ipv4(const uint8_t *frame, uint32_t len, uint32_t off, bool check_sums, roce_addr *a, ib_span *ib,
                      smcr_decode_err *err)
{
	const char *msg = "RoCE v2";
	const uint8_t *l3 = frame + off;
	a->version = ROCE_V2;
	if (len - off < ROCE_IPV4_LEN)
		return fail(err, SMCR_ERR_SHORT, msg, "IPv4 header", off, len - off, ">= 20 bytes");
	if (l3[0] != 0x45)
		return fail(err, l3[0] >> 4 != 4 ? SMCR_ERR_VERSION : SMCR_ERR_FIELD, msg, "IPv4 version/IHL",
		            off, l3[0], "0x45 (IPv4, no options)");
	if (l3[9] != 17)
		return fail(err, SMCR_ERR_TYPE, msg, "IPv4 protocol", off + 9, l3[9], "17 (UDP)");
	uint16_t tot = get_be16(l3 + 2);
	if (tot < ROCE_IPV4_LEN + ROCE_UDP_LEN || tot > len - off)
		return smcr_decode_fail(err, SMCR_ERR_LENGTH, msg, "IPv4 total length", off + 2, tot,
		                        "28..%u", len - off);
	if (check_sums && roce_ipv4_checksum(l3, ROCE_IPV4_LEN) != 0)
		return fail(err, SMCR_ERR_FIELD, msg, "IPv4 header checksum", off + 10, get_be16(l3 + 10),
		            "a valid RFC 1071 checksum");
	if ((get_be16(l3 + 6) & 0x3FFF) != 0)
		return fail(err, SMCR_ERR_FIELD, msg, "IPv4 fragment", off + 6, get_be16(l3 + 6),
		            "unfragmented (MF 0, offset 0)");
	a->traffic_class = l3[1];
	a->ip_id = get_be16(l3 + 4);
	a->hop_limit = l3[8];
	gid_from_ipv4(get_be32(l3 + 12), a->sgid);
	gid_from_ipv4(get_be32(l3 + 16), a->dgid);
	return parse_udp(frame, off + ROCE_IPV4_LEN, tot, a, ib, err);
}

static void read_bth(const uint8_t *b, roce_bth *h)
{
	h->opcode = b[0];
	h->se = (b[1] & 0x80) != 0;
	h->mig = (b[1] & 0x40) != 0;
	h->pad = (b[1] >> 4) & 3u;
	h->tver = b[1] & 0x0Fu;
	h->pkey = get_be16(b + 2);
	h->fecn = (b[4] & 0x80) != 0;
	h->becn = (b[4] & 0x40) != 0;
	h->dest_qp = get_be24(b + 5);
	h->ack_req = (b[8] & 0x80) != 0;
	h->psn = get_be24(b + 9);
}

/* The extension headers after the BTH (which the opcode says); returns what follows. */
static const uint8_t *read_ext(const uint8_t *x, roce_pkt *out)
{
	uint8_t opcode = out->bth.opcode;
	if (roce_opcode_has_reth(opcode)) {
		out->has_reth = true;
		out->reth.va = get_be64(x);
		out->reth.rkey = get_be32(x + 8);
		out->reth.dma_len = get_be32(x + 12);
		x += ROCE_RETH_LEN;
	}
	if (opcode == ROCE_OP_ACK) {
		out->has_aeth = true;
		out->aeth.syndrome = x[0];
		out->aeth.msn = get_be24(x + 1);
		x += ROCE_AETH_LEN;
	}
	if (opcode_has_imm(opcode)) {
		out->has_imm = true;
		out->imm = get_be32(x);
		x += ROCE_IMM_LEN;
	}
	if (opcode == ROCE_OP_CNP)
		x += ROCE_CNP_RESERVED_LEN; /* reserved: ignored on receive */
	return x;
}

/* BTH, extension headers, payload and ICRC (over the L3 header at frame + l3_off). */
/* How much of the sums parse looks at. */
enum parse_sums {
	SUMS_CHECK,   /* verify both */
	SUMS_VOUCHED, /* read the ICRC, verify nothing */
	SUMS_OWED,    /* not even read the ICRC: it is not written yet */
};

static int parse_transport(const uint8_t *frame, uint32_t l3_off, ib_span ib, const char *msg, enum parse_sums sums,
                           roce_pkt *out, smcr_decode_err *err)
{
	if (ib.len < ROCE_BTH_LEN + ROCE_ICRC_LEN)
		return fail(err, SMCR_ERR_SHORT, msg, "BTH", ib.off, ib.len, ">= 16 bytes (BTH + ICRC)");
	const uint8_t *b = frame + ib.off;
	roce_bth *h = &out->bth;
	read_bth(b, h);
	int ext = roce_opcode_ext_len(h->opcode);
	if (ext < 0)
		return fail(err, SMCR_ERR_TYPE, msg, "BTH OpCode", ib.off, h->opcode,
		            "an RC SEND, RDMA WRITE or ACKNOWLEDGE opcode, or CNP");
	if (h->tver != 0)
		return fail(err, SMCR_ERR_VERSION, msg, "BTH TVer", ib.off + 1, h->tver, "0");
	uint32_t hdrs = ROCE_BTH_LEN + (uint32_t)ext;
	if (ib.len < hdrs + ROCE_ICRC_LEN)
		return smcr_decode_fail(err, SMCR_ERR_SHORT, msg, "extension header", ib.off + ROCE_BTH_LEN,
		                        ib.len, ">= %u bytes for %s", hdrs + ROCE_ICRC_LEN, roce_opcode_name(h->opcode));
	const uint8_t *x = read_ext(b + ROCE_BTH_LEN, out);
	uint32_t data_len = ib.len - hdrs - ROCE_ICRC_LEN;
	if (h->pad > data_len)
		return smcr_decode_fail(err, SMCR_ERR_LENGTH, msg, "BTH PadCnt", ib.off + 1, h->pad,
		                        "<= %u (the payload length)", data_len);
	if (h->opcode == ROCE_OP_ACK && data_len != 0)
		return fail(err, SMCR_ERR_LENGTH, msg, "ACKNOWLEDGE payload", ib.off + hdrs, data_len, "0");
	if (h->opcode == ROCE_OP_CNP && data_len != 0)
		return fail(err, SMCR_ERR_LENGTH, msg, "CNP payload", ib.off + hdrs, data_len, "0");
	out->payload = x;
	out->payload_len = data_len - h->pad;
	const uint8_t *l3 = frame + l3_off;
	const uint8_t *icrc_at = b + ib.len - ROCE_ICRC_LEN;
	out->icrc = sums == SUMS_OWED ? 0 : get_le32(icrc_at);
	if (sums != SUMS_CHECK)
		return SMCR_ERR_OK;
	uint32_t want = roce_icrc(out->addr.version, l3, (uint32_t)(icrc_at - l3));
	if (want != out->icrc)
		return smcr_decode_fail(err, SMCR_ERR_FIELD, msg, "ICRC", (uint32_t)(icrc_at - frame), out->icrc,
		                        "0x%08x", want);
	return SMCR_ERR_OK;
}

static int parse(const uint8_t *frame, uint32_t len, enum parse_sums sums, roce_pkt *out, smcr_decode_err *err)
{
	sim_eth_hdr eh;
	if (!sim_eth_parse(frame, len, &eh))
		return fail(err, SMCR_ERR_SHORT, "Ethernet", "header", 0, len, ">= 14 bytes");
	memset(out, 0, sizeof(*out));
	roce_addr *a = &out->addr;
	memcpy(a->dmac, eh.dst, 6);
	memcpy(a->smac, eh.src, 6);
	a->vlan_tci = eh.tagged ? eh.tci : 0;
	uint32_t off = eh.hlen;
	ib_span ib = { 0, 0 };
	int rc;
	if (eh.ethertype == SIM_ETHERTYPE_ROCE)
		rc = parse_grh(frame, len, off, a, &ib, err);
	else if (eh.ethertype == SIM_ETHERTYPE_IPV4)
		rc = parse_ipv4(frame, len, off, sums == SUMS_CHECK, a, &ib, err);
	else
		return fail(err, SMCR_ERR_TYPE, "Ethernet", "ethertype", eh.tagged ? 16 : 12, eh.ethertype,
		            "0x8915 (RoCE v1) or 0x0800 (IPv4)");
	if (rc != SMCR_ERR_OK)
		return rc;
	return parse_transport(frame, off, ib, a->version == ROCE_V1 ? "RoCE v1" : "RoCE v2", sums, out, err);
}

int roce_parse(const uint8_t *frame, uint32_t len, roce_pkt *out, smcr_decode_err *err)
{
	return parse(frame, len, SUMS_CHECK, out, err);
}

int roce_parse_vouched(const uint8_t *frame, uint32_t len, roce_pkt *out, smcr_decode_err *err)
{
	return parse(frame, len, SUMS_VOUCHED, out, err);
}

int roce_parse_owed(const uint8_t *frame, uint32_t len, roce_pkt *out, smcr_decode_err *err)
{
	return parse(frame, len, SUMS_OWED, out, err);
}
