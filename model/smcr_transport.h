/* The transport interface: the only way the SMC-R core (model/) reaches RDMA hardware.
 *
 * The core never calls verbs, never opens a socket and never reads a clock. Whatever it
 * needs from an RNIC goes out through smcr_transport_ops; whatever the RNIC reports comes
 * back in through the core's entry points (completions, QP and port events), each with an
 * explicit `now` (nanoseconds). Two implementations exist behind this one interface (libuv
 * style): the simulated RNIC/QPs of sim/ and the libibverbs backend used by --real-hw.
 * The vocabulary deliberately echoes verbs (ibv_post_send, ibv_modify_qp, ibv_wc), so
 * the verbs backend is a thin translation and the simulated one has verbs semantics.
 *
 * Handles (smcr_tp_dev, smcr_tp_qp, smcr_tp_mr) are opaque to the core: the transport
 * defines them. Error returns are negative SMCR_ERR_* codes (model/smcr_err.h).
 */
#ifndef SMCR_TRANSPORT_H
#define SMCR_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct smcr_tp_dev smcr_tp_dev; /* one RNIC function as seen by one stack */
typedef struct smcr_tp_qp smcr_tp_qp;   /* one RC queue pair */
typedef struct smcr_tp_mr smcr_tp_mr;   /* one registered memory region */

/* IB path MTU enum, as carried in CLC and LLC (1 = 256 … 5 = 4096). */
typedef enum smcr_mtu {
	SMCR_MTU_256 = 1,
	SMCR_MTU_512 = 2,
	SMCR_MTU_1024 = 3,
	SMCR_MTU_2048 = 4,
	SMCR_MTU_4096 = 5,
} smcr_mtu;

static inline uint32_t smcr_mtu_bytes(smcr_mtu m) { return 128u << (unsigned)m; }

/* RoCE GID table entry types (verbs IB_GID_TYPE_ROCE / _ROCE_UDP_ENCAP). */
typedef enum smcr_gid_type {
	SMCR_GID_ROCE_V1 = 1, /* link-local GID from the (V)MAC, Ethertype 0x8915 */
	SMCR_GID_ROCE_V2 = 2, /* IPv4-mapped ::ffff:a.b.c.d, UDP 4791 */
} smcr_gid_type;

typedef struct smcr_gid_entry {
	uint8_t gid[16];
	uint16_t index;   /* sgid_index to use in an address handle */
	uint16_t vlan_id; /* 0 = untagged; the VLAN this GID's interface is on */
	smcr_gid_type type;
	uint8_t prefix_len; /* RoCE v2: prefix length of the interface address the GID comes
	                     * from (its subnet); 0 = unknown (judged as a /24, and taken as a
	                     * last resort when no GID is in the connection's subnet) */
} smcr_gid_entry;

#define SMCR_MAX_GIDS 8

typedef enum smcr_port_state {
	SMCR_PORT_DOWN = 1,
	SMCR_PORT_ACTIVE = 4, /* same value as IBV_PORT_ACTIVE */
} smcr_port_state;

/* What the host tells the core about one usable RoCE port of one RNIC function. */
typedef struct smcr_port_desc {
	smcr_tp_dev *dev; /* transport handle passed back in every call for this port */
	uint8_t port;     /* 1-based port number */
	uint16_t pfid;    /* PCIe function id (reports) */
	char name[32];    /* device name for reports, e.g. "EZARIUT10010" or "rxe0" */
	char pnet_id[17]; /* physical network id; ports with equal ids reach each other */
	uint8_t mac[6];   /* the (V)MAC put into CLC/LLC */
	smcr_mtu active_mtu;
	smcr_port_state state;
	uint32_t n_gids;
	smcr_gid_entry gids[SMCR_MAX_GIDS];
} smcr_port_desc;

/* Queue pairs ------------------------------------------------------------------ */

typedef enum smcr_qp_state {
	SMCR_QPS_RESET = 0,
	SMCR_QPS_INIT = 1,
	SMCR_QPS_RTR = 2,
	SMCR_QPS_RTS = 3,
	SMCR_QPS_ERR = 6, /* same numbering as IBV_QPS_* */
} smcr_qp_state;

enum smcr_access_flags {
	SMCR_ACCESS_LOCAL_WRITE = 1u << 0,
	SMCR_ACCESS_REMOTE_WRITE = 1u << 1,
	SMCR_ACCESS_REMOTE_READ = 1u << 2,
};

typedef struct smcr_qp_caps {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
} smcr_qp_caps;

/* Address handle for an RC QP (RoCE: always with GRH). */
typedef struct smcr_ah {
	uint8_t dgid[16];
	uint8_t dmac[6]; /* destination (or next-hop) MAC; the verbs backend ignores it:
	                       * with libibverbs the kernel resolves the MAC from the DGID */
	uint16_t sgid_index;
	uint8_t hop_limit; /* 1 on the same L2, 64 via a gateway (v2) */
	uint8_t traffic_class;
} smcr_ah;

/* Attributes for one state transition, as Linux SMC-R sets them (smc_ib.c). Only the
 * fields that belong to the target state are read: INIT: pkey_index, port, access;
 * RTR: path_mtu, ah, dest_qpn, rq_psn, max_dest_rd_atomic, min_rnr_timer;
 * RTS: timeout, retry_cnt, rnr_retry, sq_psn, max_rd_atomic. ERR and RESET need none. */
typedef struct smcr_qp_attr {
	smcr_qp_state state;
	uint16_t pkey_index;
	uint8_t port;
	uint32_t access; /* smcr_access_flags */
	smcr_mtu path_mtu;
	smcr_ah ah;
	uint32_t dest_qpn; /* 24 bits */
	uint32_t rq_psn;   /* 24 bits */
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer; /* IB encoding, 5 bits */
	uint8_t timeout;       /* local ACK timeout: 4.096 us * 2^timeout */
	uint8_t retry_cnt;     /* 0..7; Soft-RoCE (rxe) treats 7 as "retry forever" */
	uint8_t rnr_retry;     /* 0..7, 7 = infinite */
	uint32_t sq_psn;       /* 24 bits */
	uint8_t max_rd_atomic;
} smcr_qp_attr;

/* Work requests ---------------------------------------------------------------- */

typedef struct smcr_sge {
	void *addr; /* local memory inside a region registered with lkey */
	uint32_t length;
	uint32_t lkey;
} smcr_sge;

#define SMCR_MAX_SGE 2

typedef enum smcr_wr_opcode {
	SMCR_WR_SEND = 0,
	SMCR_WR_RDMA_WRITE = 1,
} smcr_wr_opcode;

enum smcr_send_flags {
	SMCR_SEND_SIGNALED = 1u << 0,  /* generate a completion on success */
	SMCR_SEND_SOLICITED = 1u << 1, /* BTH SE bit on the last packet */
	SMCR_SEND_INLINE = 1u << 2,    /* data copied at post time, lkey not checked; a transport
	                                * whose QP cannot inline that much sends it by lkey
	                                * instead, so the lkey must still be valid */
};

typedef struct smcr_send_wr {
	uint64_t wr_id;
	smcr_wr_opcode opcode;
	uint32_t send_flags; /* smcr_send_flags */
	uint32_t num_sge;    /* 1..SMCR_MAX_SGE */
	smcr_sge sg_list[SMCR_MAX_SGE];
	uint64_t remote_addr; /* RDMA WRITE: peer iova */
	uint32_t rkey;        /* RDMA WRITE: peer rkey */
} smcr_send_wr;

typedef struct smcr_recv_wr {
	uint64_t wr_id;
	uint32_t num_sge;
	smcr_sge sg_list[SMCR_MAX_SGE];
} smcr_recv_wr;

/* Completions (ibv_wc subset). Error completions carry the wr_id of the failed WR;
 * once a QP is in ERR, every outstanding WR completes with SMCR_WC_WR_FLUSH_ERR.
 * Verbs reports the opcode of successful completions only, so an error completion of a
 * send-queue WR (SEND or RDMA WRITE) has opcode SMCR_WC_SEND, of a receive SMCR_WC_RECV:
 * match failed WRs by wr_id, never by opcode. */
typedef enum smcr_wc_status {
	SMCR_WC_SUCCESS = 0,
	SMCR_WC_LOC_LEN_ERR,
	SMCR_WC_LOC_QP_OP_ERR,
	SMCR_WC_LOC_PROT_ERR,
	SMCR_WC_WR_FLUSH_ERR,
	SMCR_WC_REM_INV_REQ_ERR,
	SMCR_WC_REM_ACCESS_ERR,
	SMCR_WC_REM_OP_ERR,
	SMCR_WC_RETRY_EXC_ERR,
	SMCR_WC_RNR_RETRY_EXC_ERR,
	SMCR_WC_GENERAL_ERR,
} smcr_wc_status;

typedef enum smcr_wc_opcode {
	SMCR_WC_SEND = 0,
	SMCR_WC_RDMA_WRITE = 1,
	SMCR_WC_RECV = 128,
} smcr_wc_opcode;

typedef struct smcr_wc {
	uint64_t wr_id;
	void *qp_ctx; /* the qp_ctx given to create_qp */
	smcr_wc_status status;
	smcr_wc_opcode opcode;
	uint32_t byte_len; /* receives: bytes placed */
	uint32_t qp_num;
	uint8_t solicited; /* receives: the SE bit was set (simulated transport only:
	                          * libibverbs does not report it, the verbs backend gives 0;
	                          * the SE bit only decides CQ notification there) */
} smcr_wc;

/* Asynchronous events the host reports (ibv_async_event subset). */
typedef enum smcr_async_event {
	SMCR_EV_QP_FATAL = 1, /* QP went to ERR on its own */
	SMCR_EV_PORT_ACTIVE,
	SMCR_EV_PORT_ERR, /* port went down */
	SMCR_EV_GID_CHANGE,
} smcr_async_event;

typedef struct smcr_mr_info {
	uint32_t lkey;
	uint32_t rkey;
	uint64_t iova; /* the address the peer uses in RDMA WRITE (sim: synthetic, stable) */
} smcr_mr_info;

/* The operations. `tp` is the transport's own object, given at core creation. All
 * calls are non-blocking; results arrive later as completions through the core's
 * smcr_*_on_completion() entry point. */
typedef struct smcr_transport_ops {
	/* Register [addr, addr+len) on dev with smcr_access_flags; NULL on failure. */
	smcr_tp_mr *(*reg_mr)(void *tp, smcr_tp_dev *dev, void *addr, size_t len, uint32_t access,
	                      smcr_mr_info *out);
	void (*dereg_mr)(void *tp, smcr_tp_mr *mr);

	/* Create an RC QP in RESET on (dev, port). qp_ctx comes back in every smcr_wc. */
	smcr_tp_qp *(*create_qp)(void *tp, smcr_tp_dev *dev, uint8_t port, const smcr_qp_caps *caps,
	                         void *qp_ctx, uint32_t *qpn_out);
	/* One state transition with the attributes of the target state. */
	int (*modify_qp)(void *tp, smcr_tp_qp *qp, const smcr_qp_attr *attr);
	smcr_qp_state (*query_qp_state)(void *tp, smcr_tp_qp *qp);
	/* Outstanding WRs are flushed (no completions are delivered after destroy). */
	void (*destroy_qp)(void *tp, smcr_tp_qp *qp);

	int (*post_send)(void *tp, smcr_tp_qp *qp, const smcr_send_wr *wr);
	int (*post_recv)(void *tp, smcr_tp_qp *qp, const smcr_recv_wr *wr);
} smcr_transport_ops;

#endif
