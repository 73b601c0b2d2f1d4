/* memcpy at a block size (see memcpy_ref.h). */
#include "sim/bench/memcpy_ref.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/bench_measure.h"
#include "sim/engine/pattern.h"

int memcpy_ref_run(uint64_t block, uint64_t bytes, memcpy_ref_result *r)
{
	*r = (memcpy_ref_result){ .block = block };
	uint8_t *src = malloc(block), *dst = malloc(block);
	if (!block || !src || !dst) {
		free(src);
		free(dst);
		return -1;
	}
	pattern_fill(1, 0, src, block);
	memset(dst, 0, block); /* both buffers faulted in before the clock starts */
	uint64_t n = (bytes + block - 1) / block;
	double t0 = bench_wall_seconds(), c0 = bench_cpu_seconds();
	for (uint64_t i = 0; i < n; i++) {
		memcpy(dst, src, block);
		/* every copy is observed: the compiler may not merge or drop the repeated stores */
		__asm__ volatile(""
		                 :
		                 : "r"(dst)
		                 : "memory");
	}
	r->wall = bench_wall_seconds() - t0;
	r->cpu = bench_cpu_seconds() - c0;
	r->bytes = n * block;
	bool same = !memcmp(dst, src, block);
	free(src);
	free(dst);
	return same ? 0 : -1;
}
