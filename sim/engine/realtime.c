/* Real-time driver (see realtime.h): one custom GSource wakes the loop when the engine's
 * next event is due, g_unix_fd sources wake it for descriptors. */
#include "sim/engine/realtime.h"

#include <glib-unix.h>
#include <glib.h>
#include <limits.h>
#include <time.h>

typedef struct engine_source {
	GSource base;
	sim_realtime *rt;
} engine_source;

typedef struct fd_watch {
	sim_realtime *rt;
	sim_realtime_fd_fn fn;
	void *ctx;
	int fd;
} fd_watch;

struct sim_realtime {
	sim_engine *eng;
	GMainContext *ctx;
	GSource *timer;
	unsigned watches; /* descriptors being watched */
	int running;
	sim_realtime_result result;
	int done;
	sim_time until;
	sim_time virt_start; /* engine time when the clock was set */
	uint64_t wall_start; /* monotonic ns then */
	int clock_kept;      /* the last run reached its limit: the next may go on with its clock */
	sim_time kept_at;    /* ... if the engine is still at that limit */
};

uint64_t sim_realtime_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static sim_time wall_virtual(const sim_realtime *rt)
{
	return rt->virt_start + (sim_realtime_clock_ns() - rt->wall_start);
}

static void finish(sim_realtime *rt, sim_realtime_result r)
{
	if (!rt->done) {
		rt->done = 1;
		rt->result = r;
	}
}

/* Run every due event and return the engine's time (= wall time since the run began,
 * plus the virtual time at its start). Only meaningful inside sim_realtime_run(). */
static sim_time sim_realtime_sync(sim_realtime *rt)
{
	if (!rt->running)
		return sim_now(rt->eng);
	sim_time target = wall_virtual(rt);
	if (target > rt->until)
		target = rt->until;
	if (target < sim_now(rt->eng))
		target = sim_now(rt->eng);
	if (sim_engine_run(rt->eng, target, 0) == SIM_RUN_STOPPED)
		finish(rt, SIM_RT_STOPPED);
	/* run() leaves the clock at the last event when it went idle; time still passes */
	sim_engine_advance(rt->eng, target);
	if (sim_now(rt->eng) >= rt->until)
		finish(rt, SIM_RT_TIME);
	return sim_now(rt->eng);
}

/* The engine source: due when the next event (or the run's limit) is not in the future. */
static sim_time next_deadline(const sim_realtime *rt)
{
	sim_time next = sim_engine_next_time(rt->eng);
	return next < rt->until ? next : rt->until;
}

static gboolean engine_prepare(GSource *src, gint *timeout)
{
	sim_realtime *rt = ((engine_source *)src)->rt;
	sim_time deadline = next_deadline(rt);
	if (deadline == SIM_TIME_NEVER) {
		*timeout = -1;
		return FALSE;
	}
	sim_time now = wall_virtual(rt);
	if (deadline <= now) {
		*timeout = 0;
		return TRUE;
	}
	/* poll() counts in milliseconds: round up so the loop never spins before a deadline */
	uint64_t ms = (deadline - now + 999999u) / 1000000u;
	*timeout = ms > INT_MAX ? INT_MAX : (gint)ms;
	return FALSE;
}

static gboolean engine_check(GSource *src)
{
	sim_realtime *rt = ((engine_source *)src)->rt;
	sim_time deadline = next_deadline(rt);
	return deadline != SIM_TIME_NEVER && deadline <= wall_virtual(rt);
}

static gboolean engine_dispatch(GSource *src, GSourceFunc cb, gpointer data)
{
	(void)cb;
	(void)data;
	sim_realtime_sync(((engine_source *)src)->rt);
	return G_SOURCE_CONTINUE;
}

static GSourceFuncs engine_funcs = {
	.prepare = engine_prepare,
	.check = engine_check,
	.dispatch = engine_dispatch,
};

sim_realtime *sim_realtime_new(sim_engine *eng)
{
	sim_realtime *rt = g_new0(sim_realtime, 1);
	rt->eng = eng;
	rt->ctx = g_main_context_new();
	rt->until = SIM_TIME_NEVER;
	rt->timer = g_source_new(&engine_funcs, sizeof(engine_source));
	((engine_source *)rt->timer)->rt = rt;
	g_source_attach(rt->timer, rt->ctx);
	return rt;
}

void sim_realtime_free(sim_realtime *rt)
{
	if (!rt)
		return;
	g_source_destroy(rt->timer);
	g_source_unref(rt->timer);
	g_main_context_unref(rt->ctx); /* destroys the fd sources still attached */
	g_free(rt);
}

static gboolean on_fd(gint fd, GIOCondition cond, gpointer data)
{
	(void)cond;
	fd_watch *w = data;
	sim_realtime_sync(w->rt);
	w->fn(w->ctx, fd);
	return G_SOURCE_CONTINUE;
}

static void watch_gone(gpointer data)
{
	fd_watch *w = data;
	w->rt->watches--;
	g_free(w);
}

static unsigned watch(sim_realtime *rt, int fd, GIOCondition cond, sim_realtime_fd_fn fn, void *ctx)
{
	fd_watch *w = g_new0(fd_watch, 1);
	*w = (fd_watch){ .rt = rt, .fn = fn, .ctx = ctx, .fd = fd };
	GSource *src = g_unix_fd_source_new(fd, cond | G_IO_ERR | G_IO_HUP);
	g_source_set_callback(src, (GSourceFunc)(void (*)(void))on_fd, w, watch_gone);
	unsigned id = g_source_attach(src, rt->ctx);
	g_source_unref(src);
	rt->watches++;
	return id;
}

unsigned sim_realtime_watch_fd(sim_realtime *rt, int fd, sim_realtime_fd_fn fn, void *ctx)
{
	return watch(rt, fd, G_IO_IN, fn, ctx);
}

unsigned sim_realtime_watch_fd_out(sim_realtime *rt, int fd, sim_realtime_fd_fn fn, void *ctx)
{
	return watch(rt, fd, G_IO_OUT, fn, ctx);
}

void sim_realtime_unwatch(sim_realtime *rt, unsigned id)
{
	GSource *src = g_main_context_find_source_by_id(rt->ctx, id);
	if (src)
		g_source_destroy(src);
}

void sim_realtime_quit(sim_realtime *rt) { finish(rt, SIM_RT_QUIT); }

sim_realtime_result sim_realtime_run(sim_realtime *rt, sim_time until)
{
	rt->until = until;
	rt->done = 0;
	/* A run that follows one that ended at its limit, with the engine untouched since,
	 * keeps that clock: the wall time the caller spent between the two still counts
	 * (new clocks each slice would lose it, and timers would run slow) */
	if (!rt->clock_kept || sim_now(rt->eng) != rt->kept_at) {
		rt->virt_start = sim_now(rt->eng);
		rt->wall_start = sim_realtime_clock_ns();
	}
	rt->running = 1;
	g_main_context_push_thread_default(rt->ctx);
	sim_realtime_sync(rt);
	while (!rt->done) {
		if (rt->watches == 0 && sim_engine_next_time(rt->eng) == SIM_TIME_NEVER && until == SIM_TIME_NEVER) {
			finish(rt, SIM_RT_IDLE);
			break;
		}
		g_main_context_iteration(rt->ctx, TRUE);
	}
	g_main_context_pop_thread_default(rt->ctx);
	rt->running = 0;
	rt->until = SIM_TIME_NEVER;
	rt->clock_kept = rt->result == SIM_RT_TIME;
	rt->kept_at = sim_now(rt->eng);
	return rt->result;
}
