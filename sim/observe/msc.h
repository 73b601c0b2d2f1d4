/* A message-sequence chart: lifelines (a run's stacks, or a capture's hosts), the CLC, LLC
 * and CDC messages between them as arrows (CLC travels over TCP, LLC and CDC over RoCE:
 * each has its colour and stroke), failures, restores and other happenings as marks on a
 * lifeline or across all of them, virtual time down the left side. One row per item, in
 * the order they happened, so a burst of messages within a microsecond stays readable.
 * Filters pick what is drawn (stacks, a link group, a connection, a time window) and a cap
 * on the rows keeps a 1,000-connection run a picture rather than a poster; what the cap
 * cut is said at the bottom. Filled from a run (msc_run.h) or a capture (msc_replay.h). */
#ifndef SIM_MSC_H
#define SIM_MSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MSC_ALL UINT32_MAX /* a mark across every lifeline */

typedef enum msc_kind {
	MSC_CLC,
	MSC_LLC,
	MSC_CDC,
	MSC_MARK,
} msc_kind;

typedef enum msc_mark_kind {
	MSC_MARK_FAIL,    /* a failure: a timeline `fail`, a link down, a link group ended */
	MSC_MARK_RESTORE, /* a timeline `restore`, a link up */
	MSC_MARK_INFO,    /* anything else worth a note: a connection's mode, a fallback */
} msc_mark_kind;

typedef struct msc_item {
	msc_kind kind;
	msc_mark_kind mark; /* MSC_MARK */
	uint64_t time_ns;
	uint32_t from, to; /* lifelines; a mark: `from` (MSC_ALL across all) */
	bool has_lgr;
	uint32_t lgr;   /* the link group's id as reports print it */
	char conn[48];  /* the connection's name ("bulk.3", or a capture's number); "" none */
	char text[112]; /* the arrow's label or the mark's text */
} msc_item;

typedef struct msc_chart {
	char title[160];
	char time_axis[48]; /* "virtual time", or a capture's "since the first frame" */
	char (*lines)[40];  /* lifeline names, in the order they were added */
	size_t n_lines, cap_lines;
	msc_item *items; /* in the order they happened */
	size_t n_items, cap_items;
} msc_chart;

typedef struct msc_filter {
	const char *const *stacks; /* lifeline names: items touching one of them; NULL all */
	size_t n_stacks;
	bool has_lgr;
	uint32_t lgr;
	const char *conn;        /* a connection name, or an app name for all its connections */
	uint64_t from_ns, to_ns; /* time window, inclusive; to_ns 0 = to the end */
	size_t max_rows;         /* 0 = no limit */
} msc_filter;

void msc_init(msc_chart *c, const char *title);
void msc_free(msc_chart *c);
/* The lifeline with this name, added the first time. */
uint32_t msc_line(msc_chart *c, const char *name);
void msc_arrow(msc_chart *c, msc_kind kind, uint64_t t, uint32_t from, uint32_t to, bool has_lgr, uint32_t lgr,
               const char *conn, const char *text);
void msc_mark(msc_chart *c, msc_mark_kind mk, uint64_t t, uint32_t line, bool has_lgr, uint32_t lgr,
              const char *conn, const char *text);
/* msc_mark of a happening known only after the items of its time were added (a capture's
 * link failures, found at the end of the decode): put in time order, after the items of
 * its own time. */
void msc_mark_in_order(msc_chart *c, msc_mark_kind mk, uint64_t t, uint32_t line, bool has_lgr, uint32_t lgr,
                       const char *conn, const char *text);

/* What the chart holds, for checking the filter's names: 0, or -1 with what it has
 * instead (the first names, in chart order) in err. A filter naming nothing in the chart
 * would draw an empty chart without a word. */
int msc_check_filter(const msc_chart *c, const msc_filter *f, char *err, size_t errlen);
/* Whether an item passes the filter (the row cap aside). */
bool msc_keep(const msc_chart *c, const msc_filter *f, const msc_item *it);
/* The chart as SVG; the number of rows drawn in *rows (may be NULL). */
void msc_write_svg(FILE *out, const msc_chart *c, const msc_filter *f, size_t *rows);

#endif
