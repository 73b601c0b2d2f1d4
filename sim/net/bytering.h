/* A byte ring with a fixed logical capacity: TCP's send and receive buffers. Besides
 * FIFO use it can write ahead of its tail (out-of-order TCP data lands in the free space
 * at its final position and is committed once the gap before it is filled) and copy from
 * any offset (retransmissions read old bytes without removing them).
 *
 * Storage grows on demand up to the capacity, so the many idle connections of a large
 * run (a TCP connection under SMC-R carries a few CLC messages, then nothing) cost
 * almost nothing. */
#ifndef SIM_BYTERING_H
#define SIM_BYTERING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bytering {
	uint8_t *buf;
	size_t cap;   /* logical capacity */
	size_t alloc; /* storage allocated so far (<= cap) */
	size_t head;  /* index of the first used byte in buf */
	size_t len;   /* used bytes */
} bytering;

/* No storage is allocated until bytes arrive. Capacity 0 is allowed: always full. */
void bytering_init(bytering *r, size_t cap);
void bytering_free(bytering *r);

static inline size_t bytering_len(const bytering *r) { return r->len; }
static inline size_t bytering_space(const bytering *r) { return r->cap - r->len; }
/* Bytes of storage held (for memory accounting). */
static inline size_t bytering_allocated(const bytering *r) { return r->alloc; }

/* Append up to n bytes; returns how many fitted (fewer also when memory runs out). */
size_t bytering_write(bytering *r, const void *src, size_t n);
/* The same with the bytes written in place: fill() is called for each contiguous span of
 * the free space (one or two, in stream order) and must write all of it. Returns how many
 * were appended, 0 (and no call) when there is no room or memory. */
typedef void (*bytering_fill_fn)(void *ctx, uint8_t *dst, size_t len);
size_t bytering_write_fill(bytering *r, size_t n, bytering_fill_fn fill, void *ctx);
/* Copy n bytes into the free space at `ahead` bytes past the tail, without committing
 * them; ahead + n must not exceed the free space. Returns false when out of memory. */
bool bytering_write_ahead(bytering *r, size_t ahead, const void *src, size_t n);
/* Make n bytes already written past the tail part of the content. */
void bytering_commit(bytering *r, size_t n);
/* Copy n bytes starting `off` bytes after the head (off + n <= len). */
void bytering_copy_out(const bytering *r, size_t off, void *dst, size_t n);
/* Show the first n bytes (n <= len) where they are: visit() once per contiguous span. */
typedef void (*bytering_visit_fn)(void *ctx, const uint8_t *src, size_t len);
void bytering_visit(const bytering *r, size_t n, bytering_visit_fn visit, void *ctx);
/* Remove n bytes from the head (n <= len). */
void bytering_drop(bytering *r, size_t n);
/* Copy out and remove up to n bytes; returns how many. */
size_t bytering_read(bytering *r, void *dst, size_t n);

#endif
