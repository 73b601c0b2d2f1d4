/* RDMA WRITE throughput of the verbs transport on a real device (see verbs_bench.h). */
#include "sim/bench/verbs_bench.h"

#include <glib.h>
#include <string.h>

#include "model/smcr_err.h"
#include "model/smcr_transport.h"
#include "sim/engine/bench_measure.h"
#include "sim/bench/ib_write_bw.h"
#include "sim/engine/engine.h"
#include "sim/engine/realtime.h"
#include "sim/rdma/gid_table.h"
#include "sim/rdma/verbs_transport.h"

typedef struct bw_side {
	smcr_tp_dev *dev;
	smcr_port_desc port;
	int gid;
	smcr_tp_qp *qp;
	uint32_t qpn;
	uint8_t *buf;
	smcr_tp_mr *mr;
	smcr_mr_info mri;
} bw_side;

struct verbs_bench {
	verbs_bench_config cfg;
	verbs_transport *vt;
	const smcr_transport_ops *ops;
	sim_engine *eng;
	sim_realtime *rt;
	bw_side a, b;
	uint64_t completed; /* WRs known complete (signaled completions × cq_mod) */
	uint64_t target;    /* stop the loop once completed reaches it */
	uint64_t errors;
	smcr_wc_status first_error;
};

static void on_wc(void *user, const smcr_wc *wc)
{
	verbs_bench *r = user;
	if (wc->status != SMCR_WC_SUCCESS) {
		if (r->errors++ == 0)
			r->first_error = wc->status;
		sim_realtime_quit(r->rt);
		return;
	}
	if (wc->opcode == SMCR_WC_RDMA_WRITE)
		r->completed += wc->wr_id; /* wr_id = WRs this signaled one completes */
	if (r->completed >= r->target)
		sim_realtime_quit(r->rt);
}

static void on_fd(void *ctx, int fd)
{
	(void)fd;
	verbs_bench *r = ctx;
	verbs_dev_process(r->vt, r->a.dev);
}

static bool side_open(verbs_bench *r, bw_side *s, const char *dev, char *err, size_t errlen)
{
	int port = r->cfg.port;
	if (!(s->dev = verbs_dev_open(r->vt, dev)) || verbs_dev_port(r->vt, s->dev, (uint8_t)port, &s->port) != 0) {
		snprintf(err, errlen, "%s", verbs_transport_last_error(r->vt, NULL));
		return false;
	}
	s->gid = gid_table_select(&s->port, SMCR_GID_ROCE_V2, 0, 0, 0);
	if (s->port.state != SMCR_PORT_ACTIVE || s->gid < 0) {
		snprintf(err, errlen, "%s port %d is not ACTIVE or has no IPv4-mapped RoCE v2 GID", dev, port);
		return false;
	}
	size_t size = (size_t)r->cfg.size;
	s->buf = g_malloc0(size);
	s->mr = r->ops->reg_mr(r->vt, s->dev, s->buf, size, SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE, &s->mri);
	if (!s->mr)
		snprintf(err, errlen, "%s", verbs_transport_last_error(r->vt, NULL));
	return s->mr != NULL;
}

/* RESET→INIT→RTR→RTS towards peer, with Linux SMC-R's attributes. */
static int side_connect(verbs_bench *r, bw_side *s, const bw_side *peer, uint32_t psn, uint32_t peer_psn)
{
	smcr_qp_attr init = { .state = SMCR_QPS_INIT, .port = (uint8_t)r->cfg.port, .access = SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE };
	smcr_qp_attr rtr = { .state = SMCR_QPS_RTR, .dest_qpn = peer->qpn, .rq_psn = peer_psn, .max_dest_rd_atomic = 1, .min_rnr_timer = 5, .path_mtu = s->port.active_mtu < peer->port.active_mtu ? s->port.active_mtu : peer->port.active_mtu, .ah = { .sgid_index = s->port.gids[s->gid].index, .hop_limit = 1 } };
	memcpy(rtr.ah.dgid, peer->port.gids[peer->gid].gid, 16);
	smcr_qp_attr rts = { .state = SMCR_QPS_RTS, .timeout = 15, .retry_cnt = 7, .rnr_retry = 7, .sq_psn = psn, .max_rd_atomic = 1 };
	if (r->ops->modify_qp(r->vt, s->qp, &init) || r->ops->modify_qp(r->vt, s->qp, &rtr) ||
	    r->ops->modify_qp(r->vt, s->qp, &rts))
		return -1;
	return 0;
}

/* Both QPs, connected to each other; the writer's completions watched. */
static bool connect_qps(verbs_bench *r, char *err, size_t errlen)
{
	uint8_t port = (uint8_t)r->cfg.port;
	smcr_qp_caps caps = { .max_send_wr = (uint32_t)r->cfg.depth, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 };
	r->a.qp = r->ops->create_qp(r->vt, r->a.dev, port, &caps, &r->a, &r->a.qpn);
	r->b.qp = r->a.qp ? r->ops->create_qp(r->vt, r->b.dev, port, &caps, &r->b, &r->b.qpn) : NULL;
	if (!r->b.qp || side_connect(r, &r->b, &r->a, 0x100, 0x200) || side_connect(r, &r->a, &r->b, 0x200, 0x100)) {
		snprintf(err, errlen, "%s", verbs_transport_last_error(r->vt, NULL));
		return false;
	}
	int fds[2];
	size_t nfd = verbs_dev_fds(r->a.dev, fds, 2);
	for (size_t i = 0; i < nfd; i++)
		sim_realtime_watch_fd(r->rt, fds[i], on_fd, r);
	return true;
}

verbs_bench *verbs_bench_open(const verbs_bench_config *c, char *err, size_t errlen)
{
	verbs_bench *r = g_new0(verbs_bench, 1);
	r->cfg = *c;
	verbs_sink sink = { .completion = on_wc };
	r->vt = verbs_transport_new(&sink, r);
	r->ops = verbs_transport_ops();
	r->eng = sim_engine_new(1);
	r->rt = sim_realtime_new(r->eng);
	if (side_open(r, &r->a, c->dev_a, err, errlen) && side_open(r, &r->b, c->dev_b, err, errlen) &&
	    connect_qps(r, err, errlen))
		return r;
	verbs_bench_close(r);
	return NULL;
}

/* Post while there is room in the send queue; false with the reason on a post error. */
static bool post_some(verbs_bench *r, uint64_t *posted, char *err, size_t errlen)
{
	uint64_t total = (uint64_t)r->cfg.iters, cq_mod = (uint64_t)r->cfg.cq_mod;
	while (*posted < total && *posted - r->completed < (uint64_t)r->cfg.depth) {
		uint64_t n = *posted + 1;
		bool signal = n % cq_mod == 0 || n == total;
		uint64_t covers = signal ? (n % cq_mod ? n % cq_mod : cq_mod) : 0;
		smcr_send_wr wr = { .wr_id = covers, .opcode = SMCR_WR_RDMA_WRITE, .num_sge = 1, .send_flags = signal ? SMCR_SEND_SIGNALED : 0, .sg_list = { { r->a.buf, (uint32_t)r->cfg.size, r->a.mri.lkey } }, .remote_addr = r->b.mri.iova, .rkey = r->b.mri.rkey };
		int prc = r->ops->post_send(r->vt, r->a.qp, &wr);
		if (prc == SMCR_ERR_AGAIN)
			break;
		if (prc != 0) {
			snprintf(err, errlen, "%s", verbs_transport_last_error(r->vt, NULL));
			return false;
		}
		(*posted)++;
	}
	return true;
}

/* One run: iters RDMA WRITEs of size bytes; the seconds taken, or < 0 (err) on failure. */
static double measure(verbs_bench *r, char *err, size_t errlen)
{
	r->completed = 0;
	uint64_t posted = 0, total = (uint64_t)r->cfg.iters;
	double t0 = bench_wall_seconds();
	while (r->completed < total && r->errors == 0) {
		if (!post_some(r, &posted, err, errlen))
			return -1;
		/* wait until a signaled completion frees room (or everything is done) */
		r->target = r->completed + 1;
		if (r->cfg.busy_poll)
			verbs_dev_process(r->vt, r->a.dev);
		else if (sim_realtime_run(r->rt, sim_now(r->eng) + 30 * SIM_S) == SIM_RT_TIME) {
			snprintf(err, errlen, "no completion for 30 s");
			return -1;
		}
	}
	if (r->errors) {
		snprintf(err, errlen, "a write completed with an error (status %d)", r->first_error);
		return -1;
	}
	return bench_wall_seconds() - t0;
}

static double reference(const verbs_bench *r, const char *ibw)
{
	const verbs_bench_config *c = &r->cfg;
	ib_write_bw_params p = { ibw, c->dev_a, c->dev_b, c->port, r->a.port.gids[r->a.gid].index,
		                 r->b.port.gids[r->b.gid].index, c->size, c->iters, c->depth };
	return ib_write_bw_run(&p, c->log);
}

int verbs_bench_run(verbs_bench *b, verbs_bench_result *r, char *err, size_t errlen)
{
	const verbs_bench_config *c = &b->cfg;
	char *ibw = c->compare ? g_find_program_in_path("ib_write_bw") : NULL;
	*r = (verbs_bench_result){ .have_ref_tool = ibw != NULL };
	int rc = 0;
	for (int64_t k = 0; k < c->repeat && !rc; k++) {
		double dt = measure(b, err, errlen);
		if (dt < 0) {
			rc = 1;
			break;
		}
		double mib = (double)c->size * (double)c->iters / dt / (1024.0 * 1024.0);
		if (mib > r->best)
			r->best = mib;
		double ref = ibw ? reference(b, ibw) : 0;
		if (ref > r->best_ref)
			r->best_ref = ref;
		c->on_run(c->ctx, k + 1, mib, ibw != NULL, ref);
	}
	g_free(ibw);
	return rc;
}

void verbs_bench_close(verbs_bench *r)
{
	if (!r)
		return;
	if (r->a.qp)
		r->ops->destroy_qp(r->vt, r->a.qp);
	if (r->b.qp)
		r->ops->destroy_qp(r->vt, r->b.qp);
	if (r->a.mr)
		r->ops->dereg_mr(r->vt, r->a.mr);
	if (r->b.mr)
		r->ops->dereg_mr(r->vt, r->b.mr);
	sim_realtime_free(r->rt);
	verbs_transport_free(r->vt);
	sim_engine_free(r->eng);
	g_free(r->a.buf);
	g_free(r->b.buf);
	g_free(r);
}
