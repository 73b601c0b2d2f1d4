/* Two WRITE flows through a RED-marking bottleneck (see testbed_bottleneck.h). */
#include "sim/testbed/testbed_bottleneck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/engine/oom.h"
#include "sim/fabric/congestion.h"
#include "sim/fabric/pcap_writer.h"
#include "sim/fabric/switch.h"
#include "sim/fabric/wire.h"
#include "sim/rdma/dcqcn.h"
#include "sim/rdma/mr.h"
#include "sim/rdma/qp.h"

#define MR_SIZE (1u << 20)

typedef struct node {
	rnic *nic;
	rnic_vf *vf;
	rnic_qp *qp;
	rnic_mr *mr;
	smcr_mr_info mri;
	uint8_t *mem;
	sim_wire *wire;
} node;

typedef struct bench bench;

typedef struct flow {
	bench *b;
	unsigned idx;
	node *src, *dst;
} flow;

struct bench {
	const bottleneck_params *p;
	bottleneck_result *r;
	sim_engine *eng;
	sim_fabric *fab;
	sim_switch *sw1, *sw2;
	node n[4]; /* S1, S2, R1, R2 */
	flow f[2];
	sim_endpoint relay_in, relay_out;
	bool relay; /* the relay's endpoints exist */
	sim_wire *w_in, *w_bottleneck;
	sim_rng red;
	sim_pcap_writer *pcap;
	uint8_t sender_mac[2][6]; /* S1's and S2's VF MACs: the source of their data frames */
};

/* --- the relay: a bridge whose egress into the bottleneck marks with RED ------------- */

static bool red_mark(bench *b)
{
	const bottleneck_params *p = b->p;
	sim_time now = sim_now(b->eng), idle = sim_endpoint_tx_idle_at(&b->relay_out);
	uint64_t queued = idle > now ? (idle - now) * (p->bottleneck_bps / 1000000u) / 8000u : 0;
	if (queued <= p->kmin)
		return false;
	if (queued >= p->kmax)
		return true;
	sim_ratio pr = { p->pmax.num * (queued - p->kmin), p->pmax.den * (p->kmax - p->kmin) };
	return sim_rng_chance(&b->red, pr);
}

static void relay_in_rx(sim_endpoint *ep, sim_frame *f)
{
	bench *b = ep->ctx;
	if (red_mark(b) && sim_frame_mark_ce(f))
		b->r->marked++;
	sim_endpoint_send(&b->relay_out, f);
}

static void relay_out_rx(sim_endpoint *ep, sim_frame *f)
{
	bench *b = ep->ctx;
	sim_endpoint_send(&b->relay_in, f);
}

/* The bottleneck's egress: each flow's share of the link (by the sender's MAC: only
 * data frames come from S1 and S2), and the capture when one is asked for. */
static void bottleneck_tap(void *ctx, const sim_plug *plug, sim_tap_dir dir, sim_time at, const sim_frame *f)
{
	(void)plug;
	(void)dir;
	bench *b = ctx;
	size_t w = (size_t)(at / b->p->window);
	for (unsigned i = 0; i < 2 && f->len >= 12 && w < BOTTLENECK_MAX_WINDOWS; i++)
		if (!memcmp(f->data + 6, b->sender_mac[i], 6))
			b->r->wire_bytes[i][w] += f->len + DCQCN_WIRE_OVERHEAD;
	if (b->pcap && sim_pcap_frames(b->pcap) < b->p->pcap_frames)
		sim_pcap_write(b->pcap, at, f->data, f->len);
}

/* --- the flows ------------------------------------------------------------------------ */

static int post_write(flow *fl)
{
	node *s = fl->src, *d = fl->dst;
	smcr_send_wr wr = { .wr_id = fl->idx, .opcode = SMCR_WR_RDMA_WRITE, .send_flags = SMCR_SEND_SIGNALED, .num_sge = 1, .remote_addr = d->mri.iova, .rkey = d->mri.rkey };
	wr.sg_list[0] = (smcr_sge){ s->mem, fl->b->p->msg, s->mri.lkey };
	return rnic_qp_post_send(s->qp, &wr);
}

static void on_wc(void *ctx, const smcr_wc *wc)
{
	flow *fl = ctx;
	bench *b = fl->b;
	if (!fl->src) /* a receiver: WRITEs complete nothing there */
		return;
	if (wc->status != SMCR_WC_SUCCESS) {
		b->r->failed = true;
		return;
	}
	sim_time now = sim_now(b->eng);
	size_t w = (size_t)(now / b->p->window);
	if (w < BOTTLENECK_MAX_WINDOWS) {
		b->r->bytes[fl->idx][w] += wc->byte_len;
		if (w + 1 > b->r->n_windows)
			b->r->n_windows = w + 1;
	}
	if (now < b->p->duration && post_write(fl))
		b->r->failed = true;
}

static void start_flow(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	flow *fl = ev->ctx;
	for (uint32_t i = 0; i < fl->b->p->depth; i++)
		if (post_write(fl))
			fl->b->r->failed = true;
}

static flow receiver_ctx; /* receivers' completions need no flow */

static int node_setup(bench *b, node *n, unsigned i, sim_switch *sw, uint32_t sw_port, uint64_t bps, flow *fl)
{
	static const char *const names[4] = { "S1", "S2", "R1", "R2" };
	rnic_config c = b->p->nic;
	snprintf(c.name, sizeof(c.name), "%s", names[i]);
	c.pfid = (uint16_t)(0x10 * (i + 1));
	c.nports = 1;
	c.ports[0].eth_mtu = 4200;
	n->nic = rnic_new(b->fab, &c);
	sim_wire_params wp;
	sim_wire_params_default(&wp);
	wp.bandwidth_bps = bps;
	wp.mtu = 4200;
	n->wire = sim_wire_new(b->fab, names[i], &wp);
	if (!n->nic || sim_endpoint_attach(rnic_port_endpoint(n->nic, 1), sim_wire_end(n->wire, 0)) ||
	    sim_plug_connect(sim_wire_end(n->wire, 1), sim_switch_port(sw, sw_port)))
		return -1;
	rnic_host host = { on_wc, NULL, fl ? (void *)fl : (void *)&receiver_ctx };
	n->vf = rnic_activate(n->nic, names[i], &host);
	if (!n->vf || rnic_vf_add_ipv4(n->vf, 1, 0x0A000001u + (i < 2 ? i : 8 + i), 24, 0))
		return -1;
	n->mem = sim_xcalloc(1, MR_SIZE, "the bottleneck testbed");
	n->mr = rnic_mr_reg(n->vf, n->mem, MR_SIZE, SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE, &n->mri);
	smcr_qp_caps caps = { 64, 1, 1, 1, 0 };
	n->qp = rnic_qp_create(n->vf, 1, &caps, n);
	return n->mr && n->qp ? 0 : -1;
}

static int connect_qp(node *s, node *peer)
{
	smcr_qp_attr a = { .state = SMCR_QPS_INIT, .port = 1, .access = SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE };
	if (rnic_qp_modify(s->qp, &a))
		return -1;
	smcr_port_desc mine, theirs;
	rnic_vf_port_desc(s->vf, 1, &mine);
	rnic_vf_port_desc(peer->vf, 1, &theirs);
	int si = -1, pi = -1;
	for (uint32_t i = 0; i < mine.n_gids; i++)
		if (mine.gids[i].type == SMCR_GID_ROCE_V2 && si < 0)
			si = (int)i;
	for (uint32_t i = 0; i < theirs.n_gids; i++)
		if (theirs.gids[i].type == SMCR_GID_ROCE_V2 && pi < 0)
			pi = (int)i;
	if (si < 0 || pi < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.state = SMCR_QPS_RTR;
	a.path_mtu = SMCR_MTU_4096;
	memcpy(a.ah.dgid, theirs.gids[pi].gid, 16);
	memcpy(a.ah.dmac, theirs.mac, 6);
	a.ah.sgid_index = (uint16_t)si;
	a.ah.hop_limit = 64;
	a.dest_qpn = rnic_qp_num(peer->qp);
	a.rq_psn = 0x100;
	if (rnic_qp_modify(s->qp, &a))
		return -1;
	memset(&a, 0, sizeof(a));
	a.state = SMCR_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0x100;
	return rnic_qp_modify(s->qp, &a) ? -1 : 0;
}

void bottleneck_params_default(bottleneck_params *p)
{
	memset(p, 0, sizeof(*p));
	p->seed = 1;
	p->bottleneck_bps = p->access_bps = 40000000000ULL;
	p->rx_bps = 100000000000ULL;
	p->kmin = 5000;
	p->kmax = 200000;
	p->pmax = (sim_ratio){ 1, 100 };
	p->start2 = 2 * SIM_MS;
	p->duration = 40 * SIM_MS;
	p->window = SIM_MS;
	p->msg = 64 * 1024;
	p->depth = 8;
	rnic_config_default(&p->nic, "node", 0);
	p->nic.cc.dcqcn = true;
}

static int build(bench *b, char *err, size_t errlen)
{
	const bottleneck_params *p = b->p;
	sim_switch_params sp;
	sim_switch_params_default(&sp);
	sp.nports = 4;
	b->sw1 = sim_switch_new(b->fab, "sw1", &sp);
	b->sw2 = sim_switch_new(b->fab, "sw2", &sp);
	b->f[0] = (flow){ b, 0, &b->n[0], &b->n[2] };
	b->f[1] = (flow){ b, 1, &b->n[1], &b->n[3] };
	if (node_setup(b, &b->n[0], 0, b->sw1, 0, p->access_bps, &b->f[0]) ||
	    node_setup(b, &b->n[1], 1, b->sw1, 1, p->access_bps, &b->f[1]) ||
	    node_setup(b, &b->n[2], 2, b->sw2, 0, p->rx_bps, NULL) || node_setup(b, &b->n[3], 3, b->sw2, 1, p->rx_bps, NULL)) {
		snprintf(err, errlen, "cannot set the adapters up");
		return -1;
	}
	if (p->qos) {
		/* the switch's own egress queue is the bottleneck */
		if (sim_switch_set_qos(b->sw1, p->qos)) {
			snprintf(err, errlen, "the switch refused its congestion settings");
			return -1;
		}
		sim_wire_params wq;
		sim_wire_params_default(&wq);
		wq.bandwidth_bps = p->bottleneck_bps;
		wq.latency = 1000;
		wq.mtu = 4200;
		b->w_bottleneck = sim_wire_new(b->fab, "bottleneck", &wq);
		if (sim_plug_connect(sim_wire_end(b->w_bottleneck, 0), sim_switch_port(b->sw1, 2)) ||
		    sim_plug_connect(sim_wire_end(b->w_bottleneck, 1), sim_switch_port(b->sw2, 2))) {
			snprintf(err, errlen, "cannot wire the bottleneck");
			return -1;
		}
		goto connect;
	}
	static const uint8_t mac_in[6] = { 0x02, 0xEE, 0, 0, 0, 1 }, mac_out[6] = { 0x02, 0xEE, 0, 0, 0, 2 };
	sim_endpoint_init(&b->relay_in, b->fab, "relay.in", mac_in, relay_in_rx, NULL, b);
	sim_endpoint_init(&b->relay_out, b->fab, "relay.out", mac_out, relay_out_rx, NULL, b);
	b->relay = true;
	sim_wire_params wp;
	sim_wire_params_default(&wp);
	wp.bandwidth_bps = 0; /* the switch side of the relay never queues */
	wp.latency = 100;
	wp.mtu = 4200;
	b->w_in = sim_wire_new(b->fab, "relay.in", &wp);
	wp.bandwidth_bps = p->bottleneck_bps;
	wp.latency = 1000;
	b->w_bottleneck = sim_wire_new(b->fab, "bottleneck", &wp);
	if (sim_endpoint_attach(&b->relay_in, sim_wire_end(b->w_in, 0)) ||
	    sim_plug_connect(sim_wire_end(b->w_in, 1), sim_switch_port(b->sw1, 2)) ||
	    sim_endpoint_attach(&b->relay_out, sim_wire_end(b->w_bottleneck, 0)) ||
	    sim_plug_connect(sim_wire_end(b->w_bottleneck, 1), sim_switch_port(b->sw2, 2))) {
		snprintf(err, errlen, "cannot wire the relay");
		return -1;
	}
connect:
	if (connect_qp(&b->n[0], &b->n[2]) || connect_qp(&b->n[2], &b->n[0]) || connect_qp(&b->n[1], &b->n[3]) ||
	    connect_qp(&b->n[3], &b->n[1])) {
		snprintf(err, errlen, "cannot connect the QPs");
		return -1;
	}
	return 0;
}

int bottleneck_run(const bottleneck_params *p, bottleneck_result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	bench b = { .p = p, .r = r };
	b.eng = sim_engine_new(p->seed);
	b.fab = sim_fabric_new(b.eng);
	sim_engine_rng(b.eng, "testbed.red", 0, &b.red);
	int rc = build(&b, err, errlen);
	if (!rc && p->pcap) {
		b.pcap = sim_pcap_open(p->pcap, err, errlen);
		if (!b.pcap)
			rc = -1;
	}
	for (unsigned i = 0; i < 2 && !rc; i++) {
		smcr_port_desc d;
		rnic_vf_port_desc(b.n[i].vf, 1, &d);
		memcpy(b.sender_mac[i], d.mac, 6);
	}
	if (!rc)
		sim_plug_set_tap(p->qos ? sim_wire_end(b.w_bottleneck, 0) : &b.relay_out.plug, bottleneck_tap, &b);
	if (!rc) {
		uint32_t k = sim_kind("testbed.flow");
		sim_post(b.eng, 0, k, 1, start_flow, &b.f[0], 0);
		sim_post(b.eng, p->start2, k, 2, start_flow, &b.f[1], 0);
		sim_engine_run(b.eng, p->duration + 10 * SIM_MS, 0);
		for (unsigned i = 0; i < 4; i++) {
			r->cnp_tx += rnic_stats_get(b.n[i].nic)->cnp_tx;
			r->cnp_rx += rnic_stats_get(b.n[i].nic)->cnp_rx;
		}
		r->rate_bps[0] = rnic_qp_rate_bps(b.n[0].qp);
		r->rate_bps[1] = rnic_qp_rate_bps(b.n[1].qp);
		r->retransmitted = rnic_qp_stats_get(b.n[0].qp)->retransmitted_packets +
		                   rnic_qp_stats_get(b.n[1].qp)->retransmitted_packets;
		r->senders_paused = rnic_port_paused_ns(b.n[0].nic, 1, rnic_priority(b.n[0].nic)) +
		                    rnic_port_paused_ns(b.n[1].nic, 1, rnic_priority(b.n[1].nic));
		sim_switch_port_qos_stats qs;
		if (p->qos && sim_switch_port_qos_stats_get(b.sw1, 2, &qs)) {
			r->switch_drops = qs.drops + qs.headroom_drops;
			r->switch_marks = qs.ecn_marks;
			r->max_queue = qs.max_depth_bytes;
			for (uint32_t port = 0; port < 2; port++)
				if (sim_switch_port_qos_stats_get(b.sw1, port, &qs))
					r->pauses_tx += qs.pause_tx;
		}
	}
	if (b.pcap) {
		r->frames = sim_pcap_frames(b.pcap);
		sim_pcap_close(b.pcap);
	}
	if (b.relay) {
		sim_endpoint_destroy(&b.relay_in);
		sim_endpoint_destroy(&b.relay_out);
	}
	for (unsigned i = 0; i < 4; i++) {
		if (b.n[i].nic)
			rnic_free(b.n[i].nic);
		free(b.n[i].mem);
	}
	sim_fabric_free(b.fab);
	sim_engine_free(b.eng);
	return rc;
}
