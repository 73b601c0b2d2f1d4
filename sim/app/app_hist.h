/* A distribution of durations (transaction latencies, connect and completion times):
 * exact count, sum, minimum and maximum, and counts in log-linear buckets for the
 * percentiles. Below 128 ns every nanosecond has its bucket; above, each power of two
 * is split into 64 equal buckets, so a bucket is at most 1/64 of its values wide and a
 * percentile (its bucket's middle, kept within [min, max]) is within 1/128 (0.8 %) of
 * the recorded value it stands for. Integer arithmetic only: the same samples give the
 * same figures in every build.
 *
 * Memory is bounded whatever is recorded: the counts cover only the buckets between the
 * smallest and largest sample (grown in steps of 16 buckets), at most 3,776 counters
 * (30 KiB) for samples from 0 to 2^64-1 ns, about 100 bytes for samples within 10 % of
 * each other; an empty distribution holds nothing. */
#ifndef SIM_APP_HIST_H
#define SIM_APP_HIST_H

#include <stdbool.h>
#include <stdint.h>

/* The relative precision of a percentile, stated in reports: 1/APP_HIST_PRECISION. */
#define APP_HIST_PRECISION 128u

typedef struct app_hist {
	uint64_t count;
	uint64_t sum; /* saturates at 2^64-1 */
	uint64_t min, max;
	uint64_t *b; /* counts of buckets [lo, lo + n) */
	uint32_t lo, n;
} app_hist;

/* A zeroed app_hist is empty; free releases its counts (it is empty again). */
void app_hist_free(app_hist *h);
void app_hist_add(app_hist *h, uint64_t v);
void app_hist_merge(app_hist *into, const app_hist *from);
/* The mean, rounded down; 0 when empty. */
uint64_t app_hist_mean(const app_hist *h);
/* The value at rank ceil(count * num / den) (at least 1) in increasing order: num/den =
 * 1/2 is the median, 999/1000 the 99.9th percentile, 1/1 the maximum. 0 when empty. */
uint64_t app_hist_quantile(const app_hist *h, uint64_t num, uint64_t den);

/* The statistics reports print and expectations name, in this order. */
typedef enum app_stat {
	APP_STAT_MIN,
	APP_STAT_MEAN,
	APP_STAT_P50,
	APP_STAT_P90,
	APP_STAT_P99,
	APP_STAT_P999,
	APP_STAT_MAX,
	APP_NSTATS
} app_stat;
const char *app_stat_name(app_stat s); /* "min", "mean", "p50", "p90", "p99", "p99.9", "max" */
/* The JSON key: "min_ns", "mean_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns". */
const char *app_stat_key(app_stat s);
uint64_t app_hist_stat(const app_hist *h, app_stat s);

#endif
