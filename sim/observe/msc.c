/* The message-sequence chart (msc.h). */
#include "sim/observe/msc.h"

#include <glib.h>
#include <string.h>

#include "sim/observe/svg.h"

#define TIME_W 120.0
#define LINE_SP 190.0
#define HEAD_Y 56.0
#define ROW_H 22.0
#define FIRST_ROW 104.0

static const char STYLE[] =
        ".life { stroke: #999; stroke-width: 1; stroke-dasharray: 4 3; }\n"
        ".head rect { fill: #eef2f8; stroke: #36587a; stroke-width: 1.2; } .head text { font-weight: bold; }\n"
        ".clc line { stroke: #1f5fbf; stroke-width: 1.4; } .clc polyline { fill: #1f5fbf; } .clc text { fill: #1f5fbf; }\n"
        ".llc line { stroke: #b5651d; stroke-width: 1.4; stroke-dasharray: 6 2; } .llc polyline { fill: #b5651d; } "
        ".llc text { fill: #8a4a10; }\n"
        ".cdc line { stroke: #2e8b57; stroke-width: 1; } .cdc polyline { fill: #2e8b57; } .cdc text { fill: #22663f; "
        "font-size: 10px; }\n"
        ".fail rect { fill: #fde3df; } .fail text { fill: #b3261e; font-weight: bold; } .fail circle { fill: #b3261e; }\n"
        ".restore rect { fill: #e0f3e3; } .restore text { fill: #23773a; font-weight: bold; } .restore circle { fill: "
        "#23773a; }\n"
        ".info text { fill: #555; font-style: italic; } .info circle { fill: #777; }\n"
        ".time { font-size: 10px; fill: #555; font-family: DejaVu Sans Mono, monospace; }\n"
        ".title { font-size: 15px; font-weight: bold; } .legend { font-size: 10px; } .cut { fill: #b3261e; }\n";

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 16;
	return g_realloc_n(p, *cap, size);
}

void msc_init(msc_chart *c, const char *title)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->title, sizeof(c->title), "%s", title);
	snprintf(c->time_axis, sizeof(c->time_axis), "virtual time");
}

void msc_free(msc_chart *c)
{
	g_free(c->lines);
	g_free(c->items);
	memset(c, 0, sizeof(*c));
}

uint32_t msc_line(msc_chart *c, const char *name)
{
	for (size_t i = 0; i < c->n_lines; i++)
		if (!strcmp(c->lines[i], name))
			return (uint32_t)i;
	c->lines = grow(c->lines, &c->cap_lines, c->n_lines, sizeof(*c->lines));
	snprintf(c->lines[c->n_lines], sizeof(c->lines[0]), "%s", name);
	return (uint32_t)c->n_lines++;
}

static msc_item *add(msc_chart *c, msc_kind kind, uint64_t t, bool has_lgr, uint32_t lgr, const char *conn,
                     const char *text)
{
	c->items = grow(c->items, &c->cap_items, c->n_items, sizeof(*c->items));
	msc_item *it = &c->items[c->n_items++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->time_ns = t;
	it->has_lgr = has_lgr;
	it->lgr = lgr;
	snprintf(it->conn, sizeof(it->conn), "%s", conn ? conn : "");
	snprintf(it->text, sizeof(it->text), "%s", text ? text : "");
	return it;
}

void msc_arrow(msc_chart *c, msc_kind kind, uint64_t t, uint32_t from, uint32_t to, bool has_lgr, uint32_t lgr,
               const char *conn, const char *text)
{
	msc_item *it = add(c, kind, t, has_lgr, lgr, conn, text);
	it->from = from;
	it->to = to;
}

void msc_mark(msc_chart *c, msc_mark_kind mk, uint64_t t, uint32_t line, bool has_lgr, uint32_t lgr,
              const char *conn, const char *text)
{
	msc_item *it = add(c, MSC_MARK, t, has_lgr, lgr, conn, text);
	it->mark = mk;
	it->from = it->to = line;
}

void msc_mark_in_order(msc_chart *c, msc_mark_kind mk, uint64_t t, uint32_t line, bool has_lgr, uint32_t lgr,
                       const char *conn, const char *text)
{
	msc_mark(c, mk, t, line, has_lgr, lgr, conn, text);
	for (size_t i = c->n_items - 1; i > 0 && c->items[i - 1].time_ns > t; i--) {
		msc_item tmp = c->items[i - 1];
		c->items[i - 1] = c->items[i];
		c->items[i] = tmp;
	}
}

static bool line_wanted(const msc_chart *c, const msc_filter *f, uint32_t line)
{
	if (!f->stacks || line == MSC_ALL)
		return true;
	for (size_t i = 0; i < f->n_stacks; i++)
		if (!strcmp(f->stacks[i], c->lines[line]))
			return true;
	return false;
}

/* "bulk.3" is asked for by "bulk.3" and by "bulk" (all of bulk's connections). */
static bool conn_matches(const char *want, const char *have)
{
	size_t n = strlen(want);
	return !strcmp(want, have) || (!strncmp(want, have, n) && have[n] == '.');
}

/* The chart's first names of a kind ("A, B, C, …"), deduplicated, into buf. */
static void first_names(const msc_chart *c, int what, char *buf, size_t len)
{
	size_t n = 0, used = 0;
	buf[0] = 0;
	size_t total = what == 0 ? c->n_lines : c->n_items;
	for (size_t i = 0; i < total && n < 8; i++) {
		char name[48];
		if (what == 0)
			g_strlcpy(name, c->lines[i], sizeof(name));
		else if (what == 1 && c->items[i].conn[0])
			g_strlcpy(name, c->items[i].conn, sizeof(name));
		else if (what == 2 && c->items[i].has_lgr)
			snprintf(name, sizeof(name), "%08x", c->items[i].lgr);
		else
			continue;
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = (what == 1 && !strcmp(c->items[k].conn, name)) ||
			       (what == 2 && c->items[k].has_lgr && c->items[k].lgr == c->items[i].lgr);
		if (seen)
			continue;
		int w = snprintf(buf + used, len - used, "%s%s", n ? ", " : "", name);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
		n++;
	}
	if (!n)
		g_strlcpy(buf, "none", len);
	else if (n == 8 && used + 5 < len)
		g_strlcat(buf, ", …", len);
}

int msc_check_filter(const msc_chart *c, const msc_filter *f, char *err, size_t errlen)
{
	char names[400];
	for (size_t s = 0; s < f->n_stacks; s++) {
		bool found = false;
		for (size_t i = 0; i < c->n_lines && !found; i++)
			found = !strcmp(c->lines[i], f->stacks[s]);
		if (!found) {
			first_names(c, 0, names, sizeof(names));
			snprintf(err, errlen, "bad --stack '%.48s': the chart has no such lifeline; expected one of its stacks or hosts (%s)",
			         f->stacks[s], names);
			return -1;
		}
	}
	bool conn_found = !f->conn, lgr_found = !f->has_lgr;
	for (size_t i = 0; i < c->n_items; i++) {
		conn_found |= f->conn && c->items[i].conn[0] && conn_matches(f->conn, c->items[i].conn);
		lgr_found |= f->has_lgr && c->items[i].has_lgr && c->items[i].lgr == f->lgr;
	}
	if (!conn_found) {
		first_names(c, 1, names, sizeof(names));
		snprintf(err, errlen,
		         "bad --conn '%.48s': no message of the chart belongs to it; expected an app, an app instance or a "
		         "capture's connection number (%s)",
		         f->conn, names);
		return -1;
	}
	if (!lgr_found) {
		first_names(c, 2, names, sizeof(names));
		snprintf(err, errlen, "bad --lgr '%08x': no message of the chart belongs to it; expected one of its link groups (%s)",
		         f->lgr, names);
		return -1;
	}
	return 0;
}

bool msc_keep(const msc_chart *c, const msc_filter *f, const msc_item *it)
{
	if (it->time_ns < f->from_ns || (f->to_ns && it->time_ns > f->to_ns))
		return false;
	bool global = it->kind == MSC_MARK && it->from == MSC_ALL;
	if (f->stacks && !global && !line_wanted(c, f, it->from) && !line_wanted(c, f, it->to))
		return false;
	/* a mark without a link group or connection (a timeline action) stays under those filters */
	bool untied = it->kind == MSC_MARK && !it->has_lgr && !it->conn[0];
	if (f->has_lgr && !untied && (!it->has_lgr || it->lgr != f->lgr))
		return false;
	if (f->conn && !untied && !conn_matches(f->conn, it->conn))
		return false;
	return true;
}

static const char *kind_class(const msc_item *it)
{
	switch (it->kind) {
	case MSC_CLC:
		return "clc";
	case MSC_LLC:
		return "llc";
	case MSC_CDC:
		return "cdc";
	case MSC_MARK:
		break;
	}
	return it->mark == MSC_MARK_FAIL ? "fail" : it->mark == MSC_MARK_RESTORE ? "restore"
	                                                                         : "info";
}

static void time_text(uint64_t ns, char *buf, size_t n)
{
	snprintf(buf, n, "%llu.%06llu s", (unsigned long long)(ns / 1000000000ull),
	         (unsigned long long)(ns % 1000000000ull / 1000ull));
}

/* What a row shows: the connection's name first (a capture's connections are numbers),
 * so a picture tells its connections apart without tooltips. */
static void row_text(const msc_item *it, char *buf, size_t n)
{
	if (!it->conn[0] || it->kind == MSC_MARK)
		snprintf(buf, n, "%s", it->text);
	else if (g_ascii_isdigit(it->conn[0]))
		snprintf(buf, n, "conn %s: %s", it->conn, it->text);
	else
		snprintf(buf, n, "%s: %s", it->conn, it->text);
}

/* ---- layout: where each row's text goes, so that no line runs through it ---- */

typedef struct msc_row {
	const msc_item *it;
	double y;
	double x0, x1; /* the text's extent */
	const char *anchor;
	double tx; /* where the text is anchored */
	char text[200];
} msc_row;

typedef struct msc_layout {
	uint32_t *col; /* per lifeline: its column, UINT32_MAX unused */
	uint32_t ncols;
	double sp;    /* between two lifelines */
	double width; /* of the picture */
	msc_row *rows;
	size_t n_rows, kept;
} msc_layout;

#define FONT 11.0
#define CDC_FONT 10.0
#define MAX_SP 460.0

static double lx(const msc_layout *l, uint32_t line)
{
	return TIME_W + l->sp / 2 + (double)l->col[line] * l->sp;
}

static double item_font(const msc_item *it) { return it->kind == MSC_CDC ? CDC_FONT : FONT; }

static void place_row(const msc_layout *l, msc_row *r)
{
	const msc_item *it = r->it;
	double w = svg_text_width(r->text, item_font(it), it->kind == MSC_MARK && it->mark != MSC_MARK_INFO);
	if (it->kind == MSC_MARK && it->from == MSC_ALL) {
		r->tx = TIME_W + 8;
		r->anchor = "start";
	} else if (it->kind == MSC_MARK) {
		r->tx = lx(l, it->from) + 9;
		r->anchor = "start";
	} else {
		/* in the gap next to the sender, towards the receiver */
		double x1 = lx(l, it->from), x2 = lx(l, it->to);
		double dir = x2 >= x1 ? 1 : -1;
		r->tx = l->col[it->to] == l->col[it->from] + 1 || l->col[it->from] == l->col[it->to] + 1 ? (x1 + x2) / 2
		                                                                                         : x1 + dir * l->sp / 2;
		r->anchor = "middle";
	}
	r->x0 = !strcmp(r->anchor, "middle") ? r->tx - w / 2 : r->tx;
	r->x1 = r->x0 + w;
}

static void layout_rows(msc_layout *l, const msc_chart *c, const msc_filter *f)
{
	bool *used = g_new0(bool, c->n_lines + 1);
	l->rows = g_new0(msc_row, c->n_items + 1);
	for (size_t i = 0; i < c->n_items; i++) {
		const msc_item *it = &c->items[i];
		if (!msc_keep(c, f, it))
			continue;
		if (f->max_rows && ++l->kept > f->max_rows)
			continue;
		msc_row *r = &l->rows[l->n_rows];
		r->it = it;
		r->y = FIRST_ROW + (double)l->n_rows * ROW_H;
		row_text(it, r->text, sizeof(r->text));
		l->n_rows++;
		if (it->from != MSC_ALL)
			used[it->from] = true;
		if (it->to != MSC_ALL)
			used[it->to] = true;
	}
	l->col = g_new(uint32_t, c->n_lines + 1);
	for (size_t i = 0; i < c->n_lines; i++)
		l->col[i] = used[i] ? l->ncols++ : UINT32_MAX;
	g_free(used);
	/* room for the widest arrow label between two lifelines, within reason (a wider one
	 * breaks the lifeline it crosses instead) */
	l->sp = 190;
	for (size_t i = 0; i < l->n_rows; i++) {
		const msc_item *it = l->rows[i].it;
		if (it->kind == MSC_MARK)
			continue;
		double w = svg_text_width(l->rows[i].text, item_font(it), 0) + 28;
		if (w > l->sp)
			l->sp = w > MAX_SP ? MAX_SP : w;
	}
	l->width = TIME_W + (double)(l->ncols ? l->ncols : 1) * l->sp + 20;
	for (size_t i = 0; i < l->n_rows; i++) {
		place_row(l, &l->rows[i]);
		if (l->rows[i].x1 + 12 > l->width)
			l->width = l->rows[i].x1 + 12;
	}
}

/* A lifeline, broken where a row's text crosses it. */
static void draw_lifeline(svg *g, const msc_layout *l, double x, double top, double bottom)
{
	double y = top;
	for (size_t i = 0; i < l->n_rows; i++) {
		const msc_row *r = &l->rows[i];
		if (x < r->x0 - 4 || x > r->x1 + 4)
			continue;
		double gap0 = r->y - (r->it->kind == MSC_MARK ? 11 : 17), gap1 = r->y + (r->it->kind == MSC_MARK ? 9 : 2);
		if (gap0 > y)
			svg_line(g, x, y, x, gap0, "life");
		if (gap1 > y)
			y = gap1;
	}
	if (bottom > y)
		svg_line(g, x, y, x, bottom, "life");
}

static void draw_row(svg *g, const msc_layout *l, const msc_row *r, const char *tip)
{
	const msc_item *it = r->it;
	svg_group(g, kind_class(it), tip);
	if (it->kind == MSC_MARK) {
		if (it->from == MSC_ALL)
			svg_rect(g, TIME_W, r->y - 9, (double)l->ncols * l->sp, ROW_H - 2, NULL);
		else
			svg_circle(g, lx(l, it->from), r->y, 5, NULL);
		svg_text(g, r->tx, r->y + 4, NULL, r->anchor, "%s", r->text);
	} else {
		double x1 = lx(l, it->from), x2 = lx(l, it->to);
		double dir = x2 >= x1 ? 1 : -1;
		svg_line(g, x1, r->y, x2 - dir * 7, r->y, NULL);
		double hx[3] = { x2, x2 - dir * 8, x2 - dir * 8 }, hy[3] = { r->y, r->y - 4, r->y + 4 };
		svg_polyline(g, hx, hy, 3, NULL);
		svg_text(g, r->tx, r->y - 5, NULL, r->anchor, "%s", r->text);
	}
	svg_group_end(g);
}

void msc_write_svg(FILE *out, const msc_chart *c, const msc_filter *f, size_t *rows_out)
{
	msc_layout l;
	memset(&l, 0, sizeof(l));
	layout_rows(&l, c, f);
	char title[220];
	snprintf(title, sizeof(title), "message sequence: %s", c->title);
	if (svg_text_width(title, 15, 1) + 20 > l.width)
		l.width = svg_text_width(title, 15, 1) + 20;
	if (l.width < 760)
		l.width = 760;
	double bottom = FIRST_ROW + (double)l.n_rows * ROW_H;
	char cut[200];
	if (l.kept > l.n_rows)
		snprintf(cut, sizeof(cut), "... %zu more not drawn (narrow with --stack, --lgr, --conn, --from/--to or raise --max)",
		         l.kept - l.n_rows);
	else
		snprintf(cut, sizeof(cut), "%zu row%s", l.n_rows, l.n_rows == 1 ? "" : "s");
	if (svg_text_width(cut, 10, 0) + 20 > l.width)
		l.width = svg_text_width(cut, 10, 0) + 20;
	svg g;
	svg_begin(&g, out, l.width, bottom + 50, title, STYLE);
	svg_text(&g, 10, 20, "title", "start", "%s", title);
	static const char *const legend[][2] = {
		{ "clc", "CLC over TCP" },
		{ "llc", "LLC over RoCE" },
		{ "cdc", "CDC over RoCE" },
	};
	for (int k = 0; k < 3; k++) {
		double x = 10 + k * 140.0;
		svg_group(&g, legend[k][0], NULL);
		svg_line(&g, x, 34, x + 30, 34, NULL);
		svg_text(&g, x + 36, 38, "legend", "start", "%s", legend[k][1]);
		svg_group_end(&g);
	}
	for (size_t line = 0; line < c->n_lines; line++) {
		if (l.col[line] == UINT32_MAX)
			continue;
		double x = lx(&l, (uint32_t)line);
		svg_group(&g, "head", c->lines[line]);
		double hw = svg_text_width(c->lines[line], FONT, 1) / 2 + 10 > 70 ? svg_text_width(c->lines[line], FONT, 1) / 2 + 10 : 70;
		svg_rect(&g, x - hw, HEAD_Y, 2 * hw, 26, NULL);
		svg_text(&g, x, HEAD_Y + 17, NULL, "middle", "%s", c->lines[line]);
		svg_group_end(&g);
		draw_lifeline(&g, &l, x, HEAD_Y + 26, bottom + 10);
	}
	svg_text(&g, 10, FIRST_ROW - 14, "time", "start", "%s", c->time_axis);
	uint64_t last_t = UINT64_MAX;
	for (size_t i = 0; i < l.n_rows; i++) {
		const msc_row *r = &l.rows[i];
		if (r->it->time_ns != last_t) {
			char tt[40];
			time_text(r->it->time_ns, tt, sizeof(tt));
			svg_text(&g, 10, r->y + 4, "time", "start", "%s", tt);
			last_t = r->it->time_ns;
		}
		char tip[260];
		snprintf(tip, sizeof(tip), "%s%s%s", r->it->text, r->it->conn[0] ? " conn " : "", r->it->conn);
		draw_row(&g, &l, r, tip);
	}
	svg_text(&g, 10, bottom + 30, l.kept > l.n_rows ? "cut" : "legend", "start", "%s", cut);
	svg_end(&g);
	g_free(l.col);
	g_free(l.rows);
	if (rows_out)
		*rows_out = l.n_rows;
}
