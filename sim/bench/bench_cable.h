/* A point-to-point cable between two netifs: each frame is copied and handed to the other
 * end from an engine event a fixed latency later (no switch, no serialisation). The
 * stacks benchmark joins its many stack pairs with these; every frame is counted. */
#ifndef SIM_BENCH_CABLE_H
#define SIM_BENCH_CABLE_H

#include <stdint.h>

#include "sim/engine/engine.h"
#include "sim/net/netif.h"

typedef struct bench_cable bench_cable;

typedef struct bench_cable_end {
	bench_cable *c;
	int side;
} bench_cable_end;

struct bench_cable {
	sim_engine *eng;
	netif *nif[2];
	bench_cable_end end[2];
	sim_time latency;
	uint32_t kind;
	uint64_t *frames; /* counter shared by all cables of a run */
};

/* Join a and b (the cable is the netifs' link from now on; it lives as long as they do). */
void bench_cable_join(bench_cable *c, sim_engine *eng, netif *a, netif *b, sim_time latency, uint64_t *frames);

#endif
