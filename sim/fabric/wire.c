/* Wires: FIFO serialization, propagation, MTU, faults. */
#include "sim/fabric/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/oom.h"
#include "sim/fabric/eth_header.h"

typedef struct wire_end {
	sim_plug plug;
	sim_wire *w;
	unsigned side;
} wire_end;

typedef struct wire_dir {
	uint64_t tx_free_ps; /* picoseconds: exact serialization without rounding drift */
	uint32_t gen;        /* bumped when the wire goes down: frames in flight are lost */
	/* Frames in flight in arrival order, only the head posted (sim_post_seq): a flood
	 * of an ARP storm puts thousands on every wire at once, and a queue entry each was
	 * most of a 10,000-stack run's memory. meta64 is a frame's arrival time, meta the
	 * difference of its order (seq) to the previous one's. Frames that cannot join (a
	 * reordered one arriving before the tail) are posted one by one, gen in meta. */
	sim_frame *fifo_head, *fifo_tail;
	uint64_t head_seq, tail_seq;
	size_t fifo_len;
	size_t doomed; /* the first this many of the FIFO left before the wire went down */
	sim_rng loss, dup, reorder, corrupt;
	sim_wire_stats st;
} wire_dir;

struct sim_wire {
	sim_fabric *fab;
	uint64_t id;
	char name[48];
	sim_wire_params p;
	bool up;
	uint32_t kind_arrive;
	wire_end ends[2];
	wire_dir dir[2]; /* dir[s]: frames entering at end s */
};

void sim_wire_params_default(sim_wire_params *p)
{
	memset(p, 0, sizeof(*p));
	p->latency = 500;
	p->bandwidth_bps = 25000000000ULL;
	p->mtu = 1500;
	p->loss = p->duplicate = p->reorder = p->corrupt = (sim_ratio){ 0, 1 };
	p->reorder_delay = 10 * SIM_US;
}

static bool happens(sim_rng *r, sim_ratio p) { return p.num && sim_rng_chance(r, p); }

static void wire_arrive(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	wire_end *exit = ev->ctx;
	sim_frame *f = (sim_frame *)(uintptr_t)ev->arg;
	sim_wire *w = exit->w;
	wire_dir *d = &w->dir[1 - exit->side];
	if (!w->up || f->meta != d->gen) {
		d->st.down_drops++;
		sim_frame_free(f);
		return;
	}
	d->st.delivered++;
	sim_plug_send(&exit->plug, f, ev->at);
}

static void fifo_arrive(sim_engine *eng, sim_event *ev)
{
	wire_end *exit = ev->ctx;
	sim_wire *w = exit->w;
	wire_dir *d = &w->dir[1 - exit->side];
	sim_frame *f = d->fifo_head;
	d->fifo_head = f->next;
	f->next = NULL;
	d->fifo_len--;
	if (d->fifo_head) {
		d->head_seq += d->fifo_head->meta;
		sim_post_seq(eng, d->fifo_head->meta64, d->head_seq, w->kind_arrive, w->id, fifo_arrive, exit, 0);
	} else {
		d->fifo_tail = NULL;
	}
	if (d->doomed) {
		d->doomed--;
		d->st.down_drops++;
		sim_frame_free(f);
		return;
	}
	if (!w->up) {
		d->st.down_drops++;
		sim_frame_free(f);
		return;
	}
	d->st.delivered++;
	sim_plug_send(&exit->plug, f, ev->at);
}

static void post_arrival(sim_wire *w, wire_end *exit, sim_frame *f, sim_time at)
{
	sim_engine *eng = sim_fabric_engine(w->fab);
	wire_dir *d = &w->dir[1 - exit->side];
	uint64_t seq = sim_engine_take_seq(eng);
	if (at < sim_now(eng))
		at = sim_now(eng);
	f->next = NULL;
	f->meta64 = at;
	if (!d->fifo_head) {
		d->fifo_head = d->fifo_tail = f;
		d->head_seq = d->tail_seq = seq;
		d->fifo_len = 1;
		sim_post_seq(eng, at, seq, w->kind_arrive, w->id, fifo_arrive, exit, 0);
		return;
	}
	if (at >= d->fifo_tail->meta64 && seq - d->tail_seq <= UINT32_MAX) {
		f->meta = (uint32_t)(seq - d->tail_seq);
		d->fifo_tail->next = f;
		d->fifo_tail = f;
		d->tail_seq = seq;
		d->fifo_len++;
		return;
	}
	f->meta = d->gen;
	sim_post_seq(eng, at, seq, w->kind_arrive, w->id, wire_arrive, exit, (uint64_t)(uintptr_t)f);
}

static void wire_end_receive(sim_plug *self, sim_frame *f, sim_time at)
{
	wire_end *in = self->owner;
	sim_wire *w = in->w;
	wire_dir *d = &w->dir[in->side];
	const sim_wire_params *p = &w->p;
	d->st.frames_in++;
	d->st.bytes_in += f->len;
	if (!w->up) {
		d->st.down_drops++;
		sim_frame_free(f);
		return;
	}
	sim_eth_hdr eh;
	if (!sim_eth_parse(f->data, f->len, &eh)) {
		d->st.runts++;
		sim_frame_free(f);
		return;
	}
	uint32_t l2_payload = f->len - SIM_ETH_HLEN - (eh.tagged ? SIM_VLAN_HLEN : 0u);
	if (l2_payload > p->mtu) {
		d->st.mtu_drops++;
		sim_frame_free(f);
		return;
	}

	uint64_t ready_ps = at * 1000u;
	uint64_t start_ps = d->tx_free_ps > ready_ps ? d->tx_free_ps : ready_ps;
	if (p->bandwidth_bps) {
		if (p->queue_limit) {
			unsigned __int128 backlog = (unsigned __int128)(start_ps - ready_ps) * p->bandwidth_bps / 8000000000000ULL;
			if (backlog + f->len > p->queue_limit) {
				d->st.queue_drops++;
				sim_frame_free(f);
				return;
			}
		}
		uint64_t wire_bytes = (f->len < SIM_ETH_MIN_FRAME ? SIM_ETH_MIN_FRAME : f->len) + SIM_ETH_WIRE_OVERHEAD;
		uint64_t ser_ps = (wire_bytes * 8u * 1000000000000ULL + p->bandwidth_bps - 1) / p->bandwidth_bps;
		d->tx_free_ps = start_ps + ser_ps;
	} else {
		d->tx_free_ps = start_ps;
	}
	sim_time arrive = (d->tx_free_ps + 999u) / 1000u + p->latency;

	if (happens(&d->loss, p->loss)) {
		d->st.lost++;
		sim_frame_free(f);
		return;
	}
	if (happens(&d->corrupt, p->corrupt)) {
		uint64_t bit = sim_rng_below(&d->corrupt, (uint64_t)f->len * 8u);
		sim_frame_writable(f)[bit >> 3] ^= (uint8_t)(1u << (bit & 7u));
		d->st.corrupted++;
	}
	if (happens(&d->reorder, p->reorder) && p->reorder_delay) {
		arrive += sim_rng_range(&d->reorder, 1, p->reorder_delay);
		d->st.reordered++;
	}
	wire_end *exit = &w->ends[1 - in->side];
	if (happens(&d->dup, p->duplicate)) {
		sim_frame *c = sim_frame_clone(f);
		d->st.duplicated++;
		post_arrival(w, exit, f, arrive);
		post_arrival(w, exit, c, arrive);
		return;
	}
	post_arrival(w, exit, f, arrive);
}

/* Each end is up when the wire is up and the device at the far end is up: that is the
 * carrier a device sees through the wire. */
static void wire_update(sim_wire *w)
{
	for (unsigned s = 0; s < 2; s++) {
		const sim_plug *far_dev = w->ends[1 - s].plug.peer;
		sim_plug_set_up(&w->ends[s].plug, w->up && far_dev && far_dev->up);
	}
}

static void wire_end_carrier_changed(sim_plug *self)
{
	wire_end *e = self->owner;
	wire_update(e->w);
}

static void wire_free(void *obj) { free(obj); }

sim_wire *sim_wire_new(sim_fabric *fab, const char *name, const sim_wire_params *p)
{
	sim_wire *w = sim_xcalloc(1, sizeof(*w), "wires");
	w->fab = fab;
	w->id = sim_fabric_new_id(fab);
	snprintf(w->name, sizeof(w->name), "%s", name);
	if (p)
		w->p = *p;
	else
		sim_wire_params_default(&w->p);
	w->up = true;
	w->kind_arrive = sim_kind("wire.arrive");
	const sim_engine *eng = sim_fabric_engine(fab);
	for (unsigned s = 0; s < 2; s++) {
		char n[48];
		snprintf(n, sizeof(n), "%.40s.%u", w->name, s);
		w->ends[s].w = w;
		w->ends[s].side = s;
		sim_plug_init(&w->ends[s].plug, fab, SIM_PLUG_WIRE_END, n, &w->ends[s], wire_end_receive,
		              wire_end_carrier_changed);
		w->ends[s].plug.up = false; /* no device at the far end yet */
		uint64_t idx = 2 * w->id + s;
		sim_engine_rng(eng, "fabric.wire.loss", idx, &w->dir[s].loss);
		sim_engine_rng(eng, "fabric.wire.dup", idx, &w->dir[s].dup);
		sim_engine_rng(eng, "fabric.wire.reorder", idx, &w->dir[s].reorder);
		sim_engine_rng(eng, "fabric.wire.corrupt", idx, &w->dir[s].corrupt);
	}
	sim_fabric_adopt(fab, w, wire_free);
	return w;
}

sim_plug *sim_wire_end(sim_wire *w, unsigned side) { return side < 2 ? &w->ends[side].plug : NULL; }
const char *sim_wire_name(const sim_wire *w) { return w->name; }
void sim_wire_set_params(sim_wire *w, const sim_wire_params *p) { w->p = *p; }
const sim_wire_params *sim_wire_params_get(const sim_wire *w) { return &w->p; }

void sim_wire_set_up(sim_wire *w, bool up)
{
	if (w->up == up)
		return;
	w->up = up;
	if (!up) {
		sim_time now = sim_now(sim_fabric_engine(w->fab));
		for (unsigned s = 0; s < 2; s++) {
			w->dir[s].gen++;
			w->dir[s].doomed = w->dir[s].fifo_len;
			w->dir[s].tx_free_ps = now * 1000u; /* the queue is gone */
		}
	}
	wire_update(w);
}

const sim_wire_stats *sim_wire_stats_get(const sim_wire *w, unsigned side)
{
	return &w->dir[side & 1].st;
}

sim_time sim_wire_end_tx_idle_at(const sim_plug *end)
{
	const wire_end *e = end->owner;
	return (e->w->dir[e->side].tx_free_ps + 999u) / 1000u;
}

const sim_wire_params *sim_wire_end_params(const sim_plug *end)
{
	const wire_end *e = end->owner;
	return &e->w->p;
}
