/* bench realhw's two-process run (see realhw_split.h). */
#include "sim/bench/realhw_split.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/engine/engine.h"
#include "sim/node/node.h"

/* A node in a child process; its result comes back through *rfd. */
static pid_t spawn_node(const node_config *c, int *rfd, FILE *log)
{
	int p[2];
	if (pipe(p)) {
		fprintf(log, "bench realhw: pipe: %s\n", strerror(errno));
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(log, "bench realhw: fork: %s\n", strerror(errno));
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
			fprintf(log, "bench realhw: %s on %s: %s\n", c->server ? "server" : "client", c->dev, err);
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

/* Whether the child behind fd ends (says its result or closes the pipe) within ms: a
 * node that failed on its own has said why on log by then. */
static bool ends_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, ms) > 0;
}

static void configs(const realhw_split_params *p, node_config *s, node_config *c)
{
	node_config_default(s);
	s->server = true;
	snprintf(s->host, sizeof(s->host), "127.0.0.1");
	s->port = p->tcp_port;
	snprintf(s->dev, sizeof(s->dev), "%s", p->dev_b);
	s->dev_port = (uint8_t)p->port;
	s->core.rmb_size = (uint32_t)p->rmb;
	s->core.sndbuf_size = (uint32_t)p->sndbuf;
	s->timeout_ns = 300 * SIM_S;
	s->linger_ns = 300 * SIM_MS; /* the last CDC messages of the close; not timed */
	s->seed = p->seed;
	snprintf(s->name, sizeof(s->name), "server");
	*c = *s;
	c->server = false;
	snprintf(c->dev, sizeof(c->dev), "%s", p->dev_a);
	c->bytes = p->bytes;
	c->connect_wait_ns = 10 * SIM_S;
	c->seed = p->seed + 1; /* the system ids of two nodes on one device must differ */
	snprintf(c->name, sizeof(c->name), "client");
}

double realhw_split_run(const realhw_split_params *p, FILE *log)
{
	node_config s, c;
	configs(p, &s, &c);
	int fd_s, fd_c;
	pid_t ps = spawn_node(&s, &fd_s, log);
	if (ps < 0)
		return -1;
	pid_t pc = spawn_node(&c, &fd_c, log);
	if (pc < 0) {
		kill(ps, SIGTERM);
		node_result ignored;
		reap_node(ps, fd_s, &ignored);
		return -1;
	}
	node_result rs, rc;
	bool ok_c = reap_node(pc, fd_c, &rc);
	if (!ok_c && !ends_within(fd_s, 1000))
		kill(ps, SIGTERM); /* it would wait for its timeout */
	bool ok_s = reap_node(ps, fd_s, &rs);
	if (!ok_c || !ok_s || rc.smcr != 1 || rs.smcr != 1 || rs.bytes_verified != p->bytes || rs.content_bad ||
	    rc.bytes_sent != p->bytes || rc.data_seconds <= 0) {
		fprintf(log, "bench realhw: the two-process connection did not complete on SMC-R with every byte intact\n");
		return -1;
	}
	return (double)p->bytes / rc.data_seconds / 1048576.0;
}
