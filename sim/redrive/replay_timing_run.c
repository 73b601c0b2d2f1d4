/* The timing mode's run (see replay_timing_run.h). */
#include "sim/redrive/replay_timing_run.h"

#include <string.h>

static scn_scenario *load(const replay_timing_run_config *c, char *err, size_t errlen)
{
	scn_diag diag;
	scn_diag_init(&diag);
	scn_scenario *scn = scn_load_file(c->scenario, &diag);
	if (!scn)
		scn_diag_print(&diag, c->log);
	scn_diag_free(&diag);
	if (scn && !scn->n_switches) {
		snprintf(err, errlen, "%s has no switch to inject at", c->scenario);
		scn_free(scn);
		return NULL;
	}
	return scn;
}

/* The world with the injector; 0, or 2 with the reason in err. */
static int run_world(const replay_timing_run_config *c, const scn_scenario *scn, replay_timing_run_result *r,
                     char *err, size_t errlen)
{
	world_opts o = c->world;
	o.spare_port_switch = c->inject_at ? c->inject_at : scn->switches[0].name;
	world *w = world_new(scn, &o, err, errlen);
	if (!w)
		return 2;
	replay_timing *t = replay_timing_new(w, c->capture, &c->timing, err, errlen);
	if (!t) {
		world_free(w);
		return 2;
	}
	fprintf(c->out, "replay (timing): %s into %s at switch %s, speed %s\n", c->capture, scn->file,
	        o.spare_port_switch, c->speed_text);
	r->failed = world_run(w);
	replay_timing_print(c->out, t);
	const replay_timing_stats *st = replay_timing_stats_get(t);
	r->damaged = st->damaged;
	snprintf(r->damage, sizeof(r->damage), "%s", st->damage);
	r->time_gaps = st->time_gaps;
	snprintf(r->first_gap, sizeof(r->first_gap), "%s", st->first_gap);
	replay_timing_free(t);
	if (world_free(w)) {
		snprintf(err, errlen, "the capture of the run could not be written whole");
		return 2;
	}
	return 0;
}

int replay_timing_run(const replay_timing_run_config *c, replay_timing_run_result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	err[0] = 0;
	scn_scenario *scn = load(c, err, errlen);
	if (!scn)
		return 2;
	int rc = run_world(c, scn, r, err, errlen);
	scn_free(scn);
	return rc;
}
