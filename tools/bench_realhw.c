/* bench realhw: the payload throughput of one SMC-R connection whose QPs are real, and —
 * when perftest is installed — ib_write_bw on the same device pair, side by side.
 *
 * Two ways to run the connection (--mode):
 *   one    the world of `smcr-sim run --real-hw`: two simulated stacks in this process,
 *          CLC over simulated TCP, the SMC-R core on libibverbs, one real-time engine in
 *          one thread (sender, receiver, CDC handling and the check share a CPU). The
 *          connection is a scenario `bulk` of --bytes to a `sink` that checks every byte.
 *   split  two processes, as ib_write_bw runs: a `smcr-sim node` server (sim/smc/node.h) on
 *          --dev2 that reads and checks every byte, and a node client on --dev that writes
 *          them; CLC over kernel TCP on 127.0.0.1.
 * Either way the time runs from the application's connect (the CLC handshake done) to its
 * close (all data written, read and checked, the peer's close seen). Runs alternate with
 * ib_write_bw (one QP, --size byte writes, tx-depth 128, as perftest does by default) and
 * the best of each is reported: on a loaded or emulated host one run is noise. */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/smc/node.h"
#include "sim/smc/realhw_map.h"
#include "sim/rdma/gid_table.h"
#include "sim/scenario/scn_values.h"
#include "sim/rdma/verbs_transport.h"
#include "sim/world/world.h"
#include "tools/bench.h"
#include "tools/cli.h"

static const char scenario_fmt[] =
	"scenario \"bench realhw: one bulk connection\"\n"
	"seed 1\n"
	"switch SW1\n"
	"adapter RA pfid=0001 switch=SW1\n"
	"adapter RB pfid=0002 switch=SW1\n"
	"stack A personality=linux\n"
	"  interface eth0 switch=SW1 ip=192.168.1.1/24\n"
	"  smcr pfid=0001\n"
	"  smcr rmbsize=%" PRIu64 " sndbufsize=%" PRIu64 "\n"
	"end\n"
	"stack B personality=linux\n"
	"  interface eth0 switch=SW1 ip=192.168.1.2/24\n"
	"  smcr pfid=0002\n"
	"  smcr rmbsize=%" PRIu64 " sndbufsize=%" PRIu64 "\n"
	"end\n"
	"app sink B listen port=5000 kind=sink\n"
	"app bulk A connect B:5000 kind=bulk bytes=%" PRIu64 "\n"
	"expect mode bulk == SMCR\n"
	"expect delivered bulk == %" PRIu64 "\n";

/* One run: MiB/s of payload, or < 0 on failure (message printed). */
static double run_once(const scn_scenario *scn, const realhw_map *map, uint64_t bytes)
{
	world_opts o;
	world_opts_default(&o);
	o.real_hw = map;
	o.quiet = true;
	o.out = stderr; /* failed expectations */
	char err[1024];
	world *w = world_new(scn, &o, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "bench realhw: %s\n", err);
		return -1;
	}
	uint64_t failed = world_run(w);
	uint64_t t0, t1;
	bool span = world_app_span(w, "bulk", &t0, &t1);
	world_free(w);
	if (failed || !span || t1 <= t0) {
		fprintf(stderr, "bench realhw: the connection did not complete on SMC-R with every byte intact\n");
		return -1;
	}
	return (double)bytes / ((double)(t1 - t0) / 1e9) / 1048576.0;
}

/* A node in a child process; its result comes back through *rfd. */
static pid_t spawn_node(const node_config *c, int *rfd)
{
	int p[2];
	if (pipe(p)) {
		perror("bench realhw: pipe");
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		perror("bench realhw: fork");
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		node_result res;
		memset(&res, 0, sizeof(res));
		char err[1024] = "";
		int rc = node_run(c, NULL, &res, err, sizeof(err));
		if (rc)
			fprintf(stderr, "bench realhw: %s on %s: %s\n", c->server ? "server" : "client", c->dev, err);
		ssize_t k = write(p[1], &res, sizeof(res));
		_exit(rc == 0 && k == (ssize_t)sizeof(res) ? 0 : 1);
	}
	close(p[1]);
	*rfd = p[0];
	return pid;
}

/* The child's result; false when it failed or said nothing. */
static bool reap_node(pid_t pid, int fd, node_result *res)
{
	size_t got = 0;
	while (got < sizeof(*res)) {
		ssize_t k = read(fd, (char *)res + got, sizeof(*res) - got);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0)
		;
	return got == sizeof(*res) && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* One run in two processes: MiB/s of payload from the client's connect to its close (it
 * closes after the server's close, which follows the server's check of the last byte). */
static double run_split(const char *dev_a, const char *dev_b, int port, uint64_t bytes, uint64_t rmb, uint64_t snd,
                        uint16_t tcp_port, uint64_t seed)
{
	node_config s, c;
	node_config_default(&s);
	s.server = true;
	snprintf(s.host, sizeof(s.host), "127.0.0.1");
	s.port = tcp_port;
	snprintf(s.dev, sizeof(s.dev), "%s", dev_b);
	s.dev_port = (uint8_t)port;
	s.core.rmb_size = (uint32_t)rmb;
	s.core.sndbuf_size = (uint32_t)snd;
	s.timeout_ns = 300 * SIM_S;
	s.linger_ns = 300 * SIM_MS; /* the last CDC messages of the close; not timed */
	s.seed = seed;
	snprintf(s.name, sizeof(s.name), "server");
	c = s;
	c.server = false;
	snprintf(c.dev, sizeof(c.dev), "%s", dev_a);
	c.bytes = bytes;
	c.connect_wait_ns = 10 * SIM_S;
	c.seed = seed + 1; /* the system ids of two nodes on one device must differ */
	snprintf(c.name, sizeof(c.name), "client");
	int fd_s, fd_c;
	pid_t ps = spawn_node(&s, &fd_s);
	if (ps < 0)
		return -1;
	pid_t pc = spawn_node(&c, &fd_c);
	if (pc < 0) {
		kill(ps, SIGTERM);
		node_result ignored;
		reap_node(ps, fd_s, &ignored);
		return -1;
	}
	node_result rs, rc;
	bool ok_c = reap_node(pc, fd_c, &rc);
	if (!ok_c)
		kill(ps, SIGTERM); /* it would wait for its timeout */
	bool ok_s = reap_node(ps, fd_s, &rs);
	if (!ok_c || !ok_s || rc.smcr != 1 || rs.smcr != 1 || rs.bytes_verified != bytes || rs.content_bad ||
	    rc.bytes_sent != bytes || rc.data_seconds <= 0) {
		fprintf(stderr, "bench realhw: the two-process connection did not complete on SMC-R with every byte intact\n");
		return -1;
	}
	return (double)bytes / rc.data_seconds / 1048576.0;
}

/* The GID index of a device's first IPv4-mapped RoCE v2 GID (for ib_write_bw -x). */
static int gid_index(const char *dev, int port)
{
	verbs_transport *vt = verbs_transport_new(NULL, NULL);
	smcr_tp_dev *d = verbs_dev_open(vt, dev);
	smcr_port_desc pd;
	int idx = -1;
	if (d && verbs_dev_port(vt, d, (uint8_t)port, &pd) == 0) {
		int g = roce_gid_select(&pd, SMCR_GID_ROCE_V2, 0, 0, 0);
		if (g >= 0)
			idx = pd.gids[g].index;
	}
	verbs_transport_free(vt);
	return idx;
}

int bench_realhw(int argc, char **argv)
{
	gchar *dev = NULL, *dev2 = NULL, *bytes_s = NULL, *rmb_s = NULL, *snd_s = NULL, *mode_s = NULL;
	gint port = 1, tcp_port = 18520;
	gint64 repeat = 3, size = 65536;
	gboolean no_compare = FALSE;
	GOptionEntry entries[] = {
		{ "dev", 'd', 0, G_OPTION_ARG_STRING, &dev, "RDMA device of the sending stack (rxe0)", "NAME" },
		{ "dev2", 0, 0, G_OPTION_ARG_STRING, &dev2, "device of the receiving stack (default: --dev)", "NAME" },
		{ "port", 'i', 0, G_OPTION_ARG_INT, &port, "port on both devices (1)", "N" },
		{ "bytes", 'b', 0, G_OPTION_ARG_STRING, &bytes_s, "payload of the connection (128M)", "SIZE" },
		{ "rmbsize", 0, 0, G_OPTION_ARG_STRING, &rmb_s, "receive buffer (1M; Linux default 64K)", "SIZE" },
		{ "sndbufsize", 0, 0, G_OPTION_ARG_STRING, &snd_s, "send buffer (1M)", "SIZE" },
		{ "size", 's', 0, G_OPTION_ARG_INT64, &size, "ib_write_bw: bytes per RDMA WRITE (65536, its default)", "BYTES" },
		{ "repeat", 'r', 0, G_OPTION_ARG_INT64, &repeat, "alternating runs of each; the best is reported (3)", "N" },
		{ "mode", 'm', 0, G_OPTION_ARG_STRING, &mode_s,
		  "one (both stacks in this process, as run --real-hw), split (a node per process, as ib_write_bw) "
		  "or both (default one)", "MODE" },
		{ "tcp-port", 0, 0, G_OPTION_ARG_INT, &tcp_port, "split: the nodes' CLC port on 127.0.0.1 (18520)", "PORT" },
		{ "no-compare", 0, 0, G_OPTION_ARG_NONE, &no_compare, "do not run ib_write_bw", NULL },
		{ NULL },
	};
	cli_options opts = { .params = "- one SMC-R connection on real devices beside ib_write_bw", .entries = entries };
	int rc = 2;
	if (cli_parse_options(&opts, &argc, &argv))
		goto out_args;
	uint64_t bytes = 128ull << 20, rmb = 1u << 20, snd = 1u << 20;
	const char *why;
	if ((bytes_s && !scn_parse_size(bytes_s, &bytes, &why)) || (rmb_s && !scn_parse_size(rmb_s, &rmb, &why)) ||
	    (snd_s && !scn_parse_size(snd_s, &snd, &why)) || bytes == 0 || argc > 1 || repeat <= 0 || size <= 0 ||
	    port < 1 || port > 255 || tcp_port < 1 || tcp_port > 65535) {
		fprintf(stderr, "%s: bad options (sizes like 128M, repeat > 0, port 1..255; see --help)\n", argv[0]);
		goto out_args;
	}
	bool one = true, split = false;
	if (mode_s && !strcmp(mode_s, "split")) {
		one = false;
		split = true;
	} else if (mode_s && !strcmp(mode_s, "both")) {
		split = true;
	} else if (mode_s && strcmp(mode_s, "one")) {
		fprintf(stderr, "%s: bad --mode '%s'; expected one, split or both\n", argv[0], mode_s);
		goto out_args;
	}
	const char *name_a = dev ? dev : "rxe0", *name_b = dev2 ? dev2 : name_a;
	char map_text[160], err[1024];
	snprintf(map_text, sizeof(map_text), "0001=%s:%d,0002=%s:%d", name_a, port, name_b, port);
	realhw_map map;
	if (realhw_map_parse(map_text, &map, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		goto out_args;
	}
	char *text = g_strdup_printf(scenario_fmt, rmb, snd, rmb, snd, bytes, bytes);
	scn_diag diag;
	scn_diag_init(&diag);
	scn_scenario *scn = scn_load_string("bench-realhw.scn", text, strlen(text), &diag);
	if (!scn) {
		scn_diag_print(&diag, stderr); /* rmbsize out of range, … */
		scn_diag_free(&diag);
		g_free(text);
		goto out_args;
	}
	scn_diag_free(&diag);
	char sz_b[32], sz_r[32], sz_s[32];
	printf("bench realhw: one SMC-R connection %s → %s port %d, bulk %s (every byte checked), RMB %s, send buffer %s, "
	       "%s, best of %" G_GINT64_FORMAT " alternating runs\n",
	       name_a, name_b, port, scn_format_size(bytes, sz_b, sizeof(sz_b)), scn_format_size(rmb, sz_r, sizeof(sz_r)),
	       scn_format_size(snd, sz_s, sizeof(sz_s)),
	       one && split ? "in one process and in two" : one ? "both stacks in one process" : "one stack per process",
	       repeat);
	char *ibw = no_compare ? NULL : g_find_program_in_path("ib_write_bw");
	int gid_a = ibw ? gid_index(name_a, port) : -1, gid_b = ibw ? gid_index(name_b, port) : -1;
	int64_t iters = (int64_t)(bytes / (uint64_t)size);
	if (iters < 1)
		iters = 1;
	double best = 0, best_split = 0, best_ref = 0;
	rc = 1;
	for (gint64 k = 0; k < repeat; k++) {
		printf("  run %" G_GINT64_FORMAT ":", k + 1);
		if (one) {
			double mib = run_once(scn, &map, bytes);
			if (mib < 0) {
				printf(" failed\n");
				goto out;
			}
			if (mib > best)
				best = mib;
			printf(" SMC-R one process %.1f MiB/s", mib);
		}
		if (split) {
			fflush(stdout);
			double mib = run_split(name_a, name_b, port, bytes, rmb, snd, (uint16_t)tcp_port, 2 * (uint64_t)k + 1);
			if (mib < 0) {
				printf(" failed\n");
				goto out;
			}
			if (mib > best_split)
				best_split = mib;
			printf("%s SMC-R two processes %.1f MiB/s", one ? "," : "", mib);
		}
		if (ibw && gid_a >= 0 && gid_b >= 0) {
			double ref = bench_ib_write_bw(ibw, name_a, name_b, port, gid_a, gid_b, size, iters, 128);
			if (ref > best_ref)
				best_ref = ref;
			if (ref > 0)
				printf(", ib_write_bw %.1f MiB/s", ref);
			else
				printf(", ib_write_bw no result");
		}
		printf("\n");
		fflush(stdout);
	}
	if (one) {
		printf("  SMC-R connection, one process (payload):    %9.1f MiB/s", best);
		if (ibw && best_ref > 0)
			printf("  → ratio %.2f", best / best_ref);
		printf("\n");
	}
	if (split) {
		printf("  SMC-R connection, two processes (payload):  %9.1f MiB/s", best_split);
		if (ibw && best_ref > 0)
			printf("  → ratio %.2f", best_split / best_ref);
		printf("\n");
	}
	if (ibw && best_ref > 0)
		printf("  ib_write_bw (perftest, two processes):      %9.1f MiB/s\n", best_ref);
	else if (ibw)
		printf("  ib_write_bw (perftest):                     no result\n");
	else if (!no_compare)
		printf("  ib_write_bw (perftest):                     not installed (apt-get install perftest)\n");
	rc = 0;
out:
	g_free(ibw);
	scn_free(scn);
	g_free(text);
out_args:
	g_free(dev);
	g_free(dev2);
	g_free(bytes_s);
	g_free(rmb_s);
	g_free(snd_s);
	g_free(mode_s);
	return rc;
}
