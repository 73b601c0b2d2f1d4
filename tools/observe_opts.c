/* Observation options of the commands that run a world (observe_opts.h). */
#include "tools/observe_opts.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim/observe/event_stream.h"
#include "sim/observe/obs_ident.h"
#include "sim/observe/obs_mux.h"
#include "sim/observe/stats.h"
#include "sim/observe/timeline_svg.h"
#include "sim/observe/topology_run.h"
#include "sim/observe/topology_svg.h"
#include "sim/scenario/scn_values.h"
#include "tools/cli.h"

void observe_option_add(GOptionContext *ctx, observe_args *a)
{
	GOptionEntry entries[] = {
		{ "events", 0, 0, G_OPTION_ARG_FILENAME, &a->events,
		  "the event stream, one JSON object per line: messages, links, link groups, connections, timeline, "
		  "expectations ('-': to standard output, the text then goes to stderr)",
		  "FILE" },
		{ "events-cdc", 0, 0, G_OPTION_ARG_STRING, &a->events_cdc,
		  "CDC messages in the event stream: all (default), none, or every=N of each connection and direction "
		  "(and every close, abort or failover validation)",
		  "WHICH" },
		{ "stats", 0, 0, G_OPTION_ARG_FILENAME, &a->stats,
		  "statistics over time, a row per stack, link and connection per sample: CSV, or JSON Lines when FILE "
		  "ends in .jsonl ('-': standard output)",
		  "FILE" },
		{ "stats-interval", 0, 0, G_OPTION_ARG_STRING, &a->stats_interval,
		  "sampling interval in virtual time (default 100ms)", "DUR" },
		{ "stats-format", 0, 0, G_OPTION_ARG_STRING, &a->stats_format, "csv or jsonl (default: by the file name)",
		  "FMT" },
		{ "topology", 0, 0, G_OPTION_ARG_FILENAME, &a->topology,
		  "an SVG picture of the scenario's topology with the SMC-R links of the run (which adapter ports each "
		  "uses)",
		  "FILE" },
		{ "timeline", 0, 0, G_OPTION_ARG_FILENAME, &a->timeline,
		  "an SVG picture of the links' states and throughput over the run, sampled at --stats-interval", "FILE" },
		{ "from", 0, 0, G_OPTION_ARG_STRING, &a->from,
		  "--timeline: draw from this virtual time on (the run still starts at 0)", "TIME" },
		{ "to", 0, 0, G_OPTION_ARG_STRING, &a->to, "--timeline: draw up to this virtual time", "TIME" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	g_option_context_add_main_entries(ctx, entries, NULL); /* copied */
}

void observe_args_free(observe_args *a)
{
	g_free(a->events);
	g_free(a->events_cdc);
	g_free(a->stats);
	g_free(a->stats_interval);
	g_free(a->stats_format);
	g_free(a->topology);
	g_free(a->timeline);
	g_free(a->from);
	g_free(a->to);
}

struct observe_session {
	const observe_args *a;
	event_stream_opts ev_opts;
	stats_opts st_opts;
	FILE *events_out, *stats_out;
	bool events_stdout, stats_stdout;
	obs_mux mux;
	obs_ident *id;
	event_stream *es;
	stats_sampler *st;
	world *w;
	topology_run *topo;
	link_series series;
	uint64_t from_ns, to_ns; /* --timeline's window (to 0: the end) */
	bool has_series;
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

/* Samples an explicit --stats-interval may ask of a run (the default 100 ms is always
 * taken): --stats-interval 1ns over a 10 s run would write 10^10 rows (terabytes) and
 * never end; 10us, a million samples, took over ten minutes for a two-stack timeline. */
#define OBSERVE_MAX_SAMPLES 100000ull

/* The options' values; 0 or 2 after printing what is wrong. */
static int check(const char *prog, const observe_args *a, const world_opts *o, uint64_t end_ns, observe_session *s)
{
	char err[160] = "";
	if (a->events_cdc && event_stream_parse_cdc(a->events_cdc, &s->ev_opts, err, sizeof(err))) {
		fprintf(stderr, "%s: bad --events-cdc %s\n", prog, err);
		return 2;
	}
	if (a->events_cdc && !a->events) {
		fprintf(stderr, "%s: --events-cdc needs --events\n", prog);
		return 2;
	}
	s->st_opts.interval_ns = STATS_DEFAULT_INTERVAL_NS;
	if (a->stats_interval) {
		unsigned long long ns = 0;
		if (cli_parse_duration(a->stats_interval, &ns, err, sizeof(err)) || ns == 0) {
			fprintf(stderr, "%s: bad --stats-interval: %s\n", prog, ns == 0 && !err[0] ? "must be > 0" : err);
			return 2;
		}
		s->st_opts.interval_ns = ns;
		if ((a->stats || a->timeline) && end_ns / ns > OBSERVE_MAX_SAMPLES) {
			char e[32], least[32];
			fprintf(stderr,
			        "%s: bad --stats-interval %s: the run's %s would take %llu samples; expected at most %llu (an "
			        "interval of %s or more)\n",
			        prog, a->stats_interval, scn_format_duration(end_ns, e, sizeof(e)), (unsigned long long)(end_ns / ns),
			        OBSERVE_MAX_SAMPLES, scn_format_duration((end_ns + OBSERVE_MAX_SAMPLES - 1) / OBSERVE_MAX_SAMPLES, least, sizeof(least)));
			return 2;
		}
	}
	s->st_opts.format = a->stats && ends_with(a->stats, ".jsonl") ? STATS_JSONL : STATS_CSV;
	if (a->stats_format) {
		if (!strcmp(a->stats_format, "csv"))
			s->st_opts.format = STATS_CSV;
		else if (!strcmp(a->stats_format, "jsonl"))
			s->st_opts.format = STATS_JSONL;
		else {
			fprintf(stderr, "%s: bad --stats-format '%s'; expected csv or jsonl\n", prog, a->stats_format);
			return 2;
		}
	}
	if (a->stats_format && !a->stats) {
		fprintf(stderr, "%s: --stats-format needs --stats\n", prog);
		return 2;
	}
	if ((a->from || a->to) && !a->timeline) {
		fprintf(stderr, "%s: --from and --to need --timeline (msc takes them too)\n", prog);
		return 2;
	}
	unsigned long long v = 0;
	char terr[128];
	if (a->from && cli_parse_duration(a->from, &v, terr, sizeof(terr))) {
		fprintf(stderr, "%s: bad --from: %s\n", prog, terr);
		return 2;
	}
	s->from_ns = a->from ? v : 0;
	if (a->to && cli_parse_duration(a->to, &v, terr, sizeof(terr))) {
		fprintf(stderr, "%s: bad --to: %s\n", prog, terr);
		return 2;
	}
	if (a->to && v <= s->from_ns) {
		fprintf(stderr, "%s: bad --to %s: it is not after --from\n", prog, a->to);
		return 2;
	}
	s->to_ns = a->to ? v : 0;
	if (a->stats_interval && !a->stats && !a->timeline) {
		fprintf(stderr, "%s: --stats-interval needs --stats or --timeline\n", prog);
		return 2;
	}
	/* one output per standard output */
	int on_stdout = cli_is_stdin(a->events) + cli_is_stdin(a->stats) + o->json + (o->pcap_path && !strcmp(o->pcap_path, "/dev/stdout"));
	if ((cli_is_stdin(a->events) || cli_is_stdin(a->stats)) && on_stdout > 1) {
		fprintf(stderr, "%s: only one of --events -, --stats -, --pcap - and --format json can have standard output\n",
		        prog);
		return 2;
	}
	return 0;
}

static FILE *open_out(const char *prog, const char *opt, const char *path, bool *is_stdout)
{
	*is_stdout = cli_is_stdin(path);
	if (*is_stdout)
		return stdout;
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "%s: %s %s: %s\n", prog, opt, path, strerror(errno));
	return f;
}

observe_session *observe_session_new(const char *prog, const observe_args *a, world_opts *o, uint64_t end_ns, int *rc)
{
	*rc = 0;
	if (!a->events && !a->stats && !a->events_cdc && !a->stats_interval && !a->stats_format && !a->topology &&
	    !a->timeline && !a->from && !a->to)
		return NULL;
	observe_session *s = g_new0(observe_session, 1);
	s->a = a;
	obs_mux_init(&s->mux);
	*rc = check(prog, a, o, end_ns, s);
	if (!*rc && a->events && !(s->events_out = open_out(prog, "--events", a->events, &s->events_stdout)))
		*rc = 2;
	if (!*rc && a->stats && !(s->stats_out = open_out(prog, "--stats", a->stats, &s->stats_stdout)))
		*rc = 2;
	if (*rc) {
		observe_session_free(s);
		return NULL;
	}
	if (s->events_stdout || s->stats_stdout)
		o->out = stderr; /* the run's own text moves out of the way */
	o->observer = &s->mux.obs;
	return s;
}

void observe_session_start(observe_session *s, world *w, uint64_t seed)
{
	if (!s)
		return;
	s->id = obs_ident_new(w);
	world_observer ob;
	if (s->events_out) {
		s->ev_opts.seed = seed;
		s->es = event_stream_new(s->events_out, w, s->id, &s->ev_opts);
		event_stream_observer(s->es, &ob);
		obs_mux_add(&s->mux, &ob);
	}
	s->w = w;
	if (s->a->timeline) {
		link_series_init(&s->series);
		s->has_series = true;
	}
	if (s->stats_out || s->has_series) {
		s->st = stats_new(s->stats_out, w, s->id, &s->st_opts, s->has_series ? &s->series : NULL);
		stats_observer(s->st, &ob);
		obs_mux_add(&s->mux, &ob);
	}
	if (s->a->topology) {
		s->topo = topology_run_new(w, s->id);
		topology_run_observer(s->topo, &ob);
		obs_mux_add(&s->mux, &ob);
	}
}

/* A picture to a file; 0 or 2 after printing why not. */
static int write_picture(const char *prog, const char *opt, const char *path, const observe_session *s)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "%s: %s %s: %s\n", prog, opt, path, strerror(errno));
		return 2;
	}
	if (s->topo && !strcmp(opt, "--topology")) {
		size_t n;
		const topo_link *l = topology_run_links(s->topo, &n);
		topology_svg_write(f, world_scenario(s->w), l, n);
	} else {
		timeline_svg_write(f, &s->series, s->from_ns, s->to_ns);
	}
	bool bad = ferror(f) != 0;
	bad |= fclose(f) != 0;
	if (bad)
		fprintf(stderr, "%s: %s %s: write failed\n", prog, opt, path);
	return bad ? 2 : 0;
}

static int close_out(const char *prog, const char *opt, const char *path, FILE *f, bool is_stdout)
{
	if (!f)
		return 0;
	bool bad = ferror(f) != 0;
	if (is_stdout)
		bad |= fflush(f) != 0;
	else
		bad |= fclose(f) != 0;
	if (bad)
		fprintf(stderr, "%s: %s %s: write failed\n", prog, opt, path);
	return bad ? 2 : 0;
}

int observe_session_finish(observe_session *s, const char *prog)
{
	if (!s)
		return 0;
	int rc = close_out(prog, "--events", s->a->events, s->events_out, s->events_stdout);
	s->events_out = NULL;
	if (close_out(prog, "--stats", s->a->stats, s->stats_out, s->stats_stdout))
		rc = 2;
	s->stats_out = NULL;
	if (s->topo && write_picture(prog, "--topology", s->a->topology, s))
		rc = 2;
	if (s->has_series && write_picture(prog, "--timeline", s->a->timeline, s))
		rc = 2;
	return rc;
}

void observe_session_free(observe_session *s)
{
	if (!s)
		return;
	if (s->events_out && !s->events_stdout)
		fclose(s->events_out);
	if (s->stats_out && !s->stats_stdout)
		fclose(s->stats_out);
	event_stream_free(s->es);
	stats_free(s->st);
	topology_run_free(s->topo);
	if (s->has_series)
		link_series_free(&s->series);
	obs_ident_free(s->id);
	g_free(s);
}
