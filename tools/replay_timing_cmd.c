/* `smcr-sim replay --mode timing FILE --scenario S.scn`: run the scenario with the
 * capture's frames injected at their (scaled) times (sim/redrive/replay_timing.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/redrive/replay_timing.h"
#include "sim/world/world.h"
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

int replay_timing_main(const char *prog, const char *file, replay_cli *a)
{
	if (!a->scenario) {
		fprintf(stderr, "%s: --mode timing needs --scenario FILE (the world to inject into)\n", prog);
		return 2;
	}
	replay_timing_opts ro;
	memset(&ro, 0, sizeof(ro));
	ro.speed_num = ro.speed_den = 1;
	if (a->speed && parse_speed(a->speed, &ro.speed_num, &ro.speed_den)) {
		fprintf(stderr, "%s: bad --speed '%s'; expected a positive number like 2 or 0.5\n", prog, a->speed);
		return 2;
	}
	if (a->play && parse_play(a->play, &ro)) {
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
		ro.offset_ns = v;
	}
	world_opts o;
	world_opts_default(&o);
	if (a->end) {
		unsigned long long v;
		char msg[128];
		if (cli_parse_duration(a->end, &v, msg, sizeof(msg)) || !v) {
			fprintf(stderr, "%s: bad --end '%s'\n", prog, a->end);
			return 2;
		}
		o.end_ns = v;
		o.has_end = true;
	}
	if (a->seed) {
		unsigned long long v;
		if (cli_parse_u64(a->seed, &v)) {
			fprintf(stderr, "%s: bad --seed '%s'\n", prog, a->seed);
			return 2;
		}
		o.seed = v;
		o.has_seed = true;
	}
	if (capture_args_apply(prog, &a->cap, &o))
		return 2;
	scn_diag diag;
	scn_diag_init(&diag);
	scn_scenario *scn = scn_load_file(a->scenario, &diag);
	if (!scn)
		scn_diag_print(&diag, stderr);
	scn_diag_free(&diag);
	if (!scn)
		return 2;
	if (!scn->n_switches) {
		fprintf(stderr, "%s: %s has no switch to inject at\n", prog, a->scenario);
		scn_free(scn);
		return 2;
	}
	o.spare_port_switch = a->inject_at ? a->inject_at : scn->switches[0].name;
	o.verbose = a->verbose;
	o.progress = isatty(STDERR_FILENO) ? stderr : NULL;
	char err[512];
	int rc = 2;
	replay_timing *t = NULL;
	world *w = world_new(scn, &o, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "%s: %s\n", prog, err);
		goto out;
	}
	t = replay_timing_new(w, file, &ro, err, sizeof(err));
	if (!t) {
		fprintf(stderr, "%s: %s\n", prog, err);
		goto out;
	}
	printf("replay (timing): %s into %s at switch %s, speed %s\n", file, scn->file, o.spare_port_switch,
	       a->speed ? a->speed : "1");
	uint64_t failed = world_run(w);
	replay_timing_print(stdout, t);
	const replay_timing_stats *st = replay_timing_stats_get(t);
	if (st->damaged)
		fprintf(stderr, "%s: %s: %s\n", prog, file, st->damage);
	rc = failed || st->damaged ? 1 : 0;
out:
	replay_timing_free(t);
	world_free(w);
	scn_free(scn);
	return rc;
}
