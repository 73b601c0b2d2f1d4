/* The applications' results and the hosts' CPU time in a run's output: text (after the
 * final reports) and JSON (`applications`, `hosts`). */
#include <inttypes.h>
#include <string.h>

#include "sim/world/world_int.h"
#include "sim/world/world_results.h"

static const scn_app *app_of(const world *w, uint32_t i) { return &w->scn->apps[i]; }

static void print_dist(FILE *out, const char *what, const app_hist *h)
{
	if (!h->count)
		return;
	fprintf(out, "  %-8s", what);
	for (int s = 0; s < APP_NSTATS; s++) {
		char d[WORLD_FMT_LEN];
		fprintf(out, " %s %s", app_stat_name((app_stat)s), world_fmt_ns(app_hist_stat(h, (app_stat)s), d, sizeof(d)));
	}
	fprintf(out, " (%" PRIu64 ")\n", h->count);
}

static void app_heading(world *w, FILE *out, uint32_t i, const app_totals *t)
{
	const scn_app *a = app_of(w, i);
	const scn_scenario *s = w->scn;
	if (a->role == SCN_ROLE_CONNECT)
		fprintf(out, "%s: %s %s -> %s:%u, %" PRIu64 " of %" PRIu64 " connection%s completed, %" PRIu64 " failed\n",
		        a->name, scn_kind_name(a->kind), s->stacks[a->stack].name, s->stacks[a->dst_stack].name, a->port,
		        t->done, t->conns, t->conns == 1 ? "" : "s", t->failed);
	else
		fprintf(out, "%s: %s on %s:%u, %" PRIu64 " connection%s served\n", a->name, scn_kind_name(a->kind),
		        s->stacks[a->stack].name, a->port, t->conns, t->conns == 1 ? "" : "s");
}

static void print_conn(world *w, FILE *out, const world_flow *f)
{
	const scn_app *a = app_of(w, f->app);
	app_conn_result r;
	app_flow_result(&f->af, &r);
	char c[WORLD_FMT_LEN], d[WORLD_FMT_LEN], e[WORLD_FMT_LEN];
	fprintf(out, "  %s.%u: %" PRIu64 " op%s, connect %s, fct %s, %s", a->name, f->instance, r.ops, r.ops == 1 ? "" : "s",
	        r.connected ? world_fmt_ns(r.connect_ns, c, sizeof(c)) : "-", r.done ? world_fmt_ns(r.fct_ns, d, sizeof(d)) : "-",
	        world_fmt_bps(r.throughput_bps, e, sizeof(e)));
	if (r.lat)
		fprintf(out, ", latency p50 %s p99 %s max %s", world_fmt_ns(app_hist_stat(r.lat, APP_STAT_P50), c, sizeof(c)),
		        world_fmt_ns(app_hist_stat(r.lat, APP_STAT_P99), d, sizeof(d)), world_fmt_ns(r.lat->max, e, sizeof(e)));
	fputc('\n', out);
}

static void print_app(world *w, FILE *out, uint32_t i)
{
	app_totals t;
	world_app_totals(w, i, 0, &t);
	app_heading(w, out, i, &t);
	char b[WORLD_FMT_LEN], r[WORLD_FMT_LEN];
	fprintf(out, "  %" PRIu64 " op%s (%s), %" PRIu64 " bytes sent, %" PRIu64 " received, %s\n", t.ops,
	        t.ops == 1 ? "" : "s", world_fmt_rate_milli(app_totals_rate_milli(&t), r, sizeof(r)), t.bytes_sent,
	        t.bytes_received, world_fmt_bps(app_totals_throughput(&t), b, sizeof(b)));
	print_dist(out, "latency", &t.lat);
	print_dist(out, "connect", &t.connect);
	print_dist(out, "fct", &t.fct);
	const world_app *wa = &w->apps[i];
	for (size_t k = 0; w->o.verbose && app_of(w, i)->role == SCN_ROLE_CONNECT && k < wa->n_flows; k++)
		if (wa->flows[k]->app == i)
			print_conn(w, out, wa->flows[k]);
	app_totals_free(&t);
}

static void print_host(world *w, FILE *out, uint32_t i, const world_cpu *c)
{
	const char *name = w->scn->stacks[i].name;
	char a[WORLD_FMT_LEN], b[WORLD_FMT_LEN];
	fprintf(out, "%s: profile %s, %u CPU%s, %" PRIu64 " connection end%s, %" PRIu64 " transactions, %" PRIu64 " bytes over %s\n",
	        name, c->profile, c->ncpus, c->ncpus == 1 ? "" : "s", c->ends, c->ends == 1 ? "" : "s", c->txns, c->bytes,
	        world_fmt_ns(c->t1 - c->t0, a, sizeof(a)));
	if (!c->costs)
		return;
	fprintf(out, "  busy %s:", world_fmt_ns(c->busy, a, sizeof(a)));
	for (unsigned k = 0; k < HOST_NCATS; k++)
		fprintf(out, " %s %s", host_cat_name((host_cat)k), world_fmt_ns(c->tot.busy_ns[k], a, sizeof(a)));
	fprintf(out, "; util %s", world_fmt_ppb(world_cpu_util_ppb(c, c->busy), a, sizeof(a)));
	fprintf(out, ", busiest CPU %s\n", world_fmt_ppb(world_cpu_busiest_ppb(c), a, sizeof(a)));
	fprintf(out, "  %" PRIu64 " of %" PRIu64 " pieces of work queued, waited %s (longest %s)", c->tot.queued_items,
	        c->tot.items, world_fmt_ns(c->tot.wait_ns, a, sizeof(a)), world_fmt_ns(c->tot.wait_max_ns, b, sizeof(b)));
	if (c->txns)
		fprintf(out, "; %s per transaction", world_fmt_ns(world_cpu_per_txn(c, c->busy), a, sizeof(a)));
	if (c->bytes)
		fprintf(out, "; %s per MiB", world_fmt_ns(world_cpu_per_mib(c, c->busy), a, sizeof(a)));
	fputc('\n', out);
}

void world_print_results(world *w, FILE *out)
{
	const scn_scenario *s = w->scn;
	if (s->n_apps) {
		fprintf(out, "\n==== application results (host times; percentiles within 1/%u) ====\n", APP_HIST_PRECISION);
		for (uint32_t i = 0; i < s->n_apps; i++)
			print_app(w, out, i);
	}
	world_cpu *c = world_cpu_all(w);
	bool any = false;
	for (uint32_t i = 0; i < s->n_stacks; i++)
		any |= c[i].costs || c[i].ends;
	if (any)
		fprintf(out, "\n==== hosts (CPU time) ====\n");
	for (uint32_t i = 0; i < s->n_stacks; i++)
		if (c[i].costs || c[i].ends)
			print_host(w, out, i, &c[i]);
	g_free(c);
}

/* ---- JSON ---- */

static void json_dist(json_writer *j, const char *key, const app_hist *h)
{
	json_key(j, key);
	if (!h || !h->count) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_kv_uint(j, "count", h->count);
	for (int s = 0; s < APP_NSTATS; s++)
		json_kv_uint(j, app_stat_key((app_stat)s), app_hist_stat(h, (app_stat)s));
	json_end_object(j);
}

static void json_conn(world *w, json_writer *j, const world_flow *f)
{
	app_conn_result r;
	app_flow_result(&f->af, &r);
	json_begin_object(j);
	json_kv_uint(j, "instance", f->instance);
	json_kv_uint(j, "flow", f->seq);
	json_kv_bool(j, "connected", r.connected);
	json_kv_bool(j, "completed", r.done);
	json_kv_uint(j, "ops", r.ops);
	json_kv_uint(j, "bytes_sent", r.bytes_sent);
	json_kv_uint(j, "bytes_received", r.bytes_received);
	json_key(j, "connect_ns");
	r.connected ? json_uint(j, r.connect_ns) : json_null(j);
	json_key(j, "fct_ns");
	r.done ? json_uint(j, r.fct_ns) : json_null(j);
	json_kv_uint(j, "throughput_bps", r.throughput_bps);
	json_dist(j, "latency", r.lat);
	json_end_object(j);
	(void)w;
}

static void json_app(world *w, json_writer *j, uint32_t i)
{
	const scn_app *a = app_of(w, i);
	app_totals t;
	world_app_totals(w, i, 0, &t);
	json_begin_object(j);
	json_kv_str(j, "name", a->name);
	json_kv_str(j, "kind", scn_kind_name(a->kind));
	json_kv_str(j, "role", a->role == SCN_ROLE_CONNECT ? "connect" : "listen");
	json_kv_str(j, "stack", w->scn->stacks[a->stack].name);
	json_kv_uint(j, "conns", t.conns);
	json_kv_uint(j, "connected", t.connected);
	json_kv_uint(j, "completed", t.done);
	json_kv_uint(j, "failed", t.failed);
	json_kv_uint(j, "ops", t.ops);
	json_kv_uint(j, "ops_per_s_milli", app_totals_rate_milli(&t));
	json_kv_uint(j, "bytes_sent", t.bytes_sent);
	json_kv_uint(j, "bytes_received", t.bytes_received);
	json_kv_uint(j, "throughput_bps", app_totals_throughput(&t));
	json_dist(j, "latency", &t.lat);
	json_dist(j, "connect", &t.connect);
	json_dist(j, "fct", &t.fct);
	json_key(j, "connections");
	json_begin_array(j);
	const world_app *wa = &w->apps[i];
	for (size_t k = 0; a->role == SCN_ROLE_CONNECT && k < wa->n_flows; k++)
		if (wa->flows[k]->app == i)
			json_conn(w, j, wa->flows[k]);
	json_end_array(j);
	json_end_object(j);
	app_totals_free(&t);
}

static void json_cpu_stats(json_writer *j, const host_cpu_stats *c)
{
	json_key(j, "busy_ns");
	json_begin_object(j);
	for (unsigned k = 0; k < HOST_NCATS; k++)
		json_kv_uint(j, host_cat_name((host_cat)k), c->busy_ns[k]);
	json_end_object(j);
	json_kv_uint(j, "items", c->items);
	json_kv_uint(j, "queued_items", c->queued_items);
	json_kv_uint(j, "wait_ns", c->wait_ns);
	json_kv_uint(j, "wait_max_ns", c->wait_max_ns);
}

static void json_host(world *w, json_writer *j, uint32_t i, const world_cpu *c)
{
	json_begin_object(j);
	json_kv_str(j, "stack", w->scn->stacks[i].name);
	json_kv_str(j, "profile", c->profile);
	json_kv_bool(j, "costs", c->costs);
	json_kv_uint(j, "cpus", c->ncpus);
	json_cpu_stats(j, &c->tot);
	json_kv_uint(j, "busy_total_ns", c->busy);
	json_kv_uint(j, "window_ns", c->t1 - c->t0);
	json_kv_uint(j, "utilisation_ppm", world_cpu_util_ppb(c, c->busy) / 1000u);
	json_kv_uint(j, "busiest_cpu_ppm", world_cpu_busiest_ppb(c) / 1000u);
	json_kv_uint(j, "connection_ends", c->ends);
	json_kv_uint(j, "transactions", c->txns);
	json_kv_uint(j, "bytes", c->bytes);
	json_key(j, "cpu_per_txn_ns");
	c->txns ? json_uint(j, world_cpu_per_txn(c, c->busy)) : json_null(j);
	json_key(j, "cpu_per_mib_ns");
	c->bytes ? json_uint(j, world_cpu_per_mib(c, c->busy)) : json_null(j);
	json_key(j, "per_cpu");
	json_begin_array(j);
	const sim_host *h = w->st[i].st->host;
	for (unsigned k = 0; k < c->ncpus; k++) {
		json_begin_object(j);
		json_cpu_stats(j, host_cpu(h, k));
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}

void world_json_results(world *w, json_writer *j)
{
	json_key(j, "applications");
	json_begin_array(j);
	for (uint32_t i = 0; i < w->scn->n_apps; i++)
		json_app(w, j, i);
	json_end_array(j);
	json_key(j, "hosts");
	json_begin_array(j);
	world_cpu *c = world_cpu_all(w);
	for (uint32_t i = 0; i < w->scn->n_stacks; i++)
		json_host(w, j, i, &c[i]);
	g_free(c);
	json_end_array(j);
}
