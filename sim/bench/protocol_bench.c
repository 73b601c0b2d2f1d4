/* SMC-R end to end over the simulated fabric, from a scenario (see protocol_bench.h). */
#include "sim/bench/protocol_bench.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "sim/engine/bench_measure.h"
#include "sim/world/world.h"

/* The fabric and the two stacks; the interfaces (which carry the CLC handshake, and all of
 * the TCP twin's traffic) get the adapters' rate and latency in rr mode. */
static char *fabric_text(const protocol_bench_config *c)
{
	const char *iface = c->mode == PROTOCOL_BENCH_RR ? " bandwidth=100Gbps latency=500ns" : "";
	const char *host = c->host ? c->host : "linux";
	return g_strdup_printf("switch SW\n"
	                       "adapter RA pfid=0010 switch=SW bandwidth=100Gbps latency=500ns mtu=4096\n"
	                       "adapter RB pfid=0020 switch=SW bandwidth=100Gbps latency=500ns mtu=4096\n"
	                       "stack A personality=linux host=%s\n"
	                       "  interface eth0 switch=SW ip=10.0.0.1/24%s\n"
	                       "  smcr pfid=0010 mtu=%u\n"
	                       "  smcr maxlinks=1 rmbsize=%" PRIu64 " sndbufsize=%" PRIu64 "\n"
	                       "end\n"
	                       "stack B personality=linux host=%s\n"
	                       "  interface eth0 switch=SW ip=10.0.0.2/24%s\n"
	                       "  smcr pfid=0020 mtu=%u\n"
	                       "  smcr maxlinks=1 rmbsize=%" PRIu64 " sndbufsize=%" PRIu64 "\n"
	                       "end\n",
	                       host, iface, c->mtu, c->rmb, c->rmb, host, iface, c->mtu, c->rmb, c->rmb);
}

/* The applications; then the SMC-R expectations (one link group, one link), then each
 * app's mode and delivered bytes. */
static char *apps_text(const protocol_bench_config *c)
{
	const char *smc = c->smc ? "" : " smc=no";
	const char *lg = c->smc ? "expect linkgroups A B == 1\nexpect links A B == 1\n" : "";
	const char *mode = c->smc ? "SMCR" : "TCP";
	if (c->mode == PROTOCOL_BENCH_BULK)
		return g_strdup_printf("app sink B listen port=5000 kind=sink%s\n"
		                       "app bulk A connect B:5000 kind=bulk bytes=%" PRIu64 " conns=%u%s\n"
		                       "%s"
		                       "expect mode bulk == %s\n"
		                       "expect delivered bulk == sent bulk\n"
		                       "expect delivered bulk == %" PRIu64 "\n",
		                       smc, c->bytes, c->conns, smc, lg, mode, c->bytes * c->conns);
	return g_strdup_printf("app resp B listen port=5000 kind=responder%s\n"
	                       "app rr A connect B:5000 kind=rr request=%" PRIu64 " response=%" PRIu64 " count=%" PRIu64
	                       " conns=%u%s\n"
	                       "%s"
	                       "expect mode rr == %s\n"
	                       "expect delivered rr == %" PRIu64 "\n",
	                       smc, c->size, c->size, c->count, c->conns, smc, lg, mode, c->size * c->count * c->conns);
}

static char *scenario_text(const protocol_bench_config *c)
{
	char *fabric = fabric_text(c), *apps = apps_text(c);
	char *text = g_strdup_printf("scenario \"bench protocol\"\n"
	                             "end 60s\n"
	                             "%s%s",
	                             fabric, apps);
	g_free(fabric);
	g_free(apps);
	return text;
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
static void add_responses(void *arg, const world_conn_summary *s)
{
	*(uint64_t *)arg += s->client_received;
}

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
	double t0 = bench_wall_seconds(), c0 = bench_cpu_seconds();
	r->failed = world_run(w);
	double dt = bench_wall_seconds() - t0, dc = bench_cpu_seconds() - c0;
	if (r->wall == 0.0 || dt < r->wall) {
		r->wall = dt;
		r->cpu = dc;
	}
	if (c->mode == PROTOCOL_BENCH_RR) {
		uint64_t received = 0;
		world_foreach_conn(w, add_responses, &received);
		r->transactions = received / c->size;
	}
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
	*r = (protocol_bench_result){ .payload = c->mode == PROTOCOL_BENCH_BULK ? c->bytes * c->conns
		                                                                : c->size * c->count * c->conns };
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
