/* Reading a command's input file, where "-" is standard input. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/scenario/scn_model.h"
#include "tools/cli.h"

/* Standard input's first bytes, once looked at (cli_is_capture): whoever reads it next
 * gets them first. */
static uint8_t stdin_head[4];
static size_t stdin_head_n;
static bool stdin_peeked;

static size_t stdin_read(void *buf, size_t n)
{
	size_t got = 0;
	while (stdin_head_n && got < n) {
		((uint8_t *)buf)[got++] = stdin_head[0];
		memmove(stdin_head, stdin_head + 1, --stdin_head_n);
	}
	return got + (got < n ? fread((uint8_t *)buf + got, 1, n - got, stdin) : 0);
}

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
		size_t got = in ? stdin_read(buf + n, cap - n) : fread(buf + n, 1, cap - n, f);
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

static bool capture_magic(const uint8_t *m);

bool cli_is_capture(const char *path, const char **kind)
{
	uint8_t head[4];
	size_t got;
	if (cli_is_stdin(path)) {
		if (!stdin_peeked) {
			stdin_peeked = true;
			stdin_head_n = fread(stdin_head, 1, sizeof(stdin_head), stdin);
		}
		memcpy(head, stdin_head, sizeof(head));
		got = stdin_head_n;
	} else {
		FILE *f = fopen(path, "rb");
		if (!f)
			return false;
		got = fread(head, 1, sizeof(head), f);
		fclose(f);
	}
	if (got < sizeof(head) || !capture_magic(head))
		return false;
	if (kind)
		*kind = head[0] == 0x0a ? "pcapng" : "pcap";
	return true;
}

scn_scenario *cli_load_scenario(const char *path, const scn_load_opts *opts, scn_diag *diag)
{
	const char *kind = NULL;
	if (cli_is_capture(path, &kind)) {
		const char *name = cli_input_name(path);
		scn_error(diag, (scn_loc){ name, 0, 0 },
		          "this is a %s capture, not a scenario; expected a scenario file (a capture is decoded by "
		          "`smcr-sim replay %s` and drawn by `smcr-sim msc %s`)",
		          kind, path, path);
		return NULL;
	}
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

/* The spooled file, removed by a signal that ends the process. */
static char spool_path[4096];

static void spool_signal(int sig)
{
	if (spool_path[0])
		unlink(spool_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The first bytes of a pcap (either byte order, µs or ns) or pcapng file. */
static bool capture_magic(const uint8_t *m)
{
	static const uint8_t magics[][4] = {
		{ 0xa1, 0xb2, 0xc3, 0xd4 }, { 0xd4, 0xc3, 0xb2, 0xa1 }, { 0xa1, 0xb2, 0x3c, 0x4d },
		{ 0x4d, 0x3c, 0xb2, 0xa1 }, { 0x0a, 0x0d, 0x0d, 0x0a },
	};
	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		if (!memcmp(m, magics[i], 4))
			return true;
	return false;
}

char *cli_spool_stdin(char *err, size_t errlen)
{
	uint8_t head[4];
	size_t got = stdin_read(head, sizeof(head));
	if (got < sizeof(head) || !capture_magic(head)) {
		if (ferror(stdin))
			snprintf(err, errlen, "<stdin>: cannot read the input (%s); expected a pcap or pcapng capture", strerror(errno));
		else if (got < sizeof(head))
			snprintf(err, errlen, "<stdin>: the input ends after %zu bytes; expected a pcap or pcapng capture", got);
		else
			snprintf(err, errlen,
			         "<stdin>: the input starts with %02x %02x %02x %02x, no pcap or pcapng magic number; expected a pcap "
			         "or pcapng capture",
			         head[0], head[1], head[2], head[3]);
		return NULL;
	}
	GError *e = NULL;
	gchar *path = NULL;
	int fd = g_file_open_tmp("smcr-sim-stdin-XXXXXX", &path, &e);
	if (fd < 0) {
		snprintf(err, errlen, "cannot keep standard input in a temporary file: %s", e->message);
		g_error_free(e);
		return NULL;
	}
	g_strlcpy(spool_path, path, sizeof(spool_path));
	signal(SIGINT, spool_signal);
	signal(SIGTERM, spool_signal);
	signal(SIGHUP, spool_signal);
	FILE *out = fdopen(fd, "wb");
	char buf[65536];
	size_t n;
	bool ok = out != NULL && fwrite(head, 1, sizeof(head), out) == sizeof(head);
	while (ok && (n = fread(buf, 1, sizeof(buf), stdin)) > 0)
		ok = fwrite(buf, 1, n, out) == n;
	ok = ok && !ferror(stdin);
	if (out && fclose(out))
		ok = false;
	if (!ok) {
		snprintf(err, errlen, "cannot copy standard input to %s: %s", path, strerror(errno));
		cli_spool_remove(path);
		return NULL;
	}
	return path;
}

void cli_spool_remove(char *path)
{
	if (!path)
		return;
	unlink(path);
	if (!strcmp(path, spool_path)) {
		spool_path[0] = 0;
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
	}
	g_free(path);
}
