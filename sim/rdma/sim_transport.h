/* The simulated implementation of the core's transport interface (model/smcr_transport.h):
 * smcr_transport_ops over simulated RNIC virtual functions, QPs and memory regions.
 *
 *   sim_transport *tp = sim_transport_new();
 *   smcr_core_new(..., sim_transport_ops(), tp, ...);       // the core calls through ops
 *   rnic_vf *vf = rnic_activate(adapter, "stackA", &host);  // host: completions -> core
 *   rnic_vf_port_desc(vf, 1, &desc);                        // desc.dev is the smcr_tp_dev
 *
 * Handles map one to one: smcr_tp_dev = rnic_vf, smcr_tp_qp = rnic_qp, smcr_tp_mr = rnic_mr.
 * Completions and async events do not pass through here: the VF's rnic_host callbacks
 * deliver them (from engine events) and the host glue forwards them to the core. */
#ifndef SIM_TRANSPORT_H
#define SIM_TRANSPORT_H

#include "model/smcr_transport.h"
#include "sim/rdma/rnic.h"

typedef struct sim_transport sim_transport;

sim_transport *sim_transport_new(void);
void sim_transport_free(sim_transport *tp);
const smcr_transport_ops *sim_transport_ops(void);

/* Handle conversions for the host glue. */
static inline smcr_tp_dev *sim_transport_dev(rnic_vf *vf) { return (smcr_tp_dev *)(void *)vf; }
static inline rnic_vf *sim_transport_vf(smcr_tp_dev *dev) { return (rnic_vf *)(void *)dev; }

/* Calls made through the ops (for reports and tests). */
typedef struct sim_transport_stats {
	uint64_t reg_mr, dereg_mr, create_qp, modify_qp, destroy_qp, post_send, post_recv, errors;
} sim_transport_stats;
const sim_transport_stats *sim_transport_stats_get(const sim_transport *tp);

#endif
