/* Instances: a crr client's connections one after another, and the pause (think time)
 * between the transactions of rr and crr clients. An instance has at most one connection
 * in hand; its one timer is the pause. */
#include "sim/app/app_int.h"
#include "sim/net/stack.h"

/* No more transactions: its count done or its duration over. */
static bool instance_over(app_client *c)
{
	if (c->txns >= c->spec->count || app_expired(c->spec, c->st, c->t_begin))
		c->stopped = true;
	return c->stopped;
}

static void open_next(app_client *c)
{
	if (instance_over(c))
		return;
	app_flow *f = c->hooks->open(c->user, c);
	if (!f)
		c->stopped = true;
}

static void on_think(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	app_client *c = ev->ctx;
	if (c->spec->kind == APP_CRR)
		open_next(c);
	else if (c->cur)
		app_client_rr_next(&c->cur->c);
}

void app_client_init(app_client *c, stack *st, const sock_opts *o, uint32_t dst, uint16_t port,
                     const app_spec *spec, uint64_t id, const app_client_hooks *h, void *user)
{
	*c = (app_client){ .spec = spec, .st = st, .dst = dst, .port = port, .hooks = h, .user = user };
	if (o)
		c->opts = *o;
	else
		sock_opts_default(&c->opts);
	sim_event_init(&c->think, sim_kind("app.think"), id, on_think, c);
}

void app_client_start(app_client *c)
{
	c->t_begin = stack_now(c->st);
	open_next(c);
}

int app_client_connect(app_client *c, app_flow *f)
{
	f->client = c;
	c->cur = f;
	c->conns++;
	int rc = app_flow_connect(f, c->st, &c->opts, c->dst, c->port);
	if (rc) {
		c->cur = NULL;
		c->stopped = true;
		c->err = rc;
	}
	return rc;
}

void app_client_stop(app_client *c)
{
	c->stopped = true;
	sim_event_cancel(c->st->eng, &c->think);
}

bool app_client_pause(app_client *c)
{
	if (!c->spec->think_ns || c->stopped)
		return false;
	sim_event_schedule(c->st->eng, &c->think, stack_now(c->st) + c->spec->think_ns);
	return true;
}

void app_client_flow_ended(app_client *c, app_flow *f)
{
	if (c->cur != f)
		return;
	c->cur = NULL;
	sim_event_cancel(c->st->eng, &c->think);
	if (c->spec->kind != APP_CRR || !f->c.finished) {
		if (!f->c.finished && f->c.err)
			c->err = f->c.err;
		c->stopped = true; /* rr: its one connection; crr: it failed */
		return;
	}
	if (!instance_over(c) && !app_client_pause(c))
		open_next(c);
}
