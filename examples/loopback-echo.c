/* loopback-echo: two SMC-R cores of libsmcr-model in one process, over a tiny in-memory
 * RDMA transport of this file's own, with the CLC handshake carried by an in-memory
 * "TCP" byte queue. The client connects, sends a few bytes; the server echoes them; the
 * client checks them; both close. It is what a test harness or a fuzzer of another SMC-R
 * stack starts from: the core needs nothing but its transport ops, its callbacks and the
 * time, given as an argument.
 *
 *   cc loopback-echo.c $(pkg-config --cflags --libs smcr-model) -o loopback-echo
 *   ./loopback-echo          # exit 0 when the echo came back intact over SMC-R
 *
 * The transport is deliberately small: RC QPs with in-order delivery, SENDs into posted
 * receives, RDMA WRITEs into registered memory looked up by rkey, signalled completions,
 * flushes when a QP goes to ERR. Work is queued and executed by the main loop, never
 * inside a call of the core, as a real RNIC completes it later. */
#include <smcr/smcr.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MRS 256
#define MAX_QPS 32
#define RQ_DEPTH 128
#define MAX_OPS 4096

typedef struct node node;

typedef struct ex_mr {
	node *owner;
	uint8_t *addr;
	size_t len;
	uint32_t lkey, rkey;
	bool used;
} ex_mr;

typedef struct ex_qp {
	node *owner;
	uint32_t qpn, dest_qpn;
	smcr_qp_state state;
	void *qp_ctx;
	smcr_recv_wr rq[RQ_DEPTH];
	unsigned rq_head, rq_n;
	bool used;
} ex_qp;

typedef enum op_kind { OP_SEND_WR,
	               OP_WC } op_kind;

/* One unit of deferred work: a posted send WR to execute, or a completion to deliver. */
typedef struct ex_op {
	op_kind kind;
	uint32_t qpn; /* the QP it belongs to (skipped once the QP is destroyed) */
	smcr_send_wr wr;
	uint8_t *data; /* the payload, gathered at post time */
	uint32_t len;
	smcr_wc wc; /* OP_WC */
} ex_op;

typedef struct fabric {
	ex_mr mrs[MAX_MRS];
	ex_qp qps[MAX_QPS];
	ex_op ops[MAX_OPS];
	size_t op_head, op_n;
	uint32_t next_key;
} fabric;

/* The "TCP" stream of one direction of one connection. */
typedef struct stream {
	uint8_t buf[65536];
	size_t len;
} stream;

struct node {
	const char *name;
	fabric *fab;
	smcr_ctx *ctx;
	smcr_conn *conn;
	node *peer;
	stream to_peer;
	uint64_t rng;
	bool established, fell_back, peer_closed, freed, aborted;
	uint8_t rx[256];
	size_t rx_len;
};

static uint64_t now_ns; /* the virtual clock: the core is told the time, it never reads one */

/* ---- the transport ---------------------------------------------------------------- */

static ex_qp *qp_by_num(fabric *f, uint32_t qpn)
{
	for (int i = 0; i < MAX_QPS; i++)
		if (f->qps[i].used && f->qps[i].qpn == qpn)
			return &f->qps[i];
	return NULL;
}

static int queue_op(fabric *f, const ex_op *op)
{
	if (f->op_n == MAX_OPS)
		return SMCR_ERR_AGAIN;
	f->ops[(f->op_head + f->op_n++) % MAX_OPS] = *op;
	return 0;
}

static void queue_wc(ex_qp *q, uint64_t wr_id, smcr_wc_status st, smcr_wc_opcode opc, uint32_t len)
{
	ex_op op = { .kind = OP_WC, .qpn = q->qpn };
	op.wc = (smcr_wc){ .wr_id = wr_id, .qp_ctx = q->qp_ctx, .status = st, .opcode = opc, .byte_len = len, .qp_num = q->qpn };
	queue_op(q->owner->fab, &op);
}

static smcr_tp_mr *tp_reg_mr(void *tp, smcr_tp_dev *dev, void *addr, size_t len, uint32_t access, smcr_mr_info *out)
{
	fabric *f = tp;
	(void)access;
	for (int i = 0; i < MAX_MRS; i++) {
		ex_mr *m = &f->mrs[i];
		if (m->used)
			continue;
		*m = (ex_mr){ .owner = (node *)dev, .addr = addr, .len = len, .lkey = ++f->next_key, .rkey = ++f->next_key, .used = true };
		*out = (smcr_mr_info){ .lkey = m->lkey, .rkey = m->rkey, .iova = (uint64_t)(uintptr_t)addr };
		return (smcr_tp_mr *)m;
	}
	return NULL;
}

static void tp_dereg_mr(void *tp, smcr_tp_mr *mr)
{
	(void)tp;
	((ex_mr *)mr)->used = false;
}

static smcr_tp_qp *tp_create_qp(void *tp, smcr_tp_dev *dev, uint8_t port, const smcr_qp_caps *caps, void *qp_ctx,
                                uint32_t *qpn_out)
{
	fabric *f = tp;
	(void)port;
	(void)caps;
	for (int i = 0; i < MAX_QPS; i++) {
		ex_qp *q = &f->qps[i];
		if (q->used)
			continue;
		*q = (ex_qp){ .owner = (node *)dev, .qpn = ++f->next_key & 0xffffff, .state = SMCR_QPS_RESET, .qp_ctx = qp_ctx, .used = true };
		*qpn_out = q->qpn;
		return (smcr_tp_qp *)q;
	}
	return NULL;
}

/* A QP in ERR completes every outstanding receive with a flush error. */
static void flush_rq(ex_qp *q)
{
	while (q->rq_n) {
		queue_wc(q, q->rq[q->rq_head].wr_id, SMCR_WC_WR_FLUSH_ERR, SMCR_WC_RECV, 0);
		q->rq_head = (q->rq_head + 1) % RQ_DEPTH;
		q->rq_n--;
	}
}

static int tp_modify_qp(void *tp, smcr_tp_qp *qp, const smcr_qp_attr *attr)
{
	(void)tp;
	ex_qp *q = (ex_qp *)qp;
	if (attr->state == SMCR_QPS_RTR)
		q->dest_qpn = attr->dest_qpn;
	q->state = attr->state;
	if (q->state == SMCR_QPS_ERR)
		flush_rq(q);
	return 0;
}

static smcr_qp_state tp_query_qp_state(void *tp, smcr_tp_qp *qp)
{
	(void)tp;
	return ((ex_qp *)qp)->state;
}

static void tp_destroy_qp(void *tp, smcr_tp_qp *qp)
{
	fabric *f = tp;
	ex_qp *q = (ex_qp *)qp;
	for (size_t i = 0; i < f->op_n; i++) { /* nothing of it is delivered any more */
		ex_op *op = &f->ops[(f->op_head + i) % MAX_OPS];
		if (op->qpn == q->qpn) {
			op->qpn = 0;
			free(op->data);
			op->data = NULL;
		}
	}
	q->used = false;
}

static int tp_post_send(void *tp, smcr_tp_qp *qp, const smcr_send_wr *wr)
{
	ex_qp *q = (ex_qp *)qp;
	if (q->state != SMCR_QPS_RTS)
		return SMCR_ERR_STATE;
	ex_op op = { .kind = OP_SEND_WR, .qpn = q->qpn, .wr = *wr };
	for (uint32_t i = 0; i < wr->num_sge; i++)
		op.len += wr->sg_list[i].length;
	op.data = malloc(op.len ? op.len : 1);
	if (!op.data)
		return SMCR_ERR_NOMEM;
	uint32_t at = 0;
	for (uint32_t i = 0; i < wr->num_sge; i++) {
		memcpy(op.data + at, wr->sg_list[i].addr, wr->sg_list[i].length);
		at += wr->sg_list[i].length;
	}
	int rc = queue_op(tp, &op);
	if (rc)
		free(op.data);
	return rc;
}

static int tp_post_recv(void *tp, smcr_tp_qp *qp, const smcr_recv_wr *wr)
{
	(void)tp;
	ex_qp *q = (ex_qp *)qp;
	if (q->rq_n == RQ_DEPTH)
		return SMCR_ERR_AGAIN;
	q->rq[(q->rq_head + q->rq_n++) % RQ_DEPTH] = *wr;
	if (q->state == SMCR_QPS_ERR)
		flush_rq(q);
	return 0;
}

static const smcr_transport_ops ops = {
	.reg_mr = tp_reg_mr,
	.dereg_mr = tp_dereg_mr,
	.create_qp = tp_create_qp,
	.modify_qp = tp_modify_qp,
	.query_qp_state = tp_query_qp_state,
	.destroy_qp = tp_destroy_qp,
	.post_send = tp_post_send,
	.post_recv = tp_post_recv,
};

/* Execute one posted send at its destination. false: the destination has no receive
 * posted yet (RNR), so the work stays queued, in order. */
static bool execute(fabric *f, ex_qp *q, ex_op *op)
{
	ex_qp *d = qp_by_num(f, q->dest_qpn);
	smcr_wc_opcode opc = op->wr.opcode == SMCR_WR_SEND ? SMCR_WC_SEND : SMCR_WC_RDMA_WRITE;
	if (!d || (d->state != SMCR_QPS_RTR && d->state != SMCR_QPS_RTS)) {
		queue_wc(q, op->wr.wr_id, SMCR_WC_RETRY_EXC_ERR, opc, 0);
		return true;
	}
	if (op->wr.opcode == SMCR_WR_SEND) {
		if (!d->rq_n)
			return false;
		smcr_recv_wr *r = &d->rq[d->rq_head];
		uint32_t n = op->len < r->sg_list[0].length ? op->len : r->sg_list[0].length;
		memcpy(r->sg_list[0].addr, op->data, n);
		queue_wc(d, r->wr_id, SMCR_WC_SUCCESS, SMCR_WC_RECV, n);
		d->rq_head = (d->rq_head + 1) % RQ_DEPTH;
		d->rq_n--;
	} else {
		ex_mr *m = NULL;
		for (int i = 0; i < MAX_MRS && !m; i++)
			if (f->mrs[i].used && f->mrs[i].owner == d->owner && f->mrs[i].rkey == op->wr.rkey)
				m = &f->mrs[i];
		uint64_t base = m ? (uint64_t)(uintptr_t)m->addr : 0;
		if (!m || op->wr.remote_addr < base || op->wr.remote_addr - base + op->len > m->len) {
			queue_wc(q, op->wr.wr_id, SMCR_WC_REM_ACCESS_ERR, opc, 0);
			return true;
		}
		memcpy(m->addr + (op->wr.remote_addr - base), op->data, op->len);
	}
	if (op->wr.send_flags & SMCR_SEND_SIGNALED)
		queue_wc(q, op->wr.wr_id, SMCR_WC_SUCCESS, opc, 0);
	return true;
}

/* Run the queued work, in order, until nothing can go on; whether anything ran. */
static bool run_fabric(fabric *f)
{
	bool any = false;
	while (f->op_n) {
		ex_op op = f->ops[f->op_head];
		ex_qp *q = op.qpn ? qp_by_num(f, op.qpn) : NULL;
		if (q && op.kind == OP_SEND_WR && !execute(f, q, &op))
			break;
		f->op_head = (f->op_head + 1) % MAX_OPS;
		f->op_n--;
		any = true;
		now_ns += 1000; /* a microsecond per operation */
		if (q && op.kind == OP_WC)
			smcr_ctx_on_completion(q->owner->ctx, &op.wc, now_ns);
		free(op.data);
	}
	return any;
}

/* ---- the callbacks ---------------------------------------------------------------- */

static void cb_rand(void *user, uint8_t *dst, size_t len)
{
	node *n = user; /* xorshift64: seeded, so every run is the same */
	for (size_t i = 0; i < len; i++) {
		n->rng ^= n->rng << 13;
		n->rng ^= n->rng >> 7;
		n->rng ^= n->rng << 17;
		dst[i] = (uint8_t)n->rng;
	}
}

static int cb_clc_send(void *user, smcr_conn *conn, const uint8_t *buf, size_t len)
{
	node *n = user;
	(void)conn;
	if (n->to_peer.len + len > sizeof(n->to_peer.buf))
		return -1;
	memcpy(n->to_peer.buf + n->to_peer.len, buf, len);
	n->to_peer.len += len;
	return 0;
}

static void cb_established(void *user, smcr_conn *conn)
{
	(void)conn;
	((node *)user)->established = true;
}

static void cb_fallback(void *user, smcr_conn *conn, uint32_t reason, uint32_t diag, const uint8_t *d, size_t l)
{
	node *n = user;
	(void)conn, (void)d, (void)l;
	n->fell_back = true;
	fprintf(stderr, "%s: fell back to TCP, reason 0x%08x (peer 0x%08x)\n", n->name, reason, diag);
}

static void cb_readable(void *user, smcr_conn *conn)
{
	node *n = user;
	ssize_t got;
	while (n->rx_len < sizeof(n->rx) &&
	       (got = smcr_conn_recv(conn, n->rx + n->rx_len, sizeof(n->rx) - n->rx_len, 0, now_ns)) > 0)
		n->rx_len += (size_t)got;
}

static void cb_writable(void *user, smcr_conn *conn) { (void)user, (void)conn; }
static void cb_peer_closed(void *user, smcr_conn *conn)
{
	(void)conn;
	((node *)user)->peer_closed = true;
}
static void cb_tcp_control(void *user, smcr_conn *conn, smcr_tcp_action act) { (void)user, (void)conn, (void)act; }
static void cb_aborted(void *user, smcr_conn *conn, int err)
{
	node *n = user;
	(void)conn;
	n->aborted = true;
	fprintf(stderr, "%s: connection aborted: %s\n", n->name, smcr_strerror(err));
}
static void cb_conn_freed(void *user, smcr_conn *conn)
{
	node *n = user;
	(void)conn;
	n->freed = true;
	n->conn = NULL;
}

static void cb_event(void *user, const smcr_event *ev)
{
	node *n = user;
	if (ev->type == SMCR_EV_LINK_ADDED)
		printf("%s: SMC-R link %u up, QP %06x -> %06x\n", n->name, ev->link->link_id, ev->link->local_qpn,
		       ev->link->peer_qpn);
}

static const smcr_callbacks callbacks = {
	.rand = cb_rand,
	.clc_send = cb_clc_send,
	.established = cb_established,
	.fallback = cb_fallback,
	.readable = cb_readable,
	.writable = cb_writable,
	.peer_closed = cb_peer_closed,
	.tcp_control = cb_tcp_control,
	.aborted = cb_aborted,
	.conn_freed = cb_conn_freed,
	.event = cb_event,
};

/* ---- the two hosts ---------------------------------------------------------------- */

static int host_init(node *n, fabric *f, const char *name, uint8_t id)
{
	smcr_settings s;
	smcr_settings_default(&s);
	s.v2 = false; /* SMC-Rv1: v2 would need a common UEID */
	n->name = name;
	n->fab = f;
	n->rng = 0x9e3779b97f4a7c15ull * id;
	int rc = smcr_ctx_new(&n->ctx, &s, &callbacks, n, &ops, f, NULL, now_ns);
	if (rc)
		return rc;
	smcr_port_desc p = { .dev = (smcr_tp_dev *)n, .port = 1, .pfid = id, .active_mtu = SMCR_MTU_1024, .state = SMCR_PORT_ACTIVE, .n_gids = 1 };
	snprintf(p.name, sizeof(p.name), "mem%u", id);
	snprintf(p.pnet_id, sizeof(p.pnet_id), "EXAMPLE");
	const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, id };
	memcpy(p.mac, mac, 6);
	/* a RoCE v1 GID: fe80::<EUI-64 of the MAC> */
	uint8_t gid[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0, 0, 0xff, 0xfe, 0, 0, id };
	memcpy(p.gids[0].gid, gid, 16);
	p.gids[0].type = SMCR_GID_ROCE_V1;
	rc = smcr_ctx_add_port(n->ctx, &p, now_ns);
	return rc < 0 ? rc : 0;
}

static void tcp_info(smcr_tcp_info *t, uint32_t local, uint32_t peer)
{
	memset(t, 0, sizeof(*t));
	t->peer_smc = true; /* both SYNs carried the SMC option */
	t->family = 4;
	t->local_ipv4 = local;
	t->peer_ipv4 = peer;
	snprintf(t->pnet_id, sizeof(t->pnet_id), "EXAMPLE");
	t->netdev_port = 0;
	t->n_ipv4 = 1;
	t->ipv4[0].addr = local;
	t->ipv4[0].prefix_len = 24;
}

/* The in-memory TCP: hand each side what the other wrote. */
static bool run_tcp(node *a)
{
	if (!a->to_peer.len || !a->peer->conn)
		return false;
	size_t n = a->to_peer.len;
	uint8_t seg[sizeof(a->to_peer.buf)];
	memcpy(seg, a->to_peer.buf, n);
	a->to_peer.len = 0;
	now_ns += 10000;
	smcr_conn_clc_input(a->peer->conn, seg, n, now_ns);
	return true;
}

/* Run until done() or nothing is left before the deadline; timers fire as they fall due. */
static bool run_until(node *h, bool (*done)(node *), uint64_t deadline)
{
	while (!done(h)) {
		bool any = run_fabric(h->fab);
		any |= run_tcp(&h[0]);
		any |= run_tcp(&h[1]);
		if (any)
			continue;
		uint64_t t0 = smcr_ctx_next_expiry(h[0].ctx), t1 = smcr_ctx_next_expiry(h[1].ctx);
		uint64_t t = t0 < t1 ? t0 : t1;
		if (t == SMCR_NEVER || t > deadline)
			return done(h);
		if (t > now_ns)
			now_ns = t;
		smcr_ctx_handle_expiry(h[0].ctx, now_ns);
		smcr_ctx_handle_expiry(h[1].ctx, now_ns);
	}
	return true;
}

static bool both_established(node *h) { return (h[0].established && h[1].established) || h[0].fell_back || h[1].fell_back; }
static bool server_has_it(node *h) { return h[1].rx_len >= h[0].rx_len + sizeof("hello over SMC-R") - 1 || h[1].aborted; }
static bool echo_back(node *h) { return h[0].rx_len >= sizeof("hello over SMC-R") - 1 || h[0].aborted; }
static bool both_freed(node *h) { return h[0].freed && h[1].freed; }

int main(void)
{
	static fabric fab;
	static node h[2];
	if (host_init(&h[0], &fab, "client", 1) || host_init(&h[1], &fab, "server", 2)) {
		fprintf(stderr, "loopback-echo: cannot create the cores\n");
		return 2;
	}
	h[0].peer = &h[1];
	h[1].peer = &h[0];
	smcr_tcp_info ci, si;
	tcp_info(&ci, 0x0a000001, 0x0a000002); /* 10.0.0.1 -> 10.0.0.2 */
	tcp_info(&si, 0x0a000002, 0x0a000001);
	if (smcr_conn_accept(h[1].ctx, &si, &h[1], now_ns, &h[1].conn) ||
	    smcr_conn_connect(h[0].ctx, &ci, &h[0], now_ns, &h[0].conn)) {
		fprintf(stderr, "loopback-echo: cannot start the connection\n");
		return 2;
	}
	int rc = 1;
	static const char msg[] = "hello over SMC-R";
	if (!run_until(h, both_established, 10 * SMCR_S) || h[0].fell_back || h[1].fell_back) {
		fprintf(stderr, "loopback-echo: no SMC-R connection\n");
		goto out;
	}
	printf("connection established over SMC-R on both sides\n");
	smcr_conn_send(h[0].conn, (const uint8_t *)msg, sizeof(msg) - 1, 0, now_ns);
	if (!run_until(h, server_has_it, 10 * SMCR_S) || h[1].rx_len != sizeof(msg) - 1) {
		fprintf(stderr, "loopback-echo: the server got %zu of %zu bytes\n", h[1].rx_len, sizeof(msg) - 1);
		goto out;
	}
	printf("server received %zu bytes: \"%.*s\"; echoing them\n", h[1].rx_len, (int)h[1].rx_len, (char *)h[1].rx);
	smcr_conn_send(h[1].conn, h[1].rx, h[1].rx_len, 0, now_ns);
	if (!run_until(h, echo_back, 10 * SMCR_S) || h[0].rx_len != sizeof(msg) - 1 || memcmp(h[0].rx, msg, h[0].rx_len)) {
		fprintf(stderr, "loopback-echo: the echo did not come back intact (%zu bytes)\n", h[0].rx_len);
		goto out;
	}
	printf("client got its %zu bytes back intact\n", h[0].rx_len);
	smcr_conn_close(h[0].conn, now_ns);
	smcr_conn_close(h[1].conn, now_ns);
	if (!run_until(h, both_freed, now_ns + 10 * SMCR_S)) {
		fprintf(stderr, "loopback-echo: the connections did not close\n");
		goto out;
	}
	smcr_stats st;
	smcr_ctx_get_stats(h[0].ctx, &st);
	printf("closed; client sent %llu and received %llu bytes over SMC-R, %.3f ms of virtual time\n",
	       (unsigned long long)st.tx_bytes, (unsigned long long)st.rx_bytes, (double)now_ns / 1e6);
	rc = 0;
out:
	smcr_ctx_free(h[0].ctx);
	smcr_ctx_free(h[1].ctx);
	while (fab.op_n) { /* what was still queued when the cores went away */
		free(fab.ops[fab.op_head].data);
		fab.op_head = (fab.op_head + 1) % MAX_OPS;
		fab.op_n--;
	}
	return rc;
}
