/* The real-time driver: engine timers fire against the monotonic clock, descriptors wake
 * the loop, and the engine's time tracks wall time. Delays are tens of milliseconds;
 * lower bounds are exact, upper bounds generous (a loaded CI machine is slow). */
#include <criterion/criterion.h>
#include <glib.h>
#include <time.h>
#include <unistd.h>

#include "sim/engine/engine.h"
#include "sim/engine/realtime.h"

static uint64_t wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

typedef struct probe {
	uint64_t wall0;
	uint64_t wall_at[8];
	sim_time virt_at[8];
	uint64_t order[8];
	int n;
	sim_realtime *rt;
	int pipe_w;
} probe;

static void record(sim_engine *eng, sim_event *ev)
{
	probe *p = ev->ctx;
	p->wall_at[p->n] = wall_ns() - p->wall0;
	p->virt_at[p->n] = sim_now(eng);
	p->order[p->n++] = ev->arg;
}

Test(realtime, timer_fires_no_earlier_than_its_wall_delay)
{
	sim_engine *eng = sim_engine_new(1);
	sim_realtime *rt = sim_realtime_new(eng);
	probe p = { .wall0 = wall_ns() };
	sim_post(eng, 20 * SIM_MS, sim_kind("test.t"), 0, record, &p, 7);
	cr_assert_eq(sim_realtime_run(rt, SIM_TIME_NEVER), SIM_RT_IDLE);
	cr_assert_eq(p.n, 1);
	cr_assert_eq(p.virt_at[0], 20 * SIM_MS, "the handler sees the event's own time");
	cr_assert_geq(p.wall_at[0], 20 * SIM_MS, "fired after %llu ns of wall time", (unsigned long long)p.wall_at[0]);
	cr_assert_lt(p.wall_at[0], 2 * SIM_S);
	sim_realtime_free(rt);
	sim_engine_free(eng);
}

Test(realtime, events_run_in_time_order_and_virtual_time_follows_wall_time)
{
	sim_engine *eng = sim_engine_new(1);
	sim_realtime *rt = sim_realtime_new(eng);
	probe p = { .wall0 = wall_ns() };
	uint32_t k = sim_kind("test.t");
	sim_post(eng, 30 * SIM_MS, k, 0, record, &p, 3);
	sim_post(eng, 10 * SIM_MS, k, 0, record, &p, 1);
	sim_post(eng, 20 * SIM_MS, k, 0, record, &p, 2);
	cr_assert_eq(sim_realtime_run(rt, 50 * SIM_MS), SIM_RT_TIME);
	uint64_t wall = wall_ns() - p.wall0;
	cr_assert_eq(p.n, 3);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(p.order[i], (uint64_t)i + 1);
		cr_assert_geq(p.wall_at[i], (uint64_t)(i + 1) * 10 * SIM_MS);
	}
	cr_assert_eq(sim_now(eng), 50 * SIM_MS, "the run ends exactly at its limit");
	cr_assert_geq(wall, 50 * SIM_MS);
	sim_realtime_free(rt);
	sim_engine_free(eng);
}

Test(realtime, a_limit_without_events_waits_for_wall_time)
{
	sim_engine *eng = sim_engine_new(1);
	sim_realtime *rt = sim_realtime_new(eng);
	uint64_t t0 = wall_ns();
	cr_assert_eq(sim_realtime_run(rt, 25 * SIM_MS), SIM_RT_TIME);
	cr_assert_geq(wall_ns() - t0, 25 * SIM_MS);
	cr_assert_eq(sim_now(eng), 25 * SIM_MS);
	sim_realtime_free(rt);
	sim_engine_free(eng);
}

Test(realtime, nothing_to_wait_for_returns_idle_at_once)
{
	sim_engine *eng = sim_engine_new(1);
	sim_realtime *rt = sim_realtime_new(eng);
	uint64_t t0 = wall_ns();
	cr_assert_eq(sim_realtime_run(rt, SIM_TIME_NEVER), SIM_RT_IDLE);
	cr_assert_lt(wall_ns() - t0, SIM_S);
	cr_assert_lt(sim_now(eng), SIM_S, "time passed only while the run lasted");
	sim_realtime_free(rt);
	sim_engine_free(eng);
}

static void stopper(sim_engine *eng, sim_event *ev)
{
	(void)ev;
	sim_engine_stop(eng);
}

Test(realtime, engine_stop_ends_the_run)
{
	sim_engine *eng = sim_engine_new(1);
	sim_realtime *rt = sim_realtime_new(eng);
	probe p = { .wall0 = wall_ns() };
	sim_post(eng, 5 * SIM_MS, sim_kind("test.stop"), 0, stopper, NULL, 0);
	sim_post(eng, 10 * SIM_S, sim_kind("test.t"), 0, record, &p, 1);
	cr_assert_eq(sim_realtime_run(rt, SIM_TIME_NEVER), SIM_RT_STOPPED);
	cr_assert_eq(p.n, 0, "the later event did not run");
	cr_assert_eq(sim_engine_pending(eng), 1);
	sim_realtime_free(rt);
	sim_engine_free(eng);
}

/* A descriptor written by another thread (as a completion channel is by the kernel)
 * wakes the loop; the callback sees the engine at the current wall time and events it
 * schedules for "now" run at once. */
static gpointer writer(gpointer data)
{
	probe *p = data;
	g_usleep(20000);
	ssize_t w = write(p->pipe_w, "x", 1);
	(void)w;
	return NULL;
}

static void after_wake(sim_engine *eng, sim_event *ev)
{
	probe *p = ev->ctx;
	record(eng, ev);
	sim_realtime_quit(p->rt);
}

static sim_engine *fd_engine;

static void on_readable(void *ctx, int fd)
{
	probe *p = ctx;
	char c;
	cr_assert_eq(read(fd, &c, 1), 1);
	p->wall_at[p->n] = wall_ns() - p->wall0;
	p->virt_at[p->n] = sim_now(fd_engine);
	p->order[p->n++] = 100;
	sim_post(fd_engine, sim_now(fd_engine), sim_kind("test.wake"), 0, after_wake, p, 101);
}

Test(realtime, descriptor_wakes_the_loop_with_the_engine_up_to_date)
{
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	fd_engine = sim_engine_new(1);
	sim_realtime *rt = sim_realtime_new(fd_engine);
	probe p = { .wall0 = wall_ns(), .rt = rt, .pipe_w = fds[1] };
	sim_realtime_watch_fd(rt, fds[0], on_readable, &p);
	GThread *t = g_thread_new("writer", writer, &p);
	cr_assert_eq(sim_realtime_run(rt, 5 * SIM_S), SIM_RT_QUIT);
	g_thread_join(t);
	cr_assert_eq(p.n, 2);
	cr_assert_eq(p.order[0], 100);
	cr_assert_eq(p.order[1], 101);
	cr_assert_geq(p.virt_at[0], 20 * SIM_MS, "engine time at the wake-up: %llu", (unsigned long long)p.virt_at[0]);
	cr_assert_lt(p.virt_at[0], 5 * SIM_S);
	cr_assert_eq(p.virt_at[1], p.virt_at[0], "an event posted for now runs at that time");
	sim_realtime_free(rt);
	sim_engine_free(fd_engine);
	close(fds[0]);
	close(fds[1]);
}

Test(realtime, unwatched_descriptor_no_longer_keeps_the_loop_alive)
{
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	sim_engine *eng = sim_engine_new(1);
	sim_realtime *rt = sim_realtime_new(eng);
	unsigned id = sim_realtime_watch_fd(rt, fds[0], on_readable, NULL);
	cr_assert_gt(id, 0);
	sim_realtime_unwatch(rt, id);
	cr_assert_eq(sim_realtime_run(rt, SIM_TIME_NEVER), SIM_RT_IDLE);
	sim_realtime_free(rt);
	sim_engine_free(eng);
	close(fds[0]);
	close(fds[1]);
}

/* A caller that runs in short slices (smcr-sim interop: 50 ms at a time) must not lose
 * the wall time spent between slices, or its protocol timers run slow: against Linux,
 * our 2 s TEST_LINK timer fired some 20 ms late every time and never once beat Linux's. */
Test(realtime, back_to_back_runs_keep_one_clock)
{
	sim_engine *eng = sim_engine_new(1);
	sim_realtime *rt = sim_realtime_new(eng);
	cr_assert_eq(sim_realtime_run(rt, 20 * SIM_MS), SIM_RT_TIME);
	usleep(100 * 1000); /* the caller is busy for 100 ms between two slices */
	uint64_t t0 = wall_ns();
	cr_assert_eq(sim_realtime_run(rt, 70 * SIM_MS), SIM_RT_TIME);
	cr_assert_lt(wall_ns() - t0, 40 * SIM_MS, "the slice's 50 ms had passed already (took %llu ns)",
	             (unsigned long long)(wall_ns() - t0));
	cr_assert_eq(sim_now(eng), 70 * SIM_MS);
	sim_realtime_free(rt);
	sim_engine_free(eng);
}

Test(realtime, a_run_after_the_engine_moved_on_its_own_starts_a_new_clock)
{
	sim_engine *eng = sim_engine_new(1);
	sim_realtime *rt = sim_realtime_new(eng);
	cr_assert_eq(sim_realtime_run(rt, 20 * SIM_MS), SIM_RT_TIME);
	sim_engine_advance(eng, 10 * SIM_S); /* simulated time, not wall time */
	uint64_t t0 = wall_ns();
	cr_assert_eq(sim_realtime_run(rt, 10 * SIM_S + 30 * SIM_MS), SIM_RT_TIME);
	cr_assert_geq(wall_ns() - t0, 30 * SIM_MS, "the new clock starts where the engine is");
	sim_realtime_free(rt);
	sim_engine_free(eng);
}
