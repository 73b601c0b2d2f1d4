/* TCP timers: retransmission (RFC 6298), persist, delayed ACK, keepalive, and the wait
 * timer (TIME_WAIT, orphaned FIN_WAIT_2). Each is an embedded engine event of the pcb. */
#include "sim/net/tcp_int.h"

#include <errno.h>

#define TCP_CLOCK_GRANULARITY SIM_MS /* G in RFC 6298 */

void tcp_rtt_sample(tcp_pcb *pcb, sim_time r)
{
	const tcp_config *c = tcp_cfg(pcb);
	if (!pcb->have_srtt) {
		pcb->srtt = r;
		pcb->rttvar = r / 2;
		pcb->have_srtt = true;
	} else {
		sim_time delta = pcb->srtt > r ? pcb->srtt - r : r - pcb->srtt;
		pcb->rttvar = (3 * pcb->rttvar + delta) / 4;
		pcb->srtt = (7 * pcb->srtt + r) / 8;
	}
	sim_time var = 4 * pcb->rttvar;
	sim_time rto = pcb->srtt + (var > TCP_CLOCK_GRANULARITY ? var : TCP_CLOCK_GRANULARITY);
	if (rto < c->rto_min)
		rto = c->rto_min;
	if (rto > c->rto_max)
		rto = c->rto_max;
	pcb->rto = rto;
}

static void backoff(tcp_pcb *pcb)
{
	sim_time max = tcp_cfg(pcb)->rto_max;
	pcb->rto = pcb->rto > max / 2 ? max : 2 * pcb->rto;
}

static void rto_expired(tcp_pcb *pcb)
{
	tcp_host_timer(pcb);
	const tcp_config *c = tcp_cfg(pcb);
	tcp_counters *ctr = &pcb->tl->ctr;
	switch (pcb->state) {
	case TCP_SYN_SENT:
	case TCP_SYN_RCVD: {
		uint32_t limit = pcb->state == TCP_SYN_SENT ? c->syn_retries : c->synack_retries;
		pcb->rto_expiries++;
		ctr->rto_expiries++;
		if (++pcb->nrexmit > limit) {
			tcp_fail(pcb, -ETIMEDOUT, false);
			return;
		}
		backoff(pcb);
		pcb->retransmits++;
		ctr->retransmits++;
		tcp_send_syn(pcb);
		return;
	}
	case TCP_ESTABLISHED:
	case TCP_FIN_WAIT_1:
	case TCP_CLOSE_WAIT:
	case TCP_CLOSING:
	case TCP_LAST_ACK:
		break;
	case TCP_CLOSED:
	case TCP_LISTEN:
	case TCP_FIN_WAIT_2:
	case TCP_TIME_WAIT:
		return;
	}
	if (pcb->snd_una == pcb->snd_max)
		return;
	pcb->rto_expiries++;
	ctr->rto_expiries++;
	if (++pcb->nrexmit > c->data_retries) {
		tcp_fail(pcb, -ETIMEDOUT, true);
		return;
	}
	backoff(pcb);
	/* Everything in flight is presumed lost: restart from snd_una with one segment. */
	uint32_t flight = pcb->snd_max - pcb->snd_una;
	pcb->ssthresh = flight / 2 > 2 * pcb->mss ? flight / 2 : 2 * pcb->mss;
	pcb->cwnd = pcb->mss;
	pcb->in_recovery = false;
	pcb->dupacks = 0;
	pcb->snd_nxt = pcb->snd_una;
	pcb->rtt_timing = false;
	tcp_output(pcb);
	if (pcb->snd_nxt == pcb->snd_una) /* nothing could go (zero window): keep timing */
		tcp_arm_rto(pcb);
}

static void persist_expired(tcp_pcb *pcb)
{
	tcp_host_timer(pcb);
	uint32_t end = pcb->snd_buf_seq + (uint32_t)bytering_len(&pcb->sndbuf);
	if (pcb->snd_wnd || !SEQ_LT(pcb->snd_nxt, end) || pcb->state == TCP_CLOSED) {
		pcb->persist_backoff = 0;
		return;
	}
	tcp_send_probe(pcb);
	pcb->zero_window_probes++;
	pcb->tl->ctr.zero_window_probes++;
	if (pcb->persist_backoff < 20)
		pcb->persist_backoff++;
	sim_time d = TCP_PERSIST_MAX;
	if (pcb->persist_backoff < 20 && (pcb->rto << pcb->persist_backoff) < TCP_PERSIST_MAX)
		d = pcb->rto << pcb->persist_backoff;
	sim_event_schedule_in(pcb->tl->st->eng, &pcb->persist_ev, d);
}

static bool keepalive_state(tcp_state s)
{
	switch (s) {
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:
	case TCP_FIN_WAIT_2:
		return true;
	case TCP_CLOSED:
	case TCP_LISTEN:
	case TCP_SYN_SENT:
	case TCP_SYN_RCVD:
	case TCP_FIN_WAIT_1:
	case TCP_CLOSING:
	case TCP_LAST_ACK:
	case TCP_TIME_WAIT:
		return false;
	}
	return false;
}

void tcp_keepalive_arm(tcp_pcb *pcb)
{
	if (!pcb->keepalive || !keepalive_state(pcb->state))
		return;
	sim_time at = pcb->last_rx + pcb->keep_idle;
	sim_time now = tcp_now(pcb);
	sim_event_schedule(pcb->tl->st->eng, &pcb->keep_ev, at > now ? at : now);
}

static void keepalive_expired(tcp_pcb *pcb)
{
	tcp_host_timer(pcb);
	if (!pcb->keepalive || !keepalive_state(pcb->state))
		return;
	sim_engine *eng = pcb->tl->st->eng;
	sim_time now = tcp_now(pcb);
	if (now < pcb->last_rx + pcb->keep_idle && !pcb->keep_probes) {
		sim_event_schedule(eng, &pcb->keep_ev, pcb->last_rx + pcb->keep_idle);
		return;
	}
	if (pcb->keep_probes >= tcp_cfg(pcb)->keepalive_probes) {
		tcp_fail(pcb, -ETIMEDOUT, true);
		return;
	}
	if (pcb->snd_una != pcb->snd_max) { /* data in flight: the RTO watches the peer */
		sim_event_schedule_in(eng, &pcb->keep_ev, pcb->keep_intvl);
		return;
	}
	tcp_send_probe(pcb);
	pcb->keep_probes++;
	pcb->tl->ctr.keepalive_probes++;
	sim_event_schedule_in(eng, &pcb->keep_ev, pcb->keep_intvl);
}

static void wait_expired(tcp_pcb *pcb)
{
	tcp_host_timer(pcb);
	if (pcb->state == TCP_TIME_WAIT || (pcb->state == TCP_FIN_WAIT_2 && pcb->released)) {
		tcp_stop_timers(pcb);
		pcb->state = TCP_CLOSED;
	}
}

static void delack_expired(tcp_pcb *pcb)
{
	tcp_host_timer(pcb);
	pcb->delack_due = 0;
	if (pcb->state != TCP_CLOSED && pcb->unacked_segs)
		tcp_send_ack(pcb);
}

/* Lazy timers: the event fires at or before the deadline. */
static void lazy_set(tcp_pcb *pcb, sim_event *ev, sim_time *due, sim_time at)
{
	*due = at;
	if (!sim_event_pending(ev) || ev->at > at)
		sim_event_schedule(pcb->tl->st->eng, ev, at);
}

/* true when the deadline has come; else re-armed for it (or stopped) */
static bool lazy_due(tcp_pcb *pcb, sim_event *ev, const sim_time *due)
{
	if (!*due)
		return false;
	if (tcp_now(pcb) < *due) {
		sim_event_schedule(pcb->tl->st->eng, ev, *due);
		return false;
	}
	return true;
}

void tcp_rto_restart(tcp_pcb *pcb)
{
	lazy_set(pcb, &pcb->rto_ev, &pcb->rto_due, tcp_now(pcb) + pcb->rto);
}

void tcp_rto_stop(tcp_pcb *pcb)
{
	pcb->rto_due = 0;
}

void tcp_delack_arm(tcp_pcb *pcb)
{
	if (!pcb->delack_due)
		lazy_set(pcb, &pcb->delack_ev, &pcb->delack_due, tcp_now(pcb) + tcp_cfg(pcb)->delack);
}

void tcp_delack_stop(tcp_pcb *pcb)
{
	pcb->delack_due = 0;
}

static void rto_fired(tcp_pcb *pcb)
{
	if (!lazy_due(pcb, &pcb->rto_ev, &pcb->rto_due))
		return;
	pcb->rto_due = 0;
	rto_expired(pcb);
}

static void delack_fired(tcp_pcb *pcb)
{
	if (lazy_due(pcb, &pcb->delack_ev, &pcb->delack_due))
		delack_expired(pcb);
}

/* The receive queue's poll handed its GRO segment to TCP: acknowledge what was merged. */
static void gro_flushed(tcp_pcb *pcb)
{
	if (pcb->gro_ack && (pcb->state == TCP_ESTABLISHED || pcb->state == TCP_FIN_WAIT_1 ||
	                     pcb->state == TCP_FIN_WAIT_2 || pcb->state == TCP_CLOSE_WAIT))
		tcp_send_ack(pcb);
	pcb->gro_ack = false;
}

/* The NIC is done with the connection's last frame: what autocorking held goes now. */
static void cork_released(tcp_pcb *pcb)
{
	tcp_output(pcb);
}

/* Every timer runs inside enter/leave, and delivers the events it caused. */
#define TCP_TIMER_HANDLER(name, body)                    \
	static void name(sim_engine *eng, sim_event *ev) \
	{                                                \
		(void)eng;                               \
		tcp_pcb *pcb = ev->ctx;                  \
		tcp_enter(pcb);                          \
		body(pcb);                               \
		tcp_deliver_events(pcb);                 \
		tcp_leave(pcb);                          \
	}

TCP_TIMER_HANDLER(on_rto, rto_fired)
TCP_TIMER_HANDLER(on_persist, persist_expired)
TCP_TIMER_HANDLER(on_delack, delack_fired)
TCP_TIMER_HANDLER(on_keepalive, keepalive_expired)
TCP_TIMER_HANDLER(on_wait, wait_expired)
TCP_TIMER_HANDLER(on_gro, gro_flushed)
TCP_TIMER_HANDLER(on_cork, cork_released)

void tcp_timers_init(tcp_pcb *pcb)
{
	tcp_layer *tl = pcb->tl;
	uint64_t entity = sim_mix64(tl->st->entity ^ pcb->id);
	sim_event_init(&pcb->rto_ev, tl->k_rto, entity, on_rto, pcb);
	sim_event_init(&pcb->persist_ev, tl->k_persist, entity, on_persist, pcb);
	sim_event_init(&pcb->delack_ev, tl->k_delack, entity, on_delack, pcb);
	sim_event_init(&pcb->keep_ev, tl->k_keepalive, entity, on_keepalive, pcb);
	sim_event_init(&pcb->wait_ev, tl->k_wait, entity, on_wait, pcb);
	sim_event_init(&pcb->gro_ev, tl->k_gro, entity, on_gro, pcb);
	sim_event_init(&pcb->cork_ev, tl->k_cork, entity, on_cork, pcb);
}
