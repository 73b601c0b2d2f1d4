/* `smcr-sim bench protocol`: options and figures of the end-to-end SMC-R benchmark
 * (sim/bench/protocol_bench.h): wall time, engine events per wall second, payload bytes
 * per wall second and the fingerprint (the same on every repetition). Beside them, in the
 * same run, the references the figures are judged by (docs/benchmarks.md): in bulk mode
 * memcpy of the same payload at the data path's block sizes (sim/bench/memcpy_ref.h), in
 * rr mode the same transactions over plain TCP. */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/engine/bench_measure.h"
#include "sim/bench/memcpy_ref.h"
#include "sim/bench/protocol_bench.h"
#include "sim/engine/engine.h"
#include "sim/host/host_profile.h"
#include "tools/bench.h"
#include "tools/cli.h"

/* The options as a config; 0, or 2 after printing what is wrong. */
static int config_of(const char *prog, const char *mode_s, gint conns, gint reps, gint mtu, gint64 count,
                     const char *bytes_s, const char *size_s, const char *rmb_s, const char *host_s,
                     protocol_bench_config *c)
{
	if (host_s && !host_profile_find(host_s)) {
		fprintf(stderr, "%s: --host: '%s' is not a host profile (none, linux or zos)\n", prog, host_s);
		return 2;
	}
	uint64_t bytes = 16ull << 20, rmb = 256ull << 10, size = 64;
	if (mode_s && strcmp(mode_s, "bulk") && strcmp(mode_s, "rr")) {
		fprintf(stderr, "%s: --mode: '%s' is not bulk or rr\n", prog, mode_s);
		return 2;
	}
	if ((bytes_s && cli_parse_size(bytes_s, 1, &bytes)) || (rmb_s && cli_parse_size(rmb_s, 1, &rmb)) ||
	    (size_s && cli_parse_size(size_s, 1, &size)) || !bytes || rmb < 16384 || conns < 1 || conns > 255 ||
	    reps < 1 || (mtu != 1024 && mtu != 2048 && mtu != 4096) || count < 1 || size < 1 || size > 1u << 24) {
		fprintf(stderr, "%s: bad option value (sizes like 16M, RMB at least 16K; 1..255 connections; MTU 1024, "
		                "2048 or 4096; count > 0; 0 < size <= 16M)\n",
		        prog);
		return 2;
	}
	*c = (protocol_bench_config){ .mode = mode_s && !strcmp(mode_s, "rr") ? PROTOCOL_BENCH_RR : PROTOCOL_BENCH_BULK,
		                      .smc = true,
		                      .conns = (unsigned)conns,
		                      .bytes = bytes,
		                      .count = (uint64_t)count,
		                      .size = size,
		                      .mtu = (unsigned)mtu,
		                      .rmb = rmb,
		                      .reps = (unsigned)reps,
		                      .host = host_s ? host_profile_find(host_s)->name : "linux",
		                      .log = stderr };
	return 0;
}

static double events_each(const protocol_bench_result *r)
{
	return r->transactions ? (double)r->events / (double)r->transactions : 0.0;
}

static void print_result(const protocol_bench_config *c, const protocol_bench_result *r)
{
	if (c->mode == PROTOCOL_BENCH_BULK)
		printf("bench protocol: 2 stacks, 1 link group, %u connections x %" PRIu64 " bytes, RoCE MTU %u, RMB %" PRIu64
		       "\n",
		       c->conns, c->bytes, c->mtu, c->rmb);
	else
		printf("bench protocol: rr, 2 stacks, 1 link group, %u connections x %" PRIu64 " transactions of %" PRIu64
		       " B, RoCE MTU %u, RMB %" PRIu64 "\n",
		       c->conns, c->count, c->size, c->mtu, c->rmb);
	printf("  hosts              %s (--host)\n", c->host ? c->host : "linux");
	printf("  wall time          %.3f s (best of %u)\n", r->wall, c->reps);
	printf("  virtual run        %" PRIu64 ".%06" PRIu64 " s\n", (uint64_t)(r->virtual_ns / SIM_S),
	       (uint64_t)(r->virtual_ns % SIM_S / 1000));
	printf("  engine events      %" PRIu64 "  (%.2f M/s wall)\n", r->events, (double)r->events / r->wall / 1e6);
	printf("  core entries       %" PRIu64 "  (%.2f M/s wall)\n", r->core_entries,
	       (double)r->core_entries / r->wall / 1e6);
	printf("  payload            %" PRIu64 " bytes  (%.2f GB/s wall)\n", r->payload, (double)r->payload / r->wall / 1e9);
	if (c->mode == PROTOCOL_BENCH_RR)
		printf("  transactions       %" PRIu64 "  (%.1f k/s wall, %.1f events each)\n", r->transactions,
		       (double)r->transactions / r->wall / 1e3, events_each(r));
	printf("  peak RSS           %.1f MiB\n", (double)bench_peak_rss() / (1024.0 * 1024.0));
	printf("  expectations       %s\n", r->failed ? "FAILED" : "met (one link group, one link, all bytes intact)");
	printf("  fingerprint        %016" PRIx64 "\n", r->fingerprint);
}

/* Bulk: memcpy of the same payload at 4 KiB, 64 KiB and the RMB size, and the ratios. */
static int print_memcpy_refs(const protocol_bench_config *c, const protocol_bench_result *r)
{
	uint64_t blocks[3] = { 4096, 65536, c->rmb };
	double rate = (double)r->payload / r->wall;
	bench_result_line("smc-bulk", "smcr-sim", r->wall, r->cpu, rate, "bytes/s",
	                  "bytes=%" PRIu64 " events=%" PRIu64, r->payload, r->events);
	printf("  reference, in this run: memcpy of the same %" PRIu64 " bytes, block to block\n", r->payload);
	for (unsigned i = 0; i < 3; i++) {
		if (i == 2 && (c->rmb == 4096 || c->rmb == 65536))
			break;
		memcpy_ref_result m;
		if (memcpy_ref_run(blocks[i], r->payload, &m)) {
			fprintf(stderr, "bench protocol: the memcpy reference of %" PRIu64 "-byte blocks failed\n", blocks[i]);
			return 1;
		}
		double mrate = (double)m.bytes / m.wall;
		printf("    memcpy %4" PRIu64 " KiB blocks  %6.2f GB/s   bench protocol / memcpy: %.3fx%s\n", m.block >> 10,
		       mrate / 1e9, rate / mrate, i == 2 ? " (the RMB and send buffer size)" : "");
		char who[32];
		snprintf(who, sizeof who, "memcpy:%" PRIu64, m.block);
		bench_result_line("smc-bulk", who, m.wall, m.cpu, mrate, "bytes/s", "block=%" PRIu64 " bytes=%" PRIu64,
		                  m.block, m.bytes);
	}
	return 0;
}

/* Rr: the same transactions over plain TCP (smc=no), and the ratio. */
static int print_tcp_twin(const protocol_bench_config *c, const protocol_bench_result *r)
{
	protocol_bench_config t = *c;
	t.smc = false;
	protocol_bench_result tr;
	char err[256];
	int rc = protocol_bench_run(&t, &tr, err, sizeof(err));
	if (rc) {
		if (err[0])
			fprintf(stderr, "bench protocol: the TCP twin: %s\n", err);
		return rc;
	}
	double rate = (double)r->transactions / r->wall, trate = (double)tr.transactions / tr.wall;
	printf("  reference, in this run: the same transactions over TCP (smc=no)\n");
	printf("    TCP                %.3f s, %" PRIu64 " transactions (%.1f k/s wall, %.1f events each)%s\n", tr.wall,
	       tr.transactions, trate / 1e3, events_each(&tr), tr.failed ? ", expectations FAILED" : "");
	printf("    SMC-R / TCP        %.3fx transactions per wall second\n", rate / trate);
	bench_result_line("smc-rr", "smcr-sim", r->wall, r->cpu, rate, "transactions/s",
	                  "transactions=%" PRIu64 " events=%" PRIu64 " events_per_transaction=%.2f", r->transactions,
	                  r->events, events_each(r));
	bench_result_line("smc-rr", "smcr-sim:tcp", tr.wall, tr.cpu, trate, "transactions/s",
	                  "transactions=%" PRIu64 " events=%" PRIu64 " events_per_transaction=%.2f", tr.transactions,
	                  tr.events, events_each(&tr));
	return tr.failed ? 1 : 0;
}

int bench_protocol(int argc, char **argv)
{
	gint conns = 64, reps = 1, mtu = 4096;
	gint64 count = 10000;
	gchar *mode_s = NULL, *bytes_s = NULL, *rmb_s = NULL, *size_s = NULL, *host_s = NULL;
	GOptionEntry entries[] = {
		{ "mode", 0, 0, G_OPTION_ARG_STRING, &mode_s,
		  "bulk (streams, beside memcpy) or rr (request/response, beside TCP) (bulk)", "MODE" },
		{ "conns", 0, 0, G_OPTION_ARG_INT, &conns, "connections in the link group (default 64)", "N" },
		{ "bytes", 0, 0, G_OPTION_ARG_STRING, &bytes_s, "bulk: bytes per connection (default 16M)", "SIZE" },
		{ "count", 'n', 0, G_OPTION_ARG_INT64, &count, "rr: transactions per connection (default 10000)", "N" },
		{ "size", 'z', 0, G_OPTION_ARG_STRING, &size_s, "rr: request and response size (default 64)", "SIZE" },
		{ "mtu", 0, 0, G_OPTION_ARG_INT, &mtu, "RoCE MTU 1024, 2048 or 4096 (default 4096)", "MTU" },
		{ "buffer", 'b', 0, G_OPTION_ARG_STRING, &rmb_s, "RMB and send buffer size (default 256K)", "SIZE" },
		{ "rmb", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &rmb_s, "the old name of --buffer", "SIZE" },
		{ "host", 0, 0, G_OPTION_ARG_STRING, &host_s,
		  "the stacks' host profile: linux (default), zos, or none (no host costs: the protocol path alone)", "PROFILE" },
		{ "repeat", 'r', 0, G_OPTION_ARG_INT, &reps, "runs; the best is reported (1)", "N" },
		{ "reps", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &reps, "the old name of --repeat", "N" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	cli_options opts = { .params = "- SMC-R streams or transactions between two stacks over the simulated fabric",
		             .entries = entries };
	int rc = cli_parse_options(&opts, &argc, &argv) ? 2 : 0;
	protocol_bench_config c;
	if (!rc)
		rc = config_of(argv[0], mode_s, conns, reps, mtu, count, bytes_s, size_s, rmb_s, host_s, &c);
	g_free(mode_s);
	g_free(bytes_s);
	g_free(rmb_s);
	g_free(size_s);
	if (rc) {
		g_free(host_s);
		return rc;
	}
	protocol_bench_result r;
	char err[256];
	rc = protocol_bench_run(&c, &r, err, sizeof(err));
	if (rc) {
		if (err[0])
			fprintf(stderr, "%s: %s\n", argv[0], err);
		return rc;
	}
	print_result(&c, &r);
	rc = c.mode == PROTOCOL_BENCH_BULK ? print_memcpy_refs(&c, &r) : print_tcp_twin(&c, &r);
	g_free(host_s);
	return r.failed ? 1 : rc;
}
