/* The pattern is built from 64-byte blocks of eight 8-byte words: block b starts from
 * h = sim_mix64(key + b), where the key is derived from the seed, and its word j
 * (j = 0..7) is h + j * STEP, stored little-endian. One mixer per 64 bytes keeps filling
 * and checking close to memory speed (applications move gigabytes); every block differs
 * and so does every word of a block, so a byte lost, duplicated or moved shows as a
 * mismatch at its offset. */
#include "sim/pattern.h"

#include <string.h>

#include "sim/rng.h"

#define STEP 0x9e3779b97f4a7c15ull

static uint64_t pattern_key(uint64_t seed)
{
	return sim_mix64(seed ^ 0x7061747465726e00ull); /* "pattern" */
}

static inline uint64_t word_at(uint64_t key, uint64_t w)
{
	return sim_mix64(key + w / 8) + (w % 8) * STEP;
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

void pattern_fill(uint64_t seed, uint64_t offset, uint8_t *dst, size_t len)
{
	uint64_t key = pattern_key(seed);
	size_t i = 0;
	while (i < len && (offset + i) % 8) { /* up to the next word boundary */
		uint64_t pos = offset + i;
		dst[i++] = (uint8_t)(word_at(key, pos / 8) >> (8 * (pos % 8)));
	}
	uint64_t w = (offset + i) / 8;
	for (; i + 8 <= len && w % 8; i += 8, w++) /* up to the next block */
		put_word(dst + i, word_at(key, w));
	for (; i + 64 <= len; i += 64, w += 8) { /* whole blocks */
		uint64_t h = sim_mix64(key + w / 8);
		for (unsigned j = 0; j < 8; j++)
			put_word(dst + i + 8 * j, h + j * STEP);
	}
	for (; i + 8 <= len; i += 8, w++)
		put_word(dst + i, word_at(key, w));
	if (i < len) {
		uint64_t last = word_at(key, w);
		for (unsigned b = 0; i < len; b++)
			dst[i++] = (uint8_t)(last >> (8 * b));
	}
}

/* The first byte of `buf` that differs from what was expected. */
static size_t first_diff(uint64_t want, const uint8_t *buf, size_t n)
{
	for (size_t b = 0; b < n; b++)
		if (buf[b] != (uint8_t)(want >> (8 * b)))
			return b;
	return n;
}

size_t pattern_check(uint64_t seed, uint64_t offset, const uint8_t *buf, size_t len)
{
	uint64_t key = pattern_key(seed);
	size_t i = 0;
	while (i < len && (offset + i) % 8) {
		uint64_t pos = offset + i;
		if (buf[i] != (uint8_t)(word_at(key, pos / 8) >> (8 * (pos % 8))))
			return i;
		i++;
	}
	uint64_t w = (offset + i) / 8;
	for (; i + 8 <= len && w % 8; i += 8, w++) { /* up to the next block */
		uint64_t want = word_at(key, w);
		if (get_word(buf + i) != want)
			return i + first_diff(want, buf + i, 8);
	}
	for (; i + 64 <= len; i += 64, w += 8) { /* whole blocks, one branch each */
		uint64_t h = sim_mix64(key + w / 8), bad = 0;
		for (unsigned j = 0; j < 8; j++)
			bad |= get_word(buf + i + 8 * j) ^ (h + j * STEP);
		if (bad)
			for (unsigned j = 0; j < 8; j++)
				if (get_word(buf + i + 8 * j) != h + j * STEP)
					return i + 8 * j + first_diff(h + j * STEP, buf + i + 8 * j, 8);
	}
	for (; i + 8 <= len; i += 8, w++) {
		uint64_t want = word_at(key, w);
		if (get_word(buf + i) != want)
			return i + first_diff(want, buf + i, 8);
	}
	if (i < len) {
		size_t d = first_diff(word_at(key, w), buf + i, len - i);
		if (d < len - i)
			return i + d;
	}
	return len;
}
