/* `smcr-sim replay [--mode decode|timing|redrive] FILE`: read a pcap/pcapng capture of
 * SMC-R traffic. The options of every mode, and the mode's main.
 *
 * Modes (one command, one reader):
 *   decode   reconstruct the SMC-R picture and print it as the simulator's reports
 *            (tools/replay_decode_cmd.c, sim/replay/replay.h)
 *   timing   inject the frames into a scenario's fabric at their (scaled) times
 *            (tools/replay_timing_cmd.c, sim/redrive/replay_timing_run.h)
 *   redrive  let our core play one side of the conversation and compare, message by
 *            message (tools/replay_redrive_cmd.c, sim/redrive/redrive.h)
 * Exit status (decode): 0 decoded, 1 decoded but the capture had damage or messages that
 * do not decode (listed, with frame numbers, on stderr and in the report), 2 usage error
 * or a file that cannot be used at all. timing: as `smcr-sim run`, and 1 for a damaged
 * capture. redrive: 0 no difference, 1 differences (or damage), 2 unusable. */
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tools/cli.h"
#include "tools/replay_cli.h"

static void args_free(replay_cli *a)
{
	gchar **all[] = { &a->mode, &a->format, &a->report, &a->smcid, &a->stall, &a->scenario, &a->speed, &a->play, &a->offset,
		          &a->inject_at, &a->end, &a->seed, &a->side, &a->wait, &a->max_gap };
	for (size_t i = 0; i < G_N_ELEMENTS(all); i++)
		g_free(*all[i]);
	capture_args_free(&a->cap);
}

/* The mode's main, or 2 after saying why not. */
static int run_mode(const char *prog, const char *file, replay_cli *a)
{
	if (!a->mode || !strcmp(a->mode, "decode"))
		return replay_decode_main(prog, file, a);
	bool decode_opts = a->format || a->report || a->smcid || a->messages || a->stall;
	if (strcmp(a->mode, "timing") && strcmp(a->mode, "redrive"))
		fprintf(stderr, "%s: unknown mode '%s' (decode, timing, redrive)\n", prog, a->mode);
	else if (decode_opts)
		fprintf(stderr, "%s: --format, --report, --smcid, --messages and --stall are for --mode decode\n", prog);
	else if (!strcmp(a->mode, "timing"))
		return replay_timing_main(prog, file, a);
	else
		return replay_redrive_main(prog, file, a);
	return 2;
}

/* The first kilobyte is printable text (tabs and line ends allowed): a scenario, not a
 * capture. */
static bool looks_like_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	unsigned char buf[1024];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (buf[i] < 0x20 && buf[i] != '\t' && buf[i] != '\n' && buf[i] != '\r')
			return false;
	return n > 0;
}

int cmd_replay(int argc, char **argv)
{
	replay_cli a;
	memset(&a, 0, sizeof(a));
	a.max_list = 50;
	GOptionEntry entries[] = {
		{ "mode", 'm', 0, G_OPTION_ARG_STRING, &a.mode, "decode (default), timing or redrive", "MODE" },
		{ "format", 'f', 0, G_OPTION_ARG_STRING, &a.format,
		  "decode: text (default) or json, as run; netstat and smc are short for text with that --report",
		  "text|json" },
		{ "report", 0, 0, G_OPTION_ARG_STRING, &a.report, "decode: style of the text report: netstat (default), smc, or smc_chk (its verdict per connection)",
		  "STYLE" },
		{ "smcid", 0, 0, G_OPTION_ARG_STRING, &a.smcid, "decode, netstat: only the link group or link with this hex id",
		  "ID" },
		{ "max-list", 0, 0, G_OPTION_ARG_INT, &a.max_list, "decode: list at most N frames per list, all are counted (50; 0 = all)", "N" },
		{ "messages", 0, 0, G_OPTION_ARG_NONE, &a.messages,
		  "decode: list every SMC-R message (CLC, LLC, CDC, RDMA WRITE packets) with its frame and fields instead "
		  "of the report (--format json: as JSON)",
		  NULL },
		{ "stall", 0, 0, G_OPTION_ARG_STRING, &a.stall, "decode: requests unacknowledged this long before the end mean a stopped link (1s)", "TIME" },
		{ "scenario", 's', 0, G_OPTION_ARG_FILENAME, &a.scenario, "timing: the scenario to inject into; redrive: "
		                                                          "the world to build (optional)",
		  "FILE" },
		{ "speed", 0, 0, G_OPTION_ARG_STRING, &a.speed, "timing: replay speed (2 = twice as fast; default 1)", "X" },
		{ "play", 0, 0, G_OPTION_ARG_STRING, &a.play, "timing: inject the frames of these hosts (default: every host "
		                                              "the scenario does not have)",
		  "IP[,IP...]" },
		{ "offset", 0, 0, G_OPTION_ARG_STRING, &a.offset, "timing: virtual time of the capture's first frame (0)", "TIME" },
		{ "inject-at", 0, 0, G_OPTION_ARG_STRING, &a.inject_at, "timing: the switch to inject at (default: the first)",
		  "SWITCH" },
		{ "end", 0, 0, G_OPTION_ARG_STRING, &a.end, "timing, redrive: virtual end time", "TIME" },
		{ "seed", 0, 0, G_OPTION_ARG_STRING, &a.seed, "timing, redrive: run seed", "N" },
		{ "side", 0, 0, G_OPTION_ARG_STRING, &a.side, "redrive: the recorded side to feed in: client, server or an IPv4 "
		                                              "address (default client); our core plays the other",
		  "SIDE" },
		{ "wait", 0, 0, G_OPTION_ARG_STRING, &a.wait, "redrive: how long to wait for an answer before going on (1s)",
		  "TIME" },
		{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &a.verbose, "timing, redrive: the world's event log", NULL },
		{ "max-gap", 0, 0, G_OPTION_ARG_STRING, &a.max_gap,
		  "every mode: a longer jump between two frames' time stamps is damage, reported with both frames and "
		  "closed (1h)",
		  "TIME" },
		{ NULL },
	};
	cli_options opts = {
		.params = "FILE - decode, replay or re-drive a pcap/pcapng capture of SMC-R traffic ('-': stdin)",
		.entries = entries,
		.capture = &a.cap,
		.description =
		        "decode: reconstructs peers, link groups, links (QPs, GIDs, MACs, 4-byte link ids), connections\n"
		        "(tokens, cursors, bytes), fallbacks with their reasons and link failures from TCP/CLC and\n"
		        "RoCE v1/v2 frames, and prints them as the simulator's reports, followed by the capture\n"
		        "summary: frames not explained (each listed with its reason) and decode errors with frame\n"
		        "numbers. Exit status: 0 decoded, 1 decoded with errors, 2 unusable input or usage.\n"
		        "timing: runs --scenario with the capture's frames injected at a switch at their recorded\n"
		        "times (scaled by --speed); TCP acknowledgments follow the simulated peer, ARP is answered.\n"
		        "redrive: feeds one recorded side's SMC-R messages to a simulated stack whose core plays\n"
		        "the other side, and lists where its messages differ from the recorded ones (QPNs, PSNs,\n"
		        "rkeys, addresses, tokens and random ids mapped, not compared). See docs/traces.md.",
	};
	int rc = cli_parse_options(&opts, &argc, &argv);
	if (!rc && argc != 2) {
		fprintf(stderr, "%s: expected one capture FILE (try --help)\n", argv[0]);
		rc = 2;
	}
	/* '-': standard input, kept in a temporary file (timing and redrive read it twice) */
	char *spooled = NULL, err[512];
	if (!rc && cli_is_stdin(argv[1]) && !(spooled = cli_spool_stdin(err, sizeof(err)))) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		rc = CLI_EXIT_USAGE;
	}
	if (!rc && a.max_gap) {
		unsigned long long v;
		if (cli_parse_duration(a.max_gap, &v, err, sizeof(err)) || !v) {
			fprintf(stderr, "%s: bad --max-gap '%s'; expected a duration over 0, such as 1h\n", argv[0], a.max_gap);
			rc = CLI_EXIT_USAGE;
		}
		a.max_gap_ns = v;
	}
	if (!rc && !spooled && !cli_is_capture(argv[1], NULL) && looks_like_text(argv[1])) {
		/* told by what it holds: a scenario given to replay */
		fprintf(stderr,
		        "%s: %s: cannot read as a capture file: it is text, with no pcap or pcapng magic number at its start; a scenario is "
		        "run by `smcr-sim run %s` and drawn by `smcr-sim msc %s`\n",
		        argv[0], argv[1], argv[1], argv[1]);
		rc = CLI_EXIT_USAGE;
	}
	if (!rc) {
		a.name = cli_input_name(argv[1]);
		rc = run_mode(argv[0], spooled ? spooled : argv[1], &a);
	}
	cli_spool_remove(spooled);
	args_free(&a);
	return rc;
}
