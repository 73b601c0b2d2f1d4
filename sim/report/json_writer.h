/* A tiny streaming JSON writer: objects, arrays, strings with escaping, integers,
 * booleans. Keys are written in the order the caller writes them, so output is as stable
 * as the caller's order. Pretty output indents by two spaces; compact output has no
 * whitespace. No floating point on purpose (reports carry integers). */
#ifndef SIM_JSON_WRITER_H
#define SIM_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

typedef struct json_writer {
	FILE *out;
	bool pretty;
	int depth;
	bool after_key;                 /* a key was written, its value comes next */
	bool has_items[JSON_MAX_DEPTH]; /* the open container already holds an item */
	bool overflow;                  /* nesting deeper than JSON_MAX_DEPTH was attempted */
} json_writer;

void json_init(json_writer *w, FILE *out, bool pretty);
/* End the document with a newline. Returns false if the nesting was misused. */
bool json_finish(json_writer *w);

void json_begin_object(json_writer *w);
void json_end_object(json_writer *w);
void json_begin_array(json_writer *w);
void json_end_array(json_writer *w);
void json_key(json_writer *w, const char *key);

/* Strings are UTF-8; invalid bytes are written as \u00XX (read as Latin-1) so any input
 * gives valid JSON. NULL writes null. */
void json_string(json_writer *w, const char *s);
void json_uint(json_writer *w, uint64_t v);
void json_int(json_writer *w, int64_t v);
void json_bool(json_writer *w, bool v);
void json_null(json_writer *w);

/* key + value in one call */
void json_kv_str(json_writer *w, const char *key, const char *s);
void json_kv_uint(json_writer *w, const char *key, uint64_t v);
void json_kv_bool(json_writer *w, const char *key, bool v);
/* "0x%0*x" formatted hex string (ids and codes read better in hex) */
void json_kv_hex(json_writer *w, const char *key, uint64_t v, int width);

#endif
