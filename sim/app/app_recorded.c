/* The recorded application (see sim/app/app_recorded.h). */
#include "sim/app/app_recorded.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "model/cdc.h"
#include "sim/engine/pattern.h"
#include "sim/net/stack.h"

#define IO_CHUNK (256u * 1024u)
#define MAX_LISTEN 64u

typedef struct rec_conn {
	app_recorded *a;
	const app_rec_conn *sc; /* NULL: an accepted connection without a script */
	sock *s;
	bool opened; /* active: connect called */
	bool connected;
	bool over; /* on_close seen, a connect failed, or we closed it */
	bool eof;  /* a receive returned the end of the stream */
	size_t step;
	uint64_t step_done;  /* bytes of the current step done */
	uint64_t tx_off;     /* pattern offset of the next byte written */
	sim_time held_since; /* the current step is held (not by its gate) since */
	sim_time prev_done;  /* the previous step was done (the connect, for the first) */
	sim_time ready;      /* the current step could first run (for the step observer) */
	sim_event ev;
} rec_conn;

struct app_recorded {
	stack *st;
	smc_layer *layer;
	app_rec_script script; /* a deep copy */
	uint64_t seed;
	sim_time stall_ns;
	app_rec_gate_fn gate;
	app_rec_note_fn note;
	void *ctx;
	sock *listeners[MAX_LISTEN];
	uint16_t listen_port[MAX_LISTEN];
	size_t n_listeners;
	rec_conn **conns; /* by script index first, then unscripted accepted ones */
	size_t n_conns;
	bool *taken; /* passive scripts already matched */
	sim_event poke_ev;
	sim_event end_ev; /* the operator's end of the link groups, when its gate opens */
	bool ended;
	uint8_t *buf;
	app_rec_stats stats;
	uint32_t k_step;
	app_rec_step_fn on_step;
	void *on_step_ctx;
};

static sim_time now_of(const app_recorded *a) { return sim_now(a->st->eng); }

static void say(app_recorded *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(app_recorded *a, const char *fmt, ...)
{
	if (!a->note)
		return;
	char text[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	a->note(a->ctx, text);
}

static uint32_t conn_id(const rec_conn *c) { return c->sc ? c->sc->id : 0; }

/* Bytes that can be read now without waiting; -1 when the socket does not say (TCP). */
static int64_t readable(const rec_conn *c, uint32_t *rmb_size, bool *peer_closed)
{
	smc_layer_conn v;
	*rmb_size = 0;
	*peer_closed = c->eof;
	if (!c->a->layer || !smc_layer_sock_conn(c->a->layer, c->s, &v) || !v.has_core || v.mode != SOCK_MODE_SMCR)
		return -1;
	*rmb_size = v.core_info.rmbe_size;
	if (v.core_info.rx_conn_flags & SMCR_CDC_CLOSE_FLAGS)
		*peer_closed = true;
	return v.core_info.bytes_to_rcv;
}

static void release(rec_conn *c, bool abort)
{
	sock *s = c->s;
	c->s = NULL;
	c->over = true;
	if (!s)
		return;
	if (abort)
		sock_abort(s);
	else
		sock_close(s);
}

/* Read up to n bytes in one call; the bytes read, 0 at the end of the stream. */
static uint64_t read_once(rec_conn *c, uint64_t n)
{
	size_t len = n < IO_CHUNK ? (size_t)n : IO_CHUNK;
	ssize_t k = sock_recv(c->s, c->a->buf, len);
	if (k == 0)
		c->eof = true;
	if (k <= 0)
		return 0;
	c->a->stats.bytes_in += (uint64_t)k;
	return (uint64_t)k;
}

/* Whatever arrives is read; the connection closes after the peer. */
static void drain(rec_conn *c)
{
	while (c->s && !c->eof && read_once(c, IO_CHUNK))
		;
	if (c->s && c->eof)
		release(c, false);
}

static void schedule(rec_conn *c, sim_time at)
{
	if (!sim_event_pending(&c->ev) || c->ev.at > at)
		sim_event_schedule(c->a->st->eng, &c->ev, at);
}

/* The current step is held by the connection, not by its gate: past stall_ns it goes on. */
static bool held_too_long(rec_conn *c)
{
	sim_time now = now_of(c->a);
	if (c->held_since == SIM_TIME_NEVER)
		c->held_since = now;
	if (now >= c->held_since + c->a->stall_ns)
		return true;
	schedule(c, c->held_since + c->a->stall_ns);
	return false;
}

static const char *op_name(app_rec_op op)
{
	switch (op) {
	case APP_REC_READ:
		return "read";
	case APP_REC_WRITE:
		return "write";
	case APP_REC_SHUTDOWN:
		return "shutdown";
	case APP_REC_CLOSE:
		return "close";
	case APP_REC_ABORT:
		return "abort";
	}
	return "?";
}

/* Run one step as far as it goes now: true when it is complete. */
static bool run_step(rec_conn *c, const app_rec_step *st)
{
	app_recorded *a = c->a;
	switch (st->op) {
	case APP_REC_READ: {
		uint64_t total = st->bytes;
		uint64_t need = total - c->step_done;
		uint32_t rmb;
		bool closed;
		int64_t avail = readable(c, &rmb, &closed);
		bool full = avail >= 0 && rmb && (uint64_t)avail >= rmb;
		bool all = avail < 0 || (uint64_t)avail >= need;
		if (!all && !full && !closed && !held_too_long(c))
			return false;
		if (!all && !full) {
			a->stats.stalled++;
			say(a, "connection %" PRIu32 ": the recorded application read %" PRIu64 " bytes here, only %" PRId64 " arrived; read those", conn_id(c), need, avail);
			need = avail > 0 ? (uint64_t)avail : 0;
			c->step_done = total - need;
		}
		if (need) {
			uint64_t k = read_once(c, need);
			c->step_done += k;
			c->held_since = SIM_TIME_NEVER;
			if (!k && !c->eof)
				return false;
		}
		return c->step_done >= total || c->eof || !need;
	}
	case APP_REC_WRITE:
		while (c->s && c->step_done < st->bytes) {
			uint64_t left = st->bytes - c->step_done;
			size_t n = left < IO_CHUNK ? (size_t)left : IO_CHUNK;
			pattern_fill(a->seed ^ c->sc->id, c->tx_off, a->buf, n);
			ssize_t k = sock_send(c->s, a->buf, n);
			if (k < 0) {
				/* the peer closed first (a recording with a gap, or our side slower): the
				 * rest of the script still runs, a close is still a close */
				a->stats.stalled++;
				say(a, "connection %" PRIu32 ": a recorded write failed (error %zd); its bytes are dropped",
				    conn_id(c), k);
				return true;
			}
			if (k == 0) {
				/* on_writable goes on; but when the recording has already moved on (the
				 * next step's gate is open) and the window stays shut, the rest is given
				 * up (a capture that lacks the peer's consumer updates) */
				const app_rec_step *next = c->step + 1 < c->sc->n_steps ? &c->sc->steps[c->step + 1] : NULL;
				if (!next || a->gate(a->ctx, next->gate) > now_of(a) || !held_too_long(c))
					return false;
				a->stats.stalled++;
				say(a, "connection %" PRIu32 ": %" PRIu64 " bytes of a recorded write of %" PRIu64 " found no room; "
				       "dropped",
				    conn_id(c), st->bytes - c->step_done, st->bytes);
				return true;
			}
			c->held_since = SIM_TIME_NEVER;
			c->step_done += (uint64_t)k;
			c->tx_off += (uint64_t)k;
			a->stats.bytes_out += (uint64_t)k;
		}
		return true;
	case APP_REC_SHUTDOWN:
	case APP_REC_CLOSE:
	case APP_REC_ABORT: {
		if (st->after_peer_close) {
			uint32_t rmb;
			bool closed;
			if (readable(c, &rmb, &closed) < 0 && !closed) {
				/* TCP says the peer's close by a read that returns 0: look */
				while (c->s && !c->eof && read_once(c, IO_CHUNK))
					;
				closed = c->eof;
			}
			if (!closed && !c->over && !held_too_long(c))
				return false;
			if (!closed && !c->over) {
				a->stats.stalled++;
				say(a, "connection %" PRIu32 ": the peer's close did not arrive; the recorded %s is done anyway",
				    conn_id(c), op_name(st->op));
			}
		}
		if (st->op == APP_REC_SHUTDOWN)
			sock_shutdown(c->s);
		else
			release(c, st->op == APP_REC_ABORT);
		return true;
	}
	}
	return true;
}

static void pump(rec_conn *c)
{
	app_recorded *a = c->a;
	if (!c->s || !c->connected)
		return;
	if (!c->sc || c->sc->drain) {
		drain(c);
		return;
	}
	while (c->s && c->step < c->sc->n_steps) {
		const app_rec_step *st = &c->sc->steps[c->step];
		sim_time at = a->gate(a->ctx, st->gate);
		if (at == SIM_TIME_NEVER)
			return; /* a poke comes */
		if (st->think_ns && c->prev_done + st->think_ns > at)
			at = c->prev_done + st->think_ns;
		if (at > now_of(a)) {
			schedule(c, at);
			return;
		}
		if (c->ready == SIM_TIME_NEVER)
			c->ready = at > c->prev_done ? at : c->prev_done;
		if (!run_step(c, st))
			return;
		sim_time now = now_of(a);
		if (a->on_step)
			a->on_step(a->on_step_ctx, c->sc->id, c->step, c->ready, now, c->s && sock_get_mode(c->s) == SOCK_MODE_SMCR);
		c->prev_done = now;
		c->ready = SIM_TIME_NEVER;
		c->step++;
		c->step_done = 0;
		c->held_since = SIM_TIME_NEVER;
		a->stats.steps_done++;
	}
}

static void on_step_ev(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	pump(ev->ctx);
}

/* ---- sockets ---- */

static void c_on_readable(sock *s, void *user)
{
	(void)s;
	pump(user);
}

static void c_on_writable(sock *s, void *user)
{
	(void)s;
	pump(user);
}

static void c_on_close(sock *s, int err, void *user)
{
	(void)s;
	(void)err;
	rec_conn *c = user;
	c->over = true;
	pump(c);
	if (c->s && (!c->sc || c->sc->drain || c->step >= c->sc->n_steps))
		release(c, false); /* nothing more recorded: let it go */
}

static void c_on_connect(sock *s, int err, void *user);

static const sock_callbacks conn_cbs = {
	.on_connect = c_on_connect,
	.on_readable = c_on_readable,
	.on_writable = c_on_writable,
	.on_close = c_on_close,
};

static void c_on_connect(sock *s, int err, void *user)
{
	(void)s;
	rec_conn *c = user;
	if (err) {
		say(c->a, "connection %" PRIu32 ": the recorded application's connect failed (error %d)", conn_id(c), err);
		release(c, false);
		return;
	}
	c->connected = true;
	c->prev_done = now_of(c->a);
	pump(c);
}

static rec_conn *conn_new(app_recorded *a, const app_rec_conn *sc)
{
	rec_conn *c = g_new0(rec_conn, 1);
	c->a = a;
	c->sc = sc;
	c->held_since = SIM_TIME_NEVER;
	c->ready = SIM_TIME_NEVER;
	sim_event_init(&c->ev, a->k_step, a->st->entity, on_step_ev, c);
	a->conns = g_realloc_n(a->conns, a->n_conns + 1, sizeof(*a->conns));
	a->conns[a->n_conns++] = c;
	return c;
}

static const app_rec_conn *match_accepted(app_recorded *a, sock *child, uint16_t port)
{
	smc_layer_conn v;
	bool smc = a->layer && smc_layer_sock_conn(a->layer, child, &v) && v.has_core;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < a->script.n_conns; i++) {
			const app_rec_conn *sc = &a->script.conns[i];
			if (sc->active || a->taken[i] || sc->port != port)
				continue;
			if (pass == 0 && !(smc && sc->has_peer_token && sc->peer_token == v.core_info.peer_token))
				continue;
			if (pass == 1 && smc && sc->has_peer_token)
				continue; /* a token that names another connection */
			a->taken[i] = true;
			return sc;
		}
	return NULL;
}

static void l_on_accept(sock *listener, sock *child, void *user)
{
	app_recorded *a = user;
	uint16_t port = 0;
	for (size_t i = 0; i < a->n_listeners; i++)
		if (a->listeners[i] == listener)
			port = a->listen_port[i];
	const app_rec_conn *sc = match_accepted(a, child, port);
	rec_conn *c = sc ? a->conns[sc - a->script.conns] : conn_new(a, NULL);
	c->over = false;
	a->stats.accepted++;
	if (!sc) {
		a->stats.unmatched++;
		say(a, "a connection to port %u that the recording does not script: read and closed after the peer",
		    (unsigned)port);
	}
	c->s = child;
	c->connected = true;
	c->prev_done = now_of(a);
	sock_set_callbacks(child, &conn_cbs, c);
	pump(c);
}

static const sock_callbacks listen_cbs = { .on_accept = l_on_accept };

/* Active connections whose gate opened. */
static void open_due(app_recorded *a)
{
	for (size_t i = 0; i < a->script.n_conns; i++) {
		const app_rec_conn *sc = &a->script.conns[i];
		rec_conn *c = a->conns[i];
		if (!sc->active || c->opened)
			continue;
		sim_time at = a->gate(a->ctx, sc->open_gate);
		if (at == SIM_TIME_NEVER)
			continue;
		if (at > now_of(a)) {
			schedule(c, at);
			continue;
		}
		c->opened = true;
		sock_opts o;
		sock_opts_default(&o);
		o.smc = true;
		int err = 0;
		c->s = sock_connect(a->st, &o, sc->peer_ip, sc->port, &conn_cbs, c, &err);
		if (!c->s) {
			say(a, "connection %" PRIu32 ": the recorded application cannot connect (error %d)", sc->id, err);
			c->over = true;
			continue;
		}
		a->stats.opened++;
	}
}

/* The operator ends every link group once its gate opens. */
static void end_due(app_recorded *a)
{
	if (!a->script.end_lgr_gate || a->ended || !a->layer)
		return;
	sim_time t = a->gate(a->ctx, a->script.end_lgr_gate - 1);
	if (t == SIM_TIME_NEVER)
		return;
	if (t > now_of(a)) {
		if (!sim_event_pending(&a->end_ev))
			sim_event_schedule(a->st->eng, &a->end_ev, t);
		return;
	}
	a->ended = true;
	say(a, "the recorded operator ends every link group (%d)", smc_layer_terminate_all(a->layer));
}

static void on_end_ev(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	end_due(ev->ctx);
}

static void on_poke(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	app_recorded *a = ev->ctx;
	end_due(a);
	open_due(a);
	for (size_t i = 0; i < a->n_conns; i++)
		pump(a->conns[i]);
}

static void on_conn_ev(sim_engine *eng, sim_event *ev);

void app_recorded_on_step(app_recorded *a, app_rec_step_fn fn, void *ctx)
{
	a->on_step = fn;
	a->on_step_ctx = ctx;
}

void app_recorded_poke(app_recorded *a)
{
	if (a && !sim_event_pending(&a->poke_ev))
		sim_event_schedule(a->st->eng, &a->poke_ev, now_of(a));
}

/* An active connection's own event before it is open: its gate's time came. */
static void on_conn_ev(sim_engine *eng, sim_event *ev)
{
	rec_conn *c = ev->ctx;
	if (c->sc && c->sc->active && !c->opened)
		on_poke(eng, &c->a->poke_ev);
	else
		pump(c);
}

static void copy_script(app_rec_script *dst, const app_rec_script *src)
{
	dst->n_listen = src->n_listen;
	dst->listen_ports = g_memdup2(src->listen_ports, src->n_listen * sizeof(*src->listen_ports));
	dst->n_conns = src->n_conns;
	dst->end_lgr_gate = src->end_lgr_gate;
	dst->conns = g_memdup2(src->conns, src->n_conns * sizeof(*src->conns));
	for (size_t i = 0; i < src->n_conns; i++)
		dst->conns[i].steps = g_memdup2(src->conns[i].steps, src->conns[i].n_steps * sizeof(app_rec_step));
}

app_recorded *app_recorded_start(stack *st, smc_layer *layer, const app_rec_script *script, uint64_t seed,
                                 sim_time stall_ns, app_rec_gate_fn gate, app_rec_note_fn note, void *ctx,
                                 char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	app_recorded *a = g_new0(app_recorded, 1);
	a->st = st;
	a->layer = layer;
	a->seed = seed;
	a->stall_ns = stall_ns;
	a->gate = gate;
	a->note = note;
	a->ctx = ctx;
	a->buf = g_malloc(IO_CHUNK);
	a->k_step = sim_kind("app.recorded");
	copy_script(&a->script, script);
	a->taken = g_new0(bool, script->n_conns ? script->n_conns : 1);
	sim_event_init(&a->poke_ev, a->k_step, st->entity, on_poke, a);
	sim_event_init(&a->end_ev, a->k_step, st->entity, on_end_ev, a);
	/* script connections first, so that conns[i] is script i's */
	for (size_t i = 0; i < a->script.n_conns; i++) {
		rec_conn *c = conn_new(a, &a->script.conns[i]);
		c->ev.fn = on_conn_ev;
		if (!c->sc->active)
			c->over = true; /* until a connection is accepted for it */
	}
	/* a port it cannot listen on (or one too many) is said, the others still serve */
	for (size_t i = 0; i < a->script.n_listen; i++) {
		sock_opts o;
		sock_opts_default(&o);
		o.smc = true;
		int e = 0;
		sock *l = i < MAX_LISTEN ? sock_listen(st, &o, a->script.listen_ports[i], &listen_cbs, a, &e) : NULL;
		if (!l) {
			say(a, "the recorded application cannot listen on port %u (%s)", (unsigned)a->script.listen_ports[i],
			    i < MAX_LISTEN ? "the stack refused" : "too many ports");
			continue;
		}
		a->listen_port[a->n_listeners] = a->script.listen_ports[i];
		a->listeners[a->n_listeners++] = l;
	}
	app_recorded_poke(a);
	return a;
}

void app_recorded_free(app_recorded *a)
{
	if (!a)
		return;
	sim_event_cancel(a->st->eng, &a->poke_ev);
	sim_event_cancel(a->st->eng, &a->end_ev);
	for (size_t i = 0; i < a->n_conns; i++) {
		rec_conn *c = a->conns[i];
		sim_event_cancel(a->st->eng, &c->ev);
		if (c->s)
			sock_close(c->s);
		g_free(c);
	}
	for (size_t i = 0; i < a->n_listeners; i++)
		sock_close(a->listeners[i]);
	for (size_t i = 0; i < a->script.n_conns; i++)
		g_free(a->script.conns[i].steps);
	g_free(a->script.conns);
	g_free(a->script.listen_ports);
	g_free(a->conns);
	g_free(a->taken);
	g_free(a->buf);
	g_free(a);
}
