/* The applications on the socket API (sim/net/sock.h): what the scenarios run and what the
 * benchmarks and tests drive directly. One library, one behaviour:
 *
 *   connecting kinds   bulk  write `bytes` of the pattern (or for `duration`), then shut
 *                            down (to a sink)
 *                      echo  write `bytes`, read them back (to an echo server)
 *                      rr    `count` transactions (or as many as `duration` allows):
 *                            `request` bytes, then `response` bytes back (to a
 *                            responder), `think` apart
 *                      crr   the same, each transaction on a connection of its own:
 *                            connect, request, response, close (netperf TCP_CRR)
 *   listening kinds    sink       read and check everything
 *                      echo       send back every byte read (back-pressure: it stops
 *                                 reading with 256 KiB not yet written back)
 *                      responder  answer every `request` bytes with `response` bytes
 *
 * A connection is a flow with two ends (app_flow: the client's end and the server's), so
 * every byte is checked against the seeded pattern of its direction
 * (sim/engine/pattern.h; client to server: seed_up, back: seed_down) and counted on both
 * sides. Bytes are generated and checked where the socket shows its buffers
 * (sock_send_fill, sock_recv_visit) when it can. Applications cannot tell SMC-R from TCP
 * except through the socket's mode, recorded when the connection opens.
 *
 * Who pairs the ends: a world (sim/world) keeps every flow, opens the clients and, when its
 * listener accepts, finds the flow the connection belongs to (app_listen_hooks.match).
 * Used alone (app_connect, app_serve), a client owns its flow and a listener makes one per
 * connection it accepts, from the seed and client workload it was given.
 *
 * Every time an application takes (a transaction's start and end, connect and close) is
 * stack_now() of its stack: the host's time of the work in hand (sim/host/host.h), later
 * than the engine's when the host's CPUs are busy. What a flow measured is read with
 * app_flow_result (sim/app/app_result.h). */
#ifndef SIM_APP_H
#define SIM_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/app/app_hist.h"
#include "sim/engine/engine.h"
#include "sim/net/bytering.h"
#include "sim/net/sock.h"

typedef enum app_kind {
	APP_BULK,
	APP_ECHO,
	APP_RR,
	APP_SINK,
	APP_RESPONDER,
	APP_CRR,
} app_kind;

/* What a client does on its connection; the server follows it (a responder answers with
 * the client's response size). */
typedef struct app_spec {
	app_kind kind;        /* APP_BULK, APP_ECHO, APP_RR, APP_CRR */
	uint64_t bytes;       /* bulk, echo */
	uint64_t request;     /* rr, crr */
	uint64_t response;    /* rr, crr */
	uint64_t count;       /* rr: transactions per connection; crr: per client */
	uint64_t think_ns;    /* rr, crr: pause after each transaction (0: none) */
	uint64_t duration_ns; /* bulk, rr, crr: work this long instead of bytes/count (0: no) */
	uint64_t write;       /* bytes per send call, and per receive call at the listener
	                         (qperf's msg_size); 0: 64 KiB */
	bool close_after;     /* close once the exchange is done (else the owner closes it) */
} app_spec;

/* A spec whose flows need an instance (app_client): crr, or think time. */
bool app_spec_needs_client(const app_spec *sp);

typedef struct app_flow app_flow;

/* One side of a connection. The owner reads it; the library writes it. */
typedef struct app_end {
	app_flow *f;
	stack *st;
	sock *s; /* NULL once closed by us */
	bool server;
	bool connected; /* on_connect / accepted */
	bool ended;     /* closed, failed or refused */
	bool closing;   /* we closed */
	bool eof;       /* the peer's end of stream read */
	bool shut;      /* we sent our FIN (shutdown) */
	bool bad;       /* received bytes that differ from the pattern */
	bool finished;  /* client: its exchange is complete (its last byte written or read) */
	int err;        /* the socket error that ended it, 0 if none */
	sock_mode mode;
	uint32_t reason;               /* fallback reason (mode FALLBACK) */
	uint64_t sent;                 /* bytes written */
	uint64_t received;             /* bytes received and verified (counting stops at the first wrong byte) */
	uint64_t rx_total;             /* bytes received, verified or not */
	uint64_t txns;                 /* rr: transactions completed (client) / requests answered (server) */
	uint64_t req_part;             /* rr client: bytes of the current request sent; responder: received */
	uint64_t resp_part;            /* rr client: bytes of the current answer received; responder: still to send */
	sim_time t_connected, t_ended; /* host ns: connected (usable), ended (0 = not yet) */
	sim_time t_last_rx;            /* host ns: the last bytes read (0 = none yet) */
} app_end;

/* What the owner hears of a flow's ends. */
typedef struct app_hooks {
	/* The end is connected (a client's on_connect, a server's accept), its mode recorded. */
	void (*connected)(void *user, app_end *e, sock *s);
	/* The end ended (closed by us or the peer, failed): once, before its socket is closed. */
	void (*closed)(void *user, app_end *e);
	/* A client's connect failed (err), before `closed`: s is its socket, still open to be
	 * asked why (its SYNs, the next hop ARP never found), or NULL when the connect call
	 * itself refused (no route); then `closed` does not follow. */
	void (*connect_failed)(void *user, app_end *e, sock *s, int err);
} app_hooks;

typedef struct app_client app_client;

struct app_flow {
	const app_spec *spec; /* what the client runs */
	app_kind server_kind; /* what the server end runs: APP_SINK, APP_ECHO, APP_RESPONDER */
	uint64_t server_work_ns; /* a responder's own CPU time per request, before it answers
	                            (the listener's work=; 0: none) */
	uint64_t seed_up, seed_down;
	app_end c, srv;
	const app_hooks *hooks; /* or NULL */
	void *user;
	app_client *client;   /* its instance (crr, think time), or NULL */
	sim_time t_start;     /* host ns: the connect call (the SYN) */
	sim_time t_txn;       /* host ns: the transaction in hand began */
	sim_time t_done;      /* host ns: the client's exchange completed (finished) */
	app_hist *lat;        /* transaction latencies (rr, crr), NULL until the first */
	bytering echo;        /* an echo server end: bytes read, not yet written back */
};

/* A flow whose ends are not open yet. spec must outlive it. */
void app_flow_init(app_flow *f, const app_spec *spec, app_kind server_kind, uint64_t seed_up, uint64_t seed_down,
                   const app_hooks *hooks, void *user);
/* Open the client end: 0, or the error (then c.err is set and c.ended). */
int app_flow_connect(app_flow *f, stack *st, const sock_opts *o, uint32_t dst, uint16_t port);
/* The server end takes an accepted connection. */
void app_flow_accept(app_flow *f, stack *st, sock *child);
/* Close an end now (nothing when it is closed already). */
void app_end_close(app_end *e);
/* Close both ends and free what the flow holds (not the flow itself). */
void app_flow_release(app_flow *f);

/* The exchange of a client end finished as its spec says and the connection ended
 * without an error. */
bool app_end_done(const app_end *e);

/* ---- instances: one connection after another (crr), think time ---- */

typedef struct app_client_hooks {
	/* Make the instance's next connection: a flow set up with app_flow_init and opened
	 * with app_client_connect; NULL when none could be made (the instance stops). */
	app_flow *(*open)(void *user, app_client *c);
} app_client_hooks;

struct app_client {
	const app_spec *spec;
	stack *st;
	sock_opts opts;
	uint32_t dst;
	uint16_t port;
	const app_client_hooks *hooks;
	void *user;
	app_flow *cur;     /* its connection in hand */
	uint64_t txns;     /* crr: transactions over all its connections */
	uint64_t conns;    /* connections opened */
	sim_time t_begin;  /* host ns: it started (crr's duration counts from here) */
	bool stopped;      /* no more connections: done, expired, or an error */
	int err;           /* the error that stopped it */
	sim_event think;   /* the pause between transactions */
};

/* An instance that will connect to dst:port from st with o; id names its timer events. */
void app_client_init(app_client *c, stack *st, const sock_opts *o, uint32_t dst, uint16_t port,
                     const app_spec *spec, uint64_t id, const app_client_hooks *h, void *user);
/* Open its first connection. */
void app_client_start(app_client *c);
/* Open flow f (made by the open hook) as the instance's connection in hand. */
int app_client_connect(app_client *c, app_flow *f);
/* Stop it: no more connections, its pause cancelled (its connection in hand stays). */
void app_client_stop(app_client *c);

/* ---- listeners ---- */

typedef struct app_listener app_listener;

typedef struct app_listen_hooks {
	/* The flow an accepted connection belongs to, or NULL: it is refused (reset). The
	 * listener then calls app_flow_accept on it. */
	app_flow *(*match)(void *user, app_listener *l, sock *child);
} app_listen_hooks;

/* A listener of kind APP_SINK, APP_ECHO or APP_RESPONDER whose flows its owner keeps.
 * NULL on failure with *err set (as sock_listen). */
app_listener *app_listen(stack *st, const sock_opts *o, uint16_t port, app_kind kind, const app_listen_hooks *h,
                         void *user, int *err);
void app_listener_close(app_listener *l);

/* ---- used alone (benchmarks, tests) ---- */

/* The down direction's seed of a flow made alone from `seed` (up is seed itself). */
uint64_t app_seed_down(uint64_t seed);

/* A client on its own flow (seed_up = seed; not crr). Free with app_connect_free. */
app_flow *app_connect(stack *st, const sock_opts *o, uint32_t dst, uint16_t port, const app_spec *spec,
                      uint64_t seed, int *err);
void app_connect_free(app_flow *f);

/* What a listener that keeps no flows saw, summed over its connections. */
typedef struct app_serve_stats {
	uint64_t accepted, completed, errors; /* connections: all, ended in order, ended with an error */
	uint64_t mismatches;                  /* connections whose content was not the pattern */
	uint64_t first_mismatch_offset;       /* stream offset of the first wrong byte seen */
	uint64_t bytes_in, bytes_out;         /* received, sent */
	uint64_t verified;                    /* received and checked */
	uint64_t txns;                        /* responder: requests answered */
	sock_mode last_mode;                  /* of the last connection accepted */
	uint32_t last_fallback_reason;
} app_serve_stats;

/* A listener that makes a flow per accepted connection (seed_up = seed; clients: what its
 * clients run, which a responder needs; NULL: a bulk client) and keeps it until
 * app_listener_close. */
app_listener *app_serve(stack *st, const sock_opts *o, uint16_t port, app_kind kind, const app_spec *clients,
                        uint64_t seed, int *err);
app_serve_stats app_serve_stats_get(const app_listener *l);

#endif
