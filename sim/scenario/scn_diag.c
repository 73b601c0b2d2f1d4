/* Located error messages of the scenario loader. */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

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
	if (d->first_iter)
		g_hash_table_remove_all(d->first_iter);
	if (d->echoes)
		g_ptr_array_set_size(d->echoes, 0);
	g_free(d->joined);
	d->joined = NULL;
}

void scn_diag_free(scn_diag *d)
{
	scn_diag_clear(d);
	g_free(d->msgs);
	if (d->first_iter)
		g_hash_table_destroy(d->first_iter);
	if (d->echoes)
		g_ptr_array_free(d->echoes, TRUE);
	*d = (scn_diag){ 0 };
}

/* A message of a loop iteration at a position that already has one from another
 * iteration: count it there. */
static bool fold_iteration(scn_diag *d, scn_loc loc)
{
	if (!loc.iter)
		return false;
	if (!d->first_iter)
		d->first_iter = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	gint64 key = ((gint64)loc.line << 32) | loc.col;
	gpointer at;
	if (g_hash_table_lookup_extended(d->first_iter, &key, NULL, &at)) {
		scn_diag_msg *m = &d->msgs[GPOINTER_TO_SIZE(at)];
		/* the same iteration may say more than one thing about a position; iteration
		 * texts are interned, so equal texts are one pointer */
		if (m->iter != loc.iter) {
			m->repeats++;
			return true;
		}
		return false;
	}
	gint64 *k = g_new(gint64, 1);
	*k = key;
	g_hash_table_insert(d->first_iter, k, GSIZE_TO_POINTER(d->n));
	return false;
}

static void scn_verror(scn_diag *d, scn_loc loc, const char *fmt, va_list ap)
{
	if (d->n >= SCN_MAX_ERRORS) {
		if (!d->overflow)
			d->overflow_file = g_strdup(loc.file ? loc.file : "?");
		d->overflow = true;
		return;
	}
	if (fold_iteration(d, loc))
		return;
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 8;
		d->msgs = g_renew(scn_diag_msg, d->msgs, d->cap);
	}
	char *what = g_strdup_vprintf(fmt, ap);
	d->msgs[d->n] = (scn_diag_msg){
		.line = loc.line,
		.col = loc.col,
		.seq = (uint32_t)d->n,
		.iter = loc.iter,
		/* line 0: about the file as a whole (its size, a --set for it), no position */
		.text = !loc.line  ? g_strdup_printf("%s: %s", loc.file ? loc.file : "?", what)
		        : loc.iter ? g_strdup_printf("%s:%u:%u: in iteration %s: %s", loc.file ? loc.file : "?", loc.line,
		                                     loc.col, loc.iter, what)
		                   : g_strdup_printf("%s:%u:%u: %s", loc.file ? loc.file : "?", loc.line, loc.col, what),
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

const char *scn_echo(scn_diag *d, const char *s)
{
	size_t n = strlen(s);
	if (n <= SCN_ECHO_MAX)
		return s;
	size_t cut = SCN_ECHO_MAX;
	while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--; /* not inside a UTF-8 sequence */
	char *c = g_strdup_printf("%.*s… (%zu bytes)", (int)cut, s, n);
	if (!d->echoes)
		d->echoes = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(d->echoes, c);
	return c;
}

void scn_loc_text(scn_loc loc, char *buf, size_t len)
{
	if (loc.iter)
		snprintf(buf, len, "%u:%u in iteration %s", loc.line, loc.col, loc.iter);
	else
		snprintf(buf, len, "%u:%u", loc.line, loc.col);
}

void scn_diag_stopped(scn_diag *d, const char *file)
{
	if (d->overflow)
		return;
	d->overflow_file = g_strdup(file ? file : "?");
	d->overflow = true;
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
	/* seq breaks ties, so qsort's instability cannot reorder equal positions; the
	 * position index of fold_iteration is of no use once sorted */
	if (d->n > 1)
		qsort(d->msgs, d->n, sizeof(d->msgs[0]), by_position);
	if (d->first_iter)
		g_hash_table_remove_all(d->first_iter);
}

static char *with_repeats(const scn_diag_msg *m)
{
	if (!m->repeats)
		return g_strdup(m->text);
	return g_strdup_printf("%s (and in %u more iteration%s)", m->text, m->repeats, m->repeats == 1 ? "" : "s");
}

const char *scn_diag_message(scn_diag *d, size_t i)
{
	if (i >= d->n)
		return NULL;
	sort_messages(d);
	g_free(d->joined);
	d->joined = with_repeats(&d->msgs[i]);
	return d->joined;
}

void scn_diag_print(scn_diag *d, FILE *out)
{
	sort_messages(d);
	for (size_t i = 0; i < d->n; i++) {
		char *t = with_repeats(&d->msgs[i]);
		fprintf(out, "%s\n", t);
		g_free(t);
	}
	if (d->overflow)
		fprintf(out, "%s: too many errors; stopped after %d\n", d->overflow_file, SCN_MAX_ERRORS);
}
