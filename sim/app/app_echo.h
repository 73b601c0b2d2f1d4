/* Echo server for scenarios: every byte received is sent back on the same connection;
 * when the client closes its side, the server finishes sending and closes too. With a
 * pattern seed it also checks that what arrives is the seeded pattern (as sent by
 * app_rr clients). Back-pressure: it stops reading while its echo is not yet accepted. */
#ifndef SIM_APP_ECHO_H
#define SIM_APP_ECHO_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/net/sock.h"

typedef struct app_echo app_echo;

typedef struct app_echo_stats {
	uint64_t accepted, completed, errors;
	uint64_t bytes_in, bytes_out;
	uint64_t mismatches; /* connections whose content was not the pattern */
	sock_mode last_mode;
	uint32_t last_fallback_reason;
} app_echo_stats;

/* check_pattern false: echo anything without checking. */
app_echo *app_echo_start(stack *st, const sock_opts *o, uint16_t port, bool check_pattern,
                         uint64_t seed, int *err);
const app_echo_stats *app_echo_stats_get(const app_echo *e);
void app_echo_free(app_echo *e);

#endif
