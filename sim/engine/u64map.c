/* The 64-bit-keyed hash map. */
#include "sim/engine/u64map.h"

#include <stdlib.h>

#include "sim/engine/oom.h"
#include "sim/engine/rng.h"

static size_t home(const u64map *m, uint64_t key) { return (size_t)sim_mix64(key) & (m->cap - 1); }

void u64map_free(u64map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->used = 0;
}

void *u64map_get(const u64map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = home(m, key);; i = (i + 1) & (m->cap - 1)) {
		if (m->slots[i].key == key)
			return m->slots[i].val;
		if (!m->slots[i].key)
			return NULL;
	}
}

static void insert(u64map *m, uint64_t key, void *val)
{
	size_t i = home(m, key);
	while (m->slots[i].key && m->slots[i].key != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->slots[i].key)
		m->used++;
	m->slots[i] = (u64map_slot){ key, val };
}

void u64map_put(u64map *m, uint64_t key, void *val)
{
	if (2 * (m->used + 1) > m->cap) {
		u64map old = *m;
		m->cap = old.cap ? old.cap * 2 : 16;
		m->slots = sim_xcalloc(m->cap, sizeof(*m->slots), "a lookup table");
		m->used = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.slots[i].key)
				insert(m, old.slots[i].key, old.slots[i].val);
		free(old.slots);
	}
	insert(m, key, val);
}

void *u64map_del(u64map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	size_t mask = m->cap - 1, i = home(m, key);
	while (m->slots[i].key != key) {
		if (!m->slots[i].key)
			return NULL;
		i = (i + 1) & mask;
	}
	void *val = m->slots[i].val;
	/* backward shift: pull up later entries of the run that may live in the hole */
	for (size_t j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
		size_t h = home(m, m->slots[j].key);
		/* the entry at j may move to i unless its home lies cyclically in (i, j] */
		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i] = (u64map_slot){ 0, NULL };
	m->used--;
	return val;
}
