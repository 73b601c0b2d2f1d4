/* `smcr-sim replay`: the options of every mode, and each mode's main
 * (tools/replay_decode_cmd.c, tools/replay_timing_cmd.c, tools/replay_redrive_cmd.c). */
#ifndef TOOLS_REPLAY_CLI_H
#define TOOLS_REPLAY_CLI_H

#include <glib.h>
#include <stdint.h>

#include "tools/capture_opts.h"

typedef struct replay_cli {
	gchar *mode, *format, *report, *smcid, *stall; /* decode */
	gint max_list;
	gboolean messages;
	gchar *scenario, *speed, *play, *offset, *inject_at, *end, *seed; /* timing */
	gchar *side, *wait;                                               /* redrive */
	gchar *max_gap;                                                   /* every mode */
	uint64_t max_gap_ns; /* --max-gap parsed (0: the default, 1 h) */
	gboolean verbose;
	capture_args cap; /* timing and redrive: the world's captures */
	const char *name; /* the capture as messages name it ("<stdin>" for -) */
} replay_cli;

int replay_decode_main(const char *prog, const char *file, replay_cli *a);
int replay_timing_main(const char *prog, const char *file, replay_cli *a);
int replay_redrive_main(const char *prog, const char *file, replay_cli *a);

#endif
