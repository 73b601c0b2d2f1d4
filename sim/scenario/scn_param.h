/* The values of scenario parameters: kinds, their names, and the check of a value
 * against its kind (internal to sim/scenario). */
#ifndef SIM_SCN_PARAM_H
#define SIM_SCN_PARAM_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/scenario/scn_model.h"

/* "int", "duration", …; false if the word names no kind. */
bool scn_param_kind_parse(const char *word, scn_param_kind *k);
/* The kind of a default written without type=: the first of int, duration, size, rate,
 * ratio, bool that reads it, else text. */
scn_param_kind scn_param_infer(const char *text);
/* Does text read as kind k? For ints, *i gets the value. False with *why ("expected …"). */
bool scn_param_check(scn_param_kind k, const char *text, int64_t *i, const char **why);
/* "an integer", "a duration", … for messages. */
const char *scn_param_kind_noun(scn_param_kind k);

#endif
