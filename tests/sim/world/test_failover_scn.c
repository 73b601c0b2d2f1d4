/* Failover regressions that need the whole product (stacks, TCP, the simulated fabric with
 * 20 Mbps adapters): cases of the failover torture (tests/failover-torture) that failed,
 * each replayed as a scenario whose expectations state the promise: every byte arrives,
 * nothing is aborted, every connection ends. The stacks have hosts without costs
 * (host=none): each case replays a race at the timing the torture found it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/rdma/qp.h"
#include "sim/rdma/rnic.h"
#include "tests/support/scn_world.h"

#define FABRIC                                                                                     \
	"switch SW1\nswitch SW2\n"                                                                 \
	"adapter RA1 pfid=0018 switch=SW1 bandwidth=20Mbps\n"                                      \
	"adapter RA2 pfid=0019 switch=SW2 bandwidth=20Mbps\n"                                      \
	"adapter RB1 pfid=0028 switch=SW1 bandwidth=20Mbps\n"                                      \
	"adapter RB2 pfid=0029 switch=SW2 bandwidth=20Mbps\n"                                      \
	"stack ZOSA personality=zos host=none\n"                                                         \
	"  interface osd1 switch=SW1 ip=10.1.1.1/24\n  interface osd2 switch=SW2 ip=10.1.2.1/24\n" \
	"  smcr pfid=0018\n  smcr pfid=0019\nend\n"                                                \
	"stack ZOSB personality=zos host=none\n"                                                         \
	"  interface osd1 switch=SW1 ip=10.1.1.2/24\n  interface osd2 switch=SW2 ip=10.1.2.2/24\n" \
	"  smcr pfid=0028\n  smcr pfid=0029\nend\n"

/* Run the scenario (seed 1, end 20 s) and require every expectation. */
static void run_expecting_all(const char *apps_and_events)
{
	char text[4096];
	int n = snprintf(text, sizeof(text), "scenario \"failover regression\"\nseed 1\nend 20s\n%s%s",
	                 FABRIC, apps_and_events);
	cr_assert(n > 0 && (size_t)n < sizeof(text));
	world_opts o;
	world_opts_default(&o);
	o.verbose = true;
	scn_world *t = scn_world_new(text, &o);
	unsigned long failed = scn_world_run(t);
	cr_assert_eq(failed, 0, "%s", scn_world_output(t));
	scn_world_free(t);
}

/* The sample trace with the failure at 110 ms: bulk.1 had written everything and shut
 * down; its last 32 KiB and the done-writing flag went down with the link. */
Test(failover_scn, a_sender_shut_down_at_the_failure_still_delivers_everything)
{
	run_expecting_all("app sink ZOSB listen port=5000 kind=sink\n"
	                  "app bulk ZOSA connect ZOSB.osd1:5000 kind=bulk bytes=256K conns=2 interval=20ms\n"
	                  "at 110ms fail adapter RA1\n"
	                  "at 2s expect conns ZOSA ZOSB == 0\n"
	                  "expect sent bulk == 512K\n"
	                  "expect delivered bulk == sent bulk\n"
	                  "expect aborted == 0\n");
}

/* The server's adapter under the first link fails while the client confirms the rkey of
 * a second connection: the client holds the server's DELETE_LINK back until that flow
 * ends, which happens when the link goes down; processing it then cleared the link
 * before the connections had moved, and echo.1 was left without a link. */
Test(failover_scn, a_held_back_delete_link_leaves_no_connection_without_a_link)
{
	run_expecting_all("app echosrv ZOSB listen port=5001 kind=echo\n"
	                  "app resp ZOSB listen port=5002 kind=responder\n"
	                  "app echo ZOSA connect ZOSB.osd1:5001 kind=echo bytes=160K conns=2 interval=15ms\n"
	                  "app rr ZOSA connect ZOSB.osd1:5002 kind=rr request=700 response=3000 count=60 start=5ms\n"
	                  "at 38ms fail adapter RB1\n"
	                  "at 10s expect conns ZOSA ZOSB == 0\n"
	                  "expect sent echo == 320K\n"
	                  "expect received echo == sent echo\n"
	                  "expect received rr == 180000\n"
	                  "expect aborted == 0\n");
}

/* ZOSB is the client of a second link group whose first link fails while it waits for
 * ADD_LINK: the lgr ends, and the connection completing its handshake afterwards must
 * end with the error rather than count as established (it then hung for ever). */
Test(failover_scn, a_handshake_finishing_after_its_lgr_ended_fails_with_an_error)
{
	run_expecting_all("app sinkb ZOSB listen port=5000 kind=sink\n"
	                  "app sinka ZOSA listen port=5000 kind=sink\n"
	                  "app ab ZOSA connect ZOSB.osd1:5000 kind=bulk bytes=256K\n"
	                  "app ba ZOSB connect ZOSA.osd1:5000 kind=bulk bytes=256K start=3ms\n"
	                  /* the timing that puts ba's handshake across the lgr's end (it moves
	                   * with the stacks' behaviour: the torture sweep covers the range) */
	                  "at 31ms fail adapter RB1\n"
	                  "at 10s expect conns ZOSA ZOSB == 0\n"
	                  "expect delivered ab == 256K\n"
	                  "expect sent ba == 0\n"
	                  "expect aborted ZOSB == 1\n");
}

/* The same link group's first link fails during its confirmation: the client declines
 * after 1 s and sends its data over TCP at once, while the server still waits for the
 * link; the server took that data in with the Decline and dropped it. */
Test(failover_scn, data_after_a_decline_reaches_the_server_application)
{
	run_expecting_all("app sinkb ZOSB listen port=5000 kind=sink\n"
	                  "app sinka ZOSA listen port=5000 kind=sink\n"
	                  "app ab ZOSA connect ZOSB.osd1:5000 kind=bulk bytes=256K\n"
	                  "app ba ZOSB connect ZOSA.osd1:5000 kind=bulk bytes=256K start=3ms\n"
	                  "at 8ms fail adapter RB1\n"
	                  "expect mode ba == FALLBACK\n"
	                  "expect delivered ba == 256K\n"
	                  "expect delivered ab == 256K\n"
	                  "expect aborted == 0\n");
}

/* The same case, for what it shows about the LLC flows: as in Linux
 * (smc_llc_flow_parallel, docs/deviations.md), the server's DELETE_LINK waits as the
 * delayed event while the client's rkey flow waits on the failed link, so the client
 * learns of the failure from its own retries (about 1.07 s: QP timeout 15, 7 retries),
 * not from the DELETE_LINK that arrived right after the failure. */
Test(failover_scn, a_delete_link_during_an_rkey_flow_waits_for_it_as_in_linux)
{
	char text[4096];
	snprintf(text, sizeof(text), "scenario \"held DELETE_LINK\"\nseed 1\nend 20s\n%s%s", FABRIC,
	         "app echosrv ZOSB listen port=5001 kind=echo\n"
	         "app resp ZOSB listen port=5002 kind=responder\n"
	         "app echo ZOSA connect ZOSB.osd1:5001 kind=echo bytes=160K conns=2 interval=15ms\n"
	         "app rr ZOSA connect ZOSB.osd1:5002 kind=rr request=700 response=3000 count=60 start=5ms\n"
	         "at 38ms fail adapter RB1\n"
	         "expect aborted == 0\n");
	world_opts o;
	world_opts_default(&o);
	o.verbose = true;
	scn_world *t = scn_world_new(text, &o);
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	const char *out = scn_world_output(t);
	cr_assert(strstr(out, "] ZOSB: SMC-R link failure: port error"), "%s", out);
	const char *own = strstr(out, "] ZOSA: SMC-R link failure: work completion error");
	cr_assert(own, "%s", out);
	const char *bracket = own;
	while (bracket > out && *bracket != '[')
		bracket--;
	double at = strtod(bracket + 1, NULL);
	cr_assert(at > 1.0 && at < 1.2, "the client's own retries end the link at %.3f s", at);
	cr_assert_null(strstr(out, "ZOSA: SMC-R link failure: deleted by peer"), "%s", out);
	scn_world_free(t);
}

/* The time in seconds of the log line that contains `at` (its "[   s.ns]" prefix). */
static double line_time(const char *out, const char *at)
{
	while (at > out && at[-1] != '\n')
		at--;
	return *at == '[' ? strtod(at + 1, NULL) : -1.0;
}

/* The torture's single-echo-s1-RA1-30ms: ZOSA fails over from RA1 while the server's
 * Accept for echo.2 still names the failed link; the client declines with SYNCERR and
 * the out-of-sync flag, the server ends the link group (Linux: smc_clc_wait_msg ->
 * smc_lgr_terminate_sched). Every connection of it must then end promptly and with an
 * error: rr's last request was dropped with the server's end (it once said "closed",
 * 7700 sent, 7000 delivered). echo.1's abort CDC and the server's DELETE_LINK ALL went
 * down with the failed path, and that send counts as sent (Linux completes the waiter
 * whatever the status), so echo.1 learns of the end from the client's TEST_LINK on the
 * surviving link: 30 s idle time, then its retries; never later than that. */
Test(failover_scn, an_out_of_sync_decline_ends_every_connection_with_an_error)
{
	char text[4096];
	snprintf(text, sizeof(text), "scenario \"out of sync\"\nseed 1\nend 60s\n%s%s", FABRIC,
	         "app echosrv ZOSB listen port=5001 kind=echo\n"
	         "app resp ZOSB listen port=5002 kind=responder\n"
	         "app echo ZOSA connect ZOSB.osd1:5001 kind=echo bytes=160K conns=2 interval=15ms\n"
	         "app rr ZOSA connect ZOSB.osd1:5002 kind=rr request=700 response=3000 count=60 start=5ms\n"
	         "at 30ms fail adapter RA1\n");
	world_opts o;
	world_opts_default(&o);
	o.verbose = true;
	scn_world *t = scn_world_new(text, &o);
	scn_world_run(t);
	const char *out = scn_world_output(t);
	/* the race this is about */
	cr_assert(strstr(out, "echo.2: ZOSA -> ZOSB 10.1.1.2:5001: TCP, fallback 04000000 (SMC_CLC_DECL_SYNCERR)"), "%s",
	          out);
	const char *term = strstr(out, "] ZOSB: SMC-R link group 00000100 terminated abnormally: the peer declined: link group out of sync");
	cr_assert(term, "%s", out);
	double t_term = line_time(out, term);
	/* every connection ends: rr (its abort CDC came on the surviving link) within 1 s,
	 * echo.1 within the TEST_LINK time and its retries, both with an error */
	const char *names[] = { "rr: failed (", "echo.1: failed (", "echo.2: closed: " };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *l = strstr(out, names[i]);
		cr_assert(l, "no \"%s\" line:\n%s", names[i], out);
		double at = line_time(out, l);
		double bound = i == 1 ? 35.0 : 1.0;
		cr_assert(at >= 0 && at - t_term < bound, "%s at %.3f s, the lgr ended at %.3f s", names[i], at, t_term);
	}
	cr_assert(strstr(out, "] ZOSA: SMC-R link group 00000100 terminated abnormally: no usable link left"), "%s", out);
	/* nothing says "closed" with bytes missing */
	for (const char *l = strstr(out, ": closed: "); l; l = strstr(l + 1, ": closed: ")) {
		char sent[32], dlv[32];
		cr_assert_eq(sscanf(l, ": closed: %31s sent, %31s delivered", sent, dlv), 2);
		cr_assert_str_eq(sent, dlv, "%.80s", l);
	}
	scn_world_free(t);
}

/* Go-back-N without PFC: a lossy access wire costs retransmissions but no link; when it
 * loses everything, the QP's retries run out (RETRY_EXC_ERR), the link fails and its
 * connections move to the second link without losing a byte. */
Test(failover_scn, loss_without_pfc_retransmits_and_retry_exhaustion_fails_the_link_over)
{
	char text[4096];
	snprintf(text, sizeof(text),
	         "scenario \"go-back-N\"\nseed 1\nend 20s\n%s"
	         "app sink ZOSB listen port=5000 kind=sink\n"
	         "app bulk ZOSA connect ZOSB.osd1:5000 kind=bulk bytes=4M\n"
	         "at 20ms set adapter RA1 loss=1/50\n"
	         "at 1s expect links ZOSA ZOSB == 2\n"
	         "at 1s set adapter RA1 loss=1/1\n"
	         "at 5s expect links ZOSA ZOSB == 1\n"
	         "expect delivered bulk == sent bulk\n"
	         "expect sent bulk == 4M\n"
	         "expect aborted == 0\n",
	         FABRIC);
	world_opts o;
	world_opts_default(&o);
	o.verbose = true;
	scn_world *t = scn_world_new(text, &o);
	world_run_until(t->w, 990 * SIM_MS);
	/* adapter 0 is RA1: its QP retransmitted, go-back-N, and is still up */
	const rnic *ra1 = world_rnic(t->w, 0);
	uint64_t retx = 0, live = 0;
	for (size_t i = 0; i < rnic_qp_slots(ra1); i++) {
		const rnic_qp *qp = rnic_qp_at(ra1, i);
		if (!qp)
			continue;
		live++;
		retx += rnic_qp_stats_get(qp)->retransmitted_packets;
	}
	cr_assert_gt(live, 0);
	cr_assert_gt(retx, 0, "1/50 loss makes go-back-N retransmit");
	unsigned long failed = (unsigned long)world_run(t->w); /* the rest of the run */
	cr_assert_eq(failed, 0, "%s", scn_world_output(t));
	const char *out = scn_world_output(t);
	cr_assert(strstr(out, "ZOSA: SMC-R link failure: work completion error"), "retry exhaustion fails the link: %s", out);
	scn_world_free(t);
}
