/* `smcr-sim replay [--mode decode] FILE`: the options of mode 1 (sim/replay/replay.h) and
 * its output: the report in the chosen format with the capture summary, or every message
 * with its frame, then the decode errors on stderr. Exit 0 decoded, 1 decoded but the
 * capture had damage or messages that do not decode, 2 an unusable file. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/replay/replay.h"
#include "sim/report/report_print.h"
#include "tools/cli.h"
#include "tools/replay_cli.h"

typedef enum out_format { FMT_NETSTAT,
	                  FMT_SMC,
	                  FMT_SMC_CHK,
	                  FMT_JSON,
	                  FMT_NONE } out_format;

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

/* --format and --smcid; 0 or 2 after printing what is wrong. */
static int report_opts(const char *prog, const replay_cli *a, out_format *fmt, report_netstat_opts *nopts)
{
	*fmt = FMT_NETSTAT;
	if (a->format && !strcmp(a->format, "smc"))
		*fmt = FMT_SMC;
	else if (a->format && !strcmp(a->format, "json"))
		*fmt = FMT_JSON;
	else if (a->format && strcmp(a->format, "netstat") && strcmp(a->format, "text")) {
		fprintf(stderr, "%s: bad --format '%s'; expected text or json (or netstat, smc)\n", prog, a->format);
		return 2;
	}
	if (a->report) {
		bool text = !a->format || !strcmp(a->format, "text");
		if (!text || (strcmp(a->report, "netstat") && strcmp(a->report, "smc") && strcmp(a->report, "smc_chk"))) {
			fprintf(stderr, "%s: bad --report '%s'; expected netstat, smc or smc_chk, with --format text\n", prog,
			        a->report);
			return 2;
		}
		*fmt = !strcmp(a->report, "smc") ? FMT_SMC : !strcmp(a->report, "smc_chk") ? FMT_SMC_CHK : FMT_NETSTAT;
	}
	memset(nopts, 0, sizeof(*nopts));
	if (!a->smcid)
		return 0;
	if (parse_smcid(a->smcid, &nopts->smcid) < 0) {
		fprintf(stderr, "%s: --smcid needs a nonzero hex link group or link id (like 00000101), not '%s'\n", prog,
		        a->smcid);
		return 2;
	}
	if (*fmt != FMT_NETSTAT) {
		fprintf(stderr, "%s: --smcid filters the netstat report only\n", prog);
		return 2;
	}
	return 0;
}

/* --max-list, --stall, --messages; 0 or 2 after printing what is wrong. */
static int decode_opts(const char *prog, const replay_cli *a, out_format fmt, json_writer *mw, replay_opts *ropts)
{
	if (a->max_list < 0) {
		fprintf(stderr, "%s: --max-list must be >= 0\n", prog);
		return 2;
	}
	*ropts = (replay_opts){ .max_listed = (uint32_t)a->max_list, .max_gap_ns = a->max_gap_ns };
	if (a->stall) {
		unsigned long long ns = 0;
		char msg[128];
		int bad = cli_parse_duration(a->stall, &ns, msg, sizeof(msg));
		if (bad || ns == 0) {
			fprintf(stderr, "%s: --stall: %s\n", prog, bad ? msg : "must be > 0");
			return 2;
		}
		ropts->stall_ns = ns;
	}
	if (a->messages && (fmt == FMT_SMC || fmt == FMT_SMC_CHK || a->report || a->smcid)) {
		fprintf(stderr, "%s: --messages prints messages, not a report: no --report, --smcid or --format smc with it\n",
		        prog);
		return 2;
	}
	if (a->messages && fmt == FMT_JSON) {
		ropts->on_msg = msg_json;
		ropts->on_msg_ctx = mw;
	} else if (a->messages) {
		ropts->on_msg = print_msg;
		ropts->on_msg_ctx = stdout;
	}
	return 0;
}

static void print_report(out_format fmt, const replay_result *res, const report_netstat_opts *nopts)
{
	switch (fmt) {
	case FMT_NONE:
		break;
	case FMT_NETSTAT:
		report_print_netstat(stdout, &res->report, nopts);
		if (res->report.n_events) {
			printf("\nSMC-R LINK EVENTS\n");
			report_print_log(stdout, &res->report);
		}
		replay_print_summary(stdout, res);
		break;
	case FMT_SMC:
		report_print_smc(stdout, &res->report);
		if (res->report.n_events) {
			printf("\n# link events\n");
			report_print_log(stdout, &res->report);
		}
		replay_print_summary(stdout, res);
		break;
	case FMT_SMC_CHK:
		report_print_smc_chk(stdout, &res->report);
		break;
	case FMT_JSON:
		report_print_json(stdout, &res->report, json_extra, (void *)res);
		break;
	}
	fflush(stdout);
}

static void print_errors(const char *prog, const char *file, const replay_result *res)
{
	for (size_t i = 0; i < res->errors.n; i++) {
		if (res->errors.items[i].frame)
			fprintf(stderr, "%s: %s: frame %llu: %s\n", prog, file, (unsigned long long)res->errors.items[i].frame,
			        res->errors.items[i].text);
		else
			fprintf(stderr, "%s: %s: %s\n", prog, file, res->errors.items[i].text);
	}
	if (res->errors.total > res->errors.n)
		fprintf(stderr, "%s: %s: ... %llu more errors not listed\n", prog, file,
		        (unsigned long long)(res->errors.total - res->errors.n));
}

static bool all_linux(const smcr_report *r)
{
	for (size_t i = 0; i < r->n_stacks; i++)
		if (r->stacks[i].os != REPORT_OS_LINUX)
			return false;
	return r->n_stacks > 0;
}

int replay_decode_main(const char *prog, const char *file, replay_cli *a)
{
	if (a->scenario || a->speed || a->play || a->offset || a->inject_at || a->end || a->seed || a->side || a->wait ||
	    a->verbose || a->cap.pcap || a->cap.per_stack) {
		fprintf(stderr, "%s: that option is for --mode timing or redrive, not decode\n", prog);
		return 2;
	}
	out_format fmt;
	report_netstat_opts nopts;
	replay_opts ropts;
	json_writer mw;
	if (report_opts(prog, a, &fmt, &nopts) || decode_opts(prog, a, fmt, &mw, &ropts))
		return 2;
	bool msgs_json = a->messages && fmt == FMT_JSON;
	if (msgs_json) {
		/* {"format": "smcr-replay-messages", "version": 1, "messages": [...]} */
		json_init(&mw, stdout, true);
		json_begin_object(&mw);
		json_kv_str(&mw, "format", "smcr-replay-messages");
		json_kv_uint(&mw, "version", 1);
		json_key(&mw, "messages");
		json_begin_array(&mw);
	}
	replay_result res;
	char err[512];
	if (replay_decode_file(file, &ropts, &res, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	if (msgs_json) {
		json_end_array(&mw);
		json_end_object(&mw);
		json_finish(&mw);
	}
	/* a capture whose hosts all showed themselves as Linux (the OS type of their SMC-Rv2
	 * first contact) reads as Linux's tools print it, unless a style was asked for */
	if (fmt == FMT_NETSTAT && !a->format && !a->report && !a->smcid && all_linux(&res.report))
		fmt = FMT_SMC;
	print_report(a->messages ? FMT_NONE : fmt, &res, &nopts);
	print_errors(prog, a->name ? a->name : file, &res);
	int rc = res.errors.total || res.file_damaged ? 1 : 0;
	replay_result_free(&res);
	return rc;
}
