/* `smcr-sim msc FILE`: a message-sequence chart (SVG) of a scenario's run or of a capture
 * (sim/observe/msc.h): the run or the decode happens here, the picture is drawn from what
 * it saw, filtered as the options say. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "sim/observe/msc.h"
#include "sim/observe/msc_replay.h"
#include "sim/observe/msc_run.h"
#include "sim/observe/obs_ident.h"
#include "sim/world/world.h"
#include "tools/cli.h"

typedef struct msc_args {
	gchar *output, *lgr, *conn, *from, *to, *cdc, *max, *seed, *end;
	gchar **stacks, **set;
} msc_args;

static void free_args(msc_args *a)
{
	g_free(a->output);
	g_free(a->lgr);
	g_free(a->conn);
	g_free(a->from);
	g_free(a->to);
	g_free(a->cdc);
	g_free(a->max);
	g_free(a->seed);
	g_free(a->end);
	g_strfreev(a->stacks);
	g_strfreev(a->set);
}

/* By what the file holds: a capture, or else a scenario (a file that cannot be read is
 * taken by its name, for the message). */
static bool is_scenario(const char *path)
{
	if (cli_is_capture(path, NULL))
		return false;
	FILE *f = cli_is_stdin(path) ? NULL : fopen(path, "rb");
	if (f)
		fclose(f);
	size_t n = strlen(path);
	return cli_is_stdin(path) || f || (n > 4 && !strcmp(path + n - 4, ".scn"));
}

/* --cdc: all, none, notable (the first of each connection and direction and every close,
 * abort or failover validation), every=N; 0 or 2. */
static int parse_cdc(const char *prog, const char *text, obs_cdc_mode *mode, uint32_t *every)
{
	*mode = OBS_CDC_EVERY;
	*every = UINT32_MAX;
	if (!text || !strcmp(text, "notable"))
		return 0;
	event_stream_opts eo;
	char err[160] = "";
	if (event_stream_parse_cdc(text, &eo, err, sizeof(err))) {
		fprintf(stderr, "%s: bad --cdc %s (or notable)\n", prog, err);
		return 2;
	}
	*mode = eo.cdc;
	*every = eo.cdc_every;
	return 0;
}

static int parse_filter(const char *prog, const msc_args *a, msc_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->max_rows = 2000;
	char err[160];
	unsigned long long v;
	if (a->stacks) {
		f->stacks = (const char *const *)a->stacks;
		f->n_stacks = g_strv_length(a->stacks);
	}
	if (a->lgr) {
		const char *p = a->lgr;
		if (!strncmp(p, "0x", 2) || !strncmp(p, "0X", 2))
			p += 2;
		char *end;
		v = strtoull(p, &end, 16);
		if (!*p || *end || v > UINT32_MAX) {
			fprintf(stderr, "%s: bad --lgr '%s'; expected a link group id in hex (0x00000100)\n", prog, a->lgr);
			return 2;
		}
		f->has_lgr = true;
		f->lgr = (uint32_t)v;
	}
	f->conn = a->conn;
	if (a->from && cli_parse_duration(a->from, &v, err, sizeof(err))) {
		fprintf(stderr, "%s: bad --from: %s\n", prog, err);
		return 2;
	}
	f->from_ns = a->from ? v : 0;
	if (a->to && cli_parse_duration(a->to, &v, err, sizeof(err))) {
		fprintf(stderr, "%s: bad --to: %s\n", prog, err);
		return 2;
	}
	f->to_ns = a->to ? v : 0;
	if (a->to && f->to_ns < f->from_ns) {
		fprintf(stderr, "%s: --to is before --from\n", prog);
		return 2;
	}
	if (a->max) {
		if (cli_parse_u64(a->max, &v) || v == 0) {
			fprintf(stderr, "%s: bad --max '%s'; expected a number of rows > 0\n", prog, a->max);
			return 2;
		}
		f->max_rows = (size_t)v;
	}
	return 0;
}

static int from_run(const char *prog, const char *path, const msc_args *a, obs_cdc_mode cdc, uint32_t every,
                    msc_chart *c)
{
	scn_diag diag;
	scn_diag_init(&diag);
	scn_load_opts lo = { (const char *const *)a->set, a->set ? g_strv_length(a->set) : 0 };
	scn_scenario *scn = cli_load_scenario(path, &lo, &diag);
	if (!scn) {
		scn_diag_print(&diag, stderr);
		scn_diag_free(&diag);
		return 2;
	}
	scn_diag_free(&diag);
	world_opts o;
	world_opts_default(&o);
	o.quiet = true;
	o.out = stderr; /* failed expectations say so there; stdout may carry the SVG */
	char err[1024];
	if (a->seed) {
		if (!scn_parse_seed(a->seed, &o.seed, err, sizeof(err))) {
			fprintf(stderr, "%s: bad --seed: %s\n", prog, err);
			scn_free(scn);
			return 2;
		}
		o.has_seed = true;
	}
	if (a->end) {
		if (!scn_parse_end_time(a->end, &o.end_ns, err, sizeof(err))) {
			fprintf(stderr, "%s: bad --end: %s\n", prog, err);
			scn_free(scn);
			return 2;
		}
		o.has_end = true;
	}
	world_observer obs;
	memset(&obs, 0, sizeof(obs));
	o.observer = &obs; /* filled in once the world exists (world_observer.h) */
	world *w = world_new(scn, &o, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "%s: %s\n", prog, err);
		scn_free(scn);
		return 2;
	}
	msc_init(c, scn->title[0] ? scn->title : scn->file);
	obs_ident *id = obs_ident_new(w);
	msc_run *r = msc_run_new(c, w, id, cdc, every);
	msc_run_observer(r, &obs);
	world_run(w);
	msc_run_free(r);
	obs_ident_free(id);
	world_free(w);
	scn_free(scn);
	return 0;
}

int cmd_msc(int argc, char **argv)
{
	msc_args a;
	memset(&a, 0, sizeof(a));
	GOptionEntry entries[] = {
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &a.output, "write the SVG here (default: standard output)", "FILE" },
		{ "stack", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.stacks,
		  "only messages to or from this stack (a capture: this host's address); repeatable", "NAME" },
		{ "lgr", 0, 0, G_OPTION_ARG_STRING, &a.lgr, "only this link group (its id in hex; a capture: its number)",
		  "HEX" },
		{ "conn", 0, 0, G_OPTION_ARG_STRING, &a.conn,
		  "only this connection: an app instance (bulk.3), an app (bulk: all its connections), a capture's "
		  "connection number",
		  "NAME" },
		{ "from", 0, 0, G_OPTION_ARG_STRING, &a.from, "only from this virtual time on", "TIME" },
		{ "to", 0, 0, G_OPTION_ARG_STRING, &a.to, "only up to this virtual time", "TIME" },
		{ "cdc", 0, 0, G_OPTION_ARG_STRING, &a.cdc,
		  "CDC messages: notable (default: the first of each connection and direction, closes, aborts, failover "
		  "validations), all, none, every=N",
		  "WHICH" },
		{ "max", 0, 0, G_OPTION_ARG_STRING, &a.max, "draw at most N rows (default 2000); the rest are counted", "N" },
		{ "seed", 0, 0, G_OPTION_ARG_STRING, &a.seed, "run seed (overrides the scenario's)", "N" },
		{ "end", 0, 0, G_OPTION_ARG_STRING, &a.end, "virtual end time (overrides the scenario's)", "TIME" },
		{ "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.set, "give parameter NAME the value VALUE (repeatable)",
		  "NAME=VALUE" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	cli_options opts = {
		.params = "FILE - draw a message-sequence chart of a scenario's run or of a capture",
		.entries = entries,
		.description = "FILE (or '-', standard input) is told by what it holds: a capture (pcap, pcapng, Linux\n"
		               "cooked) is decoded as `replay` does; anything else is a scenario, run as `run` would\n"
		               "(same seed, same events).\n"
		               "Lifelines are the stacks (a capture: the hosts), arrows the CLC (over TCP), LLC and CDC\n"
		               "(over RoCE) messages, marks the failures, restores, fallbacks and failed expectations;\n"
		               "virtual time runs down the left side, one row per message. The filters keep a large\n"
		               "run readable. Each arrow names its connection and its link (a capture's: and its frame);\n"
		               "a capture's link failures are marked where replay finds them; tooltips say the rest.\n"
		               "Exit 0, or 2 for a bad file or option.",
	};
	int rc = cli_parse_options(&opts, &argc, &argv);
	const char *prog = argv[0];
	if (!rc && argc != 2) {
		fprintf(stderr, "%s: %s (try --help)\n", prog, argc < 2 ? "no scenario or capture given" : "one file only");
		rc = 2;
	}
	msc_filter f;
	obs_cdc_mode cdc = OBS_CDC_EVERY;
	uint32_t every = 0;
	if (!rc && (parse_filter(prog, &a, &f) || parse_cdc(prog, a.cdc, &cdc, &every)))
		rc = 2;
	if (!rc && !is_scenario(argv[1]) && (a.seed || a.end || a.set)) {
		fprintf(stderr, "%s: --seed, --end and --set are for a scenario, not a capture\n", prog);
		rc = 2;
	}
	if (rc) {
		free_args(&a);
		return rc;
	}
	msc_chart c;
	memset(&c, 0, sizeof(c));
	if (is_scenario(argv[1])) {
		rc = from_run(prog, argv[1], &a, cdc, every, &c);
	} else {
		char err[512];
		msc_init(&c, cli_input_name(argv[1]));
		char *spooled = cli_is_stdin(argv[1]) ? cli_spool_stdin(err, sizeof(err)) : NULL;
		if (cli_is_stdin(argv[1]) && !spooled) {
			fprintf(stderr, "%s: %s\n", prog, err);
			rc = 2;
		} else if (msc_from_capture(&c, spooled ? spooled : argv[1], cdc, every, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", prog, err);
			rc = 2;
		}
		cli_spool_remove(spooled);
	}
	if (!rc) {
		char err[640];
		if (msc_check_filter(&c, &f, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", prog, err);
			rc = 2;
		}
	}
	if (!rc) {
		bool to_stdout = !a.output || cli_is_stdin(a.output);
		FILE *out = to_stdout ? stdout : fopen(a.output, "w");
		if (!out) {
			perror(a.output);
			rc = 2;
		} else {
			msc_write_svg(out, &c, &f, NULL);
			bool bad = ferror(out) != 0;
			bad |= to_stdout ? fflush(out) != 0 : fclose(out) != 0;
			if (bad) {
				fprintf(stderr, "%s: %s: write failed\n", prog, to_stdout ? "standard output" : a.output);
				rc = 2;
			}
		}
	}
	msc_free(&c);
	free_args(&a);
	return rc;
}
