/* bench verbs: RDMA WRITE throughput through smcr_transport_ops on a real device, in the
 * shape of perftest's ib_write_bw (one buffer of --size bytes written --iters times, up to
 * --tx-depth WRs in flight, one signaled completion every --cq-mod WRs), and — when
 * ib_write_bw is installed — ib_write_bw itself on the same device pair, side by side.
 *
 * The two QPs live in two contexts of one device (--dev) or of two devices (--dev2), in
 * this process. Completions arrive through the completion channel and the real-time
 * driver's GLib loop (what --real-hw runs use), or with --busy-poll by polling as
 * ib_write_bw does. Without the device it stops at once and says how to create one. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "model/smcr_err.h"
#include "model/smcr_transport.h"
#include "sim/engine/engine.h"
#include "sim/fabric/gid.h"
#include "sim/engine/realtime.h"
#include "sim/rdma/gid_table.h"
#include "sim/rdma/verbs_transport.h"
#include "tools/bench.h"
#include "tools/cli.h"

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

typedef struct bw_run {
	verbs_transport *vt;
	const smcr_transport_ops *ops;
	sim_engine *eng;
	sim_realtime *rt;
	bw_side a, b;
	uint64_t completed;  /* WRs known complete (signaled completions × cq_mod) */
	uint64_t target;     /* stop the loop once completed reaches it */
	uint64_t errors;
	smcr_wc_status first_error;
	uint32_t cq_mod;
} bw_run;

static void on_wc(void *user, const smcr_wc *wc)
{
	bw_run *r = user;
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
	bw_run *r = ctx;
	verbs_dev_process(r->vt, r->a.dev);
}

static int side_open(bw_run *r, bw_side *s, const char *dev, int port, size_t size)
{
	if (!(s->dev = verbs_dev_open(r->vt, dev)) || verbs_dev_port(r->vt, s->dev, (uint8_t)port, &s->port) != 0)
		return -1;
	s->gid = roce_gid_select(&s->port, SMCR_GID_ROCE_V2, 0, 0, 0);
	if (s->port.state != SMCR_PORT_ACTIVE || s->gid < 0) {
		fprintf(stderr, "bench verbs: %s port %d is not ACTIVE or has no IPv4-mapped RoCE v2 GID\n", dev, port);
		return -2;
	}
	s->buf = g_malloc0(size);
	s->mr = r->ops->reg_mr(r->vt, s->dev, s->buf, size, SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE, &s->mri);
	return s->mr ? 0 : -1;
}

/* RESET→INIT→RTR→RTS towards peer, with Linux SMC-R's attributes. */
static int side_connect(bw_run *r, bw_side *s, const bw_side *peer, int port, uint32_t psn, uint32_t peer_psn)
{
	smcr_qp_attr init = { .state = SMCR_QPS_INIT, .port = (uint8_t)port,
	                      .access = SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE };
	smcr_qp_attr rtr = { .state = SMCR_QPS_RTR, .dest_qpn = peer->qpn, .rq_psn = peer_psn,
	                     .max_dest_rd_atomic = 1, .min_rnr_timer = 5,
	                     .path_mtu = s->port.active_mtu < peer->port.active_mtu ? s->port.active_mtu : peer->port.active_mtu,
	                     .ah = { .sgid_index = s->port.gids[s->gid].index, .hop_limit = 1 } };
	memcpy(rtr.ah.dgid, peer->port.gids[peer->gid].gid, 16);
	smcr_qp_attr rts = { .state = SMCR_QPS_RTS, .timeout = 15, .retry_cnt = 7, .rnr_retry = 7, .sq_psn = psn,
	                     .max_rd_atomic = 1 };
	if (r->ops->modify_qp(r->vt, s->qp, &init) || r->ops->modify_qp(r->vt, s->qp, &rtr) ||
	    r->ops->modify_qp(r->vt, s->qp, &rts))
		return -1;
	return 0;
}

/* ib_write_bw on the same device pair: server in the background, client in front; the
 * client's result line gives the average MiB/s (perftest's MB is 2^20 bytes). */
double bench_ib_write_bw(const char *prog, const char *dev, const char *dev2, int port, int gid_a, int gid_b,
                         int64_t size, int64_t iters, int64_t depth)
{
	char s_size[32], s_iters[32], s_depth[32], s_port[16], s_gid_a[16], s_gid_b[16];
	snprintf(s_size, sizeof s_size, "%" G_GINT64_FORMAT, size);
	snprintf(s_iters, sizeof s_iters, "%" G_GINT64_FORMAT, iters);
	snprintf(s_depth, sizeof s_depth, "%" G_GINT64_FORMAT, depth);
	snprintf(s_port, sizeof s_port, "%d", port);
	snprintf(s_gid_a, sizeof s_gid_a, "%d", gid_a);
	snprintf(s_gid_b, sizeof s_gid_b, "%d", gid_b);
	char *srv[] = { (char *)prog, "-d", (char *)dev2, "-i", s_port, "-x", s_gid_b, "-s", s_size, "-n", s_iters,
		        "-t", s_depth, "-p", "18515", "-F", NULL };
	char *cli[] = { (char *)prog, "-d", (char *)dev, "-i", s_port, "-x", s_gid_a, "-s", s_size, "-n", s_iters,
		        "-t", s_depth, "-p", "18515", "-F", "127.0.0.1", NULL };
	GPid pid;
	GError *err = NULL;
	if (!g_spawn_async(NULL, srv, NULL, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
	                   G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &pid, &err)) {
		fprintf(stderr, "bench: cannot start %s: %s\n", prog, err->message);
		g_error_free(err);
		return 0;
	}
	g_usleep(1000000); /* the server must listen before the client connects */
	char *out = NULL;
	gint status = 0;
	double avg = 0;
	if (g_spawn_sync(NULL, cli, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status, &err)) {
		/* the result row follows the "#bytes #iterations BW peak BW average" header */
		char **lines = g_strsplit(out, "\n", -1);
		for (int i = 0; lines[i]; i++) {
			unsigned long long bytes, it;
			double peak, average;
			if (sscanf(lines[i], " %llu %llu %lf %lf", &bytes, &it, &peak, &average) == 4 &&
			    bytes == (unsigned long long)size)
				avg = average;
		}
		g_strfreev(lines);
		g_free(out);
	} else {
		fprintf(stderr, "bench: %s: %s\n", prog, err->message);
		g_error_free(err);
	}
	waitpid(pid, NULL, 0);
	g_spawn_close_pid(pid);
	return avg;
}

/* One run: iters RDMA WRITEs of size bytes; returns the seconds taken, or < 0 on failure. */
static double measure(bw_run *r, gint64 size, gint64 iters, gint64 depth, gint64 cq_mod, gboolean busy)
{
	r->completed = 0;
	uint64_t posted = 0, total = (uint64_t)iters;
	double t0 = bench_wall_seconds();
	while (r->completed < total && r->errors == 0) {
		while (posted < total && posted - r->completed < (uint64_t)depth) {
			uint64_t n = posted + 1;
			bool signal = n % (uint64_t)cq_mod == 0 || n == total;
			uint64_t covers = signal ? (n % (uint64_t)cq_mod ? n % (uint64_t)cq_mod : (uint64_t)cq_mod) : 0;
			smcr_send_wr wr = { .wr_id = covers, .opcode = SMCR_WR_RDMA_WRITE, .num_sge = 1,
			                    .send_flags = signal ? SMCR_SEND_SIGNALED : 0,
			                    .sg_list = { { r->a.buf, (uint32_t)size, r->a.mri.lkey } },
			                    .remote_addr = r->b.mri.iova, .rkey = r->b.mri.rkey };
			int prc = r->ops->post_send(r->vt, r->a.qp, &wr);
			if (prc == SMCR_ERR_AGAIN)
				break;
			if (prc != 0) {
				fprintf(stderr, "bench verbs: %s\n", verbs_transport_last_error(r->vt, NULL));
				return -1;
			}
			posted++;
		}
		/* wait until a signaled completion frees room (or everything is done) */
		r->target = r->completed + 1;
		if (busy)
			verbs_dev_process(r->vt, r->a.dev);
		else if (sim_realtime_run(r->rt, sim_now(r->eng) + 30 * SIM_S) == SIM_RT_TIME) {
			fprintf(stderr, "bench verbs: no completion for 30 s\n");
			return -1;
		}
	}
	if (r->errors) {
		fprintf(stderr, "bench verbs: a write completed with an error (status %d)\n", r->first_error);
		return -1;
	}
	return bench_wall_seconds() - t0;
}

int bench_verbs(int argc, char **argv)
{
	gchar *dev = NULL, *dev2 = NULL;
	gint port = 1;
	gint64 size = 65536, iters = 2000, depth = 128, cq_mod = 32, repeat = 3;
	gboolean busy = FALSE, no_compare = FALSE;
	GOptionEntry entries[] = {
		{ "dev", 'd', 0, G_OPTION_ARG_STRING, &dev, "RDMA device of the writer (rxe0)", "NAME" },
		{ "dev2", 0, 0, G_OPTION_ARG_STRING, &dev2, "device of the target (default: --dev)", "NAME" },
		{ "port", 'i', 0, G_OPTION_ARG_INT, &port, "port on both devices (1)", "N" },
		{ "size", 's', 0, G_OPTION_ARG_INT64, &size, "bytes per RDMA WRITE (65536, as ib_write_bw)", "BYTES" },
		{ "iters", 'n', 0, G_OPTION_ARG_INT64, &iters, "RDMA WRITEs (2000)", "N" },
		{ "tx-depth", 't', 0, G_OPTION_ARG_INT64, &depth, "WRs in flight (128, as ib_write_bw)", "N" },
		{ "cq-mod", 'Q', 0, G_OPTION_ARG_INT64, &cq_mod, "one signaled completion every N WRs (32)", "N" },
		{ "repeat", 'r', 0, G_OPTION_ARG_INT64, &repeat, "alternating runs of each; the best is reported (3)", "N" },
		{ "busy-poll", 0, 0, G_OPTION_ARG_NONE, &busy, "poll the CQ instead of waiting on the channel", NULL },
		{ "no-compare", 0, 0, G_OPTION_ARG_NONE, &no_compare, "do not run ib_write_bw", NULL },
		{ NULL },
	};
	cli_options opts = { .params = "- RDMA WRITE throughput through the verbs transport", .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	if (argc > 1) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[1]);
		return 2;
	}
	if (size <= 0 || size > (1 << 30) || iters <= 0 || depth <= 0 || depth > 4096 || cq_mod <= 0 || cq_mod > depth ||
	    port < 1 || port > 255 || repeat <= 0) {
		fprintf(stderr, "%s: need 0 < size <= 1 GiB, iters > 0, 0 < cq-mod <= tx-depth <= 4096, port 1..255, repeat > 0\n", argv[0]);
		return 2;
	}
	const char *name_a = dev ? dev : "rxe0", *name_b = dev2 ? dev2 : name_a;

	bw_run r = { .cq_mod = (uint32_t)cq_mod };
	verbs_sink sink = { .completion = on_wc };
	r.vt = verbs_transport_new(&sink, &r);
	r.ops = verbs_transport_ops();
	r.eng = sim_engine_new(1);
	r.rt = sim_realtime_new(r.eng);
	int rc = 1;
	int o = side_open(&r, &r.a, name_a, port, (size_t)size);
	if (o == 0)
		o = side_open(&r, &r.b, name_b, port, (size_t)size);
	if (o != 0) {
		if (o == -1)
			fprintf(stderr, "bench verbs: %s\n", verbs_transport_last_error(r.vt, NULL));
		goto out;
	}
	smcr_qp_caps caps = { .max_send_wr = (uint32_t)depth, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 };
	r.a.qp = r.ops->create_qp(r.vt, r.a.dev, (uint8_t)port, &caps, &r.a, &r.a.qpn);
	r.b.qp = r.a.qp ? r.ops->create_qp(r.vt, r.b.dev, (uint8_t)port, &caps, &r.b, &r.b.qpn) : NULL;
	if (!r.b.qp || side_connect(&r, &r.b, &r.a, port, 0x100, 0x200) || side_connect(&r, &r.a, &r.b, port, 0x200, 0x100)) {
		fprintf(stderr, "bench verbs: %s\n", verbs_transport_last_error(r.vt, NULL));
		goto out;
	}
	int fds[2];
	size_t nfd = verbs_dev_fds(r.a.dev, fds, 2);
	for (size_t i = 0; i < nfd; i++)
		sim_realtime_watch_fd(r.rt, fds[i], on_fd, &r);

	printf("bench verbs: %s → %s port %d, RDMA WRITE %" G_GINT64_FORMAT " B × %" G_GINT64_FORMAT
	       ", tx-depth %" G_GINT64_FORMAT ", cq-mod %" G_GINT64_FORMAT ", %s, best of %" G_GINT64_FORMAT
	       " alternating runs\n", name_a, name_b, port, size, iters, depth, cq_mod,
	       busy ? "busy polling" : "completion channel + GLib loop", repeat);
	char *ibw = no_compare ? NULL : g_find_program_in_path("ib_write_bw");
	double best = 0, best_ref = 0;
	for (gint64 k = 0; k < repeat; k++) {
		double dt = measure(&r, size, iters, depth, cq_mod, busy);
		if (dt < 0) {
			g_free(ibw);
			goto out;
		}
		double mib = (double)size * (double)iters / dt / (1024.0 * 1024.0);
		if (mib > best)
			best = mib;
		double ref = ibw ? bench_ib_write_bw(ibw, name_a, name_b, port, r.a.port.gids[r.a.gid].index,
		                                   r.b.port.gids[r.b.gid].index, size, iters, depth) : 0;
		if (ref > best_ref)
			best_ref = ref;
		printf("  run %" G_GINT64_FORMAT ": %.1f MiB/s%s", k + 1, mib, ibw ? "" : "\n");
		if (ibw)
			printf(", ib_write_bw %.1f MiB/s\n", ref);
	}
	printf("  smcr-sim verbs transport:  %9.1f MiB/s\n", best);
	if (ibw && best_ref > 0)
		printf("  ib_write_bw (perftest):    %9.1f MiB/s  → ratio %.2f\n", best_ref, best / best_ref);
	else if (ibw)
		printf("  ib_write_bw (perftest):    no result\n");
	else if (!no_compare)
		printf("  ib_write_bw (perftest):    not installed (apt-get install perftest)\n");
	g_free(ibw);
	rc = 0;
out:
	if (r.a.qp)
		r.ops->destroy_qp(r.vt, r.a.qp);
	if (r.b.qp)
		r.ops->destroy_qp(r.vt, r.b.qp);
	if (r.a.mr)
		r.ops->dereg_mr(r.vt, r.a.mr);
	if (r.b.mr)
		r.ops->dereg_mr(r.vt, r.b.mr);
	sim_realtime_free(r.rt);
	verbs_transport_free(r.vt);
	sim_engine_free(r.eng);
	g_free(r.a.buf);
	g_free(r.b.buf);
	g_free(dev);
	g_free(dev2);
	return rc;
}
