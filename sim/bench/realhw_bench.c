/* One SMC-R connection on real devices beside ib_write_bw (see realhw_bench.h). */
#include "sim/bench/realhw_bench.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "sim/bench/ib_write_bw.h"
#include "sim/bench/realhw_split.h"
#include "sim/rdma/verbs_transport.h"
#include "sim/smc/realhw_map.h"
#include "sim/world/world.h"

static const char scenario_fmt[] =
        "scenario \"bench realhw: one bulk connection\"\n"
        "seed 1\n"
        "switch SW1\n"
        "adapter RA pfid=0001 switch=SW1\n"
        "adapter RB pfid=0002 switch=SW1\n"
        "stack A personality=linux\n"
        "  interface eth0 switch=SW1 ip=192.168.1.1/24\n"
        "  smcr pfid=0001\n"
        "  smcr rmbsize=%" PRIu64 " sndbufsize=%" PRIu64 "\n"
        "end\n"
        "stack B personality=linux\n"
        "  interface eth0 switch=SW1 ip=192.168.1.2/24\n"
        "  smcr pfid=0002\n"
        "  smcr rmbsize=%" PRIu64 " sndbufsize=%" PRIu64 "\n"
        "end\n"
        "app sink B listen port=5000 kind=sink\n"
        "app bulk A connect B:5000 kind=bulk bytes=%" PRIu64 "\n"
        "expect mode bulk == SMCR\n"
        "expect delivered bulk == %" PRIu64 "\n";

struct realhw_bench {
	realhw_bench_config cfg;
	realhw_map map;
	scn_scenario *scn;
	char *ibw;        /* ib_write_bw, or NULL */
	int gid_a, gid_b; /* its -x on each device */
};

/* Both devices there? Asked before the first run so that a machine without them is an
 * input error (exit 2) with one line per missing device, not a failed run. */
static bool device_present(const realhw_bench_config *c, const char *role, const char *name)
{
	verbs_transport *vt = verbs_transport_new(NULL, NULL);
	bool ok = verbs_dev_open(vt, name) != NULL;
	if (!ok)
		fprintf(c->log, "bench realhw: %s on %s: %s\n", role, name, verbs_transport_last_error(vt, NULL));
	verbs_transport_free(vt); /* closes what it opened */
	return ok;
}

static bool devices_present(const realhw_bench_config *c)
{
	bool client = device_present(c, "client", c->dev_a);
	bool server = !strcmp(c->dev_a, c->dev_b) ? client : device_present(c, "server", c->dev_b);
	return client && server;
}

realhw_bench *realhw_bench_open(const realhw_bench_config *c, char *err, size_t errlen)
{
	if (!devices_present(c)) {
		err[0] = 0; /* said on c->log */
		return NULL;
	}
	realhw_bench *b = g_new0(realhw_bench, 1);
	b->cfg = *c;
	char map_text[160];
	snprintf(map_text, sizeof(map_text), "0001=%s:%d,0002=%s:%d", c->dev_a, c->port, c->dev_b, c->port);
	if (realhw_map_parse(map_text, &b->map, err, errlen)) {
		g_free(b);
		return NULL;
	}
	char *text = g_strdup_printf(scenario_fmt, c->rmb, c->sndbuf, c->rmb, c->sndbuf, c->bytes, c->bytes);
	scn_diag diag;
	scn_diag_init(&diag);
	b->scn = scn_load_string("bench-realhw.scn", text, strlen(text), &diag);
	g_free(text);
	if (!b->scn) {
		scn_diag_print(&diag, c->log); /* rmbsize out of range, … */
		err[0] = 0;
	}
	scn_diag_free(&diag);
	if (!b->scn) {
		g_free(b);
		return NULL;
	}
	return b;
}

/* One run in this process: MiB/s of payload, or < 0 on failure (why on log). */
static double run_one(const realhw_bench *b)
{
	world_opts o;
	world_opts_default(&o);
	o.real_hw = &b->map;
	o.quiet = true;
	o.out = b->cfg.log; /* failed expectations */
	char err[1024];
	world *w = world_new(b->scn, &o, err, sizeof(err));
	if (!w) {
		fprintf(b->cfg.log, "bench realhw: %s\n", err);
		return -1;
	}
	uint64_t failed = world_run(w);
	uint64_t t0, t1;
	bool span = world_app_span(w, "bulk", &t0, &t1);
	world_free(w);
	if (failed || !span || t1 <= t0) {
		fprintf(b->cfg.log, "bench realhw: the connection did not complete on SMC-R with every byte intact\n");
		return -1;
	}
	return (double)b->cfg.bytes / ((double)(t1 - t0) / 1e9) / 1048576.0;
}

static double run_split(const realhw_bench *b, int64_t k)
{
	const realhw_bench_config *c = &b->cfg;
	realhw_split_params p = { c->dev_a, c->dev_b, c->port, c->bytes, c->rmb, c->sndbuf, c->tcp_port,
		                  2 * (uint64_t)k + 1 };
	return realhw_split_run(&p, c->log);
}

static double run_ref(const realhw_bench *b)
{
	const realhw_bench_config *c = &b->cfg;
	int64_t iters = (int64_t)(c->bytes / (uint64_t)c->size);
	ib_write_bw_params p = { b->ibw, c->dev_a, c->dev_b, c->port, b->gid_a, b->gid_b, c->size, iters < 1 ? 1 : iters,
		                 128 };
	return ib_write_bw_run(&p, c->log);
}

static void best_of(double *best, double mib)
{
	if (mib > *best)
		*best = mib;
}

/* Run k: each way of running the connection, then the reference; false when one failed. */
static bool one_round(realhw_bench *b, int64_t k, realhw_bench_result *r)
{
	const realhw_bench_config *c = &b->cfg;
	c->on_step(c->ctx, REALHW_BENCH_RUN, k, 0);
	if (c->one) {
		double mib = run_one(b);
		c->on_step(c->ctx, REALHW_BENCH_ONE, k, mib);
		if (mib < 0)
			return false;
		best_of(&r->best_one, mib);
	}
	if (c->split) {
		double mib = run_split(b, k - 1);
		c->on_step(c->ctx, REALHW_BENCH_SPLIT, k, mib);
		if (mib < 0)
			return false;
		best_of(&r->best_split, mib);
	}
	if (b->ibw && b->gid_a >= 0 && b->gid_b >= 0) {
		double ref = run_ref(b);
		best_of(&r->best_ref, ref);
		c->on_step(c->ctx, REALHW_BENCH_REF, k, ref);
	}
	c->on_step(c->ctx, REALHW_BENCH_DONE, k, 0);
	return true;
}

int realhw_bench_run(realhw_bench *b, realhw_bench_result *r)
{
	const realhw_bench_config *c = &b->cfg;
	b->ibw = c->compare ? g_find_program_in_path("ib_write_bw") : NULL;
	b->gid_a = b->ibw ? ib_write_bw_gid_index(c->dev_a, c->port) : -1;
	b->gid_b = b->ibw ? ib_write_bw_gid_index(c->dev_b, c->port) : -1;
	*r = (realhw_bench_result){ .have_ref_tool = b->ibw != NULL };
	for (int64_t k = 1; k <= c->repeat; k++)
		if (!one_round(b, k, r))
			return 1;
	return 0;
}

void realhw_bench_close(realhw_bench *b)
{
	if (!b)
		return;
	g_free(b->ibw);
	scn_free(b->scn);
	g_free(b);
}
