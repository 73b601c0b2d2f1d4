/* `smcr-sim replay --mode redrive FILE [--side client|server|IP] [--scenario S.scn]`: feed
 * one recorded side to a simulated stack whose core plays the other, list the differences
 * (sim/redrive/redrive.h). Exit 0: no difference; 1: differences (or a damaged capture); 2: it
 * cannot run. */
#include <stdio.h>
#include <string.h>

#include "sim/redrive/redrive.h"
#include "tools/cli.h"
#include "tools/replay_cli.h"

int replay_redrive_main(const char *prog, const char *file, replay_cli *a)
{
	if (a->speed || a->play || a->offset || a->inject_at) {
		fprintf(stderr, "%s: --speed, --play, --offset and --inject-at are for --mode timing\n", prog);
		return 2;
	}
	redrive_opts o;
	memset(&o, 0, sizeof(o));
	world_opts_default(&o.world);
	o.scenario = a->scenario;
	if (a->side) {
		unsigned x, y, z, w;
		char tail;
		if (!strcmp(a->side, "client"))
			o.side = REDRIVE_SIDE_CLIENT;
		else if (!strcmp(a->side, "server"))
			o.side = REDRIVE_SIDE_SERVER;
		else if (sscanf(a->side, "%u.%u.%u.%u%c", &x, &y, &z, &w, &tail) == 4 && x < 256 && y < 256 && z < 256 &&
		         w < 256) {
			o.side = REDRIVE_SIDE_IP;
			o.side_ip = x << 24 | y << 16 | z << 8 | w;
		} else {
			fprintf(stderr, "%s: bad --side '%s'; expected client, server or an IPv4 address\n", prog, a->side);
			return 2;
		}
	}
	char msg[128];
	unsigned long long v;
	if (a->wait) {
		if (cli_parse_duration(a->wait, &v, msg, sizeof(msg)) || !v) {
			fprintf(stderr, "%s: bad --wait '%s'\n", prog, a->wait);
			return 2;
		}
		o.wait_ns = v;
	}
	if (a->end) {
		if (cli_parse_duration(a->end, &v, msg, sizeof(msg)) || !v) {
			fprintf(stderr, "%s: bad --end '%s'\n", prog, a->end);
			return 2;
		}
		o.end_ns = v;
	}
	if (a->seed) {
		if (cli_parse_u64(a->seed, &v)) {
			fprintf(stderr, "%s: bad --seed '%s'\n", prog, a->seed);
			return 2;
		}
		o.seed = v;
		o.has_seed = true;
	}
	if (capture_args_apply(prog, &a->cap, &o.world))
		return 2;
	o.world.verbose = a->verbose;
	redrive_result res;
	char err[1024];
	if (redrive_run(file, &o, &res, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	redrive_print(stdout, &res, a->verbose);
	if (res.damaged)
		fprintf(stderr, "%s: %s: %s; the messages before the damage were used\n", prog, file,
		        res.damage[0] ? res.damage : "the capture is damaged");
	int rc = res.n_diffs || res.damaged ? 1 : 0;
	redrive_result_free(&res);
	return rc;
}
