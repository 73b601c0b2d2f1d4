/* Two RDMA WRITE flows through one bottleneck, for DCQCN tests and captures.
 *
 *   [S1]--access--\                                    /--rx link--[R1]
 *                  [sw1]--[relay: RED egress]--bottleneck--[sw2]
 *   [S2]--access--/                                    \--rx link--[R2]
 *
 * S1 writes to R1 and S2 to R2 over RoCE v2 without pause, each keeping `depth` WRITEs of
 * `msg` bytes outstanding; flow 2 starts at start2. The relay is a transparent two-port
 * bridge whose egress into the bottleneck wire marks ECN-capable frames CE with RED on the
 * bytes queued there (Kmin, Kmax, Pmax, the DCQCN paper's 5 KB, 200 KB, 1 %), drawn from
 * the seeded stream "testbed.red". Completed bytes are counted per flow per window.
 *
 * With `qos` set, there is no relay: sw1's port to the bottleneck wire is the bottleneck,
 * with the switch's own shared buffer, ECN marking and PFC as `qos` configures them
 * (sim/fabric/switch.h), so the fabric's congestion machinery meets the adapters'. */
#ifndef SIM_TESTBED_BOTTLENECK_H
#define SIM_TESTBED_BOTTLENECK_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/engine/rng.h"
#include "sim/fabric/switch.h"
#include "sim/rdma/rnic.h"

#define BOTTLENECK_MAX_WINDOWS 4096

typedef struct bottleneck_params {
	uint64_t seed;
	uint64_t bottleneck_bps, access_bps, rx_bps;
	uint64_t kmin, kmax; /* bytes */
	sim_ratio pmax;
	sim_time start2, duration, window;
	uint32_t msg, depth;
	rnic_config nic;           /* template of all four adapters (cc: DCQCN on or off) */
	const sim_switch_qos *qos; /* NULL: the RED relay; else sw1's congestion features */
	const char *pcap;          /* capture the bottleneck here (NULL: none) ... */
	uint64_t pcap_frames;      /* ... its first this many frames */
} bottleneck_params;

typedef struct bottleneck_result {
	size_t n_windows;
	uint64_t bytes[2][BOTTLENECK_MAX_WINDOWS]; /* per flow, per window: completed WRITE bytes */
	/* per flow, per window: the bytes its data frames take on the bottleneck link as the
	 * bottleneck's egress starts them (frame plus 24 bytes of preamble, FCS and gap), so
	 * the two flows' shares of the link, whose fair half is exactly half its rate */
	uint64_t wire_bytes[2][BOTTLENECK_MAX_WINDOWS];
	uint64_t marked;                                /* frames the relay marked CE */
	uint64_t cnp_tx, cnp_rx;                        /* over all adapters */
	uint64_t rate_bps[2];                           /* each sender QP's DCQCN rate at the end */
	uint64_t frames;                                /* captured */
	bool failed;                                    /* a work request failed */
	uint64_t switch_drops, switch_marks, pauses_tx; /* sw1's bottleneck port (with qos) */
	uint64_t max_queue;                             /* its deepest egress queue, bytes */
	sim_time senders_paused;                        /* time S1 and S2 spent paused by PFC, summed */
	uint64_t retransmitted;                         /* packets S1 and S2 sent again (go-back-N) */
} bottleneck_result;

/* 40 Gb/s everywhere (receivers 100 Gb/s), RED 5 KB / 200 KB / 1 %, flow 2 at 2 ms, 40 ms,
 * 1 ms windows, 64 KiB WRITEs 8 deep, IB MTU 4096, DCQCN on with its default parameters. */
void bottleneck_params_default(bottleneck_params *p);
/* 0, or -1 with err set (setup or capture file). */
int bottleneck_run(const bottleneck_params *p, bottleneck_result *r, char *err, size_t errlen);

#endif
