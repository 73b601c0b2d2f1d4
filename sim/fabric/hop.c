/* Event-free switch hops: the records of crossings made early, the engine's watch on their
 * arrival times, and undoing them (sim/fabric/hop_int.h says when and why). */
#include "sim/fabric/hop_int.h"

#include <stdlib.h>

#include "sim/engine/oom.h"

#define T2_SLOTS 4096u /* records by the low bits of t2, as the engine watches times */
#define REC_SLAB 256u

struct sim_hops {
	sim_engine *eng;
	bool enabled;
	/* the crossing being made, whose sequences are taken in its place (t1, s1) */
	bool crossing;
	sim_time cross_t1;
	uint64_t cross_s1;
	hop_rec *live; /* every committed record */
	hop_rec *free;
	void **slabs;
	size_t n_slabs;
	hop_rec *by_t2[T2_SLOTS];
};

static void hop_watch(void *ctx, sim_time at, uint64_t seq);

sim_hops *sim_hops_new(sim_fabric *fab, sim_engine *eng)
{
	sim_hops *h = sim_xcalloc(1, sizeof(*h), "the fabric's hops");
	if (!sim_engine_set_watcher(eng, hop_watch, h)) {
		free(h); /* another fabric on this engine: its hops are events */
		return NULL;
	}
	(void)fab;
	h->eng = eng;
	h->enabled = true;
	return h;
}

void sim_hops_free(sim_hops *h)
{
	if (!h)
		return;
	for (hop_rec *r = h->live; r; r = r->live_next)
		sim_engine_unwatch(h->eng, r->t2);
	sim_engine_set_watcher(h->eng, NULL, h);
	for (size_t i = 0; i < h->n_slabs; i++)
		free(h->slabs[i]);
	free(h->slabs);
	free(h);
}

bool sim_hops_enabled(const sim_hops *h) { return h && h->enabled; }

void sim_hops_set_enabled(sim_hops *h, bool on)
{
	if (!h)
		return;
	if (!on)
		sim_hops_abort(h, NULL);
	h->enabled = on;
}

static hop_rec *rec_get(sim_hops *h)
{
	if (!h->free) {
		hop_rec *slab = sim_xcalloc(REC_SLAB, sizeof(*slab), "the fabric's hops");
		h->slabs = sim_xreallocarray(h->slabs, h->n_slabs + 1, sizeof(*h->slabs), "the fabric's hops");
		h->slabs[h->n_slabs++] = slab;
		for (size_t i = REC_SLAB; i-- > 0;) {
			slab[i].live_next = h->free;
			h->free = &slab[i];
		}
	}
	hop_rec *r = h->free;
	h->free = r->live_next;
	return r;
}

static void rec_put(sim_hops *h, hop_rec *r)
{
	r->live_next = h->free;
	h->free = r;
}

hop_rec *sim_hops_begin(sim_hops *h, sim_time t1, uint64_t s1)
{
	hop_rec *r = rec_get(h); /* the caller fills in the rest */
	r->t1 = t1;
	r->s1 = s1;
	h->crossing = true;
	h->cross_t1 = t1;
	h->cross_s1 = s1;
	return r;
}

void sim_hops_commit(sim_hops *h, hop_rec *r)
{
	h->crossing = false;
	hop_rec **b = &h->by_t2[r->t2 & (T2_SLOTS - 1)];
	r->t2_prev = NULL;
	r->t2_next = *b;
	if (*b)
		(*b)->t2_prev = r;
	*b = r;
	r->live_prev = NULL;
	r->live_next = h->live;
	if (h->live)
		h->live->live_prev = r;
	h->live = r;
	sim_engine_watch(h->eng, r->t2);
}

void sim_hops_cancel(sim_hops *h, hop_rec *r)
{
	h->crossing = false;
	rec_put(h, r);
}

void sim_hops_release(sim_hops *h, hop_rec *r)
{
	if (r->t2_prev)
		r->t2_prev->t2_next = r->t2_next;
	else
		h->by_t2[r->t2 & (T2_SLOTS - 1)] = r->t2_next;
	if (r->t2_next)
		r->t2_next->t2_prev = r->t2_prev;
	if (r->live_prev)
		r->live_prev->live_next = r->live_next;
	else
		h->live = r->live_next;
	if (r->live_next)
		r->live_next->live_prev = r->live_prev;
	sim_engine_unwatch(h->eng, r->t2);
	rec_put(h, r);
}

bool sim_hops_open(const sim_hops *h, const hop_rec *r) { return sim_engine_before(h->eng, r->t1, r->s1); }

/* Whether a sequence taken now comes, in the run without the early crossings, before r's
 * arrival at the far end: it is taken before r's place (by the crossing being made, at
 * that crossing's place; by anything else, now, and r is still open) and after r took
 * its own (seq > r->s2; one taken earlier is ordered before r's either way). */
static bool taken_before(const sim_hops *h, const hop_rec *r, uint64_t seq)
{
	if (seq <= r->s2 || !sim_hops_open(h, r))
		return false;
	if (!h->crossing)
		return true;
	return h->cross_t1 < r->t1 || (h->cross_t1 == r->t1 && h->cross_s1 < r->s1);
}

/* A sequence was taken for a watched time: an early arrival at that very time whose
 * event would have come after the new one is undone (undoing takes records out of the
 * list, so the look starts over after each). */
static void hop_watch(void *ctx, sim_time at, uint64_t seq)
{
	sim_hops *h = ctx;
	hop_rec *r = h->by_t2[at & (T2_SLOTS - 1)];
	while (r) {
		if (r->t2 == at && taken_before(h, r, seq)) {
			sim_wire_hop_undo(h, r);
			r = h->by_t2[at & (T2_SLOTS - 1)];
		} else {
			r = r->t2_next;
		}
	}
}

void sim_hops_abort(sim_hops *h, const sim_switch *sw)
{
	if (!h)
		return;
	hop_rec *r = h->live;
	while (r) {
		if ((!sw || r->fwd.sw == sw) && sim_hops_open(h, r)) {
			sim_wire_hop_undo(h, r);
			r = h->live;
		} else {
			r = r->live_next;
		}
	}
}
