/* Log-linear buckets: value v < 128 is bucket v; above, with e = floor(log2 v) >= 7,
 * bucket 128 + 64 (e - 7) + (v >> (e - 6)) - 64. */
#include "sim/app/app_hist.h"

#include <stdlib.h>
#include <string.h>

#include "sim/engine/oom.h"

#define EXACT 128u /* values below have a bucket each */
#define SUB 64u    /* buckets per power of two above */
#define NBUCKETS (EXACT + (64u - 7u) * SUB)
#define GROW 16u /* the range grows in steps of this many buckets */

static uint32_t bucket_of(uint64_t v)
{
	if (v < EXACT)
		return (uint32_t)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v);
	return EXACT + (e - 7u) * SUB + (uint32_t)(v >> (e - 6u)) - SUB;
}

/* The smallest value of bucket i and its width. */
static uint64_t bucket_low(uint32_t i, uint64_t *width)
{
	if (i < EXACT) {
		*width = 1;
		return i;
	}
	uint32_t k = i - EXACT;
	unsigned e = 7u + k / SUB;
	*width = 1ull << (e - 6u);
	return (uint64_t)(SUB + k % SUB) << (e - 6u);
}

void app_hist_free(app_hist *h)
{
	free(h->b);
	memset(h, 0, sizeof(*h));
}

/* Make buckets [lo, hi] addressable. */
static void cover(app_hist *h, uint32_t lo, uint32_t hi)
{
	if (h->n && lo >= h->lo && hi < h->lo + h->n)
		return;
	if (h->n) {
		lo = lo < h->lo ? lo : h->lo;
		hi = hi > h->lo + h->n - 1 ? hi : h->lo + h->n - 1;
	}
	lo -= lo % GROW;
	hi = hi - hi % GROW + GROW - 1;
	if (hi >= NBUCKETS)
		hi = NBUCKETS - 1;
	uint32_t n = hi - lo + 1;
	uint64_t *b = sim_xcalloc(n, sizeof(*b), "a latency distribution");
	if (h->n)
		memcpy(b + (h->lo - lo), h->b, h->n * sizeof(*b));
	free(h->b);
	h->b = b;
	h->lo = lo;
	h->n = n;
}

void app_hist_add(app_hist *h, uint64_t v)
{
	uint32_t i = bucket_of(v);
	cover(h, i, i);
	h->b[i - h->lo]++;
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->sum = h->sum + v < h->sum ? UINT64_MAX : h->sum + v;
	h->count++;
}

void app_hist_merge(app_hist *into, const app_hist *from)
{
	if (!from->count)
		return;
	cover(into, from->lo, from->lo + from->n - 1);
	for (uint32_t i = 0; i < from->n; i++)
		into->b[from->lo + i - into->lo] += from->b[i];
	if (!into->count || from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
	into->sum = into->sum + from->sum < into->sum ? UINT64_MAX : into->sum + from->sum;
	into->count += from->count;
}

uint64_t app_hist_mean(const app_hist *h)
{
	return h->count ? h->sum / h->count : 0;
}

uint64_t app_hist_quantile(const app_hist *h, uint64_t num, uint64_t den)
{
	if (!h->count || !den)
		return 0;
	unsigned __int128 r = ((unsigned __int128)h->count * num + den - 1) / den;
	uint64_t rank = r < 1 ? 1 : r > h->count ? h->count
	                                         : (uint64_t)r;
	uint64_t seen = 0;
	for (uint32_t i = 0; i < h->n; i++) {
		seen += h->b[i];
		if (seen < rank)
			continue;
		uint64_t width, low = bucket_low(h->lo + i, &width);
		uint64_t mid = low + (width - 1) / 2;
		return mid < h->min ? h->min : mid > h->max ? h->max
		                                            : mid;
	}
	return h->max;
}

static const struct {
	const char *name, *key;
	uint64_t num, den;
} stats[APP_NSTATS] = {
	[APP_STAT_MIN] = { "min", "min_ns", 0, 1 },
	[APP_STAT_MEAN] = { "mean", "mean_ns", 0, 1 },
	[APP_STAT_P50] = { "p50", "p50_ns", 50, 100 },
	[APP_STAT_P90] = { "p90", "p90_ns", 90, 100 },
	[APP_STAT_P99] = { "p99", "p99_ns", 99, 100 },
	[APP_STAT_P999] = { "p99.9", "p999_ns", 999, 1000 },
	[APP_STAT_MAX] = { "max", "max_ns", 1, 1 },
};

const char *app_stat_name(app_stat s) { return (unsigned)s < APP_NSTATS ? stats[s].name : "?"; }
const char *app_stat_key(app_stat s) { return (unsigned)s < APP_NSTATS ? stats[s].key : "?"; }

uint64_t app_hist_stat(const app_hist *h, app_stat s)
{
	switch (s) {
	case APP_STAT_MIN:
		return h->count ? h->min : 0;
	case APP_STAT_MEAN:
		return app_hist_mean(h);
	case APP_STAT_MAX:
		return h->count ? h->max : 0;
	case APP_STAT_P50:
	case APP_STAT_P90:
	case APP_STAT_P99:
	case APP_STAT_P999:
		return app_hist_quantile(h, stats[s].num, stats[s].den);
	case APP_NSTATS:
		break;
	}
	return 0;
}
