/* Re-drive: the feeder. It plays the recorded side R over R's own TCP/IP stack (plugged
 * in as that stack's SMC layer, so it owns the raw TCP stream of SMC connections) and its
 * own VF on R's adapter (RC QPs through the simulated transport, one per link group):
 *  - R's messages go out in recorded order, each once the O messages recorded before it
 *    have come from our side (or --wait has passed) and not before its recorded distance
 *    from the previous one; CLC on the TCP connection, LLC/CDC as SENDs, WRITEs as RDMA
 *    WRITEs, rewritten (R's resources to the feeder's, O's to ours);
 *  - our side's messages arrive on the TCP stream (CLC), as receive completions (LLC,
 *    CDC) and, for RDMA WRITEs, on a tap of R's adapter port; each is paired with the next
 *    recorded O message of its stream and compared (redrive_compare.c).
 * Routed RoCE v2 that reaches R's interface is steered to the feeder's VF, as smc_steer.c
 * does for a stack's own layer. */
#include <inttypes.h>
#include <string.h>

#include "model/byteorder.h"
#include "sim/net/arp.h"
#include "sim/fabric/endpoint.h"
#include "sim/fabric/eth_header.h"
#include "sim/fabric/fabric.h"
#include "sim/net/netif.h"
#include "sim/redrive/redrive_int.h"
#include "sim/replay/replay_frame.h"
#include "sim/net/route.h"
#include "sim/rdma/sim_transport.h"
#include "sim/net/tcp.h"

#define RECV_SLOTS 64u
#define SLOT 8192u
#define SEND_SLOTS 128u
#define WRITE_STAGE (4u << 20)
#define RMB_UNKNOWN_SIZE (1u << 20)
#define START_NS 1000000ull /* the first R message: 1 ms into the run */

typedef struct fd_mr {
	uint8_t *mem;
	size_t size;
	smcr_tp_mr *mr;
	smcr_mr_info info;
} fd_mr;

typedef struct fd_conn {
	sock *s;
	bool up; /* the TCP connection is the feeder's (SMC negotiated) */
	bool connecting;
	bool assigned; /* an accepted connection was given this recorded one */
	bool eof;
	uint8_t rx[2 * SMCR_CLC_MAX_LEN];
	uint32_t rx_len;
	bool clc_over; /* the CLC phase ended: the rest of the stream is data */
	/* recorded values of this connection (from its CLC messages) */
	uint32_t rec_r_token, rec_o_token;
	bool has_r_token;
	uint64_t first_o_clc; /* order of its first recorded O CLC message (server feeds) */
} fd_conn;

typedef struct fd_link {
	smcr_tp_qp *qp;
	uint32_t qpn;
	smcr_qp_state state;
	bool o_known; /* our side's QP values (from our Accept/Confirm) */
	uint32_t o_qpn, o_psn;
	uint8_t o_gid[16], o_mac[6];
	uint8_t o_mtu;
	bool r_psn_known;
	uint32_t r_psn;
	bool v2;
	uint32_t o_req_psn; /* next request PSN expected from our side (the tap) */
	bool o_req_psn_known;
	struct fd_mr *recv; /* receive slots */
} fd_link;

struct rd_feed {
	redrive *rd;
	stack *st;
	rnic *adapter;
	uint8_t port;
	rnic_vf *vf;
	smcr_port_desc desc;
	sim_transport *tp;
	const smcr_transport_ops *ops;
	uint8_t mac[6], gid_v1[16], gid_v2[16];
	uint16_t sgid_v1, sgid_v2;
	bool has_v1, has_v2;
	fd_conn *conns; /* by the decoder's connection index */
	size_t n_conns;
	fd_link *links; /* by the decoder's link group index */
	size_t n_links;
	fd_link spare; /* stands for a second link the fed side offers */
	sock *listeners[16];
	uint16_t listen_port[16];
	size_t n_listeners;
	fd_mr send, write;
	uint32_t send_next, write_off;
	fd_mr *rmbs; /* the feeder's RMBs (R's, as recorded) */
	size_t n_rmbs;
	size_t next_r, dep_scan;
	bool any_sent;
	sim_time last_sent_at;
	uint64_t last_sent_rec;
	bool blocked;
	sim_time blocked_since;
	sim_time last_activity;
	sim_event pump_ev;
	netif *steer_nif[8];
	netif_tap_fn steer_prev[8];
	void *steer_prev_ctx[8];
	size_t n_steer;
	uint32_t k_steer;
};

static sim_time now_of(const rd_feed *f) { return sim_now(world_engine(f->rd->w)); }

/* ---- memory ---- */

static int mr_new(rd_feed *f, fd_mr *m, size_t size)
{
	m->mem = g_malloc0(size);
	m->size = size;
	m->mr = f->ops->reg_mr(f->tp, sim_transport_dev(f->vf), m->mem, size,
	                       SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE, &m->info);
	return m->mr ? 0 : -1;
}

static void mr_free(rd_feed *f, fd_mr *m)
{
	if (m->mr)
		f->ops->dereg_mr(f->tp, m->mr);
	g_free(m->mem);
	memset(m, 0, sizeof(*m));
}

/* The feeder's RMB for R's recorded RMB rkey (made on first use). */
static const rd_rmb *rmb_for(rd_feed *f, uint32_t rec_rkey, uint64_t rec_va, uint32_t size)
{
	const rd_rmb *r = rd_rmb_by_rec(f->rd, false, rec_rkey);
	if (r && r->rec_va == rec_va)
		return r;
	if (r && r->rec_va != rec_va) {
		/* the same rkey with another address: the same region seen at another offset */
		rd_rmb_add(f->rd, false, rec_rkey, rec_va, r->live_rkey, r->live_va + (rec_va - r->rec_va), r->size);
		return rd_rmb_by_rec(f->rd, false, rec_rkey);
	}
	f->rmbs = g_realloc_n(f->rmbs, f->n_rmbs + 1, sizeof(*f->rmbs));
	fd_mr *m = &f->rmbs[f->n_rmbs];
	memset(m, 0, sizeof(*m));
	if (mr_new(f, m, size ? size : RMB_UNKNOWN_SIZE))
		return NULL;
	f->n_rmbs++;
	rd_rmb_add(f->rd, false, rec_rkey, rec_va, m->info.rkey, m->info.iova, (uint32_t)m->size);
	uint8_t a[4], b[4];
	put_be32(a, m->info.rkey);
	put_be32(b, rec_rkey);
	rd_map_pair(&f->rd->map_r, RD_RKEY, a, b, 4, NULL);
	return rd_rmb_by_rec(f->rd, false, rec_rkey);
}

/* ---- QPs ---- */

/* Sized once from the recording, so that pointers stay valid. */
static fd_link *link_of(rd_feed *f, uint32_t lgr)
{
	return lgr && lgr < f->n_links ? &f->links[lgr] : NULL;
}

static fd_conn *conn_of(rd_feed *f, uint32_t c)
{
	return c && c < f->n_conns ? &f->conns[c] : NULL;
}

static int qp_create(rd_feed *f, fd_link *l, bool v2)
{
	if (l->qp)
		return 0;
	smcr_qp_caps caps = { .max_send_wr = 256, .max_recv_wr = RECV_SLOTS, .max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = 0 };
	uintptr_t ctx = l == &f->spare ? 0 : (uintptr_t)(l - f->links);
	l->qp = f->ops->create_qp(f->tp, sim_transport_dev(f->vf), f->port, &caps, (void *)ctx, &l->qpn);
	if (!l->qp)
		return -1;
	l->v2 = v2;
	smcr_qp_attr a = { .state = SMCR_QPS_INIT, .port = f->port, .access = SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE };
	if (f->ops->modify_qp(f->tp, l->qp, &a))
		return -1;
	l->state = SMCR_QPS_INIT;
	/* receive buffers: one 8 KiB slot per WR (v2 LLC messages can be that long) */
	l->recv = g_new0(fd_mr, 1);
	if (mr_new(f, l->recv, (size_t)RECV_SLOTS * SLOT))
		return -1;
	for (uint32_t i = 0; i < RECV_SLOTS; i++) {
		smcr_recv_wr wr = { .wr_id = i, .num_sge = 1 };
		wr.sg_list[0] = (smcr_sge){ l->recv->mem + (size_t)i * SLOT, SLOT, l->recv->info.lkey };
		f->ops->post_recv(f->tp, l->qp, &wr);
	}
	return 0;
}

/* The MAC to send to our side: its own on the same subnet, else the next hop's. */
static void dest_mac(rd_feed *f, const fd_link *l, uint8_t mac[6], uint8_t *hop_limit)
{
	memcpy(mac, l->o_mac, 6);
	*hop_limit = 1;
	if (!l->v2)
		return;
	netif *nif = NULL;
	uint32_t nh = 0;
	if (route_lookup(&f->st->routes, f->rd->o_ip, &nif, &nh) && nif && nh != f->rd->o_ip) {
		arp_lookup(nif, nh, mac);
		*hop_limit = 64;
	}
}

static void qp_connect(rd_feed *f, fd_link *l)
{
	if (!l->qp || l->state != SMCR_QPS_INIT || !l->o_known || !l->r_psn_known)
		return;
	smcr_qp_attr a = { .state = SMCR_QPS_RTR, .path_mtu = l->o_mtu ? (smcr_mtu)l->o_mtu : SMCR_MTU_1024, .dest_qpn = l->o_qpn, .rq_psn = l->o_psn, .max_dest_rd_atomic = 1, .min_rnr_timer = 5 };
	memcpy(a.ah.dgid, l->o_gid, 16);
	dest_mac(f, l, a.ah.dmac, &a.ah.hop_limit);
	a.ah.sgid_index = l->v2 ? f->sgid_v2 : f->sgid_v1;
	if (f->ops->modify_qp(f->tp, l->qp, &a)) {
		rd_note(f->rd, "the feeder's QP could not be connected (RTR)");
		return;
	}
	smcr_qp_attr b = { .state = SMCR_QPS_RTS, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .sq_psn = l->r_psn, .max_rd_atomic = 1 };
	if (f->ops->modify_qp(f->tp, l->qp, &b)) {
		rd_note(f->rd, "the feeder's QP could not be connected (RTS)");
		return;
	}
	l->state = SMCR_QPS_RTS;
	l->o_req_psn = l->o_psn;
	l->o_req_psn_known = true;
}

/* ---- pairing our messages with the recorded ones ---- */

static void pump(rd_feed *f);

/* An LLC message's flow: its type and whether it is a response (byte 3, 0x80). */
static bool llc_same_flow(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen)
{
	return alen > 3 && blen > 3 && a[0] == b[0] && (a[3] & SMCR_LLC_FLAG_RESP) == (b[3] & SMCR_LLC_FLAG_RESP);
}

/* The next recorded O message of a stream that is not paired yet. An LLC message of ours
 * pairs with the next recorded one of its own flow (type, request or response): Linux
 * runs a link group's local flow (our requests) and its answers to the peer's requests
 * (the remote flow) side by side, so which of the two leaves first is a matter of timing
 * (work queues), not of the protocol. Where that order differs from the recording, a
 * note says so. */
/* Our DELETE RKEY request names an RMB of ours: the recorded rkey paired with it, or 0. */
static uint32_t delete_rkey_rec(const redrive *rd, const uint8_t *p, uint32_t len)
{
	smcr_llc_msg a;
	smcr_decode_err e;
	if (smcr_llc_decode(&a, p, len, &e) || a.type != SMCR_LLC_DELETE_RKEY || (a.flags & SMCR_LLC_FLAG_RESP) ||
	    !a.u.delete_rkey.n_rkeys)
		return 0;
	uint8_t live[4], rec[4];
	put_be32(live, a.u.delete_rkey.rkeys[0]);
	return rd_map_rec(&rd->map_o, RD_RKEY, live, 4, rec) ? get_be32(rec) : 0;
}

/* A recorded DELETE RKEY request for that recorded rkey. */
static bool deletes_rkey(const rd_msg *m, uint32_t rec_rkey)
{
	smcr_llc_msg a;
	smcr_decode_err e;
	return rec_rkey && !smcr_llc_decode(&a, m->data, m->len, &e) && a.type == SMCR_LLC_DELETE_RKEY &&
	       a.u.delete_rkey.n_rkeys && a.u.delete_rkey.rkeys[0] == rec_rkey;
}

static rd_msg *next_recorded_llc(rd_feed *f, uint32_t lgr, const uint8_t *p, uint32_t len)
{
	redrive *rd = f->rd;
	rd_msg *first = NULL;
	/* a DELETE RKEY request goes with Linux's for the same RMB: which connection closes
	 * first, and so whose buffer is withdrawn first, is the applications' timing */
	uint32_t rec_rkey = delete_rkey_rec(rd, p, len);
	for (size_t i = 0; rec_rkey && i < rd->n_msgs; i++) {
		rd_msg *m = &rd->msgs[i];
		if (!m->from_r && !m->done && !m->second_link && m->kind == REPLAY_MSG_LLC && m->lgr == lgr &&
		    llc_same_flow(m->data, m->len, p, len) && deletes_rkey(m, rec_rkey))
			return m;
	}
	for (size_t i = 0; i < rd->n_msgs; i++) {
		rd_msg *m = &rd->msgs[i];
		if (m->from_r || m->done || m->second_link || m->kind != REPLAY_MSG_LLC || m->lgr != lgr)
			continue;
		if (!first)
			first = m;
		if (!llc_same_flow(m->data, m->len, p, len))
			continue;
		if (m != first)
			rd_note(rd, "our LLC message for frame %" PRIu64 " left before the one for frame %" PRIu64
			            ", which Linux sent first: a request of one flow and the answer of another, in the order "
			            "of their work items",
			        m->frame, first->frame);
		return m;
	}
	return first;
}

static rd_msg *next_recorded(rd_feed *f, replay_msg_kind kind, uint32_t conn, uint32_t lgr, uint32_t rkey)
{
	redrive *rd = f->rd;
	for (size_t i = 0; i < rd->n_msgs; i++) {
		rd_msg *m = &rd->msgs[i];
		if (m->from_r || m->done || m->second_link || m->kind != kind)
			continue;
		if ((kind == REPLAY_MSG_CLC || kind == REPLAY_MSG_CDC) && m->conn != conn)
			continue;
		if (kind == REPLAY_MSG_LLC && m->lgr != lgr)
			continue;
		if (kind == REPLAY_MSG_WRITE && (m->lgr != lgr || m->rkey != rkey))
			continue;
		return m;
	}
	return NULL;
}

/* Every message the recording has from our side is paired: what our side sends now comes
 * after the recorded conversation. */
static bool recording_over(const rd_feed *f)
{
	const redrive *rd = f->rd;
	for (size_t i = 0; i < rd->n_msgs; i++)
		if (!rd->msgs[i].from_r && !rd->msgs[i].done && !rd->msgs[i].second_link)
			return false;
	return true;
}

static void ours(rd_feed *f, replay_msg_kind kind, uint32_t conn, uint32_t lgr, const uint8_t *p, uint32_t len,
                 uint32_t w_rkey, uint64_t w_va)
{
	redrive *rd = f->rd;
	rd->res->ours++;
	f->last_activity = now_of(f);
	uint32_t rec_rkey = 0;
	if (kind == REPLAY_MSG_WRITE) {
		const rd_rmb *r = rd_rmb_by_live(rd, false, w_rkey);
		rec_rkey = r ? r->rec_rkey : 0;
	}
	rd_msg *m = kind == REPLAY_MSG_LLC ? next_recorded_llc(f, lgr, p, len) : next_recorded(f, kind, conn, lgr, rec_rkey);
	if (!m && kind == REPLAY_MSG_LLC && len > 3 && (p[3] & SMCR_LLC_FLAG_RESP) && recording_over(f)) {
		/* the fed side's last request, which the recorded side never answered: the
		 * capture (the VM) ended first */
		rd_note(rd, "our side answered the fed side's last LLC request, which the recording ends without an answer "
		            "to");
		pump(f);
		return;
	}
	if (!m) {
		rd->res->extra++;
		rd_msg x = { .kind = kind, .data = (uint8_t *)p, .len = len };
		char name[64];
		char what[64] = "";
		if (kind == REPLAY_MSG_WRITE)
			snprintf(what, sizeof(what), " (%" PRIu32 " bytes)", len);
		rd_diff(rd, 0, rd_msg_name(&x, name, sizeof(name)), "extra: our side sent it%s, the recording has no such "
		                                                    "message here",
		        what);
		pump(f);
		return;
	}
	m->done = true;
	m->seen_at = now_of(f);
	rd->res->compared++;
	bool same = kind == REPLAY_MSG_WRITE ? rd_compare_write(rd, m, w_rkey, w_va, len) : rd_compare(rd, m, p, len);
	if (same)
		rd->res->equal++;
	redrive_result *r = rd->res;
	if (r->n_pairs == r->cap_pairs) {
		r->cap_pairs = r->cap_pairs ? r->cap_pairs * 2 : 64;
		r->pairs = g_realloc_n(r->pairs, r->cap_pairs, sizeof(*r->pairs));
	}
	redrive_pair *pr = &r->pairs[r->n_pairs++];
	pr->frame = m->frame;
	pr->equal = same;
	rd_msg_name(m, pr->msg, sizeof(pr->msg));
	pump(f);
}

/* Our Accept or Confirm: the values the feeder's QP connects to. */
static void learn_o(rd_feed *f, uint32_t lgr, const uint8_t *p, uint32_t len)
{
	smcr_clc_accept a;
	smcr_decode_err e;
	fd_link *l = link_of(f, lgr);
	if (!l || smcr_clc_decode_accept(&a, p, len, &e))
		return;
	if (!l->o_known) {
		l->o_known = true;
		l->o_qpn = a.qpn;
		l->o_psn = a.psn;
		memcpy(l->o_gid, a.gid, 16);
		memcpy(l->o_mac, a.mac, 6);
		l->o_mtu = a.qp_mtu;
	}
	qp_connect(f, l);
}

/* ---- the TCP side: the feeder is R's SMC layer ---- */

static fd_conn *conn_by_sock(rd_feed *f, const sock *s, uint32_t *idx)
{
	for (size_t i = 1; i < f->n_conns; i++)
		if (f->conns[i].s == s) {
			*idx = (uint32_t)i;
			return &f->conns[i];
		}
	return NULL;
}

/* The lgr of a recorded connection (from any of its messages). */
static uint32_t lgr_of_conn(rd_feed *f, uint32_t conn)
{
	for (size_t i = 0; i < f->rd->n_msgs; i++)
		if (f->rd->msgs[i].conn == conn && f->rd->msgs[i].lgr)
			return f->rd->msgs[i].lgr;
	return 0;
}

static void read_clc(rd_feed *f, uint32_t ci, fd_conn *c)
{
	while (c->s && sock_tcp_readable(c->s)) {
		uint32_t room = (uint32_t)sizeof(c->rx) - c->rx_len;
		if (!room) {
			if (!c->clc_over)
				break;
			c->rx_len = 0; /* application data after the CLC phase: not ours to read */
			continue;
		}
		ssize_t n = sock_tcp_recv(c->s, c->rx + c->rx_len, room);
		if (n <= 0)
			break;
		c->rx_len += (uint32_t)n;
	}
	if (c->s && tcp_eof(sock_tcp_pcb(c->s)) && !sock_tcp_readable(c->s))
		c->eof = true;
	while (!c->clc_over && c->rx_len >= 8) {
		smcr_clc_hdr h;
		smcr_decode_err e;
		int len = smcr_clc_peek(c->rx, c->rx_len, &h, &e);
		if (len == SMCR_ERR_SHORT)
			break;
		if (len < 0) {
			rd_note(f->rd, "our side's TCP stream holds bytes that are not CLC");
			c->clc_over = true;
			break;
		}
		if ((uint32_t)len > c->rx_len)
			break;
		uint32_t lgr = lgr_of_conn(f, ci);
		if (h.type == SMCR_CLC_ACCEPT || h.type == SMCR_CLC_CONFIRM)
			learn_o(f, lgr, c->rx, (uint32_t)len);
		if (h.type == SMCR_CLC_DECLINE || h.type == SMCR_CLC_CONFIRM || h.type == SMCR_CLC_ACCEPT)
			c->clc_over = h.type != SMCR_CLC_ACCEPT; /* the client still sends its Confirm */
		ours(f, REPLAY_MSG_CLC, ci, lgr, c->rx, (uint32_t)len, 0, 0);
		memmove(c->rx, c->rx + len, c->rx_len - (uint32_t)len);
		c->rx_len -= (uint32_t)len;
	}
	if (c->clc_over)
		c->rx_len = 0;
	if (c->eof && c->s) {
		sock *s = c->s;
		c->up = false;
		c->s = NULL;
		sock_release(s, false);
	}
}

static void hook_established(void *ctx, sock *s)
{
	rd_feed *f = ctx;
	uint32_t ci;
	fd_conn *c = conn_by_sock(f, s, &ci);
	if (!c) {
		/* an accepted connection (R is the server): the next recorded one, in the order
		 * of their first CLC message from our side */
		uint64_t best = UINT64_MAX;
		for (size_t i = 1; i < f->n_conns; i++)
			if (!f->conns[i].assigned && f->conns[i].first_o_clc && f->conns[i].first_o_clc < best) {
				best = f->conns[i].first_o_clc;
				ci = (uint32_t)i;
			}
		if (best == UINT64_MAX) {
			rd_note(f->rd, "our side opened more SMC connections than the recording has; the extra ones are reset");
			sock_release(s, true);
			return;
		}
		c = &f->conns[ci];
		c->s = s;
		c->assigned = true;
	}
	c->up = true;
	f->last_activity = now_of(f);
	pump(f);
}

static void hook_readable(void *ctx, sock *s)
{
	rd_feed *f = ctx;
	uint32_t ci;
	fd_conn *c = conn_by_sock(f, s, &ci);
	if (c)
		read_clc(f, ci, c);
}

static void hook_writable(void *ctx, sock *s)
{
	(void)ctx;
	(void)s;
}

static void hook_finished(void *ctx, sock *s, int err)
{
	rd_feed *f = ctx;
	uint32_t ci;
	fd_conn *c = conn_by_sock(f, s, &ci);
	(void)err;
	if (c && c->s) {
		c->up = false;
		c->s = NULL;
		sock_release(s, false);
	}
}

static void hook_app_closed(void *ctx, sock *s, bool abort)
{
	(void)ctx;
	sock_release(s, abort);
}

static const sock_smc_hooks feeder_hooks = {
	.tcp_established = hook_established,
	.tcp_readable = hook_readable,
	.tcp_writable = hook_writable,
	.tcp_finished = hook_finished,
	.app_closed = hook_app_closed,
};

static void app_connect(sock *s, int err, void *user)
{
	rd_feed *f = user;
	uint32_t ci;
	fd_conn *c = conn_by_sock(f, s, &ci);
	if (err || sock_get_mode(s) != SOCK_MODE_SMCR) {
		if (c && !c->up)
			rd_note(f->rd, "a connection of the fed client did not negotiate SMC (err %d, our side without SMC?)", err);
		if (c)
			c->s = NULL;
		sock_close(s);
	}
}

static void app_close(sock *s, int err, void *user)
{
	(void)err;
	(void)user;
	sock_close(s);
}

/* A connection that did not negotiate SMC (plain TCP, smc=no on our side) is not part of
 * the conversation: the fed server closes it. */
static void app_accept(sock *listener, sock *child, void *user)
{
	(void)listener;
	rd_feed *f = user;
	rd_note(f->rd, "a connection without SMC reached the fed server; closed (not part of the conversation)");
	sock_close(child);
}

static const sock_callbacks feeder_sock_cbs = { .on_connect = app_connect, .on_accept = app_accept, .on_close = app_close };

/* ---- the RoCE side ---- */

static void completion(void *ctx, const smcr_wc *wc)
{
	rd_feed *f = ctx;
	fd_link *l = link_of(f, (uint32_t)(uintptr_t)wc->qp_ctx);
	if (wc->status != SMCR_WC_SUCCESS) {
		if (wc->status != SMCR_WC_WR_FLUSH_ERR)
			rd_note(f->rd, "a work request of the feeder completed with an error (status %d)", (int)wc->status);
		return;
	}
	if (wc->opcode != SMCR_WC_RECV || !l || !l->recv)
		return;
	uint8_t *p = l->recv->mem + wc->wr_id * SLOT;
	uint32_t lgr = (uint32_t)(l - f->links);
	if (wc->byte_len && p[0] == SMCR_CDC_TYPE && wc->byte_len >= 8) {
		/* the connection: the one whose recorded R token this CDC names */
		uint32_t token = get_be32(p + 4), ci = 0;
		for (size_t i = 1; i < f->n_conns && !ci; i++)
			if (f->conns[i].has_r_token && f->conns[i].rec_r_token == token && lgr_of_conn(f, (uint32_t)i) == lgr)
				ci = (uint32_t)i;
		ours(f, REPLAY_MSG_CDC, ci, lgr, p, wc->byte_len, 0, 0);
	} else {
		ours(f, REPLAY_MSG_LLC, 0, lgr, p, wc->byte_len, 0, 0);
	}
	smcr_recv_wr wr = { .wr_id = wc->wr_id, .num_sge = 1 };
	wr.sg_list[0] = (smcr_sge){ p, SLOT, l->recv->info.lkey };
	if (l->qp)
		f->ops->post_recv(f->tp, l->qp, &wr);
}

static void async_event(void *ctx, smcr_async_event ev, uint8_t port, void *qp_ctx)
{
	rd_feed *f = ctx;
	(void)port;
	if (ev == SMCR_EV_QP_FATAL && qp_ctx)
		rd_note(f->rd, "the feeder's QP went to the error state");
}

/* Our RDMA WRITE requests, seen as they reach R's port (once per PSN). */
static void write_seen(rd_feed *f, const uint8_t *data, uint32_t len)
{
	rp_frame fr;
	rp_bth b;
	char why[96];
	if (rp_frame_parse(&fr, data, len, len, why, sizeof(why)) != RP_FRAME_ROCE ||
	    rp_bth_parse(&b, fr.ib, fr.ib_caplen, fr.ib_len, why, sizeof(why)) != RP_FRAME_ROCE)
		return;
	for (size_t g = 1; g < f->n_links; g++) {
		fd_link *l = &f->links[g];
		if (!l->qp || l->qpn != b.dest_qp || !l->o_req_psn_known || b.opcode == RP_OP_ACK)
			continue;
		int32_t d = (int32_t)((b.psn - l->o_req_psn) << 8) >> 8;
		if (d < 0)
			return; /* a retransmission */
		l->o_req_psn = (b.psn + 1) & 0xFFFFFFu;
		if (b.has_reth && rp_opcode_is_write(b.opcode))
			ours(f, REPLAY_MSG_WRITE, 0, (uint32_t)g, NULL, b.dmalen, b.rkey, b.va);
		return;
	}
}

static void port_tap(void *ctx, const sim_plug *plug, sim_tap_dir dir, sim_time at, const sim_frame *fr)
{
	(void)plug;
	(void)at;
	rd_feed *f = ctx;
	if (dir != SIM_TAP_IN || fr->len < SIM_ETH_HLEN || memcmp(fr->data, f->mac, 6))
		return;
	write_seen(f, fr->data, fr->len);
}

/* Routed RoCE v2 that a router delivered to R's interface goes to the feeder's VF. */
static void steer_deliver(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	sim_endpoint *ep = ev->ctx;
	ep->rx(ep, (sim_frame *)(uintptr_t)ev->arg);
}

static void steer_tap(void *ctx, const netif *nif, netif_dir dir, const uint8_t *frame, size_t len)
{
	rd_feed *f = ctx;
	for (size_t i = 0; i < f->n_steer; i++)
		if (f->steer_nif[i] == nif && f->steer_prev[i])
			f->steer_prev[i](f->steer_prev_ctx[i], nif, dir, frame, len);
	if (dir != NETIF_RX || !f->has_v2 || len < SIM_ETH_HLEN + 28 || memcmp(frame, nif->mac, 6))
		return;
	size_t off = 12;
	if (get_be16(frame + off) == SIM_ETHERTYPE_VLAN)
		off += 4;
	if (get_be16(frame + off) != SIM_ETHERTYPE_IPV4)
		return;
	off += 2;
	const uint8_t *ip = frame + off;
	size_t ihl = (size_t)(ip[0] & 0x0f) * 4;
	if (ip[9] != 17 || len < off + ihl + 8 || get_be16(ip + ihl + 2) != 4791 || get_be32(ip + 16) != f->rd->r_ip)
		return;
	sim_endpoint *ep = rnic_port_endpoint(f->adapter, f->port);
	sim_frame *fr = sim_frame_alloc_len(sim_fabric_frames(ep->plug.fab), (uint32_t)len);
	memcpy(sim_frame_put(fr, (uint32_t)len), frame, len);
	memcpy(fr->data, f->mac, 6);
	write_seen(f, fr->data, fr->len);
	sim_post(world_engine(f->rd->w), now_of(f), f->k_steer, 0, steer_deliver, ep, (uint64_t)(uintptr_t)fr);
}

/* ---- rewriting R's messages ---- */

static void map_r_gid(rd_feed *f, const uint8_t rec[16], const uint8_t live[16])
{
	static const uint8_t zero[16];
	if (memcmp(rec, zero, 16))
		rd_map_pair(&f->rd->map_r, RD_GID, live, rec, 16, NULL);
}

/* A mapped conversation (IPv6, one address): the IP area of R's Proposal names R's
 * subnet in the world, as R's stack there would. */
static void world_prefix(rd_feed *f, smcr_clc_proposal *p)
{
	uint8_t len = 24;
	for (size_t i = 0; i < f->st->n_netifs; i++)
		if (f->st->netifs[i]->ip4 == f->rd->r_ip)
			len = f->st->netifs[i]->ip4_prefix_len;
	p->ipv4_prefix_len = len;
	p->ipv4_subnet = len ? f->rd->r_ip & ~0u << (32 - len) : 0;
	p->n_ipv6 = 0;
}

static uint32_t rewrite_clc(rd_feed *f, const rd_msg *m, uint8_t *out, uint32_t outlen)
{
	smcr_decode_err e;
	ssize_t n = -1;
	static const uint8_t zero[16];
	switch (m->data[4]) {
	case SMCR_CLC_PROPOSAL: {
		smcr_clc_proposal p;
		if (smcr_clc_decode_proposal(&p, m->data, m->len, &e))
			break;
		if (memcmp(p.gid, zero, 16)) {
			map_r_gid(f, p.gid, f->gid_v1);
			memcpy(p.gid, f->gid_v1, 16);
		}
		if (memcmp(p.mac, zero, 6))
			memcpy(p.mac, f->mac, 6);
		if (memcmp(p.roce_v2_gid, zero, 16)) {
			map_r_gid(f, p.roce_v2_gid, f->gid_v2);
			memcpy(p.roce_v2_gid, f->gid_v2, 16);
		}
		if (f->rd->addr_mapped && p.typev1 != SMCR_CLC_TYPE_NONE)
			world_prefix(f, &p); /* R's recorded prefixes are not the world's */
		n = smcr_clc_encode_proposal(out, outlen, &p);
		break;
	}
	case SMCR_CLC_ACCEPT:
	case SMCR_CLC_CONFIRM: {
		smcr_clc_accept a;
		if (smcr_clc_decode_accept(&a, m->data, m->len, &e))
			break;
		fd_link *l = link_of(f, m->lgr);
		if (!l || qp_create(f, l, a.version == 2))
			break;
		if (!l->r_psn_known) {
			l->r_psn = a.psn;
			l->r_psn_known = true;
		}
		uint8_t qa[4], qb[4];
		put_be32(qa, l->qpn);
		put_be32(qb, a.qpn);
		rd_map_pair(&f->rd->map_r, RD_QPN, qa, qb, 4, NULL);
		a.qpn = l->qpn;
		const uint8_t *gid = a.version == 2 ? f->gid_v2 : f->gid_v1;
		map_r_gid(f, a.gid, gid);
		memcpy(a.gid, gid, 16);
		memcpy(a.mac, f->mac, 6);
		for (uint8_t i = 0; i < a.n_gids; i++)
			memcpy(a.gids[i], f->gid_v2, 16);
		const rd_rmb *r = rmb_for(f, a.rkey, a.rmb_vaddr, smcr_rmbe_size_bytes(a.rmbe_size));
		if (!r)
			break;
		a.rkey = r->live_rkey;
		a.rmb_vaddr = r->live_va;
		fd_conn *c = conn_of(f, m->conn);
		c->rec_r_token = a.rmbe_alert_token;
		c->has_r_token = true;
		n = smcr_clc_encode_accept(out, outlen, &a);
		qp_connect(f, l);
		break;
	}
	default:
		if (m->len <= outlen) {
			memcpy(out, m->data, m->len);
			n = m->len;
		}
		break;
	}
	return n > 0 ? (uint32_t)n : 0;
}

/* A recorded (rkey, address) of an RMB: R's own (to the feeder's) or O's (to ours). */
static bool map_rmb(rd_feed *f, bool ours_side, uint32_t *rkey, uint64_t *va)
{
	const rd_rmb *r = ours_side ? rd_rmb_by_rec(f->rd, true, *rkey) : rmb_for(f, *rkey, *va, 0);
	if (!r)
		return false;
	*va = r->live_va + (*va - r->rec_va);
	*rkey = r->live_rkey;
	return true;
}

static uint32_t rewrite_llc(rd_feed *f, const rd_msg *m, uint8_t *out, uint32_t outlen)
{
	smcr_llc_msg a;
	smcr_decode_err e;
	if (smcr_llc_decode(&a, m->data, m->len, &e))
		return 0;
	bool resp = a.flags & SMCR_LLC_FLAG_RESP;
	fd_link *l = link_of(f, m->lgr);
	/* link numbers are the server's: ours when the feeder is the client */
	uint8_t *num = NULL;
	switch ((smcr_llc_type)a.type) {
	case SMCR_LLC_CONFIRM_LINK:
		memcpy(a.u.confirm_link.mac, f->mac, 6);
		memcpy(a.u.confirm_link.gid, l && l->v2 ? f->gid_v2 : f->gid_v1, 16);
		a.u.confirm_link.qpn = l ? l->qpn : a.u.confirm_link.qpn;
		num = &a.u.confirm_link.link_id;
		break;
	case SMCR_LLC_ADD_LINK:
		if (!(a.flags & SMCR_LLC_FLAG_ADD_LNK_REJ) && a.u.add_link.qpn) {
			/* the fed side offers a second link: a QP of the feeder's stands for it (the
			 * link itself is not fed; our side rejecting the offer is) */
			if (!f->spare.qp && qp_create(f, &f->spare, l && l->v2)) {
				rd_note(f->rd, "the feeder cannot make a QP for an offered link");
				return 0;
			}
			uint8_t qa[4], qb[4];
			put_be32(qa, f->spare.qpn);
			put_be32(qb, a.u.add_link.qpn);
			rd_map_pair(&f->rd->map_r, RD_QPN, qa, qb, 4, NULL);
			memcpy(a.u.add_link.mac, f->mac, 6);
			map_r_gid(f, a.u.add_link.gid, l && l->v2 ? f->gid_v2 : f->gid_v1);
			memcpy(a.u.add_link.gid, l && l->v2 ? f->gid_v2 : f->gid_v1, 16);
			a.u.add_link.qpn = f->spare.qpn;
			rd_map_live(&f->rd->map_o, RD_GID, a.u.add_link.client_target_gid, 16, a.u.add_link.client_target_gid);
			for (uint16_t i = 0; i < a.u.add_link.n_rkeys; i++) {
				smcr_rkey_pair *pr = &a.u.add_link.rkeys[i];
				const rd_rmb *r = rd_rmb_by_rec(f->rd, false, pr->rkey_known);
				if (r) {
					pr->vaddr_new = r->live_va + (pr->vaddr_new - r->rec_va);
					pr->rkey_known = pr->rkey_new = r->live_rkey;
				}
			}
			rd_note(f->rd, "the fed side offered a second link (ADD LINK); only one link per group is re-driven");
		}
		num = &a.u.add_link.link_id;
		break;
	case SMCR_LLC_ADD_LINK_CONT:
		rd_note(f->rd, "ADD LINK CONTINUATION of the fed side (a second link); not fed");
		return 0;
	case SMCR_LLC_DELETE_LINK:
		num = &a.u.delete_link.link_id;
		break;
	case SMCR_LLC_CONFIRM_RKEY:
		if (!map_rmb(f, resp, &a.u.confirm_rkey.rkey, &a.u.confirm_rkey.vaddr))
			rd_note(f->rd, "a CONFIRM RKEY names an RMB the feeder does not know");
		if (a.u.confirm_rkey.n_other)
			rd_note(f->rd, "CONFIRM RKEY entries for other links are sent as recorded");
		break;
	case SMCR_LLC_DELETE_RKEY:
		for (uint8_t i = 0; i < a.u.delete_rkey.n_rkeys; i++) {
			const rd_rmb *r = resp ? rd_rmb_by_rec(f->rd, true, a.u.delete_rkey.rkeys[i])
			                       : rd_rmb_by_rec(f->rd, false, a.u.delete_rkey.rkeys[i]);
			if (r)
				a.u.delete_rkey.rkeys[i] = r->live_rkey;
		}
		break;
	case SMCR_LLC_REQ_ADD_LINK:
	case SMCR_LLC_TEST_LINK:
	case SMCR_LLC_CONFIRM_RKEY_CONT:
		break;
	}
	if (num && f->rd->r_ip == f->rd->client_ip)
		rd_map_live(&f->rd->map_o, RD_LINK_NUM, num, 1, num);
	ssize_t n = smcr_llc_encode(out, outlen, &a, a.version == 2 ? a.order : SMCR_LLC_V2_LE);
	return n > 0 ? (uint32_t)n : 0;
}

static uint32_t rewrite(rd_feed *f, const rd_msg *m, uint8_t *out, uint32_t outlen)
{
	switch (m->kind) {
	case REPLAY_MSG_CLC:
		return m->len >= 8 ? rewrite_clc(f, m, out, outlen) : 0;
	case REPLAY_MSG_LLC:
		return rewrite_llc(f, m, out, outlen);
	case REPLAY_MSG_CDC: {
		if (m->len < 8 || m->len > outlen)
			return 0;
		memcpy(out, m->data, m->len);
		uint8_t t[4];
		if (rd_map_live(&f->rd->map_o, RD_TOKEN, m->data + 4, 4, t))
			memcpy(out + 4, t, 4);
		return m->len;
	}
	case REPLAY_MSG_WRITE:
		return 0;
	}
	return 0;
}

/* ---- sending R's messages ---- */

/* Can message m go out now (its connection or link ready)? May start a TCP connection. */
static bool transport_ready(rd_feed *f, const rd_msg *m)
{
	if (m->kind == REPLAY_MSG_CLC) {
		fd_conn *c = conn_of(f, m->conn);
		if (!c)
			return false;
		if (c->up)
			return true;
		if (!c->s && !c->connecting && f->rd->r_ip == f->rd->client_ip) {
			sock_opts o;
			sock_opts_default(&o);
			o.smc = true;
			uint16_t port = m->server_port;
			int err = 0;
			c->connecting = true;
			c->s = sock_connect(f->st, &o, f->rd->o_ip, port, &feeder_sock_cbs, f, &err);
			if (!c->s)
				rd_note(f->rd, "the fed client cannot connect (error %d)", err);
		}
		return false;
	}
	fd_link *l = link_of(f, m->lgr);
	return l && l->qp && l->state == SMCR_QPS_RTS;
}

static void send_roce(rd_feed *f, const rd_msg *m)
{
	fd_link *l = link_of(f, m->lgr);
	smcr_send_wr wr = { .send_flags = SMCR_SEND_SIGNALED, .num_sge = 1 };
	if (m->kind == REPLAY_MSG_WRITE) {
		uint32_t rkey = m->rkey;
		uint64_t va = m->va;
		if (!map_rmb(f, true, &rkey, &va) || m->wire_len > WRITE_STAGE) {
			rd_note(f->rd, "an RDMA WRITE of the fed side names an RMB our side did not announce; not fed");
			f->rd->res->not_fed++;
			return;
		}
		if (f->write_off + m->wire_len > WRITE_STAGE)
			f->write_off = 0;
		uint8_t *dst = f->write.mem + f->write_off;
		memset(dst, 0, m->wire_len);
		memcpy(dst, m->data, m->len < m->wire_len ? m->len : m->wire_len);
		wr.opcode = SMCR_WR_RDMA_WRITE;
		wr.sg_list[0] = (smcr_sge){ dst, m->wire_len, f->write.info.lkey };
		wr.remote_addr = va;
		wr.rkey = rkey;
		f->write_off += (m->wire_len + 63u) & ~63u;
	} else {
		uint8_t *dst = f->send.mem + (f->send_next++ % SEND_SLOTS) * SLOT;
		uint32_t n = rewrite(f, m, dst, SLOT);
		if (!n) {
			f->rd->res->not_fed++;
			return;
		}
		wr.opcode = SMCR_WR_SEND;
		wr.send_flags |= SMCR_SEND_SOLICITED;
		wr.sg_list[0] = (smcr_sge){ dst, n, f->send.info.lkey };
	}
	if (f->ops->post_send(f->tp, l->qp, &wr)) {
		rd_note(f->rd, "the feeder could not post a work request");
		f->rd->res->not_fed++;
		return;
	}
	f->rd->res->fed++;
}

static void send_msg(rd_feed *f, rd_msg *m)
{
	if (m->kind == REPLAY_MSG_CLC) {
		uint8_t buf[SMCR_CLC_MAX_LEN];
		uint32_t n = rewrite(f, m, buf, sizeof(buf));
		fd_conn *c = conn_of(f, m->conn);
		if (!n || sock_tcp_send(c->s, buf, n) != (ssize_t)n) {
			rd_note(f->rd, "a CLC message of the fed side could not be sent");
			f->rd->res->not_fed++;
			return;
		}
		f->rd->res->fed++;
		if (m->data[4] == SMCR_CLC_CONFIRM || m->data[4] == SMCR_CLC_DECLINE)
			c->clc_over = true;
		return;
	}
	send_roce(f, m);
}

static bool is_dependency(const rd_msg *m)
{
	return !m->from_r && !m->second_link && m->kind != REPLAY_MSG_WRITE;
}

/* CONFIRM RKEY and DELETE RKEY: Linux answers the peer's from the remote flow while its
 * own local rkey flow runs (smc_llc_flow_initiate allows SMC_LLC_FLOW_RKEY beside a
 * remote RKEY flow). */
static bool rkey_type(uint8_t type_byte)
{
	uint8_t t = type_byte & 0x1f; /* v1 and v2 (0x2N) numbers alike */
	return t == (SMCR_LLC_CONFIRM_RKEY & 0x1f) || t == (SMCR_LLC_DELETE_RKEY & 0x1f);
}

/* Whether the fed message r waits for our message o (recorded before it). A fed LLC
 * response waits only for our request it answers (same type); a fed CONFIRM/DELETE RKEY
 * request not for our rkey messages, which run beside it (which of two such messages
 * leaves first is a matter of work-item timing); everything else waits for every message
 * of ours recorded before it (ADD/DELETE LINK and the rest run one flow at a time). */
static bool waits_for(const rd_msg *r, const rd_msg *o)
{
	if (!is_dependency(o))
		return false;
	if (r->kind != REPLAY_MSG_LLC || o->kind != REPLAY_MSG_LLC || r->len < 4 || o->len < 4)
		return true;
	bool r_resp = r->data[3] & SMCR_LLC_FLAG_RESP, o_resp = o->data[3] & SMCR_LLC_FLAG_RESP;
	if (r_resp)
		return !o_resp && r->data[0] == o->data[0];
	if (rkey_type(r->data[0]) && rkey_type(o->data[0]))
		return false;
	return true;
}

static bool ready_deps(const rd_feed *f, size_t r_idx)
{
	const redrive *rd = f->rd;
	for (size_t j = f->dep_scan; j < r_idx; j++)
		if (!rd->msgs[j].done && waits_for(&rd->msgs[r_idx], &rd->msgs[j]))
			return false;
	return true;
}

static void sent(rd_feed *f, rd_msg *m, sim_time now)
{
	send_msg(f, m);
	m->done = true;
	m->fed_at = now;
	app_recorded_poke(f->rd->app);
	f->any_sent = true;
	f->last_activity = now;
	f->blocked = false;
}

/* The fed side's next LLC message waits for one of ours that our core sends only after
 * its own LLC flow ends (a request our side makes later than Linux did): a later LLC
 * message of the fed side that is ready (an answer to what our side did send) goes
 * first, as the fed side's remote flow would have answered it, keeping the order within
 * each flow. Only across LLC messages: everything else keeps the recorded order. */
static bool send_overtaking(rd_feed *f, sim_time now)
{
	redrive *rd = f->rd;
	for (size_t j = f->next_r + 1; j < rd->n_msgs; j++) {
		rd_msg *x = &rd->msgs[j];
		if (x->done || !x->from_r)
			continue;
		if (x->kind != REPLAY_MSG_LLC)
			return false;
		bool earlier_same_flow = false;
		for (size_t k = f->next_r; k < j && !earlier_same_flow; k++) {
			const rd_msg *y = &rd->msgs[k];
			earlier_same_flow = y->from_r && !y->done && y->kind == REPLAY_MSG_LLC &&
			                    llc_same_flow(y->data, y->len, x->data, x->len);
		}
		if (earlier_same_flow || !ready_deps(f, j) || !transport_ready(f, x))
			continue;
		sent(f, x, now);
		return true;
	}
	return false;
}

static void pump_ev(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	pump(ev->ctx);
}

static void pump(rd_feed *f)
{
	redrive *rd = f->rd;
	sim_time now = now_of(f);
	while (f->next_r < rd->n_msgs) {
		rd_msg *m = &rd->msgs[f->next_r];
		if (!m->from_r || m->done) {
			f->next_r++;
			continue;
		}
		while (f->dep_scan < f->next_r &&
		       (!is_dependency(&rd->msgs[f->dep_scan]) || rd->msgs[f->dep_scan].done))
			f->dep_scan++;
		bool deps = ready_deps(f, f->next_r);
		if (!deps && m->kind == REPLAY_MSG_LLC && send_overtaking(f, now))
			continue;
		sim_time due = f->any_sent ? f->last_sent_at + (m->time_ns - f->last_sent_rec) : START_NS;
		/* a reaction: not sooner after our message it answers than recorded */
		for (size_t j = f->next_r; j > 0; j--) {
			const rd_msg *d = &rd->msgs[j - 1];
			if (!is_dependency(d))
				continue;
			if (d->done && d->seen_at && m->time_ns >= d->time_ns && d->seen_at + (m->time_ns - d->time_ns) > due)
				due = d->seen_at + (m->time_ns - d->time_ns);
			break;
		}
		bool ready = deps && now >= due && transport_ready(f, m);
		if (ready) {
			send_msg(f, m);
			m->done = true;
			m->fed_at = now;
			app_recorded_poke(rd->app);
			f->next_r++;
			f->any_sent = true;
			f->last_sent_at = now;
			f->last_sent_rec = m->time_ns;
			f->last_activity = now;
			f->blocked = false;
			continue;
		}
		/* not before it is due, and the wait for our side's messages starts only then
		 * (a recorded pause longer than --wait is not a message that failed to come) */
		if (now < due) {
			f->blocked = false;
			sim_event_schedule(world_engine(rd->w), &f->pump_ev, due);
			return;
		}
		if (!f->blocked) {
			f->blocked = true;
			f->blocked_since = now;
		}
		if (now >= f->blocked_since + rd->o.wait_ns) {
			char name[64];
			if (!deps) {
				rd_note(rd, "the fed side went on after waiting %" PRIu64 " ms for a message our side did not send",
				        rd->o.wait_ns / 1000000u);
				f->dep_scan = f->next_r;
			} else {
				rd_note(rd, "%s of the fed side (frame %" PRIu64 ") could not be sent: its connection or link "
				            "was not there",
				        rd_msg_name(m, name, sizeof(name)), m->frame);
				m->done = true;
				m->fed_at = now;
				app_recorded_poke(rd->app);
				rd->res->not_fed++;
				f->next_r++;
			}
			f->blocked = false;
			continue;
		}
		sim_event_schedule(world_engine(rd->w), &f->pump_ev, f->blocked_since + rd->o.wait_ns);
		return;
	}
}

/* ---- set-up ---- */

rd_feed *rd_feed_new(redrive *rd, stack *st, rnic *adapter, uint8_t port, char *err, size_t errlen)
{
	rd_feed *f = g_new0(rd_feed, 1);
	f->rd = rd;
	f->st = st;
	f->adapter = adapter;
	f->port = port;
	f->tp = sim_transport_new();
	f->ops = sim_transport_ops();
	f->k_steer = sim_kind("redrive.steer");
	rnic_host host = { .completion = completion, .async_event = async_event, .ctx = f };
	f->vf = rnic_activate(adapter, "redrive", &host);
	if (!f->vf) {
		snprintf(err, errlen, "no free VF on the fed side's adapter");
		rd_feed_free(f);
		return NULL;
	}
	/* GIDs: RoCE v1 on R's VLAN (untagged by default), RoCE v2 for R's address */
	uint16_t vid = 0;
	uint8_t prefix_len = 0;
	for (size_t i = 0; i < st->n_netifs; i++)
		if (st->netifs[i]->ip4 == rd->r_ip) {
			vid = st->netifs[i]->vlan_id;
			prefix_len = st->netifs[i]->ip4_prefix_len;
		}
	rnic_vf_set_vlans(f->vf, port, &vid, 1);
	rnic_vf_add_ipv4(f->vf, port, rd->r_ip, prefix_len, vid);
	rnic_vf_port_desc(f->vf, port, &f->desc);
	memcpy(f->mac, f->desc.mac, 6);
	for (uint32_t i = 0; i < f->desc.n_gids; i++) {
		const smcr_gid_entry *g = &f->desc.gids[i];
		if (g->type == SMCR_GID_ROCE_V1 && !f->has_v1) {
			memcpy(f->gid_v1, g->gid, 16);
			f->sgid_v1 = g->index;
			f->has_v1 = true;
		}
		if (g->type == SMCR_GID_ROCE_V2 && !f->has_v2) {
			memcpy(f->gid_v2, g->gid, 16);
			f->sgid_v2 = g->index;
			f->has_v2 = true;
		}
	}
	if (mr_new(f, &f->send, (size_t)SEND_SLOTS * SLOT) || mr_new(f, &f->write, WRITE_STAGE)) {
		snprintf(err, errlen, "the feeder cannot register its buffers");
		rd_feed_free(f);
		return NULL;
	}
	/* what each recorded connection is: its first O CLC message (accept order), tokens */
	for (size_t i = 0; i < rd->n_msgs; i++) {
		if (rd->msgs[i].conn >= f->n_conns)
			f->n_conns = rd->msgs[i].conn + 1;
		if (rd->msgs[i].lgr >= f->n_links)
			f->n_links = rd->msgs[i].lgr + 1;
	}
	f->conns = g_new0(fd_conn, f->n_conns ? f->n_conns : 1);
	f->links = g_new0(fd_link, f->n_links ? f->n_links : 1);
	for (size_t i = 0; i < rd->n_msgs; i++) {
		const rd_msg *m = &rd->msgs[i];
		fd_conn *c = conn_of(f, m->conn);
		if (!c || m->kind != REPLAY_MSG_CLC)
			continue;
		if (!m->from_r && !c->first_o_clc)
			c->first_o_clc = i + 1;
		smcr_clc_accept a;
		smcr_decode_err e;
		if (m->from_r && m->len > 8 && (m->data[4] == SMCR_CLC_ACCEPT || m->data[4] == SMCR_CLC_CONFIRM) &&
		    !smcr_clc_decode_accept(&a, m->data, m->len, &e)) {
			c->rec_r_token = a.rmbe_alert_token;
			c->has_r_token = true;
		}
	}
	stack_set_smc_hooks(st, &feeder_hooks, f);
	if (rd->r_ip == rd->server_ip) {
		/* listen on every port the recorded server served SMC on */
		for (size_t i = 0; i < rd->n_msgs; i++) {
			uint16_t lport = rd->msgs[i].kind == REPLAY_MSG_CLC ? rd->msgs[i].server_port : 0;
			bool have = !lport;
			for (size_t k = 0; k < f->n_listeners && !have; k++)
				have = f->listen_port[k] == lport;
			if (have || f->n_listeners == G_N_ELEMENTS(f->listeners))
				continue;
			sock_opts o;
			sock_opts_default(&o);
			o.smc = true;
			int e = 0;
			f->listeners[f->n_listeners] = sock_listen(st, &o, lport, &feeder_sock_cbs, f, &e);
			if (!f->listeners[f->n_listeners]) {
				snprintf(err, errlen, "the fed server cannot listen on port %u (error %d)", (unsigned)lport, e);
				rd_feed_free(f);
				return NULL;
			}
			f->listen_port[f->n_listeners++] = lport;
		}
	}
	sim_plug_set_tap(&rnic_port_endpoint(adapter, port)->plug, port_tap, f);
	for (size_t i = 0; i < st->n_netifs && f->n_steer < G_N_ELEMENTS(f->steer_nif); i++) {
		netif *nif = st->netifs[i];
		f->steer_nif[f->n_steer] = nif;
		f->steer_prev[f->n_steer] = nif->tap;
		f->steer_prev_ctx[f->n_steer] = nif->tap_ctx;
		f->n_steer++;
		netif_set_tap(nif, steer_tap, f);
	}
	sim_event_init(&f->pump_ev, sim_kind("redrive.pump"), 0, pump_ev, f);
	sim_event_schedule(world_engine(rd->w), &f->pump_ev, START_NS);
	return f;
}

bool rd_feed_done(const rd_feed *f)
{
	return f->next_r >= f->rd->n_msgs;
}

bool rd_feed_passed(const rd_feed *f, size_t idx)
{
	for (size_t i = f->next_r; i < idx && i < f->rd->n_msgs; i++)
		if (f->rd->msgs[i].from_r && !f->rd->msgs[i].done)
			return false;
	return true;
}

sim_time rd_feed_last_activity(const rd_feed *f) { return f->last_activity; }

void rd_feed_free(rd_feed *f)
{
	if (!f)
		return;
	if (f->rd->w)
		sim_event_cancel(world_engine(f->rd->w), &f->pump_ev);
	for (size_t i = 0; i < f->n_steer; i++)
		if (f->steer_nif[i]->tap == steer_tap)
			netif_set_tap(f->steer_nif[i], f->steer_prev[i], f->steer_prev_ctx[i]);
	if (f->adapter)
		sim_plug_set_tap(&rnic_port_endpoint(f->adapter, f->port)->plug, NULL, NULL);
	/* connections still open: the fed client's are closed as its application would be
	 * (with a reset), accepted ones released by the feeder as their SMC layer */
	for (size_t i = 0; i < f->n_conns; i++) {
		sock *s = f->conns[i].s;
		if (!s)
			continue;
		f->conns[i].s = NULL;
		if (f->conns[i].assigned)
			sock_release(s, true);
		else
			sock_abort(s);
	}
	if (f->st)
		stack_set_smc_hooks(f->st, NULL, NULL);
	if (f->vf) {
		for (size_t i = 0; i < f->n_links; i++) {
			if (f->links[i].qp)
				f->ops->destroy_qp(f->tp, f->links[i].qp);
			if (f->links[i].recv) {
				mr_free(f, f->links[i].recv);
				g_free(f->links[i].recv);
			}
		}
		if (f->spare.qp)
			f->ops->destroy_qp(f->tp, f->spare.qp);
		if (f->spare.recv) {
			mr_free(f, f->spare.recv);
			g_free(f->spare.recv);
		}
		for (size_t i = 0; i < f->n_rmbs; i++)
			mr_free(f, &f->rmbs[i]);
		mr_free(f, &f->send);
		mr_free(f, &f->write);
		rnic_deactivate(f->vf);
	}
	for (size_t i = 0; i < f->n_listeners; i++)
		sock_close(f->listeners[i]);
	sim_transport_free(f->tp);
	g_free(f->rmbs);
	g_free(f->links);
	g_free(f->conns);
	g_free(f);
}
