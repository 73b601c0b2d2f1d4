/* The data path between two cores: RDMA WRITE + CDC, cursors with wrap, window handling. */
#include <criterion/criterion.h>

#include "tests/support/duo.h"

static bool up(void *arg)
{
	duo_conn *c = arg;
	return c->established && c->peer->established;
}

static bool streamed(void *arg) { return duo_stream_done(arg); }

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

Test(data, one_mib_client_to_server_arrives_intact)
{
	duo_conn *c;
	duo *d = setup(&c);
	duo_stream(c, 1 << 20);
	cr_assert(duo_run_until(d, streamed, c, 10 * SMCR_S), "sent %llu received %llu",
	          (unsigned long long)c->tx_done, (unsigned long long)c->peer->rx_done);
	cr_assert_not(c->peer->rx_bad, "corrupt at %llu", (unsigned long long)c->peer->rx_bad_at);
	duo_free(d);
}
