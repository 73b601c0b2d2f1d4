/* The forwarding database: a growing open-addressing hash table with per-port counts. */
#include "sim/fabric/fdb.h"

#include <stdlib.h>

#include "sim/engine/oom.h"
#include "sim/engine/rng.h"
#include "sim/fabric/eth_header.h"

#define FIRST_CAP 16u

static inline uint64_t key_of(uint16_t vid, const uint8_t *mac)
{
	/* the VID is stored +1 so that no valid key is 0 */
	return ((uint64_t)(vid + 1u) << 48) | sim_mac_key(mac);
}

static sim_fdb_entry *find(const sim_fdb *t, uint64_t key)
{
	size_t mask = t->cap - 1;
	for (size_t i = (size_t)sim_mix64(key) & mask;; i = (i + 1) & mask) {
		sim_fdb_entry *e = &t->slots[i];
		if (e->key == key || e->key == 0)
			return e;
	}
}

void sim_fdb_init(sim_fdb *t, uint32_t capacity, sim_time aging, uint32_t nports)
{
	t->capacity = capacity ? capacity : 1;
	t->aging = aging;
	t->max_cap = FIRST_CAP;
	while (t->max_cap < 2u * (size_t)t->capacity)
		t->max_cap *= 2;
	t->cap = FIRST_CAP < t->max_cap ? FIRST_CAP : t->max_cap;
	t->slots = sim_xcalloc(t->cap, sizeof(*t->slots), "a switch's MAC table");
	t->used = 0;
	t->nports = nports;
	t->per_port = sim_xcalloc(nports ? nports : 1, sizeof(*t->per_port), "a switch's MAC table");
}

void sim_fdb_destroy(sim_fdb *t)
{
	free(t->slots);
	free(t->per_port);
	t->slots = NULL;
	t->per_port = NULL;
}

static bool aged(const sim_fdb *t, const sim_fdb_entry *e, sim_time now) { return sim_fdb_aged(t, e, now); }

/* Refill the table at `cap` slots with the entries that pass keep(). */
static void rebuild(sim_fdb *t, size_t cap, bool (*keep)(const sim_fdb *, const sim_fdb_entry *, uint64_t),
                    uint64_t arg)
{
	sim_fdb_entry *old = t->slots;
	size_t old_cap = t->cap;
	t->gen++;
	t->slots = sim_xcalloc(cap, sizeof(*t->slots), "a switch's MAC table");
	t->cap = cap;
	t->used = 0;
	for (uint32_t p = 0; p < t->nports; p++)
		t->per_port[p] = 0;
	for (size_t i = 0; i < old_cap; i++) {
		if (!old[i].key || !keep(t, &old[i], arg))
			continue;
		*find(t, old[i].key) = old[i];
		t->used++;
		t->per_port[old[i].port]++;
	}
	free(old);
}

static bool keep_all(const sim_fdb *t, const sim_fdb_entry *e, uint64_t arg)
{
	(void)t;
	(void)e;
	(void)arg;
	return true;
}

static bool keep_fresh(const sim_fdb *t, const sim_fdb_entry *e, uint64_t now) { return !aged(t, e, now); }

static bool keep_other_ports(const sim_fdb *t, const sim_fdb_entry *e, uint64_t port)
{
	(void)t;
	return e->port != port;
}

bool sim_fdb_learn(sim_fdb *t, uint16_t vid, const uint8_t *mac, uint32_t port, sim_time seen, sim_time now)
{
	uint64_t key = key_of(vid, mac);
	sim_fdb_entry *e = find(t, key);
	if (e->key == 0) {
		if (t->used >= t->capacity) {
			rebuild(t, t->cap, keep_fresh, now);
			e = find(t, key);
		}
		if (t->used >= t->capacity)
			return false;
		if (2 * (t->used + 1) > t->cap && t->cap < t->max_cap) {
			rebuild(t, t->cap * 2, keep_all, 0);
			e = find(t, key);
		}
		e->key = key;
		t->used++;
		t->per_port[port]++;
		t->gen++;
	} else if (e->port != port) {
		t->per_port[e->port]--;
		t->per_port[port]++;
		t->moves++;
		t->gen++;
	}
	e->port = port;
	e->seen = seen;
	return true;
}

int sim_fdb_lookup(const sim_fdb *t, uint16_t vid, const uint8_t *mac, sim_time now)
{
	const sim_fdb_entry *e = find(t, key_of(vid, mac));
	if (e->key == 0 || aged(t, e, now))
		return -1;
	return (int)e->port;
}

sim_fdb_entry *sim_fdb_entry_of(const sim_fdb *t, uint16_t vid, const uint8_t *mac)
{
	sim_fdb_entry *e = find(t, key_of(vid, mac));
	return e->key ? e : NULL;
}

void sim_fdb_unrefresh(sim_fdb *t, uint16_t vid, const uint8_t *mac, uint32_t port, sim_time seen, sim_time was)
{
	sim_fdb_entry *e = find(t, key_of(vid, mac));
	if (e->key != 0 && e->port == port && e->seen == seen)
		e->seen = was;
}

void sim_fdb_flush_port(sim_fdb *t, uint32_t port)
{
	if (port < t->nports && t->per_port[port])
		rebuild(t, t->cap, keep_other_ports, port);
}

void sim_fdb_flush(sim_fdb *t)
{
	if (!t->used)
		return;
	sim_fdb_entry *old = t->slots;
	t->gen++;
	t->slots = sim_xcalloc(t->cap, sizeof(*t->slots), "a switch's MAC table");
	free(old);
	t->used = 0;
	for (uint32_t p = 0; p < t->nports; p++)
		t->per_port[p] = 0;
}
