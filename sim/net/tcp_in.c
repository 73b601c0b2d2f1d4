/* TCP input: demultiplexing, the handshake, ACK processing, data and FIN, RST. */
#include "sim/net/tcp_int.h"

#include <errno.h>

#include "model/byteorder.h"
#include "sim/net/inet_csum.h"

typedef struct tcp_seg {
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t wnd;
	const uint8_t *data;
	uint32_t len;
	tcp_opts opt;
} tcp_seg;

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

static uint32_t seg_space(const tcp_seg *s)
{
	return s->len + ((s->flags & TCP_SYN) ? 1u : 0u) + ((s->flags & TCP_FIN) ? 1u : 0u);
}

static void listen_input(tcp_pcb *l, const ipv4_rx *rx, const tcp_seg *s)
{
	tcp_layer *tl = l->tl;
	if (s->flags & TCP_RST)
		return;
	if (s->flags & TCP_ACK) {
		tcp_send_rst_reply(tl, rx, s->seq, s->ack, s->flags, seg_space(s));
		return;
	}
	if (!(s->flags & TCP_SYN))
		return;
	if (l->n_pending >= l->backlog) {
		tl->ctr.listen_drops++;
		return;
	}
	tcp_pcb *c = tcp_child_new(l, rx->dst, rx->src, s->sport);
	if (!c)
		return;
	tcp_enter(c);
	c->irs = s->seq;
	c->rcv_nxt = s->seq + 1;
	c->state = TCP_SYN_RCVD;
	tcp_negotiate(c, &s->opt);
	c->snd_wnd = s->wnd; /* never scaled in a SYN */
	c->snd_wl1 = s->seq;
	tl->ctr.passive_opens++;
	if (s->opt.smc)
		tl->ctr.smc_syn_received++;
	tcp_send_syn(c);
	tcp_leave(c);
}

static void syn_sent_input(tcp_pcb *pcb, const ipv4_rx *rx, const tcp_seg *s)
{
	tcp_layer *tl = pcb->tl;
	if ((s->flags & TCP_ACK) && (SEQ_LEQ(s->ack, pcb->iss) || SEQ_GT(s->ack, pcb->snd_max))) {
		tcp_send_rst_reply(tl, rx, s->seq, s->ack, s->flags, seg_space(s));
		return;
	}
	if (s->flags & TCP_RST) {
		if (s->flags & TCP_ACK) {
			tl->ctr.rst_in++;
			tcp_fail(pcb, -ECONNREFUSED, false);
		}
		return;
	}
	if (!(s->flags & TCP_SYN))
		return;
	pcb->irs = s->seq;
	pcb->rcv_nxt = s->seq + 1;
	tcp_negotiate(pcb, &s->opt);
	pcb->snd_wnd = s->wnd;
	pcb->snd_wl1 = s->seq;
	if (s->flags & TCP_ACK) {
		pcb->snd_wl2 = s->ack;
		pcb->snd_una = s->ack;
		if (pcb->nrexmit == 0)
			tcp_rtt_sample(pcb, tcp_now(pcb) - pcb->syn_sent_at);
		tcp_established(pcb);
		pcb->ev |= TCP_EV_CONNECTED;
		tcp_send_ack(pcb);
	} else {
		/* simultaneous open */
		pcb->state = TCP_SYN_RCVD;
		tcp_send_syn(pcb);
	}
}

/* Keep the out-of-order ranges sorted and disjoint; false when the table is full. */
static bool ooo_insert(tcp_pcb *pcb, uint32_t start, uint32_t end)
{
	tcp_range out[TCP_OOO_MAX];
	uint32_t n = 0;
	bool placed = false;
	for (uint32_t i = 0; i < pcb->n_ooo; i++) {
		tcp_range r = pcb->ooo[i];
		if (SEQ_LT(r.end, start)) {
			out[n++] = r;
		} else if (SEQ_GT(r.start, end)) {
			if (!placed) {
				if (n == TCP_OOO_MAX)
					return false;
				out[n++] = (tcp_range){ start, end };
				placed = true;
			}
			if (n == TCP_OOO_MAX)
				return false;
			out[n++] = r;
		} else {
			if (SEQ_LT(r.start, start))
				start = r.start;
			if (SEQ_GT(r.end, end))
				end = r.end;
		}
	}
	if (!placed) {
		if (n == TCP_OOO_MAX)
			return false;
		out[n++] = (tcp_range){ start, end };
	}
	for (uint32_t i = 0; i < n; i++)
		pcb->ooo[i] = out[i];
	pcb->n_ooo = n;
	pcb->ooo_latest = start;
	return true;
}

/* Commit out-of-order ranges that the in-order data now reaches. */
static bool ooo_advance(tcp_pcb *pcb)
{
	bool moved = false;
	while (pcb->n_ooo && SEQ_LEQ(pcb->ooo[0].start, pcb->rcv_nxt)) {
		if (SEQ_GT(pcb->ooo[0].end, pcb->rcv_nxt)) {
			uint32_t add = pcb->ooo[0].end - pcb->rcv_nxt;
			bytering_commit(&pcb->rcvbuf, add);
			pcb->rcv_nxt += add;
			pcb->bytes_received += add;
			pcb->tl->ctr.bytes_in += add;
		}
		for (uint32_t i = 1; i < pcb->n_ooo; i++)
			pcb->ooo[i - 1] = pcb->ooo[i];
		pcb->n_ooo--;
		moved = true;
	}
	return moved;
}

static void accept_fin(tcp_pcb *pcb)
{
	pcb->rcv_nxt++;
	pcb->fin_rcvd = true;
	pcb->ooo_fin = false;
	pcb->ack_now = true;
	pcb->ev |= TCP_EV_READABLE;
	switch (pcb->state) {
	case TCP_ESTABLISHED:
		pcb->state = TCP_CLOSE_WAIT;
		break;
	case TCP_FIN_WAIT_1:
		pcb->state = TCP_CLOSING;
		break;
	case TCP_FIN_WAIT_2:
		tcp_enter_time_wait(pcb);
		break;
	case TCP_CLOSED:
	case TCP_LISTEN:
	case TCP_SYN_SENT:
	case TCP_SYN_RCVD:
	case TCP_CLOSE_WAIT:
	case TCP_CLOSING:
	case TCP_LAST_ACK:
	case TCP_TIME_WAIT:
		break;
	}
}

static void rx_data(tcp_pcb *pcb, const tcp_seg *s)
{
	uint32_t seq = s->seq;
	const uint8_t *d = s->data;
	uint32_t len = s->len;
	bool fin = s->flags & TCP_FIN;
	if (!len && !fin)
		return;
	if (SEQ_LT(seq, pcb->rcv_nxt)) {
		uint32_t skip = pcb->rcv_nxt - seq;
		if (skip > len) {
			len = 0;
			fin = false; /* its FIN was before rcv_nxt too: already had it */
		} else {
			d += skip;
			len -= skip;
		}
		seq = pcb->rcv_nxt;
		pcb->ack_now = true; /* a duplicate: tell the sender where we are */
	}
	if (len && pcb->released) {
		/* New data for a connection nobody will read: Linux answers with a RST. */
		tcp_fail(pcb, -ECONNRESET, true);
		return;
	}
	uint32_t space = tcp_rcv_space(pcb);
	uint32_t off = seq - pcb->rcv_nxt;
	if (off + len > space) {
		len = off < space ? space - off : 0;
		fin = false;
		pcb->ack_now = true;
	}
	if (!len && !fin)
		return;
	if (off == 0) {
		if (len && !bytering_write_ahead(&pcb->rcvbuf, 0, d, len))
			return; /* out of memory: as if lost */
		if (len) {
			bytering_commit(&pcb->rcvbuf, len);
			pcb->rcv_nxt += len;
			pcb->bytes_received += len;
			pcb->tl->ctr.bytes_in += len;
			pcb->ev |= TCP_EV_READABLE;
		}
		if (ooo_advance(pcb))
			pcb->ack_now = true; /* a hole was filled */
		if (fin || (pcb->ooo_fin && pcb->ooo_fin_seq == pcb->rcv_nxt))
			accept_fin(pcb);
		if (len && pcb->gro_merged)
			pcb->gro_ack = true; /* acknowledged at the GRO flush */
		else if (len && ++pcb->unacked_segs >= 2)
			pcb->ack_now = true;
		if (!tcp_cfg(pcb)->delack)
			pcb->ack_now = true;
		if (!pcb->ack_now)
			tcp_delack_arm(pcb);
		return;
	}
	if (len) {
		pcb->tl->ctr.ooo_segments++;
		if (!bytering_write_ahead(&pcb->rcvbuf, off, d, len))
			return;
		ooo_insert(pcb, seq, seq + len); /* a full table drops it: it comes again */
	}
	if (fin) {
		pcb->ooo_fin = true;
		pcb->ooo_fin_seq = seq + len;
	}
	pcb->ack_now = true;
}

static void new_ack(tcp_pcb *pcb, uint32_t ack)
{
	uint32_t acked = ack - pcb->snd_una;
	uint32_t end = pcb->snd_buf_seq + (uint32_t)bytering_len(&pcb->sndbuf);
	uint32_t data_acked = SEQ_LT(ack, end) ? ack - pcb->snd_buf_seq : end - pcb->snd_buf_seq;
	if (data_acked) {
		bytering_drop(&pcb->sndbuf, data_acked);
		pcb->snd_buf_seq += data_acked;
		pcb->bytes_acked += data_acked;
		pcb->ev |= TCP_EV_WRITABLE;
	}
	pcb->snd_una = ack;
	if (SEQ_LT(pcb->snd_nxt, pcb->snd_una))
		pcb->snd_nxt = pcb->snd_una;
	if (pcb->rtt_timing && SEQ_GEQ(ack, pcb->rtt_seq)) {
		pcb->rtt_timing = false;
		tcp_rtt_sample(pcb, tcp_now(pcb) - pcb->rtt_start);
	}
	pcb->nrexmit = 0;
	pcb->dupacks = 0;
	uint32_t mss = pcb->mss;
	if (pcb->in_recovery) {
		if (SEQ_GEQ(ack, pcb->recover)) {
			/* full ACK: leave recovery (RFC 6582) */
			pcb->in_recovery = false;
			uint32_t flight = pcb->snd_max - pcb->snd_una;
			pcb->cwnd = max_u32(min_u32(pcb->ssthresh, flight + mss), mss);
		} else {
			/* partial ACK: the next hole is lost too */
			tcp_rto_stop(pcb);
			tcp_retransmit_first(pcb);
			pcb->cwnd = (pcb->cwnd > acked ? pcb->cwnd - acked : 0) + mss;
		}
	} else if (pcb->cwnd < pcb->ssthresh) {
		pcb->cwnd += min_u32(acked, mss);
	} else {
		pcb->cwnd += max_u32(1, (uint32_t)((uint64_t)mss * mss / pcb->cwnd));
	}
	if (pcb->cwnd > (1u << 30))
		pcb->cwnd = 1u << 30;
	if (pcb->snd_una != pcb->snd_max)
		tcp_rto_restart(pcb);
	else
		tcp_rto_stop(pcb);
}

static void dup_ack(tcp_pcb *pcb)
{
	pcb->dupacks++;
	pcb->tl->ctr.dupacks_in++;
	uint32_t mss = pcb->mss;
	if (pcb->dupacks == 3 && !pcb->in_recovery) {
		uint32_t flight = pcb->snd_max - pcb->snd_una;
		pcb->ssthresh = max_u32(flight / 2, 2 * mss);
		pcb->in_recovery = true;
		pcb->recover = pcb->snd_max;
		pcb->fast_retransmits++;
		pcb->tl->ctr.fast_retransmits++;
		tcp_retransmit_first(pcb);
		pcb->cwnd = pcb->ssthresh + 3 * mss;
	} else if (pcb->in_recovery) {
		pcb->cwnd += mss; /* each dupack: one more segment has left the network */
	}
}

/* Our FIN was acknowledged. Returns false when the connection is over. */
static bool fin_acked(tcp_pcb *pcb)
{
	switch (pcb->state) {
	case TCP_FIN_WAIT_1:
		pcb->state = TCP_FIN_WAIT_2;
		if (pcb->released)
			sim_event_schedule_in(pcb->tl->st->eng, &pcb->wait_ev, tcp_cfg(pcb)->fin_wait2_timeout);
		return true;
	case TCP_CLOSING:
		tcp_enter_time_wait(pcb);
		return true;
	case TCP_LAST_ACK:
		tcp_stop_timers(pcb);
		pcb->state = TCP_CLOSED;
		pcb->err = 0;
		pcb->ev |= TCP_EV_FINISHED;
		return false;
	case TCP_CLOSED:
	case TCP_LISTEN:
	case TCP_SYN_SENT:
	case TCP_SYN_RCVD:
	case TCP_ESTABLISHED:
	case TCP_FIN_WAIT_2:
	case TCP_CLOSE_WAIT:
	case TCP_TIME_WAIT:
		return true;
	}
	return true;
}

/* Returns false when processing must stop. */
static bool process_ack(tcp_pcb *pcb, const tcp_seg *s)
{
	uint32_t ack = s->ack;
	if (SEQ_GT(ack, pcb->snd_max)) {
		tcp_send_ack(pcb);
		return false;
	}
	if (SEQ_LT(ack, pcb->snd_una))
		return true; /* an old ACK: nothing to learn */
	unsigned ws = pcb->snd_wscale == TCP_NO_WSCALE ? 0 : pcb->snd_wscale;
	uint32_t wnd = (uint32_t)s->wnd << ws;
	bool wnd_same = wnd == pcb->snd_wnd;
	if (SEQ_LT(pcb->snd_wl1, s->seq) || (pcb->snd_wl1 == s->seq && SEQ_LEQ(pcb->snd_wl2, ack))) {
		pcb->snd_wnd = wnd;
		pcb->snd_wl1 = s->seq;
		pcb->snd_wl2 = ack;
	}
	if (ack == pcb->snd_una) {
		if (!s->len && !(s->flags & TCP_FIN) && wnd_same && pcb->snd_una != pcb->snd_max)
			dup_ack(pcb);
	} else {
		new_ack(pcb, ack);
	}
	if (pcb->snd_wnd && sim_event_pending(&pcb->persist_ev)) {
		sim_event_cancel(pcb->tl->st->eng, &pcb->persist_ev);
		pcb->persist_backoff = 0;
	}
	if (pcb->fin_queued && SEQ_GT(pcb->snd_una, pcb->fin_seq))
		return fin_acked(pcb);
	return true;
}

static void sync_input(tcp_pcb *pcb, const ipv4_rx *rx, const tcp_seg *s)
{
	tcp_layer *tl = pcb->tl;
	/* Acceptable if it reaches rcv_nxt and starts within the buffer (Linux's test). */
	uint32_t win = max_u32(tcp_rcv_space(pcb), SEQ_GT(pcb->rcv_adv, pcb->rcv_nxt) ? pcb->rcv_adv - pcb->rcv_nxt : 0);
	if (!SEQ_GEQ(s->seq + seg_space(s), pcb->rcv_nxt) || SEQ_GT(s->seq, pcb->rcv_nxt + win)) {
		tl->ctr.out_of_window++;
		if (!(s->flags & TCP_RST))
			tcp_send_ack(pcb);
		return;
	}
	if (pcb->ts_ok && s->opt.has_ts && SEQ_LEQ(s->seq, pcb->rcv_nxt))
		pcb->ts_recent = s->opt.tsval;

	if (s->flags & TCP_RST) {
		tl->ctr.rst_in++;
		if (s->seq != pcb->rcv_nxt) { /* RFC 5961: in window but not exact */
			tcp_send_ack(pcb);
			return;
		}
		if (pcb->state == TCP_TIME_WAIT) {
			tcp_stop_timers(pcb);
			pcb->state = TCP_CLOSED;
			return;
		}
		tcp_fail(pcb, pcb->state == TCP_SYN_RCVD && !pcb->listener ? -ECONNREFUSED : -ECONNRESET,
		         false);
		return;
	}
	if (s->flags & TCP_SYN) {
		if (pcb->state == TCP_SYN_RCVD && s->seq == pcb->irs)
			tcp_send_syn(pcb); /* our SYN-ACK was lost */
		else
			tcp_send_ack(pcb); /* RFC 5961 challenge ACK */
		return;
	}
	if (!(s->flags & TCP_ACK))
		return;

	if (pcb->state == TCP_SYN_RCVD) {
		if (!SEQ_GT(s->ack, pcb->snd_una) || SEQ_GT(s->ack, pcb->snd_max)) {
			tcp_send_rst_reply(tl, rx, s->seq, s->ack, s->flags, seg_space(s));
			return;
		}
		unsigned ws = pcb->snd_wscale == TCP_NO_WSCALE ? 0 : pcb->snd_wscale;
		pcb->snd_wnd = (uint32_t)s->wnd << ws;
		pcb->snd_wl1 = s->seq;
		pcb->snd_wl2 = s->ack;
		pcb->snd_una = s->ack;
		if (pcb->nrexmit == 0)
			tcp_rtt_sample(pcb, tcp_now(pcb) - pcb->syn_sent_at);
		tcp_established(pcb);
		pcb->ev |= pcb->listener ? TCP_EV_ACCEPTED : TCP_EV_CONNECTED;
	}
	if (!process_ack(pcb, s) || pcb->state == TCP_CLOSED)
		return;

	switch (pcb->state) {
	case TCP_ESTABLISHED:
	case TCP_FIN_WAIT_1:
	case TCP_FIN_WAIT_2:
		rx_data(pcb, s);
		if (pcb->state == TCP_CLOSED)
			return;
		break;
	case TCP_TIME_WAIT:
		if (s->flags & TCP_FIN) { /* the peer missed our last ACK */
			pcb->ack_now = true;
			sim_event_schedule_in(tl->st->eng, &pcb->wait_ev, 2 * tcp_cfg(pcb)->msl);
		}
		break;
	case TCP_CLOSE_WAIT:
	case TCP_CLOSING:
	case TCP_LAST_ACK:
		if (s->len || (s->flags & TCP_FIN))
			pcb->ack_now = true;
		break;
	case TCP_CLOSED:
	case TCP_LISTEN:
	case TCP_SYN_SENT:
	case TCP_SYN_RCVD:
		break;
	}
	tcp_output(pcb);
	if (pcb->ack_now)
		tcp_send_ack(pcb);
}

void tcp_input(stack *st, const ipv4_rx *rx)
{
	tcp_layer *tl = st->tcp;
	const uint8_t *h = rx->payload;
	size_t n = rx->payload_len;
	tl->ctr.segs_in++;
	if (n < TCP_HLEN || !ipv4_local_netif(st, rx->dst)) {
		tl->ctr.malformed++;
		return;
	}
	size_t doff = (size_t)(h[12] >> 4) * 4;
	if (doff < TCP_HLEN || doff > n || n > 0xffff) {
		tl->ctr.malformed++;
		return;
	}
	if (!rx->sums_ok &&
	    inet_csum_finish(inet_csum_add(inet_csum_pseudo4(rx->src, rx->dst, IP_PROTO_TCP, (uint16_t)n), h, n)) != 0) {
		tl->ctr.bad_checksum++;
		return;
	}
	tcp_seg s = {
		.sport = get_be16(h),
		.dport = get_be16(h + 2),
		.seq = get_be32(h + 4),
		.ack = get_be32(h + 8),
		.flags = h[13],
		.wnd = get_be16(h + 14),
		.data = h + doff,
		.len = (uint32_t)(n - doff),
	};
	tcp_opts_parse(h + TCP_HLEN, doff - TCP_HLEN, s.flags & TCP_SYN, &s.opt);

	tcp_pcb *pcb = tcp_index_find_conn(tl, rx->dst, s.dport, rx->src, s.sport);
	if (!pcb) {
		tcp_pcb *l = tcp_index_find_listener(tl, rx->dst, s.dport);
		if (l) {
			listen_input(l, rx, &s);
		} else {
			tl->ctr.no_pcb++;
			tcp_send_rst_reply(tl, rx, s.seq, s.ack, s.flags, seg_space(&s));
		}
		return;
	}
	tcp_enter(pcb);
	tcp_host_rx(pcb, s.seq, s.len);
	pcb->last_rx = tcp_now(pcb);
	pcb->keep_probes = 0;
	if (pcb->state == TCP_SYN_SENT)
		syn_sent_input(pcb, rx, &s);
	else
		sync_input(pcb, rx, &s);
	tcp_deliver_events(pcb);
	tcp_leave(pcb);
}

/* Path MTU discovery (RFC 1191; Linux tcp_v4_err, tcp_v4_mtu_reduced): a router on the
 * way could not forward a segment of ours with DF set and said how much it can. The
 * segments in flight were dropped there: resend from snd_una in the smaller size now,
 * without waiting for the RTO (tcp_simple_retransmit), and without counting it as
 * congestion. Without this a world with mixed MTUs behind a router never delivers. */
void tcp_pmtu_reduced(stack *st, uint32_t lip, uint16_t lport, uint32_t rip, uint16_t rport, uint16_t mtu)
{
	tcp_pcb *pcb = tcp_index_find_conn(st->tcp, lip, lport, rip, rport);
	if (!pcb || mtu < TCP_MIN_PMTU)
		return;
	uint32_t mss = (uint32_t)mtu - IPV4_HLEN - TCP_HLEN - (pcb->ts_ok ? 12u : 0u);
	if (mss >= pcb->mss)
		return; /* an old message, or one for a size we already use */
	tcp_enter(pcb);
	pcb->mss = mss;
	if (pcb->cwnd < mss)
		pcb->cwnd = mss;
	if (pcb->snd_una != pcb->snd_max && pcb->state != TCP_SYN_SENT && pcb->state != TCP_SYN_RCVD) {
		pcb->snd_nxt = pcb->snd_una;
		pcb->rtt_timing = false;
		tcp_output(pcb);
	}
	tcp_deliver_events(pcb);
	tcp_leave(pcb);
}

void tcp_nexthop_unreachable(stack *st, uint32_t lip, uint16_t lport, uint32_t rip, uint16_t rport, uint32_t nexthop)
{
	tcp_pcb *pcb = tcp_index_find_conn(st->tcp, lip, lport, rip, rport);
	if (!pcb)
		return;
	pcb->unreach_nexthop = nexthop;
	if (pcb->state != TCP_SYN_SENT)
		return;
	tcp_enter(pcb);
	tcp_fail(pcb, -EHOSTUNREACH, false);
	tcp_deliver_events(pcb);
	tcp_leave(pcb);
}
