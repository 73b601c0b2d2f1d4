/* Bulk transfer for scenarios: a sender that connects and streams N bytes of the seeded
 * pattern, then closes; a sink that accepts any number of connections and checks every
 * byte against the same pattern (each connection starts at offset 0). Both count bytes
 * and use only the socket API. */
#ifndef SIM_APP_BULK_H
#define SIM_APP_BULK_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/engine/engine.h"
#include "sim/net/sock.h"

typedef struct app_bulk_sender app_bulk_sender;
typedef struct app_bulk_sink app_bulk_sink;

typedef struct app_bulk_sender_stats {
	bool connected;
	bool done; /* everything sent and the connection closed in order */
	int err;   /* connect or connection error, 0 if none */
	uint64_t bytes_sent;
	sim_time connected_at, done_at;
	sock_mode mode;
	uint32_t fallback_reason;
} app_bulk_sender_stats;

typedef struct app_bulk_sink_stats {
	uint64_t accepted;              /* connections */
	uint64_t completed;             /* connections that reached end of stream */
	uint64_t bytes;                 /* verified bytes over all connections */
	uint64_t mismatches;            /* connections whose content differed */
	uint64_t first_mismatch_offset; /* stream offset of the first wrong byte */
	uint64_t errors;                /* connections that ended with an error */
	sock_mode last_mode;
	uint32_t last_fallback_reason;
} app_bulk_sink_stats;

app_bulk_sender *app_bulk_sender_start(stack *st, const sock_opts *o, uint32_t dst, uint16_t port,
                                       uint64_t bytes, uint64_t seed, int *err);
const app_bulk_sender_stats *app_bulk_sender_stats_get(const app_bulk_sender *a);
void app_bulk_sender_free(app_bulk_sender *a);

app_bulk_sink *app_bulk_sink_start(stack *st, const sock_opts *o, uint16_t port, uint64_t seed, int *err);
const app_bulk_sink_stats *app_bulk_sink_stats_get(const app_bulk_sink *a);
void app_bulk_sink_free(app_bulk_sink *a);

#endif
