/* A capture file in either format, for whoever records frames (the world's taps, replay):
 *   pcapng (default): one interface block per tap point with its name and description,
 *                     nanosecond timestamps, packet comments;
 *   pcap:             classic libpcap format with the nanosecond magic; interface names
 *                     and comments are dropped (the format has no place for them).
 * Timestamps are virtual time (ns since the start of the run). */
#ifndef SIM_CAPTURE_FILE_H
#define SIM_CAPTURE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/engine.h"

typedef enum capture_format {
	CAPTURE_PCAPNG = 0,
	CAPTURE_PCAP = 1,
} capture_format;

typedef struct capture_file capture_file;

/* Parse "pcapng" / "pcap"; -1 for anything else. */
int capture_format_parse(const char *text, capture_format *out);
const char *capture_format_name(capture_format f);

/* Open (truncate) path. snaplen 0: whole frames. NULL on failure with the reason. */
capture_file *capture_file_open(const char *path, capture_format fmt, uint32_t snaplen, char *err, size_t errlen);
/* A tap point; returns its interface id (pcap: always 0). */
uint32_t capture_file_add_interface(capture_file *f, const char *name, const char *description);
void capture_file_write(capture_file *f, uint32_t ifc, sim_time at, const uint8_t *data, uint32_t len,
                        const char *comment);
uint64_t capture_file_frames(const capture_file *f);
/* About how many bytes the records written so far take (to warn of a large capture). */
uint64_t capture_file_bytes(const capture_file *f);
capture_format capture_file_format(const capture_file *f);
/* Close; returns 0, or -1 when writing failed. */
int capture_file_close(capture_file *f);

#endif
