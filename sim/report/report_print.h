/* Printers of an smcr_report (sim/report/report.h). Every printer only reads the report and
 * prints rows in the report's order, so call report_sort() first. */
#ifndef SIM_REPORT_PRINT_H
#define SIM_REPORT_PRINT_H

#include <stdint.h>
#include <stdio.h>

#include "sim/report/json_writer.h"
#include "sim/report/report.h"

typedef struct report_netstat_opts {
	uint32_t smcid;    /* 0: everything; else only the link group with this id or the link
	                    * with this local 4-byte link id (z/OS SMCID filter) */
	uint32_t stack_id; /* 0: every stack */
} report_netstat_opts;

/* z/OS NETSTAT DEVLINKS SMC style: per stack its RNIC interfaces, SMC-R link groups with
 * their links, and the SMC-R connections. Returns the number of link groups printed
 * (0 with a filter that matched nothing, after saying so). */
unsigned report_print_netstat(FILE *out, const smcr_report *r, const report_netstat_opts *opts);

/* smc-tools style, per stack: smcr linkgroup show, smcr -dd linkgroup link-show,
 * smcr device, smcr -d stats, smcss -a and smcss -R. */
void report_print_smc(FILE *out, const smcr_report *r);

/* smc_chk's live-test verdict for every connection, from its client ("Success, using
 * SMC-R", or "Failed  (TCP fallback), reasons:" with both sides' codes as the smcss man
 * page words them). */
void report_print_smc_chk(FILE *out, const smcr_report *r);

/* IST2406I-style message groups for link failures, one line for orderly removals. */
void report_print_log(FILE *out, const smcr_report *r);

/* The report as members of the current JSON object: "stacks" (each with its stats,
 * RNICs, link groups with their links, and connections) and "events". */
void report_write_json(json_writer *w, const smcr_report *r);
/* A whole document {"format": "smcr-report", "version": 1, ...report..., ...extra...};
 * extra (may be NULL) adds members to the top-level object. */
typedef void (*report_json_extra_fn)(json_writer *w, void *ctx);
void report_print_json(FILE *out, const smcr_report *r, report_json_extra_fn extra, void *ctx);

#endif
