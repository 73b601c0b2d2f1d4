/* Every field an SMC-R message carries on the wire, for `replay --messages` (text) and the
 * replay's JSON (the "messages" of `--messages --format json`, and the "clc" and "llc"
 * lists of a report). One walk over the decoded message feeds either sink, so the text and
 * the JSON name the same fields the same way (snake_case keys, docs/traces.md):
 *   text   key=value separated by blanks; lists [a,b]; objects {key=value ...}
 *   JSON   the same keys and nesting
 * Identifiers and codes are hex (0x...), counts and sizes decimal, GIDs as IPv6 text,
 * MACs as aa:bb:cc:dd:ee:ff, blank-padded names trimmed. A message that does not decode
 * gets its decode error instead of its fields ("error"). */
#ifndef SIM_REPLAY_FIELDS_H
#define SIM_REPLAY_FIELDS_H

#include <stdbool.h>
#include <stdio.h>

#include "sim/replay/replay.h"
#include "sim/report/json_writer.h"

typedef struct rp_sink {
	json_writer *w;   /* JSON, or */
	FILE *out;        /* text */
	bool need_space;  /* text: a field was written in the current object */
	bool in_list[16]; /* text: nesting, for separators */
	bool list_item[16];
	int depth;
} rp_sink;

/* The message's own fields (no frame, time or addresses), as members of the current
 * object (JSON) or continuing the current line (text). */
void rp_fields_of_msg(rp_sink *k, const replay_msg *m);

#endif
