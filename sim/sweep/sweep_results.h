/* The results of a sweep: one record per point, kept in memory and, with a result file
 * (`--out FILE`), written to it as each point finishes.
 *
 * FILE holds JSON lines: the sweep's header line (what was swept: it must match when the
 * file is resumed), then one record per point. While the sweep runs, records are appended
 * in the order points finish, each line flushed, so an interrupted sweep (a killed rank,
 * the job's time limit, Ctrl-C) leaves every finished point on disk; a cut last line is
 * dropped when the file is resumed. At the end FILE is rewritten sorted by point: its bytes
 * then depend only on the sweep, never on how many processes ran it or in which order.
 *
 * What does depend on the engine — wall times and which runner ran a point — goes to the
 * column file FILE.wall: "POINT<TAB>start<TAB>RUNNER" when a point is handed out and
 * "POINT<TAB>done<TAB>RUNNER<TAB>WALL_MS" when its record arrives; sorted (done lines only)
 * at the end. A point that was handed out and never came back (its runner died, or the
 * whole sweep was stopped) is run again, and its record says "retried":1. */
#ifndef SIM_SWEEP_RESULTS_H
#define SIM_SWEEP_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sweep_results sweep_results;

/* path NULL: in memory only. With resume, an existing FILE is read: its header must be
 * `header`, its records are kept (and not run again); without a file it starts afresh.
 * Without resume an existing FILE is replaced. NULL with the reason in err. */
sweep_results *sweep_results_open(const char *path, const char *header, uint64_t n_points, bool resume, char *err,
                                  size_t errlen);
/* Write the sorted file and its sorted column file; 0, or -1 with the reason in err. */
int sweep_results_finish(sweep_results *r, char *err, size_t errlen);
void sweep_results_free(sweep_results *r);

uint64_t sweep_results_n_points(const sweep_results *r);
/* The record of point i (without newline), or NULL if it has none yet. */
const char *sweep_results_record(const sweep_results *r, uint64_t point);
/* Points with a record read from the file when it was resumed. */
uint64_t sweep_results_n_resumed(const sweep_results *r);
/* Was point i handed out before (in an earlier, interrupted run of the file) without a
 * record coming back? */
bool sweep_results_was_started(const sweep_results *r, uint64_t point);

/* Point i was handed to `runner` ("pid 4242", "rank 3", "process"). */
void sweep_results_started(sweep_results *r, uint64_t point, const char *runner);
/* Point i's record arrived (copied); wall_ns is how long it ran. */
void sweep_results_add(sweep_results *r, uint64_t point, const char *record, uint64_t wall_ns, const char *runner);

#endif
