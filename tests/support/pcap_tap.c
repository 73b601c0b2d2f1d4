/* pcap tap over libpcap's dump API. */
#include "tests/support/pcap_tap.h"

#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine.h"

#define PCAP_TAP_MAX 8

typedef struct tap_slot {
	struct pcap_tap *t;
	bool tx, rx;
} tap_slot;

struct pcap_tap {
	pcap_t *p;
	pcap_dumper_t *d;
	sim_engine *eng;
	tap_slot slots[PCAP_TAP_MAX];
	int n;
	unsigned long frames;
	long corrupt_index;        /* frame to damage in the file, -1: none */
	size_t corrupt_off;
};

static void on_frame(void *ctx, const netif *nif, netif_dir dir, const uint8_t *frame, size_t len)
{
	(void)nif;
	tap_slot *s = ctx;
	if ((dir == NETIF_TX && !s->tx) || (dir == NETIF_RX && !s->rx))
		return;
	pcap_tap *t = s->t;
	sim_time now = sim_now(t->eng);
	struct pcap_pkthdr h = { 0 };
	h.ts.tv_sec = (time_t)(now / SIM_S);
	h.ts.tv_usec = (suseconds_t)((now % SIM_S) / SIM_US);
	h.caplen = h.len = (bpf_u_int32)len;
	if ((long)t->frames == t->corrupt_index && t->corrupt_off < len && len <= 65536) {
		uint8_t copy[65536];
		memcpy(copy, frame, len);
		copy[t->corrupt_off] ^= 0xff;
		pcap_dump((u_char *)t->d, &h, copy);
	} else {
		pcap_dump((u_char *)t->d, &h, frame);
	}
	t->frames++;
}

pcap_tap *pcap_tap_open(const char *path, sim_engine *eng)
{
	pcap_tap *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->eng = eng;
	t->corrupt_index = -1;
	t->p = pcap_open_dead(DLT_EN10MB, 65535);
	if (!t->p || !(t->d = pcap_dump_open(t->p, path))) {
		if (t->p)
			pcap_close(t->p);
		free(t);
		return NULL;
	}
	return t;
}

void pcap_tap_attach(pcap_tap *t, netif *nif, bool tx, bool rx)
{
	if (t->n == PCAP_TAP_MAX)
		return;
	tap_slot *s = &t->slots[t->n++];
	s->t = t;
	s->tx = tx;
	s->rx = rx;
	netif_set_tap(nif, on_frame, s);
}

void pcap_tap_corrupt(pcap_tap *t, unsigned long index, size_t offset)
{
	t->corrupt_index = (long)index;
	t->corrupt_off = offset;
}

unsigned long pcap_tap_frames(const pcap_tap *t)
{
	return t->frames;
}

void pcap_tap_close(pcap_tap *t)
{
	if (!t)
		return;
	pcap_dump_close(t->d);
	pcap_close(t->p);
	free(t);
}
