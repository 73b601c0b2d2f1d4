/* The world (sim/world/world.h): a scenario's timeline, applications, expectations and
 * reports as `smcr-sim run` executes them. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/report/report.h"
#include "sim/net/tcp.h"
#include "tests/support/scn_world.h"

/* lines 2..12 of a scenario that starts with `end` */
#define PAIR                                                                        \
	"switch SW\n"                                                               \
	"adapter RA pfid=0010 switch=SW\n"                                          \
	"adapter RB pfid=0020 switch=SW\n"                                          \
	"stack A\n  interface e0 switch=SW ip=10.0.0.1/24\n  smcr pfid=0010\nend\n" \
	"stack B\n  interface e0 switch=SW ip=10.0.0.2/24\n  smcr pfid=0020\nend\n"

Test(world, a_stopped_listener_refuses_and_a_restarted_one_serves)
{
	scn_world *t = scn_world_new("end 3s\n" PAIR
	                             "app sink B listen port=5000 kind=sink\n"
	                             "app early A connect B:5000 kind=bulk bytes=64K start=1ms\n"
	                             "app refused A connect B:5000 kind=bulk bytes=64K start=200ms\n"
	                             "app later A connect B:5000 kind=bulk bytes=64K start=400ms\n"
	                             "at 100ms stop app sink\n"
	                             "at 300ms start app sink\n"
	                             "expect delivered early == 64K\n"
	                             "expect delivered refused == 0\n"
	                             "expect delivered later == 64K\n"
	                             "expect mode later == SMCR\n"
	                             "expect aborted A == 1\n"
	                             "expect aborted B == 0\n",
	                             NULL);
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	cr_assert_eq(tcp_get_counters(world_stack(t->w, "A"))->conn_refused, 1);
	scn_world_free(t);
}

Test(world, connections_close_at_their_time)
{
	scn_world *t = scn_world_new("end 2s\n" PAIR
	                             "app rrs B listen port=80 kind=responder\n"
	                             "app keep A connect B:80 kind=rr request=10 response=10 count=5 close=never\n"
	                             "app drop A connect B:80 kind=rr request=10 response=10 count=5 close=300ms\n"
	                             "at 200ms expect conns A B == 2\n"
	                             "at 400ms expect conns A B == 1\n"
	                             "at 400ms expect conns B A == 1\n"
	                             "expect received keep == 50\n"
	                             "expect received drop == 50\n"
	                             "expect aborted == 0\n",
	                             NULL);
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	scn_world_free(t);
}

Test(world, an_interface_outage_delays_tcp_but_loses_nothing)
{
	scn_world *t = scn_world_new("end 30s\n"
	                             "switch SW\n"
	                             "stack A\n  interface e0 switch=SW ip=10.0.0.1/24 bandwidth=100Mbps\nend\n"
	                             "stack B\n  interface e0 switch=SW ip=10.0.0.2/24\nend\n"
	                             "app sink B listen port=5000 kind=sink\n"
	                             "app bulk A connect B:5000 kind=bulk bytes=4M\n"
	                             "at 100ms fail interface A.e0\n"
	                             "at 100ms expect delivered bulk < 4M\n"
	                             "at 1500ms restore interface A.e0\n"
	                             "expect delivered bulk == 4M\n"
	                             "expect mode bulk == FALLBACK reason=NOSMCDEV\n" /* SMC-R on, no RNIC */
	                             "expect aborted == 0\n",
	                             NULL);
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	cr_assert_gt(tcp_get_counters(world_stack(t->w, "A"))->rto_expiries, 0, "the outage cost retransmissions");
	scn_world_free(t);
}

Test(world, timeline_reports_and_failed_expectations_are_printed_with_their_place)
{
	scn_world *t = scn_world_new("end 1s\n" PAIR
	                             "app sink B listen port=5000 kind=sink\n"
	                             "app bulk A connect B:5000 kind=bulk bytes=1M close=never\n"
	                             "at 500ms report format=netstat stack=A\n"
	                             "at 600ms expect links A B == 3\n"
	                             "expect delivered bulk == 1M\n"
	                             "report format=smc stack=B\n",
	                             NULL);
	cr_assert_eq(scn_world_run(t), 1);
	const char *out = scn_world_output(t);
	cr_assert(strstr(out, "==== report (test.scn:15) at 0.500000000 s ====\nSMC-R NETSTAT DEVLINKS SMC REPORT"), "%s", out);
	cr_assert(strstr(out, "TCP/IP stack: A "), "the netstat report shows A");
	cr_assert_null(strstr(out, "TCP/IP stack: B "), "stack=A filters B out");
	cr_assert(strstr(out, "test.scn:16: expectation failed: expect links A B == 3 (measured 1)\n"), "%s", out);
	cr_assert(strstr(out, "==== report (test.scn:18) at 1.000000000 s ====\n=== stack 2: B (Linux) ==="), "%s", out);
	cr_assert(strstr(out, "test.scn: 1 expectation met, 1 failed; virtual time 1.000000000 s"), "%s", out);
	cr_assert(strstr(out, "\nfingerprint "), "%s", out);
	scn_world_free(t);
}

Test(world, the_same_seed_gives_the_same_run_and_another_seed_another)
{
	const char *text = "end 1s\n" PAIR
	                   "app rrs B listen port=80 kind=responder\n"
	                   "app rr A connect B:80 kind=rr request=100 response=1K count=50 conns=3\n";
	world_opts o;
	world_opts_default(&o);
	o.verbose = true;
	scn_world *a = scn_world_new(text, &o);
	scn_world *b = scn_world_new(text, &o);
	o.seed = 99;
	o.has_seed = true;
	scn_world *c = scn_world_new(text, &o);
	scn_world_run(a);
	scn_world_run(b);
	scn_world_run(c);
	cr_assert_str_eq(scn_world_output(a), scn_world_output(b));
	cr_assert_eq(world_fingerprint(a->w), world_fingerprint(b->w));
	cr_assert_neq(world_fingerprint(a->w), world_fingerprint(c->w));
	scn_world_free(a);
	scn_world_free(b);
	scn_world_free(c);
}

Test(world, expectations_measure_each_connection_or_the_whole_app)
{
	scn_world *t = scn_world_new("end 1s\n" PAIR
	                             "app rrs B listen port=80 kind=responder\n"
	                             "app rr A connect B:80 kind=rr request=100 response=2K count=10 conns=4 interval=1ms "
	                             "smc=no\n"
	                             "expect mode rr == TCP\n"
	                             "expect mode rr.3 != SMCR\n"
	                             "expect mode rrs == FALLBACK reason=PEERNOSMC\n"
	                             "expect sent rr.2 == 1000\n"
	                             "expect sent rr == 4000\n"
	                             "expect received rr.4 == 20K\n"
	                             "expect delivered rrs == received rr\n"
	                             "expect received rrs == sent rr\n"
	                             "expect fallback B == 4 reason=PEERNOSMC\n"
	                             "expect fallback A == 0\n"
	                             "expect linkgroups A B == 0\n",
	                             NULL);
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	char detail[128];
	scn_expect x = t->scn->expects[5]; /* received rr.4 */
	cr_assert_eq(world_measure(t->w, &x, detail, sizeof(detail)), 20480);
	cr_assert_str_eq(detail, "measured 20480");
	scn_world_free(t);
}

/* `adapter … roce=v1|v2`: the adapter offers only that GID type (as Soft-RoCE offers only
 * RoCE v2), so an SMC-R v2 client proposes SMC-Rv2 alone, as Linux does without a v1 GID. */
Test(world, an_adapter_offers_only_the_roce_versions_it_has)
{
	scn_world *t = scn_world_new("end 1s\n"
	                             "switch SW\n"
	                             "adapter R2 pfid=0010 switch=SW roce=v2\n"
	                             "adapter R1 pfid=0020 switch=SW roce=v1\n"
	                             "adapter RB pfid=0030 switch=SW\n"
	                             "stack A\n  interface e0 switch=SW ip=10.0.0.1/24\n  smcr pfid=0010\n"
	                             "  smcr v2=yes ueid=TEST.UEID\nend\n"
	                             "stack B\n  interface e0 switch=SW ip=10.0.0.2/24\n  smcr pfid=0020\nend\n"
	                             "stack C\n  interface e0 switch=SW ip=10.0.0.3/24\n  smcr pfid=0030\n"
	                             "  smcr v2=yes ueid=TEST.UEID\nend\n"
	                             "app sink C listen port=5000 kind=sink\n"
	                             "app bulk A connect C:5000 kind=bulk bytes=64K\n"
	                             "expect mode bulk == SMCR\n",
	                             NULL);
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	smcr_report r;
	report_init(&r);
	world_fill_report(t->w, &r, 0xFFFFFFFFu);
	int v1[3] = { 0 }, v2[3] = { 0 };
	for (size_t i = 0; i < r.n_rnics; i++) {
		const report_rnic *n = &r.rnics[i];
		for (uint8_t g = 0; g < n->n_gids; g++) {
			bool mapped = n->gids[g][10] == 0xff && n->gids[g][11] == 0xff;
			if (mapped)
				v2[n->stack_id - 1]++;
			else
				v1[n->stack_id - 1]++;
		}
	}
	cr_assert(v1[0] == 0 && v2[0] > 0, "roce=v2: only RoCE v2 GIDs (%d v1, %d v2)", v1[0], v2[0]);
	cr_assert(v1[1] > 0 && v2[1] == 0, "roce=v1: only RoCE v1 GIDs (%d v1, %d v2)", v1[1], v2[1]);
	cr_assert(v1[2] > 0 && v2[2] > 0, "default: both (%d v1, %d v2)", v1[2], v2[2]);
	/* A has no RoCE v1 GID: its connection is SMC-Rv2 */
	bool v2conn = false;
	for (size_t i = 0; i < r.n_conns; i++)
		if (r.conns[i].stack_id == 1 && r.conns[i].mode == REPORT_MODE_SMCR)
			v2conn = r.conns[i].smc_version == 2;
	for (size_t i = 0; i < r.n_lgrs; i++)
		if (r.lgrs[i].stack_id == 1)
			v2conn = v2conn || r.lgrs[i].version == 2;
	cr_assert(v2conn, "A's link group is SMC-Rv2");
	report_free(&r);
	scn_world_free(t);
}

/* The idle end of a link group (600 s on the server, 610 s on the client): the server
 * sends an orderly DELETE LINK ALL and both sides say so, in the event log and in the
 * report's events, with the reason code and its words. */
Test(world, the_idle_end_of_a_link_group_is_logged_and_reported_as_orderly)
{
	world_opts o;
	world_opts_default(&o);
	o.verbose = true;
	scn_world *t = scn_world_new("end 700s\n" PAIR
	                             "app sink B listen port=5000 kind=sink\n"
	                             "app bulk A connect B:5000 kind=bulk bytes=64K\n"
	                             "expect delivered bulk == 64K\n",
	                             &o);
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	const char *out = scn_world_output(t);
	cr_assert(strstr(out, "B: SMC-R link group 00000100 ended when idle (orderly), reason 00030000 "
	                      "(program initiated termination)\n"),
	          "%s", out);
	cr_assert(strstr(out, "A: SMC-R link group 00000100 ended by the peer (orderly), reason 00030000 "
	                      "(program initiated termination)\n"),
	          "%s", out);
	cr_assert_null(strstr(out, "terminated"), "an idle end is no termination");
	smcr_report r;
	report_init(&r);
	world_fill_report(t->w, &r, SCN_NONE);
	unsigned ended = 0;
	for (size_t i = 0; i < r.n_events; i++) {
		if (r.events[i].kind != REPORT_EVENT_LGR_ENDED)
			continue;
		ended++;
		cr_assert_eq(r.events[i].code, 0x00030000u);
		cr_assert_eq(r.events[i].lgr_id, 0x100u);
		cr_assert(strstr(r.events[i].cause, "(orderly)"), "%s", r.events[i].cause);
	}
	cr_assert_eq(ended, 2, "one end event per side");
	report_free(&r);
	scn_world_free(t);
}

/* 20 connections to a server whose `smcr maxconns=16`: Linux (smc_lgr_create) bounds a link
 * group by the sysctl only when a v2.1 first contact negotiated it; v1 and v2.0 link groups
 * take SMC_CONN_PER_LGR_MAX (255), so the 20 share one link group. */
static unsigned long maxconns_run(const char *smcr_line, unsigned lgrs)
{
	char text[2048];
	snprintf(text, sizeof(text),
	         "end 3s\n"
	         "switch SW\n"
	         "adapter RA pfid=0010 switch=SW\n"
	         "adapter RB pfid=0020 switch=SW\n"
	         "stack A\n  interface e0 switch=SW ip=10.0.0.1/24\n  smcr pfid=0010\n  %s\nend\n"
	         "stack B\n  interface e0 switch=SW ip=10.0.0.2/24\n  smcr pfid=0020\n  %s\nend\n"
	         "app sink B listen port=5000 kind=sink\n"
	         "app bulk A connect B:5000 kind=bulk bytes=64K conns=20 close=never\n"
	         "at 1s expect conns A B == 20\n"
	         "expect mode bulk == SMCR\n"
	         "expect linkgroups A B == %u\n"
	         "expect linkgroups B A == %u\n",
	         smcr_line, smcr_line, lgrs, lgrs);
	scn_world *t = scn_world_new(text, NULL);
	unsigned long failed = scn_world_run(t);
	if (failed)
		cr_log_error("%s", scn_world_output(t));
	scn_world_free(t);
	return failed;
}

Test(world, maxconns_bounds_only_a_v2_1_link_group_as_in_linux)
{
	cr_assert_eq(maxconns_run("smcr v2=no maxconns=16", 1), 0, "SMC-Rv1: one link group");
	cr_assert_eq(maxconns_run("smcr ueid=SMCSIM.TEST release=0 maxconns=16", 1), 0, "SMC-Rv2.0: one link group");
	cr_assert_eq(maxconns_run("smcr ueid=SMCSIM.TEST release=1 maxconns=16", 2), 0, "SMC-Rv2.1: 16 + 4");
}

/* An adapter fails under a link: the z/OS stack reports its RoCE interface's INOP
 * (IST1717I, then IST1578I DEVICE INOP DETECTED FOR the TRLE) before the IST2406I group of
 * the link that fails with it; the TRLE of EZARIUT10018 is IUT10018. A Linux stack reports
 * no VTAM INOP. */
static char *adapter_failure_log(const char *personality)
{
	char text[2048];
	snprintf(text, sizeof(text),
	         "end 1s\n"
	         "switch SW1\nswitch SW2\n"
	         "adapter RA1 pfid=0018 switch=SW1\nadapter RA2 pfid=0019 switch=SW2\n"
	         "adapter RB1 pfid=0028 switch=SW1\nadapter RB2 pfid=0029 switch=SW2\n"
	         "stack ZA personality=%s\n  interface e1 switch=SW1 ip=10.1.1.1/24\n"
	         "  interface e2 switch=SW2 ip=10.1.2.1/24\n  smcr pfid=0018\n  smcr pfid=0019\nend\n"
	         "stack ZB personality=%s\n  interface e1 switch=SW1 ip=10.1.1.2/24\n"
	         "  interface e2 switch=SW2 ip=10.1.2.2/24\n  smcr pfid=0028\n  smcr pfid=0029\nend\n"
	         "app sink ZB listen port=5000 kind=sink\n"
	         "app bulk ZA connect ZB.e1:5000 kind=bulk bytes=4M\n"
	         "at 100ms expect links ZA ZB == 2\n"
	         "at 200ms fail adapter RA1\n"
	         "at 300ms expect links ZA ZB == 1\n"
	         "expect delivered bulk == 4M\n",
	         personality, personality);
	world_opts o;
	world_opts_default(&o);
	o.verbose = true;
	scn_world *t = scn_world_new(text, &o);
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	char *out = strdup(scn_world_output(t));
	if (!strcmp(personality, "zos")) {
		smcr_report r;
		report_init(&r);
		world_fill_report(t->w, &r, SCN_NONE);
		unsigned inops = 0;
		for (size_t i = 0; i < r.n_events; i++)
			if (r.events[i].kind == REPORT_EVENT_INTF_INOP) {
				inops++;
				cr_assert_str_eq(r.events[i].intf, "EZARIUT10018");
				cr_assert_str_eq(report_event_kind_name(r.events[i].kind), "interface_inop");
			}
		cr_assert_eq(inops, 1, "one INOP: ZA's port on RA1");
		report_free(&r);
	}
	scn_world_free(t);
	return out;
}

Test(world, a_zos_stack_reports_the_roce_interface_inop_before_its_link_failures)
{
	char *out = adapter_failure_log("zos");
	const char *inop = strstr(out, "ZA: RoCE interface EZARIUT10018 inoperative: ");
	cr_assert(inop, "%s", out);
	const char *ulp = strstr(inop, "\nIST1717I ULPID = ZA ULP INTERFACE = EZARIUT10018\n");
	cr_assert(ulp, "%s", out);
	const char *dev = strchr(ulp + 1, '\n');
	const char *want = "\nIST1578I DEVICE INOP DETECTED FOR IUT10018 BY *NA* CODE = *NA*\n";
	cr_assert(dev && !strncmp(dev, want, strlen(want)), "IST1578I right after IST1717I: %s", out);
	const char *fail = strstr(out, "IST2406I SMC-R LINK FAILURE ON TRLE IUT10018 CODE = ");
	cr_assert(fail && fail > dev, "the link failure follows the INOP: %s", out);
	cr_assert_null(strstr(out, "ZB: RoCE interface"), "ZB's adapters did not fail");
	free(out);
}

/* A Linux stack prints no VTAM message at all, but Linux net/smc's own kernel messages
 * (6.1's texts, smc_llc.c and smc_core.c): link added, the link group's state changes,
 * and the link that fails removed. */
Test(world, a_linux_stack_logs_linux_kernel_messages_not_vtam_ones)
{
	char *out = adapter_failure_log("linux");
	cr_assert_null(strstr(out, "IST1578I"), "%s", out);
	cr_assert_null(strstr(out, "IST2406I"), "%s", out);
	cr_assert_null(strstr(out, "inoperative"), "%s", out);
	const char *added = strstr(out, "ZA: smc: SMC-R lg 00000100 net 1 link added: id 00000101, peerid 00000101, ibdev RA1, ibport 1\n");
	cr_assert(added, "%s", out);
	const char *sym = strstr(out, "ZA: smc: SMC-R lg 00000100 net 1 state changed: SYMMETRIC, pnetid SIMNET\n");
	cr_assert(sym && sym > added, "%s", out);
	const char *removed = strstr(out, "\nsmc: SMC-R lg 00000100 net 1 link removed: id 00000101, peerid 00000101, ibdev RA1, ibport 1\n");
	cr_assert(removed && removed > sym, "%s", out);
	cr_assert(strstr(removed, "ZA: smc: SMC-R lg 00000100 net 1 state changed: SINGLE, pnetid SIMNET\n"), "%s", out);
	free(out);
}

/* A link group's peer as the report shows it is what the protocol told the stack: SMC-Rv1
 * carries no host name (only the peer's system id), so a v1 link group names no peer host
 * and no peer stack; an SMC-Rv2 first contact names the host (FCE), and the peer stack is
 * the one with that name. */
static void peer_of_lgrs(const char *smcr_line, const char *host, uint32_t peer_stack)
{
	char text[2048];
	snprintf(text, sizeof(text),
	         "end 1s\n"
	         "switch SW\n"
	         "adapter RA pfid=0010 switch=SW\n"
	         "adapter RB pfid=0020 switch=SW\n"
	         "stack A hostname=\"ALPHA.EXAMPLE\"\n  interface e0 switch=SW ip=10.0.0.1/24\n  smcr pfid=0010\n  %s\nend\n"
	         "stack B hostname=\"BETA.EXAMPLE\"\n  interface e0 switch=SW ip=10.0.0.2/24\n  smcr pfid=0020\n  %s\nend\n"
	         "app sink B listen port=5000 kind=sink\n"
	         "app bulk A connect B:5000 kind=bulk bytes=64K close=never\n"
	         "expect mode bulk == SMCR\n",
	         smcr_line, smcr_line);
	scn_world *t = scn_world_new(text, NULL);
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	smcr_report r;
	report_init(&r);
	world_fill_report(t->w, &r, SCN_NONE);
	cr_assert_eq(r.n_lgrs, 2);
	for (size_t i = 0; i < r.n_lgrs; i++) {
		const report_lgr *g = &r.lgrs[i];
		if (g->stack_id != 1)
			continue; /* A's link group: its peer is B */
		cr_assert_str_eq(g->peer_host, host);
		cr_assert_eq(g->peer_stack_id, peer_stack);
	}
	report_free(&r);
	scn_world_free(t);
}

Test(world, a_v1_link_group_names_no_peer_host_or_stack_a_v2_one_the_host_its_peer_sent)
{
	peer_of_lgrs("smcr v2=no", "", 0);
	peer_of_lgrs("smcr ueid=SMCSIM.TEST", "BETA.EXAMPLE", 2);
}

/* Untagged frames travel on VLAN 1: a trunk that leaves VLAN 1 out drops them, a trunk
 * that carries it passes them. */
static unsigned long trunk_run(const char *trunk_vlans)
{
	char text[1024];
	snprintf(text, sizeof(text),
	         "end 2s\nswitch SW1\nswitch SW2\nwire W SW1 SW2 vlans=%s\n"
	         "stack A\n  interface e0 switch=SW1 ip=10.0.0.1/24\nend\n"
	         "stack B\n  interface e0 switch=SW2 ip=10.0.0.2/24\nend\n"
	         "app sink B listen port=5000 kind=sink\n"
	         "app c A connect B:5000 kind=bulk bytes=8K\n"
	         "expect delivered c == 8K\n",
	         trunk_vlans);
	scn_world *t = scn_world_new(text, NULL);
	unsigned long failed = scn_world_run(t);
	scn_world_free(t);
	return failed;
}

Test(world, untagged_traffic_crosses_a_trunk_only_when_it_carries_vlan_1)
{
	cr_assert_eq(trunk_run("1,10"), 0);
	cr_assert_eq(trunk_run("10,20"), 1);
}

/* 70 client stacks, each with its own link group to S over S's one adapter: a port error
 * takes every link on the port down (smcr_port_err walks every link group of the device;
 * the core once collected at most 64 and left the rest Active). */
Test(world, a_port_error_takes_down_every_link_on_the_port_past_the_64th)
{
	const char *text = "end 1s\n"
	                   "switch SW\n"
	                   "adapter RS1 pfid=0001 switch=SW\n"
	                   "stack S\n  interface e0 switch=SW ip=10.0.0.1/16\n  smcr pfid=0001\nend\n"
	                   "app sink S listen port=5000 kind=sink\n"
	                   "for k in 0..69\n"
	                   "  adapter R{k:02} pfid={k+16:04X} switch=SW\n"
	                   "  stack C{k:02}\n    interface e0 switch=SW ip=10.0.1.{k+1}/16\n"
	                   "    smcr pfid={k+16:04X}\n  end\n"
	                   "  app c{k:02} C{k:02} connect S:5000 kind=bulk bytes=16K close=never\n"
	                   "  at 150ms expect links S C{k:02} == 1\n"
	                   "  at 300ms expect links S C{k:02} == 0\n"
	                   "end\n"
	                   "at 200ms fail adapter RS1\n";
	scn_world *t = scn_world_new(text, NULL);
	unsigned long failed = scn_world_run(t);
	cr_assert_eq(failed, 0, "%s", scn_world_output(t));
	scn_world_free(t);
}

/* net.smc.limit_smc_hs / SMC_LIMIT_HS: with the handshake queue busy (hsqueue=4; SYNs 50 us
 * apart, so that under the hosts' costs the first Proposals are in the queue when later SYNs come) a
 * limiting listener answers the next SYNs without the SMC option and those clients fall
 * back with PEERNOSMC; a listener that does not limit takes every connection on SMC-R */
static unsigned long hs_limit_run(const char *limiths, const char *fallback_expect)
{
	char text[2048];
	snprintf(text, sizeof(text),
	         "end 5s\n"
	         "switch SW\nadapter RA pfid=0010 switch=SW\nadapter RB pfid=0020 switch=SW\n"
	         "stack A\n  interface e0 switch=SW ip=10.0.0.1/24\n  smcr pfid=0010\nend\n"
	         "stack B\n  interface e0 switch=SW ip=10.0.0.2/24\n  smcr pfid=0020\n  smcr hsqueue=4\nend\n"
	         "app sink B listen port=5000 kind=sink limiths=%s\n"
	         "app bulk A connect B:5000 kind=bulk bytes=4K conns=12 interval=50us\n"
	         "expect fallback A %s reason=0x03010000\n"
	         "expect delivered bulk == sent bulk\n",
	         limiths, fallback_expect);
	scn_world *t = scn_world_new(text, NULL);
	unsigned long failed = scn_world_run(t);
	if (failed)
		cr_log_error("%s", scn_world_output(t));
	scn_world_free(t);
	return failed;
}

Test(world, a_listener_that_limits_smc_handshakes_lets_a_burst_fall_back)
{
	cr_assert_eq(hs_limit_run("yes", ">= 1"), 0);
	cr_assert_eq(hs_limit_run("no", "== 0"), 0);
}
