/* A small SVG writer for the pictures (message-sequence chart, topology, links' timeline):
 * the document with its style sheet, shapes with a class (the style sheet colours them),
 * text escaped for XML. Coordinates are printed with one decimal, so the same picture is
 * the same bytes on every machine. */
#ifndef SIM_SVG_H
#define SIM_SVG_H

#include <stdio.h>

typedef struct svg {
	FILE *f;
} svg;

/* <svg> of w x h pixels with <title> (escaped) and a <style> sheet (written as CDATA).
 * A white background rectangle is drawn first so a renderer never shows transparency. */
void svg_begin(svg *s, FILE *f, double w, double h, const char *title, const char *style);
void svg_end(svg *s);

/* <g class=…> with an optional tooltip (<title>), and its end. */
void svg_group(svg *s, const char *cls, const char *tooltip);
void svg_group_end(svg *s);

void svg_line(svg *s, double x1, double y1, double x2, double y2, const char *cls);
void svg_rect(svg *s, double x, double y, double w, double h, const char *cls);
void svg_circle(svg *s, double cx, double cy, double r, const char *cls);
/* A quadratic curve from (x1,y1) to (x2,y2) through control point (cx,cy). */
void svg_curve(svg *s, double x1, double y1, double cx, double cy, double x2, double y2, const char *cls);
/* A polyline through n points (xs[i], ys[i]). */
void svg_polyline(svg *s, const double *xs, const double *ys, size_t n, const char *cls);
/* Text at (x, y); anchor "start", "middle" or "end"; printf-style, escaped. */
void svg_text(svg *s, double x, double y, const char *cls, const char *anchor, const char *fmt, ...)
        __attribute__((format(printf, 6, 7)));

/* About how wide `text` is drawn at font_px in the pictures' sans-serif (DejaVu Sans, the
 * style sheets' first choice), a little wide rather than narrow: what the layouts reserve
 * for a label so that it overlaps no other text and no line (tests/support/svg-layout
 * measures the real thing in Chromium). Bold adds a tenth. */
double svg_text_width(const char *text, double font_px, int bold);

/* Write `text` escaped for XML text and attribute values. */
void svg_escape(FILE *f, const char *text);

#endif
