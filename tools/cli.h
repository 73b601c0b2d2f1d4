/* The smcr-sim command line: one binary, one file per subcommand (tools/cmd_*.c). */
#ifndef SMCR_CLI_H
#define SMCR_CLI_H

#include <glib.h>

#define SMCR_SIM_VERSION "0.1.0"

/* A subcommand gets argv with argv[0] = "smcr-sim SUBCOMMAND" and returns the exit code:
 * 0 success, 1 the run ran but failed (expectation, check), 2 usage or input error. */
typedef int (*cli_main_fn)(int argc, char **argv);

typedef struct cli_command {
	const char *name;
	const char *summary;
	cli_main_fn main;
} cli_command;

int cmd_bench(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_debug(int argc, char **argv);
int cmd_interop(int argc, char **argv);
int cmd_node(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
/* smcr-sim debug frames FILE (tools/debug_frames.c) */
int debug_frames(int argc, char **argv);
/* smcr-sim debug memory SCENARIO (tools/debug_memory.c) */
int debug_memory(int argc, char **argv);

/* Run the command named argv[1] of table[n] with argv[1..], its argv[0] reading
 * "GROUP NAME"; its exit code, or -1 when no command has that name. */
int cli_run_command(const cli_command *table, size_t n, const char *group, int argc, char **argv);

/* A subcommand's options (tools/cli.c). */
typedef struct cli_options {
	const char *params;             /* --help's first line: "FILE - what the command does" */
	const GOptionEntry *entries;    /* NULL-terminated */
	const char *summary;            /* text before the options, or NULL */
	const char *description;        /* text after the options, or NULL */
	struct capture_args *capture;   /* adds the --pcap options (tools/capture_opts.h), or NULL */
} cli_options;

/* Parse and remove the options from argc/argv. 0, or 2 after printing "PROG: message". */
int cli_parse_options(const cli_options *o, int *argc, char ***argv);

/* Parse a duration like "10s", "250ms", "3us", "42ns", "1.5s" or a bare ns count.
 * Returns 0 and sets *ns, or -1 with a message in err (size errlen). */
int cli_parse_duration(const char *text, unsigned long long *ns, char *err, unsigned long errlen);
/* Parse an unsigned integer (decimal or 0x hex); -1 on junk or overflow. */
int cli_parse_u64(const char *text, unsigned long long *out);

#endif
