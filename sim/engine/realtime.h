/* The real-time driver: runs a sim_engine against the monotonic clock inside a GLib main
 * loop, so simulated components (TCP/IP stacks, CLC) and real devices (verbs QPs, whose
 * completion channels are file descriptors) run together in one process.
 *
 * Virtual time tracks wall time from the start of each sim_realtime_run(): an event
 * scheduled for virtual time t fires once the monotonic clock has advanced by t - t0. A
 * run right after one that reached its limit (the engine untouched in between) goes on
 * with the same clock, so a caller running in slices loses no time between them.
 * Before any descriptor callback runs, every event that is due has run and the engine's
 * clock reads the current wall time, so the callback sees a consistent sim_now().
 * This file is the only place in sim/ that reads a clock (world_wall_seconds(), the progress
 * line on a terminal, reads it here too); the simulated path itself never does,
 * and a simulation that never uses this driver stays deterministic. */
#ifndef SIM_REALTIME_H
#define SIM_REALTIME_H

#include <stdint.h>

#include "sim/engine/engine.h"

typedef struct sim_realtime sim_realtime;

typedef enum sim_realtime_result {
	SIM_RT_QUIT,    /* sim_realtime_quit() was called */
	SIM_RT_TIME,    /* virtual time reached the limit */
	SIM_RT_IDLE,    /* no pending event and no descriptor watched: nothing can happen */
	SIM_RT_STOPPED, /* an event handler called sim_engine_stop() */
} sim_realtime_result;

/* A descriptor became readable. The engine is up to date when it is called. */
typedef void (*sim_realtime_fd_fn)(void *ctx, int fd);

/* The monotonic clock in ns, for wall-time measurements (benchmarks); never an input to
 * anything simulated. */
uint64_t sim_realtime_clock_ns(void);

/* The driver uses its own GMainContext; the engine stays owned by the caller. */
sim_realtime *sim_realtime_new(sim_engine *eng);
void sim_realtime_free(sim_realtime *rt);

/* Watch fd for readability (level-triggered) until sim_realtime_unwatch(id). Returns an
 * id > 0. */
unsigned sim_realtime_watch_fd(sim_realtime *rt, int fd, sim_realtime_fd_fn fn, void *ctx);
/* The same for writability (G_IO_OUT; errors and hang-ups wake it too). */
unsigned sim_realtime_watch_fd_out(sim_realtime *rt, int fd, sim_realtime_fd_fn fn, void *ctx);
void sim_realtime_unwatch(sim_realtime *rt, unsigned id);

/* Run until quit, the engine stops, virtual time reaches `until` (SIM_TIME_NEVER: no
 * limit) or nothing can happen any more. */
sim_realtime_result sim_realtime_run(sim_realtime *rt, sim_time until);
/* Make the running sim_realtime_run() return SIM_RT_QUIT (callable from any callback). */
void sim_realtime_quit(sim_realtime *rt);

#endif
