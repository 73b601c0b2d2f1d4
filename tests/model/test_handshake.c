/* The CLC handshake between two cores: first contact, reuse, declines and fallback,
 * protocol errors and timeouts. */
#include <criterion/criterion.h>
#include <string.h>

#include "tests/support/duo.h"

static bool settled(void *arg)
{
	duo_conn *c = arg;
	bool a = c->established || c->fallback || c->aborted;
	bool b = c->peer->established || c->peer->fallback || c->peer->aborted;
	return a && b;
}

static duo *make(void (*tweak)(duo_opts *))
{
	duo_opts o;
	duo_opts_default(&o);
	if (tweak)
		tweak(&o);
	return duo_new(&o);
}

static duo_conn *connect_settled(duo *d, int client)
{
	duo_conn *c = duo_connect(d, client);
	cr_assert(duo_run_until(d, settled, c, 30 * SMCR_S), "handshake did not settle");
	return c;
}

typedef struct lgr_sum {
	int n;
	smcr_lgr_info last;
} lgr_sum;

static void sum_lgr(void *arg, const smcr_lgr_info *i)
{
	lgr_sum *s = arg;
	s->n++;
	s->last = *i;
}

static smcr_lgr_info only_lgr(duo *d, int host)
{
	lgr_sum s = { 0 };
	smcr_ctx_foreach_lgr(d->h[host].ctx, sum_lgr, &s);
	cr_assert_eq(s.n, 1, "host %d has %d link groups", host, s.n);
	return s.last;
}

Test(handshake, first_contact_creates_one_link_group_with_an_active_link)
{
	duo *d = make(NULL);
	duo_conn *c = connect_settled(d, 0);
	cr_assert(c->established && c->peer->established);
	smcr_lgr_info lc = only_lgr(d, 0), ls = only_lgr(d, 1);
	cr_assert_eq(lc.role, SMCR_ROLE_CLIENT);
	cr_assert_eq(ls.role, SMCR_ROLE_SERVER);
	cr_assert_eq(lc.type, SMCR_LGR_SINGLE);
	cr_assert_eq(ls.type, SMCR_LGR_SINGLE);
	cr_assert_eq(lc.version, 1);
	cr_assert_eq(memcmp(lc.peer_system_id, smcr_ctx_system_id(d->h[1].ctx), 8), 0);
	cr_assert_eq(memcmp(ls.peer_system_id, smcr_ctx_system_id(d->h[0].ctx), 8), 0);
	smcr_link_info a, b;
	cr_assert(duo_first_link(d, 0, &a));
	cr_assert(duo_first_link(d, 1, &b));
	cr_assert_eq(a.state, SMCR_LNK_ACTIVE);
	cr_assert_eq(b.state, SMCR_LNK_ACTIVE);
	cr_assert_eq(a.link_id, b.link_id);
	cr_assert_eq(a.peer_qpn, b.local_qpn);
	cr_assert_eq(b.peer_qpn, a.local_qpn);
	cr_assert_eq(memcmp(a.peer_gid, b.local_gid, 16), 0);
	cr_assert_eq(memcmp(a.peer_mac, b.local_mac, 6), 0);
	cr_assert_eq(a.peer_link_uid, b.link_uid);
	cr_assert_eq(b.peer_link_uid, a.link_uid);
	/* Linux: link uid = lgr id (a counter in steps of 256) + link id */
	cr_assert_eq(b.link_uid, ls.lgr_num + b.link_id);
	/* one RNIC on each side: the server still tries ADD_LINK and the client rejects */
	cr_assert_eq(duo_count(d, 1, SMCR_EV_ADD_LINK_REJECTED), 1);
	smcr_stats st;
	smcr_ctx_get_stats(d->h[0].ctx, &st);
	cr_assert_eq(st.clnt_v1_succ, 1);
	smcr_ctx_get_stats(d->h[1].ctx, &st);
	cr_assert_eq(st.srv_v1_succ, 1);
	duo_free(d);
}

Test(handshake, second_and_third_connection_reuse_the_link_group)
{
	duo *d = make(NULL);
	duo_conn *c1 = connect_settled(d, 0);
	duo_conn *c2 = connect_settled(d, 0);
	duo_conn *c3 = connect_settled(d, 0);
	cr_assert(c1->established && c2->established && c3->established);
	cr_assert(c2->peer->established && c3->peer->established);
	smcr_lgr_info lc = only_lgr(d, 0), ls = only_lgr(d, 1);
	cr_assert_eq(lc.conns_num, 3);
	cr_assert_eq(ls.conns_num, 3);
	cr_assert_eq(duo_link_count(d, 0, SMCR_LNK_ACTIVE), 1);
	cr_assert_eq(duo_link_count(d, 1, SMCR_LNK_ACTIVE), 1);
	/* reuse is no first contact: exactly one lgr creation per side */
	cr_assert_eq(duo_count(d, 0, SMCR_EV_LGR_CREATED), 1);
	cr_assert_eq(duo_count(d, 1, SMCR_EV_LGR_CREATED), 1);
	/* every connection has its own tokens */
	smcr_conn_info i1, i2, i3;
	smcr_conn_get_info(c1->c, &i1);
	smcr_conn_get_info(c2->c, &i2);
	smcr_conn_get_info(c3->c, &i3);
	cr_assert_neq(i1.local_token, i2.local_token);
	cr_assert_neq(i2.local_token, i3.local_token);
	cr_assert_eq(i2.link_id, i1.link_id);
	duo_free(d);
}

Test(handshake, clc_bytes_split_one_at_a_time_still_establish)
{
	duo *d = make(NULL);
	smcr_tcp_info ci, si;
	duo_tcp_info(d, 0, &ci);
	duo_tcp_info(d, 1, &si);
	duo_conn *c = &d->conns[d->n_conns];
	(void)c;
	/* set the chunk size before any byte flows: connect, then shrink before running */
	duo_conn *cc = duo_connect_tcp(d, 0, &ci, &si);
	cc->clc_chunk = 1;
	cc->peer->clc_chunk = 1;
	cr_assert(duo_run_until(d, settled, cc, 30 * SMCR_S));
	cr_assert(cc->established && cc->peer->established);
	duo_free(d);
}

Test(handshake, peer_without_smc_option_falls_back_without_clc_bytes)
{
	duo *d = make(NULL);
	smcr_tcp_info ci, si;
	duo_tcp_info(d, 0, &ci);
	duo_tcp_info(d, 1, &si);
	ci.peer_smc = si.peer_smc = false;
	duo_conn *c = duo_connect_tcp(d, 0, &ci, &si);
	cr_assert(duo_run_until(d, settled, c, SMCR_S));
	cr_assert(c->fallback && c->peer->fallback);
	cr_assert_eq(c->fb_reason, SMCR_DECL_PEERNOSMC);
	cr_assert_eq(c->peer->fb_reason, SMCR_DECL_PEERNOSMC);
	cr_assert_eq(c->clc_sent_bytes, 0);
	cr_assert_eq(c->peer->clc_sent_bytes, 0);
	duo_free(d);
}

static void no_client_port(duo_opts *o)
{
	o->set[0].v1 = false;
	o->set[0].v2 = false;
}

Test(handshake, client_without_device_declines_nosmcdev_before_any_proposal)
{
	duo *d = make(no_client_port);
	duo_conn *c = connect_settled(d, 0);
	cr_assert(c->fallback && c->peer->fallback);
	cr_assert_eq(c->fb_reason, SMCR_DECL_NOSMCDEV);
	cr_assert_eq(c->peer->fb_reason, SMCR_DECL_PEERDECL);
	cr_assert_eq(c->peer->fb_peer_diag, SMCR_DECL_NOSMCDEV);
	cr_assert_eq(c->clc_sent_bytes, SMCR_CLC_DECLINE_V1_LEN); /* a Linux client declines v1 */
	smcr_stats st;
	smcr_ctx_get_stats(d->h[0].ctx, &st);
	cr_assert_eq(st.clnt_fback, 1);
	cr_assert_eq(st.clnt_fback_rsn[0].code, SMCR_DECL_NOSMCDEV);
	cr_assert_eq(st.clnt_fback_rsn[0].count, 1);
	duo_free(d);
}

Test(handshake, different_ip_subnet_is_declined_with_diffprefix)
{
	duo *d = make(NULL);
	smcr_tcp_info ci, si;
	duo_tcp_info(d, 0, &ci);
	duo_tcp_info(d, 1, &si);
	si.ipv4[0].addr = 0xc0a80101; /* the server's interface is in another subnet */
	duo_conn *c = duo_connect_tcp(d, 0, &ci, &si);
	cr_assert(duo_run_until(d, settled, c, 10 * SMCR_S));
	cr_assert(c->fallback && c->peer->fallback);
	cr_assert_eq(c->peer->fb_reason, SMCR_DECL_DIFFPREFIX);
	cr_assert_eq(c->fb_reason, SMCR_DECL_PEERDECL);
	cr_assert_eq(c->fb_peer_diag, SMCR_DECL_DIFFPREFIX);
	/* the server declines with the Proposal's version (Linux always proposes v2) */
	cr_assert_eq(c->peer->clc_sent_bytes, SMCR_CLC_DECLINE_V2_LEN);
	cr_assert_eq(duo_lgr_count(d, 0), 0);
	cr_assert_eq(duo_lgr_count(d, 1), 0);
	duo_free(d);
}

Test(handshake, unknown_vlan_and_ipsec_decline_with_their_codes)
{
	duo *d = make(NULL);
	smcr_tcp_info ci, si;
	duo_tcp_info(d, 0, &ci);
	duo_tcp_info(d, 1, &si);
	si.vlan_id = -1;
	duo_conn *c = duo_connect_tcp(d, 0, &ci, &si);
	cr_assert(duo_run_until(d, settled, c, 10 * SMCR_S));
	cr_assert_eq(c->peer->fb_reason, SMCR_DECL_GETVLANERR);
	cr_assert_eq(c->fb_peer_diag, SMCR_DECL_GETVLANERR);
	duo_tcp_info(d, 1, &si);
	ci.ipsec = true;
	c = duo_connect_tcp(d, 0, &ci, &si);
	cr_assert(duo_run_until(d, settled, c, 10 * SMCR_S));
	cr_assert_eq(c->fb_reason, SMCR_DECL_IPSEC);
	cr_assert_eq(c->peer->fb_peer_diag, SMCR_DECL_IPSEC);
	duo_free(d);
}

static void tiny_pnet(duo_opts *o) { (void)o; }

Test(handshake, bytes_after_a_decline_are_handed_back_as_application_data)
{
	duo *d = make(tiny_pnet);
	smcr_tcp_info ci, si;
	duo_tcp_info(d, 0, &ci);
	duo_tcp_info(d, 1, &si);
	si.ipv4[0].prefix_len = 16; /* DIFFPREFIX at the server */
	duo_conn *c = duo_connect_tcp(d, 0, &ci, &si);
	/* the server's Decline and its first application bytes reach the client in one
	 * segment: run until the server fell back, then append data to its stream */
	while (!c->peer->fallback && sim_engine_next_time(d->eng) != SIM_TIME_NEVER)
		sim_engine_run(d->eng, sim_engine_next_time(d->eng), 1);
	cr_assert(c->peer->fallback);
	cr_assert(c->peer->clc_pending_len > 0, "the Decline is still on its way");
	const char hello[] = "hello over TCP";
	c->peer->clc_pending = realloc(c->peer->clc_pending, c->peer->clc_pending_len + sizeof(hello));
	memcpy(c->peer->clc_pending + c->peer->clc_pending_len, hello, sizeof(hello));
	c->peer->clc_pending_len += sizeof(hello);
	cr_assert(duo_run_until(d, settled, c, 10 * SMCR_S));
	cr_assert(c->fallback);
	cr_assert_eq(c->fb_reason, SMCR_DECL_PEERDECL);
	cr_assert_eq(c->app_rx_len, sizeof(hello));
	cr_assert_eq(memcmp(c->app_rx, hello, sizeof(hello)), 0);
	duo_free(d);
}

Test(handshake, garbage_instead_of_a_proposal_is_a_protocol_error_without_fallback)
{
	duo *d = make(NULL);
	duo_conn *c = duo_connect(d, 0);
	/* replace the client's Proposal with garbage of the same size */
	cr_assert(c->clc_pending_len > 8);
	for (size_t i = 0; i < c->clc_pending_len; i++)
		c->clc_pending[i] = (uint8_t)(0xA5 ^ i);
	cr_assert(duo_run_until(d, settled, c, 30 * SMCR_S));
	cr_assert(c->peer->aborted);
	cr_assert_eq(c->peer->abort_err, SMCR_ERR_PROTO);
	cr_assert_not(c->peer->fallback);
	cr_assert(c->peer->tcp_closed);
	smcr_stats st;
	smcr_ctx_get_stats(d->h[1].ctx, &st);
	cr_assert_geq(st.decode_errors, 1);
	cr_assert_eq(st.srv_hshake_err, 1);
	/* the client sees its TCP connection go away */
	smcr_conn_tcp_closed(c->c, false, duo_now(d));
	cr_assert(c->aborted);
	duo_free(d);
}

Test(handshake, silent_server_times_the_client_out_after_six_seconds)
{
	duo *d = make(NULL);
	duo_conn *c = duo_connect(d, 0);
	c->peer->drop_clc = true;
	cr_assert(duo_run_until(d, settled, c, 30 * SMCR_S) || c->aborted);
	cr_assert(c->aborted);
	cr_assert_eq(c->abort_err, SMCR_ERR_AGAIN);
	cr_assert_geq(duo_now(d), SMCR_CLC_WAIT_TIME);
	cr_assert_lt(duo_now(d), SMCR_CLC_WAIT_TIME + SMCR_S);
	duo_free(d);
}

static void v2_both(duo_opts *o)
{
	for (int i = 0; i < 2; i++) {
		o->set[i].n_ueids = 1;
		memset(o->set[i].ueids[0], ' ', SMCR_EID_LEN);
		memcpy(o->set[i].ueids[0], "SMCR-SIM-TEST", 13);
	}
}

Test(handshake, smcr_v2_with_a_common_ueid)
{
	duo *d = make(v2_both);
	duo_conn *c = connect_settled(d, 0);
	cr_assert(c->established && c->peer->established);
	smcr_lgr_info lc = only_lgr(d, 0), ls = only_lgr(d, 1);
	cr_assert_eq(lc.version, 2);
	cr_assert_eq(ls.version, 2);
	cr_assert_eq(memcmp(lc.negotiated_eid, "SMCR-SIM-TEST", 13), 0);
	cr_assert_eq(ls.peer_release, 1);
	cr_assert_eq(lc.peer_os, SMCR_CLC_OS_LINUX);
	smcr_link_info a;
	cr_assert(duo_first_link(d, 0, &a));
	cr_assert_eq(a.local_gid[10], 0xff); /* IPv4-mapped RoCE v2 GID */
	cr_assert_eq(a.local_gid[11], 0xff);
	smcr_stats st;
	smcr_ctx_get_stats(d->h[0].ctx, &st);
	cr_assert_eq(st.clnt_v2_succ, 1);
	/* a second connection reuses the v2 lgr */
	duo_conn *c2 = connect_settled(d, 0);
	cr_assert(c2->established);
	cr_assert_eq(only_lgr(d, 0).conns_num, 2);
	duo_free(d);
}

static void v2_no_common(duo_opts *o)
{
	v2_both(o);
	memcpy(o->set[1].ueids[0], "OTHER", 5);
}

Test(handshake, without_a_common_ueid_v1_is_used)
{
	duo *d = make(v2_no_common);
	duo_conn *c = connect_settled(d, 0);
	cr_assert(c->established);
	cr_assert_eq(only_lgr(d, 0).version, 1);
	duo_free(d);
}

static void v2_only_no_common(duo_opts *o)
{
	v2_no_common(o);
	o->set[0].v1 = false;
}

Test(handshake, v2_only_without_common_ueid_falls_back)
{
	duo *d = make(v2_only_no_common);
	duo_conn *c = connect_settled(d, 0);
	cr_assert(c->fallback && c->peer->fallback);
	cr_assert_eq(c->fb_peer_diag, SMCR_DECL_NOSMCDEV);
	duo_free(d);
}

static void v2_0_client(duo_opts *o)
{
	v2_both(o);
	o->set[0].release = 0;
	o->set[0].v1 = false;
}

/* Linux 6.1 (SMC-Rv2.0) leaves the v2 extension's 16 bytes after the RoCE GID reserved;
 * max_conns, max_links and the feature mask there came with v2.1 (Linux 6.6). A client
 * offering release 0 sends 6.1's bytes; the server answers with release 0 and no v2.1
 * values in its first contact extension. */
Test(handshake, a_v2_0_client_proposes_like_linux_6_1_and_gets_release_0)
{
	duo *d = make(v2_0_client);
	duo_conn *c = duo_connect(d, 0);
	cr_assert_eq(c->clc_pending_len, 156, "the Proposal waits to be delivered");
	const uint8_t *p = c->clc_pending;
	smcr_clc_proposal m;
	smcr_decode_err err;
	cr_assert_eq(smcr_clc_decode_proposal(&m, p, c->clc_pending_len, &err), 0);
	cr_assert_eq(m.release, 0);
	cr_assert_eq(m.typev1, SMCR_CLC_TYPE_NONE);
	/* v2 extension: header 8 bytes, RoCE GID 16, then the 16 bytes 6.1 keeps zero */
	const uint8_t *ext = p + 8 + 8 + 16 + 6 + 2 + 40;
	cr_assert_eq(ext[0], 1, "one UEID");
	cr_assert_eq(ext[3], 0x00, "release 0, no SEID");
	static const uint8_t zero[16];
	cr_assert_arr_eq(ext + 24, zero, 16, "no v2.1 values in a v2.0 Proposal");
	cr_assert_arr_eq(ext + 40, "SMCR-SIM-TEST", 13);
	cr_assert(duo_run_until(d, settled, c, 30 * SMCR_S));
	cr_assert(c->established && c->peer->established);
	cr_assert_eq(only_lgr(d, 0).peer_release, 0, "the server answered with release 0");
	cr_assert_eq(only_lgr(d, 1).peer_release, 0);
	duo_free(d);
}

static void v2_1_client_without_features(duo_opts *o)
{
	v2_both(o);
	o->set[0].feature_mask = 0; /* Linux 6.6/6.7: SMC_FEATURE_MASK 0 */
}

/* smc_clc_srv_v2x_features_validate() gives the server's ini its own SMC_FEATURE_MASK, and
 * the Accept carries it; only the client ANDs (smc_clc_clnt_v2x_features_validate), and
 * its Confirm tells the server the common mask (smc_clc_v2x_features_confirm_check). */
Test(handshake, the_server_accepts_with_its_own_feature_mask_and_the_client_ands)
{
	duo *d = make(v2_1_client_without_features);
	duo_conn *c = connect_settled(d, 0);
	cr_assert(c->established && c->peer->established);
	smcr_clc_accept a, f;
	smcr_decode_err err;
	cr_assert_eq(smcr_clc_decode_accept(&a, c->peer->last_clc, c->peer->last_clc_len, &err), 0);
	cr_assert_eq(a.type, SMCR_CLC_ACCEPT);
	cr_assert_eq(a.fce.release, 1);
	cr_assert_eq(a.fce.feature_mask, 0x0001, "the Accept carries the server's own mask");
	cr_assert_eq(smcr_clc_decode_accept(&f, c->last_clc, c->last_clc_len, &err), 0);
	cr_assert_eq(f.type, SMCR_CLC_CONFIRM);
	cr_assert_eq(f.fce.feature_mask, 0x0000, "the Confirm carries the common mask");
	duo_free(d);
}

static bool server_up(void *arg) { return ((duo_conn *)arg)->peer->established; }

Test(handshake, unanswered_add_link_makes_the_linux_server_wait_two_seconds)
{
	duo *d = make(NULL);
	loopback_drop_type(d->lb, 0x02, 1); /* the server's ADD_LINK request is lost */
	duo_conn *c = duo_connect(d, 0);
	cr_assert(duo_run_until(d, server_up, c, 10 * SMCR_S));
	/* the server's first connection waits for the ADD_LINK response (2 s) */
	cr_assert_geq(duo_now(d), SMCR_LLC_WAIT_TIME);
	cr_assert(duo_run_until(d, settled, c, 10 * SMCR_S));
	/* the client got no ADD_LINK: 2 s wait, 1 s for a Decline, then it goes on */
	cr_assert(c->established);
	cr_assert_geq(duo_now(d), 3 * SMCR_S);
	cr_assert_eq(duo_count(d, 1, SMCR_EV_ADD_LINK_REJECTED), 0);
	duo_free(d);
}

static bool srv_waiting_confirm(void *arg) { return ((duo_conn *)arg)->peer->clc_sent_bytes > 0; }

Test(handshake, lost_confirm_times_the_server_out_after_six_seconds)
{
	duo *d = make(NULL);
	duo_conn *c = duo_connect(d, 0);
	cr_assert(duo_run_until(d, srv_waiting_confirm, c, SMCR_S));
	c->drop_clc = true; /* the Confirm (and any later Decline) never arrives */
	cr_assert(duo_run_until(d, settled, c, 30 * SMCR_S));
	cr_assert(c->peer->aborted);
	cr_assert_eq(c->peer->abort_err, SMCR_ERR_AGAIN);
	/* the client, first contact, never gets CONFIRM_LINK: 4 s + 1 s, then TIMEOUT_CL */
	cr_assert(duo_run_until(d, settled, c, 30 * SMCR_S));
	cr_assert(c->fallback);
	cr_assert_eq(c->fb_reason, SMCR_DECL_TIMEOUT_CL);
	duo_run(d, duo_now(d) + 10 * SMCR_S);
	cr_assert_eq(duo_lgr_count(d, 0), 0);
	cr_assert_eq(duo_lgr_count(d, 1), 0);
	duo_free(d);
}

Test(handshake, accept_naming_an_lgr_the_client_does_not_know_gets_an_out_of_sync_decline)
{
	duo *d = make(NULL);
	duo_conn *c = duo_connect(d, 0);
	c->drop_clc = true; /* the test plays the server */
	/* an Accept without first contact: the server claims to reuse an lgr */
	smcr_clc_accept a;
	memset(&a, 0, sizeof(a));
	a.type = SMCR_CLC_ACCEPT;
	a.version = 1;
	memcpy(a.peer_id, smcr_ctx_system_id(d->h[1].ctx), 8);
	a.gid[0] = 0xfe;
	a.gid[1] = 0x80;
	a.mac[0] = 2;
	a.qpn = 0x1234;
	a.rkey = 0x55;
	a.rmbe_idx = 1;
	a.rmbe_alert_token = 7;
	a.rmbe_size = 2;
	a.qp_mtu = SMCR_MTU_1024;
	a.rmb_vaddr = 0x1000;
	a.psn = 1;
	uint8_t buf[128];
	ssize_t n = smcr_clc_encode_accept(buf, sizeof(buf), &a);
	cr_assert_eq(n, SMCR_CLC_ACCEPT_V1_LEN);
	cr_assert_eq(smcr_conn_clc_input(c->c, buf, (size_t)n, duo_now(d)), n);
	cr_assert(c->fallback);
	cr_assert_eq(c->fb_reason, SMCR_DECL_SYNCERR);
	smcr_clc_decline dcl;
	cr_assert_eq(smcr_clc_decode_decline(&dcl, c->last_clc, c->last_clc_len, NULL), 0);
	cr_assert_eq(dcl.diagnosis, SMCR_DECL_SYNCERR);
	cr_assert(dcl.out_of_sync);
	cr_assert_eq(dcl.version, 1); /* in the Accept's version */
	duo_free(d);
}

Test(handshake, out_of_sync_decline_ends_the_servers_link_group)
{
	duo *d = make(NULL);
	duo_conn *c = connect_settled(d, 0);
	cr_assert(c->established);
	/* a second connection: the server reuses its lgr; the client answers the Accept
	 * with an out-of-sync Decline (as if it did not know the lgr) */
	duo_conn *c2 = duo_connect(d, 0);
	c2->drop_clc = true; /* the test plays the client after its Proposal */
	uint8_t prop[256];
	size_t plen = c2->clc_pending_len;
	memcpy(prop, c2->clc_pending, plen);
	c2->clc_pending_len = 0;
	cr_assert_eq(smcr_conn_clc_input(c2->peer->c, prop, plen, duo_now(d)), (ssize_t)plen);
	duo_sync(d);
	duo_run(d, duo_now(d) + 100 * SMCR_MS);
	cr_assert(c2->peer->last_clc_len > 0, "the server sent its Accept");
	smcr_clc_decline dcl = { .version = 2, .out_of_sync = true, .diagnosis = SMCR_DECL_SYNCERR };
	uint8_t buf[64];
	ssize_t n = smcr_clc_encode_decline(buf, sizeof(buf), &dcl);
	cr_assert_gt(n, 0);
	smcr_conn_clc_input(c2->peer->c, buf, (size_t)n, duo_now(d));
	duo_sync(d);
	cr_assert(c2->peer->fallback);
	cr_assert_eq(c2->peer->fb_reason, SMCR_DECL_PEERDECL);
	cr_assert_eq(c2->peer->fb_peer_diag, SMCR_DECL_SYNCERR);
	/* the out-of-sync bit made the server end that lgr and its connections */
	cr_assert_eq(duo_count(d, 1, SMCR_EV_LGR_TERMINATED), 1);
	cr_assert(c->peer->aborted);
	duo_run(d, duo_now(d) + 3 * SMCR_S);
	cr_assert_eq(duo_lgr_count(d, 1), 0);
	duo_free(d);
}
