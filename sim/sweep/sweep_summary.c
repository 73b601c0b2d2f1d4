/* The summary of a sweep (sweep_summary.h). */
#include <inttypes.h>
#include <string.h>

#include "sim/sweep/sweep_record.h"
#include "sim/sweep/sweep_summary.h"

static const char *engine_name(const sweep_outcome *oc)
{
	switch (oc->engine) {
	case SWEEP_ENGINE_PROCESS:
		return "process (no workers)";
	case SWEEP_ENGINE_FORK:
		return "worker processes (fork)";
	case SWEEP_ENGINE_MPI:
		return "MPI ranks";
	}
	return "?";
}

/* The reason of the known failure whose text the description contains, or NULL. A point
 * with more violations ("… (and N more)") is known only if the describer says they all
 * are ("… (and N more, all known)"). */
static const char *known_reason(const sweep_summary_opts *so, const char *desc)
{
	if (strstr(desc, " more)"))
		return NULL;
	for (size_t i = 0; so->known && so->known[i]; i += 2)
		if (strstr(desc, so->known[i]))
			return so->known[i + 1];
	return NULL;
}

static void print_table(FILE *out, const sweep_space *sp, const sweep_results *r)
{
	fprintf(out, "by parameter value:\n");
	for (size_t k = 0; k < sp->n_axes; k++)
		for (size_t v = 0; v < sp->axes[k].n_values; v++) {
			uint64_t n = 0, pass = 0;
			for (uint64_t p = 0; p < sp->n_points; p++) {
				if (sweep_point_value(sp, p, k) != v)
					continue;
				const char *rec = sweep_results_record(r, p);
				n++;
				pass += rec && sweep_rec_get_bool(rec, "pass", false);
			}
			char *label = g_strdup_printf("%s=%s", sp->axes[k].name, sp->axes[k].values[v]);
			fprintf(out, "  %-24s %8" PRIu64 " %-6s %8" PRIu64 " passed %8" PRIu64 " failed\n", label, n, n == 1 ? "point" : "points",
			        pass, n - pass);
			g_free(label);
		}
}

static void print_engine(FILE *out, const sweep_outcome *oc)
{
	double el = (double)oc->elapsed_ns / 1e9, pt = (double)oc->point_ns / 1e9;
	fprintf(out, "engine: %u %s; %" PRIu64 " point%s run now, %" PRIu64 " retried, %" PRIu64 " runner%s lost",
	        oc->runners, engine_name(oc), oc->n_run, oc->n_run == 1 ? "" : "s", oc->n_retried, oc->n_lost,
	        oc->n_lost == 1 ? "" : "s");
	if (oc->engine == SWEEP_ENGINE_MPI)
		fprintf(out, "; MPI start-up %.3f s", (double)oc->startup_ns / 1e9);
	fprintf(out, "\n");
	if (!oc->n_run)
		return;
	double speedup = el > 0 ? pt / el : 0;
	fprintf(out, "time: elapsed %.3f s, the points' own time %.3f s: speedup %.2fx over one process, parallel efficiency %.0f%%\n",
	        el, pt, speedup, oc->runners ? 100.0 * speedup / oc->runners : 0.0);
	double all_in = ((double)oc->elapsed_ns * oc->runners - (double)oc->point_ns) / (double)oc->n_run / 1e6;
	fprintf(out, "overhead per point: %.3f ms between points on a runner (hand-out, record, messages); %.3f ms all in "
	             "((elapsed x runners - point time) / points, start and tail included)\n",
	        oc->gaps ? (double)oc->gap_ns / (double)oc->gaps / 1e6 : 0.0, all_in < 0 ? 0.0 : all_in);
}

uint64_t sweep_print_summary(FILE *out, const sweep_summary_opts *so, const sweep_outcome *oc)
{
	const sweep_results *r = oc->results;
	uint64_t n = sweep_results_n_points(r), pass = 0, missing = 0;
	for (uint64_t p = 0; p < n; p++) {
		const char *rec = sweep_results_record(r, p);
		if (!rec)
			missing++;
		else
			pass += sweep_rec_get_bool(rec, "pass", false);
	}
	uint64_t failed = n - pass - missing;
	fprintf(out, "%s: %" PRIu64 " point%s, %" PRIu64 " passed, %" PRIu64 " failed", so->title, n, n == 1 ? "" : "s", pass,
	        failed);
	if (missing)
		fprintf(out, ", %" PRIu64 " not run", missing);
	fprintf(out, "\n");
	GString *desc = g_string_new(NULL), *cmd = g_string_new(NULL);
	uint64_t unknown = 0, known = 0;
	for (int pass_known = 0; pass_known < 2; pass_known++) {
		bool header = false;
		for (uint64_t p = 0; p < n; p++) {
			const char *rec = sweep_results_record(r, p);
			if (!rec || sweep_rec_get_bool(rec, "pass", false))
				continue;
			g_string_truncate(desc, 0);
			so->describe(so->ctx, rec, desc);
			const char *why = known_reason(so, desc->str);
			if ((why != NULL) != (pass_known == 1))
				continue;
			if (!header) {
				fprintf(out, pass_known ? "known failures (listed with their reason, not counted as new):\n"
				                        : "FAILING points (each with the one command that reproduces it):\n");
				header = true;
			}
			if (why) {
				known++;
				fprintf(out, "  point %" PRIu64 ": %s\n      known: %s\n", p, desc->str, why);
			} else {
				unknown++;
				fprintf(out, "  point %" PRIu64 ": %s\n", p, desc->str);
			}
			if (sweep_rec_get(rec, "repro", cmd))
				fprintf(out, "      %s\n", cmd->str);
		}
	}
	g_string_free(desc, TRUE);
	g_string_free(cmd, TRUE);
	if (so->space && so->space->n_axes)
		print_table(out, so->space, r);
	if (so->out_path)
		fprintf(out, "results: %s (one record per point, sorted by point); wall times: %s.wall\n", so->out_path,
		        so->out_path);
	print_engine(out, oc);
	(void)known;
	return unknown + missing;
}
