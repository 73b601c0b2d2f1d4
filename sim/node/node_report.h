/* The operator report of one SMC-R core outside a simulated world (`smcr-sim node`): the
 * stack, its RoCE ports, link groups, links, connections and counters, read through the
 * core's introspection into an smcr_report (sim/report/report.h) for the usual printers. */
#ifndef SIM_NODE_REPORT_H
#define SIM_NODE_REPORT_H

#include "model/smcr.h"
#include "sim/report/report.h"

/* Append stack 1 named `name` with everything of ctx, then sort. */
void node_fill_report(const smcr_ctx *ctx, const char *name, smcr_report *r);

#endif
