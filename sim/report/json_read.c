/* Recursive-descent JSON reader (RFC 8259), sized for the simulator's own documents:
 * depth at most 64, positions reported as LINE:COLUMN. */
#include "sim/report/json_read.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#define JSON_READ_MAX_DEPTH 64

typedef struct reader {
	const char *p, *end, *start;
	char *err;
	size_t errlen;
	bool failed;
} reader;

static void fail_at(reader *r, const char *what)
{
	if (r->failed)
		return;
	r->failed = true;
	unsigned line = 1, col = 1;
	for (const char *q = r->start; q < r->p && q < r->end; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	snprintf(r->err, r->errlen, "%u:%u: %s", line, col, what);
}

static void skip_ws(reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static bool literal(reader *r, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n))
		return false;
	r->p += n;
	return true;
}

static int hex4(const char *p)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		int c = g_ascii_xdigit_value(p[i]);
		if (c < 0)
			return -1;
		v = v << 4 | c;
	}
	return v;
}

/* A \u escape (with its surrogate pair) appended as UTF-8; false after fail_at. */
static bool unicode_escape(reader *r, GString *s)
{
	if (r->end - r->p < 5 || hex4(r->p + 1) < 0) {
		fail_at(r, "bad \\u escape; expected four hex digits");
		return false;
	}
	gunichar c = (gunichar)hex4(r->p + 1);
	r->p += 5;
	if (c >= 0xd800 && c < 0xdc00 && r->end - r->p >= 6 && r->p[0] == '\\' && r->p[1] == 'u' && hex4(r->p + 2) >= 0xdc00 &&
	    hex4(r->p + 2) < 0xe000) {
		c = 0x10000 + ((c - 0xd800) << 10) + ((gunichar)hex4(r->p + 2) - 0xdc00);
		r->p += 6;
	}
	g_string_append_unichar(s, c);
	return true;
}

static char *parse_string(reader *r)
{
	r->p++; /* the opening quote */
	GString *s = g_string_new(NULL);
	while (r->p < r->end && *r->p != '"') {
		unsigned char c = (unsigned char)*r->p;
		if (c < 0x20) {
			fail_at(r, "control character in a string");
			break;
		}
		if (c != '\\') {
			g_string_append_c(s, (char)c);
			r->p++;
			continue;
		}
		if (r->p + 1 >= r->end) {
			fail_at(r, "string not closed");
			break;
		}
		const char *esc = strchr("\"\\/bfnrtu", r->p[1]);
		if (!esc || !r->p[1]) {
			fail_at(r, "bad escape; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u");
			break;
		}
		r->p++;
		if (*r->p == 'u') {
			if (!unicode_escape(r, s))
				break;
			continue;
		}
		static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
		g_string_append_c(s, to[strchr(from, *r->p) - from]);
		r->p++;
	}
	if (!r->failed && r->p >= r->end)
		fail_at(r, "string not closed; expected '\"'");
	if (r->failed) {
		g_string_free(s, TRUE);
		return NULL;
	}
	r->p++;
	return g_string_free(s, FALSE);
}

static char *parse_number(reader *r)
{
	const char *s = r->p;
	if (r->p < r->end && *r->p == '-')
		r->p++;
	size_t digits = 0;
	while (r->p < r->end && ((*r->p >= '0' && *r->p <= '9') || *r->p == '.' || *r->p == 'e' || *r->p == 'E' ||
	                         *r->p == '+' || *r->p == '-')) {
		digits += *r->p >= '0' && *r->p <= '9';
		r->p++;
	}
	if (!digits) {
		r->p = s;
		fail_at(r, "expected a value (object, array, string, number, true, false or null)");
		return NULL;
	}
	return g_strndup(s, (gsize)(r->p - s));
}

static json_value *parse_value(reader *r, int depth);

/* The members or items of an object ('{') or array ('['), up to its closing bracket. */
static bool parse_container(reader *r, json_value *v, int depth)
{
	bool object = v->kind == JSON_OBJECT;
	char close = object ? '}' : ']';
	GPtrArray *items = g_ptr_array_new(), *keys = g_ptr_array_new();
	r->p++;
	skip_ws(r);
	bool first = true;
	while (!r->failed) {
		if (first && r->p < r->end && *r->p == close) { /* empty */
			r->p++;
			break;
		}
		if (object) {
			if (r->p >= r->end || *r->p != '"') {
				fail_at(r, "expected a member name in double quotes");
				break;
			}
			char *k = parse_string(r);
			if (!k)
				break;
			g_ptr_array_add(keys, k);
			skip_ws(r);
			if (r->p >= r->end || *r->p != ':') {
				fail_at(r, "expected ':' after the member name");
				break;
			}
			r->p++;
		}
		json_value *item = parse_value(r, depth + 1);
		if (!item)
			break;
		g_ptr_array_add(items, item);
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			skip_ws(r);
			first = false;
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			break;
		}
		if (r->p >= r->end)
			fail_at(r, object ? "unexpected end; expected ',' or '}'" : "unexpected end; expected ',' or ']'");
		else
			fail_at(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
	}
	/* a member name whose value failed to parse has no item: it goes now */
	while (keys->len > items->len)
		g_free(g_ptr_array_remove_index(keys, keys->len - 1));
	v->n = items->len;
	v->items = (json_value **)g_ptr_array_free(items, FALSE);
	v->keys = (char **)g_ptr_array_free(keys, FALSE);
	return !r->failed;
}

static json_value *parse_value(reader *r, int depth)
{
	skip_ws(r);
	if (depth > JSON_READ_MAX_DEPTH) {
		fail_at(r, "nested too deeply");
		return NULL;
	}
	if (r->p >= r->end) {
		fail_at(r, "unexpected end; expected a value");
		return NULL;
	}
	json_value *v = g_new0(json_value, 1);
	char c = *r->p;
	bool ok = true;
	if (c == '{' || c == '[') {
		v->kind = c == '{' ? JSON_OBJECT : JSON_ARRAY;
		ok = parse_container(r, v, depth);
	} else if (c == '"') {
		v->kind = JSON_STRING;
		ok = (v->text = parse_string(r)) != NULL;
	} else if (literal(r, "true") || literal(r, "false")) {
		v->kind = JSON_BOOL;
		v->b = r->p[-1] == 'e' && r->p[-2] == 'u';
	} else if (literal(r, "null")) {
		v->kind = JSON_NULL;
	} else {
		v->kind = JSON_NUMBER;
		ok = (v->text = parse_number(r)) != NULL;
	}
	if (!ok) {
		json_free(v);
		return NULL;
	}
	return v;
}

json_value *json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	reader r = { .p = text, .end = text + len, .start = text, .err = err, .errlen = errlen };
	json_value *v = parse_value(&r, 0);
	skip_ws(&r);
	if (v && r.p < r.end) {
		fail_at(&r, "text after the document; expected the end");
		json_free(v);
		v = NULL;
	}
	return v;
}

void json_free(json_value *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		json_free(v->items[i]);
		if (v->kind == JSON_OBJECT)
			g_free(v->keys[i]);
	}
	g_free(v->items);
	g_free(v->keys);
	g_free(v->text);
	g_free(v);
}

const json_value *json_get(const json_value *obj, const char *key)
{
	if (!obj || obj->kind != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return obj->items[i];
	return NULL;
}

const char *json_get_text(const json_value *obj, const char *key)
{
	const json_value *v = json_get(obj, key);
	return v && (v->kind == JSON_STRING || v->kind == JSON_NUMBER) ? v->text : NULL;
}
