/* Everything a user can ask of a replay result, printed to /dev/null: the netstat, smc
 * and log reports, the capture summary and the JSON document (tools/cmd_replay.c's
 * formats). */
#include "fuzz/fuzz.h"
#include "fuzz/common/replay_out.h"
#include "sim/report/report_print.h"

static void json_extra(json_writer *w, void *ctx) { replay_write_json(w, ctx); }

void fuzz_replay_print(replay_result *res)
{
	FILE *out = fuzz_devnull();
	report_netstat_opts nopts = { 0, 0 };
	report_print_netstat(out, &res->report, &nopts);
	report_print_log(out, &res->report);
	report_print_smc(out, &res->report);
	replay_print_summary(out, res);
	report_print_json(out, &res->report, json_extra, res);
}

void fuzz_replay_print_msg(void *ctx, const replay_msg *m)
{
	(void)ctx;
	replay_print_msg(fuzz_devnull(), m);
}
