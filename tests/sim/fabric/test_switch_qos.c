/* Switch congestion features: shared buffer and tail drop, strict-priority egress queues,
 * PFC (XOFF/XON, real MAC control frames, pause propagating hop by hop, headroom), RED/ECN
 * marking, and the seam helpers (sim/fabric/congestion.h). Senders are paced endpoints
 * that honour PAUSE as an adapter does: one frame whenever their wire is idle and their
 * priority is not paused. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "model/byteorder.h"
#include "model/smcr_err.h"
#include "sim/fabric/congestion.h"
#include "sim/fabric/endpoint.h"
#include "sim/fabric/eth_header.h"
#include "sim/fabric/switch.h"
#include "sim/fabric/wire.h"

#define MAXS 8

typedef struct sender {
	sim_endpoint ep;
	uint8_t mac[6];
	const uint8_t *dst;
	uint32_t left, sent;
	uint8_t tos;  /* IPv4 TOS of the frames (DSCP << 2 | ECN) */
	uint16_t tci; /* 802.1Q tag, 0 = none */
	sim_event ev;
	sim_time paused_total_seen;
	uint64_t pauses;
} sender;

typedef struct receiver {
	sim_endpoint ep;
	uint8_t mac[6];
	uint64_t frames, ce, bad_csum;
	sim_time last_at[MAXS + 1]; /* by the sender's number (its MAC's last byte) */
} receiver;

static sim_engine *eng;
static sim_fabric *fab;
static sender snd[MAXS];
static receiver rcv;

static uint16_t ipv4_csum(const uint8_t *h)
{
	uint32_t s = 0;
	for (int i = 0; i < 20; i += 2)
		s += get_be16(h + i);
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)~s;
}

/* A 1000-byte IPv4/UDP frame (a RoCE v2 frame as far as the switch cares). */
static sim_frame *make_ip_frame(const sender *s)
{
	sim_frame *f = sim_frame_alloc_len(sim_fabric_frames(fab), 1000);
	uint8_t *p = sim_frame_put(f, 1000);
	memset(p, 0, 1000);
	uint32_t o = sim_eth_write(p, s->dst, s->mac, s->tci, SIM_ETHERTYPE_IPV4);
	uint8_t *ip = p + o;
	ip[0] = 0x45;
	ip[1] = s->tos;
	put_be16(ip + 2, (uint16_t)(1000 - o));
	ip[8] = 64;
	ip[9] = 17;
	put_be16(ip + 10, ipv4_csum(ip));
	put_be16(ip + 22, 4791);
	return f;
}

static void pump(sim_engine *e, sim_event *ev)
{
	sender *s = ev->ctx;
	sim_time now = sim_now(e);
	if (!s->left)
		return;
	unsigned prio = s->tci ? (unsigned)(s->tci >> 13) : 0;
	sim_time until = sim_endpoint_paused_until(&s->ep, prio);
	sim_time idle = sim_endpoint_tx_idle_at(&s->ep);
	sim_time t = until > idle ? until : idle;
	if (t > now) {
		sim_event_schedule(e, ev, t);
		return;
	}
	s->left--;
	s->sent++;
	sim_endpoint_send(&s->ep, make_ip_frame(s));
	sim_event_schedule(e, ev, sim_endpoint_tx_idle_at(&s->ep));
}

static void on_pause(void *ctx, unsigned prio, uint16_t quanta, sim_time until, sim_time at)
{
	sender *s = ctx;
	(void)prio;
	(void)until;
	if (quanta)
		s->pauses++;
	/* resumed or paused: look again when it ends (pump reschedules itself) */
	sim_event_schedule(eng, &s->ev, at);
}

static void sender_rx(sim_endpoint *ep, sim_frame *f)
{
	(void)ep;
	sim_frame_free(f);
}

static void receiver_rx(sim_endpoint *ep, sim_frame *f)
{
	receiver *r = ep->ctx;
	const uint8_t *ip = sim_frame_ipv4(f->data, f->len);
	if (ip && memcmp(f->data, r->mac, 6) == 0) {
		r->frames++;
		if (f->data[11] <= MAXS)
			r->last_at[f->data[11]] = sim_now(eng);
		if ((ip[1] & 3) == SIM_ECN_CE)
			r->ce++;
		if (ipv4_csum(ip) != 0)
			r->bad_csum++;
	}
	sim_frame_free(f);
}

static sim_wire *wire(const char *name, uint64_t bps)
{
	sim_wire_params wp;
	sim_wire_params_default(&wp);
	wp.bandwidth_bps = bps;
	wp.latency = 1000;
	return sim_wire_new(fab, name, &wp);
}

static void attach(sim_endpoint *ep, sim_plug *port, const char *name, uint64_t bps)
{
	sim_wire *w = wire(name, bps);
	cr_assert_eq(sim_endpoint_attach(ep, sim_wire_end(w, 0)), 0);
	cr_assert_eq(sim_plug_connect(sim_wire_end(w, 1), port), 0);
}

static sim_switch *new_switch(const char *name, uint32_t nports, const sim_switch_qos *q)
{
	sim_switch_params p;
	sim_switch_params_default(&p);
	p.nports = nports;
	sim_switch *sw = sim_switch_new(fab, name, &p);
	if (q)
		cr_assert_eq(sim_switch_set_qos(sw, q), 0);
	return sw;
}

static void init_hosts(unsigned n, uint32_t frames_each, uint8_t tos)
{
	memset(snd, 0, sizeof(snd));
	memset(&rcv, 0, sizeof(rcv));
	uint8_t rm[6] = { 2, 0, 0, 0, 0, 0x99 };
	memcpy(rcv.mac, rm, 6);
	sim_endpoint_init(&rcv.ep, fab, "rcv", rcv.mac, receiver_rx, NULL, &rcv);
	for (unsigned i = 0; i < n; i++) {
		sender *s = &snd[i];
		uint8_t m[6] = { 2, 0, 0, 0, 0, (uint8_t)(i + 1) };
		memcpy(s->mac, m, 6);
		s->dst = rcv.mac;
		s->left = frames_each;
		s->tos = tos;
		char name[16];
		snprintf(name, sizeof(name), "s%u", i);
		sim_endpoint_init(&s->ep, fab, name, s->mac, sender_rx, NULL, s);
		sim_endpoint_set_pause_handler(&s->ep, on_pause, s);
		sim_event_init(&s->ev, sim_kind("test.pump"), i, pump, s);
	}
}

/* The receiver says hello first, so the switches learn it and never flood the incast. */
static void start(unsigned n)
{
	sim_frame *f = sim_frame_alloc_len(sim_fabric_frames(fab), 60);
	uint8_t *p = sim_frame_put(f, 60);
	memset(p, 0, 60);
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	sim_eth_write(p, bc, rcv.mac, 0, 0x88B5);
	sim_endpoint_send(&rcv.ep, f);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	for (unsigned i = 0; i < n; i++)
		sim_event_schedule(eng, &snd[i].ev, sim_now(eng));
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
}

static void setup(void)
{
	eng = sim_engine_new(7);
	fab = sim_fabric_new(eng);
}

static unsigned n_hosts;
static void teardown(void)
{
	for (unsigned i = 0; i < n_hosts; i++) {
		sim_event_cancel(eng, &snd[i].ev);
		sim_endpoint_destroy(&snd[i].ep);
	}
	sim_endpoint_destroy(&rcv.ep);
	sim_fabric_free(fab);
	cr_expect_eq(sim_engine_pending(eng), 0, "events left behind");
	sim_engine_free(eng);
}

static sim_switch_port_qos_stats port_stats(const sim_switch *sw, uint32_t port)
{
	sim_switch_port_qos_stats st;
	cr_assert(sim_switch_port_qos_stats_get(sw, port, &st));
	return st;
}

/* n senders at 25 Gb/s into one receiver at 25 Gb/s through one switch. */
static sim_switch *incast(unsigned n, uint32_t frames, uint8_t tos, const sim_switch_qos *q)
{
	n_hosts = n;
	init_hosts(n, frames, tos);
	sim_switch *sw = new_switch("sw", n + 1, q);
	for (unsigned i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof(name), "w%u", i);
		attach(&snd[i].ep, sim_switch_port(sw, i), name, 25000000000ULL);
	}
	attach(&rcv.ep, sim_switch_port(sw, n), "wr", 25000000000ULL);
	return sw;
}

Test(switch_qos, pfc_frame_bytes_and_parse, .init = setup, .fini = teardown)
{
	n_hosts = 0;
	init_hosts(0, 0, 0);
	uint8_t src[6] = { 2, 1, 2, 3, 4, 5 };
	uint16_t q[8] = { 0, 0, 0, 0xFFFF, 0, 0, 0, 7 };
	sim_frame *f = sim_pfc_build(sim_fabric_frames(fab), src, 0x88, q);
	cr_assert_eq(f->len, 60);
	cr_assert_arr_eq(f->data, sim_macctl_dst, 6);
	cr_assert_eq(get_be16(f->data + 12), 0x8808);
	cr_assert_eq(get_be16(f->data + 14), 0x0101);
	cr_assert_eq(get_be16(f->data + 16), 0x0088);
	cr_assert_eq(get_be16(f->data + 18 + 2 * 3), 0xFFFF);
	cr_assert_eq(get_be16(f->data + 18 + 2 * 7), 7);
	sim_pause_frame pf;
	cr_assert(sim_pause_parse(f->data, f->len, &pf));
	cr_assert_eq(pf.opcode, SIM_MACCTL_PFC);
	cr_assert_eq(pf.class_enable, 0x88);
	cr_assert_eq(pf.quanta[3], 0xFFFF);
	cr_assert_eq(pf.quanta[0], 0);
	sim_frame_free(f);
	f = sim_pause_build(sim_fabric_frames(fab), src, 300);
	cr_assert(sim_pause_parse(f->data, f->len, &pf));
	cr_assert_eq(pf.opcode, SIM_MACCTL_PAUSE);
	cr_assert_eq(pf.class_enable, 0xFF);
	cr_assert_eq(pf.quanta[5], 300);
	cr_assert(!sim_pause_parse(f->data, 15, &pf), "short frame");
	sim_frame_free(f);
	/* 512 bit times at 25 Gb/s: 20.48 ns a quantum */
	cr_assert_eq(sim_pause_quanta_ns(1, 25000000000ULL), 21);
	cr_assert_eq(sim_pause_quanta_ns(0xFFFF, 25000000000ULL), 1342157);
}

Test(switch_qos, priority_map_and_ecn_marking_keep_the_checksum, .init = setup, .fini = teardown)
{
	n_hosts = 0;
	init_hosts(1, 0, 26 << 2 | SIM_ECN_ECT0);
	sim_prio_map m;
	sim_prio_map_default(&m);
	sim_frame *f = make_ip_frame(&snd[0]);
	cr_assert_eq(sim_frame_priority(&m, f->data, f->len), 0, "PCP trust, untagged: default");
	m.trust = SIM_TRUST_DSCP;
	cr_assert_eq(sim_frame_priority(&m, f->data, f->len), 3, "DSCP 26 (AF31) -> class 3");
	m.dscp[26] = 5;
	cr_assert_eq(sim_frame_priority(&m, f->data, f->len), 5);
	cr_assert_eq(sim_frame_ecn(f->data, f->len), SIM_ECN_ECT0);
	cr_assert(sim_frame_mark_ce(f));
	cr_assert_eq(sim_frame_ecn(f->data, f->len), SIM_ECN_CE);
	cr_assert_eq(ipv4_csum(sim_frame_ipv4(f->data, f->len)), 0, "header checksum still valid");
	sim_frame_free(f);
	snd[0].tos = 0;
	snd[0].tci = 5u << 13 | 10;
	f = make_ip_frame(&snd[0]);
	cr_assert(!sim_frame_mark_ce(f), "Not-ECT is never marked");
	m.trust = SIM_TRUST_PCP;
	cr_assert_eq(sim_frame_priority(&m, f->data, f->len), 5, "PCP of the tag");
	sim_frame_free(f);
}

Test(switch_qos, depth_buckets_are_ordered, .init = setup, .fini = teardown)
{
	n_hosts = 0;
	init_hosts(0, 0, 0);
	uint64_t prev = 0;
	for (uint64_t x = 0; x < (1u << 30); x = x * 3 / 2 + 1) {
		unsigned b = sim_depth_bucket(x);
		cr_assert(x < sim_depth_bucket_upper(b), "%lu in bucket %u", (unsigned long)x, b);
		cr_assert(b == 0 || x >= sim_depth_bucket_upper(b - 1));
		cr_assert(b >= prev);
		prev = b;
	}
	uint64_t h[128] = { 0 };
	h[sim_depth_bucket(100)] = 90;
	h[sim_depth_bucket(100000)] = 10;
	cr_assert_lt(sim_depth_percentile(h, 50), 128);
	cr_assert_geq(sim_depth_percentile(h, 99), 100000);
}

Test(switch_qos, without_a_buffer_the_switch_is_unchanged, .init = setup, .fini = teardown)
{
	sim_switch *sw = incast(4, 50, 0, NULL);
	start(4);
	cr_assert_eq(rcv.frames, 200, "the wire FIFO queues without bound");
	sim_switch_port_qos_stats st;
	cr_assert(!sim_switch_port_qos_stats_get(sw, 0, &st));
	cr_assert(!sim_switch_has_qos(sw));
}

Test(switch_qos, lossy_incast_tail_drops, .init = setup, .fini = teardown)
{
	sim_switch_qos q;
	sim_switch_qos_default(&q);
	q.buffer_bytes = 64 * 1024;
	sim_switch *sw = incast(4, 200, 0, &q);
	start(4);
	sim_switch_port_qos_stats out = port_stats(sw, 4);
	cr_assert_gt(out.drops, 0, "a 4:1 incast overflows 64 KiB");
	cr_assert_eq(rcv.frames + out.drops, 800, "every frame delivered or dropped");
	cr_assert_leq(out.max_depth_bytes, 64 * 1024);
	cr_assert_eq(out.pause_tx, 0, "lossy: nobody is paused");
	cr_assert_eq(sim_switch_buffer_used(sw), 0, "the buffer drains");
	cr_assert_geq(sim_depth_percentile(out.depth_hist, 99), 16 * 1024);
}

static void lossless(sim_switch_qos *q)
{
	sim_switch_qos_default(q);
	q->buffer_bytes = 256 * 1024;
	q->pfc_mask = 1u << 0;
	q->xoff_bytes = 16 * 1024;
	q->xon_bytes = 8 * 1024;
	/* in flight when the XOFF goes: 2 * 1 us of wire at 25 Gb/s (6.25 KB) + a frame each
	 * way + the switch's latency: 12 KiB is enough */
	q->headroom_bytes = 12 * 1024;
}

Test(switch_qos, pfc_incast_never_drops_and_pauses_the_senders, .init = setup, .fini = teardown)
{
	sim_switch_qos q;
	lossless(&q);
	sim_switch *sw = incast(4, 500, 0, &q);
	start(4);
	cr_assert_eq(rcv.frames, 2000, "lossless: every frame arrives");
	uint64_t pauses = 0, resumes = 0;
	for (unsigned i = 0; i < 4; i++) {
		sim_switch_port_qos_stats st = port_stats(sw, i);
		cr_assert_eq(st.headroom_drops, 0);
		pauses += st.pause_tx;
		resumes += st.resume_tx;
		cr_assert_gt(snd[i].ep.stats.rx_pause_frames, 0, "sender %u saw PFC frames", i);
		cr_assert_gt(snd[i].pauses, 0);
	}
	cr_assert_gt(pauses, 0);
	cr_assert_eq(pauses, resumes, "every XOFF was undone by an XON");
	cr_assert_eq(port_stats(sw, 4).drops, 0);
	cr_assert_eq(sim_switch_buffer_used(sw), 0);
}

Test(switch_qos, headroom_too_small_drops_and_says_so, .init = setup, .fini = teardown)
{
	sim_switch_qos q;
	lossless(&q);
	q.headroom_bytes = 1024; /* less than one frame */
	sim_switch *sw = incast(4, 300, 0, &q);
	start(4);
	uint64_t hd = 0;
	for (unsigned i = 0; i < 4; i++)
		hd += port_stats(sw, i).headroom_drops;
	cr_assert_gt(hd, 0);
	cr_assert_eq(rcv.frames + hd, 1200);
}

Test(switch_qos, pause_propagates_hop_by_hop, .init = setup, .fini = teardown)
{
	/* s0..s3 -> SW1 -> 25 Gb/s -> SW2 -> 10 Gb/s -> receiver: SW2 pauses SW1's egress,
	 * SW1's queue grows until SW1 pauses the senders */
	n_hosts = 4;
	init_hosts(4, 400, 0);
	sim_switch_qos q;
	lossless(&q);
	sim_switch *sw1 = new_switch("sw1", 5, &q);
	sim_switch *sw2 = new_switch("sw2", 2, &q);
	for (unsigned i = 0; i < 4; i++) {
		char name[16];
		snprintf(name, sizeof(name), "w%u", i);
		attach(&snd[i].ep, sim_switch_port(sw1, i), name, 25000000000ULL);
	}
	sim_wire *trunk = wire("trunk", 25000000000ULL);
	cr_assert_eq(sim_plug_connect(sim_wire_end(trunk, 0), sim_switch_port(sw1, 4)), 0);
	cr_assert_eq(sim_plug_connect(sim_wire_end(trunk, 1), sim_switch_port(sw2, 0)), 0);
	attach(&rcv.ep, sim_switch_port(sw2, 1), "wr", 10000000000ULL);
	start(4);
	cr_assert_eq(rcv.frames, 1600, "lossless end to end");
	sim_switch_port_qos_stats up = port_stats(sw1, 4), down = port_stats(sw2, 0);
	cr_assert_gt(down.pause_tx, 0, "SW2 paused its upstream");
	cr_assert_gt(up.pause_rx, 0, "SW1 heard it");
	cr_assert_gt(up.paused_ns, 0, "and held its egress");
	uint64_t to_senders = 0;
	for (unsigned i = 0; i < 4; i++)
		to_senders += port_stats(sw1, i).pause_tx;
	cr_assert_gt(to_senders, 0, "the pause spread to the senders");
	cr_assert_eq(up.drops + down.drops, 0);
}

Test(switch_qos, ecn_marks_by_red_and_only_ect, .init = setup, .fini = teardown)
{
	sim_switch_qos q;
	lossless(&q);
	q.ecn = true;
	q.kmin_bytes = 4 * 1024;
	q.kmax_bytes = 14 * 1024;
	q.pmax = (sim_ratio){ 1, 5 };
	sim_switch *sw = incast(4, 300, SIM_ECN_ECT0, &q);
	start(4);
	sim_switch_port_qos_stats out = port_stats(sw, 4);
	cr_assert_eq(rcv.frames, 1200);
	cr_assert_gt(out.ecn_marks, 0);
	cr_assert_lt(out.ecn_marks, 1200, "not everything: the queue starts empty");
	cr_assert_eq(rcv.ce, out.ecn_marks, "every mark reaches the receiver");
	cr_assert_eq(rcv.bad_csum, 0);
}

/* RED judges the queue a frame leaves behind (as the DCQCN authors' ns-3 model and HPCC's
 * do): a 10 Gb/s sender into a 25 Gb/s egress never queues a second frame, so with Kmin 0
 * and Kmax one byte nothing is marked, where counting the departing frame marked every
 * one. Two 25 Gb/s senders into it do build a queue, and are marked. */
Test(switch_qos, red_judges_the_queue_behind_the_departing_frame, .init = setup, .fini = teardown)
{
	sim_switch_qos q;
	lossless(&q);
	q.ecn = true;
	q.kmin_bytes = 0;
	q.kmax_bytes = 1;
	n_hosts = 1;
	init_hosts(1, 300, SIM_ECN_ECT0);
	sim_switch *sw = new_switch("sw", 2, &q);
	attach(&snd[0].ep, sim_switch_port(sw, 0), "w0", 10000000000ULL);
	attach(&rcv.ep, sim_switch_port(sw, 1), "wr", 25000000000ULL);
	start(1);
	cr_assert_eq(rcv.frames, 300);
	cr_assert_eq(port_stats(sw, 1).ecn_marks, 0, "marked %lu", (unsigned long)port_stats(sw, 1).ecn_marks);
	teardown();
	setup();
	sw = incast(2, 300, SIM_ECN_ECT0, &q);
	start(2);
	cr_assert_gt(port_stats(sw, 2).ecn_marks, 200, "marked %lu", (unsigned long)port_stats(sw, 2).ecn_marks);
}

Test(switch_qos, not_ect_is_never_marked, .init = setup, .fini = teardown)
{
	sim_switch_qos q;
	lossless(&q);
	q.ecn = true;
	q.kmin_bytes = 0;
	q.kmax_bytes = 1;
	sim_switch *sw = incast(4, 100, 0, &q);
	start(4);
	cr_assert_eq(port_stats(sw, 4).ecn_marks, 0);
	cr_assert_eq(rcv.ce, 0);
}

Test(switch_qos, strict_priority_serves_the_higher_class_first, .init = setup, .fini = teardown)
{
	sim_switch_qos q;
	sim_switch_qos_default(&q);
	q.buffer_bytes = 4 * 1024 * 1024;
	sim_switch *sw = incast(2, 200, 0, &q);
	snd[1].tci = 6u << 13 | 1; /* priority 6, VLAN 1 */
	start(2);
	cr_assert_eq(rcv.frames, 400);
	cr_assert_eq(port_stats(sw, 2).drops, 0);
	/* both offer line rate into one port: priority 6 drains first, priority 0 waits */
	cr_assert_lt(rcv.last_at[2], rcv.last_at[1], "priority 6 done at %lu, priority 0 at %lu",
	             (unsigned long)rcv.last_at[2], (unsigned long)rcv.last_at[1]);
	cr_assert_gt(rcv.last_at[1] - rcv.last_at[2], 100 * 320, "by about the 200 frames it waited behind");
}

Test(switch_qos, buffer_must_hold_the_headroom, .init = setup, .fini = teardown)
{
	n_hosts = 0;
	init_hosts(0, 0, 0);
	sim_switch_qos q;
	lossless(&q);
	q.buffer_bytes = 16 * 1024; /* 4 ports x 12 KiB headroom does not fit */
	sim_switch_params p;
	sim_switch_params_default(&p);
	p.nports = 4;
	sim_switch *sw = sim_switch_new(fab, "tiny", &p);
	cr_assert_eq(sim_switch_set_qos(sw, &q), SMCR_ERR_INVAL);
	cr_assert(!sim_switch_has_qos(sw));
}
