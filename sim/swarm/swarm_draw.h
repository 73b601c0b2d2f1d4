/* Drawing a random world, the VOPR way: from one seed, a whole scenario — 2 to 64 stacks
 * of both personalities on one or two L2 segments of one to three switches each, VLANs,
 * sometimes a router stack between two networks (routed SMC-Rv2), 1 to 4 adapter
 * activations per stack (dedicated or shared adapters, one or two ports, mixed RoCE and IP
 * MTUs, RoCE v1/v2), SMC-Rv1 and v2 settings, workloads of every kind (bulk, echo,
 * request/response, plain TCP, several connections, bulk closed early) and a fault
 * schedule (adapter, port, trunk, switch and interface failures and restores; bursts of
 * loss, duplication, reordering and corruption; some near a connection's start, where
 * handshakes and LLC flows run).
 *
 * The draw comes from the engine's seeded generator (sim/engine/rng.h, stream
 * "swarm.draw"), never the C library's, and is written as scenario TEXT: the world is
 * loaded through the normal parser and checker, so a failing seed's world is an ordinary
 * scenario file. Every drawn text is a valid scenario (tests load thousands).
 *
 * The run's `end` is the hang bound (swarm_check.h): the time after the last fault or
 * start by which every connection must have ended. */
#ifndef SIM_SWARM_DRAW_H
#define SIM_SWARM_DRAW_H

#include <glib.h>
#include <stdint.h>

/* The bound's parts (docs in swarm_check.h): from the last disturbance to the end. */
uint64_t swarm_hang_bound_ns(uint64_t longest_outage_ns, uint64_t testlink_ns);

/* Append the scenario of seed `seed` to out. */
void swarm_draw(uint64_t seed, GString *out);

#endif
