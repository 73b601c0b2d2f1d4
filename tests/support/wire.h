/* A test wire: a shared Ethernet segment (a hub) that delivers every frame to every
 * other attached netif after a fixed latency, optionally limited by a rate, with
 * optional seeded loss and a per-frame drop hook for targeted faults. Delivery order is
 * (time, sending order). It stands in for the fabric until the fabric branch lands;
 * attaching is the same two calls a fabric adapter makes (netif_set_link + netif_input). */
#ifndef TESTS_SUPPORT_WIRE_H
#define TESTS_SUPPORT_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/engine.h"
#include "sim/net/netif.h"

typedef struct test_wire test_wire;

/* Return true to drop the frame. `index` counts frames sent on the wire, from 0. */
typedef bool (*test_wire_drop_fn)(void *ctx, const netif *from, const uint8_t *frame, size_t len,
                                  uint64_t index);

test_wire *test_wire_new(sim_engine *eng, const char *name, sim_time latency, sim_ratio loss);
void test_wire_free(test_wire *w);
void test_wire_attach(test_wire *w, netif *nif);
void test_wire_set_drop(test_wire *w, test_wire_drop_fn fn, void *ctx);
/* Serialisation delay per sending port (0 = infinitely fast). */
void test_wire_set_rate(test_wire *w, uint64_t bytes_per_second);

uint64_t test_wire_frames(const test_wire *w); /* sent onto the wire */
uint64_t test_wire_dropped(const test_wire *w);
/* Hash over every frame sent: its time, sender and bytes, in order. */
uint64_t test_wire_hash(const test_wire *w);

#endif
