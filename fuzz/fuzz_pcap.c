/* Capture files (sim/replay/replay_pcap.c and replay_cooked.c): the input is the file,
 * classic pcap or pcapng, Ethernet or Linux cooked (LINUX_SLL, LINUX_SLL2), read with
 * libpcap from an in-memory file as `smcr-sim replay FILE` reads it, decoded, and the
 * result printed in every format. A file that cannot be used must say so in err. */
#include <stdlib.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "fuzz/common/replay_out.h"
#include "sim/replay/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_memfile(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	replay_opts opts = { .max_listed = 20, .on_msg = fuzz_replay_print_msg };
	replay_result res;
	char err[512] = "";
	if (replay_decode_file(path, &opts, &res, err, sizeof(err)) == 0) {
		fuzz_replay_print(&res);
		replay_result_free(&res);
	} else if (!err[0]) {
		abort(); /* refused without saying why */
	}
	close(fd);
	return 0;
}
