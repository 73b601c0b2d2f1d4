/* Running a scenario as written and on TCP, and what each run's workloads measured. */
#include "sim/compare/compare.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "sim/app/app_result.h"
#include "sim/engine/oom.h"
#include "sim/world/world_results.h"

bool compare_delta_ppm(uint64_t smcr, uint64_t tcp, int64_t *ppm)
{
	if (!tcp)
		return false;
	__int128 d = ((__int128)smcr - (__int128)tcp) * 1000000 / (__int128)tcp;
	*ppm = d > INT64_MAX ? INT64_MAX : d < INT64_MIN ? INT64_MIN
	                                                 : (int64_t)d;
	return true;
}

/* The same scenario with every application on a plain TCP socket. */
static scn_scenario *all_tcp(const scn_scenario *scn)
{
	scn_scenario *t = sim_xmalloc(sizeof(*t), "a scenario");
	*t = *scn;
	t->apps = sim_xmalloc((scn->n_apps ? scn->n_apps : 1) * sizeof(*t->apps), "a scenario's apps");
	memcpy(t->apps, scn->apps, scn->n_apps * sizeof(*t->apps));
	for (size_t i = 0; i < t->n_apps; i++)
		t->apps[i].smc = false;
	return t;
}

typedef struct mode_count {
	const char *app;
	uint64_t smcr;
} mode_count;

static void count_smcr(void *arg, const world_conn_summary *c)
{
	mode_count *m = arg;
	if (!strcmp(c->app, m->app) && c->mode == SOCK_MODE_SMCR)
		m->smcr++;
}

/* CPU of stack si per transaction or per MiB of its applications. */
static void side_cpu(const world *w, uint32_t si, bool per_txn, uint64_t *v, bool *has, bool *costs)
{
	world_cpu c;
	world_cpu_of(w, si, &c);
	*costs = c.costs;
	*has = per_txn ? c.txns > 0 : c.bytes > 0;
	*v = per_txn ? world_cpu_per_txn(&c, c.busy) : world_cpu_per_mib(&c, c.busy);
}

static void fill_side(const world *w, const scn_scenario *scn, uint32_t app, compare_workload *cw, compare_side *s)
{
	const scn_app *a = &scn->apps[app];
	app_totals t;
	world_app_totals(w, app, 0, &t);
	s->has = t.conns > 0;
	s->conns = t.conns;
	s->completed = t.done;
	s->failed = t.failed;
	s->ops = t.ops;
	s->rate_milli = app_totals_rate_milli(&t);
	s->throughput_bps = app_totals_throughput(&t);
	app_hist_merge(&s->lat, &t.lat);
	app_totals_free(&t);
	mode_count m = { a->name, 0 };
	world_foreach_conn(w, count_smcr, &m);
	s->smcr_conns = m.smcr;
	side_cpu(w, a->stack, cw->transactional, &s->cpu_client, &s->has_cpu_client, &s->costs_client);
	side_cpu(w, a->dst_stack, cw->transactional, &s->cpu_server, &s->has_cpu_server, &s->costs_server);
}

static void workloads_init(const scn_scenario *scn, compare_result *r)
{
	r->w = g_new0(compare_workload, scn->n_apps ? scn->n_apps : 1);
	/* the workloads with an end on each stack (a workload within one stack counts once) */
	uint32_t *on_stack = g_new0(uint32_t, scn->n_stacks ? scn->n_stacks : 1);
	for (uint32_t i = 0; i < scn->n_apps; i++) {
		const scn_app *a = &scn->apps[i];
		if (a->role != SCN_ROLE_CONNECT)
			continue;
		on_stack[a->stack]++;
		if (a->dst_stack != a->stack)
			on_stack[a->dst_stack]++;
	}
	for (uint32_t i = 0; i < scn->n_apps; i++) {
		const scn_app *a = &scn->apps[i];
		if (a->role != SCN_ROLE_CONNECT)
			continue;
		compare_workload *cw = &r->w[r->n++];
		snprintf(cw->name, sizeof(cw->name), "%s", a->name);
		cw->kind = scn_kind_name(a->kind);
		cw->transactional = a->kind == SCN_KIND_RR || a->kind == SCN_KIND_CRR;
		snprintf(cw->client, sizeof(cw->client), "%s", scn->stacks[a->stack].name);
		snprintf(cw->server, sizeof(cw->server), "%s", scn->stacks[a->dst_stack].name);
		cw->shared_client = on_stack[a->stack];
		cw->shared_server = on_stack[a->dst_stack];
	}
	g_free(on_stack);
}

/* One run; its failed expectations' lines are dropped (the TCP run fails those that
 * expect SMC-R). */
static int one_run(const scn_scenario *scn, const compare_opts *o, int k, compare_result *r, char *err,
                   size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *sink = open_memstream(&buf, &len);
	if (!sink)
		sim_out_of_memory("a run's output", 0);
	world_opts wo;
	world_opts_default(&wo);
	wo.quiet = true;
	wo.out = sink;
	wo.seed = o->seed;
	wo.has_seed = o->has_seed;
	wo.end_ns = o->end_ns;
	wo.has_end = o->has_end;
	world *w = world_new(scn, &wo, err, errlen);
	if (!w) {
		fclose(sink);
		free(buf);
		return 2;
	}
	r->failed[k] = world_run(w);
	r->fingerprint[k] = world_fingerprint(w);
	r->end_ns[k] = sim_now(world_engine(w));
	size_t n = 0;
	for (uint32_t i = 0; i < scn->n_apps; i++) {
		if (scn->apps[i].role != SCN_ROLE_CONNECT)
			continue;
		fill_side(w, scn, i, &r->w[n], &r->w[n].run[k]);
		n++;
	}
	world_free(w);
	fclose(sink);
	free(buf);
	return 0;
}

int compare_run(const scn_scenario *scn, const compare_opts *o, compare_result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->scenario = scn->file;
	r->title = scn->title;
	r->seed = o->has_seed ? o->seed : scn->seed;
	workloads_init(scn, r);
	if (one_run(scn, o, COMPARE_SMCR, r, err, errlen))
		return 2;
	scn_scenario *tcp = all_tcp(scn);
	int rc = one_run(tcp, o, COMPARE_TCP, r, err, errlen);
	free(tcp->apps);
	free(tcp);
	return rc;
}

void compare_result_free(compare_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		for (int k = 0; k < COMPARE_NRUNS; k++)
			app_hist_free(&r->w[i].run[k].lat);
	g_free(r->w);
	memset(r, 0, sizeof(*r));
}
