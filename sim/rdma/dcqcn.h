/* DCQCN, the congestion control of RoCE v2 adapters (Zhu et al., "Congestion Control for
 * Large-Scale RDMA Deployments", SIGCOMM 2015), as the reaction point (RP) of one QP runs it.
 *
 * The notification point (the receiving adapter) answers CE-marked frames with CNPs, at
 * most one per cnp_interval per QP (qp_responder.c). Here, the sender's side:
 *
 *  - a CNP cuts the rate: Rt = Rc, Rc = Rc * (1 - alpha/2), then alpha = (1-g)*alpha + g;
 *    the rate-increase timer, the byte counter and both increase stages restart;
 *  - every alpha_timer without a CNP: alpha = (1-g)*alpha;
 *  - rate increase events come from the rate timer (every rate_timer: T += 1) and the byte
 *    counter (every byte_counter bytes sent: BC += 1). At each:
 *      max(T, BC) <= F         fast recovery   Rc = (Rt + Rc) / 2
 *      min(T, BC) > F          hyper increase  Rt += (min(T, BC) - F) * R_HAI, Rc = (Rt + Rc) / 2
 *      otherwise               additive        Rt += R_AI, Rc = (Rt + Rc) / 2
 *    with Rt and Rc capped at the line rate and Rc kept at least min_rate.
 *  - A QP starts at line rate, unlimited. The first CNP makes it rate limited; once Rc is
 *    back at line rate the limiter lets go (no timers run for an unlimited QP).
 *
 * Sans-I/O: the caller passes the time in, asks when the next timer is due and feeds the
 * bytes it sends. Integer arithmetic only (alpha in units of 2^-20): same run, same result.
 */
#ifndef SIM_DCQCN_H
#define SIM_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/engine/engine.h"
#include "sim/engine/rng.h"

#define DCQCN_ALPHA_ONE (1u << 20)
/* Bytes a frame costs on the wire beyond its own: preamble and SFD 8, FCS 4, gap 12. */
#define DCQCN_WIRE_OVERHEAD 24u

typedef struct dcqcn_params {
	sim_ratio g;           /* alpha gain, 0 < g <= 1 */
	sim_time alpha_timer;  /* K: alpha decays after this long without a CNP */
	sim_time rate_timer;   /* T: rate increase timer */
	uint64_t byte_counter; /* B: a rate increase event every B bytes sent */
	uint32_t recovery;     /* F: fast recovery steps */
	uint64_t rai_bps;      /* R_AI: additive increase */
	uint64_t rhai_bps;     /* R_HAI: hyper increase step */
	uint64_t min_bps;      /* the rate never goes below this */
	sim_time cnp_interval; /* notification point: at most one CNP per QP this often */
} dcqcn_params;

/* The paper's values: g 1/256, K 55 us, T 55 us, B 10 MB, F 5, R_AI 40 Mb/s, CNP interval
 * 50 us; R_HAI 400 Mb/s (ten times R_AI, the ratio QCN and the ConnectX defaults use) and
 * a floor of 10 Mb/s (the paper names none). */
void dcqcn_params_default(dcqcn_params *p);

typedef struct dcqcn_stats {
	uint64_t cnps; /* CNPs that reached the RP */
	uint64_t cuts; /* rate decreases */
	uint64_t fast_recovery, additive, hyper;
	uint64_t alpha_decays;
} dcqcn_stats;

typedef struct dcqcn_rp {
	uint64_t line_bps;
	uint64_t rc_bps, rt_bps; /* current and target rate */
	uint32_t alpha;          /* units of 2^-20 */
	uint32_t t_stage, bc_stage;
	uint64_t bytes; /* sent since the last byte-counter event */
	bool limited;
	sim_time alpha_due, rate_due; /* SIM_TIME_NEVER when not running */
	uint64_t next_tx_ps;          /* pacing: earliest start of the next packet, in ps */
	dcqcn_stats st;
} dcqcn_rp;

/* line_bps 0 (an infinite-rate link) counts as 100 Gb/s. */
void dcqcn_rp_init(dcqcn_rp *rp, uint64_t line_bps);
void dcqcn_rp_on_cnp(dcqcn_rp *rp, const dcqcn_params *p, sim_time now);
/* Run the timers due at or before now. */
void dcqcn_rp_on_timer(dcqcn_rp *rp, const dcqcn_params *p, sim_time now);
/* The earliest timer due, SIM_TIME_NEVER when none runs. */
sim_time dcqcn_rp_next_timer(const dcqcn_rp *rp);
/* A packet of frame_len bytes (Ethernet header to ICRC) leaves at now: pacing and the
 * byte counter. */
void dcqcn_rp_on_sent(dcqcn_rp *rp, const dcqcn_params *p, uint32_t frame_len, sim_time now);
/* The earliest time the next packet may start (0 = any time: not rate limited). */
sim_time dcqcn_rp_tx_at(const dcqcn_rp *rp);

#endif
