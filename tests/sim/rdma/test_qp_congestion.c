/* The adapter under congestion: PFC PAUSE honoured at egress for the adapter's priority
 * (and only that one), held ACKs, the time paused; ECN bits and priority tags of the frames
 * the QPs send with DCQCN on or off, RoCE v1 (no IP ECN: nothing to mark, the limiter
 * idles). Real frames through sim/testbed/testbed.h. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/fabric/congestion.h"
#include "sim/rdma/rnic_int.h" /* resp_on_congestion, for the NP test at the end */
#include "sim/testbed/testbed.h"

static testbed *tb;
static int g_pcp = -1;
static bool g_dcqcn;

static void tweak(testbed_params *p)
{
	p->nic.cc.pcp = g_pcp;
	p->nic.cc.dcqcn = g_dcqcn;
	p->nic.tx_window = 1000; /* 1 us queued on the wire: a pause takes hold at once */
}

static testbed *make(roce_version v, int pcp, bool dcqcn)
{
	testbed_params p;
	testbed_params_default(&p);
	p.version = v;
	g_pcp = pcp;
	g_dcqcn = dcqcn;
	tweak(&p);
	tb = testbed_new(&p);
	cr_assert_not_null(tb);
	return tb;
}

static void fin(void)
{
	cr_expect_eq(sim_frame_pool_in_use(sim_fabric_frames(tb->fab)), 0, "frames left in flight");
	testbed_free(tb);
	tb = NULL;
}

/* A PFC frame from the link partner arrives at side s's adapter port now. */
static void pfc(testbed_side *s, unsigned prio, uint16_t quanta)
{
	uint16_t q[SIM_PRIOS] = { 0 };
	q[prio] = quanta;
	static const uint8_t sw_mac[6] = { 0x02, 0x5A, 0, 0, 0, 1 };
	sim_frame *f = sim_pfc_build(sim_fabric_frames(tb->fab), sw_mac, (uint8_t)(1u << prio), q);
	sim_plug *plug = &rnic_port_endpoint(s->nic, 1)->plug;
	plug->receive(plug, f, sim_now(tb->eng));
}

static const rnic_qp_stats *qst(testbed_side *s) { return rnic_qp_stats_get(s->qp); }

Test(qp_congestion, pfc_pause_stops_the_adapters_priority_and_xon_resumes_it)
{
	make(ROCE_V2, 3, false);
	cr_assert_eq(rnic_priority(tb->a.nic), 3);
	cr_assert_eq(testbed_post_write(&tb->a, 1, 0, 512 * 1024, 0, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, 20 * SIM_US);
	uint64_t before = qst(&tb->a)->tx_packets;
	cr_assert_gt(before, 0);
	pfc(&tb->a, 3, 0xFFFF); /* 65535 quanta at 25 Gb/s: 1.34 ms */
	testbed_run(tb, 520 * SIM_US);
	cr_assert_eq(qst(&tb->a)->tx_packets, before, "nothing new while priority 3 is paused");
	cr_assert_eq(rnic_port_paused_ns(tb->a.nic, 1, 3), 500 * SIM_US);
	cr_assert_eq(rnic_port_pause_frames(tb->a.nic, 1), 1);
	pfc(&tb->a, 3, 0); /* XON */
	testbed_run(tb, 540 * SIM_US);
	cr_assert_gt(qst(&tb->a)->tx_packets, before, "XON restarts the QP at once");
	cr_assert_eq(rnic_port_paused_ns(tb->a.nic, 1, 3), 500 * SIM_US, "the pause ended with the XON");
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.n_wcs, 1);
	cr_assert_eq(tb->a.wcs[0].status, SMCR_WC_SUCCESS);
	cr_assert_eq(qst(&tb->a)->timeouts, 0);
	fin();
}

Test(qp_congestion, a_pause_runs_out_by_itself_and_other_priorities_do_not_stop_the_adapter)
{
	make(ROCE_V2, 3, false);
	cr_assert_eq(testbed_post_write(&tb->a, 1, 0, 512 * 1024, 0, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, 20 * SIM_US);
	uint64_t n0 = qst(&tb->a)->tx_packets;
	pfc(&tb->a, 5, 0xFFFF);
	testbed_run(tb, 40 * SIM_US);
	cr_assert_gt(qst(&tb->a)->tx_packets, n0, "priority 5 paused, the adapter sends on 3");
	cr_assert_eq(rnic_port_paused_ns(tb->a.nic, 1, 3), 0);
	/* 1000 quanta at 25 Gb/s = 20.48 us */
	pfc(&tb->a, 3, 1000);
	uint64_t n1 = qst(&tb->a)->tx_packets;
	testbed_run(tb, 40 * SIM_US + 20 * SIM_US);
	cr_assert_eq(qst(&tb->a)->tx_packets, n1);
	testbed_run(tb, 40 * SIM_US + 30 * SIM_US);
	cr_assert_gt(qst(&tb->a)->tx_packets, n1, "the pause ran out after its quanta");
	cr_assert_eq(rnic_port_paused_ns(tb->a.nic, 1, 3), sim_pause_quanta_ns(1000, 25000000000ULL));
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.wcs[0].status, SMCR_WC_SUCCESS);
	fin();
}

Test(qp_congestion, acks_of_a_paused_receiver_wait_in_its_adapter)
{
	make(ROCE_V2, 3, false);
	cr_assert_eq(testbed_post_write(&tb->a, 1, 0, 256 * 1024, 0, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, 5 * SIM_US);
	pfc(&tb->b, 3, 0xFFFF);
	testbed_run(tb, 200 * SIM_US);
	cr_assert_gt(rnic_stats_get(tb->b.nic)->tx_held, 0, "B's ACKs are held");
	cr_assert_eq(tb->a.n_wcs, 0, "so A sees no completion");
	pfc(&tb->b, 3, 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.n_wcs, 1);
	cr_assert_eq(tb->a.wcs[0].status, SMCR_WC_SUCCESS);
	fin();
}

/* Frames side A sends, by what their headers say. */
typedef struct seen {
	unsigned frames, ect0, not_ect, tagged, pcp3;
	unsigned tclass_nonzero;
} seen;

static void look(void *ctx, const sim_plug *plug, sim_tap_dir dir, sim_time at, const sim_frame *f)
{
	(void)plug;
	(void)at;
	seen *s = ctx;
	if (dir != SIM_TAP_OUT)
		return;
	s->frames++;
	bool tagged = f->data[12] == 0x81 && f->data[13] == 0x00;
	s->tagged += tagged;
	s->pcp3 += tagged && (f->data[14] >> 5) == 3;
	unsigned l3 = tagged ? 18 : 14;
	if (sim_frame_ipv4(f->data, f->len)) {
		unsigned ecn = sim_frame_ecn(f->data, f->len);
		s->ect0 += ecn == SIM_ECN_ECT0;
		s->not_ect += ecn == SIM_ECN_NOT_ECT;
	} else {
		/* RoCE v1: the GRH's traffic class */
		unsigned tc = (unsigned)((f->data[l3] & 0x0F) << 4 | f->data[l3 + 1] >> 4);
		s->tclass_nonzero += tc != 0;
	}
}

static seen run_and_look(roce_version v, int pcp, bool dcqcn)
{
	make(v, pcp, dcqcn);
	static seen s;
	memset(&s, 0, sizeof s);
	sim_plug_set_tap(&rnic_port_endpoint(tb->a.nic, 1)->plug, look, &s);
	cr_assert_eq(testbed_post_write(&tb->a, 1, 0, 64 * 1024, 0, SMCR_SEND_SIGNALED), 0);
	cr_assert_eq(testbed_post_write(&tb->b, 2, 0, 8 * 1024, 0, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.wcs[0].status, SMCR_WC_SUCCESS);
	cr_assert_eq(tb->b.wcs[0].status, SMCR_WC_SUCCESS, "B's data reaches A: A's ACKs are in the capture");
	cr_assert(!rnic_qp_rate_limited(tb->a.qp));
	cr_assert_eq(rnic_stats_get(tb->a.nic)->cnp_tx + rnic_stats_get(tb->b.nic)->cnp_tx, 0, "nothing marked");
	fin();
	return s;
}

Test(qp_congestion, dcqcn_makes_roce_v2_frames_ect0)
{
	seen s = run_and_look(ROCE_V2, -1, true);
	cr_assert_gt(s.frames, 64);
	cr_assert_eq(s.ect0, s.frames, "data and ACKs are ECN-capable");
	cr_assert_eq(s.tagged, 0);
}

Test(qp_congestion, without_dcqcn_frames_are_as_before)
{
	seen s = run_and_look(ROCE_V2, -1, false);
	cr_assert_eq(s.not_ect, s.frames);
	cr_assert_eq(s.tagged, 0);
}

Test(qp_congestion, roce_v1_has_no_ecn_field_so_dcqcn_leaves_it_alone)
{
	seen s = run_and_look(ROCE_V1, -1, true);
	cr_assert_gt(s.frames, 64);
	cr_assert_eq(s.ect0 + s.not_ect, 0, "no IPv4 header at all");
	cr_assert_eq(s.tclass_nonzero, 0, "the GRH traffic class is not used for ECN");
}

Test(qp_congestion, prio_tags_every_frame_with_its_pcp)
{
	seen s = run_and_look(ROCE_V2, 3, true);
	cr_assert_eq(s.tagged, s.frames, "a priority tag (VID 0) on an untagged GID");
	cr_assert_eq(s.pcp3, s.frames);
	seen v1 = run_and_look(ROCE_V1, 3, false);
	cr_assert_eq(v1.pcp3, v1.frames, "RoCE v1 carries its priority in the tag as well");
}

/* --- the notification point's CNP interval ------------------------------------------ */

/* B's port: data frames from A arriving in the listed ranges are marked CE on the way in
 * (as a switch would have), at most `limit` of them per range, and the CNPs B sends are
 * recorded with their times. */
static struct {
	void (*receive)(sim_plug *, sim_frame *, sim_time);
	sim_time from[4], to[4];
	unsigned limit[4], n_ranges, marked, marked_in[4];
	sim_time cnp_at[16];
	unsigned n_cnps;
} np;

static void marking_receive(sim_plug *self, sim_frame *f, sim_time at)
{
	roce_pkt pkt;
	smcr_decode_err e;
	if (!roce_parse(f->data, f->len, &pkt, &e) && pkt.bth.opcode != ROCE_OP_ACK)
		for (unsigned i = 0; i < np.n_ranges; i++)
			if (at >= np.from[i] && at < np.to[i] && np.marked_in[i] < np.limit[i] && sim_frame_mark_ce(f)) {
				np.marked++;
				np.marked_in[i]++;
				break;
			}
	np.receive(self, f, at);
}

static void cnp_tap(void *ctx, const sim_plug *plug, sim_tap_dir dir, sim_time at, const sim_frame *f)
{
	(void)ctx;
	(void)plug;
	roce_pkt pkt;
	smcr_decode_err e;
	if (dir == SIM_TAP_OUT && !roce_parse(f->data, f->len, &pkt, &e) && pkt.bth.opcode == ROCE_OP_CNP &&
	    np.n_cnps < 16)
		np.cnp_at[np.n_cnps++] = at;
}

typedef struct mark_range {
	sim_time from, to;
	unsigned limit;
} mark_range;

/* A writes 1 MiB (about 340 us at 25 Gb/s); B sees marks only in the given ranges. */
static void run_marked(const mark_range *m, unsigned n)
{
	make(ROCE_V2, -1, true);
	memset(&np, 0, sizeof np);
	for (unsigned i = 0; i < n; i++) {
		np.from[i] = m[i].from;
		np.to[i] = m[i].to;
		np.limit[i] = m[i].limit;
	}
	np.n_ranges = n;
	sim_plug *plug = &rnic_port_endpoint(tb->b.nic, 1)->plug;
	np.receive = plug->receive;
	plug->receive = marking_receive;
	sim_plug_set_tap(plug, cnp_tap, NULL);
	cr_assert_eq(testbed_post_write(&tb->a, 1, 0, 1u << 20, 0, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.wcs[0].status, SMCR_WC_SUCCESS);
	cr_assert_eq(rnic_stats_get(tb->b.nic)->cnp_tx, np.n_cnps, "every CNP B counts is on its wire");
	cr_assert_eq(rnic_stats_get(tb->a.nic)->cnp_rx, np.n_cnps, "and reaches A");
	fin();
}

Test(qp_congestion, a_mark_within_the_cnp_interval_sends_a_cnp_when_the_interval_ends)
{
	/* marks in [20, 30) us only: the first sends a CNP at once; the later ones, inside
	 * its 50 us interval, one more CNP when the interval ends (the paper's NP), none
	 * after that */
	const mark_range m[] = { { 20 * SIM_US, 30 * SIM_US, 1000 } };
	run_marked(m, 1);
	cr_assert_gt(np.marked, 2, "several frames marked");
	cr_assert_eq(np.n_cnps, 2, "one CNP at the first mark, one for the marks after it (got %u)", np.n_cnps);
	cr_assert_eq(np.cnp_at[1] - np.cnp_at[0], 50 * SIM_US, "the second when the interval ends: %lu ns",
	             (unsigned long)(np.cnp_at[1] - np.cnp_at[0]));
}

Test(qp_congestion, a_lone_mark_sends_one_cnp_at_once_and_nothing_later)
{
	/* one marked frame at 20 us and one at 200 us: a CNP at each, no deferred one (no
	 * mark came inside either interval) */
	const mark_range m[] = { { 20 * SIM_US, 30 * SIM_US, 1 }, { 200 * SIM_US, 210 * SIM_US, 1 } };
	run_marked(m, 2);
	cr_assert_eq(np.marked, 2);
	cr_assert_eq(np.n_cnps, 2, "got %u", np.n_cnps);
	cr_assert_lt(np.cnp_at[0], 21 * SIM_US, "the first at once");
	cr_assert_geq(np.cnp_at[1], 200 * SIM_US, "the second at its own mark, not 50 us after the first");
}

Test(qp_congestion, marks_all_along_give_one_cnp_per_interval)
{
	/* every frame from 20 to 230 us marked: a CNP at once, then one at the end of each
	 * of the five 50 us intervals that saw a mark (the last holds 220..230 us) */
	const mark_range m[] = { { 20 * SIM_US, 230 * SIM_US, 100000 } };
	run_marked(m, 1);
	cr_assert_eq(np.n_cnps, 6, "got %u", np.n_cnps);
	for (unsigned i = 1; i < np.n_cnps; i++)
		cr_assert_eq(np.cnp_at[i] - np.cnp_at[i - 1], 50 * SIM_US, "CNP %u: %lu ns after the one before", i,
		             (unsigned long)(np.cnp_at[i] - np.cnp_at[i - 1]));
}

/* The notification point itself (white box, sim/rdma/rnic_int.h): marks reported at
 * chosen times, CNPs counted. A mark in the very nanosecond the interval ends, before
 * the interval's deferred CNP has gone, sends that CNP, not a second one beside it. */

static void mark_now(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	resp_on_congestion(ev->ctx);
}

Test(qp_congestion, a_mark_as_the_interval_ends_sends_the_owed_cnp_once)
{
	make(ROCE_V2, -1, true);
	memset(&np, 0, sizeof np);
	sim_plug_set_tap(&rnic_port_endpoint(tb->b.nic, 1)->plug, cnp_tap, NULL);
	const sim_time t0 = 100 * SIM_US, at[] = { t0, t0 + 10 * SIM_US, t0 + 50 * SIM_US };
	uint32_t k = sim_kind("test.mark");
	/* posted now, so each runs before an event the NP schedules later for the same time */
	for (unsigned i = 0; i < 3; i++)
		sim_post(tb->eng, at[i], k, i, mark_now, tb->b.qp, 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(np.n_cnps, 2, "CNPs at the first mark and at the interval's end (got %u)", np.n_cnps);
	cr_assert_eq(np.cnp_at[0], t0);
	cr_assert_eq(np.cnp_at[1], t0 + 50 * SIM_US);
	fin();
}
