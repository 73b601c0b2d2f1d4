/* verbs_selftest: the verbs transport on a real RDMA device (Soft-RoCE in the check-hw VM,
 * or any rxe host), driven only through smcr_transport_ops and the real-time driver.
 *
 *   verbs_selftest [OPTIONS] loop            two QPs on one device, in this process
 *   verbs_selftest [OPTIONS] server PORT     one QP; the peer runs `client` on another host
 *   verbs_selftest [OPTIONS] client HOST PORT
 *
 * Every check prints a TAP line ("ok N - …" / "not ok N - …"), figures print as
 * "MEASURE name value unit", and the last line is "SUMMARY verbs_selftest: P passed, F
 * failed". Exit status 0 only if every check passed. QP attributes are the ones Linux
 * SMC-R uses (smc_ib.c); messages are 44 bytes shaped like SMC-R LLC TEST_LINK so that
 * tshark's SMC-R heuristic decodes the capture. */
#include <arpa/inet.h>
#include <errno.h>
#include <glib.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "model/smcr_err.h"
#include "model/smcr_transport.h"
#include "sim/addr/addr_text.h"
#include "sim/engine/engine.h"
#include "sim/fabric/gid.h"
#include "sim/engine/realtime.h"
#include "sim/rdma/gid_table.h"
#include "sim/rdma/verbs_transport.h"

#define MSG_LEN 44    /* SMC_WR_TX_SIZE */
#define SLOT_LEN 48   /* SMC_WR_BUF_SIZE */
#define RECV_SLOTS 48 /* receive WRs per link */
#define SEND_SLOTS 16
#define WR_DONE_BIT (1ull << 62) /* marks RDMA WRITE wr_ids */

typedef struct endpoint {
	const char *label;
	smcr_tp_dev *dev;
	smcr_port_desc port;
	int gid_pos;
	smcr_tp_qp *qp;
	uint32_t qpn, psn;
	uint8_t *slots; /* RECV_SLOTS receive slots, then SEND_SLOTS send slots */
	smcr_tp_mr *slots_mr;
	smcr_mr_info slots_mri;
	uint8_t *rmb;
	size_t rmb_len;
	smcr_tp_mr *rmb_mr;
	smcr_mr_info rmb_mri;
	GArray *wcs;       /* every completion delivered for this endpoint's QP */
	GByteArray *inbox; /* payloads of successful receives, MSG_LEN each, in order */
	guint inbox_bad;   /* successful receives whose length was not MSG_LEN */
	unsigned async[8]; /* async events seen, by smcr_async_event */
} endpoint;

/* What two endpoints exchange to connect (over TCP between hosts). */
typedef struct peer_info {
	uint32_t qpn, psn;
	uint8_t gid[16];
	uint32_t mtu;
	uint64_t rmb_iova;
	uint32_t rmb_rkey;
	uint64_t rmb_len;
} peer_info;

typedef struct lab {
	verbs_transport *vt;
	const smcr_transport_ops *ops;
	sim_engine *eng;
	sim_realtime *rt;
	endpoint *eps[2];
	int checks, failed;
	/* the condition a wait is waiting for */
	endpoint *wait_ep;
	guint wait_wcs;
	guint wait_msgs;
	int wait_async;
	/* options */
	const char *dev_name;
	int port;
	size_t write_mib;
	size_t chunk_kib;
	int messages;
	const char *flap_iface;
} lab;

/* Output ------------------------------------------------------------------------- */

__attribute__((format(printf, 3, 4))) static bool check(lab *L, bool ok, const char *fmt, ...)
{
	va_list ap;
	L->checks++;
	if (!ok)
		L->failed++;
	printf("%s %d - ", ok ? "ok" : "not ok", L->checks);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return ok;
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *wc_status_name(smcr_wc_status s)
{
	switch (s) {
	case SMCR_WC_SUCCESS: return "SUCCESS";
	case SMCR_WC_LOC_LEN_ERR: return "LOC_LEN_ERR";
	case SMCR_WC_LOC_QP_OP_ERR: return "LOC_QP_OP_ERR";
	case SMCR_WC_LOC_PROT_ERR: return "LOC_PROT_ERR";
	case SMCR_WC_WR_FLUSH_ERR: return "WR_FLUSH_ERR";
	case SMCR_WC_REM_INV_REQ_ERR: return "REM_INV_REQ_ERR";
	case SMCR_WC_REM_ACCESS_ERR: return "REM_ACCESS_ERR";
	case SMCR_WC_REM_OP_ERR: return "REM_OP_ERR";
	case SMCR_WC_RETRY_EXC_ERR: return "RETRY_EXC_ERR";
	case SMCR_WC_RNR_RETRY_EXC_ERR: return "RNR_RETRY_EXC_ERR";
	case SMCR_WC_GENERAL_ERR: return "GENERAL_ERR";
	}
	return "?";
}

/* Events -------------------------------------------------------------------------- */

static bool wait_done(const lab *L)
{
	if (L->wait_ep && L->wait_ep->wcs->len < L->wait_wcs)
		return false;
	if (L->wait_ep && L->wait_ep->inbox->len < L->wait_msgs * MSG_LEN)
		return false;
	if (L->wait_ep && L->wait_async && L->wait_ep->async[L->wait_async] == 0)
		return false;
	return L->wait_ep != NULL;
}

static bool trace_wcs;
static int post_recv_slot(lab *L, endpoint *ep, uint32_t slot);

static void on_completion(void *user, const smcr_wc *wc)
{
	lab *L = user;
	endpoint *ep = wc->qp_ctx;
	if (trace_wcs)
		note("wc %s qp %u wr_id %#llx %s opcode %d len %u", ep->label, wc->qp_num, (unsigned long long)wc->wr_id,
		     wc_status_name(wc->status), wc->opcode, wc->byte_len);
	g_array_append_val(ep->wcs, *wc);
	/* as the SMC-R core does: take the message out of its slot and repost the slot at once,
	 * so the sender never meets an empty receive queue */
	if (wc->opcode == SMCR_WC_RECV && wc->status == SMCR_WC_SUCCESS) {
		if (wc->byte_len == MSG_LEN)
			g_byte_array_append(ep->inbox, ep->slots + wc->wr_id * SLOT_LEN, MSG_LEN);
		else
			ep->inbox_bad++;
		if (ep->qp)
			post_recv_slot(L, ep, (uint32_t)wc->wr_id);
	}
	if (wait_done(L))
		sim_realtime_quit(L->rt);
}

static void on_async(void *user, smcr_tp_dev *dev, uint8_t port, smcr_async_event ev, void *qp_ctx)
{
	lab *L = user;
	for (int i = 0; i < 2; i++) {
		endpoint *ep = L->eps[i];
		if (!ep || (qp_ctx ? qp_ctx != ep : ep->dev != dev))
			continue;
		if ((unsigned)ev < G_N_ELEMENTS(ep->async))
			ep->async[ev]++;
		note("async event %d on %s port %u (%s)", ev, verbs_dev_name(dev), port, ep->label);
	}
	if (wait_done(L))
		sim_realtime_quit(L->rt);
}

/* The fd callback needs the lab and the device: */
typedef struct fd_ctx {
	lab *L;
	smcr_tp_dev *dev;
} fd_ctx;

static void on_dev_fd(void *ctx, int fd)
{
	(void)fd;
	fd_ctx *c = ctx;
	int rc = verbs_dev_process(c->L->vt, c->dev);
	if (rc < 0)
		note("verbs_dev_process: %s", verbs_transport_last_error(c->L->vt, NULL));
}

/* Run the real-time loop until ep has `n` completions (and, if async != 0, that async
 * event), or timeout_ms passes. */
static bool wait_for(lab *L, endpoint *ep, guint n, int async, unsigned timeout_ms)
{
	L->wait_ep = ep;
	L->wait_wcs = n;
	L->wait_async = async;
	if (!wait_done(L))
		sim_realtime_run(L->rt, sim_now(L->eng) + (sim_time)timeout_ms * SIM_MS);
	bool ok = wait_done(L);
	L->wait_ep = NULL;
	return ok;
}

static void make_msg(uint8_t *m, uint32_t seq, uint8_t tag);

/* Until ep's inbox holds n messages. */
static bool wait_msgs(lab *L, endpoint *ep, guint n, unsigned timeout_ms)
{
	L->wait_msgs = n;
	bool ok = wait_for(L, ep, 0, 0, timeout_ms);
	L->wait_msgs = 0;
	return ok;
}

/* Messages [from, from+n) of ep's inbox equal make_msg(first_seq + i, tag). */
static int inbox_matches(const endpoint *ep, guint from, int n, uint32_t first_seq, uint8_t tag)
{
	int ok = 0;
	for (int i = 0; i < n && (from + (guint)i + 1) * MSG_LEN <= ep->inbox->len; i++) {
		uint8_t want[MSG_LEN];
		make_msg(want, first_seq + (uint32_t)i, tag);
		ok += !memcmp(ep->inbox->data + (from + (guint)i) * MSG_LEN, want, MSG_LEN);
	}
	return ok;
}

/* Let `ms` of wall time pass in the loop (completions keep being delivered). */
static void pause_ms(lab *L, unsigned ms)
{
	sim_realtime_run(L->rt, sim_now(L->eng) + (sim_time)ms * SIM_MS);
}

/* Endpoints ----------------------------------------------------------------------- */

static void endpoint_free(lab *L, endpoint *ep);

static endpoint *endpoint_open(lab *L, const char *label, size_t rmb_len, fd_ctx *fc)
{
	endpoint *ep = g_new0(endpoint, 1);
	ep->label = label;
	ep->wcs = g_array_new(FALSE, TRUE, sizeof(smcr_wc));
	ep->inbox = g_byte_array_new();
	ep->dev = verbs_dev_open(L->vt, L->dev_name);
	if (!ep->dev) {
		check(L, false, "%s: open %s: %s", label, L->dev_name, verbs_transport_last_error(L->vt, NULL));
		goto fail;
	}
	if (verbs_dev_port(L->vt, ep->dev, (uint8_t)L->port, &ep->port) != 0) {
		check(L, false, "%s: port %d: %s", label, L->port, verbs_transport_last_error(L->vt, NULL));
		goto fail;
	}
	fc->L = L;
	fc->dev = ep->dev;
	int fds[2];
	size_t nfd = verbs_dev_fds(ep->dev, fds, 2);
	for (size_t i = 0; i < nfd; i++)
		sim_realtime_watch_fd(L->rt, fds[i], on_dev_fd, fc);

	smcr_port_desc *p = &ep->port;
	char mac[ADDR_TEXT_MAC_LEN];
	note("%s: %s port %u state %s, active MTU %u, MAC %s, %u RoCE GIDs", label, p->name, p->port,
	     p->state == SMCR_PORT_ACTIVE ? "ACTIVE" : "DOWN", smcr_mtu_bytes(p->active_mtu),
	     addr_text_mac(p->mac, mac, sizeof(mac)), p->n_gids);
	for (uint32_t i = 0; i < p->n_gids; i++) {
		char text[GID_STRLEN];
		gid_format(p->gids[i].gid, text);
		note("  gid[%u] %s RoCE v%d vlan %u", p->gids[i].index, text, p->gids[i].type, p->gids[i].vlan_id);
	}
	ep->gid_pos = gid_table_select(p, SMCR_GID_ROCE_V2, 0, 0, 0);
	if (!check(L, p->state == SMCR_PORT_ACTIVE && ep->gid_pos >= 0,
	           "%s: port is ACTIVE and has an IPv4-mapped RoCE v2 GID (position %d)", label, ep->gid_pos))
		goto fail;

	ep->slots = g_malloc0((RECV_SLOTS + SEND_SLOTS) * SLOT_LEN);
	ep->slots_mr = L->ops->reg_mr(L->vt, ep->dev, ep->slots, (RECV_SLOTS + SEND_SLOTS) * SLOT_LEN,
	                              SMCR_ACCESS_LOCAL_WRITE, &ep->slots_mri);
	ep->rmb_len = rmb_len;
	ep->rmb = g_malloc0(rmb_len);
	ep->rmb_mr = L->ops->reg_mr(L->vt, ep->dev, ep->rmb, rmb_len,
	                            SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE, &ep->rmb_mri);
	if (!check(L, ep->slots_mr && ep->rmb_mr && ep->rmb_mri.iova == (uint64_t)(uintptr_t)ep->rmb,
	           "%s: registered %zu MiB RMB (LOCAL_WRITE|REMOTE_WRITE), iova = its address", label, rmb_len >> 20))
		goto fail;
	return ep;
fail:
	endpoint_free(L, ep);
	return NULL;
}

static bool endpoint_create_qp(lab *L, endpoint *ep, uint32_t psn)
{
	smcr_qp_caps caps = { .max_send_wr = 48, .max_recv_wr = RECV_SLOTS, .max_send_sge = 2, .max_recv_sge = 1 };
	ep->qp = L->ops->create_qp(L->vt, ep->dev, (uint8_t)L->port, &caps, ep, &ep->qpn);
	ep->psn = psn & 0xffffffu;
	g_array_set_size(ep->wcs, 0);
	return check(L, ep->qp && L->ops->query_qp_state(L->vt, ep->qp) == SMCR_QPS_RESET,
	             "%s: RC QP %u created in RESET", ep->label, ep->qpn);
}

static void endpoint_info(const endpoint *ep, peer_info *pi)
{
	memset(pi, 0, sizeof *pi);
	pi->qpn = ep->qpn;
	pi->psn = ep->psn;
	memcpy(pi->gid, ep->port.gids[ep->gid_pos].gid, 16);
	pi->mtu = ep->port.active_mtu;
	pi->rmb_iova = ep->rmb_mri.iova;
	pi->rmb_rkey = ep->rmb_mri.rkey;
	pi->rmb_len = ep->rmb_len;
}

static int post_recv_slot(lab *L, endpoint *ep, uint32_t slot)
{
	smcr_recv_wr wr = { .wr_id = slot, .num_sge = 1, .sg_list = { { ep->slots + slot * SLOT_LEN, SLOT_LEN, ep->slots_mri.lkey } } };
	return L->ops->post_recv(L->vt, ep->qp, &wr);
}

/* RESET → INIT → RTR (then all receives posted, as Linux does) → RTS, with smc_ib.c's
 * attributes; timeout is the local ACK timeout exponent (Linux: 15). */
static bool endpoint_connect(lab *L, endpoint *ep, const peer_info *peer, uint8_t timeout, uint8_t retry)
{
	smcr_qp_attr init = { .state = SMCR_QPS_INIT, .pkey_index = 0, .port = (uint8_t)L->port, .access = SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE };
	int rc = L->ops->modify_qp(L->vt, ep->qp, &init);
	if (!check(L, rc == 0 && L->ops->query_qp_state(L->vt, ep->qp) == SMCR_QPS_INIT, "%s: QP %u RESET→INIT (%s)",
	           ep->label, ep->qpn, rc ? verbs_transport_last_error(L->vt, NULL) : "pkey 0, LOCAL|REMOTE_WRITE"))
		return false;
	smcr_qp_attr rtr = {
		.state = SMCR_QPS_RTR,
		.path_mtu = ep->port.active_mtu < (smcr_mtu)peer->mtu ? ep->port.active_mtu : (smcr_mtu)peer->mtu,
		.ah = { .sgid_index = ep->port.gids[ep->gid_pos].index, .hop_limit = 1 },
		.dest_qpn = peer->qpn,
		.rq_psn = peer->psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 5,
	};
	memcpy(rtr.ah.dgid, peer->gid, 16);
	rc = L->ops->modify_qp(L->vt, ep->qp, &rtr);
	if (!check(L, rc == 0 && L->ops->query_qp_state(L->vt, ep->qp) == SMCR_QPS_RTR,
	           "%s: QP %u INIT→RTR (dest QP %u, MTU %u, sgid index %u, hop limit 1) %s", ep->label, ep->qpn,
	           peer->qpn, smcr_mtu_bytes(rtr.path_mtu), rtr.ah.sgid_index, rc ? verbs_transport_last_error(L->vt, NULL) : ""))
		return false;
	int bad = 0;
	for (uint32_t s = 0; s < RECV_SLOTS; s++)
		bad += post_recv_slot(L, ep, s) != 0;
	if (!check(L, bad == 0, "%s: %d receive WRs posted after RTR", ep->label, RECV_SLOTS))
		return false;
	smcr_qp_attr rts = { .state = SMCR_QPS_RTS, .timeout = timeout, .retry_cnt = retry, .rnr_retry = 7, .sq_psn = ep->psn, .max_rd_atomic = 1 };
	rc = L->ops->modify_qp(L->vt, ep->qp, &rts);
	return check(L, rc == 0 && L->ops->query_qp_state(L->vt, ep->qp) == SMCR_QPS_RTS,
	             "%s: QP %u RTR→RTS (timeout %u, retry %u, rnr_retry 7) %s", ep->label, ep->qpn, timeout, retry,
	             rc ? verbs_transport_last_error(L->vt, NULL) : "");
}

/* 44 bytes shaped like an SMC-R LLC TEST_LINK request; user data carries the sequence. */
static void make_msg(uint8_t *m, uint32_t seq, uint8_t tag)
{
	memset(m, 0, MSG_LEN);
	m[0] = 0x07;
	m[1] = MSG_LEN;
	m[4] = tag;
	m[5] = (uint8_t)(seq >> 24);
	m[6] = (uint8_t)(seq >> 16);
	m[7] = (uint8_t)(seq >> 8);
	m[8] = (uint8_t)seq;
	for (int i = 9; i < 20; i++)
		m[i] = (uint8_t)(seq * 31u + (uint32_t)i);
}

static int send_msg(lab *L, endpoint *ep, uint32_t seq, uint8_t tag, uint32_t flags)
{
	uint32_t slot = RECV_SLOTS + seq % SEND_SLOTS;
	uint8_t *m = ep->slots + slot * SLOT_LEN;
	make_msg(m, seq, tag);
	smcr_send_wr wr = { .wr_id = seq, .opcode = SMCR_WR_SEND, .send_flags = flags, .num_sge = 1, .sg_list = { { m, MSG_LEN, ep->slots_mri.lkey } } };
	return L->ops->post_send(L->vt, ep->qp, &wr);
}

static int count_wcs(const endpoint *ep, guint from, smcr_wc_opcode op, smcr_wc_status st)
{
	int n = 0;
	for (guint i = from; i < ep->wcs->len; i++) {
		const smcr_wc *w = &g_array_index(ep->wcs, smcr_wc, i);
		n += w->opcode == op && w->status == st;
	}
	return n;
}

/* Data pattern ------------------------------------------------------------------- */

static uint64_t pattern_word(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + i * 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void fill_pattern(uint8_t *buf, size_t len, uint64_t seed)
{
	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t w = pattern_word(seed, i / 8);
		memcpy(buf + i, &w, 8);
	}
}

static size_t first_mismatch(const uint8_t *buf, size_t len, uint64_t seed)
{
	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t w = pattern_word(seed, i / 8);
		if (memcmp(buf + i, &w, 8))
			return i;
	}
	return len;
}

/* The tests -------------------------------------------------------------------------- */

/* n SENDs a → b, signaled + solicited, at most SEND_SLOTS in flight; b checks length,
 * content and order. */
static bool test_sends(lab *L, endpoint *a, endpoint *b, int n)
{
	guint a0 = a->wcs->len, m0 = b->inbox->len / MSG_LEN;
	int posted = 0;
	uint64_t s0, r0, s1, r1;
	verbs_dev_notify_counts(b->dev, &s0, &r0);
	double t0 = wall_s();
	for (int i = 0; i < n; i++) {
		/* a send slot is reused only after its completion */
		if (posted - (int)(a->wcs->len - a0) >= SEND_SLOTS &&
		    !wait_for(L, a, a0 + (guint)(posted - SEND_SLOTS + 1), 0, 5000)) {
			note("no send completion within 5 s (%u so far)", a->wcs->len - a0);
			break;
		}
		int rc = send_msg(L, a, (uint32_t)i, 0xa5, SMCR_SEND_SIGNALED | SMCR_SEND_SOLICITED);
		if (rc != 0) {
			note("post_send: %s", verbs_transport_last_error(L->vt, NULL));
			break;
		}
		posted++;
	}
	wait_for(L, a, a0 + (guint)posted, 0, 10000);
	wait_msgs(L, b, m0 + (guint)posted, 10000);
	double dt = wall_s() - t0;
	int send_ok = count_wcs(a, a0, SMCR_WC_SEND, SMCR_WC_SUCCESS);
	int recv_ok = inbox_matches(b, m0, n, 0, 0xa5);
	verbs_dev_notify_counts(b->dev, &s1, &r1);
	check(L, posted == n && send_ok == n, "%s→%s: %d SENDs of 44 bytes completed (signaled)", a->label, b->label, send_ok);
	check(L, recv_ok == n && b->inbox_bad == 0, "%s: %d/%d receives with the right length, content and order",
	      b->label, recv_ok, n);
	check(L, r1 > r0, "%s: solicited SENDs woke the receive CQ (%llu notifications)", b->label,
	      (unsigned long long)(r1 - r0));
	printf("MEASURE send_msgs_per_s %.0f msg/s\n", n / dt);
	return recv_ok == n;
}

/* A SEND without the solicited bit completes on b without waking b's receive CQ (armed
 * solicited-only, as Linux arms it); the next solicited SEND wakes it and both arrive. */
static bool test_solicited_only(lab *L, endpoint *a, endpoint *b)
{
	guint a0 = a->wcs->len, b0 = b->wcs->len;
	uint64_t s0, r0, s1, r1;
	verbs_dev_notify_counts(b->dev, &s0, &r0);
	send_msg(L, a, 1000, 0x5a, SMCR_SEND_SIGNALED);
	bool acked = wait_for(L, a, a0 + 1, 0, 5000); /* ACKed: b's receive has completed */
	pause_ms(L, 100);
	verbs_dev_notify_counts(b->dev, &s1, &r1);
	/* (its completion may still be delivered: any wake-up of the device, e.g. an async
	 * event, polls both CQs) */
	check(L, acked && r1 == r0, "%s: a non-solicited SEND did not wake the receive CQ (%llu notifications)",
	      b->label, (unsigned long long)(r1 - r0));
	send_msg(L, a, 1001, 0x5a, SMCR_SEND_SIGNALED | SMCR_SEND_SOLICITED);
	bool both = wait_for(L, b, b0 + 2, 0, 5000);
	verbs_dev_notify_counts(b->dev, &s1, &r1);
	wait_for(L, a, a0 + 2, 0, 5000);
	return check(L, both && r1 == r0 + 1 && b->inbox->len >= 2 * MSG_LEN && inbox_matches(b, b->inbox->len / MSG_LEN - 2, 2, 1000, 0x5a) == 2,
	             "%s: the solicited SEND woke it once and both receives arrived in order", b->label);
}

/* RDMA WRITE `total` bytes from src into the peer's RMB, in chunks, at most 32 WRs in
 * flight, every WR signaled. Returns bytes/s, or 0 on failure. */
static double rdma_write_all(lab *L, endpoint *a, const uint8_t *src, uint32_t lkey, size_t total,
                             const peer_info *peer, size_t chunk)
{
	guint a0 = a->wcs->len;
	size_t off = 0;
	guint posted = 0;
	double t0 = wall_s();
	while (off < total) {
		if (posted - (a->wcs->len - a0) >= 32 && !wait_for(L, a, a0 + posted - 31, 0, 20000))
			return 0;
		size_t len = total - off < chunk ? total - off : chunk;
		smcr_send_wr wr = { .wr_id = WR_DONE_BIT | posted, .opcode = SMCR_WR_RDMA_WRITE, .send_flags = SMCR_SEND_SIGNALED, .num_sge = 1, .sg_list = { { (void *)(src + off), (uint32_t)len, lkey } }, .remote_addr = peer->rmb_iova + off, .rkey = peer->rmb_rkey };
		int rc = L->ops->post_send(L->vt, a->qp, &wr);
		if (rc == SMCR_ERR_AGAIN) {
			wait_for(L, a, a->wcs->len + 1, 0, 20000);
			continue;
		}
		if (rc != 0) {
			note("post_send RDMA WRITE: %s", verbs_transport_last_error(L->vt, NULL));
			return 0;
		}
		posted++;
		off += len;
	}
	if (!wait_for(L, a, a0 + posted, 0, 60000))
		return 0;
	double dt = wall_s() - t0;
	int ok = count_wcs(a, a0, SMCR_WC_RDMA_WRITE, SMCR_WC_SUCCESS);
	if (ok != (int)posted) {
		note("%d of %u RDMA WRITEs succeeded", ok, posted);
		return 0;
	}
	return (double)total / dt;
}

/* An RDMA WRITE with a wrong rkey: the writer gets REM_ACCESS_ERR for that WR, its QP goes
 * to ERR and the rest of its queue (its posted receives) is flushed. */
static bool test_rkey_violation(lab *L, endpoint *a, const peer_info *peer)
{
	guint a0 = a->wcs->len;
	smcr_send_wr wr = { .wr_id = 0xbad, .opcode = SMCR_WR_RDMA_WRITE, .send_flags = SMCR_SEND_SIGNALED, .num_sge = 1, .sg_list = { { a->rmb, 4096, a->rmb_mri.lkey } }, .remote_addr = peer->rmb_iova, .rkey = peer->rmb_rkey ^ 0x5a5a00u };
	int rc = L->ops->post_send(L->vt, a->qp, &wr);
	bool got = rc == 0 && wait_for(L, a, a0 + 1, 0, 10000);
	smcr_wc w = got ? g_array_index(a->wcs, smcr_wc, a0) : (smcr_wc){ 0 };
	check(L, got && w.wr_id == 0xbad && w.status == SMCR_WC_REM_ACCESS_ERR,
	      "%s: RDMA WRITE with a wrong rkey completed with REM_ACCESS_ERR (got %s, wr_id %#llx)", a->label,
	      got ? wc_status_name(w.status) : "nothing", (unsigned long long)w.wr_id);
	check(L, L->ops->query_qp_state(L->vt, a->qp) == SMCR_QPS_ERR, "%s: its QP is in ERR", a->label);
	bool flushed = wait_for(L, a, a0 + 1 + RECV_SLOTS, 0, 5000);
	int n = count_wcs(a, a0, SMCR_WC_RECV, SMCR_WC_WR_FLUSH_ERR);
	return check(L, flushed && n == RECV_SLOTS, "%s: its %d posted receives were flushed (WR_FLUSH_ERR, RECV): %d",
	             a->label, RECV_SLOTS, n);
}

/* Moving a QP to ERR flushes every outstanding WR, and a peer that keeps sending to it
 * gives up after its retries (RETRY_EXC_ERR). rxe treats retry_cnt 7 as "retry forever"
 * (rxe_comp.c), so the pair under test uses 3. */
static void test_flush_and_retry(lab *L, endpoint *a, endpoint *b)
{
	guint b0 = b->wcs->len, a0 = a->wcs->len;
	smcr_qp_attr err = { .state = SMCR_QPS_ERR };
	int rc = L->ops->modify_qp(L->vt, b->qp, &err);
	check(L, rc == 0 && L->ops->query_qp_state(L->vt, b->qp) == SMCR_QPS_ERR, "%s: QP moved to ERR", b->label);
	/* Do flushed receives wake a CQ armed for solicited completions only? Observe, then
	 * poll: the core must not depend on it either way. */
	uint64_t s0, r0, s1, r1;
	verbs_dev_notify_counts(b->dev, &s0, &r0);
	bool woke = wait_for(L, b, b0 + RECV_SLOTS, 0, 1000);
	verbs_dev_notify_counts(b->dev, &s1, &r1);
	note("flushed receives %s the solicited-only receive CQ (%llu notifications)", woke ? "woke" : "did not wake",
	     (unsigned long long)(r1 - r0));
	double deadline = wall_s() + 5;
	while (b->wcs->len < b0 + RECV_SLOTS && wall_s() < deadline) {
		pause_ms(L, 20);
		verbs_dev_process(L->vt, b->dev);
	}
	int n = count_wcs(b, b0, SMCR_WC_RECV, SMCR_WC_WR_FLUSH_ERR);
	check(L, n == RECV_SLOTS, "%s: all %d posted receives completed with WR_FLUSH_ERR (%d)", b->label, RECV_SLOTS, n);
	double t0 = wall_s();
	send_msg(L, a, 7, 0x77, SMCR_SEND_SIGNALED | SMCR_SEND_SOLICITED);
	bool got = wait_for(L, a, a0 + 1, 0, 20000);
	smcr_wc w = got ? g_array_index(a->wcs, smcr_wc, a0) : (smcr_wc){ 0 };
	check(L, got && w.status == SMCR_WC_RETRY_EXC_ERR,
	      "%s: a SEND to the dead peer ends in RETRY_EXC_ERR after %.2f s (got %s)", a->label, wall_s() - t0,
	      got ? wc_status_name(w.status) : "nothing");
	check(L, L->ops->query_qp_state(L->vt, a->qp) == SMCR_QPS_ERR, "%s: and its QP is in ERR", a->label);
}

/* Take the interface down and up: rxe reports PORT_ERR and PORT_ACTIVE on every context. */
static void test_link_flap(lab *L, endpoint *a, const char *iface)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "ip link set dev %s down", iface);
	int rc = system(cmd);
	bool err = rc == 0 && wait_for(L, a, 0, SMCR_EV_PORT_ERR, 5000);
	smcr_port_desc d;
	verbs_dev_port(L->vt, a->dev, (uint8_t)L->port, &d);
	check(L, err && d.state == SMCR_PORT_DOWN, "%s: '%s' gave SMCR_EV_PORT_ERR and the port reads DOWN", a->label, cmd);
	snprintf(cmd, sizeof cmd, "ip link set dev %s up", iface);
	rc = system(cmd);
	bool up = rc == 0 && wait_for(L, a, 0, SMCR_EV_PORT_ACTIVE, 10000);
	verbs_dev_port(L->vt, a->dev, (uint8_t)L->port, &d);
	check(L, up && d.state == SMCR_PORT_ACTIVE, "%s: '%s' gave SMCR_EV_PORT_ACTIVE and the port reads ACTIVE", a->label, cmd);
}

static void endpoint_drop_qp(lab *L, endpoint *ep)
{
	L->ops->destroy_qp(L->vt, ep->qp);
	ep->qp = NULL;
}

static void endpoint_free(lab *L, endpoint *ep)
{
	if (!ep)
		return;
	if (ep->qp)
		L->ops->destroy_qp(L->vt, ep->qp);
	if (ep->rmb_mr)
		L->ops->dereg_mr(L->vt, ep->rmb_mr);
	if (ep->slots_mr)
		L->ops->dereg_mr(L->vt, ep->slots_mr);
	g_free(ep->rmb);
	g_free(ep->slots);
	g_array_free(ep->wcs, TRUE);
	g_byte_array_free(ep->inbox, TRUE);
	g_free(ep);
}

static uint32_t draw_psn(lab *L, uint64_t index)
{
	sim_rng r;
	sim_engine_rng(L->eng, "selftest.psn", index, &r);
	return sim_rng_u32(&r) & 0xffffffu;
}

/* loop: two contexts on one device, one QP each, connected to each other. */
static void run_loop(lab *L)
{
	size_t total = L->write_mib << 20;
	fd_ctx fa, fb;
	endpoint *a = endpoint_open(L, "A", total, &fa);
	L->eps[0] = a;
	endpoint *b = a ? endpoint_open(L, "B", total, &fb) : NULL;
	L->eps[1] = b;
	if (!a || !b)
		return;
	peer_info ia, ib;
	if (!endpoint_create_qp(L, a, draw_psn(L, 0)) || !endpoint_create_qp(L, b, draw_psn(L, 1)))
		return;
	endpoint_info(a, &ia);
	endpoint_info(b, &ib);
	if (!endpoint_connect(L, b, &ia, 15, 7) || !endpoint_connect(L, a, &ib, 15, 7))
		return;

	test_sends(L, a, b, L->messages);
	test_solicited_only(L, a, b);

	fill_pattern(a->rmb, total, 42);
	double bps = rdma_write_all(L, a, a->rmb, a->rmb_mri.lkey, total, &ib, L->chunk_kib << 10);
	size_t bad = first_mismatch(b->rmb, total, 42);
	check(L, bps > 0 && bad == total, "A→B: RDMA WRITE of %zu MiB in %zu KiB WRs, content verified%s", L->write_mib,
	      L->chunk_kib, bad == total ? "" : " (MISMATCH)");
	if (bad != total)
		note("first difference at offset %zu", bad);
	printf("MEASURE rdma_write_MiB_per_s %.1f MiB/s\n", bps / (1 << 20));

	test_rkey_violation(L, a, &ib);

	/* a fresh pair for the flush test; destroyed QPs deliver nothing more */
	endpoint_drop_qp(L, a);
	endpoint_drop_qp(L, b);
	guint a_before = a->wcs->len;
	pause_ms(L, 50);
	check(L, a->wcs->len == a_before, "destroyed QPs deliver no completions");
	if (!endpoint_create_qp(L, a, draw_psn(L, 2)) || !endpoint_create_qp(L, b, draw_psn(L, 3)))
		return;
	endpoint_info(a, &ia);
	endpoint_info(b, &ib);
	if (!endpoint_connect(L, b, &ia, 14, 3) || !endpoint_connect(L, a, &ib, 14, 3))
		return;
	test_sends(L, a, b, 8);
	test_flush_and_retry(L, a, b);

	if (L->flap_iface)
		test_link_flap(L, a, L->flap_iface);
}

/* Two hosts --------------------------------------------------------------------------- */

static int tcp_connect(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	for (int attempt = 0; attempt < 120; attempt++) {
		if (getaddrinfo(host, port, &hints, &res) == 0) {
			int fd = socket(res->ai_family, SOCK_STREAM, 0);
			if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
				freeaddrinfo(res);
				return fd;
			}
			if (fd >= 0)
				close(fd);
			freeaddrinfo(res);
		}
		usleep(500000);
	}
	return -1;
}

static int tcp_accept(const char *port)
{
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)) };
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof sa) || listen(ls, 1))
		return -1;
	int fd = accept(ls, NULL, NULL);
	close(ls);
	return fd;
}

static bool send_line(int fd, const char *line)
{
	size_t len = strlen(line);
	return write(fd, line, len) == (ssize_t)len;
}

static bool recv_line(int fd, char *buf, size_t len)
{
	struct timeval tv = { .tv_sec = 120 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	size_t n = 0;
	while (n + 1 < len) {
		ssize_t r = read(fd, buf + n, 1);
		if (r != 1)
			return false;
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = '\0';
	return true;
}

static bool exchange(int fd, const peer_info *mine, peer_info *theirs)
{
	char line[256], gid[GID_STRLEN], peer_gid[64];
	gid_format(mine->gid, gid);
	snprintf(line, sizeof line, "QP %u %u %s %u %llu %u %llu\n", mine->qpn, mine->psn, gid, mine->mtu,
	         (unsigned long long)mine->rmb_iova, mine->rmb_rkey, (unsigned long long)mine->rmb_len);
	if (!send_line(fd, line) || !recv_line(fd, line, sizeof line))
		return false;
	unsigned long long iova, len;
	if (sscanf(line, "QP %u %u %63s %u %llu %u %llu", &theirs->qpn, &theirs->psn, peer_gid, &theirs->mtu, &iova,
	           &theirs->rmb_rkey, &len) != 7 ||
	    gid_table_parse_gid(peer_gid, theirs->gid) != 0)
		return false;
	theirs->rmb_iova = iova;
	theirs->rmb_len = len;
	return true;
}

static void run_two_hosts(lab *L, bool server, const char *host, const char *port)
{
	size_t total = L->write_mib << 20;
	fd_ctx fc;
	endpoint *ep = endpoint_open(L, server ? "server" : "client", total, &fc);
	L->eps[0] = ep;
	if (!ep || !endpoint_create_qp(L, ep, draw_psn(L, server ? 10 : 11)))
		return;
	int fd = server ? tcp_accept(port) : tcp_connect(host, port);
	if (!check(L, fd >= 0, "TCP control connection %s", server ? "accepted" : "established"))
		return;
	peer_info mine, peer;
	endpoint_info(ep, &mine);
	if (!check(L, exchange(fd, &mine, &peer), "QP numbers, PSNs, GIDs and RMB keys exchanged") ||
	    !endpoint_connect(L, ep, &peer, 15, 7)) {
		close(fd);
		return;
	}
	char line[128];
	/* both sides in RTS before the first SEND: a SEND to a QP still in INIT is dropped */
	send_line(fd, "RTS\n");
	recv_line(fd, line, sizeof line);
	if (server) {
		/* receive the client's SENDs, then its RDMA WRITEs, announced by a last SEND */
		wait_msgs(L, ep, (guint)L->messages + 1, 120000);
		int ok = inbox_matches(ep, 0, L->messages + 1, 0, 0xa5);
		check(L, ok == L->messages + 1 && ep->inbox_bad == 0, "server: %d/%d SENDs received intact and in order", ok, L->messages + 1);
		size_t bad = first_mismatch(ep->rmb, total, 4242);
		check(L, bad == total, "server: the %zu MiB the client wrote into the RMB verified", L->write_mib);
		snprintf(line, sizeof line, "VERIFY %s\n", bad == total ? "ok" : "bad");
		send_line(fd, line);
		recv_line(fd, line, sizeof line); /* the client is done with its error test */
	} else {
		guint a0 = ep->wcs->len;
		int bad = 0;
		for (int i = 0; i < L->messages; i++) {
			if (i >= SEND_SLOTS)
				wait_for(L, ep, a0 + (guint)(i - SEND_SLOTS + 1), 0, 10000);
			bad += send_msg(L, ep, (uint32_t)i, 0xa5, SMCR_SEND_SIGNALED | SMCR_SEND_SOLICITED) != 0;
		}
		bool sent = !bad && wait_for(L, ep, a0 + (guint)L->messages, 0, 30000);
		check(L, sent && count_wcs(ep, a0, SMCR_WC_SEND, SMCR_WC_SUCCESS) == L->messages,
		      "client: %d SENDs completed", L->messages);
		fill_pattern(ep->rmb, total, 4242);
		double bps = rdma_write_all(L, ep, ep->rmb, ep->rmb_mri.lkey, total, &peer, L->chunk_kib << 10);
		check(L, bps > 0, "client: RDMA WRITE of %zu MiB to the server completed", L->write_mib);
		printf("MEASURE rdma_write_2vm_MiB_per_s %.1f MiB/s\n", bps / (1 << 20));
		guint c0 = ep->wcs->len;
		send_msg(L, ep, (uint32_t)L->messages, 0xa5, SMCR_SEND_SIGNALED | SMCR_SEND_SOLICITED);
		wait_for(L, ep, c0 + 1, 0, 10000);
		bool verified = recv_line(fd, line, sizeof line) && !strcmp(line, "VERIFY ok");
		check(L, verified, "client: the server verified the written data (%s)", line);
		test_rkey_violation(L, ep, &peer);
		send_line(fd, "BYE\n");
	}
	close(fd);
}

/* main ------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	gchar *dev = NULL, *flap = NULL;
	gint port = 1, messages = 100;
	gint64 mib = 64, chunk = 256;
	GOptionEntry entries[] = {
		{ "dev", 'd', 0, G_OPTION_ARG_STRING, &dev, "RDMA device (rxe0)", "NAME" },
		{ "port", 'p', 0, G_OPTION_ARG_INT, &port, "port (1)", "N" },
		{ "mib", 'm', 0, G_OPTION_ARG_INT64, &mib, "MiB written by RDMA WRITE (64)", "N" },
		{ "chunk-kib", 'c', 0, G_OPTION_ARG_INT64, &chunk, "bytes per RDMA WRITE WR, KiB (256)", "N" },
		{ "messages", 'n', 0, G_OPTION_ARG_INT, &messages, "44-byte SENDs (100)", "N" },
		{ "link-flap", 0, 0, G_OPTION_ARG_STRING, &flap, "loop: take IFACE down and up at the end", "IFACE" },
		{ NULL },
	};
	GOptionContext *oc = g_option_context_new("loop | server PORT | client HOST PORT");
	g_option_context_add_main_entries(oc, entries, NULL);
	GError *err = NULL;
	if (!g_option_context_parse(oc, &argc, &argv, &err)) {
		fprintf(stderr, "verbs_selftest: %s\n", err->message);
		return 2;
	}
	g_option_context_free(oc);
	bool loop = argc == 2 && !strcmp(argv[1], "loop");
	bool server = argc == 3 && !strcmp(argv[1], "server");
	bool client = argc == 4 && !strcmp(argv[1], "client");
	if ((!loop && !server && !client) || mib <= 0 || chunk <= 0 || messages <= 0 || messages > 10000) {
		fprintf(stderr, "usage: verbs_selftest [OPTION…] loop | server PORT | client HOST PORT\n");
		return 2;
	}
	trace_wcs = getenv("SELFTEST_TRACE") != NULL;
	lab L = { .dev_name = dev ? dev : "rxe0", .port = port, .write_mib = (size_t)mib, .chunk_kib = (size_t)chunk, .messages = messages, .flap_iface = flap };
	verbs_sink sink = { .completion = on_completion, .async_event = on_async };
	L.vt = verbs_transport_new(&sink, &L);
	L.ops = verbs_transport_ops();
	L.eng = sim_engine_new(1);
	L.rt = sim_realtime_new(L.eng);
	double t0 = wall_s();
	if (loop)
		run_loop(&L);
	else
		run_two_hosts(&L, server, client ? argv[2] : NULL, argv[argc - 1]);
	endpoint_free(&L, L.eps[0]);
	endpoint_free(&L, L.eps[1]);
	sim_realtime_free(L.rt);
	verbs_transport_free(L.vt);
	sim_engine_free(L.eng);
	printf("SUMMARY verbs_selftest %s: %d passed, %d failed, %.1f s\n", argv[1], L.checks - L.failed, L.failed,
	       wall_s() - t0);
	g_free(dev);
	g_free(flap);
	return L.failed || L.checks == 0 ? 1 : 0;
}
