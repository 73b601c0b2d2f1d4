/* N copies of a capture in one file (see trace_copies.h). */
#include "sim/replay/trace_copies.h"

#include <glib.h>
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>

#include "model/byteorder.h"

typedef struct base_trace {
	GPtrArray *frames; /* the frames' bytes */
	GArray *hdrs;      /* their pcap headers */
	uint16_t client_port;
} base_trace;

/* Rewrite TCP port `from` to `to` in an untagged IPv4 frame. */
static void rewrite_port(u_char *d, uint32_t caplen, uint16_t from, uint16_t to)
{
	if (caplen < 14 + 20 + 4 || get_be16(d + 12) != 0x0800 || d[14 + 9] != 6)
		return;
	uint8_t *t = d + 14 + (uint32_t)(d[14] & 0x0F) * 4;
	if (t + 4 > d + caplen)
		return;
	if (get_be16(t) == from)
		put_be16(t, to);
	if (get_be16(t + 2) == from)
		put_be16(t + 2, to);
}

/* Every frame of the base trace, and the client port: the source port of the first SYN. */
static int read_base(const char *path, base_trace *b, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	pcap_t *in = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!in) {
		snprintf(err, errlen, "%s: %s", path, ebuf);
		return -1;
	}
	struct pcap_pkthdr *h;
	const u_char *data;
	while (pcap_next_ex(in, &h, &data) == 1) {
		g_ptr_array_add(b->frames, g_memdup2(data, h->caplen));
		g_array_append_val(b->hdrs, *h);
		if (!b->client_port && h->caplen >= 54 && get_be16(data + 12) == 0x0800 && data[23] == 6 &&
		    (data[14 + 20 + 13] & 0x12) == 0x02)
			b->client_port = get_be16(data + 34);
	}
	pcap_close(in);
	if (b->hdrs->len == 0) {
		snprintf(err, errlen, "%s: no frames", path);
		return -1;
	}
	return 0;
}

static uint64_t ts_ns(const struct pcap_pkthdr *h)
{
	return (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec; /* nanoseconds in tv_usec */
}

/* Copy k: its own client port, its times k spans later. */
static void dump_copy(pcap_dumper_t *dp, const base_trace *b, unsigned k, uint64_t span)
{
	uint16_t port = (uint16_t)(20000 + k % 40000);
	for (guint i = 0; i < b->hdrs->len; i++) {
		struct pcap_pkthdr ph = g_array_index(b->hdrs, struct pcap_pkthdr, i);
		uint64_t ts = ts_ns(&ph) + k * span;
		ph.ts.tv_sec = (time_t)(ts / 1000000000u);
		ph.ts.tv_usec = (suseconds_t)(ts % 1000000000u);
		u_char *d = g_memdup2(b->frames->pdata[i], ph.caplen);
		if (b->client_port)
			rewrite_port(d, ph.caplen, b->client_port, port);
		pcap_dump((u_char *)dp, &ph, d);
		g_free(d);
	}
}

static int write_copies(const base_trace *b, const char *out, unsigned copies, char *err, size_t errlen)
{
	uint64_t t0 = ts_ns(&g_array_index(b->hdrs, struct pcap_pkthdr, 0));
	uint64_t span = ts_ns(&g_array_index(b->hdrs, struct pcap_pkthdr, b->hdrs->len - 1)) - t0 + 1000000000u;
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
	pcap_dumper_t *dp = pcap_dump_open(dead, out);
	if (!dp) {
		snprintf(err, errlen, "%s: %s", out, pcap_geterr(dead));
		pcap_close(dead);
		return -1;
	}
	for (unsigned k = 0; k < copies; k++)
		dump_copy(dp, b, k, span);
	pcap_dump_close(dp);
	pcap_close(dead);
	return 0;
}

int trace_copies_write(const char *base, const char *out, unsigned copies, char *err, size_t errlen)
{
	base_trace b = { g_ptr_array_new_with_free_func(g_free), g_array_new(FALSE, FALSE, sizeof(struct pcap_pkthdr)), 0 };
	int rc = read_base(base, &b, err, errlen);
	if (rc == 0)
		rc = write_copies(&b, out, copies, err, errlen);
	g_ptr_array_free(b.frames, TRUE);
	g_array_free(b.hdrs, TRUE);
	return rc;
}
