/* `smcr-sim diff`: the differences between two JSON documents of the simulator (a run's
 * result, `run --format json`, or a report: `report`, `replay`, `node --format json`).
 * Lists are matched by the stable identity of their items, not their position: stacks by
 * name, RNICs by name and port, link groups by id, links by local link id, connections by
 * their 4-tuple, timeline entries by FILE:LINE and time, fallback counters by reason code.
 * Lists of anything else are matched by position. */
#ifndef TOOLS_JSON_DIFF_H
#define TOOLS_JSON_DIFF_H

#include <stddef.h>

#include "sim/report/json_read.h"

typedef enum json_diff_kind {
	JSON_DIFF_CHANGED, /* a and b: the two values */
	JSON_DIFF_ONLY_A,  /* the item is only in the first document (a: what it is) */
	JSON_DIFF_ONLY_B,  /* only in the second (b: what it is) */
} json_diff_kind;

/* One difference: where ("stack ZOSA / link group 0x00000100 / link 0x00000101 /
 * bytes_out"), and the values as text (strings without quotes). */
typedef void (*json_diff_fn)(void *ctx, json_diff_kind kind, const char *path, const char *a, const char *b);

typedef struct json_diff_opts {
	const char *const *ignore; /* member names not compared (NULL-terminated), or NULL */
} json_diff_opts;

/* Report every difference to fn in document order (the first document's, then what only
 * the second has); the number of differences. */
size_t json_diff(const json_value *a, const json_value *b, const json_diff_opts *o, json_diff_fn fn, void *ctx);

#endif
