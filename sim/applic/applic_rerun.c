/* The re-run of the recorded applications (see applic.h, part 2): twice, over TCP and over
 * SMC-R, in a world made for them.
 *
 * The world: one switch; a Linux stack per host the kept connections have (an IPv6 host
 * too: the simulated stacks speak IPv4, so every host gets an address 10.0.x.y/16, all in
 * one subnet, which SMC-Rv1 needs and the set-up already judged); its access wire's delay
 * a quarter of the smallest round trip the capture shows for the host's connections (a
 * path crosses two access wires each way), 1 us when none was seen; for the SMC-R run a
 * RoCE adapter per stack on the same switch with the same delay, for the TCP run none
 * (SMC-R disabled). Each stack runs on a host with CPUs and a cost profile (sim/host/):
 * the server ends' hosts take --server-host, the others --client-host; without them a
 * host of the --scenario takes its stack's, any other the Linux profile, as a
 * personality=linux stack does. Each host runs its recorded application
 * (sim/app/app_recorded.h): the server ends listen on their ports, the client ends
 * connect at their recorded times, relative to the first. The run stops when every step
 * of every connection ran, or at ten times the recording's span (a minute at least).
 *
 * Measured per connection: each exchange (a client write followed by its read of the
 * answer) from the write's start to the read's end; completion from the connect to the
 * last step of either end; throughput as bytes both ways over the completion; whether the
 * connection ran on SMC-R.
 *
 * CPU: each host's CPU time, by category, is the host model's own account (exact). The
 * host model does not say which connection a piece of work was for, so a connection's CPU
 * time is a share: a host's CPU time is read whenever a step of one of its connections
 * completes there, and what it spent since the reading before goes to that connection
 * (the work that led to the step: its segments or work requests, interrupts, copies);
 * what it spends after its last step (closing, link upkeep) goes to the connection of
 * that step. A connection alone on its hosts gets exactly their time; the shares of a
 * host add up to its time; connections active at once on one host trade shares when the
 * work for one completes another's step (a bulk transfer beside a chatty connection). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/addr/addr_text.h"
#include "sim/applic/applic_script_int.h"
#include "sim/host/host.h"
#include "sim/net/stack.h"
#include "sim/scenario/scn_diag.h"
#include "sim/world/world.h"

const char *const applic_cpu_names[APPLIC_CPU_NCATS] = { "app", "tcpip", "smcr", "irq" };
_Static_assert((int)HOST_NCATS == (int)APPLIC_CPU_NCATS, "applic's CPU categories are the host model's");

typedef struct rr_host {
	uint8_t family, ip[16];
	uint32_t sim_ip;
	uint64_t rtt; /* the smallest round trip seen, 0 none */
	app_rec_script script;
	size_t cap_conns;
	app_recorded *app;
	bool client, server;  /* an end of re-run connections: client, server or both */
	host_profile profile; /* the host under its stack */
	const char *from;     /* where the profile came from (applic_rerun_host) */
	char stack[32];
	uint64_t conns;       /* the connections it is an end of */
	uint32_t first_conn;  /* the first of them */
	stack *st;            /* this run's */
	uint64_t busy_read;   /* its CPU time at the last reading (this run) */
	uint32_t last_conn;   /* the connection whose step was read last, + 1 (0: none) */
} rr_host;

typedef struct rr_conn {
	uint32_t host[2];       /* client, server (host indexes) */
	uint64_t open;          /* virtual time of the connect */
	sim_time *ready, *done; /* the client's steps */
	size_t n_client, n_server, done_client, done_server;
	sim_time last_done;
	uint64_t cpu_ns[2];     /* its share of its client's and server's host's CPU time */
	bool smcr;
} rr_conn;

typedef struct rr_run {
	ac_tracker *t;
	rr_host *hosts;
	size_t n_hosts;
	rr_conn *conns; /* one per script */
	uint64_t notes;
	char first_note[200];
} rr_run;

typedef struct rr_ctx {
	rr_run *run;
} rr_ctx;

static uint32_t host_index(rr_run *r, uint8_t family, const uint8_t ip[16], uint64_t rtt)
{
	for (size_t i = 0; i < r->n_hosts; i++)
		if (r->hosts[i].family == family && !memcmp(r->hosts[i].ip, ip, 16)) {
			if (rtt && (!r->hosts[i].rtt || rtt < r->hosts[i].rtt))
				r->hosts[i].rtt = rtt;
			return (uint32_t)i;
		}
	r->hosts = g_realloc_n(r->hosts, r->n_hosts + 1, sizeof(*r->hosts));
	rr_host *h = &r->hosts[r->n_hosts];
	memset(h, 0, sizeof(*h));
	h->family = family;
	memcpy(h->ip, ip, 16);
	uint32_t n = (uint32_t)r->n_hosts + 1;
	h->sim_ip = 10u << 24 | (n / 250) << 8 | (n % 250 + 1);
	h->rtt = rtt;
	return (uint32_t)r->n_hosts++;
}

static app_rec_conn *add_conn(rr_host *h)
{
	app_rec_script *s = &h->script;
	if (s->n_conns == h->cap_conns) {
		h->cap_conns = h->cap_conns ? h->cap_conns * 2 : 8;
		s->conns = g_realloc_n(s->conns, h->cap_conns, sizeof(*s->conns));
	}
	app_rec_conn *c = &s->conns[s->n_conns++];
	memset(c, 0, sizeof(*c));
	return c;
}

static void add_listen(rr_host *h, uint16_t port)
{
	app_rec_script *s = &h->script;
	for (size_t i = 0; i < s->n_listen; i++)
		if (s->listen_ports[i] == port)
			return;
	s->listen_ports = g_realloc_n(s->listen_ports, s->n_listen + 1, sizeof(*s->listen_ports));
	s->listen_ports[s->n_listen++] = port;
}

/* hosts, their scripts, the connections' bookkeeping */
static void build(rr_run *r)
{
	ac_tracker *t = r->t;
	uint64_t t0 = UINT64_MAX;
	for (size_t i = 0; i < t->n_scripts; i++)
		if (t->scripts[i].t_open < t0)
			t0 = t->scripts[i].t_open;
	r->conns = g_new0(rr_conn, t->n_scripts);
	for (size_t i = 0; i < t->n_scripts; i++) {
		const ac_script *s = &t->scripts[i];
		uint64_t rtt = s->rtt_c + s->rtt_s;
		rr_conn *rc = &r->conns[i];
		rc->host[0] = host_index(r, s->family, s->ip[0], rtt);
		rc->host[1] = host_index(r, s->family, s->ip[1], rtt);
		rc->open = s->t_open - t0;
		app_rec_conn *cli = add_conn(&r->hosts[rc->host[0]]);
		app_rec_conn *srv = add_conn(&r->hosts[rc->host[1]]);
		cli->active = true;
		cli->peer_ip = r->hosts[rc->host[1]].sim_ip;
		cli->port = srv->port = s->port[1];
		cli->open_gate = rc->open;
		cli->id = 2 * (uint32_t)i + 1; /* odd: a client end, even: its server end */
		srv->id = 2 * (uint32_t)i + 2;
		as_steps(s, cli, srv);
		add_listen(&r->hosts[rc->host[1]], s->port[1]);
		rc->n_client = cli->n_steps;
		rc->n_server = srv->n_steps;
		r->hosts[rc->host[0]].client = true;
		r->hosts[rc->host[1]].server = true;
		for (int e = 0; e < 2 && (e == 0 || rc->host[1] != rc->host[0]); e++)
			if (!r->hosts[rc->host[e]].conns++)
				r->hosts[rc->host[e]].first_conn = (uint32_t)i;
	}
}

/* Each host's profile: the option for its end, else its scenario stack's, else linux. */
static void choose_hosts(rr_run *r)
{
	const applic_opts *o = &r->t->o;
	for (size_t i = 0; i < r->n_hosts; i++) {
		rr_host *h = &r->hosts[i];
		const applic_host_choice *opt = h->server ? &o->server_host : &o->client_host;
		const applic_host *sh = r->t->setup ? applic_setup_host(r->t->setup, h->family, h->ip) : NULL;
		if (opt->given) {
			h->profile = opt->profile;
			h->from = h->server ? "--server-host" : "--client-host";
		} else if (sh && sh->has_host) {
			h->profile = sh->host;
			h->from = "scenario";
			snprintf(h->stack, sizeof(h->stack), "%s", sh->stack);
		} else {
			h->profile = *host_profile_find("linux");
			h->from = "default";
		}
	}
}

static void scenario_text(const rr_run *r, bool smc, uint64_t end_ns, GString *g)
{
	g_string_append_printf(g, "scenario \"applicability re-run (%s)\"\nseed 1\nend %" PRIu64 "ns\nswitch SW\n",
	                       smc ? "SMC-R" : "TCP", end_ns);
	for (size_t i = 0; i < r->n_hosts; i++) {
		const rr_host *h = &r->hosts[i];
		uint64_t lat = h->rtt / 4 ? h->rtt / 4 : 1000;
		char ip[ADDR_TEXT_IPV4_LEN];
		addr_text_ipv4(h->sim_ip, ip, sizeof(ip));
		if (smc)
			g_string_append_printf(g, "adapter A%zu pfid=%04zX switch=SW latency=%" PRIu64 "ns\n", i + 1, i + 1, lat);
		g_string_append_printf(g, "stack H%zu personality=linux\n  interface eth0 switch=SW ip=%s/16 latency=%" PRIu64 "ns\n",
		                       i + 1, ip, lat);
		if (smc)
			g_string_append_printf(g, "  smcr pfid=%04zX\nend\n", i + 1);
		else
			g_string_append(g, "  smcr enable=no\nend\n");
	}
}

static sim_time gate_fn(void *ctx, uint64_t gate)
{
	(void)ctx;
	return gate;
}

static void note_fn(void *ctx, const char *text)
{
	rr_run *r = ((rr_ctx *)ctx)->run;
	if (!r->notes++)
		snprintf(r->first_note, sizeof(r->first_note), "%s", text);
}

/* Host hi's CPU time read: what it spent since the last reading goes to connection ci
 * (see the file's comment). */
static void cpu_read(rr_run *r, uint32_t hi, uint32_t ci)
{
	rr_host *h = &r->hosts[hi];
	host_cpu_stats t;
	host_totals(h->st->host, &t);
	uint64_t busy = 0;
	for (unsigned k = 0; k < HOST_NCATS; k++)
		busy += t.busy_ns[k];
	rr_conn *c = &r->conns[ci];
	c->cpu_ns[c->host[0] == hi ? 0 : 1] += busy - h->busy_read;
	h->busy_read = busy;
	h->last_conn = ci + 1;
}

static void step_fn(void *ctx, uint32_t conn_id, size_t step, sim_time ready, sim_time done, bool smcr)
{
	rr_ctx *x = ctx;
	rr_conn *c = &x->run->conns[(conn_id - 1) / 2];
	cpu_read(x->run, c->host[(conn_id - 1) % 2], (conn_id - 1) / 2);
	c->smcr = c->smcr || smcr;
	if (done > c->last_done)
		c->last_done = done;
	if ((conn_id - 1) % 2 == 0 && step < c->n_client) {
		c->ready[step] = ready;
		c->done[step] = done;
		c->done_client++;
	} else {
		c->done_server++;
	}
}

static bool all_done(const rr_run *r)
{
	for (size_t i = 0; i < r->t->n_scripts; i++)
		if (r->conns[i].done_client < r->conns[i].n_client || r->conns[i].done_server < r->conns[i].n_server)
			return false;
	return true;
}

/* the world of one run; NULL with the reason in err */
static world *make_world(rr_run *r, bool smc, uint64_t end_ns, scn_scenario **scn, FILE *devnull, char *err, size_t n)
{
	GString *g = g_string_new(NULL);
	scenario_text(r, smc, end_ns, g);
	scn_diag diag;
	scn_diag_init(&diag);
	*scn = scn_load_string("(applicability re-run)", g->str, g->len, &diag);
	g_string_free(g, TRUE);
	if (!*scn) {
		snprintf(err, n, "the re-run's world does not load (%zu hosts)", r->n_hosts);
		scn_diag_free(&diag);
		return NULL;
	}
	scn_diag_free(&diag);
	for (size_t i = 0; i < r->n_hosts; i++)
		(*scn)->stacks[i].host = r->hosts[i].profile; /* H1.. in host order */
	world_opts wo;
	world_opts_default(&wo);
	wo.quiet = true;
	wo.out = devnull;
	wo.seed = r->t->o.seed;
	wo.has_seed = true;
	world *w = world_new(*scn, &wo, err, n);
	if (!w) {
		scn_free(*scn);
		*scn = NULL;
	}
	return w;
}

static void start_apps(rr_run *r, world *w, rr_ctx *ctx)
{
	for (size_t i = 0; i < r->n_hosts; i++) {
		char name[24], err[200];
		snprintf(name, sizeof(name), "H%zu", i + 1);
		rr_host *h = &r->hosts[i];
		h->st = world_stack(w, name);
		h->busy_read = 0;
		h->last_conn = 0;
		h->app = app_recorded_start(world_stack(w, name), world_layer(w, name), &h->script, r->t->o.seed + i,
		                            2 * SIM_S, gate_fn, note_fn, ctx, err, sizeof(err));
		if (h->app)
			app_recorded_on_step(h->app, step_fn, ctx);
		else
			note_fn(ctx, err);
	}
}

/* the host's own account of this run */
static void host_account(const rr_host *h, applic_host_cpu *out)
{
	static const host_cat cats[APPLIC_CPU_NCATS] = { HOST_CAT_APP, HOST_CAT_TCPIP, HOST_CAT_SMCR, HOST_CAT_IRQ };
	const sim_host *sh = h->st->host;
	host_cpu_stats t;
	host_totals(sh, &t);
	memset(out, 0, sizeof(*out));
	for (unsigned k = 0; k < APPLIC_CPU_NCATS; k++) {
		out->cpu_cat_ns[k] = t.busy_ns[cats[k]];
		out->cpu_ns += t.busy_ns[cats[k]];
	}
	for (unsigned k = 0; k < host_ncpus(sh); k++) {
		const host_cpu_stats *c = host_cpu(sh, k);
		uint64_t b = 0;
		for (unsigned m = 0; m < HOST_NCATS; m++)
			b += c->busy_ns[m];
		if (b > out->busiest_ns)
			out->busiest_ns = b;
	}
}

/* one run: every connection's client step times, into r->conns */
static int run_once(rr_run *r, bool smc, uint64_t span_ns, char *err, size_t n)
{
	for (size_t i = 0; i < r->t->n_scripts; i++) {
		rr_conn *c = &r->conns[i];
		g_free(c->ready);
		g_free(c->done);
		c->ready = g_new0(sim_time, c->n_client ? c->n_client : 1);
		c->done = g_new0(sim_time, c->n_client ? c->n_client : 1);
		c->done_client = c->done_server = 0;
		c->last_done = 0;
		c->cpu_ns[0] = c->cpu_ns[1] = 0;
		c->smcr = false;
	}
	uint64_t end = span_ns * 10 > 60 * SIM_S ? span_ns * 10 : 60 * SIM_S;
	FILE *devnull = fopen("/dev/null", "w");
	scn_scenario *scn = NULL;
	world *w = devnull ? make_world(r, smc, end, &scn, devnull, err, n) : NULL;
	if (!w) {
		if (devnull)
			fclose(devnull);
		else
			snprintf(err, n, "cannot open /dev/null");
		return -1;
	}
	rr_ctx ctx = { r };
	start_apps(r, w, &ctx);
	sim_engine *eng = world_engine(w);
	while (sim_now(eng) < end && !all_done(r))
		world_run_until(w, sim_now(eng) + 100 * SIM_MS < end ? sim_now(eng) + 100 * SIM_MS : end);
	for (size_t i = 0; i < r->n_hosts; i++) {
		rr_host *h = &r->hosts[i];
		cpu_read(r, (uint32_t)i, h->last_conn ? h->last_conn - 1 : h->first_conn);
		host_account(&r->hosts[i], smc ? &r->t->res->hosts[i].smcr : &r->t->res->hosts[i].tcp);
		app_recorded_free(r->hosts[i].app);
		r->hosts[i].app = NULL;
		r->hosts[i].st = NULL;
	}
	world_free(w);
	scn_free(scn);
	fclose(devnull);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void lat_stats(uint64_t *v, size_t n, uint64_t *mean, uint64_t *p50, uint64_t *p99)
{
	*mean = *p50 = *p99 = 0;
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_u64);
	unsigned __int128 sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	*mean = (uint64_t)(sum / n);
	/* nearest rank: the smallest value with at least p% of the values at or below it */
	*p50 = v[(n * 50 + 99) / 100 - 1];
	*p99 = v[(n * 99 + 99) / 100 - 1];
}

/* a connection's figures from its client's step times; its latencies appended to all */
static void measure(const rr_run *r, size_t i, applic_meas *m, GArray *all)
{
	const rr_conn *c = &r->conns[i];
	const ac_script *s = &r->t->scripts[i];
	const app_rec_conn *cli = NULL;
	const app_rec_script *hs = &r->hosts[c->host[0]].script;
	for (size_t k = 0; k < hs->n_conns && !cli; k++)
		if (hs->conns[k].id == 2 * i + 1)
			cli = &hs->conns[k];
	memset(m, 0, sizeof(*m));
	m->done = c->done_client >= c->n_client && c->done_server >= c->n_server;
	m->smc = c->smcr;
	m->bytes = s->bytes;
	GArray *lat = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	for (size_t k = 0; cli && k + 1 < c->n_client && k + 1 < c->done_client; k++)
		if (cli->steps[k].op == APP_REC_WRITE && cli->steps[k + 1].op == APP_REC_READ) {
			uint64_t l = c->done[k + 1] - c->ready[k];
			g_array_append_val(lat, l);
			g_array_append_val(all, l);
		}
	m->exchanges = lat->len;
	lat_stats((uint64_t *)(void *)lat->data, lat->len, &m->lat_mean_ns, &m->lat_p50_ns, &m->lat_p99_ns);
	g_array_free(lat, TRUE);
	m->completion_ns = c->last_done > c->open ? c->last_done - c->open : 0;
	m->throughput_bps = m->completion_ns ? (uint64_t)((unsigned __int128)m->bytes * 8 * SIM_S / m->completion_ns) : 0;
	m->cpu_client_ns = c->cpu_ns[0];
	m->cpu_server_ns = c->cpu_ns[1];
	m->cpu_ns = m->cpu_client_ns + m->cpu_server_ns;
}

static void totals(const rr_run *r, bool smc, applic_rerun_totals *tot, GArray *all)
{
	applic_result *res = r->t->res;
	memset(tot, 0, sizeof(*tot));
	uint64_t first = UINT64_MAX, last = 0;
	for (size_t i = 0; i < res->n_rerun; i++) {
		const applic_meas *m = smc ? &res->rerun[i].smcr : &res->rerun[i].tcp;
		tot->conns++;
		tot->done += m->done;
		tot->smc += m->smc;
		tot->exchanges += m->exchanges;
		tot->bytes += m->bytes;
		if (r->conns[i].open < first)
			first = r->conns[i].open;
		if (r->conns[i].open + m->completion_ns > last)
			last = r->conns[i].open + m->completion_ns;
	}
	tot->makespan_ns = last > first ? last - first : 0;
	tot->throughput_bps = tot->makespan_ns ? (uint64_t)((unsigned __int128)tot->bytes * 8 * SIM_S / tot->makespan_ns) : 0;
	lat_stats((uint64_t *)(void *)all->data, all->len, &tot->lat_mean_ns, &tot->lat_p50_ns, &tot->lat_p99_ns);
	/* CPU: the hosts' own accounts; utilisation over the makespan */
	for (size_t i = 0; i < res->n_hosts; i++) {
		applic_host_cpu *hc = smc ? &res->hosts[i].smcr : &res->hosts[i].tcp;
		tot->cpu_ns += hc->cpu_ns;
		for (unsigned k = 0; k < APPLIC_CPU_NCATS; k++)
			tot->cpu_cat_ns[k] += hc->cpu_cat_ns[k];
		if (tot->makespan_ns) {
			hc->util_ppm = (uint64_t)((unsigned __int128)hc->cpu_ns * 1000000 /
			                          ((unsigned __int128)tot->makespan_ns * res->hosts[i].cpus));
			hc->busiest_ppm = (uint64_t)((unsigned __int128)hc->busiest_ns * 1000000 / tot->makespan_ns);
		}
	}
	tot->cpu_per_exchange_ns = tot->exchanges ? tot->cpu_ns / tot->exchanges : 0;
	tot->cpu_per_mib_ns = tot->bytes ? (uint64_t)((unsigned __int128)tot->cpu_ns * (1u << 20) / tot->bytes) : 0;
}

static void fill_hosts(const rr_run *r, applic_result *res)
{
	res->n_hosts = r->n_hosts;
	res->hosts = g_new0(applic_rerun_host, r->n_hosts ? r->n_hosts : 1);
	for (size_t i = 0; i < r->n_hosts; i++) {
		const rr_host *h = &r->hosts[i];
		applic_rerun_host *o = &res->hosts[i];
		o->family = h->family;
		memcpy(o->ip, h->ip, 16);
		o->sim_ip = h->sim_ip;
		o->client = h->client;
		o->server = h->server;
		applic_host_spec(&h->profile, o->spec, sizeof(o->spec));
		o->from = h->from;
		snprintf(o->stack, sizeof(o->stack), "%s", h->stack);
		o->cpus = h->profile.costs ? h->profile.cpus : 1;
		o->conns = h->conns;
	}
}

static void fill_conn(const rr_run *r, size_t i, applic_rerun_conn *out)
{
	const ac_script *s = &r->t->scripts[i];
	out->id = s->conn_id;
	out->frame = s->frame;
	out->family = s->family;
	memcpy(out->client, s->ip[0], 16);
	memcpy(out->server, s->ip[1], 16);
	out->cport = s->port[0];
	out->sport = s->port[1];
	out->steps = r->conns[i].n_client + r->conns[i].n_server;
	out->truncated = s->truncated;
	as_recorded(s, out);
}

void ac_rerun(ac_tracker *t)
{
	applic_result *res = t->res;
	rr_run r = { .t = t };
	build(&r);
	choose_hosts(&r);
	fill_hosts(&r, res);
	uint64_t span = res->last_ns > res->first_ns ? res->last_ns - res->first_ns : 0;
	res->n_rerun = t->n_scripts;
	res->rerun = g_new0(applic_rerun_conn, t->n_scripts);
	for (size_t i = 0; i < t->n_scripts; i++)
		fill_conn(&r, i, &res->rerun[i]);
	char err[512] = "";
	for (int smc = 0; smc < 2; smc++) {
		if (run_once(&r, smc, span, err, sizeof(err))) {
			snprintf(res->rerun_note, sizeof(res->rerun_note), "the re-run could not run: %s", err);
			res->n_hosts = 0; /* no host ran: none to account for */
			break;
		}
		GArray *all = g_array_new(FALSE, FALSE, sizeof(uint64_t));
		for (size_t i = 0; i < t->n_scripts; i++)
			measure(&r, i, smc ? &res->rerun[i].smcr : &res->rerun[i].tcp, all);
		totals(&r, smc, smc ? &res->smcr : &res->tcp, all);
		g_array_free(all, TRUE);
		res->rerun_ran = smc;
	}
	if (r.notes && !res->rerun_note[0])
		snprintf(res->rerun_note, sizeof(res->rerun_note), "%" PRIu64 " step%s of the recorded applications did not "
		         "go as recorded; the first: %.120s", r.notes, r.notes == 1 ? "" : "s", r.first_note);
	for (size_t i = 0; i < r.n_hosts; i++) {
		for (size_t k = 0; k < r.hosts[i].script.n_conns; k++)
			g_free(r.hosts[i].script.conns[k].steps);
		g_free(r.hosts[i].script.conns);
		g_free(r.hosts[i].script.listen_ports);
	}
	for (size_t i = 0; i < t->n_scripts; i++) {
		g_free(r.conns[i].ready);
		g_free(r.conns[i].done);
	}
	g_free(r.conns);
	g_free(r.hosts);
}
