/* A small hash map from fixed-size byte keys to 64-bit values, for the replay decoder's
 * lookups (TCP 4-tuples, QP endpoints, alert tokens, rkeys). Open addressing with linear
 * probing; no deletion (a later put replaces the value). Never iterated for output, so
 * its order cannot leak into reports. */
#ifndef SIM_REPLAY_MAP_H
#define SIM_REPLAY_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct rp_map {
	size_t klen;   /* key length in bytes */
	size_t cap;    /* slots, a power of two */
	size_t n;      /* used slots */
	uint8_t *keys; /* cap * klen */
	uint64_t *vals;
	uint8_t *used;
} rp_map;

void rp_map_init(rp_map *m, size_t klen);
void rp_map_free(rp_map *m);
/* Pointer to the value stored under key, or NULL. Valid until the next put. */
uint64_t *rp_map_get(const rp_map *m, const void *key);
void rp_map_put(rp_map *m, const void *key, uint64_t val);

#endif
