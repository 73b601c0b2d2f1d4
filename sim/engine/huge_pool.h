/* A pool of fixed-size blocks carved from 2 MiB slabs that are advised as huge pages.
 *
 * Why: an ARP storm's deliveries each touch a handful of small objects spread over
 * gigabytes (every wire's FIFO chunks, the wires themselves), in no order a cache or the
 * hardware prefetcher can follow: on 4 KiB pages every such cache miss is a TLB miss too,
 * a page walk before the line is even asked for. On 2 MiB pages the TLB covers them.
 *
 * A block whose size is a multiple of 64 is aligned to 64 bytes (a cache line). Blocks
 * are not zeroed; a block given back is the next one handed out (it is likely still in
 * cache). The pool only grows; destroying it frees every block at once.
 * Under AddressSanitizer a block given back is poisoned until handed out again. Like
 * the engine, a pool is single-threaded. Running out of memory ends the run
 * (sim/engine/oom.h).
 */
#ifndef SIM_HUGE_POOL_H
#define SIM_HUGE_POOL_H

#include <stddef.h>

typedef struct sim_huge_pool {
	size_t size;       /* of a block */
	const char *what;  /* for the out-of-memory message */
	void *free_list;   /* blocks given back; each holds the next one's address */
	char *cur, *end;   /* the part of the newest slab not handed out yet */
	void **slabs;      /* every slab, for destroy */
	size_t n_slabs, cap_slabs;
	size_t in_use;     /* blocks handed out and not given back */
} sim_huge_pool;

/* size >= sizeof(void *) and at most a slab. */
void sim_huge_pool_init(sim_huge_pool *p, size_t size, const char *what);
void *sim_huge_pool_get(sim_huge_pool *p);
void sim_huge_pool_put(sim_huge_pool *p, void *block);
/* Frees every slab (blocks still handed out included). */
void sim_huge_pool_destroy(sim_huge_pool *p);
/* Bytes the pool holds from the system. */
size_t sim_huge_pool_bytes(const sim_huge_pool *p);

#endif
