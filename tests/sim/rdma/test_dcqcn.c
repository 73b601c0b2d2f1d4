/* The DCQCN reaction point on its own: the cut, alpha, the increase stages, pacing. */
#include <criterion/criterion.h>

#include "sim/rdma/dcqcn.h"

#define G40 40000000000ULL

static dcqcn_params params(void)
{
	dcqcn_params p;
	dcqcn_params_default(&p);
	return p;
}

Test(dcqcn, defaults_are_the_papers)
{
	dcqcn_params p = params();
	cr_assert_eq(p.g.num, 1);
	cr_assert_eq(p.g.den, 256);
	cr_assert_eq(p.alpha_timer, 55 * SIM_US);
	cr_assert_eq(p.rate_timer, 55 * SIM_US);
	cr_assert_eq(p.byte_counter, 10000000);
	cr_assert_eq(p.recovery, 5);
	cr_assert_eq(p.rai_bps, 40000000);
	cr_assert_eq(p.cnp_interval, 50 * SIM_US);
}

Test(dcqcn, starts_unlimited_at_line_rate)
{
	dcqcn_params p = params();
	dcqcn_rp rp;
	dcqcn_rp_init(&rp, G40);
	cr_assert_eq(rp.rc_bps, G40);
	cr_assert(!rp.limited);
	cr_assert_eq(dcqcn_rp_next_timer(&rp), SIM_TIME_NEVER);
	dcqcn_rp_on_sent(&rp, &p, 1000, 0);
	cr_assert_eq(dcqcn_rp_tx_at(&rp), 0, "no pacing while unlimited");
}

Test(dcqcn, first_cnp_halves_the_rate_and_keeps_alpha_at_one)
{
	dcqcn_params p = params();
	dcqcn_rp rp;
	dcqcn_rp_init(&rp, G40);
	dcqcn_rp_on_cnp(&rp, &p, 1000);
	cr_assert_eq(rp.rt_bps, G40);
	cr_assert_eq(rp.rc_bps, G40 / 2);
	cr_assert_eq(rp.alpha, DCQCN_ALPHA_ONE); /* (1-g)*1 + g */
	cr_assert(rp.limited);
	cr_assert_eq(dcqcn_rp_next_timer(&rp), 1000 + 55 * SIM_US);
	/* a second CNP at once: alpha still 1, rate halves again from the new Rc */
	dcqcn_rp_on_cnp(&rp, &p, 2000);
	cr_assert_eq(rp.rt_bps, G40 / 2);
	cr_assert_eq(rp.rc_bps, G40 / 4);
}

Test(dcqcn, alpha_decays_by_g_per_alpha_timer)
{
	dcqcn_params p = params();
	p.rate_timer = 0; /* keep the rate still */
	p.byte_counter = 0;
	dcqcn_rp rp;
	dcqcn_rp_init(&rp, G40);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	dcqcn_rp_on_timer(&rp, &p, 55 * SIM_US);
	cr_assert_eq(rp.alpha, DCQCN_ALPHA_ONE - DCQCN_ALPHA_ONE / 256);
	dcqcn_rp_on_timer(&rp, &p, 10 * 55 * SIM_US);
	cr_assert_eq(rp.st.alpha_decays, 10);
	/* (255/256)^10 of 2^20, within the rounding of ten integer steps */
	cr_assert(rp.alpha > 1005500 && rp.alpha < 1009000, "alpha %u", rp.alpha);
	/* a cut with a smaller alpha is gentler: Rc * (1 - alpha/2) */
	uint64_t rc = rp.rc_bps;
	uint32_t a = rp.alpha;
	dcqcn_rp_on_cnp(&rp, &p, 11 * 55 * SIM_US);
	uint64_t want = rc - (uint64_t)((unsigned __int128)rc * a / (2u * DCQCN_ALPHA_ONE));
	cr_assert_eq(rp.rc_bps, want);
}

Test(dcqcn, fast_recovery_then_additive_then_hyper)
{
	dcqcn_params p = params();
	p.byte_counter = 0; /* timer-driven only: T counts, BC stays 0 */
	dcqcn_rp rp;
	dcqcn_rp_init(&rp, G40);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	dcqcn_rp_on_cnp(&rp, &p, 0); /* Rt 20G, Rc 10G */
	cr_assert_eq(rp.rc_bps, 10000000000ULL);
	sim_time t = 0;
	/* T = 1..5: max(T, BC) <= F: F fast recovery steps towards Rt = 20G */
	for (int i = 1; i <= 5; i++) {
		t += p.rate_timer;
		dcqcn_rp_on_timer(&rp, &p, t);
		cr_assert_eq(rp.rt_bps, 20000000000ULL);
	}
	cr_assert_eq(rp.st.fast_recovery, 5);
	cr_assert_eq(rp.rc_bps, 20000000000ULL - 10000000000ULL / 32);
	/* BC stays 0, so min(T, BC) never exceeds F: additive from T = 6 on */
	t += p.rate_timer;
	dcqcn_rp_on_timer(&rp, &p, t);
	cr_assert_eq(rp.st.additive, 1);
	cr_assert_eq(rp.rt_bps, 20000000000ULL + 40000000ULL);
	cr_assert_eq(rp.st.hyper, 0);

	/* with the byte counter also past F, the increase becomes hyper */
	dcqcn_params q = params();
	q.byte_counter = 1000;
	dcqcn_rp r2;
	dcqcn_rp_init(&r2, G40);
	dcqcn_rp_on_cnp(&r2, &q, 0);
	dcqcn_rp_on_cnp(&r2, &q, 0); /* Rt 20G: room below the line rate */
	for (int i = 0; i < 6; i++)
		dcqcn_rp_on_sent(&r2, &q, 1000 - DCQCN_WIRE_OVERHEAD, 0); /* BC 1..6 */
	cr_assert_eq(r2.bc_stage, 6);
	uint64_t rt = r2.rt_bps;
	for (int i = 1; i <= 6; i++)
		dcqcn_rp_on_timer(&r2, &q, (sim_time)i * q.rate_timer); /* T 1..6 */
	cr_assert_eq(r2.st.hyper, 1, "T = BC = 6 > F");
	/* T 1..5 were additive (BC >= F, T <= F), T 6 hyper with i = 1 */
	cr_assert_eq(r2.rt_bps, rt + 5 * q.rai_bps + q.rhai_bps);
}

Test(dcqcn, recovers_to_line_rate_and_lets_go)
{
	dcqcn_params p = params();
	dcqcn_rp rp;
	dcqcn_rp_init(&rp, G40);
	dcqcn_rp_on_cnp(&rp, &p, 0);
	sim_time t = 0;
	int steps = 0;
	while (rp.limited && steps < 100000) {
		t += p.rate_timer;
		dcqcn_rp_on_timer(&rp, &p, t);
		steps++;
	}
	cr_assert(!rp.limited);
	cr_assert_eq(rp.rc_bps, G40);
	cr_assert_lt(steps, 64, "one halving recovers in fast recovery steps (%d)", steps);
	cr_assert_eq(dcqcn_rp_tx_at(&rp), 0);
}

Test(dcqcn, pacing_spaces_packets_at_the_current_rate)
{
	dcqcn_params p = params();
	dcqcn_rp rp;
	dcqcn_rp_init(&rp, G40);
	dcqcn_rp_on_cnp(&rp, &p, 0); /* 20 Gb/s */
	dcqcn_rp_on_sent(&rp, &p, 1000, 100);
	/* 1024 wire bytes at 20 Gb/s = 409.6 ns */
	cr_assert_eq(dcqcn_rp_tx_at(&rp), 100 + 410);
	dcqcn_rp_on_sent(&rp, &p, 1000, 100); /* sent early: the debt accumulates */
	cr_assert_eq(dcqcn_rp_tx_at(&rp), 100 + 820);
	dcqcn_rp_on_sent(&rp, &p, 1000, 5000); /* after a pause: from now on */
	cr_assert_eq(dcqcn_rp_tx_at(&rp), 5000 + 410);
}

Test(dcqcn, never_below_the_floor)
{
	dcqcn_params p = params();
	dcqcn_rp rp;
	dcqcn_rp_init(&rp, G40);
	for (int i = 0; i < 64; i++)
		dcqcn_rp_on_cnp(&rp, &p, 0);
	cr_assert_eq(rp.rc_bps, p.min_bps);
}
