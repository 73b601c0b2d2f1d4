/* RC queue pairs over the simulated fabric: segmentation, reliability, errors, RNR,
 * the state machine and determinism. Every case runs real frames through two adapters,
 * two wires and a switch (sim/testbed/testbed.h). */
#include <criterion/criterion.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/testbed/testbed.h"

static testbed *tb;

static testbed *make(roce_version v, void (*tweak)(testbed_params *))
{
	testbed_params p;
	testbed_params_default(&p);
	p.version = v;
	if (tweak)
		tweak(&p);
	tb = testbed_new(&p);
	cr_assert_not_null(tb);
	return tb;
}

static void fin(void)
{
	if (!tb)
		return;
	cr_expect_eq(sim_frame_pool_in_use(sim_fabric_frames(tb->fab)), 0, "frames left in flight");
	testbed_free(tb);
	tb = NULL;
}

static void fill(testbed_side *s, uint32_t off, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		s->mem[off + i] = (uint8_t)((i * 2654435761u + seed) >> 13);
}

static size_t count_status(const testbed_side *s, smcr_wc_status st)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n_wcs; i++)
		n += s->wcs[i].status == st;
	return n;
}

static const rnic_qp_stats *qst(testbed_side *s) { return rnic_qp_stats_get(s->qp); }

static void send_larger_than_mtu(roce_version v)
{
	make(v, NULL);
	fill(&tb->a, 0, 9000, 1);
	cr_assert_eq(testbed_post_recv(&tb->b, 77, 100000, 10000), 0);
	cr_assert_eq(testbed_post_send(&tb->a, 5, 0, 9000, SMCR_SEND_SIGNALED | SMCR_SEND_SOLICITED), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(qst(&tb->a)->tx_packets, 9, "9000 bytes in 1024-byte packets");
	cr_assert_eq(tb->a.n_wcs, 1);
	cr_assert_eq(tb->a.wcs[0].wr_id, 5);
	cr_assert_eq(tb->a.wcs[0].status, SMCR_WC_SUCCESS);
	cr_assert_eq(tb->a.wcs[0].opcode, SMCR_WC_SEND);
	cr_assert_eq(tb->a.wcs[0].qp_ctx, &tb->a);
	cr_assert_eq(tb->b.n_wcs, 1);
	cr_assert_eq(tb->b.wcs[0].wr_id, 77);
	cr_assert_eq(tb->b.wcs[0].opcode, SMCR_WC_RECV);
	cr_assert_eq(tb->b.wcs[0].byte_len, 9000);
	cr_assert_eq(tb->b.wcs[0].qp_num, rnic_qp_num(tb->b.qp));
	cr_assert(tb->b.wcs[0].solicited);
	cr_assert_eq(memcmp(tb->a.mem, tb->b.mem + 100000, 9000), 0);
	cr_assert_eq(rnic_stats_get(tb->b.nic)->rx_icrc_errors, 0);
	fin();
}

Test(qp, send_larger_than_mtu_is_segmented_and_reassembled_v2) { send_larger_than_mtu(ROCE_V2); }
Test(qp, send_larger_than_mtu_is_segmented_and_reassembled_v1) { send_larger_than_mtu(ROCE_V1); }

Test(qp, rdma_write_lands_in_registered_memory_without_a_receive)
{
	make(ROCE_V1, NULL);
	fill(&tb->a, 0, 100000, 2);
	cr_assert_eq(testbed_post_write(&tb->a, 9, 0, 100000, 4096, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(qst(&tb->a)->tx_packets, 98);
	cr_assert_eq(tb->a.n_wcs, 1);
	cr_assert_eq(tb->a.wcs[0].opcode, SMCR_WC_RDMA_WRITE);
	cr_assert_eq(tb->a.wcs[0].status, SMCR_WC_SUCCESS);
	cr_assert_eq(tb->b.n_wcs, 0, "an RDMA WRITE consumes no receive");
	cr_assert_eq(memcmp(tb->a.mem, tb->b.mem + 4096, 100000), 0);
	for (int i = 0; i < 4096; i++)
		cr_assert_eq(tb->b.mem[i], 0, "nothing written before the target");
	cr_assert_eq(tb->b.mem[4096 + 100000], 0, "nor after it");
	fin();
}

Test(qp, ack_requested_on_every_16th_packet_and_the_last)
{
	make(ROCE_V2, NULL);
	cr_assert_eq(testbed_post_write(&tb->a, 1, 0, 65536, 0, SMCR_SEND_SIGNALED), 0);
	cr_assert_eq(testbed_post_write(&tb->a, 2, 0, 3000, 0, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(qst(&tb->a)->tx_packets, 64 + 3);
	/* 64 packets: AckReq on 16, 32, 48, 64; then the 3-packet message's last one */
	cr_assert_eq(qst(&tb->b)->tx_acks, 5);
	cr_assert_eq(count_status(&tb->a, SMCR_WC_SUCCESS), 2);
	fin();
}

Test(qp, two_sges_gather_and_scatter)
{
	make(ROCE_V2, NULL);
	fill(&tb->a, 0, 3000, 3);
	smcr_send_wr wr = { .wr_id = 1, .opcode = SMCR_WR_SEND, .send_flags = SMCR_SEND_SIGNALED, .num_sge = 2 };
	wr.sg_list[0] = (smcr_sge){ tb->a.mem + 1000, 1500, tb->a.mri.lkey };
	wr.sg_list[1] = (smcr_sge){ tb->a.mem, 700, tb->a.mri.lkey };
	smcr_recv_wr rw = { .wr_id = 2, .num_sge = 2 };
	rw.sg_list[0] = (smcr_sge){ tb->b.mem + 50000, 1000, tb->b.mri.lkey };
	rw.sg_list[1] = (smcr_sge){ tb->b.mem + 60000, 2000, tb->b.mri.lkey };
	cr_assert_eq(rnic_qp_post_recv(tb->b.qp, &rw), 0);
	cr_assert_eq(rnic_qp_post_send(tb->a.qp, &wr), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->b.n_wcs, 1);
	cr_assert_eq(tb->b.wcs[0].byte_len, 2200);
	cr_assert_eq(memcmp(tb->b.mem + 50000, tb->a.mem + 1000, 1000), 0);
	cr_assert_eq(memcmp(tb->b.mem + 60000, tb->a.mem + 2000, 500), 0);
	cr_assert_eq(memcmp(tb->b.mem + 60500, tb->a.mem, 700), 0);
	fin();
}

Test(qp, unsignaled_and_zero_length_and_inline_sends)
{
	make(ROCE_V2, NULL);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(testbed_post_recv(&tb->b, 100 + (uint64_t)i, (uint32_t)(200000 + i * 1000), 1000), 0);
	cr_assert_eq(testbed_post_send(&tb->a, 1, 0, 10, 0), 0); /* unsignaled */
	cr_assert_eq(testbed_post_send(&tb->a, 2, 0, 0, SMCR_SEND_SIGNALED), 0);
	memcpy(tb->a.mem + 500, "inline payload", 14);
	cr_assert_eq(testbed_post_send(&tb->a, 3, 500, 14, SMCR_SEND_SIGNALED | SMCR_SEND_INLINE), 0);
	memcpy(tb->a.mem + 500, "CHANGED AFTER!", 14); /* inline data was copied at post time */
	cr_assert_eq(testbed_post_send(&tb->a, 4, 0, 65, SMCR_SEND_SIGNALED | SMCR_SEND_INLINE), SMCR_ERR_INVAL,
	             "more than max_inline_data");
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.n_wcs, 2);
	cr_assert_eq(tb->a.wcs[0].wr_id, 2);
	cr_assert_eq(tb->a.wcs[1].wr_id, 3);
	cr_assert_eq(tb->b.n_wcs, 3);
	cr_assert_eq(tb->b.wcs[0].byte_len, 10);
	cr_assert_eq(tb->b.wcs[1].byte_len, 0);
	cr_assert_eq(tb->b.wcs[2].byte_len, 14);
	cr_assert_eq(memcmp(tb->b.mem + 202000, "inline payload", 14), 0);
	fin();
}

static void lossy(testbed_params *p)
{
	p->wire.loss = (sim_ratio){ 1, 20 };
	p->timeout = 8; /* ~1 ms */
}

Test(qp, loss_is_repaired_by_retransmission_and_delivery_stays_in_order)
{
	make(ROCE_V2, lossy);
	for (uint32_t i = 0; i < 30; i++) {
		fill(&tb->a, i * 5000, 5000, i);
		cr_assert_eq(testbed_post_recv(&tb->b, i, 500000 + i * 5000, 5000), 0);
		cr_assert_eq(testbed_post_send(&tb->a, 1000 + i, i * 5000, 5000, SMCR_SEND_SIGNALED), 0);
	}
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(count_status(&tb->a, SMCR_WC_SUCCESS), 30);
	cr_assert_eq(tb->b.n_wcs, 30);
	for (uint32_t i = 0; i < 30; i++) {
		cr_assert_eq(tb->b.wcs[i].wr_id, i, "receives complete in order");
		cr_assert_eq(tb->b.wcs[i].status, SMCR_WC_SUCCESS);
		cr_assert_eq(tb->a.wcs[i].wr_id, 1000 + i);
	}
	cr_assert_eq(memcmp(tb->a.mem, tb->b.mem + 500000, 150000), 0);
	cr_assert_gt(qst(&tb->a)->retransmitted_packets, 0);
	cr_assert_gt(qst(&tb->b)->seq_naks_tx + qst(&tb->a)->timeouts, 0);
	cr_assert_eq(rnic_qp_state(tb->a.qp), SMCR_QPS_RTS);
	fin();
}

static void corrupting(testbed_params *p)
{
	p->wire.corrupt = (sim_ratio){ 1, 10 };
	p->timeout = 8;
}

Test(qp, corrupted_frames_are_dropped_on_the_icrc_and_resent)
{
	make(ROCE_V1, corrupting);
	fill(&tb->a, 0, 200000, 9);
	cr_assert_eq(testbed_post_write(&tb->a, 1, 0, 200000, 0, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(count_status(&tb->a, SMCR_WC_SUCCESS), 1);
	cr_assert_eq(memcmp(tb->a.mem, tb->b.mem, 200000), 0);
	const rnic_stats *st = rnic_stats_get(tb->b.nic);
	cr_assert_gt(st->rx_icrc_errors, 5, "most flipped bits are only caught by the ICRC");
	cr_assert_gt(qst(&tb->a)->retransmitted_packets, 0);
	fin();
}

/* --- single events at chosen times ------------------------------------------------- */

typedef void (*action_fn)(testbed *t);
static void run_action(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	((action_fn)(uintptr_t)ev->arg)(ev->ctx);
}
static void at(sim_time t, action_fn fn) { sim_post(tb->eng, t, 1, 0, run_action, tb, (uint64_t)(uintptr_t)fn); }

static void wire_a_down(testbed *t) { sim_wire_set_up(t->a.wire, false); }
static void wire_a_up(testbed *t) { sim_wire_set_up(t->a.wire, true); }

static void slow_pacing(testbed_params *p)
{
	p->nic.tx_window = 400; /* the adapter feeds the wire just in time */
	p->timeout = 12;
}

Test(qp, a_gap_gets_exactly_one_psn_sequence_nak)
{
	make(ROCE_V2, slow_pacing);
	fill(&tb->a, 0, 30 * 1024, 4);
	cr_assert_eq(testbed_post_write(&tb->a, 1, 0, 30 * 1024, 0, SMCR_SEND_SIGNALED), 0);
	/* at 25 Gb/s a packet takes ~0.35 us: a 0.5 us outage loses a couple in the middle */
	at(2000, wire_a_down);
	at(2500, wire_a_up);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(count_status(&tb->a, SMCR_WC_SUCCESS), 1);
	cr_assert_eq(memcmp(tb->a.mem, tb->b.mem, 30 * 1024), 0);
	cr_assert_eq(qst(&tb->b)->seq_naks_tx, 1, "one NAK per gap");
	cr_assert_geq(qst(&tb->b)->ooo_drops, 2, "several packets arrived after the gap");
	cr_assert_eq(qst(&tb->a)->seq_naks_rx, 1);
	cr_assert_eq(qst(&tb->a)->timeouts, 0, "the NAK repaired it, not the timer");
	fin();
}

static void drop_acks_once(testbed *t)
{
	/* B's ACK is on B's wire now: lose it */
	sim_wire_set_up(t->b.wire, false);
	sim_wire_set_up(t->b.wire, true);
}

static void quick_timeout(testbed_params *p) { p->timeout = 8; }

Test(qp, a_lost_ack_makes_a_duplicate_that_is_acknowledged_not_executed)
{
	make(ROCE_V2, quick_timeout);
	cr_assert_eq(testbed_post_recv(&tb->b, 1, 0, 100), 0);
	cr_assert_eq(testbed_post_recv(&tb->b, 2, 100, 100), 0);
	cr_assert_eq(testbed_post_send(&tb->a, 10, 0, 44, SMCR_SEND_SIGNALED), 0);
	/* step until B has the packet (and has just sent its ACK), then cut B's link */
	while (qst(&tb->b)->rx_packets == 0)
		cr_assert_eq(sim_engine_run(tb->eng, SIM_TIME_NEVER, 1), SIM_RUN_COUNT);
	cr_assert_eq(qst(&tb->b)->tx_acks, 1);
	drop_acks_once(tb);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(qst(&tb->a)->timeouts, 1);
	cr_assert_eq(qst(&tb->b)->duplicates, 1);
	cr_assert_eq(qst(&tb->b)->tx_acks, 2, "the duplicate was acknowledged again");
	cr_assert_eq(count_status(&tb->a, SMCR_WC_SUCCESS), 1);
	size_t recvs = 0;
	for (size_t i = 0; i < tb->b.n_wcs; i++)
		recvs += tb->b.wcs[i].opcode == SMCR_WC_RECV;
	cr_assert_eq(recvs, 1, "executed once: the second receive is still posted");
	fin();
}

static void few_retries(testbed_params *p)
{
	p->timeout = 10; /* 4.096 us * 2^10 = 4.194304 ms */
	p->retry_cnt = 3;
}

Test(qp, retry_exhaustion_fails_the_wr_flushes_the_rest_and_errors_the_qp)
{
	make(ROCE_V2, few_retries);
	sim_wire_set_up(tb->b.wire, false);
	for (uint64_t i = 0; i < 3; i++)
		cr_assert_eq(testbed_post_write(&tb->a, i, 0, 2000, 0, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.n_wcs, 3);
	cr_assert_eq(tb->a.wcs[0].wr_id, 0);
	cr_assert_eq(tb->a.wcs[0].status, SMCR_WC_RETRY_EXC_ERR);
	cr_assert_eq(tb->a.wcs[1].status, SMCR_WC_WR_FLUSH_ERR);
	cr_assert_eq(tb->a.wcs[2].status, SMCR_WC_WR_FLUSH_ERR);
	cr_assert_eq(rnic_qp_state(tb->a.qp), SMCR_QPS_ERR);
	cr_assert_eq(qst(&tb->a)->timeouts, 4, "the first try and retry_cnt retries");
	/* first transmission at the doorbell (200 ns), then 4 timeouts; the report follows
	 * after the adapter's event delay (100 ns) */
	cr_assert_eq(sim_now(tb->eng), 200 + 4 * 4194304 + 100);
	cr_assert_eq(testbed_post_write(&tb->a, 9, 0, 10, 0, 0), 0, "posting to a QP in ERR is allowed ...");
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.wcs[3].status, SMCR_WC_WR_FLUSH_ERR, "... and flushed at once");
	fin();
}

static void expect_remote_access_error(uint64_t remote_off, uint32_t rkey_xor)
{
	make(ROCE_V2, NULL);
	testbed_side *a = &tb->a;
	smcr_send_wr wr = { .wr_id = 5, .opcode = SMCR_WR_RDMA_WRITE, .send_flags = SMCR_SEND_SIGNALED, .num_sge = 1, .remote_addr = tb->b.mri.iova + remote_off, .rkey = tb->b.mri.rkey ^ rkey_xor };
	wr.sg_list[0] = (smcr_sge){ a->mem, 4000, a->mri.lkey };
	cr_assert_eq(testbed_post_recv(&tb->b, 1, 0, 100), 0);
	cr_assert_eq(rnic_qp_post_send(a->qp, &wr), 0);
	cr_assert_eq(testbed_post_write(a, 6, 0, 100, 0, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(a->n_wcs, 2);
	cr_assert_eq(a->wcs[0].status, SMCR_WC_REM_ACCESS_ERR);
	cr_assert_eq(a->wcs[1].status, SMCR_WC_WR_FLUSH_ERR);
	cr_assert_eq(rnic_qp_state(a->qp), SMCR_QPS_ERR);
	cr_assert_eq(rnic_qp_state(tb->b.qp), SMCR_QPS_ERR, "the responder goes to ERR too");
	cr_assert_eq(tb->b.n_wcs, 1);
	cr_assert_eq(tb->b.wcs[0].status, SMCR_WC_WR_FLUSH_ERR, "its receive is flushed");
	bool fatal = false;
	for (size_t i = 0; i < tb->b.n_async; i++)
		fatal |= tb->b.async[i] == SMCR_EV_QP_FATAL;
	cr_assert(fatal, "and the responder's host is told");
	for (int i = 0; i < 8192; i++)
		cr_assert_eq(tb->b.mem[i], 0, "nothing was written");
	fin();
}

Test(qp, wrong_rkey_is_a_remote_access_error) { expect_remote_access_error(0, 0x100); }
Test(qp, write_past_the_region_is_a_remote_access_error) { expect_remote_access_error((1u << 20) - 3999, 0); }
Test(qp, write_before_the_region_is_a_remote_access_error) { expect_remote_access_error((uint64_t)-1, 0); }

Test(qp, region_without_remote_write_is_a_remote_access_error)
{
	make(ROCE_V2, NULL);
	smcr_mr_info ro;
	uint8_t *buf = calloc(1, 4096);
	rnic_mr *mr = rnic_mr_reg(tb->b.vf, buf, 4096, SMCR_ACCESS_LOCAL_WRITE, &ro);
	cr_assert_not_null(mr);
	cr_assert_eq(ro.rkey, 0, "no remote access: no rkey");
	smcr_send_wr wr = { .wr_id = 5, .opcode = SMCR_WR_RDMA_WRITE, .send_flags = SMCR_SEND_SIGNALED, .num_sge = 1, .remote_addr = ro.iova, .rkey = ro.lkey };
	wr.sg_list[0] = (smcr_sge){ tb->a.mem, 10, tb->a.mri.lkey };
	cr_assert_eq(rnic_qp_post_send(tb->a.qp, &wr), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.wcs[0].status, SMCR_WC_REM_ACCESS_ERR);
	rnic_mr_dereg(mr);
	free(buf);
	fin();
}

Test(qp, the_same_memory_registered_twice_keeps_its_address)
{
	make(ROCE_V2, NULL);
	smcr_mr_info a, b, c;
	uint8_t *buf = calloc(1, 8192);
	uint32_t acc = SMCR_ACCESS_LOCAL_WRITE | SMCR_ACCESS_REMOTE_WRITE;
	rnic_mr *m1 = rnic_mr_reg(tb->b.vf, buf, 8192, acc, &a);
	rnic_mr *m2 = rnic_mr_reg(tb->b.vf, buf, 8192, acc, &b);
	rnic_mr *m3 = rnic_mr_reg(tb->b.vf, buf + 4096, 4096, acc, &c);
	cr_assert(m1 && m2 && m3);
	cr_assert_neq(a.rkey, b.rkey, "a second registration has its own key");
	cr_assert_eq(a.iova, b.iova, "but the same I/O address");
	cr_assert_neq(c.iova, a.iova, "another range, another address");
	/* a write through the second key lands in the memory */
	smcr_send_wr wr = { .wr_id = 1, .opcode = SMCR_WR_RDMA_WRITE, .send_flags = SMCR_SEND_SIGNALED, .num_sge = 1, .remote_addr = b.iova + 100, .rkey = b.rkey };
	fill(&tb->a, 0, 16, 7);
	wr.sg_list[0] = (smcr_sge){ tb->a.mem, 16, tb->a.mri.lkey };
	cr_assert_eq(rnic_qp_post_send(tb->a.qp, &wr), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.wcs[0].status, SMCR_WC_SUCCESS);
	cr_assert_eq(memcmp(buf + 100, tb->a.mem, 16), 0);
	rnic_mr_dereg(m1);
	rnic_mr_dereg(m2);
	rnic_mr_dereg(m3);
	free(buf);
	fin();
}

Test(qp, bad_local_key_is_a_local_protection_error)
{
	make(ROCE_V2, NULL);
	smcr_send_wr wr = { .wr_id = 5, .opcode = SMCR_WR_SEND, .send_flags = SMCR_SEND_SIGNALED, .num_sge = 1 };
	wr.sg_list[0] = (smcr_sge){ tb->a.mem, 10, tb->a.mri.lkey + 1 };
	cr_assert_eq(rnic_qp_post_send(tb->a.qp, &wr), 0, "keys are checked when the adapter reads");
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.wcs[0].status, SMCR_WC_LOC_PROT_ERR);
	cr_assert_eq(rnic_qp_state(tb->a.qp), SMCR_QPS_ERR);
	cr_assert_eq(qst(&tb->a)->tx_packets, 0);
	fin();
}

Test(qp, receive_buffer_too_small)
{
	make(ROCE_V2, NULL);
	cr_assert_eq(testbed_post_recv(&tb->b, 1, 0, 100), 0);
	cr_assert_eq(testbed_post_send(&tb->a, 2, 0, 500, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->b.wcs[0].status, SMCR_WC_LOC_LEN_ERR);
	cr_assert_eq(tb->a.wcs[0].status, SMCR_WC_REM_INV_REQ_ERR);
	cr_assert_eq(rnic_qp_state(tb->a.qp), SMCR_QPS_ERR);
	cr_assert_eq(rnic_qp_state(tb->b.qp), SMCR_QPS_ERR);
	fin();
}

static void post_b_recv(testbed *t) { cr_assert_eq(testbed_post_recv(&t->b, 1, 0, 1000), 0); }

Test(qp, rnr_nak_makes_the_sender_wait_and_retry)
{
	make(ROCE_V2, NULL); /* min_rnr_timer 1 = 10 us, rnr_retry 7 = forever */
	cr_assert_eq(testbed_post_send(&tb->a, 1, 0, 300, SMCR_SEND_SIGNALED), 0);
	at(95 * SIM_US, post_b_recv);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(count_status(&tb->a, SMCR_WC_SUCCESS), 1);
	cr_assert_eq(tb->b.n_wcs, 1);
	cr_assert_eq(tb->b.wcs[0].byte_len, 300);
	/* a try every ~10 us + round trip until 95 us */
	cr_assert_geq(qst(&tb->a)->rnr_naks_rx, 6);
	cr_assert_leq(qst(&tb->a)->rnr_naks_rx, 9);
	cr_assert_eq(qst(&tb->a)->rnr_naks_rx, qst(&tb->b)->rnr_naks_tx);
	fin();
}

static void two_rnr_retries(testbed_params *p) { p->rnr_retry = 2; }

Test(qp, rnr_retry_exhaustion)
{
	make(ROCE_V1, two_rnr_retries);
	cr_assert_eq(testbed_post_send(&tb->a, 1, 0, 300, SMCR_SEND_SIGNALED), 0);
	cr_assert_eq(testbed_post_send(&tb->a, 2, 0, 300, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.wcs[0].status, SMCR_WC_RNR_RETRY_EXC_ERR);
	cr_assert_eq(tb->a.wcs[1].status, SMCR_WC_WR_FLUSH_ERR);
	cr_assert_eq(qst(&tb->a)->rnr_naks_rx, 3);
	cr_assert_eq(rnic_qp_state(tb->a.qp), SMCR_QPS_ERR);
	cr_assert_eq(rnic_qp_state(tb->b.qp), SMCR_QPS_RTS, "RNR is not an error for the responder");
	fin();
}

Test(qp, modify_to_err_flushes_receives_and_later_posts)
{
	make(ROCE_V2, NULL);
	for (uint64_t i = 0; i < 3; i++)
		cr_assert_eq(testbed_post_recv(&tb->b, i, 0, 100), 0);
	smcr_qp_attr err = { .state = SMCR_QPS_ERR };
	cr_assert_eq(rnic_qp_modify(tb->b.qp, &err), 0);
	cr_assert_eq(testbed_post_recv(&tb->b, 3, 0, 100), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->b.n_wcs, 4);
	for (uint64_t i = 0; i < 4; i++) {
		cr_assert_eq(tb->b.wcs[i].wr_id, i);
		cr_assert_eq(tb->b.wcs[i].status, SMCR_WC_WR_FLUSH_ERR);
		cr_assert_eq(tb->b.wcs[i].opcode, SMCR_WC_RECV);
	}
	fin();
}

Test(qp, destroyed_qp_reports_nothing_more)
{
	make(ROCE_V2, NULL);
	cr_assert_eq(testbed_post_recv(&tb->b, 1, 0, 100), 0);
	cr_assert_eq(testbed_post_send(&tb->a, 1, 0, 50, SMCR_SEND_SIGNALED), 0);
	/* run until A has the ACK, but not yet reported its completion */
	while (qst(&tb->a)->acks_rx == 0)
		cr_assert_eq(sim_engine_run(tb->eng, SIM_TIME_NEVER, 1), SIM_RUN_COUNT);
	cr_assert_eq(tb->a.n_wcs, 0);
	rnic_qp_destroy(tb->a.qp);
	tb->a.qp = NULL;
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.n_wcs, 0);
	cr_assert_eq(tb->b.n_wcs, 1);
	fin();
}

Test(qp, state_machine_checks_attributes_like_verbs)
{
	make(ROCE_V2, NULL);
	smcr_qp_caps caps = { 8, 8, 1, 1, 0 };
	rnic_qp *qp = rnic_qp_create(tb->a.vf, 1, &caps, NULL);
	cr_assert_not_null(qp);
	cr_assert_null(rnic_qp_create(tb->a.vf, 2, &caps, NULL), "single-port adapter");
	smcr_qp_caps big = { RNIC_MAX_QP_WR + 1, 8, 1, 1, 0 };
	cr_assert_null(rnic_qp_create(tb->a.vf, 1, &big, NULL));
	cr_assert_eq(rnic_qp_state(qp), SMCR_QPS_RESET);
	smcr_recv_wr rw = { .wr_id = 1, .num_sge = 0 };
	cr_assert_eq(rnic_qp_post_recv(qp, &rw), SMCR_ERR_STATE, "no receives in RESET");

	smcr_qp_attr a = { .state = SMCR_QPS_RTR };
	cr_assert_eq(rnic_qp_modify(qp, &a), SMCR_ERR_STATE, "RESET -> RTR skips INIT");
	a = (smcr_qp_attr){ .state = SMCR_QPS_INIT, .port = 2 };
	cr_assert_eq(rnic_qp_modify(qp, &a), SMCR_ERR_INVAL);
	a = (smcr_qp_attr){ .state = SMCR_QPS_INIT, .port = 1, .pkey_index = 1 };
	cr_assert_eq(rnic_qp_modify(qp, &a), SMCR_ERR_INVAL);
	a = (smcr_qp_attr){ .state = SMCR_QPS_INIT, .port = 1, .access = 1u << 7 };
	cr_assert_eq(rnic_qp_modify(qp, &a), SMCR_ERR_INVAL);
	a = (smcr_qp_attr){ .state = SMCR_QPS_INIT, .port = 1, .access = SMCR_ACCESS_REMOTE_WRITE };
	cr_assert_eq(rnic_qp_modify(qp, &a), 0);
	cr_assert_eq(rnic_qp_post_recv(qp, &rw), 0, "receives may be posted from INIT on");
	smcr_send_wr sw = { .wr_id = 1, .opcode = SMCR_WR_SEND, .num_sge = 0 };
	cr_assert_eq(rnic_qp_post_send(qp, &sw), SMCR_ERR_STATE, "sends need RTS");

	smcr_port_desc d;
	rnic_vf_port_desc(tb->b.vf, 1, &d);
	smcr_qp_attr rtr = { .state = SMCR_QPS_RTR, .path_mtu = SMCR_MTU_1024, .dest_qpn = 0x123, .rq_psn = 1 };
	rtr.ah.sgid_index = 1; /* the v2 GID */
	memcpy(rtr.ah.dgid, d.gids[1].gid, 16);
	memcpy(rtr.ah.dmac, d.mac, 6);
	a = rtr;
	a.path_mtu = SMCR_MTU_2048;
	cr_assert_eq(rnic_qp_modify(qp, &a), SMCR_ERR_INVAL, "beyond the port's MTU");
	a = rtr;
	a.ah.sgid_index = 5;
	cr_assert_eq(rnic_qp_modify(qp, &a), SMCR_ERR_INVAL, "no such GID");
	a = rtr;
	memcpy(a.ah.dgid, d.gids[0].gid, 16);
	cr_assert_eq(rnic_qp_modify(qp, &a), SMCR_ERR_INVAL, "a v2 source needs an IPv4 destination");
	a = rtr;
	a.dest_qpn = 1u << 24;
	cr_assert_eq(rnic_qp_modify(qp, &a), SMCR_ERR_INVAL);
	a = rtr;
	a.min_rnr_timer = 32;
	cr_assert_eq(rnic_qp_modify(qp, &a), SMCR_ERR_INVAL);
	cr_assert_eq(rnic_qp_modify(qp, &rtr), 0);
	cr_assert_eq(rnic_qp_state(qp), SMCR_QPS_RTR);

	smcr_qp_attr rts = { .state = SMCR_QPS_RTS, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .sq_psn = 5 };
	a = rts;
	a.timeout = 32;
	cr_assert_eq(rnic_qp_modify(qp, &a), SMCR_ERR_INVAL);
	a = rts;
	a.retry_cnt = 8;
	cr_assert_eq(rnic_qp_modify(qp, &a), SMCR_ERR_INVAL);
	a = rts;
	a.rnr_retry = 8;
	cr_assert_eq(rnic_qp_modify(qp, &a), SMCR_ERR_INVAL);
	a = rts;
	a.sq_psn = 1u << 24;
	cr_assert_eq(rnic_qp_modify(qp, &a), SMCR_ERR_INVAL);
	cr_assert_eq(rnic_qp_modify(qp, &rts), 0);
	cr_assert_eq(rnic_qp_modify(qp, &rts), 0, "RTS -> RTS is allowed");
	a = (smcr_qp_attr){ .state = SMCR_QPS_INIT, .port = 1 };
	cr_assert_eq(rnic_qp_modify(qp, &a), SMCR_ERR_STATE, "no way back except RESET and ERR");
	a = (smcr_qp_attr){ .state = SMCR_QPS_RESET };
	cr_assert_eq(rnic_qp_modify(qp, &a), 0);
	cr_assert_eq(rnic_qp_state(qp), SMCR_QPS_RESET);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.n_wcs, 0, "RESET discards without completions");
	rnic_qp_destroy(qp);
	fin();
}

static void vlan100(testbed_params *p) { p->vlan = 100; }

static int tagged_frames;
static void count_tagged(void *ctx, const sim_plug *plug, sim_tap_dir dir, sim_time t, const sim_frame *f)
{
	(void)ctx;
	(void)plug;
	(void)t;
	if (dir == SIM_TAP_IN && f->data[12] == 0x81 && f->data[13] == 0x00 && (f->data[15] | (f->data[14] & 0xF) << 8) == 100)
		tagged_frames++;
}

static void roce_on_vlan(roce_version v)
{
	make(v, vlan100);
	tagged_frames = 0;
	sim_plug_set_tap(sim_wire_end(tb->a.wire, 0), count_tagged, NULL);
	fill(&tb->a, 0, 5000, 5);
	cr_assert_eq(testbed_post_write(&tb->a, 1, 0, 5000, 0, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(count_status(&tb->a, SMCR_WC_SUCCESS), 1);
	cr_assert_eq(memcmp(tb->a.mem, tb->b.mem, 5000), 0);
	cr_assert_eq(tagged_frames, 5, "every data packet left the adapter tagged with VLAN 100");
	fin();
}

Test(qp, roce_v1_on_a_vlan) { roce_on_vlan(ROCE_V1); }
Test(qp, roce_v2_on_a_vlan) { roce_on_vlan(ROCE_V2); }

Test(qp, adapters_on_different_vlans_never_reach_each_other)
{
	make(ROCE_V1, few_retries);
	/* B moves to VLAN 200: its switch port carries only 200 */
	uint16_t v200 = 200;
	cr_assert_eq(rnic_vf_set_vlans(tb->b.vf, 1, &v200, 1), 0);
	cr_assert_eq(sim_switch_port_trunk(tb->sw, 1, 0, &v200, 1), 0);
	cr_assert_eq(sim_switch_port_trunk(tb->sw, 0, 0, &v200, 1), 0);
	uint16_t v100 = 100;
	cr_assert_eq(rnic_vf_set_vlans(tb->a.vf, 1, &v100, 1), 0);
	uint16_t both[2] = { 100, 200 };
	cr_assert_eq(sim_switch_port_trunk(tb->sw, 0, 0, both, 2), 0);
	/* A's QP was set up untagged before: give it the VLAN 100 GID */
	smcr_qp_attr reset = { .state = SMCR_QPS_RESET };
	rnic_qp_modify(tb->a.qp, &reset);
	smcr_qp_attr a = { .state = SMCR_QPS_INIT, .port = 1, .access = SMCR_ACCESS_REMOTE_WRITE };
	cr_assert_eq(rnic_qp_modify(tb->a.qp, &a), 0);
	smcr_port_desc d;
	rnic_vf_port_desc(tb->b.vf, 1, &d);
	a = (smcr_qp_attr){ .state = SMCR_QPS_RTR, .path_mtu = SMCR_MTU_1024, .dest_qpn = rnic_qp_num(tb->b.qp) };
	memcpy(a.ah.dgid, d.gids[0].gid, 16);
	memcpy(a.ah.dmac, d.mac, 6);
	cr_assert_eq(rnic_qp_modify(tb->a.qp, &a), 0);
	a = (smcr_qp_attr){ .state = SMCR_QPS_RTS, .timeout = 10, .retry_cnt = 1 };
	cr_assert_eq(rnic_qp_modify(tb->a.qp, &a), 0);
	cr_assert_eq(testbed_post_write(&tb->a, 1, 0, 100, 0, SMCR_SEND_SIGNALED), 0);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.wcs[0].status, SMCR_WC_RETRY_EXC_ERR);
	cr_assert_eq(rnic_stats_get(tb->b.nic)->rx_frames, 0, "not one frame crossed from VLAN 100 to 200");
	fin();
}

Test(qp, port_state_changes_are_reported)
{
	make(ROCE_V2, NULL);
	testbed_run(tb, SIM_TIME_NEVER); /* reports from the set-up */
	cr_assert(rnic_port_active(tb->a.nic, 1));
	sim_wire_set_up(tb->a.wire, false);
	cr_assert_not(rnic_port_active(tb->a.nic, 1));
	smcr_port_desc d;
	rnic_vf_port_desc(tb->a.vf, 1, &d);
	cr_assert_eq(d.state, SMCR_PORT_DOWN);
	sim_wire_set_up(tb->a.wire, true);
	size_t before = tb->a.n_async;
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(tb->a.n_async, before + 2);
	cr_assert_eq(tb->a.async[before], SMCR_EV_PORT_ERR);
	cr_assert_eq(tb->a.async[before + 1], SMCR_EV_PORT_ACTIVE);
	fin();
}

static void lossy_seeded(testbed_params *p)
{
	lossy(p);
	p->wire.reorder = (sim_ratio){ 1, 30 };
	p->wire.duplicate = (sim_ratio){ 1, 50 };
}

static uint64_t run_lossy_transfer(uint64_t seed, uint64_t *mem_hash)
{
	testbed_params p;
	testbed_params_default(&p);
	lossy_seeded(&p);
	p.seed = seed;
	tb = testbed_new(&p);
	fill(&tb->a, 0, 300000, 11);
	for (uint32_t i = 0; i < 10; i++)
		testbed_post_write(&tb->a, i, i * 30000, 30000, (uint64_t)i * 30000, SMCR_SEND_SIGNALED);
	testbed_run(tb, SIM_TIME_NEVER);
	cr_assert_eq(count_status(&tb->a, SMCR_WC_SUCCESS), 10);
	uint64_t h = 0;
	for (uint32_t i = 0; i < 300000; i++)
		h = (h ^ tb->b.mem[i]) * 0x100000001b3ULL;
	*mem_hash = h;
	uint64_t fp = sim_engine_fingerprint(tb->eng) ^ sim_now(tb->eng) ^ qst(&tb->a)->retransmitted_packets;
	fin();
	return fp;
}

Test(qp, same_seed_same_bytes_same_fingerprint)
{
	uint64_t m1, m2, m3;
	uint64_t f1 = run_lossy_transfer(7, &m1);
	uint64_t f2 = run_lossy_transfer(7, &m2);
	uint64_t f3 = run_lossy_transfer(8, &m3);
	cr_assert_eq(f1, f2);
	cr_assert_eq(m1, m2);
	cr_assert_eq(m1, m3, "the data always arrives intact");
	cr_assert_neq(f1, f3, "another seed, another history");
}
