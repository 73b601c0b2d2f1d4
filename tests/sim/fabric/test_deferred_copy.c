/* Deferred frame copies (sim/fabric/frame.h): a frame's payload left in the sender's
 * memory until the receiver copies it, the bytes read where they are, any number in
 * flight, a writer or a clone settling them first, an owed CRC paid wherever the bytes
 * go. Speed contract 1 (sim/fabric/speed_contracts.h); the adapter's RDMA WRITEs that use
 * it are tested in tests/sim/rdma/test_deferred_copy.c, a world that keeps it in
 * tests/sim/world/test_deferred_copy.c. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "model/byteorder.h"
#include "sim/fabric/frame.h"
#include "sim/fabric/icrc.h"

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
