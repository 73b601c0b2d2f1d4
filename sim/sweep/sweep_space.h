/* The points of a sweep: the cross product of a seed range and, for each swept parameter,
 * its list of values (`smcr-sim sweep FILE --seeds A..B --set N=V1,V2 --set M=…`).
 *
 * Points are numbered 0..n-1 in a fixed order: the first --set varies slowest, the seed
 * fastest, so point i of one command is the same world wherever and however it runs. */
#ifndef SIM_SWEEP_SPACE_H
#define SIM_SWEEP_SPACE_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SWEEP_MAX_POINTS 100000000ull /* keeps the per-point tables of the results small */

typedef struct sweep_axis {
	char *name;
	char **values; /* NULL-terminated, in the order given */
	size_t n_values;
} sweep_axis;

typedef struct sweep_space {
	uint64_t seed_from, seed_to; /* inclusive */
	sweep_axis *axes;
	size_t n_axes;
	uint64_t n_points;
} sweep_space;

/* "A..B" (or one seed "A"); false with the reason in err. */
bool sweep_parse_seeds(const char *text, uint64_t *from, uint64_t *to, char *err, size_t errlen);

/* Build the space from the seed range and the --set arguments ("NAME=V1,V2,…"); false with
 * the reason in err (a malformed --set, a parameter swept twice, too many points). */
bool sweep_space_init(sweep_space *s, uint64_t seed_from, uint64_t seed_to, const char *const *sets, size_t n_sets,
                      char *err, size_t errlen);
void sweep_space_free(sweep_space *s);

/* Point i: its seed and, per axis, the index of its value. */
uint64_t sweep_point_seed(const sweep_space *s, uint64_t point);
size_t sweep_point_value(const sweep_space *s, uint64_t point, size_t axis);
/* The points that share point i's parameter values (they differ in the seed only) have
 * this key; a runner reuses the scenario it loaded for the previous point of one key. */
uint64_t sweep_point_params_key(const sweep_space *s, uint64_t point);

/* Point i's overrides, "NAME=VALUE" each (g_strfreev the result). */
char **sweep_point_sets(const sweep_space *s, uint64_t point);

/* A word as a POSIX shell reads it back: as is when it is plain, else in single quotes. */
void sweep_shell_word(GString *out, const char *word);

#endif
