/* Seeded random streams: xoshiro256** state, seeded through splitmix64. */
#include "sim/engine/rng.h"

#include <math.h>
#include <string.h>

uint64_t sim_hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

void sim_rng_seed(sim_rng *r, uint64_t seed)
{
	uint64_t x = seed;
	for (int i = 0; i < 4; i++) {
		x += 0x9e3779b97f4a7c15ULL;
		r->s[i] = sim_mix64(x);
	}
	if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
		r->s[0] = 1; /* the all-zero state is the one xoshiro cannot leave */
}

void sim_rng_stream(sim_rng *r, uint64_t run_seed, const char *name, uint64_t index)
{
	uint64_t k = sim_mix64(run_seed);
	k = sim_mix64(k ^ sim_hash_str(name));
	k = sim_mix64(k ^ (index * 0xd1342543de82ef95ULL));
	sim_rng_seed(r, k);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t sim_rng_u64(sim_rng *r)
{
	uint64_t *s = r->s;
	const uint64_t result = rotl(s[1] * 5, 7) * 9;
	const uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint32_t sim_rng_u32(sim_rng *r) { return (uint32_t)(sim_rng_u64(r) >> 32); }

uint64_t sim_rng_below(sim_rng *r, uint64_t n)
{
	if (n == 0)
		return 0;
	/* Lemire's multiply-and-reject: unbiased, usually one draw */
	unsigned __int128 m = (unsigned __int128)sim_rng_u64(r) * n;
	uint64_t lo = (uint64_t)m;
	if (lo < n) {
		uint64_t threshold = (0 - n) % n;
		while (lo < threshold) {
			m = (unsigned __int128)sim_rng_u64(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

uint64_t sim_rng_range(sim_rng *r, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return lo;
	if (lo == 0 && hi == UINT64_MAX)
		return sim_rng_u64(r);
	return lo + sim_rng_below(r, hi - lo + 1);
}

bool sim_rng_chance(sim_rng *r, sim_ratio p)
{
	if (p.num == 0 || p.den == 0)
		return false;
	if (p.num >= p.den)
		return true;
	return sim_rng_below(r, p.den) < p.num;
}

void sim_rng_bytes(sim_rng *r, void *dst, uint64_t len)
{
	uint8_t *d = dst;
	while (len >= 8) {
		uint64_t v = sim_rng_u64(r);
		memcpy(d, &v, 8);
		d += 8;
		len -= 8;
	}
	if (len) {
		uint64_t v = sim_rng_u64(r);
		memcpy(d, &v, len);
	}
}

uint64_t sim_rng_exp(sim_rng *r, uint64_t mean)
{
	/* 53 random bits in (0, 1]: never log(0) */
	double u = (double)((sim_rng_u64(r) >> 11) + 1) * (1.0 / 9007199254740992.0);
	double v = -log(u) * (double)mean;
	if (v >= 1.8e19)
		return UINT64_MAX / 2;
	return (uint64_t)(v + 0.5);
}
