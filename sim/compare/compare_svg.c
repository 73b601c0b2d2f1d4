/* The comparison drawn (compare.h): a row per workload, on the left its latency
 * distributions (the fraction of transactions at or under each latency; SMC-R and TCP
 * as two curves) or, for streaming, its throughput as two bars; on the right the CPU per
 * transaction or MiB of its client and server, SMC-R beside TCP. */
#include <inttypes.h>

#include "sim/compare/compare.h"
#include "sim/observe/svg.h"
#include "sim/world/world_results.h"

#define W 1000.0
#define ROW_H 210.0
#define TOP 60.0
#define L_X 70.0 /* left panel */
#define L_W 480.0
#define R_X 640.0 /* right panel */
#define R_W 320.0
#define PLOT_H 150.0

static const char STYLE[] =
        ".smcr { fill: none; stroke: #2a5db0; stroke-width: 2; } .tcp { fill: none; stroke: #e07b00; stroke-width: 2; }\n"
        ".bar-smcr { fill: #2a5db0; } .bar-tcp { fill: #e07b00; } .none { fill: #bbbbbb; }\n"
        ".axis { stroke: #444; stroke-width: 1; } .grid { stroke: #e4e4e4; stroke-width: 1; }\n"
        ".workload { font-weight: bold; font-size: 13px; } .small { font-size: 9px; fill: #555; }\n"
        ".head { font-size: 15px; font-weight: bold; } .legend { font-size: 11px; }\n";

static void legend(svg *g, double x, double y)
{
	svg_rect(g, x, y - 8, 10, 10, "bar-smcr");
	svg_text(g, x + 14, y, "legend", "start", "SMC-R (as written)");
	svg_rect(g, x + 140, y - 8, 10, 10, "bar-tcp");
	svg_text(g, x + 154, y, "legend", "start", "TCP (smc=no)");
}

/* The fraction of transactions at or under each latency, from 0.1 % to 100 %, on an
 * axis from lo to hi. */
static void cdf(svg *g, const app_hist *h, uint64_t lo, uint64_t hi, double y0, const char *cls)
{
	double xs[101], ys[101];
	size_t n = 0;
	for (uint64_t k = 1; k <= 1000; k += (k < 10 ? 9 : 10)) {
		uint64_t v = app_hist_quantile(h, k, 1000);
		xs[n] = L_X + L_W * (double)(v - lo) / (double)(hi - lo);
		ys[n] = y0 + PLOT_H - PLOT_H * (double)k / 1000.0;
		n++;
	}
	svg_group(g, cls, cls[0] == 's' ? "SMC-R latency distribution" : "TCP latency distribution");
	svg_polyline(g, xs, ys, n, cls);
	svg_group_end(g);
}

static void latency_panel(svg *g, const compare_workload *w, double y0)
{
	const app_hist *s = &w->run[COMPARE_SMCR].lat, *t = &w->run[COMPARE_TCP].lat;
	uint64_t max = s->max > t->max ? s->max : t->max;
	uint64_t min = !s->count ? t->min : !t->count ? s->min
	                            : s->min < t->min ? s->min
	                                              : t->min;
	/* the axis around the values, so that close distributions stay apart */
	uint64_t lo = min - min / 10, hi = max + max / 20 + 1;
	char a[WORLD_FMT_LEN];
	svg_line(g, L_X, y0 + PLOT_H, L_X + L_W, y0 + PLOT_H, "axis");
	svg_line(g, L_X, y0, L_X, y0 + PLOT_H, "axis");
	svg_text(g, L_X - 6, y0 + 4, "small", "end", "100%%");
	svg_text(g, L_X - 6, y0 + PLOT_H / 2 + 4, "small", "end", "50%%");
	svg_text(g, L_X - 6, y0 + PLOT_H + 4, "small", "end", "0");
	svg_line(g, L_X, y0 + PLOT_H / 2, L_X + L_W, y0 + PLOT_H / 2, "grid");
	if (!max) {
		svg_text(g, L_X + L_W / 2, y0 + PLOT_H / 2, "small", "middle", "no transaction completed");
		return;
	}
	for (int i = 0; i <= 4; i++) {
		double x = L_X + L_W * i / 4;
		svg_line(g, x, y0 + PLOT_H, x, y0 + PLOT_H + 3, "axis");
		svg_text(g, x, y0 + PLOT_H + 14, "small", "middle", "%s", world_fmt_ns(lo + (hi - lo) * (uint64_t)i / 4, a, sizeof(a)));
	}
	svg_text(g, L_X + L_W / 2, y0 + PLOT_H + 28, "small", "middle", "transaction latency (fraction at or under)");
	if (s->count)
		cdf(g, s, lo, hi, y0, "smcr");
	if (t->count)
		cdf(g, t, lo, hi, y0, "tcp");
}

/* Two horizontal bars, SMC-R above TCP, on a scale of their larger value. */
static void bars(svg *g, double x, double y, double w, uint64_t sv, bool s_ok, uint64_t tv, bool t_ok,
                 const char *what, char *(*fmt)(uint64_t, char *, size_t))
{
	uint64_t max = sv > tv ? sv : tv;
	char a[WORLD_FMT_LEN], tip[96];
	const uint64_t v[2] = { sv, tv };
	const bool ok[2] = { s_ok, t_ok };
	static const char *const cls[2] = { "bar-smcr", "bar-tcp" };
	static const char *const who[2] = { "SMC-R", "TCP" };
	svg_text(g, x, y - 4, "small", "start", "%s", what);
	for (int k = 0; k < 2; k++) {
		double yy = y + k * 16.0;
		snprintf(tip, sizeof(tip), "%s %s: %s", what, who[k], ok[k] ? fmt(v[k], a, sizeof(a)) : "not counted");
		svg_group(g, cls[k], tip);
		if (ok[k] && max)
			svg_rect(g, x, yy, w * (double)v[k] / (double)max, 12, cls[k]);
		else
			svg_rect(g, x, yy, 2, 12, "none");
		svg_text(g, x + w + 6, yy + 10, "small", "start", "%s", ok[k] ? fmt(v[k], a, sizeof(a)) : "-");
		svg_group_end(g);
	}
}

static void workload_row(svg *g, const compare_workload *w, double y0)
{
	const compare_side *s = &w->run[COMPARE_SMCR], *t = &w->run[COMPARE_TCP];
	char tip[160];
	snprintf(tip, sizeof(tip), "%s: %s from %s to %s", w->name, w->kind, w->client, w->server);
	svg_group(g, "workload-row", tip);
	svg_text(g, 10, y0 - 10, "workload", "start", "%s (%s, %s -> %s)", w->name, w->kind, w->client, w->server);
	if (w->transactional)
		latency_panel(g, w, y0);
	else
		bars(g, L_X, y0 + 40, L_W - 120, s->throughput_bps, s->has, t->throughput_bps, t->has, "throughput",
		     world_fmt_bps);
	char what[128];
	if (!s->costs_client && !t->costs_client && !s->costs_server && !t->costs_server) {
		svg_text(g, R_X, y0 + 40, "small", "start", "CPU not counted: the hosts have no costs (profile none)");
		svg_group_end(g);
		return;
	}
	snprintf(what, sizeof(what), "CPU per %s, client %s", w->transactional ? "transaction" : "MiB", w->client);
	bars(g, R_X, y0 + 20, R_W - 80, s->cpu_client, s->has_cpu_client && s->costs_client, t->cpu_client,
	     t->has_cpu_client && t->costs_client, what, world_fmt_ns);
	snprintf(what, sizeof(what), "CPU per %s, server %s", w->transactional ? "transaction" : "MiB", w->server);
	bars(g, R_X, y0 + 90, R_W - 80, s->cpu_server, s->has_cpu_server && s->costs_server, t->cpu_server,
	     t->has_cpu_server && t->costs_server, what, world_fmt_ns);
	svg_group_end(g);
}

void compare_svg(const compare_result *r, FILE *out)
{
	svg g;
	double h = TOP + ROW_H * (double)(r->n ? r->n : 1) + 20;
	char title[256];
	snprintf(title, sizeof(title), "SMC-R beside TCP: %s (seed %" PRIu64 ")", r->scenario, r->seed);
	svg_begin(&g, out, W, h, title, STYLE);
	svg_text(&g, 10, 24, "head", "start", "%s", title);
	legend(&g, 10, 44);
	for (size_t i = 0; i < r->n; i++)
		workload_row(&g, &r->w[i], TOP + 30 + ROW_H * (double)i);
	if (!r->n)
		svg_text(&g, W / 2, TOP + 40, "small", "middle", "no connecting application");
	svg_end(&g);
}
