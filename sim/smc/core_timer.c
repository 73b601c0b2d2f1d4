/* See core_timer.h. */
#include "sim/smc/core_timer.h"

void sim_core_timer_sync(sim_engine *eng, sim_event *timer, const smcr_ctx *ctx)
{
	uint64_t t = smcr_ctx_next_expiry(ctx);
	if (t == SMCR_NEVER) {
		sim_event_cancel(eng, timer);
		return;
	}
	uint64_t now = sim_now(eng);
	if (t < now)
		t = now;
	/* moving the event only when the expiry changed keeps the engine's work down */
	if (!sim_event_pending(timer) || timer->at != t)
		sim_event_schedule(eng, timer, t);
}
