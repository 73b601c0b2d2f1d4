/* What applications measured: per connection (app_flow_result) and summed over an
 * application's connections (app_totals).
 *
 *   operations    rr and crr: transactions completed; bulk and echo: exchanges completed
 *                 (one a connection)
 *   bytes         payload the client end wrote and read (a listener's totals: its end)
 *   latency       rr, crr: each transaction from its start (the request's first send
 *                 call; crr: the connect call) to the response's last byte read
 *   connect       the connect call (the SYN) to the connection being usable for data
 *                 (the TCP handshake, and the CLC handshake when SMC-R is tried)
 *   completion    (flow completion time) the connect call to the exchange's last byte
 *                 read by its receiver: a bulk flow's at the sink, an echo's, rr's and
 *                 crr's at the client
 *   throughput    the payload both ways over the time from the connection being usable
 *                 to its exchange's completion (or its last byte read so far)
 *
 * All times are host times (stack_now). Distributions: sim/app/app_hist.h. */
#ifndef SIM_APP_RESULT_H
#define SIM_APP_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/app/app.h"

typedef struct app_conn_result {
	bool connected; /* it became usable */
	bool done;      /* its exchange completed (fct_ns is valid) */
	uint64_t ops;
	uint64_t bytes_sent, bytes_received;
	uint64_t connect_ns; /* when connected */
	uint64_t fct_ns;     /* when done */
	sim_time t_first;    /* usable (0: not connected) */
	sim_time t_last;     /* its exchange completed, or its last byte read so far */
	uint64_t throughput_bps;
	const app_hist *lat; /* its transactions (NULL: none) */
} app_conn_result;

void app_flow_result(const app_flow *f, app_conn_result *r);

typedef struct app_totals {
	uint64_t conns;     /* connections opened (or tried) */
	uint64_t connected; /* of them, usable */
	uint64_t done;      /* of them, exchange completed */
	uint64_t failed;    /* ended with an error before completing */
	uint64_t ops;
	uint64_t bytes_sent, bytes_received;
	sim_time t_first, t_last; /* the first connection usable, the last completion (0: none) */
	app_hist lat, connect, fct;
} app_totals;

/* Zeroed totals are empty; free releases their distributions. Adds f as its client saw
 * it, or (server) with the server end's bytes and operations (requests answered, else
 * exchanges completed); latency, connect and completion times are the client's either way. */
void app_totals_add(app_totals *t, const app_flow *f, bool server);
void app_totals_free(app_totals *t);
/* Payload bits per second both ways over [t_first, t_last]; 0 when the span is empty. */
uint64_t app_totals_throughput(const app_totals *t);
/* Operations per second over the same span, times 1000 (milli-operations per second). */
uint64_t app_totals_rate_milli(const app_totals *t);

#endif
