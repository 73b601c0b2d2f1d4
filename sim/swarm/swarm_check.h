/* The swarm's invariants, checked from outside the protocol after every run: the world's
 * applications (world_foreach_conn: what each end wrote, read and verified against the
 * seeded pattern, and how it ended), its operator reports (world_fill_report: both ends'
 * link groups, links and connections) and its live-object counts, judged against what the
 * scenario's topology and fault schedule say (swarm_paths.h). Never model/ internals.
 *
 *  1. data: every byte a sender wrote arrives exactly once and in order (the receiver
 *     verified it against the pattern: nothing unverified, nothing missing), or the
 *     connection reports an error;
 *  2. redundancy: a connection that ran over SMC-R at a fault and failed after it, while its
 *     link group (every one between its two stacks in its direction) had an active link on
 *     an adapter pair whose path — both ports, the switches and trunks between — was free
 *     of every disturbance from SETTLE before the fault until the failure, is a violation;
 *     so is a TCP (or fallback) connection failing with its whole TCP path undisturbed
 *     since it started, and any connection failing before anything was disturbed;
 *  3. no hang: every connection has ended by the hang bound after the last disturbance
 *     (the scenario's `end`, swarm_hang_bound_ns), no link is left activating (an LLC
 *     ADD LINK flow that never finished), and after the link groups' idle linger the
 *     world goes idle;
 *  4. agreement: at the end both ends of every link group agree — each active link has
 *     its mirror (QPs crossed) active on the other side, the same number of links and
 *     connections, opposite roles — and every SMC-R connection
 *     one side lists, the other lists too;
 *     (Not the link group types: each end's is its own view, and Linux's ASYMP comes from an
 *     ADD LINK whose GID equals the first link's, which SMC-Rv2's address GIDs of two ports
 *     of one host are: both ends can say ASYMP.)
 *  5. freed: once idle, no queue pair, memory region, frame, SMC connection, link group or
 *     link is left, and only the listeners' TCP control blocks;
 *     A world that runs SWARM_MAX_EVENTS events is stopped there: an event storm.
 *  6. determinism: the same scenario run again gives the same fingerprint.
 *
 * The hang bound, from the timers (model/smcr.h, sim/net/stack_config.c), counted after
 * the last fault or restore (and the last start): twice the longest outage plus 0.5 s
 * for TCP (a retransmission timer doubles through an outage, so the first one after the
 * restore comes at most about one outage later; RTO_min 200–300 ms), 6 s CLC_WAIT_TIME
 * for a handshake, 20 s for an LLC flow queued behind another (10 x SMC_LLC_WAIT_TIME),
 * 10 s for a sender waiting for a free send slot, TEST_LINK's idle time (30 s by
 * default, 5 or 10 s in some drawn stacks) plus its 2 s wait for the answer, 2 s for the
 * RC retries of a dead path to run out (8 x 134 ms), 2 s for the close's wait, and 2 s for
 * the exchanges themselves (megabytes at 25 Gbit/s). */
#ifndef SIM_SWARM_CHECK_H
#define SIM_SWARM_CHECK_H

#include <glib.h>
#include <stdint.h>

#include "sim/scenario/scn_model.h"
#include "sim/sweep/sweep_runner.h"

/* Before a fault, the path of a surviving link must have been undisturbed this long: the
 * RC retries of a disturbance that just ended may still be running out. */
#define SWARM_SETTLE_NS (1500ull * 1000000ull)
/* After the end, how long the world gets to go idle: the link groups' linger (600 s,
 * 610 s for a client) and TCP's TIME_WAIT. */
#define SWARM_DRAIN_NS (700ull * 1000000000ull)

/* A world that runs more events than this is stopped and reported (an event storm:
 * two ends ping-ponging frames without progress); drawn worlds run well under a million. */
#define SWARM_MAX_EVENTS 40000000ull

typedef struct swarm_verdict {
	GPtrArray *violations; /* char *, one line each, in check order */
	uint64_t fingerprint;
	uint64_t rerun_fingerprint;
	uint64_t end_ns, events;
	uint64_t stacks, adapters, apps, faults;
	uint64_t conns, smcr, fallback, tcp, aborted, bytes;
} swarm_verdict;

/* Run the scenario (its own seed) with every check; the verdict's violations are empty
 * when all hold. err (world_new's reason) on a world that cannot be built: false. */
bool swarm_check(const scn_scenario *scn, const sweep_poll *poll, swarm_verdict *v, char *err, size_t errlen);
void swarm_verdict_clear(swarm_verdict *v);

#endif
