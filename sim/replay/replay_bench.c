/* The replay decoder's rate beside tshark's (see replay_bench.h). */
#include "sim/replay/replay_bench.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "sim/engine/bench_measure.h"
#include "sim/replay/trace_copies.h"
#include "sim/replay/replay.h"

/* The trace to decode: made from the base in a new temporary directory. */
static int make_trace(const replay_bench_config *c, replay_bench_result *r, char *err, size_t errlen)
{
	r->made = true;
	r->made_dir = g_dir_make_tmp("smcr-bench-replay-XXXXXX", NULL);
	r->file = g_build_filename(r->made_dir ? r->made_dir : g_get_tmp_dir(), "bench-replay.pcap", NULL);
	char why[512];
	if (trace_copies_write(c->base ? c->base : REPLAY_BENCH_DEFAULT_BASE, r->file, c->copies, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "cannot make the trace: %s", why);
		return 2;
	}
	return 0;
}

static int decode(const replay_bench_config *c, replay_bench_result *r, char *err, size_t errlen)
{
	replay_result res = { 0 };
	for (uint64_t i = 0; i < c->repeat; i++) {
		if (i)
			replay_result_free(&res);
		double t0 = bench_wall_seconds();
		if (replay_decode_file(r->file, NULL, &res, err, errlen) < 0)
			return 2;
		double dt = bench_wall_seconds() - t0;
		if (r->decode_s == 0 || dt < r->decode_s)
			r->decode_s = dt;
	}
	r->frames = res.frames;
	r->bytes = res.bytes;
	r->lgrs = res.report.n_lgrs;
	r->links = res.report.n_links;
	r->conns = res.report.n_conns;
	r->errors = res.errors.total;
	replay_result_free(&res);
	return 0;
}

/* tshark gets the same best-of treatment, with at most 2 runs: it is the slow one. */
static void time_tshark(const replay_bench_config *c, replay_bench_result *r)
{
	gchar *targv[] = { "tshark", "-n", "-r", r->file, NULL };
	gint status = 0;
	gboolean ok = TRUE;
	GError *gerr = NULL;
	r->tshark_runs = c->repeat < 2 ? c->repeat : 2;
	for (uint64_t i = 0; i < r->tshark_runs && ok; i++) {
		double t0 = bench_wall_seconds();
		ok = g_spawn_sync(NULL, targv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
		                  NULL, NULL, NULL, NULL, &status, &gerr);
		double t = bench_wall_seconds() - t0;
		if (r->tshark_s == 0 || t < r->tshark_s)
			r->tshark_s = t;
	}
	r->tshark_status = status;
	if (!ok) {
		r->tshark = REPLAY_BENCH_TSHARK_NOT_RUN;
		snprintf(r->tshark_why, sizeof(r->tshark_why), "%s", gerr->message);
		g_clear_error(&gerr);
	} else {
		r->tshark = g_spawn_check_wait_status(status, NULL) ? REPLAY_BENCH_TSHARK_TIMED : REPLAY_BENCH_TSHARK_FAILED;
	}
}

int replay_bench_run(const replay_bench_config *c, replay_bench_result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->keep = c->keep;
	int rc = 0;
	if (c->file)
		r->file = g_strdup(c->file);
	else
		rc = make_trace(c, r, err, errlen);
	if (!rc)
		rc = decode(c, r, err, errlen);
	if (!rc && c->tshark)
		time_tshark(c, r);
	return rc;
}

void replay_bench_result_free(replay_bench_result *r)
{
	if (r->made && !r->keep) {
		g_unlink(r->file);
		if (r->made_dir)
			g_rmdir(r->made_dir);
	}
	g_free(r->file);
	g_free(r->made_dir);
	r->file = r->made_dir = NULL;
}
