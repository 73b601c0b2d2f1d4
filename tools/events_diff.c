/* The first divergence of two event streams (events_diff.h). */
#include "tools/events_diff.h"

#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "sim/report/json_writer.h"
#include "tools/cli.h"
#include "tools/json_diff.h"

/* An event line is under 1 KiB (the longest of the default scenario's 6.5 MB stream is
 * 644 bytes); the bound keeps a file without newlines (/dev/zero) from being read whole. */
#define EVENTS_MAX_LINE_BYTES ((size_t)1 << 20)

/* A stream read one line at a time: the memory is that of a line, whatever the length
 * of the stream. */
typedef struct stream {
	const char *name;
	FILE *f;
	GString *line; /* the current line, without its newline */
	bool ended;
} stream;

static int open_stream(const char *prog, const char *path, const char *name, stream *s)
{
	s->name = name;
	s->line = g_string_new(NULL);
	s->f = cli_is_stdin(path) ? stdin : fopen(path, "rb");
	if (!s->f) {
		fprintf(stderr, "%s: %s: cannot read the file (%s); expected an event stream of `run --events`\n", prog, name,
		        strerror(errno));
		return -1;
	}
	return 0;
}

static void close_stream(stream *s)
{
	if (s->f && s->f != stdin)
		fclose(s->f);
	if (s->line)
		g_string_free(s->line, TRUE);
}

/* Line n (1-based, the one after the last read) into s->line; 1, 0 at the end of the
 * stream, -1 after saying what is wrong. */
static int next_line(const char *prog, stream *s, guint n)
{
	g_string_truncate(s->line, 0);
	if (s->ended)
		return 0;
	int c;
	while ((c = getc(s->f)) != EOF && c != '\n') {
		if (s->line->len == EVENTS_MAX_LINE_BYTES) {
			fprintf(stderr, "%s: %s:%u: the line is longer than %zu bytes; expected a line of `run --events`\n", prog,
			        s->name, n, EVENTS_MAX_LINE_BYTES);
			return -1;
		}
		g_string_append_c(s->line, (char)c);
	}
	if (c == EOF) {
		if (ferror(s->f)) {
			fprintf(stderr, "%s: %s: cannot read the file (%s); expected an event stream of `run --events`\n", prog,
			        s->name, strerror(errno));
			return -1;
		}
		s->ended = true;
		if (!s->line->len)
			return 0; /* the newline of the last line, or an empty stream */
	}
	return 1;
}

/* The current line of a stream as JSON; after saying it is not JSON, NULL with *bad set. */
static json_value *parse_line(const char *prog, const stream *s, guint n, bool *bad)
{
	char err[256];
	json_value *v = json_parse(s->line->str, s->line->len, err, sizeof(err));
	if (!v || v->kind != JSON_OBJECT) {
		fprintf(stderr, "%s: %s:%u: %s (expected a line of `run --events`)\n", prog, s->name, n,
		        v ? "not a JSON object" : err);
		json_free(v);
		*bad = true;
		return NULL;
	}
	return v;
}

/* Line n of a stream, read and parsed: NULL past its end, or with *bad set. */
static json_value *read_event(const char *prog, stream *s, guint n, bool *bad)
{
	int r = next_line(prog, s, n);
	if (r < 0)
		*bad = true;
	return r > 0 ? parse_line(prog, s, n, bad) : NULL;
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
	if (open_stream(prog, path_a, o->name_a, &a) || open_stream(prog, path_b, o->name_b, &b)) {
		close_stream(&a);
		close_stream(&b);
		return CLI_EXIT_USAGE;
	}
	GString *last_text = g_string_new(NULL); /* the last line the streams share */
	json_diff_opts dopts = { .ignore = o->ignore };
	guint n = 0;
	json_value *va = NULL, *vb = NULL, *last = NULL;
	bool bad = false, parted = false;
	for (;; n++) {
		va = read_event(prog, &a, n + 1, &bad);
		vb = bad ? NULL : read_event(prog, &b, n + 1, &bad);
		if (bad || (!va && !vb))
			break;
		if (!va || !vb || json_diff(va, vb, &dopts, count_only, NULL)) {
			parted = true;
			break;
		}
		json_free(last);
		last = va;
		g_string_assign(last_text, a.line->str);
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
				json_kv_str(&w, "a", va ? a.line->str : NULL);
				json_kv_str(&w, "b", vb ? b.line->str : NULL);
				json_kv_str(&w, "last_shared", last ? last_text->str : NULL);
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
	g_string_free(last_text, TRUE);
	close_stream(&a);
	close_stream(&b);
	return rc;
}
