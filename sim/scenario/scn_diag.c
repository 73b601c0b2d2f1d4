/* Located error messages of the scenario loader. */
#include <glib.h>
#include <stdlib.h>

#include "sim/scenario/scn_diag.h"

void scn_diag_init(scn_diag *d)
{
	*d = (scn_diag){ 0 };
}

void scn_diag_clear(scn_diag *d)
{
	for (size_t i = 0; i < d->n; i++)
		g_free(d->msgs[i].text);
	d->n = 0;
	d->overflow = false;
	g_free(d->overflow_file);
	d->overflow_file = NULL;
}

void scn_diag_free(scn_diag *d)
{
	scn_diag_clear(d);
	g_free(d->msgs);
	*d = (scn_diag){ 0 };
}

static void scn_verror(scn_diag *d, scn_loc loc, const char *fmt, va_list ap)
{
	if (d->n >= SCN_MAX_ERRORS) {
		if (!d->overflow)
			d->overflow_file = g_strdup(loc.file ? loc.file : "?");
		d->overflow = true;
		return;
	}
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 8;
		d->msgs = g_renew(scn_diag_msg, d->msgs, d->cap);
	}
	char *what = g_strdup_vprintf(fmt, ap);
	d->msgs[d->n] = (scn_diag_msg){
		.line = loc.line,
		.col = loc.col,
		.seq = (uint32_t)d->n,
		.text = g_strdup_printf("%s:%u:%u: %s", loc.file ? loc.file : "?", loc.line, loc.col, what),
	};
	d->n++;
	g_free(what);
}

void scn_error(scn_diag *d, scn_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	scn_verror(d, loc, fmt, ap);
	va_end(ap);
}

size_t scn_diag_count(const scn_diag *d)
{
	return d->n;
}

bool scn_diag_full(const scn_diag *d)
{
	return d->n >= SCN_MAX_ERRORS;
}

static int by_position(const void *a, const void *b)
{
	const scn_diag_msg *x = a, *y = b;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void sort_messages(scn_diag *d)
{
	/* seq breaks ties, so qsort's instability cannot reorder equal positions */
	if (d->n > 1)
		qsort(d->msgs, d->n, sizeof(d->msgs[0]), by_position);
}

const char *scn_diag_message(scn_diag *d, size_t i)
{
	if (i >= d->n)
		return NULL;
	sort_messages(d);
	return d->msgs[i].text;
}

void scn_diag_print(scn_diag *d, FILE *out)
{
	sort_messages(d);
	for (size_t i = 0; i < d->n; i++)
		fprintf(out, "%s\n", d->msgs[i].text);
	if (d->overflow)
		fprintf(out, "%s: too many errors; stopped after %d\n", d->overflow_file, SCN_MAX_ERRORS);
}
