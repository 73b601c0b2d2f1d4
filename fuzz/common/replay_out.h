/* Printing a replay result and its messages the way the CLI does, into /dev/null. */
#ifndef FUZZ_REPLAY_OUT_H
#define FUZZ_REPLAY_OUT_H

#include "sim/replay/replay.h"

void fuzz_replay_print(replay_result *res);
/* A replay_opts.on_msg that prints each message as --messages does. */
void fuzz_replay_print_msg(void *ctx, const replay_msg *m);

#endif
