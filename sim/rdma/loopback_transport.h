/* An ideal in-memory RC transport: smcr_transport_ops over the event engine, with nothing
 * between two cores but memory copies. The protocol tests run their two cores on it
 * (tests/support/duo.h), and `smcr-sim bench core` measures the cores alone on it.
 *
 * SENDs land in the peer QP's posted receives, in order (none posted: RNR, retried);
 * RDMA WRITEs land in registered memory found by rkey and iova, with bounds and access
 * checks; completions arrive as engine events. A message takes a fixed latency plus a
 * serialisation time per KiB (0 per KiB: an infinitely fast wire). Faults: fail a QP
 * (ERR, flush, QP_FATAL), take a device off (its traffic is lost: senders get
 * RETRY_EXC_ERR after the retry time), drop SENDs, inject received bytes. Not a model of
 * an RNIC's timing: the simulated RNICs (sim/rdma/rnic.h) are that. */
#ifndef SIM_RDMA_LOOPBACK_TRANSPORT_H
#define SIM_RDMA_LOOPBACK_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/smcr_transport.h"
#include "sim/engine/engine.h"

typedef struct loopback loopback;

/* Where a device's completions and asynchronous events go (its owner: a host). */
typedef void (*loopback_wc_sink)(void *owner, const smcr_wc *wc);
typedef void (*loopback_async_sink)(void *owner, smcr_async_event ev, void *qp_ctx);

loopback *loopback_new(sim_engine *eng);
void loopback_free(loopback *lb);
extern const smcr_transport_ops loopback_ops; /* tp argument: the loopback */

/* A device (one RoCE port of a host); NULL when there are too many. */
smcr_tp_dev *loopback_dev_new(loopback *lb, const char *name, loopback_wc_sink wc, loopback_async_sink async,
                              void *owner);

/* Timing. */
void loopback_set_latency(loopback *lb, uint64_t ns);    /* per message, default 2 us */
void loopback_set_ns_per_kib(loopback *lb, uint64_t ns); /* serialisation, default 80 ns */
void loopback_set_retry_time(loopback *lb, uint64_t ns); /* lost traffic -> RETRY_EXC, 100 ms */

/* Faults. */
void loopback_dev_set_down(loopback *lb, smcr_tp_dev *dev, bool down);
int loopback_fail_qp(loopback *lb, uint32_t qpn); /* QP -> ERR, flush, QP_FATAL */
/* Drop the next n SENDs leaving QP qpn (they vanish; the sender still completes). */
void loopback_drop_sends(loopback *lb, uint32_t qpn, uint32_t n);
/* Drop the next n SENDs of any QP whose first byte is `type` (an LLC type byte). */
void loopback_drop_type(loopback *lb, uint8_t type, uint32_t n);
/* Deliver raw bytes as a SEND from the peer of qpn into qpn's receive queue (garbage
 * injection). Returns 0 or -1. */
int loopback_inject_recv(loopback *lb, uint32_t qpn, const uint8_t *buf, uint32_t len);

/* Observe every SEND payload (LLC/CDC) that is delivered. */
typedef void (*loopback_send_observer)(void *arg, uint32_t src_qpn, uint32_t dst_qpn, const uint8_t *buf,
                                       uint32_t len);
void loopback_set_observer(loopback *lb, loopback_send_observer fn, void *arg);

typedef struct loopback_stats {
	uint64_t sends, writes, write_bytes, rnr_retries, errors, mrs_live, qps_live;
} loopback_stats;
void loopback_get_stats(const loopback *lb, loopback_stats *out);

#endif
