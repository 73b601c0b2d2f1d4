/* Running out is an error, not a crash.
 *
 * When the process runs out of memory, or a fixed pool of the simulation runs out where
 * nothing can fall back, the run stops with one line on stderr that says what ran out, at
 * what virtual time, and what to change, and the process exits with SIM_EXIT_OUT_OF_MEMORY:
 *
 *   smcr-sim: out of memory at virtual time 1.250000000 s: 9744 bytes for frame buffers;
 *   run fewer stacks or connections, give them smaller buffers (smcr rmbsize/sndbufsize),
 *   or give the process more memory
 *
 * Scenario limits (a stack's fixedmemory, a link group's connection limit) are simulated
 * behaviour and never come here: they fall back to TCP as the real systems do. Host memory
 * is different: a run that went on without it would no longer be the same run on every
 * machine.
 *
 * The virtual time is that of the engine that ran last (sim_engine_run) or, before any
 * ran, the engine created last: the one piece of process-wide state of the engine folder,
 * read only to print this line. */
#ifndef SIM_OOM_H
#define SIM_OOM_H

#include <stddef.h>
#include <stdint.h>

#define SIM_EXIT_OUT_OF_MEMORY 3

/* Process memory ran out: `bytes` (0 = unknown) could not be had for `what`. */
_Noreturn void sim_out_of_memory(const char *what, size_t bytes);
/* A fixed pool or limit ran out where nothing can fall back:
 *   smcr-sim: out of RESOURCE at virtual time T: DETAIL; ADVICE */
_Noreturn void sim_out_of_resource(const char *resource, const char *detail, const char *advice);

/* Allocations that never return NULL: on failure they end the run as above. */
void *sim_xmalloc(size_t n, const char *what);
void *sim_xcalloc(size_t nmemb, size_t size, const char *what);
void *sim_xrealloc(void *p, size_t n, const char *what);
/* realloc of an array to nmemb elements of size bytes, with the multiplication checked. */
void *sim_xreallocarray(void *p, size_t nmemb, size_t size, const char *what);

/* What a heap block costs the allocator: its usable bytes and the size word before them
 * (0 for NULL). For memory measurements only, never on a hot path. */
size_t sim_heap_block_bytes(const void *p);

/* For the engine: the clock the message shows, virtual nanoseconds read through `now`
 * (owner: the engine, so that it can take its clock back). A pointer, not the engine, so
 * that this file needs nothing of the engine and the engine may allocate through it. */
void sim_oom_set_clock(const void *owner, const uint64_t *now);
void sim_oom_forget_clock(const void *owner);

#endif
