/* `smcr-sim node`: one SMC-R stack per process, CLC on a kernel TCP connection, QPs on a
 * real device (see node.h).
 *
 * Structure, as in the simulated SMC-R layer (smc_conn.c): every call into the core is
 * bracketed by node_enter/node_leave; core callbacks only record what is to be done (bytes
 * to write, data to read, a close) and the outermost leave does it, then re-arms the
 * core's timer and checks whether the node is done. Nothing is freed inside a callback.
 * The engine runs in real time (sim/engine/realtime.h): its clock is the wall clock, the core's
 * timer is an engine event, the sockets and the device's descriptors wake the loop. */
#include "sim/node/node.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sim/smc/core_timer.h"
#include "sim/engine/engine.h"
#include "sim/node/node_report.h"
#include "sim/engine/pattern.h"
#include "sim/rdma/real_port.h"
#include "sim/engine/realtime.h"
#include "sim/engine/rng.h"
#include "sim/rdma/verbs_transport.h"
#include "sim/fabric/gid.h"
#include "sim/addr/addr_text.h"

#define NODE_CHUNK 65536u
#define NODE_MAX_CONNS 1024u
#define RETRY_NS (200 * SIM_MS)

typedef struct node node;

typedef struct nconn {
	node *n;
	uint32_t idx;         /* 1, 2, … */
	int fd;               /* -1 once closed */
	unsigned w_in, w_out; /* realtime watch ids, 0 = none */
	smcr_conn *conn;      /* the core's, NULL once freed (or never) */
	bool connecting;      /* client: connect() in progress */
	bool smc, fallen;     /* SMC-R data path / TCP data path */
	bool core_closed;     /* smcr_conn_close called */
	bool freed;           /* the core freed its connection */
	bool app_closed;      /* the application closed (SMC: asked the core; TCP: closed fd) */
	bool eof;             /* the peer's end of stream read */
	bool shut;            /* our sending side shut */
	bool failed;
	int err;
	int abort_err; /* the core's reason when it aborted the connection (cb_aborted), or 0 */
	uint32_t reason, diag;
	bool want_read, want_write, want_close; /* deferred to node_leave */
	uint8_t *out;                           /* bytes for the TCP socket not written yet */
	size_t out_len;
	uint8_t *pre; /* application bytes the core handed back at fallback */
	size_t pre_len;
	uint64_t sent, received, verified;
	bool bad;
	uint64_t t_first, t_last; /* engine ns of the first and last data byte */
} nconn;

struct node {
	node_config cfg;
	sim_engine *eng;
	sim_realtime *rt;
	verbs_transport *vt;
	smcr_tp_dev *dev;
	smcr_port_desc port; /* the device's port, described once when it is opened */
	smcr_ctx *ctx;
	int port_index; /* the core's, -1 = no device */
	unsigned dev_watch[2];
	sim_rng rng;
	sim_event timer, timeout, retry, linger;
	int listen_fd;
	unsigned listen_watch;
	nconn *conns[NODE_MAX_CONNS];
	uint32_t n_conns; /* opened (client) / accepted (server) */
	uint32_t labels;  /* connection numbers handed out (1, 2, … as they connect) */
	uint64_t t_start;
	unsigned depth;
	bool done, timed_out;
	char err[512];
};

/* ---- log ---- */

__attribute__((format(printf, 2, 3))) static void say(node *n, const char *fmt, ...)
{
	if (!n->cfg.log)
		return;
	sim_time t = sim_now(n->eng);
	fprintf(n->cfg.log, "[%4" PRIu64 ".%09" PRIu64 "] %s: ", (uint64_t)(t / SIM_S), (uint64_t)(t % SIM_S), n->cfg.name);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(n->cfg.log, fmt, ap);
	va_end(ap);
	fputc('\n', n->cfg.log);
	fflush(n->cfg.log);
}

/* ---- entering and leaving the core ---- */

static void node_enter(node *n) { n->depth++; }
static void node_leave(node *n);

static void timer_sync(node *n) { sim_core_timer_sync(n->eng, &n->timer, n->ctx); }

static void on_timer(sim_engine *eng, sim_event *ev)
{
	node *n = ev->ctx;
	node_enter(n);
	smcr_ctx_handle_expiry(n->ctx, sim_now(eng));
	node_leave(n);
}

/* ---- the TCP socket ---- */

static void on_sock_in(void *ctx, int fd);
static void on_sock_out(void *ctx, int fd);

static void unwatch(node *n, unsigned *id)
{
	if (*id)
		sim_realtime_unwatch(n->rt, *id);
	*id = 0;
}

static void sock_close(nconn *c, bool reset)
{
	if (c->fd < 0)
		return;
	unwatch(c->n, &c->w_in);
	unwatch(c->n, &c->w_out);
	if (reset) {
		struct linger lg = { 1, 0 };
		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	close(c->fd);
	c->fd = -1;
}

static void want_out(nconn *c, bool on)
{
	if (c->fd < 0)
		return;
	if (on && !c->w_out)
		c->w_out = sim_realtime_watch_fd_out(c->n->rt, c->fd, on_sock_out, c);
	else if (!on)
		unwatch(c->n, &c->w_out);
}

/* Write the queued bytes (CLC messages) as far as the socket takes them. */
static int flush_out(nconn *c)
{
	while (c->out_len && c->fd >= 0) {
		ssize_t k = send(c->fd, c->out, c->out_len, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			want_out(c, true);
			return 0;
		}
		if (k < 0)
			return -errno;
		memmove(c->out, c->out + k, c->out_len - (size_t)k);
		c->out_len -= (size_t)k;
	}
	return 0;
}

/* ---- the application ---- */

static bool client_app_done(const nconn *c)
{
	const node_config *cfg = &c->n->cfg;
	if (cfg->app == NODE_APP_ECHO)
		return c->received >= cfg->bytes;
	return c->eof; /* bulk: the server closes after our FIN */
}

static void app_close(nconn *c)
{
	if (c->app_closed)
		return;
	c->app_closed = true;
	c->t_last = sim_now(c->n->eng);
	say(c->n, "connection %u: closing (%" PRIu64 " bytes sent, %" PRIu64 " received, %" PRIu64 " verified)%s", c->idx,
	    c->sent, c->received, c->verified, c->failed ? ", after a failure" : "");
	if (c->fallen) {
		sock_close(c, false); /* the TCP connection is the application's */
		c->want_close = c->conn && !c->core_closed;
	} else {
		c->want_close = true;
	}
}

/* Bytes this end still has to write: the client its `bytes`, an echo server what it read. */
static uint64_t write_limit(const nconn *c)
{
	const node_config *cfg = &c->n->cfg;
	if (!cfg->server)
		return cfg->bytes;
	return cfg->app == NODE_APP_ECHO ? c->received : 0;
}

static void app_write(nconn *c)
{
	node *n = c->n;
	if (c->app_closed || c->failed || (!c->smc && !c->fallen))
		return;
	if (c->fallen && (flush_out(c) < 0 || c->out_len))
		return; /* the Decline goes first */
	uint8_t buf[NODE_CHUNK];
	uint64_t limit = write_limit(c);
	while (c->sent < limit) {
		size_t len = limit - c->sent < sizeof(buf) ? (size_t)(limit - c->sent) : sizeof(buf);
		pattern_fill(n->cfg.data_seed, c->sent, buf, len);
		ssize_t k;
		if (c->smc) {
			if (!c->conn)
				return;
			k = smcr_conn_send(c->conn, buf, len, 0, sim_now(n->eng));
			if (k == SMCR_ERR_AGAIN || k == 0)
				return; /* writable comes */
			if (k < 0) {
				c->failed = true;
				c->err = (int)k;
				return;
			}
		} else {
			k = send(c->fd, buf, len, MSG_NOSIGNAL);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				want_out(c, true);
				return;
			}
			if (k < 0) {
				c->failed = true;
				c->err = -errno;
				return;
			}
		}
		if (!c->t_first)
			c->t_first = sim_now(n->eng);
		c->sent += (uint64_t)k;
	}
	if (c->fallen)
		want_out(c, false);
	/* a bulk client says it is done; the server closes after reading that */
	if (!n->cfg.server && n->cfg.app == NODE_APP_BULK && c->sent == limit && !c->shut) {
		c->shut = true;
		if (c->smc && c->conn)
			smcr_conn_shutdown_write(c->conn, sim_now(n->eng));
		else if (c->fallen)
			shutdown(c->fd, SHUT_WR);
	}
}

static void take(nconn *c, const uint8_t *buf, size_t len)
{
	if (!len)
		return;
	if (!c->t_first)
		c->t_first = sim_now(c->n->eng);
	if (!c->bad) {
		size_t ok = pattern_check(c->n->cfg.data_seed, c->received, buf, len);
		c->verified += ok;
		c->bad = ok != len;
	}
	c->received += len;
}

static void app_read(nconn *c)
{
	node *n = c->n;
	if (c->app_closed || c->failed || (!c->smc && !c->fallen))
		return;
	if (c->pre_len) {
		take(c, c->pre, c->pre_len);
		free(c->pre);
		c->pre = NULL;
		c->pre_len = 0;
	}
	uint8_t buf[NODE_CHUNK];
	while (!c->eof) {
		ssize_t k;
		if (c->smc) {
			if (!c->conn)
				break;
			k = smcr_conn_recv(c->conn, buf, sizeof(buf), 0, sim_now(n->eng));
			if (k == SMCR_ERR_AGAIN)
				break;
			if (k < 0) {
				c->failed = true;
				c->err = (int)k;
				return;
			}
		} else {
			k = recv(c->fd, buf, sizeof(buf), 0);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				break;
			if (k < 0) {
				c->failed = true;
				c->err = -errno;
				return;
			}
		}
		if (k == 0) {
			c->eof = true;
			if (c->fallen)
				unwatch(n, &c->w_in); /* a closed stream stays readable */
			break;
		}
		take(c, buf, (size_t)k);
	}
	if (n->cfg.server) {
		if (n->cfg.app == NODE_APP_ECHO)
			app_write(c);
		if (c->eof && c->sent >= write_limit(c))
			app_close(c);
	} else if (client_app_done(c)) {
		app_close(c);
	}
}

/* ---- connection bookkeeping ---- */

static bool conn_finished(const nconn *c)
{
	if (c->connecting)
		return false;
	return (c->app_closed || c->failed) && (c->freed || !c->conn) && (c->fallen || c->failed || c->fd < 0);
}

static void count_lgr(void *arg, const smcr_lgr_info *li)
{
	(void)li;
	(*(uint32_t *)arg)++;
}

static void check_done(node *n)
{
	if (n->done || n->n_conns < n->cfg.conns)
		return;
	for (uint32_t i = 0; i < n->n_conns; i++)
		if (!conn_finished(n->conns[i]))
			return;
	n->done = true;
	sim_event_cancel(n->eng, &n->timeout);
	/* lingering serves the link group; without one there is nothing to wait for */
	uint32_t lgrs = 0;
	smcr_ctx_foreach_lgr(n->ctx, count_lgr, &lgrs);
	uint64_t linger = lgrs ? n->cfg.linger_ns : 0;
	say(n, "all %u connection(s) closed%s", n->n_conns, linger ? "; lingering" : "");
	sim_event_schedule(n->eng, &n->linger, sim_now(n->eng) + linger);
}

static void on_linger(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	node *n = ev->ctx;
	sim_realtime_quit(n->rt);
}

static void run_work(node *n)
{
	bool again = true;
	while (again) {
		again = false;
		for (uint32_t i = 0; i < n->n_conns; i++) {
			nconn *c = n->conns[i];
			if (c->want_read) {
				c->want_read = false;
				app_read(c);
				again = true;
			}
			if (c->want_write) {
				c->want_write = false;
				app_write(c);
				again = true;
			}
			if (c->want_close) {
				c->want_close = false;
				if (c->conn && !c->core_closed) {
					c->core_closed = true;
					smcr_conn_close(c->conn, sim_now(n->eng));
				}
				again = true;
			}
			/* also a connection that failed in its handshake (a peer's malformed CLC
			 * message): closed, the core frees it and the node is done with it, rather
			 * than waiting for --timeout */
			if (c->failed && !c->app_closed && !c->connecting) {
				app_close(c);
				again = true;
			}
		}
	}
}

static void node_leave(node *n)
{
	if (--n->depth)
		return;
	n->depth++;
	run_work(n);
	n->depth--;
	timer_sync(n);
	check_done(n);
}

static void fill_tcp_info(nconn *c, smcr_tcp_info *ti)
{
	node *n = c->n;
	memset(ti, 0, sizeof(*ti));
	ti->peer_smc = true; /* both ends are told so: see node.h */
	ti->family = 4;
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	if (getsockname(c->fd, (struct sockaddr *)&a, &al) == 0)
		ti->local_ipv4 = ntohl(a.sin_addr.s_addr);
	al = sizeof(a);
	if (getpeername(c->fd, (struct sockaddr *)&a, &al) == 0)
		ti->peer_ipv4 = ntohl(a.sin_addr.s_addr);
	ti->vlan_id = 0;
	ti->netdev_port = n->port_index; /* the one RoCE port stands for the egress interface */
	/* the egress interface's addresses: the one that owns the local address */
	struct ifaddrs *ifs = NULL;
	if (getifaddrs(&ifs) == 0) {
		const char *ifname = NULL;
		for (struct ifaddrs *i = ifs; i; i = i->ifa_next)
			if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
			    ntohl(((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr) == ti->local_ipv4)
				ifname = i->ifa_name;
		for (struct ifaddrs *i = ifs; i && ifname; i = i->ifa_next) {
			if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || strcmp(i->ifa_name, ifname) ||
			    ti->n_ipv4 == SMCR_MAX_IFADDRS)
				continue;
			uint32_t mask = i->ifa_netmask ? ntohl(((struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr) : 0;
			ti->ipv4[ti->n_ipv4].addr = ntohl(((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr);
			ti->ipv4[ti->n_ipv4].prefix_len = (uint8_t)__builtin_popcount(mask);
			ti->n_ipv4++;
		}
		freeifaddrs(ifs);
	}
}

static nconn *conn_new(node *n, int fd)
{
	if (n->n_conns == NODE_MAX_CONNS)
		return NULL;
	nconn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->n = n;
	c->fd = fd;
	n->conns[n->n_conns++] = c;
	return c;
}

/* A client connection whose connect was refused: out of the table, to be opened again. */
static void conn_forget(node *n, nconn *c)
{
	for (uint32_t i = 0; i < n->n_conns; i++) {
		if (n->conns[i] != c)
			continue;
		memmove(&n->conns[i], &n->conns[i + 1], (n->n_conns - i - 1) * sizeof(n->conns[0]));
		n->conns[--n->n_conns] = NULL;
		break;
	}
	free(c->out);
	free(c->pre);
	free(c);
}

/* The TCP connection is up: hand it to the core (CLC first, both ends). */
static void start_smc(nconn *c)
{
	node *n = c->n;
	c->idx = ++n->labels; /* numbered once connected: refused attempts do not count */
	int one = 1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->w_in = sim_realtime_watch_fd(n->rt, c->fd, on_sock_in, c);
	smcr_tcp_info ti;
	fill_tcp_info(c, &ti);
	if (!n->t_start)
		n->t_start = sim_now(n->eng);
	node_enter(n);
	int rc = n->cfg.server ? smcr_conn_accept(n->ctx, &ti, c, sim_now(n->eng), &c->conn)
	                       : smcr_conn_connect(n->ctx, &ti, c, sim_now(n->eng), &c->conn);
	if (rc) {
		c->failed = true;
		c->err = rc;
		c->freed = true;
		sock_close(c, true);
	}
	node_leave(n);
}

static void on_sock_in(void *ctx, int fd)
{
	(void)fd;
	nconn *c = ctx;
	node *n = c->n;
	node_enter(n);
	if (c->fallen) {
		c->want_read = true;
		node_leave(n);
		return;
	}
	uint8_t buf[4096];
	for (;;) {
		ssize_t k = recv(c->fd, buf, sizeof(buf), 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (k <= 0) {
			/* the peer closed or reset the TCP connection */
			unwatch(n, &c->w_in);
			if (c->conn)
				smcr_conn_tcp_closed(c->conn, k < 0, sim_now(n->eng));
			break;
		}
		if (!c->conn)
			continue; /* stray bytes after the core let go */
		ssize_t used = smcr_conn_clc_input(c->conn, buf, (size_t)k, sim_now(n->eng));
		if (used < k && c->fallen) {
			/* the core fell back: what it did not take is application data */
			size_t rest = (size_t)(k - (used > 0 ? used : 0));
			uint8_t *p = realloc(c->pre, c->pre_len + rest);
			if (p) {
				memcpy(p + c->pre_len, buf + (k - (ssize_t)rest), rest);
				c->pre = p;
				c->pre_len += rest;
			}
			c->want_read = true;
			break;
		}
		if (c->fallen || c->fd < 0)
			break;
	}
	node_leave(n);
}

static void on_sock_out(void *ctx, int fd)
{
	(void)fd;
	nconn *c = ctx;
	node *n = c->n;
	if (c->connecting) {
		c->connecting = false;
		unwatch(n, &c->w_out);
		int e = 0;
		socklen_t el = sizeof(e);
		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &el);
		if (e) {
			bool retry = (e == ECONNREFUSED || e == ETIMEDOUT || e == EHOSTUNREACH || e == ENETUNREACH) &&
			             sim_now(n->eng) < n->cfg.connect_wait_ns;
			say(n, "connect %s:%u: %s%s", n->cfg.host, (unsigned)n->cfg.port, strerror(e),
			    retry ? "; trying again" : "");
			close(c->fd);
			c->fd = -1;
			if (retry) {
				conn_forget(n, c); /* opened again later */
				sim_event_schedule(n->eng, &n->retry, sim_now(n->eng) + RETRY_NS);
			} else {
				c->failed = true;
				c->err = -e;
				c->freed = true;
				snprintf(n->err, sizeof(n->err), "connect to %s:%u: %s", n->cfg.host, (unsigned)n->cfg.port,
				         strerror(e));
				check_done(n);
			}
			return;
		}
		start_smc(c);
		return;
	}
	node_enter(n);
	if (flush_out(c) == 0 && !c->out_len)
		want_out(c, false);
	if (c->fallen)
		c->want_write = true;
	node_leave(n);
}

/* ---- client: opening connections ---- */

static void open_next(sim_engine *eng, sim_event *ev)
{
	node *n = ev->ctx;
	if (n->n_conns >= n->cfg.conns)
		return;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(n->cfg.port) };
	if (inet_pton(AF_INET, n->cfg.host, &a.sin_addr) != 1) {
		snprintf(n->err, sizeof(n->err), "'%s' is not an IPv4 address", n->cfg.host);
		n->done = true;
		sim_realtime_quit(n->rt);
		return;
	}
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	nconn *c = fd >= 0 ? conn_new(n, fd) : NULL;
	if (!c) {
		snprintf(n->err, sizeof(n->err), "socket: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		n->done = true;
		sim_realtime_quit(n->rt);
		return;
	}
	c->connecting = true;
	int rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
	if (rc == 0 || errno == EINPROGRESS)
		c->w_out = sim_realtime_watch_fd_out(n->rt, fd, on_sock_out, c);
	else
		on_sock_out(c, fd); /* reports the error, maybe retries */
	if (n->n_conns < n->cfg.conns && !sim_event_pending(&n->retry))
		sim_event_schedule(eng, &n->retry, sim_now(eng) + n->cfg.interval_ns);
}

/* ---- server: accepting ---- */

static void on_listen(void *ctx, int fd)
{
	node *n = ctx;
	for (;;) {
		int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd < 0)
			return;
		if (n->n_conns >= n->cfg.conns) {
			close(cfd); /* more than asked for */
			continue;
		}
		nconn *c = conn_new(n, cfd);
		if (!c) {
			close(cfd);
			continue;
		}
		start_smc(c);
	}
}

static int listen_on(node *n)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(n->cfg.port) };
	if (n->cfg.host[0] && inet_pton(AF_INET, n->cfg.host, &a.sin_addr) != 1) {
		snprintf(n->err, sizeof(n->err), "'%s' is not an IPv4 address", n->cfg.host);
		return -1;
	}
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 64)) {
		snprintf(n->err, sizeof(n->err), "listen on %s:%u: %s", n->cfg.host[0] ? n->cfg.host : "*",
		         (unsigned)n->cfg.port, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	n->listen_fd = fd;
	n->listen_watch = sim_realtime_watch_fd(n->rt, fd, on_listen, n);
	return 0;
}

/* ---- the core's callbacks ---- */

static nconn *of(smcr_conn *conn) { return conn ? smcr_conn_user(conn) : NULL; }

static void cb_rand(void *user, uint8_t *dst, size_t len)
{
	node *n = user;
	sim_rng_bytes(&n->rng, dst, len);
}

static int cb_clc_send(void *user, smcr_conn *conn, const uint8_t *buf, size_t len)
{
	(void)user;
	nconn *c = of(conn);
	if (!c || c->fd < 0)
		return SMCR_ERR_CLOSED;
	uint8_t *p = realloc(c->out, c->out_len + len);
	if (!p)
		return SMCR_ERR_NOMEM;
	memcpy(p + c->out_len, buf, len);
	c->out = p;
	c->out_len += len;
	return flush_out(c) < 0 ? SMCR_ERR_CLOSED : 0;
}

static void cb_established(void *user, smcr_conn *conn)
{
	node *n = user;
	nconn *c = of(conn);
	c->smc = true;
	smcr_conn_info ci;
	if (smcr_conn_get_info(conn, &ci) == 0)
		say(n, "connection %u: SMC-Rv%u, link group %08" PRIx64 ", link %08" PRIx64, c->idx, (unsigned)ci.version,
		    ci.lgr_id, ci.link_id);
	c->want_write = c->want_read = true;
}

static void cb_fallback(void *user, smcr_conn *conn, uint32_t reason, uint32_t peer_diagnosis, const uint8_t *app_data,
                        size_t app_len)
{
	node *n = user;
	nconn *c = of(conn);
	c->fallen = true;
	c->reason = reason;
	c->diag = peer_diagnosis;
	say(n, "connection %u: fallback to TCP, reason 0x%08" PRIx32 " (%s)%s", c->idx, reason, smcr_decline_name(reason),
	    peer_diagnosis ? ", the peer declined" : "");
	if (app_len) {
		uint8_t *p = realloc(c->pre, c->pre_len + app_len);
		if (p) {
			memcpy(p + c->pre_len, app_data, app_len);
			c->pre = p;
			c->pre_len += app_len;
		}
	}
	c->want_write = c->want_read = true;
	c->want_close = true; /* the core's part ends here; the TCP connection carries on */
}

static void cb_readable(void *user, smcr_conn *conn)
{
	(void)user;
	of(conn)->want_read = true;
}

static void cb_writable(void *user, smcr_conn *conn)
{
	(void)user;
	of(conn)->want_write = true;
}

static void cb_peer_closed(void *user, smcr_conn *conn)
{
	(void)user;
	of(conn)->want_read = true;
}

static void cb_tcp_control(void *user, smcr_conn *conn, smcr_tcp_action act)
{
	(void)user;
	nconn *c = of(conn);
	if (!c || c->fallen || c->fd < 0)
		return; /* after a fallback the TCP connection is the application's */
	switch (act) {
	case SMCR_TCP_SHUTDOWN:
		shutdown(c->fd, SHUT_RDWR);
		break;
	case SMCR_TCP_SHUTDOWN_WR:
		shutdown(c->fd, SHUT_WR);
		break;
	case SMCR_TCP_CLOSE:
		sock_close(c, false);
		break;
	case SMCR_TCP_ABORT:
		sock_close(c, true);
		break;
	}
}

static void cb_aborted(void *user, smcr_conn *conn, int err)
{
	node *n = user;
	nconn *c = of(conn);
	c->failed = true;
	c->err = err;
	c->abort_err = err;
	say(n, "connection %u: aborted (%s)", c->idx, smcr_strerror(err));
}

static void cb_conn_freed(void *user, smcr_conn *conn)
{
	(void)user;
	nconn *c = of(conn);
	c->conn = NULL;
	c->freed = true;
	say(c->n, "connection %u: freed by the core", c->idx);
	if (!c->fallen)
		sock_close(c, false); /* the core is done with its TCP connection */
}

static void cb_event(void *user, const smcr_event *ev)
{
	node *n = user;
	switch (ev->type) {
	case SMCR_EV_LGR_CREATED:
		say(n, "link group %08" PRIx64 " created", ev->lgr_id);
		break;
	case SMCR_EV_LINK_ADDED:
		say(n, "link %08" PRIx32 " active on %s (link group %08" PRIx64 ", QP %06" PRIx32 " -> %06" PRIx32 ")",
		    ev->link->link_uid, ev->link->ibdev, ev->lgr_id, ev->link->local_qpn, ev->link->peer_qpn);
		break;
	case SMCR_EV_LINK_DOWN:
		say(n, "link %08" PRIx32 " down: %s", ev->link->link_uid, smcr_linkdown_reason_text(ev->linkdown));
		break;
	case SMCR_EV_LGR_TERMINATED:
		say(n, "link group %08" PRIx64 " terminated", ev->lgr_id);
		break;
	case SMCR_EV_DECODE_ERROR:
	case SMCR_EV_LLC_PROTOCOL_VIOLATION:
		say(n, "protocol: %s", ev->text ? ev->text : "decode error");
		break;
	case SMCR_EV_LGR_TYPE:
	case SMCR_EV_LGR_FREED:
	case SMCR_EV_LINK_REMOVED:
	case SMCR_EV_ADD_LINK_REJECTED:
	case SMCR_EV_LLC_DROPPED:
	case SMCR_EV_CONN_STATE:
		break;
	}
}

static int cb_route(void *user, uint32_t saddr, uint32_t daddr, uint8_t nexthop_mac[6], bool *uses_gateway)
{
	(void)user;
	(void)saddr;
	(void)daddr;
	memset(nexthop_mac, 0, 6); /* the kernel routes RoCE v2 and resolves the MAC itself */
	*uses_gateway = false;
	return 0;
}

static const smcr_callbacks node_callbacks = {
	.rand = cb_rand,
	.clc_send = cb_clc_send,
	.established = cb_established,
	.fallback = cb_fallback,
	.readable = cb_readable,
	.writable = cb_writable,
	.peer_closed = cb_peer_closed,
	.tcp_control = cb_tcp_control,
	.aborted = cb_aborted,
	.conn_freed = cb_conn_freed,
	.event = cb_event,
	.route_lookup = cb_route,
};

/* ---- the device ---- */

static void on_wc(void *user, const smcr_wc *wc)
{
	node *n = user;
	node_enter(n);
	smcr_ctx_on_completion(n->ctx, wc, sim_now(n->eng));
	node_leave(n);
}

static void on_async(void *user, smcr_tp_dev *dev, uint8_t port, smcr_async_event ev, void *qp_ctx)
{
	node *n = user;
	(void)dev;
	(void)port;
	if (n->port_index < 0)
		return;
	if (ev == SMCR_EV_GID_CHANGE && real_port_gid_still_there(n->vt, smcr_ctx_port(n->ctx, (uint32_t)n->port_index)))
		return;
	node_enter(n);
	smcr_ctx_on_async_event(n->ctx, ev, (uint32_t)n->port_index, qp_ctx, sim_now(n->eng));
	node_leave(n);
}

static void on_dev_fd(void *ctx, int fd)
{
	(void)fd;
	node *n = ctx;
	verbs_dev_process(n->vt, n->dev);
}

static int open_device(node *n)
{
	n->port_index = -1;
	if (!n->cfg.dev[0])
		return 0;
	verbs_sink sink = { .completion = on_wc, .async_event = on_async };
	n->vt = verbs_transport_new(&sink, n);
	n->dev = verbs_dev_open(n->vt, n->cfg.dev);
	if (!n->dev) {
		snprintf(n->err, sizeof(n->err), "%s", verbs_transport_last_error(n->vt, NULL));
		return -1;
	}
	/* described before the core exists, so a wrong port or GID fails at once */
	real_port_opts o = { .dev_port = n->cfg.dev_port ? n->cfg.dev_port : 1, .ipv4 = n->cfg.gid_ipv4 };
	char why[512];
	if (real_port_describe(n->vt, n->dev, &o, &n->port, why, sizeof(why))) {
		snprintf(n->err, sizeof(n->err), "%s", why);
		return -1;
	}
	int fds[2];
	size_t k = verbs_dev_fds(n->dev, fds, 2);
	for (size_t i = 0; i < k && i < 2; i++)
		n->dev_watch[i] = sim_realtime_watch_fd(n->rt, fds[i], on_dev_fd, n);
	return 0;
}

static int add_port(node *n)
{
	if (!n->dev)
		return 0;
	const smcr_port_desc *d = &n->port;
	int rc = smcr_ctx_add_port(n->ctx, d, sim_now(n->eng));
	if (rc < 0) {
		snprintf(n->err, sizeof(n->err), "the core refused %s: %s", n->cfg.dev, smcr_strerror(rc));
		return -1;
	}
	n->port_index = rc;
	char mac[ADDR_TEXT_MAC_LEN], ip[ADDR_TEXT_IPV4_LEN];
	addr_text_mac(d->mac, mac, sizeof(mac));
	addr_text_ipv4(gid_ipv4(d->gids[d->n_gids - 1].gid), ip, sizeof(ip));
	say(n, "RoCE port %s:%u, MAC %s, GID ::ffff:%s, MTU %u%s", d->name, (unsigned)d->port, mac, ip,
	    smcr_mtu_bytes(d->active_mtu), d->state == SMCR_PORT_ACTIVE ? "" : " (port not active)");
	return 0;
}

/* ---- running ---- */

static void on_timeout(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	node *n = ev->ctx;
	n->timed_out = true;
	uint32_t fin = 0;
	for (uint32_t i = 0; i < n->n_conns; i++)
		fin += conn_finished(n->conns[i]);
	snprintf(n->err, sizeof(n->err), "timed out after %" PRIu64 " s with %u of %u connection(s) finished%s",
	         (uint64_t)(n->cfg.timeout_ns / SIM_S), fin, n->cfg.conns,
	         n->cfg.server && n->n_conns < n->cfg.conns ? " (is the client running?)" : "");
	sim_realtime_quit(n->rt);
}

void node_config_default(node_config *c)
{
	memset(c, 0, sizeof(*c));
	c->port = 7100;
	c->dev_port = 1;
	c->app = NODE_APP_BULK;
	c->bytes = 64ull << 20;
	c->conns = 1;
	c->data_seed = 1;
	c->seed = 1;
	c->timeout_ns = 300 * SIM_S;
	c->connect_wait_ns = 30 * SIM_S;
	c->linger_ns = 2 * SIM_S;
	smcr_settings_default(&c->core);
	c->core.v2 = false; /* v2 needs a UEID: node_config.core.n_ueids */
	snprintf(c->name, sizeof(c->name), "node");
}

static void results(node *n, node_result *res)
{
	memset(res, 0, sizeof(*res));
	uint64_t t0 = UINT64_MAX, t1 = 0;
	for (uint32_t i = 0; i < n->n_conns; i++) {
		const nconn *c = n->conns[i];
		res->bytes_sent += c->sent;
		res->bytes_received += c->received;
		res->bytes_verified += c->verified;
		res->content_bad |= c->bad;
		if (c->fallen)
			res->last_reason = c->reason;
		bool ok = c->app_closed && !c->failed && !c->bad &&
		          (n->cfg.server || n->cfg.app == NODE_APP_BULK ? c->sent == write_limit(c) : c->verified == n->cfg.bytes);
		if (n->cfg.server)
			ok = ok && c->eof && c->verified == c->received;
		if (ok) {
			res->conns++;
			res->smcr += c->smc;
			res->fallback += c->fallen;
		} else {
			res->failed++;
		}
		if (c->t_first && c->t_first < t0)
			t0 = c->t_first;
		if (c->t_last > t1)
			t1 = c->t_last;
	}
	res->failed += n->cfg.conns > n->n_conns ? n->cfg.conns - n->n_conns : 0;
	if (t0 != UINT64_MAX && t1 > t0)
		res->data_seconds = (double)(t1 - t0) / 1e9;
	if (n->t_start && t1 > n->t_start)
		res->seconds = (double)(t1 - n->t_start) / 1e9;
}

static void node_free(node *n)
{
	for (uint32_t i = 0; i < n->n_conns; i++) {
		nconn *c = n->conns[i];
		sock_close(c, !conn_finished(c));
		free(c->out);
		free(c->pre);
	}
	if (n->listen_fd >= 0) {
		unwatch(n, &n->listen_watch);
		close(n->listen_fd);
	}
	for (int i = 0; i < 2; i++)
		unwatch(n, &n->dev_watch[i]);
	smcr_ctx_free(n->ctx); /* destroys QPs and MRs, frees RMBs: no callbacks */
	for (uint32_t i = 0; i < n->n_conns; i++)
		free(n->conns[i]);
	if (n->vt)
		verbs_transport_free(n->vt);
	sim_realtime_free(n->rt);
	sim_engine_free(n->eng);
	free(n);
}

int node_run(const node_config *cfg, smcr_report *report, node_result *res, char *err, size_t errlen)
{
	node *n = calloc(1, sizeof(*n));
	if (!n) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	n->cfg = *cfg;
	if (!n->cfg.conns)
		n->cfg.conns = 1;
	if (n->cfg.conns > NODE_MAX_CONNS)
		n->cfg.conns = NODE_MAX_CONNS;
	n->listen_fd = -1;
	n->eng = sim_engine_new(cfg->seed);
	n->rt = sim_realtime_new(n->eng);
	sim_rng_seed(&n->rng, cfg->seed);
	sim_event_init(&n->timer, sim_kind("node.timer"), 0, on_timer, n);
	sim_event_init(&n->timeout, sim_kind("node.timeout"), 0, on_timeout, n);
	sim_event_init(&n->retry, sim_kind("node.open"), 0, open_next, n);
	sim_event_init(&n->linger, sim_kind("node.linger"), 0, on_linger, n);
	int rc = -1;
	if (open_device(n))
		goto out;
	if (smcr_ctx_new(&n->ctx, &n->cfg.core, &node_callbacks, n, verbs_transport_ops(), n->vt, NULL, 0)) {
		snprintf(n->err, sizeof(n->err), "cannot create the SMC-R core (settings?)");
		goto out;
	}
	if (add_port(n))
		goto out;
	if (cfg->server) {
		if (listen_on(n))
			goto out;
		say(n, "listening on %s:%u for %u connection(s), %s", cfg->host[0] ? cfg->host : "*", (unsigned)cfg->port,
		    n->cfg.conns, cfg->app == NODE_APP_ECHO ? "echo" : "sink");
	} else {
		sim_event_schedule(n->eng, &n->retry, 0);
	}
	sim_event_schedule(n->eng, &n->timeout, cfg->timeout_ns);
	sim_realtime_run(n->rt, SIM_TIME_NEVER);
	if (n->err[0] && !n->timed_out && !n->done)
		goto out;
	rc = 0;
out:
	if (n->ctx) {
		results(n, res);
		if (report)
			node_fill_report(n->ctx, n->cfg.name, report);
		if (rc == 0 && (n->timed_out || res->failed || res->content_bad))
			rc = 1;
		if (n->timed_out)
			rc = -1;
	}
	if (n->err[0])
		snprintf(err, errlen, "%s", n->err);
	else if (rc) {
		/* the first connection the core aborted says why (a peer's bad CLC message) */
		const nconn *first = NULL;
		for (uint32_t i = 0; i < n->n_conns && !first; i++)
			if (n->conns[i]->abort_err)
				first = n->conns[i];
		if (first)
			snprintf(err, errlen, "%u connection(s) failed; connection %u: aborted (%s)", res ? res->failed : 0, first->idx,
			         smcr_strerror(first->abort_err));
		else
			snprintf(err, errlen, "%u connection(s) failed", res ? res->failed : 0);
	}
	node_free(n);
	return rc;
}
