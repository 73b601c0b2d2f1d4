/* Integer expressions of scenario files: what `{…}` and loop ranges hold.
 *
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/' | '%') unary)*
 *   unary   := '-' unary | primary
 *   primary := NUMBER | NAME | '(' expr ')'
 *
 * NUMBER is decimal or 0x hex, NAME is [A-Za-z_][A-Za-z0-9_]* (a loop variable or a
 * parameter, looked up by the caller), blanks are allowed between. Arithmetic is on
 * signed 64-bit integers; `/` and `%` truncate toward zero (C's rule). Overflow and
 * division by zero are errors, never wrapped values. */
#ifndef SIM_SCN_EXPR_H
#define SIM_SCN_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An error: its byte offset in the text and what went wrong ("…; expected …"). */
typedef struct scn_expr_err {
	size_t at;
	char msg[400];
} scn_expr_err;

/* The value of NAME (name[0..len)); false with err->msg set (err->at is filled in by the
 * evaluator) when there is none. */
typedef bool (*scn_expr_lookup)(void *ctx, const char *name, size_t len, int64_t *value, scn_expr_err *err);

#define SCN_EXPR_MAX_DEPTH 32 /* parentheses and unary minus nested */

/* Evaluate text[0..len). */
bool scn_expr_eval(const char *text, size_t len, scn_expr_lookup lookup, void *ctx, int64_t *out, scn_expr_err *err);

/* "FROM..TO" (each an expression): both bounds. */
bool scn_expr_range(const char *text, size_t len, scn_expr_lookup lookup, void *ctx, int64_t *from, int64_t *to,
                    scn_expr_err *err);

/* Format v per spec[0..len) ("" decimal; "05" zero-padded to 5; "x" / "X" hex; "04X"
 * zero-padded hex; "d" decimal): the text in buf. False with err->msg for a bad spec or
 * a negative value in hex. */
bool scn_expr_format(int64_t v, const char *spec, size_t len, char *buf, size_t buflen, scn_expr_err *err);

/* Is name[0..len) shaped like a NAME? */
bool scn_expr_is_name(const char *name, size_t len);

#endif
