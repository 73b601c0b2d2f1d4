/* Closing connections in every order (Linux smc_close.c state machine), TCP close
 * coordination and aborts. */
#include <criterion/criterion.h>

#include "tests/support/duo.h"

static bool up(void *arg)
{
	duo_conn *c = arg;
	return c->established && c->peer->established;
}

static bool both_freed(void *arg)
{
	duo_conn *c = arg;
	return c->freed && c->peer->freed;
}

static duo *setup(duo_conn **out)
{
	duo_opts o;
	duo_opts_default(&o);
	duo *d = duo_new(&o);
	duo_conn *c = duo_connect(d, 0);
	cr_assert(duo_run_until(d, up, c, 10 * SMCR_S));
	*out = c;
	return d;
}

static void settle(duo *d) { duo_run(d, duo_now(d) + 100 * SMCR_MS); }

static const duo_event_rec *state_ev(duo *d, int host, uint64_t conn_id, smcr_conn_state st)
{
	for (int i = 0; i < d->n_ev; i++)
		if (d->ev[i].host == host && d->ev[i].type == SMCR_EV_CONN_STATE &&
		    d->ev[i].conn_id == conn_id && d->ev[i].conn_state == st)
			return &d->ev[i];
	return NULL;
}

Test(close, client_closes_first_then_server)
{
	duo_conn *c;
	duo *d = setup(&c);
	uint64_t cid = smcr_conn_id(c->c), sid = smcr_conn_id(c->peer->c);
	smcr_conn_close(c->c, duo_now(d));
	duo_sync(d);
	cr_assert(c->tcp_shutdown, "active close shuts the TCP socket down");
	settle(d);
	cr_assert(state_ev(d, 0, cid, SMCR_PEERCLOSEWAIT1));
	cr_assert(c->peer->peer_closed);
	cr_assert_eq(smcr_conn_get_state(c->peer->c), SMCR_APPCLOSEWAIT1);
	/* EOF for the server's reader */
	uint8_t b;
	cr_assert_eq(smcr_conn_recv(c->peer->c, &b, 1, 0, duo_now(d)), 0);
	cr_assert_not(c->freed);
	smcr_conn_close(c->peer->c, duo_now(d));
	duo_sync(d);
	cr_assert(duo_run_until(d, both_freed, c, SMCR_S));
	cr_assert(state_ev(d, 1, sid, SMCR_CLOSED));
	cr_assert(state_ev(d, 0, cid, SMCR_CLOSED));
	cr_assert(c->tcp_closed && c->peer->tcp_closed);
	cr_assert_not(c->tcp_aborted || c->peer->tcp_aborted);
	cr_assert_not(c->aborted || c->peer->aborted);
	/* the lgr stays for reuse */
	cr_assert_eq(duo_lgr_count(d, 0), 1);
	duo_free(d);
}

Test(close, server_closes_first_then_client)
{
	duo_conn *c;
	duo *d = setup(&c);
	smcr_conn_close(c->peer->c, duo_now(d));
	settle(d);
	cr_assert(c->peer_closed);
	cr_assert_eq(smcr_conn_get_state(c->c), SMCR_APPCLOSEWAIT1);
	smcr_conn_close(c->c, duo_now(d));
	cr_assert(duo_run_until(d, both_freed, c, SMCR_S));
	duo_free(d);
}

Test(close, both_close_at_the_same_time)
{
	duo_conn *c;
	duo *d = setup(&c);
	smcr_conn_close(c->c, duo_now(d));
	smcr_conn_close(c->peer->c, duo_now(d));
	cr_assert(duo_run_until(d, both_freed, c, SMCR_S));
	cr_assert_not(c->aborted || c->peer->aborted);
	duo_free(d);
}

Test(close, shutdown_write_then_the_peer_finishes_sending)
{
	duo_conn *c;
	duo *d = setup(&c);
	uint64_t cid = smcr_conn_id(c->c);
	cr_assert_eq(smcr_conn_shutdown_write(c->c, duo_now(d)), 0);
	settle(d);
	cr_assert(c->tcp_shutdown_wr);
	cr_assert(state_ev(d, 0, cid, SMCR_PEERCLOSEWAIT1));
	cr_assert_eq(smcr_conn_get_state(c->peer->c), SMCR_APPCLOSEWAIT1);
	cr_assert(c->peer->peer_closed);
	/* the client can still receive */
	duo_stream(c->peer, 100000);
	cr_assert(duo_run_until(d, (bool (*)(void *))duo_stream_done, c->peer, 5 * SMCR_S));
	cr_assert_not(c->rx_bad);
	cr_assert_lt(smcr_conn_send(c->c, (const uint8_t *)"x", 1, 0, duo_now(d)), 0);
	smcr_conn_close(c->peer->c, duo_now(d));
	settle(d);
	cr_assert_eq(smcr_conn_get_state(c->c), SMCR_APPFINCLOSEWAIT);
	smcr_conn_close(c->c, duo_now(d));
	cr_assert(duo_run_until(d, both_freed, c, SMCR_S));
	duo_free(d);
}

Test(close, close_with_unread_data_aborts_the_peer)
{
	duo_conn *c;
	duo *d = setup(&c);
	c->auto_read = false;
	duo_stream(c->peer, 1000);
	settle(d);
	cr_assert_eq(smcr_conn_readable(c->c), 1000);
	smcr_conn_close(c->c, duo_now(d)); /* 1000 unread bytes: abort, not closed */
	settle(d);
	cr_assert(c->peer->aborted);
	cr_assert(c->peer->freed || smcr_conn_get_state(c->peer->c) == SMCR_PROCESSABORT);
	smcr_conn_info i;
	if (!c->peer->freed) {
		smcr_conn_get_info(c->peer->c, &i);
		cr_assert(i.rx_conn_flags & SMCR_CDC_PEER_CONN_ABORT);
		smcr_conn_close(c->peer->c, duo_now(d));
	}
	cr_assert(duo_run_until(d, both_freed, c, SMCR_S));
	duo_free(d);
}

Test(close, close_waits_for_pending_data_to_reach_the_peer)
{
	duo_conn *c;
	duo *d = setup(&c);
	c->peer->auto_read = false;
	duo_stream(c, 100000); /* more than the peer RMBE: the rest waits in the send buffer */
	settle(d);
	cr_assert_lt(c->peer->rx_done + smcr_conn_readable(c->peer->c), 100000);
	uint64_t t0 = duo_now(d);
	smcr_conn_close(c->c, t0);
	duo_sync(d);
	/* the reader drains; the close completes once everything was written */
	c->peer->auto_read = true;
	duo_read_all(c->peer);
	duo_sync(d);
	duo_run(d, duo_now(d) + 100 * SMCR_MS);
	cr_assert_eq(c->peer->rx_done, 100000);
	cr_assert_not(c->peer->rx_bad);
	cr_assert(c->peer->peer_closed);
	smcr_conn_close(c->peer->c, duo_now(d));
	cr_assert(duo_run_until(d, both_freed, c, 3 * SMCR_S));
	duo_free(d);
}

Test(close, abort_resets_both_sides)
{
	duo_conn *c;
	duo *d = setup(&c);
	smcr_conn_abort(c->c, duo_now(d));
	settle(d);
	cr_assert(c->tcp_aborted);
	cr_assert_eq(smcr_conn_get_state(c->c), SMCR_CLOSED);
	cr_assert(c->peer->aborted);
	cr_assert_lt(smcr_conn_send(c->peer->c, (const uint8_t *)"x", 1, 0, duo_now(d)), 0);
	smcr_conn_close(c->c, duo_now(d));
	smcr_conn_close(c->peer->c, duo_now(d));
	cr_assert(duo_run_until(d, both_freed, c, SMCR_S));
	duo_free(d);
}

static void sum_cdc_out(void *arg, const smcr_link_info *li) { *(uint64_t *)arg += li->cdc_out; }

static uint64_t cdc_out(duo_host *h)
{
	uint64_t n = 0;
	smcr_ctx_foreach_link(h->ctx, sum_cdc_out, &n);
	return n;
}

/* Linux smc_tx_consumer_update() returns before smc_cdc_get_slot_and_msg_send() when the
 * connection is killed or the peer aborted: reading what is left after an abort confirms
 * nothing to the peer. */
Test(close, reading_after_the_peer_aborted_sends_no_cursor_update)
{
	duo_conn *c;
	duo *d = setup(&c);
	c->peer->auto_read = false;
	duo_stream(c, 60000); /* most of the peer's 64 KiB RMBE: a read would confirm it */
	settle(d);
	cr_assert_eq(smcr_conn_readable(c->peer->c), 60000);
	smcr_conn_abort(c->c, duo_now(d));
	settle(d);
	cr_assert(c->peer->aborted);
	smcr_conn_info i;
	cr_assert_eq(smcr_conn_get_info(c->peer->c, &i), 0);
	cr_assert(i.rx_conn_flags & SMCR_CDC_PEER_CONN_ABORT);
	uint64_t before = cdc_out(c->peer->host);
	uint8_t buf[60000];
	cr_assert_eq(smcr_conn_recv(c->peer->c, buf, sizeof(buf), 0, duo_now(d)), 60000);
	settle(d);
	cr_assert_eq(cdc_out(c->peer->host), before, "a CDC went out after the peer's abort");
	smcr_conn_close(c->c, duo_now(d));
	smcr_conn_close(c->peer->c, duo_now(d));
	cr_assert(duo_run_until(d, both_freed, c, SMCR_S));
	duo_free(d);
}

Test(close, closed_connections_free_their_buffers_for_reuse)
{
	duo_conn *c;
	duo *d = setup(&c);
	smcr_conn_close(c->c, duo_now(d));
	smcr_conn_close(c->peer->c, duo_now(d));
	cr_assert(duo_run_until(d, both_freed, c, SMCR_S));
	settle(d);
	duo_conn *c2 = duo_connect(d, 0);
	cr_assert(duo_run_until(d, up, c2, 10 * SMCR_S));
	smcr_stats st;
	smcr_ctx_get_stats(d->h[0].ctx, &st);
	cr_assert_eq(st.rmb_alloc, 1);
	cr_assert_eq(st.rmb_reuse, 1);
	duo_stream(c2, 200000);
	cr_assert(duo_run_until(d, (bool (*)(void *))duo_stream_done, c2, 5 * SMCR_S));
	cr_assert_not(c2->peer->rx_bad);
	duo_free(d);
}
