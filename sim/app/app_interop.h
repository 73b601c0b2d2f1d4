/* The application of the Linux interoperability test, on the socket API: the exchange of
 * sim/app/interop_proto.h, spoken by tests/interop/smc_peer.c on the Linux side.
 *
 * Client: connects connection 1, runs it to its close (first contact: it creates the link
 * group), then connects 2..N together (they reuse it). Server: accepts N connections.
 * Each connection sends its share (the client its number, then the pattern), checks every
 * byte it receives, and once both directions are complete calls the `complete` hook
 * (the connection is still open: the host can read its SMC-R state), shuts its sending
 * side down, reads the peer's end of stream and closes. */
#ifndef SIM_APP_INTEROP_H
#define SIM_APP_INTEROP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/engine.h"
#include "sim/net/sock.h"

typedef struct app_interop app_interop;

typedef struct app_interop_conn {
	uint64_t k; /* connection number (the client's), 0 until known */
	bool connected;
	sock_mode mode; /* when connected */
	uint32_t fallback_reason;
	uint64_t sent, received; /* bytes, the connection number included */
	bool verified;           /* all expected bytes arrived and matched */
	uint64_t mismatch_at;    /* first wrong byte's offset in the pattern, if any */
	bool eof;                /* the peer's end of stream came after everything */
	bool closed;             /* orderly close done (our shutdown, their end, close) */
	int err;                 /* connect or connection error, 0 if none */
} app_interop_conn;

/* Called once per connection when both directions are complete, before shutdown. */
typedef void (*app_interop_complete_fn)(void *user, const app_interop_conn *c, sock *s);

/* connect_wait: connection 1 is retried every 300 ms while refused or unanswered, for
 * this long (the peer may still be starting). */
app_interop *app_interop_client_start(stack *st, const sock_opts *o, uint32_t dst, uint16_t port, unsigned conns,
                                      uint64_t bytes, sim_time connect_wait, app_interop_complete_fn fn, void *user,
                                      int *err);
app_interop *app_interop_server_start(stack *st, const sock_opts *o, uint16_t port, unsigned conns, uint64_t bytes,
                                      app_interop_complete_fn fn, void *user, int *err);
/* Every connection has closed or failed (the client: or could not be opened). */
bool app_interop_done(const app_interop *a);
/* Connections in the order they were opened or accepted. */
size_t app_interop_n_conns(const app_interop *a);
const app_interop_conn *app_interop_conn_get(const app_interop *a, size_t i);
void app_interop_free(app_interop *a);

#endif
