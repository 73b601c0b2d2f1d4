/* Results of flows and their sums. */
#include "sim/app/app_result.h"

#include <string.h>

/* Bits per second of `bytes` over `ns`, rounded down; 0 for an empty span. */
static uint64_t rate_bps(uint64_t bytes, uint64_t ns)
{
	if (!ns)
		return 0;
	unsigned __int128 r = (unsigned __int128)bytes * 8u * 1000000000u / ns;
	return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

/* When the flow's exchange completed: a bulk flow's last byte at the sink (when the
 * sink is in this flow), else the client's. 0: not completed. */
static sim_time done_at(const app_flow *f)
{
	const app_end *c = &f->c, *s = &f->srv;
	if (!c->finished)
		return 0;
	if (f->spec->kind != APP_BULK)
		return f->t_done;
	if (s->st) /* the sink's end: done when it read every byte and the end of stream */
		return s->eof && s->rx_total == c->sent ? (s->t_last_rx ? s->t_last_rx : f->t_done) : 0;
	return c->ended && !c->err ? c->t_ended : 0;
}

void app_flow_result(const app_flow *f, app_conn_result *r)
{
	const app_end *c = &f->c;
	memset(r, 0, sizeof(*r));
	r->connected = c->connected;
	r->bytes_sent = c->sent;
	r->bytes_received = c->rx_total;
	r->lat = f->lat && f->lat->count ? f->lat : NULL;
	bool transactional = f->spec->kind == APP_RR || f->spec->kind == APP_CRR;
	if (!c->connected)
		return;
	r->connect_ns = c->t_connected - f->t_start;
	r->t_first = c->t_connected;
	sim_time done = done_at(f);
	r->done = done != 0 && !c->bad && !f->srv.bad;
	r->ops = transactional ? c->txns : r->done;
	if (r->done) {
		r->fct_ns = done - f->t_start;
		r->t_last = done;
	} else {
		r->t_last = c->t_last_rx > f->srv.t_last_rx ? c->t_last_rx : f->srv.t_last_rx;
	}
	if (r->t_last > r->t_first)
		r->throughput_bps = rate_bps(r->bytes_sent + r->bytes_received, r->t_last - r->t_first);
}

void app_totals_add(app_totals *t, const app_flow *f, bool server)
{
	app_conn_result r;
	app_flow_result(f, &r);
	if (server) {
		r.bytes_sent = f->srv.sent;
		r.bytes_received = f->srv.rx_total;
		r.ops = f->server_kind == APP_RESPONDER ? f->srv.txns : r.ops;
	}
	t->conns++;
	t->ops += r.ops;
	t->bytes_sent += r.bytes_sent;
	t->bytes_received += r.bytes_received;
	if (r.lat)
		app_hist_merge(&t->lat, r.lat);
	if (!r.done && f->c.err)
		t->failed++;
	if (!r.connected)
		return;
	t->connected++;
	app_hist_add(&t->connect, r.connect_ns);
	if (r.done) {
		t->done++;
		app_hist_add(&t->fct, r.fct_ns);
	}
	if (!t->t_first || r.t_first < t->t_first)
		t->t_first = r.t_first;
	if (r.t_last > t->t_last)
		t->t_last = r.t_last;
}

void app_totals_free(app_totals *t)
{
	app_hist_free(&t->lat);
	app_hist_free(&t->connect);
	app_hist_free(&t->fct);
	memset(t, 0, sizeof(*t));
}

uint64_t app_totals_throughput(const app_totals *t)
{
	return t->t_last > t->t_first ? rate_bps(t->bytes_sent + t->bytes_received, t->t_last - t->t_first) : 0;
}

uint64_t app_totals_rate_milli(const app_totals *t)
{
	if (t->t_last <= t->t_first)
		return 0;
	unsigned __int128 r = (unsigned __int128)t->ops * 1000u * 1000000000u / (t->t_last - t->t_first);
	return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}
