/* `smcr-sim interop client|server`: one virtual stack on a real Ethernet interface
 * (sim/net/netif_packet.h) with its SMC-R QPs on a real RDMA device (the layer's verbs
 * transport), in real time, running the interoperability exchange (sim/app/app_interop.h)
 * against a real peer — Linux net/smc with tests/interop/smc_peer.c — and printing, one
 * fact per line, what it saw: each connection's mode, reasons and link, the link groups
 * and links, the core's error counters. The same keys as smc_peer and smc_nl print, so a
 * script compares the two views. Exit 0 when every connection ran on SMC-R with its data
 * verified both ways and closed in order, 1 otherwise, 2 for bad options. */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sim/app/app_interop.h"
#include "sim/net/netif_packet.h"
#include "sim/smc/realhw_map.h"
#include "sim/engine/realtime.h"
#include "sim/scenario/scn_values.h"
#include "sim/smc/smc_layer.h"
#include "sim/net/stack.h"
#include "tools/cli.h"

#define INTEROP_PFID 0x0001
#define INTEROP_MAX_DEVS 4

typedef struct interop_args {
	gchar *ifname, *ip, *mac, *pnet, *hostname, *peer, *bytes, *wait, *timeout, *linger, *testlink, *after, *fail_after,
	    *fail_cmd;
	gchar **ueids, **devs;
	gint port, conns, release;
	gboolean v1, verbose, end_lgr;
} interop_args;

typedef struct interop_run {
	const char *role;
	smc_layer *layer;
	sim_engine *eng;
	bool verbose;
	char conn_lines[64][768];
	unsigned n_lines;
} interop_run;

/* ---- text forms shared with smc_peer / smc_nl ---- */

static void gid_text(const uint8_t g[16], char *out, size_t len)
{
	snprintf(out, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x", g[0], g[1], g[2],
	         g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

static void ip_text(uint32_t a, char *out, size_t len)
{
	snprintf(out, len, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
}

static void trimmed(const char *src, size_t n, char *out, size_t len)
{
	size_t k = n;
	while (k && (src[k - 1] == ' ' || src[k - 1] == 0))
		k--;
	size_t o = 0;
	for (size_t i = 0; i < k && o + 1 < len; i++)
		out[o++] = src[i] == ' ' ? '_' : src[i];
	out[o] = 0;
	if (!o)
		snprintf(out, len, "-");
}

static const char *mode_text(sock_mode m)
{
	return m == SOCK_MODE_SMCR ? "SMCR" : m == SOCK_MODE_FALLBACK ? "FALLBACK_TCP" : "TCP";
}

/* ---- reports ---- */

static void on_complete(void *user, const app_interop_conn *c, sock *s)
{
	interop_run *r = user;
	if (r->n_lines >= G_N_ELEMENTS(r->conn_lines))
		return;
	char *line = r->conn_lines[r->n_lines++];
	size_t len = sizeof(r->conn_lines[0]), used = 0;
	smc_layer_conn lc;
	uint32_t reason = c->fallback_reason, peer_diag = 0;
	bool known = smc_layer_sock_conn(r->layer, s, &lc);
	if (known) {
		reason = lc.fallback_reason;
		peer_diag = lc.peer_diagnosis;
	}
	char lip[16] = "?", pip[16] = "?";
	if (known) {
		ip_text(lc.local_ip, lip, sizeof(lip));
		ip_text(lc.peer_ip, pip, sizeof(pip));
	}
	used += (size_t)snprintf(line + used, len - used, "conn k=%" PRIu64 " role=%s local=%s:%u peer=%s:%u mode=%s", c->k,
	                         r->role, lip, known ? lc.local_port : 0, pip, known ? lc.peer_port : 0,
	                         mode_text(sock_get_mode(s)));
	smcr_link_info li;
	if (known && lc.has_core && lc.core_info.link_id &&
	    smcr_ctx_link_info(smc_layer_ctx(r->layer), lc.core_info.link_id, &li) == 0) {
		char g[48], pg[48];
		gid_text(li.local_gid, g, sizeof(g));
		gid_text(li.peer_gid, pg, sizeof(pg));
		const smcr_port_desc *pd = smcr_ctx_port(smc_layer_ctx(r->layer), li.port_index);
		used += (size_t)snprintf(line + used, len - used,
		                         " token=%u peer_token=%u rmbe=%u peer_rmbe=%u link_id=%u ibdev=%s ibport=%u gid=%s "
		                         "peer_gid=%s",
		                         lc.core_info.local_token, lc.core_info.peer_token, lc.core_info.rmbe_size,
		                         lc.core_info.peer_rmbe_size, li.link_id, pd ? pd->name : "?",
		                         pd ? pd->port : 0, g, pg);
	}
	snprintf(line + used, len - used, " reason=0x%08x peer_diag=0x%08x", reason, peer_diag);
}

static void print_lgr(void *arg, const smcr_lgr_info *g)
{
	(void)arg;
	char eid[40], host[40];
	trimmed(g->negotiated_eid, sizeof(g->negotiated_eid), eid, sizeof(eid));
	trimmed(g->peer_hostname, sizeof(g->peer_hostname), host, sizeof(host));
	printf("lgr id=%08x role=%s type=%u vlan=%u conns=%u pnetid=%s v2_ver=%u v2_rel=%u v2_os=%u neg_eid=%s "
	       "peer_host=%s v2_direct=%u links=%u\n",
	       g->lgr_num, g->role == SMCR_ROLE_SERVER ? "server" : "client", (unsigned)g->type, g->vlan_id,
	       g->conns_num, g->pnet_id[0] ? g->pnet_id : "-", g->version, g->peer_release, g->peer_os, eid, host,
	       g->v2_direct ? 1u : 0u, g->n_links);
}

typedef struct lgr_nums {
	const char *key; /* line key: "link", or "prefail_link" for the links before --fail-cmd */
	uint64_t id[16];
	uint32_t num[16];
	size_t n;
} lgr_nums;

static void note_lgr_num(void *arg, const smcr_lgr_info *g)
{
	lgr_nums *m = arg;
	if (m->n < G_N_ELEMENTS(m->id)) {
		m->id[m->n] = g->id;
		m->num[m->n++] = g->lgr_num;
	}
}

static void print_link(void *arg, const smcr_link_info *li)
{
	const lgr_nums *m = arg;
	char g[48], pg[48];
	gid_text(li->local_gid, g, sizeof(g));
	gid_text(li->peer_gid, pg, sizeof(pg));
	uint32_t lgr_num = 0;
	for (size_t i = 0; i < m->n; i++)
		if (m->id[i] == li->lgr_id)
			lgr_num = m->num[i];
	printf("%s lgr=%08x link_id=%u state=%u conn_cnt=%u ibdev=%s ibport=%u uid=%08x peer_uid=%08x gid=%s "
	       "peer_gid=%s qpn=%u peer_qpn=%u mtu=%u llc_out=%" PRIu64 " llc_in=%" PRIu64 "\n",
	       m->key, lgr_num, li->link_id, (unsigned)li->state, li->conn_cnt, li->ibdev, li->ibport, li->link_uid,
	       li->peer_link_uid, g, pg, li->local_qpn, li->peer_qpn, (unsigned)li->path_mtu, li->llc_out, li->llc_in);
}

static void on_packet_fd(void *ctx, int fd)
{
	(void)fd;
	netif_packet_process(ctx);
}

static const char *event_name(smcr_event_type t)
{
	switch (t) {
	case SMCR_EV_LGR_CREATED: return "lgr-created";
	case SMCR_EV_LGR_TYPE: return "lgr-type";
	case SMCR_EV_LGR_TERMINATED: return "lgr-terminated";
	case SMCR_EV_LGR_FREED: return "lgr-freed";
	case SMCR_EV_LINK_ADDED: return "link-added";
	case SMCR_EV_LINK_DOWN: return "link-down";
	case SMCR_EV_LINK_REMOVED: return "link-removed";
	case SMCR_EV_ADD_LINK_REJECTED: return "add-link-rejected";
	case SMCR_EV_DECODE_ERROR: return "decode-error";
	case SMCR_EV_LLC_DROPPED: return "llc-dropped";
	case SMCR_EV_LLC_PROTOCOL_VIOLATION: return "llc-protocol-violation";
	case SMCR_EV_CONN_STATE: return "conn-state";
	}
	return "event";
}

static const char *lgr_end_name(smcr_lgr_end e)
{
	switch (e) {
	case SMCR_LGR_END_NONE: return "none";
	case SMCR_LGR_END_ABNORMAL: return "terminated";
	case SMCR_LGR_END_PEER_ABNORMAL: return "peer-terminated";
	case SMCR_LGR_END_PEER_ORDERLY: return "peer-orderly";
	case SMCR_LGR_END_IDLE: return "idle";
	}
	return "?";
}

static void on_event(void *user, smc_layer *l, const smcr_event *ev)
{
	(void)l;
	interop_run *r = user;
	bool problem = ev->type == SMCR_EV_DECODE_ERROR || ev->type == SMCR_EV_LLC_DROPPED ||
	               ev->type == SMCR_EV_LLC_PROTOCOL_VIOLATION || ev->type == SMCR_EV_LGR_TERMINATED ||
	               ev->type == SMCR_EV_LINK_DOWN;
	if (!r->verbose && !problem)
		return;
	if (ev->type == SMCR_EV_CONN_STATE && !r->verbose)
		return;
	fprintf(stderr, "event t=%.6f %s lgr=%" PRIu64 " conn=%" PRIu64, (double)sim_now(r->eng) / 1e9,
	        event_name(ev->type), ev->lgr_id, ev->conn_id);
	if (ev->link)
		fprintf(stderr, " link_id=%u", ev->link->link_id);
	if (ev->reason)
		fprintf(stderr, " reason=0x%08x", ev->reason);
	if (ev->type == SMCR_EV_CONN_STATE)
		fprintf(stderr, " state=%u", (unsigned)ev->conn_state);
	if (ev->type == SMCR_EV_LGR_TERMINATED)
		fprintf(stderr, " end=%s", lgr_end_name(ev->lgr_end));
	if (ev->decode_err)
		fprintf(stderr, " field=%s offset=%zu", ev->decode_err->field ? ev->decode_err->field : "?",
		        (size_t)ev->decode_err->offset);
	if (ev->text)
		fprintf(stderr, " (%s)", ev->text);
	fprintf(stderr, "\n");
}

static void count_lgr(void *arg, const smcr_lgr_info *g)
{
	(void)g;
	(*(size_t *)arg)++;
}

static void count_link(void *arg, const smcr_link_info *li)
{
	(void)li;
	(*(size_t *)arg)++;
}

static size_t count_lgrs(const smc_layer *l)
{
	size_t n = 0;
	smcr_ctx_foreach_lgr(smc_layer_ctx(l), count_lgr, &n);
	return n;
}

static size_t count_links(const smc_layer *l)
{
	size_t n = 0;
	smcr_ctx_foreach_link(smc_layer_ctx(l), count_link, &n);
	return n;
}

/* The core's counters as one `KEY ...` line; true if they show a protocol problem. */
static bool print_stats(const char *key, const smc_layer *l, const netif_packet *pk)
{
	smcr_stats ss;
	smcr_ctx_get_stats(smc_layer_ctx(l), &ss);
	const netif_packet_counters *pc = netif_packet_counters_get(pk);
	printf("%s decode_errors=%" PRIu64 " llc_dropped=%" PRIu64 " llc_prot_viol=%" PRIu64 " cdc_unknown_token=%" PRIu64
	       " link_down=%" PRIu64 " lgr_terminated=%" PRIu64 " tx_bytes=%" PRIu64 " rx_bytes=%" PRIu64
	       " frames_out=%" PRIu64 " frames_in=%" PRIu64 " frames_dropped=%" PRIu64 "\n",
	       key, ss.decode_errors, ss.llc_dropped, ss.llc_prot_viol, ss.cdc_unknown_token, ss.link_down_cnt,
	       ss.lgr_terminated_cnt, ss.tx_bytes, ss.rx_bytes, pc->tx_frames, pc->rx_frames, pc->tx_dropped);
	fflush(stdout);
	return ss.decode_errors || ss.llc_prot_viol;
}

/* Each connection, the link groups and links, the counters; returns the problems (a
 * connection not verified on SMC-R and closed in order, a protocol error). */
static unsigned report(interop_run *r, app_interop *app, const netif_packet *pk, unsigned conns)
{
	unsigned bad = 0;
	for (size_t i = 0; i < app_interop_n_conns(app); i++) {
		const app_interop_conn *c = app_interop_conn_get(app, i);
		const char *line = NULL;
		/* the complete hook's line for this connection, by number */
		for (unsigned k = 0; k < r->n_lines; k++) {
			char want[32];
			snprintf(want, sizeof(want), "conn k=%" PRIu64 " ", c->k);
			if (!strncmp(r->conn_lines[k], want, strlen(want)))
				line = r->conn_lines[k];
		}
		if (line)
			printf("%s sent=%" PRIu64 " received=%" PRIu64 " verified=%s closed=%s\n", line, c->sent, c->received,
			       c->verified ? "yes" : "no", c->closed ? "yes" : "no");
		else
			printf("conn k=%" PRIu64 " role=%s mode=%s sent=%" PRIu64 " received=%" PRIu64
			       " verified=no closed=%s err=%d\n",
			       c->k, r->role, c->connected ? mode_text(c->mode) : "NONE", c->sent, c->received,
			       c->closed ? "yes" : "no", c->err);
		if (!line || !c->verified || !c->closed || c->err || c->mode != SOCK_MODE_SMCR)
			bad++;
	}
	if (app_interop_n_conns(app) < (size_t)conns)
		bad += conns - (unsigned)app_interop_n_conns(app);
	smcr_ctx_foreach_lgr(smc_layer_ctx(r->layer), print_lgr, NULL);
	lgr_nums nums = { .key = "link", .n = 0 };
	smcr_ctx_foreach_lgr(smc_layer_ctx(r->layer), note_lgr_num, &nums);
	smcr_ctx_foreach_link(smc_layer_ctx(r->layer), print_link, &nums);
	if (print_stats("stats", r->layer, pk))
		bad++;
	return bad;
}

/* ---- --fail-cmd: a real path failure in the middle of the transfer ---- */

static void count_active_link(void *arg, const smcr_link_info *li)
{
	if (li->state == SMCR_LNK_ACTIVE)
		(*(size_t *)arg)++;
}

static uint64_t received_total(const app_interop *app)
{
	uint64_t n = 0;
	for (size_t i = 0; i < app_interop_n_conns(app); i++)
		n += app_interop_conn_get(app, i)->received;
	return n;
}

/* Due once the link group has two active links and the connections together received
 * fail_after bytes: data is flowing and there is a link to fail over to. */
static bool fail_due(const interop_run *r, const app_interop *app, unsigned long long fail_after)
{
	size_t active = 0;
	smcr_ctx_foreach_link(smc_layer_ctx(r->layer), count_active_link, &active);
	return active >= 2 && received_total(app) >= fail_after;
}

/* The links as they were, then the command (e.g. `ip link set mv0 down`: the kernel
 * raises the port error on the RDMA device of that netdev, which reaches the core through
 * the verbs transport's async events like any other). */
static void run_fail_cmd(interop_run *r, const app_interop *app, const char *cmd)
{
	lgr_nums nums = { .key = "prefail_link", .n = 0 };
	smcr_ctx_foreach_lgr(smc_layer_ctx(r->layer), note_lgr_num, &nums);
	smcr_ctx_foreach_link(smc_layer_ctx(r->layer), print_link, &nums);
	fflush(stdout);
	uint64_t got = received_total(app);
	int st = system(cmd);
	printf("fail-cmd t=%.3f received=%" PRIu64 " rc=%d\n", (double)sim_now(r->eng) / 1e9, got,
	       st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128);
	fflush(stdout);
}

/* ---- options ---- */

/* "A.B.C.D/N", or "A.B.C.D" meaning /24; the prefix length 1..32 */
static int parse_prefix(const char *s, uint32_t *addr, uint8_t *len)
{
	const char *why;
	if (!strchr(s, '/')) {
		*len = 24;
		return scn_parse_ipv4(s, addr, &why) ? 0 : -1;
	}
	return scn_parse_prefix(s, addr, len, &why) && *len >= 1 ? 0 : -1;
}

static void args_free(interop_args *a)
{
	g_free(a->ifname);
	g_free(a->ip);
	g_free(a->mac);
	g_strfreev(a->devs);
	g_free(a->pnet);
	g_free(a->hostname);
	g_free(a->peer);
	g_free(a->bytes);
	g_free(a->wait);
	g_free(a->timeout);
	g_free(a->linger);
	g_free(a->testlink);
	g_free(a->after);
	g_free(a->fail_after);
	g_free(a->fail_cmd);
	g_strfreev(a->ueids);
}

static int usage_error(const char *prog, const char *what)
{
	fprintf(stderr, "%s: %s (try --help)\n", prog, what);
	return 2;
}

/* Everything after option parsing; the caller frees the option strings. */
static int run_interop(const char *prog, const interop_args *ap, int argc, char **argv)
{
	const interop_args a = *ap;
	int rc = 2;
	interop_run run = { 0 };
	uint32_t ip = 0, peer = 0;
	uint8_t plen = 24, mac[6];
	uint64_t bytes = 1 << 20;
	unsigned long long wait = 60 * SIM_S, timeout = 120 * SIM_S, linger = 3 * SIM_S;
	unsigned long long testlink = SMCR_TESTLINK_DEFAULT_TIME, after = a.end_lgr ? 10 * SIM_S : 0;
	char err[512];
	realhw_map map;
	if (argc != 2 || (strcmp(argv[1], "client") && strcmp(argv[1], "server")))
		return usage_error(prog, "say client or server");
	run.role = argv[1];
	bool server = !strcmp(run.role, "server");
	if (!a.ifname || !a.ip || !a.devs || !a.devs[0] || !a.ueids || !a.ueids[0])
		return usage_error(prog, "--ifname, --ip, --dev and --ueid are required");
	if (parse_prefix(a.ip, &ip, &plen))
		return usage_error(prog, "bad --ip; expected A.B.C.D/N");
	if (!server && (!a.peer || parse_prefix(a.peer, &peer, &(uint8_t){ 0 })))
		return usage_error(prog, "a client needs --peer A.B.C.D");
	if (a.mac) {
		if (!scn_parse_mac(a.mac, mac, &(const char *){ NULL }))
			return usage_error(prog, "bad --mac; expected XX:XX:XX:XX:XX:XX");
	} else {
		const uint8_t def[6] = { 0x02, 0x53, 0x4d, 0x43, 0x00, (uint8_t)ip };
		memcpy(mac, def, 6);
	}
	if (a.release > 1 || a.release < -1)
		return usage_error(prog, "--release is 0 or 1");
	if ((a.bytes && !scn_parse_size(a.bytes, &bytes, &(const char *){ NULL })) || a.conns < 1 || a.conns > 64 || a.port < 1 || a.port > 65535)
		return usage_error(prog, "bad --bytes, --conns (1..64) or --port");
	if ((a.wait && cli_parse_duration(a.wait, &wait, err, sizeof(err))) ||
	    (a.timeout && cli_parse_duration(a.timeout, &timeout, err, sizeof(err))) ||
	    (a.linger && cli_parse_duration(a.linger, &linger, err, sizeof(err))))
		return usage_error(prog, "bad --wait, --timeout or --linger; expected a duration like 10s");
	/* the scenario's `smcr testlink` range: 0 (off) .. 1 h */
	if (a.testlink && (cli_parse_duration(a.testlink, &testlink, err, sizeof(err)) || testlink > 3600 * SIM_S))
		return usage_error(prog, "bad --testlink; expected a duration from 0 (off) to 1h");
	if (a.after && cli_parse_duration(a.after, &after, err, sizeof(err)))
		return usage_error(prog, "bad --after; expected a duration like 10s");
	uint64_t fail_after = 0;
	if ((a.fail_after && !scn_parse_size(a.fail_after, &fail_after, &(const char *){ NULL })) || (!a.fail_after != !a.fail_cmd))
		return usage_error(prog, "--fail-after SIZE and --fail-cmd CMD go together");
	/* --dev N becomes PFID 0001+N: the first device is tried first for a connection's
	 * first link, the others are alternates for a second link (same PNET id) */
	size_t n_devs = g_strv_length(a.devs);
	if (n_devs > INTEROP_MAX_DEVS)
		return usage_error(prog, "at most 4 --dev");
	GString *map_text = g_string_new(NULL);
	for (size_t i = 0; i < n_devs; i++)
		g_string_append_printf(map_text, "%s%04x=%s", i ? "," : "", (unsigned)(INTEROP_PFID + i), a.devs[i]);
	int map_rc = realhw_map_parse(map_text->str, &map, err, sizeof(err));
	g_string_free(map_text, TRUE);
	if (map_rc || map.n != n_devs) {
		fprintf(stderr, "%s: bad --dev: %s\n", prog, err);
		return 2;
	}
	const char *pnet = a.pnet ? a.pnet : "SIMNET";
	for (size_t i = 0; i < map.n; i++)
		snprintf(map.port[i].pnet_id, sizeof(map.port[i].pnet_id), "%s", pnet);
	gchar *devs_text = g_strjoinv(",", a.devs);

	/* from here on a failure is the run's (1), not the options' (2) */
	rc = 1;
	/* the stack: one interface on the real Ethernet, SMC-R on PFID 0001 → the device */
	sim_engine *eng = sim_engine_new(1);
	run.eng = eng;
	run.verbose = a.verbose;
	sim_realtime *rt = sim_realtime_new(eng);
	stack *st = stack_new(eng, "smcr-sim", STACK_LINUX, NULL);
	netif *nif = stack_add_netif(st, a.ifname, mac, 1500, 0);
	smc_layer *layer = NULL;
	netif_packet *pk = NULL;
	app_interop *app = NULL;
	if (!nif || netif_set_ipv4(nif, ip, plen)) {
		fprintf(stderr, "%s: cannot set up the stack's interface\n", prog);
		goto out;
	}
	smcr_config *sc = stack_smcr(st);
	sc->enabled = true;
	sc->v2 = true;
	for (size_t i = 0; i < map.n; i++)
		smcr_config_add_pfid(sc, (uint16_t)(INTEROP_PFID + i), 1, 0);
	for (gchar **u = a.ueids; *u; u++)
		if (smcr_config_add_ueid(sc, *u)) {
			fprintf(stderr, "%s: bad --ueid '%s' (1..32 characters)\n", prog, *u);
			goto out;
		}
	smc_layer_config lcfg;
	smc_layer_config_default(&lcfg);
	lcfg.real_hw = true;
	lcfg.core.v1 = a.v1;
	lcfg.core.testlink_time = testlink;
	if (a.release >= 0)
		lcfg.core.release = (uint8_t)a.release;
	snprintf(lcfg.default_pnet, sizeof(lcfg.default_pnet), "%s", pnet);
	memset(lcfg.core.hostname, ' ', sizeof(lcfg.core.hostname));
	const char *hn = a.hostname ? a.hostname : "smcr-sim";
	memcpy(lcfg.core.hostname, hn, strlen(hn) < sizeof(lcfg.core.hostname) ? strlen(hn) : sizeof(lcfg.core.hostname));
	layer = smc_layer_new(st, &lcfg);
	if (!layer) {
		fprintf(stderr, "%s: cannot create the SMC-R layer\n", prog);
		goto out;
	}
	run.layer = layer;
	smc_layer_set_event_fn(layer, on_event, &run);
	if (smc_layer_activate_real(layer, map.port, map.n, err, sizeof(err)) < 1) {
		fprintf(stderr, "%s: %s\n", prog, err);
		goto out;
	}
	smc_layer_real_watch(layer, rt);
	pk = netif_packet_open(nif, a.ifname, err, sizeof(err));
	if (!pk) {
		fprintf(stderr, "%s: %s\n", prog, err);
		goto out;
	}
	sim_realtime_watch_fd(rt, netif_packet_fd(pk), on_packet_fd, pk);

	const smcr_port_desc *pd = smcr_ctx_port(smc_layer_ctx(layer), 0);
	char gtxt[48] = "-";
	if (pd && pd->n_gids)
		gid_text(pd->gids[pd->n_gids - 1].gid, gtxt, sizeof(gtxt));
	printf("interop role=%s stack=%s mac=%02x:%02x:%02x:%02x:%02x:%02x ifname=%s dev=%s port_mac=%02x:%02x:%02x:%02x:%02x:%02x "
	       "gid=%s conns=%d bytes=%" PRIu64 " testlink_ms=%llu\n",
	       run.role, a.ip, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], a.ifname, devs_text, pd ? pd->mac[0] : 0,
	       pd ? pd->mac[1] : 0, pd ? pd->mac[2] : 0, pd ? pd->mac[3] : 0, pd ? pd->mac[4] : 0, pd ? pd->mac[5] : 0,
	       gtxt, a.conns, bytes, testlink / SIM_MS);
	/* every RoCE port the core got, in --dev order */
	for (uint32_t i = 0; (pd = smcr_ctx_port(smc_layer_ctx(layer), i)) != NULL; i++) {
		char pg[48] = "-";
		if (pd->n_gids)
			gid_text(pd->gids[pd->n_gids - 1].gid, pg, sizeof(pg));
		printf("port index=%u ibdev=%s ibport=%u pnetid=%s port_mac=%02x:%02x:%02x:%02x:%02x:%02x gid=%s\n", i,
		       pd->name, pd->port, pd->pnet_id[0] ? pd->pnet_id : "-", pd->mac[0], pd->mac[1], pd->mac[2],
		       pd->mac[3], pd->mac[4], pd->mac[5], pg);
	}
	fflush(stdout);

	int aerr = 0;
	sock_opts so;
	sock_opts_default(&so);
	if (server)
		app = app_interop_server_start(st, &so, (uint16_t)a.port, (unsigned)a.conns, bytes, on_complete, &run, &aerr);
	else
		app = app_interop_client_start(st, &so, peer, (uint16_t)a.port, (unsigned)a.conns, bytes, wait, on_complete,
		                               &run, &aerr);
	if (!app) {
		fprintf(stderr, "%s: cannot start the %s: %d\n", prog, run.role, aerr);
		goto out;
	}

	/* real time: until every connection closed and the linger passed, or the timeout. The
	 * report is taken then; with --end-lgr the link groups are ended next. With --after
	 * the run goes on that long, or until the link groups (ended by us or by the peer) are
	 * gone (+1 s for the last sends), and reports again how they ended. */
	sim_time done_at = SIM_TIME_NEVER, gone_at = SIM_TIME_NEVER;
	bool reported = false, saw_lgr = false, failed = false;
	unsigned bad = 0;
	while (sim_now(eng) < timeout) {
		sim_realtime_run(rt, sim_now(eng) + 50 * SIM_MS);
		sim_time now = sim_now(eng);
		if (a.fail_cmd && !failed && fail_due(&run, app, fail_after)) {
			run_fail_cmd(&run, app, a.fail_cmd);
			failed = true;
		}
		if (done_at == SIM_TIME_NEVER && app_interop_done(app))
			done_at = now;
		if (done_at == SIM_TIME_NEVER)
			continue;
		size_t n_lgrs = count_lgrs(layer);
		saw_lgr = saw_lgr || n_lgrs;
		if (!reported && now >= done_at + linger) {
			bad = report(&run, app, pk, (unsigned)a.conns);
			reported = true;
			if (a.end_lgr) {
				printf("end-lgr ended=%d\n", smc_layer_terminate_all(layer));
				fflush(stdout);
				n_lgrs = count_lgrs(layer);
			}
		}
		if (reported && now >= done_at + linger + after)
			break;
		if (saw_lgr && !n_lgrs) {
			if (gone_at == SIM_TIME_NEVER)
				gone_at = now;
			if (now >= gone_at + SIM_S)
				break;
		}
	}
	if (!reported)
		bad = report(&run, app, pk, (unsigned)a.conns);
	else if (after) {
		printf("after lgrs=%zu links=%zu\n", count_lgrs(layer), count_links(layer));
		if (print_stats("stats_end", layer, pk))
			bad++;
	}
	if (bad)
		printf("result fail: %u of %d connections not verified on SMC-R%s\n", bad, a.conns,
		       sim_now(eng) >= timeout ? " (timed out)" : "");
	else
		printf("result pass: %d connections on SMC-R, %" PRIu64 " bytes each way verified on each\n", a.conns, bytes);
	rc = bad ? 1 : 0;
out:
	g_free(devs_text);
	app_interop_free(app);
	smc_layer_free(layer);
	netif_packet_close(pk);
	stack_free(st);
	sim_realtime_free(rt);
	sim_engine_free(eng);
	return rc;
}

int cmd_interop(int argc, char **argv)
{
	const char *prog = argv[0];
	interop_args a = { .port = 5000, .conns = 4, .release = -1 };
	GOptionEntry entries[] = {
		{ "ifname", 0, 0, G_OPTION_ARG_STRING, &a.ifname, "Ethernet interface the stack uses (required)", "IF" },
		{ "ip", 0, 0, G_OPTION_ARG_STRING, &a.ip,
		  "the stack's own address, one the host kernel does not have (required)", "A.B.C.D/N" },
		{ "mac", 0, 0, G_OPTION_ARG_STRING, &a.mac, "the stack's MAC (default 02:53:4d:43:00:<last byte of --ip>)",
		  "MAC" },
		{ "dev", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.devs,
		  "RDMA device for the QPs, with its port and the address of its RoCE v2 GID (required; repeat it for "
		  "alternate devices a second link can use, up to 4, the first tried first)",
		  "DEV[:PORT][@A.B.C.D]" },
		{ "ueid", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.ueids, "user EID for SMC-Rv2 (repeatable, at least one)",
		  "EID" },
		{ "pnet", 0, 0, G_OPTION_ARG_STRING, &a.pnet, "PNET id of the interface and the RoCE port", "ID" },
		{ "hostname", 0, 0, G_OPTION_ARG_STRING, &a.hostname, "host name sent in the v2 first contact (smcr-sim)",
		  "NAME" },
		{ "v1", 0, 0, G_OPTION_ARG_NONE, &a.v1, "offer and accept SMC-Rv1 as well (Linux on rxe has only v2)", NULL },
		{ "release", 0, 0, G_OPTION_ARG_INT, &a.release,
		  "SMC-Rv2 release offered: 1 (v2.1, the default) or 0 (v2.0, what Linux 6.1 speaks)", "0|1" },
		{ "peer", 0, 0, G_OPTION_ARG_STRING, &a.peer, "client: the server's address", "A.B.C.D" },
		{ "port", 0, 0, G_OPTION_ARG_INT, &a.port, "TCP port (5000)", "N" },
		{ "conns", 0, 0, G_OPTION_ARG_INT, &a.conns, "connections (4)", "N" },
		{ "bytes", 0, 0, G_OPTION_ARG_STRING, &a.bytes, "bytes each way per connection (1M)", "SIZE" },
		{ "wait", 0, 0, G_OPTION_ARG_STRING, &a.wait, "client: retry the first connection this long (60s)", "TIME" },
		{ "timeout", 0, 0, G_OPTION_ARG_STRING, &a.timeout, "give up after (120s)", "TIME" },
		{ "linger", 0, 0, G_OPTION_ARG_STRING, &a.linger,
		  "keep the link group this long after the last close (3s); then report", "TIME" },
		{ "testlink", 0, 0, G_OPTION_ARG_STRING, &a.testlink,
		  "idle time before an LLC TEST_LINK, 0 = off (30s, Linux's net.smc.smcr_testlink_time; the scenario's "
		  "smcr testlink=)",
		  "TIME" },
		{ "after", 0, 0, G_OPTION_ARG_STRING, &a.after,
		  "after the report, keep running this long or until the link groups are gone (ended by --end-lgr or "
		  "by the peer), then report how they ended (0; 10s with --end-lgr)",
		  "TIME" },
		{ "end-lgr", 0, 0, G_OPTION_ARG_NONE, &a.end_lgr,
		  "after the linger and the report, end every link group as an operator (Linux: rmmod smc): DELETE_LINK "
		  "ALL, reason 0x00020000; then wait until they are gone",
		  NULL },
		{ "fail-after", 0, 0, G_OPTION_ARG_STRING, &a.fail_after,
		  "once the link group has two active links and the connections received this many bytes in total, "
		  "run --fail-cmd once (failover mid-transfer)",
		  "SIZE" },
		{ "fail-cmd", 0, 0, G_OPTION_ARG_STRING, &a.fail_cmd,
		  "shell command that takes a path down for real (e.g. 'ip link set mv0 down'); the links before it are "
		  "printed as prefail_link lines",
		  "CMD" },
		{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &a.verbose, "core events on stderr", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	cli_options opts = {
		.params = "client|server",
		.entries = entries,
		.summary = "Run one smcr-sim stack against a real SMC-R peer (Linux net/smc): its frames "
		           "on a real Ethernet interface (AF_PACKET), its QPs on a real RDMA device.",
	};
	if (cli_parse_options(&opts, &argc, &argv)) {
		args_free(&a);
		return 2;
	}

	int rc = run_interop(prog, &a, argc, argv);
	args_free(&a);
	return rc;
}

