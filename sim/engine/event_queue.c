/* The engine's event queue (event_queue_int.h says what it is): what does not run for
 * every event (a new slab of blocks, wide entries, a time put in sequence order, a radix
 * bucket spread over the levels below, the base lowered after a peek) is here, out of the
 * engine's inner loop.
 */
#include "sim/engine/event_queue_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/engine/oom.h"

#define SLAB_BLOCKS 64               /* the first slab's blocks */
#define HUGE_SLAB (2u * 1024 * 1024) /* the largest slab: a huge page */

static const char what_queue[] = "the event queue";

void sim_queue_init(sim_queue *q) { q->timer_free = SIM_SLOT_NONE; }

void sim_queue_free(sim_queue *q)
{
	for (size_t i = 0; i < q->n_slabs; i++)
		free(q->slabs[i]);
	free(q->slabs);
	free(q->free_blocks);
	free(q->flat.e);
	free(q->timers);
}

size_t sim_queue_memory(const sim_queue *q)
{
	return q->pool_blocks * BLOCK_SIZE + q->cap_slabs * sizeof(void *) + q->cap_free * sizeof(block *) +
	       (size_t)q->flat.cap * sizeof(entry) + (size_t)q->timer_cap * sizeof(timer_slot);
}

/* --- timer slots ----------------------------------------------------------------- */

void sim_queue_timers_grow(sim_queue *q)
{
	uint32_t cap = q->timer_cap ? q->timer_cap * 2 : 256;
	q->timers = sim_xreallocarray(q->timers, cap, sizeof(*q->timers), what_queue);
	q->timer_cap = cap;
}

/* --- blocks ---------------------------------------------------------------------- */

/* The pool only grows (to the most blocks ever queued at once: about 70 bytes a pending
 * event, and a block per bucket in use), which keeps a block's address fixed and its
 * memory warm for reuse. It doubles, from 64 KiB slabs up to 2 MiB ones, which a big
 * queue gets as huge pages (far fewer page faults and TLB misses). */
void sim_queue_pool_grow(sim_queue *q)
{
	size_t n = q->pool_blocks < SLAB_BLOCKS ? SLAB_BLOCKS : q->pool_blocks;
	if (n > HUGE_SLAB / BLOCK_SIZE)
		n = HUGE_SLAB / BLOCK_SIZE;
	size_t bytes = n * BLOCK_SIZE;
	void *slab = NULL;
	if (posix_memalign(&slab, bytes == HUGE_SLAB ? HUGE_SLAB : BLOCK_SIZE, bytes))
		sim_out_of_memory(what_queue, bytes);
#ifdef MADV_HUGEPAGE
	if (bytes == HUGE_SLAB)
		(void)madvise(slab, bytes, MADV_HUGEPAGE); /* only advice: fine if refused */
#endif
	q->pool_blocks += n;
	if (q->n_slabs == q->cap_slabs) {
		q->cap_slabs = q->cap_slabs ? q->cap_slabs * 2 : 16;
		q->slabs = sim_xreallocarray(q->slabs, q->cap_slabs, sizeof(*q->slabs), what_queue);
	}
	q->slabs[q->n_slabs++] = slab;
	if (q->cap_free < q->pool_blocks) {
		q->cap_free = q->pool_blocks;
		q->free_blocks = sim_xreallocarray(q->free_blocks, q->cap_free, sizeof(*q->free_blocks), what_queue);
	}
	block *b = slab;
	for (size_t i = n; i-- > 0;) {
		b[i].next = NULL;
		q->free_blocks[q->n_free++] = &b[i];
	}
}

/* Decode the entry at p (not padding, not at a block end) of a bucket whose time is
 * bucket_at; returns its units. */
static inline unsigned unit_decode(const unit *p, sim_time bucket_at, entry *e)
{
	if (unit_compact(p)) {
		bool e64 = unit_tag(p) == TAG_COMPACT_E;
		*e = (entry){ .at = bucket_at,
			      .seq = block_of(p)->base + (uint64_t)unit_dseq(p),
			      .fn = p->h.fn,
			      .ctx = p->h.ctx,
			      .arg = e64 ? 0 : p->h.b >> 32,
			      .entity = e64 ? p->h.a : p->h.a >> 32,
			      .kind = e64 ? (uint32_t)(p->h.b >> 32) : (uint32_t)p->h.a };
		return 1;
	}
	*e = (entry){ .at = p[1].t.at,
		      .seq = p[1].t.seq,
		      .fn = p->h.fn,
		      .ctx = p->h.ctx,
		      .arg = p->h.fn ? p->h.a : 0,
		      .entity = p[1].t.entity,
		      .kind = (uint32_t)(p[1].t.b >> 32),
		      .timer = p->h.fn ? 0 : (uint32_t)p->h.a,
		      .gen = p->h.fn ? 0 : (uint32_t)(p->h.a >> 32) };
	return 2;
}

/* Two units at the end of bucket i for a wide entry of sequence seq. */
static inline unit *bucket_reserve_wide(sim_queue *q, unsigned i, uint64_t seq)
{
	unit *w = q->tail[i].wr;
	if (at_block_end(w) || at_block_end(w + 1)) {
		if (!at_block_end(w))
			w->t.b = TAG_WIDE2; /* padding: the rest of the bucket is in the next block */
		w = bucket_grow(q, i, w, seq);
	}
	q->tail[i].wr = w + 2;
	return w;
}

/* Append e at the end of bucket i (the caller marks a bucket that was empty as used).
 * `check`: its sequence may be older than the bucket's last. `compact_ok`: the bucket's
 * time is implied (a wheel slot or the current bucket). */
static void bucket_put(sim_queue *q, unsigned i, const entry *e, bool check, bool compact_ok)
{
	unit *w = q->tail[i].wr;
	if (check && w && i < WHEEL_SLOTS && e->seq < unit_seq_before(w - 1))
		q->wheel_unsorted[i >> 6] |= 1ULL << (i & 63);
	if (compact_ok && e->fn && fits_compact(e->entity, e->arg)) {
		if (at_block_end(w))
			w = bucket_grow(q, i, w, e->seq);
		else if (e->seq - q->tail[i].base + DSEQ_RANGE >= 2 * DSEQ_RANGE)
			goto wide; /* too far from the block's base */
		unit_set_compact(w, q->tail[i].base, e->fn, e->ctx, e->kind, e->entity, e->arg, e->seq);
		q->tail[i].wr = w + 1;
		return;
	}
wide:
	w = bucket_reserve_wide(q, i, e->seq);
	w[0].h.fn = e->fn;
	w[0].h.ctx = e->ctx;
	w[0].h.a = e->fn ? e->arg : (e->timer | (uint64_t)e->gen << 32);
	w[0].h.b = TAG_WIDE;
	w[1].t.entity = e->entity;
	w[1].t.at = e->at;
	w[1].t.seq = e->seq;
	w[1].t.b = (uint64_t)e->kind << 32 | TAG_WIDE2;
}

/* Visit bucket i's entries from unit `from` (in block `b`) in order, decoded into `*ep`
 * (compact ones at time bucket_at), giving its blocks back to the pool once passed; the
 * bucket is left empty. The body must not append to bucket i. */
#define BUCKET_DRAIN(q, i, b, from, bucket_at, ep, body)                     \
	do {                                                                 \
		block *b_ = (b);                                             \
		unit *p_ = (from), *end_ = (q)->tail[i].wr;                  \
		(q)->tail[i].wr = NULL;                                      \
		(q)->head[i] = NULL;                                         \
		while (b_) {                                                 \
			if (p_ == end_) {                                    \
				block_release(q, b_);                        \
				break;                                       \
			}                                                    \
			if (at_block_end(p_) || unit_tag(p_) == TAG_WIDE2) { \
				block *next_ = b_->next;                     \
				block_release(q, b_);                        \
				b_ = next_;                                  \
				p_ = &b_->u[0];                              \
				continue;                                    \
			}                                                    \
			entry ed_, *ep = &ed_;                               \
			p_ += unit_decode(p_, (bucket_at), ep);              \
			body;                                                \
		}                                                            \
	} while (0)

/* A discrete-event engine only ever inserts times >= the last one taken, which is what a
 * radix heap needs; its lowest level here is a timing wheel. Relative to the base
 * `last_at` (the time running): an entry at last_at itself is in the current bucket; one
 * whose time differs from last_at only in the low 12 bits is in the wheel, in the slot of
 * its own low 12 bits, which holds that one time; any other is in the radix level of the
 * highest byte above bit 12 in which it differs, in the bucket of its own digit there.
 * When the current bucket is empty the next wheel slot becomes current as it is (found
 * through two levels of bitmaps); only when the wheel is empty is the lowest non-empty
 * bucket of the lowest radix level spread over the levels below. An event up to a few
 * microseconds ahead thus usually lands in its slot and is taken from there without ever
 * moving; one further ahead moves at most once per level it descends.
 *
 * Entries of equal time are always in the same bucket and every append (a new posting,
 * a spread) keeps their relative order, so within a time they stay in the order they were
 * scheduled, i.e. by sequence. The exceptions are a timer re-armed later while queued (its
 * entry is re-filed when it surfaces, with the older sequence of the re-arm) and
 * sim_post_seq with an earlier-taken sequence: such an append notes a wheel slot as out of
 * order, and the current bucket is put in order (cur_flatten) before its time runs. */

static inline void wheel_unmark(sim_queue *q, unsigned j)
{
	uint64_t w = q->wheel_bits[j >> 6] &= ~(1ULL << (j & 63));
	if (!w)
		q->wheel_summary &= ~(1ULL << (j >> 6));
}

static inline void up_unmark(sim_queue *q, unsigned l, unsigned j)
{
	q->up_bits[l][j >> 6] &= ~(1ULL << (j & 63));
	for (unsigned w = 0; w < DIGITS / 64; w++)
		if (q->up_bits[l][w])
			return;
	q->levels_used &= ~(1u << l);
}

static void flat_reserve(flat *f, uint32_t n)
{
	if (n <= f->cap)
		return;
	uint32_t cap = f->cap ? f->cap : 64;
	while (cap < n)
		cap *= 2;
	f->e = sim_xreallocarray(f->e, cap, sizeof(*f->e), what_queue);
	f->cap = cap;
}

/* The place of a new entry in the flat current bucket: its sequence place among the
 * entries not yet run. */
static entry *flat_slot(flat *f, uint64_t seq)
{
	flat_reserve(f, f->len + 1);
	uint32_t i = f->len++;
	while (i > f->head && f->e[i - 1].seq > seq) {
		f->e[i] = f->e[i - 1];
		i--;
	}
	return &f->e[i];
}

/* Merge the sorted runs a[bound[r] .. bound[r+1]) (runs >= 2) into out in one pass: a
 * binary heap of the runs keyed by their next entry's sequence (an ARP storm's time holds
 * tens of runs of hundreds of 64-byte entries: each is copied once, not once per level
 * of a pairwise merge). */
/* Sift heap[j] down the first n places of the run heap (keyed by each run's next
 * entry's sequence). */
static void runs_sift_down(const entry *a, const uint32_t *pos, uint32_t *heap, uint32_t j, uint32_t n)
{
	for (;;) {
		uint32_t c = 2 * j + 1;
		if (c >= n)
			return;
		if (c + 1 < n && a[pos[heap[c + 1]]].seq < a[pos[heap[c]]].seq)
			c++;
		if (a[pos[heap[j]]].seq < a[pos[heap[c]]].seq)
			return;
		uint32_t t = heap[j];
		heap[j] = heap[c];
		heap[c] = t;
		j = c;
	}
}

static void merge_runs(const entry *a, entry *out, const uint32_t *bound, uint32_t runs)
{
	uint32_t *pos = sim_xreallocarray(NULL, (size_t)runs * 2, sizeof(*pos), what_queue), *heap = pos + runs;
	for (uint32_t r = 0; r < runs; r++) {
		pos[r] = bound[r];
		heap[r] = r;
	}
	/* runs start in order of their first entries' positions, not their sequences: heapify */
	for (uint32_t i = runs / 2; i-- > 0;)
		runs_sift_down(a, pos, heap, i, runs);
	uint32_t o = bound[0], n = runs;
	while (n) {
		uint32_t r = heap[0];
		out[o++] = a[pos[r]++];
		if (pos[r] == bound[r + 1])
			heap[0] = heap[--n]; /* run used up */
		runs_sift_down(a, pos, heap, 0, n);
	}
	free(pos);
}

/* Put the flat array in sequence order. A wire FIFO posts each next frame with the
 * sequence it took when sent, so an out-of-order slot is usually the concatenation of
 * long sorted runs, one per group of wires that ran in another order (an ARP storm:
 * thousands of entries, one run per leaf switch), where an insertion sort moves entries
 * quadratically often: the runs are merged, O(n log runs). Sequences are unique, so any
 * correct sort gives the same order. */
static void flat_sort(flat *f)
{
	uint32_t n = f->len, runs = 1;
	for (uint32_t i = 1; i < n; i++)
		runs += f->e[i].seq < f->e[i - 1].seq;
	if (runs == 1)
		return;
	uint32_t *bound = sim_xreallocarray(NULL, (size_t)runs + 1, sizeof(*bound), what_queue);
	uint32_t r = 0;
	for (uint32_t i = 0; i < n; i++)
		if (i == 0 || f->e[i].seq < f->e[i - 1].seq)
			bound[r++] = i;
	bound[r] = n;
	flat_reserve(f, 2 * n);
	merge_runs(f->e, f->e + n, bound, runs);
	memcpy(f->e, f->e + n, (size_t)n * sizeof(*f->e));
	free(bound);
}

/* The current bucket's entries not yet run, out of sequence order: move them to the flat
 * array, then in order. */
/* The running event's sequence out of its unit, before that unit's block may go. */
static inline void cur_pin(sim_queue *q)
{
	if (q->cur_unit) {
		q->cur_seq = block_of(q->cur_unit)->base + (uint64_t)unit_dseq(q->cur_unit);
		q->cur_unit = NULL;
	}
}

static void cur_flatten(sim_queue *q)
{
	cur_pin(q);
	flat *f = &q->flat;
	f->len = f->head = 0;
	if (q->tail[CUR].wr)
		BUCKET_DRAIN(q, CUR, q->cur_head, q->rd, q->last_at, e, {
			flat_reserve(f, f->len + 1);
			f->e[f->len++] = *e;
		});
	f->took = f->len;
	flat_sort(f);
	q->rd = NULL;
	q->cur_head = NULL;
	q->in_flat = true;
}

/* File e at the current time. */
static void cur_put(sim_queue *q, const entry *e)
{
	if (!q->in_flat) {
		unit *w = q->tail[CUR].wr;
		if (!w) {
			bucket_put(q, CUR, e, false, true);
			q->cur_head = q->head[CUR];
			q->rd = &q->cur_head->u[0];
			return;
		}
		if (e->seq > unit_seq_before(w - 1)) {
			bucket_put(q, CUR, e, false, true);
			return;
		}
		cur_flatten(q); /* out of order: from now on in the flat array */
	}
	*flat_slot(&q->flat, e->seq) = *e;
}

/* File e relative to the current base (e->at >= last_at); `check`: its sequence may be
 * older than the ones queued. */
void sim_queue_put_any(sim_queue *q, const entry *e, bool check)
{
	uint64_t d = e->at ^ q->last_at;
	if (!d) {
		cur_put(q, e);
		return;
	}
	unsigned b = 63u - (unsigned)__builtin_clzll(d);
	if (b < WHEEL_BITS) {
		unsigned j = (unsigned)e->at & (WHEEL_SLOTS - 1);
		wheel_mark(q, j);
		bucket_put(q, j, e, check, true);
		return;
	}
	unsigned l = (b - WHEEL_BITS) >> 3;
	unsigned j = (unsigned)(e->at >> (WHEEL_BITS + l * 8)) & (DIGITS - 1);
	q->up_bits[l][j >> 6] |= 1ULL << (j & 63);
	q->levels_used |= 1u << l;
	bucket_put(q, UP_BUCKET(l, j), e, check, false);
}

/* Re-file a queued entry (at >= last_at). */
static inline void queue_file(sim_queue *q, const entry *e) { sim_queue_put_any(q, e, true); }

/* Re-file the wide entry at p (at >= last_at): into a lower radix level it is copied as it
 * is (no order check there: a radix bucket is re-filed entry by entry when it spreads). */
static void queue_refile_wide(sim_queue *q, const unit *p)
{
	sim_time at = p[1].t.at;
	uint64_t d = at ^ q->last_at;
	if (d >> WHEEL_BITS) {
		unsigned b = 63u - (unsigned)__builtin_clzll(d);
		unsigned l = (b - WHEEL_BITS) >> 3;
		unsigned j = (unsigned)(at >> (WHEEL_BITS + l * 8)) & (DIGITS - 1);
		q->up_bits[l][j >> 6] |= 1ULL << (j & 63);
		q->levels_used |= 1u << l;
		memcpy(bucket_reserve_wide(q, UP_BUCKET(l, j), p[1].t.seq), p, 2 * sizeof(unit));
		return;
	}
	entry e;
	unit_decode(p, 0, &e);
	queue_file(q, &e);
}

/* The current bucket is empty: make the next time queued the new base, its entries the
 * current bucket. False when nothing is queued. */
static bool queue_spread(sim_queue *q)
{
	if (q->wheel_summary) {
		unsigned w = (unsigned)__builtin_ctzll(q->wheel_summary);
		unsigned j = w * 64 + (unsigned)__builtin_ctzll(q->wheel_bits[w]);
		wheel_unmark(q, j);
		q->last_at = (q->last_at & ~(sim_time)(WHEEL_SLOTS - 1)) | j;
		q->cur_head = q->head[j];
		q->rd = &q->cur_head->u[0];
		q->tail[CUR] = q->tail[j];
		q->head[CUR] = q->head[j];
		q->tail[j].wr = NULL;
		q->head[j] = NULL;
		if (q->wheel_unsorted[w] & (1ULL << (j & 63))) {
			q->wheel_unsorted[w] &= ~(1ULL << (j & 63));
			cur_flatten(q);
		}
		return true;
	}
	if (!q->levels_used)
		return false;
	unsigned l = (unsigned)__builtin_ctz(q->levels_used), j = 0;
	for (unsigned w = 0; w < DIGITS / 64; w++)
		if (q->up_bits[l][w]) {
			j = w * 64 + (unsigned)__builtin_ctzll(q->up_bits[l][w]);
			break;
		}
	up_unmark(q, l, j);
	unsigned i = UP_BUCKET(l, j);
	/* a radix bucket holds wide entries only (compact ones take their bucket's time) */
	sim_time min = SIM_TIME_NEVER;
	for (block *b = q->head[i];; b = b->next) {
		unit *p = &b->u[0];
		for (; p != q->tail[i].wr && !at_block_end(p) && unit_tag(p) != TAG_WIDE2; p += 2)
			if (p[1].t.at < min)
				min = p[1].t.at;
		if (p == q->tail[i].wr)
			break;
	}
	q->last_at = min;
	/* every entry lands in a lower level, the wheel or the current bucket, never back here;
	 * with many cancelled timers queued (TCP re-arms its timers earlier all the time), drop
	 * them now rather than moving them down level by level */
	bool drop_stale = q->stale * 4 > q->live;
	block *b = q->head[i];
	unit *p = &b->u[0], *end = q->tail[i].wr;
	q->tail[i].wr = NULL;
	q->head[i] = NULL;
	while (b) {
		if (p == end) {
			block_release(q, b);
			break;
		}
		if (at_block_end(p) || unit_tag(p) == TAG_WIDE2) {
			block *next = b->next;
			block_release(q, b);
			b = next;
			p = &b->u[0];
			continue;
		}
		if (drop_stale && !p->h.fn && q->timers[(uint32_t)p->h.a].gen != (uint32_t)(p->h.a >> 32))
			q->stale--;
		else
			queue_refile_wide(q, p);
		p += 2;
	}
	return true;
}

/* Find the earliest live entry without taking it (stale entries met on the way are
 * dropped); q->front_n is what taking a FRONT_ENTRY skips. */
enum front_kind sim_queue_settle(sim_queue *q)
{
	for (;;) {
		if (__builtin_expect(q->in_flat, 0)) {
			flat *f = &q->flat;
			while (f->head < f->len) {
				entry *e = &f->e[f->head];
				if (!entry_stale(q, e)) {
					q->front_n = 0;
					return FRONT_ENTRY;
				}
				f->head++;
				q->stale--;
			}
			f->len = f->head = 0;
			q->in_flat = false;
			if (f->cap > 4096 && f->cap / 8 > f->took) {
				/* a burst at one time once made it much bigger than this time needed:
				 * give the memory back (an ARP storm's times, tens of thousands of
				 * entries each, keep theirs instead of growing it anew every time) */
				free(f->e);
				f->e = NULL;
				f->cap = 0;
			}
		} else {
			while (q->tail[CUR].wr) {
				unit *r = q->rd;
				if (r == q->tail[CUR].wr) {
					/* all taken */
					block_release(q, q->cur_head);
					q->tail[CUR].wr = NULL;
					q->head[CUR] = q->cur_head = NULL;
					q->rd = NULL;
				} else if (at_block_end(r) || unit_tag(r) == TAG_WIDE2) {
					/* the block's end, or padding before it */
					block *next = q->cur_head->next;
					block_release(q, q->cur_head);
					q->cur_head = next;
					q->rd = &next->u[0];
					__builtin_prefetch(next); /* its link to the next block */
				} else if (unit_compact(r)) {
					return FRONT_COMPACT; /* a one-shot: never stale */
				} else {
					unit_decode(r, q->last_at, &q->front);
					if (!entry_stale(q, &q->front)) {
						q->front_n = 2;
						return FRONT_ENTRY;
					}
					q->rd += 2;
					q->stale--;
				}
			}
		}
		if (!queue_spread(q))
			return FRONT_NONE;
	}
}

/* Lower the radix base to `to` (>= now, < last_at). A peek (sim_engine_next_time, or a run
 * that stopped at its time limit) moves the base without running anything, so a later
 * posting may lie before it. Only the current bucket, the wheel and the radix levels up to
 * the highest byte in which the old and new bases differ need re-filing: above it both
 * bases agree, so those entries' buckets do not change. Entries are gathered and re-filed
 * bucket by bucket in order, so equal times keep their order. */
void sim_queue_rebase(sim_queue *q, sim_time to)
{
	cur_pin(q);
	unsigned b = 63u - (unsigned)__builtin_clzll(to ^ q->last_at);
	int h = b < WHEEL_BITS ? -1 : (int)((b - WHEEL_BITS) >> 3); /* highest radix level */
	if (h < 0) {
		/* only the low 12 bits differ: the wheel and the levels stay as they are, the
		 * current time's entries become a wheel slot (which was empty: it is the time
		 * of the old base) */
		unsigned j = (unsigned)q->last_at & (WHEEL_SLOTS - 1);
		if (q->in_flat) {
			for (uint32_t i = q->flat.head; i < q->flat.len; i++)
				bucket_put(q, j, &q->flat.e[i], false, true);
			q->flat.len = q->flat.head = 0;
			q->in_flat = false;
		} else if (q->tail[CUR].wr) {
			BUCKET_DRAIN(q, CUR, q->cur_head, q->rd, q->last_at, e, bucket_put(q, j, e, false, true));
			q->cur_head = NULL;
			q->rd = NULL;
		}
		if (q->tail[j].wr)
			wheel_mark(q, j);
		q->last_at = to;
		return;
	}
	entry *all = NULL;
	size_t n = 0, cap = 0;
#define GATHER(ep)                                                                   \
	do {                                                                         \
		if (n == cap) {                                                      \
			cap = cap ? cap * 2 : 256;                                   \
			all = sim_xreallocarray(all, cap, sizeof(*all), what_queue); \
		}                                                                    \
		all[n++] = *(ep);                                                    \
	} while (0)
	if (q->in_flat) {
		for (uint32_t i = q->flat.head; i < q->flat.len; i++)
			GATHER(&q->flat.e[i]);
		q->flat.len = q->flat.head = 0;
		q->in_flat = false;
	} else if (q->tail[CUR].wr) {
		BUCKET_DRAIN(q, CUR, q->cur_head, q->rd, q->last_at, e, GATHER(e));
		q->cur_head = NULL;
		q->rd = NULL;
	}
	while (q->wheel_summary) {
		unsigned w = (unsigned)__builtin_ctzll(q->wheel_summary);
		unsigned j = w * 64 + (unsigned)__builtin_ctzll(q->wheel_bits[w]);
		wheel_unmark(q, j);
		q->wheel_unsorted[w] &= ~(1ULL << (j & 63));
		sim_time slot_at = (q->last_at & ~(sim_time)(WHEEL_SLOTS - 1)) | j;
		BUCKET_DRAIN(q, j, q->head[j], &q->head[j]->u[0], slot_at, e, GATHER(e));
	}
	for (int l = 0; l <= h; l++) {
		if (!(q->levels_used & (1u << l)))
			continue;
		for (unsigned j = 0; j < DIGITS; j++) {
			unsigned i = UP_BUCKET((unsigned)l, j);
			if (q->tail[i].wr)
				BUCKET_DRAIN(q, i, q->head[i], &q->head[i]->u[0], 0, e, GATHER(e));
		}
		memset(q->up_bits[l], 0, sizeof(q->up_bits[l]));
		q->levels_used &= ~(1u << l);
	}
#undef GATHER
	q->last_at = to;
	for (size_t i = 0; i < n; i++)
		queue_file(q, &all[i]); /* all later than `to`: none lands in the current bucket */
	free(all);
}

/* --- peeking ahead --------------------------------------------------------------- */

void sim_queue_ahead(const sim_queue *q, sim_event_fn fn, void **ctx, unsigned n)
{
	unsigned k = 0;
	if (q->in_flat) {
		for (uint32_t i = q->flat.head; k < n && i < q->flat.len; i++, k++)
			ctx[k] = q->flat.e[i].fn == fn ? q->flat.e[i].ctx : NULL;
	} else if (q->tail[CUR].wr) {
		/* the current bucket from rd on, into the next blocks (rd may sit at its block's
		 * end or on padding: the next entry is then in the next block) */
		const unit *p = q->rd, *end = q->tail[CUR].wr;
		const block *b = q->cur_head;
		while (k < n && p != end) {
			if (at_block_end(p) || unit_tag(p) == TAG_WIDE2) {
				b = b->next;
				p = &b->u[0];
				continue;
			}
			ctx[k++] = p->h.fn == fn ? p->h.ctx : NULL;
			p += unit_compact(p) ? 1 : 2;
		}
	}
	for (; k < n; k++)
		ctx[k] = NULL;
}
