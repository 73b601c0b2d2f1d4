/* bench tcp: two virtual TCP/IP stacks (Linux personality) joined by ONE simulated wire of
 * a given rate and latency (sim/fabric/wire.h: FIFO serialisation, then propagation), the
 * shape of an ns-3 PointToPoint link between two nodes. Two works:
 *   bulk  one connection moves N bytes of the seeded pattern to a sink that checks them;
 *   rr    N connections each run K request/response transactions of B bytes against an
 *         echo server, every byte checked.
 * The peers that run the same shapes in ns-3 are in bench/peers/ (docs/benchmarks.md).
 * Each run has the same fingerprint. */
#ifndef SIM_BENCH_TCP_BENCH_H
#define SIM_BENCH_TCP_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum tcp_bench_mode {
	TCP_BENCH_BULK,
	TCP_BENCH_RR,
} tcp_bench_mode;

typedef struct tcp_bench_config {
	tcp_bench_mode mode;
	uint64_t bytes;      /* bulk: bytes over the one connection */
	uint64_t conns;      /* rr: connections */
	uint64_t count;      /* rr: transactions per connection */
	uint32_t size;       /* rr: request and response bytes */
	uint64_t rate_bps;   /* the wire's rate, bits per second */
	uint64_t latency_ns; /* the wire's propagation delay */
	uint16_t mtu;        /* IP MTU of both interfaces (and the wire's L2 payload) */
	uint64_t seed;
	uint64_t repeat; /* runs; the fastest is kept */
} tcp_bench_config;

typedef struct tcp_bench_result {
	double wall; /* seconds, the fastest run (the engine's run; set-up and teardown excluded) */
	double cpu;  /* CPU seconds of that run */
	uint64_t events, frames, fingerprint;
	uint64_t virtual_ns;   /* the run's end in virtual time (TIME_WAIT included) */
	uint64_t transfer_ns;  /* bulk: from connected to the sender's orderly close, virtual */
	uint64_t bytes;        /* bulk: bytes the sink verified (0 unless complete and intact) */
	uint64_t transactions; /* rr: transactions completed and verified */
	uint64_t conns_ok;     /* rr: connections whose transactions all completed intact */
	bool ok;               /* everything completed intact */
} tcp_bench_result;

/* 0, or 1 with the reason in err. The caller judges r->ok. */
int tcp_bench_run(const tcp_bench_config *c, tcp_bench_result *r, char *err, size_t errlen);

#endif
