/* `smcr-sim bench scale`: options and figures of the growth series (sim/bench/
 * scale_bench.h): per stack count wall, events, events per wall second, peak RSS and
 * RSS per stack, the fitted growth exponent; for the connection world the time to
 * establish them, memory per connection and the idle period's wall time. The targets
 * are printed beside the figures, never asserted: the figures are the machine's. */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/bench/scale_bench.h"
#include "sim/host/host_profile.h"
#include "tools/bench.h"
#include "tools/cli.h"

#define MAX_SIZES 16
#define GIB (1024.0 * 1024.0 * 1024.0)
#define MIB (1024.0 * 1024.0)

static const char *status_word(int met) { return met ? "met" : "missed"; }

/* "1000,2000": the stack counts; "none": none. 0, or 2 after saying what is wrong. */
static int parse_sizes(const char *prog, const char *text, uint64_t *sizes, size_t *n)
{
	*n = 0;
	if (!strcmp(text, "none"))
		return 0;
	gchar **parts = g_strsplit(text, ",", -1);
	int rc = 0;
	for (gchar **p = parts; *p; p++) {
		unsigned long long v;
		if (*n == MAX_SIZES || cli_parse_u64(*p, &v) || v < 2 || v % 2 || v > 64516) {
			fprintf(stderr, "%s: bad --stacks '%s'; expected up to %d even stack counts 2..64516 separated by commas, or none\n",
			        prog, text, MAX_SIZES);
			rc = 2;
			break;
		}
		sizes[(*n)++] = v;
	}
	g_strfreev(parts);
	return rc;
}

static int run_stacks(const uint64_t *sizes, size_t n, const char *host)
{
	double x[MAX_SIZES], y[MAX_SIZES], ev[MAX_SIZES], cpu[MAX_SIZES];
	size_t fitted = 0;
	int bad = 0;
	printf("bench scale: leaf-spine stacks (host profile %s), half of them clients starting at once (ARP storm included), each moving 64 KiB over SMC-R\n", host);
	printf("  %8s %6s %9s %9s %12s %10s %10s %10s %10s  %s\n", "stacks", "leaves", "wall s", "cpu s", "events",
	       "M ev/s", "ns/event", "peak MiB", "KiB/stack", "expectations");
	scale_stacks_result first = { 0 }, last = { 0 };
	for (size_t i = 0; i < n; i++) {
		scale_stacks_result r;
		scale_bench_stacks(sizes[i], host, &r);
		if (r.status != SCALE_OK) {
			printf("  %8" PRIu64 "  %s (peak RSS %.0f MiB)\n", sizes[i], r.err, (double)r.peak_rss / MIB);
			bad = 1;
			continue;
		}
		printf("  %8" PRIu64 " %6" PRIu64 " %9.2f %9.2f %12" PRIu64 " %10.2f %10.0f %10.0f %10.1f  %" PRIu64 " of %" PRIu64
		       " met, fingerprint %016" PRIx64 "\n",
		       r.stacks, r.leaves, r.wall, r.cpu, r.events, (double)r.events / r.wall / 1e6, r.wall * 1e9 / (double)r.events,
		       (double)r.peak_rss / MIB, (double)r.peak_rss / 1024.0 / (double)r.stacks, r.expectations - r.failed,
		       r.expectations, r.fingerprint);
		fflush(stdout);
		if (r.failed)
			bad = 1;
		if (!fitted)
			first = r;
		last = r;
		x[fitted] = (double)r.stacks;
		ev[fitted] = (double)r.events;
		cpu[fitted] = r.cpu;
		y[fitted++] = r.wall;
	}
	if (fitted >= 2) {
		double wall_exp = scale_fit_exponent(x, y, fitted);
		double cpu_exp = scale_fit_exponent(x, cpu, fitted);
		for (size_t i = 0; i < fitted; i++)
			y[i] = ev[i];
		double ev_exp = scale_fit_exponent(x, y, fitted);
		double per_ratio = (last.wall / (double)last.events) / (first.wall / (double)first.events);
		double cpu_ratio = (last.cpu / (double)last.events) / (first.cpu / (double)first.events);
		printf("  growth: wall ~ stacks^%.2f (cpu ~ stacks^%.2f), events ~ stacks^%.2f (the ARP storm: every client's"
		       " request reaches every port); per event at %" PRIu64 " stacks %.2fx the wall (%.2fx the cpu) at %" PRIu64 "\n",
		       wall_exp, cpu_exp, ev_exp, last.stacks, per_ratio, cpu_ratio, first.stacks);
		printf("  target: wall per event at the largest size within 2x of the smallest: %s\n",
		       status_word(per_ratio <= 2.0));
	}
	if (last.stacks == 10000)
		printf("  target: 10,000 stacks in <= 60 s and <= 8 GiB: %s (%.1f s, %.2f GiB)\n",
		       status_word(last.wall <= 60.0 && (double)last.peak_rss <= 8.0 * GIB && !last.failed), last.wall,
		       (double)last.peak_rss / GIB);
	return bad;
}

static int run_conns(uint64_t conns, uint64_t idle_ns)
{
	scale_conns_result r;
	scale_bench_conns(conns, idle_ns, &r);
	printf("bench scale: %" PRIu64 " concurrent SMC-R connections: %" PRIu64 " client stacks x %" PRIu64
	       " servers each x %" PRIu64 " connections, %" PRIu64 " server stacks, 16 KiB buffers\n",
	       conns, r.clients, r.fanout, r.per_pair, r.servers);
	if (r.status != SCALE_OK) {
		printf("  %s (peak RSS %.0f MiB)\n", r.err, (double)r.peak_rss / MIB);
		return 1;
	}
	printf("  build the world     %.2f s wall (the whole child: %.2f s cpu)\n", r.build_wall, r.cpu);
	printf("  establish           %.2f s wall, %.2f s virtual, %" PRIu64 " events: %" PRIu64 " of %" PRIu64
	       " on SMC-R\n",
	       r.establish_wall, (double)r.establish_ns / 1e9, r.events_establish, r.established, conns);
	printf("  idle %.0f s virtual  %.2f s wall, %" PRIu64 " events (keepalive, TEST_LINK, link-group timers)\n",
	       (double)r.idle_ns / 1e9, r.idle_wall, r.events_idle);
	printf("  peak RSS            %.2f GiB, %.0f bytes per connection (the whole process)\n",
	       (double)r.peak_rss / GIB, (double)r.peak_rss / (double)conns);
	const scale_mem *t = &r.mem_tcp, *m = &r.mem_smcr;
	printf("  per idle connection %" PRIu64 " bytes grown (heap and resident buffer pages, both ends), by owner:\n",
	       r.heap_per_conn);
	printf("    TCP state         %6.0f  (pcbs %.0f, rings %.0f, sockets %.0f)\n", t->total, t->pcbs, t->rings,
	       t->socks);
	printf("    SMC-R             %6.0f  (core %.0f, layer %.0f, MRs %.0f, QPs %.0f, arena descriptors %.0f,"
	       " resident buffer pages %.0f)\n",
	       m->total, m->core, m->layer, m->mrs, m->qps, m->arena_desc, m->arena_pages);
	if (r.heap_per_conn)
		printf("    other             %6" PRId64 "  (the applications, TCP's lookup tables, the event queue,"
		       " allocator slack)\n",
		       r.mem_other);
	else /* a sanitizer's allocator: mallinfo2 sees none of its blocks */
		printf("    other                  ?  (the allocator reports no heap in use: a sanitizer build?)\n");
	printf("  expectations        %s, fingerprint %016" PRIx64 "\n", r.failed ? "FAILED" : "all met", r.fingerprint);
	double total = r.build_wall + r.establish_wall + r.idle_wall;
	printf("  target: within 16 GiB and 10 min wall: %s (%.2f GiB, %.0f s)\n",
	       status_word((double)r.peak_rss <= 16.0 * GIB && total <= 600.0), (double)r.peak_rss / GIB, total);
	double beyond = (double)r.heap_per_conn - t->total;
	if (r.heap_per_conn)
		printf("  target: <= 4 KiB per idle connection beyond TCP state: %s (SMC-R %.0f bytes; everything but"
		       " TCP %.0f)\n",
		       status_word(m->total <= 4096.0), m->total, beyond);
	else
		printf("  target: <= 4 KiB per idle connection beyond TCP state: %s (SMC-R %.0f bytes)\n",
		       status_word(m->total <= 4096.0), m->total);
	return r.failed || r.established < conns;
}

int bench_scale(int argc, char **argv)
{
	gchar *stacks_s = NULL, *idle_s = NULL, *host_s = NULL;
	gint64 conns = 1000000;
	GOptionEntry entries[] = {
		{ "stacks", 0, 0, G_OPTION_ARG_STRING, &stacks_s, "stack counts of the growth series (1000,2000,5000,10000; none)", "LIST" },
		{ "conns", 0, 0, G_OPTION_ARG_INT64, &conns, "concurrent connections of the second world (1000000; 0: none)", "N" },
		{ "idle", 0, 0, G_OPTION_ARG_STRING, &idle_s, "virtual idle time once they are established (10m)", "TIME" },
		{ "host", 0, 0, G_OPTION_ARG_STRING, &host_s, "the growth series' host profile: linux (default), zos, or none (no host costs)", "PROFILE" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	cli_options opts = { .params = "- how wall time and memory grow with stacks and connections", .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	uint64_t sizes[MAX_SIZES];
	size_t n = 0;
	int rc = parse_sizes(argv[0], stacks_s ? stacks_s : "1000,2000,5000,10000", sizes, &n);
	unsigned long long idle = 600ull * 1000000000ull;
	char err[160];
	if (!rc && idle_s && cli_parse_duration(idle_s, &idle, err, sizeof err)) {
		fprintf(stderr, "%s: --idle: %s\n", argv[0], err);
		rc = 2;
	}
	uint64_t cl, sv, fo, pp;
	if (!rc && conns && (conns < 0 || !scale_conns_shape((uint64_t)conns, &cl, &sv, &fo, &pp))) {
		fprintf(stderr, "%s: bad --conns %" PRId64 "; expected 1..1000, or a multiple of 1000 up to 9990000 (whole clients of 10 servers x 1000 beyond 10000), or 0\n",
		        argv[0], conns);
		rc = 2;
	}
	char host[8] = "linux";
	if (!rc && host_s) {
		if (!host_profile_find(host_s)) {
			fprintf(stderr, "%s: bad --host '%s'; expected linux, zos or none\n", argv[0], host_s);
			rc = 2;
		} else {
			snprintf(host, sizeof host, "%s", host_s);
		}
	}
	g_free(stacks_s);
	g_free(idle_s);
	g_free(host_s);
	if (rc)
		return rc;
	if (argc > 1) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[1]);
		return 2;
	}
	int bad = n ? run_stacks(sizes, n, host) : 0;
	if (conns)
		bad |= run_conns((uint64_t)conns, idle);
	return bad ? 1 : 0;
}
