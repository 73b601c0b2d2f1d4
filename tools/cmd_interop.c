/* `smcr-sim interop client|server`: the options of the run against a real SMC-R peer
 * (sim/interop/interop_run.h), which prints what it saw one fact per line. Exit 0 when
 * every connection ran on SMC-R with its data verified both ways and closed in order, 1
 * otherwise, 2 for bad options. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "model/smcr.h"
#include "sim/engine/engine.h"
#include "sim/interop/interop_run.h"
#include "sim/scenario/scn_kernel.h"
#include "sim/scenario/scn_values.h"
#include "tools/cli.h"

typedef struct interop_args {
	gchar *ifname, *ip, *mac, *pnet, *hostname, *peer, *bytes, *wait, *timeout, *linger, *testlink, *after, *fail_after,
	        *fail_cmd, *kernel;
	gchar **ueids, **devs;
	gint port, conns, release, max_links, max_conns;
	gboolean v1, verbose, end_lgr;
} interop_args;

static void args_free(interop_args *a)
{
	gchar **all[] = { &a->ifname, &a->ip, &a->mac, &a->pnet, &a->hostname, &a->peer, &a->bytes, &a->wait, &a->timeout,
		          &a->linger, &a->testlink, &a->after, &a->fail_after, &a->fail_cmd, &a->kernel };
	for (size_t i = 0; i < G_N_ELEMENTS(all); i++)
		g_free(*all[i]);
	g_strfreev(a->devs);
	g_strfreev(a->ueids);
}

static int usage_error(const char *prog, const char *what)
{
	fprintf(stderr, "%s: %s (try --help)\n", prog, what);
	return 2;
}

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

/* The role, the addresses and the MAC (default 02:53:4d:43:00:<last byte of the IP>). */
static int addresses(const char *prog, const interop_args *a, int argc, char **argv, interop_config *c)
{
	if (argc != 2 || (strcmp(argv[1], "client") && strcmp(argv[1], "server")))
		return usage_error(prog, "say client or server");
	c->role = argv[1];
	c->server = !strcmp(c->role, "server");
	if (!a->ifname || !a->ip || !a->devs || !a->devs[0] || !a->ueids || !a->ueids[0])
		return usage_error(prog, "--ifname, --ip, --dev and --ueid are required");
	if (parse_prefix(a->ip, &c->ip, &c->plen))
		return usage_error(prog, "bad --ip; expected A.B.C.D/N");
	if (!c->server && (!a->peer || parse_prefix(a->peer, &c->peer, &(uint8_t){ 0 })))
		return usage_error(prog, "a client needs --peer A.B.C.D");
	if (a->mac) {
		if (!scn_parse_mac(a->mac, c->mac, &(const char *){ NULL }))
			return usage_error(prog, "bad --mac; expected XX:XX:XX:XX:XX:XX");
	} else {
		const uint8_t def[6] = { 0x02, 0x53, 0x4d, 0x43, 0x00, (uint8_t)c->ip };
		memcpy(c->mac, def, 6);
	}
	c->ifname = a->ifname;
	c->ip_text = a->ip;
	return 0;
}

static int duration(const char *text, uint64_t *out)
{
	unsigned long long v;
	char err[128];
	if (text && cli_parse_duration(text, &v, err, sizeof(err)))
		return -1;
	if (text)
		*out = v;
	return 0;
}

/* Sizes, counts and times. */
static int amounts(const char *prog, const interop_args *a, interop_config *c)
{
	if (a->release > 1 || a->release < -1)
		return usage_error(prog, "--release is 0 or 1");
	c->release = a->release;
	if ((a->max_links != -1 && (a->max_links < 1 || a->max_links > 2)) ||
	    (a->max_conns != -1 && (a->max_conns < 16 || a->max_conns > 255)))
		return usage_error(prog, "--max-links is 1..2, --max-conns 16..255");
	c->max_links = a->max_links;
	c->max_conns = a->max_conns;
	if (a->kernel) {
		/* the Linux kernel presets (sim/scenario/scn_kernel.c) */
		scn_kernel k;
		const char *why;
		if (!scn_kernel_parse(a->kernel, &k, &why))
			return usage_error(prog, why);
		scn_kernel_values kv;
		scn_kernel_values_for(k, &kv);
		if (!kv.smcr_v2)
			return usage_error(prog, "--kernel: that kernel has no SMC-Rv2 (5.16 or later), and rxe no RoCE v1");
		if (c->release < 0)
			c->release = kv.release;
		c->kernel_values = true;
		c->feature_mask = kv.feature_mask;
		c->rmbe_max_code = kv.rmbe_max_code;
		c->autocorking_size = kv.autocork;
	}
	if ((a->bytes && !scn_parse_size(a->bytes, &c->bytes, &(const char *){ NULL })) || a->conns < 1 || a->conns > 64 ||
	    a->port < 1 || a->port > 65535)
		return usage_error(prog, "bad --bytes, --conns (1..64) or --port");
	c->conns = (unsigned)a->conns;
	c->port = (uint16_t)a->port;
	if (duration(a->wait, &c->wait_ns) || duration(a->timeout, &c->timeout_ns) || duration(a->linger, &c->linger_ns))
		return usage_error(prog, "bad --wait, --timeout or --linger; expected a duration like 10s");
	/* the scenario's `smcr testlink` range: 0 (off) .. 1 h */
	if (duration(a->testlink, &c->testlink_ns) || c->testlink_ns > 3600 * SIM_S)
		return usage_error(prog, "bad --testlink; expected a duration from 0 (off) to 1h");
	if (duration(a->after, &c->after_ns))
		return usage_error(prog, "bad --after; expected a duration like 10s");
	if ((a->fail_after && !scn_parse_size(a->fail_after, &c->fail_after, &(const char *){ NULL })) ||
	    (!a->fail_after != !a->fail_cmd))
		return usage_error(prog, "--fail-after SIZE and --fail-cmd CMD go together");
	c->fail_cmd = a->fail_cmd;
	return 0;
}

/* --dev N becomes PFID 0001+N: the first device is tried first for a connection's first
 * link, the others are alternates for a second link (same PNET id). */
static int devices(const char *prog, const interop_args *a, interop_config *c)
{
	size_t n_devs = g_strv_length(a->devs);
	if (n_devs > INTEROP_MAX_DEVS)
		return usage_error(prog, "at most 4 --dev");
	GString *map_text = g_string_new(NULL);
	for (size_t i = 0; i < n_devs; i++)
		g_string_append_printf(map_text, "%s%04x=%s", i ? "," : "", (unsigned)(INTEROP_PFID + i), a->devs[i]);
	char err[512];
	int map_rc = realhw_map_parse(map_text->str, &c->map, err, sizeof(err));
	g_string_free(map_text, TRUE);
	if (map_rc || c->map.n != n_devs) {
		fprintf(stderr, "%s: bad --dev: %s\n", prog, err);
		return 2;
	}
	c->pnet = a->pnet ? a->pnet : "SIMNET";
	for (size_t i = 0; i < c->map.n; i++)
		snprintf(c->map.port[i].pnet_id, sizeof(c->map.port[i].pnet_id), "%s", c->pnet);
	return 0;
}

/* The options as a config (its strings point into a and argv); 0 or 2. */
static int config_of(const char *prog, const interop_args *a, int argc, char **argv, interop_config *c)
{
	*c = (interop_config){ .bytes = 1 << 20, .wait_ns = 60 * SIM_S, .timeout_ns = 120 * SIM_S, .linger_ns = 3 * SIM_S, .testlink_ns = SMCR_TESTLINK_DEFAULT_TIME, .after_ns = a->end_lgr ? 10 * SIM_S : 0, .end_lgr = a->end_lgr, .v1 = a->v1, .verbose = a->verbose, .hostname = a->hostname ? a->hostname : "smcr-sim" };
	int rc = addresses(prog, a, argc, argv, c);
	if (!rc)
		rc = amounts(prog, a, c);
	if (!rc)
		rc = devices(prog, a, c);
	c->ueids = (const char *const *)a->ueids;
	return rc;
}

static int run(const char *prog, const interop_args *a, int argc, char **argv)
{
	interop_config c;
	int rc = config_of(prog, a, argc, argv, &c);
	if (rc)
		return rc;
	gchar *devs_text = g_strjoinv(",", a->devs);
	c.devs_text = devs_text;
	char err[512];
	rc = interop_run(&c, stdout, stderr, err, sizeof(err));
	if (err[0]) { /* it could not set up (interface, device, socket): it did not run */
		fprintf(stderr, "%s: %s\n", prog, err);
		rc = CLI_EXIT_USAGE;
	}
	g_free(devs_text);
	return rc;
}

int cmd_interop(int argc, char **argv)
{
	const char *prog = argv[0];
	interop_args a = { .port = 5000, .conns = 4, .release = -1, .max_links = -1, .max_conns = -1 };
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
		{ "kernel", 0, 0, G_OPTION_ARG_STRING, &a.kernel,
		  "play that Linux kernel's version-dependent values (release, feature mask, largest buffer, autocorking)",
		  "X.Y" },
		{ "max-links", 0, 0, G_OPTION_ARG_INT, &a.max_links, "smcr_max_links_per_lgr (1..2, default 2)", "N" },
		{ "max-conns", 0, 0, G_OPTION_ARG_INT, &a.max_conns, "smcr_max_conns_per_lgr (16..255, default 255)", "N" },
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
	int rc = cli_parse_options(&opts, &argc, &argv);
	if (!rc)
		rc = run(prog, &a, argc, argv);
	args_free(&a);
	return rc;
}
