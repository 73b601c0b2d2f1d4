/* Reliable-connected queue pairs of a simulated VF, with verbs semantics.
 *
 * States RESET -> INIT -> RTR -> RTS, and ERR from anywhere, with the attribute checks
 * ibv_modify_qp makes (smcr_qp_attr lists which fields each target state reads).
 * Requester: SENDs and RDMA WRITEs are cut into path-MTU packets (FIRST/MIDDLE/LAST/ONLY,
 * RETH on the first WRITE packet, SE on the last SEND packet when SOLICITED), numbered with
 * 24-bit PSNs, paced to the link, and kept until acknowledged. While the port has no
 * carrier the transmitter stalls (and resumes with the link) but the timer runs. AckReq is set on the last
 * packet of every message and on every ack_req_every-th packet sent. The local ACK timeout
 * (4.096 us * 2^timeout; 0 = never) retransmits from the oldest unacknowledged PSN, at most
 * retry_cnt times in a row; a PSN-sequence NAK retransmits from the PSN it names and counts
 * as a retry too; an RNR NAK waits the timer it carries and retries up to rnr_retry times
 * (7 = forever). Any progress resets both counters.
 * Responder: in-order packets are executed (SEND into the next posted receive WQE, WRITE
 * into the MR named by the rkey after checking key, bounds and REMOTE_WRITE on both the MR
 * and the QP); a packet with AckReq is acknowledged at once (no coalescing beyond what
 * AckReq leaves out); a duplicate is not executed again but re-acknowledged when it asks
 * for an ACK; the first packet after a gap gets one PSN-sequence NAK (no more until the
 * expected packet arrives); a SEND with no receive WQE gets an RNR NAK with min_rnr_timer.
 * Access, length and opcode-sequence violations are NAKed (remote access error / invalid
 * request / remote operational error) and put the responder QP in ERR.
 * A QP in ERR completes the failed WR with its error, flushes every other outstanding WR
 * with WR_FLUSH_ERR and drops incoming packets. Completions go to the VF's host callback
 * (sim/rdma/rnic.h). Work posted while in ERR is flushed too.
 */
#ifndef SIM_QP_H
#define SIM_QP_H

#include <stdbool.h>
#include <stdint.h>

#include "model/smcr_transport.h"

typedef struct rnic_vf rnic_vf;
typedef struct rnic_qp rnic_qp;

typedef struct rnic_qp_stats {
	uint64_t tx_packets, tx_payload_bytes, tx_acks, acks_rx;
	uint64_t retransmitted_packets, timeouts, seq_naks_rx, rnr_naks_rx;
	uint64_t rx_packets, rx_payload_bytes;
	uint64_t duplicates, seq_naks_tx, rnr_naks_tx;
	uint64_t ooo_drops;      /* packets after a gap, dropped */
	uint64_t ecn_ce_rx;      /* packets received CE-marked */
	uint64_t cnp_tx, cnp_rx; /* CNPs sent to the peer QP, received from it */
} rnic_qp_stats;

/* NULL on bad port or caps beyond the device limits. */
rnic_qp *rnic_qp_create(rnic_vf *vf, uint8_t port, const smcr_qp_caps *caps, void *qp_ctx);
uint32_t rnic_qp_num(const rnic_qp *qp);
/* 0, SMCR_ERR_INVAL (attribute out of range) or SMCR_ERR_STATE (transition not allowed). */
int rnic_qp_modify(rnic_qp *qp, const smcr_qp_attr *attr);
smcr_qp_state rnic_qp_state(const rnic_qp *qp);
/* No completions are delivered for this QP after destroy. */
void rnic_qp_destroy(rnic_qp *qp);
/* 0, SMCR_ERR_STATE (not RTS; not RESET for receives), SMCR_ERR_INVAL (bad WR),
 * SMCR_ERR_AGAIN (queue full). Local key problems show up as error completions. */
int rnic_qp_post_send(rnic_qp *qp, const smcr_send_wr *wr);
int rnic_qp_post_recv(rnic_qp *qp, const smcr_recv_wr *wr);
const rnic_qp_stats *rnic_qp_stats_get(const rnic_qp *qp);
/* The send rate DCQCN currently allows (the line rate when it does not limit the QP). */
uint64_t rnic_qp_rate_bps(const rnic_qp *qp);
/* Whether DCQCN is limiting the QP now; its reaction-point counters. */
bool rnic_qp_rate_limited(const rnic_qp *qp);
const struct dcqcn_stats *rnic_qp_dcqcn_stats(const rnic_qp *qp);
/* The QP's number on the peer (its destination QPN), for reports. */
uint32_t rnic_qp_dest_num(const rnic_qp *qp);

/* Device limits. */
#define RNIC_MAX_QP_WR 16384u
#define RNIC_MAX_INLINE 256u
#define RNIC_MAX_MSG (1u << 30)

#endif
