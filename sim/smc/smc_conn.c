/* One connection of the SMC-R layer: the stack's SMC hooks (sim/net/sock.h), the core's
 * callbacks (model/smcr.h), the CLC bytes on the TCP stream and the socket's data path.
 *
 * Ownership. The stack hands the socket over when TCP is established with the SMC option
 * seen both ways; the layer holds it until the connection is settled:
 *   - SMC-R: the socket's data path is the core (sock_smc_established); the layer keeps
 *     the idle TCP connection and releases it (sock_release) when the core closes it
 *     (tcp_control CLOSE/ABORT) or frees the connection;
 *   - fallback: the socket goes back to the application with the reason
 *     (sock_smc_fallback); the core's connection is then closed (its TCP actions are
 *     ignored: the TCP connection belongs to the application).
 * Nothing is freed inside a core callback: a finished connection is put on the layer's
 * work list and freed when the outermost call into the core has returned. Fallbacks are
 * told from there too, after the CLC bytes that caused them were taken off the stream. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/byteorder.h"
#include "sim/net/route.h"
#include "sim/smc/smc_layer_int.h"
#include "sim/net/tcp.h"

#define CLC_FRAME_MAX 4096 /* longest CLC message we wait for before handing bytes over */

void smc_layer_core_rand(void *user, uint8_t *dst, size_t len);
void smc_layer_core_event(void *user, const smcr_event *ev);
void smc_layer_core_trace(void *user, const smcr_trace_msg *m);
int smc_layer_core_route(void *user, uint32_t saddr, uint32_t daddr, uint8_t nexthop_mac[6], bool *uses_gateway);

static smc_conn *of(smcr_conn *conn)
{
	return conn ? smcr_conn_user(conn) : NULL;
}

static void bind_conn(smc_conn *c, smcr_conn *conn)
{
	if (c && !c->conn && !c->dead)
		c->conn = conn;
}

/* A CLC message built or handled costs the host's CPU (where the work in hand runs). */
void smc_conn_host_clc(smc_layer *l)
{
	sim_host *h = l->st->host;
	if (host_has_costs(h))
		host_run_here(h, HOST_CAT_SMCR, host_get_profile(h)->smc_clc_ns);
}

/* ---- lifetime ---- */

static void smc_conn_defer(smc_conn *c)
{
	smc_layer *l = c->l;
	if (c->on_work)
		return;
	c->on_work = true;
	c->work_next = NULL;
	if (l->work_tail)
		l->work_tail->work_next = c;
	else
		l->work_head = c;
	l->work_tail = c;
}

static smc_conn *conn_new(smc_layer *l, sock *s)
{
	smc_conn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->l = l;
	c->id = l->next_conn_id++;
	c->s = s;
	c->server = sock_is_server(s);
	tcp_pcb *pcb = sock_tcp_pcb(s);
	if (pcb) {
		tcp_info ti;
		tcp_get_info(pcb, &ti);
		c->local_ip = ti.local_ip;
		c->peer_ip = ti.remote_ip;
		c->local_port = ti.local_port;
		c->peer_port = ti.remote_port;
	}
	c->prev = l->tail;
	if (l->tail)
		l->tail->next = c;
	else
		l->head = c;
	l->tail = c;
	sock_set_smc_state(s, c);
	return c;
}

static void conn_unlink_free(smc_conn *c)
{
	smc_layer *l = c->l;
	if (c->hs_counted)
		l->ctr.srv_hs_active--;
	if (c->prev)
		c->prev->next = c->next;
	else
		l->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		l->tail = c->prev;
	if (c->on_work) { /* only at teardown: the work list is not run then */
		smc_conn **pp = &l->work_head;
		while (*pp && *pp != c)
			pp = &(*pp)->work_next;
		if (*pp)
			*pp = c->work_next;
		l->work_tail = NULL;
		for (smc_conn *w = l->work_head; w; w = w->work_next)
			l->work_tail = w;
	}
	free(c->out);
	free(c);
}

/* A server handshake is over (established, fallen back, failed or gone): it no longer
 * occupies a worker of the handshake queue (Linux: smc_listen_work returns). */
static void hs_done(smc_conn *c)
{
	if (c->hs_counted) {
		c->hs_counted = false;
		c->l->ctr.srv_hs_active--;
	}
}

/* Give the socket back to the stack: close its TCP connection (abort: with a RST). */
static void release(smc_conn *c, bool abort)
{
	hs_done(c);
	sock *s = c->s;
	if (!s)
		return;
	c->s = NULL;
	sock_set_smc_state(s, NULL);
	sock_release(s, abort);
	if (!c->conn) {
		c->dead = true;
		smc_conn_defer(c);
	} else if (!c->established) {
		/* the handshake failed (smcr_hs_error): the application's socket is plain TCP
		 * again and will never close the core's connection, so the layer does, or the
		 * core keeps it for ever waiting for the host's close */
		c->close_wanted = true;
		smc_conn_defer(c);
	}
}

static void tell_fallback(smc_conn *c)
{
	smc_layer *l = c->l;
	c->pending_fallback = false;
	if (c->fallback_told)
		return;
	c->fallback_told = true;
	l->ctr.fallbacks++;
	if (c->reason == SMCR_DECL_MEM && l->mem_cap)
		l->ctr.fixed_declined++; /* this stack's buffers did not fit its fixed memory */
	c->close_wanted = true;
	smc_conn_defer(c);
	sock *s = c->s;
	if (!s)
		return;
	c->s = NULL; /* the application's from now on (it may close it during the call) */
	sock_set_smc_state(s, NULL);
	l->telling = s;
	l->telling_reason = c->reason;
	l->telling_diag = c->peer_diag;
	sock_smc_fallback(s, c->reason);
	l->telling = NULL;
}

void smc_conn_do_work(smc_conn *c)
{
	smc_layer *l = c->l;
	if (c->pending_fallback)
		tell_fallback(c);
	if (c->close_wanted && !c->close_called && c->conn) {
		c->close_called = true;
		if (c->abort_wanted && c->established)
			smcr_conn_abort(c->conn, smc_layer_now(l));
		smcr_conn_close(c->conn, smc_layer_now(l));
	}
	if (c->dead && !c->conn && !c->s && !c->on_work)
		conn_unlink_free(c);
}

void smc_conn_teardown(smc_conn *c)
{
	if (c->s) {
		sock *s = c->s;
		c->s = NULL;
		sock_set_smc_state(s, NULL);
		sock_release(s, true);
	}
	conn_unlink_free(c);
}

/* ---- the TCP connection's facts for the core ---- */

static void fill_tcp_info(smc_conn *c, smcr_tcp_info *ti)
{
	smc_layer *l = c->l;
	memset(ti, 0, sizeof(*ti));
	tcp_pcb *pcb = sock_tcp_pcb(c->s);
	ti->peer_smc = pcb && tcp_smc_negotiated(pcb);
	ti->family = 4;
	ti->local_ipv4 = c->local_ip;
	ti->peer_ipv4 = c->peer_ip;
	ti->netdev_port = -1;
	netif *nif = NULL;
	uint32_t nexthop = 0;
	if (!route_lookup(&l->st->routes, c->peer_ip, &nif, &nexthop) || !nif) {
		ti->vlan_id = -1; /* Linux: no egress device, GETVLANERR */
		return;
	}
	ti->vlan_id = nif->vlan_id;
	snprintf(ti->pnet_id, sizeof(ti->pnet_id), "%s", smc_layer_pnet_of(l, nif));
	if (nif->ip4) {
		ti->n_ipv4 = 1;
		ti->ipv4[0].addr = nif->ip4;
		ti->ipv4[0].prefix_len = nif->ip4_prefix_len;
	}
}

/* ---- CLC bytes ---- */

static void flush_out(smc_conn *c)
{
	while (c->out_len && c->s) {
		ssize_t n = sock_tcp_send(c->s, c->out, c->out_len);
		if (n <= 0)
			return;
		memmove(c->out, c->out + n, c->out_len - (size_t)n);
		c->out_len -= (size_t)n;
	}
}

/* Feed the core whole CLC messages only: then nothing after the last message (the
 * application's data after a Decline) is ever taken off the stream. Bytes that do not
 * look like a CLC header go in as they are (the core declines or fails on them). */
static void pump(smc_conn *c)
{
	smc_layer *l = c->l;
	uint8_t buf[CLC_FRAME_MAX];
	c->in_pump = true;
	while (c->s && c->conn && !c->fallen) {
		size_t avail = sock_tcp_readable(c->s);
		if (c->established) {
			/* the TCP connection is idle under SMC-R: stray bytes are dropped */
			while (c->s && sock_tcp_readable(c->s) && sock_tcp_recv(c->s, buf, sizeof(buf)) > 0)
				;
			break;
		}
		if (avail < SMCR_CLC_HDR_LEN)
			break;
		size_t want = avail;
		if (sock_tcp_peek(c->s, buf, SMCR_CLC_HDR_LEN) != SMCR_CLC_HDR_LEN)
			break;
		uint32_t eye = get_be32(buf);
		size_t len = get_be16(buf + 5);
		if ((eye == SMCR_CLC_EYECATCHER_R || eye == SMCR_CLC_EYECATCHER_D) && len >= SMCR_CLC_HDR_LEN &&
		    len <= CLC_FRAME_MAX)
			want = len;
		if (avail < want)
			break;
		if (want > sizeof(buf))
			want = sizeof(buf);
		ssize_t got = sock_tcp_peek(c->s, buf, want);
		if (got <= 0)
			break;
		smc_conn_host_clc(l);
		ssize_t took = smcr_conn_clc_input(c->conn, buf, (size_t)got, smc_layer_now(l));
		if (took <= 0 || !c->s)
			break;
		ssize_t n = sock_tcp_recv(c->s, buf, (size_t)took);
		if (n > 0)
			l->ctr.clc_bytes_in += (uint64_t)n;
	}
	/* end of stream during the handshake */
	if (c->s && c->conn && !c->fallen && !c->established && !sock_tcp_readable(c->s)) {
		tcp_pcb *pcb = sock_tcp_pcb(c->s);
		if (pcb && tcp_eof(pcb))
			smcr_conn_tcp_closed(c->conn, false, smc_layer_now(l));
	}
	c->in_pump = false;
}

/* ---- the stack's hooks ---- */

/* smc_hs_congested(): more server handshakes than the workqueue runs at once */
static bool h_hs_congested(void *ctx)
{
	smc_layer *l = ctx;
	if (l->ctr.srv_hs_active < l->cfg.hs_queue)
		return false;
	l->ctr.hs_limited++;
	return true;
}

static void h_tcp_established(void *ctx, sock *s)
{
	smc_layer *l = ctx;
	smc_conn *c = conn_new(l, s);
	if (!c) {
		sock_smc_fallback(s, SMCR_DECL_MEM);
		return;
	}
	l->ctr.handshakes++;
	if (c->server) {
		c->hs_counted = true;
		l->ctr.srv_hs_active++;
	}
	smcr_tcp_info ti;
	fill_tcp_info(c, &ti);
	smc_layer_enter(l);
	smcr_conn *conn = NULL;
	int rc = c->server ? smcr_conn_accept(l->ctx, &ti, c, smc_layer_now(l), &conn)
	                   : smcr_conn_connect(l->ctx, &ti, c, smc_layer_now(l), &conn);
	if (rc) {
		/* the core could not even start: continue on TCP */
		c->fallen = true;
		c->reason = rc == SMCR_ERR_NOMEM ? SMCR_DECL_MEM : SMCR_DECL_INTERR;
		c->pending_fallback = true;
		c->dead = true;
		smc_conn_defer(c);
	} else {
		bind_conn(c, conn);
		pump(c);
	}
	smc_layer_leave(l);
}

static void h_tcp_readable(void *ctx, sock *s)
{
	smc_layer *l = ctx;
	smc_conn *c = sock_smc_state(s);
	if (!c)
		return;
	smc_layer_enter(l);
	pump(c);
	smc_layer_leave(l);
}

static void h_tcp_writable(void *ctx, sock *s)
{
	(void)ctx;
	smc_conn *c = sock_smc_state(s);
	if (c)
		flush_out(c);
}

static void h_tcp_finished(void *ctx, sock *s, int err)
{
	smc_layer *l = ctx;
	smc_conn *c = sock_smc_state(s);
	if (!c || !c->conn || c->established || c->fallen)
		return; /* SMC-R does not watch the idle TCP connection */
	smc_layer_enter(l);
	smcr_conn_tcp_closed(c->conn, err != 0, smc_layer_now(l));
	smc_layer_leave(l);
}

static void h_app_closed(void *ctx, sock *s, bool abort)
{
	smc_layer *l = ctx;
	smc_conn *c = sock_smc_state(s);
	if (!c) {
		sock_release(s, abort);
		return;
	}
	c->abort_wanted = abort;
	smc_layer_enter(l);
	if (c->conn && !c->close_called) {
		c->close_called = true;
		smcr_conn_close(c->conn, smc_layer_now(l));
	}
	if (c->s && (!c->conn || c->fallen))
		release(c, abort); /* the core will not ask (it is gone, or it thinks TCP is ours) */
	smc_layer_leave(l);
}

const sock_smc_hooks smc_conn_hooks = {
	.tcp_established = h_tcp_established,
	.hs_congested = h_hs_congested,
	.tcp_readable = h_tcp_readable,
	.tcp_writable = h_tcp_writable,
	.tcp_finished = h_tcp_finished,
	.app_closed = h_app_closed,
};

/* ---- the socket's data path (mode SMCR) ---- */

static int errno_of(int err)
{
	switch (err) {
	case SMCR_ERR_CLOSED:
		return -ECONNRESET;
	case SMCR_ERR_AGAIN:
		return -ETIMEDOUT;
	case SMCR_ERR_PROTO:
		return -EPROTO;
	default:
		return -ECONNABORTED;
	}
}

static uint32_t core_flags(unsigned flags) { return (flags & SOCK_MSG_MORE) ? SMCR_MSG_MORE : 0; }

static ssize_t be_send(void *be, const void *buf, size_t len, unsigned flags)
{
	smc_conn *c = be;
	if (!c->conn)
		return -EPIPE;
	smc_layer_enter(c->l);
	ssize_t n = smcr_conn_send(c->conn, buf, len, core_flags(flags), smc_layer_now(c->l));
	smc_layer_leave(c->l);
	if (n >= 0)
		return n;
	if (n == SMCR_ERR_AGAIN)
		return 0;
	return n == SMCR_ERR_STATE ? -ENOTCONN : -EPIPE;
}

static ssize_t be_recv(void *be, void *buf, size_t len)
{
	smc_conn *c = be;
	if (!c->conn)
		return 0;
	smc_layer_enter(c->l);
	ssize_t n = smcr_conn_recv(c->conn, buf, len, 0, smc_layer_now(c->l));
	smc_layer_leave(c->l);
	if (n >= 0)
		return n;
	if (n == SMCR_ERR_AGAIN)
		return -EAGAIN;
	return errno_of((int)n);
}

static ssize_t be_send_fill(void *be, size_t len, sock_fill_fn fill, void *ctx, unsigned flags)
{
	smc_conn *c = be;
	if (!c->conn)
		return -EPIPE;
	smc_layer_enter(c->l);
	ssize_t n = smcr_conn_send_fill(c->conn, len, core_flags(flags), smc_layer_now(c->l), fill, ctx);
	smc_layer_leave(c->l);
	if (n >= 0)
		return n;
	if (n == SMCR_ERR_AGAIN)
		return 0;
	return n == SMCR_ERR_STATE ? -ENOTCONN : -EPIPE;
}

static ssize_t be_recv_visit(void *be, size_t len, sock_visit_fn visit, void *ctx)
{
	smc_conn *c = be;
	if (!c->conn)
		return 0;
	smc_layer_enter(c->l);
	ssize_t n = smcr_conn_recv_visit(c->conn, len, 0, smc_layer_now(c->l), visit, ctx);
	smc_layer_leave(c->l);
	if (n >= 0)
		return n;
	if (n == SMCR_ERR_AGAIN)
		return -EAGAIN;
	return errno_of((int)n);
}

static size_t be_send_space(void *be)
{
	smc_conn *c = be;
	return c->conn ? smcr_conn_writable(c->conn) : 0;
}

static size_t be_readable(void *be)
{
	smc_conn *c = be;
	return c->conn ? smcr_conn_readable(c->conn) : 0;
}

static int be_shutdown(void *be)
{
	smc_conn *c = be;
	if (!c->conn)
		return -ENOTCONN;
	smc_layer_enter(c->l);
	int rc = smcr_conn_shutdown_write(c->conn, smc_layer_now(c->l));
	smc_layer_leave(c->l);
	return rc ? -ENOTCONN : 0;
}

static void be_close(void *be, bool abort)
{
	smc_conn *c = be;
	smc_layer *l = c->l;
	c->abort_wanted = abort;
	smc_layer_enter(l);
	if (c->conn && !c->close_called) {
		c->close_called = true;
		if (abort)
			smcr_conn_abort(c->conn, smc_layer_now(l));
		smcr_conn_close(c->conn, smc_layer_now(l));
	} else if (!c->conn) {
		release(c, abort);
	}
	smc_layer_leave(l);
}

static int be_set_cork(void *be, bool on)
{
	smc_conn *c = be;
	if (!c->conn)
		return -ENOTCONN;
	smc_layer_enter(c->l);
	int rc = smcr_conn_set_cork(c->conn, on, smc_layer_now(c->l));
	smc_layer_leave(c->l);
	return rc ? -EINVAL : 0;
}

static int be_set_nodelay(void *be, bool on)
{
	smc_conn *c = be;
	if (!c->conn)
		return -ENOTCONN;
	smc_layer_enter(c->l);
	int rc = smcr_conn_set_nodelay(c->conn, on, smc_layer_now(c->l));
	smc_layer_leave(c->l);
	return rc ? -EINVAL : 0;
}

static const sock_backend_ops be_ops = {
	.send = be_send,
	.recv = be_recv,
	.send_fill = be_send_fill,
	.recv_visit = be_recv_visit,
	.send_space = be_send_space,
	.readable = be_readable,
	.shutdown = be_shutdown,
	.close = be_close,
	.set_cork = be_set_cork,
	.set_nodelay = be_set_nodelay,
};

/* ---- the core's callbacks ---- */

static int cb_clc_send(void *user, smcr_conn *conn, const uint8_t *buf, size_t len)
{
	smc_layer *l = user;
	smc_conn *c = of(conn);
	bind_conn(c, conn);
	if (!c || !c->s)
		return SMCR_ERR_CLOSED;
	l->ctr.clc_bytes_out += len;
	smc_conn_host_clc(l);
	if (!c->out_len) {
		ssize_t n = sock_tcp_send(c->s, buf, len);
		if (n < 0)
			return SMCR_ERR_CLOSED;
		buf += n;
		len -= (size_t)n;
	}
	if (len) {
		uint8_t *nb = realloc(c->out, c->out_len + len);
		if (!nb)
			return SMCR_ERR_NOMEM;
		memcpy(nb + c->out_len, buf, len);
		c->out = nb;
		c->out_len += len;
	}
	return 0;
}

static void cb_established(void *user, smcr_conn *conn)
{
	smc_layer *l = user;
	smc_conn *c = of(conn);
	bind_conn(c, conn);
	if (!c)
		return;
	c->established = true;
	hs_done(c);
	l->ctr.established++;
	if (!c->s)
		return;
	if (sock_smc_established(c->s, &be_ops, c) == -ECONNABORTED) {
		/* its listener is gone: nobody will use it */
		c->abort_wanted = true;
		c->close_wanted = true;
		smc_conn_defer(c);
		return;
	}
	/* data over RDMA can overtake the CLC Confirm on TCP: the peer may have written
	 * before this side was told; the application hears of it now */
	if (c->s && c->conn && smcr_conn_readable(c->conn))
		sock_notify_readable(c->s);
}

static void cb_fallback(void *user, smcr_conn *conn, uint32_t reason, uint32_t peer_diagnosis,
                        const uint8_t *app_data, size_t app_len)
{
	(void)user;
	(void)app_data;
	(void)app_len; /* whole messages only were fed: the rest is still in the stream */
	smc_conn *c = of(conn);
	bind_conn(c, conn);
	if (!c)
		return;
	c->fallen = true;
	hs_done(c);
	c->reason = reason;
	c->peer_diag = peer_diagnosis;
	c->pending_fallback = true;
	smc_conn_defer(c);
}

static void cb_readable(void *user, smcr_conn *conn)
{
	(void)user;
	smc_conn *c = of(conn);
	if (c && c->s && c->established)
		sock_notify_readable(c->s);
}

static void cb_writable(void *user, smcr_conn *conn)
{
	(void)user;
	smc_conn *c = of(conn);
	if (c && c->s && c->established)
		sock_notify_writable(c->s);
}

static void cb_tcp_control(void *user, smcr_conn *conn, smcr_tcp_action act)
{
	(void)user;
	smc_conn *c = of(conn);
	if (!c || !c->s || c->fallback_told)
		return; /* after a fallback the TCP connection is the application's */
	switch (act) {
	case SMCR_TCP_SHUTDOWN:
	case SMCR_TCP_SHUTDOWN_WR: {
		tcp_pcb *pcb = sock_tcp_pcb(c->s);
		if (pcb)
			tcp_shutdown(pcb);
		break;
	}
	case SMCR_TCP_CLOSE:
		if (c->fallen && c->pending_fallback) {
			/* the application gave up before it heard of the fallback */
			c->pending_fallback = false;
			c->fallback_told = true;
		}
		release(c, c->abort_wanted);
		break;
	case SMCR_TCP_ABORT:
		release(c, true);
		break;
	}
}

static void cb_aborted(void *user, smcr_conn *conn, int err)
{
	smc_layer *l = user;
	smc_conn *c = of(conn);
	if (!c)
		return;
	l->ctr.aborted++;
	c->abort_err = err;
	if (c->s && c->established)
		sock_notify_closed(c->s, errno_of(err));
}

static void cb_conn_freed(void *user, smcr_conn *conn)
{
	(void)user;
	smc_conn *c = of(conn);
	if (!c)
		return;
	c->conn = NULL;
	if (c->s && !c->pending_fallback)
		release(c, c->abort_wanted); /* the core did not ask for it (after a shutdown) */
	c->dead = true;
	smc_conn_defer(c);
}

static void cb_peer_closed(void *user, smcr_conn *conn)
{
	(void)user;
	smc_conn *c = of(conn);
	if (c && c->s && c->established)
		sock_notify_readable(c->s); /* the reader sees the end of the stream */
}

const smcr_callbacks smc_conn_core_callbacks = {
	.rand = smc_layer_core_rand,
	.clc_send = cb_clc_send,
	.established = cb_established,
	.fallback = cb_fallback,
	.readable = cb_readable,
	.writable = cb_writable,
	.peer_closed = cb_peer_closed,
	.tcp_control = cb_tcp_control,
	.aborted = cb_aborted,
	.conn_freed = cb_conn_freed,
	.event = smc_layer_core_event,
	.trace = smc_layer_core_trace,
	.route_lookup = smc_layer_core_route,
};
