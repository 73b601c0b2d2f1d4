/* Test helper: an endpoint that records what the fabric delivers to it (the lwIP
 * tcp_helper idea: a real interface that captures, instead of a mock). */
#ifndef TESTS_FRAME_RECORDER_H
#define TESTS_FRAME_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#include "sim/fabric/endpoint.h"
#include "sim/fabric/fabric.h"

#define REC_KEEP 256

typedef struct rec_frame {
	sim_time at;
	uint32_t len;
	uint8_t data[160];
} rec_frame;

typedef struct frame_recorder {
	sim_endpoint ep;
	rec_frame got[REC_KEEP]; /* the first REC_KEEP frames */
	size_t n;                /* frames received in all */
	uint64_t hash;           /* of every (time, bytes) received, in order */
	int carrier_changes;
	bool carrier;
} frame_recorder;

void rec_init(frame_recorder *r, sim_fabric *fab, const char *name, const uint8_t mac[6]);
void rec_destroy(frame_recorder *r);
/* A frame dst <- src with an optional 802.1Q tag (tci 0 = none), an experimental
 * ethertype and `payload` bytes of `fill` (the first 4 payload bytes carry `seq`). */
sim_frame *rec_make_frame(sim_fabric *fab, const uint8_t dst[6], const uint8_t src[6], uint16_t tci,
                          uint32_t payload, uint8_t fill, uint32_t seq);
/* The sequence number rec_make_frame() put in a received frame. */
uint32_t rec_seq(const rec_frame *f);

#endif
