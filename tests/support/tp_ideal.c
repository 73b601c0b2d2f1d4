/* The ideal RC transport for tests (see tp_ideal.h). */
#include "tests/support/tp_ideal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_MRS 4096
#define MAX_QPS 1024
#define MAX_DEVS 16
#define IOVA_BASE 0x0000100000000000ull
#define IOVA_STRIDE 0x0000000100000000ull
#define KEY_BASE 0x100u

struct smcr_tp_dev {
	tpi_fabric *f;
	char name[32];
	tpi_wc_sink wc;
	tpi_async_sink async;
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

typedef struct pend_wr {
	struct pend_wr *next;
	smcr_send_wr wr;
	uint8_t *data;
	uint32_t len;
	uint64_t due;
} pend_wr;

typedef struct pend_recv {
	smcr_recv_wr wr;
} pend_recv;

struct smcr_tp_qp {
	int idx;
};

typedef struct qp_ent {
	bool live;
	uint32_t qpn;
	uint32_t gen;
	smcr_tp_dev *dev;
	void *qp_ctx;
	smcr_qp_state state;
	uint32_t dest_qpn;
	uint32_t max_recv;
	pend_recv *rq;
	uint32_t rq_head, rq_len;
	pend_wr *sq_head, *sq_tail;
	uint64_t next_tx;
	uint32_t drop_sends;
	struct smcr_tp_qp handle;
} qp_ent;

typedef struct wc_ev {
	struct wc_ev *prev, *next; /* outstanding, freed with the fabric */
	smcr_tp_dev *dev;
	smcr_wc wc;
} wc_ev;

struct tpi_fabric {
	sim_engine *eng;
	uint64_t latency, ns_per_kib, retry_time;
	uint32_t kind_deliver, kind_wc;
	mr_ent mrs[MAX_MRS];
	int n_mrs;
	qp_ent qps[MAX_QPS];
	int n_qps;
	smcr_tp_dev devs[MAX_DEVS];
	int n_devs;
	tpi_send_observer obs;
	void *obs_arg;
	struct wc_ev *wcs;
	uint8_t drop_type;
	uint32_t drop_type_n;
	tpi_stats st;
};

tpi_fabric *tpi_new(sim_engine *eng)
{
	tpi_fabric *f = calloc(1, sizeof(*f));
	f->eng = eng;
	f->latency = 2000;
	f->ns_per_kib = 80;
	f->retry_time = 100 * 1000 * 1000ull;
	f->kind_deliver = sim_kind("tpi.deliver");
	f->kind_wc = sim_kind("tpi.wc");
	return f;
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

void tpi_free(tpi_fabric *f)
{
	while (f->wcs) {
		struct wc_ev *w = f->wcs;
		f->wcs = w->next;
		free(w);
	}
	for (int i = 0; i < f->n_qps; i++) {
		free_sq(&f->qps[i]);
		free(f->qps[i].rq);
	}
	free(f);
}

void tpi_set_latency(tpi_fabric *f, uint64_t ns) { f->latency = ns; }
void tpi_set_ns_per_kib(tpi_fabric *f, uint64_t ns) { f->ns_per_kib = ns; }
void tpi_set_retry_time(tpi_fabric *f, uint64_t ns) { f->retry_time = ns; }
void tpi_dev_set_down(tpi_fabric *f, smcr_tp_dev *dev, bool down) { (void)f; dev->down = down; }
void tpi_set_observer(tpi_fabric *f, tpi_send_observer fn, void *arg) { f->obs = fn; f->obs_arg = arg; }
void tpi_get_stats(const tpi_fabric *f, tpi_stats *out) { *out = f->st; }

smcr_tp_dev *tpi_dev_new(tpi_fabric *f, const char *name, tpi_wc_sink wc, tpi_async_sink async, void *owner)
{
	if (f->n_devs >= MAX_DEVS)
		return NULL;
	smcr_tp_dev *d = &f->devs[f->n_devs++];
	d->f = f;
	strncpy(d->name, name, sizeof(d->name) - 1);
	d->wc = wc;
	d->async = async;
	d->owner = owner;
	return d;
}

/* Completions are delivered as their own engine events. */
static void wc_unlink(tpi_fabric *f, wc_ev *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		f->wcs = w->next;
	if (w->next)
		w->next->prev = w->prev;
}

static void wc_fire(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	wc_ev *w = ev->ctx;
	tpi_fabric *f = w->dev->f;
	wc_unlink(f, w);
	smcr_wc wc = w->wc;
	smcr_tp_dev *dev = w->dev;
	free(w);
	dev->wc(dev->owner, &wc);
}

static void post_wc(tpi_fabric *f, qp_ent *q, uint64_t wr_id, smcr_wc_status st, smcr_wc_opcode op,
                    uint32_t byte_len, uint64_t at)
{
	wc_ev *w = calloc(1, sizeof(*w));
	w->next = f->wcs;
	if (f->wcs)
		f->wcs->prev = w;
	f->wcs = w;
	w->dev = q->dev;
	w->wc.wr_id = wr_id;
	w->wc.qp_ctx = q->qp_ctx;
	w->wc.status = st;
	w->wc.opcode = op;
	w->wc.byte_len = byte_len;
	w->wc.qp_num = q->qpn;
	w->wc.solicited = op == SMCR_WC_RECV;
	if (st != SMCR_WC_SUCCESS)
		f->st.errors++;
	sim_post(f->eng, at, f->kind_wc, q->qpn, wc_fire, w, 0);
}

static qp_ent *qp_by_qpn(tpi_fabric *f, uint32_t qpn)
{
	for (int i = 0; i < f->n_qps; i++)
		if (f->qps[i].live && f->qps[i].qpn == qpn)
			return &f->qps[i];
	return NULL;
}

/* QP to ERR: every outstanding WR completes with a flush error. */
static void qp_to_err(tpi_fabric *f, qp_ent *q, uint64_t at)
{
	q->state = SMCR_QPS_ERR;
	q->gen++;
	while (q->sq_head) {
		pend_wr *p = q->sq_head;
		q->sq_head = p->next;
		post_wc(f, q, p->wr.wr_id, SMCR_WC_WR_FLUSH_ERR,
		        p->wr.opcode == SMCR_WR_SEND ? SMCR_WC_SEND : SMCR_WC_RDMA_WRITE, 0, at);
		free(p->data);
		free(p);
	}
	q->sq_tail = NULL;
	while (q->rq_len) {
		pend_recv *r = &q->rq[q->rq_head];
		q->rq_head = (q->rq_head + 1) % q->max_recv;
		q->rq_len--;
		post_wc(f, q, r->wr.wr_id, SMCR_WC_WR_FLUSH_ERR, SMCR_WC_RECV, 0, at);
	}
}

static smcr_tp_mr *t_reg_mr(void *tp, smcr_tp_dev *dev, void *addr, size_t len, uint32_t access,
                            smcr_mr_info *out)
{
	tpi_fabric *f = tp;
	int i;
	for (i = 0; i < f->n_mrs; i++)
		if (!f->mrs[i].live)
			break;
	if (i == f->n_mrs) {
		if (f->n_mrs >= MAX_MRS)
			return NULL;
		f->n_mrs++;
	}
	mr_ent *m = &f->mrs[i];
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
	f->st.mrs_live++;
	return &m->handle;
}

static void t_dereg_mr(void *tp, smcr_tp_mr *mr)
{
	tpi_fabric *f = tp;
	if (!mr || !f->mrs[mr->idx].live)
		return;
	f->mrs[mr->idx].live = false;
	f->st.mrs_live--;
}

static mr_ent *mr_by_lkey(tpi_fabric *f, uint32_t lkey)
{
	if (lkey < KEY_BASE || (lkey - KEY_BASE) % 4)
		return NULL;
	uint32_t i = (lkey - KEY_BASE) / 4;
	return i < (uint32_t)f->n_mrs && f->mrs[i].live ? &f->mrs[i] : NULL;
}

static mr_ent *mr_by_rkey(tpi_fabric *f, uint32_t rkey)
{
	if (rkey < KEY_BASE + 1 || (rkey - KEY_BASE - 1) % 4)
		return NULL;
	uint32_t i = (rkey - KEY_BASE - 1) / 4;
	return i < (uint32_t)f->n_mrs && f->mrs[i].live ? &f->mrs[i] : NULL;
}

static bool sge_ok(tpi_fabric *f, smcr_tp_dev *dev, const smcr_sge *s)
{
	mr_ent *m = mr_by_lkey(f, s->lkey);
	if (!m || m->dev != dev)
		return false;
	const uint8_t *a = s->addr;
	return a >= m->addr && a + s->length <= m->addr + m->len;
}

static smcr_tp_qp *t_create_qp(void *tp, smcr_tp_dev *dev, uint8_t port, const smcr_qp_caps *caps,
                               void *qp_ctx, uint32_t *qpn_out)
{
	tpi_fabric *f = tp;
	(void)port;
	if (f->n_qps >= MAX_QPS)
		return NULL;
	qp_ent *q = &f->qps[f->n_qps];
	memset(q, 0, sizeof(*q));
	q->live = true;
	q->qpn = 0x100u + (uint32_t)f->n_qps * 7u;
	q->dev = dev;
	q->qp_ctx = qp_ctx;
	q->state = SMCR_QPS_RESET;
	q->max_recv = caps->max_recv_wr ? caps->max_recv_wr : 1;
	q->rq = calloc(q->max_recv, sizeof(*q->rq));
	q->handle.idx = f->n_qps;
	f->n_qps++;
	f->st.qps_live++;
	*qpn_out = q->qpn;
	return &q->handle;
}

static int t_modify_qp(void *tp, smcr_tp_qp *h, const smcr_qp_attr *a)
{
	tpi_fabric *f = tp;
	qp_ent *q = &f->qps[h->idx];
	if (!q->live)
		return -1;
	switch (a->state) {
	case SMCR_QPS_RESET:
		q->gen++;
		free_sq(q);
		q->rq_head = q->rq_len = 0;
		q->state = SMCR_QPS_RESET;
		return 0;
	case SMCR_QPS_INIT:
		if (q->state != SMCR_QPS_RESET)
			return -1;
		break;
	case SMCR_QPS_RTR:
		if (q->state != SMCR_QPS_INIT)
			return -1;
		q->dest_qpn = a->dest_qpn;
		break;
	case SMCR_QPS_RTS:
		if (q->state != SMCR_QPS_RTR)
			return -1;
		break;
	case SMCR_QPS_ERR:
		qp_to_err(f, q, sim_now(f->eng));
		return 0;
	}
	q->state = a->state;
	return 0;
}

static smcr_qp_state t_query_qp_state(void *tp, smcr_tp_qp *h)
{
	tpi_fabric *f = tp;
	return f->qps[h->idx].state;
}

static void t_destroy_qp(void *tp, smcr_tp_qp *h)
{
	tpi_fabric *f = tp;
	qp_ent *q = &f->qps[h->idx];
	if (!q->live)
		return;
	q->gen++;
	free_sq(q);
	free(q->rq);
	q->rq = NULL;
	q->live = false;
	f->st.qps_live--;
}

static void deliver(sim_engine *eng, sim_event *ev);

static void schedule_head(tpi_fabric *f, qp_ent *q)
{
	if (!q->sq_head)
		return;
	sim_post(f->eng, q->sq_head->due, f->kind_deliver, q->qpn, deliver, f,
	         ((uint64_t)(uint32_t)(q - f->qps) << 32) | q->gen);
}

static int t_post_send(void *tp, smcr_tp_qp *h, const smcr_send_wr *wr)
{
	tpi_fabric *f = tp;
	qp_ent *q = &f->qps[h->idx];
	if (!q->live || q->state != SMCR_QPS_RTS || wr->num_sge < 1 || wr->num_sge > SMCR_MAX_SGE)
		return -1;
	uint32_t len = 0;
	for (uint32_t i = 0; i < wr->num_sge; i++) {
		if (!sge_ok(f, q->dev, &wr->sg_list[i]))
			return -1;
		len += wr->sg_list[i].length;
	}
	pend_wr *p = calloc(1, sizeof(*p));
	p->wr = *wr;
	p->len = len;
	p->data = malloc(len ? len : 1);
	uint32_t off = 0;
	for (uint32_t i = 0; i < wr->num_sge; i++) {
		memcpy(p->data + off, wr->sg_list[i].addr, wr->sg_list[i].length);
		off += wr->sg_list[i].length;
	}
	uint64_t now = sim_now(f->eng);
	uint64_t start = q->next_tx > now ? q->next_tx : now;
	p->due = start + f->latency + (uint64_t)len * f->ns_per_kib / 1024;
	q->next_tx = p->due;
	bool was_empty = !q->sq_head;
	if (q->sq_tail)
		q->sq_tail->next = p;
	else
		q->sq_head = p;
	q->sq_tail = p;
	if (was_empty)
		schedule_head(f, q);
	return 0;
}

static int t_post_recv(void *tp, smcr_tp_qp *h, const smcr_recv_wr *wr)
{
	tpi_fabric *f = tp;
	qp_ent *q = &f->qps[h->idx];
	if (!q->live || q->state == SMCR_QPS_RESET || q->state == SMCR_QPS_ERR || q->rq_len >= q->max_recv)
		return -1;
	for (uint32_t i = 0; i < wr->num_sge; i++)
		if (!sge_ok(f, q->dev, &wr->sg_list[i]))
			return -1;
	q->rq[(q->rq_head + q->rq_len) % q->max_recv].wr = *wr;
	q->rq_len++;
	return 0;
}

const smcr_transport_ops tpi_ops = {
	.reg_mr = t_reg_mr,
	.dereg_mr = t_dereg_mr,
	.create_qp = t_create_qp,
	.modify_qp = t_modify_qp,
	.query_qp_state = t_query_qp_state,
	.destroy_qp = t_destroy_qp,
	.post_send = t_post_send,
	.post_recv = t_post_recv,
};

static void pop_head(qp_ent *q)
{
	pend_wr *p = q->sq_head;
	q->sq_head = p->next;
	if (!q->sq_head)
		q->sq_tail = NULL;
	free(p->data);
	free(p);
}

/* Place a SEND into dst's next receive; false when none is posted (RNR). */
static bool place_send(tpi_fabric *f, qp_ent *src, qp_ent *dst, const uint8_t *data, uint32_t len, uint64_t now)
{
	if (!dst->rq_len)
		return false;
	pend_recv *r = &dst->rq[dst->rq_head];
	dst->rq_head = (dst->rq_head + 1) % dst->max_recv;
	dst->rq_len--;
	uint32_t cap = 0;
	for (uint32_t i = 0; i < r->wr.num_sge; i++)
		cap += r->wr.sg_list[i].length;
	if (len > cap) {
		post_wc(f, dst, r->wr.wr_id, SMCR_WC_LOC_LEN_ERR, SMCR_WC_RECV, 0, now);
		qp_to_err(f, dst, now);
		return true;
	}
	uint32_t off = 0;
	for (uint32_t i = 0; i < r->wr.num_sge && off < len; i++) {
		uint32_t n = r->wr.sg_list[i].length < len - off ? r->wr.sg_list[i].length : len - off;
		memcpy(r->wr.sg_list[i].addr, data + off, n);
		off += n;
	}
	if (f->obs)
		f->obs(f->obs_arg, src ? src->qpn : 0, dst->qpn, data, len);
	post_wc(f, dst, r->wr.wr_id, SMCR_WC_SUCCESS, SMCR_WC_RECV, len, now);
	return true;
}

static void deliver(sim_engine *eng, sim_event *ev)
{
	tpi_fabric *f = ev->ctx;
	qp_ent *q = &f->qps[ev->arg >> 32];
	uint64_t now = sim_now(eng);
	if (!q->live || q->gen != (uint32_t)ev->arg || !q->sq_head)
		return;
	pend_wr *p = q->sq_head;
	qp_ent *d = qp_by_qpn(f, q->dest_qpn);
	bool path = d && !q->dev->down && !d->dev->down && d->dest_qpn == q->qpn &&
	            (d->state == SMCR_QPS_RTR || d->state == SMCR_QPS_RTS);
	if (!path) {
		/* nobody acknowledges: after the retries the WR fails and the QP goes to ERR */
		if (now < p->due + f->retry_time) {
			sim_post(eng, p->due + f->retry_time, f->kind_deliver, q->qpn, deliver, f, ev->arg);
			return;
		}
		post_wc(f, q, p->wr.wr_id, SMCR_WC_RETRY_EXC_ERR,
		        p->wr.opcode == SMCR_WR_SEND ? SMCR_WC_SEND : SMCR_WC_RDMA_WRITE, 0, now);
		pop_head(q);
		qp_to_err(f, q, now);
		return;
	}
	if (p->wr.opcode == SMCR_WR_RDMA_WRITE) {
		mr_ent *m = mr_by_rkey(f, p->wr.rkey);
		bool ok = m && m->dev == d->dev && (m->access & SMCR_ACCESS_REMOTE_WRITE) &&
		          p->wr.remote_addr >= m->info.iova &&
		          p->wr.remote_addr + p->len <= m->info.iova + m->len;
		if (!ok) {
			post_wc(f, q, p->wr.wr_id, SMCR_WC_REM_ACCESS_ERR, SMCR_WC_RDMA_WRITE, 0, now);
			pop_head(q);
			qp_to_err(f, q, now);
			return;
		}
		memcpy(m->addr + (p->wr.remote_addr - m->info.iova), p->data, p->len);
		f->st.writes++;
		f->st.write_bytes += p->len;
		if (p->wr.send_flags & SMCR_SEND_SIGNALED)
			post_wc(f, q, p->wr.wr_id, SMCR_WC_SUCCESS, SMCR_WC_RDMA_WRITE, 0, now);
	} else {
		if (q->drop_sends) {
			q->drop_sends--;
		} else if (f->drop_type_n && p->len && p->data[0] == f->drop_type) {
			f->drop_type_n--;
		} else if (!place_send(f, q, d, p->data, p->len, now)) {
			/* RNR: infinite retries (rnr_retry 7) */
			f->st.rnr_retries++;
			p->due = now + 20000;
			sim_post(eng, p->due, f->kind_deliver, q->qpn, deliver, f, ev->arg);
			return;
		}
		f->st.sends++;
		if (p->wr.send_flags & SMCR_SEND_SIGNALED)
			post_wc(f, q, p->wr.wr_id, SMCR_WC_SUCCESS, SMCR_WC_SEND, 0, now + f->latency / 2);
	}
	pop_head(q);
	schedule_head(f, q);
}

int tpi_fail_qp(tpi_fabric *f, uint32_t qpn)
{
	qp_ent *q = qp_by_qpn(f, qpn);
	if (!q)
		return -1;
	uint64_t now = sim_now(f->eng);
	qp_to_err(f, q, now);
	if (q->dev->async)
		q->dev->async(q->dev->owner, SMCR_EV_QP_FATAL, q->qp_ctx);
	return 0;
}

void tpi_drop_sends(tpi_fabric *f, uint32_t qpn, uint32_t n)
{
	qp_ent *q = qp_by_qpn(f, qpn);
	if (q)
		q->drop_sends = n;
}

void tpi_drop_type(tpi_fabric *f, uint8_t type, uint32_t n)
{
	f->drop_type = type;
	f->drop_type_n = n;
}

int tpi_inject_recv(tpi_fabric *f, uint32_t qpn, const uint8_t *buf, uint32_t len)
{
	qp_ent *q = qp_by_qpn(f, qpn);
	if (!q)
		return -1;
	return place_send(f, NULL, q, buf, len, sim_now(f->eng)) ? 0 : -1;
}
