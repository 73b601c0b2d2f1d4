/* The LLC flow engine of a link group (llc_flow.c, Linux smc_llc.c): the one local flow,
 * the queue of received requests with the delayed event, initiators waiting for the flow,
 * sending LLC messages and suspending a procedure until a message, timeout or failure
 * resumes it. The procedures themselves are in llc_link.c and llc_rkey.c. */
#ifndef SMCR_LLC_FLOW_INT_H
#define SMCR_LLC_FLOW_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/list_int.h"
#include "model/smcr.h"

typedef struct smcr_lgr smcr_lgr;
typedef struct smcr_link smcr_link;
typedef struct smcr_buf smcr_buf;

typedef enum smcr_llc_flowtype {
	SMCR_FLOW_NONE = 0,
	SMCR_FLOW_ADD_LINK = 2,
	SMCR_FLOW_DEL_LINK = 4,
	SMCR_FLOW_REQ_ADD_LINK = 5,
	SMCR_FLOW_RKEY = 6,
} smcr_llc_flowtype;

typedef struct smcr_llc_qentry {
	smcr_list node;
	uint64_t link_id; /* link it arrived on (or local trigger's link) */
	bool local;       /* locally enqueued trigger (add_link_local, delete_link_local) */
	smcr_llc_msg msg;
	uint8_t raw[SMCR_LLC_LEN]; /* the received bytes (the first 44), for echoes */
	uint32_t raw_len;
} smcr_llc_qentry;

/* The procedures a local flow can run (Linux: the works and functions that call
 * smc_llc_wait()). Each suspends at its waits and resumes on message/timeout/failure. */
typedef enum smcr_llc_proc {
	SMCR_PROC_NONE = 0,
	SMCR_PROC_CLNT_FIRST,   /* smcr_clnt_conf_first_link */
	SMCR_PROC_SRV_FIRST,    /* smcr_serv_conf_first_link */
	SMCR_PROC_SRV_ADD,      /* smc_llc_srv_add_link (+ delete asym link) */
	SMCR_PROC_CLNT_ADD,     /* smc_llc_cli_add_link */
	SMCR_PROC_CLNT_REQ_ADD, /* v2: REQUEST_ADD_LINK sent, waiting for the server */
	SMCR_PROC_SRV_DEL,      /* smc_llc_process_srv_delete_link */
	SMCR_PROC_RKEY,         /* smcr_lgr_reg_rmbs: CONFIRM_RKEY */
	SMCR_PROC_DEL_RKEY,     /* smcr_buf_unuse: DELETE_RKEY */
} smcr_llc_proc;

/* Why a flow resumes. */
typedef enum smcr_llc_wake {
	SMCR_WAKE_START = 0,
	SMCR_WAKE_MSG, /* flow->qentry holds a message */
	SMCR_WAKE_TIMEOUT,
	SMCR_WAKE_FAIL, /* the waited-on link became unusable or the lgr ends */
} smcr_llc_wake;

typedef struct smcr_llc_flow {
	uint8_t type;            /* smcr_llc_flowtype */
	smcr_llc_qentry *qentry; /* message handed to the flow */
	smcr_llc_proc proc;
	int step; /* the procedure's own step enum; 0 is every one's start */
	bool waiting;
	uint8_t wait_exp;   /* expected LLC type, 0 = any */
	uint64_t wait_link; /* early wake-up when this link is unusable, 0 = none */
	/* procedure context */
	uint64_t conn_id;
	uint64_t link_id;     /* the existing link the flow talks on */
	uint64_t link_new_id; /* link being added / deleted */
	smcr_lgr_type lgr_new_t;
	smcr_llc_qentry *req; /* the request that started the procedure */
	bool send_req_add_link_resp;
	smcr_buf *buf; /* rkey flows */
	uint8_t rkeys_send, rkeys_recv;
	uint32_t buf_pos; /* ADD_LINK_CONT: next used RMB index */
	int rc;
} smcr_llc_flow;

/* What the flow engine runs, by name nowhere in it (Linux calls these directly from
 * smc_llc_event_handler and its flows): the procedures by smcr_llc_proc, and the handlers
 * of requests answered at once. llc_link.c, llc_rkey.c and llc_keepalive.c register their
 * own into the context's table (smcr_llc_link_register and its kin, called by the face);
 * a TEST_LINK response goes to the link's keepalive (link.c). */
typedef struct smcr_llc_handlers {
	void (*proc[SMCR_PROC_DEL_RKEY + 1])(smcr_lgr *lgr, smcr_llc_wake why);
	void (*cli_add_link_invite)(smcr_link *lnk);                /* client, a local ADD_LINK */
	void (*cli_delete_link)(smcr_lgr *lgr, smcr_llc_qentry *q); /* client, a DELETE_LINK request */
	void (*clnt_linkdown_send)(smcr_lgr *lgr, uint64_t link_id, uint64_t to_link_id);
	void (*rmt_conf_rkey)(smcr_lgr *lgr, smcr_llc_qentry *q);
	void (*rmt_delete_rkey)(smcr_lgr *lgr, smcr_llc_qentry *q);
	int (*test_link_resp)(smcr_link *lnk, const uint8_t *req, uint32_t len);
	void (*test_link_answered)(smcr_link *lnk);
} smcr_llc_handlers;

/* A local initiator waiting for the flow slot (smc_llc_flow_initiate). */
typedef enum smcr_flow_waiter_kind {
	SMCR_FW_CONN_RKEY = 1, /* a connection's CONFIRM_RKEY (handshake) */
	SMCR_FW_DEL_RKEY,      /* DELETE_RKEY of an RMB whose connection ended */
	SMCR_FW_CLNT_LINKDOWN, /* client link down: wait <= 2 s for the flow to end */
	SMCR_FW_FIRST,         /* first-contact confirm of a new lgr */
} smcr_flow_waiter_kind;

typedef struct smcr_flow_waiter {
	smcr_list node;
	smcr_flow_waiter_kind kind;
	uint64_t deadline;
	uint64_t conn_id;
	smcr_buf *buf;
	uint64_t link_id;    /* CLNT_LINKDOWN: link to delete */
	uint64_t to_link_id; /* CLNT_LINKDOWN: link to send the DELETE_LINK on */
} smcr_flow_waiter;

void smcr_llc_lgr_init(smcr_lgr *lgr);
/* The lgr ends: queued messages go, a waiting procedure fails, initiators are told. */
void smcr_llc_lgr_clear(smcr_lgr *lgr);
int smcr_llc_send(smcr_link *lnk, const smcr_llc_msg *m);
/* The same, for the lgr's last message: the lgr waits for its completion. */
int smcr_llc_send_wait(smcr_link *lnk, const smcr_llc_msg *m);
/* Send bytes as they are (an echo of a received message). */
int smcr_llc_send_raw(smcr_link *lnk, const uint8_t *buf, uint32_t len);
void smcr_llc_init_msg(smcr_lgr *lgr, smcr_llc_msg *m, uint8_t type);
void smcr_llc_rx(smcr_link *lnk, const uint8_t *buf, uint32_t len);
void smcr_llc_flow_stop(smcr_lgr *lgr);
/* Arm a wait; true when it is satisfied (or failed) at once and the caller goes on now. */
bool smcr_llc_wait_msg(smcr_lgr *lgr, smcr_link *lnk, uint64_t timeout, uint8_t exp_msg);
smcr_llc_qentry *smcr_llc_flow_take(smcr_lgr *lgr, uint8_t exp_msg, smcr_llc_wake why, bool *delayed);
void smcr_llc_flow_qentry_del(smcr_lgr *lgr);
void smcr_llc_on_timer(smcr_lgr *lgr);
void smcr_llc_link_unusable(smcr_link *lnk);
void smcr_llc_enqueue_local(smcr_link *lnk, const smcr_llc_msg *m);
void smcr_llc_add_waiter(smcr_lgr *lgr, smcr_flow_waiter_kind kind, uint64_t timeout,
                         uint64_t conn_id, smcr_buf *buf, uint64_t link_id, uint64_t to_link_id);
void smcr_llc_remove_waiters_conn(smcr_lgr *lgr, uint64_t conn_id);
void smcr_llc_on_flow_timer(smcr_lgr *lgr);

#endif
