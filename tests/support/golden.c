/* Golden-file comparison for printer tests (see golden.h). */
#include "tests/support/golden.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

char *golden_capture(golden_print_fn print, const void *arg, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	cr_assert_not_null(f);
	print(f, arg);
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

void golden_check(const char *path, const char *got, size_t got_len)
{
	if (getenv("SMCR_UPDATE_GOLDEN")) {
		GError *err = NULL;
		cr_assert(g_file_set_contents(path, got, (gssize)got_len, &err), "cannot write %s: %s", path,
		          err ? err->message : "?");
		return;
	}
	char *want = NULL;
	gsize want_len = 0;
	GError *err = NULL;
	cr_assert(g_file_get_contents(path, &want, &want_len, &err),
	          "cannot read golden %s (%s); run with SMCR_UPDATE_GOLDEN=1 to create it", path,
	          err ? err->message : "?");
	/* report the first differing line, which is what a reader needs */
	size_t line = 1, i = 0;
	while (i < got_len && i < want_len && got[i] == want[i]) {
		if (got[i] == '\n')
			line++;
		i++;
	}
	if (i != got_len || i != want_len) {
		size_t gs = i, ws = i;
		while (gs > 0 && got[gs - 1] != '\n')
			gs--;
		while (ws > 0 && want[ws - 1] != '\n')
			ws--;
		const char *ge = memchr(got + gs, '\n', got_len - gs), *we = memchr(want + ws, '\n', want_len - ws);
		int gl = (int)((ge ? (size_t)(ge - got) : got_len) - gs), wl = (int)((we ? (size_t)(we - want) : want_len) - ws);
		cr_assert_fail("%s differs at line %zu:\n  got:  %.*s\n  want: %.*s\n(SMCR_UPDATE_GOLDEN=1 rewrites it)",
		               path, line, gl, got + gs, wl, want + ws);
	}
	g_free(want);
}
