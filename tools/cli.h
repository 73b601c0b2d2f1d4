/* The smcr-sim command line: one binary, one file per subcommand (tools/cmd_*.c). */
#ifndef SMCR_CLI_H
#define SMCR_CLI_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The exit status of every command (README and smcr-sim(1) print this table). */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAILED 1 /* it ran: an expectation failed, differences found, data did not check */
#define CLI_EXIT_USAGE 2  /* bad option or value, bad scenario, unusable file, cannot run here */
#define CLI_EXIT_LIMIT 3  /* out of memory or a resource limit */
#define CLI_EXIT_STATUS_TEXT                                                                           \
	"Exit status (every command):\n"                                                               \
	"  0  success: every expectation met, no difference, every byte checked\n"                     \
	"  1  it ran, and something failed: an expectation, a comparison (differences found),\n"       \
	"     a data check, a damaged capture\n"                                                       \
	"  2  usage or input error: bad option or value, bad scenario, unreadable or unusable file,\n" \
	"     a device or program it needs is not there\n"                                             \
	"  3  out of memory or a resource limit\n"

/* A subcommand gets argv with argv[0] = "smcr-sim SUBCOMMAND" and returns the exit code
 * (CLI_EXIT_*). */
typedef int (*cli_main_fn)(int argc, char **argv);

typedef struct cli_command {
	const char *name;
	const char *summary;
	cli_main_fn main;
} cli_command;

int cmd_applicability(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_debug(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_msc(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_interop(int argc, char **argv);
int cmd_node(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_swarm(int argc, char **argv);
/* smcr-sim debug frames FILE (tools/debug_frames.c) */
int debug_frames(int argc, char **argv);
/* smcr-sim debug memory SCENARIO (tools/debug_memory.c) */
int debug_memory(int argc, char **argv);

/* Run the command named argv[1] of table[n] with argv[1..], its argv[0] reading
 * "GROUP NAME"; its exit code, or -1 when no command has that name. */
int cli_run_command(const cli_command *table, size_t n, const char *group, int argc, char **argv);

/* `smcr-sim --version` (tools/version.c): version, git description, optional parts. */
void cli_print_version(FILE *out);
/* Where `make install` puts the sample scenarios (DATADIR/smcr-sim/scenarios); in the
 * source tree they are in scenarios/. */
const char *cli_sample_scenarios(void);
/* "Examples: … Sample scenarios: …", the end of `smcr-sim --help` and `run --help`. */
void cli_print_examples(FILE *out);

/* A subcommand's options (tools/cli.c). */
typedef struct cli_options {
	const char *params;           /* --help's first line: "FILE - what the command does" */
	const GOptionEntry *entries;  /* NULL-terminated */
	const char *summary;          /* text before the options, or NULL */
	const char *description;      /* text after the options, or NULL */
	struct capture_args *capture; /* adds the --pcap options (tools/capture_opts.h), or NULL */
	struct observe_args *observe; /* adds --events, --stats, … (tools/observe_opts.h), or NULL */
} cli_options;

/* Parse and remove the options from argc/argv. 0, or 2 after printing "PROG: message". */
int cli_parse_options(const cli_options *o, int *argc, char ***argv);

/* Parse a duration like "10s", "250ms", "3us", "42ns", "1.5s" or a bare ns count.
 * Returns 0 and sets *ns, or -1 with a message in err (size errlen). */
int cli_parse_duration(const char *text, unsigned long long *ns, char *err, unsigned long errlen);
/* "-" names standard input (or output) wherever a command takes a file. */
bool cli_is_stdin(const char *path);
/* The name to print for an input path: "<stdin>" for "-". */
const char *cli_input_name(const char *path);
/* The whole of a file, or of standard input for "-", NUL-terminated (g_free it), at most
 * max bytes (a device or a pipe that never ends, /dev/zero, is refused once it has given
 * more); 0, or -1 with the reason in err, which starts with the input's name and says
 * what was expected (what: "a scenario file", ...). */
int cli_read_input(const char *path, size_t max, const char *what, char **text, size_t *len, char *err, size_t errlen);

/* Standard input, a pcap or pcapng capture, copied to a temporary file, for readers that
 * need a file they can read twice (a capture replayed in two passes); its path (unlink
 * it with cli_spool_remove), or NULL with the reason in err. Input that does not start
 * like a capture is refused before anything is copied (`cat /dev/zero |` would fill
 * the disk), and the file is removed when the process is interrupted. */
char *cli_spool_stdin(char *err, size_t errlen);
void cli_spool_remove(char *path);

/* Inputs are told apart by what they hold, not by their names: whether a file (or
 * standard input, whose first bytes are kept for whoever reads it next) starts like a
 * pcap or pcapng capture. A file that cannot be read is no capture. The name of the
 * format in *kind ("pcapng", "pcap") when it is one. */
bool cli_is_capture(const char *path, const char **kind);
/* A scenario file, or standard input for "-" (named "<stdin>" in messages); NULL with the
 * errors in diag (sim/scenario/scn_model.h). */
struct scn_scenario;
struct scn_diag;
struct scn_load_opts;
struct scn_scenario *cli_load_scenario(const char *path, const struct scn_load_opts *opts, struct scn_diag *diag);

/* Parse a size: "64M", "64MiB", "65536", "10KB" (sim/scenario/scn_values.h). A bare number
 * counts bare_unit bytes (1: bytes; 1 << 20 for an option that took MiB before it took
 * units). 0, or -1 on junk or overflow. */
int cli_parse_size(const char *text, uint64_t bare_unit, uint64_t *bytes);
/* Parse an unsigned integer (decimal or 0x hex); -1 on junk or overflow. */
int cli_parse_u64(const char *text, unsigned long long *out);

#endif
