/* Several observers of one run behind the one observer a world takes (world_opts.observer):
 * each callback goes to every member that has it, in the order they were added. At most
 * one member samples (the statistics); its interval is the mux's. */
#ifndef SIM_OBS_MUX_H
#define SIM_OBS_MUX_H

#include "sim/world/world.h"

#define OBS_MUX_MAX 8

typedef struct obs_mux {
	world_observer members[OBS_MUX_MAX];
	size_t n;
	world_observer obs; /* give &obs to the world */
} obs_mux;

void obs_mux_init(obs_mux *m);
/* Copy an observer in; -1 when full or when a second one samples. */
int obs_mux_add(obs_mux *m, const world_observer *o);

#endif
