/* A message-sequence chart of a run (msc.h): an observer of the world (world_observer.h)
 * that draws every message a stack sends as an arrow to its peer, and marks the
 * timeline's actions (fail, restore, set, start, stop) across all lifelines, links going
 * up and down and link groups ending on the stack's lifeline, fallbacks on the client's
 * and failed expectations across all. CDC messages: all, none, or every Nth of each
 * connection and direction plus every close, abort or failover validation (the event
 * stream's sampling). */
#ifndef SIM_MSC_RUN_H
#define SIM_MSC_RUN_H

#include "sim/observe/event_stream.h"
#include "sim/observe/msc.h"
#include "sim/observe/obs_ident.h"
#include "sim/world/world.h"

typedef struct msc_run msc_run;

/* Lifelines are the scenario's stacks, in scenario order. */
msc_run *msc_run_new(msc_chart *c, world *w, obs_ident *id, obs_cdc_mode cdc, uint32_t cdc_every);
void msc_run_observer(msc_run *r, world_observer *obs);
void msc_run_free(msc_run *r);

#endif
