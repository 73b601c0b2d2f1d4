/* The recorded application: on one stack, what the application of a recorded host did,
 * as a script per connection (re-drive, sim/redrive/redrive_app.c derives it from a capture).
 *
 * It listens on the given ports and opens its active connections when their gate opens.
 * Each connection then runs its steps in order, each once its gate is open:
 *   READ n      one receive call of n bytes, made when n bytes are there (or the receive
 *               buffer is full, or the peer closed): the peer hears of it as the core's
 *               consumer-update rule decides, as after one recv() on Linux;
 *   WRITE n     n bytes of the connection's pattern, given to the socket as it takes them;
 *   SHUTDOWN, CLOSE, ABORT  (with `after_peer_close`: once the peer's close has arrived).
 * A gate is opaque to the app: the caller's gate function says from when a step may run
 * (SIM_TIME_NEVER: not yet; app_recorded_poke() when that may have changed). A step held
 * by something other than its gate (data that does not come, a peer close that does not
 * arrive) for `stall_ns` runs with what is there and the app says so through the note
 * function. A step with a think time waits that long after the step before it was done. An accepted connection is matched to its script by the peer's alert token
 * (SMC-R), else it takes the next unmatched passive script of its port; one without a
 * script, and a script marked `drain`, reads whatever arrives and closes after the peer. */
#ifndef SIM_APP_RECORDED_H
#define SIM_APP_RECORDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/engine.h"
#include "sim/smc/smc_layer.h"
#include "sim/net/sock.h"

typedef enum app_rec_op {
	APP_REC_READ,
	APP_REC_WRITE,
	APP_REC_SHUTDOWN,
	APP_REC_CLOSE,
	APP_REC_ABORT,
} app_rec_op;

typedef struct app_rec_step {
	app_rec_op op;
	uint64_t bytes; /* READ, WRITE */
	uint64_t gate;
	bool after_peer_close; /* SHUTDOWN, CLOSE, ABORT: the peer closed first */
	uint64_t think_ns;     /* not before this long after the connection's previous step was
	                        * done (its connect for the first): the application's think time */
} app_rec_step;

typedef struct app_rec_conn {
	bool active;         /* this side connects (else it accepts) */
	uint32_t peer_ip;    /* active: the server (host order) */
	uint16_t port;       /* the server's port */
	uint64_t open_gate;  /* active: when to connect */
	bool has_peer_token; /* passive: the peer's RMBE alert token names it */
	uint32_t peer_token;
	bool drain;  /* no script could be derived: read all, close after the peer */
	uint32_t id; /* the caller's name for it, in notes */
	app_rec_step *steps;
	size_t n_steps;
} app_rec_conn;

typedef struct app_rec_script {
	uint16_t *listen_ports;
	size_t n_listen;
	app_rec_conn *conns;
	size_t n_conns;
	/* an operator ended every link group (smc_layer_terminate_all: `rmmod smc`, smcr-sim
	 * interop --end-lgr) when this gate opens; 0: never */
	uint64_t end_lgr_gate; /* index + 1 */
} app_rec_script;

typedef sim_time (*app_rec_gate_fn)(void *ctx, uint64_t gate);
typedef void (*app_rec_note_fn)(void *ctx, const char *text);

typedef struct app_rec_stats {
	uint64_t opened, accepted, unmatched, steps_done, stalled;
	uint64_t bytes_in, bytes_out;
} app_rec_stats;

typedef struct app_recorded app_recorded;

/* The script is copied. Ports it cannot listen on are told through the note function;
 * NULL (with the reason in err) is kept for failures that leave nothing to run. */
app_recorded *app_recorded_start(stack *st, smc_layer *layer, const app_rec_script *script, uint64_t seed,
                                 sim_time stall_ns, app_rec_gate_fn gate, app_rec_note_fn note, void *ctx,
                                 char *err, size_t errlen);
/* Told of every step a scripted connection completes: the script's connection id, the
 * step's index, when the step could first run (its gate, think time and the step before
 * allowed it), when it was done, and whether the socket is on SMC-R. For measurements
 * (applicability). */
typedef void (*app_rec_step_fn)(void *ctx, uint32_t conn_id, size_t step, sim_time ready, sim_time done, bool smcr);
void app_recorded_on_step(app_recorded *a, app_rec_step_fn fn, void *ctx);
/* Gates may have opened: look again (from an event, not from inside the caller). */
void app_recorded_poke(app_recorded *a);
void app_recorded_free(app_recorded *a);

#endif
