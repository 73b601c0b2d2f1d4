/* The growth series of bench scale (see scale_bench.h). */
#include "sim/bench/scale_bench.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/engine/bench_measure.h"
#include "sim/rdma/lazy_arena.h"
#include "sim/net/sock.h"
#include "sim/net/tcp.h"
#include "sim/smc/smc_layer.h"
#include "sim/world/world.h"

/* scenarios/scale-10k.scn's fabric and traffic, its parameters set by the caller. */
static const char stacks_world[] =
        "scenario \"bench scale: stacks\"\n"
        "param LEAVES=40\nparam PER_LEAF=250\nparam DATA=64K\nparam HOST=linux\n"
        "seed 10000\nend 10s\n"
        "switch SPINE\n"
        "for l in 0..LEAVES-1\n"
        "  switch LEAF{l+1:02}\n"
        "  wire UP{l+1:02} LEAF{l+1:02} SPINE latency=2us bandwidth=400Gbps\n"
        "end\n"
        "for l in 0..LEAVES-1\n"
        "  for k in 0..PER_LEAF-1\n"
        "    adapter R{l*PER_LEAF+k:05} pfid={l*PER_LEAF+k+1:04X} switch=LEAF{l+1:02}\n"
        "    stack H{l*PER_LEAF+k:05} host={HOST}\n"
        "      interface eth0 switch=LEAF{l+1:02} ip=10.0.{l}.{k+1}/16\n"
        "      smcr pfid={l*PER_LEAF+k+1:04X}\n"
        "    end\n"
        "  end\n"
        "end\n"
        "for l in 0..LEAVES-1\n"
        "  for k in 0..PER_LEAF/2-1\n"
        "    app s{l*PER_LEAF+k:05} H{(l+1)%LEAVES*PER_LEAF+k+PER_LEAF/2:05} listen port=5000 kind=sink\n"
        "    app c{l*PER_LEAF+k:05} H{l*PER_LEAF+k:05} connect H{(l+1)%LEAVES*PER_LEAF+k+PER_LEAF/2:05}:5000 kind=bulk bytes={DATA}\n"
        "    expect mode c{l*PER_LEAF+k:05} == SMCR\n"
        "    expect delivered c{l*PER_LEAF+k:05} == {DATA}\n"
        "    expect received s{l*PER_LEAF+k:05} == {DATA}\n"
        "  end\n"
        "end\n"
        "expect aborted == 0\n";

/* scenarios/scale-1m-conns.scn's shape: client c's f-th server is (c + f + 1) % SERVERS,
 * a different one for every f < FANOUT <= SERVERS. The run's end is far; the bench
 * stops it once the idle period is over. */
static const char conns_world[] =
        "scenario \"bench scale: connections\"\n"
        "param CLIENTS=100\nparam SERVERS=100\nparam FANOUT=10\nparam CONNS=1000\nparam LEAVES=10\n"
        "seed 1000000\nend 24h\n"
        "switch SPINE\n"
        "for l in 0..LEAVES-1\n"
        "  switch LEAF{l}\n"
        "  wire UP{l} LEAF{l} SPINE latency=2us bandwidth=400Gbps\n"
        "end\n"
        "for n in 0..CLIENTS-1\n"
        "  adapter RC{n:03} pfid={0x1000+n:04X} switch=LEAF{n%LEAVES}\n"
        "  stack C{n:03}\n"
        "    interface eth0 switch=LEAF{n%LEAVES} ip=10.0.{1+n/250}.{n%250+1}/16\n"
        "    smcr rmbsize=16K sndbufsize=16K\n"
        "    smcr pfid={0x1000+n:04X}\n"
        "  end\n"
        "end\n"
        "for n in 0..SERVERS-1\n"
        "  adapter RS{n:03} pfid={0x2000+n:04X} switch=LEAF{n%LEAVES}\n"
        "  stack S{n:03}\n"
        "    interface eth0 switch=LEAF{n%LEAVES} ip=10.0.{101+n/250}.{n%250+1}/16\n"
        "    smcr rmbsize=16K sndbufsize=16K\n"
        "    smcr pfid={0x2000+n:04X}\n"
        "  end\n"
        "  app l{n:03} S{n:03} listen port=5000 kind=echo\n"
        "end\n"
        "for c in 0..CLIENTS-1\n"
        "  for f in 0..FANOUT-1\n"
        "    app e{c:03}_{f} C{c:03} connect S{(c+f+1)%SERVERS:03}:5000 kind=echo bytes=64 conns={CONNS} close=never\n"
        "    expect mode e{c:03}_{f} == SMCR\n"
        "    expect received e{c:03}_{f} == {64*CONNS}\n"
        "    expect conns C{c:03} S{(c+f+1)%SERVERS:03} == {CONNS}\n"
        "    expect linkgroups C{c:03} S{(c+f+1)%SERVERS:03} == {(CONNS+254)/255}\n"
        "  end\n"
        "end\n"
        "expect aborted == 0\n";

int scale_stacks_shape(uint64_t n, uint64_t *leaves, uint64_t *per_leaf)
{
	if (n < 2 || n % 2)
		return 0;
	for (uint64_t d = 254; d >= 2; d -= 2)
		if (n % d == 0 && n / d <= 256) {
			*per_leaf = d;
			*leaves = n / d;
			return 1;
		}
	return 0;
}

int scale_conns_shape(uint64_t n, uint64_t *clients, uint64_t *servers, uint64_t *fanout, uint64_t *per_pair)
{
	uint64_t per = n < 1000 ? n : 1000;
	if (!n || n % per)
		return 0;
	uint64_t pairs = n / per;
	uint64_t f = pairs < 10 ? pairs : 10;
	if (pairs % f || pairs / f > 999)
		return 0;
	*per_pair = per;
	*fanout = f;
	*clients = pairs / f;
	*servers = *clients > f ? *clients : f;
	return 1;
}

/* --- children ---------------------------------------------------------------------- */

static world *build(const char *name, const char *text, size_t len, const char *const *set, size_t n_set,
                    scn_scenario **scn, char *err, size_t errlen)
{
	scn_diag diag;
	scn_diag_init(&diag);
	scn_load_opts lo = { set, n_set };
	*scn = scn_load_string_opts(name, text, len, &lo, &diag);
	if (!*scn) {
		snprintf(err, errlen, "the scenario was refused: %s",
		         scn_diag_count(&diag) ? scn_diag_message(&diag, 0) : "no reason given");
		scn_diag_free(&diag);
		return NULL;
	}
	scn_diag_free(&diag);
	world_opts o;
	world_opts_default(&o);
	o.quiet = true;
	world *w = world_new(*scn, &o, err, errlen);
	if (!w) {
		scn_free(*scn);
		*scn = NULL;
	}
	return w;
}

static void stacks_child(uint64_t stacks, scale_stacks_result *r)
{
	char leaves[32], per_leaf[32], host[32];
	snprintf(leaves, sizeof leaves, "LEAVES=%" PRIu64, r->leaves);
	snprintf(per_leaf, sizeof per_leaf, "PER_LEAF=%" PRIu64, r->per_leaf);
	snprintf(host, sizeof host, "HOST=%s", r->host);
	const char *set[] = { leaves, per_leaf, host };
	(void)stacks;
	double t0 = bench_wall_seconds();
	scn_scenario *scn;
	world *w = build("bench-scale-stacks.scn", stacks_world, sizeof stacks_world - 1, set, 3, &scn, r->err,
	                 sizeof r->err);
	if (!w) {
		r->status = SCALE_BAD_WORLD;
		return;
	}
	r->failed = world_run(w);
	r->wall = bench_wall_seconds() - t0;
	r->events = world_events(w);
	r->expectations = scn->n_expects;
	r->fingerprint = world_fingerprint(w);
	r->status = SCALE_OK;
	/* the process ends here: freeing ten thousand stacks would only add to the wall */
}

typedef struct conn_tally {
	uint64_t smcr;
} conn_tally;

static void tally(void *arg, const smc_layer_conn *c)
{
	conn_tally *t = arg;
	if (!c->server && c->mode == SOCK_MODE_SMCR && !c->handshake)
		t->smcr++;
}

/* Client ends that reached SMC-R so far, from the layers' counters: the poll below asks
 * every 50 ms of virtual time, and walking a million connections each time would cost
 * more than establishing them. */
static uint64_t established_so_far(world *w, const scn_scenario *scn)
{
	uint64_t n = 0;
	for (size_t i = 0; i < scn->n_stacks; i++)
		if (scn->stacks[i].name[0] == 'C')
			n += smc_layer_counters_get(world_layer(w, scn->stacks[i].name))->established;
	return n;
}

/* Client ends on SMC-R now, out of the handshake: one walk of every connection. */
static uint64_t on_smcr(world *w, const scn_scenario *scn)
{
	conn_tally t = { 0 };
	for (size_t i = 0; i < scn->n_stacks; i++)
		if (scn->stacks[i].name[0] == 'C')
			smc_layer_foreach_conn(world_layer(w, scn->stacks[i].name), tally, &t);
	return t.smcr;
}

/* What the world holds at one moment: the whole heap and resident buffer pages, and the
 * parts TCP and SMC-R own, counted from their objects (sim/net/tcp.h tcp_mem_census,
 * sock_heap_bytes, sim/smc/smc_layer.h smc_layer_mem_census, sim/rdma/lazy_arena.h). */
typedef struct mem_snapshot {
	uint64_t heap; /* mallinfo2's blocks in use (arena and mapped) + resident buffer pages */
	tcp_mem_census tcp;
	uint64_t socks, sock_bytes;
	smc_layer_mem_census smc;
	uint64_t arena_desc, arena_pages;
} mem_snapshot;

static void snapshot(world *w, const scn_scenario *scn, mem_snapshot *m)
{
	memset(m, 0, sizeof *m);
	for (size_t i = 0; i < scn->n_stacks; i++) {
		const char *name = scn->stacks[i].name;
		stack *st = world_stack(w, name);
		smc_layer *l = world_layer(w, name);
		if (st) {
			uint64_t n = 0;
			tcp_mem_census_add(st, &m->tcp);
			m->sock_bytes += sock_heap_bytes(st, &n);
			m->socks += n;
		}
		if (l)
			smc_layer_mem_census_add(l, &m->smc);
	}
	m->arena_desc = lazy_arena_heap_bytes();
	m->arena_pages = lazy_arena_resident();
	struct mallinfo2 mi = mallinfo2();
	m->heap = mi.uordblks + mi.hblkhd + m->arena_pages;
}

static double per(uint64_t a, uint64_t b, uint64_t n) { return n ? ((double)a - (double)b) / (double)n : 0.0; }

static void mem_split(const mem_snapshot *a, const mem_snapshot *b, uint64_t n, scale_conns_result *r)
{
	scale_mem *t = &r->mem_tcp, *s = &r->mem_smcr;
	t->pcbs = per(b->tcp.pcb_bytes, a->tcp.pcb_bytes, n);
	t->rings = per(b->tcp.ring_bytes, a->tcp.ring_bytes, n);
	t->socks = per(b->sock_bytes, a->sock_bytes, n);
	t->total = t->pcbs + t->rings + t->socks;
	s->core = per(b->smc.core_bytes, a->smc.core_bytes, n);
	s->layer = per(b->smc.conn_bytes, a->smc.conn_bytes, n);
	s->mrs = per(b->smc.rdma.mr_bytes, a->smc.rdma.mr_bytes, n);
	s->qps = per(b->smc.rdma.qp_bytes, a->smc.rdma.qp_bytes, n);
	s->arena_desc = per(b->arena_desc, a->arena_desc, n);
	s->arena_pages = per(b->arena_pages, a->arena_pages, n);
	s->total = s->core + s->layer + s->mrs + s->qps + s->arena_desc + s->arena_pages;
	double all = per(b->heap, a->heap, n);
	r->mem_other = (int64_t)(all - t->total - s->total);
}

#define CONNS_STEP_NS (50ull * 1000000ull) /* how often the bench counts connections on SMC-R */
#define CONNS_GIVE_UP_NS (600ull * 1000000000ull)

static void conns_child(scale_conns_result *r)
{
	char v[5][40];
	snprintf(v[0], sizeof v[0], "CLIENTS=%" PRIu64, r->clients);
	snprintf(v[1], sizeof v[1], "SERVERS=%" PRIu64, r->servers);
	snprintf(v[2], sizeof v[2], "FANOUT=%" PRIu64, r->fanout);
	snprintf(v[3], sizeof v[3], "CONNS=%" PRIu64, r->per_pair);
	uint64_t most = r->clients > r->servers ? r->clients : r->servers;
	snprintf(v[4], sizeof v[4], "LEAVES=%" PRIu64, most < 10 ? most : 10);
	const char *set[] = { v[0], v[1], v[2], v[3], v[4] };
	double t0 = bench_wall_seconds();
	scn_scenario *scn;
	world *w = build("bench-scale-conns.scn", conns_world, sizeof conns_world - 1, set, 5, &scn, r->err,
	                 sizeof r->err);
	if (!w) {
		r->status = SCALE_BAD_WORLD;
		return;
	}
	double t1 = bench_wall_seconds();
	r->build_wall = t1 - t0;
	mem_snapshot m0, m1;
	snapshot(w, scn, &m0);
	sim_time t = 0;
	do {
		t += CONNS_STEP_NS;
		world_run_until(w, t);
	} while (established_so_far(w, scn) < r->conns && t < CONNS_GIVE_UP_NS);
	r->established = on_smcr(w, scn);
	double t2 = bench_wall_seconds();
	r->establish_wall = t2 - t1;
	r->establish_ns = t;
	r->events_establish = world_events(w);
	world_run_until(w, t + r->idle_ns);
	r->idle_wall = bench_wall_seconds() - t2;
	r->events_idle = world_events(w) - r->events_establish;
	snapshot(w, scn, &m1);
	r->heap_per_conn = m1.heap > m0.heap && r->conns ? (m1.heap - m0.heap) / r->conns : 0;
	mem_split(&m0, &m1, r->conns, r);
	r->failed = world_finish(w);
	r->fingerprint = world_fingerprint(w);
	r->status = SCALE_OK;
}

/* Run fn in a child that writes its result (size bytes at res) into a pipe; the child's
 * peak RSS goes to *rss, its CPU seconds to *cpu. 0, or -1 with the reason in err when no result came. */
static int in_child(void (*fn)(void *), void *res, size_t size, uint64_t *rss, double *cpu, char *err, size_t errlen)
{
	int fd[2];
	if (pipe(fd)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		close(fd[0]);
		fn(res);
		const char *p = res;
		size_t left = size;
		while (left) {
			ssize_t n = write(fd[1], p, left);
			if (n <= 0)
				_exit(1);
			p += n;
			left -= (size_t)n;
		}
		_exit(0);
	}
	close(fd[1]);
	char *p = res;
	size_t got = 0;
	while (got < size) {
		ssize_t n = read(fd[0], p + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd[0]);
	int status = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	*rss = (uint64_t)ru.ru_maxrss * 1024u;
	*cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec * 1e-6;
	if (got == size && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		snprintf(err, errlen, "the world's process was killed by signal %d (%s)", WTERMSIG(status),
		         strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		snprintf(err, errlen, "the world ran out of memory (exit 3)");
	else
		snprintf(err, errlen, "the world's process ended with exit code %d and no result",
		         WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return -1;
}

static void stacks_fn(void *arg)
{
	scale_stacks_result *r = arg;
	stacks_child(r->stacks, r);
}

static void conns_fn(void *arg) { conns_child(arg); }

void scale_bench_stacks(uint64_t stacks, const char *host, scale_stacks_result *r)
{
	memset(r, 0, sizeof *r);
	r->stacks = stacks;
	snprintf(r->host, sizeof r->host, "%s", host ? host : "linux");
	if (!scale_stacks_shape(stacks, &r->leaves, &r->per_leaf)) {
		r->status = SCALE_BAD_WORLD;
		snprintf(r->err, sizeof r->err, "no leaf-spine shape for %" PRIu64 " stacks (an even number, at most 254 per leaf on at most 256 leaves)", stacks);
		return;
	}
	uint64_t rss = 0;
	double cpu = 0;
	char err[sizeof r->err];
	if (in_child(stacks_fn, r, sizeof *r, &rss, &cpu, err, sizeof err)) {
		r->status = SCALE_DIED;
		memcpy(r->err, err, sizeof err);
	}
	r->peak_rss = rss;
	r->cpu = cpu;
}

void scale_bench_conns(uint64_t conns, uint64_t idle_ns, scale_conns_result *r)
{
	memset(r, 0, sizeof *r);
	r->conns = conns;
	r->idle_ns = idle_ns;
	if (!scale_conns_shape(conns, &r->clients, &r->servers, &r->fanout, &r->per_pair)) {
		r->status = SCALE_BAD_WORLD;
		snprintf(r->err, sizeof r->err, "no shape for %" PRIu64 " connections (up to 1000, or a multiple of 1000 up to 9,990,000 in the 10-per-client pattern)", conns);
		return;
	}
	uint64_t rss = 0;
	double cpu = 0;
	char err[sizeof r->err];
	if (in_child(conns_fn, r, sizeof *r, &rss, &cpu, err, sizeof err)) {
		r->status = SCALE_DIED;
		memcpy(r->err, err, sizeof err);
	}
	r->peak_rss = rss;
	r->cpu = cpu;
}

double scale_fit_exponent(const double *x, const double *y, size_t n)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (size_t i = 0; i < n; i++) {
		double lx = log(x[i]), ly = log(y[i]);
		sx += lx;
		sy += ly;
		sxx += lx * lx;
		sxy += lx * ly;
	}
	double d = (double)n * sxx - sx * sx;
	return n > 1 && d != 0.0 ? ((double)n * sxy - sx * sy) / d : 0.0;
}
