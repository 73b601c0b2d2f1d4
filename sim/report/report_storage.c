/* Storage planning of a stack from a run (see report_storage.h).
 *
 * z/OS, from the z/OS Communications Server IP Configuration Guide:
 *  - "Steps for estimating minimum SMC-R real memory requirements", worksheet 1, per stack:
 *    PFIDs x 1 MB (RDMA receive element buffers), 5 MB (staging buffers and RDMA transmit
 *    elements), link groups x 3 MB (the initial RMBs of each link group), and the TCP
 *    workload ("TCP/IP variable SMC-R storage allocations": the first 16 connections use
 *    the initial RMB storage, then about 1 MB more for every 8 connections); the
 *    worksheet's second table adds 8 MB of DLC memory per PFID outside the stack;
 *  - "SMC-R usage of memory buffers": an RMB is a 1 MB block of fixed storage cut into
 *    RMB elements (RMBEs) of one size, 32 KB and up, chosen by the connection's receive
 *    buffer (TCPRCVBUFRSIZE); a link group starts with three RMBs.
 * The run's figures: the most link groups and connections at once, and the most RMB blocks
 * z/OS would have held for the connections the run had (the core counts them, with the
 * sizes its connections got; model/buf.c). What FIXEDMEMORY had to be at the peak: the
 * fixed part of worksheet 1 (PFIDs x 1 MB + 5 MB) plus those RMB blocks.
 *
 * Linux: the buffer totals smc-tools' `smcr -d stats` shows (Buffer usage now, the
 * buffers given by size) and the most the connections held at once. */
#include "sim/report/report_storage.h"

#include <inttypes.h>

#include "sim/report/report_smc_int.h"

#define MIB (1024u * 1024u)

uint64_t report_storage_workload_mb(uint64_t conns)
{
	return conns > 16 ? (conns - 16 + 7) / 8 : 0;
}

uint64_t report_storage_worksheet_mb(const report_storage *st)
{
	return st->pfids + 5 + st->lgr_peak * 3 + report_storage_workload_mb(st->conn_peak);
}

uint64_t report_storage_needed_mb(const report_storage *st)
{
	return st->pfids + 5 + st->rmb_blocks_peak;
}

static void print_zos(FILE *out, const report_storage *st)
{
	fprintf(out, "\nSMC-R storage planning (IP Configuration Guide, estimating SMC-R real memory):\n");
	fprintf(out, "  %-46s %6" PRIu64 " MB\n", "RoCE PFIDs x 1 MB (RDMA receive elements):", (uint64_t)st->pfids);
	fprintf(out, "  %-46s %6u MB\n", "Staging buffers and RDMA transmit elements:", 5u);
	char what[64];
	snprintf(what, sizeof(what), "Link groups at most: %" PRIu64 " x 3 MB (initial RMBs):", st->lgr_peak);
	fprintf(out, "  %-46s %6" PRIu64 " MB\n", what, st->lgr_peak * 3);
	snprintf(what, sizeof(what), "TCP workload: %" PRIu64 " connections at most:", st->conn_peak);
	fprintf(out, "  %-46s %6" PRIu64 " MB  (the first 16 in the initial RMBs, then 1 MB per 8)\n", what,
	        report_storage_workload_mb(st->conn_peak));
	fprintf(out, "  %-46s %6" PRIu64 " MB  (+ %" PRIu64 " MB of RoCE DLC memory outside the stack)\n",
	        "Worksheet minimum:", report_storage_worksheet_mb(st), (uint64_t)st->pfids * 8);
	fprintf(out, "  %-46s %6" PRIu64 " MB  (1 MB RMBs cut into RMBEs of 32 KB and up)\n", "RMB blocks at the run's peak:",
	        st->rmb_blocks_peak);
	fprintf(out, "  %-46s %6" PRIu64 " MB", "FIXEDMEMORY needed at the peak:", report_storage_needed_mb(st));
	if (st->fixed_memory)
		fprintf(out, "  (configured: %" PRIu64 " MB)\n", st->fixed_memory / MIB);
	else
		fprintf(out, "  (configured: no limit)\n");
}

static void print_linux(FILE *out, const report_stats *s)
{
	fprintf(out, "\nSMC-R buffer storage (as smcr -d stats shows it):\n");
	const char *dir[2] = { "RX (RMBs)", "TX (send buffers)" };
	const uint64_t now[2] = { s->rx_rmbuse, s->tx_rmbuse }, peak[2] = { s->rx_rmbuse_peak, s->tx_rmbuse_peak };
	const uint64_t *bufs[2] = { s->rx_rmb_hist, s->tx_rmb_hist };
	const char *names[REPORT_BUF_BUCKETS] = { "8KB", "16KB", "32KB", "64KB", "128KB", "256KB", "512KB", ">512KB" };
	for (int d = 0; d < 2; d++) {
		char a[8], b[8];
		report_smc_abbrev(now[d], 6, a);
		report_smc_abbrev(peak[d], 6, b);
		fprintf(out, "  %-18s usage now %" PRIu64 " (%s), at most %" PRIu64 " (%s); given:", dir[d], now[d], a, peak[d], b);
		bool any = false;
		for (int i = 0; i < REPORT_BUF_BUCKETS; i++)
			if (bufs[d][i]) {
				fprintf(out, " %s x %" PRIu64, names[i], bufs[d][i]);
				any = true;
			}
		fprintf(out, "%s\n", any ? "" : " none");
	}
}

void report_print_storage(FILE *out, const report_stack *s)
{
	if (!s->storage.known)
		return;
	if (s->os == REPORT_OS_ZOS)
		print_zos(out, &s->storage);
	else
		print_linux(out, &s->stats);
}

void report_write_storage_json(json_writer *w, const report_stack *s)
{
	const report_storage *st = &s->storage;
	json_key(w, "storage");
	if (!st->known) {
		json_null(w);
		return;
	}
	json_begin_object(w);
	json_kv_uint(w, "pfids", st->pfids);
	json_kv_uint(w, "fixed_memory", st->fixed_memory);
	json_kv_uint(w, "link_groups_peak", st->lgr_peak);
	json_kv_uint(w, "connections_peak", st->conn_peak);
	json_kv_uint(w, "worksheet_workload_mb", report_storage_workload_mb(st->conn_peak));
	json_kv_uint(w, "worksheet_minimum_mb", report_storage_worksheet_mb(st));
	json_kv_uint(w, "dlc_memory_mb", (uint64_t)st->pfids * 8);
	json_kv_uint(w, "rmb_blocks_peak", st->rmb_blocks_peak);
	json_kv_uint(w, "fixed_memory_needed_mb", report_storage_needed_mb(st));
	json_kv_uint(w, "rx_buffer_usage_peak", s->stats.rx_rmbuse_peak);
	json_kv_uint(w, "tx_buffer_usage_peak", s->stats.tx_rmbuse_peak);
	json_end_object(w);
}
