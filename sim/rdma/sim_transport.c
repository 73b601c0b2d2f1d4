/* smcr_transport_ops on the simulated RNICs: a thin translation, since the simulated
 * devices already speak the verbs vocabulary of the interface. */
#include "sim/rdma/sim_transport.h"

#include <stdlib.h>

#include "model/smcr_err.h"
#include "sim/engine/oom.h"
#include "sim/rdma/mr.h"
#include "sim/rdma/qp.h"

struct sim_transport {
	sim_transport_stats st;
};

sim_transport *sim_transport_new(void)
{
	return sim_xcalloc(1, sizeof(sim_transport), "the simulated transport");
}

void sim_transport_free(sim_transport *tp) { free(tp); }
const sim_transport_stats *sim_transport_stats_get(const sim_transport *tp) { return &tp->st; }

static rnic_qp *qp_of(smcr_tp_qp *qp) { return (rnic_qp *)(void *)qp; }

static int count(sim_transport *tp, int rc)
{
	if (rc)
		tp->st.errors++;
	return rc;
}

static smcr_tp_mr *tp_reg_mr(void *t, smcr_tp_dev *dev, void *addr, size_t len, uint32_t access, smcr_mr_info *out)
{
	sim_transport *tp = t;
	tp->st.reg_mr++;
	rnic_mr *mr = rnic_mr_reg(sim_transport_vf(dev), addr, len, access, out);
	if (!mr)
		tp->st.errors++;
	return (smcr_tp_mr *)(void *)mr;
}

static void tp_dereg_mr(void *t, smcr_tp_mr *mr)
{
	sim_transport *tp = t;
	tp->st.dereg_mr++;
	rnic_mr_dereg((rnic_mr *)(void *)mr);
}

static smcr_tp_qp *tp_create_qp(void *t, smcr_tp_dev *dev, uint8_t port, const smcr_qp_caps *caps, void *qp_ctx,
                                uint32_t *qpn_out)
{
	sim_transport *tp = t;
	tp->st.create_qp++;
	rnic_qp *qp = rnic_qp_create(sim_transport_vf(dev), port, caps, qp_ctx);
	if (!qp) {
		tp->st.errors++;
		return NULL;
	}
	if (qpn_out)
		*qpn_out = rnic_qp_num(qp);
	return (smcr_tp_qp *)(void *)qp;
}

static int tp_modify_qp(void *t, smcr_tp_qp *qp, const smcr_qp_attr *attr)
{
	sim_transport *tp = t;
	tp->st.modify_qp++;
	return count(tp, rnic_qp_modify(qp_of(qp), attr));
}

static smcr_qp_state tp_query_qp_state(void *t, smcr_tp_qp *qp)
{
	(void)t;
	return rnic_qp_state(qp_of(qp));
}

static void tp_destroy_qp(void *t, smcr_tp_qp *qp)
{
	sim_transport *tp = t;
	tp->st.destroy_qp++;
	rnic_qp_destroy(qp_of(qp));
}

static int tp_post_send(void *t, smcr_tp_qp *qp, const smcr_send_wr *wr)
{
	sim_transport *tp = t;
	tp->st.post_send++;
	return count(tp, rnic_qp_post_send(qp_of(qp), wr));
}

static int tp_post_recv(void *t, smcr_tp_qp *qp, const smcr_recv_wr *wr)
{
	sim_transport *tp = t;
	tp->st.post_recv++;
	return count(tp, rnic_qp_post_recv(qp_of(qp), wr));
}

static const smcr_transport_ops ops = {
	.reg_mr = tp_reg_mr,
	.dereg_mr = tp_dereg_mr,
	.create_qp = tp_create_qp,
	.modify_qp = tp_modify_qp,
	.query_qp_state = tp_query_qp_state,
	.destroy_qp = tp_destroy_qp,
	.post_send = tp_post_send,
	.post_recv = tp_post_recv,
};

const smcr_transport_ops *sim_transport_ops(void) { return &ops; }
