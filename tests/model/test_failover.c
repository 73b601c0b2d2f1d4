/* Failover of connections that are closing, and the ends of their lives, over the loopback
 * transport (regressions of the failover torture, tests/failover-torture): CDCs in flight
 * on a failed link are flushed, so the last data, the close flags and a connection that
 * already left must all be taken care of on the surviving link. */
#include <criterion/criterion.h>
#include <string.h>

#include "tests/support/duo.h"

static bool up(void *arg)
{
	duo_conn *c = arg;
	return c->established && c->peer->established;
}

static duo *pair_with_two_links(duo_conn **out)
{
	duo_opts o;
	duo_opts_default(&o);
	o.ports[0] = o.ports[1] = 2;
	duo *d = duo_new(&o);
	duo_conn *c = duo_connect(d, 0);
	cr_assert(duo_run_until(d, up, c, 20 * SMCR_S));
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(duo_link_count(d, 0, SMCR_LNK_ACTIVE), 2);
	cr_assert_eq(duo_link_count(d, 1, SMCR_LNK_ACTIVE), 2);
	*out = c;
	return d;
}

static uint32_t qpn_of(duo *d, duo_conn *c)
{
	smcr_conn_info ci;
	cr_assert_eq(smcr_conn_get_info(c->c, &ci), 0);
	smcr_link_info li;
	cr_assert_eq(smcr_ctx_link_info(d->h[c->host->idx].ctx, ci.link_id, &li), 0);
	return li.local_qpn;
}

/* Fail the QP of the link `c` uses now: what it has posted and not yet delivered is
 * flushed (QP to ERR, QP_FATAL: the core takes the link down at once). */
static void fail_link_of(duo *d, duo_conn *c)
{
	cr_assert_eq(loopback_fail_qp(d->lb, qpn_of(d, c)), 0);
}

static bool in_state(duo_conn *c, smcr_conn_state st) { return c->c && smcr_conn_get_state(c->c) == st; }
static bool sender_closing(void *arg) { return in_state(arg, SMCR_PEERCLOSEWAIT1); }
static bool both_freed(void *arg)
{
	duo_conn *c = arg;
	return c->freed && c->peer->freed;
}

static void close_if_open(duo *d, duo_conn *c)
{
	if (c->c && !c->closed_by_app) {
		c->closed_by_app = true;
		smcr_conn_close(c->c, duo_now(d));
	}
}

/* The bug of the sample trace with the failure at 110 ms: the sender had written its last
 * data and closed when the link failed; Linux only switches a closing connection's link,
 * so that data and the close went down with the link and the receiver waited for ever. */
Test(failover, a_sender_that_closed_resends_its_last_data_and_the_close)
{
	duo_conn *c;
	duo *d = pair_with_two_links(&c);
	c->close_when_done = true;
	duo_stream(c, 1 << 20);
	cr_assert(duo_run_until(d, sender_closing, c, 10 * SMCR_S));
	cr_assert_lt(c->peer->rx_done, 1 << 20, "data still on the way when the link fails");
	fail_link_of(d, c);
	duo_run(d, duo_now(d) + 10 * SMCR_S);
	cr_assert_eq(c->peer->rx_done, 1 << 20, "received %llu", (unsigned long long)c->peer->rx_done);
	cr_assert_not(c->peer->rx_bad, "corrupt at %llu", (unsigned long long)c->peer->rx_bad_at);
	cr_assert(c->peer->peer_closed, "the receiver learns of the close");
	close_if_open(d, c->peer);
	cr_assert(duo_run_until(d, both_freed, c, 10 * SMCR_S), "both ends finish");
	cr_assert_not(c->aborted || c->peer->aborted);
	duo_free(d);
}

static bool all_read(void *arg)
{
	duo_conn *c = arg;
	return c->peer->rx_done == c->tx_total;
}

/* Only the close was in flight (every data CDC had completed): it is sent again. */
Test(failover, a_close_flushed_with_the_link_is_sent_again)
{
	duo_conn *c;
	duo *d = pair_with_two_links(&c);
	duo_stream(c, 100000);
	cr_assert(duo_run_until(d, all_read, c, 10 * SMCR_S));
	duo_run(d, duo_now(d) + 10 * SMCR_MS); /* every CDC completed */
	c->closed_by_app = true;
	smcr_conn_close(c->c, duo_now(d));
	cr_assert(in_state(c, SMCR_PEERCLOSEWAIT1));
	fail_link_of(d, c);
	duo_run(d, duo_now(d) + 10 * SMCR_S);
	cr_assert(c->peer->peer_closed, "the close arrives over the other link");
	close_if_open(d, c->peer);
	cr_assert(duo_run_until(d, both_freed, c, 10 * SMCR_S));
	cr_assert_not(c->aborted || c->peer->aborted);
	duo_free(d);
}

static bool peer_saw_close(void *arg) { return ((duo_conn *)arg)->peer->peer_closed; }
static bool heard_close(void *arg) { return ((duo_conn *)arg)->peer_closed; }

/* The last to close reaches CLOSED at once and would leave the lgr with its closing CDC
 * still in flight: it stays until that CDC completed (Linux smc_cdc_wait_pend_tx_wr), and
 * the CDC flushed with the link goes out again on the other one. */
Test(failover, the_last_close_of_a_connection_that_left_is_not_lost)
{
	duo_conn *c;
	duo *d = pair_with_two_links(&c);
	cr_assert_eq(smcr_conn_shutdown_write(c->c, duo_now(d)), 0);
	cr_assert(duo_run_until(d, peer_saw_close, c, SMCR_S));
	c->peer->closed_by_app = true;
	smcr_conn_close(c->peer->c, duo_now(d)); /* server: PEERFINCLOSEWAIT */
	cr_assert(duo_run_until(d, heard_close, c, SMCR_S));
	duo_run(d, duo_now(d) + 10 * SMCR_MS);
	cr_assert_not(c->peer->freed, "the server waits for the client's close");
	uint32_t qpn = qpn_of(d, c);
	c->closed_by_app = true;
	smcr_conn_close(c->c, duo_now(d)); /* client: CLOSED, its close CDC in flight */
	cr_assert_eq(loopback_fail_qp(d->lb, qpn), 0);
	cr_assert(duo_run_until(d, both_freed, c, 10 * SMCR_S), "client freed %d, server freed %d",
	          c->freed, c->peer->freed);
	cr_assert_not(c->aborted || c->peer->aborted);
	smcr_stats st;
	smcr_ctx_get_stats(d->h[0].ctx, &st);
	cr_assert_geq(st.failovers, 1);
	duo_free(d);
}

static bool half_there(void *arg)
{
	duo_conn *c = arg;
	return c->peer->rx_done > c->tx_total / 2;
}

/* After the peer shut down its side the connection still sends (APPCLOSEWAIT1), and Linux
 * switches it without rewinding: what was in flight left a hole in the receiver's stream. */
Test(failover, a_connection_whose_peer_shut_down_keeps_every_byte_it_sends)
{
	duo_conn *c;
	duo *d = pair_with_two_links(&c);
	cr_assert_eq(smcr_conn_shutdown_write(c->c, duo_now(d)), 0);
	cr_assert(duo_run_until(d, peer_saw_close, c, SMCR_S));
	duo_conn *s = c->peer;
	cr_assert(in_state(s, SMCR_APPCLOSEWAIT1));
	duo_stream(s, 3 << 20);
	cr_assert(duo_run_until(d, half_there, s, 10 * SMCR_S));
	fail_link_of(d, s);
	duo_run(d, duo_now(d) + 10 * SMCR_S);
	cr_assert_eq(c->rx_done, 3 << 20, "received %llu", (unsigned long long)c->rx_done);
	cr_assert_not(c->rx_bad, "corrupt at %llu", (unsigned long long)c->rx_bad_at);
	close_if_open(d, s);
	close_if_open(d, c);
	cr_assert(duo_run_until(d, both_freed, c, 10 * SMCR_S));
	cr_assert_not(c->aborted || s->aborted);
	duo_free(d);
}

/* One RNIC on the client, two on the server: both links start at the client's only port
 * (an asymmetric lgr). When the server's first RNIC becomes unreachable, the client sees
 * retries exceeded on the first link; the other link, from the same port to the server's
 * second RNIC, still works and takes the connection. Linux treats every link failure as a
 * device error here and terminates the lgr. */
Test(failover, retries_exceeded_on_an_asymmetric_link_fail_over_to_the_same_port)
{
	duo_opts o;
	duo_opts_default(&o);
	o.ports[0] = 1;
	o.ports[1] = 2;
	duo *d = duo_new(&o);
	duo_conn *c = duo_connect(d, 0);
	cr_assert(duo_run_until(d, up, c, 20 * SMCR_S));
	duo_run(d, duo_now(d) + SMCR_S);
	cr_assert_eq(duo_link_count(d, 0, SMCR_LNK_ACTIVE), 2);
	smcr_conn_info ci;
	smcr_conn_get_info(c->c, &ci);
	smcr_link_info li;
	cr_assert_eq(smcr_ctx_link_info(d->h[0].ctx, ci.link_id, &li), 0);
	duo_stream(c, 4 << 20);
	duo_stream(c->peer, 3 << 20);
	cr_assert(duo_run_until(d, half_there, c, 10 * SMCR_S));
	/* the server's RNIC at the other end of the client's link: its traffic is lost */
	smcr_link_info si;
	bool found = false;
	for (int i = 0; duo_link_nth(d, 1, i, &si); i++)
		if (si.local_qpn == li.peer_qpn)
			found = true;
	cr_assert(found);
	cr_assert_lt((int)si.port_index, d->h[1].n_ports);
	loopback_dev_set_down(d->lb, d->h[1].dev[si.port_index], true);
	duo_run(d, duo_now(d) + 30 * SMCR_S);
	cr_assert_eq(c->peer->rx_done, 4 << 20, "received %llu", (unsigned long long)c->peer->rx_done);
	cr_assert_eq(c->rx_done, 3 << 20, "received %llu", (unsigned long long)c->rx_done);
	cr_assert_not(c->rx_bad || c->peer->rx_bad);
	cr_assert_not(c->aborted || c->peer->aborted, "a link survived: no abort");
	cr_assert_eq(duo_lgr_count(d, 0), 1);
	cr_assert_eq(duo_count(d, 0, SMCR_EV_LGR_TERMINATED), 0);
	duo_free(d);
}
