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

int cli_read_input(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
	if (!cli_is_stdin(path)) {
		GError *e = NULL;
		gsize n = 0;
		if (!g_file_get_contents(path, text, &n, &e)) {
			snprintf(err, errlen, "%s", e->message);
			g_error_free(e);
			return -1;
		}
		*len = n;
		return 0;
	}
	GString *s = g_string_new(NULL);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0) {
		if (s->len + n > SCN_MAX_FILE_BYTES) {
			snprintf(err, errlen, "more than %u MiB of input",
			         SCN_MAX_FILE_BYTES >> 20);
			g_string_free(s, TRUE);
			return -1;
		}
		g_string_append_len(s, buf, (gssize)n);
	}
	if (ferror(stdin)) {
		snprintf(err, errlen, "%s", strerror(errno));
		g_string_free(s, TRUE);
		return -1;
	}
	*len = s->len;
	*text = g_string_free(s, FALSE);
	return 0;
}

scn_scenario *cli_load_scenario(const char *path, const scn_load_opts *opts, scn_diag *diag)
{
	if (!cli_is_stdin(path))
		return scn_load_file_opts(path, opts, diag);
	/* the file is read whole before it is parsed anyway: read standard input the same way */
	char *text = NULL, err[256];
	size_t len = 0;
	if (cli_read_input(path, &text, &len, err, sizeof(err))) {
		scn_error(diag, (scn_loc){ "<stdin>", 0, 0 }, "%s", err);
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
