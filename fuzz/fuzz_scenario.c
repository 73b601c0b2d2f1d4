/* The scenario language (sim/scenario): the input is a scenario file, loaded as
 * `smcr-sim check FILE` loads it (lexer, parser, checker); the diagnostics are printed,
 * and a scenario that loads is dumped (--dump). A file that does not load must come with
 * at least one message. */
#include <stdlib.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "sim/scenario/scn_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_memfile(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	scn_diag diag;
	scn_diag_init(&diag);
	scn_scenario *s = scn_load_file(path, &diag);
	scn_diag_print(&diag, fuzz_devnull());
	if (s) {
		scn_dump(s, fuzz_devnull());
		scn_free(s);
	} else if (!scn_diag_count(&diag)) {
		abort(); /* refused without saying why */
	}
	scn_diag_free(&diag);
	close(fd);
	return 0;
}
