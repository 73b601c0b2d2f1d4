/* The fabric container. */
#include "sim/fabric/fabric.h"

#include <stdlib.h>

#include "sim/engine/oom.h"
#include "sim/fabric/hop_int.h"

typedef struct adopted {
	void *obj;
	void (*free_fn)(void *obj);
} adopted;

struct sim_fabric {
	sim_engine *eng;
	sim_frame_pool *frames;
	uint64_t next_id;
	adopted *objs;
	size_t n_objs, cap_objs;
	sim_huge_pool **pools; /* by size, in the order first asked for */
	size_t n_pools;
	sim_hops *hops; /* event-free switch hops (NULL: none) */
};

sim_fabric *sim_fabric_new(sim_engine *eng)
{
	sim_fabric *fab = sim_xcalloc(1, sizeof(*fab), "the fabric");
	fab->eng = eng;
	fab->frames = sim_frame_pool_new();
	fab->next_id = 1;
	fab->hops = sim_hops_new(fab, eng);
	return fab;
}

void sim_fabric_free(sim_fabric *fab)
{
	if (!fab)
		return;
	for (size_t i = fab->n_objs; i-- > 0;)
		fab->objs[i].free_fn(fab->objs[i].obj);
	free(fab->objs);
	sim_hops_free(fab->hops);
	for (size_t i = 0; i < fab->n_pools; i++) {
		sim_huge_pool_destroy(fab->pools[i]);
		free(fab->pools[i]);
	}
	free(fab->pools);
	sim_frame_pool_free(fab->frames);
	free(fab);
}

sim_engine *sim_fabric_engine(const sim_fabric *fab) { return fab->eng; }
sim_frame_pool *sim_fabric_frames(const sim_fabric *fab) { return fab->frames; }
uint64_t sim_fabric_new_id(sim_fabric *fab) { return fab->next_id++; }
sim_hops *sim_fabric_hops(const sim_fabric *fab) { return fab->hops; }

void sim_fabric_set_event_hops(sim_fabric *fab, bool every_hop_an_event)
{
	sim_hops_set_enabled(fab->hops, !every_hop_an_event);
}

void sim_fabric_adopt(sim_fabric *fab, void *obj, void (*free_fn)(void *obj))
{
	if (fab->n_objs == fab->cap_objs) {
		fab->cap_objs = fab->cap_objs ? fab->cap_objs * 2 : 16;
		fab->objs = sim_xreallocarray(fab->objs, fab->cap_objs, sizeof(*fab->objs), "the fabric");
	}
	fab->objs[fab->n_objs++] = (adopted){ obj, free_fn };
}

sim_huge_pool *sim_fabric_huge_pool(sim_fabric *fab, size_t size)
{
	for (size_t i = 0; i < fab->n_pools; i++)
		if (fab->pools[i]->size == size)
			return fab->pools[i];
	/* a handful of sizes; each pool has its own address, which objects keep */
	fab->pools = sim_xreallocarray(fab->pools, fab->n_pools + 1, sizeof(*fab->pools), "the fabric");
	sim_huge_pool *p = sim_xmalloc(sizeof(*p), "the fabric");
	sim_huge_pool_init(p, size, "fabric objects");
	fab->pools[fab->n_pools++] = p;
	return p;
}
