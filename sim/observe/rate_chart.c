/* The rate chart (rate_chart.h). */
#include "sim/observe/rate_chart.h"

#include <glib.h>
#include <math.h>

#include "sim/observe/svg.h"

#define LEFT 70.0
#define PLOT_W 860.0
#define TOP 66.0
#define PLOT_H 330.0
#define LEGEND_H 24.0
#define BOTTOM 48.0

static const char STYLE[] =
        ".c0 { fill: none; stroke: #2a5db0; stroke-width: 2.2; } .c1 { fill: none; stroke: #e07b00; stroke-width: 2.2; }\n"
        ".c2 { fill: none; stroke: #3c9a4a; stroke-width: 2.2; } .c3 { fill: none; stroke: #8a2be2; stroke-width: 2.2; }\n"
        ".t0 { fill: none; stroke: #9db4df; stroke-width: 1; } .t1 { fill: none; stroke: #f3c48f; stroke-width: 1; }\n"
        ".t2 { fill: none; stroke: #a9d3ae; stroke-width: 1; } .t3 { fill: none; stroke: #cfa9f0; stroke-width: 1; }\n"
        ".band { fill: #eeeeee; } .ref { stroke: #444; stroke-width: 1; stroke-dasharray: 6 3; }\n"
        ".axis { stroke: #444; stroke-width: 1; } .grid { stroke: #e4e4e4; stroke-width: 1; }\n"
        ".mark { stroke: #c8412f; stroke-width: 1.2; stroke-dasharray: 5 3; } .marktext { fill: #c8412f; }\n"
        ".small { font-size: 9px; fill: #555; } .head { font-size: 15px; font-weight: bold; }\n";

/* A step of 1, 2 or 5 times a power of ten giving at most `most` ticks over span. */
static double tick_step(double span, double most)
{
	double step = pow(10.0, floor(log10(span > 0 ? span : 1.0)) - 1.0);
	for (;;) {
		for (int m = 0; m < 3; m++) {
			double c = step * (m == 0 ? 1.0 : m == 1 ? 2.0 : 5.0);
			if (span / c <= most)
				return c;
		}
		step *= 10.0;
	}
}

typedef struct frame {
	double x0, x1, y1;
} frame;

static double px(const frame *fr, double x) { return LEFT + PLOT_W * (x - fr->x0) / (fr->x1 - fr->x0); }
static double py(const frame *fr, double y) { return TOP + PLOT_H - PLOT_H * (y < 0 ? 0 : y > fr->y1 ? fr->y1 : y) / fr->y1; }

static void draw_axes(svg *g, const frame *fr, const rate_chart *c)
{
	svg_group(g, "axes", NULL);
	double xs = tick_step(fr->x1 - fr->x0, 10), ys = tick_step(fr->y1, 8);
	for (double x = ceil(fr->x0 / xs) * xs; x <= fr->x1 + xs * 1e-9; x += xs) {
		svg_line(g, px(fr, x), TOP, px(fr, x), TOP + PLOT_H, "grid");
		svg_text(g, px(fr, x), TOP + PLOT_H + 15, "small", "middle", "%g", x);
	}
	for (double y = 0; y <= fr->y1 + ys * 1e-9; y += ys) {
		svg_line(g, LEFT, py(fr, y), LEFT + PLOT_W, py(fr, y), "grid");
		svg_text(g, LEFT - 6, py(fr, y) + 3, "small", "end", "%g", y);
	}
	svg_line(g, LEFT, TOP + PLOT_H, LEFT + PLOT_W, TOP + PLOT_H, "axis");
	svg_line(g, LEFT, TOP, LEFT, TOP + PLOT_H, "axis");
	svg_text(g, LEFT + PLOT_W / 2, TOP + PLOT_H + 32, NULL, "middle", "%s", c->x_unit);
	svg_text(g, LEFT - 6, TOP - 8, NULL, "end", "%s", c->y_unit);
	svg_group_end(g);
}

/* One series as polylines, broken at every NAN. */
static void draw_series(svg *g, const frame *fr, const rate_chart *c, const rate_chart_series *s)
{
	char cls[4] = { s->thin ? 't' : 'c', (char)('0' + (s->colour & 3u)), 0 };
	double *xs = g_new(double, c->n ? c->n : 1), *ys = g_new(double, c->n ? c->n : 1);
	size_t np = 0;
	svg_group(g, "series", s->name);
	for (size_t i = 0; i <= c->n; i++) {
		if (i < c->n && !isnan(s->y[i])) {
			xs[np] = px(fr, c->x0 + (double)i * c->dx);
			ys[np] = py(fr, s->y[i]);
			np++;
			continue;
		}
		if (np > 1)
			svg_polyline(g, xs, ys, np, cls);
		np = 0;
	}
	svg_group_end(g);
	g_free(xs);
	g_free(ys);
}

void rate_chart_write(FILE *f, const rate_chart *c)
{
	frame fr = { c->x0, c->x0 + (double)(c->n > 1 ? c->n - 1 : 1) * c->dx, c->y_max };
	if (!(fr.y1 > 0)) {
		for (size_t s = 0; s < c->n_series; s++)
			for (size_t i = 0; i < c->n; i++)
				if (c->series[s].y[i] > fr.y1)
					fr.y1 = c->series[s].y[i];
		if (!(fr.y1 > 0))
			fr.y1 = 1;
	}
	double h = TOP + PLOT_H + BOTTOM + LEGEND_H * (double)((c->n_series + 3) / 4);
	/* the reference line's label right of the plot, the mark's above it: the data never
	 * runs through them */
	double right = 30;
	if (!isnan(c->ref) && c->ref_label && svg_text_width(c->ref_label, 9, 0) + 16 > right)
		right = svg_text_width(c->ref_label, 9, 0) + 16;
	svg g;
	svg_begin(&g, f, LEFT + PLOT_W + right, h, c->title, STYLE);
	svg_text(&g, 10, 22, "head", "start", "%s", c->title);
	if (c->subtitle)
		svg_text(&g, 10, 40, "small", "start", "%s", c->subtitle);
	if (!isnan(c->ref) && c->band > 0) {
		double hi = c->ref * (1 + c->band), lo = c->ref * (1 - c->band);
		svg_rect(&g, LEFT, py(&fr, hi), PLOT_W, py(&fr, lo) - py(&fr, hi), "band");
	}
	draw_axes(&g, &fr, c);
	if (!isnan(c->ref)) {
		svg_line(&g, LEFT, py(&fr, c->ref), LEFT + PLOT_W, py(&fr, c->ref), "ref");
		if (c->ref_label)
			svg_text(&g, LEFT + PLOT_W + 6, py(&fr, c->ref) + 3, "small", "start", "%s", c->ref_label);
	}
	if (!isnan(c->mark_x)) {
		svg_line(&g, px(&fr, c->mark_x), TOP, px(&fr, c->mark_x), TOP + PLOT_H, "mark");
		if (c->mark_label)
			svg_text(&g, px(&fr, c->mark_x) + 4, TOP - 6, "marktext", "start", "%s", c->mark_label);
	}
	for (size_t s = 0; s < c->n_series; s++)
		if (c->series[s].thin)
			draw_series(&g, &fr, c, &c->series[s]);
	for (size_t s = 0; s < c->n_series; s++)
		if (!c->series[s].thin)
			draw_series(&g, &fr, c, &c->series[s]);
	/* the legend, four to a row */
	for (size_t s = 0; s < c->n_series; s++) {
		const rate_chart_series *x = &c->series[s];
		char cls[4] = { x->thin ? 't' : 'c', (char)('0' + (x->colour & 3u)), 0 };
		double lx = LEFT + (double)(s % 4) * 215, ly = TOP + PLOT_H + BOTTOM + LEGEND_H * (double)(s / 4);
		svg_line(&g, lx, ly, lx + 26, ly, cls);
		svg_text(&g, lx + 32, ly + 4, NULL, "start", "%s", x->name);
	}
	svg_end(&g);
}
