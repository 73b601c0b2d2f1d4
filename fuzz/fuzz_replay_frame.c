/* The replay's tolerant dissector (sim/replay/replay_frame.c): rp_frame_parse on a
 * captured frame, then rp_bth_parse on the InfiniBand part of a RoCE frame.
 *
 * Input: two bytes (big-endian) of wire length beyond the captured bytes (a frame cut by
 * the snap length), then the captured frame. Everything the dissector points at must lie
 * inside the captured bytes, and captured lengths never exceed wire lengths. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "sim/replay/replay_frame.h"

static void inside_or_die(const uint8_t *base, uint32_t caplen, const uint8_t *p, uint32_t n)
{
	if (n && (p < base || p > base + caplen || n > (uint32_t)(base + caplen - p)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size > 1u << 20)
		return 0;
	uint32_t extra = (uint32_t)(data[0] << 8 | data[1]);
	uint32_t caplen = (uint32_t)(size - 2);
	uint8_t *buf = malloc(caplen ? caplen : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 2, caplen);
	rp_frame f;
	char why[200];
	rp_frame_kind k = rp_frame_parse(&f, buf, caplen, caplen + extra, why, sizeof(why));
	if (k == RP_FRAME_TCP) {
		if (f.payload_caplen > f.payload_len)
			abort();
		inside_or_die(buf, caplen, f.payload, f.payload_caplen);
	}
	if (k == RP_FRAME_ROCE) {
		if (f.ib_caplen > f.ib_len)
			abort();
		inside_or_die(buf, caplen, f.ib, f.ib_caplen);
		rp_bth b;
		rp_frame_kind bk = rp_bth_parse(&b, f.ib, f.ib_caplen, f.ib_len, why, sizeof(why));
		(void)rp_opcode_name(b.opcode);
		(void)rp_opcode_is_send(b.opcode);
		(void)rp_opcode_is_write(b.opcode);
		(void)rp_opcode_starts_request(b.opcode);
		if (bk == RP_FRAME_ROCE) {
			if (b.payload_caplen > b.payload_len)
				abort();
			inside_or_die(buf, caplen, b.payload, b.payload_caplen);
		}
	}
	free(buf);
	return 0;
}
