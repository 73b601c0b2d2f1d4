/* The memcpy reference printed beside `bench protocol`: how fast this machine copies the
 * same payload in blocks of one size, from one block-sized buffer into another (both hot
 * in the cache, what a data path's copy costs at best). SMC-R's data path copies each byte
 * at least from the application into the send buffer, into the peer's RMB and out again,
 * so the ratio payload rate / memcpy rate says how close the simulation is to the copies
 * it cannot avoid. */
#ifndef SIM_BENCH_MEMCPY_REF_H
#define SIM_BENCH_MEMCPY_REF_H

#include <stdint.h>

typedef struct memcpy_ref_result {
	uint64_t block;   /* bytes per memcpy */
	uint64_t bytes;   /* copied in all */
	double wall, cpu; /* seconds */
} memcpy_ref_result;

/* Copy `bytes` (rounded up to whole blocks) in memcpy calls of `block` bytes; 0, or -1 when
 * the buffers cannot be had. */
int memcpy_ref_run(uint64_t block, uint64_t bytes, memcpy_ref_result *r);

#endif
