/* The CLC handshake between two cores: first contact, reuse, fallback paths. */
#include <criterion/criterion.h>

#include "tests/support/duo.h"

static bool both_up(void *arg)
{
	duo_conn *c = arg;
	return (c->established || c->fallback || c->aborted) &&
	       (c->peer->established || c->peer->fallback || c->peer->aborted);
}

Test(handshake, first_contact_creates_one_link_group_with_an_active_link)
{
	duo_opts o;
	duo_opts_default(&o);
	duo *d = duo_new(&o);
	duo_conn *c = duo_connect(d, 0);
	cr_assert(duo_run_until(d, both_up, c, 10 * SMCR_S));
	cr_assert(c->established, "client fallback=%d reason=%x peerdiag=%x aborted=%d srv fb=%d reason %x aborted %d err %d", c->fallback, c->fb_reason, c->fb_peer_diag, c->aborted, c->peer->fallback, c->peer->fb_reason, c->peer->aborted, c->peer->abort_err);
	cr_assert(c->peer->established);
	cr_assert_eq(duo_lgr_count(d, 0), 1);
	cr_assert_eq(duo_lgr_count(d, 1), 1);
	cr_assert_eq(duo_link_count(d, 0, SMCR_LNK_ACTIVE), 1);
	cr_assert_eq(duo_link_count(d, 1, SMCR_LNK_ACTIVE), 1);
	smcr_link_info a, b;
	cr_assert(duo_first_link(d, 0, &a));
	cr_assert(duo_first_link(d, 1, &b));
	cr_assert_eq(a.link_id, b.link_id);
	cr_assert_eq(a.peer_qpn, b.local_qpn);
	cr_assert_eq(b.peer_qpn, a.local_qpn);
	cr_assert_eq(a.peer_link_uid, b.link_uid);
	cr_assert_eq(b.peer_link_uid, a.link_uid);
	duo_free(d);
}
