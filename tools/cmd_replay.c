/* `smcr-sim replay [--mode decode|timing|redrive] FILE`: read a pcap/pcapng capture of
 * SMC-R traffic.
 *
 * Modes (one command, one reader):
 *   decode   reconstruct the SMC-R picture and print it as the simulator's reports
 *   timing   inject the frames into a scenario's fabric at their (scaled) times
 *            (tools/replay_timing_cmd.c, sim/redrive/replay_timing.h)
 *   redrive  let our core play one side of the conversation and compare, message by
 *            message (tools/replay_redrive_cmd.c, sim/redrive/redrive.h)
 * Exit status (decode): 0 decoded, 1 decoded but the capture had damage or messages that
 * do not decode (listed, with frame numbers, on stderr and in the report), 2 usage error
 * or a file that cannot be used at all. timing: as `smcr-sim run`, and 1 for a damaged
 * capture. redrive: 0 no difference, 1 differences (or damage), 2 unusable. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/replay/replay.h"
#include "sim/report/report_print.h"
#include "tools/cli.h"
#include "tools/replay_cli.h"

typedef enum out_format { FMT_NETSTAT, FMT_SMC, FMT_JSON, FMT_NONE } out_format;

static void print_msg(void *ctx, const replay_msg *m)
{
	replay_print_msg(ctx, m);
}

static void msg_json(void *ctx, const replay_msg *m)
{
	replay_write_msg_json(ctx, m);
}

static void json_extra(json_writer *w, void *ctx)
{
	replay_write_json(w, ctx);
}

static int parse_smcid(const char *text, uint32_t *out)
{
	const char *p = text;
	if (!g_ascii_strncasecmp(p, "0x", 2))
		p += 2;
	if (!*p || strlen(p) > 8)
		return -1;
	for (const char *q = p; *q; q++)
		if (!g_ascii_isxdigit(*q))
			return -1;
	*out = (uint32_t)strtoul(p, NULL, 16);
	return *out ? 0 : -1;
}

int cmd_replay(int argc, char **argv)
{
	replay_cli a;
	memset(&a, 0, sizeof(a));
	a.max_list = 50;
	GOptionEntry entries[] = {
		{ "mode", 'm', 0, G_OPTION_ARG_STRING, &a.mode, "decode (default), timing or redrive", "MODE" },
		{ "format", 'f', 0, G_OPTION_ARG_STRING, &a.format, "decode: report format: netstat (default), smc, json", "FMT" },
		{ "smcid", 0, 0, G_OPTION_ARG_STRING, &a.smcid, "decode, netstat: only the link group or link with this hex id",
		  "ID" },
		{ "max-list", 0, 0, G_OPTION_ARG_INT, &a.max_list, "decode: list at most N frames per list, all are counted (50; 0 = all)", "N" },
		{ "messages", 0, 0, G_OPTION_ARG_NONE, &a.messages,
		  "decode: list every SMC-R message (CLC, LLC, CDC, RDMA WRITE packets) with its frame and fields instead "
		  "of the report (--format json: as JSON)",
		  NULL },
		{ "stall", 0, 0, G_OPTION_ARG_STRING, &a.stall, "decode: requests unacknowledged this long before the end mean a stopped link (1s)", "TIME" },
		{ "scenario", 's', 0, G_OPTION_ARG_FILENAME, &a.scenario, "timing: the scenario to inject into; redrive: "
		  "the world to build (optional)", "FILE" },
		{ "speed", 0, 0, G_OPTION_ARG_STRING, &a.speed, "timing: replay speed (2 = twice as fast; default 1)", "X" },
		{ "play", 0, 0, G_OPTION_ARG_STRING, &a.play, "timing: inject the frames of these hosts (default: every host "
		  "the scenario does not have)", "IP[,IP...]" },
		{ "offset", 0, 0, G_OPTION_ARG_STRING, &a.offset, "timing: virtual time of the capture's first frame (0)", "TIME" },
		{ "inject-at", 0, 0, G_OPTION_ARG_STRING, &a.inject_at, "timing: the switch to inject at (default: the first)",
		  "SWITCH" },
		{ "end", 0, 0, G_OPTION_ARG_STRING, &a.end, "timing, redrive: virtual end time", "TIME" },
		{ "seed", 0, 0, G_OPTION_ARG_STRING, &a.seed, "timing, redrive: run seed", "N" },
		{ "side", 0, 0, G_OPTION_ARG_STRING, &a.side, "redrive: the recorded side to feed in: client, server or an IPv4 "
		  "address (default client); our core plays the other", "SIDE" },
		{ "wait", 0, 0, G_OPTION_ARG_STRING, &a.wait, "redrive: how long to wait for an answer before going on (1s)",
		  "TIME" },
		{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &a.verbose, "timing, redrive: the world's event log", NULL },
		{ NULL },
	};
	cli_options opts = {
		.params = "FILE - decode, replay or re-drive a pcap/pcapng capture of SMC-R traffic",
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
	int rc = 2;
	if (cli_parse_options(&opts, &argc, &argv))
		goto out;
	if (argc != 2) {
		fprintf(stderr, "%s: expected one capture FILE (try --help)\n", argv[0]);
		goto out;
	}
	if (a.mode && strcmp(a.mode, "decode")) {
		bool decode_opts = a.format || a.smcid || a.messages || a.stall;
		if (strcmp(a.mode, "timing") && strcmp(a.mode, "redrive"))
			fprintf(stderr, "%s: unknown mode '%s' (decode, timing, redrive)\n", argv[0], a.mode);
		else if (decode_opts)
			fprintf(stderr, "%s: --format, --smcid, --messages and --stall are for --mode decode\n", argv[0]);
		else if (!strcmp(a.mode, "timing"))
			rc = replay_timing_main(argv[0], argv[1], &a);
		else
			rc = replay_redrive_main(argv[0], argv[1], &a);
		goto out;
	}
	if (a.scenario || a.speed || a.play || a.offset || a.inject_at || a.end || a.seed || a.side || a.wait ||
	    a.verbose || a.cap.pcap || a.cap.per_stack) {
		fprintf(stderr, "%s: that option is for --mode timing or redrive, not decode\n", argv[0]);
		goto out;
	}
	gchar *format = a.format, *smcid_text = a.smcid, *stall_text = a.stall;
	gint max_list = a.max_list;
	gboolean messages = a.messages;
	out_format fmt = FMT_NETSTAT;
	if (format && !strcmp(format, "smc"))
		fmt = FMT_SMC;
	else if (format && !strcmp(format, "json"))
		fmt = FMT_JSON;
	else if (format && strcmp(format, "netstat")) {
		fprintf(stderr, "%s: unknown format '%s' (netstat, smc, json)\n", argv[0], format);
		goto out;
	}
	report_netstat_opts nopts = { 0 };
	if (smcid_text) {
		if (parse_smcid(smcid_text, &nopts.smcid) < 0) {
			fprintf(stderr, "%s: --smcid needs a nonzero hex link group or link id (like 00000101), not '%s'\n",
			        argv[0], smcid_text);
			goto out;
		}
		if (fmt != FMT_NETSTAT) {
			fprintf(stderr, "%s: --smcid filters the netstat report only\n", argv[0]);
			goto out;
		}
	}
	if (max_list < 0) {
		fprintf(stderr, "%s: --max-list must be >= 0\n", argv[0]);
		goto out;
	}
	replay_opts ropts = { .max_listed = (uint32_t)max_list };
	if (stall_text) {
		unsigned long long ns;
		char msg[128];
		if (cli_parse_duration(stall_text, &ns, msg, sizeof(msg)) < 0 || ns == 0) {
			fprintf(stderr, "%s: --stall: %s\n", argv[0], ns == 0 ? "must be > 0" : msg);
			goto out;
		}
		ropts.stall_ns = ns;
	}

	if (messages && (fmt == FMT_SMC || smcid_text)) {
		fprintf(stderr, "%s: --messages prints messages, not a report: no --smcid or --format smc with it\n",
		        argv[0]);
		goto out;
	}
	json_writer mw;
	if (messages && fmt == FMT_JSON) {
		/* {"format": "smcr-replay-messages", "version": 1, "messages": [...]} */
		json_init(&mw, stdout, true);
		json_begin_object(&mw);
		json_kv_str(&mw, "format", "smcr-replay-messages");
		json_kv_uint(&mw, "version", 1);
		json_key(&mw, "messages");
		json_begin_array(&mw);
		ropts.on_msg = msg_json;
		ropts.on_msg_ctx = &mw;
	} else if (messages) {
		ropts.on_msg = print_msg;
		ropts.on_msg_ctx = stdout;
	}
	replay_result res;
	char err[512];
	if (replay_decode_file(argv[1], &ropts, &res, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		goto out;
	}
	if (messages && fmt == FMT_JSON) {
		json_end_array(&mw);
		json_end_object(&mw);
		json_finish(&mw);
	}
	switch (messages ? FMT_NONE : fmt) {
	case FMT_NONE:
		break;
	case FMT_NETSTAT:
		report_print_netstat(stdout, &res.report, &nopts);
		if (res.report.n_events) {
			printf("\nSMC-R LINK EVENTS\n");
			report_print_log(stdout, &res.report);
		}
		replay_print_summary(stdout, &res);
		break;
	case FMT_SMC:
		report_print_smc(stdout, &res.report);
		if (res.report.n_events) {
			printf("\n# link events\n");
			report_print_log(stdout, &res.report);
		}
		replay_print_summary(stdout, &res);
		break;
	case FMT_JSON:
		report_print_json(stdout, &res.report, json_extra, &res);
		break;
	}
	fflush(stdout);
	for (size_t i = 0; i < res.errors.n; i++) {
		if (res.errors.items[i].frame)
			fprintf(stderr, "%s: %s: frame %llu: %s\n", argv[0], argv[1], (unsigned long long)res.errors.items[i].frame,
			        res.errors.items[i].text);
		else
			fprintf(stderr, "%s: %s: %s\n", argv[0], argv[1], res.errors.items[i].text);
	}
	if (res.errors.total > res.errors.n)
		fprintf(stderr, "%s: %s: ... %llu more errors not listed\n", argv[0], argv[1],
		        (unsigned long long)(res.errors.total - res.errors.n));
	rc = res.errors.total || res.file_damaged ? 1 : 0;
	replay_result_free(&res);
out:
	g_free(a.mode);
	g_free(a.format);
	g_free(a.smcid);
	g_free(a.stall);
	g_free(a.scenario);
	g_free(a.speed);
	g_free(a.play);
	g_free(a.offset);
	g_free(a.inject_at);
	g_free(a.end);
	g_free(a.seed);
	g_free(a.side);
	g_free(a.wait);
	capture_args_free(&a.cap);
	return rc;
}
