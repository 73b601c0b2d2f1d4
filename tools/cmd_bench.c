/* `smcr-sim bench NAME [OPTION…]`: run one benchmark and print its figures. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "tools/bench.h"
#include "tools/cli.h"

static const cli_command benches[] = {
	{ "scheduler", "event engine, ns-3 bench-scheduler shape (100k pending, 1M events)", bench_scheduler },
	{ "fabric", "RoCE RDMA WRITEs between two adapters over one switch (frames built and ICRC-checked)", bench_fabric },
	{ "tcp", "TCP between two stacks on one wire: bulk (100 MiB) or request/response (--mode rr), as ns-3 runs them", bench_tcp },
	{ "incast", "N stacks into one over SMC-R through one switch: lossy, PFC, ECN+DCQCN", bench_incast },
	{ "stacks", "many TCP/IP stack pairs: request/response over TCP, checked", bench_stacks },
	{ "protocol", "SMC-R end to end: 64 connections streaming in one link group over the fabric", bench_protocol },
	{ "verbs", "RDMA WRITE throughput of the verbs transport on a real device, beside ib_write_bw", bench_verbs },
	{ "realhw", "one SMC-R connection's payload throughput on real devices (--real-hw), beside ib_write_bw", bench_realhw },
	{ "replay", "replay decode rate (frames/s) next to tshark -r on the same trace", bench_replay },
	{ "scale", "growth series: 1k..10k stacks at once and 1M concurrent SMC-R connections, wall and peak RSS", bench_scale },
	{ "core", "two SMC-R cores alone over an in-memory RC loopback: 64 connections streaming", bench_core },
};

static void list(FILE *out)
{
	fprintf(out, "Usage: smcr-sim bench NAME [OPTION…]\n\nBenchmarks:\n");
	for (size_t i = 0; i < G_N_ELEMENTS(benches); i++)
		fprintf(out, "  %-10s %s\n", benches[i].name, benches[i].summary);
	fprintf(out, "\nRun 'smcr-sim bench NAME --help' for its options.\n");
}

int cmd_bench(int argc, char **argv)
{
	if (argc < 2) {
		list(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		list(stdout);
		return 0;
	}
	int rc = cli_run_command(benches, G_N_ELEMENTS(benches), "smcr-sim bench", argc, argv);
	if (rc >= 0)
		return rc;
	fprintf(stderr, "smcr-sim bench: unknown benchmark '%s'\n", argv[1]);
	list(stderr);
	return 2;
}
