/* Wires: FIFO serialization, propagation, MTU, faults. */
#include "sim/fabric/wire.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/oom.h"
#include "sim/fabric/endpoint.h"
#include "sim/fabric/eth_header.h"
#include "sim/fabric/hop_int.h"

typedef struct wire_end {
	sim_plug plug;
	sim_wire *w;
	unsigned side;
} wire_end;

/* Frames in flight in arrival order, parked (sim_frame_ref: 16 bytes, not a handle) in
 * chunks of slots: an ARP storm puts thousands on every wire at once, and a queue entry
 * each was most of a 10,000-stack run's memory. A slot's ref.spare is the difference of
 * its order (sequence) to the previous slot's (SPARE_SEQ), and whether its frame crossed
 * the switch before this wire early (SPARE_HOP: the direction's oldest hop record is its). */
#define SPARE_SEQ 0x7FFFFFFFu
#define SPARE_HOP 0x80000000u
#define FIFO_SLOTS 21 /* a chunk is 512 bytes */

typedef struct fifo_slot {
	sim_frame_ref ref;
	sim_time at;
} fifo_slot;

typedef struct fifo_chunk {
	struct fifo_chunk *next;
	fifo_slot s[FIFO_SLOTS];
} fifo_chunk;

/* One direction: its frames enter at end `in`, whose plug it holds, and leave at `out`
 * (the other direction's). A broadcast is a frame sent into thousands of wires and an
 * arrival on each, every one on other memory, so a storm's cost is these structures'
 * cache misses: what an arrival reads is the first cache line (then the plug of the way
 * out); what sending reads is that line, the plug and the two lines after it (the wire's
 * parameters it needs are mirrored there). */
typedef struct wire_dir {
	/* the arrival side */
	fifo_chunk *head;   /* the FIFO's first chunk; the head slot is head->s[head_i] */
	uint32_t head_i;    /* in head */
	uint32_t fifo_len;  /* slots in the FIFO */
	uint64_t head_seq;  /* order of the head slot, which is posted (sim_post_seq) */
	uint32_t doomed;    /* the first this many of the FIFO left before the wire went down */
	uint32_t gen;       /* bumped when the wire goes down: frames posted alone are lost */
	uint64_t id;        /* the wire's, the arrivals' event entity */
	uint32_t n_alone;   /* frames of this direction sent back to an arrival event of their own (hops undone) */
	bool up;            /* the wire's, mirrored */
	bool has_hops;      /* hop_head != NULL: frames in the FIFO crossed the switch before it early */
	uint64_t delivered; /* st.delivered, kept here; copied into st when it is read */
	sim_plug *out;      /* the end the frames leave at */
	/* the end they enter at, then the sending side */
	wire_end in;
	uint32_t mtu;        /* w->p's, mirrored (sim_wire_set_params) */
	uint64_t tx_free_ps; /* picoseconds: exact serialization without rounding drift */
	fifo_chunk *tail;    /* the last chunk; the next slot is tail->s[tail_i] */
	uint64_t tail_seq;
	sim_time tail_at;
	sim_time latency; /* mirrored */
	sim_engine *eng;
	uint32_t tail_i;
	bool faults;                         /* any of loss, duplicate, reorder, corrupt (mirrored) */
	uint64_t bandwidth_bps, queue_limit; /* mirrored */
	uint64_t ps_per_byte;                /* a whole number of picoseconds per byte at this rate, else 0 */
	sim_wire_stats st;
	fifo_chunk *spare;    /* an emptied chunk kept for the next one needed */
	sim_huge_pool *chunks; /* where chunks come from: the fabric's, on huge pages */
	/* event-free hops (sim/fabric/hop_int.h): the records of the frames in the FIFO that
	 * crossed the switch before this wire early, oldest first (they own the FIFO's last
	 * slots, one each) */
	sim_hops *hops;
	hop_rec *hop_head, *hop_tail;
	sim_rng loss, dup, reorder, corrupt;
} __attribute__((aligned(64))) wire_dir;

struct sim_wire {
	wire_dir dir[2]; /* dir[s]: frames entering at end s, leaving at end 1 - s */
	uint64_t id;
	bool up;
	sim_fabric *fab;
	sim_wire_params p;
	char name[48];
};

/* End s of the wire (where frames of dir[s] enter and those of dir[1 - s] leave). */
static wire_end *end_of(sim_wire *w, unsigned s) { return &w->dir[s].in; }

/* The parameters a frame sent in reads, next to the rest of what it reads. */
static void mirror_params(sim_wire *w)
{
	const sim_wire_params *p = &w->p;
	for (unsigned s = 0; s < 2; s++) {
		wire_dir *d = &w->dir[s];
		d->mtu = p->mtu;
		d->latency = p->latency;
		d->bandwidth_bps = p->bandwidth_bps;
		d->queue_limit = p->queue_limit;
		d->faults = p->loss.num || p->duplicate.num || p->reorder.num || p->corrupt.num;
		/* 100, 25 or 10 Gb/s: a byte takes a whole number of picoseconds, so a frame's time is a
		 * multiplication (the same value as the division below, which the other rates need) */
		uint64_t ps8 = 8u * 1000000000000ULL;
		d->ps_per_byte = p->bandwidth_bps && ps8 % p->bandwidth_bps == 0 ? ps8 / p->bandwidth_bps : 0;
	}
}

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

/* A frame posted on its own (one that cannot join the FIFO): gen in its meta. */
static void wire_arrive(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	wire_dir *d = ev->ctx;
	sim_frame *f = (sim_frame *)(uintptr_t)ev->arg;
	if (!d->up || f->meta != d->gen) {
		d->st.down_drops++;
		sim_frame_free(f);
		return;
	}
	d->delivered++;
	sim_plug_send(d->out, f, ev->at);
}

static fifo_slot *fifo_push(wire_dir *d)
{
	if (!d->tail || d->tail_i == FIFO_SLOTS) {
		fifo_chunk *c = d->spare;
		if (c)
			d->spare = NULL;
		else
			c = sim_huge_pool_get(d->chunks);
		c->next = NULL;
		if (d->tail)
			d->tail->next = c;
		else
			d->head = c;
		d->tail = c;
		d->tail_i = 0;
	}
	d->fifo_len++;
	return &d->tail->s[d->tail_i++];
}

/* Take the last slot back (undoing a hop); the FIFO is not empty. A FIFO that is not empty
 * keeps its last slot in its tail chunk (as pushing does), so one that becomes empty has
 * head and tail in one chunk again. */
static fifo_slot fifo_unpush(wire_dir *d)
{
	fifo_slot s = d->tail->s[--d->tail_i];
	if (--d->fifo_len == 0) {
		d->head_i = d->tail_i = 0;
		return s;
	}
	if (d->tail_i == 0) {
		/* the tail chunk is empty: back to the one before it (rare: walked to) */
		fifo_chunk *c = d->head;
		while (c->next != d->tail)
			c = c->next;
		if (d->spare)
			sim_huge_pool_put(d->chunks, d->tail);
		else
			d->spare = d->tail;
		c->next = NULL;
		d->tail = c;
		d->tail_i = FIFO_SLOTS;
	}
	return s;
}

/* Take the head slot; the next head, if any, is then d->head->s[d->head_i]. */
static fifo_slot fifo_pop(wire_dir *d)
{
	fifo_chunk *c = d->head;
	fifo_slot s = c->s[d->head_i++];
	if (--d->fifo_len == 0) {
		/* empty: the chunk starts over (head and tail are the same chunk) */
		d->head_i = d->tail_i = 0;
	} else if (d->head_i == FIFO_SLOTS) {
		d->head = c->next;
		d->head_i = 0;
		if (d->spare)
			sim_huge_pool_put(d->chunks, c);
		else
			d->spare = c;
	}
	return s;
}

static void fifo_arrive(sim_engine *eng, sim_event *ev);
static uint32_t k_arrive; /* wire.arrive */

/* A flood's copies arrive at one time, one after the other, each on its own wire to its
 * own endpoint: every step of a delivery is a cache miss on memory the previous step
 * pointed to. The arrivals a few places ahead are asked for in stages, each a pointer
 * read from what the stage before fetched: the direction's first line; its head slot and
 * the plug of the way out; the plug behind that; the endpoint; what the endpoint's
 * receiver reads first (its ctx). */
#define ARRIVE_AHEAD 7
static void arrive_prefetch(const sim_engine *eng)
{
	void *ctx[ARRIVE_AHEAD];
	sim_engine_ahead(eng, fifo_arrive, ctx, ARRIVE_AHEAD);
	const wire_dir *d;
	if ((d = ctx[6]))
		__builtin_prefetch(d);
	if ((d = ctx[5])) {
		/* the head slot, and the next one (its time and order are read to post it) */
		const fifo_slot *s = &d->head->s[d->head_i];
		__builtin_prefetch(s);
		__builtin_prefetch((const void *)((uintptr_t)s + 2 * sizeof(*s) - 1));
		__builtin_prefetch(d->out);
	}
	if ((d = ctx[4]) && d->out->peer)
		sim_plug_prefetch(d->out->peer);
	const sim_plug *q;
	const sim_endpoint *ep;
	if ((d = ctx[3]) && (q = d->out->peer) && q->kind == SIM_PLUG_ENDPOINT)
		__builtin_prefetch(q->owner);
	if ((d = ctx[2]) && (q = d->out->peer) && q->kind == SIM_PLUG_ENDPOINT)
		__builtin_prefetch(((const sim_endpoint *)q->owner)->ctx);
	if ((d = ctx[1]) && (q = d->out->peer) && q->kind == SIM_PLUG_ENDPOINT &&
	    (ep = q->owner)->rx_prefetch)
		ep->rx_prefetch(ep->ctx);
}

static void hop_left(wire_dir *d);

/* The head of direction ctx's FIFO arrives (the posting names it by its order's low bits:
 * a head taken back by an undone hop is not there any more). */
static void fifo_arrive(sim_engine *eng, sim_event *ev)
{
	wire_dir *d = ev->ctx;
	if (__builtin_expect(!d->fifo_len || (uint32_t)ev->arg != (uint32_t)d->head_seq, 0))
		return;
	arrive_prefetch(eng);
	fifo_slot s = fifo_pop(d);
	if (d->fifo_len) {
		const fifo_slot *next = &d->head->s[d->head_i];
		d->head_seq += next->ref.spare & SPARE_SEQ;
		sim_post_seq(eng, next->at, d->head_seq, k_arrive, d->id, fifo_arrive, d, (uint32_t)d->head_seq);
	}
	if (__builtin_expect(s.ref.spare & SPARE_HOP, 0))
		hop_left(d);
	if (d->doomed || !d->up) {
		if (d->doomed)
			d->doomed--;
		d->st.down_drops++;
		sim_frame_ref_free(&s.ref);
		return;
	}
	d->delivered++;
	sim_frame *f = sim_frame_unpark(&s.ref);
	f->meta64 = s.at;
	sim_plug_send(d->out, f, ev->at);
}

/* Queue f's arrival at `at` (>= now) with order seq; hop: into the FIFO, marked as a frame
 * that crossed a switch early (the caller made sure the FIFO takes it). */
static void post_arrival_seq(wire_dir *d, sim_frame *f, sim_time at, uint64_t seq, bool hop)
{
	sim_engine *eng = d->eng;
	if (!d->fifo_len) {
		fifo_slot *s = fifo_push(d);
		sim_frame_park(f, &s->ref);
		s->ref.spare = hop ? SPARE_HOP : 0;
		s->at = at;
		d->head_seq = d->tail_seq = seq;
		d->tail_at = at;
		sim_post_seq(eng, at, seq, k_arrive, d->id, fifo_arrive, d, (uint32_t)seq);
		return;
	}
	if (at >= d->tail_at && seq - d->tail_seq <= SPARE_SEQ) {
		fifo_slot *s = fifo_push(d);
		sim_frame_park(f, &s->ref);
		s->ref.spare = (uint32_t)(seq - d->tail_seq) | (hop ? SPARE_HOP : 0);
		s->at = at;
		d->tail_seq = seq;
		d->tail_at = at;
		return;
	}
	if (hop)
		abort(); /* hop_cross checked that it joins the FIFO */
	f->meta = d->gen;
	sim_post_seq(eng, at, seq, k_arrive, d->id, wire_arrive, d, (uint64_t)(uintptr_t)f);
}

static sim_time not_before_now(const wire_dir *d, sim_time at)
{
	sim_time now = sim_now(d->eng);
	return at < now ? now : at;
}

static void post_arrival(wire_dir *d, sim_frame *f, sim_time at)
{
	at = not_before_now(d, at);
	post_arrival_seq(d, f, at, sim_engine_take_seq_at(d->eng, at), false);
}

/* Serialize len bytes entering at `at` (after what is queued); returns when they arrive at
 * the far end. */
static sim_time serialize(wire_dir *d, uint32_t len, sim_time at)
{
	uint64_t ready_ps = at * 1000u;
	uint64_t start_ps = d->tx_free_ps > ready_ps ? d->tx_free_ps : ready_ps;
	if (d->bandwidth_bps) {
		uint64_t wire_bytes = (len < SIM_ETH_MIN_FRAME ? SIM_ETH_MIN_FRAME : len) + SIM_ETH_WIRE_OVERHEAD;
		uint64_t ser_ps = d->ps_per_byte ? wire_bytes * d->ps_per_byte
		                                 : (wire_bytes * 8u * 1000000000000ULL + d->bandwidth_bps - 1) / d->bandwidth_bps;
		d->tx_free_ps = start_ps + ser_ps;
	} else {
		d->tx_free_ps = start_ps;
	}
	return (d->tx_free_ps + 999u) / 1000u + d->latency;
}

/* Whether a frame of len bytes entering at `at` finds the queue full. */
static bool queue_full(const wire_dir *d, uint32_t len, sim_time at)
{
	if (!d->bandwidth_bps || !d->queue_limit)
		return false;
	uint64_t ready_ps = at * 1000u;
	uint64_t start_ps = d->tx_free_ps > ready_ps ? d->tx_free_ps : ready_ps;
	unsigned __int128 backlog = (unsigned __int128)(start_ps - ready_ps) * d->bandwidth_bps / 8000000000000ULL;
	return backlog + len > d->queue_limit;
}

/* --- event-free hops (sim/fabric/hop_int.h) --------------------------------------------- */

/* The direction frames sent into wire end `end` take. */
static wire_dir *dir_entered_at(const sim_plug *end)
{
	const wire_end *e = end->owner;
	return &e->w->dir[e->side];
}

/* A frame whose hop was undone arrives at the switch after all. */
static void hop_arrive(sim_engine *eng, sim_event *ev)
{
	wire_dir *d = ev->ctx;
	d->n_alone--;
	wire_arrive(eng, ev);
}

/* The oldest frame that crossed early left the FIFO: its record goes. */
static void hop_left(wire_dir *d)
{
	hop_rec *r = d->hop_head;
	d->hop_head = r->dir_next;
	if (!d->hop_head) {
		d->hop_tail = NULL;
		d->has_hops = false;
	}
	sim_hops_release(d->hops, r);
}

/* Frame f entered d1 (order s1 taken for its arrival at t1 at the switch behind d1): make
 * the switch's crossing now if its outcome is decided, queueing f on the wire beyond.
 * False: it takes its arrival event. */
static bool hop_cross(wire_dir *d1, sim_frame *f, sim_time t1, uint64_t s1)
{
	const sim_plug *sp = d1->out->peer;
	hop_fwd fwd;
	if (!sim_plug_carrier(d1->out) || d1->out->tap || sp->tap || !sim_switch_hop_decide(sp, f, t1, &fwd))
		return false;
	const sim_plug *eg = fwd.egress, *we = eg->peer;
	if (!sim_plug_carrier(eg) || eg->tap || !we || we->kind != SIM_PLUG_WIRE_END || we->tap)
		return false;
	wire_dir *d2 = dir_entered_at(we);
	sim_hops *h = d1->hops;
	sim_time ready = t1 + sim_switch_hop_latency(&fwd);
	/* d2 must take it as the wire would at t1: queued behind its frames, none of which
	 * may still be decided later than this one is */
	if (!d2->up || d2->faults || f->len - SIM_ETH_HLEN > d2->mtu || queue_full(d2, f->len, ready) ||
	    (d2->hop_tail && d2->hop_tail->t1 > t1 && sim_hops_open(h, d2->hop_tail)))
		return false;
	hop_rec *r = sim_hops_begin(h, t1, s1);
	r->d1 = d1;
	r->d2 = d2;
	r->gen1 = d1->gen;
	r->fwd = fwd;
	r->tx_free_was = d2->tx_free_ps;
	r->tail_seq_was = d2->tail_seq;
	r->tail_at_was = d2->tail_at;
	sim_switch_hop_apply(&r->fwd, f, t1);
	d1->delivered++;
	d2->st.frames_in++;
	d2->st.bytes_in += f->len;
	r->t2 = serialize(d2, f->len, ready);
	/* taken in the crossing's place: the watch compares it with others' places */
	r->s2 = sim_engine_take_seq_at(d2->eng, r->t2);
	post_arrival_seq(d2, f, r->t2, r->s2, true);
	r->dir_next = NULL;
	if (d2->hop_tail)
		d2->hop_tail->dir_next = r;
	else
		d2->hop_head = r;
	d2->hop_tail = r;
	d2->has_hops = true;
	sim_hops_commit(h, r);
	return true;
}

void sim_wire_hop_undo(sim_hops *h, hop_rec *r)
{
	wire_dir *d2 = r->d2;
	/* r and the records after it own the FIFO's last slots, in order */
	size_t n = 0, k = 0;
	for (hop_rec *q = r; q; q = q->dir_next)
		n++;
	hop_rec *stack_recs[64], **recs = n <= 64 ? stack_recs : sim_xmalloc(n * sizeof(*recs), "the fabric's hops");
	fifo_slot stack_slots[64], *slots = n <= 64 ? stack_slots : sim_xmalloc(n * sizeof(*slots), "the fabric's hops");
	hop_rec **link = &d2->hop_head;
	while (*link != r)
		link = &(*link)->dir_next;
	for (hop_rec *q = r; q; q = q->dir_next)
		recs[k++] = q;
	*link = NULL;
	d2->hop_tail = link == &d2->hop_head ? NULL : (hop_rec *)(void *)((char *)link - offsetof(hop_rec, dir_next));
	d2->has_hops = d2->hop_tail != NULL;
	for (size_t i = n; i-- > 0;)
		slots[i] = fifo_unpush(d2);
	/* the latest first, so each switch state goes back to what the one before left */
	for (size_t i = n; i-- > 0;) {
		hop_rec *q = recs[i];
		wire_dir *d1 = q->d1;
		sim_frame *f = sim_frame_unpark(&slots[i].ref);
		sim_switch_hop_undo(&q->fwd, f, q->t1);
		d1->delivered--;
		d2->st.frames_in--;
		d2->st.bytes_in -= f->len;
		f->meta = q->gen1;
		d1->n_alone++;
		sim_post_seq(d1->eng, q->t1, q->s1, k_arrive, d1->id, hop_arrive, d1, (uint64_t)(uintptr_t)f);
		sim_hops_release(h, q);
	}
	d2->tx_free_ps = r->tx_free_was;
	d2->tail_seq = r->tail_seq_was;
	d2->tail_at = r->tail_at_was;
	if (recs != stack_recs)
		free(recs);
	if (slots != stack_slots)
		free(slots);
}

/* Another frame enters d: crossings into d still open would have come after it. */
static void hop_make_way(wire_dir *d)
{
	for (hop_rec *r = d->hop_head; r; r = r->dir_next)
		if (sim_hops_open(d->hops, r)) {
			sim_wire_hop_undo(d->hops, r);
			return;
		}
}

static void wire_end_receive(sim_plug *self, sim_frame *f, sim_time at)
{
	wire_end *in = self->owner;
	sim_wire *w = in->w;
	wire_dir *d = &w->dir[in->side];
	if (__builtin_expect(d->has_hops, 0))
		hop_make_way(d);
	d->st.frames_in++;
	d->st.bytes_in += f->len;
	if (!d->up) {
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
	if (l2_payload > d->mtu) {
		d->st.mtu_drops++;
		sim_frame_free(f);
		return;
	}

	if (queue_full(d, f->len, at)) {
		d->st.queue_drops++;
		sim_frame_free(f);
		return;
	}
	sim_time arrive = serialize(d, f->len, at);
	if (!d->faults) {
		arrive = not_before_now(d, arrive);
		uint64_t seq = sim_engine_take_seq_at(d->eng, arrive);
		/* a unicast frame to a switch behind the wire: its crossing now, when nothing can
		 * change it (a flood's copies look no further than their first byte) */
		const sim_plug *far;
		if (!(f->data[0] & 1u) && !d->fifo_len && !d->n_alone && (far = d->out->peer) &&
		    far->kind == SIM_PLUG_SWITCH_PORT && sim_hops_enabled(d->hops) && hop_cross(d, f, arrive, seq))
			return;
		post_arrival_seq(d, f, arrive, seq, false);
		return;
	}

	const sim_wire_params *p = &w->p;
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
	if (happens(&d->dup, p->duplicate)) {
		sim_frame *c = sim_frame_clone(f);
		d->st.duplicated++;
		post_arrival(d, f, arrive);
		post_arrival(d, c, arrive);
		return;
	}
	post_arrival(d, f, arrive);
}

/* Each end is up when the wire is up and the device at the far end is up: that is the
 * carrier a device sees through the wire. */
static void wire_update(sim_wire *w)
{
	for (unsigned s = 0; s < 2; s++) {
		const sim_plug *far_dev = end_of(w, 1 - s)->plug.peer;
		sim_plug_set_up(&end_of(w, s)->plug, w->up && far_dev && far_dev->up);
	}
}

static void wire_end_carrier_changed(sim_plug *self)
{
	wire_end *e = self->owner;
	wire_update(e->w);
}

static void wire_free(void *obj)
{
	sim_wire *w = obj;
	/* the frames still parked belong to the frame pool, which reclaims them whole */
	for (unsigned s = 0; s < 2; s++) {
		wire_dir *d = &w->dir[s];
		while (d->head) {
			fifo_chunk *c = d->head;
			d->head = c->next;
			sim_huge_pool_put(d->chunks, c);
		}
		sim_huge_pool_put(d->chunks, d->spare);
	}
	sim_huge_pool_put(sim_fabric_huge_pool(w->fab, sizeof(*w)), w);
}

sim_wire *sim_wire_new(sim_fabric *fab, const char *name, const sim_wire_params *p)
{
	/* from the fabric's huge pages, aligned (sizeof is a multiple of 64), so each
	 * direction's arrival fields share one cache line */
	_Static_assert(sizeof(sim_wire) % 64 == 0, "a wire is whole cache lines");
	sim_wire *w = sim_huge_pool_get(sim_fabric_huge_pool(fab, sizeof(*w)));
	memset(w, 0, sizeof(*w));
	w->fab = fab;
	w->id = sim_fabric_new_id(fab);
	snprintf(w->name, sizeof(w->name), "%s", name);
	if (p)
		w->p = *p;
	else
		sim_wire_params_default(&w->p);
	w->up = true;
	mirror_params(w);
	if (!k_arrive)
		k_arrive = sim_kind("wire.arrive");
	sim_engine *eng = sim_fabric_engine(fab);
	for (unsigned s = 0; s < 2; s++) {
		char n[48];
		snprintf(n, sizeof(n), "%.40s.%u", w->name, s);
		wire_end *e = end_of(w, s);
		e->w = w;
		e->side = s;
		/* plug ids in end order, as they always were (ids order events) */
		sim_plug_init(&e->plug, fab, SIM_PLUG_WIRE_END, n, e, wire_end_receive, wire_end_carrier_changed);
		e->plug.up = false; /* no device at the far end yet */
		w->dir[s].out = &end_of(w, 1 - s)->plug;
		w->dir[s].eng = eng;
		w->dir[s].id = w->id;
		w->dir[s].chunks = sim_fabric_huge_pool(fab, sizeof(fifo_chunk));
		w->dir[s].hops = sim_fabric_hops(fab);
		w->dir[s].up = true;
		uint64_t idx = 2 * w->id + s;
		sim_engine_rng(eng, "fabric.wire.loss", idx, &w->dir[s].loss);
		sim_engine_rng(eng, "fabric.wire.dup", idx, &w->dir[s].dup);
		sim_engine_rng(eng, "fabric.wire.reorder", idx, &w->dir[s].reorder);
		sim_engine_rng(eng, "fabric.wire.corrupt", idx, &w->dir[s].corrupt);
	}
	sim_fabric_adopt(fab, w, wire_free);
	return w;
}

sim_plug *sim_wire_end(sim_wire *w, unsigned side) { return side < 2 ? &end_of(w, side)->plug : NULL; }
const char *sim_wire_name(const sim_wire *w) { return w->name; }
void sim_wire_set_params(sim_wire *w, const sim_wire_params *p)
{
	sim_hops_abort(sim_fabric_hops(w->fab), NULL); /* frames crossed early into it go again */
	w->p = *p;
	mirror_params(w);
}
const sim_wire_params *sim_wire_params_get(const sim_wire *w) { return &w->p; }

void sim_wire_set_up(sim_wire *w, bool up)
{
	if (w->up == up)
		return;
	sim_hops_abort(sim_fabric_hops(w->fab), NULL);
	w->up = up;
	w->dir[0].up = w->dir[1].up = up;
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
	/* the wire is the caller's, never a const object: bring the counter kept apart in */
	wire_dir *d = (wire_dir *)(uintptr_t)&w->dir[side & 1];
	d->st.delivered = d->delivered;
	return &d->st;
}

sim_time sim_wire_end_tx_idle_at(const sim_plug *end)
{
	const wire_end *e = end->owner;
	return (e->w->dir[e->side].tx_free_ps + 999u) / 1000u;
}

void sim_wire_end_prefetch(const sim_plug *end, unsigned stage)
{
	/* the end's plug is its direction's `in`: found without reading anything */
	const wire_dir *d = (const wire_dir *)(const void *)((const char *)end - offsetof(wire_dir, in));
	if (stage == 0) {
		__builtin_prefetch(d);
		__builtin_prefetch(&d->in.plug);
		__builtin_prefetch(&d->mtu);
		__builtin_prefetch(&d->tail_i);
	} else if (d->tail) {
		__builtin_prefetch(&d->tail->s[d->tail_i < FIFO_SLOTS ? d->tail_i : 0]);
	}
}

const sim_wire_params *sim_wire_end_params(const sim_plug *end)
{
	const wire_end *e = end->owner;
	return &e->w->p;
}
