/* Byte-key hash map (see replay_map.h). */
#include "sim/replay/replay_map.h"

#include <glib.h>
#include <string.h>

void rp_map_init(rp_map *m, size_t klen)
{
	memset(m, 0, sizeof(*m));
	m->klen = klen;
}

void rp_map_free(rp_map *m)
{
	g_free(m->keys);
	g_free(m->vals);
	g_free(m->used);
	memset(m, 0, sizeof(*m));
}

/* 8 bytes at a time, then a final mix (keys are short: 12 to 64 bytes). */
static uint64_t hash(const uint8_t *k, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, k + i, 8);
		h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
		h ^= h >> 31;
	}
	for (; i < n; i++)
		h = (h ^ k[i]) * 0x100000001B3ull;
	h ^= h >> 29;
	h *= 0x94D049BB133111EBull;
	return h ^ (h >> 32);
}

static size_t find_slot(const rp_map *m, const void *key)
{
	size_t mask = m->cap - 1, i = (size_t)hash(key, m->klen) & mask;
	while (m->used[i] && memcmp(m->keys + i * m->klen, key, m->klen) != 0)
		i = (i + 1) & mask;
	return i;
}

uint64_t *rp_map_get(const rp_map *m, const void *key)
{
	if (m->cap == 0)
		return NULL;
	size_t i = find_slot(m, key);
	return m->used[i] ? &m->vals[i] : NULL;
}

static void grow(rp_map *m)
{
	rp_map old = *m;
	m->cap = old.cap ? old.cap * 2 : 64;
	m->n = 0;
	m->keys = g_malloc0(m->cap * m->klen);
	m->vals = g_malloc0(m->cap * sizeof(uint64_t));
	m->used = g_malloc0(m->cap);
	for (size_t i = 0; i < old.cap; i++)
		if (old.used[i])
			rp_map_put(m, old.keys + i * old.klen, old.vals[i]);
	g_free(old.keys);
	g_free(old.vals);
	g_free(old.used);
}

void rp_map_put(rp_map *m, const void *key, uint64_t val)
{
	if ((m->n + 1) * 4 > m->cap * 3)
		grow(m);
	size_t i = find_slot(m, key);
	if (!m->used[i]) {
		m->used[i] = 1;
		memcpy(m->keys + i * m->klen, key, m->klen);
		m->n++;
	}
	m->vals[i] = val;
}
