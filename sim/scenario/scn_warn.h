/* Warnings about a valid scenario: timelines that are legal but will not do what they
 * most likely mean. `smcr-sim check` prints them; they never stop a run. */
#ifndef SIM_SCN_WARN_H
#define SIM_SCN_WARN_H

#include <stddef.h>
#include <stdio.h>

#include "sim/scenario/scn_model.h"

/* How long after an adapter failure its peer's QPs of the failed link still retry: the
 * core's RC local ACK timeout (4.096 us * 2^15 = 134 ms) times 1 + 7 retries is 1.07 s,
 * then the QP errors out: about 1.09 s measured (default.scn with the restore moved: 1.39 s
 * after a failure at 300 ms fails, 1.40 s works). */
#define SCN_RESTORE_SETTLE_NS 1100000000ull

/* "FILE:LINE:COL: warning: …" on out for each `restore adapter` that comes less than
 * SCN_RESTORE_SETTLE_NS after the failure it ends: the second link the restore lets the
 * link group add is set up while the peer's old QPs still retry, fails and is not tried
 * again. The number of warnings. */
size_t scn_warn_early_restore(const scn_scenario *s, FILE *out);

/* "FILE: warning: no stack: …" on out for a scenario with a fabric (switches, adapters,
 * wires) but no stack: valid, but no connection will run. 1 if it warned, else 0. */
size_t scn_warn_no_stack(const scn_scenario *s, FILE *out);

#endif
