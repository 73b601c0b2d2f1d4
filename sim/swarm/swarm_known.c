/* Known failures of the swarm: violations it found whose cause is understood and kept on
 * purpose (Linux behaves so) or not fixed yet (the protocol core is another area's work).
 * Each pair is {text the violation line contains, reason}; the summary lists a failing
 * seed whose first violation matches under "known failures", with the reason, and does
 * not count it as new. Nothing is excluded silently: every known seed is still printed. */
#include <stddef.h>

#include "sim/swarm/swarm_job.h"

const char *const swarm_known_failures[] = {
	NULL,
};
