/* TCP (RFC 9293) for the virtual stacks: enough for exact traces and honest fallback.
 *
 * Handshake options in Linux's layout (MSS, SACK-permitted, timestamps, window scale),
 * plus the SMC-R rendezvous option (kind 254, length 6, magic 0xE2D4C3D9, after two
 * NOPs): sent in a SYN when the PCB asks for SMC (tcp_set_smc), and in a SYN-ACK only if
 * the SYN carried it and the listener asks for SMC. It is recognised only on SYN
 * segments (even length >= 6, magic matches, any position). Each connection records
 * whether SMC was seen both ways (tcp_smc_negotiated).
 *
 * Data: ISN from the stack's seeded "tcp.isn" stream, receive window with scaling and
 * receiver SWS avoidance, RTO per RFC 6298 with Karn's rule and backoff, fast
 * retransmit / NewReno recovery, out-of-order queue (SACK blocks sent when agreed),
 * zero-window probes, delayed ACKs, Nagle (off by default), keepalive, FIN/RST,
 * TIME_WAIT of 2*MSL. All timers are engine events; nothing reads a clock.
 *
 * Ownership: tcp_new()/accepted children belong to their owner until it calls
 * tcp_close() or tcp_abort(); after that the handle must not be used (the connection
 * finishes on its own and frees itself). Callbacks are never made after tcp_close(),
 * and never re-entered: they run at the end of input/timer processing. */
#ifndef SIM_TCP_H
#define SIM_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sim/engine/engine.h"
#include "sim/net/bytering.h"
#include "sim/net/ipv4.h"

typedef struct stack stack;
typedef struct tcp_pcb tcp_pcb;
typedef struct tcp_layer tcp_layer;

typedef enum tcp_state {
	TCP_CLOSED,
	TCP_LISTEN,
	TCP_SYN_SENT,
	TCP_SYN_RCVD,
	TCP_ESTABLISHED,
	TCP_FIN_WAIT_1,
	TCP_FIN_WAIT_2,
	TCP_CLOSE_WAIT,
	TCP_CLOSING,
	TCP_LAST_ACK,
	TCP_TIME_WAIT,
} tcp_state;

typedef struct tcp_callbacks {
	/* An active open reached ESTABLISHED. */
	void (*connected)(void *user, tcp_pcb *pcb);
	/* On a listener: a child connection is ESTABLISHED. Adopt it with
	 * tcp_set_callbacks() during the call, or it is reset. */
	void (*accepted)(void *user, tcp_pcb *listener, tcp_pcb *child);
	/* New in-order bytes or the peer's FIN can be read. */
	void (*readable)(void *user, tcp_pcb *pcb);
	/* Send-buffer space was freed. */
	void (*writable)(void *user, tcp_pcb *pcb);
	/* The connection is over: 0 after an orderly close in both directions, else
	 * -ECONNREFUSED, -ECONNRESET or -ETIMEDOUT. The last callback for this pcb. */
	void (*finished)(void *user, tcp_pcb *pcb, int err);
} tcp_callbacks;

typedef struct tcp_counters {
	uint64_t segs_out, segs_in, bytes_out, bytes_in;
	uint64_t retransmits; /* segments sent again (RTO, fast retransmit, go-back-N) */
	uint64_t rto_expiries, fast_retransmits, dupacks_in;
	uint64_t zero_window_probes, keepalive_probes;
	uint64_t rst_out, rst_in;
	uint64_t bad_checksum, malformed, no_pcb, out_of_window;
	uint64_t out_errors;   /* segments IPv4 refused (no route, larger than the MTU) */
	uint64_t ooo_segments; /* data segments queued out of order */
	uint64_t active_opens, passive_opens, listen_drops;
	uint64_t conn_reset, conn_timeout, conn_refused;
	uint64_t smc_syn_sent, smc_syn_received, smc_negotiated;
	uint64_t smc_hs_limited; /* SYN-ACKs without the SMC option: handshakes congested */
} tcp_counters;

/* A connection's numbers, for tests and reports. */
typedef struct tcp_info {
	tcp_state state;
	uint32_t local_ip, remote_ip;
	uint16_t local_port, remote_port;
	uint32_t iss, irs, snd_una, snd_nxt, snd_max, rcv_nxt;
	uint32_t snd_wnd, cwnd, ssthresh;
	uint32_t mss;                   /* payload bytes per segment we send */
	uint8_t snd_wscale, rcv_wscale; /* 0xff: no window scaling */
	bool sack_ok, ts_ok;
	bool smc_sent, smc_peer, smc_negotiated;
	sim_time srtt, rto;
	uint64_t bytes_acked, bytes_received;
	uint64_t retransmits, rto_expiries, fast_retransmits, zero_window_probes;
	uint32_t unreach_nexthop; /* a next hop whose ARP gave up under this connection, 0 none */
} tcp_info;

/* Per-stack TCP. */
tcp_layer *tcp_layer_new(stack *st);
void tcp_layer_free(tcp_layer *tl);
const tcp_counters *tcp_get_counters(const stack *st);
size_t tcp_pcb_count(const stack *st); /* every PCB, TIME_WAIT and half-open ones included */

/* Heap held by the stack's TCP, for memory measurements (bench scale), in the
 * allocator's own units (each block's usable size and its header): the pcbs and the
 * storage of their send and receive rings. The demultiplexing tables are GLib's and not
 * counted. Adds to what out holds. */
typedef struct tcp_mem_census {
	uint64_t pcbs, pcb_bytes, ring_bytes;
} tcp_mem_census;
void tcp_mem_census_add(const stack *st, tcp_mem_census *out);
/* Every pcb's owner (the callbacks and user it was given), in creation order. */
typedef void (*tcp_owner_fn)(void *ctx, const tcp_callbacks *cb, void *user);
void tcp_foreach_owner(const stack *st, tcp_owner_fn fn, void *ctx);

/* A segment for this stack (called by IPv4). */
void tcp_input(stack *st, const ipv4_rx *rx);

/* An ICMP "fragmentation needed" for one of our segments (lip:lport -> rip:rport): send
 * at most mtu bytes per IPv4 packet on that connection from now on (called by ICMP).
 * MTUs below TCP_MIN_PMTU are not believed (Linux: min_pmtu 552). */
#define TCP_MIN_PMTU 552u
void tcp_pmtu_reduced(stack *st, uint32_t lip, uint16_t lport, uint32_t rip, uint16_t rport, uint16_t mtu);

/* Address resolution of the next hop `nexthop` for one of our segments (lip:lport ->
 * rip:rport) gave up: nobody answered ARP (called by ARP as it drops what it held). As
 * Linux (arp_error_report, ICMP host unreachable, tcp_v4_err): a connection in SYN_SENT
 * fails with -EHOSTUNREACH; any other only remembers it (a soft error). */
void tcp_nexthop_unreachable(stack *st, uint32_t lip, uint16_t lport, uint32_t rip, uint16_t rport, uint32_t nexthop);

/* A new CLOSED pcb with the stack's defaults; NULL on allocation failure. */
tcp_pcb *tcp_new(stack *st);
void tcp_set_callbacks(tcp_pcb *pcb, const tcp_callbacks *cb, void *user);

/* Options; set before tcp_connect/tcp_listen (children inherit the listener's). */
void tcp_set_smc(tcp_pcb *pcb, bool on);
/* A listener whose SYN-ACKs leave the SMC option out while the stack's SMC layer says its
 * handshakes are congested (Linux tcp_openreq_init: ireq->smc_ok needs !smc_hs_congested). */
void tcp_set_smc_limit_hs(tcp_pcb *pcb, bool on);
/* Whether a listener of st answered the SYN from rip:rport without the SMC option because
 * the SMC handshakes were congested (what a report names as the reason of a fallback). */
bool tcp_smc_hs_was_limited(const stack *st, uint32_t rip, uint16_t rport);
void tcp_set_nodelay(tcp_pcb *pcb, bool on);
/* idle 0: the stack's keepalive_idle. */
void tcp_set_keepalive(tcp_pcb *pcb, bool on, sim_time idle, sim_time interval);
int tcp_set_buffers(tcp_pcb *pcb, uint32_t sndbuf, uint32_t rcvbuf);

/* Returns 0 or -EADDRINUSE, -EADDRNOTAVAIL, -EINVAL, -EISCONN. Port 0: ephemeral. */
int tcp_bind(tcp_pcb *pcb, uint32_t ip, uint16_t port);
int tcp_listen(tcp_pcb *pcb, uint32_t backlog);
/* Starts the handshake; completion comes through `connected` or `finished`.
 * Returns 0 or -EHOSTUNREACH, -EADDRNOTAVAIL (no free port), -EISCONN, -ENOMEM. */
int tcp_connect(tcp_pcb *pcb, uint32_t ip, uint16_t port);

/* Copy up to len bytes into the send buffer; returns the count (0: buffer full),
 * -ENOTCONN before ESTABLISHED, -EPIPE after shutdown, the error after a failure. */
ssize_t tcp_write(tcp_pcb *pcb, const void *buf, size_t len);
/* Returns bytes read, 0 at end of stream, -EAGAIN when nothing is there yet. */
ssize_t tcp_read(tcp_pcb *pcb, void *buf, size_t len);
/* tcp_write and tcp_read without the application's buffer: fill() writes the accepted
 * bytes straight into the send buffer, visit() reads the bytes taken where they lie in
 * the receive buffer (each once per contiguous span, in stream order). Same counts,
 * same returns and the same segments and ACKs as tcp_write / tcp_read of len bytes. */
ssize_t tcp_write_fill(tcp_pcb *pcb, size_t len, bytering_fill_fn fill, void *ctx);
ssize_t tcp_read_visit(tcp_pcb *pcb, size_t len, bytering_visit_fn visit, void *ctx);
/* Like tcp_read without consuming. */
ssize_t tcp_peek(const tcp_pcb *pcb, void *buf, size_t len);
size_t tcp_readable(const tcp_pcb *pcb);
size_t tcp_writable(const tcp_pcb *pcb);
bool tcp_eof(const tcp_pcb *pcb); /* the peer's FIN arrived and every byte was read */
/* Send FIN after what is queued. */
int tcp_shutdown(tcp_pcb *pcb);
/* Release the handle: an orderly close (RST if received bytes were left unread). */
void tcp_close(tcp_pcb *pcb);
/* Release the handle with a RST. */
void tcp_abort(tcp_pcb *pcb);

tcp_state tcp_get_state(const tcp_pcb *pcb);
void tcp_get_info(const tcp_pcb *pcb, tcp_info *out);
bool tcp_smc_negotiated(const tcp_pcb *pcb);

#endif
