/* Deferred frame copies (sim/fabric/frame.h) and the adapter's use of them for RDMA
 * WRITE payloads (rnic_vf_notes_writes): the receiver gets the bytes the sender's memory
 * held when the packet was sent, whatever the host does to that memory afterwards, as
 * long as it says so first; taps and writers see the bytes as if copied at once. The
 * promise is speed contract 1 (sim/fabric/speed_contracts.h): a world keeps it, and a
 * checking pool catches a host that breaks it. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>

#include "sim/fabric/frame.h"
#include "sim/fabric/plug.h"
#include "sim/testbed/testbed.h"
#include "tests/support/scn_world.h"

/* --- the frame mechanism ------------------------------------------------------------- */

static sim_frame *deferred_frame(sim_frame_pool *pool, const uint8_t *src, uint32_t n)
{
	sim_frame *f = sim_frame_alloc_data(pool, 16 + n);
	memset(f->data, 0xAA, 16);
	cr_assert(sim_frame_defer_copy(f, f->data + 16, src, n));
	return f;
}

Test(deferred_copy, bytes_stay_in_their_source_until_settled)
{
	sim_frame_pool *pool = sim_frame_pool_new();
	uint8_t src[300];
	for (unsigned i = 0; i < sizeof src; i++)
		src[i] = (uint8_t)(i * 13u + 1u);
	sim_frame *f = deferred_frame(pool, src, sizeof src);
	cr_assert_eq(sim_frame_pool_deferred(pool), 1);
	cr_assert_eq(sim_frame_bytes_at(f, f->data + 16, sizeof src), src, "read where they are");
	cr_assert_eq(sim_frame_bytes_at(f, f->data + 20, 10), src + 4, "a part of them too");
	cr_assert_eq(sim_frame_bytes_at(f, f->data, 16), f->data, "the frame's own bytes");
	/* a settle of memory elsewhere leaves it alone; one that touches the source copies */
	uint8_t other[8];
	sim_frame_pool_settle_range(pool, other, sizeof other);
	cr_assert_eq(sim_frame_pool_deferred(pool), 1);
	sim_frame_pool_settle_range(pool, src + 299, 1);
	cr_assert_eq(sim_frame_pool_deferred(pool), 0);
	cr_assert_eq(sim_frame_bytes_at(f, f->data + 16, sizeof src), f->data + 16);
	memset(src, 0, sizeof src); /* after the settle the source may change */
	for (unsigned i = 0; i < sizeof src; i++)
		cr_assert_eq(f->data[16 + i], (uint8_t)(i * 13u + 1u), "byte %u copied when settled", i);
	sim_frame_free(f);
	sim_frame_pool_free(pool);
}

Test(deferred_copy, a_writer_or_a_clone_writer_settles_first)
{
	sim_frame_pool *pool = sim_frame_pool_new();
	uint8_t src[64];
	memset(src, 0x42, sizeof src);
	sim_frame *f = deferred_frame(pool, src, sizeof src);
	sim_frame *c = sim_frame_clone(f); /* a flood: one buffer, two handles */
	uint8_t *w = sim_frame_writable(c);
	cr_assert_eq(sim_frame_pool_deferred(pool), 0, "the copy on write needs the bytes");
	cr_assert_eq(w[16 + 5], 0x42);
	cr_assert_eq(f->data[16 + 5], 0x42, "the original has them as well");
	sim_frame_free(c);
	sim_frame_free(f);
	/* freed without anybody looking: the copy is never made */
	f = deferred_frame(pool, src, sizeof src);
	sim_frame_free(f);
	cr_assert_eq(sim_frame_pool_deferred(pool), 0);
	sim_frame_pool_stats st;
	sim_frame_pool_stats_get(pool, &st);
	cr_assert_eq(st.deferred, 2);
	cr_assert_eq(st.settled, 1);
	cr_assert_eq(sim_frame_pool_in_use(pool), 0);
	sim_frame_pool_free(pool);
}

Test(deferred_copy, many_in_flight_are_kept_in_order_of_nothing_but_found_by_each)
{
	enum { N = SIM_FRAME_MAX_DEFERRED };
	sim_frame_pool *pool = sim_frame_pool_new();
	sim_frame_pool_check_contracts(pool, false); /* it reads sources it changed on purpose */
	static uint8_t src[N + 1][32];
	sim_frame *f[N];
	for (unsigned i = 0; i < N; i++) {
		memset(src[i], (int)i, sizeof src[i]);
		f[i] = deferred_frame(pool, src[i], sizeof src[i]);
	}
	/* one more than the pool keeps: refused, the caller copies */
	sim_frame *extra = sim_frame_alloc_data(pool, 48);
	cr_assert_not(sim_frame_defer_copy(extra, extra->data + 16, src[N], 32));
	cr_assert_eq(sim_frame_pool_deferred(pool), N);
	sim_frame_free(extra);
	/* free every third, settle the sources of every fifth, then check each */
	for (unsigned i = 0; i < N; i += 3)
		sim_frame_free(f[i]);
	for (unsigned i = 1; i < N; i += 5)
		sim_frame_pool_settle_range(pool, src[i], sizeof src[i]);
	for (unsigned i = 0; i < N; i++) {
		if (i % 3 == 0)
			continue;
		memset(src[i], 0xFF, sizeof src[i]);
		const uint8_t *b = sim_frame_bytes_at(f[i], f[i]->data + 16, 32);
		bool settled = i % 5 == 1;
		cr_assert_eq(b[7], settled ? i : 0xFF, "frame %u: %s", i, settled ? "its own copy" : "its source");
		sim_frame_free(f[i]);
	}
	cr_assert_eq(sim_frame_pool_deferred(pool), 0);
	sim_frame_pool_free(pool);
}

/* --- RDMA WRITEs ------------------------------------------------------------------------ */

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

/* ... and kept by a world: the SMC-R layer and the core say every write first (the pool
 * checks every deferred copy), many connections streaming over one link. */
Test(deferred_copy, a_world_keeps_the_contract)
{
	scn_world *t = scn_world_new("end 2s\n"
	                             "switch SW\n"
	                             "adapter RA pfid=0010 switch=SW\n"
	                             "adapter RB pfid=0020 switch=SW\n"
	                             "stack A\n  interface eth0 switch=SW ip=10.0.0.1/24\n  smcr pfid=0010\nend\n"
	                             "stack B\n  interface eth0 switch=SW ip=10.0.0.2/24\n  smcr pfid=0020\nend\n"
	                             "app sink B listen port=5000 kind=sink\n"
	                             "app bulk A connect B:5000 kind=bulk bytes=4M conns=4\n"
	                             "expect mode bulk == SMCR\n"
	                             "expect delivered bulk == 16M\n",
	                             NULL);
	sim_frame_pool *pool = sim_fabric_frames(world_fabric(t->w));
	sim_frame_pool_check_contracts(pool, true);
	unsigned long failed = scn_world_run(t);
	cr_assert_eq(failed, 0, "%lu expectations failed:\n%s", failed, scn_world_output(t));
	sim_frame_pool_stats st;
	sim_frame_pool_stats_get(pool, &st);
	cr_assert_gt(st.deferred, 1000, "payloads were left in the send buffers (%lu)", (unsigned long)st.deferred);
	scn_world_free(t);
}
