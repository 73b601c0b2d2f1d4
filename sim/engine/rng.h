/* Seeded pseudo-random streams (xoshiro256**, seeded through splitmix64).
 *
 * A stream is derived from (run seed, name, index), so every component owns its draws and
 * adding one component never shifts another's. Probabilities are integer ratios: no
 * floating point decides whether a simulated event happens. */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sim_rng {
	uint64_t s[4];
} sim_rng;

/* Integer probability num/den (den > 0); {0, 1} never, {1, 1} always. */
typedef struct sim_ratio {
	uint64_t num;
	uint64_t den;
} sim_ratio;

void sim_rng_seed(sim_rng *r, uint64_t seed);
void sim_rng_stream(sim_rng *r, uint64_t run_seed, const char *name, uint64_t index);

uint64_t sim_rng_u64(sim_rng *r);
uint32_t sim_rng_u32(sim_rng *r);
/* Uniform in [0, n), n > 0, without modulo bias. */
uint64_t sim_rng_below(sim_rng *r, uint64_t n);
/* Uniform in [lo, hi]. */
uint64_t sim_rng_range(sim_rng *r, uint64_t lo, uint64_t hi);
bool sim_rng_chance(sim_rng *r, sim_ratio p);
void sim_rng_bytes(sim_rng *r, void *dst, uint64_t len);
/* Exponential with the given mean, rounded to integer ns. Uses libm log(); meant for
 * load generators and benchmarks, not for fault decisions. */
uint64_t sim_rng_exp(sim_rng *r, uint64_t mean);

/* 64-bit string hash (FNV-1a) and a strong 64-bit mixer, shared by the engine. */
uint64_t sim_hash_str(const char *s);
static inline uint64_t sim_mix64(uint64_t x)
{
	/* splitmix64 finaliser: a bijection with good avalanche (inline: byte patterns and
	 * hashes call it in their inner loops) */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

#endif
