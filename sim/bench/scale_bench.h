/* bench scale: how the simulator grows. Two worlds written in the scenario language and
 * built like `smcr-sim run` builds them, each run in a child process so that its peak
 * RSS is its own (getrusage of the child):
 *  - a leaf-spine fabric of N stacks (scenarios/scale-10k.scn's fabric at N), half of
 *    them clients that all start at once, ARP storm included, each moving 64 KiB over
 *    SMC-R to a server behind another leaf, every expectation checked;
 *  - N concurrent SMC-R connections (scenarios/scale-1m-conns.scn's shape: client
 *    stacks opening 1,000 connections to each of up to 10 servers, link groups filling
 *    to 255 connections and new ones forming), run until all are on SMC-R, then idle
 *    for a virtual duration with keepalive, TEST_LINK and the link-group timers running. */
#ifndef SIM_BENCH_SCALE_BENCH_H
#define SIM_BENCH_SCALE_BENCH_H

#include <stddef.h>
#include <stdint.h>

/* What a child reports; status says how it ended. */
typedef enum scale_status {
	SCALE_OK,        /* ran; failed says how many expectations failed */
	SCALE_BAD_WORLD, /* the scenario was refused or the world not built (err) */
	SCALE_DIED,      /* the child ended without a result (exit code or signal in err) */
} scale_status;

typedef struct scale_stacks_result {
	scale_status status;
	uint64_t stacks, leaves, per_leaf;
	char host[8]; /* the stacks' host profile */
	double wall; /* seconds: building the world and running it */
	uint64_t events, failed, expectations, fingerprint;
	uint64_t peak_rss; /* bytes, the child's */
	double cpu;        /* the child's user + system seconds (the machine may be shared) */
	char err[160];
} scale_stacks_result;

/* Memory by owner, bytes per connection (both ends), grown from the built world to the
 * end of the idle period. */
typedef struct scale_mem {
	/* TCP: pcbs, their send/receive ring storage, the sockets over them */
	double pcbs, rings, socks;
	/* SMC-R: the core's heap (model/: connections, link groups, links, WR slots, buffer
	 * descriptors, rtokens, indexes), the layer's connections (sim/smc), memory regions
	 * and QPs (sim/rdma), the buffer arena's descriptors and its resident pages */
	double core, layer, mrs, qps, arena_desc, arena_pages;
	double total;
} scale_mem;

typedef struct scale_conns_result {
	scale_status status;
	uint64_t conns; /* connections the world opens */
	uint64_t clients, servers, fanout, per_pair;
	double build_wall;     /* seconds to build the world */
	double establish_wall; /* seconds of wall time until every connection is on SMC-R */
	uint64_t establish_ns; /* virtual time they took */
	uint64_t established;  /* client ends on SMC-R then */
	double idle_wall;      /* seconds of wall time for the idle period */
	uint64_t idle_ns;
	uint64_t events_establish, events_idle, failed, fingerprint;
	uint64_t heap_per_conn; /* heap + resident SMC-R buffer pages grown, per connection */
	/* The growth per connection (both ends) split by owner, each counted block by block
	 * as the allocator sizes them (scale_mem below); other = heap_per_conn less the two. */
	scale_mem mem_tcp, mem_smcr;
	int64_t mem_other;
	uint64_t peak_rss;
	double cpu;
	char err[160];
} scale_conns_result;

/* The fabric's shape for n stacks: n even, 2..64,516; false if no shape fits. */
int scale_stacks_shape(uint64_t n, uint64_t *leaves, uint64_t *per_leaf);
/* The connection world's shape for n connections: n a multiple of min(n, 1000), at most
 * 10,000,000 connections in the 100 x 10 x 1000 pattern's growth; false if none fits. */
int scale_conns_shape(uint64_t n, uint64_t *clients, uint64_t *servers, uint64_t *fanout, uint64_t *per_pair);

/* Run one world in a child process and wait for it. */
/* host: the stacks' host profile (none, linux, zos; NULL: the personality's, linux) */
void scale_bench_stacks(uint64_t stacks, const char *host, scale_stacks_result *r);
void scale_bench_conns(uint64_t conns, uint64_t idle_ns, scale_conns_result *r);

/* Least-squares slope of log(y) against log(x): the growth exponent. */
double scale_fit_exponent(const double *x, const double *y, size_t n);

#endif
