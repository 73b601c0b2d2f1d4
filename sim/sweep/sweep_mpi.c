/* The MPI engine of the sweep runner (sweep_runner.h), over Open MPI when the build found
 * it (the Makefile defines SMCR_HAVE_MPI and compiles this file with MPI's flags); without
 * it the engine says so.
 *
 * Rank 0 hands out points and writes the results, and runs points itself: while it runs
 * one, the world calls back every few thousand events (sweep_poll) and rank 0 serves the
 * other ranks' results then. Every other rank holds up to MPI_AHEAD points, so it starts
 * its next point at once while rank 0 answers. Waiting is MPI_Iprobe with short sleeps,
 * not a busy blocking receive: ranks may share cores (mpirun --oversubscribe), and a
 * spinning rank would take the time of the one computing.
 *
 * A rank that dies takes the job with it (Open MPI's default); the points it held were
 * handed out and not returned, so the result file resumed afterwards runs them again,
 * marked retried (sweep_results.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/engine/realtime.h"
#include "sim/sweep/sweep_runner.h"

bool sweep_mpi_detected(void)
{
	/* mpirun (Open MPI) sets OMPI_COMM_WORLD_SIZE; srun with PMIx sets PMIX_RANK */
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK");
}

#ifndef SMCR_HAVE_MPI

bool sweep_mpi_built(void)
{
	return false;
}

const char *sweep_mpi_version(void)
{
	return NULL;
}

int sweep_execute_mpi(const sweep_job *job, const sweep_opts *o, sweep_outcome *out, char *err, size_t errlen)
{
	(void)job;
	(void)o;
	(void)out;
	snprintf(err, errlen,
	         "this smcr-sim was built without MPI (smcr-sim --version says mpi: no); expected a build with Open MPI "
	         "(tools/install-deps --mpi, then make), or --jobs N on one machine");
	return 2;
}

#else

#include <mpi.h>

#define MPI_AHEAD 2          /* points a rank holds: the one it runs and the next */
#define TAG_ASSIGN 1         /* rank 0 -> rank: uint64 {point, retried}; point UINT64_MAX = stop */
#define TAG_RESULT 2         /* rank -> rank 0: uint64 {point, wall_ns, gap_ns} then the record */
#define IDLE_SLEEP_NS 100000 /* between probes while there is nothing to do */

static char version_text[MPI_MAX_LIBRARY_VERSION_STRING + 16];

bool sweep_mpi_built(void)
{
	return true;
}

const char *sweep_mpi_version(void)
{
#if defined(OMPI_MAJOR_VERSION)
	snprintf(version_text, sizeof(version_text), "Open MPI %d.%d.%d, MPI %d.%d", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
	         OMPI_RELEASE_VERSION, MPI_VERSION, MPI_SUBVERSION);
#else
	snprintf(version_text, sizeof(version_text), "MPI %d.%d", MPI_VERSION, MPI_SUBVERSION);
#endif
	return version_text;
}

static void nap(void)
{
	struct timespec ts = { 0, IDLE_SLEEP_NS };
	nanosleep(&ts, NULL);
}

/* ---- the other ranks ---- */

static void worker_rank(const sweep_job *job, sweep_outcome *out)
{
	uint64_t queue[MPI_AHEAD][2];
	size_t nq = 0;
	bool stop = false;
	uint64_t last_end = 0;
	GString *rec = g_string_new(NULL);
	GByteArray *msg = g_byte_array_new();
	for (;;) {
		/* take what rank 0 sent; wait only when there is nothing to run */
		for (;;) {
			int flag = 0;
			MPI_Status st;
			MPI_Iprobe(0, TAG_ASSIGN, MPI_COMM_WORLD, &flag, &st);
			if (flag) {
				uint64_t a[2];
				MPI_Recv(a, 2, MPI_UINT64_T, 0, TAG_ASSIGN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				if (a[0] == UINT64_MAX)
					stop = true;
				else if (nq < MPI_AHEAD) {
					queue[nq][0] = a[0];
					queue[nq++][1] = a[1];
				}
				continue;
			}
			if (nq || stop)
				break;
			nap();
		}
		if (!nq)
			break;
		uint64_t p = queue[0][0], retried = queue[0][1];
		memmove(queue[0], queue[1], sizeof(queue[0]) * (MPI_AHEAD - 1));
		nq--;
		g_string_truncate(rec, 0);
		uint64_t t0 = sim_realtime_clock_ns();
		job->run(job->ctx, p, retried != 0, NULL, rec);
		uint64_t t1 = sim_realtime_clock_ns();
		uint64_t h[3] = { p, t1 - t0, last_end ? t0 - last_end : 0 };
		g_byte_array_set_size(msg, 0);
		g_byte_array_append(msg, (const guint8 *)h, sizeof(h));
		g_byte_array_append(msg, (const guint8 *)rec->str, (guint)rec->len);
		MPI_Send(msg->data, (int)msg->len, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
		last_end = sim_realtime_clock_ns();
		out->n_run++;
	}
	g_string_free(rec, TRUE);
	g_byte_array_free(msg, TRUE);
}

/* ---- rank 0 ---- */

typedef struct master {
	const sweep_job *job;
	const sweep_opts *o;
	sweep_outcome *out;
	int size;
	uint64_t *todo; /* points still to hand out, in order */
	uint8_t *todo_retried;
	size_t n_todo, head;
	uint64_t done;    /* records that arrived (of the points to run now) */
	int *held;        /* per rank: points handed out and not returned */
	bool *stopped;    /* per rank: told to stop */
	uint8_t *retried; /* per point: handed out as retried */
	char **names;     /* "rank N" */
	GByteArray *buf;
	bool serving; /* inside serve(): no re-entry */
} master;

static void assign(master *m, int r)
{
	if (m->head == m->n_todo) {
		if (!m->stopped[r]) {
			uint64_t a[2] = { UINT64_MAX, 0 };
			MPI_Send(a, 2, MPI_UINT64_T, r, TAG_ASSIGN, MPI_COMM_WORLD);
			m->stopped[r] = true;
		}
		return;
	}
	uint64_t p = m->todo[m->head];
	uint64_t a[2] = { p, m->todo_retried[m->head] };
	m->retried[p] = m->todo_retried[m->head];
	m->head++;
	m->held[r]++;
	sweep_results_started(m->out->results, p, m->names[r]);
	MPI_Send(a, 2, MPI_UINT64_T, r, TAG_ASSIGN, MPI_COMM_WORLD);
}

/* Take every result that has arrived, and hand out more. */
static void serve(void *arg)
{
	master *m = arg;
	if (m->serving)
		return;
	m->serving = true;
	for (;;) {
		int flag = 0;
		MPI_Status st;
		MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st);
		if (!flag)
			break;
		int n = 0;
		MPI_Get_count(&st, MPI_BYTE, &n);
		g_byte_array_set_size(m->buf, (guint)n + 1);
		MPI_Recv(m->buf->data, n, MPI_BYTE, st.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		uint64_t h[3];
		memcpy(h, m->buf->data, sizeof(h));
		m->buf->data[n] = 0;
		int r = st.MPI_SOURCE;
		sweep_results_add(m->out->results, h[0], (const char *)m->buf->data + sizeof(h), h[1], m->names[r]);
		m->out->point_ns += h[1];
		if (h[2]) {
			m->out->gap_ns += h[2];
			m->out->gaps++;
		}
		m->out->n_run++;
		m->out->n_retried += m->retried[h[0]];
		m->done++;
		m->held[r]--;
		assign(m, r);
		sweep_progress(m->o, m->out, m->done, m->n_todo, false);
	}
	m->serving = false;
}

static void master_rank(const sweep_job *job, const sweep_opts *o, sweep_outcome *out, int size)
{
	master m = { .job = job, .o = o, .out = out, .size = size };
	uint64_t n = sweep_results_n_points(out->results);
	m.todo = g_new(uint64_t, n ? n : 1);
	m.todo_retried = g_new(uint8_t, n ? n : 1);
	for (uint64_t i = 0; i < n; i++)
		if (!sweep_results_record(out->results, i)) {
			m.todo[m.n_todo] = i;
			m.todo_retried[m.n_todo++] = sweep_results_was_started(out->results, i);
		}
	m.held = g_new0(int, size);
	m.stopped = g_new0(bool, size);
	m.retried = g_new0(uint8_t, n ? n : 1);
	m.names = g_new0(char *, size);
	for (int r = 0; r < size; r++)
		m.names[r] = g_strdup_printf("rank %d", r);
	m.buf = g_byte_array_new();
	uint64_t t_start = sim_realtime_clock_ns();
	for (int k = 0; k < MPI_AHEAD; k++)
		for (int r = 1; r < size; r++)
			assign(&m, r);
	sweep_poll poll = { serve, &m };
	GString *rec = g_string_new(NULL);
	uint64_t last_end = 0;
	while (m.done < m.n_todo) {
		serve(&m);
		if (m.head < m.n_todo) {
			/* rank 0's own point, serving the others from inside its run */
			uint64_t p = m.todo[m.head];
			bool retried = m.todo_retried[m.head];
			m.retried[p] = retried;
			m.head++;
			sweep_results_started(out->results, p, m.names[0]);
			g_string_truncate(rec, 0);
			uint64_t t0 = sim_realtime_clock_ns();
			if (last_end) {
				out->gap_ns += t0 - last_end;
				out->gaps++;
			}
			job->run(job->ctx, p, retried, &poll, rec);
			uint64_t t1 = sim_realtime_clock_ns();
			sweep_results_add(out->results, p, rec->str, t1 - t0, m.names[0]);
			last_end = sim_realtime_clock_ns();
			out->point_ns += t1 - t0;
			out->n_run++;
			out->n_retried += retried;
			m.done++;
		} else {
			nap();
		}
	}
	for (int r = 1; r < size; r++)
		assign(&m, r); /* the stop of those not told yet */
	out->elapsed_ns = sim_realtime_clock_ns() - t_start;
	g_string_free(rec, TRUE);
	for (int r = 0; r < size; r++)
		g_free(m.names[r]);
	g_free(m.names);
	g_free(m.held);
	g_free(m.stopped);
	g_free(m.retried);
	g_free(m.todo);
	g_free(m.todo_retried);
	g_byte_array_free(m.buf, TRUE);
}

int sweep_execute_mpi(const sweep_job *job, const sweep_opts *o, sweep_outcome *out, char *err, size_t errlen)
{
	uint64_t t0 = sim_realtime_clock_ns();
	int inited = 0;
	MPI_Initialized(&inited);
	if (!inited && MPI_Init(NULL, NULL) != MPI_SUCCESS) {
		snprintf(err, errlen, "MPI_Init failed; expected to run under mpirun or srun");
		return 2;
	}
	int rank = 0, size = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	out->engine = SWEEP_ENGINE_MPI;
	out->runners = (unsigned)size;
	/* rank 0 opens the result file (a bad one ends every rank); the others wait to hear */
	int ok = 1;
	if (rank == 0) {
		out->results = sweep_results_open(o->out_path, job->header, job->n_points, o->resume, err, errlen);
		ok = out->results != NULL;
	}
	MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!ok) {
		if (rank != 0)
			snprintf(err, errlen, "rank 0 could not open the result file");
		MPI_Finalize();
		return 2;
	}
	out->startup_ns = sim_realtime_clock_ns() - t0;
	if (rank == 0) {
		master_rank(job, o, out, size);
		sweep_progress(o, out, out->n_run, out->n_run, true);
	} else {
		out->worker = true;
		worker_rank(job, out);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	if (rank == 0 && sweep_results_finish(out->results, err, errlen))
		return 2;
	return 0;
}

#endif
