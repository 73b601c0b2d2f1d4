/* Sockets for scenario applications, and the seam where SMC-R plugs in.
 *
 * Applications (sim/app/) use only this API: listen, connect, send, recv, shutdown,
 * close, with callbacks. They cannot tell whether TCP or SMC-R carries their bytes,
 * except through the reported mode (sock_get_mode), as smcss shows it:
 *   SOCK_MODE_TCP       a plain TCP socket (SMC not requested or not enabled)
 *   SOCK_MODE_SMCR      the data path is SMC-R
 *   SOCK_MODE_FALLBACK  an SMC socket that stays on TCP, with a Linux decline code
 *                       (sock_fallback_reason), e.g. 0x03010000 PEERNOSMC when the peer
 *                       did not send the SMC option.
 *
 * SMC layering. A socket always owns a TCP connection. When the socket asked for SMC
 * (opts.smc and the stack's GLOBALCONFIG SMCR enabled and the port not excluded) and the
 * SMC option was seen both ways, and an SMC layer is plugged into the stack
 * (stack_set_smc_hooks), the established TCP connection is handed to that layer before
 * the application hears of it: the layer reads and writes the raw TCP byte stream
 * (sock_tcp_*: the CLC handshake), then calls either
 *   sock_smc_established(s, ops, be)  data now goes through ops (mode SMCR), or
 *   sock_smc_fallback(s, reason)      the application uses the TCP stream (mode FALLBACK);
 *                                     bytes left unread after the CLC messages are its data.
 * Only then does the application get on_connect / on_accept. Without a plugged-in layer,
 * a connection that negotiated SMC falls back with SMC_CLC_DECL_NOSMCDEV (0x03030000)
 * and no CLC bytes are exchanged. */
#ifndef SIM_SOCK_H
#define SIM_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sim/engine/engine.h"

typedef struct stack stack;
typedef struct sock sock;
typedef struct tcp_pcb tcp_pcb;

typedef enum sock_mode {
	SOCK_MODE_TCP,
	SOCK_MODE_SMCR,
	SOCK_MODE_FALLBACK,
} sock_mode;

/* For people reading a log line: TCP, SMCR, TCP-fallback. */
const char *sock_mode_name(sock_mode m);
/* The word scenarios expect (`expect mode APP == ...`) and every output prints for a
 * connection's mode: SMCR, TCP, FALLBACK. */
const char *sock_mode_word(sock_mode m);

typedef struct sock_callbacks {
	/* An active open finished: err 0, or -ECONNREFUSED, -ETIMEDOUT, -EHOSTUNREACH. */
	void (*on_connect)(sock *s, int err, void *user);
	/* A listener has a new connection. The child starts with the listener's callbacks
	 * and user pointer; change them with sock_set_callbacks during the call. */
	void (*on_accept)(sock *listener, sock *child, void *user);
	/* Bytes (or the end of the stream) can be read with sock_recv. */
	void (*on_readable)(sock *s, void *user);
	/* Send space was freed. */
	void (*on_writable)(sock *s, void *user);
	/* The connection is over: 0 after an orderly close both ways, -ECONNRESET,
	 * -ETIMEDOUT. The socket stays valid until sock_close. */
	void (*on_close)(sock *s, int err, void *user);
} sock_callbacks;

typedef struct sock_opts {
	bool smc;     /* use SMC-R if the stack enables it (AF_SMC; z/OS: every socket) */
	bool nodelay; /* Nagle off (the default) */
	bool cork;    /* TCP_CORK from the start (SMC-R path: hold while the send buffer has room);
	               * the scenario apps uncork at the end of each message and cork again */
	bool more;    /* the scenario apps send every piece of a message but its last with
	               * SOCK_MSG_MORE */
	bool keepalive;
	sim_time keepalive_idle; /* 0: the stack's default */
	uint32_t sndbuf, rcvbuf; /* 0: the stack's defaults */
	uint32_t local_ip;       /* bind address; 0: any (listen) / by route (connect) */
	uint16_t local_port;     /* 0: ephemeral (connect) */
	uint32_t backlog;        /* listen; 0: the stack's default */
	uint32_t cpu;            /* the host CPU its application runs on, plus one (a
	                            listener's connections inherit it); 0: the host's
	                            application CPUs in turn */
	/* SMC_LIMIT_HS on a listener: while the SMC layer's handshakes are congested, SYNs are
	 * answered without the SMC option and those clients fall back (PEERNOSMC, 0x03010000).
	 * -1: the stack's net.smc.limit_smc_hs, 0 off, 1 on. */
	int8_t limit_hs;
} sock_opts;

/* smc = true, nodelay = true, everything else from the stack. */
void sock_opts_default(sock_opts *o);

/* NULL on failure with *err set (-EADDRINUSE, -EADDRNOTAVAIL, -EHOSTUNREACH, -ENOMEM). */
sock *sock_listen(stack *st, const sock_opts *o, uint16_t port, const sock_callbacks *cb, void *user,
                  int *err);
sock *sock_connect(stack *st, const sock_opts *o, uint32_t dst, uint16_t port, const sock_callbacks *cb,
                   void *user, int *err);
void sock_set_callbacks(sock *s, const sock_callbacks *cb, void *user);

/* Bytes accepted (0: no space now, wait for on_writable), or -ENOTCONN, -EPIPE, the
 * connection's error. */
ssize_t sock_send(sock *s, const void *buf, size_t len);
/* Bytes read, 0 at end of stream, -EAGAIN when nothing is there yet, or an error. */
ssize_t sock_recv(sock *s, void *buf, size_t len);
/* The same without the application's buffer, for applications that generate or check
 * their data in place: fill() writes the accepted bytes straight into the send buffer,
 * visit() reads received bytes where they landed, once per contiguous span, in stream
 * order: TCP's send and receive buffers, SMC-R's send buffer and RMB. -EOPNOTSUPP where
 * the path has no such buffer to offer (an SMC-R backend without it): use
 * sock_send/sock_recv there. */
typedef void (*sock_fill_fn)(void *ctx, uint8_t *dst, size_t len);
typedef void (*sock_visit_fn)(void *ctx, const uint8_t *src, size_t len);
ssize_t sock_send_fill(sock *s, size_t len, sock_fill_fn fill, void *ctx);
/* The same with send flags: SOCK_MSG_MORE holds the data on the SMC-R path while the send
 * buffer has room (Linux smc_tx_should_cork). On the TCP path the flag is not modelled:
 * TCP sends as with Nagle (opts.nodelay). */
#define SOCK_MSG_MORE 0x1u
ssize_t sock_send_flags(sock *s, const void *buf, size_t len, unsigned flags);
ssize_t sock_send_fill_flags(sock *s, size_t len, sock_fill_fn fill, void *ctx, unsigned flags);
/* setsockopt TCP_CORK / TCP_NODELAY. On the SMC-R path as Linux's smc_setsockopt: the cork
 * holds data while the send buffer has room, uncorking or Nagle off pushes it (and counts:
 * smc_stats cork_cnt, ndly_cnt); set before the connection is up, the cork applies once it
 * is. On the TCP path TCP_NODELAY switches Nagle; TCP_CORK is not modelled there. */
int sock_set_cork(sock *s, bool on);
int sock_set_nodelay(sock *s, bool on);
ssize_t sock_recv_visit(sock *s, size_t len, sock_visit_fn visit, void *ctx);
size_t sock_send_space(const sock *s);
/* The application's own CPU work of ns (host time, category app) on the socket's CPU:
 * what it does next starts when that is done. Nothing on a host without costs. */
void sock_app_work(sock *s, uint64_t ns);
/* The options the socket was made with (a listener's, for an accepted one). */
const sock_opts *sock_get_opts(const sock *s);
/* No more sending: FIN after the queued bytes. */
int sock_shutdown(sock *s);
/* Orderly close and release; no callback after this. */
void sock_close(sock *s);
/* Reset and release. */
void sock_abort(sock *s);

sock_mode sock_get_mode(const sock *s);
uint32_t sock_fallback_reason(const sock *s); /* 0 unless mode is FALLBACK */
bool sock_is_server(const sock *s);           /* accepted (passive) side */
tcp_pcb *sock_tcp_pcb(sock *s);               /* its TCP connection (4-tuple, state, SMC flags) */
/* Heap held by the stack's sockets that still own their TCP connection, in the
 * allocator's units (memory measurements: bench scale); *n gets how many there are. */
uint64_t sock_heap_bytes(const stack *st, uint64_t *n);

/* ---- the SMC-R layer's side ---- */

/* The data path of an SMC-R socket (mode SMCR). Return conventions as sock_send etc. */
typedef struct sock_backend_ops {
	ssize_t (*send)(void *be, const void *buf, size_t len, unsigned flags); /* SOCK_MSG_* */
	ssize_t (*recv)(void *be, void *buf, size_t len);
	/* sock_send_fill / sock_recv_visit; NULL when the backend has no such path */
	ssize_t (*send_fill)(void *be, size_t len, sock_fill_fn fill, void *ctx, unsigned flags);
	ssize_t (*recv_visit)(void *be, size_t len, sock_visit_fn visit, void *ctx);
	size_t (*send_space)(void *be);
	/* bytes waiting to be read (NULL: unknown; the host then prices a receive at its
	 * length) */
	size_t (*readable)(void *be);
	int (*shutdown)(void *be);
	/* The application closed (abort: with a reset). The backend finishes the SMC close,
	 * then calls sock_release(). */
	void (*close)(void *be, bool abort);
	/* TCP_CORK / TCP_NODELAY (NULL: not supported); a cork set before the connection
	 * was up is handed over at establishment (setting it counts nothing) */
	int (*set_cork)(void *be, bool on);
	int (*set_nodelay)(void *be, bool on);
} sock_backend_ops;

/* Plugged into a stack with stack_set_smc_hooks(). `ctx` is the layer's. */
typedef struct sock_smc_hooks {
	/* The TCP connection of an SMC socket is established with SMC seen both ways: the
	 * layer owns it now (run the CLC handshake over sock_tcp_*). */
	void (*tcp_established)(void *ctx, sock *s);
	void (*tcp_readable)(void *ctx, sock *s);
	void (*tcp_writable)(void *ctx, sock *s);
	/* The TCP connection ended (err as on_close). */
	void (*tcp_finished)(void *ctx, sock *s, int err);
	/* The application closed a socket still in the CLC handshake; the layer cleans up
	 * and calls sock_release(). */
	void (*app_closed)(void *ctx, sock *s, bool abort);
	/* A SYN reached a listener with SMC_LIMIT_HS: true when the layer's handshakes are
	 * congested (Linux smc_hs_congested: smc_hs_wq has works waiting); the SYN-ACK then
	 * goes without the SMC option. NULL: never congested. */
	bool (*hs_congested)(void *ctx);
} sock_smc_hooks;

void sock_set_smc_state(sock *s, void *state); /* the layer's per-socket state */
void *sock_smc_state(const sock *s);
ssize_t sock_tcp_send(sock *s, const void *buf, size_t len);
ssize_t sock_tcp_recv(sock *s, void *buf, size_t len);
ssize_t sock_tcp_peek(sock *s, void *buf, size_t len);
size_t sock_tcp_readable(const sock *s);

/* End of the CLC handshake. Return 0, or -ECONNABORTED when the application can no
 * longer be told (its listener was closed): then the layer tears down and calls
 * sock_release(). */
int sock_smc_established(sock *s, const sock_backend_ops *ops, void *be);
int sock_smc_fallback(sock *s, uint32_t reason);
/* A backend's events for the application. */
void sock_notify_readable(sock *s);
void sock_notify_writable(sock *s);
void sock_notify_closed(sock *s, int err);
/* The layer is done with the socket: close the TCP connection (abort: with a RST). If
 * the application still holds it, it is told (on_connect with an error for a client
 * still in the handshake, else on_close) and keeps the handle until sock_close;
 * otherwise the socket is freed. */
void sock_release(sock *s, bool abort);

#endif
