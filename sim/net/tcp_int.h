/* TCP internals shared by tcp.c (PCBs and the API), tcp_out.c (segments out),
 * tcp_in.c (segments in) and tcp_timer.c (timers). Not for use outside these files. */
#ifndef SIM_TCP_INT_H
#define SIM_TCP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "sim/net/bytering.h"
#include "sim/engine/engine.h"
#include "sim/engine/rng.h"
#include "sim/net/stack.h"
#include "sim/net/tcp.h"
#include "sim/net/tcp_opt.h"

#define TCP_HLEN 20
#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_PSH 0x08
#define TCP_ACK 0x10

#define TCP_DEFAULT_MSS 536 /* when the peer sends no MSS option (RFC 9293) */
#define TCP_OOO_MAX 32      /* out-of-order ranges kept; beyond, segments are dropped */
#define TCP_PERSIST_MAX (60 * SIM_S)
#define TCP_NO_WSCALE 0xff

/* Sequence-space comparisons (modulo 2^32). */
#define SEQ_LT(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) < 0)
#define SEQ_LEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) <= 0)
#define SEQ_GT(a, b) SEQ_LT(b, a)
#define SEQ_GEQ(a, b) SEQ_LEQ(b, a)

/* Events for the owner, gathered during processing and delivered at the end. */
#define TCP_EV_CONNECTED 0x01u
#define TCP_EV_ACCEPTED 0x02u /* for this (child) pcb's listener */
#define TCP_EV_READABLE 0x04u
#define TCP_EV_WRITABLE 0x08u
#define TCP_EV_FINISHED 0x10u

typedef struct tcp_range {
	uint32_t start, end;
} tcp_range;

/* A connection's addresses and ports, as the demultiplexing index keys them. */
typedef struct tcp_tuple {
	uint32_t lip, rip;
	uint16_t lport, rport;
} tcp_tuple;

struct tcp_layer {
	stack *st;
	tcp_pcb *head, *tail; /* every pcb, in creation order */
	size_t n_pcbs;
	/* tcp_index.c: finding pcbs without walking them (NULL while the layer is small) */
	GHashTable *by_tuple;  /* tcp_tuple -> first pcb of its chain (tuple_next) */
	GHashTable *listeners; /* port -> first pcb that listened there (listen_next) */
	GHashTable *port_use;  /* port, (address, port) -> number of pcbs bound there */
	uint64_t next_id;
	sim_rng isn_rng;    /* ISNs and timestamp offsets */
	uint16_t next_port; /* next ephemeral port to try */
	uint32_t k_rto, k_persist, k_delack, k_keepalive, k_wait, k_gro, k_cork;
	tcp_counters ctr;
	/* peers (address << 16 | port) whose SYN a listener answered without the SMC option
	 * because the SMC handshakes were congested; created on the first one */
	GHashTable *smc_limited;
};

struct tcp_pcb {
	tcp_layer *tl;
	tcp_pcb *prev, *next;
	uint64_t id;
	tcp_state state;
	union { /* the 4-tuple, also as the demultiplexing index's key */
		struct {
			uint32_t lip, rip;
			uint16_t lport, rport;
		};
		tcp_tuple tuple;
	};

	/* owner */
	const tcp_callbacks *cb;
	void *user;
	bool owned;     /* a handle is held (tcp_new, adopted child) */
	bool released;  /* the owner closed it: new data from the peer is refused */
	unsigned depth; /* entry points active on the stack; never free while > 0 */
	unsigned ev;    /* TCP_EV_* waiting for delivery */
	bool finished_sent;
	int err;                  /* why it failed, once CLOSED by an error */
	uint32_t unreach_nexthop; /* a next hop that never answered ARP (tcp_nexthop_unreachable) */

	/* listener / child */
	tcp_pcb *listener;           /* set while this child is half-open */
	uint32_t backlog, n_pending; /* n_pending: pcbs whose listener this is */

	/* tcp_index.c */
	bool in_tuple_ix;     /* it has a 4-tuple (in by_tuple when the table exists) */
	bool in_listen_ix;    /* it listened (in listeners when the table exists) */
	tcp_pcb *tuple_next;  /* next pcb (by id) with the same 4-tuple */
	tcp_pcb *listen_next; /* next pcb (by id) that listened on the same port */

	/* per-connection settings */
	bool smc_want; /* send (SYN) / answer (SYN-ACK) the SMC option */
	bool smc_limit_hs; /* listener: ask the SMC layer before answering with the option */
	bool nodelay, keepalive;
	sim_time keep_idle, keep_intvl;
	uint32_t sndbuf_size, rcvbuf_size;

	/* what the handshake agreed */
	bool smc_sent;    /* our SYN / SYN-ACK carried the SMC option */
	bool smc_peer;    /* the peer's SYN / SYN-ACK carried the SMC option */
	bool smc_ok;      /* seen both ways */
	uint16_t adv_mss; /* the MSS we announced */
	uint16_t peer_mss;
	uint32_t mss;                   /* payload per segment we send */
	uint8_t snd_wscale, rcv_wscale; /* TCP_NO_WSCALE when not agreed */
	bool sack_ok, ts_ok;
	uint32_t ts_recent, ts_offset;

	/* send side */
	uint32_t iss, snd_una, snd_nxt, snd_max, snd_wl1, snd_wl2;
	uint32_t snd_wnd; /* bytes, scaled */
	bytering sndbuf;
	uint32_t snd_buf_seq; /* sequence number of the first byte in sndbuf */
	bool fin_queued;
	uint32_t fin_seq; /* sequence number our FIN occupies */
	bool wr_shut;
	uint32_t cwnd, ssthresh;
	uint32_t dupacks;
	bool in_recovery;
	uint32_t recover;

	/* round trip (RFC 6298) */
	bool rtt_timing;
	uint32_t rtt_seq;
	sim_time rtt_start;
	bool have_srtt;
	sim_time srtt, rttvar, rto;
	uint32_t nrexmit; /* consecutive expiries of the current timer */
	uint32_t persist_backoff;
	sim_time syn_sent_at;

	/* receive side */
	uint32_t irs, rcv_nxt, rcv_adv;
	bytering rcvbuf;
	bool fin_rcvd;
	tcp_range ooo[TCP_OOO_MAX]; /* received ranges above rcv_nxt, sorted, disjoint */
	uint32_t n_ooo;
	uint32_t ooo_latest; /* start of the range touched last (first SACK block) */
	bool ooo_fin;
	uint32_t ooo_fin_seq;
	uint32_t unacked_segs; /* in-order segments not yet acknowledged */
	bool ack_now;

	/* the host's view: what of the current TSO super-segment is left to fill, and the
	 * receive queue's poll whose GRO segment in-order data is merged into */
	uint32_t tso_room;
	uint32_t gro_bytes;
	uint64_t gro_run;
	bool gro_merged; /* the segment in hand was merged into the poll's GRO segment */
	bool gro_ack;    /* merged data waits for the GRO flush to be acknowledged */
	sim_event gro_ev; /* the flush: the poll's last look */
	sim_time tx_done_at; /* its last frame has left the NIC then (host time) */
	sim_event cork_ev;   /* autocorked data goes when the NIC is done */

	/* keepalive */
	sim_time last_rx;
	uint32_t keep_probes;

	/* timers. The retransmission and delayed-ACK timers are lazy: restarting or
	 * stopping one only moves its deadline (0 = stopped); the event, when it fires
	 * before the deadline, re-arms itself. An ACK per segment would otherwise
	 * cancel and re-queue an engine event per segment. */
	sim_event rto_ev, persist_ev, delack_ev, keep_ev, wait_ev;
	sim_time rto_due, delack_due;

	/* statistics */
	uint64_t bytes_acked, bytes_received;
	uint64_t retransmits, rto_expiries, fast_retransmits, zero_window_probes;
};

/* tcp.c */
sim_time tcp_now(const tcp_pcb *pcb);
/* The host's costs of TCP work (sim/host): a segment sent (TSO), received (GRO), a timer. */
void tcp_host_tx(tcp_pcb *pcb, uint32_t len);
void tcp_host_rx(tcp_pcb *pcb, uint32_t seq, uint32_t len);
void tcp_host_timer(tcp_pcb *pcb);
bool tcp_host_autocork(tcp_pcb *pcb);
const tcp_config *tcp_cfg(const tcp_pcb *pcb);
void tcp_enter(tcp_pcb *pcb);
void tcp_leave(tcp_pcb *pcb); /* may free the pcb */
void tcp_fail(tcp_pcb *pcb, int err, bool send_rst);
void tcp_enter_time_wait(tcp_pcb *pcb);
void tcp_established(tcp_pcb *pcb); /* handshake done: windows, timers, events */
void tcp_deliver_events(tcp_pcb *pcb);
void tcp_stop_timers(tcp_pcb *pcb);
void tcp_negotiate(tcp_pcb *pcb, const tcp_opts *peer);
uint32_t tcp_isn(tcp_layer *tl);
tcp_pcb *tcp_child_new(tcp_pcb *listener, uint32_t lip, uint32_t rip, uint16_t rport);

/* tcp_index.c. The addresses and ports of a pcb change only through set_local and
 * set_remote, which keep the index current (the tables key pcbs by their own tuple). */
void tcp_index_added(tcp_layer *tl); /* a pcb joined the layer's list */
void tcp_index_free(tcp_layer *tl);
void tcp_index_set_local(tcp_pcb *pcb, uint32_t lip, uint16_t lport);
void tcp_index_set_remote(tcp_pcb *pcb, uint32_t rip, uint16_t rport);
void tcp_index_listen(tcp_pcb *pcb);
void tcp_index_remove(tcp_pcb *pcb); /* the pcb is being freed */
tcp_pcb *tcp_index_lookup_conn(const tcp_layer *tl, uint32_t lip, uint16_t lport, uint32_t rip, uint16_t rport);

/* The first pcb, in creation order, that is neither CLOSED nor LISTEN on the 4-tuple: a
 * walk while the layer is small (no tables; inline, it runs per segment), else the table. */
static inline tcp_pcb *tcp_index_find_conn(const tcp_layer *tl, uint32_t lip, uint16_t lport, uint32_t rip,
                                           uint16_t rport)
{
	if (tl->by_tuple)
		return tcp_index_lookup_conn(tl, lip, lport, rip, rport);
	for (tcp_pcb *p = tl->head; p; p = p->next)
		if (p->state != TCP_CLOSED && p->state != TCP_LISTEN && p->lport == lport && p->rport == rport &&
		    p->rip == rip && p->lip == lip)
			return p;
	return NULL;
}
/* The first LISTEN pcb on lport bound to lip, else the first bound to the wildcard. */
tcp_pcb *tcp_index_find_listener(const tcp_layer *tl, uint32_t lip, uint16_t lport);
bool tcp_index_port_used(const tcp_layer *tl, uint16_t port); /* any pcb has it as lport */
/* Whether binding (ip, port) collides with a pcb: the same port, and either address is
 * the wildcard or both are the same. */
bool tcp_index_bind_conflict(const tcp_layer *tl, uint32_t ip, uint16_t port);

/* tcp_out.c */
int tcp_emit(tcp_pcb *pcb, uint32_t seq, uint8_t flags, uint32_t len);
void tcp_output(tcp_pcb *pcb);
void tcp_send_ack(tcp_pcb *pcb);
void tcp_send_syn(tcp_pcb *pcb);   /* SYN or SYN-ACK, by state */
void tcp_send_probe(tcp_pcb *pcb); /* an old ACK (snd_una - 1) that the peer must answer */
void tcp_retransmit_first(tcp_pcb *pcb);
void tcp_send_rst_reply(tcp_layer *tl, const ipv4_rx *rx, uint32_t seq, uint32_t ack, uint8_t flags_in,
                        uint32_t seg_len);
void tcp_maybe_window_update(tcp_pcb *pcb);
void tcp_arm_rto(tcp_pcb *pcb); /* start the RTO unless it runs */
uint32_t tcp_rcv_space(const tcp_pcb *pcb);

/* tcp_timer.c */
void tcp_timers_init(tcp_pcb *pcb);
void tcp_rto_restart(tcp_pcb *pcb);
void tcp_rto_stop(tcp_pcb *pcb);
void tcp_delack_arm(tcp_pcb *pcb); /* unless already due */
void tcp_delack_stop(tcp_pcb *pcb);
void tcp_rtt_sample(tcp_pcb *pcb, sim_time rtt);
void tcp_keepalive_arm(tcp_pcb *pcb);

#endif
