/* TCP output: building segments, deciding what to send, ACKs, RSTs, probes. */
#include "sim/net/tcp_int.h"

#include <string.h>

#include "model/byteorder.h"
#include "sim/net/inet_csum.h"
#include "sim/net/packet.h"

uint32_t tcp_rcv_space(const tcp_pcb *pcb)
{
	return (uint32_t)bytering_space(&pcb->rcvbuf);
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* The smallest window increase worth announcing (RFC 1122 receiver SWS avoidance). */
static uint32_t wnd_step(const tcp_pcb *pcb)
{
	return min_u32((uint32_t)pcb->rcvbuf.cap / 2, pcb->adv_mss ? pcb->adv_mss : 1);
}

static uint32_t cur_wnd(const tcp_pcb *pcb)
{
	return SEQ_GT(pcb->rcv_adv, pcb->rcv_nxt) ? pcb->rcv_adv - pcb->rcv_nxt : 0;
}

/* The window field of a non-SYN segment. The right edge never moves left by more than
 * the scaling granularity, and small openings are held back. */
static uint16_t window_field(tcp_pcb *pcb)
{
	uint32_t space = tcp_rcv_space(pcb);
	uint32_t cur = cur_wnd(pcb);
	uint32_t wnd = cur;
	if (space >= cur + wnd_step(pcb) || space == pcb->rcvbuf.cap)
		wnd = space;
	unsigned ws = pcb->rcv_wscale == TCP_NO_WSCALE ? 0 : pcb->rcv_wscale;
	/* Round up when the buffer has room for it, so the edge does not creep left by
	 * the scaling granularity on every ACK. */
	uint32_t up = (uint32_t)(((uint64_t)wnd + (1u << ws) - 1) >> ws);
	uint32_t field = ((uint64_t)up << ws) <= space ? up : wnd >> ws;
	field = min_u32(field, 65535);
	pcb->rcv_adv = pcb->rcv_nxt + (field << ws);
	return (uint16_t)field;
}

static void fill_syn_opts(const tcp_pcb *pcb, bool syn_ack, tcp_opts *o)
{
	const tcp_config *c = tcp_cfg(pcb);
	o->has_mss = true;
	o->mss = pcb->adv_mss;
	if (!syn_ack) { /* a SYN offers what the stack is configured for */
		o->has_wscale = c->window_scaling;
		o->wscale = c->wscale > TCP_MAX_WSCALE ? TCP_MAX_WSCALE : c->wscale;
		o->sack_perm = c->sack;
		o->has_ts = c->timestamps;
		o->smc = pcb->smc_want;
	} else { /* a SYN-ACK answers only what the SYN offered */
		o->has_wscale = pcb->rcv_wscale != TCP_NO_WSCALE;
		o->wscale = pcb->rcv_wscale;
		o->sack_perm = pcb->sack_ok;
		o->has_ts = pcb->ts_ok;
		o->smc = pcb->smc_ok;
	}
}

static unsigned sack_blocks(const tcp_pcb *pcb)
{
	unsigned max = pcb->ts_ok ? 3 : 4;
	return pcb->sack_ok && pcb->n_ooo ? (pcb->n_ooo < max ? pcb->n_ooo : max) : 0;
}

/* payload bytes that fit in one segment now */
static uint32_t tcp_send_room(const tcp_pcb *pcb)
{
	/* pcb->mss already leaves room for timestamps; SACK blocks take payload room too. */
	unsigned n = sack_blocks(pcb);
	uint32_t opt = n ? 4 + 8 * n : 0;
	return pcb->mss > opt ? pcb->mss - opt : 1;
}

/* SACK blocks: the range touched last first (RFC 2018), then the others in order. */
static void fill_sack(const tcp_pcb *pcb, tcp_opts *o)
{
	unsigned max = sack_blocks(pcb);
	for (uint32_t i = 0; i < pcb->n_ooo && o->n_sack < max; i++) {
		if (pcb->ooo[i].start == pcb->ooo_latest) {
			o->sack[o->n_sack++] = (tcp_sack_block){ pcb->ooo[i].start, pcb->ooo[i].end };
			break;
		}
	}
	for (uint32_t i = 0; i < pcb->n_ooo && o->n_sack < max; i++)
		if (pcb->ooo[i].start != pcb->ooo_latest)
			o->sack[o->n_sack++] = (tcp_sack_block){ pcb->ooo[i].start, pcb->ooo[i].end };
}

int tcp_emit(tcp_pcb *pcb, uint32_t seq, uint8_t flags, uint32_t len)
{
	tcp_layer *tl = pcb->tl;
	bool syn = flags & TCP_SYN;
	tcp_opts o;
	memset(&o, 0, sizeof o);
	if (syn)
		fill_syn_opts(pcb, flags & TCP_ACK, &o);
	else
		o.has_ts = pcb->ts_ok;
	if (o.has_ts) {
		o.tsval = (uint32_t)(tcp_now(pcb) / SIM_MS) + pcb->ts_offset;
		o.tsecr = (syn && !(flags & TCP_ACK)) ? 0 : pcb->ts_recent;
	}
	if (!syn && pcb->sack_ok && (flags & TCP_ACK) && !(flags & TCP_RST) && pcb->n_ooo)
		fill_sack(pcb, &o);
	size_t olen = tcp_opts_len(&o, syn);
	uint16_t wnd;
	if (syn) {
		wnd = (uint16_t)min_u32(tcp_rcv_space(pcb), 65535);
		pcb->rcv_adv = pcb->rcv_nxt + wnd;
	} else {
		wnd = window_field(pcb);
	}

	pkt p;
	pkt_init(&p);
	size_t seg_len = TCP_HLEN + olen + len;
	uint8_t *h = pkt_put(&p, seg_len);
	uint8_t *w = h;
	w = put_be16(w, pcb->lport);
	w = put_be16(w, pcb->rport);
	w = put_be32(w, seq);
	w = put_be32(w, (flags & TCP_ACK) ? pcb->rcv_nxt : 0);
	w = put_u8(w, (uint8_t)(((TCP_HLEN + olen) / 4) << 4));
	w = put_u8(w, flags);
	w = put_be16(w, wnd);
	w = put_be16(w, 0); /* checksum, below */
	w = put_be16(w, 0); /* urgent pointer */
	w += tcp_opts_write(w, &o, syn);
	if (len)
		bytering_copy_out(&pcb->sndbuf, seq - pcb->snd_buf_seq, w, len);
	uint32_t sum = inet_csum_pseudo4(pcb->lip, pcb->rip, IP_PROTO_TCP, (uint16_t)seg_len);
	put_be16(h + 16, inet_csum_finish(inet_csum_add(sum, h, seg_len)));
	p.flags = NETIF_SUMS_OK; /* and IPv4 writes its header's */

	if (syn && o.smc)
		pcb->smc_sent = true;
	tcp_host_tx(pcb, len);
	int rc = ipv4_output(tl->st, pcb->lip, pcb->rip, IP_PROTO_TCP, &p);
	if (rc) {
		tl->ctr.out_errors++;
		return rc;
	}
	tl->ctr.segs_out++;
	tl->ctr.bytes_out += len;
	if (flags & TCP_RST)
		tl->ctr.rst_out++;
	if (flags & TCP_ACK) {
		pcb->ack_now = false;
		pcb->gro_ack = false;
		pcb->unacked_segs = 0;
		tcp_delack_stop(pcb);
	}
	return 0;
}

void tcp_arm_rto(tcp_pcb *pcb)
{
	if (!pcb->rto_due)
		tcp_rto_restart(pcb);
}

void tcp_send_syn(tcp_pcb *pcb)
{
	bool ack = pcb->state == TCP_SYN_RCVD;
	pcb->syn_sent_at = tcp_now(pcb);
	tcp_emit(pcb, pcb->iss, (uint8_t)(TCP_SYN | (ack ? TCP_ACK : 0)), 0);
	tcp_arm_rto(pcb);
}

void tcp_send_ack(tcp_pcb *pcb)
{
	/* A pure ACK carries the next new sequence number, snd_max, not snd_nxt: after a
	 * retransmission timeout snd_nxt is rewound to snd_una, and an ACK stamped with it can
	 * lie below the peer's rcv_nxt. The peer then drops it as out of window, ACK field
	 * unread, and answers with an ACK of its own; when both ends have rewound (both sides'
	 * ACKs were lost, as behind a failed switch) the two never learn each other's
	 * acknowledgements and exchange ACKs without end. (BSD's tcp_output does the same;
	 * Linux never rewinds snd_nxt.) */
	uint32_t seq = pcb->snd_max, wnd_end = pcb->snd_una + pcb->snd_wnd;
	/* ... but never beyond the peer's window (Linux tcp_acceptable_seq): a receiver whose
	 * window is shut drops a segment that starts past it, ACK field unread, and a pure ACK
	 * that must reach it (what it sent was received) would never be taken. */
	if (SEQ_GT(seq, wnd_end) && SEQ_GEQ(wnd_end, pcb->snd_una))
		seq = wnd_end;
	tcp_emit(pcb, seq, TCP_ACK, 0);
}

void tcp_send_probe(tcp_pcb *pcb)
{
	tcp_emit(pcb, pcb->snd_una - 1, TCP_ACK, 0);
}

static uint32_t buf_end(const tcp_pcb *pcb)
{
	return pcb->snd_buf_seq + (uint32_t)bytering_len(&pcb->sndbuf);
}

void tcp_retransmit_first(tcp_pcb *pcb)
{
	uint32_t end = buf_end(pcb);
	uint32_t len = SEQ_LT(pcb->snd_una, end) ? min_u32(end - pcb->snd_una, tcp_send_room(pcb)) : 0;
	uint8_t flags = TCP_ACK;
	if (pcb->fin_queued && pcb->snd_una + len == pcb->fin_seq && SEQ_GT(pcb->snd_max, pcb->fin_seq))
		flags |= TCP_FIN;
	if (!len && !(flags & TCP_FIN))
		return;
	pcb->rtt_timing = false; /* Karn: never time a retransmitted segment */
	pcb->retransmits++;
	pcb->tl->ctr.retransmits++;
	tcp_emit(pcb, pcb->snd_una, flags, len);
	tcp_arm_rto(pcb);
}

static bool can_send_data(tcp_state s)
{
	switch (s) {
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:
	case TCP_FIN_WAIT_1:
	case TCP_CLOSING:
	case TCP_LAST_ACK:
		return true;
	case TCP_CLOSED:
	case TCP_LISTEN:
	case TCP_SYN_SENT:
	case TCP_SYN_RCVD:
	case TCP_FIN_WAIT_2:
	case TCP_TIME_WAIT:
		return false;
	}
	return false;
}

void tcp_output(tcp_pcb *pcb)
{
	if (!can_send_data(pcb->state))
		return;
	uint32_t end = buf_end(pcb);
	uint32_t room = tcp_send_room(pcb);
	pcb->tso_room = 0; /* a new burst: a new super-segment */
	for (;;) {
		uint32_t left = SEQ_LT(pcb->snd_nxt, end) ? end - pcb->snd_nxt : 0;
		bool fin_due = pcb->fin_queued && SEQ_LEQ(pcb->snd_nxt, pcb->fin_seq);
		if (!left && !fin_due)
			break;
		uint32_t wnd = min_u32(pcb->snd_wnd, pcb->cwnd);
		int32_t usable = (int32_t)(pcb->snd_una + wnd - pcb->snd_nxt);
		bool in_flight = pcb->snd_nxt != pcb->snd_una;
		uint32_t len = usable > 0 ? min_u32(min_u32(left, room), (uint32_t)usable) : 0;
		if (left && !len)
			break; /* window closed */
		if (len < left && len < room && in_flight)
			break; /* a runt cut by the window: wait for the ACKs to open it */
		if (!pcb->nodelay && len < room && in_flight && !fin_due)
			break; /* Nagle */
		bool fin = pcb->fin_queued && pcb->snd_nxt + len == pcb->fin_seq;
		uint8_t flags = TCP_ACK;
		if (fin)
			flags |= TCP_FIN;
		if (len && pcb->snd_nxt + len == end)
			flags |= TCP_PSH;
		bool resend = SEQ_LT(pcb->snd_nxt, pcb->snd_max);
		if (resend) {
			pcb->retransmits++;
			pcb->tl->ctr.retransmits++;
		} else if (!pcb->rtt_timing && len) {
			pcb->rtt_timing = true;
			pcb->rtt_seq = pcb->snd_nxt + len;
			pcb->rtt_start = tcp_now(pcb);
		}
		tcp_emit(pcb, pcb->snd_nxt, flags, len);
		pcb->snd_nxt += len + (fin ? 1u : 0u);
		if (SEQ_GT(pcb->snd_nxt, pcb->snd_max))
			pcb->snd_max = pcb->snd_nxt;
		tcp_arm_rto(pcb);
		if (fin)
			break;
	}
	/* Data waits behind a zero window with nothing in flight: probe it. */
	bool waiting = SEQ_LT(pcb->snd_nxt, end);
	if (waiting && pcb->snd_wnd == 0 && pcb->snd_una == pcb->snd_max &&
	    !sim_event_pending(&pcb->persist_ev)) {
		sim_time d = TCP_PERSIST_MAX;
		if (pcb->persist_backoff < 20 && (pcb->rto << pcb->persist_backoff) < TCP_PERSIST_MAX)
			d = pcb->rto << pcb->persist_backoff;
		sim_event_schedule_in(pcb->tl->st->eng, &pcb->persist_ev, d);
	}
}

void tcp_maybe_window_update(tcp_pcb *pcb)
{
	if (pcb->fin_rcvd)
		return;
	switch (pcb->state) {
	case TCP_ESTABLISHED:
	case TCP_FIN_WAIT_1:
	case TCP_FIN_WAIT_2:
		break;
	case TCP_CLOSED:
	case TCP_LISTEN:
	case TCP_SYN_SENT:
	case TCP_SYN_RCVD:
	case TCP_CLOSE_WAIT:
	case TCP_CLOSING:
	case TCP_LAST_ACK:
	case TCP_TIME_WAIT:
		return;
	}
	/* Linux tcp_cleanup_rbuf: what the application read is announced at once only when the
	 * window announced has shrunk to half the buffer or less and can now at least double;
	 * otherwise the next ACK carries it. (A window update per read is an ACK per read.) */
	uint32_t now = cur_wnd(pcb), space = tcp_rcv_space(pcb);
	if (2 * (uint64_t)now <= pcb->rcvbuf.cap && space >= 2 * (uint64_t)now && space >= now + wnd_step(pcb))
		tcp_send_ack(pcb);
}

void tcp_send_rst_reply(tcp_layer *tl, const ipv4_rx *rx, uint32_t seq, uint32_t ack, uint8_t flags_in,
                        uint32_t seg_len)
{
	if (flags_in & TCP_RST)
		return;
	const uint8_t *in = rx->payload;
	pkt p;
	pkt_init(&p);
	uint8_t *h = pkt_put(&p, TCP_HLEN);
	uint8_t *w = h;
	w = put_be16(w, get_be16(in + 2));
	w = put_be16(w, get_be16(in));
	if (flags_in & TCP_ACK) {
		w = put_be32(w, ack);
		w = put_be32(w, 0);
		w = put_u8(w, 5 << 4);
		w = put_u8(w, TCP_RST);
	} else {
		w = put_be32(w, 0);
		w = put_be32(w, seq + seg_len);
		w = put_u8(w, 5 << 4);
		w = put_u8(w, TCP_RST | TCP_ACK);
	}
	w = put_be16(w, 0);
	w = put_be16(w, 0);
	put_be16(w, 0);
	uint32_t sum = inet_csum_pseudo4(rx->dst, rx->src, IP_PROTO_TCP, TCP_HLEN);
	put_be16(h + 16, inet_csum_finish(inet_csum_add(sum, h, TCP_HLEN)));
	p.flags = NETIF_SUMS_OK;
	tl->ctr.segs_out++;
	tl->ctr.rst_out++;
	ipv4_output(tl->st, rx->dst, rx->src, IP_PROTO_TCP, &p);
}
