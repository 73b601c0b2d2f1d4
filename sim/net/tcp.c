/* TCP: the per-stack layer, PCB lifetime, the owner's API and state transitions. */
#include "sim/net/tcp_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/oom.h"
#include "sim/net/sock.h"

sim_time tcp_now(const tcp_pcb *pcb)
{
	return sim_now(pcb->tl->st->eng);
}

/* Sending with TSO: one super-segment of up to tso_max bytes is built per burst and the
 * NIC cuts it; each wire segment costs the driver a little more (netif_output). A pure
 * ACK or a control segment is a segment of its own. */
void tcp_host_tx(tcp_pcb *pcb, uint32_t len)
{
	sim_host *h = pcb->tl->st->host;
	if (!host_has_costs(h))
		return;
	const host_profile *p = host_get_profile(h);
	if (!len) {
		host_run_here(h, HOST_CAT_TCPIP, p->tcp_ack_ns);
		return;
	}
	if (pcb->tso_room < len) {
		host_run_here(h, HOST_CAT_TCPIP, p->tcp_tx_skb_ns);
		pcb->tso_room = p->tso_max > len ? p->tso_max : len;
	}
	pcb->tso_room -= len;
	pcb->tx_done_at = host_now(h) + p->nic_tx_ns + p->nic_txc_ns;
	if (p->csum_ps)
		host_run_here(h, HOST_CAT_TCPIP, (uint64_t)len * p->csum_ps / 1000u);
}

/* Receiving with GRO: in-order data of one connection arriving within one poll of the
 * receive queue is merged into one segment (up to gro_max bytes), which goes through
 * IP and TCP once; anything else goes through on its own. */
void tcp_host_rx(tcp_pcb *pcb, uint32_t seq, uint32_t len)
{
	sim_host *h = pcb->tl->st->host;
	if (!host_has_costs(h))
		return;
	const host_profile *p = host_get_profile(h);
	uint64_t run = host_irq_run(h);
	pcb->gro_merged = false;
	if (len && run && run == pcb->gro_run && seq == pcb->rcv_nxt && pcb->gro_bytes + len <= p->gro_max) {
		/* merged: acknowledged as one segment when the poll flushes (Linux acknowledges
		 * the GRO segment, so a busy receiver sends stretch ACKs) */
		pcb->gro_bytes += len;
		pcb->gro_merged = true;
		sim_event_schedule(pcb->tl->st->eng, &pcb->gro_ev, host_irq_looked_at(h));
	} else {
		host_run_here(h, HOST_CAT_TCPIP, p->tcp_rx_skb_ns);
		pcb->gro_run = len ? run : 0;
		pcb->gro_bytes = len;
	}
	if (len && p->csum_ps)
		host_run_here(h, HOST_CAT_TCPIP, (uint64_t)len * p->csum_ps / 1000u);
}

/* Linux tcp_should_autocork: a write that does not fill a segment (TSO: a super-segment)
 * waits while data is in flight and the connection's last frame is still in the NIC; the
 * NIC's transmit completion (TSQ) sends what gathered meanwhile, as one segment. */
bool tcp_host_autocork(tcp_pcb *pcb)
{
	sim_host *h = pcb->tl->st->host;
	if (!host_has_costs(h) || !host_get_profile(h)->tcp_autocork || pcb->state != TCP_ESTABLISHED)
		return false;
	const host_profile *p = host_get_profile(h);
	uint32_t unsent = pcb->snd_buf_seq + (uint32_t)bytering_len(&pcb->sndbuf) - pcb->snd_nxt;
	uint32_t goal = p->tso_max > pcb->mss ? p->tso_max : pcb->mss;
	sim_time t = host_now(h);
	if (unsent >= goal || pcb->snd_una == pcb->snd_max || pcb->tx_done_at <= t)
		return false;
	if (!sim_event_pending(&pcb->cork_ev))
		sim_event_schedule(pcb->tl->st->eng, &pcb->cork_ev, pcb->tx_done_at);
	return true;
}

void tcp_host_timer(tcp_pcb *pcb)
{
	sim_host *h = pcb->tl->st->host;
	if (host_has_costs(h))
		host_run_here(h, HOST_CAT_TCPIP, host_get_profile(h)->tcp_timer_ns);
}

const tcp_config *tcp_cfg(const tcp_pcb *pcb)
{
	return &pcb->tl->st->cfg.tcp;
}

/* ---- the layer ---- */

tcp_layer *tcp_layer_new(stack *st)
{
	tcp_layer *tl = calloc(1, sizeof *tl);
	if (!tl)
		return NULL;
	tl->st = st;
	sim_engine_rng(st->eng, "tcp.isn", st->entity, &tl->isn_rng);
	const tcp_config *c = &st->cfg.tcp;
	uint32_t range = (uint32_t)(c->port_hi - c->port_lo) + 1;
	tl->next_port = (uint16_t)(c->port_lo + sim_rng_below(&tl->isn_rng, range));
	tl->k_rto = sim_kind("tcp.rto");
	tl->k_persist = sim_kind("tcp.persist");
	tl->k_delack = sim_kind("tcp.delack");
	tl->k_keepalive = sim_kind("tcp.keepalive");
	tl->k_wait = sim_kind("tcp.wait");
	tl->k_gro = sim_kind("tcp.gro");
	tl->k_cork = sim_kind("tcp.cork");
	return tl;
}

static void pcb_free(tcp_pcb *pcb);

void tcp_layer_free(tcp_layer *tl)
{
	if (!tl)
		return;
	while (tl->head)
		pcb_free(tl->head);
	tcp_index_free(tl);
	if (tl->smc_limited)
		g_hash_table_destroy(tl->smc_limited);
	free(tl);
}

const tcp_counters *tcp_get_counters(const stack *st)
{
	return &st->tcp->ctr;
}

size_t tcp_pcb_count(const stack *st)
{
	return st->tcp->n_pcbs;
}

void tcp_mem_census_add(const stack *st, tcp_mem_census *out)
{
	for (const tcp_pcb *p = st->tcp->head; p; p = p->next) {
		out->pcbs++;
		out->pcb_bytes += sim_heap_block_bytes(p);
		out->ring_bytes += sim_heap_block_bytes(p->sndbuf.buf) + sim_heap_block_bytes(p->rcvbuf.buf);
	}
}

void tcp_foreach_owner(const stack *st, tcp_owner_fn fn, void *ctx)
{
	for (const tcp_pcb *p = st->tcp->head; p; p = p->next)
		fn(ctx, p->cb, p->user);
}

uint32_t tcp_isn(tcp_layer *tl)
{
	return sim_rng_u32(&tl->isn_rng);
}

/* ---- PCB lifetime ---- */

static tcp_pcb *tcp_pcb_alloc(tcp_layer *tl)
{
	tcp_pcb *pcb = calloc(1, sizeof *pcb);
	if (!pcb)
		return NULL;
	const tcp_config *c = &tl->st->cfg.tcp;
	pcb->tl = tl;
	pcb->id = tl->next_id++;
	pcb->state = TCP_CLOSED;
	pcb->nodelay = true;
	pcb->keep_idle = c->keepalive_idle;
	pcb->keep_intvl = c->keepalive_interval;
	pcb->sndbuf_size = c->sndbuf;
	pcb->rcvbuf_size = c->rcvbuf;
	pcb->snd_wscale = pcb->rcv_wscale = TCP_NO_WSCALE;
	pcb->rto = c->rto_initial;
	tcp_timers_init(pcb);
	pcb->prev = tl->tail;
	if (tl->tail)
		tl->tail->next = pcb;
	else
		tl->head = pcb;
	tl->tail = pcb;
	tl->n_pcbs++;
	tcp_index_added(tl);
	return pcb;
}

/* Lazy timers are only stopped (their events fire once more and do nothing): a
 * cancelled event leaves a stale queue entry, and thousands of connections closing
 * together would leave thousands. They are cancelled for real when the pcb is freed. */
void tcp_stop_timers(tcp_pcb *pcb)
{
	sim_engine *eng = pcb->tl->st->eng;
	sim_event_cancel(eng, &pcb->persist_ev);
	sim_event_cancel(eng, &pcb->keep_ev);
	sim_event_cancel(eng, &pcb->wait_ev);
	pcb->rto_due = pcb->delack_due = 0;
}

static void cancel_all_timers(tcp_pcb *pcb)
{
	sim_engine *eng = pcb->tl->st->eng;
	tcp_stop_timers(pcb);
	sim_event_cancel(eng, &pcb->rto_ev);
	sim_event_cancel(eng, &pcb->delack_ev);
	sim_event_cancel(eng, &pcb->gro_ev);
	sim_event_cancel(eng, &pcb->cork_ev);
}

/* A half-open child is counted by its listener (n_pending) while it points at it. */
static void set_listener(tcp_pcb *c, tcp_pcb *l)
{
	if (c->listener)
		c->listener->n_pending--;
	c->listener = l;
	if (l)
		l->n_pending++;
}

static void pcb_free(tcp_pcb *pcb)
{
	tcp_layer *tl = pcb->tl;
	cancel_all_timers(pcb);
	set_listener(pcb, NULL);
	/* its half-open children are nobody's now; n_pending counts them, so a pcb that is
	 * no listener (most) costs no walk */
	for (tcp_pcb *p = tl->head; p && pcb->n_pending; p = p->next)
		if (p->listener == pcb)
			set_listener(p, NULL);
	tcp_index_remove(pcb);
	if (pcb->prev)
		pcb->prev->next = pcb->next;
	else
		tl->head = pcb->next;
	if (pcb->next)
		pcb->next->prev = pcb->prev;
	else
		tl->tail = pcb->prev;
	tl->n_pcbs--;
	bytering_free(&pcb->sndbuf);
	bytering_free(&pcb->rcvbuf);
	free(pcb);
}

void tcp_enter(tcp_pcb *pcb)
{
	pcb->depth++;
}

void tcp_leave(tcp_pcb *pcb)
{
	if (--pcb->depth == 0 && !pcb->owned && pcb->state == TCP_CLOSED)
		pcb_free(pcb);
}

/* The connection ends abnormally: optionally tell the peer with a RST. */
void tcp_fail(tcp_pcb *pcb, int err, bool send_rst)
{
	tcp_counters *c = &pcb->tl->ctr;
	if (pcb->state == TCP_CLOSED)
		return;
	if (send_rst && pcb->state != TCP_LISTEN && pcb->state != TCP_SYN_SENT)
		tcp_emit(pcb, pcb->snd_nxt, TCP_RST | TCP_ACK, 0);
	tcp_stop_timers(pcb);
	set_listener(pcb, NULL);
	pcb->state = TCP_CLOSED;
	pcb->err = err;
	switch (err) {
	case -ECONNRESET:
		c->conn_reset++;
		break;
	case -ETIMEDOUT:
		c->conn_timeout++;
		break;
	case -ECONNREFUSED:
		c->conn_refused++;
		break;
	default:
		break;
	}
	pcb->ev |= TCP_EV_FINISHED;
}

void tcp_enter_time_wait(tcp_pcb *pcb)
{
	tcp_stop_timers(pcb);
	pcb->state = TCP_TIME_WAIT;
	sim_event_schedule_in(pcb->tl->st->eng, &pcb->wait_ev, 2 * tcp_cfg(pcb)->msl);
	pcb->ev |= TCP_EV_FINISHED;
}

/* Window scaling, SACK, timestamps and the SMC option: what both sides offered. */
void tcp_negotiate(tcp_pcb *pcb, const tcp_opts *peer)
{
	const tcp_config *c = tcp_cfg(pcb);
	pcb->peer_mss = peer->has_mss && peer->mss ? peer->mss : TCP_DEFAULT_MSS;
	if (c->window_scaling && peer->has_wscale) {
		pcb->snd_wscale = peer->wscale;
		pcb->rcv_wscale = c->wscale > TCP_MAX_WSCALE ? TCP_MAX_WSCALE : c->wscale;
	} else {
		pcb->snd_wscale = pcb->rcv_wscale = TCP_NO_WSCALE;
	}
	pcb->sack_ok = c->sack && peer->sack_perm;
	pcb->ts_ok = c->timestamps && peer->has_ts;
	if (pcb->ts_ok)
		pcb->ts_recent = peer->tsval;
	pcb->smc_peer = peer->smc;
	pcb->smc_ok = pcb->smc_want && peer->smc;
	uint32_t mss = pcb->peer_mss < pcb->adv_mss ? pcb->peer_mss : pcb->adv_mss;
	if (pcb->ts_ok)
		mss -= 12; /* Linux counts the timestamp option against the MSS */
	pcb->mss = mss ? mss : 1;
}

/* The handshake completed (either side). */
void tcp_established(tcp_pcb *pcb)
{
	const tcp_config *c = tcp_cfg(pcb);
	pcb->state = TCP_ESTABLISHED;
	pcb->cwnd = c->initial_cwnd * pcb->mss;
	pcb->ssthresh = UINT32_MAX;
	pcb->nrexmit = 0;
	pcb->last_rx = tcp_now(pcb);
	tcp_rto_stop(pcb);
	if (pcb->smc_ok)
		pcb->tl->ctr.smc_negotiated++;
	tcp_keepalive_arm(pcb);
}

void tcp_deliver_events(tcp_pcb *pcb)
{
	while (pcb->ev && !pcb->finished_sent) {
		if (pcb->ev & TCP_EV_ACCEPTED) {
			pcb->ev &= ~TCP_EV_ACCEPTED;
			tcp_pcb *l = pcb->listener;
			set_listener(pcb, NULL);
			if (l && l->owned && l->cb && l->cb->accepted)
				l->cb->accepted(l->user, l, pcb);
			if (!pcb->owned) { /* nobody adopted it */
				tcp_fail(pcb, -ECONNRESET, true);
				pcb->ev = 0;
				return;
			}
			continue;
		}
		if (!pcb->owned || !pcb->cb) {
			pcb->ev = 0;
			return;
		}
		const tcp_callbacks *cb = pcb->cb;
		if (pcb->ev & TCP_EV_CONNECTED) {
			pcb->ev &= ~TCP_EV_CONNECTED;
			if (cb->connected)
				cb->connected(pcb->user, pcb);
		} else if (pcb->ev & TCP_EV_READABLE) {
			pcb->ev &= ~TCP_EV_READABLE;
			if (cb->readable)
				cb->readable(pcb->user, pcb);
		} else if (pcb->ev & TCP_EV_WRITABLE) {
			pcb->ev &= ~TCP_EV_WRITABLE;
			if (cb->writable)
				cb->writable(pcb->user, pcb);
		} else if (pcb->ev & TCP_EV_FINISHED) {
			pcb->ev = 0;
			pcb->finished_sent = true;
			if (cb->finished)
				cb->finished(pcb->user, pcb, pcb->err);
		}
	}
}

/* ---- the owner's API ---- */

tcp_pcb *tcp_new(stack *st)
{
	tcp_pcb *pcb = tcp_pcb_alloc(st->tcp);
	if (pcb)
		pcb->owned = true;
	return pcb;
}

void tcp_set_callbacks(tcp_pcb *pcb, const tcp_callbacks *cb, void *user)
{
	pcb->cb = cb;
	pcb->user = user;
	pcb->owned = true;
}

void tcp_set_smc(tcp_pcb *pcb, bool on)
{
	pcb->smc_want = on;
}

void tcp_set_smc_limit_hs(tcp_pcb *pcb, bool on)
{
	pcb->smc_limit_hs = on;
}

bool tcp_smc_hs_was_limited(const stack *st, uint32_t rip, uint16_t rport)
{
	const tcp_layer *tl = st->tcp;
	int64_t key = (int64_t)rip << 16 | rport;
	return tl && tl->smc_limited && g_hash_table_contains(tl->smc_limited, &key);
}

void tcp_set_nodelay(tcp_pcb *pcb, bool on)
{
	pcb->nodelay = on;
}

void tcp_set_keepalive(tcp_pcb *pcb, bool on, sim_time idle, sim_time interval)
{
	pcb->keepalive = on;
	pcb->keep_idle = idle ? idle : tcp_cfg(pcb)->keepalive_idle;
	pcb->keep_intvl = interval ? interval : tcp_cfg(pcb)->keepalive_interval;
	if (pcb->state == TCP_ESTABLISHED)
		tcp_keepalive_arm(pcb);
}

int tcp_set_buffers(tcp_pcb *pcb, uint32_t sndbuf, uint32_t rcvbuf)
{
	if (pcb->state != TCP_CLOSED && pcb->state != TCP_LISTEN)
		return -EISCONN;
	if (sndbuf)
		pcb->sndbuf_size = sndbuf;
	if (rcvbuf)
		pcb->rcvbuf_size = rcvbuf;
	return 0;
}

static int pick_port(tcp_pcb *pcb)
{
	tcp_layer *tl = pcb->tl;
	const tcp_config *c = tcp_cfg(pcb);
	uint32_t range = (uint32_t)(c->port_hi - c->port_lo) + 1;
	for (uint32_t i = 0; i < range; i++) {
		uint16_t p = tl->next_port;
		tl->next_port = p >= c->port_hi ? c->port_lo : (uint16_t)(p + 1);
		if (!tcp_index_port_used(tl, p)) { /* pcb itself has no port yet */
			tcp_index_set_local(pcb, pcb->lip, p);
			return 0;
		}
	}
	return -EADDRNOTAVAIL;
}

int tcp_bind(tcp_pcb *pcb, uint32_t ip, uint16_t port)
{
	if (pcb->state != TCP_CLOSED || pcb->lport)
		return -EINVAL;
	if (ip && !ipv4_local_netif(pcb->tl->st, ip))
		return -EADDRNOTAVAIL;
	if (port && tcp_index_bind_conflict(pcb->tl, ip, port)) /* pcb has no port yet */
		return -EADDRINUSE;
	tcp_index_set_local(pcb, ip, port);
	return 0;
}

int tcp_listen(tcp_pcb *pcb, uint32_t backlog)
{
	if (pcb->state != TCP_CLOSED)
		return -EISCONN;
	if (!pcb->lport)
		return -EINVAL;
	pcb->backlog = backlog ? backlog : tcp_cfg(pcb)->backlog;
	pcb->state = TCP_LISTEN;
	tcp_index_listen(pcb);
	return 0;
}

/* The buffers get their size now; storage comes when bytes do. */
static void size_buffers(tcp_pcb *pcb)
{
	bytering_init(&pcb->sndbuf, pcb->sndbuf_size);
	bytering_init(&pcb->rcvbuf, pcb->rcvbuf_size);
}

/* MSS we announce: the interface MTU towards the peer less the IPv4 and TCP headers. */
static void set_adv_mss(tcp_pcb *pcb, const netif *nif)
{
	pcb->adv_mss = (uint16_t)(nif->mtu - IPV4_HLEN - TCP_HLEN);
}

int tcp_connect(tcp_pcb *pcb, uint32_t ip, uint16_t port)
{
	tcp_layer *tl = pcb->tl;
	if (pcb->state != TCP_CLOSED)
		return -EISCONN;
	if (!port || !ip)
		return -EINVAL;
	uint32_t src;
	netif *nif;
	if (!ipv4_route_source(tl->st, ip, &src, &nif))
		return -EHOSTUNREACH;
	if (!pcb->lip)
		tcp_index_set_local(pcb, src, pcb->lport);
	if (!pcb->lport) {
		int rc = pick_port(pcb);
		if (rc)
			return rc;
	}
	size_buffers(pcb);
	tcp_index_set_remote(pcb, ip, port);
	set_adv_mss(pcb, nif);
	pcb->iss = tcp_isn(tl);
	pcb->ts_offset = sim_rng_u32(&tl->isn_rng);
	pcb->snd_una = pcb->iss;
	pcb->snd_nxt = pcb->snd_max = pcb->iss + 1;
	pcb->snd_buf_seq = pcb->iss + 1;
	pcb->state = TCP_SYN_SENT;
	tl->ctr.active_opens++;
	if (pcb->smc_want)
		tl->ctr.smc_syn_sent++;
	tcp_enter(pcb);
	tcp_send_syn(pcb);
	tcp_leave(pcb);
	return 0;
}

/* The SMC layer's handshake queue is congested (a listener with SMC_LIMIT_HS asks). */
static bool smc_hs_congested(stack *st)
{
	return st->smc_hooks && st->smc_hooks->hs_congested && st->smc_hooks->hs_congested(st->smc_ctx);
}

/* A child for a listener (called by tcp_in.c on a SYN). */
tcp_pcb *tcp_child_new(tcp_pcb *l, uint32_t lip, uint32_t rip, uint16_t rport)
{
	uint32_t src;
	netif *nif;
	if (!ipv4_route_source(l->tl->st, rip, &src, &nif))
		return NULL;
	tcp_pcb *c = tcp_pcb_alloc(l->tl);
	if (!c)
		return NULL;
	tcp_index_set_local(c, lip, l->lport);
	tcp_index_set_remote(c, rip, rport);
	c->smc_want = l->smc_want;
	if (l->smc_want && l->smc_limit_hs && smc_hs_congested(l->tl->st)) {
		c->smc_want = false;
		l->tl->ctr.smc_hs_limited++;
		if (!l->tl->smc_limited)
			l->tl->smc_limited = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
		int64_t key = (int64_t)rip << 16 | rport;
		g_hash_table_add(l->tl->smc_limited, g_memdup2(&key, sizeof(key)));
	}
	c->nodelay = l->nodelay;
	c->keepalive = l->keepalive;
	c->keep_idle = l->keep_idle;
	c->keep_intvl = l->keep_intvl;
	c->sndbuf_size = l->sndbuf_size;
	c->rcvbuf_size = l->rcvbuf_size;
	size_buffers(c);
	set_adv_mss(c, nif);
	c->iss = tcp_isn(l->tl);
	c->ts_offset = sim_rng_u32(&l->tl->isn_rng);
	c->snd_una = c->iss;
	c->snd_nxt = c->snd_max = c->iss + 1;
	c->snd_buf_seq = c->iss + 1;
	set_listener(c, l);
	return c;
}

/* 0 when the application may queue bytes, else what tcp_write returns. */
static int write_refused(const tcp_pcb *pcb)
{
	switch (pcb->state) {
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:
		break;
	case TCP_CLOSED:
		return pcb->err ? pcb->err : -ENOTCONN;
	case TCP_LISTEN:
	case TCP_SYN_SENT:
	case TCP_SYN_RCVD:
		return -ENOTCONN;
	case TCP_FIN_WAIT_1:
	case TCP_FIN_WAIT_2:
	case TCP_CLOSING:
	case TCP_LAST_ACK:
	case TCP_TIME_WAIT:
		return -EPIPE;
	}
	return pcb->wr_shut ? -EPIPE : 0;
}

/* n bytes were queued: send what the window allows. */
static ssize_t queued(tcp_pcb *pcb, size_t n)
{
	if (n) {
		tcp_enter(pcb);
		if (!tcp_host_autocork(pcb))
			tcp_output(pcb);
		tcp_leave(pcb);
	}
	return (ssize_t)n;
}

ssize_t tcp_write(tcp_pcb *pcb, const void *buf, size_t len)
{
	int rc = write_refused(pcb);
	return rc ? rc : queued(pcb, bytering_write(&pcb->sndbuf, buf, len));
}

ssize_t tcp_write_fill(tcp_pcb *pcb, size_t len, bytering_fill_fn fill, void *ctx)
{
	int rc = write_refused(pcb);
	return rc ? rc : queued(pcb, bytering_write_fill(&pcb->sndbuf, len, fill, ctx));
}

size_t tcp_readable(const tcp_pcb *pcb)
{
	return bytering_len(&pcb->rcvbuf);
}

size_t tcp_writable(const tcp_pcb *pcb)
{
	if (pcb->wr_shut)
		return 0;
	return bytering_space(&pcb->sndbuf);
}

bool tcp_eof(const tcp_pcb *pcb)
{
	return pcb->fin_rcvd && !bytering_len(&pcb->rcvbuf);
}

/* How many of len bytes a read takes now (> 0), else what it returns. */
static ssize_t readable_now(const tcp_pcb *pcb, size_t len)
{
	size_t have = bytering_len(&pcb->rcvbuf);
	if (!have) {
		if (pcb->fin_rcvd)
			return 0;
		if (pcb->state == TCP_CLOSED && pcb->err)
			return pcb->err;
		return -EAGAIN;
	}
	return (ssize_t)(len < have ? len : have);
}

ssize_t tcp_peek(const tcp_pcb *pcb, void *buf, size_t len)
{
	ssize_t n = readable_now(pcb, len);
	if (n > 0)
		bytering_copy_out(&pcb->rcvbuf, 0, buf, (size_t)n);
	return n;
}

/* n bytes were taken: the window may open. */
static ssize_t consumed(tcp_pcb *pcb, ssize_t n)
{
	bytering_drop(&pcb->rcvbuf, (size_t)n);
	tcp_enter(pcb);
	tcp_maybe_window_update(pcb);
	tcp_leave(pcb);
	return n;
}

ssize_t tcp_read(tcp_pcb *pcb, void *buf, size_t len)
{
	ssize_t n = tcp_peek(pcb, buf, len);
	return n > 0 ? consumed(pcb, n) : n;
}

ssize_t tcp_read_visit(tcp_pcb *pcb, size_t len, bytering_visit_fn visit, void *ctx)
{
	ssize_t n = readable_now(pcb, len);
	if (n <= 0)
		return n;
	bytering_visit(&pcb->rcvbuf, (size_t)n, visit, ctx);
	return consumed(pcb, n);
}

/* Queue our FIN after the data; the state moves at once, the FIN leaves when the data
 * before it has been sent. */
static void queue_fin(tcp_pcb *pcb)
{
	if (pcb->fin_queued)
		return;
	pcb->fin_queued = true;
	pcb->wr_shut = true;
	pcb->fin_seq = pcb->snd_buf_seq + (uint32_t)bytering_len(&pcb->sndbuf);
	if (pcb->state == TCP_ESTABLISHED || pcb->state == TCP_SYN_RCVD)
		pcb->state = TCP_FIN_WAIT_1;
	else if (pcb->state == TCP_CLOSE_WAIT)
		pcb->state = TCP_LAST_ACK;
	tcp_output(pcb);
}

int tcp_shutdown(tcp_pcb *pcb)
{
	switch (pcb->state) {
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:
		tcp_enter(pcb);
		queue_fin(pcb);
		tcp_leave(pcb);
		return 0;
	case TCP_FIN_WAIT_1:
	case TCP_FIN_WAIT_2:
	case TCP_CLOSING:
	case TCP_LAST_ACK:
	case TCP_TIME_WAIT:
		return 0;
	case TCP_CLOSED:
	case TCP_LISTEN:
	case TCP_SYN_SENT:
	case TCP_SYN_RCVD:
		return -ENOTCONN;
	}
	return -ENOTCONN;
}

static void abort_children(tcp_pcb *l)
{
	/* the oldest half-open child first; each walk starts where the last one stopped */
	tcp_pcb *from = l->tl->head;
	while (l->n_pending) {
		tcp_pcb *p = from;
		while (p && p->listener != l)
			p = p->next;
		if (!p)
			return;
		from = p->next;
		tcp_enter(p);
		tcp_fail(p, -ECONNRESET, true); /* clears p->listener */
		p->ev = 0;
		tcp_leave(p); /* frees p */
	}
}

void tcp_close(tcp_pcb *pcb)
{
	tcp_enter(pcb);
	pcb->owned = false;
	pcb->released = true;
	pcb->cb = NULL;
	pcb->user = NULL;
	pcb->ev = 0;
	switch (pcb->state) {
	case TCP_LISTEN:
		abort_children(pcb);
		pcb->state = TCP_CLOSED;
		break;
	case TCP_SYN_SENT:
		tcp_stop_timers(pcb);
		pcb->state = TCP_CLOSED;
		break;
	case TCP_SYN_RCVD:
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:
		if (bytering_len(&pcb->rcvbuf)) {
			/* Linux: closing with unread data resets the connection. */
			tcp_fail(pcb, -ECONNRESET, true);
			pcb->ev = 0;
			break;
		}
		queue_fin(pcb);
		break;
	case TCP_FIN_WAIT_2:
		sim_event_schedule_in(pcb->tl->st->eng, &pcb->wait_ev, tcp_cfg(pcb)->fin_wait2_timeout);
		break;
	case TCP_FIN_WAIT_1:
	case TCP_CLOSING:
	case TCP_LAST_ACK:
	case TCP_TIME_WAIT:
	case TCP_CLOSED:
		break;
	}
	tcp_leave(pcb);
}

void tcp_abort(tcp_pcb *pcb)
{
	tcp_enter(pcb);
	pcb->owned = false;
	pcb->released = true;
	pcb->cb = NULL;
	pcb->user = NULL;
	if (pcb->state == TCP_LISTEN) {
		abort_children(pcb);
		pcb->state = TCP_CLOSED;
	} else if (pcb->state == TCP_TIME_WAIT) {
		tcp_stop_timers(pcb);
		pcb->state = TCP_CLOSED;
	} else {
		tcp_fail(pcb, -ECONNRESET, true);
	}
	pcb->ev = 0;
	tcp_leave(pcb);
}

tcp_state tcp_get_state(const tcp_pcb *pcb)
{
	return pcb->state;
}

bool tcp_smc_negotiated(const tcp_pcb *pcb)
{
	return pcb->smc_ok;
}

void tcp_get_info(const tcp_pcb *pcb, tcp_info *o)
{
	memset(o, 0, sizeof *o);
	o->state = pcb->state;
	o->local_ip = pcb->lip;
	o->remote_ip = pcb->rip;
	o->local_port = pcb->lport;
	o->remote_port = pcb->rport;
	o->iss = pcb->iss;
	o->irs = pcb->irs;
	o->snd_una = pcb->snd_una;
	o->snd_nxt = pcb->snd_nxt;
	o->snd_max = pcb->snd_max;
	o->rcv_nxt = pcb->rcv_nxt;
	o->snd_wnd = pcb->snd_wnd;
	o->cwnd = pcb->cwnd;
	o->ssthresh = pcb->ssthresh;
	o->mss = pcb->mss;
	o->snd_wscale = pcb->snd_wscale;
	o->rcv_wscale = pcb->rcv_wscale;
	o->sack_ok = pcb->sack_ok;
	o->ts_ok = pcb->ts_ok;
	o->smc_sent = pcb->smc_sent;
	o->smc_peer = pcb->smc_peer;
	o->smc_negotiated = pcb->smc_ok;
	o->srtt = pcb->srtt;
	o->rto = pcb->rto;
	o->bytes_acked = pcb->bytes_acked;
	o->bytes_received = pcb->bytes_received;
	o->retransmits = pcb->retransmits;
	o->unreach_nexthop = pcb->unreach_nexthop;
	o->rto_expiries = pcb->rto_expiries;
	o->fast_retransmits = pcb->fast_retransmits;
	o->zero_window_probes = pcb->zero_window_probes;
}
