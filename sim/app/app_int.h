/* Internals of the application library (sim/app/app.h), shared by its files:
 *   app_end.c     an end's I/O: the pattern written and checked, the mode, closing
 *   app_client.c  the connecting kinds (bulk, echo, rr) on a flow's client end
 *   app_server.c  the listening kinds (sink, echo, responder) and the listeners */
#ifndef SIM_APP_INT_H
#define SIM_APP_INT_H

#include <sys/types.h>

#include "sim/app/app.h"

/* The most one socket call moves. */
#define APP_CHUNK 65536u
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

/* app_server.c: the callbacks of a server end */
extern const sock_callbacks app_server_callbacks;

#endif
