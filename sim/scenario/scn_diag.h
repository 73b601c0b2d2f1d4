/* Diagnostics of the scenario loader: a list of located error messages.
 *
 * Every message reads "FILE:LINE:COLUMN: what was found; expected what". A statement
 * that a loop made carries its iteration ("i=17, j=2") in its location; its messages read
 * "FILE:LINE:COLUMN: in iteration i=17: …". Of the iterations of one loop line, only the
 * first to raise an error at a position is shown, with how many more did ("(and in 9
 * more iterations)"), so a mistake in a loop of 10,000 is one message, not 50.
 * Collection stops after SCN_MAX_ERRORS messages (one more line says so); scn_diag_full()
 * tells the parser to stop. Messages are kept in (line, column) order, file order for ties. */
#ifndef SIM_SCN_DIAG_H
#define SIM_SCN_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SCN_MAX_ERRORS 50
/* Words echoed in messages are cut to this many bytes (then "…"). */
#define SCN_ECHO_MAX 64

/* A position in a scenario file: 1-based line and column (columns count bytes). `iter`
 * names the loop iteration that made the statement ("i=17"), NULL outside loops; it
 * points into storage that lives as long as the scenario. */
typedef struct scn_loc {
	const char *file;
	uint32_t line;
	uint32_t col;
	const char *iter;
} scn_loc;

typedef struct scn_diag_msg {
	uint32_t line, col;
	uint32_t seq;     /* arrival order, for stable sorting */
	uint32_t repeats; /* other iterations with an error at this position */
	const char *iter; /* the iteration it names (compared, never read) */
	char *text;       /* the whole line, "FILE:LINE:COLUMN: …" (without the repeats) */
} scn_diag_msg;

typedef struct scn_diag {
	scn_diag_msg *msgs;
	size_t n, cap;
	bool overflow; /* more than SCN_MAX_ERRORS errors were reported */
	char *overflow_file;
	void *first_iter; /* GHashTable: position -> message index, for iteration errors */
	void *echoes;     /* GPtrArray of truncated copies made by scn_echo */
	char *joined;     /* scn_diag_message's last text with its repeats */
} scn_diag;

void scn_diag_init(scn_diag *d);
void scn_diag_free(scn_diag *d);
void scn_diag_clear(scn_diag *d);

void scn_error(scn_diag *d, scn_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* `s` for a message: itself if short, else its first SCN_ECHO_MAX bytes and "…" (a copy
 * that lives as long as the diag). */
const char *scn_echo(scn_diag *d, const char *s);
/* "12:5" or "12:5 in iteration i=3", for messages that point at another place. */
void scn_loc_text(scn_loc loc, char *buf, size_t len);

size_t scn_diag_count(const scn_diag *d);
bool scn_diag_full(const scn_diag *d);
/* Message i (0-based) in (line, column) order; valid until the next change. */
const char *scn_diag_message(scn_diag *d, size_t i);
/* The reader stops at a full diag without reading the rest of FILE: say so as an overflow
 * does ("FILE: too many errors; stopped after 50"). */
void scn_diag_stopped(scn_diag *d, const char *file);
/* Print every message, one per line, then "FILE: too many errors" if it overflowed. */
void scn_diag_print(scn_diag *d, FILE *out);

#endif
