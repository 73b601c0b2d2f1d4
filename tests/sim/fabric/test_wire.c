/* Wires: serialization and propagation timing, FIFO order, MTU, faults from seeded
 * streams, link down. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "sim/fabric/wire.h"
#include "tests/support/frame_recorder.h"

static sim_engine *eng;
static sim_fabric *fab;
static sim_wire *w;
static frame_recorder a, b;
static const uint8_t mac_a[6] = { 2, 0, 0, 0, 0, 0xA }, mac_b[6] = { 2, 0, 0, 0, 0, 0xB };

static void build(uint64_t seed, const sim_wire_params *p)
{
	eng = sim_engine_new(seed);
	fab = sim_fabric_new(eng);
	w = sim_wire_new(fab, "w", p);
	rec_init(&a, fab, "a", mac_a);
	rec_init(&b, fab, "b", mac_b);
	cr_assert_eq(sim_endpoint_attach(&a.ep, sim_wire_end(w, 0)), 0);
	cr_assert_eq(sim_endpoint_attach(&b.ep, sim_wire_end(w, 1)), 0);
}

static void destroy(void)
{
	rec_destroy(&a);
	rec_destroy(&b);
	cr_expect_eq(sim_frame_pool_in_use(sim_fabric_frames(fab)), 0, "frames leaked");
	sim_fabric_free(fab);
	sim_engine_free(eng);
}

static void params(sim_wire_params *p, uint64_t bps, sim_time latency)
{
	sim_wire_params_default(p);
	p->bandwidth_bps = bps;
	p->latency = latency;
}

/* a frame of `len` bytes in total (Ethernet header included) */
static void send_a(uint32_t len, uint32_t seq)
{
	sim_endpoint_send(&a.ep, rec_make_frame(fab, mac_b, mac_a, 0, len - 14, 0, seq));
}

Test(wire, serialization_plus_propagation)
{
	sim_wire_params p;
	params(&p, 1000000000ULL, 2000); /* 1 Gb/s: 8 ns per byte */
	build(1, &p);
	send_a(1000, 1);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(b.n, 1);
	/* (1000 + preamble 8 + FCS 4 + gap 12) bytes * 8 ns + 2 us */
	cr_assert_eq(b.got[0].at, 1024 * 8 + 2000);
	destroy();
}

Test(wire, frames_queue_behind_each_other_in_fifo_order)
{
	sim_wire_params p;
	params(&p, 1000000000ULL, 100);
	build(1, &p);
	for (uint32_t i = 0; i < 5; i++)
		send_a(1000, i);
	send_a(40, 5); /* a runt is padded to 60 bytes on the wire */
	cr_assert_eq(sim_endpoint_tx_idle_at(&a.ep), 5 * 8192 + 84 * 8);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(b.n, 6);
	for (uint32_t i = 0; i < 5; i++) {
		cr_assert_eq(rec_seq(&b.got[i]), i);
		cr_assert_eq(b.got[i].at, (i + 1) * 8192 + 100);
	}
	cr_assert_eq(b.got[5].at, 5 * 8192 + 84 * 8 + 100);
	destroy();
}

Test(wire, directions_are_independent)
{
	sim_wire_params p;
	params(&p, 1000000000ULL, 100);
	build(1, &p);
	send_a(1000, 1);
	sim_endpoint_send(&b.ep, rec_make_frame(fab, mac_a, mac_b, 0, 986, 0, 2));
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(a.got[0].at, 8192 + 100);
	cr_assert_eq(b.got[0].at, 8192 + 100);
	destroy();
}

Test(wire, exact_timing_at_fractional_nanoseconds)
{
	sim_wire_params p;
	params(&p, 100000000000ULL, 0); /* 100 Gb/s: 0.08 ns per byte */
	build(1, &p);
	for (uint32_t i = 0; i < 1000; i++)
		send_a(1000, i);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	/* 1000 frames of 1024 wire bytes: exactly 81920 ns, no rounding drift */
	cr_assert_eq(b.n, 1000);
	cr_assert_eq(b.got[REC_KEEP - 1].at, (REC_KEEP * 8192 + 99) / 100);
	cr_assert_eq(sim_now(eng), 81920);
	destroy();
}

Test(wire, oversize_frames_are_dropped_and_counted)
{
	sim_wire_params p;
	params(&p, 0, 10);
	p.mtu = 1500;
	build(1, &p);
	send_a(1514, 1);                                                              /* MTU-sized: fine */
	send_a(1515, 2);                                                              /* one too many */
	sim_endpoint_send(&a.ep, rec_make_frame(fab, mac_b, mac_a, 100, 1500, 0, 3)); /* tag is extra */
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(b.n, 2);
	cr_assert_eq(rec_seq(&b.got[0]), 1);
	cr_assert_eq(rec_seq(&b.got[1]), 3);
	cr_assert_eq(sim_wire_stats_get(w, 0)->mtu_drops, 1);
	destroy();
}

Test(wire, queue_limit_tail_drops)
{
	sim_wire_params p;
	params(&p, 1000000000ULL, 10);
	p.queue_limit = 3100;
	build(1, &p);
	for (uint32_t i = 0; i < 10; i++)
		send_a(1000, i);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	/* the backlog counts wire bytes still to serialize (1024 per frame): frame 2 makes it
	 * 2048 + 1000 <= 3100, frame 3 would make it 3072 + 1000 */
	cr_assert_eq(b.n, 3);
	cr_assert_eq(sim_wire_stats_get(w, 0)->queue_drops, 7);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	send_a(1000, 10); /* the queue has drained */
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(b.n, 4);
	destroy();
}

static size_t run_faulty(uint64_t seed, sim_ratio loss, sim_ratio dup, sim_ratio reorder, sim_ratio corrupt,
                         uint64_t *hash)
{
	sim_wire_params p;
	params(&p, 10000000000ULL, 1000);
	p.loss = loss;
	p.duplicate = dup;
	p.reorder = reorder;
	p.corrupt = corrupt;
	p.reorder_delay = 5000;
	build(seed, &p);
	for (uint32_t i = 0; i < 1000; i++)
		send_a(150, i); /* short enough for the recorder to keep whole */
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	size_t n = b.n;
	*hash = b.hash;
	return n;
}

static const sim_ratio never = { 0, 1 }, always = { 1, 1 };

Test(wire, loss_is_seeded_and_about_right)
{
	uint64_t h1, h2, h3;
	size_t n1 = run_faulty(5, (sim_ratio){ 1, 10 }, never, never, never, &h1);
	const sim_wire_stats *st = sim_wire_stats_get(w, 0);
	cr_assert_eq(st->lost + st->delivered, 1000);
	cr_assert_eq(n1, st->delivered);
	destroy();
	size_t n2 = run_faulty(5, (sim_ratio){ 1, 10 }, never, never, never, &h2);
	destroy();
	(void)run_faulty(6, (sim_ratio){ 1, 10 }, never, never, never, &h3);
	destroy();
	cr_assert_eq(n1, n2);
	cr_assert_eq(h1, h2, "same seed, same frames at the same times");
	cr_assert_neq(h1, h3, "another seed, other losses");
	cr_assert(n1 > 850 && n1 < 950, "about 10%% lost: %zu delivered", n1);
	uint64_t h;
	cr_assert_eq(run_faulty(5, always, never, never, never, &h), 0);
	destroy();
}

Test(wire, duplication_delivers_two_copies)
{
	uint64_t h;
	cr_assert_eq(run_faulty(1, never, always, never, never, &h), 2000);
	cr_assert_eq(rec_seq(&b.got[0]), 0);
	cr_assert_eq(rec_seq(&b.got[1]), 0);
	cr_assert_eq(b.got[0].at, b.got[1].at);
	destroy();
}

Test(wire, reordering_lets_later_frames_overtake)
{
	uint64_t h;
	cr_assert_eq(run_faulty(3, never, never, (sim_ratio){ 1, 4 }, never, &h), 1000);
	size_t inversions = 0;
	for (size_t i = 1; i < REC_KEEP; i++)
		inversions += rec_seq(&b.got[i]) < rec_seq(&b.got[i - 1]);
	cr_assert_gt(inversions, 5);
	cr_assert_gt(sim_wire_stats_get(w, 0)->reordered, 150);
	destroy();
}

Test(wire, corruption_flips_exactly_one_bit)
{
	uint64_t h;
	cr_assert_eq(run_faulty(4, never, never, never, always, &h), 1000);
	for (size_t i = 0; i < REC_KEEP; i++) {
		sim_frame *clean = rec_make_frame(fab, mac_b, mac_a, 0, 136, 0, (uint32_t)i);
		int bits = 0;
		for (uint32_t k = 0; k < clean->len; k++)
			bits += __builtin_popcount((unsigned)(clean->data[k] ^ b.got[i].data[k]));
		cr_assert_eq(bits, 1, "frame %zu", i);
		sim_frame_free(clean);
	}
	destroy();
}

Test(wire, corrupting_a_shared_frame_leaves_the_other_holder_its_bytes)
{
	sim_wire_params p;
	params(&p, 0, 1000);
	p.corrupt = (sim_ratio){ 1, 1 };
	build(9, &p);
	sim_frame *f = rec_make_frame(fab, mac_b, mac_a, 0, 100, 0x42, 7);
	sim_frame *kept = sim_frame_clone(f); /* a tap that keeps the frame, say */
	uint8_t orig[114];
	memcpy(orig, kept->data, sizeof orig);
	sim_endpoint_send(&a.ep, f);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(b.n, 1);
	cr_assert_eq(memcmp(kept->data, orig, sizeof orig), 0, "the kept reference is untouched");
	cr_assert_neq(memcmp(b.got[0].data, orig, sizeof orig), 0, "the receiver got the flipped bit");
	sim_frame_pool_stats st;
	sim_frame_pool_stats_get(sim_fabric_frames(fab), &st);
	cr_assert_eq(st.copied_on_write, 1);
	sim_frame_free(kept);
	destroy();
}

Test(wire, down_drops_frames_in_flight_and_drops_carrier)
{
	sim_wire_params p;
	params(&p, 1000000000ULL, 10000);
	build(1, &p);
	cr_assert(a.carrier && b.carrier);
	send_a(1000, 1);
	sim_engine_run(eng, 5000, 0);
	sim_wire_set_up(w, false);
	cr_assert_not(a.carrier);
	cr_assert_not(b.carrier);
	cr_assert_not(sim_endpoint_send(&a.ep, rec_make_frame(fab, mac_b, mac_a, 0, 100, 0, 2)));
	sim_wire_set_up(w, true);
	cr_assert(a.carrier && b.carrier);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(b.n, 0, "the frame in flight was lost with the link");
	cr_assert_eq(sim_wire_stats_get(w, 0)->down_drops, 1);
	send_a(1000, 3);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(b.n, 1);
	destroy();
}

/* The FIFO keeps frames in chunks: a long queue crosses many chunk boundaries, drains,
 * fills again, and a link going down drops exactly what was queued (across chunks) while
 * what is sent afterwards arrives. */
Test(wire, long_queues_cross_chunks_in_order_and_down_drops_them_all)
{
	sim_wire_params p;
	params(&p, 1000000000ULL, 100);
	build(1, &p);
	for (uint32_t i = 0; i < 100; i++)
		send_a(1000, i);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(b.n, 100);
	for (uint32_t i = 0; i < 100 && i < REC_KEEP; i++) {
		cr_assert_eq(rec_seq(&b.got[i]), i);
		cr_assert_eq(b.got[i].at, (i + 1) * 8192 + 100);
	}
	sim_time t0 = sim_now(eng);
	for (uint32_t i = 0; i < 70; i++)
		send_a(1000, 1000 + i);
	sim_engine_run(eng, t0 + 30 * 8192 + 100, 0); /* 30 arrived, 40 queued */
	cr_assert_eq(b.n, 130);
	sim_wire_set_up(w, false);
	sim_wire_set_up(w, true);
	send_a(1000, 5000);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(b.n, 131);
	cr_assert_eq(sim_wire_stats_get(w, 0)->down_drops, 40);
	cr_assert_eq(sim_wire_stats_get(w, 0)->delivered, 131);
	destroy();
}

Test(wire, carrier_needs_a_device_at_the_far_end)
{
	sim_wire_params p;
	params(&p, 0, 10);
	eng = sim_engine_new(1);
	fab = sim_fabric_new(eng);
	w = sim_wire_new(fab, "w", &p);
	rec_init(&a, fab, "a", mac_a);
	rec_init(&b, fab, "b", mac_b);
	sim_endpoint_attach(&a.ep, sim_wire_end(w, 0));
	cr_assert_not(a.carrier, "nothing plugged in at the other end");
	sim_endpoint_attach(&b.ep, sim_wire_end(w, 1));
	cr_assert(a.carrier);
	sim_endpoint_set_admin(&b.ep, false);
	cr_assert_not(a.carrier, "the far interface went down");
	sim_endpoint_set_admin(&b.ep, true);
	cr_assert(a.carrier);
	sim_endpoint_detach(&b.ep);
	cr_assert_not(a.carrier);
	cr_assert_eq(sim_plug_connect(sim_wire_end(w, 1), sim_wire_end(w, 0)), -101, "wire end to wire end");
	destroy();
}

static int tap_count[2];
static void count_tap(void *ctx, const sim_plug *plug, sim_tap_dir dir, sim_time at, const sim_frame *f)
{
	(void)ctx;
	(void)plug;
	(void)at;
	(void)f;
	tap_count[dir]++;
}

Test(wire, taps_see_both_directions)
{
	sim_wire_params p;
	params(&p, 0, 10);
	build(1, &p);
	sim_plug_set_tap(sim_wire_end(w, 0), count_tap, NULL);
	send_a(100, 1);
	sim_endpoint_send(&b.ep, rec_make_frame(fab, mac_a, mac_b, 0, 86, 0, 2));
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(tap_count[SIM_TAP_IN], 1, "from a into the wire");
	cr_assert_eq(tap_count[SIM_TAP_OUT], 1, "from the wire to a");
	destroy();
}
