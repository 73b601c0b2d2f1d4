/* `smcr-sim replay [--mode decode] FILE`: read a pcap/pcapng capture of SMC-R traffic.
 *
 * Modes (one command, one reader):
 *   decode   reconstruct the SMC-R picture and print it as the simulator's reports (now)
 *   timing   inject the frames into a simulated fabric at their (scaled) times (later)
 *   redrive  let our core play one side of the conversation and compare (later)
 * Exit status: 0 decoded, 1 decoded but the capture had damage or messages that do not
 * decode (listed, with frame numbers, on stderr and in the report), 2 usage error or a
 * file that cannot be used at all. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/replay.h"
#include "sim/report_print.h"
#include "tools/cli.h"

typedef enum out_format { FMT_NETSTAT, FMT_SMC, FMT_JSON, FMT_NONE } out_format;

static void print_msg(void *ctx, const replay_msg *m)
{
	replay_print_msg(ctx, m);
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
	gchar *mode = NULL, *format = NULL, *smcid_text = NULL, *stall_text = NULL;
	gint max_list = 50;
	gboolean messages = FALSE;
	GOptionEntry entries[] = {
		{ "mode", 'm', 0, G_OPTION_ARG_STRING, &mode, "decode (default); timing and redrive are not implemented yet", "MODE" },
		{ "format", 'f', 0, G_OPTION_ARG_STRING, &format, "report format: netstat (default), smc, json", "FMT" },
		{ "smcid", 0, 0, G_OPTION_ARG_STRING, &smcid_text, "netstat: only the link group or link with this hex id", "ID" },
		{ "max-list", 0, 0, G_OPTION_ARG_INT, &max_list, "list at most N frames per list, all are counted (50; 0 = all)", "N" },
		{ "messages", 0, 0, G_OPTION_ARG_NONE, &messages,
		  "decode: list every SMC-R message (CLC, LLC, CDC, RDMA WRITE packets) with its frame instead of the report",
		  NULL },
		{ "stall", 0, 0, G_OPTION_ARG_STRING, &stall_text, "requests unacknowledged this long before the end mean a stopped link (1s)", "TIME" },
		{ NULL },
	};
	GOptionContext *ctx = g_option_context_new("FILE - decode a pcap/pcapng capture of SMC-R traffic");
	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx,
		"Reconstructs peers, link groups, links (QPs, GIDs, MACs, 4-byte link ids), connections\n"
		"(tokens, cursors, bytes), fallbacks with their reasons and link failures from TCP/CLC and\n"
		"RoCE v1/v2 frames, and prints them as the simulator's reports, followed by the capture\n"
		"summary: frames not explained (each listed with its reason) and decode errors with frame\n"
		"numbers. Exit status: 0 decoded, 1 decoded with errors, 2 unusable input or usage.");
	GError *gerr = NULL;
	int rc = 2;
	if (!g_option_context_parse(ctx, &argc, &argv, &gerr)) {
		fprintf(stderr, "%s: %s\n", argv[0], gerr->message);
		g_error_free(gerr);
		goto out;
	}
	if (argc != 2) {
		fprintf(stderr, "%s: expected one capture FILE (try --help)\n", argv[0]);
		goto out;
	}
	if (mode && strcmp(mode, "decode")) {
		if (!strcmp(mode, "timing") || !strcmp(mode, "redrive"))
			fprintf(stderr, "%s: mode '%s' is not implemented yet; only 'decode' is\n", argv[0], mode);
		else
			fprintf(stderr, "%s: unknown mode '%s' (decode, timing, redrive)\n", argv[0], mode);
		goto out;
	}
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

	if (messages && (format || smcid_text)) {
		fprintf(stderr, "%s: --messages prints messages, not a report: no --format or --smcid with it\n", argv[0]);
		goto out;
	}
	if (messages) {
		ropts.on_msg = print_msg;
		ropts.on_msg_ctx = stdout;
	}
	replay_result res;
	char err[512];
	if (replay_decode_file(argv[1], &ropts, &res, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		goto out;
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
	g_option_context_free(ctx);
	g_free(mode);
	g_free(format);
	g_free(smcid_text);
	g_free(stall_text);
	return rc;
}
