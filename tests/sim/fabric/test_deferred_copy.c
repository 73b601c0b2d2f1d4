/* Deferred frame copies (sim/fabric/frame.h) and the adapter's use of them for RDMA
 * WRITE payloads (rnic_vf_notes_writes): the receiver gets the bytes the sender's memory
 * held when the packet was sent, whatever the host does to that memory afterwards, as
 * long as it says so first; taps and writers see the bytes as if copied at once. The
 * promise is speed contract 1 (sim/fabric/speed_contracts.h): a world keeps it, and a
 * checking pool catches a host that breaks it. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>

#include <stdlib.h>

#include "model/byteorder.h"
#include "sim/fabric/frame.h"
#include "sim/fabric/icrc.h"
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
	uint8_t src[256];
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
	/* too short to keep its bookkeeping in the bytes it leaves out: the caller copies */
	f = sim_frame_alloc_data(pool, 16 + SIM_FRAME_DEFER_MIN - 1);
	cr_assert_not(sim_frame_defer_copy(f, f->data + 16, src, SIM_FRAME_DEFER_MIN - 1));
	cr_assert_eq(sim_frame_pool_deferred(pool), 0);
	sim_frame_free(f);
	sim_frame_pool_free(pool);
}

/* Thousands in flight at once, their sources spread over many 64 KiB regions, some across
 * a region's end: a settle finds exactly the copies whose source it touches (a copy whose
 * source starts in the region before a written range but reaches into it included). */
Test(deferred_copy, any_number_in_flight_each_found_by_its_source)
{
	enum { N = 3000, LEN = 1500, SPAN = 4 * 65536 };
	sim_frame_pool *pool = sim_frame_pool_new();
	sim_frame_pool_check_contracts(pool, false); /* it reads sources it changed on purpose */
	uint8_t *mem = aligned_alloc(65536, SPAN + 65536);
	for (unsigned i = 0; i < SPAN + 65536; i++)
		mem[i] = (uint8_t)(i * 7u + 3u);
	static sim_frame *f[N];
	static uint32_t at[N];
	for (unsigned i = 0; i < N; i++) {
		at[i] = (uint32_t)((i * 2654435761u) % (SPAN - LEN)); /* overlapping, unordered */
		f[i] = deferred_frame(pool, mem + at[i], LEN);
	}
	cr_assert_eq(sim_frame_pool_deferred(pool), N, "no bound on the copies in flight");
	/* memory nothing was sent from: nothing settled */
	sim_frame_pool_settle_range(pool, mem + SPAN, 65536);
	cr_assert_eq(sim_frame_pool_deferred(pool), N);
	/* a few bytes just after a region's start: copies starting before it that reach in */
	const uint32_t w0 = 65536 + 10, wn = 4;
	sim_frame_pool_settle_range(pool, mem + w0, wn);
	/* free every third */
	for (unsigned i = 0; i < N; i += 3) {
		sim_frame_free(f[i]);
		f[i] = NULL;
	}
	uint8_t *was = malloc(SPAN);
	memcpy(was, mem, SPAN);
	memset(mem, 0xEE, SPAN); /* without a word: only copies settled before see the old bytes */
	size_t settled = 0;
	for (unsigned i = 0; i < N; i++) {
		if (!f[i])
			continue;
		bool touched = at[i] < w0 + wn && w0 < at[i] + LEN;
		const uint8_t *b = sim_frame_bytes_at(f[i], f[i]->data + 16, LEN);
		if (touched) {
			settled++;
			cr_assert_eq(b, f[i]->data + 16, "copy %u was settled", i);
			cr_assert_eq(memcmp(b, was + at[i], LEN), 0, "copy %u has the old bytes", i);
		} else {
			cr_assert_eq(b, mem + at[i], "copy %u still reads its source", i);
		}
	}
	cr_assert_gt(settled, 10, "the range touched some copies (%zu)", settled);
	/* a range over every region: all the rest settle, from the (new) source */
	sim_frame_pool_settle_range(pool, mem, SPAN);
	cr_assert_eq(sim_frame_pool_deferred(pool), 0);
	for (unsigned i = 0; i < N; i++)
		sim_frame_free(f[i]);
	cr_assert_eq(sim_frame_pool_in_use(pool), 0);
	free(was);
	free(mem);
	sim_frame_pool_free(pool);
}

/* A copy that owes a CRC over its bytes and the pad after them: settled into the frame,
 * copied out to a receiver, or only asked for, the trailer is the CRC of the whole, as
 * icrc_crc32 over the bytes in one piece gives it. */
static sim_frame *owing_frame(sim_frame_pool *pool, const uint8_t *src, uint32_t n, uint32_t *want)
{
	sim_frame *f = sim_frame_alloc_data(pool, 16 + n + 3 + 4);
	for (unsigned i = 0; i < 16; i++)
		f->data[i] = (uint8_t)(0xA0 + i);
	memset(f->data + 16 + n, 0, 3); /* the pad */
	uint32_t crc = icrc_crc32(0, f->data, 16);
	cr_assert(sim_frame_defer_copy_crc(f, f->data + 16, src, n, crc, f->data + 16 + n + 3));
	cr_assert(sim_frame_crc_owed(f));
	uint8_t whole[16 + 2000 + 3];
	memcpy(whole, f->data, 16);
	memcpy(whole + 16, src, n);
	memset(whole + 16 + n, 0, 3);
	*want = icrc_crc32(0, whole, 16 + n + 3);
	return f;
}

static uint32_t trailer(const sim_frame *f) { return get_le32(f->data + f->len - 4); }

Test(deferred_copy, an_owed_crc_is_paid_wherever_the_bytes_go)
{
	sim_frame_pool *pool = sim_frame_pool_new();
	static uint8_t src[2000];
	for (unsigned i = 0; i < sizeof src; i++)
		src[i] = (uint8_t)(i * 31u + 5u);
	const uint32_t lens[] = { SIM_FRAME_DEFER_MIN, 1000, 1024, 1999, 2000 };
	for (unsigned k = 0; k < sizeof lens / sizeof lens[0]; k++) {
		uint32_t n = lens[k], want;
		/* settled into the frame (a tap looks) */
		sim_frame *f = owing_frame(pool, src, n, &want);
		sim_frame_settle(f);
		cr_assert_not(sim_frame_crc_owed(f));
		cr_assert_eq(trailer(f), want, "%u bytes, settled", n);
		cr_assert_eq(memcmp(f->data + 16, src, n), 0);
		sim_frame_free(f);
		/* copied out to the receiver: the bytes go there, the CRC into the frame */
		uint8_t dst[2000];
		f = owing_frame(pool, src, n, &want);
		sim_frame_copy_out(f, f->data + 16, n, dst);
		cr_assert_eq(memcmp(dst, src, n), 0, "%u bytes copied out", n);
		cr_assert_not(sim_frame_crc_owed(f));
		cr_assert_eq(trailer(f), want, "%u bytes, copied out", n);
		cr_assert_eq(sim_frame_pool_deferred(pool), 1, "the frame still leaves its payload out");
		sim_frame_free(f);
		/* only asked for (a frame dropped before it was placed) */
		f = owing_frame(pool, src, n, &want);
		cr_assert_eq(sim_frame_owed_crc(f), want, "%u bytes, asked for", n);
		cr_assert_eq(trailer(f), want);
		sim_frame_free(f);
	}
	sim_frame_pool_stats st;
	sim_frame_pool_stats_get(pool, &st);
	cr_assert_eq(st.copied_out, 5);
	cr_assert_eq(sim_frame_pool_in_use(pool), 0);
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
