/* Lazily backed memory for simulated RMBs and send buffers.
 *
 * A real RNIC needs its registered memory resident; a simulated one only needs the bytes
 * that are in flight. Buffers here are page aligned and carved from large reservations
 * (mmap MAP_NORESERVE, ARENA_CHUNK bytes or one buffer, whichever is larger, so a million
 * buffers are a few hundred mappings, far below vm.max_map_count): pages nobody touched
 * cost nothing, and the pages of a buffer whose bytes were all consumed are given back
 * (madvise MADV_DONTNEED; they read as zero afterwards). The SMC-R core says when through
 * the optional buffer hooks of its allocator (smcr_mem buf_idle, model/smcr.h): the host
 * wires them to this arena for simulated adapters only (sim/smc/smc_layer.c), never for
 * real devices.
 *
 * When: a buffer that stays idle for a while of virtual time (16 ms at first). A streaming
 * connection drains its buffers and fills them again soon after: giving its pages back
 * at every drain would cost a system call and a page fault per page each time. So an idle
 * buffer joins its owner's idle list (oldest first), and the owner's calls into the arena
 * and its engine tick (sim_engine_tick_add) give back the buffers idle long enough. A
 * buffer that was given back and soon used again waits four times as long the next time
 * (up to about a second), so buffers that keep coming back stop paying. Which pages are
 * resident never changes what the simulation does, only what it costs.
 *
 * Bytes in flight: an RMB is written by the peer's RDMA WRITEs, which land before the CDC
 * that tells the core about them. So the simulated responder counts the bytes that land
 * in each buffer (lazy_arena_landed): a buffer the core calls idle having seen fewer bytes
 * than landed is not idle, and one that receives bytes while it waits is not either. A send
 * buffer is written by the core only, which says so first (lazy_arena_busy).
 *
 * Process-wide, like malloc: one arena serves every world of the process; idle lists
 * belong to their owners (a stack's SMC-R layer), each with its own engine's clock.
 * Running out of address space ends the run (sim/engine/oom.h). Single-threaded, like the
 * engine. Addresses never reach output (memory regions report synthetic I/O addresses). */
#ifndef SIM_LAZY_ARENA_H
#define SIM_LAZY_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/engine.h"

/* Idle times: LAZY_ARENA_IDLE_TIME << 2 * level for levels 0..LAZY_ARENA_LEVELS-1. */
#define LAZY_ARENA_IDLE_TIME (16 * SIM_MS)
#define LAZY_ARENA_LEVELS 4

typedef struct lazy_arena_idle lazy_arena_idle;

typedef struct lazy_arena_buf {
	uint8_t *addr;
	uint64_t landed;      /* bytes RDMA placed into it since it was allocated or reset */
	uint64_t idle_landed; /* landed when it was called idle */
	sim_time idle_since;
	sim_time released_at; /* when its pages were last given back */
	uint32_t cls;         /* size class: 2^cls bytes */
	uint8_t level;        /* how long it waits when idle */
	bool in_use;
	bool released;                      /* given back and not used since */
	lazy_arena_idle *idle;              /* the idle list it is on, or NULL */
	struct lazy_arena_buf *prev, *next; /* on the idle list, or the free list (next) */
} lazy_arena_buf;

/* An owner's buffers that are idle, oldest first, one list per level. Zeroed = empty. */
typedef struct lazy_arena_list {
	lazy_arena_buf *head, *tail;
} lazy_arena_list;

struct lazy_arena_idle {
	lazy_arena_list level[LAZY_ARENA_LEVELS];
	size_t n;
	sim_time next_due; /* no buffer is due before this (a lower bound): a sweep before it looks at nothing */
};

typedef struct lazy_arena_stats {
	size_t reserved;         /* address space reserved */
	size_t buffers;          /* buffers in use */
	size_t buffer_bytes;     /* their sizes */
	size_t idle;             /* buffers waiting on idle lists */
	uint64_t released;       /* idle buffers given back */
	uint64_t kept_in_flight; /* buffers called idle that had bytes in flight */
} lazy_arena_stats;

/* A zeroed buffer of at least size bytes (a power of two, at least a page), page aligned. */
void *lazy_arena_alloc(size_t size);
void lazy_arena_free(void *p);
/* The buffer goes to a new connection: zero it now and restart its count of landed bytes. */
void lazy_arena_reset(void *p);
/* The core consumed every byte of the buffer it knows of, peer_bytes of them written by
 * the peer: unless more landed, it joins the owner's idle list. */
void lazy_arena_idle_at(lazy_arena_idle *owner, void *p, uint64_t peer_bytes, sim_time now);
/* The core is about to write into the buffer: it is not idle. */
void lazy_arena_busy(void *p, sim_time now);
/* Give back the owner's buffers that have been idle long enough by now. */
void lazy_arena_sweep(lazy_arena_idle *owner, sim_time now);

/* The buffer holding p, or NULL when p is not arena memory (the simulated responder asks
 * for the start of every RDMA WRITE). */
lazy_arena_buf *lazy_arena_find(const void *p);
static inline void lazy_arena_landed(lazy_arena_buf *b, uint32_t n) { b->landed += n; }

void lazy_arena_stats_get(lazy_arena_stats *out);
/* Bytes of the arena resident in memory now (mincore), for memory measurements. */
size_t lazy_arena_resident(void);
/* Heap the arena's bookkeeping holds (its chunk table and the buffers' descriptors), in
 * the allocator's units, for memory measurements. */
size_t lazy_arena_heap_bytes(void);

#endif
