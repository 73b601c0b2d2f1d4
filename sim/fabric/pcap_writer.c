/* pcap output through libpcap's dumper. */
#include "sim/fabric/pcap_writer.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/engine/oom.h"

struct sim_pcap_writer {
	pcap_t *dead;
	pcap_dumper_t *dump;
	uint64_t frames;
	uint32_t snaplen;
};

sim_pcap_writer *sim_pcap_open(const char *path, char *err, unsigned long errlen)
{
	return sim_pcap_open_snaplen(path, 65535, err, errlen);
}

sim_pcap_writer *sim_pcap_open_snaplen(const char *path, uint32_t snaplen, char *err, unsigned long errlen)
{
	if (!snaplen)
		snaplen = 65535;
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, (int)snaplen, PCAP_TSTAMP_PRECISION_NANO);
	if (!dead) {
		snprintf(err, errlen, "pcap_open_dead failed");
		return NULL;
	}
	pcap_dumper_t *dump = pcap_dump_open(dead, path);
	if (!dump) {
		snprintf(err, errlen, "%s: %s", path, pcap_geterr(dead));
		pcap_close(dead);
		return NULL;
	}
	sim_pcap_writer *w = sim_xcalloc(1, sizeof(*w), "a capture writer");
	w->dead = dead;
	w->dump = dump;
	w->snaplen = snaplen;
	return w;
}

void sim_pcap_write(sim_pcap_writer *w, sim_time at, const uint8_t *data, uint32_t len)
{
	struct pcap_pkthdr h;
	/* with nanosecond precision the dumper stores tv_usec as nanoseconds */
	h.ts.tv_sec = (time_t)(at / SIM_S);
	h.ts.tv_usec = (suseconds_t)(at % SIM_S);
	h.caplen = len > w->snaplen ? w->snaplen : len;
	h.len = len;
	pcap_dump((u_char *)w->dump, &h, data);
	w->frames++;
}

uint64_t sim_pcap_frames(const sim_pcap_writer *w) { return w->frames; }

int sim_pcap_close(sim_pcap_writer *w)
{
	if (!w)
		return 0;
	int rc = pcap_dump_flush(w->dump) ? -1 : 0;
	pcap_dump_close(w->dump);
	pcap_close(w->dead);
	free(w);
	return rc;
}
