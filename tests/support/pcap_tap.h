/* A frame tap that writes a classic pcap (Ethernet, microsecond timestamps from virtual
 * time) with libpcap. Minimal on purpose: the project's pcap writer lives elsewhere. */
#ifndef TESTS_SUPPORT_PCAP_TAP_H
#define TESTS_SUPPORT_PCAP_TAP_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/netif.h"

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
