/* Golden-file checks for printers: capture what a printer writes and compare it with a
 * file under tests/data/. With SMCR_UPDATE_GOLDEN=1 in the environment the file is
 * rewritten instead (then review the diff before committing). */
#ifndef TESTS_GOLDEN_H
#define TESTS_GOLDEN_H

#include <stddef.h>
#include <stdio.h>

typedef void (*golden_print_fn)(FILE *out, const void *arg);

/* Run print into a memory buffer; returns malloc'ed text (free()), length in *len. */
char *golden_capture(golden_print_fn print, const void *arg, size_t *len);
/* Assert got equals the golden file at path (relative to the source tree root). */
void golden_check(const char *path, const char *got, size_t got_len);

#endif
