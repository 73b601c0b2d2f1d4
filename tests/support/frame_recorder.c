/* Test helper: a recording endpoint. */
#include "tests/support/frame_recorder.h"

#include <string.h>

#include "model/byteorder.h"
#include "sim/fabric/eth_header.h"
#include "sim/engine/rng.h"

static void rec_rx(sim_endpoint *ep, sim_frame *f)
{
	frame_recorder *r = ep->ctx;
	sim_time now = sim_now(sim_fabric_engine(ep->plug.fab));
	if (r->n < REC_KEEP) {
		rec_frame *g = &r->got[r->n];
		g->at = now;
		g->len = f->len;
		memcpy(g->data, f->data, f->len < sizeof(g->data) ? f->len : sizeof(g->data));
	}
	r->n++;
	uint64_t h = sim_mix64(r->hash ^ now);
	for (uint32_t i = 0; i < f->len; i++)
		h = (h ^ f->data[i]) * 0x100000001b3ULL;
	r->hash = h;
	sim_frame_free(f);
}

static void rec_link(sim_endpoint *ep, bool carrier)
{
	frame_recorder *r = ep->ctx;
	r->carrier_changes++;
	r->carrier = carrier;
}

void rec_init(frame_recorder *r, sim_fabric *fab, const char *name, const uint8_t mac[6])
{
	memset(r, 0, sizeof(*r));
	sim_endpoint_init(&r->ep, fab, name, mac, rec_rx, rec_link, r);
}

void rec_destroy(frame_recorder *r) { sim_endpoint_destroy(&r->ep); }

sim_frame *rec_make_frame(sim_fabric *fab, const uint8_t dst[6], const uint8_t src[6], uint16_t tci,
                          uint32_t payload, uint8_t fill, uint32_t seq)
{
	sim_frame *f = sim_frame_alloc_len(sim_fabric_frames(fab), (tci ? 18u : 14u) + payload);
	uint8_t *p = sim_frame_put(f, (tci ? 18u : 14u) + payload);
	p += sim_eth_write(p, dst, src, tci, 0x88B5 /* local experimental */);
	memset(p, fill, payload);
	if (payload >= 4)
		put_be32(p, seq);
	return f;
}

uint32_t rec_seq(const rec_frame *f)
{
	uint32_t off = get_be16(f->data + 12) == SIM_ETHERTYPE_VLAN ? 18 : 14;
	return get_be32(f->data + off);
}
