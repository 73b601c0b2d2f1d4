/* Capture time stamps as every replay mode uses them: a jump between two frames that no
 * real conversation has (hours or years, either way) is reported with both frame
 * numbers and closed, so that a mangled time stamp (one flipped byte dates a frame in
 * 2552) neither makes a simulation wait for centuries of virtual time nor stretches a
 * capture's span.
 *
 * Each frame's time is its recorded time plus an offset. A frame that lies more than
 * max_gap after or before the frame read just before it is taken at that frame's time:
 * the offset changes by the jump, and the frames after it keep their distances to it. A
 * single mangled frame thus costs two closed gaps (into the wrong date and back out of
 * it); a capture that really resumed hours later costs one. Smaller steps back in time
 * (frames out of order, copies from two capture points) are kept as they are. */
#ifndef SIM_REPLAY_CLOCK_H
#define SIM_REPLAY_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One hour: a longer silence between two frames of one capture is taken for damage. */
#define RP_CLOCK_MAX_GAP_DEFAULT (3600ull * 1000000000ull)

typedef struct rp_clock {
	uint64_t max_gap_ns; /* 0: RP_CLOCK_MAX_GAP_DEFAULT */
	bool have;
	uint64_t last_raw, last_adj; /* the frame before: recorded and adjusted time */
	uint64_t last_frame;
	__int128 offset; /* adjusted = recorded + offset */
	uint64_t gaps;   /* gaps closed so far */
} rp_clock;

void rp_clock_init(rp_clock *c, uint64_t max_gap_ns);

/* A record's time stamp in nanoseconds since 1970 (seconds and the fraction libpcap
 * gives, nanoseconds when the capture was opened with nanosecond precision), saturating
 * instead of wrapping: a time stamp past the year 2554 no longer fits 64 bits. */
uint64_t rp_clock_stamp(int64_t sec, int64_t frac_ns);

/* The time to use for frame `frame` recorded at raw_ns. When the frame is a jump beyond
 * max_gap_ns from the frame before, the jump is closed and a sentence naming both frames,
 * both dates and the distance is written to why (when why is not NULL); returns true
 * then. */
bool rp_clock_next(rp_clock *c, uint64_t frame, uint64_t raw_ns, uint64_t *adj_ns, char *why, size_t whylen);

/* "525 years", "3 h 12 min", "40 s": a distance in words for messages. */
void rp_clock_span_text(uint64_t ns, char *out, size_t outlen);

#endif
