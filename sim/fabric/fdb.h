/* A switch's forwarding database: learned (VLAN, MAC) -> port, with aging.
 *
 * A hash table to find, never to list: open addressing with linear probing, sized to what
 * was learned (it doubles up to twice the capacity, so it stays at most half full) instead
 * of to the capacity, and counted per port, so that flushing a port that learned nothing
 * (every link coming up while a fabric is built) costs nothing. Aging is by virtual time
 * only: an entry not seen for longer than `aging` is treated as absent by lookups and
 * purged when the table is full; learning refreshes it. Nothing here depends on the order
 * of the slots, so nothing that reaches output does either. */
#ifndef SIM_FDB_H
#define SIM_FDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/engine.h"

typedef struct sim_fdb_entry {
	uint64_t key; /* (vid + 1) << 48 | MAC, 0 = empty slot */
	sim_time seen;
	uint32_t port;
} sim_fdb_entry;

typedef struct sim_fdb {
	sim_fdb_entry *slots;
	size_t cap;     /* power of two */
	size_t max_cap; /* power of two >= 2 * capacity */
	size_t used;
	uint32_t capacity; /* most entries learned */
	sim_time aging;
	uint32_t *per_port; /* entries per port */
	uint32_t nports;
	uint64_t moves; /* learned entries that changed port (a station moved) */
	uint64_t gen;   /* bumped whenever entries are added, moved or dropped (entry pointers go stale) */
} sim_fdb;

void sim_fdb_init(sim_fdb *t, uint32_t capacity, sim_time aging, uint32_t nports);
void sim_fdb_destroy(sim_fdb *t);

/* Learn (or refresh, or move) mac on port, seen at `seen`. When the table is full, aged
 * entries (as of `now`) are purged first; false if it is still full (not learned). */
bool sim_fdb_learn(sim_fdb *t, uint16_t vid, const uint8_t *mac, uint32_t port, sim_time seen, sim_time now);
/* The port mac was learned on, or -1 (unknown or aged as of now). */
int sim_fdb_lookup(const sim_fdb *t, uint16_t vid, const uint8_t *mac, sim_time now);
/* The entry for (vid, mac), aged or not, or NULL; valid while gen stays. */
sim_fdb_entry *sim_fdb_entry_of(const sim_fdb *t, uint16_t vid, const uint8_t *mac);
static inline bool sim_fdb_aged(const sim_fdb *t, const sim_fdb_entry *e, sim_time now)
{
	return now > e->seen && now - e->seen > t->aging;
}
/* Undo a refresh (sim_fdb_learn of an entry on the same port, seen at `seen`): the entry,
 * if still so, was seen at `was` instead. */
void sim_fdb_unrefresh(sim_fdb *t, uint16_t vid, const uint8_t *mac, uint32_t port, sim_time seen, sim_time was);
/* Forget what a port learned (its link went away, it was reconfigured). */
void sim_fdb_flush_port(sim_fdb *t, uint32_t port);
/* Forget everything (the switch failed). */
void sim_fdb_flush(sim_fdb *t);
/* Entries held (aged ones not purged yet included). */
static inline size_t sim_fdb_count(const sim_fdb *t) { return t->used; }

#endif
