/* The SVG writer (svg.h). */
#include "sim/observe/svg.h"

#include <stdarg.h>
#include <string.h>

void svg_escape(FILE *f, const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		switch (*p) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			/* control characters are not allowed in XML 1.0 */
			fputc(*p < 0x20 && *p != '\t' && *p != '\n' ? '?' : *p, f);
		}
	}
}

void svg_begin(svg *s, FILE *f, double w, double h, const char *title, const char *style)
{
	s->f = f;
	fprintf(f,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
	        w, h, w, h);
	fputs("<title>", f);
	svg_escape(f, title);
	fputs("</title>\n<style><![CDATA[\n", f);
	fputs("text { font-family: DejaVu Sans, Verdana, sans-serif; font-size: 11px; fill: #222; }\n", f);
	fputs(style, f);
	fputs("]]></style>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", w, h);
}

void svg_end(svg *s)
{
	fputs("</svg>\n", s->f);
}

void svg_group(svg *s, const char *cls, const char *tooltip)
{
	fputs("<g", s->f);
	if (cls) {
		fputs(" class=\"", s->f);
		svg_escape(s->f, cls);
		fputc('"', s->f);
	}
	fputs(">", s->f);
	if (tooltip) {
		fputs("<title>", s->f);
		svg_escape(s->f, tooltip);
		fputs("</title>", s->f);
	}
	fputc('\n', s->f);
}

void svg_group_end(svg *s)
{
	fputs("</g>\n", s->f);
}

static void cls_attr(svg *s, const char *cls)
{
	if (cls) {
		fputs(" class=\"", s->f);
		svg_escape(s->f, cls);
		fputc('"', s->f);
	}
}

void svg_line(svg *s, double x1, double y1, double x2, double y2, const char *cls)
{
	fprintf(s->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"", x1, y1, x2, y2);
	cls_attr(s, cls);
	fputs("/>\n", s->f);
}

void svg_rect(svg *s, double x, double y, double w, double h, const char *cls)
{
	fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", x, y, w, h);
	cls_attr(s, cls);
	fputs("/>\n", s->f);
}

void svg_circle(svg *s, double cx, double cy, double r, const char *cls)
{
	fprintf(s->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", cx, cy, r);
	cls_attr(s, cls);
	fputs("/>\n", s->f);
}

void svg_curve(svg *s, double x1, double y1, double cx, double cy, double x2, double y2, const char *cls)
{
	fprintf(s->f, "<path d=\"M%.1f %.1f Q%.1f %.1f %.1f %.1f\"", x1, y1, cx, cy, x2, y2);
	cls_attr(s, cls);
	fputs("/>\n", s->f);
}

void svg_polyline(svg *s, const double *xs, const double *ys, size_t n, const char *cls)
{
	fputs("<polyline points=\"", s->f);
	for (size_t i = 0; i < n; i++)
		fprintf(s->f, "%s%.1f,%.1f", i ? " " : "", xs[i], ys[i]);
	fputc('"', s->f);
	cls_attr(s, cls);
	fputs("/>\n", s->f);
}

/* Advance widths in em of DejaVu Sans, by class of character (its metrics: digits 0.636,
 * lower case about 0.6, upper case about 0.7, M W m w about 0.9, narrow glyphs about 0.3). */
double svg_text_width(const char *text, double font_px, int bold)
{
	double em = 0;
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		unsigned char c = *p;
		if ((c & 0xc0) == 0x80)
			continue; /* the rest of a UTF-8 sequence: counted with its first byte */
		if (c >= 0x80)
			em += 0.84; /* → … and their kind */
		else if (strchr("ilI.,:;|!'`()[]j", c))
			em += 0.34;
		else if (c == ' ')
			em += 0.32;
		else if (strchr("MWmw@%", c))
			em += 0.95;
		else if (c >= 'A' && c <= 'Z')
			em += 0.74;
		else if (c >= '0' && c <= '9')
			em += 0.64;
		else
			em += 0.62;
	}
	return em * font_px * (bold ? 1.1 : 1.0);
}

void svg_text(svg *s, double x, double y, const char *cls, const char *anchor, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
	cls_attr(s, cls);
	if (anchor && anchor[0])
		fprintf(s->f, " text-anchor=\"%s\"", anchor);
	fputc('>', s->f);
	svg_escape(s->f, buf);
	fputs("</text>\n", s->f);
}
