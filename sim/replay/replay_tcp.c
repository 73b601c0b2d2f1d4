/* Replay: TCP connections with the SMC option, and the byte streams that carry CLC.
 *
 * A connection is born from a SYN (or, when the capture starts later, from a segment that
 * begins with a CLC eyecatcher). Each direction is reassembled while CLC messages are read
 * from it: out-of-order segments wait in a bounded buffer, retransmitted bytes are dropped,
 * partial overlaps are trimmed, and a segment cut by the snap length leaves a hole that a
 * later retransmission may fill. After the CLC phase only the sequence numbers are followed
 * to count application bytes (fallback connections carry their data over TCP). */
#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "model/byteorder.h"
#include "sim/replay/replay_int.h"

/* Sequence number arithmetic modulo 2^32. */
static int32_t seq_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

static void ip_str(uint8_t family, const uint8_t ip[16], uint16_t port, char *out, size_t n)
{
	char buf[64];
	report_ip_str(family, ip, buf, sizeof(buf));
	snprintf(out, n, family == 6 ? "[%s]:%u" : "%s:%u", buf, port);
}

static void conn_dir_str(const rp_conn *c, int from, char *out, size_t n)
{
	char a[80], b[80];
	ip_str(c->family, c->h[from].ip, c->h[from].port, a, sizeof(a));
	ip_str(c->family, c->h[RP_OTHER(from)].ip, c->h[RP_OTHER(from)].port, b, sizeof(b));
	snprintf(out, n, "%s -> %s", a, b);
}

/* Normalized 4-tuple: the lower (address, port) first. */
static void tuple_key(uint8_t key[37], const rp_frame *f)
{
	uint8_t a[18], b[18];
	memcpy(a, f->src_ip, 16);
	put_be16(a + 16, f->sport);
	memcpy(b, f->dst_ip, 16);
	put_be16(b + 16, f->dport);
	key[0] = f->family;
	if (memcmp(a, b, 18) <= 0) {
		memcpy(key + 1, a, 18);
		memcpy(key + 19, b, 18);
	} else {
		memcpy(key + 1, b, 18);
		memcpy(key + 19, a, 18);
	}
}

static uint32_t new_conn(replay_decoder *d, const rp_frame *f, bool sender_is_client, const uint8_t key[37])
{
	d->conns = rp_grow(d->conns, &d->n_conns, &d->cap_conns, sizeof(*d->conns));
	uint32_t ci = (uint32_t)d->n_conns;
	rp_conn *c = RP_CONN(d, ci);
	int cs = sender_is_client ? RP_CLIENT : RP_SERVER;
	c->family = f->family;
	memcpy(c->h[cs].ip, f->src_ip, 16);
	c->h[cs].port = f->sport;
	memcpy(c->h[RP_OTHER(cs)].ip, f->dst_ip, 16);
	c->h[RP_OTHER(cs)].port = f->dport;
	bool to_itself = !memcmp(c->h[RP_CLIENT].ip, c->h[RP_SERVER].ip, 16);
	for (int s = 0; s < 2; s++) {
		c->h[s].host = rp_host_for_ip(d, f->family, c->h[s].ip, to_itself && s == RP_SERVER);
		c->h[s].tcp.parsing = true;
	}
	c->decliner = -1;
	c->vlan = f->vlan;
	c->first_frame = d->frame;
	rp_map_put(&d->tcp_map, key, ci);
	return ci;
}

static void deliver(replay_decoder *d, uint32_t ci, int from, const uint8_t *p, uint32_t n)
{
	while (n > 0) {
		rp_conn *c = RP_CONN(d, ci);
		rp_stream *st = &c->h[from].tcp;
		if (!st->parsing) {
			st->app_bytes += n;
			return;
		}
		if (st->msg_len == 0)
			st->msg_frame = d->frame;
		if (st->msg_len < SMCR_CLC_HDR_LEN) {
			uint32_t take = SMCR_CLC_HDR_LEN - st->msg_len;
			if (take > n)
				take = n;
			memcpy(st->msg + st->msg_len, p, take);
			st->msg_len += take;
			p += take;
			n -= take;
			if (st->msg_len < SMCR_CLC_HDR_LEN)
				return;
		}
		smcr_clc_hdr hdr;
		smcr_decode_err err;
		int len = smcr_clc_peek(st->msg, st->msg_len, &hdr, &err);
		if (len < 0) {
			char dir[200];
			conn_dir_str(c, from, dir, sizeof(dir));
			st->parsing = false;
			if (err.code == SMCR_ERR_EYECATCHER && (c->mode != RP_MODE_PENDING || c->h[from].clc_seen ||
			                                        (from == RP_CLIENT && c->proposal))) {
				/* the CLC phase is over: what follows is application data */
				st->app_bytes += st->msg_len + n;
				st->msg_len = 0;
				return;
			}
			char text[160];
			smcr_decode_err_format(&err, text, sizeof(text));
			rp_error(d, "TCP %s: CLC message header does not decode: %s", dir, text);
			st->broken = true;
			c->clc_error = true;
			st->app_bytes += st->msg_len + n;
			st->msg_len = 0;
			return;
		}
		uint32_t take = (uint32_t)len - st->msg_len;
		if (take > n)
			take = n;
		memcpy(st->msg + st->msg_len, p, take);
		st->msg_len += take;
		p += take;
		n -= take;
		if (st->msg_len < (uint32_t)len)
			return;
		st->msg_len = 0;
		rp_clc_message(d, ci, from, st->msg, (uint32_t)len);
	}
}

static void ooo_insert(rp_stream *st, uint32_t seq, const uint8_t *p, uint32_t n, uint64_t frame)
{
	size_t i = st->n_ooo;
	while (i > 0 && seq_diff(st->ooo[i - 1].seq, seq) > 0)
		i--;
	if (st->n_ooo == st->cap_ooo) {
		st->cap_ooo = st->cap_ooo ? st->cap_ooo * 2 : 8;
		st->ooo = g_realloc_n(st->ooo, st->cap_ooo, sizeof(*st->ooo));
	}
	memmove(&st->ooo[i + 1], &st->ooo[i], (st->n_ooo - i) * sizeof(*st->ooo));
	st->ooo[i] = (rp_seg){ .seq = seq, .len = n, .frame = frame, .data = g_memdup2(p, n) };
	st->n_ooo++;
	st->ooo_bytes += n;
}

static void ooo_clear(rp_stream *st)
{
	for (size_t i = 0; i < st->n_ooo; i++)
		g_free(st->ooo[i].data);
	st->n_ooo = 0;
	st->ooo_bytes = 0;
}

/* Deliver buffered segments that the stream has reached. */
static void drain(replay_decoder *d, uint32_t ci, int from)
{
	for (;;) {
		rp_stream *st = &RP_CONN(d, ci)->h[from].tcp;
		if (st->n_ooo == 0 || seq_diff(st->ooo[0].seq, st->next) > 0)
			return;
		rp_seg seg = st->ooo[0];
		memmove(&st->ooo[0], &st->ooo[1], (st->n_ooo - 1) * sizeof(*st->ooo));
		st->n_ooo--;
		st->ooo_bytes -= seg.len;
		int32_t skip = seq_diff(st->next, seg.seq);
		if ((uint32_t)skip < seg.len) {
			st->next = seg.seq + seg.len;
			deliver(d, ci, from, seg.data + skip, seg.len - (uint32_t)skip);
		}
		g_free(seg.data);
	}
}

static void stream_segment(replay_decoder *d, uint32_t ci, int from, const rp_frame *f)
{
	rp_conn *c = RP_CONN(d, ci);
	rp_stream *st = &c->h[from].tcp;
	uint32_t len = f->payload_len, cap = f->payload_caplen;
	if (!st->started) {
		st->started = true;
		st->next = f->seq;
	}
	if (len == 0)
		return;
	int32_t off = seq_diff(f->seq, st->next);
	if (off + (int64_t)len <= 0) {
		d->res.tcp_retransmissions++;
		return;
	}
	if (!st->parsing) {
		uint32_t end = f->seq + len;
		if (seq_diff(end, st->next) > 0) {
			st->app_bytes += (uint32_t)seq_diff(end, st->next) < len ? (uint32_t)seq_diff(end, st->next) : len;
			st->next = end;
		}
		if (off < 0)
			d->res.tcp_retransmissions++;
		return;
	}
	if (cap < len) {
		char dir[200];
		conn_dir_str(c, from, dir, sizeof(dir));
		rp_note(d, "TCP %s: segment cut by the snap length (%u of %u payload bytes captured)", dir, cap, len);
	}
	const uint8_t *p = f->payload;
	uint32_t seq = f->seq;
	if (off < 0) {
		/* partly old: keep the new part */
		uint32_t skip = (uint32_t)-off;
		d->res.tcp_retransmissions++;
		if (skip >= cap) {
			if (!st->cut_frame)
				st->cut_frame = d->frame;
			return;
		}
		p += skip;
		cap -= skip;
		len -= skip;
		seq += skip;
		off = 0;
	}
	if (off == 0) {
		st->next = seq + cap;
		if (cap < len && !st->cut_frame)
			st->cut_frame = d->frame;
		deliver(d, ci, from, p, cap);
		drain(d, ci, from);
		return;
	}
	st = &RP_CONN(d, ci)->h[from].tcp;
	if (cap)
		ooo_insert(st, seq, p, cap, d->frame);
	if (st->ooo_bytes > RP_TCP_OOO_MAX) {
		char dir[200];
		conn_dir_str(RP_CONN(d, ci), from, dir, sizeof(dir));
		rp_error(d, "TCP %s: %u bytes missing at sequence %u and %u bytes waiting behind them; CLC reading stopped",
		         dir, (uint32_t)seq_diff(st->ooo[0].seq, st->next), st->next, st->ooo_bytes);
		RP_CONN(d, ci)->clc_error = true;
		st->parsing = false;
		st->broken = true;
		uint32_t end = st->ooo[st->n_ooo - 1].seq + st->ooo[st->n_ooo - 1].len;
		st->app_bytes += st->ooo_bytes;
		st->next = end;
		ooo_clear(st);
	}
}

static bool starts_with_clc(const rp_frame *f)
{
	return f->payload_caplen >= 5 && (get_be32(f->payload) == SMCR_CLC_EYECATCHER_R ||
	                                  get_be32(f->payload) == SMCR_CLC_EYECATCHER_D);
}

void rp_tcp_segment(replay_decoder *d, const rp_frame *f)
{
	uint8_t key[37];
	tuple_key(key, f);
	uint64_t *v = rp_map_get(&d->tcp_map, key);
	uint32_t ci = v ? (uint32_t)*v : 0;
	bool syn = f->tcp_flags & RP_TCP_SYN, ack = f->tcp_flags & RP_TCP_ACK;

	if (syn && !ack) {
		if (ci) {
			rp_conn *c = RP_CONN(d, ci);
			if (c->syn_seen && c->client_isn == f->seq && c->h[RP_CLIENT].port == f->sport &&
			    !memcmp(c->h[RP_CLIENT].ip, f->src_ip, 16)) {
				d->res.tcp_retransmissions++;
				if (c->not_smc)
					rp_unexplained(d, "TCP without the SMC option", "TCP SYN (retransmitted) without the SMC option");
				return;
			}
		}
		ci = new_conn(d, f, true, key);
		rp_conn *c = RP_CONN(d, ci);
		c->syn_seen = true;
		c->client_isn = f->seq;
		c->h[RP_CLIENT].smc_option = c->h[RP_CLIENT].smc_active = f->smc_option;
		c->h[RP_CLIENT].tcp.started = true;
		c->h[RP_CLIENT].tcp.next = f->seq + 1;
		if (!f->smc_option) {
			c->not_smc = true;
			rp_unexplained(d, "TCP without the SMC option", "TCP SYN without the SMC option");
		}
		return;
	}
	if (!ci) {
		bool clc = starts_with_clc(f);
		bool synack_smc = syn && ack && f->smc_option;
		if (!clc && !synack_smc) {
			rp_unexplained(d, "TCP connection start not captured",
			               "TCP segment of a connection whose SYN is not in the capture");
			return;
		}
		/* the capture began after the SYN: take the roles from what we see */
		bool sender_client = clc ? (f->payload[4] == SMCR_CLC_PROPOSAL || f->payload[4] == SMCR_CLC_CONFIRM) : false;
		ci = new_conn(d, f, sender_client, key);
		rp_conn *c = RP_CONN(d, ci);
		c->h[RP_CLIENT].smc_option = c->h[RP_CLIENT].smc_active = true; /* it spoke SMC */
		rp_note(d, "TCP connection seen from the middle (no SYN in the capture); roles taken from %s",
		        clc ? smcr_clc_type_name(f->payload[4]) : "the SYN-ACK");
	}
	rp_conn *c = RP_CONN(d, ci);
	int from = (f->sport == c->h[RP_CLIENT].port && !memcmp(f->src_ip, c->h[RP_CLIENT].ip, 16)) ? RP_CLIENT : RP_SERVER;
	if (c->not_smc) {
		rp_unexplained(d, "TCP without the SMC option", "TCP segment of a connection without the SMC option");
		return;
	}
	if (f->vlan != c->vlan && c->vlan == 0xFFFF)
		c->vlan = f->vlan;
	if (syn) { /* SYN-ACK */
		if (c->synack_seen && c->server_isn == f->seq) {
			d->res.tcp_retransmissions++;
			return;
		}
		c->synack_seen = true;
		c->server_isn = f->seq;
		rp_half *sv = &c->h[RP_SERVER], *cl = &c->h[RP_CLIENT];
		sv->smc_option = f->smc_option;
		sv->smc_active = sv->smc_active || f->smc_option;
		sv->tcp.started = true;
		sv->tcp.next = f->seq + 1;
		if (cl->smc_option && !f->smc_option && c->mode == RP_MODE_PENDING) {
			/* Linux client: the peer did not answer with the SMC option */
			c->mode = RP_MODE_TCP;
			cl->fallback = SMCR_DECL_PEERNOSMC;
			cl->tcp.parsing = sv->tcp.parsing = false;
		}
		return;
	}
	if (f->tcp_flags & RP_TCP_RST) {
		c->reset = true;
		if (from == RP_SERVER && c->syn_seen && !c->synack_seen && c->mode == RP_MODE_PENDING && !c->refused) {
			/* nobody listens there: connect() fails (ECONNREFUSED) before SMC has begun, so
			 * neither side has a socket to show; a SYN-ACK that was not captured would have
			 * been followed by the client's ACK, not this RST */
			c->refused = true;
			/* a client that retries until the server listens: one note, with the count */
			uint8_t rk[35];
			rk[0] = c->family;
			memcpy(rk + 1, c->h[RP_CLIENT].ip, 16);
			memcpy(rk + 17, c->h[RP_SERVER].ip, 16);
			put_be16(rk + 33, c->h[RP_SERVER].port);
			uint64_t *first = rp_map_get(&d->refused_map, rk);
			if (first) {
				rp_conn *f0 = RP_CONN(d, (uint32_t)*first);
				f0->refused_more++;
				f0->refused_last_frame = d->frame;
			} else {
				char dir[200];
				conn_dir_str(c, RP_CLIENT, dir, sizeof(dir));
				rp_note(d, "TCP connection %s refused: RST in answer to the SYN (no listener on the port)", dir);
				rp_map_put(&d->refused_map, rk, ci);
			}
		}
	}
	stream_segment(d, ci, from, f);
	if (f->tcp_flags & RP_TCP_FIN)
		RP_CONN(d, ci)->h[from].tcp.fin = true;
}

void rp_tcp_finish(replay_decoder *d)
{
	for (size_t i = 0; i < d->n_conns; i++) {
		const rp_conn *c = &d->conns[i];
		if (!c->refused_more)
			continue;
		char a[64], b[64];
		report_ip_str(c->family, c->h[RP_CLIENT].ip, a, sizeof(a));
		report_ip_str(c->family, c->h[RP_SERVER].ip, b, sizeof(b));
		uint64_t saved = d->frame;
		d->frame = c->refused_last_frame;
		rp_note(d, "%" PRIu32 " more TCP connections from %s to %s port %u refused after the first (its SYN: frame %" PRIu64
		           "), a client retrying until the server listens; the last one here",
		        c->refused_more, a, b, c->h[RP_SERVER].port, c->first_frame);
		d->frame = saved;
	}
	for (size_t i = 0; i < d->n_conns; i++) {
		rp_conn *c = &d->conns[i];
		if (c->not_smc)
			continue;
		for (int s = 0; s < 2; s++) {
			rp_stream *st = &c->h[s].tcp;
			if (!st->parsing || (st->msg_len == 0 && st->n_ooo == 0 && !st->cut_frame))
				continue;
			char dir[200];
			conn_dir_str(c, s, dir, sizeof(dir));
			uint64_t saved = d->frame;
			d->frame = st->cut_frame ? st->cut_frame : st->n_ooo ? st->ooo[0].frame
			                                                     : st->msg_frame;
			if (st->cut_frame && (st->msg_len || st->n_ooo))
				rp_error(d, "TCP %s: CLC data missing after a segment cut by the snap length; the CLC message at "
				            "sequence %u cannot be read",
				         dir, st->next - st->msg_len);
			else if (st->n_ooo)
				rp_error(d, "TCP %s: %u bytes missing at sequence %u (never captured); %u bytes after them not read",
				         dir, (uint32_t)seq_diff(st->ooo[0].seq, st->next), st->next, st->ooo_bytes);
			else if (st->msg_len)
				rp_error(d, "TCP %s: capture ends inside a CLC message (%u bytes of it captured)", dir, st->msg_len);
			if (st->msg_len || st->n_ooo)
				c->clc_error = true;
			d->frame = saved;
			ooo_clear(st);
		}
	}
}
