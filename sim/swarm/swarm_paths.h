/* What a scenario's fault schedule did to each part of its fabric, and which parts a path
 * crosses: the facts the swarm's invariants are derived from (swarm_check.h), taken from
 * the scenario model alone — topology and timeline — never from the protocol.
 *
 * A resource is an adapter port (with its access wire), a switch, a trunk wire or a stack
 * interface (with its access wire). It is disturbed over an interval when it is failed
 * (fail … restore, or to the end), when its link has loss, duplication, reordering or
 * corruption (from the scenario's own attributes or a `set`, until a `set` clears them),
 * and at the instant of any other `set` on it. */
#ifndef SIM_SWARM_PATHS_H
#define SIM_SWARM_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/scenario/scn_model.h"

#define SWARM_FOREVER UINT64_MAX

typedef struct swarm_paths swarm_paths;

swarm_paths *swarm_paths_new(const scn_scenario *scn);
void swarm_paths_free(swarm_paths *p);

/* The start times of disturbances (fail events, and sets that make a link faulty), sorted,
 * each once. */
size_t swarm_paths_fault_times(const swarm_paths *p, const uint64_t **times);
/* The end of the last disturbance: the latest restore or clearing set (SWARM_FOREVER if a
 * failure is never restored); 0 without any. */
uint64_t swarm_paths_quiet_from(const swarm_paths *p);
/* Is anything disturbed at any time in [from, to]? */
bool swarm_paths_any_disturbed(const swarm_paths *p, uint64_t from, uint64_t to);

/* Was the RoCE path between adapter a port pa (1-based) and adapter b port pb free of
 * every disturbance over [from, to]: both ports, the switches and trunks between them?
 * False if they are not on one L2 segment. */
bool swarm_paths_roce_clear(const swarm_paths *p, uint32_t a, uint8_t pa, uint32_t b, uint8_t pb, uint64_t from,
                            uint64_t to);
/* The same for the TCP path from the client's address to the server's (both interfaces,
 * the switches and trunks between, and a router stack's two interfaces when they are on
 * different subnets). False when no path is known. */
bool swarm_paths_tcp_clear(const swarm_paths *p, uint32_t client_ip, uint32_t server_ip, uint64_t from, uint64_t to);
/* Do two stacks' adapters share one L2 segment (a link between them is not routed)? */
bool swarm_paths_same_segment(const swarm_paths *p, uint32_t adapter_a, uint8_t port_a, uint32_t adapter_b,
                              uint8_t port_b);
/* The adapter with this PFID, SCN_NONE if none. */
uint32_t swarm_paths_adapter_by_pfid(const swarm_paths *p, uint32_t pfid);

#endif
