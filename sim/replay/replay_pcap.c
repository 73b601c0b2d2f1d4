/* Replay: read a capture file with libpcap (classic pcap and pcapng, nanosecond time
 * stamps where the file has them) and feed its Ethernet frames to the decoder; Linux
 * cooked records are rebuilt as Ethernet frames first (sim/replay/replay_cooked.h). */
#include <glib.h>
#include <pcap/pcap.h>
#include <stdio.h>

#include "sim/replay/replay.h"
#include "sim/replay/replay_clock.h"
#include "sim/replay/replay_cooked.h"
#include "sim/replay/replay_ifaces.h"

int replay_decode_file(const char *path, const replay_opts *opts, replay_result *res, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!p) {
		snprintf(err, errlen, "%s: cannot read as a capture file: %s", path, ebuf);
		return -1;
	}
	int dlt = pcap_datalink(p);
	if (!rp_linktype_readable(dlt)) {
		const char *name = pcap_datalink_val_to_name(dlt), *desc = pcap_datalink_val_to_description(dlt);
		snprintf(err, errlen, "%s: link-layer type %s (%d, %s) is not Ethernet; replay decodes Ethernet captures "
		                      "(LINKTYPE_ETHERNET, 1) and Linux cooked ones (tcpdump -i any: LINUX_SLL, 113; LINUX_SLL2, 276)",
		         path, name ? name : "unknown", dlt, desc ? desc : "no description");
		pcap_close(p);
		return -1;
	}
	replay_decoder *d = replay_decoder_new(opts);
	/* cooked records are rebuilt here: libpcap's largest record plus the Ethernet header
	 * (not the header's snapshot length, which any file may set to gigabytes) */
	size_t eth_size = 0;
	uint8_t *eth = NULL;
	if (dlt != RP_LINKTYPE_ETHERNET) {
		eth_size = (size_t)RP_MAX_RECORD + 14;
		eth = g_malloc(eth_size);
	}
	/* which tap saw each packet: copies at two taps are one packet (replay_copies.h) */
	rp_ifaces ifaces;
	bool have_ifaces = rp_ifaces_open(&ifaces, path);
	uint64_t n = 0;
	rp_clock clock;
	rp_clock_init(&clock, opts ? opts->max_gap_ns : 0);
	for (;;) {
		struct pcap_pkthdr *h;
		const u_char *data;
		int rc = pcap_next_ex(p, &h, &data);
		if (rc == PCAP_ERROR_BREAK)
			break;
		if (rc != 1) {
			char text[REPLAY_TEXT_LEN];
			snprintf(text, sizeof(text), "capture file damaged at frame %llu: %s; the %llu frames before it were decoded",
			         (unsigned long long)n + 1, pcap_geterr(p), (unsigned long long)n);
			replay_decoder_file_error(d, n + 1, text);
			break;
		}
		n++;
		uint32_t iface = have_ifaces ? rp_ifaces_next(&ifaces) : 0;
		/* a cooked SLL2 record names its interface (tcpdump -i any) */
		if (dlt == RP_LINKTYPE_LINUX_SLL2 && h->caplen >= 8)
			iface = (uint32_t)data[4] << 24 | (uint32_t)data[5] << 16 | (uint32_t)data[6] << 8 | data[7];
		replay_decoder_interface(d, iface);
		uint64_t ts;
		char gap[REPLAY_TEXT_LEN];
		if (rp_clock_next(&clock, n, rp_clock_stamp(h->ts.tv_sec, h->ts.tv_usec), &ts, gap, sizeof(gap)))
			replay_decoder_time_gap(d, n, gap);
		if (!eth) {
			replay_decoder_frame(d, ts, data, h->caplen, h->len);
			continue;
		}
		uint32_t ocap, olen;
		char why[REPLAY_TEXT_LEN];
		if (h->caplen > eth_size - 14) {
			snprintf(why, sizeof(why), "record of %u bytes, beyond the largest record (%u bytes)", h->caplen,
			         RP_MAX_RECORD);
			replay_decoder_unreadable_frame(d, ts, h->caplen, h->len, true, why);
			continue;
		}
		rp_cooked_result cr = rp_cooked_to_ethernet(dlt, data, h->caplen, h->len, eth, &ocap, &olen, why, sizeof(why));
		if (cr == RP_COOKED_OK)
			replay_decoder_frame(d, ts, eth, ocap, olen);
		else
			replay_decoder_unreadable_frame(d, ts, h->caplen, h->len, cr == RP_COOKED_MALFORMED, why);
	}
	g_free(eth);
	if (have_ifaces)
		rp_ifaces_close(&ifaces);
	pcap_close(p);
	replay_decoder_finish(d, res);
	res->linktype = dlt;
	replay_decoder_free(d);
	return 0;
}
