/* The core's pulled timers on an engine: one engine event per core, kept at the core's
 * next expiry (never in the past). Every host of a core (the SMC-R layer of a stack, a
 * node, the test and benchmark harnesses) calls this after each entry into the core. */
#ifndef SIM_CORE_TIMER_H
#define SIM_CORE_TIMER_H

#include "model/smcr.h"
#include "sim/engine/engine.h"

void sim_core_timer_sync(sim_engine *eng, sim_event *timer, const smcr_ctx *ctx);

#endif
