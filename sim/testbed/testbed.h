/* A canned topology for benchmarks, debug captures and tests: two single-port adapters
 * A and B, each on its own wire to one switch, one VF each, one memory region each and one
 * RC QP pair connected (RTS on both sides).
 *
 *   [rnicA]--wireA--[sw: p0 | p1]--wireB--[rnicB]
 *
 * RoCE v1 uses the link-local GIDs; RoCE v2 gives A 10.0.0.1 and B 10.0.0.2. With a VLAN,
 * the switch ports are trunks allowing it and both VFs are on it. Completions and async
 * events are recorded per side (and passed to on_wc when set). */
#ifndef SIM_TESTBED_H
#define SIM_TESTBED_H

#include <stddef.h>
#include <stdint.h>

#include "sim/rdma/mr.h"
#include "sim/rdma/qp.h"
#include "sim/rdma/rnic.h"
#include "sim/fabric/roce.h"
#include "sim/fabric/switch.h"
#include "sim/fabric/wire.h"

typedef struct testbed testbed;
typedef struct testbed_side testbed_side;

typedef struct testbed_params {
	uint64_t seed;
	roce_version version;
	uint32_t eth_mtu;     /* adapters' interface MTU and the wires' MTU */
	smcr_mtu path_mtu;    /* 0: the ports' IB MTU */
	sim_wire_params wire; /* both wires (mtu is overwritten with eth_mtu) */
	sim_time switch_latency;
	uint16_t vlan; /* 0: untagged access ports */
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint32_t max_send_wr, max_recv_wr, max_inline;
	size_t mr_size; /* bytes of registered memory per side */
	uint32_t sq_psn_a, sq_psn_b;
	rnic_config nic; /* template for both adapters (name, pfid and ports are set) */
	void (*on_wc)(testbed *tb, testbed_side *side, const smcr_wc *wc);
	void *user;
} testbed_params;

struct testbed_side {
	testbed *tb;
	char name[8];
	rnic *nic;
	rnic_vf *vf;
	rnic_qp *qp;
	rnic_mr *mr;
	smcr_mr_info mri;
	uint8_t *mem;
	sim_wire *wire;
	smcr_wc *wcs;
	size_t n_wcs, cap_wcs;
	smcr_async_event async[64];
	size_t n_async;
};

struct testbed {
	testbed_params p;
	sim_engine *eng;
	sim_fabric *fab;
	sim_switch *sw;
	testbed_side a, b;
};

/* Seed 1, RoCE v2, MTU 1500 (IB 1024), default wire (25 Gb/s, 500 ns), switch 500 ns,
 * timeout 14 (~67 ms), retry 7, rnr_retry 7, min_rnr_timer 1 (10 us), 64 send and
 * receive WRs, 64 bytes inline, 1 MiB per side. */
void testbed_params_default(testbed_params *p);
/* NULL if the QPs could not be connected (bad parameters). */
testbed *testbed_new(const testbed_params *p);
void testbed_free(testbed *tb);

/* Post helpers on side s: an SGE into s's own region at offset off. */
int testbed_post_write(testbed_side *s, uint64_t wr_id, uint32_t off, uint32_t len, uint64_t remote_off,
                       uint32_t flags);
int testbed_post_send(testbed_side *s, uint64_t wr_id, uint32_t off, uint32_t len, uint32_t flags);
int testbed_post_recv(testbed_side *s, uint64_t wr_id, uint32_t off, uint32_t len);
/* Run the engine until idle or `until`. */
sim_run_result testbed_run(testbed *tb, sim_time until);

#endif
