/* The comparison as a table (text) and as JSON. */
#include <inttypes.h>
#include <string.h>

#include "sim/compare/compare.h"
#include "sim/report/json_writer.h"
#include "sim/world/world_results.h"

/* "+13.7%", "-4.2%", "0.0%"; "-" without a base. */
static char *fmt_delta(uint64_t smcr, uint64_t tcp, bool valid, char *buf, size_t len)
{
	int64_t ppm;
	if (!valid || !compare_delta_ppm(smcr, tcp, &ppm)) {
		snprintf(buf, len, "-");
		return buf;
	}
	uint64_t a = ((uint64_t)(ppm < 0 ? -ppm : ppm) + 500u) / 1000u; /* tenths of a percent */
	snprintf(buf, len, "%s%" PRIu64 ".%01" PRIu64 "%%", !a ? "" : ppm < 0 ? "-"
	                                                                      : "+",
	         a / 10u, a % 10u);
	return buf;
}

typedef enum unit { U_NS,
	            U_BPS,
	            U_RATE } unit;

static char *fmt_value(uint64_t v, unit u, bool valid, char *buf, size_t len)
{
	if (!valid) {
		snprintf(buf, len, "-");
		return buf;
	}
	switch (u) {
	case U_NS:
		return world_fmt_ns(v, buf, len);
	case U_BPS:
		return world_fmt_bps(v, buf, len);
	case U_RATE:
		return world_fmt_rate_milli(v, buf, len);
	}
	return buf;
}

static void row(FILE *out, const char *first, const char *metric, uint64_t s, bool s_ok, uint64_t t, bool t_ok, unit u)
{
	char a[WORLD_FMT_LEN], b[WORLD_FMT_LEN], d[WORLD_FMT_LEN];
	fprintf(out, "%-14s %-22s %14s %14s %10s\n", first, metric, fmt_value(s, u, s_ok, a, sizeof(a)),
	        fmt_value(t, u, t_ok, b, sizeof(b)), fmt_delta(s, t, s_ok && t_ok, d, sizeof(d)));
}

static void print_workload(const compare_workload *w, FILE *out)
{
	const compare_side *s = &w->run[COMPARE_SMCR], *t = &w->run[COMPARE_TCP];
	char where[100], cpu[100];
	snprintf(where, sizeof(where), "%s->%s", w->client, w->server);
	const char *firsts[] = { w->name, where, w->kind };
	size_t line = 0;
#define FIRST (line < 3 ? firsts[line++] : "")
	if (w->transactional) {
		bool sl = s->lat.count > 0, tl = t->lat.count > 0;
		row(out, FIRST, "latency mean", app_hist_mean(&s->lat), sl, app_hist_mean(&t->lat), tl, U_NS);
		row(out, FIRST, "latency p50", app_hist_stat(&s->lat, APP_STAT_P50), sl, app_hist_stat(&t->lat, APP_STAT_P50), tl, U_NS);
		row(out, FIRST, "latency p99", app_hist_stat(&s->lat, APP_STAT_P99), sl, app_hist_stat(&t->lat, APP_STAT_P99), tl, U_NS);
		row(out, FIRST, "transactions/s", s->rate_milli, s->ops > 0, t->rate_milli, t->ops > 0, U_RATE);
	} else {
		row(out, FIRST, "throughput", s->throughput_bps, s->has, t->throughput_bps, t->has, U_BPS);
	}
	const char *per = w->transactional ? "txn" : "MiB";
	snprintf(cpu, sizeof(cpu), "CPU/%s client %s%s", per, w->client, w->shared_client > 1 ? " *" : "");
	row(out, FIRST, cpu, s->cpu_client, s->has_cpu_client && s->costs_client, t->cpu_client,
	    t->has_cpu_client && t->costs_client, U_NS);
	snprintf(cpu, sizeof(cpu), "CPU/%s server %s%s", per, w->server, w->shared_server > 1 ? " *" : "");
	row(out, FIRST, cpu, s->cpu_server, s->has_cpu_server && s->costs_server, t->cpu_server,
	    t->has_cpu_server && t->costs_server, U_NS);
	if (s->smcr_conns < s->conns)
		fprintf(out, "%-14s   (%" PRIu64 " of %" PRIu64 " connection%s on SMC-R as written)\n", "", s->smcr_conns, s->conns,
		        s->conns == 1 ? "" : "s");
	while (line < 3)
		fprintf(out, "%s\n", FIRST);
#undef FIRST
}

void compare_print_text(const compare_result *r, FILE *out)
{
	fprintf(out, "smcr-sim compare %s, seed %" PRIu64 "%s%s%s\n", r->scenario, r->seed, r->title[0] ? " (" : "", r->title,
	        r->title[0] ? ")" : "");
	fprintf(out, "SMC-R: the scenario as written (fingerprint %016" PRIx64 ", %" PRIu64 " expectation%s failed)\n",
	        r->fingerprint[COMPARE_SMCR], r->failed[COMPARE_SMCR], r->failed[COMPARE_SMCR] == 1 ? "" : "s");
	fprintf(out, "TCP:   every app smc=no (fingerprint %016" PRIx64 ", %" PRIu64 " expectation%s failed)\n\n",
	        r->fingerprint[COMPARE_TCP], r->failed[COMPARE_TCP], r->failed[COMPARE_TCP] == 1 ? "" : "s");
	fprintf(out, "%-14s %-22s %14s %14s %10s\n", "workload", "", "SMC-R", "TCP", "SMC-R/TCP");
	bool no_costs = false, shared = false;
	for (size_t i = 0; i < r->n; i++) {
		print_workload(&r->w[i], out);
		shared |= r->w[i].shared_client > 1 || r->w[i].shared_server > 1;
		for (int k = 0; k < COMPARE_NRUNS; k++)
			no_costs |= !r->w[i].run[k].costs_client || !r->w[i].run[k].costs_server;
	}
	fprintf(out, "\nLatency: each transaction from its request to its response's last byte (crr: from the\n"
	             "connect call); percentiles within 1/128. Rates and throughput over each workload's span.\n");
	if (no_costs)
		fprintf(out, "CPU \"-\": the stack's host counts no CPU time (profile none).\n");
	if (shared)
		fprintf(out, "CPU *: the stack also runs other workloads of the scenario; its CPU time is theirs together,\n"
		             "divided by this workload's transactions or MiB (a host accounts per stack: give a workload\n"
		             "stacks of its own to see its CPU alone).\n");
}

/* ---- JSON ---- */

static void json_opt(json_writer *j, const char *key, bool valid, uint64_t v)
{
	json_key(j, key);
	valid ? json_uint(j, v) : json_null(j);
}

static void json_dist(json_writer *j, const app_hist *h)
{
	json_key(j, "latency");
	if (!h->count) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_kv_uint(j, "count", h->count);
	for (int s = 0; s < APP_NSTATS; s++)
		json_kv_uint(j, app_stat_key((app_stat)s), app_hist_stat(h, (app_stat)s));
	json_end_object(j);
}

static void json_side(json_writer *j, const char *key, const compare_side *s)
{
	json_key(j, key);
	json_begin_object(j);
	json_kv_uint(j, "conns", s->conns);
	json_kv_uint(j, "smcr_conns", s->smcr_conns);
	json_kv_uint(j, "completed", s->completed);
	json_kv_uint(j, "failed", s->failed);
	json_kv_uint(j, "ops", s->ops);
	json_kv_uint(j, "ops_per_s_milli", s->rate_milli);
	json_kv_uint(j, "throughput_bps", s->throughput_bps);
	json_dist(j, &s->lat);
	json_opt(j, "cpu_client_ns", s->has_cpu_client && s->costs_client, s->cpu_client);
	json_opt(j, "cpu_server_ns", s->has_cpu_server && s->costs_server, s->cpu_server);
	json_end_object(j);
}

static void json_delta(json_writer *j, const char *key, uint64_t s, uint64_t t, bool valid)
{
	int64_t ppm;
	json_key(j, key);
	if (valid && compare_delta_ppm(s, t, &ppm))
		json_int(j, ppm);
	else
		json_null(j);
}

static void json_workload(json_writer *j, const compare_workload *w)
{
	const compare_side *s = &w->run[COMPARE_SMCR], *t = &w->run[COMPARE_TCP];
	json_begin_object(j);
	json_kv_str(j, "app", w->name);
	json_kv_str(j, "kind", w->kind);
	json_kv_str(j, "client", w->client);
	json_kv_str(j, "server", w->server);
	json_kv_uint(j, "client_workloads", w->shared_client);
	json_kv_uint(j, "server_workloads", w->shared_server);
	json_kv_str(j, "cpu_per", w->transactional ? "txn" : "MiB");
	json_side(j, "smcr", s);
	json_side(j, "tcp", t);
	json_key(j, "delta_ppm");
	json_begin_object(j);
	bool lat = s->lat.count && t->lat.count;
	json_delta(j, "latency_mean", app_hist_mean(&s->lat), app_hist_mean(&t->lat), lat);
	json_delta(j, "latency_p50", app_hist_stat(&s->lat, APP_STAT_P50), app_hist_stat(&t->lat, APP_STAT_P50), lat);
	json_delta(j, "latency_p99", app_hist_stat(&s->lat, APP_STAT_P99), app_hist_stat(&t->lat, APP_STAT_P99), lat);
	json_delta(j, "ops_per_s", s->rate_milli, t->rate_milli, s->ops && t->ops);
	json_delta(j, "throughput", s->throughput_bps, t->throughput_bps, s->has && t->has);
	json_delta(j, "cpu_client", s->cpu_client, t->cpu_client,
	           s->has_cpu_client && t->has_cpu_client && s->costs_client && t->costs_client);
	json_delta(j, "cpu_server", s->cpu_server, t->cpu_server,
	           s->has_cpu_server && t->has_cpu_server && s->costs_server && t->costs_server);
	json_end_object(j);
	json_end_object(j);
}

void compare_print_json(const compare_result *r, FILE *out)
{
	json_writer j;
	json_init(&j, out, true);
	json_begin_object(&j);
	json_kv_str(&j, "format", "smcr-compare");
	json_kv_uint(&j, "version", 1);
	json_kv_str(&j, "scenario", r->scenario);
	json_kv_str(&j, "title", r->title);
	json_kv_uint(&j, "seed", r->seed);
	json_key(&j, "runs");
	json_begin_array(&j);
	static const char *const names[COMPARE_NRUNS] = { "smcr", "tcp" };
	for (int k = 0; k < COMPARE_NRUNS; k++) {
		char fp[24];
		snprintf(fp, sizeof(fp), "%016" PRIx64, r->fingerprint[k]);
		json_begin_object(&j);
		json_kv_str(&j, "name", names[k]);
		json_kv_str(&j, "fingerprint", fp);
		json_kv_uint(&j, "end_ns", r->end_ns[k]);
		json_kv_uint(&j, "expectations_failed", r->failed[k]);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_key(&j, "workloads");
	json_begin_array(&j);
	for (size_t i = 0; i < r->n; i++)
		json_workload(&j, &r->w[i]);
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
}
