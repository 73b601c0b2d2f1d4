/* A small JSON reader for `smcr-sim diff`: the documents the simulator writes
 * (sim/report/json_writer.h) read back into a tree. Object members keep their order;
 * numbers keep their text, so that comparing them is exact. */
#ifndef SIM_REPORT_JSON_READ_H
#define SIM_REPORT_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

typedef enum json_kind { JSON_NULL,
	                 JSON_BOOL,
	                 JSON_NUMBER,
	                 JSON_STRING,
	                 JSON_ARRAY,
	                 JSON_OBJECT } json_kind;

typedef struct json_value json_value;
struct json_value {
	json_kind kind;
	bool b;     /* JSON_BOOL */
	char *text; /* JSON_NUMBER: as written; JSON_STRING: decoded UTF-8 */
	size_t n;   /* JSON_ARRAY, JSON_OBJECT: items */
	json_value **items;
	char **keys; /* JSON_OBJECT: the member names, in document order */
};

/* Parse text (len bytes) into a tree; NULL with "LINE:COLUMN: what" in err. */
json_value *json_parse(const char *text, size_t len, char *err, size_t errlen);
void json_free(json_value *v);
/* The member named key of an object, or NULL. */
const json_value *json_get(const json_value *obj, const char *key);
/* The text of a string or number member, or NULL. */
const char *json_get_text(const json_value *obj, const char *key);

#endif
