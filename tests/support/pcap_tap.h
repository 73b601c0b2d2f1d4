/* A netif frame tap that writes a pcap through the project's writer (sim/fabric/pcap_writer.h),
 * with a way to damage one frame in the file for negative controls. */
#ifndef TESTS_SUPPORT_PCAP_TAP_H
#define TESTS_SUPPORT_PCAP_TAP_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/net/netif.h"

typedef struct pcap_tap pcap_tap;

pcap_tap *pcap_tap_open(const char *path, sim_engine *eng);
/* Record frames of nif in the given directions. */
void pcap_tap_attach(pcap_tap *t, netif *nif, bool tx, bool rx);
unsigned long pcap_tap_frames(const pcap_tap *t);
/* Flip the byte at `offset` of frame number `index` (from 0) in the file only: a
 * negative control for checksum checking. */
void pcap_tap_corrupt(pcap_tap *t, unsigned long index, size_t offset);
void pcap_tap_close(pcap_tap *t);

#endif
