/* Frames: the byte buffers that cross the simulated fabric.
 *
 * A frame is one complete Ethernet frame (destination MAC first, no preamble, no FCS),
 * exactly the bytes a capture would show. Its buffer keeps headroom in front of the data,
 * so each layer prepends its header (sim_frame_push) without moving the payload, as lwIP's
 * pbufs and Linux skbs do.
 *
 * A sim_frame is a handle (where the frame starts, its length, the owner's scratch fields)
 * on a buffer that several handles may share: sim_frame_clone() makes a second handle on
 * the same bytes, as a switch does for every port it floods a frame to, so a broadcast
 * costs one buffer however many ports it leaves. Buffers are reference counted and copied
 * on write: sim_frame_push/put and sim_frame_writable() give the handle a private copy
 * first when its buffer is shared (a trunk port adding a VLAN tag, a lossy wire flipping
 * a bit), so nobody ever sees another holder's change. Reading f->data is always fine;
 * write through it only after sim_frame_writable() (or on a frame you built yourself and
 * never cloned).
 *
 * Ownership rule: a handle has exactly one owner. Every function that takes a `sim_frame *`
 * to send, forward or deliver takes ownership of it (it will free it or pass it on); the
 * caller must not touch it afterwards. Whoever ends up holding it calls sim_frame_free().
 * Callbacks that only look (taps) get a `const sim_frame *` and must not keep it; to keep
 * one, sim_frame_clone() it (a reference, no copy).
 *
 * Buffers come in size classes (SIM_FRAME_CLASSES, up to SIM_FRAME_CAPACITY), so a
 * 60-byte ARP does not hold a jumbo buffer: sim_frame_alloc_len() picks the smallest class
 * that holds the headroom and the frame, and sim_frame_put() moves a frame that outgrows
 * its buffer to a larger one. Handles and buffers come from per-pool free lists filled a
 * slab at a time, so allocation on the hot path is a pointer pop. A pool is
 * single-threaded, like the engine. Running out of memory ends the run
 * (sim/engine/oom.h).
 */
#ifndef SIM_FRAME_H
#define SIM_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room kept in front of the data of a fresh frame: Ethernet (14) + 802.1Q (4) + IPv6 or
 * GRH (40) + UDP (8) + BTH (12) + RETH (16) = 94, rounded up. */
#define SIM_FRAME_HEADROOM 128u
/* Largest frame a buffer holds (headroom + data): a 9000-byte jumbo payload plus every
 * header, with room to spare. */
#define SIM_FRAME_CAPACITY 9600u
/* Buffer size classes (headroom included): small control frames (ARP, TCP ACKs, RoCE
 * ACKs and CDCs), up to 512 bytes, a 1500-byte MTU, a 4096-byte RoCE MTU, jumbo. */
#define SIM_FRAME_CLASSES 5
extern const uint32_t sim_frame_class_size[SIM_FRAME_CLASSES];

typedef struct sim_frame_pool sim_frame_pool;

/* A buffer: a small header, then its bytes (16-byte aligned). Only frame.c touches it;
 * it is here for the inline helpers below. */
typedef struct sim_frame_buf {
	uint32_t refs;        /* handles on it */
	uint8_t cls;          /* size class */
	uint8_t vouched : 1;  /* sim_frame_vouch_sums(): the producer's word, until a write */
	uint8_t crc_owed : 1; /* its deferred copy's CRC trailer is not written yet */
	uint16_t deferred;    /* 0, or 1 + where the record of its deferred copy is in bytes[] */
	union {
		sim_frame_pool *pool;            /* in use: its pool */
		struct sim_frame_buf *next_free; /* on the pool's free list */
	} u;
	uint8_t bytes[];
} sim_frame_buf;

/* 40 bytes: a broadcast flooded to N ports costs N handles and one buffer. */
typedef struct sim_frame {
	uint8_t *data;          /* first byte of the frame (write only when not shared) */
	uint32_t len;           /* bytes from data on */
	uint32_t meta;          /* scratch for the current owner (e.g. a link generation) */
	uint64_t meta64;        /* scratch for the current owner */
	struct sim_frame *next; /* free list, or a queue the current owner keeps */
	sim_frame_buf *buf;     /* the bytes, maybe shared with other handles */
} sim_frame;

typedef struct sim_frame_pool_stats {
	size_t frames_in_use;                     /* handles */
	size_t frames_allocated;                  /* handles ever made (high-water mark) */
	size_t bufs_in_use[SIM_FRAME_CLASSES];    /* buffers, by size class */
	size_t bufs_allocated[SIM_FRAME_CLASSES]; /* buffers ever made, by size class */
	uint64_t shared;                          /* clones that shared a buffer */
	uint64_t copied_on_write;                 /* shared buffers copied for a writer */
	uint64_t deferred;                        /* copies deferred (sim_frame_defer_copy) ... */
	uint64_t settled;                         /* ... and made into the frame after all */
	uint64_t copied_out;                      /* ... or straight to the receiver (sim_frame_copy_out) */
	size_t bytes;                             /* memory the pool holds from the system */
} sim_frame_pool_stats;

sim_frame_pool *sim_frame_pool_new(void);
/* Frees the pool and every frame it ever handed out, including frames still in flight
 * (a simulation stopped mid-run); nobody may use them afterwards. */
void sim_frame_pool_free(sim_frame_pool *pool);
size_t sim_frame_pool_in_use(const sim_frame_pool *pool);
/* Buffers ever allocated from the system (the pool's high-water mark). */
size_t sim_frame_pool_allocated(const sim_frame_pool *pool);
void sim_frame_pool_stats_get(const sim_frame_pool *pool, sim_frame_pool_stats *out);
/* Check the deferred-copy contract on this pool (sim/fabric/speed_contracts.h): each
 * source is hashed when deferred and when copied or read; on by default in builds that
 * check contracts (SAN=1). */
void sim_frame_pool_check_contracts(sim_frame_pool *pool, bool on);

/* An empty frame with SIM_FRAME_HEADROOM bytes of headroom that will hold up to len
 * bytes in its buffer (more: sim_frame_put moves it to a larger one). */
sim_frame *sim_frame_alloc_len(sim_frame_pool *pool, uint32_t len);
/* A frame of len bytes (len + SIM_FRAME_HEADROOM at most SIM_FRAME_CAPACITY), not yet
 * written: sim_frame_alloc_len and sim_frame_put in one, for a builder that fills every
 * byte at once. */
sim_frame *sim_frame_alloc_data(sim_frame_pool *pool, uint32_t len);
/* An empty frame in a buffer of the largest class. */
sim_frame *sim_frame_alloc(sim_frame_pool *pool);
void sim_frame_free(sim_frame *f);
/* A second handle on the same bytes (same headroom, same scratch fields): no copy. */
sim_frame *sim_frame_clone(const sim_frame *f);
/* Make f's bytes its own (copy them if the buffer is shared); returns f->data. */
uint8_t *sim_frame_writable(sim_frame *f);
/* Whether f's buffer is shared with another handle. */
bool sim_frame_shared(const sim_frame *f);

static inline uint32_t sim_frame_headroom(const sim_frame *f) { return (uint32_t)(f->data - f->buf->bytes); }
/* Bytes sim_frame_put() can still append (up to the largest class). */
static inline uint32_t sim_frame_tailroom(const sim_frame *f)
{
	return (uint32_t)(SIM_FRAME_CAPACITY - (size_t)(f->data - f->buf->bytes) - f->len);
}

/* The checksums in a frame's bytes are right: its producer (a simulated stack) computed
 * them, and the word holds as long as nobody writes to the bytes. Every way of writing
 * (sim_frame_writable, push, put) drops it, a copy on write starts without it, and it
 * stays with the buffer through clones and parking (a trimmed frame keeps it: a datagram
 * cut short is caught by its length fields before any sum is looked at). A receiver seeing it may skip
 * verifying sums it would find right: a bit a lossy wire flips goes through
 * sim_frame_writable, so that frame is verified and caught. Bytes stay exact either way
 * (captures see the same frames); only the work of checking what cannot fail goes. */
static inline void sim_frame_vouch_sums(sim_frame *f) { f->buf->vouched = 1; }
static inline bool sim_frame_sums_vouched(const sim_frame *f) { return f->buf->vouched != 0; }

/* A parked frame: its bytes without a handle, for a holder that keeps thousands of
 * frames waiting in order (a wire's queue in an ARP storm). 16 bytes instead of a
 * 40-byte handle, and a frame taken out gets a handle the pool just had back (hot in
 * cache) instead of one that waited as long as the frame did. The scratch fields do not
 * survive parking. A parked frame still counts as in use. */
typedef struct sim_frame_ref {
	sim_frame_buf *buf;
	uint16_t off;   /* where the frame starts in buf->bytes */
	uint16_t len;   /* bytes */
	uint32_t spare; /* the holder's */
} sim_frame_ref;

/* Park f (ownership passes into *r; spare is left alone). */
void sim_frame_park(sim_frame *f, sim_frame_ref *r);
/* A handle on a parked frame (the ref is used up); meta and meta64 are 0. */
sim_frame *sim_frame_unpark(const sim_frame_ref *r);
/* Free a parked frame. */
void sim_frame_ref_free(const sim_frame_ref *r);

/* Deferred copies: a frame whose payload nobody but its receiver will read can leave those
 * bytes in the memory they come from and have the receiver copy them from there, one copy
 * instead of two (a simulated adapter's RDMA WRITE). sim_frame_defer_copy(f, dst, src, n)
 * says that the n bytes at dst (inside f, which nobody shares yet) are the n bytes at src;
 * the caller guarantees those stay as they are until it settles the copy. The copy is made
 * (settled) as soon as anybody may look: sim_frame_writable, push and put settle first,
 * and whoever else reads a frame's bytes (a tap, a capture) must be kept away by the
 * frame's producer or call sim_frame_settle. The source may change only after
 * sim_frame_pool_settle_range (or _all) covered it. A receiver reads the bytes where they
 * are with sim_frame_bytes_at, or copies them out with sim_frame_copy_out. Under
 * AddressSanitizer the bytes not yet copied are poisoned, so a reader that should have
 * settled is caught. One deferred copy a buffer, of at least SIM_FRAME_DEFER_MIN bytes
 * (its bookkeeping lives in the bytes it leaves out); false (nothing deferred, the caller
 * copies) for fewer.
 *
 * Any number may be in flight: they are found by where their source is (an index of
 * 64 KiB regions of source memory, each with its copies), so a settle of a range looks
 * only at the copies whose source starts in or just before it, and a host write into
 * memory nothing was sent from costs a lookup or two. */
#define SIM_FRAME_DEFER_MIN 128u
bool sim_frame_defer_copy(sim_frame *f, uint8_t *dst, const void *src, uint32_t n);
/* As sim_frame_defer_copy, and the 4 bytes at crc_at (inside f, after dst + n) are owed
 * too: the CRC-32 (sim/fabric/icrc.h, little-endian) chained from crc over the n source
 * bytes and then the frame's own bytes from dst + n up to crc_at (a pad), as a RoCE
 * ICRC is over its masked headers (crc), payload and pad. It is computed while the bytes
 * are copied, wherever they go: into the frame when it is settled, or straight to the
 * receiver's memory (sim_frame_copy_out), one pass over the source either way. */
bool sim_frame_defer_copy_crc(sim_frame *f, uint8_t *dst, const void *src, uint32_t n, uint32_t crc,
                              uint8_t *crc_at);
/* Make f's deferred copy (if any) now. */
void sim_frame_settle_deferred(sim_frame *f);
static inline void sim_frame_settle(sim_frame *f)
{
	if (__builtin_expect(f->buf->deferred, 0))
		sim_frame_settle_deferred(f);
}
/* Where the n bytes at p (inside f) can be read now: p, or where a deferred copy still
 * has them (f's copy is made first if they are partly in it). */
const uint8_t *sim_frame_bytes_deferred(sim_frame *f, const uint8_t *p, uint32_t n);
static inline const uint8_t *sim_frame_bytes_at(sim_frame *f, const uint8_t *p, uint32_t n)
{
	return __builtin_expect(f->buf->deferred, 0) ? sim_frame_bytes_deferred(f, p, n) : p;
}
/* Copy the n bytes at p (inside f) to dst, from wherever they are; a copy that is exactly
 * f's deferred bytes goes from its source straight to dst and pays its owed CRC on the
 * way (the frame keeps the CRC, not the bytes). */
void sim_frame_copy_out(sim_frame *f, const uint8_t *p, uint32_t n, uint8_t *dst);
/* Whether f still owes its CRC trailer (sim_frame_defer_copy_crc): its 4 bytes must not be
 * read; sim_frame_owed_crc computes it (from the source, copying nothing), writes it in
 * and returns it. */
static inline bool sim_frame_crc_owed(const sim_frame *f) { return f->buf->crc_owed != 0; }
uint32_t sim_frame_owed_crc(sim_frame *f);
/* Make every deferred copy of the pool whose source overlaps [p, p + n) (every one: _all),
 * before that memory changes. */
void sim_frame_pool_settle_range(sim_frame_pool *pool, const void *p, size_t n);
void sim_frame_pool_settle_all(sim_frame_pool *pool);
/* Deferred copies not made yet (frames in flight): a pool starts with this count, so
 * the question costs no call on paths that mostly find none. */
struct sim_frame_pool_head {
	size_t n_deferred;
};
static inline size_t sim_frame_pool_deferred(const sim_frame_pool *pool)
{
	return ((const struct sim_frame_pool_head *)(const void *)pool)->n_deferred;
}

/* Prepend n bytes; returns the new start. Aborts if the headroom is too small (a
 * programming error: headroom is sized for every header the simulator writes). */
uint8_t *sim_frame_push(sim_frame *f, uint32_t n);
/* Remove n bytes from the front (n <= len); returns the new start. */
uint8_t *sim_frame_pull(sim_frame *f, uint32_t n);
/* Append n bytes; returns a pointer to them (the frame may have moved to a larger buffer:
 * pointers into it from before are stale). Aborts if the tailroom is too small. */
uint8_t *sim_frame_put(sim_frame *f, uint32_t n);
/* Cut the frame to len bytes (len <= current length). */
void sim_frame_trim(sim_frame *f, uint32_t len);

#endif
