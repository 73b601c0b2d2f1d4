/* The pattern is built from 8-byte words: word w is sim_mix64(key + w), where the key
 * is derived from the seed. Checking regenerates the expected bytes in small chunks. */
#include "sim/pattern.h"

#include <string.h>

#include "sim/rng.h"

static uint64_t pattern_key(uint64_t seed)
{
	return sim_mix64(seed ^ 0x7061747465726e00ull); /* "pattern" */
}

static void put_word(uint8_t *d, uint64_t w)
{
	for (unsigned b = 0; b < 8; b++) /* byte b of a word is bits 8b..8b+7 */
		d[b] = (uint8_t)(w >> (8 * b));
}

void pattern_fill(uint64_t seed, uint64_t offset, uint8_t *dst, size_t len)
{
	uint64_t key = pattern_key(seed);
	size_t i = 0;
	while (i < len && (offset + i) % 8) { /* up to the next word boundary */
		uint64_t pos = offset + i;
		dst[i++] = (uint8_t)(sim_mix64(key + pos / 8) >> (8 * (pos % 8)));
	}
	for (; i + 8 <= len; i += 8)
		put_word(dst + i, sim_mix64(key + (offset + i) / 8));
	if (i < len) {
		uint64_t w = sim_mix64(key + (offset + i) / 8);
		for (unsigned b = 0; i < len; b++)
			dst[i++] = (uint8_t)(w >> (8 * b));
	}
}

size_t pattern_check(uint64_t seed, uint64_t offset, const uint8_t *buf, size_t len)
{
	uint8_t want[2048];
	size_t done = 0;
	while (done < len) {
		size_t n = len - done < sizeof want ? len - done : sizeof want;
		pattern_fill(seed, offset + done, want, n);
		if (memcmp(want, buf + done, n)) {
			for (size_t i = 0; i < n; i++)
				if (want[i] != buf[done + i])
					return done + i;
		}
		done += n;
	}
	return len;
}
