/* Internals of the application library (sim/app/app.h), shared by its files:
 *   app_end.c     an end's I/O: the pattern written and checked, the mode, closing
 *   app_client.c  the connecting kinds (bulk, echo, rr, crr) on a flow's client end
 *   app_instance.c  instances: connections one after another (crr), think time
 *   app_server.c  the listening kinds (sink, echo, responder) and the listeners
 *   app_result.c  what a flow and an application measured */
#ifndef SIM_APP_INT_H
#define SIM_APP_INT_H

#include <sys/types.h>

#include "sim/app/app.h"

/* The most one socket call moves. */
#define APP_CHUNK 65536u
/* Bytes per socket call of a flow: its spec's write, else APP_CHUNK. */
#define APP_CALL_BYTES(f) ((f)->spec->write && (f)->spec->write < APP_CHUNK ? (size_t)(f)->spec->write : APP_CHUNK)
/* An echo server stops reading with this much not yet written back. */
#define APP_ECHO_WINDOW (256u * 1024u)

void app_end_record_mode(app_end *e, sock *s);
/* Content check of n received bytes at stream offset e->rx_total. */
void app_end_verify(app_end *e, uint64_t seed, const uint8_t *buf, size_t n);
/* sock_recv of up to cap bytes, checked against the pattern of seed (in place where the
 * socket allows it, else through buf); keep: the bytes also go to e->echo. */
ssize_t app_end_recv_verify(app_end *e, uint64_t seed, uint8_t *buf, size_t cap, bool keep);
/* Write bytes [e->sent, limit) as far as the socket takes them: the pattern of seed, or
 * (from non-NULL) the bytes held there, which are dropped as they are written. */
void app_end_write_upto(app_end *e, uint64_t seed, uint64_t limit, bytering *from);
/* on_close of either end. */
void app_end_on_close(sock *s, int err, void *user);
/* The client's exchange is complete: finished, the flow's t_done taken. */
void app_end_finish(app_end *e);

/* app_client.c: the next transaction of an rr client after its pause. */
void app_client_rr_next(app_end *e);
/* app_instance.c: the instance's connection in hand ended (its socket closed). */
void app_client_flow_ended(app_client *c, app_flow *f);
/* A transaction is done; true when the instance pauses before the next (think time). */
bool app_client_pause(app_client *c);
/* The duration of spec sp, counted from t, is over. */
bool app_expired(const app_spec *sp, stack *st, sim_time t);

/* app_server.c: the callbacks of a server end */
extern const sock_callbacks app_server_callbacks;

#endif
