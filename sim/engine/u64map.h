/* A hash map from nonzero 64-bit keys to pointers: to find, never to list.
 *
 * Open addressing with linear probing and backward-shift deletion (no tombstones), at most
 * half full; it grows by doubling and never shrinks. There is deliberately no iteration:
 * slot order depends on the hash, and nothing ordered by a hash may reach output, so
 * whoever needs a list keeps one in id order beside the map. */
#ifndef SIM_U64MAP_H
#define SIM_U64MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct u64map_slot {
	uint64_t key; /* 0 = empty */
	void *val;
} u64map_slot;

typedef struct u64map {
	u64map_slot *slots;
	size_t cap; /* 0 or a power of two */
	size_t used;
} u64map;

/* A zeroed u64map is an empty map; u64map_free returns it to that state. */
void u64map_free(u64map *m);
/* The value stored under key, or NULL. */
void *u64map_get(const u64map *m, uint64_t key);
/* Store (or replace) val under key (key != 0, val != NULL). Runs out of memory as
 * sim/engine/oom.h says. */
void u64map_put(u64map *m, uint64_t key, void *val);
/* Remove key; returns the value it had, or NULL. */
void *u64map_del(u64map *m, uint64_t key);
static inline size_t u64map_count(const u64map *m) { return m->used; }

#endif
