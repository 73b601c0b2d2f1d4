/* Sockets: the application-facing object over a TCP connection, with the hand-over to an
 * SMC-R layer. A socket is freed when neither the application nor the SMC layer holds it
 * and no callback is running on it. */
#include "sim/net/sock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/clc.h"
#include "sim/engine/oom.h"
#include "sim/net/stack.h"
#include "sim/net/tcp.h"

typedef enum sock_phase {
	SOCK_CONNECTING, /* TCP handshake in progress (client) */
	SOCK_SMC,        /* the SMC layer runs the CLC handshake; the application waits */
	SOCK_OPEN,       /* the application uses it */
	SOCK_DONE,       /* the connection ended; the application has been told */
} sock_phase;

struct sock {
	stack *st;
	tcp_pcb *tcp; /* NULL once released */
	const sock_callbacks *cb;
	void *user;
	sock_opts opts;
	bool is_listener, server;
	bool smc_wanted; /* asked for SMC and the stack allows it */
	sock_mode mode;
	uint32_t reason;
	sock_phase phase;
	bool app_held;   /* the application has the handle */
	bool layer_held; /* the SMC layer has it */
	unsigned depth;  /* callbacks running on it */
	bool tcp_done;
	int tcp_err;
	const sock_backend_ops *be_ops;
	void *be;
	void *smc_state;
	sock *parent;                /* server child not yet accepted: its listener */
	sock *pend_next, *pend_prev; /* listener: children in the SMC handshake */
	sock *pend_head;
	unsigned cpu; /* the host CPU its application runs on */
	/* news for an application whose CPU is still busy: told once it is free (host costs) */
	sim_event wake_ev;
	bool wake_rd, wake_wr;
	sim_time run_until; /* its wake-up's slice: calls go through until its CPU gets there */
};

static const tcp_callbacks tcp_cbs;
static void sock_woken(sim_engine *eng, sim_event *ev);

const char *sock_mode_name(sock_mode m)
{
	switch (m) {
	case SOCK_MODE_TCP:
		return "TCP";
	case SOCK_MODE_SMCR:
		return "SMCR";
	case SOCK_MODE_FALLBACK:
		return "TCP-fallback";
	}
	return "?";
}

const char *sock_mode_word(sock_mode m)
{
	switch (m) {
	case SOCK_MODE_SMCR:
		return "SMCR";
	case SOCK_MODE_TCP:
		return "TCP";
	case SOCK_MODE_FALLBACK:
		return "FALLBACK";
	}
	return "?";
}

void sock_opts_default(sock_opts *o)
{
	memset(o, 0, sizeof *o);
	o->smc = true;
	o->nodelay = true;
	o->limit_hs = -1;
}

/* ---- lifetime ---- */

static sock *sock_alloc(stack *st, const sock_opts *o, const sock_callbacks *cb, void *user)
{
	sock *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->st = st;
	if (o)
		s->opts = *o;
	else
		sock_opts_default(&s->opts);
	s->cb = cb;
	s->user = user;
	s->mode = SOCK_MODE_TCP;
	s->cpu = s->opts.cpu ? (s->opts.cpu - 1) % host_ncpus(st->host) : host_next_app_cpu(st->host);
	sim_event_init(&s->wake_ev, sim_kind("sock.wake"), sim_mix64(st->entity + 0x736f636bull + ++st->socks_made), sock_woken, s);
	return s;
}

static void pend_unlink(sock *c)
{
	sock *l = c->parent;
	if (!l)
		return;
	if (c->pend_prev)
		c->pend_prev->pend_next = c->pend_next;
	else
		l->pend_head = c->pend_next;
	if (c->pend_next)
		c->pend_next->pend_prev = c->pend_prev;
	c->pend_next = c->pend_prev = NULL;
	c->parent = NULL;
}

static void maybe_free(sock *s)
{
	if (s->depth || s->app_held || s->layer_held)
		return;
	pend_unlink(s);
	while (s->pend_head) /* orphan the listener's children in the handshake */
		pend_unlink(s->pend_head);
	if (s->tcp)
		tcp_abort(s->tcp);
	sim_event_cancel(s->st->eng, &s->wake_ev);
	free(s);
}

static void enter(sock *s)
{
	s->depth++;
}

static void leave(sock *s)
{
	s->depth--;
	maybe_free(s);
}

/* ---- the host's part ---- */

/* A socket call moving `bytes` (0: none): the application's own work, the call and the
 * copy, on the application's CPU, before what the call makes the stack do. The
 * interrupt handler that woke the application (if any) is done by then. A call that
 * finds nothing to do costs nothing: applications are taken as blocking callers, woken
 * when there is something for them (docs/hosts.md). */
static void host_call(sock *s, size_t bytes, uint64_t extra_ns)
{
	sim_host *h = s->st->host;
	if (!host_has_costs(h) || (!bytes && !extra_ns))
		return;
	const host_profile *p = host_get_profile(h);
	host_irq_done(h);
	host_run(h, s->cpu, HOST_CAT_APP, p->app_op_ns);
	host_run(h, s->cpu, s->mode == SOCK_MODE_SMCR ? HOST_CAT_SMCR : HOST_CAT_TCPIP,
	         p->syscall_ns + extra_ns + (uint64_t)bytes * p->copy_ps / 1000u);
}

/* The application is told something: the interrupt handler's part ends here. */
static void host_wake(sock *s)
{
	host_irq_done(s->st->host);
}

/* An application whose CPU has run more than a slice ahead of the engine (a loop of
 * calls in one event) is made to wait, as if the call blocked: the call does nothing
 * and the application hears again (readable or writable) once its CPU catches up. */
static bool host_ahead(sock *s, bool readable)
{
	sim_host *h = s->st->host;
	if (!host_has_costs(h))
		return false;
	sim_time free_at = host_cpu(h, s->cpu)->free_at, now = sim_now(s->st->eng);
	sim_time until = now + HOST_APP_SLICE_NS;
	if (s->run_until > until) /* woken: its turn, behind what the CPU had then */
		until = s->run_until;
	if (free_at <= until)
		return false;
	if (readable)
		s->wake_rd = true;
	else
		s->wake_wr = true;
	if (!sim_event_pending(&s->wake_ev) || s->wake_ev.at > free_at)
		sim_event_schedule(s->st->eng, &s->wake_ev, free_at);
	return true;
}

/* Data or space for an application still busy on its CPU (host time): it would find the
 * news when it next looks, not now, and then take whatever has come by then in one call.
 * So the news waits until its CPU is free (one engine event for any number of them).
 * Returns true when the telling was put off. */
static bool host_defer(sock *s, bool readable)
{
	sim_host *h = s->st->host;
	if (!host_has_costs(h))
		return false;
	sim_time t = host_now(h), free_at = host_cpu(h, s->cpu)->free_at;
	bool pending = sim_event_pending(&s->wake_ev);
	if (!pending && free_at <= t)
		return false;
	if (readable)
		s->wake_rd = true;
	else
		s->wake_wr = true;
	if (!pending)
		sim_event_schedule(s->st->eng, &s->wake_ev, free_at > t ? free_at : t);
	host_irq_done(h);
	return true;
}

/* ---- telling the application ---- */

static void app_connect(sock *s, int err)
{
	host_wake(s);
	if (s->app_held && s->cb && s->cb->on_connect)
		s->cb->on_connect(s, err, s->user);
}

static void app_readable(sock *s)
{
	if (host_defer(s, true))
		return;
	host_wake(s);
	if (s->app_held && s->cb && s->cb->on_readable)
		s->cb->on_readable(s, s->user);
}

static void app_writable(sock *s)
{
	if (host_defer(s, false))
		return;
	host_wake(s);
	if (s->app_held && s->cb && s->cb->on_writable)
		s->cb->on_writable(s, s->user);
}

static void app_close(sock *s, int err)
{
	host_wake(s);
	s->phase = SOCK_DONE;
	if (s->app_held && s->cb && s->cb->on_close)
		s->cb->on_close(s, err, s->user);
}

/* The application's CPU is free: what it was not told yet, it is told now. */
static void sock_woken(sim_engine *eng, sim_event *ev)
{
	sock *s = ev->ctx;
	bool rd = s->wake_rd, wr = s->wake_wr;
	s->wake_rd = s->wake_wr = false;
	enter(s);
	/* its turn on the CPU: a slice of calls, queued behind what the CPU already has */
	sim_time free_at = host_cpu(s->st->host, s->cpu)->free_at;
	s->run_until = (free_at > sim_now(eng) ? free_at : sim_now(eng)) + HOST_APP_SLICE_NS;
	if (rd && s->phase == SOCK_OPEN && s->app_held && s->cb && s->cb->on_readable)
		s->cb->on_readable(s, s->user);
	if (wr && s->phase == SOCK_OPEN && s->app_held && s->cb && s->cb->on_writable)
		s->cb->on_writable(s, s->user);
	s->run_until = 0;
	leave(s);
}

/* The connection is ready for the application: report it, then whatever already
 * happened on the TCP stream. Returns -ECONNABORTED if nobody can be told. */
static int open_for_app(sock *s)
{
	s->phase = SOCK_OPEN;
	if (s->server) {
		sock *l = s->parent;
		pend_unlink(s);
		if (!l || !l->app_held)
			return -ECONNABORTED;
		s->app_held = true;
		host_wake(s);
		host_call(s, 0, host_get_profile(s->st->host)->connect_ns); /* accept() */
		enter(l);
		if (l->cb && l->cb->on_accept)
			l->cb->on_accept(l, s, l->user);
		leave(l);
	} else {
		app_connect(s, 0);
	}
	if (!s->app_held || s->mode == SOCK_MODE_SMCR || !s->tcp)
		return 0;
	if (tcp_readable(s->tcp) || tcp_eof(s->tcp))
		app_readable(s);
	if (s->app_held && s->tcp_done && s->phase == SOCK_OPEN)
		app_close(s, s->tcp_err);
	return 0;
}

static void set_fallback(sock *s, uint32_t reason)
{
	s->mode = SOCK_MODE_FALLBACK;
	s->reason = reason;
}

/* TCP is established: decide between TCP, fallback and the SMC layer. */
static void tcp_ready(sock *s)
{
	const sock_smc_hooks *h = s->st->smc_hooks;
	if (!s->smc_wanted) {
		s->mode = SOCK_MODE_TCP;
	} else if (!tcp_smc_negotiated(s->tcp)) {
		set_fallback(s, SMCR_DECL_PEERNOSMC);
	} else if (!h || !h->tcp_established) {
		set_fallback(s, SMCR_DECL_NOSMCDEV);
	} else {
		s->phase = SOCK_SMC;
		s->layer_held = true;
		h->tcp_established(s->st->smc_ctx, s);
		return;
	}
	if (open_for_app(s) == -ECONNABORTED)
		s->phase = SOCK_DONE; /* freed (with a RST) when we leave */
}

/* ---- TCP callbacks ---- */

static void t_connected(void *user, tcp_pcb *pcb)
{
	(void)pcb;
	sock *s = user;
	enter(s);
	tcp_ready(s);
	leave(s);
}

static void t_accepted(void *user, tcp_pcb *lpcb, tcp_pcb *child)
{
	(void)lpcb;
	sock *l = user;
	sock *c = sock_alloc(l->st, &l->opts, l->cb, l->user);
	if (!c)
		return; /* not adopted: TCP resets it */
	c->tcp = child;
	c->server = true;
	c->smc_wanted = l->smc_wanted;
	c->phase = SOCK_CONNECTING;
	c->parent = l;
	c->pend_next = l->pend_head;
	if (l->pend_head)
		l->pend_head->pend_prev = c;
	l->pend_head = c;
	tcp_set_callbacks(child, &tcp_cbs, c);
	enter(l);
	enter(c);
	tcp_ready(c);
	leave(c);
	leave(l);
}

static bool layer_has_tcp(const sock *s)
{
	return s->layer_held && (s->phase == SOCK_SMC || s->mode == SOCK_MODE_SMCR);
}

static void t_readable(void *user, tcp_pcb *pcb)
{
	(void)pcb;
	sock *s = user;
	const sock_smc_hooks *h = s->st->smc_hooks;
	enter(s);
	if (layer_has_tcp(s)) {
		if (h && h->tcp_readable)
			h->tcp_readable(s->st->smc_ctx, s);
	} else if (s->phase == SOCK_OPEN) {
		app_readable(s);
	}
	leave(s);
}

static void t_writable(void *user, tcp_pcb *pcb)
{
	(void)pcb;
	sock *s = user;
	const sock_smc_hooks *h = s->st->smc_hooks;
	enter(s);
	if (layer_has_tcp(s)) {
		if (h && h->tcp_writable)
			h->tcp_writable(s->st->smc_ctx, s);
	} else if (s->phase == SOCK_OPEN) {
		app_writable(s);
	}
	leave(s);
}

static void t_finished(void *user, tcp_pcb *pcb, int err)
{
	(void)pcb;
	sock *s = user;
	const sock_smc_hooks *h = s->st->smc_hooks;
	enter(s);
	s->tcp_done = true;
	s->tcp_err = err;
	if (layer_has_tcp(s)) {
		if (h && h->tcp_finished)
			h->tcp_finished(s->st->smc_ctx, s, err);
	} else if (s->phase == SOCK_CONNECTING) {
		s->phase = SOCK_DONE;
		if (s->server)
			pend_unlink(s); /* never reported: freed when we leave */
		else
			app_connect(s, err ? err : -ECONNRESET);
	} else if (s->phase == SOCK_OPEN) {
		app_close(s, err);
	}
	leave(s);
}

static const tcp_callbacks tcp_cbs = {
	.connected = t_connected,
	.accepted = t_accepted,
	.readable = t_readable,
	.writable = t_writable,
	.finished = t_finished,
};

/* ---- the application's API ---- */

static void apply_opts(sock *s, tcp_pcb *pcb)
{
	tcp_set_callbacks(pcb, &tcp_cbs, s);
	tcp_set_nodelay(pcb, s->opts.nodelay);
	if (s->opts.keepalive)
		tcp_set_keepalive(pcb, true, s->opts.keepalive_idle, 0);
	tcp_set_buffers(pcb, s->opts.sndbuf, s->opts.rcvbuf);
}

static bool smc_allowed(const stack *st, const sock_opts *o, uint16_t local_port)
{
	const smcr_config *c = &st->cfg.smcr;
	return o->smc && c->enabled && !(local_port && smcr_config_port_excluded(c, local_port));
}

sock *sock_listen(stack *st, const sock_opts *o, uint16_t port, const sock_callbacks *cb, void *user,
                  int *err)
{
	int rc = -ENOMEM;
	sock *s = sock_alloc(st, o, cb, user);
	tcp_pcb *pcb = s ? tcp_new(st) : NULL;
	if (!pcb)
		goto fail;
	s->tcp = pcb;
	s->is_listener = true;
	apply_opts(s, pcb);
	s->smc_wanted = smc_allowed(st, &s->opts, port);
	tcp_set_smc(pcb, s->smc_wanted);
	/* smc_sock_alloc takes net.smc.limit_smc_hs; setsockopt(SMC_LIMIT_HS) overrides it */
	tcp_set_smc_limit_hs(pcb, s->opts.limit_hs < 0 ? st->cfg.smcr.limit_hs : s->opts.limit_hs > 0);
	if ((rc = tcp_bind(pcb, s->opts.local_ip, port)) || (rc = tcp_listen(pcb, s->opts.backlog)))
		goto fail;
	s->phase = SOCK_OPEN;
	s->app_held = true;
	return s;
fail:
	if (pcb)
		tcp_close(pcb);
	free(s);
	if (err)
		*err = rc;
	return NULL;
}

sock *sock_connect(stack *st, const sock_opts *o, uint32_t dst, uint16_t port, const sock_callbacks *cb,
                   void *user, int *err)
{
	int rc = -ENOMEM;
	sock *s = sock_alloc(st, o, cb, user);
	tcp_pcb *pcb = s ? tcp_new(st) : NULL;
	if (!pcb)
		goto fail;
	s->tcp = pcb;
	apply_opts(s, pcb);
	s->smc_wanted = smc_allowed(st, &s->opts, s->opts.local_port);
	tcp_set_smc(pcb, s->smc_wanted);
	if ((s->opts.local_ip || s->opts.local_port) &&
	    (rc = tcp_bind(pcb, s->opts.local_ip, s->opts.local_port)))
		goto fail;
	s->phase = SOCK_CONNECTING;
	s->app_held = true;
	host_call(s, 0, host_get_profile(st->host)->connect_ns); /* socket() and connect() */
	if ((rc = tcp_connect(pcb, dst, port)))
		goto fail;
	return s;
fail:
	if (pcb)
		tcp_close(pcb);
	free(s);
	if (err)
		*err = rc;
	return NULL;
}

void sock_set_callbacks(sock *s, const sock_callbacks *cb, void *user)
{
	s->cb = cb;
	s->user = user;
}

static bool app_may_use(const sock *s)
{
	return s->phase == SOCK_OPEN || s->phase == SOCK_DONE;
}

/* What a send of len bytes will take, and a receive: known before the call, so the copy
 * is charged before what the call sends. */
static size_t send_take(const sock *s, size_t len)
{
	size_t space = sock_send_space(s);
	return len < space ? len : space;
}

static size_t recv_take(const sock *s, size_t len)
{
	size_t n = len;
	if (s->mode == SOCK_MODE_SMCR)
		n = s->be_ops && s->be_ops->readable ? s->be_ops->readable(s->be) : len;
	else if (s->tcp)
		n = tcp_readable(s->tcp);
	return n < len ? n : len;
}

ssize_t sock_send_flags(sock *s, const void *buf, size_t len, unsigned flags)
{
	if (!app_may_use(s))
		return -ENOTCONN;
	if (host_ahead(s, false))
		return 0;
	host_call(s, send_take(s, len), 0);
	if (s->mode == SOCK_MODE_SMCR)
		return s->be_ops ? s->be_ops->send(s->be, buf, len, flags) : -ENOTCONN;
	return s->tcp ? tcp_write(s->tcp, buf, len) : -ENOTCONN;
}

ssize_t sock_send(sock *s, const void *buf, size_t len) { return sock_send_flags(s, buf, len, 0); }

ssize_t sock_recv(sock *s, void *buf, size_t len)
{
	if (!app_may_use(s))
		return -ENOTCONN;
	if (host_ahead(s, true))
		return -EAGAIN;
	host_call(s, recv_take(s, len), 0);
	if (s->mode == SOCK_MODE_SMCR)
		return s->be_ops ? s->be_ops->recv(s->be, buf, len) : -ENOTCONN;
	return s->tcp ? tcp_read(s->tcp, buf, len) : -ENOTCONN;
}

ssize_t sock_send_fill_flags(sock *s, size_t len, sock_fill_fn fill, void *ctx, unsigned flags)
{
	if (!app_may_use(s))
		return -ENOTCONN;
	if (host_ahead(s, false))
		return 0;
	if (s->mode == SOCK_MODE_SMCR && !(s->be_ops && s->be_ops->send_fill))
		return -EOPNOTSUPP;
	host_call(s, send_take(s, len), 0);
	if (s->mode == SOCK_MODE_SMCR)
		return s->be_ops->send_fill(s->be, len, fill, ctx, flags);
	return s->tcp ? tcp_write_fill(s->tcp, len, fill, ctx) : -ENOTCONN;
}

ssize_t sock_send_fill(sock *s, size_t len, sock_fill_fn fill, void *ctx)
{
	return sock_send_fill_flags(s, len, fill, ctx, 0);
}

int sock_set_cork(sock *s, bool on)
{
	s->opts.cork = on;
	if (s->mode == SOCK_MODE_SMCR && s->be_ops && s->be_ops->set_cork)
		return s->be_ops->set_cork(s->be, on);
	return 0;
}

int sock_set_nodelay(sock *s, bool on)
{
	s->opts.nodelay = on;
	if (s->mode == SOCK_MODE_SMCR && s->be_ops && s->be_ops->set_nodelay)
		return s->be_ops->set_nodelay(s->be, on);
	if (s->tcp)
		tcp_set_nodelay(s->tcp, on);
	return 0;
}

ssize_t sock_recv_visit(sock *s, size_t len, sock_visit_fn visit, void *ctx)
{
	if (!app_may_use(s))
		return -ENOTCONN;
	if (host_ahead(s, true))
		return -EAGAIN;
	if (s->mode == SOCK_MODE_SMCR && !(s->be_ops && s->be_ops->recv_visit))
		return -EOPNOTSUPP;
	host_call(s, recv_take(s, len), 0);
	if (s->mode == SOCK_MODE_SMCR)
		return s->be_ops->recv_visit(s->be, len, visit, ctx);
	return s->tcp ? tcp_read_visit(s->tcp, len, visit, ctx) : -ENOTCONN;
}

void sock_app_work(sock *s, uint64_t ns)
{
	sim_host *h = s->st->host;
	if (!host_has_costs(h) || !ns)
		return;
	host_irq_done(h);
	host_run(h, s->cpu, HOST_CAT_APP, ns);
}

const sock_opts *sock_get_opts(const sock *s)
{
	return &s->opts;
}

size_t sock_send_space(const sock *s)
{
	if (!app_may_use(s))
		return 0;
	if (s->mode == SOCK_MODE_SMCR)
		return s->be_ops ? s->be_ops->send_space(s->be) : 0;
	return s->tcp ? tcp_writable(s->tcp) : 0;
}

int sock_shutdown(sock *s)
{
	if (!app_may_use(s))
		return -ENOTCONN;
	if (s->mode == SOCK_MODE_SMCR)
		return s->be_ops ? s->be_ops->shutdown(s->be) : -ENOTCONN;
	return s->tcp ? tcp_shutdown(s->tcp) : -ENOTCONN;
}

static void app_release(sock *s, bool abort)
{
	if (!s->app_held)
		return;
	s->app_held = false;
	s->cb = NULL;
	s->user = NULL;
	const sock_smc_hooks *h = s->st->smc_hooks;
	enter(s);
	if (s->layer_held && s->mode == SOCK_MODE_SMCR && s->be_ops) {
		s->be_ops->close(s->be, abort);
	} else if (s->layer_held) {
		if (h && h->app_closed)
			h->app_closed(s->st->smc_ctx, s, abort);
	} else if (s->tcp) {
		tcp_pcb *pcb = s->tcp;
		s->tcp = NULL;
		if (abort)
			tcp_abort(pcb);
		else
			tcp_close(pcb);
	}
	leave(s);
}

void sock_close(sock *s)
{
	app_release(s, false);
}

void sock_abort(sock *s)
{
	app_release(s, true);
}

sock_mode sock_get_mode(const sock *s)
{
	return s->mode;
}

uint32_t sock_fallback_reason(const sock *s)
{
	return s->mode == SOCK_MODE_FALLBACK ? s->reason : 0;
}

bool sock_is_server(const sock *s)
{
	return s->server;
}

tcp_pcb *sock_tcp_pcb(sock *s)
{
	return s->tcp;
}

typedef struct sock_census {
	uint64_t n, bytes;
} sock_census;

static void census_owner(void *ctx, const tcp_callbacks *cb, void *user)
{
	sock_census *c = ctx;
	if (cb != &tcp_cbs || !user)
		return;
	c->n++;
	c->bytes += sim_heap_block_bytes(user);
}

uint64_t sock_heap_bytes(const stack *st, uint64_t *n)
{
	sock_census c = { 0, 0 };
	tcp_foreach_owner(st, census_owner, &c);
	*n = c.n;
	return c.bytes;
}

/* ---- the SMC layer's API ---- */

void sock_set_smc_state(sock *s, void *state)
{
	s->smc_state = state;
}

void *sock_smc_state(const sock *s)
{
	return s->smc_state;
}

ssize_t sock_tcp_send(sock *s, const void *buf, size_t len)
{
	return s->tcp ? tcp_write(s->tcp, buf, len) : -ENOTCONN;
}

ssize_t sock_tcp_recv(sock *s, void *buf, size_t len)
{
	return s->tcp ? tcp_read(s->tcp, buf, len) : -ENOTCONN;
}

ssize_t sock_tcp_peek(sock *s, void *buf, size_t len)
{
	return s->tcp ? tcp_peek(s->tcp, buf, len) : -ENOTCONN;
}

size_t sock_tcp_readable(const sock *s)
{
	return s->tcp ? tcp_readable(s->tcp) : 0;
}

int sock_smc_established(sock *s, const sock_backend_ops *ops, void *be)
{
	s->mode = SOCK_MODE_SMCR;
	s->be_ops = ops;
	s->be = be;
	if (s->opts.cork && ops->set_cork)
		ops->set_cork(be, true); /* TCP_CORK set before: the CLC socket kept it */
	enter(s);
	int rc = open_for_app(s);
	leave(s);
	return rc;
}

int sock_smc_fallback(sock *s, uint32_t reason)
{
	set_fallback(s, reason);
	s->layer_held = false;
	enter(s);
	int rc = open_for_app(s);
	if (rc)
		s->phase = SOCK_DONE;
	leave(s); /* an unreported server child is freed here, with a RST */
	return rc;
}

void sock_notify_readable(sock *s)
{
	enter(s);
	app_readable(s);
	leave(s);
}

void sock_notify_writable(sock *s)
{
	enter(s);
	app_writable(s);
	leave(s);
}

void sock_notify_closed(sock *s, int err)
{
	enter(s);
	app_close(s, err);
	leave(s);
}

void sock_release(sock *s, bool abort)
{
	enter(s);
	s->layer_held = false;
	s->be_ops = NULL;
	s->be = NULL;
	if (s->tcp) {
		tcp_pcb *pcb = s->tcp;
		s->tcp = NULL;
		if (abort)
			tcp_abort(pcb);
		else
			tcp_close(pcb);
	}
	int err = s->tcp_err ? s->tcp_err : -ECONNABORTED;
	if (s->app_held && s->phase == SOCK_SMC) { /* a client still waiting for its connect */
		s->phase = SOCK_DONE;
		app_connect(s, err);
	} else if (s->app_held && s->phase != SOCK_DONE) {
		app_close(s, err);
	}
	leave(s);
}
