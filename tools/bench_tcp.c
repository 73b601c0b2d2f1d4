/* `smcr-sim bench tcp`: options and figures of the two-stacks-on-one-wire benchmark
 * (sim/bench/tcp_bench.h), the shapes ns-3's BulkSend/PacketSink and a request/response
 * over PointToPoint run in bench/peers/ (docs/benchmarks.md). */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/engine/bench_measure.h"
#include "sim/bench/tcp_bench.h"
#include "sim/scenario/scn_values.h"
#include "tools/bench.h"
#include "tools/cli.h"

static void print_result(const tcp_bench_config *c, const tcp_bench_result *r)
{
	bool bulk = c->mode == TCP_BENCH_BULK;
	if (bulk)
		printf("bench tcp: bulk, 1 connection x %" PRIu64 " bytes", c->bytes);
	else
		printf("bench tcp: rr, %" PRIu64 " connections x %" PRIu64 " transactions of %" PRIu32 " B", c->conns,
		       c->count, c->size);
	printf(" over one %.4g Gb/s wire, latency %" PRIu64 " ns, MTU %u, seed %" PRId64 "\n", (double)c->rate_bps / 1e9,
	       c->latency_ns, c->mtu, (int64_t)c->seed);
	printf("  wall time (best of %" PRIu64 "):  %.3f s (CPU %.3f s)\n", c->repeat, r->wall, r->cpu);
	printf("  virtual run:          %" PRIu64 ".%06" PRIu64 " s\n", r->virtual_ns / 1000000000u,
	       r->virtual_ns % 1000000000u / 1000u);
	printf("  engine events:        %" PRIu64 " (%.2f M/s wall)\n", r->events, (double)r->events / r->wall / 1e6);
	printf("  frames on the wire:   %" PRIu64 " (%.2f M/s wall)\n", r->frames, (double)r->frames / r->wall / 1e6);
	if (bulk) {
		printf("  payload verified:     %" PRIu64 " bytes (%.2f GB/s wall)\n", r->bytes,
		       (double)r->bytes / r->wall / 1e9);
		printf("  transfer (virtual):   %.6f s (%.2f Gb/s virtual)\n", (double)r->transfer_ns / 1e9,
		       r->transfer_ns ? (double)r->bytes * 8.0 / (double)r->transfer_ns : 0.0);
	} else {
		printf("  transactions:         %" PRIu64 " (%.1f k/s wall, %.1f events each)\n", r->transactions,
		       (double)r->transactions / r->wall / 1e3,
		       r->transactions ? (double)r->events / (double)r->transactions : 0.0);
		printf("  connections verified: %" PRIu64 " of %" PRIu64 "\n", r->conns_ok, c->conns);
	}
	printf("  peak RSS (process):   %.1f MiB\n", (double)bench_peak_rss() / (1024.0 * 1024.0));
	printf("  fingerprint:          %016" PRIx64 "\n", r->fingerprint);
	if (bulk)
		bench_result_line("tcp-bulk", "smcr-sim", r->wall, r->cpu, (double)r->bytes / r->wall, "bytes/s",
		                  "bytes=%" PRIu64 " events=%" PRIu64, r->bytes, r->events);
	else
		bench_result_line("tcp-rr", "smcr-sim", r->wall, r->cpu, (double)r->transactions / r->wall, "transactions/s",
		                  "transactions=%" PRIu64 " events=%" PRIu64 " events_per_transaction=%.2f", r->transactions,
		                  r->events, r->transactions ? (double)r->events / (double)r->transactions : 0.0);
}

/* The option values as a config; 0, or 2 after saying what is wrong. */
static int config_of(const char *prog, const char *mode_s, const char *bytes_s, const char *size_s,
                     const char *rate_s, const char *lat_s, gint64 conns, gint64 count, gint mtu, gint64 seed,
                     gint64 repeat, tcp_bench_config *c)
{
	*c = (tcp_bench_config){ .mode = TCP_BENCH_BULK, .bytes = 100ull << 20, .conns = (uint64_t)conns, .count = (uint64_t)count, .size = 64, .rate_bps = 100000000000ull, .latency_ns = 500, .mtu = (uint16_t)mtu, .seed = (uint64_t)seed, .repeat = (uint64_t)repeat };
	const char *why = "";
	uint64_t size = 64;
	unsigned long long lat = 500;
	char derr[160] = "";
	if (mode_s && strcmp(mode_s, "bulk") && strcmp(mode_s, "rr")) {
		fprintf(stderr, "%s: --mode: '%s' is not bulk or rr\n", prog, mode_s);
		return 2;
	}
	if (mode_s && !strcmp(mode_s, "rr"))
		c->mode = TCP_BENCH_RR;
	if ((bytes_s && cli_parse_size(bytes_s, 1, &c->bytes)) || (size_s && cli_parse_size(size_s, 1, &size)) ||
	    (rate_s && !scn_parse_rate(rate_s, &c->rate_bps, &why)) ||
	    (lat_s && cli_parse_duration(lat_s, &lat, derr, sizeof derr))) {
		fprintf(stderr, "%s: bad value %s%s (sizes like 100M or 64, rates like 100Gbps, durations like 500ns)\n",
		        prog, derr[0] ? ": " : "", derr);
		return 2;
	}
	c->size = (uint32_t)size;
	c->latency_ns = lat;
	if (!c->bytes || conns < 1 || conns > 20000 || count < 1 || size == 0 || size > 1u << 24 || !c->rate_bps ||
	    mtu < 576 || mtu > 9000 || repeat < 1) {
		fprintf(stderr, "%s: need bytes > 0, 1..20000 connections, count > 0, 0 < size <= 16M, a rate > 0, "
		                "MTU 576..9000, repeat > 0\n",
		        prog);
		return 2;
	}
	return 0;
}

int bench_tcp(int argc, char **argv)
{
	gint64 conns = 64, count = 10000, seed = 1, repeat = 1;
	gint mtu = 1500;
	gchar *mode_s = NULL, *bytes_s = NULL, *size_s = NULL, *rate_s = NULL, *lat_s = NULL;
	GOptionEntry entries[] = {
		{ "mode", 0, 0, G_OPTION_ARG_STRING, &mode_s, "bulk (one connection) or rr (request/response) (bulk)", "MODE" },
		{ "bytes", 0, 0, G_OPTION_ARG_STRING, &bytes_s, "bulk: bytes over the connection (100M)", "SIZE" },
		{ "conns", 0, 0, G_OPTION_ARG_INT64, &conns, "rr: connections (64)", "N" },
		{ "count", 'n', 0, G_OPTION_ARG_INT64, &count, "rr: transactions per connection (10000)", "N" },
		{ "size", 'z', 0, G_OPTION_ARG_STRING, &size_s, "rr: request and response size (64)", "SIZE" },
		{ "rate", 0, 0, G_OPTION_ARG_STRING, &rate_s, "the wire's rate (100Gbps)", "RATE" },
		{ "latency", 0, 0, G_OPTION_ARG_STRING, &lat_s, "the wire's latency (500ns; a bare number is ns)", "TIME" },
		{ "mtu", 0, 0, G_OPTION_ARG_INT, &mtu, "IP MTU of both interfaces (1500)", "BYTES" },
		{ "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "random seed (1)", "N" },
		{ "repeat", 'r', 0, G_OPTION_ARG_INT64, &repeat, "runs; the best is reported (1)", "N" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	cli_options opts = { .params = "- TCP between two stacks on one simulated wire (bulk or request/response)",
		             .entries = entries };
	int rc = cli_parse_options(&opts, &argc, &argv);
	tcp_bench_config c;
	if (!rc && argc > 1) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[1]);
		rc = 2;
	}
	if (!rc)
		rc = config_of(argv[0], mode_s, bytes_s, size_s, rate_s, lat_s, conns, count, mtu, seed, repeat, &c);
	g_free(mode_s);
	g_free(bytes_s);
	g_free(size_s);
	g_free(rate_s);
	g_free(lat_s);
	if (rc)
		return rc;
	tcp_bench_result r;
	char err[256];
	if (tcp_bench_run(&c, &r, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 1;
	}
	print_result(&c, &r);
	return r.ok ? 0 : 1;
}
