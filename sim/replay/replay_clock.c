/* Capture time stamps with absurd jumps closed (see replay_clock.h). */
#include "sim/replay/replay_clock.h"

#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#define NS_PER_S UINT64_C(1000000000)

void rp_clock_init(rp_clock *c, uint64_t max_gap_ns)
{
	*c = (rp_clock){ .max_gap_ns = max_gap_ns ? max_gap_ns : RP_CLOCK_MAX_GAP_DEFAULT };
}

uint64_t rp_clock_stamp(int64_t sec, int64_t frac_ns)
{
	if (sec < 0)
		return 0; /* before 1970: the jump check reports it against its neighbours */
	if ((uint64_t)sec > (UINT64_MAX - NS_PER_S) / NS_PER_S)
		return UINT64_MAX;
	return (uint64_t)sec * NS_PER_S + (frac_ns > 0 ? (uint64_t)frac_ns : 0);
}

void rp_clock_span_text(uint64_t ns, char *out, size_t outlen)
{
	uint64_t s = ns / NS_PER_S;
	const uint64_t year = UINT64_C(31556952); /* the mean Gregorian year */
	if (s >= 2 * year)
		snprintf(out, outlen, "%" PRIu64 " years", s / year);
	else if (s >= 2 * 86400)
		snprintf(out, outlen, "%" PRIu64 " days", s / 86400);
	else if (s >= 3600 && s % 3600 < 60)
		snprintf(out, outlen, "%" PRIu64 " h", s / 3600);
	else if (s >= 3600)
		snprintf(out, outlen, "%" PRIu64 " h %" PRIu64 " min", s / 3600, s % 3600 / 60);
	else if (s >= 60)
		snprintf(out, outlen, "%" PRIu64 " min %" PRIu64 " s", s / 60, s % 60);
	else
		snprintf(out, outlen, "%" PRIu64 ".%03" PRIu64 " s", s, ns % NS_PER_S / 1000000);
}

/* "2552-03-02 08:33:46 UTC" (the recorded date, whatever the offset) */
static void date_text(uint64_t ns, char *out, size_t outlen)
{
	time_t t = (time_t)(ns / NS_PER_S);
	struct tm tm;
	if (!gmtime_r(&t, &tm) || !strftime(out, outlen, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(out, outlen, "%" PRIu64 " s after 1970", ns / NS_PER_S);
}

bool rp_clock_next(rp_clock *c, uint64_t frame, uint64_t raw_ns, uint64_t *adj_ns, char *why, size_t whylen)
{
	if (!c->have) {
		c->have = true;
		c->last_raw = raw_ns;
		c->last_adj = raw_ns;
		c->last_frame = frame;
		*adj_ns = raw_ns;
		return false;
	}
	__int128 cand = (__int128)raw_ns + c->offset, last = c->last_adj, gap = c->max_gap_ns;
	bool jump = cand > last + gap || cand + gap < last || cand < 0 || cand > (__int128)UINT64_MAX;
	if (jump) {
		c->offset = last - (__int128)raw_ns;
		cand = last;
		c->gaps++;
		if (why && whylen) {
			bool later = raw_ns > c->last_raw;
			char span[48], d_now[48], d_before[48], lim[48];
			rp_clock_span_text(later ? raw_ns - c->last_raw : c->last_raw - raw_ns, span, sizeof(span));
			rp_clock_span_text(c->max_gap_ns, lim, sizeof(lim));
			date_text(raw_ns, d_now, sizeof(d_now));
			date_text(c->last_raw, d_before, sizeof(d_before));
			snprintf(why, whylen,
			         "time stamp jump: frame %" PRIu64 " is dated %s %s frame %" PRIu64 " (%s against %s), a gap no "
			         "conversation has (over %s); it was closed: frame %" PRIu64 " and the frames after it are taken "
			         "from frame %" PRIu64 "'s time on",
			         frame, span, later ? "after" : "before", c->last_frame, d_now, d_before, lim, frame, c->last_frame);
		}
	}
	c->last_raw = raw_ns;
	c->last_adj = (uint64_t)cand;
	c->last_frame = frame;
	*adj_ns = (uint64_t)cand;
	return jump;
}
