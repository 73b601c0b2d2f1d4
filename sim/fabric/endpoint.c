/* Endpoints: a NIC's plug, with delivery through engine events. */
#include "sim/fabric/endpoint.h"

#include <string.h>

#include "sim/fabric/fabric.h"
#include "sim/fabric/wire.h"

static uint32_t kind_deliver;

static inline void rx_frame(sim_endpoint *ep, sim_frame *f)
{
	ep->stats.rx_frames++;
	ep->stats.rx_bytes += f->len;
	if (__builtin_expect(f->buf->deferred, 0) && !ep->takes_deferred)
		sim_frame_settle(f);
	ep->rx(ep, f);
}

static void deliver_pending(sim_engine *eng, sim_event *ev)
{
	sim_endpoint *ep = ev->ctx;
	sim_time now = sim_now(eng);
	while (ep->pending_head && ep->pending_head->meta64 <= now) {
		sim_frame *f = ep->pending_head;
		ep->pending_head = f->next;
		if (!ep->pending_head)
			ep->pending_tail = NULL;
		f->next = NULL;
		rx_frame(ep, f);
	}
	if (ep->pending_head)
		sim_event_schedule(eng, &ep->deliver_ev, ep->pending_head->meta64);
}

/* A PAUSE/PFC frame from the link partner: MAC control is consumed by the MAC. */
static void take_pause(sim_endpoint *ep, sim_frame *f, sim_time at)
{
	sim_pause_frame pf;
	ep->stats.rx_pause_frames++;
	if (sim_pause_parse(f->data, f->len, &pf)) {
		uint64_t bps = sim_endpoint_link_bps(ep);
		for (unsigned p = 0; p < SIM_PRIOS; p++) {
			if (!((pf.class_enable >> p) & 1u))
				continue;
			sim_time until = at + sim_pause_quanta_ns(pf.quanta[p], bps);
			ep->paused_until[p] = until;
			if (ep->pause)
				ep->pause(ep->pause_ctx, p, pf.quanta[p], until, at);
		}
	}
	sim_frame_free(f);
}

static void endpoint_receive(sim_plug *self, sim_frame *f, sim_time at)
{
	sim_endpoint *ep = self->owner;
	sim_engine *eng = sim_fabric_engine(self->fab);
	if (f->len >= SIM_ETH_HLEN && f->data[12] == 0x88 && f->data[13] == 0x08) {
		take_pause(ep, f, at);
		return;
	}
	if (!ep->rx) {
		sim_frame_free(f);
		return;
	}
	/* A wire delivers from its own arrival event: safe to call rx now. Anything else (a
	 * switch port) may be inside some sender's call chain, so go through an event. */
	if (self->peer && self->peer->kind == SIM_PLUG_WIRE_END && at <= sim_now(eng)) {
		rx_frame(ep, f);
		return;
	}
	f->meta64 = at;
	f->next = NULL;
	if (!ep->pending_tail) {
		ep->pending_head = ep->pending_tail = f;
	} else if (ep->pending_tail->meta64 <= at) {
		ep->pending_tail->next = f;
		ep->pending_tail = f;
	} else {
		/* earlier than the tail: keep the list in (time, arrival) order */
		sim_frame **pp = &ep->pending_head;
		while ((*pp)->meta64 <= at)
			pp = &(*pp)->next;
		f->next = *pp;
		*pp = f;
	}
	if (ep->pending_head == f || !sim_event_pending(&ep->deliver_ev))
		sim_event_schedule(eng, &ep->deliver_ev, ep->pending_head->meta64);
}

static void endpoint_carrier_changed(sim_plug *self)
{
	sim_endpoint *ep = self->owner;
	bool c = sim_plug_carrier(self);
	if (c == ep->carrier)
		return;
	ep->carrier = c;
	if (ep->link)
		ep->link(ep, c);
}

void sim_endpoint_init(sim_endpoint *ep, sim_fabric *fab, const char *name, const uint8_t *mac,
                       sim_endpoint_rx_fn rx, sim_endpoint_link_fn link, void *ctx)
{
	memset(ep, 0, sizeof(*ep));
	if (!kind_deliver)
		kind_deliver = sim_kind("endpoint.deliver");
	sim_plug_init(&ep->plug, fab, SIM_PLUG_ENDPOINT, name, ep, endpoint_receive, endpoint_carrier_changed);
	if (mac)
		memcpy(ep->mac, mac, SIM_ETH_ALEN);
	ep->rx = rx;
	ep->link = link;
	ep->ctx = ctx;
	ep->admin_up = true;
	sim_event_init(&ep->deliver_ev, kind_deliver, ep->plug.id, deliver_pending, ep);
}

void sim_endpoint_destroy(sim_endpoint *ep)
{
	ep->link = NULL;
	sim_plug_disconnect(&ep->plug);
	sim_event_cancel(sim_fabric_engine(ep->plug.fab), &ep->deliver_ev);
	while (ep->pending_head) {
		sim_frame *f = ep->pending_head;
		ep->pending_head = f->next;
		sim_frame_free(f);
	}
	ep->pending_tail = NULL;
}

int sim_endpoint_attach(sim_endpoint *ep, sim_plug *where)
{
	return sim_plug_connect(&ep->plug, where);
}

void sim_endpoint_detach(sim_endpoint *ep) { sim_plug_disconnect(&ep->plug); }

bool sim_endpoint_send(sim_endpoint *ep, sim_frame *f)
{
	return sim_endpoint_send_at(ep, f, sim_now(sim_fabric_engine(ep->plug.fab)));
}

bool sim_endpoint_send_at(sim_endpoint *ep, sim_frame *f, sim_time at)
{
	uint32_t len = f->len;
	if (!sim_plug_send(&ep->plug, f, at)) {
		ep->stats.tx_dropped++;
		return false;
	}
	ep->stats.tx_frames++;
	ep->stats.tx_bytes += len;
	return true;
}

bool sim_endpoint_carrier(const sim_endpoint *ep) { return sim_plug_carrier(&ep->plug); }

void sim_endpoint_set_admin(sim_endpoint *ep, bool up)
{
	ep->admin_up = up;
	sim_plug_set_up(&ep->plug, up);
}

sim_time sim_endpoint_tx_idle_at(const sim_endpoint *ep)
{
	sim_time now = sim_now(sim_fabric_engine(ep->plug.fab));
	const sim_plug *peer = ep->plug.peer;
	if (peer && peer->kind == SIM_PLUG_WIRE_END) {
		sim_time t = sim_wire_end_tx_idle_at(peer);
		return t > now ? t : now;
	}
	return now;
}

void sim_endpoint_set_rx_prefetch(sim_endpoint *ep, sim_endpoint_prefetch_fn fn) { ep->rx_prefetch = fn; }
void sim_endpoint_takes_deferred(sim_endpoint *ep) { ep->takes_deferred = true; }

void sim_endpoint_set_pause_handler(sim_endpoint *ep, sim_pause_fn fn, void *ctx)
{
	ep->pause = fn;
	ep->pause_ctx = ctx;
}

sim_time sim_endpoint_paused_until(const sim_endpoint *ep, unsigned prio)
{
	return prio < SIM_PRIOS ? ep->paused_until[prio] : 0;
}

uint64_t sim_endpoint_link_bps(const sim_endpoint *ep)
{
	const sim_plug *peer = ep->plug.peer;
	if (peer && peer->kind == SIM_PLUG_WIRE_END)
		return sim_wire_end_params(peer)->bandwidth_bps;
	return 0;
}
