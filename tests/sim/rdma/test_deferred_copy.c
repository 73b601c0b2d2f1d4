/* The adapter's RDMA WRITEs on deferred frame copies (rnic_vf_notes_writes): the
 * receiver gets the bytes the sender's memory held when the packet was sent, whatever the
 * host does to that memory afterwards, as long as it says so first; a tap sees the bytes
 * as if copied at once; a checking pool catches a host that writes without telling.
 * Speed contract 1 (sim/fabric/speed_contracts.h; the frame mechanism itself:
 * tests/sim/fabric/test_deferred_copy.c). Real frames through sim/testbed/testbed.h. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>

#include "sim/fabric/fabric.h"
#include "sim/fabric/frame.h"
#include "sim/fabric/plug.h"
#include "sim/fabric/roce.h"
#include "sim/fabric/wire.h"
#include "sim/rdma/rnic.h"
#include "sim/testbed/testbed.h"

static testbed *tb;

static void fin(void)
{
	cr_expect_eq(sim_frame_pool_in_use(sim_fabric_frames(tb->fab)), 0, "frames left in flight");
	cr_expect_eq(sim_frame_pool_deferred(sim_fabric_frames(tb->fab)), 0);
	testbed_free(tb);
	tb = NULL;
}

static void make(bool notes_writes)
{
	testbed_params p;
	testbed_params_default(&p);
	p.version = ROCE_V2;
	p.eth_mtu = 4200;
	tb = testbed_new(&p);
	cr_assert_not_null(tb);
	if (notes_writes)
		rnic_vf_notes_writes(tb->a.vf);
	for (uint32_t i = 0; i < 200000; i++)
		tb->a.mem[i] = (uint8_t)((i * 2654435761u + 7u) >> 13);
}

/* A 200,000-byte WRITE; once some of its packets are in flight the host rewrites the whole
 * source (telling the adapter first when tell): the receiver must get the old bytes of
 * every packet sent before the rewrite and may get new bytes only in later ones. */
static uint64_t write_then_rewrite(bool notes_writes, bool tell, uint32_t *old_bytes)
{
	make(notes_writes);
	static uint8_t before[200000];
	memcpy(before, tb->a.mem, sizeof before);
	cr_assert_eq(testbed_post_write(&tb->a, 1, 0, 200000, 0, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, 3 * SIM_US);
	uint64_t sent = rnic_qp_stats_get(tb->a.qp)->tx_payload_bytes;
	cr_assert_gt(sent, 0, "packets in flight");
	cr_assert_lt(sent, 200000, "and more to send");
	if (notes_writes)
		cr_assert_gt(sim_frame_pool_deferred(sim_fabric_frames(tb->fab)), 0, "payloads left in the source");
	if (tell)
		rnic_host_writes(tb->a.nic, tb->a.mem, 200000);
	memset(tb->a.mem, 0xEE, 200000);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.n_wcs, 1);
	cr_assert_eq(tb->a.wcs[0].status, SMCR_WC_SUCCESS);
	uint32_t n = 0;
	while (n < 200000 && tb->b.mem[n] == before[n])
		n++;
	*old_bytes = n;
	cr_assert_eq(memcmp(tb->b.mem + n, tb->a.mem + n, 200000 - n), 0, "new bytes after the old ones");
	cr_assert_geq(n, sent, "%u old bytes, %lu were sent before the rewrite", n, (unsigned long)sent);
	if (notes_writes) {
		/* every packet left its payload in the source, however many were in flight */
		sim_frame_pool_stats st;
		sim_frame_pool_stats_get(sim_fabric_frames(tb->fab), &st);
		cr_assert_eq(st.deferred, 49, "200,000 bytes in 4096-byte packets");
		cr_assert_eq(st.settled + st.copied_out, 49);
	}
	uint64_t fp = sim_engine_fingerprint(tb->eng);
	fin();
	return fp;
}

Test(deferred_copy, the_receiver_gets_the_bytes_of_send_time_when_the_host_tells)
{
	uint32_t eager_old, deferred_old;
	uint64_t eager = write_then_rewrite(false, false, &eager_old);
	uint64_t deferred = write_then_rewrite(true, true, &deferred_old);
	cr_assert_eq(deferred_old, eager_old, "the same bytes arrive");
	cr_assert_eq(deferred, eager, "the same run, ICRCs included");
}

/* A tap sees every byte of a frame whose payload was deferred, as it was at send time. */
typedef struct tap_check {
	const uint8_t *mem;
	unsigned frames;
} tap_check;

static void check_tap(void *ctx, const sim_plug *plug, sim_tap_dir dir, sim_time at, const sim_frame *f)
{
	(void)plug;
	(void)dir;
	(void)at;
	tap_check *t = ctx;
	roce_pkt rp;
	smcr_decode_err err;
	cr_assert_eq(roce_parse(f->data, f->len, &rp, &err), 0, "the ICRC over the bytes the tap sees");
	if (rp.bth.opcode == ROCE_OP_ACK)
		return;
	uint32_t off = (uint32_t)roce_psn_diff(rp.bth.psn, tb->p.sq_psn_a) * 4096u; /* the WRITE is the first */
	cr_assert_eq(memcmp(rp.payload, t->mem + off, rp.payload_len), 0, "PSN %u's payload", rp.bth.psn);
	t->frames++;
}

Test(deferred_copy, a_tap_sees_the_payload)
{
	make(true);
	static uint8_t before[200000];
	memcpy(before, tb->a.mem, sizeof before);
	tap_check t = { before, 0 };
	sim_plug_set_tap(sim_wire_end(tb->a.wire, 1), check_tap, &t);
	cr_assert_eq(testbed_post_write(&tb->a, 1, 0, 200000, 0, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(t.frames, 49, "200,000 bytes in 4096-byte packets");
	cr_assert_eq(memcmp(tb->b.mem, before, 200000), 0);
	fin();
}

/* Contract 1 broken: the host rewrites the memory a WRITE is being sent from without
 * telling the adapter first; a checking pool stops the run when the responder reads it. */
Test(deferred_copy, a_host_that_writes_without_telling_is_caught, .signal = SIGABRT)
{
	make(true);
	sim_frame_pool_check_contracts(sim_fabric_frames(tb->fab), true);
	cr_assert_eq(testbed_post_write(&tb->a, 1, 0, 200000, 0, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, 3 * SIM_US);
	cr_assert_gt(sim_frame_pool_deferred(sim_fabric_frames(tb->fab)), 0, "payloads left in the source");
	memset(tb->a.mem, 0xEE, 200000);
	testbed_run(tb, SIM_TIME_NEVER);
}
