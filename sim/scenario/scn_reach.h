/* Whether every client app can reach its listener with the scenario's own addressing
 * (subnets, routes, forwarding stacks, switches and the VLANs their wires carry), both
 * ways. A scenario where it cannot is valid — a connection that fails is worth
 * simulating — but most likely not what was meant: `smcr-sim check` warns. */
#ifndef SIM_SCN_REACH_H
#define SIM_SCN_REACH_H

#include <stddef.h>
#include <stdio.h>

#include "sim/scenario/scn_model.h"

/* "FILE:LINE:COL: warning: app 'rr' on B cannot reach 10.10.0.1:5000 (A) …: why" on out
 * for each connecting app whose first connection would fail for want of a route, an
 * interface on the next hop's network and VLAN, or a stack that forwards; the same when
 * the answers cannot come back. The number of warnings. */
size_t scn_warn_unreachable(const scn_scenario *s, FILE *out);

#endif
