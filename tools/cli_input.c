/* Reading a command's input file, where "-" is standard input. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/scenario/scn_model.h"
#include "tools/cli.h"

bool cli_is_stdin(const char *path)
{
	return path && !strcmp(path, "-");
}

const char *cli_input_name(const char *path)
{
	return cli_is_stdin(path) ? "<stdin>" : path;
}

int cli_read_input(const char *path, size_t max, const char *what, char **text, size_t *len, char *err, size_t errlen)
{
	const char *name = cli_input_name(path);
	bool in = cli_is_stdin(path);
	FILE *f = in ? stdin : fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: cannot read the file (%s); expected %s", name, strerror(errno), what);
		return -1;
	}
	size_t cap = 65536, n = 0;
	char *buf = g_malloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if (cap > max)
				break;
			cap = cap > max / 2 ? max + 1 : cap * 2; /* one byte past max tells it is over */
			buf = g_realloc(buf, cap + 1);
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0 || n > max)
			break;
	}
	bool failed = ferror(f) != 0;
	int e = errno;
	if (!in)
		fclose(f);
	if (failed) {
		snprintf(err, errlen, "%s: cannot read the %s (%s); expected %s", name, in ? "input" : "file", strerror(e), what);
		g_free(buf);
		return -1;
	}
	if (n > max) {
		snprintf(err, errlen, "%s: the %s is larger than %zu MiB; expected %s of at most %zu bytes", name, in ? "input" : "file",
		         max >> 20, what, max);
		g_free(buf);
		return -1;
	}
	buf[n] = 0;
	*len = n;
	*text = buf;
	return 0;
}

scn_scenario *cli_load_scenario(const char *path, const scn_load_opts *opts, scn_diag *diag)
{
	if (!cli_is_stdin(path))
		return scn_load_file_opts(path, opts, diag);
	/* the file is read whole before it is parsed anyway: read standard input the same way */
	char *text = NULL, err[256];
	size_t len = 0;
	if (cli_read_input(path, SCN_MAX_FILE_BYTES, "a scenario file", &text, &len, err, sizeof(err))) {
		/* err starts with the name, which the location gives */
		scn_error(diag, (scn_loc){ "<stdin>", 0, 0 }, "%s", err + strlen("<stdin>: "));
		return NULL;
	}
	scn_scenario *s = scn_load_string_opts("<stdin>", text, len, opts, diag);
	g_free(text);
	return s;
}

char *cli_spool_stdin(char *err, size_t errlen)
{
	GError *e = NULL;
	gchar *path = NULL;
	int fd = g_file_open_tmp("smcr-sim-stdin-XXXXXX", &path, &e);
	if (fd < 0) {
		snprintf(err, errlen, "cannot keep standard input in a temporary file: %s", e->message);
		g_error_free(e);
		return NULL;
	}
	FILE *out = fdopen(fd, "wb");
	char buf[65536];
	size_t n;
	bool ok = out != NULL;
	while (ok && (n = fread(buf, 1, sizeof(buf), stdin)) > 0)
		ok = fwrite(buf, 1, n, out) == n;
	ok = ok && !ferror(stdin);
	if (out && fclose(out))
		ok = false;
	if (!ok) {
		snprintf(err, errlen, "cannot copy standard input to %s: %s", path, strerror(errno));
		unlink(path);
		g_free(path);
		return NULL;
	}
	return path;
}
