/* Report rows read from one SMC-R core's introspection (model/smcr.h): the parts that every
 * host of a core fills the same way, whether it is a simulated world's stack
 * (sim/world/world_report.c) or `smcr-sim node` (sim/node/node_report.c). The host adds what only it
 * knows: stack ids, which report RNIC a port is, the peer's stack, its connections. */
#ifndef SIM_REPORT_CORE_H
#define SIM_REPORT_CORE_H

#include <stdint.h>

#include "model/smcr.h"
#include "sim/report/report.h"

/* The number reports show for link group lgr_id (smcr_lgr_info.lgr_num); lgr_id itself
 * when ctx has no such link group. */
uint32_t report_core_lgr_num(const smcr_ctx *ctx, uint64_t lgr_id);
/* Fill g from li: all but stack_id and peer_stack_id. peer_host is the peer's hostname
 * without its trailing blanks ("" if it sent none). */
void report_core_lgr(report_lgr *g, const smcr_lgr_info *li);
/* Add the link row of li for stack stack_id on report RNIC rnic_id; that RNIC's row (if
 * already added) sums the counters of its links. */
report_link *report_core_add_link(smcr_report *r, const smcr_ctx *ctx, const smcr_link_info *li,
                                  uint32_t stack_id, uint32_t rnic_id);
/* The core's counters into rs; fallbacks are added to what rs already counts. */
void report_core_stats(report_stats *rs, const smcr_ctx *ctx);

#endif
