/* Classic pcap capture files (libpcap), Ethernet link type, nanosecond timestamps taken
 * from virtual time, so a capture of a simulated run can be handed to tshark/Wireshark.
 * pcapng, with a block per tap point and packet comments, is sim/fabric/pcapng_writer.h;
 * sim/fabric/capture_file.h writes either. */
#ifndef SIM_PCAP_WRITER_H
#define SIM_PCAP_WRITER_H

#include <stdint.h>

#include "sim/engine/engine.h"

typedef struct sim_pcap_writer sim_pcap_writer;

/* Open (truncate) path. NULL on failure, with the reason in err (errlen bytes). */
sim_pcap_writer *sim_pcap_open(const char *path, char *err, unsigned long errlen);
/* The same with a snap length: frames are stored cut to it (0 = 65535). */
sim_pcap_writer *sim_pcap_open_snaplen(const char *path, uint32_t snaplen, char *err, unsigned long errlen);
/* Write one frame seen at virtual time `at` (ns since the start of the run). */
void sim_pcap_write(sim_pcap_writer *w, sim_time at, const uint8_t *data, uint32_t len);
uint64_t sim_pcap_frames(const sim_pcap_writer *w);
/* Flush and close; -1 when the last flush failed (disk full, ...). */
int sim_pcap_close(sim_pcap_writer *w);

#endif
