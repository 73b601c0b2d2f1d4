/* Frame buffers: headroom, append, clone, pool reuse. */
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

Test(frame, clone_is_an_independent_copy)
{
	sim_frame_pool *pool = sim_frame_pool_new();
	sim_frame *f = sim_frame_alloc(pool);
	memcpy(sim_frame_put(f, 5), "hello", 5);
	sim_frame_push(f, 3)[0] = 'x';
	sim_frame *c = sim_frame_clone(f);
	cr_assert_eq(c->len, f->len);
	cr_assert_eq(memcmp(c->data, f->data, f->len), 0);
	cr_assert_eq(sim_frame_headroom(c), sim_frame_headroom(f));
	c->data[3] = 'j';
	cr_assert_eq(f->data[3], 'h');
	cr_assert_eq(sim_frame_pool_in_use(pool), 2);
	sim_frame_free(f);
	sim_frame_free(c);
	cr_assert_eq(sim_frame_pool_in_use(pool), 0);
	sim_frame_pool_free(pool);
}

Test(frame, freed_buffers_are_reused)
{
	sim_frame_pool *pool = sim_frame_pool_new();
	for (int round = 0; round < 100; round++) {
		sim_frame *a = sim_frame_alloc(pool), *b = sim_frame_alloc(pool);
		sim_frame_free(a);
		sim_frame_free(b);
	}
	cr_assert_eq(sim_frame_pool_allocated(pool), 2);
	/* frames still in use at teardown are reclaimed by the pool (ASan checks the leak) */
	sim_frame_alloc(pool);
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
