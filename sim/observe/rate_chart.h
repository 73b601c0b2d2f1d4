/* A line chart of rates over time as SVG: a few series sampled at a fixed step (a point
 * may be NAN: the line breaks there), a reference value drawn as a dashed line with an
 * optional band of ±fraction around it, and an optional vertical mark (an event such as a
 * flow joining). Used for the DCQCN convergence picture (`bench incast --convergence
 * --svg`); the same input draws the same bytes (svg.h prints one decimal). */
#ifndef SIM_RATE_CHART_H
#define SIM_RATE_CHART_H

#include <stddef.h>
#include <stdio.h>

typedef struct rate_chart_series {
	const char *name;  /* the legend's text */
	const double *y;   /* n values (NAN: no point) */
	unsigned colour;   /* 0..3: the style sheet's four colours */
	int thin;          /* a thin, light line (raw samples) rather than a thick one */
} rate_chart_series;

typedef struct rate_chart {
	const char *title, *subtitle;
	const char *x_unit, *y_unit; /* axis units, e.g. "ms", "Gb/s" */
	size_t n;                    /* points per series */
	double x0, dx;               /* point i is at x0 + i * dx */
	double y_max;                /* the top of the y axis (0: the largest value) */
	double ref;                  /* the reference line (NAN: none) */
	double band;                 /* its band, ref * (1 ± band) (0: none) */
	const char *ref_label;
	double mark_x;               /* a vertical mark (NAN: none) */
	const char *mark_label;
	const rate_chart_series *series;
	size_t n_series;
} rate_chart;

void rate_chart_write(FILE *f, const rate_chart *c);

#endif
