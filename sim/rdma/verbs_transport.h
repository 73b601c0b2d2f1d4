/* The libibverbs implementation of the transport interface (model/smcr_transport.h), for
 * --real-hw runs on Soft-RoCE (rxe) or RoCE hardware. sim/rdma/verbs_transport.c is the only
 * file of the project that includes <infiniband/verbs.h>; this header does not, so the
 * rest of the tree builds and links the same way with or without RDMA devices.
 *
 * One smcr_tp_dev is one opened device context with its own protection domain, one send
 * CQ and one receive CQ (shared by all QPs on it, as in Linux SMC-R) and one completion
 * channel. Nothing blocks: the host watches the descriptors verbs_dev_fds() returns
 * (the real-time driver, sim/engine/realtime.h) and calls verbs_dev_process() when one is
 * readable; completions and asynchronous events then reach the sink's callbacks.
 *
 * Errors: every call returns a negative SMCR_ERR_* code (never an errno); functions that
 * return a pointer return NULL and leave the code and a message naming the verbs call in
 * verbs_transport_last_error(). */
#ifndef SIM_VERBS_TRANSPORT_H
#define SIM_VERBS_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/smcr_transport.h"

typedef struct verbs_transport verbs_transport;

/* Where completions and events go. Callbacks may call any transport operation, including
 * destroying the QP the completion is for; completions of destroyed QPs are dropped. */
typedef struct verbs_sink {
	void (*completion)(void *user, const smcr_wc *wc);
	/* qp_ctx is set for SMCR_EV_QP_FATAL, NULL for port events. */
	void (*async_event)(void *user, smcr_tp_dev *dev, uint8_t port, smcr_async_event ev,
	                    void *qp_ctx);
} verbs_sink;

verbs_transport *verbs_transport_new(const verbs_sink *sink, void *user);
/* Closes every device still open. */
void verbs_transport_free(verbs_transport *vt);
/* The operations; pass the verbs_transport as their `tp` argument. */
const smcr_transport_ops *verbs_transport_ops(void);

/* The last failure: its SMCR_ERR_* code and a message such as
 * "ibv_reg_mr(rxe0, 67108864 bytes): Cannot allocate memory". */
const char *verbs_transport_last_error(const verbs_transport *vt, int *code);

/* Open device `name`. Without any RDMA device, or without one of that name, this fails
 * at once (SMCR_ERR_NOTFOUND) with a message that lists what was looked for, what exists
 * and how to create a Soft-RoCE device (rxe-setup/). */
smcr_tp_dev *verbs_dev_open(verbs_transport *vt, const char *name);
/* Describe one port (1-based): state, active MTU, MAC, RoCE GIDs with type and VLAN.
 * 0, or SMCR_ERR_NOTFOUND (no such port), SMCR_ERR_INVAL (not an Ethernet/RoCE port). */
int verbs_dev_port(verbs_transport *vt, smcr_tp_dev *dev, uint8_t port, smcr_port_desc *out);
const char *verbs_dev_name(const smcr_tp_dev *dev);

/* The descriptors to watch for readability: the completion channel and the async event
 * queue. Both are non-blocking. Returns the count written (2). */
size_t verbs_dev_fds(const smcr_tp_dev *dev, int *fds, size_t max);
/* Consume channel notifications, re-arm, poll both CQs until empty and read async events,
 * delivering each through the sink. Returns the number delivered or an SMCR_ERR_*. */
int verbs_dev_process(verbs_transport *vt, smcr_tp_dev *dev);
/* Notifications consumed on this device's channel, per CQ (to observe solicited-only
 * arming: a non-solicited receive completes without waking the receive CQ). */
void verbs_dev_notify_counts(const smcr_tp_dev *dev, uint64_t *send_cq, uint64_t *recv_cq);

/* Move the QP numbered qpn of this context to ERR, as a port that went down would:
 * outstanding WRs complete with SMCR_WC_WR_FLUSH_ERR through the CQ. For timeline faults
 * in --real-hw runs (the device itself stays up). 0, SMCR_ERR_NOTFOUND or a verbs error. */
int verbs_dev_qp_to_err(verbs_transport *vt, smcr_tp_dev *dev, uint32_t qpn);

/* The translation tables at the edge, exported so tests can check them without verbs
 * headers. Arguments are the raw libibverbs enum values / errno numbers. */
smcr_wc_status verbs_map_wc_status(int ibv_wc_status);
/* 1 and *out for events the core handles, 0 for events it ignores. */
int verbs_map_async_event(int ibv_event_type, smcr_async_event *out);
/* errno → SMCR_ERR_*. queue_op: ENOMEM from a post means the queue is full (AGAIN). */
int verbs_map_errno(int errnum, bool queue_op);

#endif
