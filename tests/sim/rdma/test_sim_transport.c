/* The transport interface over simulated adapters: what the core will call. Two VFs of
 * two adapters, connected only through smcr_transport_ops, exchange a SEND and a WRITE. */
#include <criterion/criterion.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/rdma/sim_transport.h"
#include "sim/fabric/switch.h"

typedef struct host {
	smcr_wc wcs[16];
	int n;
} host;

static void on_wc(void *ctx, const smcr_wc *wc)
{
	host *h = ctx;
	cr_assert_lt(h->n, 16);
	h->wcs[h->n++] = *wc;
}

typedef struct node {
	rnic *nic;
	rnic_vf *vf;
	host h;
	smcr_port_desc port;
	smcr_tp_qp *qp;
	uint32_t qpn;
	smcr_tp_mr *mr;
	smcr_mr_info mri;
	uint8_t mem[8192];
} node;

static void connect(const smcr_transport_ops *ops, void *tp, node *me, const node *peer, uint32_t my_psn,
                    uint32_t peer_psn)
{
	smcr_qp_attr a = { .state = SMCR_QPS_INIT, .port = 1, .access = SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE };
	cr_assert_eq(ops->modify_qp(tp, me->qp, &a), 0);
	a = (smcr_qp_attr){ .state = SMCR_QPS_RTR, .path_mtu = me->port.active_mtu, .dest_qpn = peer->qpn, .rq_psn = peer_psn, .min_rnr_timer = 12 };
	memcpy(a.ah.dgid, peer->port.gids[0].gid, 16);
	memcpy(a.ah.dmac, peer->port.mac, 6);
	a.ah.hop_limit = 1;
	cr_assert_eq(ops->modify_qp(tp, me->qp, &a), 0);
	a = (smcr_qp_attr){ .state = SMCR_QPS_RTS, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .sq_psn = my_psn };
	cr_assert_eq(ops->modify_qp(tp, me->qp, &a), 0);
	cr_assert_eq(ops->query_qp_state(tp, me->qp), SMCR_QPS_RTS);
}

Test(sim_transport, two_vfs_talk_through_the_ops_table)
{
	sim_engine *eng = sim_engine_new(3);
	sim_fabric *fab = sim_fabric_new(eng);
	sim_switch *sw = sim_switch_new(fab, "sw", NULL);
	sim_transport *tp = sim_transport_new();
	const smcr_transport_ops *ops = sim_transport_ops();
	static node n[2];
	memset(n, 0, sizeof(n));
	for (int i = 0; i < 2; i++) {
		rnic_config c;
		rnic_config_default(&c, i ? "rnicB" : "rnicA", (uint16_t)(0x10 + i));
		n[i].nic = rnic_new(fab, &c);
		cr_assert_eq(sim_endpoint_attach(rnic_port_endpoint(n[i].nic, 1), sim_switch_port(sw, (uint32_t)i)), 0);
		rnic_host cb = { .completion = on_wc, .ctx = &n[i].h };
		n[i].vf = rnic_activate(n[i].nic, "stack", &cb);
		rnic_vf_port_desc(n[i].vf, 1, &n[i].port);
		cr_assert_eq(n[i].port.dev, sim_transport_dev(n[i].vf));
		cr_assert_eq(n[i].port.state, SMCR_PORT_ACTIVE);
		n[i].mr = ops->reg_mr(tp, n[i].port.dev, n[i].mem, sizeof(n[i].mem),
		                      SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE, &n[i].mri);
		cr_assert_not_null(n[i].mr);
		cr_assert_eq(n[i].mri.iova & 0xFFF, 0, "synthetic, page-aligned iova");
		smcr_qp_caps caps = { 16, 16, 2, 2, 64 };
		n[i].qp = ops->create_qp(tp, n[i].port.dev, 1, &caps, &n[i], &n[i].qpn);
		cr_assert_not_null(n[i].qp);
		cr_assert_geq(n[i].qpn, 2, "QPs 0 and 1 are special in InfiniBand");
	}
	connect(ops, tp, &n[0], &n[1], 100, 200);
	connect(ops, tp, &n[1], &n[0], 200, 100);

	smcr_recv_wr rw = { .wr_id = 7, .num_sge = 1 };
	rw.sg_list[0] = (smcr_sge){ n[1].mem, 44, n[1].mri.lkey };
	cr_assert_eq(ops->post_recv(tp, n[1].qp, &rw), 0);
	uint8_t cdc[44] = { 0xFE, 0x2C };
	smcr_send_wr sw1 = { .wr_id = 1, .opcode = SMCR_WR_SEND, .num_sge = 1, .send_flags = SMCR_SEND_SIGNALED | SMCR_SEND_INLINE | SMCR_SEND_SOLICITED };
	sw1.sg_list[0] = (smcr_sge){ cdc, 44, 0 };
	cr_assert_eq(ops->post_send(tp, n[0].qp, &sw1), 0);
	memset(n[0].mem, 0x3C, 3000);
	smcr_send_wr sw2 = { .wr_id = 2, .opcode = SMCR_WR_RDMA_WRITE, .num_sge = 1, .send_flags = SMCR_SEND_SIGNALED, .remote_addr = n[1].mri.iova + 1000, .rkey = n[1].mri.rkey };
	sw2.sg_list[0] = (smcr_sge){ n[0].mem, 3000, n[0].mri.lkey };
	cr_assert_eq(ops->post_send(tp, n[0].qp, &sw2), 0);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);

	cr_assert_eq(n[0].h.n, 2);
	cr_assert_eq(n[0].h.wcs[0].wr_id, 1);
	cr_assert_eq(n[0].h.wcs[1].wr_id, 2);
	cr_assert_eq(n[0].h.wcs[1].status, SMCR_WC_SUCCESS);
	cr_assert_eq(n[0].h.wcs[0].qp_ctx, &n[0]);
	cr_assert_eq(n[1].h.n, 1);
	cr_assert_eq(n[1].h.wcs[0].wr_id, 7);
	cr_assert_eq(n[1].h.wcs[0].byte_len, 44);
	cr_assert(n[1].h.wcs[0].solicited);
	cr_assert_eq(n[1].mem[0], 0xFE);
	cr_assert_eq(n[1].mem[1], 0x2C);
	for (int i = 1000; i < 4000; i++)
		cr_assert_eq(n[1].mem[i], 0x3C);

	smcr_qp_attr bad = { .state = SMCR_QPS_INIT, .port = 1 };
	cr_assert_eq(ops->modify_qp(tp, n[0].qp, &bad), SMCR_ERR_STATE);
	cr_assert_null(ops->reg_mr(tp, n[0].port.dev, n[0].mem, 0, 0, NULL));
	const sim_transport_stats *st = sim_transport_stats_get(tp);
	cr_assert_eq(st->post_send, 2);
	cr_assert_eq(st->post_recv, 1);
	cr_assert_eq(st->modify_qp, 7);
	cr_assert_eq(st->errors, 2);

	for (int i = 0; i < 2; i++) {
		ops->destroy_qp(tp, n[i].qp);
		ops->dereg_mr(tp, n[i].mr);
		rnic_free(n[i].nic);
	}
	sim_transport_free(tp);
	sim_fabric_free(fab);
	sim_engine_free(eng);
}
