/* The SMC-R links a run had, for the topology picture (topology_svg.h): an observer that
 * notes every link that becomes active (its stack, adapter port, link ids, peer) and pairs
 * the two ends of each link by their link ids when asked. */
#ifndef SIM_TOPOLOGY_RUN_H
#define SIM_TOPOLOGY_RUN_H

#include <stddef.h>

#include "sim/observe/obs_ident.h"
#include "sim/observe/topology_svg.h"
#include "sim/world/world.h"

typedef struct topology_run topology_run;

topology_run *topology_run_new(world *w, obs_ident *id);
void topology_run_observer(topology_run *t, world_observer *obs);
/* The links seen, each once (both ends known), in the order they became active; valid
 * until the next call or topology_run_free. */
const topo_link *topology_run_links(topology_run *t, size_t *n);
void topology_run_free(topology_run *t);

#endif
