/* The capture interface of each packet of a pcapng file, which libpcap reads but does not
 * hand out: a second pass over the blocks, in step with libpcap's packets (Enhanced,
 * Simple and obsolete Packet Blocks, in file order). Interfaces are numbered across
 * sections. Classic pcap files have none: every packet is on interface 0. */
#ifndef SIM_REPLAY_IFACES_H
#define SIM_REPLAY_IFACES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct rp_ifaces {
	FILE *f;
	bool swap;                 /* the section's byte order is not ours */
	uint32_t base, in_section; /* interfaces of earlier sections, of this one */
} rp_ifaces;

/* Open path for the walk; false (and nothing to close) when it is not a pcapng file. */
bool rp_ifaces_open(rp_ifaces *w, const char *path);
/* The interface of the next packet; 0 once the walk lost its way (a damaged file). */
uint32_t rp_ifaces_next(rp_ifaces *w);
void rp_ifaces_close(rp_ifaces *w);

#endif
