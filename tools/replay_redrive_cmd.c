/* `smcr-sim replay --mode redrive FILE [--side client|server|IP] [--scenario S.scn]`: the
 * options of feeding one recorded side to a simulated stack whose core plays the other,
 * and the list of differences (sim/redrive/redrive.h). Exit 0: no difference; 1:
 * differences (or a damaged capture); 2: it cannot run. */
#include <stdio.h>
#include <string.h>

#include "sim/redrive/redrive.h"
#include "tools/cli.h"
#include "tools/replay_cli.h"

/* --side client|server|A.B.C.D; 0 or -1. */
static int parse_side(const char *text, redrive_opts *o)
{
	unsigned x, y, z, w;
	char tail;
	if (!strcmp(text, "client"))
		o->side = REDRIVE_SIDE_CLIENT;
	else if (!strcmp(text, "server"))
		o->side = REDRIVE_SIDE_SERVER;
	else if (sscanf(text, "%u.%u.%u.%u%c", &x, &y, &z, &w, &tail) == 4 && x < 256 && y < 256 && z < 256 && w < 256) {
		o->side = REDRIVE_SIDE_IP;
		o->side_ip = x << 24 | y << 16 | z << 8 | w;
	} else {
		return -1;
	}
	return 0;
}

/* A positive duration option into *out; 0 or 2 after printing what is wrong. */
static int positive_duration(const char *prog, const char *opt, const char *text, uint64_t *out)
{
	unsigned long long v;
	char msg[128];
	if (!text)
		return 0;
	if (cli_parse_duration(text, &v, msg, sizeof(msg))) {
		fprintf(stderr, "%s: bad %s: %s\n", prog, opt, msg);
		return 2;
	}
	if (!v) {
		fprintf(stderr, "%s: bad %s '%s'; expected a duration over 0, such as 1s\n", prog, opt, text);
		return 2;
	}
	*out = v;
	return 0;
}

/* The options as redrive_opts; 0 or 2 after printing what is wrong. */
static int options(const char *prog, replay_cli *a, redrive_opts *o)
{
	if (a->speed || a->play || a->offset || a->inject_at) {
		fprintf(stderr, "%s: --speed, --play, --offset and --inject-at are for --mode timing\n", prog);
		return 2;
	}
	memset(o, 0, sizeof(*o));
	world_opts_default(&o->world);
	o->scenario = a->scenario;
	o->max_gap_ns = a->max_gap_ns;
	if (a->side && parse_side(a->side, o)) {
		fprintf(stderr, "%s: bad --side '%s'; expected client, server or an IPv4 address\n", prog, a->side);
		return 2;
	}
	if (positive_duration(prog, "--wait", a->wait, &o->wait_ns) || positive_duration(prog, "--end", a->end, &o->end_ns))
		return 2;
	if (a->seed) {
		unsigned long long v;
		if (cli_parse_u64(a->seed, &v)) {
			fprintf(stderr, "%s: bad --seed '%s'; expected an integer 0..18446744073709551615\n", prog, a->seed);
			return 2;
		}
		o->seed = v;
		o->has_seed = true;
	}
	if (capture_args_apply(prog, &a->cap, &o->world))
		return 2;
	o->world.verbose = a->verbose;
	return 0;
}

int replay_redrive_main(const char *prog, const char *file, replay_cli *a)
{
	redrive_opts o;
	if (options(prog, a, &o))
		return 2;
	redrive_result res;
	char err[1024];
	if (redrive_run(file, &o, &res, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	redrive_print(stdout, &res, a->verbose);
	if (res.damaged)
		fprintf(stderr, "%s: %s: %s; the messages before the damage were used\n", prog, a->name ? a->name : file,
		        res.damage[0] ? res.damage : "the capture is damaged");
	if (res.time_gaps)
		fprintf(stderr, "%s: %s: %s (%llu jump%s in all)\n", prog, a->name ? a->name : file, res.first_gap,
		        (unsigned long long)res.time_gaps, res.time_gaps == 1 ? "" : "s");
	int rc = res.n_diffs || res.damaged || res.time_gaps ? 1 : 0;
	redrive_result_free(&res);
	return rc;
}
