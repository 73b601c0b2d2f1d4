/* Re-drive (sim/redrive): the input is a capture file; one recorded side (first byte,
 * low bit: 0 the client, 1 the server) is fed to a world made from the capture, whose
 * core plays the other side, and the differences are printed. The run is bounded: it
 * ends 3 s of virtual time after it starts, and a missing answer is waited for 200 ms. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "sim/redrive/redrive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char path[64];
	int fd = fuzz_memfile(data + 1, size - 1, path, sizeof(path));
	if (fd < 0)
		return 0;
	redrive_opts o;
	memset(&o, 0, sizeof(o));
	world_opts_default(&o.world);
	o.world.out = fuzz_devnull();
	o.side = data[0] & 1 ? REDRIVE_SIDE_SERVER : REDRIVE_SIDE_CLIENT;
	o.end_ns = 3000000000u;
	o.wait_ns = 200000000u;
	o.seed = 1;
	o.has_seed = true;
	redrive_result res;
	char err[1024] = "";
	if (redrive_run(path, &o, &res, err, sizeof(err)) == 0) {
		redrive_print(fuzz_devnull(), &res, true);
		redrive_result_free(&res);
	} else if (!err[0]) {
		abort(); /* refused without saying why */
	}
	close(fd);
	return 0;
}
