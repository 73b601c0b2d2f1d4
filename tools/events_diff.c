/* The first divergence of two event streams (events_diff.h). */
#include "tools/events_diff.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "sim/report/json_writer.h"
#include "tools/cli.h"
#include "tools/json_diff.h"

/* A stream's lines, split in place (the text stays owned here). */
typedef struct stream {
	char *text;
	GPtrArray *lines; /* char * into text */
} stream;

static int read_stream(const char *prog, const char *path, stream *s)
{
	size_t len = 0;
	char err[512];
	s->lines = g_ptr_array_new();
	if (cli_read_input(path, &s->text, &len, err, sizeof(err))) {
		fprintf(stderr, "%s: %s%s\n", prog, cli_is_stdin(path) ? "<stdin>: " : "", err);
		return -1;
	}
	char *p = s->text;
	while (*p) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		g_ptr_array_add(s->lines, p);
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

static void free_stream(stream *s)
{
	if (s->lines)
		g_ptr_array_free(s->lines, TRUE);
	g_free(s->text);
}

/* Line n (0-based) of a stream as JSON; NULL past the end, or after saying it is not JSON
 * (*bad set). */
static json_value *parse_line(const char *prog, const char *name, const stream *s, guint n, bool *bad)
{
	if (n >= s->lines->len)
		return NULL;
	const char *line = g_ptr_array_index(s->lines, n);
	char err[256];
	json_value *v = json_parse(line, strlen(line), err, sizeof(err));
	if (!v || v->kind != JSON_OBJECT) {
		fprintf(stderr, "%s: %s:%u: %s (expected a line of `run --events`)\n", prog, name, n + 1,
		        v ? "not a JSON object" : err);
		json_free(v);
		*bad = true;
		return NULL;
	}
	return v;
}

/* "llc ZOSA out: LLC DELETE_LINK request" and the like. */
static void describe(const json_value *v, char *buf, size_t n)
{
	if (!v) {
		snprintf(buf, n, "(the stream has ended)");
		return;
	}
	const char *kind = json_get_text(v, "kind"), *stack = json_get_text(v, "stack");
	const char *t = json_get_text(v, "time_ns"), *dir = json_get_text(v, "dir");
	const char *what = json_get_text(v, "summary");
	if (!what)
		what = json_get_text(v, "what");
	if (!what)
		what = json_get_text(v, "expect");
	snprintf(buf, n, "%s%s%s%s%s%s%s at %s ns", kind ? kind : "?", stack ? " " : "", stack ? stack : "",
	         dir ? " " : "", dir ? dir : "", what ? ": " : "", what ? what : "", t ? t : "?");
}

typedef struct diffs {
	const events_diff_opts *o;
	json_writer *w;
} diffs;

static void on_field(void *ctx, json_diff_kind kind, const char *path, const char *a, const char *b)
{
	diffs *d = ctx;
	if (d->o->quiet)
		return;
	if (d->o->json) {
		static const char *const names[] = { "changed", "only_a", "only_b" };
		json_begin_object(d->w);
		json_kv_str(d->w, "path", path);
		json_kv_str(d->w, "kind", names[kind]);
		json_kv_str(d->w, "a", a);
		json_kv_str(d->w, "b", b);
		json_end_object(d->w);
	} else if (kind == JSON_DIFF_CHANGED) {
		printf("  %s: %s -> %s\n", path, a, b);
	} else {
		printf("  %s: only in %s\n", path, kind == JSON_DIFF_ONLY_A ? d->o->name_a : d->o->name_b);
	}
}

static void count_only(void *ctx, json_diff_kind kind, const char *path, const char *a, const char *b)
{
	(void)ctx, (void)kind, (void)path, (void)a, (void)b;
}

int events_diff(const char *prog, const char *path_a, const char *path_b, const events_diff_opts *o)
{
	stream a = { 0 }, b = { 0 };
	int rc = 0;
	if (read_stream(prog, path_a, &a) || read_stream(prog, path_b, &b)) {
		free_stream(&a);
		free_stream(&b);
		return CLI_EXIT_USAGE;
	}
	json_diff_opts dopts = { .ignore = o->ignore };
	guint n = 0;
	json_value *va = NULL, *vb = NULL, *last = NULL;
	bool bad = false, parted = false;
	for (;; n++) {
		va = parse_line(prog, o->name_a, &a, n, &bad);
		vb = bad ? NULL : parse_line(prog, o->name_b, &b, n, &bad);
		if (bad || (!va && !vb))
			break;
		if (!va || !vb || json_diff(va, vb, &dopts, count_only, NULL)) {
			parted = true;
			break;
		}
		json_free(last);
		last = va;
		json_free(vb);
		va = vb = NULL;
	}
	if (bad) {
		rc = CLI_EXIT_USAGE;
	} else if (o->quiet) {
		rc = parted ? CLI_EXIT_FAILED : CLI_EXIT_OK;
	} else {
		char da[512], db[512], dl[512];
		describe(va, da, sizeof(da));
		describe(vb, db, sizeof(db));
		describe(last, dl, sizeof(dl));
		json_writer w;
		diffs d = { o, &w };
		if (o->json) {
			json_init(&w, stdout, true);
			json_begin_object(&w);
			json_kv_str(&w, "format", "smcr-diff-events");
			json_kv_uint(&w, "version", 1);
			json_kv_str(&w, "a", o->name_a);
			json_kv_str(&w, "b", o->name_b);
			json_kv_uint(&w, "equal_lines", n);
			json_key(&w, "divergence");
			if (!parted) {
				json_null(&w);
			} else {
				json_begin_object(&w);
				json_kv_uint(&w, "line", n + 1);
				json_kv_str(&w, "a", va ? (const char *)g_ptr_array_index(a.lines, n) : NULL);
				json_kv_str(&w, "b", vb ? (const char *)g_ptr_array_index(b.lines, n) : NULL);
				json_kv_str(&w, "last_shared", last ? (const char *)g_ptr_array_index(a.lines, n - 1) : NULL);
				json_key(&w, "differences");
				json_begin_array(&w);
				if (va && vb)
					json_diff(va, vb, &dopts, on_field, &d);
				json_end_array(&w);
				json_end_object(&w);
			}
			json_end_object(&w);
			json_finish(&w);
		} else if (parted) {
			printf("the streams part at line %u\n  %s: %s\n  %s: %s\n", n + 1, o->name_a, da, o->name_b, db);
			if (va && vb)
				json_diff(va, vb, &dopts, on_field, &d);
			if (last)
				printf("after %u equal line%s, the last: %s\n", n, n == 1 ? "" : "s", dl);
			else
				printf("from the first line on\n");
		}
		rc = parted ? CLI_EXIT_FAILED : CLI_EXIT_OK;
	}
	json_free(va);
	json_free(vb);
	json_free(last);
	free_stream(&a);
	free_stream(&b);
	return rc;
}
