/* The links' timeline as SVG: one lane per link as one stack sees it, its state over time
 * as a coloured band (active, activating, inactive, gone) and its throughput (bytes sent
 * per sampling interval, in Mbit/s) as a line under it, the scenario's timeline actions
 * (fail, restore, set, …) as dashed vertical marks, virtual time along the bottom. Drawn
 * from the statistics sampler's link series (link_series.h). */
#ifndef SIM_TIMELINE_SVG_H
#define SIM_TIMELINE_SVG_H

#include <stdio.h>

#include "sim/observe/link_series.h"

/* The window [from_ns, to_ns] of the run (to_ns 0: to the last sample): what lies
 * outside it is left out. */
void timeline_svg_write(FILE *f, const link_series *s, uint64_t from_ns, uint64_t to_ns);

#endif
