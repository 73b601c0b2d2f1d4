/* The observation options of `smcr-sim run` (sim/observe/):
 *   --events FILE          the event stream, JSON Lines ('-': standard output)
 *   --events-cdc WHICH     all (default), none, every=N
 *   --stats FILE           statistics over time: CSV, or JSON Lines for FILE.jsonl ('-': stdout)
 *   --stats-interval DUR   sampling interval in virtual time (default 100ms)
 *   --stats-format F       csv or jsonl (default: from the name, else csv)
 *   --topology FILE        the scenario's topology with the run's SMC-R links, SVG
 *   --timeline FILE        the links' states and throughput over the run, SVG (sampled
 *                          at --stats-interval)
 * With '-' the run's own text goes to standard error. A command adds them with one call,
 * checks them before building the world, and attaches them to the world it built. */
#ifndef TOOLS_OBSERVE_OPTS_H
#define TOOLS_OBSERVE_OPTS_H

#include <glib.h>
#include <stdbool.h>

#include "sim/world/world.h"

typedef struct observe_args {
	gchar *events, *events_cdc, *stats, *stats_interval, *stats_format, *topology, *timeline;
	gchar *from, *to; /* --timeline's window */
} observe_args;

void observe_option_add(GOptionContext *ctx, observe_args *a);
void observe_args_free(observe_args *a);

typedef struct observe_session observe_session;

/* Check the values, open the files, point o->observer at the session (and o->out at stderr
 * when an output takes stdout). end_ns: the run's end, which bounds the samples of
 * --stats and --timeline. NULL and exit status 2 in *rc after printing what is wrong
 * (prog: message); NULL with *rc 0 when no option asks for anything. */
observe_session *observe_session_new(const char *prog, const observe_args *a, world_opts *o, uint64_t end_ns, int *rc);
/* Begin observing the world built with those options; seed: the run's. */
void observe_session_start(observe_session *s, world *w, uint64_t seed);
/* After the run: flush and close the files. 0, or 2 after printing a write error. */
int observe_session_finish(observe_session *s, const char *prog);
void observe_session_free(observe_session *s);

#endif
