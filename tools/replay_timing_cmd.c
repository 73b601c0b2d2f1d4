/* `smcr-sim replay --mode timing FILE --scenario S.scn`: the options of a scenario's run
 * with the capture's frames injected at their (scaled) times
 * (sim/redrive/replay_timing_run.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/redrive/replay_timing_run.h"
#include "tools/cli.h"
#include "tools/replay_cli.h"

/* "2", "0.5", "1.25": a positive ratio num/den with at most 6 decimals. */
static int parse_speed(const char *text, uint64_t *num, uint64_t *den)
{
	uint64_t n = 0, d = 1;
	const char *p = text;
	bool digits = false, dot = false;
	for (; *p; p++) {
		if (*p == '.' && !dot) {
			dot = true;
			continue;
		}
		if (*p < '0' || *p > '9' || n > 1000000000ull || (dot && d >= 1000000))
			return -1;
		n = n * 10 + (uint64_t)(*p - '0');
		if (dot)
			d *= 10;
		digits = true;
	}
	if (!digits || n == 0)
		return -1;
	*num = n;
	*den = d;
	return 0;
}

static int parse_play(const char *text, replay_timing_opts *o)
{
	gchar **parts = g_strsplit(text, ",", -1);
	int rc = 0;
	for (gchar **q = parts; *q && !rc; q++) {
		unsigned a, b, c, d;
		char tail;
		if (sscanf(*q, "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) != 4 || a > 255 || b > 255 || c > 255 || d > 255 ||
		    o->n_play == REPLAY_TIMING_MAX_PLAY)
			rc = -1;
		else
			o->play[o->n_play++] = a << 24 | b << 16 | c << 8 | d;
	}
	g_strfreev(parts);
	return rc;
}

/* --speed, --play, --offset; 0 or 2 after printing what is wrong. */
static int injection_opts(const char *prog, const replay_cli *a, replay_timing_opts *ro)
{
	memset(ro, 0, sizeof(*ro));
	ro->speed_num = ro->speed_den = 1;
	ro->max_gap_ns = a->max_gap_ns;
	if (a->speed && parse_speed(a->speed, &ro->speed_num, &ro->speed_den)) {
		fprintf(stderr, "%s: bad --speed '%s'; expected a positive number like 2 or 0.5\n", prog, a->speed);
		return 2;
	}
	if (a->play && parse_play(a->play, ro)) {
		fprintf(stderr, "%s: bad --play '%s'; expected IPv4 addresses separated by commas (at most %d)\n", prog,
		        a->play, REPLAY_TIMING_MAX_PLAY);
		return 2;
	}
	if (a->offset) {
		unsigned long long v;
		char msg[128];
		if (cli_parse_duration(a->offset, &v, msg, sizeof(msg))) {
			fprintf(stderr, "%s: --offset: %s\n", prog, msg);
			return 2;
		}
		ro->offset_ns = v;
	}
	return 0;
}

/* --end, --seed, the captures, -v; 0 or 2 after printing what is wrong. */
static int world_options(const char *prog, replay_cli *a, world_opts *o)
{
	world_opts_default(o);
	unsigned long long v;
	char msg[128];
	if (a->end) {
		if (cli_parse_duration(a->end, &v, msg, sizeof(msg))) {
			fprintf(stderr, "%s: bad --end: %s\n", prog, msg);
			return 2;
		}
		if (!v) {
			fprintf(stderr, "%s: bad --end '%s'; expected a duration over 0, such as 1s\n", prog, a->end);
			return 2;
		}
		o->end_ns = v;
		o->has_end = true;
	}
	if (a->seed) {
		if (cli_parse_u64(a->seed, &v)) {
			fprintf(stderr, "%s: bad --seed '%s'; expected an integer 0..18446744073709551615\n", prog, a->seed);
			return 2;
		}
		o->seed = v;
		o->has_seed = true;
	}
	if (capture_args_apply(prog, &a->cap, o))
		return 2;
	o->verbose = a->verbose;
	o->progress = isatty(STDERR_FILENO) ? stderr : NULL;
	return 0;
}

int replay_timing_main(const char *prog, const char *file, replay_cli *a)
{
	if (!a->scenario) {
		fprintf(stderr, "%s: --mode timing needs --scenario FILE (the world to inject into)\n", prog);
		return 2;
	}
	replay_timing_run_config c = { .capture = file, .scenario = a->scenario, .inject_at = a->inject_at, .speed_text = a->speed ? a->speed : "1", .out = stdout, .log = stderr };
	if (injection_opts(prog, a, &c.timing) || world_options(prog, a, &c.world))
		return 2;
	replay_timing_run_result r;
	char err[512];
	if (replay_timing_run(&c, &r, err, sizeof(err))) {
		if (err[0])
			fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	if (r.damaged)
		fprintf(stderr, "%s: %s: %s\n", prog, a->name ? a->name : file, r.damage);
	if (r.time_gaps)
		fprintf(stderr, "%s: %s: %s (%llu jump%s in all)\n", prog, a->name ? a->name : file, r.first_gap,
		        (unsigned long long)r.time_gaps, r.time_gaps == 1 ? "" : "s");
	return r.failed || r.damaged || r.time_gaps ? 1 : 0;
}
