/* Running the points of a sweep in this process or in forked workers (sweep_runner.h);
 * the MPI engine is sweep_mpi.c. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/engine/realtime.h"
#include "sim/sweep/sweep_record.h"
#include "sim/sweep/sweep_runner.h"

/* A point that killed its runner this many times gets a record saying so instead. */
#define SWEEP_MAX_ATTEMPTS 2

char *sweep_runner_name_pid(void)
{
	return g_strdup_printf("pid %ld", (long)getpid());
}

void sweep_progress(const sweep_opts *o, const sweep_outcome *out, uint64_t done, uint64_t todo, bool last)
{
	static uint64_t last_ns;
	if (!o->progress)
		return;
	uint64_t now = sim_realtime_clock_ns();
	if (!last && now - last_ns < 1000000000ull)
		return;
	last_ns = now;
	fprintf(o->progress, "\r  %s: %" PRIu64 " of %" PRIu64 " points, %u runner%s%s", o->what ? o->what : "sweep", done,
	        todo, out->runners, out->runners == 1 ? "" : "s", last ? "\n" : "   ");
	fflush(o->progress);
}

/* ---- the points still to run ---- */

typedef struct todo_list {
	uint64_t *point;
	uint8_t *retried;
	size_t n, head;
} todo_list;

static void todo_init(todo_list *t, const sweep_results *r)
{
	uint64_t n = sweep_results_n_points(r);
	t->point = g_new(uint64_t, n ? n : 1);
	t->retried = g_new(uint8_t, n ? n : 1);
	t->n = t->head = 0;
	for (uint64_t i = 0; i < n; i++)
		if (!sweep_results_record(r, i)) {
			t->point[t->n] = i;
			t->retried[t->n++] = sweep_results_was_started(r, i);
		}
}

static void todo_free(todo_list *t)
{
	g_free(t->point);
	g_free(t->retried);
}

/* ---- in this process ---- */

static int run_here(const sweep_job *job, const sweep_opts *o, sweep_outcome *out, todo_list *t)
{
	out->engine = SWEEP_ENGINE_PROCESS;
	out->runners = 1;
	GString *rec = g_string_new(NULL);
	uint64_t t_start = sim_realtime_clock_ns(), last_end = 0;
	for (size_t k = 0; k < t->n; k++) {
		uint64_t p = t->point[k];
		sweep_results_started(out->results, p, "process");
		g_string_truncate(rec, 0);
		uint64_t t0 = sim_realtime_clock_ns();
		if (last_end) {
			out->gap_ns += t0 - last_end;
			out->gaps++;
		}
		job->run(job->ctx, p, t->retried[k], NULL, rec);
		uint64_t t1 = sim_realtime_clock_ns();
		sweep_results_add(out->results, p, rec->str, t1 - t0, "process");
		last_end = sim_realtime_clock_ns();
		out->point_ns += t1 - t0;
		out->n_run++;
		out->n_retried += t->retried[k];
		sweep_progress(o, out, k + 1, t->n, false);
	}
	out->elapsed_ns = sim_realtime_clock_ns() - t_start;
	g_string_free(rec, TRUE);
	return 0;
}

/* ---- forked workers ---- */

/* parent -> worker: a point to run */
typedef struct assign_msg {
	uint64_t point;
	uint64_t retried;
} assign_msg;

/* worker -> parent: a record follows */
typedef struct result_msg {
	uint64_t point;
	uint64_t wall_ns;
	uint64_t gap_ns; /* since the worker sent its previous result (0 for its first) */
	uint64_t len;
} result_msg;

typedef struct worker {
	pid_t pid;
	int cmd, res; /* -1 when closed */
	bool busy;
	uint64_t point;
	bool retried;
	char name[32];
} worker;

static bool read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	while (len) {
		ssize_t n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

static bool write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* A worker: run what the parent hands out until it closes the pipe. */
static void G_GNUC_NORETURN worker_main(const sweep_job *job, int cmd, int res)
{
	GString *rec = g_string_new(NULL);
	uint64_t last_end = 0;
	assign_msg a;
	while (read_full(cmd, &a, sizeof(a))) {
		g_string_truncate(rec, 0);
		uint64_t t0 = sim_realtime_clock_ns();
		job->run(job->ctx, a.point, a.retried != 0, NULL, rec);
		uint64_t t1 = sim_realtime_clock_ns();
		result_msg m = { a.point, t1 - t0, last_end ? t0 - last_end : 0, rec->len };
		if (!write_full(res, &m, sizeof(m)) || !write_full(res, rec->str, rec->len))
			_exit(1);
		last_end = sim_realtime_clock_ns();
	}
	_exit(0);
}

static int spawn(const sweep_job *job, worker *ws, size_t n_ws, size_t k, char *err, size_t errlen)
{
	int c[2], r[2];
	if (pipe(c))
		goto fail;
	if (pipe(r)) {
		close(c[0]);
		close(c[1]);
		goto fail;
	}
	fflush(NULL); /* nothing buffered is written twice */
	pid_t pid = fork();
	if (pid < 0) {
		close(c[0]);
		close(c[1]);
		close(r[0]);
		close(r[1]);
		goto fail;
	}
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		for (size_t i = 0; i < n_ws; i++) {
			if (ws[i].cmd >= 0)
				close(ws[i].cmd);
			if (ws[i].res >= 0)
				close(ws[i].res);
		}
		close(c[1]);
		close(r[0]);
		worker_main(job, c[0], r[1]);
	}
	close(c[0]);
	close(r[1]);
	ws[k] = (worker){ .pid = pid, .cmd = c[1], .res = r[0] };
	snprintf(ws[k].name, sizeof(ws[k].name), "pid %ld", (long)pid);
	return 0;
fail:
	snprintf(err, errlen, "cannot start a worker process: %s", strerror(errno));
	return -1;
}

/* How a worker ended, in words. */
static void reap(worker *w, char *why, size_t len)
{
	int st = 0;
	pid_t p;
	do
		p = waitpid(w->pid, &st, 0);
	while (p < 0 && errno == EINTR);
	if (p < 0)
		snprintf(why, len, "it vanished");
	else if (WIFSIGNALED(st))
		snprintf(why, len, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(why, len, "exit status %d", WEXITSTATUS(st));
}

typedef struct fork_state {
	const sweep_job *job;
	const sweep_opts *o;
	sweep_outcome *out;
	todo_list *t;
	worker *ws;
	size_t n_ws;
	uint8_t *attempts; /* per point */
	uint64_t done;
} fork_state;

/* Hand worker k its next point, or tell it to stop. */
static void give(fork_state *s, size_t k)
{
	worker *w = &s->ws[k];
	todo_list *t = s->t;
	if (t->head == t->n) {
		if (w->cmd >= 0)
			close(w->cmd);
		w->cmd = -1;
		w->busy = false;
		return;
	}
	w->point = t->point[t->head];
	w->retried = t->retried[t->head];
	t->head++;
	w->busy = true;
	assign_msg a = { w->point, w->retried };
	sweep_results_started(s->out->results, w->point, w->name);
	if (!write_full(w->cmd, &a, sizeof(a))) {
		/* it died before it could read: its result pipe tells, and the point goes back */
	}
}

/* Worker k's pipe closed: a normal end, or a death with a point in its hands. */
static int worker_gone(fork_state *s, size_t k, char *err, size_t errlen)
{
	worker *w = &s->ws[k];
	char why[128];
	if (w->cmd >= 0)
		close(w->cmd);
	close(w->res);
	w->cmd = w->res = -1;
	reap(w, why, sizeof(why));
	if (!w->busy)
		return 0;
	w->busy = false;
	s->out->n_lost++;
	uint64_t p = w->point;
	if (++s->attempts[p] >= SWEEP_MAX_ATTEMPTS) {
		char *msg = g_strdup_printf("its runner died %d times (last %s); run it alone to see why", SWEEP_MAX_ATTEMPTS, why);
		GString *rec = g_string_new(NULL);
		s->job->lost(s->job->ctx, p, msg, rec);
		sweep_results_add(s->out->results, p, rec->str, 0, w->name);
		g_string_free(rec, TRUE);
		g_free(msg);
		s->done++;
	} else {
		/* back to the front of the queue, marked */
		todo_list *t = s->t;
		t->head--;
		t->point[t->head] = p;
		t->retried[t->head] = 1;
	}
	if (s->t->head < s->t->n) {
		if (spawn(s->job, s->ws, s->n_ws, k, err, errlen))
			return -1;
		give(s, k);
	}
	return 0;
}

static int read_result(fork_state *s, size_t k, GString *rec, char *err, size_t errlen)
{
	worker *w = &s->ws[k];
	result_msg m;
	if (!read_full(w->res, &m, sizeof(m)))
		return worker_gone(s, k, err, errlen);
	g_string_set_size(rec, (gsize)m.len);
	if (m.point != w->point || !read_full(w->res, rec->str, (size_t)m.len))
		return worker_gone(s, k, err, errlen);
	sweep_results_add(s->out->results, m.point, rec->str, m.wall_ns, w->name);
	s->out->point_ns += m.wall_ns;
	if (m.gap_ns) {
		s->out->gap_ns += m.gap_ns;
		s->out->gaps++;
	}
	s->out->n_run++;
	s->out->n_retried += w->retried;
	s->done++;
	w->busy = false;
	give(s, k);
	return 0;
}

static int run_forked(const sweep_job *job, const sweep_opts *o, sweep_outcome *out, todo_list *t, char *err,
                      size_t errlen)
{
	out->engine = SWEEP_ENGINE_FORK;
	size_t n_ws = o->jobs;
	if (n_ws > t->n)
		n_ws = t->n ? t->n : 1;
	out->runners = (unsigned)n_ws;
	fork_state s = { job, o, out, t, g_new0(worker, n_ws), n_ws, g_new0(uint8_t, sweep_results_n_points(out->results)),
		         0 };
	for (size_t k = 0; k < n_ws; k++)
		s.ws[k].cmd = s.ws[k].res = -1;
	void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
	int rc = 0;
	uint64_t t_start = sim_realtime_clock_ns();
	for (size_t k = 0; k < n_ws && !rc; k++) {
		rc = spawn(job, s.ws, n_ws, k, err, errlen);
		if (!rc)
			give(&s, k);
	}
	struct pollfd *pf = g_new(struct pollfd, n_ws);
	size_t *who = g_new(size_t, n_ws);
	GString *rec = g_string_new(NULL);
	while (!rc) {
		size_t n = 0;
		for (size_t k = 0; k < n_ws; k++)
			if (s.ws[k].res >= 0) {
				pf[n] = (struct pollfd){ .fd = s.ws[k].res, .events = POLLIN };
				who[n++] = k;
			}
		if (!n)
			break;
		int pr = poll(pf, n, o->progress ? 1000 : -1);
		if (pr < 0 && errno != EINTR) {
			snprintf(err, errlen, "poll: %s", strerror(errno));
			rc = -1;
			break;
		}
		for (size_t i = 0; i < n && pr > 0 && !rc; i++)
			if (pf[i].revents)
				rc = read_result(&s, who[i], rec, err, errlen);
		sweep_progress(o, out, s.done, t->n, false);
	}
	out->elapsed_ns = sim_realtime_clock_ns() - t_start;
	for (size_t k = 0; k < n_ws; k++) {
		/* on an error: stop the others */
		if (s.ws[k].res >= 0) {
			kill(s.ws[k].pid, SIGTERM);
			char why[128];
			close(s.ws[k].res);
			if (s.ws[k].cmd >= 0)
				close(s.ws[k].cmd);
			reap(&s.ws[k], why, sizeof(why));
		}
	}
	signal(SIGPIPE, old_pipe);
	g_string_free(rec, TRUE);
	g_free(pf);
	g_free(who);
	g_free(s.ws);
	g_free(s.attempts);
	return rc ? 2 : 0;
}

int sweep_execute(const sweep_job *job, const sweep_opts *o, sweep_outcome *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (o->mpi)
		return sweep_execute_mpi(job, o, out, err, errlen);
	out->results = sweep_results_open(o->out_path, job->header, job->n_points, o->resume, err, errlen);
	if (!out->results)
		return 2;
	todo_list t;
	todo_init(&t, out->results);
	int rc = o->jobs > 1 && t.n > 1 ? run_forked(job, o, out, &t, err, errlen) : run_here(job, o, out, &t);
	sweep_progress(o, out, t.n, t.n, true);
	todo_free(&t);
	if (!rc && sweep_results_finish(out->results, err, errlen))
		rc = 2;
	return rc;
}
