/* smcr-sim: dispatch to a subcommand. Each subcommand parses its own options with a
 * GOptionContext and has its own --help. */
#include <errno.h>
#include <glib.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/oom.h"
#include "tools/cli.h"

static const cli_command commands[] = {
	{ "applicability", "will SMC-R help this workload? SMCAT's figures from a TCP capture, its applications re-run", cmd_applicability },
	{ "bench", "measure the simulator's speed (scheduler, fabric, protocol, replay)", cmd_bench },
	{ "check", "parse and validate scenario files", cmd_check },
	{ "compare", "run a scenario as written and all on TCP: latency, throughput, CPU side by side", cmd_compare },
	{ "debug", "developer tools (fabric-pcap: capture a simulated RoCE exchange)", cmd_debug },
	{ "diff", "compare two runs' JSON results or reports: what differs, by stable identity", cmd_diff },
	{ "interop", "run one stack against a real SMC-R peer (Linux) on a real interface and RDMA device", cmd_interop },
	{ "msc", "draw a message-sequence chart (SVG) of a scenario's run or a capture", cmd_msc },
	{ "node", "one SMC-R stack on a real RDMA device, CLC over kernel TCP to another node", cmd_node },
	{ "replay", "decode a pcap/pcapng capture of SMC-R traffic into reports", cmd_replay },
	{ "report", "run a scenario and print its final NETSTAT DEVLINKS SMC-style report", cmd_report },
	{ "run", "run a scenario: timeline, reports, expectations, fingerprint", cmd_run },
	{ "swarm", "random worlds with random faults, checked against invariants (on sweep's runners)", cmd_swarm },
	{ "sweep", "run a scenario over seeds and parameter values: one process, --jobs N or MPI", cmd_sweep },
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: smcr-sim COMMAND [OPTION…]\n\n"
	             "A deterministic simulator of SMC-R (RFC 7609) fabrics.\n\nCommands:\n");
	for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
		fprintf(out, "  %-13s  %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nOptions:\n  -h, --help     show this help\n  --version      print the version and the optional parts\n"
	             "\nRun 'smcr-sim COMMAND --help' for a command's options.\n\n");
	cli_print_examples(out);
	fprintf(out, "\n%s", CLI_EXIT_STATUS_TEXT);
}

/* GLib aborts when an allocation fails (g_malloc: "failed to allocate N bytes", g_new:
 * "overflow allocating"); the run stops with the one out-of-memory message and exit code 3
 * instead (sim/engine/oom.h). Other fatal messages keep GLib's own handling. */
static bool glib_out_of_memory(const char *message)
{
	if (!message)
		return false;
	const char *p = strstr(message, "failed to allocate ");
	if (p) {
		sim_out_of_memory("a GLib allocation", (size_t)strtoull(p + strlen("failed to allocate "), NULL, 10));
		return true;
	}
	if (strstr(message, "overflow allocating"))
		sim_out_of_memory("a GLib allocation (size overflow)", 0);
	return false;
}

static void glib_log_handler(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer user)
{
	if (level & G_LOG_LEVEL_ERROR)
		glib_out_of_memory(message);
	g_log_default_handler(domain, level, message, user);
}

static GLogWriterOutput glib_log_writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user)
{
	if (level & G_LOG_LEVEL_ERROR)
		for (gsize i = 0; i < n_fields; i++)
			if (!strcmp(fields[i].key, "MESSAGE") && fields[i].length < 0)
				glib_out_of_memory(fields[i].value);
	return g_log_writer_default(level, fields, n_fields, user);
}

/* The command's exit code, or 2 when its standard output could not be written whole (a
 * full disk, a closed descriptor): a report or a capture that is cut must not exit 0. */
static int output_checked(int rc)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	fprintf(stderr, "smcr-sim: writing standard output failed (%s); the output is incomplete\n", g_strerror(errno));
	return rc > CLI_EXIT_USAGE ? rc : CLI_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	/* GLib writes --help in the terminal's character set ("…" rather than "?" under a
	 * UTF-8 locale). LC_CTYPE only: LC_NUMERIC would change printf's decimal point and so
	 * the output, which must not depend on the locale. */
	setlocale(LC_CTYPE, "");
	g_log_set_writer_func(glib_log_writer, NULL, NULL);
	g_log_set_handler("GLib", G_LOG_LEVEL_ERROR | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION, glib_log_handler, NULL);
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-V") || !strcmp(name, "version")) {
		cli_print_version(stdout);
		return 0;
	}
	int rc = cli_run_command(commands, G_N_ELEMENTS(commands), "smcr-sim", argc, argv);
	if (rc >= 0)
		return output_checked(rc);
	fprintf(stderr, "smcr-sim: unknown command '%s' (try 'smcr-sim --help')\n", name);
	return CLI_EXIT_USAGE;
}
