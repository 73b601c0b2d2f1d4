/* `smcr-sim diff --events A.jsonl B.jsonl`: where two event streams (`run --events`) part.
 * Lines are compared in order, each as JSON (members by name, numbers exactly, the
 * --ignore'd names not at all); the first line that differs, or where one stream ends
 * before the other, is the divergence: its line number, both lines in short, every field
 * that differs, and the last line they shared. Two runs of a scenario that part there
 * behaved alike until then. */
#ifndef TOOLS_EVENTS_DIFF_H
#define TOOLS_EVENTS_DIFF_H

#include <stdbool.h>

typedef struct events_diff_opts {
	const char *name_a, *name_b; /* as printed */
	const char *const *ignore;   /* NULL-terminated, or NULL */
	bool json, quiet;
} events_diff_opts;

/* Exit 0 the streams are equal, 1 they part, 2 unreadable (said on stderr as prog: …). */
int events_diff(const char *prog, const char *path_a, const char *path_b, const events_diff_opts *o);

#endif
