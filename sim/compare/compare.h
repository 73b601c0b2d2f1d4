/* `smcr-sim compare FILE`: what SMC-R does for a scenario's workloads beside TCP, the
 * table IBM's SMC-R performance reports print. The scenario runs twice with the same
 * seed: as written, and with every application on TCP (smc=no on every app, listeners
 * included). Per workload (a connecting app): transaction latency (mean, p50, p99), the
 * transaction rate or the throughput, and the CPU time per transaction (per MiB for
 * streaming) of its client's and its server's stack, each with the delta of SMC-R against
 * TCP in percent. Printed as text or JSON (docs/schema/compare.schema.json); drawn as SVG
 * (latency distributions and CPU side by side). */
#ifndef SIM_COMPARE_H
#define SIM_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/app/app_hist.h"
#include "sim/scenario/scn_model.h"
#include "sim/world/world.h"

/* The runs: as written, and all on TCP. */
enum { COMPARE_SMCR,
       COMPARE_TCP,
       COMPARE_NRUNS };

typedef struct compare_side {
	bool has; /* the workload ran (had a connection) */
	uint64_t conns, completed, failed;
	uint64_t ops;
	uint64_t rate_milli; /* operations per second x 1000 */
	uint64_t throughput_bps;
	app_hist lat;                        /* transactions (rr, crr) */
	uint64_t smcr_conns;                 /* of its connections, on SMC-R (the rest TCP or fallen back) */
	uint64_t cpu_client, cpu_server;     /* CPU per transaction or per MiB (ns) of each stack; */
	bool has_cpu_client, has_cpu_server; /* false: none to divide by */
	bool costs_client, costs_server;     /* the hosts count CPU time at all */
} compare_side;

typedef struct compare_workload {
	char name[48];               /* the connecting app */
	const char *kind;            /* bulk, echo, rr, crr */
	bool transactional;          /* rr, crr: latency and transactions; else throughput, per MiB */
	char client[48], server[48]; /* stacks */
	/* workloads with an end on the client's / the server's stack, this one included: over 1,
	 * that stack's CPU is theirs together (the hosts account per stack, not per workload) */
	uint32_t shared_client, shared_server;
	compare_side run[COMPARE_NRUNS];
} compare_workload;

typedef struct compare_result {
	const char *scenario, *title;
	uint64_t seed;
	uint64_t fingerprint[COMPARE_NRUNS];
	uint64_t failed[COMPARE_NRUNS]; /* expectations the run did not meet */
	uint64_t end_ns[COMPARE_NRUNS];
	compare_workload *w;
	size_t n;
} compare_result;

typedef struct compare_opts {
	uint64_t seed; /* used when has_seed */
	bool has_seed;
	uint64_t end_ns; /* used when has_end */
	bool has_end;
} compare_opts;

/* Run scn both ways (it is not changed). 0, or 2 with the reason in err (a world that
 * cannot be built). */
int compare_run(const scn_scenario *scn, const compare_opts *o, compare_result *r, char *err, size_t errlen);
void compare_result_free(compare_result *r);

/* The change from TCP to SMC-R in parts per million of TCP's figure; false when TCP's
 * is 0. */
bool compare_delta_ppm(uint64_t smcr, uint64_t tcp, int64_t *ppm);

void compare_print_text(const compare_result *r, FILE *out);
void compare_print_json(const compare_result *r, FILE *out);
/* The picture: per workload its latency distributions (SMC-R, TCP) or throughput, and the
 * CPU per transaction or MiB of client and server, side by side. */
void compare_svg(const compare_result *r, FILE *out);

#endif
