/* The canned two-adapter topology. */
#include "sim/testbed/testbed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/engine/oom.h"

void testbed_params_default(testbed_params *p)
{
	memset(p, 0, sizeof(*p));
	p->seed = 1;
	p->version = ROCE_V2;
	p->eth_mtu = 1500;
	sim_wire_params_default(&p->wire);
	p->switch_latency = 500;
	p->timeout = 14;
	p->retry_cnt = 7;
	p->rnr_retry = 7;
	p->min_rnr_timer = 1;
	p->max_send_wr = 64;
	p->max_recv_wr = 64;
	p->max_inline = 64;
	p->mr_size = 1u << 20;
	p->sq_psn_a = 0x00C0DE;
	p->sq_psn_b = 0x00A1B2;
	rnic_config_default(&p->nic, "rnic", 0);
}

static void on_wc(void *ctx, const smcr_wc *wc)
{
	testbed_side *s = ctx;
	if (s->n_wcs == s->cap_wcs) {
		s->cap_wcs = s->cap_wcs ? s->cap_wcs * 2 : 64;
		s->wcs = sim_xreallocarray(s->wcs, s->cap_wcs, sizeof(*s->wcs), "the testbed");
	}
	s->wcs[s->n_wcs++] = *wc;
	if (s->tb->p.on_wc)
		s->tb->p.on_wc(s->tb, s, wc);
}

static void on_async(void *ctx, smcr_async_event ev, uint8_t port, void *qp_ctx)
{
	(void)port;
	(void)qp_ctx;
	testbed_side *s = ctx;
	if (s->n_async < sizeof(s->async) / sizeof(s->async[0]))
		s->async[s->n_async++] = ev;
}

static int side_setup(testbed *tb, testbed_side *s, const char *name, uint16_t pfid, uint32_t sw_port, uint32_t ip)
{
	const testbed_params *p = &tb->p;
	s->tb = tb;
	snprintf(s->name, sizeof(s->name), "%s", name);
	rnic_config c = p->nic;
	snprintf(c.name, sizeof(c.name), "rnic%s", name);
	c.pfid = pfid;
	c.nports = 1;
	c.ports[0].eth_mtu = p->eth_mtu;
	snprintf(c.ports[0].pnet_id, sizeof(c.ports[0].pnet_id), "PNET1");
	s->nic = rnic_new(tb->fab, &c);
	sim_wire_params wp = p->wire;
	wp.mtu = p->eth_mtu;
	char wn[32];
	snprintf(wn, sizeof(wn), "wire%s", name);
	s->wire = sim_wire_new(tb->fab, wn, &wp);
	if (sim_endpoint_attach(rnic_port_endpoint(s->nic, 1), sim_wire_end(s->wire, 0)) ||
	    sim_plug_connect(sim_wire_end(s->wire, 1), sim_switch_port(tb->sw, sw_port)))
		return -1;
	if (p->vlan)
		sim_switch_port_trunk(tb->sw, sw_port, 0, &p->vlan, 1);
	rnic_host host = { on_wc, on_async, s };
	s->vf = rnic_activate(s->nic, name, &host);
	if (p->vlan && rnic_vf_set_vlans(s->vf, 1, &p->vlan, 1))
		return -1;
	if (p->version == ROCE_V2 && rnic_vf_add_ipv4(s->vf, 1, ip, 24, p->vlan))
		return -1;
	s->mem = sim_xcalloc(1, p->mr_size, "the testbed");
	s->mr = rnic_mr_reg(s->vf, s->mem, p->mr_size, SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE, &s->mri);
	smcr_qp_caps caps = { p->max_send_wr, p->max_recv_wr, SMCR_MAX_SGE, SMCR_MAX_SGE, p->max_inline };
	s->qp = rnic_qp_create(s->vf, 1, &caps, s);
	return s->mr && s->qp ? 0 : -1;
}

static int connect_qp(testbed *tb, testbed_side *s, testbed_side *peer, uint32_t sq_psn, uint32_t peer_psn)
{
	const testbed_params *p = &tb->p;
	smcr_qp_attr a = { .state = SMCR_QPS_INIT, .port = 1, .access = SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE };
	int rc = rnic_qp_modify(s->qp, &a);
	if (rc)
		return rc;
	smcr_port_desc mine, theirs;
	rnic_vf_port_desc(s->vf, 1, &mine);
	rnic_vf_port_desc(peer->vf, 1, &theirs);
	smcr_gid_type want = p->version == ROCE_V1 ? SMCR_GID_ROCE_V1 : SMCR_GID_ROCE_V2;
	int si = -1, pi = -1;
	for (uint32_t i = 0; i < mine.n_gids; i++)
		if (mine.gids[i].type == want && si < 0)
			si = (int)i;
	for (uint32_t i = 0; i < theirs.n_gids; i++)
		if (theirs.gids[i].type == want && pi < 0)
			pi = (int)i;
	if (si < 0 || pi < 0)
		return SMCR_ERR_NOTFOUND;
	memset(&a, 0, sizeof(a));
	a.state = SMCR_QPS_RTR;
	a.path_mtu = p->path_mtu ? p->path_mtu : mine.active_mtu;
	memcpy(a.ah.dgid, theirs.gids[pi].gid, 16);
	memcpy(a.ah.dmac, theirs.mac, 6);
	a.ah.sgid_index = (uint16_t)si;
	a.ah.hop_limit = p->version == ROCE_V1 ? 1 : 64;
	a.dest_qpn = rnic_qp_num(peer->qp);
	a.rq_psn = peer_psn;
	a.min_rnr_timer = p->min_rnr_timer;
	if ((rc = rnic_qp_modify(s->qp, &a)))
		return rc;
	memset(&a, 0, sizeof(a));
	a.state = SMCR_QPS_RTS;
	a.timeout = p->timeout;
	a.retry_cnt = p->retry_cnt;
	a.rnr_retry = p->rnr_retry;
	a.sq_psn = sq_psn;
	return rnic_qp_modify(s->qp, &a);
}

testbed *testbed_new(const testbed_params *p)
{
	testbed *tb = sim_xcalloc(1, sizeof(*tb), "the testbed");
	tb->p = *p;
	tb->eng = sim_engine_new(p->seed);
	tb->fab = sim_fabric_new(tb->eng);
	sim_switch_params sp;
	sim_switch_params_default(&sp);
	sp.nports = 4;
	sp.latency = p->switch_latency;
	tb->sw = sim_switch_new(tb->fab, "sw", &sp);
	if (side_setup(tb, &tb->a, "A", 0x0010, 0, 0x0A000001) || side_setup(tb, &tb->b, "B", 0x0020, 1, 0x0A000002) ||
	    connect_qp(tb, &tb->a, &tb->b, p->sq_psn_a, p->sq_psn_b) ||
	    connect_qp(tb, &tb->b, &tb->a, p->sq_psn_b, p->sq_psn_a)) {
		testbed_free(tb);
		return NULL;
	}
	return tb;
}

static void side_free(testbed_side *s)
{
	rnic_free(s->nic);
	free(s->mem);
	free(s->wcs);
}

void testbed_free(testbed *tb)
{
	if (!tb)
		return;
	side_free(&tb->a);
	side_free(&tb->b);
	sim_fabric_free(tb->fab);
	sim_engine_free(tb->eng);
	free(tb);
}

static testbed_side *testbed_peer(testbed_side *s) { return s == &s->tb->a ? &s->tb->b : &s->tb->a; }

int testbed_post_write(testbed_side *s, uint64_t wr_id, uint32_t off, uint32_t len, uint64_t remote_off,
                       uint32_t flags)
{
	testbed_side *peer = testbed_peer(s);
	smcr_send_wr wr = { .wr_id = wr_id, .opcode = SMCR_WR_RDMA_WRITE, .send_flags = flags, .num_sge = 1, .remote_addr = peer->mri.iova + remote_off, .rkey = peer->mri.rkey };
	wr.sg_list[0] = (smcr_sge){ s->mem + off, len, s->mri.lkey };
	return rnic_qp_post_send(s->qp, &wr);
}

int testbed_post_send(testbed_side *s, uint64_t wr_id, uint32_t off, uint32_t len, uint32_t flags)
{
	smcr_send_wr wr = { .wr_id = wr_id, .opcode = SMCR_WR_SEND, .send_flags = flags, .num_sge = 1 };
	wr.sg_list[0] = (smcr_sge){ s->mem + off, len, s->mri.lkey };
	return rnic_qp_post_send(s->qp, &wr);
}

int testbed_post_recv(testbed_side *s, uint64_t wr_id, uint32_t off, uint32_t len)
{
	smcr_recv_wr wr = { .wr_id = wr_id, .num_sge = 1 };
	wr.sg_list[0] = (smcr_sge){ s->mem + off, len, s->mri.lkey };
	return rnic_qp_post_recv(s->qp, &wr);
}

sim_run_result testbed_run(testbed *tb, sim_time until) { return sim_engine_run(tb->eng, until, 0); }
