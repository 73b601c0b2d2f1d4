/* What a world's applications and hosts measured (sim/world/world_results.c), for the
 * run's output, expectations and `smcr-sim compare`. */
#ifndef SIM_WORLD_RESULTS_H
#define SIM_WORLD_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/app/app_result.h"
#include "sim/host/host.h"
#include "sim/world/world.h"

/* A stack's CPU time beside the work of its applications' connections. */
typedef struct world_cpu {
	const char *profile; /* the host's cost profile */
	bool costs;          /* false: profile none, every figure 0 */
	unsigned ncpus;
	host_cpu_stats tot; /* summed over its CPUs */
	uint64_t busy;      /* every category */
	uint64_t busiest;   /* the busiest CPU's busy time */
	uint64_t ends;      /* connection ends of its applications */
	uint64_t txns;      /* transactions they completed or answered */
	uint64_t bytes;     /* payload they wrote and read */
	sim_time t0, t1;    /* the window: its first connect call or accept to its last end (or now);
	                       * without connections the whole run */
} world_cpu;

void world_cpu_of(const world *w, uint32_t stack_idx, world_cpu *c);
/* One for each stack of the scenario (g_free it). */
world_cpu *world_cpu_all(const world *w);
/* busy / (window x CPUs), the busiest CPU's busy / window: parts per billion. */
uint64_t world_cpu_util_ppb(const world_cpu *c, uint64_t busy);
uint64_t world_cpu_busiest_ppb(const world_cpu *c);
/* busy per transaction, per MiB (ns; 0 when there is none). */
uint64_t world_cpu_per_txn(const world_cpu *c, uint64_t busy);
uint64_t world_cpu_per_mib(const world_cpu *c, uint64_t busy);

/* The totals of app `app` (scenario index; instance: one connection of it, 0: all), over
 * the flows it opened (a connecting app) or served (a listener, with its ends' bytes).
 * Free with app_totals_free. */
void world_app_totals(const world *w, uint32_t app, uint32_t instance, app_totals *t);
/* The same by name (false, and empty totals, if no such app). */
bool world_app_totals_by_name(const world *w, const char *name, app_totals *t);

/* Formats for reports: "5.91us", "9.23 Gbps", "12.5%" (3 significant digits). */
#define WORLD_FMT_LEN 32
char *world_fmt_ns(uint64_t ns, char *buf, size_t len);
char *world_fmt_bps(uint64_t bps, char *buf, size_t len);
char *world_fmt_ppb(uint64_t ppb, char *buf, size_t len);
/* Operations per second given in thousandths: "52.3 K/s". */
char *world_fmt_rate_milli(uint64_t milli, char *buf, size_t len);

#endif
