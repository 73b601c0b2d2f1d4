/* The links' timeline picture (timeline_svg.h). */
#include "sim/observe/timeline_svg.h"

#include <glib.h>
#include <stdint.h>
#include <string.h>

#include "sim/observe/svg.h"

#define LEFT 250.0
#define PLOT_W 900.0
#define HEAD 50.0     /* title and legend above the marks' rows */
#define MARK_ROW 12.0 /* a row of the timeline actions' labels */
#define LANE_H 74.0
#define BAND_H 16.0
#define BOTTOM 60.0

static const char STYLE[] =
        ".band-active { fill: #3c9a4a; } .band-activating { fill: #e0b22c; }\n"
        ".band-inactive { fill: #c8412f; } .band-unused { fill: #dddddd; }\n"
        ".tput { fill: none; stroke: #2a5db0; stroke-width: 1.5; }\n"
        ".tput-in { fill: none; stroke: #e07b00; stroke-width: 1.2; stroke-dasharray: 4 2; }\n"
        ".axis { stroke: #444; stroke-width: 1; } .grid { stroke: #e4e4e4; stroke-width: 1; }\n"
        ".mark { stroke: #8a2be2; stroke-width: 1.2; stroke-dasharray: 5 3; }\n"
        ".marktext { fill: #8a2be2; font-size: 10px; } .lanename { font-weight: bold; }\n"
        ".small { font-size: 9px; fill: #555; } .head { font-size: 15px; font-weight: bold; }\n";

static const char *band_class(report_link_state st)
{
	switch (st) {
	case REPORT_LINK_ACTIVE:
		return "band-active";
	case REPORT_LINK_ACTIVATING:
		return "band-activating";
	case REPORT_LINK_INACTIVE:
		return "band-inactive";
	case REPORT_LINK_UNUSED:
		break;
	}
	return "band-unused";
}

static void time_label(uint64_t ns, char *buf, size_t n)
{
	if (ns % 1000000000ull == 0)
		snprintf(buf, n, "%llus", (unsigned long long)(ns / 1000000000ull));
	else if (ns % 1000000ull == 0)
		snprintf(buf, n, "%llums", (unsigned long long)(ns / 1000000ull));
	else
		snprintf(buf, n, "%.3fs", (double)ns / 1e9);
}

/* A step of 1, 2 or 5 times a power of ten giving at most ~10 ticks. */
static uint64_t tick_step(uint64_t span)
{
	uint64_t step = 1000000; /* 1 ms */
	for (;;) {
		for (int m = 0; m < 3; m++) {
			uint64_t c = step * (m == 0 ? 1u : m == 1 ? 2u
			                                          : 5u);
			if (span / c <= 10)
				return c;
		}
		step *= 10;
	}
}

#define X(t) (LEFT + PLOT_W * (double)((t)-t0) / span)

/* The time axis under the lanes and its grid lines (from the plot's top, under the marks'
 * labels). */
static void draw_time_axis(svg *g, uint64_t t0, uint64_t t1, double span, double top, double plot_bottom)
{
	uint64_t step = tick_step(t1 - t0);
	svg_group(g, "axis-time", NULL);
	for (uint64_t t = (t0 + step - 1) / step * step; t <= t1; t += step) {
		char lab[32];
		time_label(t, lab, sizeof(lab));
		svg_line(g, X(t), top - 6, X(t), plot_bottom, "grid");
		svg_text(g, X(t), plot_bottom + 16, "small", "middle", "%s", lab);
	}
	svg_line(g, LEFT, plot_bottom, LEFT + PLOT_W, plot_bottom, "axis");
	svg_text(g, LEFT + PLOT_W / 2, plot_bottom + 34, NULL, "middle", "virtual time");
	svg_group_end(g);
}

/* The timeline's actions in the window, each label in the first row (from the top) where
 * it overlaps no label and no later row holds a label its line would cross (its line runs
 * down from its own row); the rows, at most MAX_MARK_ROWS, in *rows for the layout. */
#define MAX_MARK_ROWS 16
static void place_marks(const link_series *s, uint64_t t0, uint64_t t1, double span, int *row_of, int *rows)
{
	double row_end[MAX_MARK_ROWS];
	*rows = 0;
	for (size_t i = 0; i < s->n_marks; i++) { /* marks come in time order */
		const link_mark *m = &s->marks[i];
		row_of[i] = -1;
		if (m->time_ns < t0 || m->time_ns > t1)
			continue;
		double x = X(m->time_ns), end = x + 3 + svg_text_width(m->text, 10, 0) + 6;
		int r = 0;
		for (; r < *rows; r++) {
			bool crosses = false;
			for (int k = r + 1; k < *rows; k++)
				crosses |= row_end[k] > x;
			if (row_end[r] < x + 3 && !crosses)
				break;
		}
		if (r == *rows && *rows < MAX_MARK_ROWS)
			row_end[(*rows)++] = 0;
		if (r >= MAX_MARK_ROWS)
			r = MAX_MARK_ROWS - 1;
		row_of[i] = r;
		row_end[r] = end;
	}
}

static void draw_marks(svg *g, const link_series *s, uint64_t t0, double span, const int *row_of, double plot_bottom)
{
	for (size_t i = 0; i < s->n_marks; i++) {
		const link_mark *m = &s->marks[i];
		if (row_of[i] < 0)
			continue;
		double y = HEAD + MARK_ROW * (double)(row_of[i] + 1);
		svg_group(g, "timeline-mark", m->text);
		svg_line(g, X(m->time_ns), y + 3, X(m->time_ns), plot_bottom, "mark");
		svg_text(g, X(m->time_ns) + 3, y, "marktext", "start", "%s", m->text);
		svg_group_end(g);
	}
}

/* A run of one state in [a, b), clipped to the window. */
static void band(svg *g, uint64_t a, uint64_t b, uint64_t t0, uint64_t t1, double span, double y, report_link_state st)
{
	if (a < t0)
		a = t0;
	if (b > t1)
		b = t1;
	if (b > a)
		svg_rect(g, X(a), y + 2, X(b) - X(a), BAND_H, band_class(st));
}

#undef X

void timeline_svg_write(FILE *f, const link_series *s, uint64_t from_ns, uint64_t to_ns)
{
	uint64_t t0 = from_ns, t1 = to_ns ? to_ns : s->n_times ? s->times[s->n_times - 1]
	                                                       : 0;
	if (t1 <= t0)
		t1 = t0 + 1000000;
	double span = (double)(t1 - t0);
	int *row_of = g_new0(int, s->n_marks + 1), rows = 0;
	place_marks(s, t0, t1, span, row_of, &rows);
	const double TOP = HEAD + MARK_ROW * (double)rows + 16;
	double h = TOP + (double)(s->n_lanes ? s->n_lanes : 1) * LANE_H + BOTTOM;
	double w = LEFT + PLOT_W + 40;
	svg g;
	char title[200];
	snprintf(title, sizeof(title), "links over time: %s", s->title);
	svg_begin(&g, f, w, h, title, STYLE);
	svg_text(&g, 10, 22, "head", "start", "%s", title);
	svg_text(&g, 10, 40, "small", "start",
	         "band: link state (green active, yellow activating, red inactive, grey absent); blue: Mbit/s sent, "
	         "orange dashed: Mbit/s received (RDMA data, per sample); purple dashed: timeline actions");
#define X(t) (LEFT + PLOT_W * (double)((t)-t0) / span)
	double plot_bottom = TOP + (double)s->n_lanes * LANE_H;
	draw_time_axis(&g, t0, t1, span, TOP, plot_bottom);
	/* lanes */
	double *xs = g_new(double, s->n_times + 1);
	double *ys = g_new(double, s->n_times + 1);
	double *ys_in = g_new(double, s->n_times + 1);
	for (uint32_t lane = 0; lane < s->n_lanes; lane++) {
		const link_lane *ln = &s->lanes[lane];
		double y = TOP + (double)lane * LANE_H;
		char tip[160];
		snprintf(tip, sizeof(tip), "%s link %s to %s, link group %s", ln->stack, ln->link_id, ln->peer, ln->lgr_id);
		svg_group(&g, "lane", tip);
		svg_text(&g, 10, y + 13, "lanename", "start", "%s %s", ln->stack, ln->link_id);
		svg_text(&g, 10, y + 27, "small", "start", "to %s, LGR %s", ln->peer[0] ? ln->peer : "?", ln->lgr_id);
		/* the state band: each sample's state holds until the lane's next sample (or the
		 * next sampling time if the lane has none then: the link is gone), runs of one state
		 * drawn as one rectangle; sent and received throughput from the byte counters */
		svg_rect(&g, LEFT, y + 2, PLOT_W, BAND_H, "band-unused");
		uint64_t max_rate = 0;
		size_t np = 0;
		uint64_t prev_t = 0, prev_out = 0, prev_in = 0;
		bool have_prev = false;
		bool run_open = false;
		uint64_t run_start = 0, run_end = 0;
		report_link_state run_state = REPORT_LINK_UNUSED;
		for (size_t i = 0; i < s->n_samples; i++) {
			const link_sample *sm = &s->samples[i];
			if (sm->lane != lane)
				continue;
			uint64_t next = t1;
			for (size_t k = 0; k < s->n_times; k++)
				if (s->times[k] > sm->time_ns) {
					next = s->times[k];
					break;
				}
			if (run_open && (sm->state != run_state || sm->time_ns != run_end)) {
				band(&g, run_start, run_end, t0, t1, span, y, run_state);
				run_open = false;
			}
			if (!run_open) {
				run_open = true;
				run_start = sm->time_ns;
				run_state = sm->state;
			}
			run_end = next;
			if (have_prev && sm->time_ns > prev_t && sm->time_ns >= t0 && sm->time_ns <= t1) {
				double dt = (double)(sm->time_ns - prev_t);
				uint64_t d_out = sm->bytes_out >= prev_out ? sm->bytes_out - prev_out : 0;
				uint64_t d_in = sm->bytes_in >= prev_in ? sm->bytes_in - prev_in : 0;
				uint64_t r_out = (uint64_t)((double)d_out * 8.0 * 1e9 / dt), r_in = (uint64_t)((double)d_in * 8.0 * 1e9 / dt);
				if (r_out > max_rate)
					max_rate = r_out;
				if (r_in > max_rate)
					max_rate = r_in;
				xs[np] = (double)sm->time_ns;
				ys[np] = (double)r_out;
				ys_in[np] = (double)r_in;
				np++;
			}
			prev_t = sm->time_ns;
			prev_out = sm->bytes_out;
			prev_in = sm->bytes_in;
			have_prev = true;
		}
		if (run_open)
			band(&g, run_start, run_end, t0, t1, span, y, run_state);
		double base = y + LANE_H - 8, top = y + BAND_H + 8;
		svg_line(&g, LEFT, base, LEFT + PLOT_W, base, "grid");
		for (size_t i = 0; i < np; i++) {
			xs[i] = X((uint64_t)xs[i]);
			ys[i] = max_rate ? base - (base - top) * ys[i] / (double)max_rate : base;
			ys_in[i] = max_rate ? base - (base - top) * ys_in[i] / (double)max_rate : base;
		}
		if (np) {
			svg_polyline(&g, xs, ys_in, np, "tput-in");
			svg_polyline(&g, xs, ys, np, "tput");
		}
		svg_text(&g, LEFT - 6, top + 4, "small", "end", "%.1f Mbit/s", (double)max_rate / 1e6);
		svg_text(&g, LEFT - 6, base, "small", "end", "0");
		svg_group_end(&g);
	}
	g_free(xs);
	g_free(ys);
	g_free(ys_in);
	draw_marks(&g, s, t0, span, row_of, plot_bottom);
	g_free(row_of);
#undef X
	svg_end(&g);
}
