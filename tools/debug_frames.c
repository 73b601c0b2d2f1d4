/* `smcr-sim debug frames FILE`: one line per frame, classified from its own bytes alone
 * (no state, so retransmitted and forwarded copies are listed like the originals):
 *   N tcp [clc TYPE]                 a TCP segment (with a CLC eyecatcher at its start)
 *   N roce1|roce2 OPCODE QPN [msg X] a RoCE packet; for the first or only packet of a SEND
 *                                    the SMC-R message type byte (0x01.., 0x21.. v2, 0xfe CDC)
 *   N other REASON / N bad REASON
 * Tests hold tshark's verdicts against it (tests/t_scenarios_tshark.sh). */
#include <glib.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include "sim/replay/replay_frame.h"
#include "tools/cli.h"

int debug_frames(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!p) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], argv[1], ebuf);
		return 2;
	}
	static const uint8_t eyecatcher[4] = { 0xE2, 0xD4, 0xC3, 0xD9 };
	unsigned long long n = 0;
	int rc = 0;
	for (;;) {
		struct pcap_pkthdr *h;
		const u_char *data;
		int r = pcap_next_ex(p, &h, &data);
		if (r == PCAP_ERROR_BREAK)
			break;
		if (r != 1) {
			fprintf(stderr, "%s: %s: frame %llu: %s\n", argv[0], argv[1], n + 1, pcap_geterr(p));
			rc = 1;
			break;
		}
		n++;
		rp_frame f;
		rp_bth b;
		char why[128];
		switch (rp_frame_parse(&f, data, h->caplen, h->len, why, sizeof(why))) {
		case RP_FRAME_TCP:
			if (f.payload_caplen >= 5 && !memcmp(f.payload, eyecatcher, 4))
				printf("%llu tcp clc %u\n", n, f.payload[4]);
			else
				printf("%llu tcp\n", n);
			break;
		case RP_FRAME_ROCE:
			if (rp_bth_parse(&b, f.ib, f.ib_caplen, f.ib_len, why, sizeof(why)) != RP_FRAME_ROCE) {
				printf("%llu roce%u ? %s\n", n, f.roce_version, why);
				break;
			}
			printf("%llu roce%u 0x%02x 0x%06x", n, f.roce_version, b.opcode, b.dest_qp);
			if ((b.opcode == RP_OP_SEND_ONLY || b.opcode == RP_OP_SEND_FIRST || b.opcode == RP_OP_SEND_ONLY_IMM ||
			     b.opcode == RP_OP_SEND_ONLY_INV) &&
			    b.payload_caplen)
				printf(" msg 0x%02x", b.payload[0]);
			printf("\n");
			break;
		case RP_FRAME_OTHER:
			printf("%llu other %s\n", n, why);
			break;
		case RP_FRAME_BAD:
			printf("%llu bad %s\n", n, why);
			break;
		}
	}
	pcap_close(p);
	return rc;
}
