/* `smcr-sim diff A B`: compare two runs (their `run --format json` results) or two JSON
 * reports (`report`, `replay`, `node --format json`), and list what differs by stable
 * identity (tools/json_diff.h). Exit 0 equal, 1 different, 2 unreadable or unlike input. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "sim/report/json_writer.h"
#include "tools/cli.h"
#include "tools/events_diff.h"
#include "tools/json_diff.h"

/* The report of a 200-stack world is about 540 KiB, so that of the largest world a
 * scenario may hold (65,536 stacks) fits, while a wrong file (/dev/zero) cannot take the
 * machine's memory (the parsed tree is about ten times the text). */
#define DIFF_MAX_DOCUMENT_BYTES ((size_t)256 << 20)

typedef struct diff_out {
	const char *name_a, *name_b;
	bool json, quiet;
	bool sources; /* --sources: where the results came from is compared too */
	json_writer w;
} diff_out;

/* Where a result came from rather than what happened: the scenario file's name and the
 * line of each statement. Two variants of one scenario differ in them everywhere (a line
 * removed moves every later line), so they are not compared unless --sources asks. */
static const char *const SOURCE_KEYS[] = { "scenario", "file", "line", NULL };
#define SOURCE_KEYS_TEXT "scenario, file, line"

/* The user's --ignore names, and the source keys unless --sources (g_free the array). */
static const char **ignore_list(gchar **user, bool sources)
{
	size_t n = user ? g_strv_length(user) : 0, k = 0;
	const char **out = g_new0(const char *, n + G_N_ELEMENTS(SOURCE_KEYS) + 1);
	for (size_t i = 0; i < n; i++)
		out[k++] = user[i];
	for (size_t i = 0; !sources && SOURCE_KEYS[i]; i++)
		out[k++] = SOURCE_KEYS[i];
	return out;
}

static bool integer(const char *t, gint64 *v)
{
	return t && g_ascii_string_to_signed(t, 10, G_MININT64, G_MAXINT64, v, NULL);
}

static void print_text(const diff_out *o, json_diff_kind kind, const char *path, const char *a, const char *b)
{
	if (kind == JSON_DIFF_ONLY_A || kind == JSON_DIFF_ONLY_B) {
		const char *v = kind == JSON_DIFF_ONLY_A ? a : b;
		bool scalar = v[0] != '{' && v[0] != '[';
		printf("%s: only in %s%s%s%s\n", path, kind == JSON_DIFF_ONLY_A ? o->name_a : o->name_b, scalar ? " (" : "",
		       scalar ? v : "", scalar ? ")" : "");
		return;
	}
	gint64 x, y;
	if (integer(a, &x) && integer(b, &y))
		printf("%s: %s -> %s (%+" G_GINT64_FORMAT ")\n", path, a, b, y - x);
	else
		printf("%s: %s -> %s\n", path, a, b);
}

static void on_diff(void *ctx, json_diff_kind kind, const char *path, const char *a, const char *b)
{
	diff_out *o = ctx;
	if (o->quiet)
		return;
	if (!o->json) {
		print_text(o, kind, path, a, b);
		return;
	}
	static const char *const names[] = { "changed", "only_a", "only_b" };
	json_begin_object(&o->w);
	json_kv_str(&o->w, "path", path);
	json_kv_str(&o->w, "kind", names[kind]);
	json_kv_str(&o->w, "a", a);
	json_kv_str(&o->w, "b", b);
	json_end_object(&o->w);
}

/* One document; NULL after printing why not. */
static json_value *load(const char *prog, const char *path)
{
	char *text = NULL, err[512];
	size_t len = 0;
	if (cli_read_input(path, DIFF_MAX_DOCUMENT_BYTES, "the JSON of `run --format json` or a JSON report", &text, &len, err,
	                   sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return NULL;
	}
	char perr[256];
	json_value *v = json_parse(text, len, perr, sizeof(perr));
	g_free(text);
	if (!v)
		fprintf(stderr, "%s: %s:%s (the input is the JSON of `run --format json` or a JSON report)\n", prog,
		        cli_input_name(path), perr);
	return v;
}

/* Like with like: a run's result with a run's result, a report with a report. */
static int same_kind(const char *prog, const diff_out *o, const json_value *a, const json_value *b)
{
	if (a->kind != JSON_OBJECT || b->kind != JSON_OBJECT) {
		fprintf(stderr, "%s: %s is not a JSON object; expected a run's result or a report\n", prog,
		        a->kind != JSON_OBJECT ? o->name_a : o->name_b);
		return CLI_EXIT_USAGE;
	}
	const char *fa = json_get_text(a, "format"), *fb = json_get_text(b, "format");
	if (fa && fb && strcmp(fa, fb)) {
		fprintf(stderr, "%s: %s is %s, %s is %s; expected two of a kind (smcr-run: run --format json; smcr-report: "
		                "report, replay or node --format json)\n",
		        prog, o->name_a, fa, o->name_b, fb);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

static int compare(const char *prog, diff_out *o, gchar **ignore, const char *pa, const char *pb)
{
	json_value *a = load(prog, pa), *b = a ? load(prog, pb) : NULL;
	int rc = a && b ? same_kind(prog, o, a, b) : CLI_EXIT_USAGE;
	if (!rc) {
		const char **ign = ignore_list(ignore, o->sources);
		json_diff_opts opts = { .ignore = ign };
		if (o->json && !o->quiet) {
			json_init(&o->w, stdout, true);
			json_begin_object(&o->w);
			json_kv_str(&o->w, "format", "smcr-diff");
			json_kv_uint(&o->w, "version", 1);
			json_kv_str(&o->w, "a", o->name_a);
			json_kv_str(&o->w, "b", o->name_b);
			json_key(&o->w, "not_compared");
			json_begin_array(&o->w);
			for (size_t i = 0; ign[i]; i++)
				json_string(&o->w, ign[i]);
			json_end_array(&o->w);
			json_key(&o->w, "differences");
			json_begin_array(&o->w);
		}
		size_t n = json_diff(a, b, &opts, on_diff, o);
		if (o->json && !o->quiet) {
			json_end_array(&o->w);
			json_kv_uint(&o->w, "count", n);
			json_end_object(&o->w);
			json_finish(&o->w);
		} else if (n && !o->quiet) {
			printf("%zu difference%s between %s and %s\n", n, n == 1 ? "" : "s", o->name_a, o->name_b);
		}
		if (n && !o->json && !o->quiet && !o->sources)
			printf("(not compared: " SOURCE_KEYS_TEXT ", where the runs came from; --sources compares them)\n");
		g_free(ign);
		rc = n ? CLI_EXIT_FAILED : CLI_EXIT_OK;
	}
	json_free(a);
	json_free(b);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	gchar *format = NULL;
	gchar **ignore = NULL;
	gboolean quiet = FALSE, events = FALSE, sources = FALSE;
	GOptionEntry entries[] = {
		{ "events", 'e', 0, G_OPTION_ARG_NONE, &events,
		  "A and B are event streams (run --events): print where they part, line by line", NULL },
		{ "format", 'f', 0, G_OPTION_ARG_STRING, &format, "output: text (default) or json", "text|json" },
		{ "ignore", 'i', 0, G_OPTION_ARG_STRING_ARRAY, &ignore,
		  "do not compare members of this name anywhere (repeatable; e.g. fingerprint, time_ns)", "NAME" },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "print nothing; only the exit status tells", NULL },
		{ "sources", 's', 0, G_OPTION_ARG_NONE, &sources,
		  "compare where the results came from too: the scenario's file name and its statements' lines "
		  "(" SOURCE_KEYS_TEXT "; not compared by default)",
		  NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	cli_options opts = {
		.params = "A B - compare two runs' JSON results, two JSON reports or two event streams",
		.entries = entries,
		.description =
		        "A and B are files written by `smcr-sim run --format json` (format smcr-run), or JSON reports\n"
		        "(`report`, `replay` or `node` with --format json: smcr-report); '-' reads one of them from\n"
		        "standard input. Lists are matched by stable identity, not position: stacks by name, RNICs by\n"
		        "name and port, link groups by id, links by local link id, connections by their 4-tuple,\n"
		        "timeline reports and expectations by what and when, fallback counters by reason code.\n"
		        "Each difference is a line 'PATH: A -> B (+delta)' or 'PATH: only in FILE', then a count.\n"
		        "With --events, A and B are event streams (`run --events`, JSON Lines) compared line by\n"
		        "line: the first line that differs (or where one ends), every field of it that differs\n"
		        "and the last line both share; --ignore time_ns, say, finds the first difference in what\n"
		        "happened rather than when.\n"
		        "Two variants of one scenario differ in its file name and, once a line is added or\n"
		        "removed, in the line of every later statement: the members scenario, file and line are\n"
		        "not compared unless --sources is given, in both modes.\n"
		        "Exit 0 when they are equal, 1 when they differ, 2 for unreadable or unlike input.",
	};
	int rc = cli_parse_options(&opts, &argc, &argv);
	diff_out o = { .quiet = quiet, .sources = sources };
	if (!rc && format) {
		o.json = !strcmp(format, "json");
		if (!o.json && strcmp(format, "text")) {
			fprintf(stderr, "%s: bad --format '%s'; expected text or json\n", argv[0], format);
			rc = CLI_EXIT_USAGE;
		}
	}
	if (!rc && argc != 3) {
		fprintf(stderr, "%s: expected two files A B (try --help)\n", argv[0]);
		rc = CLI_EXIT_USAGE;
	}
	if (!rc && cli_is_stdin(argv[1]) && cli_is_stdin(argv[2])) {
		fprintf(stderr, "%s: only one of A and B can be '-' (standard input)\n", argv[0]);
		rc = CLI_EXIT_USAGE;
	}
	if (!rc) {
		o.name_a = cli_input_name(argv[1]);
		o.name_b = cli_input_name(argv[2]);
		if (events) {
			const char **ign = ignore_list(ignore, sources);
			events_diff_opts eo = { o.name_a, o.name_b, ign, o.json, o.quiet };
			rc = events_diff(argv[0], argv[1], argv[2], &eo);
			if (rc == CLI_EXIT_FAILED && !o.json && !o.quiet && !sources)
				printf("(not compared: " SOURCE_KEYS_TEXT ", where the runs came from; --sources compares them)\n");
			g_free(ign);
		} else {
			rc = compare(argv[0], &o, ignore, argv[1], argv[2]);
		}
	}
	g_free(format);
	g_strfreev(ignore);
	return rc;
}
