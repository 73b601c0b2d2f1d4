/* RDMA WRITE throughput of the simulated fabric (see fabric_bench.h). */
#include "sim/bench/fabric_bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/engine/bench_measure.h"
#include "sim/testbed/testbed.h"

typedef struct fabric_run {
	uint64_t to_post; /* writes still to post */
	uint64_t completed;
	uint64_t errors;
	uint32_t msg;
	uint32_t slots; /* distinct target offsets, so writes land in different places */
	uint64_t next;
} fabric_run;

static void post_one(testbed_side *a, fabric_run *b)
{
	uint32_t slot = (uint32_t)(b->next++ % b->slots);
	if (testbed_post_write(a, b->next, 0, b->msg, (uint64_t)slot * b->msg, SMCR_SEND_SIGNALED) == 0)
		b->to_post--;
	else
		b->errors++;
}

static void on_wc(testbed *tb, testbed_side *side, const smcr_wc *wc)
{
	fabric_run *b = tb->p.user;
	side->n_wcs = 0; /* the testbed's record is not needed here */
	if (side != &tb->a)
		return;
	if (wc->status != SMCR_WC_SUCCESS) {
		b->errors++;
		return;
	}
	b->completed++;
	if (b->to_post)
		post_one(side, b);
}

static testbed *testbed_for(const fabric_bench_config *c, fabric_run *b)
{
	testbed_params p;
	testbed_params_default(&p);
	p.seed = c->seed;
	p.version = c->version;
	p.eth_mtu = 9000;
	p.path_mtu = c->path_mtu;
	p.wire.bandwidth_bps = c->gbps * 1000000000ULL;
	p.max_send_wr = c->outstanding;
	p.mr_size = (size_t)b->slots * c->msg;
	p.on_wc = on_wc;
	p.user = b;
	testbed *tb = testbed_new(&p);
	for (size_t i = 0; tb && i < p.mr_size; i++)
		tb->a.mem[i] = (uint8_t)(i * 131u + 7u);
	return tb;
}

/* The run's figures into r (the best rate kept); false when the transfer failed. */
static bool record(testbed *tb, const fabric_run *b, const fabric_bench_config *c, double dt, fabric_bench_result *r)
{
	const rnic_qp_stats *qa = rnic_qp_stats_get(tb->a.qp), *qb = rnic_qp_stats_get(tb->b.qp);
	if (b->errors || b->completed != r->writes || qb->rx_payload_bytes != r->writes * c->msg ||
	    memcmp(tb->a.mem, tb->b.mem, c->msg) != 0)
		return false;
	r->packets = qa->tx_packets + qb->tx_acks;
	r->acks = qb->tx_acks;
	r->payload = qb->rx_payload_bytes;
	double rate = (double)r->payload / dt;
	if (rate > r->best_payload_rate) {
		r->best_payload_rate = rate;
		r->best_packet_rate = (double)r->packets / dt;
	}
	r->sim_gbps = (double)r->payload * 8.0 / (double)sim_now(tb->eng);
	r->events = sim_engine_events_run(tb->eng);
	r->frame_buffers = sim_frame_pool_allocated(sim_fabric_frames(tb->fab));
	return true;
}

/* One run; 0, or 1 with the reason in err. */
static int one_run(const fabric_bench_config *c, uint64_t k, fabric_bench_result *r, char *err, size_t errlen)
{
	fabric_run b = { .to_post = r->writes, .msg = c->msg, .slots = 8 };
	testbed *tb = testbed_for(c, &b);
	if (!tb) {
		snprintf(err, errlen, "could not build the testbed");
		return 1;
	}
	double t0 = bench_wall_seconds();
	for (uint32_t i = 0; i < c->outstanding && b.to_post; i++)
		post_one(&tb->a, &b);
	testbed_run(tb, SIM_TIME_NEVER);
	int rc = 0;
	if (!record(tb, &b, c, bench_wall_seconds() - t0, r)) {
		snprintf(err, errlen, "transfer failed (%" PRIu64 " of %" PRIu64 " writes, %" PRIu64 " errors)", b.completed,
		         r->writes, b.errors);
		rc = 1;
	} else if (k == 0) {
		r->fingerprint = sim_engine_fingerprint(tb->eng);
	} else if (r->fingerprint != sim_engine_fingerprint(tb->eng)) {
		snprintf(err, errlen, "fingerprint differs between runs (determinism bug)");
		rc = 1;
	}
	testbed_free(tb);
	return rc;
}

int fabric_bench_run(const fabric_bench_config *c, fabric_bench_result *r, char *err, size_t errlen)
{
	*r = (fabric_bench_result){ 0 };
	r->writes = (c->total_mib << 20) / c->msg;
	if (r->writes == 0)
		r->writes = 1;
	for (uint64_t k = 0; k < c->repeat; k++)
		if (one_run(c, k, r, err, errlen))
			return 1;
	return 0;
}
