/* Linux kernel presets: what a `personality=linux` stack does depends on its kernel
 * version (`stack NAME personality=linux kernel=6.1`). One table says, for every
 * version-dependent value, from which version on it holds and where that comes from; a
 * stack's smcr defaults are taken from the row for its kernel, and anything written in
 * its `smcr` statement overrides them. */
#ifndef SCN_KERNEL_H
#define SCN_KERNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct scn_kernel {
	uint16_t major, minor;
} scn_kernel;

/* The kernel a Linux stack is without kernel= (a current long-term kernel). */
#define SCN_KERNEL_DEFAULT_TEXT "6.12"
extern const scn_kernel scn_kernel_default;

/* The values of one kernel. */
typedef struct scn_kernel_values {
	bool smcr_v2;           /* SMC-Rv2 at all (5.16) */
	uint8_t release;        /* SMC-Rv2 release it proposes: 0 (v2.0), 1 (v2.1 from 6.6) */
	uint16_t feature_mask;  /* SMC_FEATURE_MASK */
	uint8_t rmbe_max_code;  /* largest RMB and send buffer: 16 KiB << code */
	uint32_t autocork;      /* net.smc.autocorking_size, 0 = off (and before it existed) */
	bool v21_sysctls;       /* smcr_max_links_per_lgr, smcr_max_conns_per_lgr (6.6) */
	bool limit_hs_sysctl;   /* net.smc.limit_smc_hs (6.10); the socket option is older */
} scn_kernel_values;

/* "6.12", "7.3", "5.15.0": MAJOR.MINOR[.PATCH]; false with *why otherwise. SMC exists from
 * 4.11 on. */
bool scn_kernel_parse(const char *text, scn_kernel *out, const char **why);
int scn_kernel_cmp(scn_kernel a, scn_kernel b);
void scn_kernel_values_for(scn_kernel k, scn_kernel_values *out);
/* "6.12" */
const char *scn_kernel_text(scn_kernel k, char *buf, size_t len);
/* The table with its sources, for `smcr-sim check --defaults`. */
void scn_kernel_print_presets(FILE *out);

#endif
