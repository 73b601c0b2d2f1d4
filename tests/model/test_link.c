/* Links and link groups: a second link over a second RNIC, failover with content verified,
 * link loss without an alternative, TEST_LINK keepalive, idle linger. */
#include <criterion/criterion.h>
#include <string.h>

#include "tests/support/duo.h"

static bool up(void *arg)
{
	duo_conn *c = arg;
	return c->established && c->peer->established;
}

/* A connection from host 0, established on both sides. */
static duo_conn *connect_up(duo *d)
{
	duo_conn *c = duo_connect(d, 0);
	cr_assert(duo_run_until(d, up, c, 20 * SMCR_S));
	return c;
}

static bool streamed(void *arg) { return duo_stream_done(arg); }

static duo *two_rnics(int ports0, int ports1)
{
	duo_opts o;
	duo_opts_default(&o);
	o.ports[0] = ports0;
	o.ports[1] = ports1;
	return duo_new(&o);
}

typedef struct lgr_pick {
	smcr_lgr_info i;
	int n;
} lgr_pick;

static void pick(void *arg, const smcr_lgr_info *i)
{
	lgr_pick *p = arg;
	p->i = *i;
	p->n++;
}

static smcr_lgr_info lgr_of(duo *d, int host)
{
	lgr_pick p = { 0 };
	smcr_ctx_foreach_lgr(d->h[host].ctx, pick, &p);
	cr_assert_eq(p.n, 1);
	return p.i;
}

Test(link, a_second_rnic_on_each_side_gives_a_symmetric_link_group)
{
	duo *d = two_rnics(2, 2);
	duo_conn *c = connect_up(d);
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(duo_link_count(d, 0, SMCR_LNK_ACTIVE), 2);
	cr_assert_eq(duo_link_count(d, 1, SMCR_LNK_ACTIVE), 2);
	cr_assert_eq(lgr_of(d, 0).type, SMCR_LGR_SYMMETRIC);
	cr_assert_eq(lgr_of(d, 1).type, SMCR_LGR_SYMMETRIC);
	smcr_link_info a0, a1, b0, b1;
	cr_assert(duo_link_nth(d, 0, 0, &a0) && duo_link_nth(d, 0, 1, &a1));
	cr_assert(duo_link_nth(d, 1, 0, &b0) && duo_link_nth(d, 1, 1, &b1));
	cr_assert_neq(a0.port_index, a1.port_index);
	cr_assert_neq(a0.link_id, a1.link_id);
	cr_assert_eq(a1.link_id, b1.link_id);
	cr_assert_eq(a1.peer_qpn, b1.local_qpn);
	cr_assert_eq(a1.peer_link_uid, b1.link_uid);
	/* the server alternates links for new connections */
	duo_conn *c2 = duo_connect(d, 0);
	cr_assert(duo_run_until(d, up, c2, 20 * SMCR_S));
	smcr_conn_info i1, i2;
	smcr_conn_get_info(c->peer->c, &i1);
	smcr_conn_get_info(c2->peer->c, &i2);
	cr_assert_neq(i1.link_id, i2.link_id);
	/* and each connection's data path works on its link */
	duo_stream(c, 300000);
	duo_stream(c2, 300000);
	cr_assert(duo_run_until(d, streamed, c, 10 * SMCR_S));
	cr_assert(duo_run_until(d, streamed, c2, 10 * SMCR_S));
	cr_assert_not(c->peer->rx_bad || c2->peer->rx_bad);
	duo_free(d);
}

Test(link, one_rnic_client_and_two_rnic_server_give_an_asymmetric_group)
{
	duo *d = two_rnics(1, 2);
	connect_up(d);
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(duo_link_count(d, 0, SMCR_LNK_ACTIVE), 2);
	cr_assert_eq(lgr_of(d, 0).type, SMCR_LGR_ASYMMETRIC_LOCAL);
	cr_assert_eq(lgr_of(d, 1).type, SMCR_LGR_ASYMMETRIC_PEER);
	duo_free(d);
}

static bool flowing(void *arg)
{
	duo_conn *c = arg;
	return c->peer->rx_done > (c->tx_total / 3);
}

static void failover_mid_transfer(int fail_host)
{
	duo *d = two_rnics(2, 2);
	duo_conn *c = connect_up(d);
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(duo_link_count(d, 0, SMCR_LNK_ACTIVE), 2);
	duo_stream(c, 8 << 20);
	duo_stream(c->peer, 6 << 20);
	cr_assert(duo_run_until(d, flowing, c, 10 * SMCR_S));
	cr_assert_lt(c->peer->rx_done, c->tx_total);
	/* fail the QP of the link the connection uses */
	smcr_conn_info ci;
	smcr_conn_get_info((fail_host ? c->peer : c)->c, &ci);
	smcr_link_info li;
	cr_assert_eq(smcr_ctx_link_info(d->h[fail_host].ctx, ci.link_id, &li), 0);
	cr_assert_eq(loopback_fail_qp(d->lb, li.local_qpn), 0);
	cr_assert(duo_run_until(d, streamed, c, 60 * SMCR_S), "received %llu of %llu",
	          (unsigned long long)c->peer->rx_done, (unsigned long long)c->tx_total);
	cr_assert(duo_run_until(d, streamed, c->peer, 60 * SMCR_S));
	cr_assert_not(c->peer->rx_bad, "corrupt at %llu", (unsigned long long)c->peer->rx_bad_at);
	cr_assert_not(c->rx_bad, "corrupt at %llu", (unsigned long long)c->rx_bad_at);
	cr_assert_eq(c->peer->rx_done, 8 << 20);
	cr_assert_eq(c->rx_done, 6 << 20);
	cr_assert_not(c->aborted || c->peer->aborted);
	smcr_conn_get_info(c->c, &ci);
	cr_assert_neq(ci.link_id, 0);
	smcr_stats st;
	smcr_ctx_get_stats(d->h[fail_host].ctx, &st);
	cr_assert_geq(st.failovers, 1);
	cr_assert_geq(duo_count(d, fail_host, SMCR_EV_LINK_DOWN), 1);
	duo_free(d);
}

Test(link, failover_on_the_client_keeps_every_byte) { failover_mid_transfer(0); }
Test(link, failover_on_the_server_keeps_every_byte) { failover_mid_transfer(1); }

Test(link, losing_the_only_link_aborts_the_connections)
{
	duo *d = two_rnics(1, 1);
	duo_conn *c = connect_up(d);
	duo_stream(c, 4 << 20);
	cr_assert(duo_run_until(d, flowing, c, 10 * SMCR_S));
	smcr_link_info li;
	cr_assert(duo_first_link(d, 0, &li));
	loopback_fail_qp(d->lb, li.local_qpn);
	duo_run(d, duo_now(d) + 5 * SMCR_S);
	cr_assert(c->aborted, "the connection ends with an error, not silently");
	cr_assert(c->tcp_aborted);
	cr_assert_eq(smcr_conn_get_state(c->c), SMCR_CLOSED);
	cr_assert_eq(duo_count(d, 0, SMCR_EV_LGR_TERMINATED), 1);
	cr_assert_eq(duo_find(d, 0, SMCR_EV_LGR_TERMINATED, 0)->lgr_end, SMCR_LGR_END_ABNORMAL);
	cr_assert_eq(duo_lgr_count(d, 0), 0);
	duo_run(d, duo_now(d) + 60 * SMCR_S);
	cr_assert(c->peer->aborted, "the peer learns of it too");
	duo_free(d);
}

Test(link, test_link_timeout_takes_a_silent_link_down)
{
	duo *d = two_rnics(1, 1);
	duo_conn *c = connect_up(d);
	uint64_t t0 = duo_now(d);
	/* the server's RNIC falls off the fabric without telling anybody */
	loopback_dev_set_down(d->lb, d->h[1].dev[0], true);
	duo_run(d, t0 + 35 * SMCR_S);
	const duo_event_rec *e = duo_find(d, 0, SMCR_EV_LINK_DOWN, 0);
	cr_assert(e, "no link down on the client");
	/* 30 s idle, TEST_LINK, no answer within 2 s (or its send failed first) */
	cr_assert_geq(e->at, t0 + 30 * SMCR_S);
	cr_assert_leq(e->at, t0 + 33 * SMCR_S);
	cr_assert(c->aborted);
	duo_free(d);
}

Test(link, test_link_is_answered_on_an_idle_link)
{
	duo *d = two_rnics(1, 1);
	duo_conn *c = connect_up(d);
	duo_run(d, duo_now(d) + 100 * SMCR_S);
	cr_assert_eq(duo_count(d, -1, SMCR_EV_LINK_DOWN), 0);
	cr_assert_eq(duo_link_count(d, 0, SMCR_LNK_ACTIVE), 1);
	smcr_link_info li;
	duo_first_link(d, 0, &li);
	cr_assert_geq(li.llc_out, 3, "keepalives were sent (%llu LLC out)", (unsigned long long)li.llc_out);
	cr_assert_not(c->aborted);
	duo_free(d);
}

static bool both_freed(void *arg)
{
	duo_conn *c = arg;
	return c->freed && c->peer->freed;
}

Test(link, idle_link_group_lingers_then_is_deleted_orderly)
{
	duo *d = two_rnics(1, 1);
	duo_conn *c = connect_up(d);
	smcr_conn_close(c->c, duo_now(d));
	smcr_conn_close(c->peer->c, duo_now(d));
	cr_assert(duo_run_until(d, both_freed, c, SMCR_S));
	uint64_t t0 = duo_now(d);
	duo_run(d, t0 + 599 * SMCR_S);
	cr_assert_eq(duo_lgr_count(d, 1), 1);
	cr_assert_eq(duo_lgr_count(d, 0), 1);
	duo_run(d, t0 + 601 * SMCR_S);
	/* the server's 600 s ran out first: DELETE_LINK ALL + ORDERLY, reason 0x00030000;
	 * the client terminates its lgr on receipt, before its own 610 s */
	cr_assert_eq(duo_lgr_count(d, 1), 0);
	cr_assert_eq(duo_lgr_count(d, 0), 0);
	const duo_event_rec *e = duo_find(d, 1, SMCR_EV_LGR_FREED, 0);
	cr_assert(e);
	cr_assert_geq(e->at, t0 + 600 * SMCR_S);
	/* both ends say it was the orderly idle end, not a termination */
	const duo_event_rec *srv = duo_find(d, 1, SMCR_EV_LGR_TERMINATED, 0);
	const duo_event_rec *cli = duo_find(d, 0, SMCR_EV_LGR_TERMINATED, 0);
	cr_assert(srv && cli);
	cr_assert_eq(srv->lgr_end, SMCR_LGR_END_IDLE);
	cr_assert_eq(srv->reason, SMCR_LLC_DEL_PROG_INIT_TERM);
	cr_assert_eq(cli->lgr_end, SMCR_LGR_END_PEER_ORDERLY);
	cr_assert_eq(cli->reason, SMCR_LLC_DEL_PROG_INIT_TERM);
	cr_assert_str_eq(smcr_lgr_end_text(cli->lgr_end), "ended by the peer (orderly)");
	smcr_stats st;
	smcr_ctx_get_stats(d->h[0].ctx, &st);
	cr_assert_eq(st.lgr_terminated_cnt, 0, "an orderly end is no termination");
	duo_free(d);
}

Test(link, reusing_within_the_linger_time_keeps_the_link_group)
{
	duo *d = two_rnics(1, 1);
	duo_conn *c = connect_up(d);
	smcr_conn_close(c->c, duo_now(d));
	smcr_conn_close(c->peer->c, duo_now(d));
	cr_assert(duo_run_until(d, both_freed, c, SMCR_S));
	duo_run(d, duo_now(d) + 300 * SMCR_S);
	duo_conn *c2 = duo_connect(d, 0);
	cr_assert(duo_run_until(d, up, c2, 20 * SMCR_S));
	duo_run(d, duo_now(d) + 500 * SMCR_S);
	cr_assert_eq(duo_lgr_count(d, 0), 1);
	cr_assert_eq(duo_count(d, 0, SMCR_EV_LGR_CREATED), 1);
	duo_free(d);
}

/* Linux acts on IB_EVENT_PORT_ACTIVE only for a port it saw go away; rxe raises the event
 * on every NETDEV_CHANGE of its netdev, and an ADD_LINK for each would be a second one
 * after first contact that Linux never sends (seen against Linux 6.1 over rxe). */
Test(link, port_active_for_a_port_that_is_up_starts_no_add_link)
{
	duo *d = two_rnics(1, 1);
	connect_up(d);
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(duo_count(d, 1, SMCR_EV_ADD_LINK_REJECTED), 1, "one attempt after first contact");
	for (int h = 0; h < 2; h++)
		cr_assert_eq(smcr_ctx_on_async_event(d->h[h].ctx, SMCR_EV_PORT_ACTIVE, 0, NULL, duo_now(d)), 0);
	duo_run(d, duo_now(d) + 3 * SMCR_S);
	cr_assert_eq(duo_count(d, 1, SMCR_EV_ADD_LINK_REJECTED), 1, "no new attempt for a port that was up");
	cr_assert_eq(duo_link_count(d, 0, SMCR_LNK_ACTIVE), 1);
	duo_free(d);
}

Test(link, port_active_after_port_error_adds_the_link_again)
{
	duo *d = two_rnics(1, 2);
	connect_up(d);
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(duo_link_count(d, 1, SMCR_LNK_ACTIVE), 2, "an asymmetric second link on the server's port 2");
	int added = duo_count(d, 1, SMCR_EV_LINK_ADDED);
	cr_assert_eq(smcr_ctx_on_async_event(d->h[1].ctx, SMCR_EV_PORT_ERR, 1, NULL, duo_now(d)), 0);
	duo_run(d, duo_now(d) + 3 * SMCR_S);
	cr_assert_eq(duo_link_count(d, 1, SMCR_LNK_ACTIVE), 1);
	cr_assert_eq(smcr_ctx_on_async_event(d->h[1].ctx, SMCR_EV_PORT_ACTIVE, 1, NULL, duo_now(d)), 0);
	duo_run(d, duo_now(d) + 3 * SMCR_S);
	cr_assert_eq(duo_link_count(d, 1, SMCR_LNK_ACTIVE), 2, "the port came back: the link group grows again");
	cr_assert_eq(duo_count(d, 1, SMCR_EV_LINK_ADDED), added + 1);
	duo_free(d);
}

static void v2_ueid(duo_opts *o)
{
	for (int i = 0; i < 2; i++) {
		o->set[i].n_ueids = 1;
		memset(o->set[i].ueids[0], ' ', SMCR_EID_LEN);
		memcpy(o->set[i].ueids[0], "SIM-V2", 6);
	}
}

typedef struct llc_spy {
	int add_link_v2, add_link_v2_with_rkeys, req_add_link, le_len, be_len, total_v2;
} llc_spy;

static void spy(void *arg, uint32_t src, uint32_t dst, const uint8_t *buf, uint32_t len)
{
	llc_spy *s = arg;
	(void)src;
	(void)dst;
	if (!len || buf[0] == SMCR_CDC_TYPE || (buf[0] & 0xF0) != 0x20)
		return;
	s->total_v2++;
	if (buf[1] == (len & 0xff) && buf[2] == (len >> 8))
		s->le_len++;
	if (buf[2] == (len & 0xff) && buf[1] == (len >> 8))
		s->be_len++;
	if (buf[0] == 0x22) {
		s->add_link_v2++;
		if (len > 44)
			s->add_link_v2_with_rkeys++;
	}
	if (buf[0] == 0x25)
		s->req_add_link++;
}

Test(link, smcr_v2_adds_the_second_link_with_the_rkey_extension)
{
	duo_opts o;
	duo_opts_default(&o);
	o.ports[0] = o.ports[1] = 2;
	v2_ueid(&o);
	duo *d = duo_new(&o);
	llc_spy s = { 0 };
	loopback_set_observer(d->lb, spy, &s);
	duo_conn *c = connect_up(d);
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(lgr_of(d, 0).version, 2);
	cr_assert_eq(lgr_of(d, 0).type, SMCR_LGR_SYMMETRIC);
	cr_assert_eq(duo_link_count(d, 1, SMCR_LNK_ACTIVE), 2);
	/* ADD_LINK request and response both carry the v2 extension (one RMB each) */
	cr_assert_eq(s.add_link_v2_with_rkeys, 2);
	/* x86 Linux writes the v2 length little-endian; so does the default setting */
	cr_assert_gt(s.total_v2, 4);
	cr_assert_eq(s.le_len, s.total_v2);
	/* data flows on both links after a failover */
	duo_stream(c, 2 << 20);
	cr_assert(duo_run_until(d, streamed, c, 10 * SMCR_S));
	smcr_conn_info ci;
	smcr_conn_get_info(c->c, &ci);
	smcr_link_info li;
	smcr_ctx_link_info(d->h[0].ctx, ci.link_id, &li);
	loopback_fail_qp(d->lb, li.local_qpn);
	duo_stream(c, 2 << 20);
	cr_assert(duo_run_until(d, streamed, c, 20 * SMCR_S));
	cr_assert_not(c->peer->rx_bad);
	duo_free(d);
}

Test(link, big_endian_v2_llc_lengths_when_configured)
{
	duo_opts o;
	duo_opts_default(&o);
	v2_ueid(&o);
	o.set[0].llc_v2_order = o.set[1].llc_v2_order = SMCR_LLC_V2_BE;
	duo *d = duo_new(&o);
	llc_spy s = { 0 };
	loopback_set_observer(d->lb, spy, &s);
	connect_up(d);
	cr_assert_gt(s.total_v2, 2);
	cr_assert_eq(s.be_len, s.total_v2);
	duo_free(d);
}

/* The first TEST_LINK a QP sends (the response to an injected request). */
typedef struct echo_spy {
	uint32_t from_qpn;
	uint8_t buf[SMCR_LLC_LEN];
	int n;
} echo_spy;

static void echo_seen(void *arg, uint32_t src_qpn, uint32_t dst_qpn, const uint8_t *buf, uint32_t len)
{
	echo_spy *s = arg;
	(void)dst_qpn;
	if (src_qpn != s->from_qpn || len != SMCR_LLC_LEN || (buf[0] & 0x0F) != SMCR_LLC_TEST_LINK)
		return;
	if (!s->n++)
		memcpy(s->buf, buf, len);
}

/* Linux smc_llc_event_handler(): a TEST_LINK request comes back as it arrived with the
 * response flag set, reserved bytes included; a v2 length stays in the requester's byte
 * order (a big-endian z/OS request to a little-endian Linux comes back big-endian). */
static void test_link_echo(bool v2)
{
	duo_opts o;
	duo_opts_default(&o);
	if (v2)
		v2_ueid(&o);
	duo *d = duo_new(&o);
	connect_up(d);
	smcr_link_info li;
	cr_assert(duo_first_link(d, 0, &li));
	uint8_t req[SMCR_LLC_LEN];
	for (unsigned i = 0; i < sizeof(req); i++)
		req[i] = (uint8_t)(0xA0 + i); /* user data and reserved bytes alike */
	req[0] = v2 ? 0x27 : SMCR_LLC_TEST_LINK;
	if (v2) {
		req[1] = 0x00; /* 44, big-endian */
		req[2] = SMCR_LLC_LEN;
	} else {
		req[1] = SMCR_LLC_LEN;
	}
	req[3] = 0;
	echo_spy s = { .from_qpn = li.local_qpn };
	loopback_set_observer(d->lb, echo_seen, &s);
	cr_assert_eq(loopback_inject_recv(d->lb, li.local_qpn, req, sizeof(req)), 0);
	duo_run(d, duo_now(d) + 10 * SMCR_MS);
	cr_assert_eq(s.n, 1, "one TEST_LINK response");
	req[3] |= SMCR_LLC_FLAG_RESP;
	cr_assert_arr_eq(s.buf, req, sizeof(req), "the response is the request with the response flag");
	cr_assert_eq(duo_count(d, -1, SMCR_EV_LINK_DOWN), 0);
	duo_free(d);
}

Test(link, a_test_link_request_is_echoed_whole_v1) { test_link_echo(false); }
Test(link, a_test_link_request_is_echoed_whole_v2_in_the_requesters_byte_order) { test_link_echo(true); }

Test(link, port_error_fails_over_and_port_return_adds_a_link_again)
{
	duo *d = two_rnics(2, 2);
	duo_conn *c = connect_up(d);
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(duo_link_count(d, 1, SMCR_LNK_ACTIVE), 2);
	duo_stream(c->peer, 4 << 20);
	cr_assert(duo_run_until(d, flowing, c->peer, 10 * SMCR_S));
	/* the server's second RNIC port goes down and comes back */
	loopback_dev_set_down(d->lb, d->h[1].dev[1], true);
	smcr_ctx_on_async_event(d->h[1].ctx, SMCR_EV_PORT_ERR, (uint32_t)d->h[1].port_idx[1], NULL, duo_now(d));
	duo_sync(d);
	cr_assert(duo_run_until(d, streamed, c->peer, 30 * SMCR_S));
	cr_assert_not(c->rx_bad);
	const duo_event_rec *e = duo_find(d, 1, SMCR_EV_LINK_DOWN, 0);
	cr_assert(e);
	cr_assert_eq(e->linkdown, SMCR_LINKDOWN_PORT_ERROR);
	duo_run(d, duo_now(d) + 5 * SMCR_S);
	/* with one port left the server adds an asymmetric link over it */
	cr_assert_eq(lgr_of(d, 1).type, SMCR_LGR_ASYMMETRIC_LOCAL);
	loopback_dev_set_down(d->lb, d->h[1].dev[1], false);
	smcr_ctx_on_async_event(d->h[1].ctx, SMCR_EV_PORT_ACTIVE, (uint32_t)d->h[1].port_idx[1], NULL, duo_now(d));
	duo_sync(d);
	duo_run(d, duo_now(d) + 5 * SMCR_S);
	cr_assert_eq(lgr_of(d, 1).type, SMCR_LGR_SYMMETRIC);
	cr_assert_eq(duo_link_count(d, 1, SMCR_LNK_ACTIVE), 2);
	duo_free(d);
}

/* An operator takes a link down (smcr_ctx_link_fail): it goes down as if its QP had
 * failed, with its own reason, and the connection carries on over the other link. */
Test(link, a_link_the_host_fails_goes_down_and_its_connection_moves_over)
{
	duo *d = two_rnics(2, 2);
	duo_conn *c = connect_up(d);
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(duo_link_count(d, 0, SMCR_LNK_ACTIVE), 2);
	cr_assert_eq(smcr_ctx_link_fail(d->h[0].ctx, 12345, duo_now(d)), SMCR_ERR_NOTFOUND);
	cr_assert_eq(duo_count(d, 0, SMCR_EV_LINK_DOWN), 0);
	duo_stream(c, 4 << 20);
	cr_assert(duo_run_until(d, flowing, c, 10 * SMCR_S));
	smcr_conn_info ci;
	cr_assert_eq(smcr_conn_get_info(c->c, &ci), 0);
	uint64_t failed = ci.link_id;
	cr_assert_eq(smcr_ctx_link_fail(d->h[0].ctx, failed, duo_now(d)), 0);
	duo_sync(d);
	const duo_event_rec *e = duo_find(d, 0, SMCR_EV_LINK_DOWN, 0);
	cr_assert(e);
	cr_assert_eq(e->linkdown, SMCR_LINKDOWN_LOCAL);
	cr_assert_eq(e->link_id, failed);
	cr_assert(duo_run_until(d, streamed, c, 30 * SMCR_S));
	cr_assert_not(c->peer->rx_bad, "corrupt at %llu", (unsigned long long)c->peer->rx_bad_at);
	cr_assert_not(c->aborted || c->peer->aborted);
	cr_assert_eq(smcr_conn_get_info(c->c, &ci), 0);
	cr_assert_neq(ci.link_id, 0);
	cr_assert_neq(ci.link_id, failed);
	duo_free(d);
}

Test(link, send_slots_that_never_free_up_take_the_link_down_after_ten_seconds)
{
	duo *d = two_rnics(1, 1);
	duo_conn *cs[20];
	for (int i = 0; i < 20; i++) {
		cs[i] = duo_connect(d, 0);
		cr_assert(duo_run_until(d, up, cs[i], 20 * SMCR_S));
	}
	/* the peer stops acknowledging and the retries never end: 20 CDCs for 16 slots */
	loopback_set_retry_time(d->lb, 3600 * SMCR_S);
	loopback_dev_set_down(d->lb, d->h[1].dev[0], true);
	uint64_t t0 = duo_now(d);
	for (int i = 0; i < 20; i++)
		duo_stream(cs[i], 1000);
	duo_run(d, t0 + 15 * SMCR_S);
	const duo_event_rec *e = duo_find(d, 0, SMCR_EV_LINK_DOWN, 0);
	cr_assert(e);
	cr_assert_eq(e->linkdown, SMCR_LINKDOWN_SLOT_TIMEOUT);
	cr_assert_geq(e->at, t0 + 10 * SMCR_S);
	cr_assert_lt(e->at, t0 + 11 * SMCR_S);
	cr_assert(cs[0]->aborted);
	duo_free(d);
}

Test(link, smcr_v2_client_gaining_a_second_rnic_requests_an_add_link)
{
	duo_opts o;
	duo_opts_default(&o);
	o.ports[0] = o.ports[1] = 2;
	v2_ueid(&o);
	duo *d = duo_new(&o);
	/* the client's second RNIC is down at first */
	smcr_ctx_on_async_event(d->h[0].ctx, SMCR_EV_PORT_ERR, (uint32_t)d->h[0].port_idx[1], NULL, 0);
	llc_spy s = { 0 };
	loopback_set_observer(d->lb, spy, &s);
	duo_conn *c = connect_up(d);
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(lgr_of(d, 0).type, SMCR_LGR_ASYMMETRIC_LOCAL);
	cr_assert_eq(lgr_of(d, 1).type, SMCR_LGR_ASYMMETRIC_PEER);
	cr_assert_eq(s.req_add_link, 0);
	/* it comes up: the v2 client asks the server with REQUEST_ADD_LINK */
	smcr_ctx_on_async_event(d->h[0].ctx, SMCR_EV_PORT_ACTIVE, (uint32_t)d->h[0].port_idx[1], NULL, duo_now(d));
	duo_sync(d);
	duo_run(d, duo_now(d) + 5 * SMCR_S);
	cr_assert_geq(s.req_add_link, 1);
	cr_assert_eq(lgr_of(d, 0).type, SMCR_LGR_SYMMETRIC);
	cr_assert_eq(lgr_of(d, 1).type, SMCR_LGR_SYMMETRIC);
	/* the asymmetric link was deleted: two links, on different ports */
	cr_assert_eq(duo_link_count(d, 0, SMCR_LNK_ACTIVE), 2);
	smcr_link_info a0, a1;
	cr_assert(duo_link_nth(d, 0, 0, &a0) && duo_link_nth(d, 0, 1, &a1));
	cr_assert_neq(a0.port_index, a1.port_index);
	duo_stream(c, 1 << 20);
	cr_assert(duo_run_until(d, streamed, c, 10 * SMCR_S));
	cr_assert_not(c->peer->rx_bad);
	duo_free(d);
}

/* A DELETE LINK ALL without the orderly flag: the peer gave the link group up. The client
 * terminates it as Linux does, and says the peer did it and why. */
Test(link, a_delete_link_all_without_the_orderly_flag_is_an_abnormal_end_by_the_peer)
{
	duo *d = two_rnics(1, 1);
	duo_conn *c = connect_up(d);
	smcr_link_info li;
	cr_assert(duo_first_link(d, 0, &li));
	smcr_llc_msg m;
	memset(&m, 0, sizeof(m));
	m.type = SMCR_LLC_DELETE_LINK;
	m.version = 1;
	m.length = SMCR_LLC_LEN;
	m.flags = SMCR_LLC_FLAG_DEL_LINK_ALL;
	m.u.delete_link.reason = SMCR_LLC_DEL_LOST_PATH;
	uint8_t buf[SMCR_LLC_V2_MAX_LEN];
	ssize_t n = smcr_llc_encode(buf, sizeof(buf), &m, SMCR_LLC_V2_LE);
	cr_assert_gt(n, 0);
	cr_assert_eq(loopback_inject_recv(d->lb, li.local_qpn, buf, (uint32_t)n), 0);
	duo_run(d, duo_now(d) + SMCR_S);
	const duo_event_rec *e = duo_find(d, 0, SMCR_EV_LGR_TERMINATED, 0);
	cr_assert(e);
	cr_assert_eq(e->lgr_end, SMCR_LGR_END_PEER_ABNORMAL);
	cr_assert_eq(e->reason, SMCR_LLC_DEL_LOST_PATH);
	cr_assert_str_eq(smcr_lgr_end_text(e->lgr_end), "terminated by the peer");
	cr_assert(c->aborted, "its connection ends with an error");
	smcr_stats st;
	smcr_ctx_get_stats(d->h[0].ctx, &st);
	cr_assert_eq(st.lgr_terminated_cnt, 1);
	duo_free(d);
}

/* Linux's module unload and reboot end every link group (smc_smcr_terminate_all(NULL),
 * net/smc/smc_core.c:1555-1586): DELETE_LINK ALL without the orderly flag, reason
 * 0x00020000; the lab's interop runs do this against Linux in both directions. */
Test(link, operator_termination_of_all_link_groups_tells_the_peer_and_aborts_both_sides)
{
	duo *d = two_rnics(1, 1);
	duo_conn *c = connect_up(d);
	cr_assert_eq(smcr_ctx_terminate_all(d->h[1].ctx, duo_now(d)), 1);
	cr_assert_eq(smcr_ctx_terminate_all(d->h[1].ctx, duo_now(d)), 0, "nothing left to end");
	duo_run(d, duo_now(d) + 3 * SMCR_S);
	const duo_event_rec *srv = duo_find(d, 1, SMCR_EV_LGR_TERMINATED, 0);
	const duo_event_rec *cli = duo_find(d, 0, SMCR_EV_LGR_TERMINATED, 0);
	cr_assert(srv && cli);
	cr_assert_eq(srv->lgr_end, SMCR_LGR_END_ABNORMAL);
	cr_assert_eq(srv->reason, SMCR_LLC_DEL_OP_INIT_TERM);
	cr_assert_eq(cli->lgr_end, SMCR_LGR_END_PEER_ABNORMAL, "not orderly: the peer sees a termination");
	cr_assert_eq(cli->reason, SMCR_LLC_DEL_OP_INIT_TERM);
	cr_assert(c->peer->aborted, "the server's connection ends with an error");
	cr_assert(c->aborted, "the client's connection ends with an error");
	cr_assert_eq(duo_lgr_count(d, 0), 0);
	cr_assert_eq(duo_lgr_count(d, 1), 0);
	cr_assert_eq(duo_count(d, -1, SMCR_EV_LLC_PROTOCOL_VIOLATION), 0);
	duo_free(d);
}

/* The server ends a link group with two links (a DELETE LINK ALL reaches it on the second
 * link) while the client's RNIC under the first link has silently fallen off the fabric.
 * Its own DELETE LINK ALL goes on the first link first (smc_llc_send_link_delete_all).
 * Returns how long after the injection the client ended its link group (UINT64_MAX: not
 * within `horizon`) and how (`how`). */
static uint64_t client_end_after_first_link_lost(uint64_t retry, uint64_t horizon, smcr_lgr_end *how)
{
	duo *d = two_rnics(2, 2);
	loopback_set_retry_time(d->lb, retry);
	duo_conn *c = connect_up(d);
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(duo_link_count(d, 0, SMCR_LNK_ACTIVE), 2);
	cr_assert_eq(duo_link_count(d, 1, SMCR_LNK_ACTIVE), 2);
	smcr_link_info a0, b0, b1;
	cr_assert(duo_link_nth(d, 0, 0, &a0) && duo_link_nth(d, 1, 0, &b0) && duo_link_nth(d, 1, 1, &b1));
	cr_assert_eq(a0.link_id, b0.link_id, "the first link on both sides");
	loopback_dev_set_down(d->lb, d->h[0].dev[a0.port_index], true);
	smcr_llc_msg m;
	memset(&m, 0, sizeof(m));
	m.type = SMCR_LLC_DELETE_LINK;
	m.version = 1;
	m.length = SMCR_LLC_LEN;
	m.flags = SMCR_LLC_FLAG_DEL_LINK_ALL;
	m.u.delete_link.reason = SMCR_LLC_DEL_OP_INIT_TERM;
	uint8_t buf[SMCR_LLC_V2_MAX_LEN];
	ssize_t n = smcr_llc_encode(buf, sizeof(buf), &m, SMCR_LLC_V2_LE);
	cr_assert_gt(n, 0);
	uint64_t t0 = duo_now(d);
	cr_assert_eq(loopback_inject_recv(d->lb, b1.local_qpn, buf, (uint32_t)n), 0);
	duo_run(d, t0 + horizon);
	cr_assert(duo_find(d, 1, SMCR_EV_LGR_TERMINATED, 0), "the server ends the link group");
	const duo_event_rec *e = duo_find(d, 0, SMCR_EV_LGR_TERMINATED, 0);
	uint64_t after = UINT64_MAX;
	*how = SMCR_LGR_END_NONE;
	if (e) {
		after = e->at - t0;
		*how = e->lgr_end;
		cr_assert(c->aborted, "its connection ends with an error");
	}
	duo_free(d);
	return after;
}

/* Linux: smc_wr_tx_process_cqe() completes the DELETE LINK ALL's waiter whatever the
 * status, so a send that failed on the dead path counts as sent and nothing goes on the
 * second link; the client learns of the end from its own TEST_LINK on the link that works
 * (30 s idle, then no answer). */
Test(link, delete_link_all_that_fails_on_the_dead_path_counts_as_sent_as_in_linux)
{
	smcr_lgr_end how;
	uint64_t after = client_end_after_first_link_lost(100 * SMCR_MS, 5 * SMCR_S, &how);
	cr_assert_eq(after, UINT64_MAX, "not told over the second link (%llu ns)", (unsigned long long)after);
	after = client_end_after_first_link_lost(100 * SMCR_MS, 40 * SMCR_S, &how);
	/* the 30 s idle time counts from the link's last traffic, before the injection */
	cr_assert_geq(after, 25 * SMCR_S, "its TEST_LINK finds the end (%llu ns)", (unsigned long long)after);
	cr_assert_lt(after, 40 * SMCR_S);
	cr_assert_eq(how, SMCR_LGR_END_ABNORMAL, "no link left, not the peer's DELETE LINK");
}

Test(link, delete_link_all_goes_on_the_next_link_when_the_first_send_times_out)
{
	smcr_lgr_end how;
	uint64_t after = client_end_after_first_link_lost(60 * SMCR_S, 5 * SMCR_S, &how);
	cr_assert_eq(how, SMCR_LGR_END_PEER_ABNORMAL);
	cr_assert_geq(after, 2 * SMCR_S, "the first link's send was waited for 2 s");
	cr_assert_lt(after, 2 * SMCR_S + 50 * SMCR_MS, "then the second (%llu ns)", (unsigned long long)after);
}
