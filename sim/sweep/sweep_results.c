/* The results of a sweep (sweep_results.h). */
#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/sweep/sweep_record.h"
#include "sim/sweep/sweep_results.h"

struct sweep_results {
	char *path, *wall_path;
	char *header;
	uint64_t n;
	char **rec;        /* per point, or NULL */
	uint64_t *wall_ns; /* per point */
	char **runner;     /* per point: who ran it (NULL: read back from the file) */
	uint8_t *started;  /* per point: handed out in an earlier run, no record */
	uint64_t n_resumed;
	FILE *f, *wall;
	/* the path is no regular file (/dev/null, a pipe): a temporary file renamed over it
	 * would replace a device with a file, so it is written once at the end, in place,
	 * without a .wall beside it */
	bool special;
};

static int fail_errno(char *err, size_t errlen, const char *what, const char *path)
{
	snprintf(err, errlen, "%s %s: %s", what, path, strerror(errno));
	return -1;
}

/* Read FILE back: header, then records; a cut last line is dropped (the file is truncated
 * to its last whole line, so appending goes on from there). */
static int read_back(sweep_results *r, char *err, size_t errlen)
{
	gchar *text = NULL;
	gsize len = 0;
	GError *ge = NULL;
	if (!g_file_get_contents(r->path, &text, &len, &ge)) {
		bool missing = g_error_matches(ge, G_FILE_ERROR, G_FILE_ERROR_NOENT);
		if (!missing)
			snprintf(err, errlen, "cannot read %s: %s", r->path, ge->message);
		g_error_free(ge);
		return missing ? 1 : -1;
	}
	size_t whole = len;
	while (whole && text[whole - 1] != '\n')
		whole--;
	text[whole] = 0;
	char **lines = g_strsplit(text, "\n", -1);
	int rc = 0;
	if (!lines[0] || !lines[0][0]) {
		rc = 1; /* empty: start afresh */
	} else if (strcmp(lines[0], r->header)) {
		snprintf(err, errlen,
		         "%s holds the results of another sweep (its first line differs); expected the same scenario, "
		         "--seeds and --set as the run that wrote it, or another --out",
		         r->path);
		rc = -1;
	} else {
		for (size_t i = 1; lines[i] && lines[i][0]; i++) {
			uint64_t p;
			if (!sweep_rec_get_u64(lines[i], "point", &p) || p >= r->n) {
				snprintf(err, errlen, "%s:%zu: not a record of this sweep; expected {\"point\":N,…} with N < %" PRIu64,
				         r->path, i + 1, r->n);
				rc = -1;
				break;
			}
			if (!r->rec[p])
				r->n_resumed++;
			g_free(r->rec[p]);
			r->rec[p] = g_strdup(lines[i]);
		}
	}
	g_strfreev(lines);
	g_free(text);
	if (rc == 0 && truncate(r->path, (off_t)whole))
		rc = fail_errno(err, errlen, "cannot truncate", r->path);
	return rc;
}

static bool parse_point(const char *s, uint64_t *p)
{
	char *e;
	if (!g_ascii_isdigit(s[0]))
		return false;
	*p = g_ascii_strtoull(s, &e, 10);
	return !*e;
}

/* The column file: start markers without a record are points to mark as retried. */
static void read_wall(sweep_results *r)
{
	gchar *text = NULL;
	if (!g_file_get_contents(r->wall_path, &text, NULL, NULL))
		return;
	char **lines = g_strsplit(text, "\n", -1);
	for (size_t i = 0; lines[i]; i++) {
		char **f = g_strsplit(lines[i], "\t", 4);
		uint64_t p;
		if (f[0] && f[1] && parse_point(f[0], &p) && p < r->n) {
			if (!strcmp(f[1], "start") && !r->rec[p])
				r->started[p] = 1;
			if (!strcmp(f[1], "done") && f[2] && f[3]) {
				r->wall_ns[p] = (uint64_t)(g_ascii_strtod(f[3], NULL) * 1e6);
				g_free(r->runner[p]);
				r->runner[p] = g_strdup(f[2]);
			}
		}
		g_strfreev(f);
	}
	g_strfreev(lines);
	g_free(text);
}

sweep_results *sweep_results_open(const char *path, const char *header, uint64_t n_points, bool resume, char *err,
                                  size_t errlen)
{
	sweep_results *r = g_new0(sweep_results, 1);
	r->header = g_strdup(header);
	r->n = n_points;
	r->rec = g_new0(char *, n_points);
	r->wall_ns = g_new0(uint64_t, n_points);
	r->runner = g_new0(char *, n_points);
	r->started = g_new0(uint8_t, n_points);
	if (!path)
		return r;
	r->path = g_strdup(path);
	struct stat st;
	r->special = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
	if (r->special) {
		r->f = fopen(path, "w");
		if (!r->f) {
			fail_errno(err, errlen, "cannot write", path);
			sweep_results_free(r);
			return NULL;
		}
		return r;
	}
	r->wall_path = g_strdup_printf("%s.wall", path);
	int rb = resume ? read_back(r, err, errlen) : 1;
	if (rb < 0) {
		sweep_results_free(r);
		return NULL;
	}
	if (rb == 0)
		read_wall(r);
	/* afresh: a new file with the header; resumed: append to both files */
	r->f = fopen(path, rb ? "w" : "a");
	if (!r->f) {
		fail_errno(err, errlen, "cannot write", path);
		sweep_results_free(r);
		return NULL;
	}
	r->wall = fopen(r->wall_path, rb ? "w" : "a");
	if (!r->wall) {
		fail_errno(err, errlen, "cannot write", r->wall_path);
		sweep_results_free(r);
		return NULL;
	}
	if (rb) {
		fprintf(r->f, "%s\n", header);
		fflush(r->f);
	}
	return r;
}

void sweep_results_free(sweep_results *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	if (r->wall)
		fclose(r->wall);
	for (uint64_t i = 0; i < r->n; i++) {
		g_free(r->rec[i]);
		g_free(r->runner[i]);
	}
	g_free(r->rec);
	g_free(r->wall_ns);
	g_free(r->runner);
	g_free(r->started);
	g_free(r->header);
	g_free(r->path);
	g_free(r->wall_path);
	g_free(r);
}

uint64_t sweep_results_n_points(const sweep_results *r)
{
	return r->n;
}

const char *sweep_results_record(const sweep_results *r, uint64_t point)
{
	return point < r->n ? r->rec[point] : NULL;
}

uint64_t sweep_results_n_resumed(const sweep_results *r)
{
	return r->n_resumed;
}

bool sweep_results_was_started(const sweep_results *r, uint64_t point)
{
	return point < r->n && r->started[point];
}

void sweep_results_started(sweep_results *r, uint64_t point, const char *runner)
{
	if (!r->wall)
		return;
	fprintf(r->wall, "%" PRIu64 "\tstart\t%s\n", point, runner);
	fflush(r->wall);
}

void sweep_results_add(sweep_results *r, uint64_t point, const char *record, uint64_t wall_ns, const char *runner)
{
	if (point >= r->n)
		return;
	g_free(r->rec[point]);
	r->rec[point] = g_strdup(record);
	r->wall_ns[point] = wall_ns;
	g_free(r->runner[point]);
	r->runner[point] = g_strdup(runner);
	if (r->f && !r->special) {
		/* one write per line, flushed: an interruption cuts at most the last line */
		fprintf(r->f, "%s\n", record);
		fflush(r->f);
	}
	if (r->wall) {
		fprintf(r->wall, "%" PRIu64 "\tdone\t%s\t%.3f\n", point, runner, (double)wall_ns / 1e6);
		fflush(r->wall);
	}
}

/* Write `path` anew through a temporary file and a rename, so an interruption now leaves
 * the old file whole. */
static int rewrite(const char *path, GString *text, char *err, size_t errlen)
{
	char *tmp = g_strdup_printf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int rc = 0;
	if (!f || fwrite(text->str, 1, text->len, f) != text->len || fflush(f) || fsync(fileno(f)))
		rc = fail_errno(err, errlen, "cannot write", tmp);
	if (f && fclose(f) && !rc)
		rc = fail_errno(err, errlen, "cannot write", tmp);
	if (!rc && rename(tmp, path))
		rc = fail_errno(err, errlen, "cannot rename to", path);
	if (rc)
		unlink(tmp);
	g_free(tmp);
	return rc;
}

int sweep_results_finish(sweep_results *r, char *err, size_t errlen)
{
	if (!r->path)
		return 0;
	GString *t = g_string_new(r->header);
	g_string_append_c(t, '\n');
	for (uint64_t i = 0; i < r->n; i++)
		if (r->rec[i])
			g_string_append_printf(t, "%s\n", r->rec[i]);
	if (r->special) {
		int rc = fwrite(t->str, 1, t->len, r->f) != t->len || fflush(r->f) ? fail_errno(err, errlen, "cannot write", r->path) : 0;
		if (fclose(r->f) && !rc)
			rc = fail_errno(err, errlen, "cannot write", r->path);
		r->f = NULL;
		g_string_free(t, TRUE);
		return rc;
	}
	fclose(r->f);
	fclose(r->wall);
	r->f = r->wall = NULL;
	int rc = rewrite(r->path, t, err, errlen);
	g_string_assign(t, "");
	for (uint64_t i = 0; i < r->n; i++)
		if (r->rec[i])
			g_string_append_printf(t, "%" PRIu64 "\tdone\t%s\t%.3f\n", i, r->runner[i] ? r->runner[i] : "?",
			                       (double)r->wall_ns[i] / 1e6);
	if (!rc)
		rc = rewrite(r->wall_path, t, err, errlen);
	g_string_free(t, TRUE);
	return rc;
}
