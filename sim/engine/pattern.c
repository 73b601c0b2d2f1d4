/* The pattern is built from 64-byte blocks of eight 8-byte words: block b starts from
 * h = sim_mix64(key + b), where the key is derived from the seed, and its word j
 * (j = 0..7) is h + j * STEP, stored little-endian. One mixer per 64 bytes keeps filling
 * and checking close to memory speed (applications move gigabytes); every block differs
 * and so does every word of a block, so a byte lost, duplicated or moved shows as a
 * mismatch at its offset.
 *
 * Whole blocks are the hot path (the applications fill and check every byte they move):
 * a block is the vector h + {0, STEP, ..., 7 STEP}, written or compared with 64-byte
 * vector operations, compiled for AVX-512 and AVX2 as well as the baseline and picked at
 * start-up. All variants produce the same bytes; checking ORs the differences of four
 * blocks and looks for the exact byte only when that is not zero. */
#include "sim/engine/pattern.h"

#include <stdbool.h>
#include <string.h>

#include "sim/engine/rng.h"

#define STEP 0x9e3779b97f4a7c15ull

static uint64_t pattern_key(uint64_t seed)
{
	return sim_mix64(seed ^ 0x7061747465726e00ull); /* "pattern" */
}

/* byte b of a word is bits 8b..8b+7 */
static inline void put_word(uint8_t *d, uint64_t w)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(d, &w, 8);
#else
	for (unsigned b = 0; b < 8; b++)
		d[b] = (uint8_t)(w >> (8 * b));
#endif
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
#define PATTERN_VECTOR 1
typedef uint64_t block_vec __attribute__((vector_size(64)));

/* block b as a vector (a macro: a function returning a 64-byte vector would have an ABI
 * that depends on the target) */
#define STEPS ((block_vec){ 0, STEP, 2 * STEP, 3 * STEP, 4 * STEP, 5 * STEP, 6 * STEP, 7 * STEP })
#define block_at(key, b) (STEPS + sim_mix64((key) + (b)))

/* n whole blocks from block number b */
static inline __attribute__((always_inline)) void fill_blocks_body(uint64_t key, uint64_t b, uint8_t *d, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		block_vec v = block_at(key, b + k);
		memcpy(d + 64 * k, &v, 64);
	}
}

/* the index of the first block (of four) with a difference, or n */
static inline __attribute__((always_inline)) size_t check_blocks_body(uint64_t key, uint64_t b, const uint8_t *s,
                                                                      size_t n)
{
	size_t k = 0;
	for (; k + 4 <= n; k += 4) {
		block_vec x0, x1, x2, x3;
		memcpy(&x0, s + 64 * k, 64);
		memcpy(&x1, s + 64 * k + 64, 64);
		memcpy(&x2, s + 64 * k + 128, 64);
		memcpy(&x3, s + 64 * k + 192, 64);
		block_vec bad = (x0 ^ block_at(key, b + k)) | (x1 ^ block_at(key, b + k + 1)) |
		                (x2 ^ block_at(key, b + k + 2)) | (x3 ^ block_at(key, b + k + 3));
		uint64_t any = 0;
		for (unsigned j = 0; j < 8; j++)
			any |= bad[j];
		if (any)
			return k;
	}
	for (; k < n; k++) {
		block_vec x;
		memcpy(&x, s + 64 * k, 64);
		block_vec bad = x ^ block_at(key, b + k);
		uint64_t any = 0;
		for (unsigned j = 0; j < 8; j++)
			any |= bad[j];
		if (any)
			return k;
	}
	return n;
}

#if defined(__x86_64__)
#define PATTERN_X86 1
__attribute__((target("avx512f"))) static void fill_blocks_avx512(uint64_t key, uint64_t b, uint8_t *d, size_t n)
{
	fill_blocks_body(key, b, d, n);
}
__attribute__((target("avx2"))) static void fill_blocks_avx2(uint64_t key, uint64_t b, uint8_t *d, size_t n)
{
	fill_blocks_body(key, b, d, n);
}
__attribute__((target("avx512f"))) static size_t check_blocks_avx512(uint64_t key, uint64_t b, const uint8_t *s,
                                                                     size_t n)
{
	return check_blocks_body(key, b, s, n);
}
__attribute__((target("avx2"))) static size_t check_blocks_avx2(uint64_t key, uint64_t b, const uint8_t *s, size_t n)
{
	return check_blocks_body(key, b, s, n);
}
#endif

static void fill_blocks_base(uint64_t key, uint64_t b, uint8_t *d, size_t n)
{
	fill_blocks_body(key, b, d, n);
}
static size_t check_blocks_base(uint64_t key, uint64_t b, const uint8_t *s, size_t n)
{
	return check_blocks_body(key, b, s, n);
}

static void (*fill_blocks)(uint64_t, uint64_t, uint8_t *, size_t) = fill_blocks_base;
static size_t (*check_blocks)(uint64_t, uint64_t, const uint8_t *, size_t) = check_blocks_base;

static const char *impl = "base";

bool pattern_set_impl(const char *name)
{
	if (!strcmp(name, "base")) {
		fill_blocks = fill_blocks_base;
		check_blocks = check_blocks_base;
		impl = "base";
		return true;
	}
#ifdef PATTERN_X86
	__builtin_cpu_init();
	if (!strcmp(name, "avx512") && __builtin_cpu_supports("avx512f")) {
		fill_blocks = fill_blocks_avx512;
		check_blocks = check_blocks_avx512;
		impl = "avx512";
		return true;
	}
	if (!strcmp(name, "avx2") && __builtin_cpu_supports("avx2")) {
		fill_blocks = fill_blocks_avx2;
		check_blocks = check_blocks_avx2;
		impl = "avx2";
		return true;
	}
#endif
	return false;
}

__attribute__((constructor)) static void pattern_init(void)
{
	if (!pattern_set_impl("avx512") && !pattern_set_impl("avx2"))
		pattern_set_impl("base");
}
#else
static const char *impl = "scalar";

bool pattern_set_impl(const char *name) { return !strcmp(name, "scalar"); }
#endif

const char *pattern_impl(void)
{
	return impl;
}

/* Bytes [from, from + n) of block b (from + n <= 64), from one mix for the whole block:
 * the ends of a span that does not start or end on a block boundary (a TCP segment's
 * 1448 bytes never do). */
static void block_part(uint64_t key, uint64_t b, size_t from, uint8_t *dst, size_t n)
{
	uint8_t blk[64];
	uint64_t h = sim_mix64(key + b);
	for (unsigned j = 0; j < 8; j++)
		put_word(blk + 8 * j, h + j * STEP);
	memcpy(dst, blk + from, n);
}

/* The first of n bytes where got differs from want, or n. */
static size_t diff_at(const uint8_t *want, const uint8_t *got, size_t n)
{
	if (!memcmp(want, got, n))
		return n;
	size_t i = 0;
	while (want[i] == got[i])
		i++;
	return i;
}

#ifndef PATTERN_VECTOR
static inline uint64_t get_word(const uint8_t *d)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w;
	memcpy(&w, d, 8);
	return w;
#else
	uint64_t w = 0;
	for (unsigned b = 0; b < 8; b++)
		w |= (uint64_t)d[b] << (8 * b);
	return w;
#endif
}

static void fill_blocks(uint64_t key, uint64_t b, uint8_t *d, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		uint64_t h = sim_mix64(key + b + k);
		for (unsigned j = 0; j < 8; j++)
			put_word(d + 64 * k + 8 * j, h + j * STEP);
	}
}

static size_t check_blocks(uint64_t key, uint64_t b, const uint8_t *s, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		uint64_t h = sim_mix64(key + b + k), bad = 0;
		for (unsigned j = 0; j < 8; j++)
			bad |= get_word(s + 64 * k + 8 * j) ^ (h + j * STEP);
		if (bad)
			return k;
	}
	return n;
}
#endif

void pattern_fill(uint64_t seed, uint64_t offset, uint8_t *dst, size_t len)
{
	uint64_t key = pattern_key(seed);
	size_t i = 0, from = (size_t)(offset % 64);
	if (from && len) { /* the rest of a block begun before */
		i = len < 64 - from ? len : 64 - from;
		block_part(key, offset / 64, from, dst, i);
	}
	uint64_t b = (offset + i) / 64;
	size_t nb = (len - i) / 64;
	fill_blocks(key, b, dst + i, nb);
	i += 64 * nb;
	if (i < len)
		block_part(key, b + nb, 0, dst + i, len - i);
}

size_t pattern_check(uint64_t seed, uint64_t offset, const uint8_t *buf, size_t len)
{
	uint64_t key = pattern_key(seed);
	uint8_t want[64];
	size_t i = 0, from = (size_t)(offset % 64);
	if (from && len) {
		i = len < 64 - from ? len : 64 - from;
		block_part(key, offset / 64, from, want, i);
		size_t d = diff_at(want, buf, i);
		if (d < i)
			return d;
	}
	uint64_t b = (offset + i) / 64;
	size_t nb = (len - i) / 64;
	size_t good = check_blocks(key, b, buf + i, nb);
	i += 64 * good;
	b += good;
	/* a difference within the next few blocks (check_blocks looks at four at a time):
	 * find its byte */
	for (; good < nb; good++, b++, i += 64) {
		block_part(key, b, 0, want, 64);
		size_t d = diff_at(want, buf + i, 64);
		if (d < 64)
			return i + d;
	}
	if (i < len) {
		block_part(key, b, 0, want, len - i);
		return i + diff_at(want, buf + i, len - i);
	}
	return len;
}
