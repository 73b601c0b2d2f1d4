/* An ideal RC transport for protocol tests: smcr_transport_ops over the event engine.
 *
 * SENDs land in the peer QP's posted receives (in order; no receive posted: RNR, retried),
 * RDMA WRITEs land in registered memory found by rkey/iova with bounds and access checks,
 * completions arrive as engine events. Faults: fail a QP (ERR + flush + QP_FATAL), take a
 * device off the fabric (its traffic is lost: senders get RETRY_EXC_ERR after the retry
 * time), extra latency. Not a model of real RNIC timing: the fabric helper's simulated
 * QPs replace it in integration tests. */
#ifndef TP_IDEAL_H
#define TP_IDEAL_H

#include <stdbool.h>
#include <stdint.h>

#include "model/smcr_transport.h"
#include "sim/engine/engine.h"

typedef struct tpi_fabric tpi_fabric;

typedef void (*tpi_wc_sink)(void *owner, const smcr_wc *wc);
typedef void (*tpi_async_sink)(void *owner, smcr_async_event ev, void *qp_ctx);

tpi_fabric *tpi_new(sim_engine *eng);
void tpi_free(tpi_fabric *f);
extern const smcr_transport_ops tpi_ops; /* tp argument: the tpi_fabric */

smcr_tp_dev *tpi_dev_new(tpi_fabric *f, const char *name, tpi_wc_sink wc, tpi_async_sink async, void *owner);

/* Faults and knobs. */
void tpi_set_latency(tpi_fabric *f, uint64_t ns);          /* per message, default 2 us */
void tpi_set_ns_per_kib(tpi_fabric *f, uint64_t ns);       /* serialisation, default 80 ns */
void tpi_set_retry_time(tpi_fabric *f, uint64_t ns);       /* lost traffic -> RETRY_EXC, 100 ms */
void tpi_dev_set_down(tpi_fabric *f, smcr_tp_dev *dev, bool down);
int tpi_fail_qp(tpi_fabric *f, uint32_t qpn);              /* QP -> ERR, flush, QP_FATAL */
/* Drop the next n SENDs leaving QP qpn (they vanish; the sender still completes). */
void tpi_drop_sends(tpi_fabric *f, uint32_t qpn, uint32_t n);
/* Drop the next n SENDs of any QP whose first byte is `type` (an LLC type byte). */
void tpi_drop_type(tpi_fabric *f, uint8_t type, uint32_t n);
/* Deliver raw bytes as a SEND from the peer of qpn into qpn's receive queue (garbage
 * injection). Returns 0 or -1. */
int tpi_inject_recv(tpi_fabric *f, uint32_t qpn, const uint8_t *buf, uint32_t len);
/* Observe every SEND payload (LLC/CDC) that is delivered. */
typedef void (*tpi_send_observer)(void *arg, uint32_t src_qpn, uint32_t dst_qpn, const uint8_t *buf, uint32_t len);
void tpi_set_observer(tpi_fabric *f, tpi_send_observer fn, void *arg);

typedef struct tpi_stats {
	uint64_t sends, writes, write_bytes, rnr_retries, errors, mrs_live, qps_live;
} tpi_stats;
void tpi_get_stats(const tpi_fabric *f, tpi_stats *out);

#endif
