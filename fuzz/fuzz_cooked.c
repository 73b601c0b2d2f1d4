/* Linux cooked capture records (sim/replay/replay_cooked.c): the LINUX_SLL / LINUX_SLL2
 * pseudo-header rebuilt as an Ethernet frame, then dissected as replay does.
 *
 * Input: one byte (low bit: 0 LINUX_SLL, 1 LINUX_SLL2), two bytes of wire length beyond
 * the captured bytes, then the record. The rebuilt frame must fit the caplen + 14 bytes
 * the reader gives it, with its captured length not above its wire length. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "sim/replay/replay_cooked.h"
#include "sim/replay/replay_frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3 || size > 1u << 20)
		return 0;
	int linktype = data[0] & 1 ? RP_LINKTYPE_LINUX_SLL2 : RP_LINKTYPE_LINUX_SLL;
	uint32_t extra = (uint32_t)(data[1] << 8 | data[2]);
	uint32_t caplen = (uint32_t)(size - 3);
	uint8_t *rec = malloc(caplen ? caplen : 1);
	uint8_t *eth = malloc(caplen + 14);
	if (!rec || !eth)
		abort();
	memcpy(rec, data + 3, caplen);
	uint32_t ocap = 0, olen = 0;
	char why[200];
	rp_cooked_result r = rp_cooked_to_ethernet(linktype, rec, caplen, caplen + extra, eth, &ocap, &olen, why,
	                                           sizeof(why));
	if (r == RP_COOKED_OK) {
		if (ocap > caplen + 14 || ocap > olen)
			abort();
		rp_frame f;
		(void)rp_frame_parse(&f, eth, ocap, olen, why, sizeof(why));
	}
	free(rec);
	free(eth);
	return 0;
}
