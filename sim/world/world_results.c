/* What the applications and hosts measured, for expectations and the run's output: an
 * app's totals over its connections (sim/app/app_result.h) and each stack's CPU time
 * (sim/host/host.h) beside the work its applications did. */
#include <inttypes.h>
#include <string.h>

#include "sim/host/host.h"
#include "sim/world/world_int.h"
#include "sim/world/world_results.h"

static const scn_app *app_of(const world *w, uint32_t i) { return &w->scn->apps[i]; }

void world_app_totals(const world *w, uint32_t app, uint32_t instance, app_totals *t)
{
	memset(t, 0, sizeof(*t));
	bool client = app_of(w, app)->role == SCN_ROLE_CONNECT;
	const world_app *wa = &w->apps[app];
	for (size_t i = 0; i < wa->n_flows; i++) {
		const world_flow *f = wa->flows[i];
		if (client ? f->app != app : f->listener != app)
			continue;
		if (instance && f->instance != instance)
			continue;
		if (!client && !f->srv_seen)
			continue; /* never reached this listener */
		app_totals_add(t, &f->af, !client);
	}
}

bool world_metric_is_result(scn_metric m)
{
	switch (m) {
	case SCN_M_OPS:
	case SCN_M_LATENCY:
	case SCN_M_CONNECT:
	case SCN_M_FCT:
	case SCN_M_THROUGHPUT:
	case SCN_M_CPU:
		return true;
	case SCN_M_LINKGROUPS:
	case SCN_M_LINKS:
	case SCN_M_CONNS:
	case SCN_M_MODE:
	case SCN_M_SENT:
	case SCN_M_DELIVERED:
	case SCN_M_RECEIVED:
	case SCN_M_ABORTED:
	case SCN_M_FALLBACK:
		break;
	}
	return false;
}

/* ---- hosts ---- */

/* Fold one end into its stack's work and window. */
static void cpu_add_end(world_cpu *c, const world_flow *f, const app_end *e, sim_time now, bool *open)
{
	/* from the connect on for both ends: the server's share of the handshake comes before
	 * its end is connected */
	sim_time from = f->af.t_start;
	if (!e->st || (e->server && !e->connected))
		return;
	c->ends++;
	c->txns += e->txns;
	c->bytes += e->sent + e->rx_total;
	if (c->ends == 1 || from < c->t0)
		c->t0 = from;
	*open |= !(e->ended && e->t_ended);
	sim_time to = e->ended && e->t_ended ? e->t_ended : now;
	if (to > c->t1)
		c->t1 = to;
}

/* The busy time of each CPU and the latest time its charged work is done. */
static void cpu_busy(const sim_host *h, uint64_t *busiest, sim_time *free_at)
{
	*busiest = 0;
	*free_at = 0;
	for (unsigned k = 0; k < host_ncpus(h); k++) {
		const host_cpu_stats *cs = host_cpu(h, k);
		uint64_t b = 0;
		for (unsigned m = 0; m < HOST_NCATS; m++)
			b += cs->busy_ns[m];
		if (b > *busiest)
			*busiest = b;
		if (cs->free_at > *free_at)
			*free_at = cs->free_at;
	}
}

void world_cpu_snapshot(world *w, uint32_t stack_idx)
{
	world_host *wh = &w->st[stack_idx];
	const sim_host *h = wh->st->host;
	if (!host_has_costs(h))
		return; /* nothing counted: the live accounts are the same zeros */
	host_totals(h, &wh->snap_tot);
	cpu_busy(h, &wh->snap_busiest, &wh->snap_free_at);
	wh->cpu_snap = true;
}

/* Everything of stack i, or of every stack when all (out has n_stacks entries). When all
 * of a stack's ends have ended, its figures are those of the moment the last one did (the
 * work charged by then, done by snap_free_at): the keepalives and timers of an idle tail
 * are not the applications' cost. While one is open, the accounts as they are now. */
static void cpu_fill(const world *w, world_cpu *out, uint32_t only)
{
	const scn_scenario *s = w->scn;
	sim_time now = sim_now(w->eng);
	bool *open = g_new0(bool, s->n_stacks ? s->n_stacks : 1);
	for (size_t k = 0; k < w->n_flows; k++) {
		const world_flow *f = w->flows[k];
		for (int side = 0; side < 2; side++) {
			uint32_t si = f->stack[side];
			if (only != SCN_NONE && si != only)
				continue;
			cpu_add_end(&out[only == SCN_NONE ? si : 0], f, side ? &f->af.srv : &f->af.c, now, &open[si]);
		}
	}
	for (uint32_t i = 0; i < s->n_stacks; i++) {
		if (only != SCN_NONE && i != only)
			continue;
		world_cpu *c = &out[only == SCN_NONE ? i : 0];
		const world_host *wh = &w->st[i];
		const sim_host *h = wh->st->host;
		c->profile = host_get_profile(h)->name;
		c->costs = host_has_costs(h);
		c->ncpus = host_ncpus(h);
		sim_time free_at;
		if (c->ends && !open[i] && wh->cpu_snap) {
			c->tot = wh->snap_tot;
			c->busiest = wh->snap_busiest;
			free_at = wh->snap_free_at;
		} else {
			host_totals(h, &c->tot);
			cpu_busy(h, &c->busiest, &free_at);
		}
		for (unsigned k = 0; k < HOST_NCATS; k++)
			c->busy += c->tot.busy_ns[k];
		if (!c->ends) {
			c->t0 = 0;
			c->t1 = now;
		} else if (free_at > c->t1) {
			/* the window lasts until the work charged in it is done */
			c->t1 = free_at < now ? free_at : now;
		}
	}
	g_free(open);
}

void world_cpu_of(const world *w, uint32_t stack_idx, world_cpu *c)
{
	memset(c, 0, sizeof(*c));
	cpu_fill(w, c, stack_idx);
}

world_cpu *world_cpu_all(const world *w)
{
	world_cpu *c = g_new0(world_cpu, w->scn->n_stacks ? w->scn->n_stacks : 1);
	cpu_fill(w, c, SCN_NONE);
	return c;
}

static uint64_t ppb(uint64_t part, uint64_t whole)
{
	if (!whole)
		return 0;
	unsigned __int128 r = (unsigned __int128)part * 1000000000u / whole;
	return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

uint64_t world_cpu_util_ppb(const world_cpu *c, uint64_t busy)
{
	return ppb(busy, (c->t1 - c->t0) * (uint64_t)c->ncpus);
}

uint64_t world_cpu_busiest_ppb(const world_cpu *c)
{
	return ppb(c->busiest, c->t1 - c->t0);
}

uint64_t world_cpu_per_txn(const world_cpu *c, uint64_t busy)
{
	return c->txns ? busy / c->txns : 0;
}

uint64_t world_cpu_per_mib(const world_cpu *c, uint64_t busy)
{
	if (!c->bytes)
		return 0;
	unsigned __int128 r = (unsigned __int128)busy * (1u << 20) / c->bytes;
	return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

/* ---- expectations ---- */

static bool measure_cpu(world *w, const scn_expect *x, uint64_t *v, char *detail, size_t dlen)
{
	world_cpu c;
	world_cpu_of(w, x->stack_a, &c);
	uint64_t busy = x->cpu_cat == SCN_CPU_ALL ? c.busy : c.tot.busy_ns[x->cpu_cat - 1];
	const char *name = w->scn->stacks[x->stack_a].name;
	char d[WORLD_FMT_LEN], r[WORLD_FMT_LEN];
	switch (x->cpu_per) {
	case SCN_PER_TOTAL:
		*v = busy;
		snprintf(detail, dlen, "measured %s", world_fmt_ns(busy, d, sizeof(d)));
		return true;
	case SCN_PER_TXN:
		if (!c.txns) {
			snprintf(detail, dlen, "no transaction on %s", name);
			return false;
		}
		*v = world_cpu_per_txn(&c, busy);
		snprintf(detail, dlen, "measured %s per transaction (%s over %" PRIu64 ")", world_fmt_ns(*v, d, sizeof(d)),
		         world_fmt_ns(busy, r, sizeof(r)), c.txns);
		return true;
	case SCN_PER_MIB:
		if (!c.bytes) {
			snprintf(detail, dlen, "no bytes moved on %s", name);
			return false;
		}
		*v = world_cpu_per_mib(&c, busy);
		snprintf(detail, dlen, "measured %s per MiB (%s over %" PRIu64 " bytes)", world_fmt_ns(*v, d, sizeof(d)),
		         world_fmt_ns(busy, r, sizeof(r)), c.bytes);
		return true;
	case SCN_PER_UTIL:
	case SCN_PER_BUSIEST:
		*v = x->cpu_per == SCN_PER_UTIL ? world_cpu_util_ppb(&c, busy) : world_cpu_busiest_ppb(&c);
		snprintf(detail, dlen, "measured %s (over %s, %u CPU%s)", world_fmt_ppb(*v, d, sizeof(d)),
		         world_fmt_ns(c.t1 - c.t0, r, sizeof(r)), c.ncpus, c.ncpus == 1 ? "" : "s");
		return true;
	}
	return false;
}

/* A distribution's statistic, or false when it is empty. */
static bool measure_stat(const app_hist *h, const scn_expect *x, const char *none, uint64_t *v, char *detail,
                         size_t dlen)
{
	if (!h->count) {
		snprintf(detail, dlen, "%s", none);
		return false;
	}
	*v = app_hist_stat(h, (app_stat)x->stat);
	char d[WORLD_FMT_LEN];
	snprintf(detail, dlen, "measured %s %s of %" PRIu64, scn_stat_name(x->stat), world_fmt_ns(*v, d, sizeof(d)),
	         h->count);
	return true;
}

bool world_result_measure(world *w, const scn_expect *x, uint64_t *v, char *detail, size_t dlen)
{
	*v = 0;
	if (x->metric == SCN_M_CPU)
		return measure_cpu(w, x, v, detail, dlen);
	app_totals t;
	world_app_totals(w, x->app.app, x->app.instance, &t);
	bool ok = true;
	char d[WORLD_FMT_LEN];
	switch (x->metric) {
	case SCN_M_OPS:
		*v = t.ops;
		snprintf(detail, dlen, "measured %" PRIu64, t.ops);
		break;
	case SCN_M_LATENCY:
		ok = measure_stat(&t.lat, x, "no transaction completed", v, detail, dlen);
		break;
	case SCN_M_CONNECT:
		ok = measure_stat(&t.connect, x, "no connection became usable", v, detail, dlen);
		break;
	case SCN_M_FCT:
		ok = measure_stat(&t.fct, x, "no connection completed its exchange", v, detail, dlen);
		break;
	case SCN_M_THROUGHPUT:
		*v = app_totals_throughput(&t);
		ok = t.t_last > t.t_first;
		if (ok)
			snprintf(detail, dlen, "measured %s", world_fmt_bps(*v, d, sizeof(d)));
		else
			snprintf(detail, dlen, "no data moved");
		break;
	case SCN_M_LINKGROUPS:
	case SCN_M_LINKS:
	case SCN_M_CONNS:
	case SCN_M_MODE:
	case SCN_M_SENT:
	case SCN_M_DELIVERED:
	case SCN_M_RECEIVED:
	case SCN_M_ABORTED:
	case SCN_M_FALLBACK:
	case SCN_M_CPU:
		ok = false;
		break;
	}
	app_totals_free(&t);
	return ok;
}

bool world_app_totals_by_name(const world *w, const char *name, app_totals *t)
{
	for (uint32_t i = 0; i < w->scn->n_apps; i++)
		if (!strcmp(app_of(w, i)->name, name)) {
			world_app_totals(w, i, 0, t);
			return true;
		}
	memset(t, 0, sizeof(*t));
	return false;
}

/* ---- formats ---- */

/* n / 10^scale with 3 significant digits and the unit. */
static char *fmt3(uint64_t n, unsigned scale, const char *unit, char *buf, size_t len)
{
	uint64_t p = 1;
	for (unsigned i = 0; i < scale; i++)
		p *= 10;
	uint64_t whole = n / p;
	if (whole >= 100 || scale == 0)
		snprintf(buf, len, "%" PRIu64 "%s", (n + p / 2) / p, unit);
	else if (whole >= 10)
		snprintf(buf, len, "%" PRIu64 ".%01" PRIu64 "%s", whole, n / (p / 10) % 10, unit);
	else
		snprintf(buf, len, "%" PRIu64 ".%02" PRIu64 "%s", whole, n / (p / 100) % 100, unit);
	return buf;
}

char *world_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000)
		return fmt3(ns, 0, "ns", buf, len);
	if (ns < 1000000)
		return fmt3(ns, 3, "us", buf, len);
	if (ns < 1000000000)
		return fmt3(ns, 6, "ms", buf, len);
	return fmt3(ns, 9, "s", buf, len);
}

char *world_fmt_bps(uint64_t bps, char *buf, size_t len)
{
	if (bps < 1000000)
		return fmt3(bps, 3, " Kbps", buf, len);
	if (bps < 1000000000)
		return fmt3(bps, 6, " Mbps", buf, len);
	return fmt3(bps, 9, " Gbps", buf, len);
}

char *world_fmt_ppb(uint64_t ppb_v, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%01" PRIu64 "%%", ppb_v / 10000000u, ppb_v / 1000000u % 10u);
	return buf;
}

char *world_fmt_rate_milli(uint64_t milli, char *buf, size_t len)
{
	if (milli < 1000000u)
		return fmt3(milli, 3, "/s", buf, len);
	if (milli < 1000000000u)
		return fmt3(milli, 6, " K/s", buf, len);
	return fmt3(milli, 9, " M/s", buf, len);
}
