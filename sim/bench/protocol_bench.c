/* SMC-R end to end over the simulated fabric, from a scenario (see protocol_bench.h). */
#include "sim/bench/protocol_bench.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "sim/bench/bench_measure.h"
#include "sim/world/world.h"

static char *scenario_text(const protocol_bench_config *c)
{
	return g_strdup_printf("scenario \"bench protocol\"\n"
	                       "end 60s\n"
	                       "switch SW\n"
	                       "adapter RA pfid=0010 switch=SW bandwidth=100Gbps latency=500ns mtu=4096\n"
	                       "adapter RB pfid=0020 switch=SW bandwidth=100Gbps latency=500ns mtu=4096\n"
	                       "stack A personality=linux\n"
	                       "  interface eth0 switch=SW ip=10.0.0.1/24\n"
	                       "  smcr pfid=0010 mtu=%u\n"
	                       "  smcr maxlinks=1 rmbsize=%" PRIu64 " sndbufsize=%" PRIu64 "\n"
	                       "end\n"
	                       "stack B personality=linux\n"
	                       "  interface eth0 switch=SW ip=10.0.0.2/24\n"
	                       "  smcr pfid=0020 mtu=%u\n"
	                       "  smcr maxlinks=1 rmbsize=%" PRIu64 " sndbufsize=%" PRIu64 "\n"
	                       "end\n"
	                       "app sink B listen port=5000 kind=sink\n"
	                       "app bulk A connect B:5000 kind=bulk bytes=%" PRIu64 " conns=%u\n"
	                       "expect linkgroups A B == 1\n"
	                       "expect links A B == 1\n"
	                       "expect mode bulk == SMCR\n"
	                       "expect delivered bulk == sent bulk\n"
	                       "expect delivered bulk == %" PRIu64 "\n",
	                       c->mtu, c->rmb, c->rmb, c->mtu, c->rmb, c->rmb, c->bytes, c->conns, c->bytes * c->conns);
}

static scn_scenario *load(const protocol_bench_config *c)
{
	char *text = scenario_text(c);
	scn_diag diag;
	scn_diag_init(&diag);
	scn_scenario *scn = scn_load_string("bench-protocol", text, strlen(text), &diag);
	g_free(text);
	if (!scn)
		scn_diag_print(&diag, c->log);
	scn_diag_free(&diag);
	return scn;
}

/* One run into r (the fastest kept); false when the world cannot be built. */
static bool one_run(const scn_scenario *scn, const protocol_bench_config *c, protocol_bench_result *r, char *err,
                    size_t errlen)
{
	world_opts o;
	world_opts_default(&o);
	o.quiet = true;
	o.out = c->log; /* failed expectations only */
	world *w = world_new(scn, &o, err, errlen);
	if (!w)
		return false;
	double t0 = bench_wall_seconds();
	r->failed = world_run(w);
	double dt = bench_wall_seconds() - t0;
	if (r->wall == 0.0 || dt < r->wall)
		r->wall = dt;
	r->events = world_events(w);
	r->fingerprint = world_fingerprint(w);
	r->virtual_ns = sim_now(world_engine(w));
	r->core_entries = smc_layer_counters_get(world_layer(w, "A"))->core_calls +
	                  smc_layer_counters_get(world_layer(w, "B"))->core_calls;
	world_free(w);
	return true;
}

int protocol_bench_run(const protocol_bench_config *c, protocol_bench_result *r, char *err, size_t errlen)
{
	*r = (protocol_bench_result){ .payload = c->bytes * c->conns };
	err[0] = 0;
	scn_scenario *scn = load(c);
	if (!scn)
		return 2;
	int rc = 0;
	for (unsigned k = 0; k < c->reps && !rc; k++)
		if (!one_run(scn, c, r, err, errlen))
			rc = 2;
	scn_free(scn);
	return rc;
}
