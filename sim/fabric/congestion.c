/* Congestion seam helpers: priorities, ECN codepoints, PAUSE/PFC frames. */
#include "sim/fabric/congestion.h"

#include <string.h>

#include "model/byteorder.h"
#include "sim/fabric/eth_header.h"

const uint8_t sim_macctl_dst[6] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x01 };

void sim_prio_map_default(sim_prio_map *m)
{
	m->trust = SIM_TRUST_PCP;
	m->default_prio = 0;
	for (unsigned d = 0; d < 64; d++)
		m->dscp[d] = (uint8_t)(d >> 3);
}

const uint8_t *sim_frame_ipv4(const uint8_t *p, uint32_t len)
{
	sim_eth_hdr eh;
	if (!sim_eth_parse(p, len, &eh) || eh.ethertype != SIM_ETHERTYPE_IPV4 || len < eh.hlen + 20u)
		return NULL;
	const uint8_t *ip = p + eh.hlen;
	return (ip[0] >> 4) == 4 ? ip : NULL;
}

unsigned sim_frame_priority(const sim_prio_map *m, const uint8_t *p, uint32_t len)
{
	if (m->trust == SIM_TRUST_DSCP) {
		const uint8_t *ip = sim_frame_ipv4(p, len);
		if (ip)
			return m->dscp[ip[1] >> 2] & 7u;
	}
	sim_eth_hdr eh;
	if (sim_eth_parse(p, len, &eh) && eh.tagged)
		return (unsigned)(eh.tci >> 13);
	return m->default_prio & 7u;
}

unsigned sim_frame_ecn(const uint8_t *p, uint32_t len)
{
	const uint8_t *ip = sim_frame_ipv4(p, len);
	return ip ? (ip[1] & 3u) : SIM_ECN_NOT_ECT;
}

/* RFC 1624 incremental update of the header checksum for one changed 16-bit word. */
static void ipv4_fix_checksum(uint8_t *ip, uint16_t old_word, uint16_t new_word)
{
	uint32_t sum = (uint16_t)~get_be16(ip + 10);
	sum += (uint16_t)~old_word;
	sum += new_word;
	while (sum >> 16)
		sum = (sum & 0xFFFFu) + (sum >> 16);
	put_be16(ip + 10, (uint16_t)~sum);
}

void sim_ipv4_set_ecn(uint8_t *ip, unsigned ecn)
{
	uint16_t old_word = get_be16(ip);
	ip[1] = (uint8_t)((ip[1] & ~3u) | (ecn & 3u));
	ipv4_fix_checksum(ip, old_word, get_be16(ip));
}

bool sim_frame_mark_ce(sim_frame *f)
{
	unsigned ecn = sim_frame_ecn(f->data, f->len);
	if (ecn == SIM_ECN_NOT_ECT)
		return false;
	if (ecn == SIM_ECN_CE)
		return true;
	uint8_t *p = sim_frame_writable(f);
	sim_ipv4_set_ecn((uint8_t *)(uintptr_t)sim_frame_ipv4(p, f->len), SIM_ECN_CE);
	return true;
}

static sim_frame *macctl_build(sim_frame_pool *pool, const uint8_t src[6], uint16_t opcode)
{
	sim_frame *f = sim_frame_alloc_len(pool, SIM_ETH_MIN_FRAME);
	uint8_t *p = sim_frame_put(f, SIM_ETH_MIN_FRAME);
	memset(p, 0, SIM_ETH_MIN_FRAME); /* the reserved tail is zero */
	uint32_t o = sim_eth_write(p, sim_macctl_dst, src, 0, SIM_ETHERTYPE_MAC_CONTROL);
	put_be16(p + o, opcode);
	return f;
}

sim_frame *sim_pfc_build(sim_frame_pool *pool, const uint8_t src[6], uint8_t class_enable,
                         const uint16_t quanta[SIM_PRIOS])
{
	sim_frame *f = macctl_build(pool, src, SIM_MACCTL_PFC);
	uint8_t *q = f->data + SIM_ETH_HLEN + 2;
	q = put_be16(q, class_enable);
	for (unsigned i = 0; i < SIM_PRIOS; i++)
		q = put_be16(q, (uint16_t)((class_enable >> i) & 1u ? quanta[i] : 0u));
	return f;
}

sim_frame *sim_pause_build(sim_frame_pool *pool, const uint8_t src[6], uint16_t quanta)
{
	sim_frame *f = macctl_build(pool, src, SIM_MACCTL_PAUSE);
	put_be16(f->data + SIM_ETH_HLEN + 2, quanta);
	return f;
}

bool sim_frame_is_mac_control(const uint8_t *p, uint32_t len)
{
	sim_eth_hdr eh;
	return sim_eth_parse(p, len, &eh) && eh.ethertype == SIM_ETHERTYPE_MAC_CONTROL;
}

bool sim_pause_parse(const uint8_t *p, uint32_t len, sim_pause_frame *out)
{
	sim_eth_hdr eh;
	if (!sim_eth_parse(p, len, &eh) || eh.ethertype != SIM_ETHERTYPE_MAC_CONTROL || len < eh.hlen + 2u)
		return false;
	const uint8_t *q = p + eh.hlen;
	uint32_t room = len - eh.hlen;
	memset(out, 0, sizeof(*out));
	out->opcode = get_be16(q);
	if (out->opcode == SIM_MACCTL_PAUSE && room >= 4) {
		out->class_enable = 0xFF;
		for (unsigned i = 0; i < SIM_PRIOS; i++)
			out->quanta[i] = get_be16(q + 2);
		return true;
	}
	if (out->opcode == SIM_MACCTL_PFC && room >= 4u + 2u * SIM_PRIOS) {
		out->class_enable = (uint8_t)get_be16(q + 2);
		for (unsigned i = 0; i < SIM_PRIOS; i++)
			out->quanta[i] = get_be16(q + 4 + 2 * i);
		return true;
	}
	return false;
}

sim_time sim_pause_quanta_ns(uint16_t quanta, uint64_t bps)
{
	if (!bps)
		bps = 100000000000ULL;
	uint64_t bits = (uint64_t)quanta * SIM_PAUSE_QUANTUM_BITS;
	return (bits * 1000000000ULL + bps - 1) / bps;
}
