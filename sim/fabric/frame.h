/* Frames: the byte buffers that cross the simulated fabric.
 *
 * A frame is one complete Ethernet frame (destination MAC first, no preamble, no FCS),
 * exactly the bytes a capture would show. Its buffer keeps headroom in front of the data,
 * so each layer prepends its header (sim_frame_push) without moving the payload, as lwIP's
 * pbufs and Linux skbs do.
 *
 * Ownership rule: a frame has exactly one owner. Every function that takes a `sim_frame *`
 * to send, forward or deliver takes ownership of it (it will free it or pass it on); the
 * caller must not touch it afterwards. Whoever ends up holding it calls sim_frame_free().
 * Callbacks that only look (taps) get a `const sim_frame *` and must not keep it. To keep a
 * frame and pass it on, sim_frame_clone() it.
 *
 * Frames come from a pool (a free list of fixed-size buffers), so allocation on the hot
 * path is a pointer pop. A pool is single-threaded, like the engine.
 */
#ifndef SIM_FRAME_H
#define SIM_FRAME_H

#include <stddef.h>
#include <stdint.h>

/* Room kept in front of the data of a fresh frame: Ethernet (14) + 802.1Q (4) + IPv6 or
 * GRH (40) + UDP (8) + BTH (12) + RETH (16) = 94, rounded up. */
#define SIM_FRAME_HEADROOM 128u
/* Largest frame a buffer holds (headroom + data): a 9000-byte jumbo payload plus every
 * header, with room to spare. */
#define SIM_FRAME_CAPACITY 9600u

typedef struct sim_frame_pool sim_frame_pool;

typedef struct sim_frame {
	uint8_t *data;          /* first byte of the frame */
	uint32_t len;           /* bytes from data on */
	uint32_t meta;          /* scratch for the current owner (e.g. a link generation) */
	uint64_t meta64;        /* scratch for the current owner */
	struct sim_frame *next; /* free list, or a queue the current owner keeps */
	sim_frame_pool *pool;
	uint8_t buf[SIM_FRAME_CAPACITY];
} sim_frame;

sim_frame_pool *sim_frame_pool_new(void);
/* Frees the pool and every frame it ever handed out, including frames still in flight
 * (a simulation stopped mid-run); nobody may use them afterwards. */
void sim_frame_pool_free(sim_frame_pool *pool);
size_t sim_frame_pool_in_use(const sim_frame_pool *pool);
/* Frames ever allocated from the system (the pool's high-water mark). */
size_t sim_frame_pool_allocated(const sim_frame_pool *pool);

/* An empty frame with SIM_FRAME_HEADROOM bytes of headroom. Never fails (aborts on OOM). */
sim_frame *sim_frame_alloc(sim_frame_pool *pool);
void sim_frame_free(sim_frame *f);
/* A copy with the same bytes and headroom. */
sim_frame *sim_frame_clone(const sim_frame *f);

static inline uint32_t sim_frame_headroom(const sim_frame *f) { return (uint32_t)(f->data - f->buf); }
static inline uint32_t sim_frame_tailroom(const sim_frame *f)
{
	return (uint32_t)(SIM_FRAME_CAPACITY - (size_t)(f->data - f->buf) - f->len);
}

/* Prepend n bytes; returns the new start. Aborts if the headroom is too small (a
 * programming error: headroom is sized for every header the simulator writes). */
uint8_t *sim_frame_push(sim_frame *f, uint32_t n);
/* Remove n bytes from the front (n <= len); returns the new start. */
uint8_t *sim_frame_pull(sim_frame *f, uint32_t n);
/* Append n bytes; returns a pointer to them. Aborts if the tailroom is too small. */
uint8_t *sim_frame_put(sim_frame *f, uint32_t n);
/* Cut the frame to len bytes (len <= current length). */
void sim_frame_trim(sim_frame *f, uint32_t len);

#endif
