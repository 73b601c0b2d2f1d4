/* Records the frames a netif sends and/or receives (through its tap), with a small
 * parser for the IPv4/TCP fields tests look at. */
#ifndef TESTS_SUPPORT_CAPTURE_H
#define TESTS_SUPPORT_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/engine.h"
#include "sim/net/netif.h"

typedef struct cap_frame {
	sim_time at;
	netif_dir dir;
	size_t len;
	uint8_t *data;
} cap_frame;

typedef struct capture {
	sim_engine *eng;
	cap_frame *f;
	size_t n, cap;
	bool tx, rx;
} capture;

void capture_init(capture *c, sim_engine *eng, netif *nif, bool tx, bool rx);
void capture_free(capture *c);

/* A parsed TCP segment inside a captured frame (untagged or 802.1Q). */
typedef struct cap_tcp {
	uint32_t src, dst;
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t wnd;
	const uint8_t *opt;
	size_t opt_len;
	size_t payload_len;
	uint8_t ttl;
} cap_tcp;

bool cap_parse_tcp(const cap_frame *f, cap_tcp *out);
/* The ethertype after any VLAN tag, and the VLAN id (0 if untagged). */
uint16_t cap_ethertype(const cap_frame *f, uint16_t *vlan);
/* Index of the first TCP frame with all of `flags` set and none of `not_flags`, from
 * `start`; -1 if none. */
long cap_find_tcp(const capture *c, size_t start, uint8_t flags, uint8_t not_flags, cap_tcp *out);

#endif
