/* The sample-trace scenarios (scenarios/trace-*.scn, the sources of the traces in traces/): run
 * each with a whole-fabric capture, decode the capture with replay (mode 1), and require
 * that the replay reconstructs what the simulator reports, on every field a capture can
 * know:
 *  - each link the run's final report lists: the same link (found by its QP pair) in the
 *    replay's report of that stack, with the same GIDs, MACs, 4-byte link ids, link
 *    number, VLAN, MTU and state;
 *  - each connection an application opened: found in the replay on both stacks by its
 *    TCP 4-tuple, with the same mode (SMC-R or fallback) and the same application bytes
 *    in each direction; plain TCP sockets (smc=no) are not SMC and not in the replay.
 * Stacks are matched by IPv4 address (the replay names hosts by address). */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "model/byteorder.h"
#include "sim/addr/addr_text.h"
#include "sim/replay/replay.h"
#include "sim/world/world.h"

typedef struct conns {
	world_conn_summary c[64];
	size_t n;
} conns;

static void collect(void *arg, const world_conn_summary *c)
{
	conns *cs = arg;
	cr_assert_lt(cs->n, 64);
	cs->c[cs->n++] = *c;
}

static void ip4(uint32_t host_order, uint8_t out[16])
{
	memset(out, 0, 16);
	out[0] = (uint8_t)(host_order >> 24);
	out[1] = (uint8_t)(host_order >> 16);
	out[2] = (uint8_t)(host_order >> 8);
	out[3] = (uint8_t)host_order;
}

/* The replay stack with this address, or 0. */
static uint32_t replay_stack_by_ip(const smcr_report *r, const uint8_t ip[16])
{
	for (size_t i = 0; i < r->n_stacks; i++)
		if (r->stacks[i].family == 4 && !memcmp(r->stacks[i].ip, ip, 4))
			return r->stacks[i].id;
	return 0;
}

static const report_conn *replay_conn(const smcr_report *r, uint32_t stack_id, uint16_t lport, uint16_t pport)
{
	for (size_t i = 0; i < r->n_conns; i++)
		if (r->conns[i].stack_id == stack_id && r->conns[i].local_port == lport && r->conns[i].peer_port == pport)
			return &r->conns[i];
	return NULL;
}

static void cross_check(const char *name)
{
	char scn_path[128], cap[64];
	snprintf(scn_path, sizeof(scn_path), "scenarios/%s.scn", name);
	snprintf(cap, sizeof(cap), "/tmp/smcr-trace-XXXXXX");
	int fd = mkstemp(cap);
	cr_assert_geq(fd, 0);
	close(fd);

	scn_diag diag;
	scn_diag_init(&diag);
	scn_scenario *scn = scn_load_file(scn_path, &diag);
	scn_diag_free(&diag);
	cr_assert_not_null(scn, "%s does not load", scn_path);
	world_opts o;
	world_opts_default(&o);
	o.quiet = true;
	o.out = fopen("/dev/null", "w");
	o.pcap_path = cap;
	char err[256];
	world *w = world_new(scn, &o, err, sizeof(err));
	cr_assert_not_null(w, "%s", err);
	cr_assert_eq(world_run(w), 0, "%s: an expectation failed", name);
	smcr_report run;
	report_init(&run);
	world_fill_report(w, &run, 0xFFFFFFFFu);
	conns cs = { .n = 0 };
	world_foreach_conn(w, collect, &cs);
	world_free(w); /* closes the capture */
	fclose(o.out);

	replay_result res;
	replay_opts ro = { .max_listed = 10 };
	cr_assert_eq(replay_decode_file(cap, &ro, &res, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(res.errors.total, 0, "%s: the replay found %llu errors, first: %s", name,
	             (unsigned long long)res.errors.total, res.errors.n ? res.errors.items[0].text : "");
	const smcr_report *rp = &res.report;

	size_t links_checked = 0, conns_checked = 0;
	for (size_t i = 0; i < run.n_links; i++) {
		const report_link *k = &run.links[i];
		const report_stack *st = report_stack_by_id(&run, k->stack_id);
		cr_assert_not_null(st);
		uint32_t rs = replay_stack_by_ip(rp, st->ip);
		char ip[ADDR_TEXT_IPV4_LEN];
		cr_assert_neq(rs, 0, "%s: stack %s (%s) is not in the replay", name, st->name,
		              addr_text_ipv4(get_be32(st->ip), ip, sizeof(ip)));
		const report_link *m = NULL;
		for (size_t j = 0; j < rp->n_links && !m; j++)
			if (rp->links[j].stack_id == rs && rp->links[j].local_qpn == k->local_qpn &&
			    rp->links[j].remote_qpn == k->remote_qpn)
				m = &rp->links[j];
		cr_assert_not_null(m, "%s: link %08X of %s (QP %06X -> %06X) is not in the replay", name, k->local_link_id,
		                   st->name, k->local_qpn, k->remote_qpn);
		cr_assert_eq(memcmp(m->local_gid, k->local_gid, 16), 0, "%s: link %08X local GID", name, k->local_link_id);
		cr_assert_eq(memcmp(m->remote_gid, k->remote_gid, 16), 0, "%s: link %08X remote GID", name, k->local_link_id);
		cr_assert_eq(memcmp(m->local_mac, k->local_mac, 6), 0, "%s: link %08X local MAC", name, k->local_link_id);
		cr_assert_eq(memcmp(m->remote_mac, k->remote_mac, 6), 0, "%s: link %08X remote MAC", name, k->local_link_id);
		cr_assert_eq(m->local_link_id, k->local_link_id, "%s: link id %08X in the replay, %08X in the run", name,
		             m->local_link_id, k->local_link_id);
		cr_assert_eq(m->remote_link_id, k->remote_link_id, "%s: link %08X: remote link id %08X / %08X", name,
		             k->local_link_id, m->remote_link_id, k->remote_link_id);
		cr_assert_eq(m->link_num, k->link_num, "%s: link %08X: link number", name, k->local_link_id);
		cr_assert_eq(m->vlan, k->vlan, "%s: link %08X: VLAN", name, k->local_link_id);
		cr_assert_eq(m->mtu, k->mtu, "%s: link %08X: MTU %u / %u", name, k->local_link_id, m->mtu, k->mtu);
		cr_assert_eq(m->state, k->state, "%s: link %08X: state %d in the replay, %d in the run", name, k->local_link_id,
		             m->state, k->state);
		links_checked++;
	}
	for (size_t i = 0; i < cs.n; i++) {
		const world_conn_summary *c = &cs.c[i];
		cr_assert(c->opened, "%s: %s.%u never opened", name, c->app, c->instance);
		if (c->mode == SOCK_MODE_TCP)
			continue; /* smc=no: not SMC, not in the replay's picture */
		uint8_t cip[16], sip[16];
		ip4(c->client_ip, cip);
		ip4(c->server_ip, sip);
		uint32_t rc = replay_stack_by_ip(rp, cip), rsv = replay_stack_by_ip(rp, sip);
		cr_assert(rc && rsv, "%s: %s.%u: its stacks are not in the replay", name, c->app, c->instance);
		const report_conn *a = replay_conn(rp, rc, c->client_port, c->server_port);
		const report_conn *b = replay_conn(rp, rsv, c->server_port, c->client_port);
		cr_assert(a && b, "%s: %s.%u (port %u -> %u) is not in the replay on both sides", name, c->app, c->instance,
		          c->client_port, c->server_port);
		report_conn_mode want = c->mode == SOCK_MODE_SMCR ? REPORT_MODE_SMCR : REPORT_MODE_TCP;
		cr_assert_eq(a->mode, want, "%s: %s.%u: mode %d in the replay, %s in the run", name, c->app, c->instance,
		             a->mode, sock_mode_name(c->mode));
		cr_assert_eq(b->mode, want, "%s: %s.%u: the server's mode", name, c->app, c->instance);
		cr_assert_eq(a->bytes_sent, c->client_sent, "%s: %s.%u: client sent %llu (replay) / %llu (run)", name, c->app,
		             c->instance, (unsigned long long)a->bytes_sent, (unsigned long long)c->client_sent);
		cr_assert_eq(a->bytes_received, c->client_received, "%s: %s.%u: client received %llu / %llu", name, c->app,
		             c->instance, (unsigned long long)a->bytes_received, (unsigned long long)c->client_received);
		cr_assert_eq(b->bytes_sent, c->server_sent, "%s: %s.%u: server sent %llu / %llu", name, c->app, c->instance,
		             (unsigned long long)b->bytes_sent, (unsigned long long)c->server_sent);
		cr_assert_eq(b->bytes_received, c->server_received, "%s: %s.%u: server received %llu / %llu", name, c->app,
		             c->instance, (unsigned long long)b->bytes_received, (unsigned long long)c->server_received);
		if (c->mode == SOCK_MODE_FALLBACK)
			cr_assert_eq(a->fallback_reason, c->fallback_reason, "%s: %s.%u: fallback reason", name, c->app,
			             c->instance);
		conns_checked++;
	}
	cr_assert_gt(links_checked, 0, "%s: no link to compare", name);
	cr_assert_gt(conns_checked, 0, "%s: no connection to compare", name);
	cr_log_info("%s: %zu links and %zu connections agree", name, links_checked, conns_checked);
	report_free(&run);
	replay_result_free(&res);
	scn_free(scn);
	unlink(cap);
}

Test(traces, two_stacks_replay_matches_the_run) { cross_check("trace-two-stacks"); }
Test(traces, failover_replay_matches_the_run) { cross_check("trace-failover"); }
Test(traces, v2_routed_replay_matches_the_run) { cross_check("trace-v2-routed"); }

/* Run a sample scenario with a whole-fabric capture at the given taps; decode it. */
static void run_and_decode(const char *name, world_taps taps, replay_result *res)
{
	char scn_path[128], cap[64];
	snprintf(scn_path, sizeof(scn_path), "scenarios/%s.scn", name);
	snprintf(cap, sizeof(cap), "/tmp/smcr-taps-XXXXXX");
	int fd = mkstemp(cap);
	cr_assert_geq(fd, 0);
	close(fd);
	scn_diag diag;
	scn_diag_init(&diag);
	scn_scenario *scn = scn_load_file(scn_path, &diag);
	scn_diag_free(&diag);
	cr_assert_not_null(scn);
	world_opts o;
	world_opts_default(&o);
	o.quiet = true;
	o.out = fopen("/dev/null", "w");
	o.pcap_path = cap;
	o.pcap_taps = taps;
	char err[256];
	world *w = world_new(scn, &o, err, sizeof(err));
	cr_assert_not_null(w, "%s", err);
	cr_assert_eq(world_run(w), 0);
	world_free(w);
	fclose(o.out);
	scn_free(scn);
	cr_assert_eq(replay_decode_file(cap, NULL, res, err, sizeof(err)), 0, "%s", err);
	unlink(cap);
}

/* A loss-free run captured at both ends of every access wire holds most frames twice:
 * those copies are one packet each, not retransmissions, and the picture is the one of
 * the ingress capture. */
Test(traces, copies_at_two_taps_are_not_retransmissions)
{
	replay_result one, both;
	run_and_decode("trace-two-stacks", WORLD_TAPS_INGRESS, &one);
	run_and_decode("trace-two-stacks", WORLD_TAPS_BOTH, &both);
	cr_assert_eq(one.frames_captured_twice, 0);
	cr_assert_gt(both.frames, one.frames + one.frames / 2, "the second tap records most frames again");
	cr_assert_eq(both.frames_captured_twice, both.frames - one.frames, "every extra frame is a copy");
	cr_assert_eq(both.roce_retransmissions, 0, "a loss-free run has no RoCE retransmission");
	cr_assert_eq(both.tcp_retransmissions, 0, "nor TCP ones");
	cr_assert_eq(both.report.n_links, one.report.n_links);
	for (size_t i = 0; i < one.report.n_links; i++) {
		cr_assert_eq(both.report.links[i].bytes_out, one.report.links[i].bytes_out, "link bytes are not doubled");
		cr_assert_eq(both.report.links[i].retrans_out, 0);
	}
	for (size_t i = 0; i < one.report.n_conns; i++)
		cr_assert_eq(both.report.conns[i].bytes_sent, one.report.conns[i].bytes_sent);
	replay_result_free(&one);
	replay_result_free(&both);
}

/* A routed SMC-Rv2 capture holds each routed frame as the client sent it and as the router
 * forwarded it (other MACs, TTL one less): the forwarded one is a copy, not a resend. */
Test(traces, routed_copies_are_not_retransmissions)
{
	replay_result res;
	char err[256];
	cr_assert_eq(replay_decode_file("traces/trace-v2-routed.pcapng", NULL, &res, err, sizeof(err)), 0, "%s", err);
	cr_assert_gt(res.frames_captured_twice, 300);
	cr_assert_eq(res.roce_retransmissions, 0);
	cr_assert_eq(res.tcp_retransmissions, 0);
	cr_assert_eq(res.errors.total, 0);
	replay_result_free(&res);
}
