/* The smc-tools style printer's parts (sim/report/report_smc*.c; private to sim/report). Each
 * view prints what smc-tools v1.8.5 prints for it: the format strings of its smcss.c,
 * linkgroup.c, dev.c, stats.c, info.c and util.c, and of the smc_rnics script, read there
 * and written again here. */
#ifndef SIM_REPORT_SMC_INT_H
#define SIM_REPORT_SMC_INT_H

#include <stdint.h>
#include <stdio.h>

#include "sim/report/report.h"

/* One output line, trailing blanks trimmed (smc-tools pads its last column; the reports
 * keep no trailing blanks). */
void report_smc_line(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* smc-tools' get_abbreviated(num, max_digs): "0", "999", "5.076K", "200.7M", at most
 * max_digs characters (max_digs < 16). */
void report_smc_abbrev(uint64_t num, int max_digs, char *out);

/* `smcr -d stats` of one stack */
void report_smc_stats(FILE *out, const report_stack *s);
/* `smcr info` and `smc_rnics` of one stack */
void report_smc_info(FILE *out, const smcr_report *r, const report_stack *s);
void report_smc_rnics(FILE *out, const smcr_report *r, const report_stack *s);
/* smcr device's Type column: the IBM adapters by name, others as their PCI device id */
void report_smc_dev_type(uint16_t pci_device, char *out, size_t outlen);

#endif
