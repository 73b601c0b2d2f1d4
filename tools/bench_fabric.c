/* `smcr-sim bench fabric`: options and figures of the simulated RoCE fabric benchmark
 * (sim/bench/fabric_bench.h). Target: >= 2 GB/s of simulated payload per wall second. */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/engine/bench_measure.h"
#include "sim/bench/fabric_bench.h"
#include "sim/fabric/icrc.h"
#include "tools/bench.h"
#include "tools/cli.h"

typedef struct fabric_args {
	gint64 mtu, outstanding, seed, repeat, gbps;
	gchar *version, *msg, *total; /* sizes: --msg in bytes, --total (a bare number MiB) */
} fabric_args;

/* The options as a config; 0, or 2 after printing what is wrong. */
static int config_of(const char *prog, const fabric_args *a, fabric_bench_config *c)
{
	smcr_mtu pm = SMCR_MTU_256;
	while (pm <= SMCR_MTU_4096 && smcr_mtu_bytes(pm) != (uint32_t)a->mtu)
		pm++;
	c->version = ROCE_V2;
	if (a->version && !strcmp(a->version, "v1"))
		c->version = ROCE_V1;
	else if (a->version && strcmp(a->version, "v2")) {
		fprintf(stderr, "%s: --roce must be v1 or v2\n", prog);
		return 2;
	}
	uint64_t msg = 65536, total = 4096ull << 20;
	if ((a->msg && cli_parse_size(a->msg, 1, &msg)) || (a->total && cli_parse_size(a->total, 1ull << 20, &total)))
		msg = 0;
	if (pm > SMCR_MTU_4096 || msg == 0 || msg > (1 << 24) || total < (1ull << 20) || total % (1ull << 20) ||
	    a->outstanding <= 0 || a->outstanding > 1024 || a->repeat <= 0 || a->gbps <= 0) {
		fprintf(stderr, "%s: need a valid --mtu, 0 < --msg <= 16M, --total of whole MiB >= 1M, "
		                "0 < outstanding <= 1024, repeat > 0, gbps > 0\n",
		        prog);
		return 2;
	}
	c->path_mtu = pm;
	c->msg = (uint32_t)msg;
	c->total_mib = total >> 20;
	c->outstanding = (uint32_t)a->outstanding;
	c->gbps = (uint64_t)a->gbps;
	c->seed = (uint64_t)a->seed;
	c->repeat = (uint64_t)a->repeat;
	return 0;
}

static void print_result(const fabric_args *a, const fabric_bench_config *c, const fabric_bench_result *r)
{
	printf("bench fabric: RoCE %s, path MTU %" PRId64 ", %" PRIu32 "-byte RDMA WRITEs x %" PRIu64 ", %" PRIu32
	       " in flight, %" PRIu64 " Gb/s links, seed %" PRId64 ", ICRC %s\n",
	       c->version == ROCE_V1 ? "v1" : "v2",
	       (int64_t)a->mtu, c->msg, r->writes, c->outstanding, c->gbps, (int64_t)a->seed, icrc_impl_name());
	printf("  simulated packets/s (best of %" PRIu64 "): %.2f M (%" PRIu64 " packets, %" PRIu64 " of them ACKs)\n",
	       c->repeat, r->best_packet_rate / 1e6, r->packets, r->acks);
	printf("  simulated payload/s:          %.2f GB/s (%" PRIu64 " bytes)\n", r->best_payload_rate / 1e9, r->payload);
	printf("  simulated goodput:            %.1f Gb/s of virtual time\n", r->sim_gbps);
	printf("  events:                       %" PRIu64 ", frame buffers: %" PRIu64 "\n", r->events, r->frame_buffers);
	printf("  peak RSS (process):           %.1f MiB\n", (double)bench_peak_rss() / (1024.0 * 1024.0));
	printf("  fingerprint:                  %016" PRIx64 "\n", r->fingerprint);
	printf("  target: >= 2 GB/s of simulated payload per wall second\n");
}

static int run(const char *prog, const fabric_args *a, int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[1]);
		return 2;
	}
	fabric_bench_config c;
	if (config_of(prog, a, &c))
		return 2;
	fabric_bench_result r;
	char err[256];
	if (fabric_bench_run(&c, &r, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 1;
	}
	print_result(a, &c, &r);
	return 0;
}

int bench_fabric(int argc, char **argv)
{
	fabric_args a = { .mtu = 4096, .outstanding = 16, .seed = 1, .repeat = 3, .gbps = 100 };
	GOptionEntry entries[] = {
		{ "mtu", 'm', 0, G_OPTION_ARG_INT64, &a.mtu, "IB path MTU: 256, 512, 1024, 2048 or 4096 (4096)", "MTU" },
		{ "msg", 0, 0, G_OPTION_ARG_STRING, &a.msg, "bytes per RDMA WRITE (64K)", "SIZE" },
		{ "total", 't', 0, G_OPTION_ARG_STRING, &a.total, "written per run, whole MiB (4G; a bare number is MiB)",
		  "SIZE" },
		{ "outstanding", 'o', 0, G_OPTION_ARG_INT64, &a.outstanding, "writes in flight (16)", "N" },
		{ "roce", 0, 0, G_OPTION_ARG_STRING, &a.version, "v1 or v2 (v2)", "VER" },
		{ "gbps", 0, 0, G_OPTION_ARG_INT64, &a.gbps, "simulated link speed in Gb/s (100)", "N" },
		{ "seed", 's', 0, G_OPTION_ARG_INT64, &a.seed, "random seed (1)", "N" },
		{ "repeat", 'r', 0, G_OPTION_ARG_INT64, &a.repeat, "runs; the best is reported (3)", "N" },
		{ NULL },
	};
	cli_options opts = { .params = "- simulated RoCE fabric throughput", .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	int rc = run(argv[0], &a, argc, argv);
	g_free(a.version);
	g_free(a.msg);
	g_free(a.total);
	return rc;
}
