/* A swarm as a sweep (swarm_job.h). */
#include <inttypes.h>
#include <string.h>

#include "sim/scenario/scn_diag.h"
#include "sim/sweep/sweep_record.h"
#include "sim/sweep/sweep_space.h"
#include "sim/swarm/swarm_check.h"
#include "sim/swarm/swarm_draw.h"
#include "sim/swarm/swarm_job.h"

static void header(swarm_job *sj)
{
	sweep_rec rec;
	sweep_rec_open(&rec);
	json_begin_object(&rec.j);
	json_kv_str(&rec.j, "format", "smcr-swarm");
	json_kv_uint(&rec.j, "version", 1);
	if (sj->files) {
		json_key(&rec.j, "files");
		json_begin_array(&rec.j);
		for (uint64_t i = 0; i < sj->n; i++)
			json_string(&rec.j, sj->files[i]);
		json_end_array(&rec.j);
	} else {
		json_kv_uint(&rec.j, "from", sj->from);
		json_kv_uint(&rec.j, "seeds", sj->n);
	}
	json_end_object(&rec.j);
	GString *out = g_string_new(NULL);
	sweep_rec_close(&rec, out);
	sj->header = g_string_free(out, FALSE);
}

void swarm_job_init_seeds(swarm_job *sj, uint64_t from, uint64_t n)
{
	memset(sj, 0, sizeof(*sj));
	sj->from = from;
	sj->n = n;
	header(sj);
}

void swarm_job_init_files(swarm_job *sj, char **files, uint64_t n)
{
	memset(sj, 0, sizeof(*sj));
	sj->files = files;
	sj->n = n;
	header(sj);
}

void swarm_job_free(swarm_job *sj)
{
	g_free(sj->header);
}

static void begin(swarm_job *sj, sweep_rec *rec, uint64_t point, bool retried)
{
	sweep_rec_open(rec);
	json_begin_object(&rec->j);
	json_kv_uint(&rec->j, "point", point);
	if (sj->files)
		json_kv_str(&rec->j, "file", sj->files[point]);
	else
		json_kv_uint(&rec->j, "seed", sj->from + point);
	if (retried)
		json_kv_uint(&rec->j, "retried", 1);
}

static void end(swarm_job *sj, sweep_rec *rec, uint64_t point, GString *out)
{
	GString *cmd = g_string_new("smcr-sim swarm ");
	if (sj->files)
		sweep_shell_word(cmd, sj->files[point]);
	else
		g_string_append_printf(cmd, "--from %" PRIu64 " --seeds 1", sj->from + point);
	json_kv_str(&rec->j, "repro", cmd->str);
	g_string_free(cmd, TRUE);
	json_end_object(&rec->j);
	sweep_rec_close(rec, out);
}

static void run_point(void *ctx, uint64_t point, bool retried, const sweep_poll *poll, GString *out)
{
	swarm_job *sj = ctx;
	sweep_rec rec;
	begin(sj, &rec, point, retried);
	json_writer *j = &rec.j;
	scn_diag d;
	scn_diag_init(&d);
	scn_scenario *scn;
	if (sj->files) {
		scn = scn_load_file(sj->files[point], &d);
	} else {
		GString *text = g_string_new(NULL);
		swarm_draw(sj->from + point, text);
		char name[64];
		snprintf(name, sizeof(name), "swarm-%" PRIu64 ".scn", sj->from + point);
		scn = scn_load_string(name, text->str, text->len, &d);
		g_string_free(text, TRUE);
	}
	swarm_verdict v;
	memset(&v, 0, sizeof(v));
	char err[1024] = "";
	if (!scn) {
		GString *e = g_string_new(sj->files ? "" : "the drawn world does not load: ");
		for (size_t i = 0; i < scn_diag_count(&d) && i < 5; i++)
			g_string_append_printf(e, "%s%s", i ? "; " : "", scn_diag_message(&d, i));
		json_kv_bool(j, "pass", false);
		json_kv_str(j, "error", e->str);
		g_string_free(e, TRUE);
	} else if (!swarm_check(scn, poll, &v, err, sizeof(err))) {
		json_kv_bool(j, "pass", false);
		json_kv_str(j, "error", err);
	} else {
		json_kv_uint(j, "stacks", v.stacks);
		json_kv_uint(j, "adapters", v.adapters);
		json_kv_uint(j, "apps", v.apps);
		json_kv_uint(j, "faults", v.faults);
		json_kv_bool(j, "pass", v.violations->len == 0);
		json_key(j, "violations");
		json_begin_array(j);
		for (guint i = 0; i < v.violations->len; i++)
			json_string(j, g_ptr_array_index(v.violations, i));
		json_end_array(j);
		char fp[24];
		snprintf(fp, sizeof(fp), "%016" PRIx64, v.fingerprint);
		json_kv_str(j, "fingerprint", fp);
		json_kv_uint(j, "end_ns", v.end_ns);
		json_kv_uint(j, "events", v.events);
		json_kv_uint(j, "conns", v.conns);
		json_kv_uint(j, "smcr", v.smcr);
		json_kv_uint(j, "fallback", v.fallback);
		json_kv_uint(j, "tcp", v.tcp);
		json_kv_uint(j, "aborted", v.aborted);
		json_kv_uint(j, "bytes", v.bytes);
	}
	swarm_verdict_clear(&v);
	scn_free(scn);
	scn_diag_free(&d);
	end(sj, &rec, point, out);
}

static void lost_point(void *ctx, uint64_t point, const char *why, GString *out)
{
	swarm_job *sj = ctx;
	sweep_rec rec;
	begin(sj, &rec, point, true);
	json_kv_bool(&rec.j, "pass", false);
	json_kv_str(&rec.j, "error", why);
	end(sj, &rec, point, out);
}

void swarm_job_bind(swarm_job *sj, sweep_job *job)
{
	job->n_points = sj->n;
	job->header = sj->header;
	job->run = run_point;
	job->lost = lost_point;
	job->ctx = sj;
}

/* Every violation of the list (a JSON array of n strings) is of a known kind. */
static bool all_known(const char *list, size_t n)
{
	GString *item = g_string_new(NULL);
	bool all = true;
	for (size_t i = 0; i < n && all; i++) {
		all = false;
		if (!sweep_rec_item(list, i, item))
			break;
		for (size_t k = 0; swarm_known_failures[k] && !all; k += 2)
			all = strstr(item->str, swarm_known_failures[k]) != NULL;
	}
	g_string_free(item, TRUE);
	return all;
}

void swarm_describe(void *ctx, const char *rec, GString *out)
{
	(void)ctx;
	GString *v = g_string_new(NULL), *item = g_string_new(NULL);
	uint64_t seed;
	if (sweep_rec_get(rec, "file", v))
		g_string_append(out, v->str);
	else if (sweep_rec_get_u64(rec, "seed", &seed))
		g_string_append_printf(out, "seed %" PRIu64, seed);
	if (sweep_rec_get(rec, "error", v)) {
		g_string_append_printf(out, ": error: %s", v->str);
	} else if (sweep_rec_get(rec, "violations", v)) {
		size_t n = 0;
		while (sweep_rec_item(v->str, n, item))
			n++;
		if (sweep_rec_item(v->str, 0, item)) {
			/* the item is a JSON string: read it as a one-key object would be */
			GString *wrapped = g_string_new("{\"v\":");
			g_string_append(wrapped, item->str);
			g_string_append_c(wrapped, '}');
			if (sweep_rec_get(wrapped->str, "v", item))
				g_string_append_printf(out, ": %s", item->str);
			g_string_free(wrapped, TRUE);
			if (n > 1)
				g_string_append_printf(out, " (and %zu more%s)", n - 1, all_known(v->str, n) ? ", all known" : "");
		}
	}
	g_string_free(v, TRUE);
	g_string_free(item, TRUE);
}
