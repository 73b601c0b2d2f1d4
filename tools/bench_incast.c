/* `smcr-sim bench incast`: options and figures of the incast benchmark
 * (sim/bench/incast_bench.h). */
#include <glib.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/bench/fabric_bench.h"
#include "sim/bench/incast_bench.h"
#include "sim/bench/incast_convergence.h"
#include "sim/observe/rate_chart.h"
#include "tools/bench.h"
#include "tools/cli.h"

static void print_result(const incast_bench_config *c, const incast_bench_result *r)
{
	printf("bench incast: %" PRIu32 " senders -> 1 over SMC-Rv2, %" PRIu64 " bytes each, 25 Gb/s, fabric %s, seed %" PRIu64
	       "\n",
	       c->senders, c->bytes, incast_mode_name(c->mode), c->seed);
	printf("  goodput:              %.2f Gb/s over %.3f ms of virtual time\n", r->goodput_gbps, (double)r->virtual_ns / 1e6);
	printf("  per flow:             %.2f .. %.2f Gb/s, Jain's fairness %.3f\n", r->min_gbps, r->max_gbps, r->jain);
	printf("  bottleneck queue:     p50 %" PRIu64 " B, p99 %" PRIu64 " B, max %" PRIu64 " B\n", r->depth_p50, r->depth_p99,
	       r->depth_max);
	printf("  pauses sent:          %" PRIu64 " (switch egress paused %" PRIu64 " times), adapter frames held %" PRIu64 "\n",
	       r->pauses, r->pause_rx, r->tx_held);
	printf("  drops:                %" PRIu64 " tail, %" PRIu64 " headroom\n", r->drops, r->headroom_drops);
	printf("  ECN marks:            %" PRIu64 ", CNPs sent %" PRIu64 "\n", r->ecn_marks, r->cnp_tx);
	printf("  simulated frames/s:   %.2f M (%" PRIu64 " switch frames in %.3f s wall, fastest run, %" PRIu64 " events)\n",
	       r->wall > 0 ? (double)r->frames / r->wall / 1e6 : 0.0, r->frames, r->wall, r->events);
	printf("  expectations failed:  %" PRIu64 ", fingerprint %016" PRIx64 "\n", r->failed, r->fingerprint);
}

/* "40Gbps", "40G", "25.5Gbps", "800Mbps" or bits per second: 0 when not a rate of at
 * least `lo` and at most 1 Tb/s. */
static uint64_t parse_rate_in(const char *t, double lo)
{
	char *end;
	double v = g_ascii_strtod(t, &end);
	double unit = 1;
	if (!g_ascii_strcasecmp(end, "gbps") || !g_ascii_strcasecmp(end, "g"))
		unit = 1e9;
	else if (!g_ascii_strcasecmp(end, "mbps") || !g_ascii_strcasecmp(end, "m"))
		unit = 1e6;
	else if (*end && g_ascii_strcasecmp(end, "bps"))
		return 0;
	v *= unit;
	return end != t && v >= lo && v <= 1e12 ? (uint64_t)v : 0;
}

static uint64_t parse_rate(const char *t) { return parse_rate_in(t, 1e9); }

/* A table cell of ms after the join: "15 ms", or "never". */
static void ms_cell(char *buf, size_t len, uint32_t v)
{
	if (v == UINT32_MAX)
		snprintf(buf, len, "never");
	else
		snprintf(buf, len, "%u ms", v);
}

static void print_convergence(const incast_conv_config *c, const incast_conv_result *r)
{
	printf("bench incast --convergence: 2 DCQCN flows through one %.1f Gb/s bottleneck (%s), flow 2 from %u ms, "
	       "%u ms, seed %" PRIu64 "\n",
	       (double)c->rate_bps / 1e9, c->relay ? "RED relay at enqueue" : "switch, RED at egress", r->join_ms, c->ms,
	       c->seed);
	const dcqcn_params *d = &c->dp;
	printf("  DCQCN: g %" PRIu64 "/%" PRIu64 ", alpha timer %.0f us, rate timer %.0f us, byte counter %" PRIu64
	       " B, F %u, R_AI %.0f Mb/s, R_HAI %.0f Mb/s, CNP interval %.0f us; RED Kmin %" PRIu64 " B, Kmax %" PRIu64
	       " B, Pmax 1 %%\n",
	       d->g.num, d->g.den, (double)d->alpha_timer / 1e3, (double)d->rate_timer / 1e3, d->byte_counter, d->recovery,
	       (double)d->rai_bps / 1e6, (double)d->rhai_bps / 1e6, (double)d->cnp_interval / 1e3, r->kmin, r->kmax);
	printf("  each flow's share of the bottleneck link (its data frames as the egress sends them, with preamble, FCS "
	       "and gap)\n");
	printf("  ms    flow 1  flow 2 Gb/s (1 ms)   flow 1  flow 2 (%u ms mean)\n", c->avg);
	for (size_t w = 0; w < c->ms; w++) {
		double a = incast_conv_gbps(r, 0, w, 1), b = incast_conv_gbps(r, 1, w, 1);
		if (w + 1 >= c->avg)
			printf("  %-5zu %6.2f  %6.2f               %6.2f  %6.2f\n", w, a, b, incast_conv_gbps(r, 0, w, c->avg),
			       incast_conv_gbps(r, 1, w, c->avg));
		else
			printf("  %-5zu %6.2f  %6.2f\n", w, a, b);
	}
	const incast_conv_fit *f = &r->fit;
	printf("  fair share:           %.2f Gb/s each (half the link)\n", r->fair_gbps);
	if (f->first_within == UINT32_MAX) {
		printf("  within 10 %%:          never (%u ms means)\n", c->avg);
	} else {
		printf("  within 10 %%:          first %u ms after the join (%u ms means)\n", f->first_within, c->avg);
		if (f->stays_within == UINT32_MAX)
			printf("  stays within 10 %%:    not to the end: %.1f %% of the means from then on, worst %.1f %%\n",
			       100.0 * f->within_share, 100.0 * f->worst_dev);
		else
			printf("  stays within 10 %%:    from %u ms after the join (%.1f %% of the means from the first, worst %.1f %%)\n",
			       f->stays_within, 100.0 * f->within_share, 100.0 * f->worst_dev);
	}
	printf("  by averaging interval (both flows within 10 %% of fair; ms after the join):\n");
	printf("    mean over  first within  stays within from  means within  worst\n");
	for (unsigned i = 0; i < r->n_fits; i++) {
		const incast_conv_fit *x = &r->fits[i];
		char first[16], stays[16];
		ms_cell(first, sizeof first, x->first_within);
		ms_cell(stays, sizeof stays, x->stays_within);
		printf("    %4u ms    %-12s  %-17s  %6.1f %%      %5.1f %%\n", x->avg, first, stays, 100.0 * x->within_share,
		       100.0 * x->worst_dev);
	}
	printf("  last quarter:         %.2f and %.2f Gb/s (spread %.1f %% of fair); goodput %.2f and %.2f Gb/s\n",
	       r->tail_gbps[0], r->tail_gbps[1], 100.0 * fabs(r->tail_gbps[0] - r->tail_gbps[1]) / r->fair_gbps,
	       r->tail_goodput[0], r->tail_goodput[1]);
	printf("  marks %" PRIu64 ", CNPs %" PRIu64 ", drops %" PRIu64 ", deepest queue %" PRIu64 " B\n",
	       r->run.marked + r->run.switch_marks, r->run.cnp_tx, r->run.switch_drops, r->run.max_queue);
}

/* --svg: the two flows' link shares over time, 1 ms windows (thin) and their `avg` ms
 * means (thick), each point at the end of its window, the fair share with a band of
 * ±10 %, the join marked (docs/pictures/dcqcn-convergence.svg is one). 0, or 1 when the
 * file cannot be written. */
static int write_convergence_svg(const char *path, const incast_conv_config *c, const incast_conv_result *r,
                                 const char *prog)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "%s: --svg %s: cannot write: %s\n", prog, path, g_strerror(errno));
		return 1;
	}
	double *y = g_new(double, 4 * (size_t)c->ms);
	for (size_t w = 0; w < c->ms; w++)
		for (unsigned fl = 0; fl < 2; fl++) {
			y[fl * c->ms + w] = incast_conv_gbps(r, fl, w, 1);
			y[(2 + fl) * c->ms + w] = w + 1 >= c->avg ? incast_conv_gbps(r, fl, w, c->avg) : NAN;
		}
	char mean1[48], mean2[48], title[160], sub[320];
	snprintf(mean1, sizeof mean1, "flow 1, %u ms means", c->avg);
	snprintf(mean2, sizeof mean2, "flow 2, %u ms means", c->avg);
	rate_chart_series s[4] = {
		{ "flow 1, 1 ms", y, 0, 1 },
		{ "flow 2, 1 ms", y + c->ms, 1, 1 },
		{ mean1, y + 2 * (size_t)c->ms, 0, 0 },
		{ mean2, y + 3 * (size_t)c->ms, 1, 0 },
	};
	const dcqcn_params *d = &c->dp;
	snprintf(title, sizeof title, "DCQCN: two flows through one %.0f Gb/s bottleneck (%s), seed %" PRIu64,
	         (double)c->rate_bps / 1e9, c->relay ? "RED relay" : "switch", c->seed);
	snprintf(sub, sizeof sub,
	         "each flow's share of the bottleneck link; g %" PRIu64 "/%" PRIu64 ", K %.0f us, T %.0f us, B %" PRIu64
	         " B, F %u, R_AI %.0f Mb/s, N %.0f us; RED Kmin %" PRIu64 " B, Kmax %" PRIu64
	         " B, Pmax 1 %%; grey: fair share ±10 %%",
	         d->g.num, d->g.den, (double)d->alpha_timer / 1e3, (double)d->rate_timer / 1e3, d->byte_counter,
	         d->recovery, (double)d->rai_bps / 1e6, (double)d->cnp_interval / 1e3, r->kmin, r->kmax);
	rate_chart ch = { .title = title,
		          .subtitle = sub,
		          .x_unit = "ms of virtual time",
		          .y_unit = "Gb/s",
		          .n = c->ms,
		          .x0 = 1,
		          .dx = 1,
		          .y_max = (double)c->rate_bps / 1e9,
		          .ref = r->fair_gbps,
		          .band = 0.1,
		          .ref_label = "fair share",
		          .mark_x = (double)r->join_ms,
		          .mark_label = "flow 2 joins",
		          .series = s,
		          .n_series = 4 };
	rate_chart_write(f, &ch);
	g_free(y);
	if (fclose(f)) {
		fprintf(stderr, "%s: --svg %s: cannot write: %s\n", prog, path, g_strerror(errno));
		return 1;
	}
	return 0;
}

/* --cnp-interval, --rate-timer, --rai: DCQCN parameters other than the paper's, to compare. */
typedef struct conv_dcqcn_opts {
	const char *cnp_interval, *rate_timer, *rai;
} conv_dcqcn_opts;

static int dcqcn_overrides(const conv_dcqcn_opts *o, dcqcn_params *dp, const char *prog)
{
	char err[128];
	unsigned long long ns;
	if (o->cnp_interval) {
		if (cli_parse_duration(o->cnp_interval, &ns, err, sizeof err) || ns > 10 * SIM_MS) {
			fprintf(stderr, "%s: --cnp-interval: expected a duration 0..10ms, got '%s'\n", prog, o->cnp_interval);
			return 2;
		}
		dp->cnp_interval = (sim_time)ns;
	}
	if (o->rate_timer) {
		if (cli_parse_duration(o->rate_timer, &ns, err, sizeof err) || ns < SIM_US || ns > 100 * SIM_MS) {
			fprintf(stderr, "%s: --rate-timer: expected a duration 1us..100ms, got '%s'\n", prog, o->rate_timer);
			return 2;
		}
		dp->rate_timer = (sim_time)ns;
	}
	if (o->rai) {
		uint64_t r = parse_rate_in(o->rai, 1e3);
		if (!r) {
			fprintf(stderr, "%s: --rai: expected a rate 1Kbps..1000Gbps, got '%s'\n", prog, o->rai);
			return 2;
		}
		dp->rai_bps = r;
	}
	return 0;
}

static int convergence(gint64 senders, const char *fabric, const char *rate, gint64 ms, gint64 avg, gint64 seed,
                       const conv_dcqcn_opts *dopts, const char *svg_path, const char *prog)
{
	incast_conv_config c;
	incast_conv_default(&c);
	if (dcqcn_overrides(dopts, &c.dp, prog))
		return 2;
	c.seed = (uint64_t)seed;
	if (rate)
		c.rate_bps = parse_rate(rate);
	if (ms)
		c.ms = (uint32_t)(ms >= 10 && ms <= 4000 ? ms : 0);
	if (avg)
		c.avg = (uint32_t)(avg >= 1 && avg <= 100 ? avg : 0);
	c.relay = fabric && !strcmp(fabric, "relay");
	if (senders != 2 || (fabric && !c.relay && strcmp(fabric, "switch")) || !c.rate_bps || !c.ms || !c.avg ||
	    c.avg * 2 > c.ms) {
		fprintf(stderr,
		        "%s: --convergence runs 2 senders (--senders 2) through --fabric switch|relay at --rate 1G..1000Gbps, "
		        "--ms 10..4000, --avg 1..100 ms means (at most half the run)\n",
		        prog);
		return 2;
	}
	incast_conv_result *r = g_new0(incast_conv_result, 1);
	char err[256];
	int rc = 0;
	if (incast_conv_run(&c, r, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", prog, err);
		rc = 1;
	} else {
		print_convergence(&c, r);
		rc = r->run.failed ? 1 : 0;
		if (svg_path && write_convergence_svg(svg_path, &c, r, prog))
			rc = 1;
	}
	g_free(r);
	return rc;
}

/* Best of `repeat` runs of one configuration (the fastest wall time; every run must end
 * with the same fingerprint): 0, 1 (a failed run) or 2 (the scenario). */
static int best_run(const incast_bench_config *c, uint32_t repeat, incast_bench_result *best, const char *prog)
{
	for (uint32_t i = 0; i < repeat; i++) {
		incast_bench_result r = { 0 };
		char err[256];
		if (incast_bench_run(c, &r, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", prog, err);
			return 2;
		}
		if (i && r.fingerprint != best->fingerprint) {
			fprintf(stderr, "%s: run %u ended with fingerprint %016" PRIx64 ", run 1 with %016" PRIx64 "\n", prog,
			        i + 1, r.fingerprint, best->fingerprint);
			return 1;
		}
		if (!i || r.wall < best->wall)
			*best = r;
	}
	return 0;
}

/* The speed target: the incast's switch frames per wall second within 2x of bench
 * fabric's with its defaults (4 GiB of 64 KiB WRITEs per run, best of 3; no congestion
 * features). */
static int speed_against_fabric(const double rate[3], const bool ran[3], const char *prog)
{
	fabric_bench_config f = { ROCE_V2, SMCR_MTU_4096, 65536, 4096, 16, 100, 1, 3 };
	fabric_bench_result fr;
	char err[256];
	if (fabric_bench_run(&f, &fr, err, sizeof err)) {
		fprintf(stderr, "%s: bench fabric: %s\n", prog, err);
		return 1;
	}
	printf("speed against bench fabric (%.2f M frames/s, 4 GiB of 64 KiB WRITEs, best of 3):\n",
	       fr.best_packet_rate / 1e6);
	for (int m = INCAST_NONE; m <= INCAST_ECN_DCQCN; m++)
		if (ran[m]) {
			double ratio = fr.best_packet_rate > 0 ? rate[m] / fr.best_packet_rate : 0;
			printf("  %-10s %.2f M frames/s = %.2fx bench fabric%s\n", incast_mode_name((incast_mode)m), rate[m] / 1e6,
			       ratio, m == INCAST_NONE ? "" : ratio >= 0.5 ? " (target: within 2x, met)"
			                                                   : " (target: within 2x, MISSED)");
		}
	return 0;
}

int bench_incast(int argc, char **argv)
{
	gint64 senders = 16, seed = 1, ms = 0, avg = 0, repeat = 3;
	gboolean speed = FALSE;
	gchar *mode = NULL, *bytes = NULL, *rate = NULL, *cnpi = NULL, *ratet = NULL, *rai = NULL, *svgp = NULL;
	gboolean conv = FALSE;
	GOptionEntry entries[] = {
		{ "convergence", 0, 0, G_OPTION_ARG_NONE, &conv,
		  "two DCQCN flows on one bottleneck: rates over time, time to within 10 % of fair (--fabric switch|relay)", NULL },
		{ "rate", 'r', 0, G_OPTION_ARG_STRING, &rate, "with --convergence: the bottleneck's rate (40Gbps)", "RATE" },
		{ "ms", 0, 0, G_OPTION_ARG_INT64, &ms, "with --convergence: run length in ms (200)", "MS" },
		{ "avg", 0, 0, G_OPTION_ARG_INT64, &avg, "with --convergence: ms averaged for the 10 % test (5)", "MS" },
		{ "cnp-interval", 0, 0, G_OPTION_ARG_STRING, &cnpi, "with --convergence: DCQCN's N instead of the paper's 50us",
		  "DUR" },
		{ "rate-timer", 0, 0, G_OPTION_ARG_STRING, &ratet, "with --convergence: DCQCN's T instead of the paper's 55us",
		  "DUR" },
		{ "rai", 0, 0, G_OPTION_ARG_STRING, &rai, "with --convergence: DCQCN's R_AI instead of the paper's 40Mbps",
		  "RATE" },
		{ "svg", 0, 0, G_OPTION_ARG_FILENAME, &svgp,
		  "with --convergence: also draw the two flows' shares over time into FILE (SVG)", "FILE" },
		{ "senders", 'n', 0, G_OPTION_ARG_INT64, &senders, "stacks sending to one (16, 1..64)", "N" },
		{ "fabric", 'f', 0, G_OPTION_ARG_STRING, &mode, "none, pfc, ecn-dcqcn or all (all)", "MODE" },
		{ "bytes", 'b', 0, G_OPTION_ARG_STRING, &bytes, "bytes per sender (1M)", "SIZE" },
		{ "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "random seed (1)", "N" },
		{ "repeat", 0, 0, G_OPTION_ARG_INT64, &repeat, "runs of each fabric; the fastest is reported (3)", "N" },
		{ "speed", 0, 0, G_OPTION_ARG_NONE, &speed,
		  "also run bench fabric and print each fabric's frames per wall second against it (the 2x target)", NULL },
		{ NULL },
	};
	cli_options opts = { .params = "- N-to-1 incast over SMC-R through one switch", .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	int rc = 0;
	if (conv || rate || ms || avg || cnpi || ratet || rai || svgp) {
		conv_dcqcn_opts d = { cnpi, ratet, rai };
		if (!conv || argc > 1 || bytes) {
			fprintf(stderr,
			        "%s: --rate, --ms, --avg, --cnp-interval, --rate-timer, --rai and --svg go with --convergence (which takes "
			        "no --bytes)\n",
			        argv[0]);
			rc = 2;
		} else {
			rc = convergence(senders == 16 ? 2 : senders, mode, rate, ms, avg, seed, &d, svgp, argv[0]);
		}
		g_free(mode);
		g_free(bytes);
		g_free(rate);
		g_free(cnpi);
		g_free(ratet);
		g_free(rai);
		g_free(svgp);
		return rc;
	}
	uint64_t b = 1u << 20;
	bool all = !mode || !strcmp(mode, "all");
	incast_mode only = INCAST_NONE;
	if (mode && !all) {
		if (!strcmp(mode, "pfc"))
			only = INCAST_PFC;
		else if (!strcmp(mode, "ecn-dcqcn"))
			only = INCAST_ECN_DCQCN;
		else if (strcmp(mode, "none"))
			rc = 2;
	}
	if (argc > 1 || senders < 1 || senders > 64 || (bytes && cli_parse_size(bytes, 1, &b)) || b == 0 || repeat < 1 ||
	    repeat > 100 || rc) {
		fprintf(stderr,
		        "%s: need 1 <= --senders <= 64, --fabric none|pfc|ecn-dcqcn|all, --bytes SIZE > 0, 1 <= --repeat <= 100\n",
		        argv[0]);
		rc = 2;
	}
	double fps[3] = { 0, 0, 0 };
	bool ran[3] = { false, false, false };
	for (int m = INCAST_NONE; m <= INCAST_ECN_DCQCN && !rc; m++) {
		if (!all && m != (int)only)
			continue;
		incast_bench_config c = { (uint32_t)senders, b, (incast_mode)m, (uint64_t)seed, stderr };
		incast_bench_result r = { 0 };
		int e = best_run(&c, (uint32_t)repeat, &r, argv[0]);
		if (e) {
			rc = e == 2 ? 1 : e;
			break;
		}
		print_result(&c, &r);
		if (r.failed)
			rc = 1;
		fps[m] = r.wall > 0 ? (double)r.frames / r.wall : 0;
		ran[m] = true;
	}
	if (speed && !rc)
		rc = speed_against_fabric(fps, ran, argv[0]);
	g_free(mode);
	g_free(bytes);
	return rc;
}
