/* The scenario lexer: splits a file into statements (logical lines) of words.
 *
 * A statement is one line, or several joined by a trailing '\'. '#' outside quotes starts
 * a comment. Words are separated by blanks (space, tab); a word is either a bare word, a
 * quoted string ("…" with \" and \\ escapes), or key=value where the value may be quoted.
 * In a bare word, `{…}` (an expression, see scn_expand.h) is kept whole, blanks and '#'
 * included; it closes on its line and does not nest. Every word remembers its line and
 * column. A lexical error is reported once and the rest of its statement is skipped (the
 * statement comes back with `bad` set). Lines, words and statements have size limits
 * (below), so no input makes the lexer take unbounded memory. */
#ifndef SIM_SCN_LEX_H
#define SIM_SCN_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/scenario/scn_diag.h"

#define SCN_MAX_LINE_BYTES 65536 /* a physical line */
#define SCN_MAX_WORD_BYTES 4096  /* a word (a value, a quoted string) */
#define SCN_MAX_STMT_WORDS 1024  /* words in a statement, continuations included */

typedef struct scn_token {
	const char *key;   /* key of key=value, NULL for a positional word */
	const char *value; /* the word (positional) or the value, unescaped */
	scn_loc loc;       /* where the word starts */
	scn_loc vloc;      /* where the value starts (== loc for positional words) */
	bool quoted;       /* the value was a quoted string */
	bool braces;       /* the value holds `{…}` (bare words only) */
} scn_token;

typedef struct scn_stmt {
	scn_token *tok;
	size_t n;
	scn_loc loc;  /* first word */
	bool bad;     /* a lexical error was reported; skip it */
	uint64_t ord; /* 0, 1, … : the statement's place in the expanded file */
} scn_stmt;

typedef struct scn_lexer {
	const char *file;
	const char *src;
	size_t len;
	size_t pos;
	unsigned line;     /* line of src[pos] */
	size_t line_start; /* offset of the current line */
	/* storage of the current statement */
	scn_token *tok;
	size_t tok_cap;
	char *text;
	size_t text_len, text_cap;
} scn_lexer;

void scn_lex_init(scn_lexer *lx, const char *file, const char *src, size_t len);
void scn_lex_free(scn_lexer *lx);
/* Next non-empty statement: true and *st filled (valid until the next call), false at the
 * end of the input. */
bool scn_lex_next(scn_lexer *lx, scn_stmt *st, scn_diag *d);

#endif
