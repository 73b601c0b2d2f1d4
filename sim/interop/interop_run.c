/* The interoperability run against a real SMC-R peer (see interop_run.h). */
#include "sim/interop/interop_run.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sim/app/app_interop.h"
#include "sim/engine/realtime.h"
#include "sim/interop/interop_lines.h"
#include "sim/net/netif_packet.h"
#include "sim/net/stack.h"
#include "sim/smc/smc_layer.h"

#define MAX_CONN_LINES 64

typedef struct interop_session {
	const interop_config *cfg;
	FILE *out, *log;
	sim_engine *eng;
	sim_realtime *rt;
	stack *st;
	netif *nif;
	smc_layer *layer;
	netif_packet *pk;
	app_interop *app;
	char conn_lines[MAX_CONN_LINES][768]; /* each connection's line, taken when it completed */
	unsigned n_lines;
} interop_session;

/* Hooks ------------------------------------------------------------------------------- */

static void on_complete(void *user, const app_interop_conn *c, sock *s)
{
	interop_session *r = user;
	if (r->n_lines >= MAX_CONN_LINES)
		return;
	interop_conn_line(r->conn_lines[r->n_lines++], sizeof(r->conn_lines[0]), r->layer, r->cfg->role, c->k,
	                  c->fallback_reason, s);
}

/* Without verbose, only the events that show a problem. */
static void on_event(void *user, smc_layer *l, const smcr_event *ev)
{
	(void)l;
	interop_session *r = user;
	bool problem = ev->type == SMCR_EV_DECODE_ERROR || ev->type == SMCR_EV_LLC_DROPPED ||
	               ev->type == SMCR_EV_LLC_PROTOCOL_VIOLATION || ev->type == SMCR_EV_LGR_TERMINATED ||
	               ev->type == SMCR_EV_LINK_DOWN;
	if (r->cfg->verbose || problem)
		interop_print_event(r->log, sim_now(r->eng), ev);
}

static void on_packet_fd(void *ctx, int fd)
{
	(void)fd;
	netif_packet_process(ctx);
}

/* Setting up -------------------------------------------------------------------------- */

/* The stack: one interface on the real Ethernet, SMC-R on PFID 0001+ → the devices. */
static bool build_stack(interop_session *r, char *err, size_t errlen)
{
	const interop_config *c = r->cfg;
	r->st = stack_new(r->eng, "smcr-sim", STACK_LINUX, NULL);
	r->nif = stack_add_netif(r->st, c->ifname, c->mac, 1500, 0);
	if (!r->nif || netif_set_ipv4(r->nif, c->ip, c->plen)) {
		snprintf(err, errlen, "cannot set up the stack's interface");
		return false;
	}
	smcr_config *sc = stack_smcr(r->st);
	sc->enabled = true;
	sc->v2 = true;
	for (size_t i = 0; i < c->map.n; i++)
		smcr_config_add_pfid(sc, (uint16_t)(INTEROP_PFID + i), 1, 0);
	for (const char *const *u = c->ueids; *u; u++) {
		if (smcr_config_add_ueid(sc, *u)) {
			snprintf(err, errlen, "bad --ueid '%s' (1..32 characters, at most %d, as Linux's table)", *u,
			         SMCR_CFG_MAX_UEIDS);
			return false;
		}
	}
	return true;
}

static void layer_config(const interop_config *c, smc_layer_config *lcfg)
{
	smc_layer_config_default(lcfg);
	lcfg->real_hw = true;
	lcfg->core.v1 = c->v1;
	lcfg->core.testlink_time = c->testlink_ns;
	if (c->release >= 0)
		lcfg->core.release = (uint8_t)c->release;
	if (c->max_links >= 0)
		lcfg->core.max_links = (uint8_t)c->max_links;
	if (c->max_conns >= 0)
		lcfg->core.max_conns = (uint8_t)c->max_conns;
	if (c->kernel_values) {
		lcfg->core.feature_mask = c->feature_mask;
		lcfg->core.rmbe_max_code = c->rmbe_max_code;
		lcfg->core.autocorking_size = c->autocorking_size;
	}
	snprintf(lcfg->default_pnet, sizeof(lcfg->default_pnet), "%s", c->pnet);
	memset(lcfg->core.hostname, ' ', sizeof(lcfg->core.hostname));
	size_t n = strlen(c->hostname);
	memcpy(lcfg->core.hostname, c->hostname, n < sizeof(lcfg->core.hostname) ? n : sizeof(lcfg->core.hostname));
}

/* The SMC-R layer on the real devices, and the interface's packet socket. */
static bool attach_real(interop_session *r, char *err, size_t errlen)
{
	smc_layer_config lcfg;
	layer_config(r->cfg, &lcfg);
	r->layer = smc_layer_new(r->st, &lcfg);
	if (!r->layer) {
		snprintf(err, errlen, "cannot create the SMC-R layer");
		return false;
	}
	smc_layer_set_event_fn(r->layer, on_event, r);
	if (smc_layer_activate_real(r->layer, r->cfg->map.port, r->cfg->map.n, err, errlen) < 1)
		return false;
	smc_layer_real_watch(r->layer, r->rt);
	r->pk = netif_packet_open(r->nif, r->cfg->ifname, err, errlen);
	if (!r->pk)
		return false;
	sim_realtime_watch_fd(r->rt, netif_packet_fd(r->pk), on_packet_fd, r->pk);
	return true;
}

static bool start_app(interop_session *r, char *err, size_t errlen)
{
	const interop_config *c = r->cfg;
	int aerr = 0;
	sock_opts so;
	sock_opts_default(&so);
	if (c->server)
		r->app = app_interop_server_start(r->st, &so, c->port, c->conns, c->bytes, on_complete, r, &aerr);
	else
		r->app = app_interop_client_start(r->st, &so, c->peer, c->port, c->conns, c->bytes, c->wait_ns, on_complete, r,
		                                  &aerr);
	if (!r->app)
		snprintf(err, errlen, "cannot start the %s: %d", c->role, aerr);
	return r->app != NULL;
}

static void print_header(const interop_session *r)
{
	const interop_config *c = r->cfg;
	interop_header h = { c->role, c->ip_text, c->ifname, c->devs_text, c->mac, c->conns, c->bytes, c->testlink_ns };
	interop_print_header(r->out, &h, smc_layer_ctx(r->layer));
}

/* Reports ----------------------------------------------------------------------------- */

/* The complete hook's line for connection k, or NULL. */
static const char *conn_line(const interop_session *r, uint64_t k)
{
	const char *line = NULL;
	char want[32];
	snprintf(want, sizeof(want), "conn k=%" PRIu64 " ", k);
	for (unsigned i = 0; i < r->n_lines; i++)
		if (!strncmp(r->conn_lines[i], want, strlen(want)))
			line = r->conn_lines[i];
	return line;
}

/* One line for the connection; true when it is not verified on SMC-R and closed in order. */
static bool report_conn(const interop_session *r, const app_interop_conn *c)
{
	const char *line = conn_line(r, c->k);
	if (line)
		fprintf(r->out, "%s sent=%" PRIu64 " received=%" PRIu64 " verified=%s closed=%s\n", line, c->sent,
		        c->received, c->verified ? "yes" : "no", c->closed ? "yes" : "no");
	else
		fprintf(r->out, "conn k=%" PRIu64 " role=%s mode=%s sent=%" PRIu64 " received=%" PRIu64 " verified=no closed=%s err=%d\n", c->k, r->cfg->role, c->connected ? interop_mode_text(c->mode) : "NONE",
		        c->sent, c->received, c->closed ? "yes" : "no", c->err);
	return !line || !c->verified || !c->closed || c->err || c->mode != SOCK_MODE_SMCR;
}

/* Each connection, the link groups and links, the counters; the problems (a connection
 * not verified on SMC-R and closed in order, one never opened, a protocol error). */
static unsigned report(const interop_session *r)
{
	unsigned bad = 0;
	size_t n = app_interop_n_conns(r->app);
	for (size_t i = 0; i < n; i++)
		bad += report_conn(r, app_interop_conn_get(r->app, i));
	if (n < r->cfg->conns)
		bad += r->cfg->conns - (unsigned)n;
	interop_print_lgrs(r->out, smc_layer_ctx(r->layer));
	interop_print_links(r->out, smc_layer_ctx(r->layer), "link");
	if (interop_print_stats(r->out, "stats", r->layer, r->pk))
		bad++;
	return bad;
}

/* --fail-cmd: a real path failure in the middle of the transfer ------------------------ */

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
static bool fail_due(const interop_session *r)
{
	size_t active = 0;
	smcr_ctx_foreach_link(smc_layer_ctx(r->layer), count_active_link, &active);
	return active >= 2 && received_total(r->app) >= r->cfg->fail_after;
}

/* The links as they were, then the command (e.g. `ip link set mv0 down`: the kernel
 * raises the port error on the RDMA device of that netdev, which reaches the core through
 * the verbs transport's async events like any other). */
static void run_fail_cmd(const interop_session *r)
{
	interop_print_links(r->out, smc_layer_ctx(r->layer), "prefail_link");
	fflush(r->out);
	uint64_t got = received_total(r->app);
	int st = system(r->cfg->fail_cmd);
	fprintf(r->out, "fail-cmd t=%.3f received=%" PRIu64 " rc=%d\n", (double)sim_now(r->eng) / 1e9, got,
	        st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st)
	                                      : 128);
	fflush(r->out);
}

/* The run ----------------------------------------------------------------------------- */

typedef struct run_state {
	sim_time done_at, gone_at;
	bool reported, saw_lgr, failed;
	unsigned bad;
} run_state;

/* After the exchange: the report once the linger passed (and the link groups ended with
 * end_lgr); true when the run is over. */
static bool after_done(interop_session *r, run_state *s, sim_time now)
{
	const interop_config *c = r->cfg;
	size_t n_lgrs = interop_count_lgrs(r->layer);
	s->saw_lgr = s->saw_lgr || n_lgrs;
	if (!s->reported && now >= s->done_at + c->linger_ns) {
		s->bad = report(r);
		s->reported = true;
		if (c->end_lgr) {
			fprintf(r->out, "end-lgr ended=%d\n", smc_layer_terminate_all(r->layer));
			fflush(r->out);
			n_lgrs = interop_count_lgrs(r->layer);
		}
	}
	if (s->reported && now >= s->done_at + c->linger_ns + c->after_ns)
		return true;
	if (s->saw_lgr && !n_lgrs) {
		if (s->gone_at == SIM_TIME_NEVER)
			s->gone_at = now;
		if (now >= s->gone_at + SIM_S)
			return true;
	}
	return false;
}

/* Real time, in steps of 50 ms, until the run is over or the timeout; the problems. */
static unsigned run_loop(interop_session *r)
{
	const interop_config *c = r->cfg;
	run_state s = { .done_at = SIM_TIME_NEVER, .gone_at = SIM_TIME_NEVER };
	while (sim_now(r->eng) < c->timeout_ns) {
		sim_realtime_run(r->rt, sim_now(r->eng) + 50 * SIM_MS);
		sim_time now = sim_now(r->eng);
		if (c->fail_cmd && !s.failed && fail_due(r)) {
			run_fail_cmd(r);
			s.failed = true;
		}
		if (s.done_at == SIM_TIME_NEVER && app_interop_done(r->app))
			s.done_at = now;
		if (s.done_at != SIM_TIME_NEVER && after_done(r, &s, now))
			break;
	}
	if (!s.reported)
		return report(r);
	if (c->after_ns) {
		fprintf(r->out, "after lgrs=%zu links=%zu\n", interop_count_lgrs(r->layer), interop_count_links(r->layer));
		if (interop_print_stats(r->out, "stats_end", r->layer, r->pk))
			s.bad++;
	}
	return s.bad;
}

static void print_result(const interop_session *r, unsigned bad)
{
	const interop_config *c = r->cfg;
	if (bad)
		fprintf(r->out, "result fail: %u of %u connections not verified on SMC-R%s\n", bad, c->conns,
		        sim_now(r->eng) >= c->timeout_ns ? " (timed out)" : "");
	else
		fprintf(r->out, "result pass: %u connections on SMC-R, %" PRIu64 " bytes each way verified on each\n", c->conns,
		        c->bytes);
}

static void session_free(interop_session *r)
{
	app_interop_free(r->app);
	smc_layer_free(r->layer);
	netif_packet_close(r->pk);
	stack_free(r->st);
	sim_realtime_free(r->rt);
	sim_engine_free(r->eng);
	free(r);
}

int interop_run(const interop_config *c, FILE *out, FILE *log, char *err, size_t errlen)
{
	interop_session *r = calloc(1, sizeof(*r));
	r->cfg = c;
	r->out = out;
	r->log = log;
	r->eng = sim_engine_new(1);
	r->rt = sim_realtime_new(r->eng);
	err[0] = 0;
	int rc = 1;
	if (build_stack(r, err, errlen) && attach_real(r, err, errlen)) {
		print_header(r);
		if (start_app(r, err, errlen)) {
			unsigned bad = run_loop(r);
			print_result(r, bad);
			rc = bad ? 1 : 0;
		}
	}
	session_free(r);
	return rc;
}
