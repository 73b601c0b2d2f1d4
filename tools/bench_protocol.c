/* bench protocol: the whole protocol path at speed. Two stacks, one SMC-R link group,
 * N connections (64 by default) streaming over the simulated fabric: applications write
 * the seeded pattern into SMC-R sockets, the cores move it with RDMA WRITEs and CDC
 * messages through simulated RNICs, wires and a switch, and the sink checks every byte.
 * Built from a scenario (sim/world/world.h), so it measures exactly what `smcr-sim run` runs.
 * Prints wall time, engine events per wall second, payload bytes per wall second and
 * the fingerprint (the same on every repetition). */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/scenario/scn_values.h"
#include "sim/world/world.h"
#include "tools/bench.h"
#include "tools/cli.h"

static char *scenario_text(unsigned conns, uint64_t bytes, unsigned mtu, uint64_t rmb)
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
	                       mtu, rmb, rmb, mtu, rmb, rmb, bytes, conns, bytes * conns);
}

int bench_protocol(int argc, char **argv)
{
	gint conns = 64, reps = 1, mtu = 4096;
	gchar *bytes_s = NULL, *rmb_s = NULL;
	GOptionEntry entries[] = {
		{ "conns", 0, 0, G_OPTION_ARG_INT, &conns, "connections in the link group (default 64)", "N" },
		{ "bytes", 0, 0, G_OPTION_ARG_STRING, &bytes_s, "bytes per connection (default 16M)", "SIZE" },
		{ "mtu", 0, 0, G_OPTION_ARG_INT, &mtu, "RoCE MTU 1024..4096 (default 4096)", "BYTES" },
		{ "rmb", 0, 0, G_OPTION_ARG_STRING, &rmb_s, "RMB and send buffer size (default 256K)", "SIZE" },
		{ "reps", 0, 0, G_OPTION_ARG_INT, &reps, "repetitions (the best is reported)", "N" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	cli_options opts = { .params = "- SMC-R streams between two stacks over the simulated fabric", .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	uint64_t bytes = 16ull << 20, rmb = 256ull << 10;
	const char *why = NULL;
	if ((bytes_s && !scn_parse_size(bytes_s, &bytes, &why)) || (rmb_s && !scn_parse_size(rmb_s, &rmb, &why)) ||
	    !bytes || rmb < 16384 || conns < 1 ||
	    conns > 255 || reps < 1 || (mtu != 1024 && mtu != 2048 && mtu != 4096)) {
		fprintf(stderr, "%s: bad option value (sizes like 16M, RMB at least 16K; 1..255 connections; MTU 1024, 2048 or 4096)\n",
		        argv[0]);
		g_free(bytes_s);
		g_free(rmb_s);
		return 2;
	}
	g_free(bytes_s);
	g_free(rmb_s);
	char *text = scenario_text((unsigned)conns, bytes, (unsigned)mtu, rmb);
	scn_diag diag;
	scn_diag_init(&diag);
	scn_scenario *scn = scn_load_string("bench-protocol", text, strlen(text), &diag);
	g_free(text);
	if (!scn) {
		scn_diag_print(&diag, stderr);
		scn_diag_free(&diag);
		return 2;
	}
	scn_diag_free(&diag);
	double best = 0;
	uint64_t events = 0, fp = 0, failed = 0, core = 0;
	sim_time vt = 0;
	for (int r = 0; r < reps; r++) {
		world_opts o;
		world_opts_default(&o);
		o.quiet = true;
		o.out = stderr; /* failed expectations only */
		char e[256];
		world *w = world_new(scn, &o, e, sizeof(e));
		if (!w) {
			fprintf(stderr, "%s: %s\n", argv[0], e);
			scn_free(scn);
			return 2;
		}
		double t0 = bench_wall_seconds();
		failed = world_run(w);
		double dt = bench_wall_seconds() - t0;
		if (!best || dt < best)
			best = dt;
		events = world_events(w);
		fp = world_fingerprint(w);
		vt = sim_now(world_engine(w));
		core = smc_layer_counters_get(world_layer(w, "A"))->core_calls +
		       smc_layer_counters_get(world_layer(w, "B"))->core_calls;
		world_free(w);
	}
	uint64_t payload = bytes * (uint64_t)conns;
	printf("bench protocol: 2 stacks, 1 link group, %d connections x %" PRIu64 " bytes, RoCE MTU %d, RMB %" PRIu64 "\n",
	       conns, bytes, mtu, rmb);
	printf("  wall time          %.3f s (best of %d)\n", best, reps);
	printf("  virtual run        %" PRIu64 ".%06" PRIu64 " s\n", (uint64_t)(vt / SIM_S), (uint64_t)(vt % SIM_S / 1000));
	printf("  engine events      %" PRIu64 "  (%.2f M/s wall)\n", events, (double)events / best / 1e6);
	printf("  core entries       %" PRIu64 "  (%.2f M/s wall)\n", core, (double)core / best / 1e6);
	printf("  payload            %" PRIu64 " bytes  (%.2f GB/s wall)\n", payload, (double)payload / best / 1e9);
	printf("  peak RSS           %.1f MiB\n", (double)bench_peak_rss() / (1024.0 * 1024.0));
	printf("  expectations       %s\n", failed ? "FAILED" : "met (one link group, one link, all bytes intact)");
	printf("  fingerprint        %016" PRIx64 "\n", fp);
	scn_free(scn);
	return failed ? 1 : 0;
}
