/* The whole replay decode (sim/replay): frames fed to the decoder as the capture reader
 * feeds them, then the result built and printed in every format. TCP and CLC
 * reassembly, RoCE links, LLC, CDC, RDMA WRITEs, retransmissions and stalls all see
 * the fuzzed frames, without a file format in the way (fuzz_pcap covers the files).
 *
 * Input: records (fuzz_record: 16-bit length, bytes), each a frame with a 2-byte header:
 * the gap to the previous frame in milliseconds (0..255: long gaps make stalls), and the
 * bytes the wire had beyond the captured ones (0..255: frames cut by the snap length). */
#include <string.h>

#include "fuzz/fuzz.h"
#include "fuzz/common/replay_out.h"
#include "sim/replay/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_in in = fuzz_in_make(data, size);
	replay_opts opts = { .max_listed = 20, .on_msg = fuzz_replay_print_msg };
	replay_decoder *d = replay_decoder_new(&opts);
	uint64_t ts = 1000000000u;
	const uint8_t *rec;
	size_t len;
	while (fuzz_record(&in, &rec, &len)) {
		if (len < 2)
			continue;
		ts += (uint64_t)rec[0] * 1000000u;
		uint32_t caplen = (uint32_t)(len - 2);
		replay_decoder_frame(d, ts, rec + 2, caplen, caplen + rec[1]);
	}
	replay_result res;
	replay_decoder_finish(d, &res);
	replay_decoder_free(d);
	fuzz_replay_print(&res);
	replay_result_free(&res);
	return 0;
}
