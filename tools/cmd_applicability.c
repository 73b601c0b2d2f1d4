/* `smcr-sim applicability CAPTURE`: SMCAT's figures from a plain TCP capture, and the
 * recorded applications re-run over TCP and over SMC-R (sim/applic/applic.h). The options,
 * then the library. Exit 0; 1 when the capture had damage, malformed frames or time stamp
 * jumps (the result says what it left out); 2 when it cannot be used. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/applic/applic.h"
#include "tools/cli.h"

typedef struct app_args {
	gchar *format, *svg, *setup, *scenario, *local, *shortl, *small, *pause, *max_gap, *max_open, *rerun, *rerun_bytes,
	        *steps, *seed, *client_host, *server_host;
	gboolean quiet;
} app_args;

static void free_args(app_args *a)
{
	gchar **all[] = { &a->format, &a->svg,   &a->setup,    &a->scenario, &a->local,       &a->shortl, &a->small,
		          &a->pause,  &a->max_gap, &a->max_open, &a->rerun,    &a->rerun_bytes, &a->steps,  &a->seed,
		          &a->client_host, &a->server_host };
	for (size_t i = 0; i < G_N_ELEMENTS(all); i++)
		g_free(*all[i]);
}

static int bad(const char *prog, const char *opt, const char *text, const char *want)
{
	fprintf(stderr, "%s: bad %s '%s'; expected %s\n", prog, opt, text, want);
	return 2;
}

static int duration(const char *prog, const char *opt, const char *text, uint64_t *out)
{
	unsigned long long v;
	char msg[128];
	if (!text)
		return 0;
	if (cli_parse_duration(text, &v, msg, sizeof(msg)) || !v)
		return bad(prog, opt, text, "a duration over 0, such as 1s or 20ms");
	*out = v;
	return 0;
}

static int count(const char *prog, const char *opt, const char *text, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	if (!text)
		return 0;
	if (cli_parse_u64(text, &v) || v > max) {
		char want[64];
		snprintf(want, sizeof(want), "a count 0..%llu", (unsigned long long)max);
		return bad(prog, opt, text, want);
	}
	*out = v;
	return 0;
}

static int numbers(const char *prog, const app_args *a, applic_opts *o)
{
	uint64_t v = o->max_open, r = o->rerun_max, st = o->steps_max;
	if (duration(prog, "--short", a->shortl, &o->short_ns) || duration(prog, "--pause", a->pause, &o->pause_ns) ||
	    duration(prog, "--max-gap", a->max_gap, &o->max_gap_ns) ||
	    count(prog, "--max-open", a->max_open, 1u << 24, &v) || count(prog, "--rerun", a->rerun, 10000, &r) ||
	    count(prog, "--steps", a->steps, 1u << 20, &st) || count(prog, "--seed", a->seed, UINT64_MAX, &o->seed))
		return 2;
	if (a->max_open && !v)
		return bad(prog, "--max-open", a->max_open, "at least 1");
	o->max_open = (uint32_t)v;
	o->rerun_max = (uint32_t)r;
	o->steps_max = (uint32_t)st;
	if (a->small && (cli_parse_size(a->small, 1, &o->small_bytes) || !o->small_bytes))
		return bad(prog, "--small", a->small, "a size over 0, such as 10000 or 10KB");
	if (a->rerun_bytes && (cli_parse_size(a->rerun_bytes, 1, &o->rerun_bytes) || !o->rerun_bytes))
		return bad(prog, "--rerun-bytes", a->rerun_bytes, "a size over 0, such as 1G");
	if (a->local) {
		o->has_local = true;
		if (inet_pton(AF_INET, a->local, o->local_ip) == 1)
			o->local_family = 4;
		else if (inet_pton(AF_INET6, a->local, o->local_ip) == 1)
			o->local_family = 6;
		else
			return bad(prog, "--local", a->local, "an IPv4 or IPv6 address");
	}
	return 0;
}

/* --client-host, --server-host: a profile and its overrides, as a scenario's stack has them */
static int hosts_of(const char *prog, const app_args *a, applic_opts *o)
{
	char err[1024];
	if ((a->client_host && applic_host_parse(a->client_host, "--client-host", &o->client_host, err, sizeof(err))) ||
	    (a->server_host && applic_host_parse(a->server_host, "--server-host", &o->server_host, err, sizeof(err)))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	return 0;
}

static int setup_of(const char *prog, const app_args *a, applic_setup *s)
{
	char err[2048];
	applic_setup_default(s);
	if (a->setup && a->scenario) {
		fprintf(stderr, "%s: --setup and --scenario both describe the set-up; give one\n", prog);
		return 2;
	}
	if ((a->setup && applic_setup_load(s, a->setup, err, sizeof(err))) ||
	    (a->scenario && applic_setup_from_scenario(s, a->scenario, err, sizeof(err)))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	return 0;
}

static int outputs(const char *prog, const app_args *a, const applic_result *res, const char *name)
{
	if (a->format && !strcmp(a->format, "json"))
		applic_print_json(stdout, res, name);
	else
		applic_print_text(stdout, res, name);
	if (!a->svg)
		return 0;
	FILE *f = cli_is_stdin(a->svg) ? stdout : fopen(a->svg, "w");
	if (!f) {
		fprintf(stderr, "%s: cannot write %s\n", prog, a->svg);
		return 2;
	}
	applic_print_svg(f, res, name);
	if (f != stdout && fclose(f)) {
		fprintf(stderr, "%s: cannot write %s\n", prog, a->svg);
		return 2;
	}
	return 0;
}

int cmd_applicability(int argc, char **argv)
{
	app_args a;
	memset(&a, 0, sizeof(a));
	GOptionEntry entries[] = {
		{ "format", 'f', 0, G_OPTION_ARG_STRING, &a.format, "text (default) or json", "text|json" },
		{ "svg", 0, 0, G_OPTION_ARG_FILENAME, &a.svg, "also draw the figures and the re-run as SVG into FILE", "FILE" },
		{ "setup", 0, 0, G_OPTION_ARG_FILENAME, &a.setup,
		  "the hosts' SMC-R set-up: adapters, PNet IDs, subnets, VLANs, v2 UEIDs (docs/applicability.md)", "FILE" },
		{ "scenario", 's', 0, G_OPTION_ARG_FILENAME, &a.scenario, "take the set-up from a scenario's stacks", "FILE" },
		{ "local", 0, 0, G_OPTION_ARG_STRING, &a.local, "the capturing host: destinations are the other ends", "IP" },
		{ "short", 0, 0, G_OPTION_ARG_STRING, &a.shortl, "shorter connections ... (1s; assumed)", "TIME" },
		{ "small", 0, 0, G_OPTION_ARG_STRING, &a.small, "... with fewer bytes both ways are not well-suited (10000; assumed)",
		  "SIZE" },
		{ "pause", 0, 0, G_OPTION_ARG_STRING, &a.pause, "a pause this long ends a recorded write (20ms)", "TIME" },
		{ "max-gap", 0, 0, G_OPTION_ARG_STRING, &a.max_gap, "a longer time stamp jump is damage, closed (1h)", "TIME" },
		{ "max-open", 0, 0, G_OPTION_ARG_STRING, &a.max_open, "connections tracked at once (262144)", "N" },
		{ "rerun", 0, 0, G_OPTION_ARG_STRING, &a.rerun, "eligible connections re-run in the simulator (20; 0: none)", "N" },
		{ "rerun-bytes", 0, 0, G_OPTION_ARG_STRING, &a.rerun_bytes, "bytes re-run at most (1G)", "SIZE" },
		{ "steps", 0, 0, G_OPTION_ARG_STRING, &a.steps, "recorded steps per re-run connection (4096)", "N" },
		{ "seed", 0, 0, G_OPTION_ARG_STRING, &a.seed, "the re-run's seed (1)", "N" },
		{ "client-host", 0, 0, G_OPTION_ARG_STRING, &a.client_host,
		  "the re-run's client hosts: a profile and overrides, as a scenario's host= and host statement (linux; "
		  "docs/hosts.md)",
		  "PROFILE[,FIELD=VALUE...]" },
		{ "server-host", 0, 0, G_OPTION_ARG_STRING, &a.server_host,
		  "the re-run's server hosts, the same way (linux; a --scenario's stacks have theirs)", "PROFILE[,FIELD=VALUE...]" },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &a.quiet, "no progress line on stderr", NULL },
		{ NULL },
	};
	cli_options opts = {
		.params = "CAPTURE - will SMC-R help this workload? SMCAT's figures from a TCP capture, and its applications re-run "
		          "over TCP and SMC-R",
		.entries = entries,
		.description =
		        "Reads a plain TCP capture (pcap or pcapng; Ethernet, Linux cooked, raw IP; IPv4 and IPv6; headers\n"
		        "alone are enough) in one pass and prints, per destination and in total, the figures of z/OS's SMC\n"
		        "Applicability Tool: the share of connections that could use SMC-R (eligible), the share of those\n"
		        "that are well-suited (not short-lived and small), the share of segments on well-suited connections,\n"
		        "and the application send and receive sizes. Then the first --rerun eligible connections' recorded\n"
		        "applications run in the simulator over TCP and over SMC-R, on hosts with CPUs and costs\n"
		        "(--client-host, --server-host): latency, throughput and CPU per connection, per host and in\n"
		        "total. Exit 0; 1 when the capture had damage, malformed frames or time stamp\n"
		        "jumps (listed with frame numbers; the result says what it left out); 2 when it cannot be used.",
	};
	int rc = cli_parse_options(&opts, &argc, &argv);
	if (!rc && argc != 2) {
		fprintf(stderr, "%s: expected one CAPTURE file (try --help)\n", argv[0]);
		rc = 2;
	}
	if (!rc && a.format && strcmp(a.format, "text") && strcmp(a.format, "json"))
		rc = bad(argv[0], "--format", a.format, "text or json");
	applic_opts o;
	applic_opts_default(&o);
	o.rerun_max = 20;
	applic_setup setup;
	applic_setup_default(&setup);
	if (!rc)
		rc = numbers(argv[0], &a, &o);
	if (!rc)
		rc = hosts_of(argv[0], &a, &o);
	if (!rc)
		rc = setup_of(argv[0], &a, &setup);
	o.setup = &setup;
	o.progress = !a.quiet && isatty(STDERR_FILENO) ? stderr : NULL;
	applic_result res;
	char err[512];
	if (!rc && applic_run(argv[1], &o, &res, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		rc = 2;
	} else if (!rc) {
		rc = outputs(argv[0], &a, &res, cli_input_name(argv[1]));
		if (!rc && (res.damaged || res.bad_frames || res.time_gaps))
			rc = 1;
		applic_result_free(&res);
	}
	applic_setup_free(&setup);
	free_args(&a);
	return rc;
}
