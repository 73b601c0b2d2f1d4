/* Loops and parameters of scenario files: the layer between the lexer and the parser.
 *
 *   param NAME=DEFAULT [type=KIND]   a value, overridden by --set NAME=VALUE
 *   for VAR in FROM..TO              the statements up to the matching `end`, once per
 *     …                              VAR = FROM, FROM+1, …, TO (none if TO < FROM)
 *   end
 *
 * In a bare word, `{EXPR}` or `{EXPR:FMT}` is replaced by the value of an integer
 * expression (scn_expr.h) over loop variables and parameters, `{NAME}` alone by a
 * parameter's text. The expander reads the whole file once (lexical errors and the loop
 * structure are reported then), then yields the expanded statements, each with its
 * iteration in its locations; it can be walked more than once (the parser's pre-scan and
 * main pass), giving the same statements in the same order every time.
 *
 * `end` closes the innermost open loop or stack block; a loop inside a stack block holds
 * only stack-block statements. The sizes of the expansion are limited (scn_model.h): a
 * loop whose bounds would exceed a limit is refused when it starts, before any of it is
 * expanded, and the walk stops there. */
#ifndef SIM_SCN_EXPAND_H
#define SIM_SCN_EXPAND_H

#include <glib.h>

#include "sim/scenario/scn_lex.h"
#include "sim/scenario/scn_model.h"

typedef struct scn_expander scn_expander;

/* Read and structure the text; errors go to d. `iters` keeps the iteration texts. */
scn_expander *scn_expand_new(const char *file, const char *text, size_t len, const scn_load_opts *opts,
                             GStringChunk *iters, scn_diag *d);
void scn_expand_free(scn_expander *x);

/* Start a walk from the top; its errors go to d. With `record`, the walk stores the
 * resolved parameters in record->params. */
void scn_expand_rewind(scn_expander *x, scn_diag *d, scn_scenario *record);
/* The next expanded statement (valid until the next call); false at the end, or when the
 * walk stopped at a limit. */
bool scn_expand_next(scn_expander *x, scn_stmt *st);
/* The walk stopped because a limit was exceeded (reported). */
bool scn_expand_limited(const scn_expander *x);

#endif
