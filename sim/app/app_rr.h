/* Request/response client for scenarios: sends a request of `req_size` bytes of the
 * seeded pattern, waits for the same number of bytes back from an echo server, checks
 * them, and repeats `count` times; then closes. Latency per transaction is measured in
 * virtual time. */
#ifndef SIM_APP_RR_H
#define SIM_APP_RR_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/engine/engine.h"
#include "sim/net/sock.h"

typedef struct app_rr app_rr;

typedef struct app_rr_stats {
	bool connected, done;
	int err;
	uint64_t transactions; /* completed and verified */
	uint64_t bytes_sent, bytes_received;
	uint64_t mismatches;
	sim_time lat_min, lat_max, lat_sum;
	sock_mode mode;
	uint32_t fallback_reason;
} app_rr_stats;

app_rr *app_rr_start(stack *st, const sock_opts *o, uint32_t dst, uint16_t port, uint32_t req_size,
                     uint64_t count, uint64_t seed, int *err);
const app_rr_stats *app_rr_stats_get(const app_rr *r);
void app_rr_free(app_rr *r);

#endif
