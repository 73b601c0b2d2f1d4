/* Streaming JSON writer (see json_writer.h). */
#include "sim/report/json_writer.h"

#include <inttypes.h>
#include <string.h>

void json_init(json_writer *w, FILE *out, bool pretty)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->pretty = pretty;
}

bool json_finish(json_writer *w)
{
	fputc('\n', w->out);
	return w->depth == 0 && !w->after_key && !w->overflow;
}

static void newline_indent(json_writer *w)
{
	if (!w->pretty)
		return;
	fputc('\n', w->out);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->out);
}

/* Separator and indentation before a value or a key. */
static void before_item(json_writer *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth > 0) {
		if (w->has_items[w->depth - 1])
			fputc(',', w->out);
		w->has_items[w->depth - 1] = true;
		newline_indent(w);
	}
}

static void open_container(json_writer *w, char c)
{
	before_item(w);
	fputc(c, w->out);
	if (w->depth == JSON_MAX_DEPTH) {
		w->overflow = true;
		return;
	}
	w->has_items[w->depth++] = false;
}

static void close_container(json_writer *w, char c)
{
	if (w->depth == 0) {
		w->overflow = true;
		return;
	}
	bool had = w->has_items[--w->depth];
	if (had)
		newline_indent(w);
	fputc(c, w->out);
}

void json_begin_object(json_writer *w) { open_container(w, '{'); }
void json_end_object(json_writer *w) { close_container(w, '}'); }
void json_begin_array(json_writer *w) { open_container(w, '['); }
void json_end_array(json_writer *w) { close_container(w, ']'); }

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if the bytes are not one. */
static size_t utf8_seq_len(const unsigned char *s, size_t left)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if ((c & 0xE0) == 0xC0) {
		n = 2;
		cp = c & 0x1Fu;
	} else if ((c & 0xF0) == 0xE0) {
		n = 3;
		cp = c & 0x0Fu;
	} else if ((c & 0xF8) == 0xF0) {
		n = 4;
		cp = c & 0x07u;
	} else
		return 0;
	if (n > left)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3Fu);
	}
	/* reject overlong forms, surrogates and values beyond Unicode */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		return 0;
	return n;
}

static void write_escaped(FILE *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	fputc('"', out);
	for (size_t i = 0; i < len;) {
		unsigned char c = s[i];
		switch (c) {
		case '"':
			fputs("\\\"", out);
			i++;
			continue;
		case '\\':
			fputs("\\\\", out);
			i++;
			continue;
		case '\n':
			fputs("\\n", out);
			i++;
			continue;
		case '\r':
			fputs("\\r", out);
			i++;
			continue;
		case '\t':
			fputs("\\t", out);
			i++;
			continue;
		case '\b':
			fputs("\\b", out);
			i++;
			continue;
		case '\f':
			fputs("\\f", out);
			i++;
			continue;
		default: break;
		}
		if (c < 0x20 || c == 0x7F) {
			fprintf(out, "\\u%04x", c);
			i++;
			continue;
		}
		size_t n = utf8_seq_len(s + i, len - i);
		if (n == 0) {
			fprintf(out, "\\u%04x", c); /* not UTF-8: keep the byte as a Latin-1 character */
			i++;
			continue;
		}
		fwrite(s + i, 1, n, out);
		i += n;
	}
	fputc('"', out);
}

void json_key(json_writer *w, const char *key)
{
	before_item(w);
	write_escaped(w->out, key, strlen(key));
	fputs(w->pretty ? ": " : ":", w->out);
	w->after_key = true;
}

static void json_string_len(json_writer *w, const char *s, size_t len)
{
	before_item(w);
	write_escaped(w->out, s, len);
}

void json_string(json_writer *w, const char *s)
{
	if (!s) {
		json_null(w);
		return;
	}
	json_string_len(w, s, strlen(s));
}

void json_uint(json_writer *w, uint64_t v)
{
	before_item(w);
	fprintf(w->out, "%" PRIu64, v);
}

void json_int(json_writer *w, int64_t v)
{
	before_item(w);
	fprintf(w->out, "%" PRId64, v);
}

void json_bool(json_writer *w, bool v)
{
	before_item(w);
	fputs(v ? "true" : "false", w->out);
}

void json_null(json_writer *w)
{
	before_item(w);
	fputs("null", w->out);
}

void json_kv_str(json_writer *w, const char *key, const char *s)
{
	json_key(w, key);
	json_string(w, s);
}
void json_kv_uint(json_writer *w, const char *key, uint64_t v)
{
	json_key(w, key);
	json_uint(w, v);
}
void json_kv_bool(json_writer *w, const char *key, bool v)
{
	json_key(w, key);
	json_bool(w, v);
}

void json_kv_hex(json_writer *w, const char *key, uint64_t v, int width)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "0x%0*" PRIx64, width, v);
	json_kv_str(w, key, buf);
}
