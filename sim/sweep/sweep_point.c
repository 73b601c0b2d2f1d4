/* One point of a sweep of a scenario (sweep_point.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/scenario/scn_diag.h"
#include "sim/sweep/sweep_point.h"
#include "sim/sweep/sweep_record.h"

/* ---- figures of a finished world ---- */

typedef struct conn_figures {
	uint64_t conns, smcr, fallback, tcp, aborted, sent, received;
} conn_figures;

static void add_conn(void *arg, const world_conn_summary *c)
{
	conn_figures *f = arg;
	f->conns++;
	if (c->mode == SOCK_MODE_SMCR)
		f->smcr++;
	else if (c->mode == SOCK_MODE_FALLBACK)
		f->fallback++;
	else
		f->tcp++;
	f->aborted += c->client_err != 0 || c->server_err != 0;
	f->sent += c->client_sent + c->server_sent;
	f->received += c->client_verified + c->server_verified;
}

void sweep_world_figures(world *w, json_writer *j)
{
	char fp[24];
	snprintf(fp, sizeof(fp), "%016" PRIx64, world_fingerprint(w));
	json_kv_str(j, "fingerprint", fp);
	json_kv_uint(j, "end_ns", sim_now(world_engine(w)));
	json_kv_uint(j, "events", world_events(w));
	conn_figures f;
	memset(&f, 0, sizeof(f));
	world_foreach_conn(w, add_conn, &f);
	json_kv_uint(j, "conns", f.conns);
	json_kv_uint(j, "smcr", f.smcr);
	json_kv_uint(j, "fallback", f.fallback);
	json_kv_uint(j, "tcp", f.tcp);
	json_kv_uint(j, "aborted", f.aborted);
	json_kv_uint(j, "bytes_sent", f.sent);
	json_kv_uint(j, "bytes_received", f.received);
	smcr_report r;
	report_init(&r);
	world_fill_report(w, &r, SCN_NONE);
	uint64_t links = 0;
	for (size_t i = 0; i < r.n_links; i++)
		links += r.links[i].state == REPORT_LINK_ACTIVE;
	json_kv_uint(j, "linkgroups", r.n_lgrs);
	json_kv_uint(j, "links", links);
	report_free(&r);
}

/* ---- the job ---- */

static FILE *null_out(void)
{
	/* what a world prints (the failed-expectation lines) is in its record already */
	static FILE *f;
	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

static scn_scenario *load_point(sweep_scenario_job *sj, char **sets, GString *error)
{
	scn_diag d;
	scn_diag_init(&d);
	scn_load_opts lo = { (const char *const *)sets, g_strv_length(sets) };
	scn_scenario *s = scn_load_string_opts(sj->path, sj->text, sj->len, &lo, &d);
	if (!s && error) {
		for (size_t i = 0; i < scn_diag_count(&d); i++)
			g_string_append_printf(error, "%s%s", i ? "; " : "", scn_diag_message(&d, i));
	}
	scn_diag_free(&d);
	return s;
}

void sweep_point_repro(const sweep_scenario_job *sj, uint64_t point, GString *out)
{
	g_string_append(out, "smcr-sim run ");
	sweep_shell_word(out, sj->path);
	g_string_append_printf(out, " --seed %" PRIu64, sweep_point_seed(&sj->space, point));
	char **sets = sweep_point_sets(&sj->space, point);
	for (size_t k = 0; sets[k]; k++) {
		g_string_append(out, " --set ");
		sweep_shell_word(out, sets[k]);
	}
	g_strfreev(sets);
}

static void begin_record(sweep_scenario_job *sj, sweep_rec *rec, uint64_t point, bool retried)
{
	sweep_rec_open(rec);
	json_writer *j = &rec->j;
	json_begin_object(j);
	json_kv_uint(j, "point", point);
	json_kv_uint(j, "seed", sweep_point_seed(&sj->space, point));
	json_key(j, "params");
	json_begin_object(j);
	for (size_t k = 0; k < sj->space.n_axes; k++)
		json_kv_str(j, sj->space.axes[k].name, sj->space.axes[k].values[sweep_point_value(&sj->space, point, k)]);
	json_end_object(j);
	if (retried)
		json_kv_uint(j, "retried", 1);
}

static void end_record(sweep_scenario_job *sj, sweep_rec *rec, uint64_t point, GString *out)
{
	GString *cmd = g_string_new(NULL);
	sweep_point_repro(sj, point, cmd);
	json_kv_str(&rec->j, "repro", cmd->str);
	g_string_free(cmd, TRUE);
	json_end_object(&rec->j);
	sweep_rec_close(rec, out);
}

typedef struct failure_writer {
	json_writer *j;
	const char *file;
} failure_writer;

static void write_failure(void *arg, const world_failure *f)
{
	failure_writer *fw = arg;
	char at[512];
	snprintf(at, sizeof(at), "%s:%u", fw->file, f->line);
	json_begin_object(fw->j);
	json_kv_str(fw->j, "at", at);
	json_kv_uint(fw->j, "time_ns", f->at_ns);
	json_kv_str(fw->j, "expect", f->expect);
	json_kv_str(fw->j, "detail", f->detail);
	json_end_object(fw->j);
}

static void run_point(void *ctx, uint64_t point, bool retried, const sweep_poll *poll, GString *out)
{
	sweep_scenario_job *sj = ctx;
	sweep_rec rec;
	begin_record(sj, &rec, point, retried);
	json_writer *j = &rec.j;
	uint64_t key = sweep_point_params_key(&sj->space, point);
	GString *error = g_string_new(NULL);
	if (!sj->cached || sj->cached_key != key) {
		scn_free(sj->cached);
		char **sets = sweep_point_sets(&sj->space, point);
		sj->cached = load_point(sj, sets, error);
		sj->cached_key = key;
		g_strfreev(sets);
	}
	world *w = NULL;
	if (sj->cached) {
		world_opts o;
		world_opts_default(&o);
		o.seed = sweep_point_seed(&sj->space, point);
		o.has_seed = true;
		o.quiet = true;
		o.out = null_out();
		if (poll) {
			o.poll = poll->fn;
			o.poll_arg = poll->arg;
		}
		char err[1024];
		w = world_new(sj->cached, &o, err, sizeof(err));
		if (!w)
			g_string_append(error, err);
	}
	if (!w) {
		json_kv_bool(j, "pass", false);
		json_kv_str(j, "error", error->str);
	} else {
		uint64_t failed = world_run(w);
		json_kv_bool(j, "pass", failed == 0);
		json_key(j, "failed");
		json_begin_array(j);
		failure_writer fw = { j, sj->path };
		world_foreach_failure(w, write_failure, &fw);
		json_end_array(j);
		sweep_world_figures(w, j);
		json_kv_uint(j, "expectations_passed", world_expectations_passed(w));
		json_kv_uint(j, "expectations_failed", failed);
		world_free(w);
	}
	g_string_free(error, TRUE);
	end_record(sj, &rec, point, out);
}

static void lost_point(void *ctx, uint64_t point, const char *why, GString *out)
{
	sweep_scenario_job *sj = ctx;
	sweep_rec rec;
	begin_record(sj, &rec, point, true);
	json_kv_bool(&rec.j, "pass", false);
	json_kv_str(&rec.j, "error", why);
	end_record(sj, &rec, point, out);
}

static void make_header(sweep_scenario_job *sj)
{
	sweep_rec rec;
	sweep_rec_open(&rec);
	json_writer *j = &rec.j;
	json_begin_object(j);
	json_kv_str(j, "format", "smcr-sweep");
	json_kv_uint(j, "version", 1);
	json_kv_str(j, "scenario", sj->path);
	char h[24];
	snprintf(h, sizeof(h), "%016" PRIx64, sim_mix64(sim_hash_str(sj->text) ^ sj->len));
	json_kv_str(j, "scenario_hash", h);
	json_kv_uint(j, "seed_from", sj->space.seed_from);
	json_kv_uint(j, "seed_to", sj->space.seed_to);
	json_key(j, "set");
	json_begin_array(j);
	for (size_t k = 0; k < sj->space.n_axes; k++) {
		json_begin_object(j);
		json_kv_str(j, "name", sj->space.axes[k].name);
		json_key(j, "values");
		json_begin_array(j);
		for (size_t v = 0; v < sj->space.axes[k].n_values; v++)
			json_string(j, sj->space.axes[k].values[v]);
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
	json_kv_uint(j, "points", sj->space.n_points);
	json_end_object(j);
	GString *out = g_string_new(NULL);
	sweep_rec_close(&rec, out);
	sj->header = g_string_free(out, FALSE);
}

int sweep_scenario_job_init(sweep_scenario_job *sj, const char *path, uint64_t seed_from, uint64_t seed_to,
                            const char *const *sets, size_t n_sets, FILE *errs)
{
	memset(sj, 0, sizeof(*sj));
	sj->path = path;
	char err[512];
	if (!sweep_space_init(&sj->space, seed_from, seed_to, sets, n_sets, err, sizeof(err))) {
		fprintf(errs, "%s\n", err);
		return 2;
	}
	GError *ge = NULL;
	gsize len = 0;
	if (!g_file_get_contents(path, &sj->text, &len, &ge)) {
		fprintf(errs, "%s\n", ge->message);
		g_error_free(ge);
		return 2;
	}
	sj->len = len;
	/* every value once, so a typo shows before hours of points are run */
	int rc = 0;
	for (size_t k = 0; k < sj->space.n_axes; k++)
		for (size_t v = 0; v < sj->space.axes[k].n_values; v++) {
			char *one[2] = { g_strdup_printf("%s=%s", sj->space.axes[k].name, sj->space.axes[k].values[v]), NULL };
			scn_diag d;
			scn_diag_init(&d);
			scn_load_opts lo = { (const char *const *)one, 1 };
			scn_scenario *s = scn_load_string_opts(path, sj->text, sj->len, &lo, &d);
			if (!s) {
				scn_diag_print(&d, errs);
				rc = 2;
			}
			scn_free(s);
			scn_diag_free(&d);
			g_free(one[0]);
		}
	if (!sj->space.n_axes) {
		scn_diag d;
		scn_diag_init(&d);
		scn_scenario *s = scn_load_string_opts(path, sj->text, sj->len, NULL, &d);
		if (!s) {
			scn_diag_print(&d, errs);
			rc = 2;
		}
		scn_free(s);
		scn_diag_free(&d);
	}
	if (!rc)
		make_header(sj);
	return rc;
}

void sweep_scenario_job_free(sweep_scenario_job *sj)
{
	scn_free(sj->cached);
	g_free(sj->text);
	g_free(sj->header);
	sweep_space_free(&sj->space);
}

void sweep_scenario_job_bind(sweep_scenario_job *sj, sweep_job *job)
{
	job->n_points = sj->space.n_points;
	job->header = sj->header;
	job->run = run_point;
	job->lost = lost_point;
	job->ctx = sj;
}
