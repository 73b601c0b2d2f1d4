/* `smcr-sim debug frames FILE`: one line per frame, "N CLASS", classified from its own
 * bytes alone (sim/replay/frame_classify.h). */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>

#include "sim/replay/frame_classify.h"
#include "tools/cli.h"

static void print_frame(void *ctx, uint64_t n, const char *text)
{
	(void)ctx;
	printf("%" PRIu64 " %s\n", n, text);
}

int debug_frames(int argc, char **argv)
{
	GOptionEntry entries[] = { { NULL } };
	cli_options opts = { .params = "FILE - one line per frame, classified from its bytes ('-': stdin)",
		             .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	if (argc != 2) {
		fprintf(stderr, "%s: expected one capture FILE (try --help)\n", argv[0]);
		return 2;
	}
	char err[512];
	int rc = rp_frame_classify_file(argv[1], print_frame, NULL, err, sizeof(err));
	if (rc)
		fprintf(stderr, "%s: %s: %s\n", argv[0], argv[1], err);
	return rc;
}
