/* The ideal in-memory RC transport (see loopback_transport.h). */
#include "sim/rdma/loopback_transport.h"

#include <stdlib.h>
#include <string.h>

#define MAX_MRS 4096
#define MAX_QPS 1024
#define MAX_DEVS 16
#define IOVA_BASE 0x0000100000000000ull
#define IOVA_STRIDE 0x0000000100000000ull
#define KEY_BASE 0x100u
#define RNR_RETRY_NS 20000u

struct smcr_tp_dev {
	loopback *lb;
	char name[32];
	loopback_wc_sink wc;
	loopback_async_sink async;
	void *owner;
	bool down;
};

struct smcr_tp_mr {
	int idx;
};

typedef struct mr_ent {
	bool live;
	smcr_tp_dev *dev;
	uint8_t *addr;
	size_t len;
	uint32_t access;
	smcr_mr_info info;
	struct smcr_tp_mr handle;
} mr_ent;

/* A posted send WR. A SEND's bytes are taken at posting (LLC and CDC messages are small);
 * an RDMA WRITE's are read from its source at delivery, as an RNIC reads them, so the
 * payload is copied once, into the peer's region. */
typedef struct pend_wr {
	struct pend_wr *next;
	smcr_send_wr wr;
	uint8_t *data;
	uint32_t len;
	uint64_t due;
} pend_wr;

struct smcr_tp_qp {
	int idx;
};

typedef struct qp_ent {
	bool live;
	uint32_t qpn;
	uint32_t gen; /* bumped on reset, error and destroy: queued deliveries go stale */
	smcr_tp_dev *dev;
	void *qp_ctx;
	smcr_qp_state state;
	uint32_t dest_qpn;
	uint32_t max_recv;
	smcr_recv_wr *rq;
	uint32_t rq_head, rq_len;
	pend_wr *sq_head, *sq_tail;
	uint64_t next_tx;
	uint32_t drop_sends;
	struct smcr_tp_qp handle;
} qp_ent;

/* A completion on its way to the device's sink, as an engine event. */
typedef struct wc_ev {
	struct wc_ev *prev, *next; /* outstanding, freed with the loopback */
	smcr_tp_dev *dev;
	smcr_wc wc;
} wc_ev;

struct loopback {
	sim_engine *eng;
	uint64_t latency, ns_per_kib, retry_time;
	uint32_t kind_deliver, kind_wc;
	mr_ent mrs[MAX_MRS];
	int n_mrs;
	qp_ent qps[MAX_QPS];
	int n_qps;
	smcr_tp_dev devs[MAX_DEVS];
	int n_devs;
	loopback_send_observer obs;
	void *obs_arg;
	wc_ev *wcs;
	uint8_t drop_type;
	uint32_t drop_type_n;
	loopback_stats st;
};

loopback *loopback_new(sim_engine *eng)
{
	loopback *lb = calloc(1, sizeof(*lb));
	lb->eng = eng;
	lb->latency = 2000;
	lb->ns_per_kib = 80;
	lb->retry_time = 100 * 1000 * 1000ull;
	lb->kind_deliver = sim_kind("loopback.deliver");
	lb->kind_wc = sim_kind("loopback.wc");
	return lb;
}

static void free_sq(qp_ent *q)
{
	while (q->sq_head) {
		pend_wr *p = q->sq_head;
		q->sq_head = p->next;
		free(p->data);
		free(p);
	}
	q->sq_tail = NULL;
}

void loopback_free(loopback *lb)
{
	while (lb->wcs) {
		wc_ev *w = lb->wcs;
		lb->wcs = w->next;
		free(w);
	}
	for (int i = 0; i < lb->n_qps; i++) {
		free_sq(&lb->qps[i]);
		free(lb->qps[i].rq);
	}
	free(lb);
}

void loopback_set_latency(loopback *lb, uint64_t ns) { lb->latency = ns; }
void loopback_set_ns_per_kib(loopback *lb, uint64_t ns) { lb->ns_per_kib = ns; }
void loopback_set_retry_time(loopback *lb, uint64_t ns) { lb->retry_time = ns; }
void loopback_dev_set_down(loopback *lb, smcr_tp_dev *dev, bool down)
{
	(void)lb;
	dev->down = down;
}
void loopback_set_observer(loopback *lb, loopback_send_observer fn, void *arg)
{
	lb->obs = fn;
	lb->obs_arg = arg;
}
void loopback_get_stats(const loopback *lb, loopback_stats *out) { *out = lb->st; }

smcr_tp_dev *loopback_dev_new(loopback *lb, const char *name, loopback_wc_sink wc, loopback_async_sink async,
                              void *owner)
{
	if (lb->n_devs >= MAX_DEVS)
		return NULL;
	smcr_tp_dev *d = &lb->devs[lb->n_devs++];
	d->lb = lb;
	strncpy(d->name, name, sizeof(d->name) - 1);
	d->wc = wc;
	d->async = async;
	d->owner = owner;
	return d;
}

/* Completions ------------------------------------------------------------------------ */

static void wc_unlink(loopback *lb, wc_ev *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		lb->wcs = w->next;
	if (w->next)
		w->next->prev = w->prev;
}

static void wc_fire(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	wc_ev *w = ev->ctx;
	wc_unlink(w->dev->lb, w);
	smcr_wc wc = w->wc;
	smcr_tp_dev *dev = w->dev;
	free(w);
	dev->wc(dev->owner, &wc);
}

static void post_wc(loopback *lb, qp_ent *q, uint64_t wr_id, smcr_wc_status st, smcr_wc_opcode op,
                    uint32_t byte_len, uint64_t at)
{
	wc_ev *w = calloc(1, sizeof(*w));
	w->next = lb->wcs;
	if (lb->wcs)
		lb->wcs->prev = w;
	lb->wcs = w;
	w->dev = q->dev;
	w->wc.wr_id = wr_id;
	w->wc.qp_ctx = q->qp_ctx;
	w->wc.status = st;
	w->wc.opcode = op;
	w->wc.byte_len = byte_len;
	w->wc.qp_num = q->qpn;
	w->wc.solicited = op == SMCR_WC_RECV;
	if (st != SMCR_WC_SUCCESS)
		lb->st.errors++;
	sim_post(lb->eng, at, lb->kind_wc, q->qpn, wc_fire, w, 0);
}

static smcr_wc_opcode send_wc_opcode(const smcr_send_wr *wr)
{
	return wr->opcode == SMCR_WR_SEND ? SMCR_WC_SEND : SMCR_WC_RDMA_WRITE;
}

static qp_ent *qp_by_qpn(loopback *lb, uint32_t qpn)
{
	for (int i = 0; i < lb->n_qps; i++)
		if (lb->qps[i].live && lb->qps[i].qpn == qpn)
			return &lb->qps[i];
	return NULL;
}

/* QP to ERR: every outstanding WR completes with a flush error. */
static void qp_to_err(loopback *lb, qp_ent *q, uint64_t at)
{
	q->state = SMCR_QPS_ERR;
	q->gen++;
	while (q->sq_head) {
		pend_wr *p = q->sq_head;
		q->sq_head = p->next;
		post_wc(lb, q, p->wr.wr_id, SMCR_WC_WR_FLUSH_ERR, send_wc_opcode(&p->wr), 0, at);
		free(p->data);
		free(p);
	}
	q->sq_tail = NULL;
	while (q->rq_len) {
		smcr_recv_wr *r = &q->rq[q->rq_head];
		q->rq_head = (q->rq_head + 1) % q->max_recv;
		q->rq_len--;
		post_wc(lb, q, r->wr_id, SMCR_WC_WR_FLUSH_ERR, SMCR_WC_RECV, 0, at);
	}
}

/* Memory regions --------------------------------------------------------------------- */

static smcr_tp_mr *t_reg_mr(void *tp, smcr_tp_dev *dev, void *addr, size_t len, uint32_t access,
                            smcr_mr_info *out)
{
	loopback *lb = tp;
	int i;
	for (i = 0; i < lb->n_mrs; i++)
		if (!lb->mrs[i].live)
			break;
	if (i == lb->n_mrs) {
		if (lb->n_mrs >= MAX_MRS)
			return NULL;
		lb->n_mrs++;
	}
	mr_ent *m = &lb->mrs[i];
	memset(m, 0, sizeof(*m));
	m->live = true;
	m->dev = dev;
	m->addr = addr;
	m->len = len;
	m->access = access;
	m->info.lkey = KEY_BASE + (uint32_t)i * 4u;
	m->info.rkey = KEY_BASE + (uint32_t)i * 4u + 1u;
	m->info.iova = IOVA_BASE + IOVA_STRIDE * (uint64_t)i;
	m->handle.idx = i;
	*out = m->info;
	lb->st.mrs_live++;
	return &m->handle;
}

static void t_dereg_mr(void *tp, smcr_tp_mr *mr)
{
	loopback *lb = tp;
	if (!mr || !lb->mrs[mr->idx].live)
		return;
	lb->mrs[mr->idx].live = false;
	lb->st.mrs_live--;
}

/* Keys: lkey = KEY_BASE + 4 i, rkey = lkey + 1, for the i-th region. */
static mr_ent *mr_by_key(loopback *lb, uint32_t key, uint32_t remote)
{
	if (key < KEY_BASE + remote || (key - KEY_BASE - remote) % 4)
		return NULL;
	uint32_t i = (key - KEY_BASE - remote) / 4;
	return i < (uint32_t)lb->n_mrs && lb->mrs[i].live ? &lb->mrs[i] : NULL;
}

static bool sge_ok(loopback *lb, smcr_tp_dev *dev, const smcr_sge *s)
{
	mr_ent *m = mr_by_key(lb, s->lkey, 0);
	if (!m || m->dev != dev)
		return false;
	const uint8_t *a = s->addr;
	return a >= m->addr && (size_t)(a - m->addr) <= m->len && s->length <= m->len - (size_t)(a - m->addr);
}

/* Queue pairs ------------------------------------------------------------------------ */

static smcr_tp_qp *t_create_qp(void *tp, smcr_tp_dev *dev, uint8_t port, const smcr_qp_caps *caps,
                               void *qp_ctx, uint32_t *qpn_out)
{
	loopback *lb = tp;
	(void)port;
	if (lb->n_qps >= MAX_QPS)
		return NULL;
	qp_ent *q = &lb->qps[lb->n_qps];
	memset(q, 0, sizeof(*q));
	q->live = true;
	q->qpn = 0x100u + (uint32_t)lb->n_qps * 7u;
	q->dev = dev;
	q->qp_ctx = qp_ctx;
	q->state = SMCR_QPS_RESET;
	q->max_recv = caps->max_recv_wr ? caps->max_recv_wr : 1;
	q->rq = calloc(q->max_recv, sizeof(*q->rq));
	q->handle.idx = lb->n_qps;
	lb->n_qps++;
	lb->st.qps_live++;
	*qpn_out = q->qpn;
	return &q->handle;
}

/* The state the QP must be in before moving to `to` (RESET and ERR: any). */
static bool transition_ok(smcr_qp_state from, smcr_qp_state to)
{
	switch (to) {
	case SMCR_QPS_INIT: return from == SMCR_QPS_RESET;
	case SMCR_QPS_RTR: return from == SMCR_QPS_INIT;
	case SMCR_QPS_RTS: return from == SMCR_QPS_RTR;
	case SMCR_QPS_RESET:
	case SMCR_QPS_ERR: return true;
	}
	return false;
}

static int t_modify_qp(void *tp, smcr_tp_qp *h, const smcr_qp_attr *a)
{
	loopback *lb = tp;
	qp_ent *q = &lb->qps[h->idx];
	if (!q->live || !transition_ok(q->state, a->state))
		return -1;
	if (a->state == SMCR_QPS_ERR) {
		qp_to_err(lb, q, sim_now(lb->eng));
		return 0;
	}
	if (a->state == SMCR_QPS_RESET) {
		q->gen++;
		free_sq(q);
		q->rq_head = q->rq_len = 0;
	}
	if (a->state == SMCR_QPS_RTR)
		q->dest_qpn = a->dest_qpn;
	q->state = a->state;
	return 0;
}

static smcr_qp_state t_query_qp_state(void *tp, smcr_tp_qp *h)
{
	loopback *lb = tp;
	return lb->qps[h->idx].state;
}

static void t_destroy_qp(void *tp, smcr_tp_qp *h)
{
	loopback *lb = tp;
	qp_ent *q = &lb->qps[h->idx];
	if (!q->live)
		return;
	q->gen++;
	free_sq(q);
	free(q->rq);
	q->rq = NULL;
	q->live = false;
	lb->st.qps_live--;
}

/* Posting ---------------------------------------------------------------------------- */

static void deliver(sim_engine *eng, sim_event *ev);

/* The delivery event of the QP's first WR, tagged with the QP's generation. */
static void schedule_head(loopback *lb, qp_ent *q)
{
	if (!q->sq_head)
		return;
	sim_post(lb->eng, q->sq_head->due, lb->kind_deliver, q->qpn, deliver, lb,
	         ((uint64_t)(uint32_t)(q - lb->qps) << 32) | q->gen);
}

static pend_wr *pend_new(const smcr_send_wr *wr, uint32_t len)
{
	pend_wr *p = calloc(1, sizeof(*p));
	p->wr = *wr;
	p->len = len;
	if (wr->opcode == SMCR_WR_RDMA_WRITE)
		return p;
	p->data = malloc(len ? len : 1);
	uint32_t off = 0;
	for (uint32_t i = 0; i < wr->num_sge; i++) {
		memcpy(p->data + off, wr->sg_list[i].addr, wr->sg_list[i].length);
		off += wr->sg_list[i].length;
	}
	return p;
}

static void sq_append(qp_ent *q, pend_wr *p)
{
	if (q->sq_tail)
		q->sq_tail->next = p;
	else
		q->sq_head = p;
	q->sq_tail = p;
}

static int t_post_send(void *tp, smcr_tp_qp *h, const smcr_send_wr *wr)
{
	loopback *lb = tp;
	qp_ent *q = &lb->qps[h->idx];
	if (!q->live || q->state != SMCR_QPS_RTS || wr->num_sge < 1 || wr->num_sge > SMCR_MAX_SGE)
		return -1;
	uint32_t len = 0;
	for (uint32_t i = 0; i < wr->num_sge; i++) {
		if (!sge_ok(lb, q->dev, &wr->sg_list[i]))
			return -1;
		len += wr->sg_list[i].length;
	}
	pend_wr *p = pend_new(wr, len);
	uint64_t now = sim_now(lb->eng);
	uint64_t start = q->next_tx > now ? q->next_tx : now;
	p->due = start + lb->latency + (uint64_t)len * lb->ns_per_kib / 1024;
	q->next_tx = p->due;
	bool was_empty = !q->sq_head;
	sq_append(q, p);
	if (was_empty)
		schedule_head(lb, q);
	return 0;
}

static int t_post_recv(void *tp, smcr_tp_qp *h, const smcr_recv_wr *wr)
{
	loopback *lb = tp;
	qp_ent *q = &lb->qps[h->idx];
	if (!q->live || q->state == SMCR_QPS_RESET || q->state == SMCR_QPS_ERR || q->rq_len >= q->max_recv)
		return -1;
	for (uint32_t i = 0; i < wr->num_sge; i++)
		if (!sge_ok(lb, q->dev, &wr->sg_list[i]))
			return -1;
	q->rq[(q->rq_head + q->rq_len) % q->max_recv] = *wr;
	q->rq_len++;
	return 0;
}

const smcr_transport_ops loopback_ops = {
	.reg_mr = t_reg_mr,
	.dereg_mr = t_dereg_mr,
	.create_qp = t_create_qp,
	.modify_qp = t_modify_qp,
	.query_qp_state = t_query_qp_state,
	.destroy_qp = t_destroy_qp,
	.post_send = t_post_send,
	.post_recv = t_post_recv,
};

/* Delivery --------------------------------------------------------------------------- */

static void pop_head(qp_ent *q)
{
	pend_wr *p = q->sq_head;
	q->sq_head = p->next;
	if (!q->sq_head)
		q->sq_tail = NULL;
	free(p->data);
	free(p);
}

/* The head WR fails with `st` and its QP goes to ERR. */
static void fail_head(loopback *lb, qp_ent *q, smcr_wc_status st, uint64_t now)
{
	pend_wr *p = q->sq_head;
	post_wc(lb, q, p->wr.wr_id, st, send_wc_opcode(&p->wr), 0, now);
	pop_head(q);
	qp_to_err(lb, q, now);
}

/* Place a SEND into dst's next receive; false when none is posted (RNR). */
static bool place_send(loopback *lb, qp_ent *src, qp_ent *dst, const uint8_t *data, uint32_t len, uint64_t now)
{
	if (!dst->rq_len)
		return false;
	smcr_recv_wr *r = &dst->rq[dst->rq_head];
	dst->rq_head = (dst->rq_head + 1) % dst->max_recv;
	dst->rq_len--;
	uint32_t cap = 0;
	for (uint32_t i = 0; i < r->num_sge; i++)
		cap += r->sg_list[i].length;
	if (len > cap) {
		post_wc(lb, dst, r->wr_id, SMCR_WC_LOC_LEN_ERR, SMCR_WC_RECV, 0, now);
		qp_to_err(lb, dst, now);
		return true;
	}
	uint32_t off = 0;
	for (uint32_t i = 0; i < r->num_sge && off < len; i++) {
		uint32_t n = r->sg_list[i].length < len - off ? r->sg_list[i].length : len - off;
		memcpy(r->sg_list[i].addr, data + off, n);
		off += n;
	}
	if (lb->obs)
		lb->obs(lb->obs_arg, src ? src->qpn : 0, dst->qpn, data, len);
	post_wc(lb, dst, r->wr_id, SMCR_WC_SUCCESS, SMCR_WC_RECV, len, now);
	return true;
}

/* An RDMA WRITE into the peer's region; false (the QP failed) on a bad key or range, or
 * when a source region was deregistered since the posting. */
static bool deliver_write(loopback *lb, qp_ent *q, const qp_ent *d, uint64_t now)
{
	pend_wr *p = q->sq_head;
	for (uint32_t i = 0; i < p->wr.num_sge; i++) {
		if (!sge_ok(lb, q->dev, &p->wr.sg_list[i])) {
			fail_head(lb, q, SMCR_WC_LOC_PROT_ERR, now);
			return false;
		}
	}
	mr_ent *m = mr_by_key(lb, p->wr.rkey, 1);
	/* the range in two steps: remote_addr + len wraps for an address near 2^64 (a peer's
	 * announced RMB address is what it says) */
	bool ok = m && m->dev == d->dev && (m->access & SMCR_ACCESS_REMOTE_WRITE) && p->wr.remote_addr >= m->info.iova &&
	          p->wr.remote_addr - m->info.iova <= m->len && p->len <= m->len - (p->wr.remote_addr - m->info.iova);
	if (!ok) {
		fail_head(lb, q, SMCR_WC_REM_ACCESS_ERR, now);
		return false;
	}
	uint8_t *dst = m->addr + (p->wr.remote_addr - m->info.iova);
	for (uint32_t i = 0; i < p->wr.num_sge; i++) {
		memcpy(dst, p->wr.sg_list[i].addr, p->wr.sg_list[i].length);
		dst += p->wr.sg_list[i].length;
	}
	lb->st.writes++;
	lb->st.write_bytes += p->len;
	if (p->wr.send_flags & SMCR_SEND_SIGNALED)
		post_wc(lb, q, p->wr.wr_id, SMCR_WC_SUCCESS, SMCR_WC_RDMA_WRITE, 0, now);
	return true;
}

/* A SEND (or a dropped one); false when the peer has no receive posted (RNR: the WR
 * stays at the head and is tried again). */
static bool deliver_send(loopback *lb, qp_ent *q, qp_ent *d, uint64_t now)
{
	pend_wr *p = q->sq_head;
	if (q->drop_sends) {
		q->drop_sends--;
	} else if (lb->drop_type_n && p->len && p->data[0] == lb->drop_type) {
		lb->drop_type_n--;
	} else if (!place_send(lb, q, d, p->data, p->len, now)) {
		return false;
	}
	lb->st.sends++;
	if (p->wr.send_flags & SMCR_SEND_SIGNALED)
		post_wc(lb, q, p->wr.wr_id, SMCR_WC_SUCCESS, SMCR_WC_SEND, 0, now + lb->latency / 2);
	return true;
}

/* The peer QP the head WR reaches, or NULL when its path is gone (a device down, the
 * peer not connected back or not ready to receive). */
static qp_ent *reachable_peer(loopback *lb, const qp_ent *q)
{
	qp_ent *d = qp_by_qpn(lb, q->dest_qpn);
	bool path = d && !q->dev->down && !d->dev->down && d->dest_qpn == q->qpn &&
	            (d->state == SMCR_QPS_RTR || d->state == SMCR_QPS_RTS);
	return path ? d : NULL;
}

static void deliver(sim_engine *eng, sim_event *ev)
{
	loopback *lb = ev->ctx;
	qp_ent *q = &lb->qps[ev->arg >> 32];
	uint64_t now = sim_now(eng);
	if (!q->live || q->gen != (uint32_t)ev->arg || !q->sq_head)
		return;
	pend_wr *p = q->sq_head;
	qp_ent *d = reachable_peer(lb, q);
	if (!d) {
		/* nobody acknowledges: after the retries the WR fails and the QP goes to ERR */
		if (now < p->due + lb->retry_time)
			sim_post(eng, p->due + lb->retry_time, lb->kind_deliver, q->qpn, deliver, lb, ev->arg);
		else
			fail_head(lb, q, SMCR_WC_RETRY_EXC_ERR, now);
		return;
	}
	if (p->wr.opcode == SMCR_WR_RDMA_WRITE) {
		if (!deliver_write(lb, q, d, now))
			return;
	} else if (!deliver_send(lb, q, d, now)) {
		/* RNR: infinite retries (rnr_retry 7) */
		lb->st.rnr_retries++;
		p->due = now + RNR_RETRY_NS;
		sim_post(eng, p->due, lb->kind_deliver, q->qpn, deliver, lb, ev->arg);
		return;
	}
	pop_head(q);
	schedule_head(lb, q);
}

/* Faults ----------------------------------------------------------------------------- */

int loopback_fail_qp(loopback *lb, uint32_t qpn)
{
	qp_ent *q = qp_by_qpn(lb, qpn);
	if (!q)
		return -1;
	qp_to_err(lb, q, sim_now(lb->eng));
	if (q->dev->async)
		q->dev->async(q->dev->owner, SMCR_EV_QP_FATAL, q->qp_ctx);
	return 0;
}

void loopback_drop_sends(loopback *lb, uint32_t qpn, uint32_t n)
{
	qp_ent *q = qp_by_qpn(lb, qpn);
	if (q)
		q->drop_sends = n;
}

void loopback_drop_type(loopback *lb, uint8_t type, uint32_t n)
{
	lb->drop_type = type;
	lb->drop_type_n = n;
}

int loopback_inject_recv(loopback *lb, uint32_t qpn, const uint8_t *buf, uint32_t len)
{
	qp_ent *q = qp_by_qpn(lb, qpn);
	if (!q)
		return -1;
	return place_send(lb, NULL, q, buf, len, sim_now(lb->eng)) ? 0 : -1;
}
