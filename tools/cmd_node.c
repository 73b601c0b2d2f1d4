/* `smcr-sim node`: one SMC-R stack in this process, its CLC on a kernel TCP connection to
 * another node, its QPs on a real RDMA device (sim/node/node.h). */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/node/node.h"
#include "sim/smc/realhw_map.h"
#include "sim/report/report_print.h"
#include "sim/scenario/scn_values.h"
#include "tools/cli.h"

typedef struct node_args {
	gchar *listen, *connect, *dev, *app, *bytes, *conns, *interval, *data_seed, *seed, *v2, *rmb, *sndbuf,
	        *timeout, *wait, *linger, *name, *format;
	gboolean verbose;
} node_args;

static void free_args(node_args *a)
{
	gchar **all[] = { &a->listen, &a->connect, &a->dev, &a->app, &a->bytes, &a->conns, &a->interval, &a->data_seed,
		          &a->seed, &a->v2, &a->rmb, &a->sndbuf, &a->timeout, &a->wait, &a->linger, &a->name, &a->format };
	for (size_t i = 0; i < G_N_ELEMENTS(all); i++)
		g_free(*all[i]);
}

static int bad(const char *prog, const char *opt, const char *val, const char *expected)
{
	fprintf(stderr, "%s: bad %s '%s'; expected %s\n", prog, opt, val, expected);
	return 2;
}

/* [ADDR:]PORT */
static int parse_endpoint(const char *prog, const char *opt, const char *text, bool need_addr, node_config *c)
{
	const char *colon = strrchr(text, ':');
	const char *port = colon ? colon + 1 : text;
	unsigned long long p;
	if (cli_parse_u64(port, &p) || p == 0 || p > 65535 || (need_addr && !colon))
		return bad(prog, opt, text, need_addr ? "ADDR:PORT, e.g. 10.0.0.1:7100" : "[ADDR:]PORT, e.g. 7100");
	c->port = (uint16_t)p;
	if (colon) {
		size_t n = (size_t)(colon - text);
		if (!n || n >= sizeof(c->host))
			return bad(prog, opt, text, "an IPv4 address before ':'");
		memcpy(c->host, text, n);
		c->host[n] = 0;
	}
	return 0;
}

/* DEV[:PORT][@A.B.C.D], as in a --real-hw entry */
static int parse_dev(const char *prog, const char *text, node_config *c)
{
	char buf[128], err[256];
	snprintf(buf, sizeof(buf), "0=%s", text);
	realhw_map m;
	if (realhw_map_parse(buf, &m, err, sizeof(err)))
		return bad(prog, "--dev", text, "DEV[:PORT][@A.B.C.D], e.g. rxe0 or rxe0:1@10.0.0.1");
	snprintf(c->dev, sizeof(c->dev), "%s", m.port[0].dev);
	c->dev_port = m.port[0].dev_port;
	c->gid_ipv4 = m.port[0].ipv4;
	return 0;
}

static int parse_app(const char *prog, const char *text, node_config *c)
{
	if (!strcmp(text, "bulk") || !strcmp(text, "sink"))
		c->app = NODE_APP_BULK;
	else if (!strcmp(text, "echo"))
		c->app = NODE_APP_ECHO;
	else
		return bad(prog, "--app", text, "bulk (server: sink) or echo");
	return 0;
}

/* The role and the endpoint, the device and the application. */
static int where_and_what(const char *prog, const node_args *a, node_config *c)
{
	if (!!a->listen == !!a->connect) {
		fprintf(stderr, "%s: give either --listen [ADDR:]PORT or --connect ADDR:PORT (try --help)\n", prog);
		return 2;
	}
	c->server = a->listen != NULL;
	int rc = c->server ? parse_endpoint(prog, "--listen", a->listen, false, c)
	                   : parse_endpoint(prog, "--connect", a->connect, true, c);
	if (!rc && a->dev)
		rc = parse_dev(prog, a->dev, c);
	if (!rc && a->app)
		rc = parse_app(prog, a->app, c);
	return rc;
}

/* --bytes, --conns and the durations. */
static int amounts(const char *prog, const node_args *a, node_config *c)
{
	const char *why;
	uint64_t v;
	if (a->bytes) {
		if (!scn_parse_size(a->bytes, &v, &why))
			return bad(prog, "--bytes", a->bytes, "a size like 64M");
		c->bytes = v;
	}
	unsigned long long u;
	if (a->conns) {
		if (cli_parse_u64(a->conns, &u) || u < 1 || u > 1024)
			return bad(prog, "--conns", a->conns, "1 to 1024");
		c->conns = (uint32_t)u;
	}
	struct {
		const char *opt;
		const char *text;
		uint64_t *dst;
	} durs[] = {
		{ "--interval", a->interval, &c->interval_ns },
		{ "--timeout", a->timeout, &c->timeout_ns },
		{ "--wait", a->wait, &c->connect_wait_ns },
		{ "--linger", a->linger, &c->linger_ns },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(durs); i++) {
		if (!durs[i].text)
			continue;
		char err[128];
		if (cli_parse_duration(durs[i].text, &u, err, sizeof(err)))
			return bad(prog, durs[i].opt, durs[i].text, "a duration like 10s or 250ms");
		*durs[i].dst = u;
	}
	return 0;
}

/* The seeds: the data pattern's, and the core's randomness. */
static int seeds(const char *prog, const node_args *a, node_config *c)
{
	unsigned long long u;
	if (a->data_seed) {
		if (cli_parse_u64(a->data_seed, &u))
			return bad(prog, "--data-seed", a->data_seed, "an unsigned integer");
		c->data_seed = u;
	}
	/* the system id's two random bytes must differ between two nodes on one device (same
	 * MAC), so by default the core's seed differs per process */
	c->seed = (uint64_t)g_get_monotonic_time() ^ ((uint64_t)getpid() << 32);
	if (a->seed) {
		if (cli_parse_u64(a->seed, &u))
			return bad(prog, "--seed", a->seed, "an unsigned integer");
		c->seed = u;
	}
	return 0;
}

/* The core's settings: buffer sizes, SMC-Rv2 with a UEID, the host name (the stack's). */
static int core_settings(const char *prog, const node_args *a, node_config *c)
{
	struct {
		const char *opt;
		const char *text;
		uint32_t *dst;
	} sizes[] = {
		{ "--rmbsize", a->rmb, &c->core.rmb_size },
		{ "--sndbufsize", a->sndbuf, &c->core.sndbuf_size },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
		const char *why;
		uint64_t v;
		if (!sizes[i].text)
			continue;
		if (!scn_parse_size(sizes[i].text, &v, &why) || v < 16384 || v > (512u << 20))
			return bad(prog, sizes[i].opt, sizes[i].text, "a size from 16K to 512M");
		*sizes[i].dst = (uint32_t)v;
	}
	if (a->v2) {
		size_t n = strlen(a->v2);
		if (!n || n > SMCR_EID_LEN)
			return bad(prog, "--v2", a->v2, "a UEID of 1 to 32 characters");
		memset(c->core.ueids[0], ' ', SMCR_EID_LEN);
		memcpy(c->core.ueids[0], a->v2, n);
		c->core.n_ueids = 1;
		c->core.v2 = true;
	}
	if (a->name)
		snprintf(c->name, sizeof(c->name), "%s", a->name);
	memset(c->core.hostname, ' ', SMCR_HOSTNAME_LEN);
	memcpy(c->core.hostname, c->name, strlen(c->name) < SMCR_HOSTNAME_LEN ? strlen(c->name) : SMCR_HOSTNAME_LEN);
	return 0;
}

static int options(const char *prog, const node_args *a, node_config *c, bool *json)
{
	int rc = where_and_what(prog, a, c);
	if (!rc)
		rc = amounts(prog, a, c);
	if (!rc)
		rc = seeds(prog, a, c);
	if (!rc)
		rc = core_settings(prog, a, c);
	if (rc)
		return rc;
	*json = false;
	if (a->format) {
		if (!strcmp(a->format, "json"))
			*json = true;
		else if (strcmp(a->format, "text"))
			return bad(prog, "--format", a->format, "text or json");
	}
	return 0;
}

typedef struct json_extra {
	const node_config *cfg;
	const node_result *res;
	int rc;
	const char *err;
} json_extra;

static void write_extra(json_writer *w, void *ctx)
{
	const json_extra *x = ctx;
	json_key(w, "node");
	json_begin_object(w);
	json_kv_str(w, "role", x->cfg->server ? "server" : "client");
	json_kv_str(w, "device", x->cfg->dev);
	json_kv_uint(w, "connections_done", x->res->conns);
	json_kv_uint(w, "smcr", x->res->smcr);
	json_kv_uint(w, "fallback", x->res->fallback);
	json_kv_uint(w, "failed", x->res->failed);
	json_kv_uint(w, "bytes_sent", x->res->bytes_sent);
	json_kv_uint(w, "bytes_received", x->res->bytes_received);
	json_kv_uint(w, "bytes_verified", x->res->bytes_verified);
	json_kv_bool(w, "content_ok", !x->res->content_bad);
	json_kv_bool(w, "ok", x->rc == 0);
	if (x->err && x->err[0])
		json_kv_str(w, "error", x->err);
	json_end_object(w);
}

static void print_text(const node_config *c, const node_result *res, const smcr_report *r)
{
	double mib = (double)(c->server ? res->bytes_received : res->bytes_sent) / 1048576.0;
	printf("node %s (%s, %s): %u of %u connection(s) done (SMC-R %u, fallback %u, failed %u)\n", c->name,
	       c->server ? "server" : "client", c->dev[0] ? c->dev : "no RDMA device", res->conns, c->conns, res->smcr,
	       res->fallback, res->failed);
	printf("  sent %" PRIu64 " bytes, received %" PRIu64 " (%" PRIu64 " verified)%s\n", res->bytes_sent,
	       res->bytes_received, res->bytes_verified, res->content_bad ? ", CONTENT MISMATCH" : "");
	if (res->fallback)
		printf("  fallback reason 0x%08" PRIx32 " (%s)\n", res->last_reason, smcr_decline_name(res->last_reason));
	if (res->data_seconds > 0)
		printf("  data: %.3f s, %.1f MiB/s payload\n", res->data_seconds, mib / res->data_seconds);
	if (r->n_lgrs || res->conns) {
		printf("\n");
		report_print_smc(stdout, r);
	}
}

/* The node's run and its summary and report; the exit code. */
static int run(const char *prog, const node_args *a)
{
	node_config c;
	node_config_default(&c);
	bool json = false;
	int rc = options(prog, a, &c, &json);
	if (rc)
		return rc;
	c.log = a->verbose ? stderr : NULL;
	smcr_report r;
	report_init(&r);
	node_result res;
	memset(&res, 0, sizeof(res));
	char err[1024] = "";
	rc = node_run(&c, &r, &res, err, sizeof(err));
	if (rc < 0 && !r.n_stacks) {
		fprintf(stderr, "%s: %s\n", prog, err);
		report_free(&r);
		return 2;
	}
	if (json) {
		json_extra x = { &c, &res, rc, err };
		report_print_json(stdout, &r, write_extra, &x);
	} else {
		print_text(&c, &res, &r);
	}
	if (rc)
		fprintf(stderr, "%s: %s\n", prog, err[0] ? err : "failed");
	report_free(&r);
	return rc == 0 ? 0 : rc < 0 ? 2
	                            : 1;
}

int cmd_node(int argc, char **argv)
{
	node_args a;
	memset(&a, 0, sizeof(a));
	GOptionEntry entries[] = {
		{ "listen", 0, 0, G_OPTION_ARG_STRING, &a.listen, "be the server: accept on this TCP port", "[ADDR:]PORT" },
		{ "connect", 0, 0, G_OPTION_ARG_STRING, &a.connect, "be the client: connect to this node", "ADDR:PORT" },
		{ "dev", 0, 0, G_OPTION_ARG_STRING, &a.dev,
		  "RDMA device for the QPs (without it every connection falls back to TCP)", "DEV[:PORT][@A.B.C.D]" },
		{ "app", 0, 0, G_OPTION_ARG_STRING, &a.app, "bulk (server: sink, checks) or echo (default bulk)", "KIND" },
		{ "bytes", 0, 0, G_OPTION_ARG_STRING, &a.bytes, "client: bytes per connection (default 64M)", "SIZE" },
		{ "conns", 0, 0, G_OPTION_ARG_STRING, &a.conns, "connections to open / to serve (default 1)", "N" },
		{ "interval", 0, 0, G_OPTION_ARG_STRING, &a.interval, "client: between connections (default 0)", "TIME" },
		{ "data-seed", 0, 0, G_OPTION_ARG_STRING, &a.data_seed, "the data pattern; equal on both ends (default 1)", "N" },
		{ "seed", 0, 0, G_OPTION_ARG_STRING, &a.seed, "the core's randomness (default: per process)", "N" },
		{ "v2", 0, 0, G_OPTION_ARG_STRING, &a.v2, "also offer/accept SMC-Rv2 with this UEID (default: v1 only)", "UEID" },
		{ "rmbsize", 0, 0, G_OPTION_ARG_STRING, &a.rmb, "receive buffer per connection (default 64K)", "SIZE" },
		{ "sndbufsize", 0, 0, G_OPTION_ARG_STRING, &a.sndbuf, "send buffer per connection (default 64K)", "SIZE" },
		{ "timeout", 0, 0, G_OPTION_ARG_STRING, &a.timeout, "fail after this much time (default 300s)", "TIME" },
		{ "wait", 0, 0, G_OPTION_ARG_STRING, &a.wait, "client: retry a refused connect this long (default 30s)", "TIME" },
		{ "linger", 0, 0, G_OPTION_ARG_STRING, &a.linger,
		  "keep the link group serving this long after the last close (default 2s)", "TIME" },
		{ "name", 0, 0, G_OPTION_ARG_STRING, &a.name, "the stack's name in reports (default node)", "NAME" },
		{ "format", 'f', 0, G_OPTION_ARG_STRING, &a.format, "final report: text (smc-tools style) or json", "text|json" },
		{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &a.verbose, "event log on stderr", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	cli_options opts = {
		.params = "- one SMC-R stack on a real device, CLC over kernel TCP",
		.entries = entries,
		.description =
		        "Two nodes, usually on two hosts, connect over kernel TCP and run the CLC handshake as the first\n"
		        "bytes of the stream (both ends are configured for SMC: kernel TCP cannot carry the SMC option);\n"
		        "their QPs then connect over the real fabric. Example on two Soft-RoCE hosts:\n"
		        "  host A:  smcr-sim node --listen 7100 --dev rxe0 --conns 3\n"
		        "  host B:  smcr-sim node --connect 10.0.0.1:7100 --dev rxe0 --conns 3 --bytes 64M\n"
		        "Every byte is checked. Prints a summary and the final report. Exit 0 when every connection\n"
		        "completed intact, 1 when one failed, 2 for bad options or when the node cannot run.",
	};
	int rc = cli_parse_options(&opts, &argc, &argv);
	if (!rc && argc > 1) {
		fprintf(stderr, "%s: unexpected argument '%s' (try --help)\n", argv[0], argv[1]);
		rc = 2;
	}
	if (!rc)
		rc = run(argv[0], &a);
	free_args(&a);
	return rc;
}
