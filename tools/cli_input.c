/* Reading a command's input file, where "-" is standard input. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

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
	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
		g_string_append_len(s, buf, (gssize)n);
	if (ferror(stdin)) {
		snprintf(err, errlen, "<stdin>: %s", strerror(errno));
		g_string_free(s, TRUE);
		return -1;
	}
	*len = s->len;
	*text = g_string_free(s, FALSE);
	return 0;
}
