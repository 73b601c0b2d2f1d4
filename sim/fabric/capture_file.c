/* A capture file in either format: a thin switch over the two writers. */
#include "sim/fabric/capture_file.h"

#include <stdlib.h>
#include <string.h>

#include "sim/engine/oom.h"
#include "sim/fabric/pcap_writer.h"
#include "sim/fabric/pcapng_writer.h"

struct capture_file {
	capture_format fmt;
	uint32_t snaplen;
	sim_pcap_writer *pcap;
	sim_pcapng_writer *ng;
	uint64_t bytes; /* records written, about (headers, frames as stored, comments) */
};

int capture_format_parse(const char *text, capture_format *out)
{
	if (!strcmp(text, "pcapng"))
		*out = CAPTURE_PCAPNG;
	else if (!strcmp(text, "pcap"))
		*out = CAPTURE_PCAP;
	else
		return -1;
	return 0;
}

const char *capture_format_name(capture_format f) { return f == CAPTURE_PCAP ? "pcap" : "pcapng"; }

capture_file *capture_file_open(const char *path, capture_format fmt, uint32_t snaplen, char *err, size_t errlen)
{
	capture_file *f = sim_xcalloc(1, sizeof(*f), "a capture file");
	f->fmt = fmt;
	f->snaplen = snaplen;
	if (fmt == CAPTURE_PCAP)
		f->pcap = sim_pcap_open_snaplen(path, snaplen, err, errlen);
	else
		f->ng = sim_pcapng_open(path, snaplen, err, errlen);
	if (!f->pcap && !f->ng) {
		free(f);
		return NULL;
	}
	return f;
}

uint32_t capture_file_add_interface(capture_file *f, const char *name, const char *description)
{
	return f->ng ? sim_pcapng_add_interface(f->ng, name, description) : 0;
}

void capture_file_write(capture_file *f, uint32_t ifc, sim_time at, const uint8_t *data, uint32_t len,
                        const char *comment)
{
	uint32_t stored = f->snaplen && len > f->snaplen ? f->snaplen : len;
	if (f->ng) {
		sim_pcapng_write(f->ng, ifc, at, data, len, comment);
		f->bytes += 32 + ((stored + 3u) & ~3u) + (comment ? 8 + strlen(comment) : 0);
	} else {
		sim_pcap_write(f->pcap, at, data, len);
		f->bytes += 16 + stored;
	}
}

uint64_t capture_file_bytes(const capture_file *f) { return f->bytes; }

uint64_t capture_file_frames(const capture_file *f)
{
	return f->ng ? sim_pcapng_frames(f->ng) : sim_pcap_frames(f->pcap);
}

capture_format capture_file_format(const capture_file *f) { return f->fmt; }

int capture_file_close(capture_file *f)
{
	if (!f)
		return 0;
	int rc = f->ng ? sim_pcapng_close(f->ng) : sim_pcap_close(f->pcap);
	free(f);
	return rc;
}
