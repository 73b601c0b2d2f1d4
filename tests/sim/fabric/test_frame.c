/* Frame buffers: headroom, append, size classes, shared clones and copy on write, pool reuse. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/fabric/eth_header.h"
#include "sim/fabric/frame.h"

Test(frame, headers_are_prepended_into_headroom_without_moving_the_payload)
{
	sim_frame_pool *pool = sim_frame_pool_new();
	sim_frame *f = sim_frame_alloc(pool);
	cr_assert_eq(f->len, 0);
	cr_assert_eq(sim_frame_headroom(f), SIM_FRAME_HEADROOM);
	uint8_t *payload = sim_frame_put(f, 100);
	memset(payload, 0xAB, 100);
	uint8_t *udp = sim_frame_push(f, 8);
	cr_assert_eq(udp + 8, payload);
	uint8_t *ip = sim_frame_push(f, 20);
	cr_assert_eq(ip + 20, udp);
	cr_assert_eq(f->len, 128);
	cr_assert_eq(f->data, ip);
	cr_assert_eq(sim_frame_headroom(f), SIM_FRAME_HEADROOM - 28);
	sim_frame_pull(f, 28);
	cr_assert_eq(f->data, payload);
	sim_frame_trim(f, 10);
	cr_assert_eq(f->len, 10);
	cr_assert_eq(sim_frame_tailroom(f), SIM_FRAME_CAPACITY - SIM_FRAME_HEADROOM - 10);
	sim_frame_free(f);
	sim_frame_pool_free(pool);
}

Test(frame, a_clone_shares_the_bytes_until_one_side_writes)
{
	sim_frame_pool *pool = sim_frame_pool_new();
	sim_frame *f = sim_frame_alloc_len(pool, 8);
	memcpy(sim_frame_put(f, 5), "hello", 5);
	sim_frame_push(f, 3)[0] = 'x';
	sim_frame *c = sim_frame_clone(f);
	cr_assert_eq(c->len, f->len);
	cr_assert_eq(c->data, f->data, "a clone is a reference, not a copy");
	cr_assert(sim_frame_shared(f) && sim_frame_shared(c));
	cr_assert_eq(sim_frame_headroom(c), sim_frame_headroom(f));
	sim_frame_pool_stats st;
	sim_frame_pool_stats_get(pool, &st);
	cr_assert_eq(st.frames_in_use, 2);
	cr_assert_eq(st.bufs_in_use[0], 1, "two handles, one buffer");

	sim_frame_writable(c)[3] = 'j';
	cr_assert_neq(c->data, f->data, "the writer got its own copy");
	cr_assert_eq(f->data[3], 'h', "the other holder does not see the change");
	cr_assert_eq(c->data[3], 'j');
	cr_assert_eq(memcmp(c->data + 4, f->data + 4, 4), 0);
	cr_assert_eq(sim_frame_headroom(c), sim_frame_headroom(f));
	cr_assert_not(sim_frame_shared(f));
	cr_assert_not(sim_frame_shared(c));
	sim_frame_pool_stats_get(pool, &st);
	cr_assert_eq(st.copied_on_write, 1);
	cr_assert_eq(st.bufs_in_use[0], 2);
	sim_frame_free(f);
	sim_frame_free(c);
	sim_frame_pool_stats_get(pool, &st);
	cr_assert_eq(st.frames_in_use, 0);
	cr_assert_eq(st.bufs_in_use[0], 0);
	sim_frame_pool_free(pool);
}

Test(frame, the_last_reference_returns_the_buffer_and_a_sole_owner_writes_in_place)
{
	sim_frame_pool *pool = sim_frame_pool_new();
	sim_frame *f = sim_frame_alloc_len(pool, 60);
	memset(sim_frame_put(f, 60), 0x5A, 60);
	sim_frame *copies[10];
	for (int i = 0; i < 10; i++)
		copies[i] = sim_frame_clone(f);
	sim_frame_free(f);
	for (int i = 0; i < 9; i++)
		sim_frame_free(copies[i]);
	sim_frame_pool_stats st;
	sim_frame_pool_stats_get(pool, &st);
	cr_assert_eq(st.bufs_in_use[0], 1, "still referenced by the last clone");
	const uint8_t *before = copies[9]->data;
	cr_assert_not(sim_frame_shared(copies[9]));
	cr_assert_eq(sim_frame_writable(copies[9]), before, "no copy for the only holder");
	sim_frame_push(copies[9], 4)[0] = 1;
	sim_frame_pool_stats_get(pool, &st);
	cr_assert_eq(st.copied_on_write, 0);
	sim_frame_free(copies[9]);
	sim_frame_pool_stats_get(pool, &st);
	cr_assert_eq(st.bufs_in_use[0], 0);
	cr_assert_eq(st.frames_in_use, 0);
	sim_frame_pool_free(pool);
}

Test(frame, buffers_come_in_size_classes)
{
	sim_frame_pool *pool = sim_frame_pool_new();
	/* each length lands in the smallest class that holds the headroom and the frame */
	static const struct {
		uint32_t len;
		int cls;
	} cases[] = {
		{ 42, 0 },
		{ 128, 0 },
		{ 129, 1 },
		{ 384, 1 },
		{ 1518, 2 },
		{ 1920, 2 },
		{ 4170, 3 },
		{ 4480, 3 },
		{ 4481, 4 },
		{ 9000, 4 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		sim_frame *f = sim_frame_alloc_len(pool, cases[i].len);
		sim_frame_pool_stats st;
		sim_frame_pool_stats_get(pool, &st);
		cr_assert_eq(st.bufs_in_use[cases[i].cls], 1, "length %u: class %d", cases[i].len, cases[i].cls);
		cr_assert_eq(sim_frame_headroom(f), SIM_FRAME_HEADROOM);
		memset(sim_frame_put(f, cases[i].len), 0xEE, cases[i].len);
		sim_frame_free(f);
	}
	sim_frame *f = sim_frame_alloc(pool);
	sim_frame_pool_stats st;
	sim_frame_pool_stats_get(pool, &st);
	cr_assert_eq(st.bufs_in_use[SIM_FRAME_CLASSES - 1], 1, "sim_frame_alloc: the largest class");
	sim_frame_free(f);
	cr_assert_eq(sim_frame_class_size[SIM_FRAME_CLASSES - 1], SIM_FRAME_CAPACITY);
	sim_frame_pool_free(pool);
}

Test(frame, a_frame_that_outgrows_its_class_moves_with_its_bytes)
{
	sim_frame_pool *pool = sim_frame_pool_new();
	sim_frame *f = sim_frame_alloc_len(pool, 20);
	memcpy(sim_frame_put(f, 20), "0123456789abcdefghij", 20);
	sim_frame *c = sim_frame_clone(f);
	uint8_t *more = sim_frame_put(f, 3000);
	memset(more, 'z', 3000);
	cr_assert_eq(f->len, 3020);
	cr_assert_eq(sim_frame_headroom(f), SIM_FRAME_HEADROOM);
	cr_assert_eq(memcmp(f->data, "0123456789abcdefghij", 20), 0);
	cr_assert_eq(c->len, 20, "the clone keeps the old bytes");
	cr_assert_eq(memcmp(c->data, "0123456789abcdefghij", 20), 0);
	sim_frame_pool_stats st;
	sim_frame_pool_stats_get(pool, &st);
	cr_assert_eq(st.bufs_in_use[0], 1);
	cr_assert_eq(st.bufs_in_use[3], 1);
	cr_assert_eq(sim_frame_tailroom(f), SIM_FRAME_CAPACITY - SIM_FRAME_HEADROOM - 3020);
	sim_frame_free(f);
	sim_frame_free(c);
	sim_frame_pool_free(pool);
}

Test(frame, vlan_tag_insert_and_strip_in_place)
{
	sim_frame_pool *pool = sim_frame_pool_new();
	sim_frame *f = sim_frame_alloc(pool);
	static const uint8_t dst[6] = { 1, 2, 3, 4, 5, 6 }, src[6] = { 7, 8, 9, 10, 11, 12 };
	uint8_t *p = sim_frame_put(f, 14 + 4);
	sim_eth_write(p, dst, src, 0, 0x0800);
	memcpy(p + 14, "data", 4);
	uint8_t *payload = p + 14;
	sim_vlan_insert(f, 0x6064);
	sim_eth_hdr h;
	cr_assert(sim_eth_parse(f->data, f->len, &h));
	cr_assert(h.tagged);
	cr_assert_eq(h.tci, 0x6064);
	cr_assert_eq(h.ethertype, 0x0800);
	cr_assert_eq(memcmp(h.dst, dst, 6), 0);
	cr_assert_eq(memcmp(h.src, src, 6), 0);
	cr_assert_eq(f->data + 18, payload, "the payload did not move");
	cr_assert_eq(sim_vlan_strip(f), 0x6064);
	cr_assert(sim_eth_parse(f->data, f->len, &h));
	cr_assert_not(h.tagged);
	cr_assert_eq(f->len, 18);
	cr_assert_eq(memcmp(f->data + 14, "data", 4), 0);
	sim_frame_free(f);
	sim_frame_pool_free(pool);
}

Test(frame, tagging_or_untagging_a_shared_frame_leaves_the_other_holders_alone)
{
	sim_frame_pool *pool = sim_frame_pool_new();
	sim_frame *f = sim_frame_alloc_len(pool, 18);
	static const uint8_t dst[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, src[6] = { 2, 0, 0, 0, 0, 1 };
	uint8_t *p = sim_frame_put(f, 18);
	sim_eth_write(p, dst, src, 0, 0x0806);
	memcpy(p + 14, "arp!", 4);
	uint8_t orig[18];
	memcpy(orig, f->data, 18);
	sim_frame *tagged = sim_frame_clone(f);
	sim_vlan_insert(tagged, 0x0064);
	cr_assert_eq(tagged->len, 22);
	cr_assert_eq(f->len, 18);
	cr_assert_eq(memcmp(f->data, orig, 18), 0, "the untagged holder kept its bytes");
	sim_eth_hdr h;
	cr_assert(sim_eth_parse(tagged->data, tagged->len, &h) && h.tagged && h.tci == 0x0064);
	sim_frame *again = sim_frame_clone(tagged);
	cr_assert_eq(sim_vlan_strip(again), 0x0064);
	cr_assert_eq(memcmp(again->data, orig, 18), 0);
	cr_assert(sim_eth_parse(tagged->data, tagged->len, &h) && h.tagged, "the tagged holder is still tagged");
	sim_frame_free(f);
	sim_frame_free(tagged);
	sim_frame_free(again);
	cr_assert_eq(sim_frame_pool_in_use(pool), 0);
	sim_frame_pool_free(pool);
}

/* A parked frame keeps its bytes (and its share of a buffer) without a handle, still
 * counts as in use, and comes back as a handle on the same bytes. */
Test(frame, a_parked_frame_keeps_its_bytes_and_counts_as_in_use)
{
	sim_frame_pool *pool = sim_frame_pool_new();
	sim_frame *f = sim_frame_alloc_len(pool, 64);
	memcpy(sim_frame_put(f, 5), "hello", 5);
	sim_frame_pull(f, 1);
	sim_frame *c = sim_frame_clone(f);
	sim_frame_ref r[2];
	r[0].spare = 7;
	sim_frame_park(f, &r[0]);
	sim_frame_park(c, &r[1]);
	cr_assert_eq(r[0].spare, 7, "the holder's field is left alone");
	sim_frame_pool_stats st;
	sim_frame_pool_stats_get(pool, &st);
	cr_assert_eq(st.frames_in_use, 2);
	sim_frame *g = sim_frame_unpark(&r[0]);
	cr_assert_eq(g->len, 4);
	cr_assert_eq(memcmp(g->data, "ello", 4), 0);
	cr_assert_eq(sim_frame_headroom(g), SIM_FRAME_HEADROOM + 1);
	cr_assert(sim_frame_shared(g), "the parked clone still holds the buffer");
	sim_frame_writable(g)[0] = 'E';
	sim_frame *h = sim_frame_unpark(&r[1]);
	cr_assert_eq(memcmp(h->data, "ello", 4), 0, "a write after unparking copies first");
	sim_frame_free(g);
	sim_frame_pool_stats_get(pool, &st);
	cr_assert_eq(st.frames_in_use, 1);
	sim_frame_park(h, &r[1]);
	sim_frame_ref_free(&r[1]);
	sim_frame_pool_stats_get(pool, &st);
	cr_assert_eq(st.frames_in_use, 0);
	cr_assert_eq(st.bufs_in_use[0], 0);
	sim_frame_pool_free(pool);
}

/* The producer's word on a frame's checksums lasts exactly as long as its bytes: through
 * clones, parking and a trim, not through any write (a writer on a shared buffer gets a
 * copy without it, and the other holders keep theirs); a recycled buffer starts without. */
Test(frame, vouched_sums_last_until_someone_writes)
{
	sim_frame_pool *pool = sim_frame_pool_new();
	sim_frame *f = sim_frame_alloc_len(pool, 64);
	memset(sim_frame_put(f, 64), 0x5a, 64);
	cr_assert_not(sim_frame_sums_vouched(f), "a fresh frame carries nobody's word");
	sim_frame_vouch_sums(f);
	sim_frame *c = sim_frame_clone(f);
	cr_assert(sim_frame_sums_vouched(c), "a clone is the same bytes");
	sim_frame_ref r;
	sim_frame_park(c, &r);
	c = sim_frame_unpark(&r);
	cr_assert(sim_frame_sums_vouched(c), "parking keeps the buffer");
	sim_frame_trim(c, 60);
	cr_assert(sim_frame_sums_vouched(c), "trimming writes nothing");
	sim_frame_writable(c)[20] ^= 1;
	cr_assert_not(sim_frame_sums_vouched(c), "the writer's copy is nobody's word");
	cr_assert(sim_frame_sums_vouched(f), "the other holder's bytes did not change");
	sim_frame_writable(f);
	cr_assert_not(sim_frame_sums_vouched(f), "a sole owner about to write drops it too");
	sim_frame_vouch_sums(f);
	sim_frame_push(f, 4);
	cr_assert_not(sim_frame_sums_vouched(f), "push writes");
	sim_frame_vouch_sums(f);
	sim_frame_put(f, 4);
	cr_assert_not(sim_frame_sums_vouched(f), "put writes");
	sim_frame_vouch_sums(f);
	sim_frame_free(f);
	sim_frame_free(c);
	f = sim_frame_alloc_len(pool, 64);
	cr_assert_not(sim_frame_sums_vouched(f), "a recycled buffer starts without it");
	sim_frame_free(f);
	sim_frame_pool_free(pool);
}

Test(frame, alloc_data_is_alloc_len_and_put_in_one)
{
	sim_frame_pool *pool = sim_frame_pool_new();
	static const uint32_t lens[] = { 62, 128, 384, 1400, 4200, SIM_FRAME_CAPACITY - SIM_FRAME_HEADROOM };
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		sim_frame *a = sim_frame_alloc_data(pool, lens[i]);
		sim_frame *b = sim_frame_alloc_len(pool, lens[i]);
		sim_frame_put(b, lens[i]);
		cr_assert_eq(a->len, lens[i]);
		cr_assert_eq(sim_frame_headroom(a), SIM_FRAME_HEADROOM);
		cr_assert_eq(a->buf->cls, b->buf->cls, "%u bytes: the same size class", lens[i]);
		cr_assert_not(sim_frame_shared(a));
		cr_assert_not(sim_frame_sums_vouched(a));
		memset(a->data, 0x5c, a->len); /* every byte is the caller's to write */
		sim_frame_free(a);
		sim_frame_free(b);
	}
	cr_assert_eq(sim_frame_pool_in_use(pool), 0);
	sim_frame_pool_free(pool);
}
