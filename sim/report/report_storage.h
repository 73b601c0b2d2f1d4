/* Storage planning of a stack from a run: for a z/OS stack, RMB storage as IBM's IP
 * Configuration Guide computes it and the FIXEDMEMORY the run needed at its peak; for a
 * Linux stack, the buffer totals smc-tools' `smcr -d stats` shows. A section of its own in
 * the netstat-style report and a "storage" object of each stack in the JSON report
 * (report_storage.c says where each figure comes from). */
#ifndef SIM_REPORT_STORAGE_H
#define SIM_REPORT_STORAGE_H

#include <stdint.h>
#include <stdio.h>

#include "sim/report/json_writer.h"
#include "sim/report/report.h"

/* Worksheet 1 of the guide: the TCP workload row (MB) for this many connections at most,
 * and the whole stack's minimum (MB). */
uint64_t report_storage_workload_mb(uint64_t conns);
uint64_t report_storage_worksheet_mb(const report_storage *st);
/* What FIXEDMEMORY had to be at the run's peak (MB): the worksheet's fixed rows and the
 * RMB blocks at the peak. */
uint64_t report_storage_needed_mb(const report_storage *st);

/* The section (nothing for a stack without the figures: a capture) */
void report_print_storage(FILE *out, const report_stack *s);
/* "storage": {...} (null without the figures) as a member of the current object */
void report_write_storage_json(json_writer *w, const report_stack *s);

#endif
