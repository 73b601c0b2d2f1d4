/* The scenario lexer: statements of words with line:column positions. */
#include <glib.h>
#include <string.h>

#include "sim/scenario/scn_lex.h"

#define NO_KEY ((size_t)-1)

void scn_lex_init(scn_lexer *lx, const char *file, const char *src, size_t len)
{
	*lx = (scn_lexer){ .file = file, .src = src, .len = len, .line = 1 };
}

void scn_lex_free(scn_lexer *lx)
{
	g_free(lx->tok);
	g_free(lx->text);
	lx->tok = NULL;
	lx->text = NULL;
}

/* The statement being built; tokens hold offsets into lx->text until the end, because
 * the buffer may move while it grows. */
typedef struct builder {
	scn_lexer *lx;
	size_t n;
	size_t *key_off;
	size_t *value_off;
	size_t off_cap;
} builder;

static size_t text_add(scn_lexer *lx, const char *s, size_t n)
{
	if (lx->text_len + n + 1 > lx->text_cap) {
		lx->text_cap = (lx->text_len + n + 1) * 2 + 64;
		lx->text = g_realloc(lx->text, lx->text_cap);
	}
	size_t at = lx->text_len;
	memcpy(lx->text + at, s, n);
	lx->text[at + n] = 0;
	lx->text_len += n + 1;
	return at;
}

/* Start a string in the text buffer; characters are appended with text_putc. */
static size_t text_begin(scn_lexer *lx)
{
	return text_add(lx, "", 0);
}

static void text_putc(scn_lexer *lx, char c)
{
	if (lx->text_len + 2 > lx->text_cap) {
		lx->text_cap = lx->text_len * 2 + 64;
		lx->text = g_realloc(lx->text, lx->text_cap);
	}
	/* overwrite the terminating NUL of the string being built */
	lx->text[lx->text_len - 1] = c;
	lx->text[lx->text_len++] = 0;
}

static scn_loc here(const scn_lexer *lx, size_t pos)
{
	return (scn_loc){ lx->file, lx->line, (uint32_t)(pos - lx->line_start + 1) };
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static bool at_eol(const scn_lexer *lx, size_t pos)
{
	return pos >= lx->len || lx->src[pos] == '\n';
}

/* Only blanks from pos to the end of the line? */
static bool rest_blank(const scn_lexer *lx, size_t pos)
{
	while (!at_eol(lx, pos) && is_blank(lx->src[pos]))
		pos++;
	return at_eol(lx, pos);
}

static bool ends_word(const scn_lexer *lx, size_t pos)
{
	return at_eol(lx, pos) || is_blank(lx->src[pos]) || lx->src[pos] == '#';
}

static bool add_token(builder *b, size_t key_off, size_t value_off, scn_loc loc, scn_loc vloc, bool quoted, bool braces,
                      scn_diag *d)
{
	scn_lexer *lx = b->lx;
	if (b->n == SCN_MAX_STMT_WORDS) {
		scn_error(d, loc, "more than %d words in one statement; expected at most %d", SCN_MAX_STMT_WORDS,
		          SCN_MAX_STMT_WORDS);
		return false;
	}
	if (b->n == lx->tok_cap) {
		lx->tok_cap = lx->tok_cap ? lx->tok_cap * 2 : 16;
		lx->tok = g_renew(scn_token, lx->tok, lx->tok_cap);
	}
	if (b->n == b->off_cap) {
		b->off_cap = b->off_cap ? b->off_cap * 2 : 16;
		b->key_off = g_renew(size_t, b->key_off, b->off_cap);
		b->value_off = g_renew(size_t, b->value_off, b->off_cap);
	}
	lx->tok[b->n] = (scn_token){ .loc = loc, .vloc = vloc, .quoted = quoted, .braces = braces };
	b->key_off[b->n] = key_off;
	b->value_off[b->n] = value_off;
	b->n++;
	return true;
}

static bool word_too_long(const scn_lexer *lx, size_t start, size_t p, scn_diag *d)
{
	if (p - start <= SCN_MAX_WORD_BYTES)
		return false;
	scn_error(d, here(lx, start), "a word of more than %d bytes; expected shorter words", SCN_MAX_WORD_BYTES);
	return true;
}

/* `{…}` at lx->src[*pos] == '{': on success *pos is after the '}'. */
static bool lex_braces(scn_lexer *lx, size_t *pos, scn_diag *d)
{
	size_t open = *pos, p = open + 1;
	for (; !at_eol(lx, p) && lx->src[p] != '}'; p++) {
		char c = lx->src[p];
		if (c == '{') {
			scn_error(d, here(lx, p), "'{' inside '{…}' (opened at column %u); expected one level of braces",
			          (unsigned)(open - lx->line_start + 1));
			*pos = p;
			return false;
		}
		if (c == '\r' && at_eol(lx, p + 1))
			break; /* CR LF: the line ends here */
		if (c == '"' || c == '\\') {
			scn_error(d, here(lx, p), "'%c' inside '{…}'; expected an expression such as {i*2+1}", c);
			*pos = p;
			return false;
		}
		if ((unsigned char)c < 0x20 && c != '\t') {
			scn_error(d, here(lx, p), "control character 0x%02x inside '{…}'; expected printable text",
			          (unsigned)(unsigned char)c);
			*pos = p;
			return false;
		}
	}
	if (at_eol(lx, p) || lx->src[p] != '}') {
		scn_error(d, here(lx, open), "'{' is not closed; expected '}' on the same line");
		*pos = p;
		return false;
	}
	*pos = p + 1;
	return true;
}

/* A quoted string at lx->src[*pos] == '"'; on success *pos is after the closing quote. */
static bool lex_quoted(scn_lexer *lx, size_t *pos, size_t *off, scn_diag *d)
{
	size_t open = *pos, p = open + 1;
	*off = text_begin(lx);
	for (;;) {
		if (at_eol(lx, p)) {
			scn_error(d, here(lx, open), "unterminated string; expected a closing '\"' on the same line");
			*pos = p;
			return false;
		}
		char c = lx->src[p];
		if (c == '"')
			break;
		if (word_too_long(lx, open, p, d)) {
			*pos = p;
			return false;
		}
		if (c == '\\') {
			char e = at_eol(lx, p + 1) ? 0 : lx->src[p + 1];
			if (e != '"' && e != '\\') {
				scn_error(d, here(lx, p), "unknown escape in a string; expected \\\" or \\\\");
				*pos = p;
				return false;
			}
			text_putc(lx, e);
			p += 2;
			continue;
		}
		if ((unsigned char)c < 0x20 && c != '\t') {
			scn_error(d, here(lx, p), "control character 0x%02x in a string; expected printable text",
			          (unsigned)(unsigned char)c);
			*pos = p;
			return false;
		}
		text_putc(lx, c);
		p++;
	}
	p++; /* closing quote */
	if (!ends_word(lx, p)) {
		scn_error(d, here(lx, p), "'%c' right after a closing quote; expected a blank between words", lx->src[p]);
		*pos = p;
		return false;
	}
	*pos = p;
	return true;
}

static bool key_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && ((c >= '0' && c <= '9') || c == '_'));
}

/* One word at *pos. Sets *cont if it ended with a continuation backslash. */
static bool lex_word(builder *b, size_t *pos, bool *cont, scn_diag *d)
{
	scn_lexer *lx = b->lx;
	size_t start = *pos;
	scn_loc loc = here(lx, start);
	if (lx->src[start] == '"') {
		size_t off;
		if (!lex_quoted(lx, pos, &off, d))
			return false;
		return add_token(b, NO_KEY, off, loc, loc, true, false, d);
	}
	size_t p = start;
	size_t key_off = NO_KEY;
	bool key_shape = true, braces = false;
	size_t value_start = start;
	while (!ends_word(lx, p)) {
		char c = lx->src[p];
		if (word_too_long(lx, start, p, d)) {
			*pos = p;
			return false;
		}
		if (c == '{') {
			if (!lex_braces(lx, &p, d)) {
				*pos = p;
				return false;
			}
			braces = true;
			key_shape = false;
			continue;
		}
		if (c == '}') {
			scn_error(d, here(lx, p), "'}' without '{'; expected '{' before it, as in R{i}");
			*pos = p;
			return false;
		}
		if (c == '\\') {
			if (rest_blank(lx, p + 1)) {
				*cont = true;
				break;
			}
			scn_error(d, here(lx, p), "stray '\\'; expected '\\' only at the end of a line to continue it");
			*pos = p;
			return false;
		}
		if (c == '"') {
			scn_error(d, here(lx, p), "'\"' inside a word; expected quotes around a whole value");
			*pos = p;
			return false;
		}
		if ((unsigned char)c < 0x20) {
			scn_error(d, here(lx, p), "control character 0x%02x; expected printable text", (unsigned)(unsigned char)c);
			*pos = p;
			return false;
		}
		if (c == '=' && key_off == NO_KEY && key_shape && p > start) {
			key_off = text_add(lx, lx->src + start, p - start);
			value_start = p + 1;
			p++;
			if (!at_eol(lx, p) && lx->src[p] == '"') {
				size_t off;
				scn_loc vloc = here(lx, p);
				if (!lex_quoted(lx, &p, &off, d)) {
					*pos = p;
					return false;
				}
				*pos = p;
				return add_token(b, key_off, off, loc, vloc, true, false, d);
			}
			continue;
		}
		if (key_off == NO_KEY && !key_char(c, p == start))
			key_shape = false;
		p++;
	}
	if (key_off != NO_KEY && p == value_start) {
		scn_error(d, here(lx, value_start), "empty value for '%s'; expected a value right after '='", lx->text + key_off);
		*pos = p;
		return false;
	}
	if (word_too_long(lx, start, p, d)) {
		*pos = p;
		return false;
	}
	size_t value_off = text_add(lx, lx->src + value_start, p - value_start);
	*pos = p;
	return add_token(b, key_off, value_off, loc, here(lx, value_start), false, braces, d);
}

/* Skip to the end of the physical line; true if its last non-blank character is '\'. */
static bool skip_line(scn_lexer *lx, size_t *pos)
{
	char last = 0;
	size_t p = *pos;
	while (!at_eol(lx, p)) {
		if (!is_blank(lx->src[p]))
			last = lx->src[p];
		p++;
	}
	*pos = p;
	return last == '\\';
}

bool scn_lex_next(scn_lexer *lx, scn_stmt *st, scn_diag *d)
{
	builder b = { .lx = lx };
	bool bad = false;
	bool pending_cont = false; /* the previous line ended with '\' */
	scn_loc cont_loc = { 0 };
	lx->text_len = 0;
	*st = (scn_stmt){ 0 };

	for (;;) {
		if (lx->pos >= lx->len) {
			if (pending_cont && !bad) {
				scn_error(d, cont_loc, "'\\' continues past the end of the file; expected another line");
				bad = true;
			}
			break;
		}
		size_t p = lx->pos;
		bool cont = false, content = false;
		const char *nl = memchr(lx->src + p, '\n', lx->len - p);
		size_t line_len = (nl ? (size_t)(nl - lx->src) : lx->len) - p;
		if (line_len > SCN_MAX_LINE_BYTES && !bad) {
			scn_error(d, here(lx, p + SCN_MAX_LINE_BYTES), "line %u is %zu bytes long; expected at most %d bytes per line",
			          lx->line, line_len, SCN_MAX_LINE_BYTES);
			bad = true;
			content = true;
			p += line_len; /* the whole line is skipped */
		}
		while (!at_eol(lx, p)) {
			char c = lx->src[p];
			if (is_blank(c)) {
				p++;
				continue;
			}
			if (c == '#') {
				skip_line(lx, &p);
				break;
			}
			content = true;
			if (bad) { /* a broken statement: only look for its continuation */
				cont = skip_line(lx, &p);
				break;
			}
			if (c == '\\') {
				if (rest_blank(lx, p + 1)) {
					cont = true;
					cont_loc = here(lx, p);
					skip_line(lx, &p);
					break;
				}
				scn_error(d, here(lx, p), "stray '\\'; expected '\\' only at the end of a line to continue it");
				bad = true;
				cont = skip_line(lx, &p);
				break;
			}
			bool word_cont = false;
			if (!lex_word(&b, &p, &word_cont, d)) {
				bad = true;
				cont = skip_line(lx, &p);
				break;
			}
			if (word_cont) {
				cont = true;
				cont_loc = here(lx, p);
				skip_line(lx, &p);
				break;
			}
		}
		if (pending_cont && !content && !bad) {
			scn_error(d, cont_loc, "'\\' continues into an empty line %u; expected the statement to go on there", lx->line);
			bad = true;
		}
		/* next line */
		if (p < lx->len)
			p++;
		lx->pos = p;
		lx->line++;
		lx->line_start = p;
		if (pending_cont && !content)
			break; /* an empty line ends even a continued statement */
		if (cont) {
			pending_cont = true;
			continue;
		}
		if (b.n > 0 || bad)
			break;
	}

	if (b.n == 0 && !bad) {
		g_free(b.key_off);
		g_free(b.value_off);
		return false;
	}
	for (size_t i = 0; i < b.n; i++) {
		lx->tok[i].key = b.key_off[i] == NO_KEY ? NULL : lx->text + b.key_off[i];
		lx->tok[i].value = lx->text + b.value_off[i];
	}
	g_free(b.key_off);
	g_free(b.value_off);
	st->tok = lx->tok;
	st->n = b.n;
	st->loc = b.n ? lx->tok[0].loc : cont_loc;
	st->bad = bad;
	return true;
}
