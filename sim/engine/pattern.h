/* A seeded byte pattern that applications send and check: the byte at stream offset i
 * is a pure function of (seed, i), so a receiver verifies any chunk without keeping
 * state beyond its offset, and a lost, duplicated or reordered byte shows as a mismatch
 * at a known offset. */
#ifndef SIM_PATTERN_H
#define SIM_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void pattern_fill(uint64_t seed, uint64_t offset, uint8_t *dst, size_t len);
/* Returns len when all bytes match, else the index of the first mismatch in buf. */
size_t pattern_check(uint64_t seed, uint64_t offset, const uint8_t *buf, size_t len);

/* The block loops are compiled several times; the fastest the CPU runs is chosen at
 * start-up. pattern_impl(): "avx512", "avx2", "base" (baseline vectors) or "scalar" (no
 * vector extension). pattern_set_impl() picks one for tests and benchmarks; false when
 * this CPU or build has no such variant. Every variant gives the same bytes. */
const char *pattern_impl(void);
bool pattern_set_impl(const char *name);

#endif
