/* netif tap -> the project's pcap writer (sim/fabric/pcap_writer.h). */
#include "tests/support/pcap_tap.h"

#include <stdlib.h>
#include <string.h>

#include "sim/engine/engine.h"
#include "sim/fabric/pcap_writer.h"

#define PCAP_TAP_MAX 8

typedef struct tap_slot {
	struct pcap_tap *t;
	bool tx, rx;
} tap_slot;

struct pcap_tap {
	sim_pcap_writer *w;
	sim_engine *eng;
	tap_slot slots[PCAP_TAP_MAX];
	int n;
	unsigned long frames;
	long corrupt_index; /* frame to damage in the file, -1: none */
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
	if ((long)t->frames == t->corrupt_index && t->corrupt_off < len && len <= 65536) {
		uint8_t copy[65536];
		memcpy(copy, frame, len);
		copy[t->corrupt_off] ^= 0xff;
		sim_pcap_write(t->w, now, copy, (uint32_t)len);
	} else {
		sim_pcap_write(t->w, now, frame, (uint32_t)len);
	}
	t->frames++;
}

pcap_tap *pcap_tap_open(const char *path, sim_engine *eng)
{
	pcap_tap *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	char err[256];
	t->eng = eng;
	t->corrupt_index = -1;
	if (!(t->w = sim_pcap_open(path, err, sizeof err))) {
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
	sim_pcap_close(t->w);
	free(t);
}
