/* Diagnostics of the scenario loader: a list of located error messages.
 *
 * Every message reads "FILE:LINE:COLUMN: what was found; expected what". Collection
 * stops after SCN_MAX_ERRORS messages (one more line says so); scn_diag_full() tells the
 * parser to stop. Messages are kept in (line, column) order, file order for ties. */
#ifndef SIM_SCN_DIAG_H
#define SIM_SCN_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SCN_MAX_ERRORS 50

/* A position in a scenario file: 1-based line and column (columns count bytes). */
typedef struct scn_loc {
	const char *file;
	uint32_t line;
	uint32_t col;
} scn_loc;

typedef struct scn_diag_msg {
	uint32_t line, col;
	uint32_t seq;  /* arrival order, for stable sorting */
	char *text;    /* the whole line, "FILE:LINE:COLUMN: …" */
} scn_diag_msg;

typedef struct scn_diag {
	scn_diag_msg *msgs;
	size_t n, cap;
	bool overflow;  /* more than SCN_MAX_ERRORS errors were reported */
	char *overflow_file;
} scn_diag;

void scn_diag_init(scn_diag *d);
void scn_diag_free(scn_diag *d);
void scn_diag_clear(scn_diag *d);

void scn_error(scn_diag *d, scn_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

size_t scn_diag_count(const scn_diag *d);
bool scn_diag_full(const scn_diag *d);
/* Message i (0-based) in (line, column) order; valid until the next change. */
const char *scn_diag_message(scn_diag *d, size_t i);
/* Print every message, one per line, then "FILE: too many errors" if it overflowed. */
void scn_diag_print(scn_diag *d, FILE *out);

#endif
