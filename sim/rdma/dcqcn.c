/* The DCQCN reaction point of one QP: rate cuts on CNPs, alpha, and the three increase
 * stages driven by the rate timer and the byte counter. */
#include "sim/rdma/dcqcn.h"

#define DEFAULT_LINE_BPS 100000000000ULL

void dcqcn_params_default(dcqcn_params *p)
{
	p->g = (sim_ratio){ 1, 256 };
	p->alpha_timer = 55 * SIM_US;
	p->rate_timer = 55 * SIM_US;
	p->byte_counter = 10ULL * 1000 * 1000;
	p->recovery = 5;
	p->rai_bps = 40ULL * 1000 * 1000;
	p->rhai_bps = 400ULL * 1000 * 1000;
	p->min_bps = 10ULL * 1000 * 1000;
	p->cnp_interval = 50 * SIM_US;
}

void dcqcn_rp_init(dcqcn_rp *rp, uint64_t line_bps)
{
	*rp = (dcqcn_rp){ 0 };
	rp->line_bps = line_bps ? line_bps : DEFAULT_LINE_BPS;
	rp->rc_bps = rp->rt_bps = rp->line_bps;
	rp->alpha = DCQCN_ALPHA_ONE; /* the paper starts alpha at 1 */
	rp->alpha_due = rp->rate_due = SIM_TIME_NEVER;
}

/* alpha * g, rounded down (alpha <= 2^20, g's parts fit 32 bits in any sane scenario) */
static uint32_t alpha_times_g(uint32_t alpha, sim_ratio g)
{
	if (!g.den)
		return 0;
	return (uint32_t)((unsigned __int128)alpha * g.num / g.den);
}

static uint32_t g_units(sim_ratio g)
{
	return g.den ? (uint32_t)((unsigned __int128)DCQCN_ALPHA_ONE * g.num / g.den) : 0;
}

static uint64_t clamp_rate(const dcqcn_rp *rp, const dcqcn_params *p, uint64_t r)
{
	if (r > rp->line_bps)
		r = rp->line_bps;
	uint64_t lo = p->min_bps < rp->line_bps ? p->min_bps : rp->line_bps;
	return r < lo ? lo : r;
}

void dcqcn_rp_on_cnp(dcqcn_rp *rp, const dcqcn_params *p, sim_time now)
{
	rp->st.cnps++;
	rp->st.cuts++;
	rp->rt_bps = rp->rc_bps;
	uint64_t cut = (uint64_t)((unsigned __int128)rp->rc_bps * rp->alpha / (2u * DCQCN_ALPHA_ONE));
	rp->rc_bps = clamp_rate(rp, p, rp->rc_bps - cut);
	uint32_t a = rp->alpha - alpha_times_g(rp->alpha, p->g) + g_units(p->g);
	rp->alpha = a > DCQCN_ALPHA_ONE ? DCQCN_ALPHA_ONE : a;
	rp->t_stage = rp->bc_stage = 0;
	rp->bytes = 0;
	rp->limited = true;
	rp->alpha_due = p->alpha_timer ? now + p->alpha_timer : SIM_TIME_NEVER;
	rp->rate_due = p->rate_timer ? now + p->rate_timer : SIM_TIME_NEVER;
}

/* One rate increase event (the timer's or the byte counter's stage already counted). */
static void increase(dcqcn_rp *rp, const dcqcn_params *p)
{
	uint32_t hi = rp->t_stage > rp->bc_stage ? rp->t_stage : rp->bc_stage;
	uint32_t lo = rp->t_stage < rp->bc_stage ? rp->t_stage : rp->bc_stage;
	/* F fast recovery steps: the F-th event after a cut still is one (QCN's five FR
	 * cycles; HPCC's ns-3 model and htsim count the same) */
	if (hi <= p->recovery) {
		rp->st.fast_recovery++;
	} else if (lo > p->recovery) {
		rp->st.hyper++;
		rp->rt_bps = clamp_rate(rp, p, rp->rt_bps + (uint64_t)(lo - p->recovery) * p->rhai_bps);
	} else {
		rp->st.additive++;
		rp->rt_bps = clamp_rate(rp, p, rp->rt_bps + p->rai_bps);
	}
	/* (Rt + Rc) / 2 rounded up, so Rc does reach Rt */
	rp->rc_bps = clamp_rate(rp, p, (rp->rt_bps + rp->rc_bps + 1) / 2);
	if (rp->rc_bps >= rp->line_bps) {
		/* back at line rate: the limiter lets go; alpha keeps decaying until a CNP or
		 * until it is negligible, as its timer is only meaningful while limited */
		rp->limited = false;
		rp->rate_due = SIM_TIME_NEVER;
		rp->t_stage = rp->bc_stage = 0;
		rp->bytes = 0;
	}
}

void dcqcn_rp_on_timer(dcqcn_rp *rp, const dcqcn_params *p, sim_time now)
{
	while (rp->alpha_due <= now) {
		rp->alpha -= alpha_times_g(rp->alpha, p->g);
		rp->st.alpha_decays++;
		/* an unlimited QP lets alpha rest once it stops moving */
		if (!rp->limited && alpha_times_g(rp->alpha, p->g) == 0)
			rp->alpha_due = SIM_TIME_NEVER;
		else
			rp->alpha_due += p->alpha_timer;
	}
	while (rp->limited && rp->rate_due <= now) {
		rp->t_stage++;
		rp->rate_due += p->rate_timer;
		increase(rp, p);
	}
}

sim_time dcqcn_rp_next_timer(const dcqcn_rp *rp)
{
	return rp->alpha_due < rp->rate_due ? rp->alpha_due : rp->rate_due;
}

void dcqcn_rp_on_sent(dcqcn_rp *rp, const dcqcn_params *p, uint32_t frame_len, sim_time now)
{
	if (!rp->limited)
		return;
	uint64_t bytes = (uint64_t)frame_len + DCQCN_WIRE_OVERHEAD;
	uint64_t start = (uint64_t)now * 1000u;
	if (rp->next_tx_ps < start)
		rp->next_tx_ps = start;
	rp->next_tx_ps += (uint64_t)((unsigned __int128)bytes * 8u * 1000000000000ULL / rp->rc_bps);
	if (!p->byte_counter)
		return;
	rp->bytes += bytes;
	while (rp->limited && rp->bytes >= p->byte_counter) {
		rp->bytes -= p->byte_counter;
		rp->bc_stage++;
		increase(rp, p);
	}
}

sim_time dcqcn_rp_tx_at(const dcqcn_rp *rp)
{
	return rp->limited ? (rp->next_tx_ps + 999u) / 1000u : 0;
}
