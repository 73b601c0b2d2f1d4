/* Robustness: garbage on the link, unknown tokens, LLC protocol violations, allocation
 * failures at every point of the handshake. Nothing crashes and nothing else is harmed. */
#include <criterion/criterion.h>
#include <string.h>

#include "tests/support/duo.h"

static bool up(void *arg)
{
	duo_conn *c = arg;
	return c->established && c->peer->established;
}

static bool settled(void *arg)
{
	duo_conn *c = arg;
	return (c->established || c->fallback || c->aborted) &&
	       (c->peer->established || c->peer->fallback || c->peer->aborted);
}

static bool streamed(void *arg) { return duo_stream_done(arg); }

static duo *setup(duo_conn **out)
{
	duo_opts o;
	duo_opts_default(&o);
	duo *d = duo_new(&o);
	duo_conn *c = duo_connect(d, 0);
	cr_assert(duo_run_until(d, up, c, 20 * SMCR_S));
	*out = c;
	return d;
}

Test(robust, garbage_sends_on_the_link_are_counted_and_dropped)
{
	duo_conn *c;
	duo *d = setup(&c);
	smcr_link_info li;
	cr_assert(duo_first_link(d, 1, &li));
	uint8_t junk[48];
	for (int round = 0; round < 64; round++) {
		for (size_t i = 0; i < sizeof(junk); i++)
			junk[i] = (uint8_t)(round * 37 + i * 11);
		junk[0] = (uint8_t)(round & 1 ? 0xFE : 0x30 + round); /* CDC-looking or unknown */
		loopback_inject_recv(d->lb, li.local_qpn, junk, (uint32_t)(round % 44) + 4);
	}
	duo_run(d, duo_now(d) + SMCR_S);
	smcr_stats st;
	smcr_ctx_get_stats(d->h[1].ctx, &st);
	cr_assert_geq(st.decode_errors + st.cdc_unknown_token, 32);
	/* the connection still works */
	duo_stream(c, 1 << 20);
	cr_assert(duo_run_until(d, streamed, c, 10 * SMCR_S));
	cr_assert_not(c->peer->rx_bad);
	cr_assert_eq(duo_link_count(d, 1, SMCR_LNK_ACTIVE), 1);
	duo_free(d);
}

Test(robust, cdc_for_an_unknown_token_is_ignored)
{
	duo_conn *c;
	duo *d = setup(&c);
	smcr_link_info li;
	cr_assert(duo_first_link(d, 1, &li));
	smcr_cdc_msg m = { .seqno = 9, .token = 0xdeadbeef, .prod = { 0, 100 } };
	uint8_t buf[SMCR_CDC_LEN];
	smcr_cdc_encode(buf, &m);
	loopback_inject_recv(d->lb, li.local_qpn, buf, sizeof(buf));
	duo_run(d, duo_now(d) + SMCR_S);
	smcr_stats st;
	smcr_ctx_get_stats(d->h[1].ctx, &st);
	cr_assert_eq(st.cdc_unknown_token, 1);
	cr_assert_eq(smcr_conn_readable(c->peer->c), 0);
	duo_free(d);
}

Test(robust, a_cdc_whose_cursor_runs_backwards_is_ignored)
{
	duo_conn *c;
	duo *d = setup(&c);
	duo_stream(c, 10000);
	cr_assert(duo_run_until(d, streamed, c, SMCR_S));
	smcr_conn_info si;
	smcr_conn_get_info(c->peer->c, &si);
	smcr_link_info li;
	cr_assert(duo_first_link(d, 1, &li));
	smcr_cdc_msg m = { .seqno = (uint16_t)(si.rx_prod.count ? 1000 : 1000), .token = si.local_token, .prod = { 0, 10 }, .cons = { 0, 0 } };
	uint8_t buf[SMCR_CDC_LEN];
	smcr_cdc_encode(buf, &m);
	loopback_inject_recv(d->lb, li.local_qpn, buf, sizeof(buf));
	duo_run(d, duo_now(d) + SMCR_S);
	smcr_conn_info after;
	smcr_conn_get_info(c->peer->c, &after);
	cr_assert_eq(after.rx_prod.count, si.rx_prod.count);
	cr_assert_eq(smcr_conn_readable(c->peer->c), 0);
	duo_free(d);
}

Test(robust, llc_request_of_an_unhandled_kind_is_dropped)
{
	duo_conn *c;
	duo *d = setup(&c);
	smcr_link_info li;
	cr_assert(duo_first_link(d, 1, &li));
	uint8_t buf[44] = { 0x05, 44, 0, 0 }; /* v1 REQUEST_ADD_LINK: Linux has no handler */
	loopback_inject_recv(d->lb, li.local_qpn, buf, sizeof(buf));
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(duo_lgr_count(d, 1), 1);
	cr_assert_eq(duo_link_count(d, 1, SMCR_LNK_ACTIVE), 1);
	duo_stream(c, 100000);
	cr_assert(duo_run_until(d, streamed, c, 10 * SMCR_S));
	duo_free(d);
}

Test(robust, peer_deleting_the_whole_link_group_aborts_its_connections)
{
	duo_conn *c;
	duo *d = setup(&c);
	smcr_link_info li;
	cr_assert(duo_first_link(d, 0, &li));
	/* DELETE_LINK ALL, disorderly, protocol violation, from the "server" */
	uint8_t buf[44] = { 0x04, 44, 0, 0x40, 0, 0x00, 0x04, 0x00, 0x00 };
	loopback_inject_recv(d->lb, li.local_qpn, buf, sizeof(buf));
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert(c->aborted);
	cr_assert_eq(duo_lgr_count(d, 0), 0);
	/* a new connection starts over with first contact */
	duo_run(d, duo_now(d) + 60 * SMCR_S);
	duo_conn *c2 = duo_connect(d, 0);
	cr_assert(duo_run_until(d, settled, c2, 30 * SMCR_S));
	cr_assert(c2->established || c2->fallback);
	duo_free(d);
}

Test(robust, lost_confirm_link_request_gives_timeout_decline_and_fallback)
{
	duo_opts o;
	duo_opts_default(&o);
	duo *d = duo_new(&o);
	duo_conn *c = duo_connect(d, 0);
	/* once the server has its QP (Accept sent), drop every SEND it makes: CONFIRM_LINK
	 * never arrives */
	while (!c->peer->clc_sent_bytes)
		sim_engine_run(d->eng, sim_engine_next_time(d->eng), 1);
	smcr_link_info li;
	cr_assert(duo_first_link(d, 1, &li));
	loopback_drop_sends(d->lb, li.local_qpn, 100);
	cr_assert(duo_run_until(d, settled, c, 30 * SMCR_S));
	cr_assert(c->fallback && c->peer->fallback);
	/* the server times out first (2 s) and declines; the client takes the Decline */
	cr_assert_eq(c->peer->fb_reason, SMCR_DECL_TIMEOUT_CL);
	cr_assert_eq(c->fb_reason, SMCR_DECL_PEERDECL);
	cr_assert_eq(c->fb_peer_diag, SMCR_DECL_TIMEOUT_CL);
	duo_run(d, duo_now(d) + 5 * SMCR_S);
	cr_assert_eq(duo_lgr_count(d, 0), 0);
	cr_assert_eq(duo_lgr_count(d, 1), 0);
	duo_free(d);
}

/* Fail the n-th allocation of one host (counted from the connect) during a handshake, a
 * short transfer and the linger; returns how many allocations the host made. */
static uint64_t alloc_failure_round(int host, uint64_t n, int *outcomes)
{
	duo_opts o;
	duo_opts_default(&o);
	duo *d = duo_new(&o);
	duo_host *h = &d->h[host];
	uint64_t base = h->alloc_count;
	h->fail_at = n ? base + n : 0;
	duo_conn *c = duo_connect(d, 0);
	duo_run_until(d, settled, c, 40 * SMCR_S);
	if (c->established && c->peer->established) {
		duo_stream(c, 200000);
		duo_run_until(d, streamed, c, 20 * SMCR_S);
		cr_assert_not(c->peer->rx_bad);
		outcomes[0]++;
	} else if (c->fallback || c->peer->fallback) {
		outcomes[1]++;
	} else {
		outcomes[2]++;
	}
	if (c->c)
		smcr_conn_close(c->c, duo_now(d));
	if (c->peer->c)
		smcr_conn_close(c->peer->c, duo_now(d));
	duo_sync(d);
	duo_run(d, duo_now(d) + 700 * SMCR_S);
	uint64_t used = h->alloc_count - base;
	duo_free(d);
	return used;
}

Test(robust, allocation_failures_at_every_point_never_crash, .timeout = 120)
{
	int outcomes[3] = { 0 };
	for (int host = 0; host < 2; host++) {
		uint64_t total = alloc_failure_round(host, 0, outcomes);
		cr_assert_gt(total, 20);
		for (uint64_t n = 1; n <= total; n++)
			alloc_failure_round(host, n, outcomes);
	}
	cr_assert_gt(outcomes[0], 0);
	cr_assert_gt(outcomes[1] + outcomes[2], 0, "some failures must hit the handshake");
}
