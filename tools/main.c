/* smcr-sim: dispatch to a subcommand. Each subcommand parses its own options with a
 * GOptionContext and has its own --help. */
#include <glib.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "tools/cli.h"

static const cli_command commands[] = {
	{ "bench", "measure the simulator's speed (scheduler, fabric, protocol, replay)", cmd_bench },
	{ "check", "parse and validate scenario files", cmd_check },
	{ "debug", "developer tools (fabric-pcap: capture a simulated RoCE exchange)", cmd_debug },
	{ "diff", "compare two runs' JSON results or reports: what differs, by stable identity", cmd_diff },
	{ "interop", "run one stack against a real SMC-R peer (Linux) on a real interface and RDMA device", cmd_interop },
	{ "msc", "draw a message-sequence chart (SVG) of a scenario's run or a capture", cmd_msc },
	{ "node", "one SMC-R stack on a real RDMA device, CLC over kernel TCP to another node", cmd_node },
	{ "replay", "decode a pcap/pcapng capture of SMC-R traffic into reports", cmd_replay },
	{ "report", "run a scenario and print its final NETSTAT DEVLINKS SMC-style report", cmd_report },
	{ "run", "run a scenario: timeline, reports, expectations, fingerprint", cmd_run },
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: smcr-sim COMMAND [OPTION…]\n\n"
	             "A deterministic simulator of SMC-R (RFC 7609) fabrics.\n\nCommands:\n");
	for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nOptions:\n  -h, --help     show this help\n  --version      print the version and the optional parts\n"
	             "\nRun 'smcr-sim COMMAND --help' for a command's options.\n\n%s", CLI_EXIT_STATUS_TEXT);
}

int main(int argc, char **argv)
{
	/* GLib writes --help in the terminal's character set ("…" rather than "?" under a
	 * UTF-8 locale). LC_CTYPE only: LC_NUMERIC would change printf's decimal point and so
	 * the output, which must not depend on the locale. */
	setlocale(LC_CTYPE, "");
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
		return rc;
	fprintf(stderr, "smcr-sim: unknown command '%s' (try 'smcr-sim --help')\n", name);
	return CLI_EXIT_USAGE;
}
