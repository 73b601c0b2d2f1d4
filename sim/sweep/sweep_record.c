/* Result records (sweep_record.h). */
#include <stdlib.h>
#include <string.h>

#include "sim/sweep/sweep_record.h"

void sweep_rec_open(sweep_rec *rec)
{
	rec->buf = NULL;
	rec->len = 0;
	rec->mem = open_memstream(&rec->buf, &rec->len);
	if (!rec->mem)
		g_error("sweep: no memory for a record");
	json_init(&rec->j, rec->mem, false);
}

void sweep_rec_close(sweep_rec *rec, GString *out)
{
	json_finish(&rec->j);
	fclose(rec->mem);
	size_t n = rec->len;
	while (n && rec->buf[n - 1] == '\n')
		n--;
	g_string_append_len(out, rec->buf, (gssize)n);
	free(rec->buf);
	rec->buf = NULL;
}

/* The end of the JSON value that starts at p (a string, a number, a literal, or a nested
 * object or array), or NULL if it does not end on the line. */
static const char *value_end(const char *p)
{
	if (*p == '"') {
		for (p++; *p; p++) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				return p + 1;
		}
		return NULL;
	}
	if (*p == '{' || *p == '[') {
		int depth = 0;
		for (; *p; p++) {
			if (*p == '"') {
				const char *e = value_end(p);
				if (!e)
					return NULL;
				p = e - 1;
			} else if (*p == '{' || *p == '[') {
				depth++;
			} else if (*p == '}' || *p == ']') {
				if (--depth == 0)
					return p + 1;
			}
		}
		return NULL;
	}
	while (*p && *p != ',' && *p != '}' && *p != ']')
		p++;
	return p;
}

/* The value of top-level key `key` of the object on the line, or NULL. */
static const char *find_value(const char *line, const char *key, const char **end)
{
	const char *p = line;
	while (*p == ' ')
		p++;
	if (*p != '{')
		return NULL;
	p++;
	size_t klen = strlen(key);
	while (*p == '"') {
		const char *kend = value_end(p);
		if (!kend || *kend != ':')
			return NULL;
		const char *v = kend + 1;
		const char *vend = value_end(v);
		if (!vend)
			return NULL;
		if ((size_t)(kend - p) == klen + 2 && !memcmp(p + 1, key, klen)) {
			*end = vend;
			return v;
		}
		p = vend;
		if (*p != ',')
			return NULL;
		p++;
	}
	return NULL;
}

bool sweep_rec_get(const char *line, const char *key, GString *out)
{
	const char *end;
	const char *v = find_value(line, key, &end);
	if (!v)
		return false;
	g_string_truncate(out, 0);
	if (*v != '"') {
		g_string_append_len(out, v, end - v);
		return true;
	}
	for (const char *p = v + 1; p < end - 1; p++) {
		if (*p != '\\') {
			g_string_append_c(out, *p);
			continue;
		}
		p++;
		switch (*p) {
		case 'n':
			g_string_append_c(out, '\n');
			break;
		case 't':
			g_string_append_c(out, '\t');
			break;
		case 'r':
			g_string_append_c(out, '\r');
			break;
		case 'b':
			g_string_append_c(out, '\b');
			break;
		case 'f':
			g_string_append_c(out, '\f');
			break;
		case 'u':
			if (end - p > 4) {
				char hex[5] = { p[1], p[2], p[3], p[4], 0 };
				g_string_append_c(out, (char)strtoul(hex, NULL, 16));
				p += 4;
			}
			break;
		default:
			g_string_append_c(out, *p);
			break;
		}
	}
	return true;
}

bool sweep_rec_get_u64(const char *line, const char *key, uint64_t *v)
{
	const char *end;
	const char *p = find_value(line, key, &end);
	if (!p || *p < '0' || *p > '9')
		return false;
	char *e;
	*v = g_ascii_strtoull(p, &e, 10);
	return e == end;
}

bool sweep_rec_get_bool(const char *line, const char *key, bool def)
{
	const char *end;
	const char *p = find_value(line, key, &end);
	if (!p)
		return def;
	return end - p == 4 && !memcmp(p, "true", 4);
}

bool sweep_rec_item(const char *text, size_t i, GString *out)
{
	const char *p = text;
	if (*p != '[')
		return false;
	p++;
	for (size_t k = 0; *p && *p != ']'; k++) {
		const char *e = value_end(p);
		if (!e)
			return false;
		if (k == i) {
			g_string_assign(out, "");
			g_string_append_len(out, p, e - p);
			return true;
		}
		p = e;
		if (*p == ',')
			p++;
	}
	return false;
}
