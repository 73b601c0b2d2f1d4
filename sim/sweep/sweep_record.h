/* Result records: one JSON object per point, on one line.
 *
 * Writing goes through the report's JSON writer (sim/report/json_writer.h) into memory, so
 * escaping is the one used everywhere. Reading is only what the runner needs of a record it
 * wrote itself: the value of a top-level key (records are flat enough for that) — the
 * point number when a result file is resumed, pass/fail and the reproducing command for
 * the summary. */
#ifndef SIM_SWEEP_RECORD_H
#define SIM_SWEEP_RECORD_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/report/json_writer.h"

typedef struct sweep_rec {
	json_writer j;
	FILE *mem;
	char *buf;
	size_t len;
} sweep_rec;

/* A writer for one compact record (json_begin_object etc. on rec->j). */
void sweep_rec_open(sweep_rec *rec);
/* The record as text, without its newline, appended to out; the writer is closed. */
void sweep_rec_close(sweep_rec *rec, GString *out);

/* Find top-level `"key":` in a record line. String values are unescaped into out (\uXXXX
 * of ASCII only, which is all the writer makes of our texts); other values are copied as
 * written. False if the key is not there. */
bool sweep_rec_get(const char *line, const char *key, GString *out);
bool sweep_rec_get_u64(const char *line, const char *key, uint64_t *v);
/* Element i of a JSON array as written (`text` is the array: "[…]"); false past its end. */
bool sweep_rec_item(const char *text, size_t i, GString *out);
/* true / false values; def when absent */
bool sweep_rec_get_bool(const char *line, const char *key, bool def);

#endif
