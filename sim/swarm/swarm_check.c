/* The swarm's invariants (swarm_check.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/clc.h"
#include "sim/report/report.h"
#include "sim/swarm/swarm_check.h"
#include "sim/swarm/swarm_paths.h"
#include "sim/world/world.h"

#define SEC(t) ((double)(t) / 1e9)

typedef struct snap {
	uint64_t t; /* the fault's time; the report is of the instant before */
	smcr_report r;
} snap;

typedef struct checker {
	const scn_scenario *scn;
	swarm_paths *paths;
	swarm_verdict *v;
	GArray *flows; /* world_conn_summary */
	snap *snaps;
	size_t n_snaps;
	GArray *wrong_arp; /* world_wrong_arp seen at the fault times, the end and after the drain */
} checker;

static void violation(checker *c, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void violation(checker *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	g_ptr_array_add(c->v->violations, g_strdup_vprintf(fmt, ap));
	va_end(ap);
}

static FILE *null_out(void)
{
	static FILE *f;
	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

static world *make_world(const scn_scenario *scn, const sweep_poll *poll, char *err, size_t errlen)
{
	world_opts o;
	world_opts_default(&o);
	o.quiet = true;
	o.out = null_out();
	o.max_events = SWARM_MAX_EVENTS;
	if (poll) {
		o.poll = poll->fn;
		o.poll_arg = poll->arg;
	}
	return world_new(scn, &o, err, errlen);
}

/* Run to the end, stopping just before each fault (a snapshot there when snaps). */
static void keep_wrong_arp(void *arg, const world_wrong_arp *e)
{
	GArray *a = arg;
	for (guint i = 0; i < a->len; i++) {
		const world_wrong_arp *o = &g_array_index(a, world_wrong_arp, i);
		if (o->holder_ip == e->holder_ip && o->target_ip == e->target_ip)
			return;
	}
	g_array_append_val(a, *e);
}

/* Neighbour caches are looked at where the run stops anyway (a corrupted ARP entry lives
 * for the ARP timeout, longer than any fault window): reading them changes nothing. */
static void note_wrong_arp(GArray *a, const world *w)
{
	if (a)
		world_foreach_wrong_arp(w, keep_wrong_arp, a);
}

static void run_to_end(world *w, const uint64_t *times, size_t n, snap *snaps, GArray *wrong_arp)
{
	for (size_t i = 0; i < n; i++) {
		if (!times[i])
			continue;
		if (times[i] - 1 > sim_now(world_engine(w)))
			world_run_until(w, times[i] - 1);
		if (snaps) {
			snaps[i].t = times[i];
			world_fill_report(w, &snaps[i].r, SCN_NONE);
		}
		note_wrong_arp(wrong_arp, w);
	}
	world_run(w);
	note_wrong_arp(wrong_arp, w);
}

static void keep_flow(void *arg, const world_conn_summary *c)
{
	g_array_append_val((GArray *)arg, *c);
}

/* ---- addresses to stacks ---- */

static uint32_t stack_of_ip(const scn_scenario *s, uint32_t ip)
{
	for (uint32_t i = 0; i < s->n_stacks; i++)
		for (uint32_t k = 0; k < s->stacks[i].n_ifaces; k++)
			if (s->stacks[i].ifaces[k].ip == ip)
				return i;
	return SCN_NONE;
}

static uint32_t ip_of_bytes(const uint8_t b[16])
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static const scn_app *connecting_app(const checker *c, const char *app)
{
	for (size_t i = 0; i < c->scn->n_apps; i++)
		if (c->scn->apps[i].role == SCN_ROLE_CONNECT && !strcmp(c->scn->apps[i].name, app))
			return &c->scn->apps[i];
	return NULL;
}

/* When the client opened connection f (its app's start and interval), 0 if unknown. */
static uint64_t t_opened(const checker *c, const world_conn_summary *f)
{
	const scn_app *a = connecting_app(c, f->app);
	return a ? a->start_ns + (uint64_t)(f->instance - 1) * a->interval_ns : 0;
}

/* On SMC-R at the client, never accepted by the server, after a handshake longer than the
 * server's CLC_WAIT_TIME for the Confirm: the server gave up (and closed its TCP end)
 * while the client waited for its handshake lock; a client that reuses a link group then
 * sends its Confirm without waiting for an answer and is connected to nobody. */
static bool orphaned(const checker *c, const world_conn_summary *f)
{
	uint64_t t0 = t_opened(c, f);
	return f->mode == SOCK_MODE_SMCR && !f->server_seen && t0 && f->t_connected >= t0 + SMCR_CLC_WAIT_TIME;
}

/* The client is on SMC-R, the server fell back: its Decline came after the client's CLC
 * Confirm (a reused link group's client does not wait for an answer and never reads it). */
static bool split(const world_conn_summary *f)
{
	return f->mode == SOCK_MODE_SMCR && f->server_seen && f->server_mode == SOCK_MODE_FALLBACK;
}

static void split_violation(checker *c, const world_conn_summary *f)
{
	violation(c, "split: %s.%u is on SMC-R at the client, but the server declined after the client's CLC Confirm "
	             "(%08X) and fell back (%" PRIu64 " bytes written by the client, %" PRIu64 " received by the server)",
	          f->app, f->instance, f->server_fallback_reason, f->client_sent, f->server_verified);
}

static void orphan_violation(checker *c, const world_conn_summary *f)
{
	violation(c, "orphan: %s.%u is on SMC-R at the client after %.3f s in the handshake, longer than the server "
	             "waits for the CLC Confirm, and the server never took it (%" PRIu64 " bytes written by the client)",
	          f->app, f->instance, SEC(f->t_connected - t_opened(c, f)), f->client_sent);
}

/* ---- 1. data ---- */

/* Both ends of a first contact lost the link at one instant (an adapter both use failed),
 * both waited CLC_WAIT_TIME_SHORT for the other's Decline, both sent one and fell back:
 * each then reads the other's Decline as the first bytes of its data. */
static bool is_decline_len(uint64_t n)
{
	return n == SMCR_CLC_DECLINE_V2_LEN || n == SMCR_CLC_DECLINE_V1_LEN;
}

/* The extra bytes are one Decline: over what verified (a Decline after the data) or over
 * what the peer wrote (a Decline first: then nothing verifies, an echo repeats it). */
static bool crossed_declines(const world_conn_summary *f)
{
	bool decl = is_decline_len(f->server_received - f->server_verified) ||
	            is_decline_len(f->client_received - f->client_verified) ||
	            (f->server_received > f->client_sent && is_decline_len(f->server_received - f->client_sent)) ||
	            (f->client_received > f->server_sent && is_decline_len(f->client_received - f->server_sent));
	return f->mode == SOCK_MODE_FALLBACK && f->fallback_reason == SMCR_DECL_TIMEOUT_CL && decl;
}

static void check_data(checker *c, const world_conn_summary *f)
{
	bool errored = f->client_err || f->server_err;
	if (crossed_declines(f)) {
		violation(c, "data: %s.%u: both ends fell back (TIMEOUT_CL) after the first link failed, and each read the "
		             "other's CLC Decline as data (server %" PRIu64 " extra bytes, client %" PRIu64 ")",
		          f->app, f->instance, f->server_received - f->server_verified, f->client_received - f->client_verified);
		return;
	}
	if (f->client_bad || f->server_bad)
		violation(c, "data: %s.%u: the %s received bytes that differ from what its peer wrote", f->app, f->instance,
		          f->client_bad ? "client" : "server");
	if (f->client_received > f->client_verified || f->server_received > f->server_verified)
		violation(c, "data: %s.%u: bytes received that were not verified (client %" PRIu64 " of %" PRIu64 ", server %" PRIu64 " of %" PRIu64 ")",
		          f->app, f->instance, f->client_verified, f->client_received, f->server_verified, f->server_received);
	if (errored || !f->client_ended || (f->server_seen && !f->server_ended))
		return;
	if (!f->server_seen) {
		if (orphaned(c, f))
			orphan_violation(c, f);
		else if (f->client_sent)
			violation(c, "data: %s.%u: the client wrote %" PRIu64 " bytes and closed without an error, but no server end "
			             "took the connection",
			          f->app, f->instance, f->client_sent);
		return;
	}
	if (f->server_verified != f->client_sent)
		violation(c, "data: %s.%u: the server received %" PRIu64 " of the %" PRIu64 " bytes the client wrote, and neither "
		             "end reports an error",
		          f->app, f->instance, f->server_verified, f->client_sent);
	if (f->client_verified != f->server_sent)
		violation(c, "data: %s.%u: the client received %" PRIu64 " of the %" PRIu64 " bytes the server wrote, and neither "
		             "end reports an error",
		          f->app, f->instance, f->client_verified, f->server_sent);
}

/* ---- 2. redundancy ---- */

static const report_rnic *rnic_by_mac(const smcr_report *r, uint32_t stack_id, const uint8_t mac[6])
{
	for (size_t i = 0; i < r->n_rnics; i++)
		if (r->rnics[i].stack_id == stack_id && !memcmp(r->rnics[i].mac, mac, 6))
			return &r->rnics[i];
	return NULL;
}

/* An active link of (stack, lgr) on an adapter pair undisturbed over [from, to]; its
 * description in why. */
static bool lgr_survivor(checker *c, const smcr_report *r, uint32_t stack_id, uint32_t peer_id, uint32_t lgr_id,
                         uint64_t from, uint64_t to, char *why, size_t len)
{
	for (size_t i = 0; i < r->n_links; i++) {
		const report_link *l = &r->links[i];
		if (l->stack_id != stack_id || l->lgr_id != lgr_id || l->state != REPORT_LINK_ACTIVE)
			continue;
		const report_rnic *lr = report_rnic_by_id(r, l->rnic_id);
		const report_rnic *pr = rnic_by_mac(r, peer_id, l->remote_mac);
		if (!lr || !pr)
			continue;
		uint32_t a = swarm_paths_adapter_by_pfid(c->paths, lr->pfid), b = swarm_paths_adapter_by_pfid(c->paths, pr->pfid);
		if (a == SCN_NONE || b == SCN_NONE || !swarm_paths_same_segment(c->paths, a, lr->port, b, pr->port))
			continue;
		if (swarm_paths_roce_clear(c->paths, a, lr->port, b, pr->port, from, to)) {
			snprintf(why, len, "link %08X on %s port %u - %s port %u", l->local_link_id, c->scn->adapters[a].name,
			         lr->port, c->scn->adapters[b].name, pr->port);
			return true;
		}
	}
	return false;
}

/* Ends that could not reach each other because a neighbour cache held a wrong MAC: say
 * which entry, so that the cause shows in the violation (swarm_known.c). */
static void wrong_neighbour(const checker *c, const world_conn_summary *f, char *out, size_t len)
{
	out[0] = 0;
	for (guint i = 0; i < c->wrong_arp->len; i++) {
		const world_wrong_arp *e = &g_array_index(c->wrong_arp, world_wrong_arp, i);
		if ((e->holder_ip == f->client_ip && e->target_ip == f->server_ip) ||
		    (e->holder_ip == f->server_ip && e->target_ip == f->client_ip)) {
			snprintf(out, len, "; a corrupted ARP message: %s", e->text);
			return;
		}
	}
}

static void check_redundancy(checker *c, const world_conn_summary *f)
{
	if (!f->client_err && !f->server_err)
		return;
	uint64_t t_err = UINT64_MAX;
	if (f->client_err && f->t_ended)
		t_err = f->t_ended;
	if (f->server_err && f->t_server_ended && f->t_server_ended < t_err)
		t_err = f->t_server_ended;
	if (t_err == UINT64_MAX)
		return;
	/* the application closed it (close=TIME) with data unread or unsent: a reset then is
	 * what TCP and SMC-R do (Linux: tcp_close with data queued, smc_close_abort) */
	const scn_app *a = connecting_app(c, f->app);
	if (a && a->close == SCN_CLOSE_AT && t_err >= a->close_at_ns)
		return;
	/* still in the CLC handshake when it failed: the CLC_WAIT_TIME for the peer's next
	 * message ran out (Linux: smc_clc_wait_msg, -EAGAIN, no fallback), the peer being busy
	 * with other first contacts on the same lock; named so the summary can tell it */
	uint64_t t_open = t_opened(c, f);
	if (a && f->mode == SOCK_MODE_TCP && f->client_err && f->t_ended >= t_open + SMCR_CLC_WAIT_TIME) {
		char why[256];
		wrong_neighbour(c, f, why, sizeof(why));
		violation(c, "handshake: %s.%u waited %.3f s in the CLC handshake and failed (client error %d): no CLC message "
		             "from the server within CLC_WAIT_TIME%s",
		          f->app, f->instance, SEC(f->t_ended - t_open), f->client_err, why);
		return;
	}
	if (!swarm_paths_any_disturbed(c->paths, 0, t_err)) {
		violation(c, "redundancy: %s.%u (%s) failed at %.6f s (client error %d, server error %d) before anything was "
		             "disturbed",
		          f->app, f->instance, sock_mode_name(f->mode), SEC(t_err), f->client_err, f->server_err);
		return;
	}
	if (f->mode != SOCK_MODE_SMCR) {
		if (f->t_connected && swarm_paths_tcp_clear(c->paths, f->client_ip, f->server_ip, 0, t_err))
			violation(c, "redundancy: %s.%u (%s) failed at %.6f s (client error %d, server error %d) although its TCP path "
			             "was never disturbed",
			          f->app, f->instance, sock_mode_name(f->mode), SEC(t_err), f->client_err, f->server_err);
		return;
	}
	uint32_t cs = stack_of_ip(c->scn, f->client_ip), ss = stack_of_ip(c->scn, f->server_ip);
	if (cs == SCN_NONE || ss == SCN_NONE)
		return;
	for (size_t i = 0; i < c->n_snaps; i++) {
		const snap *s = &c->snaps[i];
		if (!s->t || s->t > t_err || !f->t_connected || f->t_connected >= s->t)
			continue;
		uint64_t from = s->t > SWARM_SETTLE_NS ? s->t - SWARM_SETTLE_NS : 0;
		size_t lgrs = 0, kept = 0;
		char why[160] = "";
		for (size_t g = 0; g < s->r.n_lgrs; g++) {
			const report_lgr *lg = &s->r.lgrs[g];
			if (lg->stack_id != cs + 1 || lg->peer_stack_id != ss + 1 || lg->role != REPORT_ROLE_CLIENT)
				continue;
			lgrs++;
			kept += lgr_survivor(c, &s->r, cs + 1, ss + 1, lg->id, from, t_err, why, sizeof(why));
		}
		if (lgrs && kept == lgrs) {
			violation(c, "redundancy: %s.%u (SMC-R) failed at %.6f s (client error %d, server error %d) although at the "
			             "fault at %.6f s its link group kept %s, undisturbed from %.6f s on",
			          f->app, f->instance, SEC(t_err), f->client_err, f->server_err, SEC(s->t), why, SEC(from));
			return;
		}
	}
}

/* ---- 3. hangs ---- */

static void check_hang(checker *c, const world_conn_summary *f, uint64_t end)
{
	char why[256];
	if (!f->client_ended && orphaned(c, f))
		orphan_violation(c, f);
	else if (!f->client_ended && split(f))
		split_violation(c, f);
	else if (!f->client_ended || (f->server_seen && !f->server_ended)) {
		wrong_neighbour(c, f, why, sizeof(why));
		violation(c, "hang: %s.%u (%s) is still open at %.3f s, the hang bound (client %s, server %s; %" PRIu64 " bytes written by the client, %" PRIu64 " received by the server%s)",
		          f->app, f->instance, sock_mode_name(f->mode), SEC(end), f->client_ended ? "ended" : "open",
		          !f->server_seen ? "never seen" : f->server_ended ? "ended"
		                                                           : "open",
		          f->client_sent, f->server_verified,
		          why);
	}
}

/* ---- 4. agreement ---- */

/* Paired by QPs and GIDs, not MACs: a routed RoCE v2 link's remote MAC is its next hop's. */
static const report_link *mirror_link(const smcr_report *r, uint32_t stack_id, uint32_t lgr_id, const report_link *l)
{
	for (size_t i = 0; i < r->n_links; i++) {
		const report_link *m = &r->links[i];
		if (m->stack_id == stack_id && (lgr_id == REPORT_UNKNOWN || m->lgr_id == lgr_id) &&
		    m->state == REPORT_LINK_ACTIVE && m->local_qpn == l->remote_qpn && m->remote_qpn == l->local_qpn &&
		    !memcmp(m->local_gid, l->remote_gid, 16) && !memcmp(m->remote_gid, l->local_gid, 16))
			return m;
	}
	return NULL;
}

static uint32_t active_links(const smcr_report *r, uint32_t stack_id, uint32_t lgr_id, const report_link **first)
{
	uint32_t n = 0;
	*first = NULL;
	for (size_t i = 0; i < r->n_links; i++) {
		const report_link *l = &r->links[i];
		if (l->stack_id == stack_id && l->lgr_id == lgr_id && l->state == REPORT_LINK_ACTIVE) {
			if (!n)
				*first = l;
			n++;
		}
	}
	return n;
}

/* An orphan (orphaned()) between stacks a and b (ids from 1): the client counts it in its
 * link group and lists it, the server does not; the tag says so in agreement's lines. */
static const char *orphan_tag(const checker *c, uint32_t a, uint32_t b)
{
	for (guint i = 0; i < c->flows->len; i++) {
		const world_conn_summary *f = &g_array_index(c->flows, world_conn_summary, i);
		uint32_t cs = stack_of_ip(c->scn, f->client_ip) + 1, ss = stack_of_ip(c->scn, f->server_ip) + 1;
		if (((cs == a && ss == b) || (cs == b && ss == a)) && orphaned(c, f))
			return "orphan: ";
		if (((cs == a && ss == b) || (cs == b && ss == a)) && split(f) && !f->client_ended)
			return "split: ";
	}
	return "";
}

static const char *stack_name(const checker *c, uint32_t id)
{
	return id >= 1 && id <= c->scn->n_stacks ? c->scn->stacks[id - 1].name : "?";
}

static void check_agreement(checker *c, const smcr_report *r)
{
	for (size_t i = 0; i < r->n_links; i++)
		if (r->links[i].state == REPORT_LINK_ACTIVATING)
			violation(c, "hang: %s: link %08X of link group %08X is still activating at the end (an ADD LINK flow that "
			             "never finished)",
			          stack_name(c, r->links[i].stack_id), r->links[i].local_link_id, r->links[i].lgr_id);
	for (size_t g = 0; g < r->n_lgrs; g++) {
		const report_lgr *lg = &r->lgrs[g];
		if (!lg->peer_stack_id)
			continue;
		const report_link *first;
		uint32_t n = active_links(r, lg->stack_id, lg->id, &first);
		if (!n)
			continue; /* ending: no link to pair it by (the drain's count judges it) */
		const report_link *m = mirror_link(r, lg->peer_stack_id, REPORT_UNKNOWN, first);
		if (!m) {
			violation(c, "agreement: %s's link group %08X with %s has link %08X (QP %06X -> %06X) active, but %s has no "
			             "active link mirroring it",
			          stack_name(c, lg->stack_id), lg->id, stack_name(c, lg->peer_stack_id), first->local_link_id,
			          first->local_qpn, first->remote_qpn, stack_name(c, lg->peer_stack_id));
			continue;
		}
		const report_lgr *h = report_lgr_by_id(r, lg->peer_stack_id, m->lgr_id);
		if (!h)
			continue;
		const report_link *hf;
		uint32_t hn = active_links(r, h->stack_id, h->id, &hf);
		size_t unmatched = 0;
		for (size_t i = 0; i < r->n_links; i++) {
			const report_link *l = &r->links[i];
			if (l->stack_id == lg->stack_id && l->lgr_id == lg->id && l->state == REPORT_LINK_ACTIVE &&
			    !mirror_link(r, h->stack_id, h->id, l))
				unmatched++;
		}
		if (hn != n || unmatched)
			violation(c, "agreement: %s's link group %08X with %s has %u active links, %s's link group %08X has %u (%zu "
			             "without a mirror)",
			          stack_name(c, lg->stack_id), lg->id, stack_name(c, lg->peer_stack_id), n,
			          stack_name(c, h->stack_id), h->id, hn, unmatched);
		if (h->n_conns != lg->n_conns)
			violation(c, "agreement: %s%s's link group %08X counts %u connections, its peer %s's %08X counts %u",
			          orphan_tag(c, lg->stack_id, h->stack_id), stack_name(c, lg->stack_id), lg->id, lg->n_conns, stack_name(c, h->stack_id), h->id, h->n_conns);
		if ((lg->role == REPORT_ROLE_CLIENT) == (h->role == REPORT_ROLE_CLIENT))
			violation(c, "agreement: %s's link group %08X and its peer %s's %08X have the same role",
			          stack_name(c, lg->stack_id), lg->id, stack_name(c, h->stack_id), h->id);
	}
	for (size_t i = 0; i < r->n_conns; i++) {
		const report_conn *k = &r->conns[i];
		if (k->mode != REPORT_MODE_SMCR || k->state == REPORT_CONN_INIT)
			continue;
		uint32_t peer = stack_of_ip(c->scn, ip_of_bytes(k->peer_ip));
		bool found = false;
		for (size_t j = 0; j < r->n_conns && !found; j++) {
			const report_conn *m = &r->conns[j];
			found = m->stack_id == peer + 1 && m->mode == REPORT_MODE_SMCR && !memcmp(m->local_ip, k->peer_ip, 4) &&
			        !memcmp(m->peer_ip, k->local_ip, 4) && m->local_port == k->peer_port && m->peer_port == k->local_port;
		}
		if (!found && peer != SCN_NONE)
			violation(c, "agreement: %s%s lists SMC-R connection %u.%u.%u.%u:%u -> %u.%u.%u.%u:%u at the end, %s does not",
			          orphan_tag(c, k->stack_id, peer + 1), stack_name(c, k->stack_id), k->local_ip[0], k->local_ip[1], k->local_ip[2], k->local_ip[3],
			          k->local_port, k->peer_ip[0], k->peer_ip[1], k->peer_ip[2], k->peer_ip[3], k->peer_port,
			          stack_name(c, peer + 1));
	}
}

/* ---- 5. freed ---- */

static void check_freed(checker *c, world *w, uint64_t until)
{
	world_run_until(w, until);
	note_wrong_arp(c->wrong_arp, w);
	world_live l;
	world_live_count(w, &l);
	char why[256] = "";
	for (guint i = 0; i < c->flows->len && !why[0] && l.tcp_pcbs != l.listeners; i++)
		wrong_neighbour(c, &g_array_index(c->flows, world_conn_summary, i), why, sizeof(why));
	if (l.pending_events || l.qps || l.mrs || l.frames || l.smc_conns || l.lgrs || l.links || l.tcp_pcbs != l.listeners)
		violation(c, "freed: %.0f s after the end (the link groups' linger) the world still holds %zu events, %zu QPs, "
		             "%zu memory regions, %zu frames, %zu SMC connections, %zu link groups, %zu links, "
		             "%zu TCP control blocks for %zu listeners%s%s%s",
		          SEC(until - world_end_time(w)), l.pending_events, l.qps, l.mrs, l.frames, l.smc_conns,
		          l.lgrs, l.links, l.tcp_pcbs, l.listeners, l.first_conn[0] ? "; the first connection: " : "",
		          l.first_conn, why);
}

/* ---- the run ---- */

static void figures(checker *c)
{
	swarm_verdict *v = c->v;
	v->stacks = c->scn->n_stacks;
	v->adapters = c->scn->n_adapters;
	v->apps = c->scn->n_apps;
	for (size_t i = 0; i < c->scn->n_events; i++)
		v->faults += c->scn->events[i].kind == SCN_EV_FAIL || c->scn->events[i].kind == SCN_EV_SET;
	for (guint i = 0; i < c->flows->len; i++) {
		const world_conn_summary *f = &g_array_index(c->flows, world_conn_summary, i);
		v->conns++;
		v->smcr += f->mode == SOCK_MODE_SMCR;
		v->fallback += f->mode == SOCK_MODE_FALLBACK;
		v->tcp += f->mode == SOCK_MODE_TCP;
		v->aborted += f->client_err || f->server_err;
		v->bytes += f->server_verified + f->client_verified;
	}
}

bool swarm_check(const scn_scenario *scn, const sweep_poll *poll, swarm_verdict *v, char *err, size_t errlen)
{
	memset(v, 0, sizeof(*v));
	v->violations = g_ptr_array_new_with_free_func(g_free);
	world *w = make_world(scn, poll, err, errlen);
	if (!w)
		return false;
	checker c = { .scn = scn, .paths = swarm_paths_new(scn), .v = v, .flows = g_array_new(FALSE, FALSE, sizeof(world_conn_summary)), .wrong_arp = g_array_new(FALSE, FALSE, sizeof(world_wrong_arp)) };
	const uint64_t *times;
	size_t n = swarm_paths_fault_times(c.paths, &times);
	c.snaps = g_new0(snap, n ? n : 1);
	c.n_snaps = n;
	for (size_t i = 0; i < n; i++)
		report_init(&c.snaps[i].r);
	run_to_end(w, times, n, c.snaps, c.wrong_arp);
	uint64_t end = sim_now(world_engine(w));
	v->end_ns = end;
	v->events = world_events(w);
	v->fingerprint = world_fingerprint(w);
	world_foreach_conn(w, keep_flow, c.flows);
	figures(&c);
	if (world_over_budget(w)) {
		violation(&c, "hang: an event storm: %" PRIu64 " events by %.6f s of virtual time, and the world was stopped there",
		          v->events, SEC(end));
		goto done;
	}
	for (guint i = 0; i < c.flows->len; i++) {
		const world_conn_summary *f = &g_array_index(c.flows, world_conn_summary, i);
		check_data(&c, f);
		check_redundancy(&c, f);
		check_hang(&c, f, end);
	}
	smcr_report fin;
	report_init(&fin);
	world_fill_report(w, &fin, SCN_NONE);
	check_agreement(&c, &fin);
	report_free(&fin);
	check_freed(&c, w, end + SWARM_DRAIN_NS);
	world_free(w);
	/* 6. the same run again: the same fingerprint */
	w = make_world(scn, poll, err, errlen);
	if (w) {
		run_to_end(w, times, n, NULL, NULL);
		v->rerun_fingerprint = world_fingerprint(w);
		if (v->rerun_fingerprint != v->fingerprint)
			violation(&c, "determinism: the same world run again ends with fingerprint %016" PRIx64 ", not %016" PRIx64,
			          v->rerun_fingerprint, v->fingerprint);
		world_free(w);
	}
	w = NULL;
done:
	world_free(w);
	for (size_t i = 0; i < n; i++)
		report_free(&c.snaps[i].r);
	g_free(c.snaps);
	g_array_free(c.flows, TRUE);
	g_array_free(c.wrong_arp, TRUE);
	swarm_paths_free(c.paths);
	return true;
}

void swarm_verdict_clear(swarm_verdict *v)
{
	if (v->violations)
		g_ptr_array_free(v->violations, TRUE);
	v->violations = NULL;
}
