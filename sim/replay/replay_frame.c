/* Captured-frame dissection (see replay_frame.h). */
#include "sim/replay/replay_frame.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/byteorder.h"

static rp_frame_kind say(char *why, size_t n, rp_frame_kind k, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static rp_frame_kind say(char *why, size_t n, rp_frame_kind k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return k;
}

static void ipv4_mapped(uint8_t gid[16], const uint8_t ip4[4])
{
	memset(gid, 0, 10);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(gid + 12, ip4, 4);
}

static rp_frame_kind parse_tcp(rp_frame *f, const uint8_t *p, uint32_t cap, uint32_t wire, char *why, size_t n)
{
	if (cap < 20)
		return say(why, n, RP_FRAME_BAD, "truncated TCP header: %u of 20 bytes captured", cap);
	uint32_t hlen = (uint32_t)(p[12] >> 4) * 4;
	if (hlen < 20 || hlen > wire)
		return say(why, n, RP_FRAME_BAD, "bad TCP header length %u (segment %u bytes)", hlen, wire);
	if (hlen > cap)
		return say(why, n, RP_FRAME_BAD, "truncated TCP options: %u of %u header bytes captured", cap, hlen);
	f->sport = get_be16(p);
	f->dport = get_be16(p + 2);
	f->seq = get_be32(p + 4);
	f->ack = get_be32(p + 8);
	f->tcp_flags = p[13];
	f->smc_option = false;
	for (uint32_t i = 20; i < hlen;) {
		uint8_t kind = p[i];
		if (kind == 0)
			break;
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= hlen || p[i + 1] < 2 || i + p[i + 1] > hlen)
			break; /* malformed options: stop, the segment is still usable */
		if (kind == 254 && p[i + 1] == 6 && get_be32(p + i + 2) == 0xE2D4C3D9u)
			f->smc_option = true;
		i += p[i + 1];
	}
	f->payload = p + hlen;
	f->payload_caplen = cap - hlen;
	f->payload_len = wire - hlen;
	if (f->payload_caplen > f->payload_len)
		f->payload_caplen = f->payload_len; /* Ethernet padding after a short segment */
	return RP_FRAME_TCP;
}

static rp_frame_kind parse_l4(rp_frame *f, uint8_t proto, const uint8_t *p, uint32_t cap, uint32_t wire, char *why,
                              size_t n)
{
	if (proto == 6)
		return parse_tcp(f, p, cap, wire, why, n);
	if (proto != 17) {
		const char *name = proto == 1 ? "ICMP" : proto == 58 ? "ICMPv6"
		                                 : proto == 2        ? "IGMP"
		                                                     : NULL;
		if (name)
			return say(why, n, RP_FRAME_OTHER, "%s", name);
		return say(why, n, RP_FRAME_OTHER, "IPv%u protocol %u", f->family, proto);
	}
	if (cap < 8)
		return say(why, n, RP_FRAME_BAD, "truncated UDP header: %u of 8 bytes captured", cap);
	uint16_t dport = get_be16(p + 2), ulen = get_be16(p + 4);
	if (dport != RP_ROCEV2_PORT)
		return say(why, n, RP_FRAME_OTHER, "UDP port %u", dport);
	if (ulen < 8 || ulen > wire)
		return say(why, n, RP_FRAME_BAD, "bad UDP length %u (datagram %u bytes)", ulen, wire);
	f->roce_version = 2;
	if (f->family == 4) {
		ipv4_mapped(f->sgid, f->src_ip);
		ipv4_mapped(f->dgid, f->dst_ip);
	} else {
		memcpy(f->sgid, f->src_ip, 16);
		memcpy(f->dgid, f->dst_ip, 16);
	}
	f->ib = p + 8;
	f->ib_len = ulen - 8u;
	f->ib_caplen = cap - 8 < f->ib_len ? cap - 8 : f->ib_len;
	return RP_FRAME_ROCE;
}

static rp_frame_kind parse_ipv4(rp_frame *f, const uint8_t *p, uint32_t cap, uint32_t wire, char *why, size_t n)
{
	if (cap < 20)
		return say(why, n, RP_FRAME_BAD, "truncated IPv4 header: %u of 20 bytes captured", cap);
	if (p[0] >> 4 != 4)
		return say(why, n, RP_FRAME_BAD, "IPv4 ethertype but IP version %u", p[0] >> 4);
	uint32_t ihl = (uint32_t)(p[0] & 0x0F) * 4, tot = get_be16(p + 2);
	if (ihl < 20 || tot < ihl || tot > wire)
		return say(why, n, RP_FRAME_BAD, "bad IPv4 lengths: header %u, total %u, frame payload %u", ihl, tot, wire);
	if (ihl > cap)
		return say(why, n, RP_FRAME_BAD, "truncated IPv4 options: %u of %u bytes captured", cap, ihl);
	f->family = 4;
	memset(f->src_ip, 0, 16);
	memset(f->dst_ip, 0, 16);
	memcpy(f->src_ip, p + 12, 4);
	memcpy(f->dst_ip, p + 16, 4);
	if (get_be16(p + 6) & 0x3FFF)
		return say(why, n, RP_FRAME_OTHER, "IPv4 fragment");
	uint32_t c = cap < tot ? cap : tot;
	return parse_l4(f, p[9], p + ihl, c - ihl, tot - ihl, why, n);
}

static rp_frame_kind parse_ipv6(rp_frame *f, const uint8_t *p, uint32_t cap, uint32_t wire, char *why, size_t n)
{
	if (cap < 40)
		return say(why, n, RP_FRAME_BAD, "truncated IPv6 header: %u of 40 bytes captured", cap);
	uint32_t plen = get_be16(p + 4);
	if (40 + plen > wire)
		return say(why, n, RP_FRAME_BAD, "bad IPv6 payload length %u (frame payload %u)", plen, wire);
	f->family = 6;
	memcpy(f->src_ip, p + 8, 16);
	memcpy(f->dst_ip, p + 24, 16);
	uint8_t nh = p[6];
	uint32_t off = 40, end = 40 + plen, c = cap < end ? cap : end;
	/* skip the extension headers a host may put in front of TCP or UDP */
	while (nh == 0 || nh == 43 || nh == 60) {
		if (off + 8 > c)
			return say(why, n, RP_FRAME_BAD, "truncated IPv6 extension header");
		uint32_t hl = ((uint32_t)p[off + 1] + 1) * 8;
		nh = p[off];
		off += hl;
		if (off > end)
			return say(why, n, RP_FRAME_BAD, "IPv6 extension headers longer than the packet");
	}
	if (nh == 44)
		return say(why, n, RP_FRAME_OTHER, "IPv6 fragment");
	if (off > c)
		return say(why, n, RP_FRAME_BAD, "truncated IPv6 extension header");
	return parse_l4(f, nh, p + off, c - off, end - off, why, n);
}

static rp_frame_kind parse_roce_v1(rp_frame *f, const uint8_t *p, uint32_t cap, uint32_t wire, char *why, size_t n)
{
	if (cap < 40)
		return say(why, n, RP_FRAME_BAD, "truncated RoCE v1 GRH: %u of 40 bytes captured", cap);
	if (p[0] >> 4 != 6)
		return say(why, n, RP_FRAME_BAD, "RoCE v1 GRH with IP version %u (expected 6)", p[0] >> 4);
	uint32_t plen = get_be16(p + 4);
	if (p[6] != 0x1B)
		return say(why, n, RP_FRAME_BAD, "RoCE v1 GRH next header 0x%02x (expected 0x1b, IBA transport)", p[6]);
	if (40 + plen > wire)
		return say(why, n, RP_FRAME_BAD, "RoCE v1 GRH payload length %u beyond the frame (%u)", plen, wire - 40);
	f->roce_version = 1;
	memcpy(f->sgid, p + 8, 16);
	memcpy(f->dgid, p + 24, 16);
	f->ib = p + 40;
	f->ib_len = plen;
	f->ib_caplen = cap - 40 < plen ? cap - 40 : plen;
	return RP_FRAME_ROCE;
}

rp_frame_kind rp_frame_parse(rp_frame *f, const uint8_t *data, uint32_t caplen, uint32_t len, char *why, size_t whylen)
{
	memset(f, 0, offsetof(rp_frame, payload));
	f->vlan = 0xFFFF;
	f->payload = NULL;
	f->payload_caplen = f->payload_len = 0;
	f->roce_version = 0;
	f->ib = NULL;
	f->ib_caplen = f->ib_len = 0;
	f->l3 = NULL;
	f->l3_caplen = 0;
	f->hop_off = f->csum_off = -1;
	if (len < caplen)
		len = caplen; /* a capture claiming fewer wire bytes than captured: trust the bytes */
	f->raw = data;
	f->raw_caplen = caplen;
	f->raw_len = len;
	if (caplen < 14)
		return say(why, whylen, RP_FRAME_BAD, "truncated Ethernet header: %u of 14 bytes captured", caplen);
	memcpy(f->dst_mac, data, 6);
	memcpy(f->src_mac, data + 6, 6);
	uint32_t off = 12;
	uint16_t type = get_be16(data + off);
	while (type == 0x8100 || type == 0x88A8 || type == 0x9100) {
		if (caplen < off + 6)
			return say(why, whylen, RP_FRAME_BAD, "truncated VLAN tag");
		f->vlan = get_be16(data + off + 2) & 0x0FFF;
		off += 4;
		type = get_be16(data + off);
	}
	off += 2;
	f->ethertype = type;
	const uint8_t *p = data + off;
	uint32_t cap = caplen - off, wire = len - off;
	f->l3 = p;
	f->l3_caplen = cap;
	if (type == 0x0800 && cap >= 20) {
		f->hop_off = 8;
		f->csum_off = 10;
	} else if ((type == 0x86DD || type == 0x8915) && cap >= 40) {
		f->hop_off = 7; /* IPv6 hop limit, GRH hop limit */
	}
	switch (type) {
	case 0x0800: return parse_ipv4(f, p, cap, wire, why, whylen);
	case 0x86DD: return parse_ipv6(f, p, cap, wire, why, whylen);
	case 0x8915: return parse_roce_v1(f, p, cap, wire, why, whylen);
	case 0x0806: return say(why, whylen, RP_FRAME_OTHER, "ARP");
	case 0x88CC: return say(why, whylen, RP_FRAME_OTHER, "LLDP");
	case 0x8808: return say(why, whylen, RP_FRAME_OTHER, "Ethernet flow control");
	default: break;
	}
	if (type < 0x0600)
		return say(why, whylen, RP_FRAME_OTHER, "802.3 frame (length %u)", type);
	return say(why, whylen, RP_FRAME_OTHER, "ethertype 0x%04x", type);
}

/* Extension headers after the BTH, by RC opcode. */
typedef struct op_info {
	const char *name;
	uint8_t reth, aeth, imm, ieth, atomic_eth, atomic_ack;
	bool payload;
} op_info;

static const op_info rc_ops[0x18] = {
	[RP_OP_SEND_FIRST] = { "SEND First", 0, 0, 0, 0, 0, 0, true },
	[RP_OP_SEND_MIDDLE] = { "SEND Middle", 0, 0, 0, 0, 0, 0, true },
	[RP_OP_SEND_LAST] = { "SEND Last", 0, 0, 0, 0, 0, 0, true },
	[RP_OP_SEND_LAST_IMM] = { "SEND Last with Immediate", 0, 0, 1, 0, 0, 0, true },
	[RP_OP_SEND_ONLY] = { "SEND Only", 0, 0, 0, 0, 0, 0, true },
	[RP_OP_SEND_ONLY_IMM] = { "SEND Only with Immediate", 0, 0, 1, 0, 0, 0, true },
	[RP_OP_WRITE_FIRST] = { "RDMA WRITE First", 1, 0, 0, 0, 0, 0, true },
	[RP_OP_WRITE_MIDDLE] = { "RDMA WRITE Middle", 0, 0, 0, 0, 0, 0, true },
	[RP_OP_WRITE_LAST] = { "RDMA WRITE Last", 0, 0, 0, 0, 0, 0, true },
	[RP_OP_WRITE_LAST_IMM] = { "RDMA WRITE Last with Immediate", 0, 0, 1, 0, 0, 0, true },
	[RP_OP_WRITE_ONLY] = { "RDMA WRITE Only", 1, 0, 0, 0, 0, 0, true },
	[RP_OP_WRITE_ONLY_IMM] = { "RDMA WRITE Only with Immediate", 1, 0, 1, 0, 0, 0, true },
	[RP_OP_READ_REQ] = { "RDMA READ Request", 1, 0, 0, 0, 0, 0, false },
	[RP_OP_READ_RESP_FIRST] = { "RDMA READ Response First", 0, 1, 0, 0, 0, 0, true },
	[RP_OP_READ_RESP_MIDDLE] = { "RDMA READ Response Middle", 0, 0, 0, 0, 0, 0, true },
	[RP_OP_READ_RESP_LAST] = { "RDMA READ Response Last", 0, 1, 0, 0, 0, 0, true },
	[RP_OP_READ_RESP_ONLY] = { "RDMA READ Response Only", 0, 1, 0, 0, 0, 0, true },
	[RP_OP_ACK] = { "Acknowledge", 0, 1, 0, 0, 0, 0, false },
	[RP_OP_ATOMIC_ACK] = { "Atomic Acknowledge", 0, 1, 0, 0, 0, 1, false },
	[RP_OP_CMP_SWAP] = { "CmpSwap", 0, 0, 0, 0, 1, 0, false },
	[RP_OP_FETCH_ADD] = { "FetchAdd", 0, 0, 0, 0, 1, 0, false },
	[RP_OP_SEND_LAST_INV] = { "SEND Last with Invalidate", 0, 0, 0, 1, 0, 0, true },
	[RP_OP_SEND_ONLY_INV] = { "SEND Only with Invalidate", 0, 0, 0, 1, 0, 0, true },
};

const char *rp_opcode_name(uint8_t opcode)
{
	if (opcode < 0x18 && rc_ops[opcode].name)
		return rc_ops[opcode].name;
	if (opcode == 0x81)
		return "CNP";
	return "unknown opcode";
}

bool rp_opcode_is_send(uint8_t op)
{
	return op <= RP_OP_SEND_ONLY_IMM || op == RP_OP_SEND_LAST_INV || op == RP_OP_SEND_ONLY_INV;
}

bool rp_opcode_is_write(uint8_t op)
{
	return op >= RP_OP_WRITE_FIRST && op <= RP_OP_WRITE_ONLY_IMM;
}

bool rp_opcode_starts_request(uint8_t op)
{
	switch (op) {
	case RP_OP_SEND_FIRST:
	case RP_OP_SEND_ONLY:
	case RP_OP_SEND_ONLY_IMM:
	case RP_OP_SEND_ONLY_INV:
	case RP_OP_WRITE_FIRST:
	case RP_OP_WRITE_ONLY:
	case RP_OP_WRITE_ONLY_IMM:
	case RP_OP_READ_REQ:
	case RP_OP_CMP_SWAP:
	case RP_OP_FETCH_ADD:
		return true;
	default:
		return false;
	}
}

rp_frame_kind rp_bth_parse(rp_bth *b, const uint8_t *ib, uint32_t ib_caplen, uint32_t ib_len, char *why, size_t whylen)
{
	memset(b, 0, sizeof(*b));
	if (ib_caplen < 12)
		return say(why, whylen, RP_FRAME_BAD, "truncated BTH: %u of 12 bytes captured", ib_caplen);
	b->opcode = ib[0];
	b->se = ib[1] & 0x80;
	b->padcnt = (uint8_t)((ib[1] >> 4) & 3);
	b->pkey = get_be16(ib + 2);
	b->dest_qp = get_be24(ib + 5);
	b->ackreq = ib[8] & 0x80;
	b->psn = get_be24(ib + 9);
	if (b->opcode >= 0x18 || !rc_ops[b->opcode].name)
		return say(why, whylen, RP_FRAME_OTHER, "%s transport opcode 0x%02x (%s)",
		           b->opcode >> 5 == 0 ? "RC" : b->opcode >> 5 == 1 ? "UC"
		                                : b->opcode >> 5 == 2       ? "RD"
		                                : b->opcode >> 5 == 3       ? "UD"
		                                                            : "non-RC",
		           b->opcode, rp_opcode_name(b->opcode));
	const op_info *op = &rc_ops[b->opcode];
	uint32_t hdr = 12 + op->reth * 16u + op->aeth * 4u + op->imm * 4u + op->ieth * 4u + op->atomic_eth * 28u +
	               op->atomic_ack * 8u;
	if (ib_len < hdr + 4u + b->padcnt)
		return say(why, whylen, RP_FRAME_BAD, "%s packet of %u bytes, shorter than its headers and ICRC (%u)",
		           op->name, ib_len, hdr + 4u + b->padcnt);
	if (ib_caplen < hdr)
		return say(why, whylen, RP_FRAME_BAD, "%s headers cut by the snap length: %u of %u bytes captured",
		           op->name, ib_caplen, hdr);
	const uint8_t *p = ib + 12;
	if (op->reth) {
		b->has_reth = true;
		b->va = get_be64(p);
		b->rkey = get_be32(p + 8);
		b->dmalen = get_be32(p + 12);
		p += 16;
	}
	if (op->aeth) {
		b->has_aeth = true;
		b->syndrome = p[0];
		b->msn = get_be24(p + 1);
		p += 4;
	}
	b->payload = ib + hdr;
	b->payload_len = ib_len - hdr - 4u - b->padcnt;
	uint32_t have = ib_caplen - hdr;
	b->payload_caplen = have < b->payload_len ? have : b->payload_len;
	if (!op->payload && b->payload_len)
		return say(why, whylen, RP_FRAME_BAD, "%s with %u unexpected payload bytes", op->name, b->payload_len);
	return RP_FRAME_ROCE;
}
