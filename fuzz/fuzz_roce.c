/* RoCE frames (sim/fabric/roce.c roce_parse): Ethernet with an optional 802.1Q tag, RoCE
 * v1 (GRH) or v2 (IPv4/UDP 4791), BTH, RETH/AETH/IMMDT, payload, pad and ICRC.
 *
 * Input: one flags byte, then the frame. Flag 0x01 writes the right ICRC and 0x02 the
 * right IPv4 header checksum into the frame first, where the frame's own lengths put
 * them, so mutations get past those checks to the fields behind them. A frame that
 * parses is built again from the parsed fields (roce_build) and must parse to the same
 * fields. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "model/byteorder.h"
#include "model/smcr_err.h"
#include "sim/fabric/eth_header.h"
#include "sim/fabric/roce.h"

#define FIX_ICRC 0x01
#define FIX_IP_CSUM 0x02

static uint16_t csum(const uint8_t *p, uint32_t len)
{
	uint32_t sum = 0;
	for (uint32_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Put the checksums where the frame's own headers say they are. */
static void fix_up(uint8_t *f, uint32_t len, uint8_t flags)
{
	sim_eth_hdr eh;
	if (!sim_eth_parse(f, len, &eh))
		return;
	uint32_t l3 = eh.hlen, end;
	roce_version v;
	if (eh.ethertype == SIM_ETHERTYPE_ROCE) {
		v = ROCE_V1;
		end = len;
	} else if (eh.ethertype == SIM_ETHERTYPE_IPV4) {
		v = ROCE_V2;
		if (len - l3 < ROCE_IPV4_LEN + ROCE_UDP_LEN)
			return;
		if (flags & FIX_IP_CSUM) {
			f[l3 + 10] = f[l3 + 11] = 0;
			put_be16(f + l3 + 10, csum(f + l3, ROCE_IPV4_LEN));
		}
		end = l3 + get_be16(f + l3 + 2);
		if (end > len)
			return;
	} else {
		return;
	}
	uint32_t hdr = v == ROCE_V1 ? ROCE_GRH_LEN : ROCE_IPV4_LEN + ROCE_UDP_LEN;
	if ((flags & FIX_ICRC) && end >= l3 + hdr + ROCE_BTH_LEN + ROCE_ICRC_LEN)
		put_le32(f + end - ROCE_ICRC_LEN, roce_icrc(v, f + l3, end - ROCE_ICRC_LEN - l3));
}

static void same_or_die(const roce_pkt *a, const roce_pkt *b)
{
	if (memcmp(&a->addr, &b->addr, sizeof(a->addr)) || a->bth.opcode != b->bth.opcode || a->bth.se != b->bth.se ||
	    a->bth.mig != b->bth.mig || a->bth.pkey != b->bth.pkey || a->bth.fecn != b->bth.fecn ||
	    a->bth.becn != b->bth.becn || a->bth.dest_qp != b->bth.dest_qp || a->bth.ack_req != b->bth.ack_req ||
	    a->bth.psn != b->bth.psn || a->has_reth != b->has_reth || a->has_aeth != b->has_aeth ||
	    a->has_imm != b->has_imm || memcmp(&a->reth, &b->reth, sizeof(a->reth)) ||
	    memcmp(&a->aeth, &b->aeth, sizeof(a->aeth)) || a->payload_len != b->payload_len ||
	    memcmp(a->payload, b->payload, a->payload_len))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > UINT32_MAX)
		return 0;
	uint8_t flags = data[0];
	uint32_t len = (uint32_t)(size - 1);
	uint8_t *f = malloc(len ? len : 1);
	if (!f)
		return 0;
	memcpy(f, data + 1, len);
	fix_up(f, len, flags);
	roce_pkt pkt;
	smcr_decode_err err;
	memset(&err, 0, sizeof(err));
	int rc = roce_parse(f, len, &pkt, &err);
	char text[256];
	if (rc != SMCR_ERR_OK) {
		smcr_decode_err_format(&err, text, sizeof(text));
		free(f);
		return 0;
	}
	if (pkt.payload < f || pkt.payload + pkt.payload_len > f + len)
		abort();
	if (pkt.payload_len + 200 < SIM_FRAME_CAPACITY - SIM_FRAME_HEADROOM) {
		/* built again: the builder writes a zero immediate and derives the pad */
		sim_frame_pool *pool = sim_frame_pool_new();
		roce_seg seg = { pkt.payload, pkt.payload_len };
		sim_frame *g = roce_build(pool, &pkt.addr, &pkt.bth, &pkt.reth, &pkt.aeth, &seg, 1);
		roce_pkt again;
		if (roce_parse(g->data, g->len, &again, &err) != SMCR_ERR_OK)
			abort();
		pkt.imm = 0;
		same_or_die(&pkt, &again);
		sim_frame_free(g);
		sim_frame_pool_free(pool);
	}
	free(f);
	return 0;
}
