/* `smcr-sim debug frames FILE`: one line per frame, "N CLASS", classified from its own
 * bytes alone (sim/replay/frame_classify.h). */
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
	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	char err[512];
	int rc = rp_frame_classify_file(argv[1], print_frame, NULL, err, sizeof(err));
	if (rc)
		fprintf(stderr, "%s: %s: %s\n", argv[0], argv[1], err);
	return rc;
}
