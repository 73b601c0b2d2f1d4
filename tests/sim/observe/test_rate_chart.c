/* The rate chart (sim/observe/rate_chart.h): points where the values say, lines broken at
 * NAN, the band and the reference where asked, the same bytes for the same input. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/observe/rate_chart.h"
#include "tests/support/golden.h"

static void print_chart(FILE *f, const void *c) { rate_chart_write(f, c); }

static char *draw(const rate_chart *c) { return golden_capture(print_chart, c, NULL); }

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static const double A[5] = { 10, 20, NAN, 30, 40 };
static const double B[5] = { 0, 40, 20, 20, 20 };

static rate_chart chart(const rate_chart_series *s, size_t n_series)
{
	return (rate_chart){ .title = "t", .x_unit = "ms", .y_unit = "Gb/s", .n = 5, .x0 = 0, .dx = 1, .y_max = 40,
		             .ref = 20, .band = 0.1, .ref_label = "fair", .mark_x = NAN, .series = s,
		             .n_series = n_series };
}

Test(rate_chart, a_nan_breaks_the_line_and_points_land_where_the_values_say)
{
	rate_chart_series s[1] = { { "a", A, 0, 0 } };
	rate_chart c = chart(s, 1);
	char *svg = draw(&c);
	/* 10, 20 | 30, 40: two lines of two points, none through the gap */
	cr_assert_eq(count(svg, "<polyline"), 2, "%s", svg);
	/* x = 0 is the plot's left edge (70), y = 40 its top (66), y = 0 its bottom (396) */
	cr_assert(strstr(svg, "points=\"70.0,313.5 285.0,231.0\""), "%s", svg);
	cr_assert(strstr(svg, "715.0,148.5 930.0,66.0\""), "%s", svg);
	free(svg);
}

Test(rate_chart, the_band_and_reference_are_drawn_only_when_asked)
{
	rate_chart_series s[2] = { { "a", A, 0, 1 }, { "b", B, 1, 0 } };
	rate_chart c = chart(s, 2);
	char *with = draw(&c);
	cr_assert_eq(count(with, "class=\"band\""), 1);
	cr_assert_eq(count(with, "class=\"ref\""), 1);
	cr_assert(strstr(with, ">fair<"));
	/* thin lines first (under the thick ones), each series in the legend */
	cr_assert(strstr(with, "class=\"t0\"") < strstr(with, "class=\"c1\""));
	cr_assert(strstr(with, ">a<") && strstr(with, ">b<"));
	c.ref = NAN;
	char *without = draw(&c);
	cr_assert_eq(count(without, "class=\"band\""), 0);
	cr_assert_eq(count(without, "class=\"ref\""), 0);
	free(with);
	free(without);
}

Test(rate_chart, the_same_input_draws_the_same_bytes)
{
	rate_chart_series s[2] = { { "a", A, 2, 0 }, { "b", B, 3, 1 } };
	rate_chart c = chart(s, 2);
	c.mark_x = 2;
	c.mark_label = "join";
	char *one = draw(&c), *two = draw(&c);
	cr_assert_str_eq(one, two);
	cr_assert_eq(count(one, "class=\"mark\""), 1);
	free(one);
	free(two);
}
