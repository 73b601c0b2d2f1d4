/* Frames classified from their own bytes (see frame_classify.h). */
#include "sim/replay/frame_classify.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include "sim/replay/replay_frame.h"

static const uint8_t clc_eyecatcher[4] = { 0xE2, 0xD4, 0xC3, 0xD9 };

static bool opens_send(uint8_t opcode)
{
	return opcode == RP_OP_SEND_ONLY || opcode == RP_OP_SEND_FIRST || opcode == RP_OP_SEND_ONLY_IMM ||
	       opcode == RP_OP_SEND_ONLY_INV;
}

static void classify_roce(const rp_frame *f, char *out, size_t outlen)
{
	rp_bth b;
	char why[128];
	if (rp_bth_parse(&b, f->ib, f->ib_caplen, f->ib_len, why, sizeof(why)) != RP_FRAME_ROCE) {
		snprintf(out, outlen, "roce%u ? %s", f->roce_version, why);
		return;
	}
	int n = snprintf(out, outlen, "roce%u 0x%02x 0x%06x", f->roce_version, b.opcode, b.dest_qp);
	if (opens_send(b.opcode) && b.payload_caplen && n > 0 && (size_t)n < outlen)
		snprintf(out + n, outlen - (size_t)n, " msg 0x%02x", b.payload[0]);
}

/* The class of a frame of len bytes, caplen of them captured, as text into out. */
static void rp_frame_classify(const uint8_t *data, uint32_t caplen, uint32_t len, char *out, size_t outlen)
{
	rp_frame f;
	char why[128];
	switch (rp_frame_parse(&f, data, caplen, len, why, sizeof(why))) {
	case RP_FRAME_TCP:
		if (f.payload_caplen >= 5 && !memcmp(f.payload, clc_eyecatcher, 4))
			snprintf(out, outlen, "tcp clc %u", f.payload[4]);
		else
			snprintf(out, outlen, "tcp");
		break;
	case RP_FRAME_ROCE:
		classify_roce(&f, out, outlen);
		break;
	case RP_FRAME_OTHER:
		snprintf(out, outlen, "other %s", why);
		break;
	case RP_FRAME_BAD:
		snprintf(out, outlen, "bad %s", why);
		break;
	}
}

int rp_frame_classify_file(const char *path, void (*fn)(void *ctx, uint64_t n, const char *text), void *ctx,
                           char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!p) {
		snprintf(err, errlen, "%s", ebuf);
		return 2;
	}
	uint64_t n = 0;
	int rc = 0;
	for (;;) {
		struct pcap_pkthdr *h;
		const u_char *data;
		int r = pcap_next_ex(p, &h, &data);
		if (r == PCAP_ERROR_BREAK)
			break;
		if (r != 1) {
			snprintf(err, errlen, "frame %llu: %s", (unsigned long long)n + 1, pcap_geterr(p));
			rc = 1;
			break;
		}
		char text[256];
		rp_frame_classify(data, h->caplen, h->len, text, sizeof(text));
		fn(ctx, ++n, text);
	}
	pcap_close(p);
	return rc;
}
