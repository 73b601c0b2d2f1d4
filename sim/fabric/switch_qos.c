/* Switch congestion features: shared buffer with dynamic thresholds, strict-priority
 * egress queues paced by the egress wire, PFC (802.1Qbb) and RED/ECN marking. The model
 * is described in switch.h and docs/congestion.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/engine/oom.h"
#include "sim/fabric/hop_int.h"
#include "sim/fabric/switch_int.h"
#include "sim/fabric/wire.h"

/* meta of a queued frame: ingress port << 4 | in-headroom << 3 | priority */
#define META_HEADROOM 8u

void sim_switch_qos_default(sim_switch_qos *q)
{
	memset(q, 0, sizeof(*q));
	q->alpha = (sim_ratio){ 1, 1 };
	sim_prio_map_default(&q->prio_map);
	q->xon_bytes = 2048;
	q->headroom_bytes = 0;
	q->pause_quanta = 0xFFFF;
	q->ecn_mask = 0xFF;
	q->kmin_bytes = 5 * 1024; /* DCQCN paper, 40 Gb/s: Kmin 5 KB, Kmax 200 KB, Pmax 1 % */
	q->kmax_bytes = 200 * 1024;
	q->pmax = (sim_ratio){ 1, 100 };
}

unsigned sim_depth_bucket(uint64_t bytes)
{
	if (bytes < 4)
		return (unsigned)bytes;
	unsigned k = 63u - (unsigned)__builtin_clzll(bytes);
	unsigned sub = (unsigned)(bytes >> (k - 2)) & 3u;
	unsigned b = 4u * (k - 1u) + sub;
	return b < 127 ? b : 127;
}

uint64_t sim_depth_bucket_upper(unsigned b)
{
	if (b < 4)
		return b + 1u;
	unsigned k = b / 4u + 1u, sub = b % 4u;
	return (uint64_t)(5u + sub) << (k - 2u);
}

uint64_t sim_depth_percentile(const uint64_t hist[128], unsigned pct)
{
	uint64_t total = 0;
	for (unsigned b = 0; b < 128; b++)
		total += hist[b];
	if (!total)
		return 0;
	uint64_t want = (total * pct + 99u) / 100u, seen = 0;
	for (unsigned b = 0; b < 128; b++) {
		seen += hist[b];
		if (seen >= want && hist[b])
			return sim_depth_bucket_upper(b) - 1u;
	}
	return sim_depth_bucket_upper(127) - 1u;
}

static sim_engine *eng_of(const sim_switch *sw) { return sim_fabric_engine(sw->fab); }

static uint64_t port_bps(const sw_port *p)
{
	const sim_plug *peer = p->plug.peer;
	return peer && peer->kind == SIM_PLUG_WIRE_END ? sim_wire_end_params(peer)->bandwidth_bps : 0;
}

static sim_time wire_idle_at(const sw_port *p, sim_time now)
{
	const sim_plug *peer = p->plug.peer;
	if (!peer || peer->kind != SIM_PLUG_WIRE_END)
		return now;
	sim_time t = sim_wire_end_tx_idle_at(peer);
	return t > now ? t : now;
}

static uint64_t ratio_of(sim_ratio r, uint64_t x)
{
	return (uint64_t)((unsigned __int128)x * r.num / (r.den ? r.den : 1));
}

static uint64_t shared_free(const sim_switch *sw)
{
	return sw->shared_used < sw->shared_size ? sw->shared_size - sw->shared_used : 0;
}

static uint64_t xoff_threshold(const sim_switch *sw)
{
	return sw->qos->xoff_bytes ? sw->qos->xoff_bytes : ratio_of(sw->qos->alpha, shared_free(sw));
}

static void port_mac(const sim_switch *sw, const sw_port *p, uint8_t mac[6])
{
	mac[0] = 0x02;
	mac[1] = 0x53; /* "SW" */
	mac[2] = 0x57;
	mac[3] = (uint8_t)(sw->id >> 8);
	mac[4] = (uint8_t)sw->id;
	mac[5] = (uint8_t)p->idx;
}

/* Send a PFC frame on port p: quanta q for every priority in mask. It bypasses the egress
 * queues (MAC control goes first) and waits only for the wire's current frame. */
static void pfc_send(sim_switch *sw, sw_port *p, uint8_t mask, uint16_t q)
{
	port_qos *pq = &sw->pq[p->idx];
	uint8_t mac[6];
	uint16_t quanta[SIM_PRIOS];
	for (unsigned i = 0; i < SIM_PRIOS; i++)
		quanta[i] = q;
	port_mac(sw, p, mac);
	sim_frame *f = sim_pfc_build(sim_fabric_frames(sw->fab), mac, mask, quanta);
	sim_time now = sim_now(eng_of(sw));
	if (q) {
		pq->st.pause_tx++;
		/* refresh at half the pause, so a still-congested port never lets it lapse */
		sim_time half = sim_pause_quanta_ns(q, port_bps(p)) / 2u;
		sim_event_schedule(eng_of(sw), &pq->refresh_ev, now + (half ? half : 1u));
	} else {
		pq->st.resume_tx++;
	}
	sim_plug_send(&p->plug, f, now);
}

static void refresh_fire(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	sw_port *p = ev->ctx;
	sim_switch *sw = p->sw;
	port_qos *pq = &sw->pq[p->idx];
	uint8_t mask = 0;
	for (unsigned i = 0; i < SIM_PRIOS; i++)
		if (pq->xoff_sent[i])
			mask |= (uint8_t)(1u << i);
	if (mask)
		pfc_send(sw, p, mask, sw->qos->pause_quanta);
}

/* After bytes left the buffer: resume senders whose ingress occupancy fell to XON. */
static void check_xon(sim_switch *sw, sw_port *in, unsigned prio)
{
	port_qos *pq = &sw->pq[in->idx];
	if (pq->xoff_sent[prio] && pq->headroom_used[prio] == 0 && pq->ingress_bytes[prio] <= sw->qos->xon_bytes) {
		pq->xoff_sent[prio] = false;
		bool any = false;
		for (unsigned i = 0; i < SIM_PRIOS; i++)
			any |= pq->xoff_sent[i];
		if (!any)
			sim_event_cancel(eng_of(sw), &pq->refresh_ev);
		pfc_send(sw, in, (uint8_t)(1u << prio), 0);
	}
}

static bool red_mark(sim_switch *sw, port_qos *pq, uint64_t q)
{
	const sim_switch_qos *c = sw->qos;
	if (q <= c->kmin_bytes)
		return false;
	if (q > c->kmax_bytes)
		return true;
	/* p = pmax * (q - kmin) / (kmax - kmin) as one integer ratio */
	sim_ratio p = { c->pmax.num * (q - c->kmin_bytes), c->pmax.den * (c->kmax_bytes - c->kmin_bytes) };
	return sim_rng_chance(&pq->ecn_rng, p);
}

static void release(sim_switch *sw, sim_frame *f, port_qos *out_q, unsigned prio)
{
	uint32_t in_idx = f->meta >> 4;
	port_qos *iq = &sw->pq[in_idx];
	out_q->egress_bytes[prio] -= f->len;
	out_q->st.depth_bytes -= f->len;
	if (f->meta & META_HEADROOM) {
		iq->headroom_used[prio] -= f->len;
		sw->headroom_used -= f->len;
	} else {
		iq->ingress_bytes[prio] -= f->len;
		sw->shared_used -= f->len;
	}
	if ((sw->qos->pfc_mask >> prio) & 1u)
		check_xon(sw, &sw->ports[in_idx], prio);
}

/* The egress scheduler: one frame to the wire whenever its transmitter is idle. */
static void port_tx(sim_engine *eng, sim_event *ev)
{
	sw_port *p = ev->ctx;
	sim_switch *sw = p->sw;
	port_qos *pq = &sw->pq[p->idx];
	sim_time now = sim_now(eng);
	sim_time idle = wire_idle_at(p, now);
	if (idle > now) {
		sim_event_schedule(eng, ev, idle);
		return;
	}
	sim_time next = SIM_TIME_NEVER;
	for (unsigned i = SIM_PRIOS; i-- > 0;) {
		sim_frame *f = pq->qhead[i];
		if (!f)
			continue;
		sim_time ready = f->meta64 > pq->paused_until[i] ? f->meta64 : pq->paused_until[i];
		if (ready > now) {
			if (ready < next)
				next = ready;
			continue;
		}
		pq->qhead[i] = f->next;
		if (!pq->qhead[i])
			pq->qtail[i] = NULL;
		f->next = NULL;
		uint64_t q_after = pq->egress_bytes[i] - f->len;
		release(sw, f, pq, i);
		pq->st.dequeued++;
		if (sw->qos->ecn && ((sw->qos->ecn_mask >> i) & 1u) && sim_frame_ecn(f->data, f->len) != SIM_ECN_NOT_ECT &&
		    red_mark(sw, pq, q_after) && sim_frame_mark_ce(f))
			pq->st.ecn_marks++;
		sim_plug_send(&p->plug, f, now);
		for (unsigned j = 0; j < SIM_PRIOS; j++)
			if (pq->qhead[j]) {
				sim_event_schedule(eng, ev, wire_idle_at(p, now));
				return;
			}
		return;
	}
	if (next != SIM_TIME_NEVER)
		sim_event_schedule(eng, ev, next);
}

static void kick(sim_switch *sw, sw_port *p, sim_time at)
{
	port_qos *pq = &sw->pq[p->idx];
	sim_time now = sim_now(eng_of(sw));
	if (at < now)
		at = now;
	if (!sim_event_pending(&pq->tx_ev) || pq->tx_ev.at > at)
		sim_event_schedule(eng_of(sw), &pq->tx_ev, at);
}

void sim_switch_qos_enqueue(sim_switch *sw, sw_port *in, sw_port *out, sim_frame *f, unsigned prio, sim_time ready)
{
	const sim_switch_qos *c = sw->qos;
	port_qos *iq = &sw->pq[in->idx], *oq = &sw->pq[out->idx];
	uint64_t len = f->len;
	bool headroom = false;
	if ((c->pfc_mask >> prio) & 1u) {
		uint64_t thr = xoff_threshold(sw);
		bool fits = iq->ingress_bytes[prio] + len <= thr && sw->shared_used + len <= sw->shared_size;
		if (!fits) {
			if (iq->headroom_used[prio] + len > c->headroom_bytes) {
				iq->st.headroom_drops++;
				sim_frame_free(f);
				return;
			}
			headroom = true;
		}
		if (!iq->xoff_sent[prio] && (headroom || iq->ingress_bytes[prio] + len > thr)) {
			iq->xoff_sent[prio] = true;
			pfc_send(sw, in, (uint8_t)(1u << prio), c->pause_quanta);
		}
	} else if (sw->shared_used + len > sw->shared_size ||
	           oq->egress_bytes[prio] + len > ratio_of(c->alpha, shared_free(sw))) {
		oq->st.drops++;
		sim_frame_free(f);
		return;
	}
	if (headroom) {
		iq->headroom_used[prio] += len;
		sw->headroom_used += len;
	} else {
		iq->ingress_bytes[prio] += len;
		sw->shared_used += len;
	}
	if (sw->shared_used + sw->headroom_used > sw->used_peak)
		sw->used_peak = sw->shared_used + sw->headroom_used;
	oq->st.depth_hist[sim_depth_bucket(oq->st.depth_bytes)]++;
	oq->egress_bytes[prio] += len;
	oq->st.depth_bytes += len;
	if (oq->st.depth_bytes > oq->st.max_depth_bytes)
		oq->st.max_depth_bytes = oq->st.depth_bytes;
	oq->st.enqueued++;
	f->meta = in->idx << 4 | (headroom ? META_HEADROOM : 0u) | prio;
	f->meta64 = ready;
	f->next = NULL;
	if (oq->qtail[prio])
		oq->qtail[prio]->next = f;
	else
		oq->qhead[prio] = f;
	oq->qtail[prio] = f;
	kick(sw, out, ready);
}

void sim_switch_qos_mac_control(sim_switch *sw, sw_port *in, sim_frame *f, sim_time at)
{
	port_qos *pq = &sw->pq[in->idx];
	sim_pause_frame pf;
	if (sim_pause_parse(f->data, f->len, &pf)) {
		uint64_t bps = port_bps(in);
		bool pause = false;
		for (unsigned i = 0; i < SIM_PRIOS; i++) {
			if (!((pf.class_enable >> i) & 1u))
				continue;
			sim_time until = at + sim_pause_quanta_ns(pf.quanta[i], bps);
			sim_time old = pq->paused_until[i];
			/* time paused, as projected now; an early XON takes back what it cuts short */
			if (old > at)
				pq->st.paused_ns = pq->st.paused_ns + until - old;
			else
				pq->st.paused_ns += until - at;
			pq->paused_until[i] = until;
			pause |= pf.quanta[i] != 0;
		}
		if (pause)
			pq->st.pause_rx++;
		else
			pq->st.resume_rx++;
		for (unsigned i = 0; i < SIM_PRIOS; i++)
			if (pq->qhead[i]) {
				kick(sw, in, at);
				break;
			}
	}
	sim_frame_free(f);
}

int sim_switch_set_qos(sim_switch *sw, const sim_switch_qos *q)
{
	uint64_t lossless = (uint64_t)__builtin_popcount(q->pfc_mask);
	uint64_t reserved = q->headroom_bytes * lossless * sw->p.nports;
	if (!q->buffer_bytes || reserved >= q->buffer_bytes || sw->qos)
		return SMCR_ERR_INVAL;
	sim_hops_abort(sim_fabric_hops(sw->fab), sw);
	sw->qos = sim_xcalloc(1, sizeof(*sw->qos), "a switch buffer");
	*sw->qos = *q;
	sw->shared_size = q->buffer_bytes - reserved;
	sw->pq = sim_xcalloc(sw->p.nports, sizeof(*sw->pq), "a switch buffer");
	uint32_t k_tx = sim_kind("switch.egress"), k_refresh = sim_kind("switch.pfc_refresh");
	for (uint32_t i = 0; i < sw->p.nports; i++) {
		sw_port *p = &sw->ports[i];
		sim_event_init(&sw->pq[i].tx_ev, k_tx, p->plug.id, port_tx, p);
		sim_event_init(&sw->pq[i].refresh_ev, k_refresh, p->plug.id, refresh_fire, p);
		sim_engine_rng(eng_of(sw), "fabric.switch.ecn", sw->id * 64u + i, &sw->pq[i].ecn_rng);
	}
	return SMCR_ERR_OK;
}

void sim_switch_qos_free(sim_switch *sw)
{
	if (!sw->qos)
		return;
	for (uint32_t i = 0; i < sw->p.nports; i++) {
		sim_event_cancel(eng_of(sw), &sw->pq[i].tx_ev);
		sim_event_cancel(eng_of(sw), &sw->pq[i].refresh_ev);
		for (unsigned j = 0; j < SIM_PRIOS; j++)
			while (sw->pq[i].qhead[j]) {
				sim_frame *f = sw->pq[i].qhead[j];
				sw->pq[i].qhead[j] = f->next;
				sim_frame_free(f);
			}
	}
	free(sw->pq);
	free(sw->qos);
	sw->pq = NULL;
	sw->qos = NULL;
}

bool sim_switch_has_qos(const sim_switch *sw) { return sw->qos != NULL; }
uint32_t sim_switch_nports(const sim_switch *sw) { return sw->p.nports; }
uint64_t sim_switch_buffer_used(const sim_switch *sw) { return sw->shared_used + sw->headroom_used; }
uint64_t sim_switch_buffer_peak(const sim_switch *sw) { return sw->used_peak; }

bool sim_switch_port_qos_stats_get(const sim_switch *sw, uint32_t port, sim_switch_port_qos_stats *out)
{
	if (!sw->qos || port >= sw->p.nports)
		return false;
	const port_qos *pq = &sw->pq[port];
	*out = pq->st;
	/* the projection of a pause still running counts only up to now */
	sim_time now = sim_now(eng_of(sw));
	for (unsigned i = 0; i < SIM_PRIOS; i++)
		if (pq->paused_until[i] > now)
			out->paused_ns -= pq->paused_until[i] - now;
	return true;
}
