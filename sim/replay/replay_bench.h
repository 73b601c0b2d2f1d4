/* bench replay: the decode rate of `smcr-sim replay` (mode 1) in frames per second, next
 * to `tshark -n -r FILE` on the same file (both read the whole file; tshark's output goes
 * to /dev/null). Without a file, a large trace is made from a base trace
 * (trace_copies.h) in a temporary directory. */
#ifndef SIM_REPLAY_BENCH_H
#define SIM_REPLAY_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REPLAY_BENCH_DEFAULT_BASE "traces/linux-6.1-smcr-v2-rxe.pcapng"

typedef struct replay_bench_config {
	const char *file; /* the capture to decode, or NULL: make one */
	const char *base; /* the trace to copy (NULL: the default base) */
	unsigned copies;
	uint64_t repeat; /* decoder runs (tshark: at most 2); the fastest is kept */
	bool tshark;     /* also time tshark */
	bool keep;       /* keep the made trace */
} replay_bench_config;

typedef enum replay_bench_tshark {
	REPLAY_BENCH_TSHARK_SKIPPED,
	REPLAY_BENCH_TSHARK_NOT_RUN, /* it could not be started: why */
	REPLAY_BENCH_TSHARK_FAILED,  /* it exited badly: status */
	REPLAY_BENCH_TSHARK_TIMED,
} replay_bench_tshark;

typedef struct replay_bench_result {
	char *file;     /* what was decoded */
	char *made_dir; /* the made trace's directory, or NULL */
	bool made, keep;
	uint64_t frames, bytes, errors;
	size_t lgrs, links, conns;
	double decode_s; /* the fastest decode */
	replay_bench_tshark tshark;
	char tshark_why[256];
	int tshark_status;
	double tshark_s; /* the fastest tshark run */
	uint64_t tshark_runs;
} replay_bench_result;

/* 0, or 2 with the reason in err (the trace cannot be made, the file does not decode).
 * Free the result in any case: it removes the made trace unless kept. */
int replay_bench_run(const replay_bench_config *c, replay_bench_result *r, char *err, size_t errlen);
void replay_bench_result_free(replay_bench_result *r);

#endif
