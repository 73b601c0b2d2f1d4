/* Internals of the SMC-R core shared by its files (not for hosts; hosts use smcr.h).
 *
 * Naming mirrors Linux net/smc where a concept is the same (local_tx_ctrl, tx_curs_fin,
 * peer_rmbe_space, llc flows, ...) so that a reader can hold the two side by side.
 * Cross-file internal functions carry the smcr_ prefix plus their module
 * (smcr_lgr_*, smcr_link_*, smcr_wr_*, smcr_llc_*, smcr_tx_*, smcr_rx_*, smcr_close_*).
 */
#ifndef SMCR_INT_H
#define SMCR_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/smcr.h"

#define SMCR_CONTAINER_OF(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* Intrusive doubly linked list (insertion order is creation order). */
typedef struct smcr_list {
	struct smcr_list *prev, *next;
} smcr_list;

static inline void smcr_list_init(smcr_list *l) { l->prev = l->next = l; }
static inline bool smcr_list_empty(const smcr_list *l) { return l->next == l; }
static inline bool smcr_list_linked(const smcr_list *n) { return n->next && n->next != n; }
static inline void smcr_list_add_tail(smcr_list *head, smcr_list *n)
{
	n->prev = head->prev;
	n->next = head;
	head->prev->next = n;
	head->prev = n;
}
static inline void smcr_list_del(smcr_list *n)
{
	if (!n->next)
		return;
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->prev = n->next = n;
}
#define smcr_list_for_each(pos, head) for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)
#define smcr_list_for_each_safe(pos, tmp, head) \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head); (pos) = (tmp), (tmp) = (pos)->next)

/* Memory (mem.c): zeroed allocations counted in ctx->mem_bytes. */
void *smcr_alloc(smcr_ctx *ctx, size_t n);
void smcr_free(smcr_ctx *ctx, void *p);

/* Timers (timer.c): a binary heap ordered by (at, arm sequence). */
typedef enum smcr_timer_kind {
	SMCR_TMR_CONN_CLC = 1,   /* CLC message wait (6 s / 1 s) */
	SMCR_TMR_CONN_CLOSE,     /* close: flush wait (2 s) */
	SMCR_TMR_LGR_FREE,       /* idle linger */
	SMCR_TMR_LGR_LLC,        /* local LLC flow waiting for a message */
	SMCR_TMR_LGR_FLOW,       /* initiators waiting for the flow slot */
	SMCR_TMR_LGR_TERM,       /* DELETE_LINK ALL send completion wait */
	SMCR_TMR_LINK_TESTLINK,  /* keepalive */
	SMCR_TMR_LINK_SLOT,      /* send slot wait (10 s) */
} smcr_timer_kind;

typedef struct smcr_timer {
	uint64_t at;
	uint64_t seq;
	uint32_t pos;   /* heap index + 1; 0 = not armed */
	uint8_t kind;
	void *obj;
} smcr_timer;

void smcr_timer_init(smcr_timer *t, smcr_timer_kind kind, void *obj);
int smcr_timer_reserve(smcr_ctx *ctx, int delta);
void smcr_timer_arm(smcr_ctx *ctx, smcr_timer *t, uint64_t at);
void smcr_timer_cancel(smcr_ctx *ctx, smcr_timer *t);
static inline bool smcr_timer_armed(const smcr_timer *t) { return t->pos != 0; }
smcr_timer *smcr_timer_pop_due(smcr_ctx *ctx, uint64_t now);
uint64_t smcr_timer_next(const smcr_ctx *ctx);

/* Ports --------------------------------------------------------------------------------- */
typedef struct smcr_port {
	smcr_port_desc d;
	uint32_t index;
} smcr_port;

/* Buffers (buf.c) ---------------------------------------------------------------------- */
typedef struct smcr_buf {
	smcr_list node;         /* lgr->rmbs or lgr->sndbufs */
	uint8_t *cpu;
	uint32_t len;
	uint8_t size_code;
	bool is_rmb;
	bool used;
	bool is_conf_rkey;      /* peer knows its rkeys (CLC first contact or CONFIRM_RKEY) */
	bool is_reg_err;
	bool unusing;           /* DELETE_RKEY in progress before it can be reused */
	struct {
		smcr_tp_mr *mr;
		smcr_mr_info info;
	} mr[SMCR_LINKS_PER_LGR_MAX];
} smcr_buf;

#define SMCR_RMBS_PER_LGR_MAX 255

typedef struct smcr_rtoken {
	uint32_t rkey;
	uint64_t vaddr;
} smcr_rtoken;

/* Work requests (wr.c) ------------------------------------------------------------------- */
#define SMCR_WR_BUF_SIZE 48
#define SMCR_WR_BUF_V2_SIZE 8192

typedef enum smcr_slot_kind { SMCR_SLOT_LLC = 1, SMCR_SLOT_CDC = 2 } smcr_slot_kind;

typedef struct smcr_send_slot {
	bool busy;
	uint8_t kind;
	bool notify_lgr;        /* DELETE_LINK ALL: the lgr waits for this completion */
	uint32_t gen;
	uint8_t *buf;
	/* CDC pending data (struct smc_cdc_tx_pend) */
	uint64_t conn_id;       /* 0 when dismissed */
	smcr_cursor cursor;     /* tx sndbuf cursor sent */
	smcr_cursor p_cursor;   /* producer cursor in the peer RMBE */
	smcr_cursor c_cursor;   /* consumer cursor this CDC announces */
	uint16_t ctrl_seq;
} smcr_send_slot;

/* An LLC message waiting for a send slot. */
typedef struct smcr_llc_out {
	smcr_list node;
	uint16_t len;
	bool notify_lgr;
	uint8_t buf[];
} smcr_llc_out;

struct smcr_lgr;
struct smcr_conn;

typedef struct smcr_link {
	smcr_list reap_node;      /* ctx->reap_links once cleared */
	uint64_t id;
	smcr_ctx *ctx;
	struct smcr_lgr *lgr;
	uint8_t idx;            /* slot in lgr->lnk[] */
	uint8_t link_id;        /* wire link number */
	uint32_t link_uid;      /* htonl(lgr num + link id) read as big-endian number */
	uint32_t peer_link_uid;
	smcr_link_state state;
	bool asym;
	uint32_t port_index;
	uint8_t gid[16];
	uint16_t sgid_index;
	uint8_t mac[6];
	uint16_t vlan_id;
	uint8_t peer_gid[16];
	uint8_t peer_mac[6];
	uint32_t peer_qpn;
	uint32_t peer_psn;
	uint8_t peer_mtu;
	smcr_mtu path_mtu;
	uint32_t psn_initial;
	smcr_tp_qp *qp;
	uint32_t qpn;
	/* send slots: n_slots regular 48-byte slots plus one v2 slot (8192) at the end */
	smcr_send_slot *slots;
	uint16_t n_slots;
	uint16_t slots_busy;
	uint8_t *tx_bufs;
	smcr_tp_mr *tx_mr;
	smcr_mr_info tx_mr_info;
	uint32_t wr_gen;
	/* receive buffers */
	uint8_t *rx_bufs;
	uint32_t rx_buf_size;
	uint16_t n_rx;
	smcr_tp_mr *rx_mr;
	smcr_mr_info rx_mr_info;
	/* waiting for a send slot */
	smcr_list slot_waiters;  /* conns (conn->slot_node) */
	smcr_list llc_outq;      /* smcr_llc_out */
	smcr_timer slot_timer;
	/* keepalive */
	uint64_t last_rx;
	uint64_t testlink_time;
	smcr_timer testlink_timer;
	bool testlink_pending;
	uint32_t conn_cnt;
	/* counters */
	uint64_t bytes_out, bytes_in, ops_out, ops_in, llc_out, llc_in, cdc_out, cdc_in;
} smcr_link;

/* LLC (llc_flow.c and friends) ------------------------------------------------------------- */
typedef enum smcr_llc_flowtype {
	SMCR_FLOW_NONE = 0,
	SMCR_FLOW_ADD_LINK = 2,
	SMCR_FLOW_DEL_LINK = 4,
	SMCR_FLOW_REQ_ADD_LINK = 5,
	SMCR_FLOW_RKEY = 6,
} smcr_llc_flowtype;

typedef struct smcr_llc_qentry {
	smcr_list node;
	uint64_t link_id;       /* link it arrived on (or local trigger's link) */
	bool local;             /* locally enqueued trigger (add_link_local, delete_link_local) */
	smcr_llc_msg msg;
} smcr_llc_qentry;

/* The procedures a local flow can run (Linux: the works and functions that call
 * smc_llc_wait()). Each suspends at its waits and resumes on message/timeout/failure. */
typedef enum smcr_llc_proc {
	SMCR_PROC_NONE = 0,
	SMCR_PROC_CLNT_FIRST,    /* smcr_clnt_conf_first_link */
	SMCR_PROC_SRV_FIRST,     /* smcr_serv_conf_first_link */
	SMCR_PROC_SRV_ADD,       /* smc_llc_srv_add_link (+ delete asym link) */
	SMCR_PROC_CLNT_ADD,      /* smc_llc_cli_add_link */
	SMCR_PROC_CLNT_REQ_ADD,  /* v2: REQUEST_ADD_LINK sent, waiting for the server */
	SMCR_PROC_SRV_DEL,       /* smc_llc_process_srv_delete_link */
	SMCR_PROC_RKEY,          /* smcr_lgr_reg_rmbs: CONFIRM_RKEY */
	SMCR_PROC_DEL_RKEY,      /* smcr_buf_unuse: DELETE_RKEY */
} smcr_llc_proc;

/* Why a flow resumes. */
typedef enum smcr_llc_wake {
	SMCR_WAKE_START = 0,
	SMCR_WAKE_MSG,           /* flow->qentry holds a message */
	SMCR_WAKE_TIMEOUT,
	SMCR_WAKE_FAIL,          /* the waited-on link became unusable or the lgr ends */
} smcr_llc_wake;

typedef struct smcr_llc_flow {
	uint8_t type;            /* smcr_llc_flowtype */
	smcr_llc_qentry *qentry; /* message handed to the flow */
	smcr_llc_proc proc;
	int step;
	bool waiting;
	uint8_t wait_exp;        /* expected LLC type, 0 = any */
	uint64_t wait_link;      /* early wake-up when this link is unusable, 0 = none */
	/* procedure context */
	uint64_t conn_id;
	uint64_t link_id;        /* the existing link the flow talks on */
	uint64_t link_new_id;    /* link being added / deleted */
	smcr_lgr_type lgr_new_t;
	smcr_llc_qentry *req;    /* the request that started the procedure */
	bool send_req_add_link_resp;
	smcr_buf *buf;           /* rkey flows */
	uint8_t rkeys_send, rkeys_recv;
	uint32_t buf_pos;        /* ADD_LINK_CONT: next used RMB index */
	int rc;
} smcr_llc_flow;

/* A local initiator waiting for the flow slot (smc_llc_flow_initiate). */
typedef enum smcr_flow_waiter_kind {
	SMCR_FW_CONN_RKEY = 1,   /* a connection's CONFIRM_RKEY (handshake) */
	SMCR_FW_DEL_RKEY,        /* DELETE_RKEY of an RMB whose connection ended */
	SMCR_FW_CLNT_LINKDOWN,   /* client link down: wait <= 2 s for the flow to end */
	SMCR_FW_FIRST,           /* first-contact confirm of a new lgr */
} smcr_flow_waiter_kind;

typedef struct smcr_flow_waiter {
	smcr_list node;
	smcr_flow_waiter_kind kind;
	uint64_t deadline;
	uint64_t conn_id;
	smcr_buf *buf;
	uint64_t link_id;        /* CLNT_LINKDOWN: link to delete */
	uint64_t to_link_id;     /* CLNT_LINKDOWN: link to send the DELETE_LINK on */
} smcr_flow_waiter;

/* Link group (lgr.c) ----------------------------------------------------------------------- */
#define SMCR_TOKEN_BUCKETS 64

typedef struct smcr_lgr {
	smcr_list node;          /* ctx->lgrs, creation order */
	uint64_t id;
	uint32_t num;            /* Linux lgr id: counter in steps of 256 */
	smcr_ctx *ctx;
	smcr_role role;
	smcr_lgr_type type;
	uint8_t version;         /* 1 or 2 */
	uint8_t peer_system_id[8];
	uint16_t vlan_id;
	char pnet_id[17];
	bool sync_err;
	bool terminating;
	bool freeing;
	bool listed;             /* still in ctx->lgrs (matchable) */
	bool dead;
	smcr_link *lnk[SMCR_LINKS_PER_LGR_MAX];
	uint8_t next_link_id;
	smcr_list conns;         /* registered connections (conn->lgr_node) */
	struct smcr_conn *token_hash[SMCR_TOKEN_BUCKETS];
	uint32_t conns_num;
	smcr_list rmbs, sndbufs;
	smcr_rtoken rtokens[SMCR_RMBS_PER_LGR_MAX][SMCR_LINKS_PER_LGR_MAX];
	uint8_t rtokens_used[(SMCR_RMBS_PER_LGR_MAX + 7) / 8];
	uint8_t max_conns, max_links;
	/* v2 */
	char negotiated_eid[SMCR_EID_LEN];
	uint8_t peer_os, peer_release;
	char peer_hostname[SMCR_HOSTNAME_LEN];
	bool uses_gateway;
	uint8_t nexthop_mac[6];
	uint32_t saddr;
	/* LLC */
	smcr_llc_flow lcl;
	smcr_llc_qentry *delayed_event;
	smcr_list event_q;
	bool llc_running;
	smcr_list flow_waiters;
	uint32_t termination_rsn;
	smcr_timer free_timer, llc_timer, flow_timer, term_timer;
	uint64_t term_wait_link;  /* DELETE_LINK ALL sent on this link, awaiting completion */
	uint8_t term_links;       /* links (bit per index) the DELETE_LINK ALL may still try */
	bool term_orderly;        /* ... and its orderly flag and reason */
	uint32_t term_rsn;
} smcr_lgr;

/* Connection (conn.c) ---------------------------------------------------------------------- */
typedef enum smcr_hs_state {
	SMCR_HS_DONE = 0,
	SMCR_HS_CLNT_WAIT_ACCEPT,
	SMCR_HS_CLNT_WAIT_LOCK,
	SMCR_HS_CLNT_WAIT_RKEY,
	SMCR_HS_CLNT_WAIT_LINK,
	SMCR_HS_CLNT_WAIT_DECLINE,
	SMCR_HS_SRV_WAIT_PROPOSAL,
	SMCR_HS_SRV_WAIT_LOCK,
	SMCR_HS_SRV_WAIT_RKEY,
	SMCR_HS_SRV_WAIT_CONFIRM,
	SMCR_HS_SRV_WAIT_LINK,
	SMCR_HS_SRV_WAIT_DECLINE,
} smcr_hs_state;

typedef enum smcr_urg_state {
	SMCR_URG_VALID = 1,      /* data present */
	SMCR_URG_NOTYET = 2,     /* data pending */
	SMCR_URG_READ = 3,       /* data was already read */
} smcr_urg_state;

typedef struct smcr_host_cdc {
	uint16_t seqno;
	uint32_t token;
	smcr_cursor prod;
	smcr_cursor cons;
	uint8_t prod_flags;
	uint8_t conn_flags;
} smcr_host_cdc;

/* Handshake scratch (struct smc_init_info). */
typedef struct smcr_hs_ini {
	uint8_t version;         /* negotiated SMC-R version of this connection */
	bool offer_v1, offer_v2; /* client: what the Proposal offered */
	int32_t port_v1, port_v2;/* chosen ports (-1 none) */
	uint8_t gid_v1[16], gid_v2[16];
	uint16_t sgid_index_v1, sgid_index_v2;
	uint16_t vlan_id;
	bool first_contact_peer;
	bool first_contact_local;
	uint8_t peer_system_id[8];
	uint8_t peer_gid[16];
	uint8_t peer_mac[6];
	uint32_t ib_clcqpn;
	smcr_clc_proposal prop;  /* server: the Proposal */
	smcr_clc_accept aclc;    /* client: the Accept */
	char negotiated_eid[SMCR_EID_LEN];
	uint8_t release;
	uint8_t max_conns, max_links;
	uint16_t feature_mask;
	bool uses_gateway;
	uint8_t nexthop_mac[6];
	uint8_t n_gids;          /* client v2 FC: GID list for the Confirm */
	uint8_t gids[2][16];
	uint32_t decl_rc;        /* first decline reason recorded (ini->rc) */
} smcr_hs_ini;

typedef struct smcr_conn {
	smcr_list node;          /* ctx->conns, creation order */
	smcr_list lgr_node;      /* lgr->conns when registered */
	struct smcr_conn *token_next;
	smcr_list slot_node;     /* link->slot_waiters */
	smcr_list lock_node;     /* ctx handshake lock waiters */
	uint64_t id;
	smcr_ctx *ctx;
	void *user;
	smcr_role role;
	smcr_hs_state hs;
	smcr_conn_state state;
	smcr_conn_mode mode;
	uint8_t version;
	uint32_t fallback_rsn;
	uint32_t peer_diagnosis;
	smcr_tcp_info tcp;
	smcr_hs_ini *ini;
	/* CLC input */
	uint8_t *clc_buf;
	size_t clc_len, clc_cap;
	smcr_timer clc_timer;
	bool tcp_eof;            /* the TCP stream ended while no CLC message was awaited */
	/* link group */
	smcr_lgr *lgr;
	smcr_link *lnk;
	bool registered;
	uint32_t alert_token_local;
	smcr_buf *rmb, *sndbuf;
	uint32_t rmbe_size;
	uint8_t rmbe_size_code;
	uint32_t rmbe_update_limit;
	uint32_t peer_rmbe_size;
	uint8_t peer_rmbe_idx;
	int rtoken_idx;
	uint32_t tx_off;
	/* cursors, as in struct smc_connection */
	smcr_host_cdc local_tx_ctrl;
	smcr_host_cdc local_rx_ctrl;
	smcr_cursor local_tx_ctrl_fin;
	smcr_cursor tx_curs_prep, tx_curs_sent, tx_curs_fin;
	smcr_cursor rx_curs_confirmed;
	smcr_cursor rx_curs_confirmed_fin; /* consumer cursor of the last completed CDC */
	uint16_t tx_cdc_seq, tx_cdc_seq_fin;
	uint32_t sndbuf_space;
	uint32_t peer_rmbe_space;
	uint32_t bytes_to_rcv;
	/* urgent data */
	smcr_urg_state urg_state;
	smcr_cursor urg_curs;
	uint8_t urg_rx_byte;
	bool urg_tx_pend;
	bool urg_rx_skip_pend;
	/* closing */
	bool host_closed;        /* the application closed: no more upcalls for data */
	bool sock_dead;          /* SOCK_DEAD, set after close() ran */
	bool send_shutdown;      /* SEND_SHUTDOWN */
	bool rcv_shutdown;       /* RCV_SHUTDOWN */
	bool killed;
	bool out_of_sync;
	bool close_flush_wait;   /* close()/shutdown waits for the send buffer to drain */
	bool close_flush_is_shutdown;
	int sk_err;
	smcr_timer close_timer;
	bool tcp_released;
	bool dead;
	bool freed_reported;
	bool established_reported;
	/* send slot wait */
	bool tx_pending;         /* needs smcr_tx_sndbuf_nonempty when a slot frees */
	bool failover_pending;   /* needs the switch-cursor step when a slot frees */
	bool cons_update_pending;
	bool close_flags_held;   /* after a failover rewind: done-writing/closed wait for the data */
	bool free_deferred;      /* leaving the lgr waits for the CDCs in flight (smc_conn_free) */
	uint32_t cdc_pend_tx_wr;  /* CDCs posted, not yet completed */
	/* counters */
	uint64_t bytes_sent, bytes_received;
} smcr_conn;

/* Context (smcr.c) --------------------------------------------------------------------------- */
struct smcr_ctx {
	smcr_mem mem;
	uint64_t mem_bytes;
	smcr_callbacks cb;
	void *user;
	const smcr_transport_ops *ops;
	void *tp;
	smcr_settings set;
	uint8_t system_id[8];
	bool system_id_valid;
	uint8_t system_id_rnd[2];
	smcr_port ports[SMCR_MAX_PORTS];
	uint32_t n_ports;
	smcr_list lgrs;          /* listed lgrs */
	smcr_list dying_lgrs;    /* terminated lgrs still finishing */
	smcr_list conns;
	uint64_t next_lgr_id, next_link_id, next_conn_id;
	uint32_t lgr_num;
	uint32_t next_token;
	/* live links by id (sorted) for wr_id / qp_ctx routing */
	smcr_link **links;
	uint32_t n_links, links_cap;
	/* timers */
	smcr_timer **heap;
	uint32_t heap_len, heap_cap, timers_reserved;
	uint64_t timer_seq;
	uint64_t now;
	int depth;
	/* objects to free when the outermost call returns */
	smcr_list reap_conns;
	smcr_list reap_lgrs;
	smcr_list reap_links;
	/* handshake serialisation (smc_server_lgr_pending / smc_client_lgr_pending) */
	uint64_t srv_lock_owner, clnt_lock_owner;
	smcr_list srv_lock_waiters, clnt_lock_waiters;
	smcr_stats stats;
	bool freeing;            /* smcr_ctx_free: no callbacks, no protocol */
};

/* smcr.c */
void smcr_ctx_enter(smcr_ctx *ctx, uint64_t now);
void smcr_ctx_leave(smcr_ctx *ctx);
void smcr_emit(smcr_ctx *ctx, const smcr_event *ev);
void smcr_emit_simple(smcr_ctx *ctx, smcr_event_type type, uint64_t lgr_id, uint64_t conn_id,
                      uint32_t reason, const char *text);
void smcr_rand(smcr_ctx *ctx, void *dst, size_t len);
smcr_link *smcr_ctx_find_link(const smcr_ctx *ctx, uint64_t id);
int smcr_ctx_register_link(smcr_ctx *ctx, smcr_link *lnk);
void smcr_ctx_unregister_link(smcr_ctx *ctx, smcr_link *lnk);
smcr_conn *smcr_ctx_find_conn(const smcr_ctx *ctx, uint64_t id);
void smcr_stat_fallback(smcr_ctx *ctx, smcr_role role, uint32_t reason);

/* port.c */
typedef struct smcr_dev_pick {
	int32_t port;            /* port index or -1 */
	uint8_t gid[16];
	uint16_t sgid_index;
} smcr_dev_pick;
bool smcr_port_usable(const smcr_ctx *ctx, uint32_t port);
/* Find the RoCE port for a TCP connection (smc_pnet_find_roce_resource). */
bool smcr_port_find(const smcr_ctx *ctx, const smcr_tcp_info *tcp, uint16_t vlan_id, bool v2,
                    smcr_dev_pick *out);
/* Find an alternate port for a new link (smc_pnet_find_alt_roce): same PNET id as the lgr,
 * another device than known_port's. */
bool smcr_port_find_alt(const smcr_ctx *ctx, const smcr_lgr *lgr, uint32_t known_port,
                        smcr_dev_pick *out);
/* The GID a port offers: v1 the one on vlan_id; v2 one in v4_hint's subnet (any when
 * v4_hint is 0), with `loose` also one of unknown prefix. */
bool smcr_port_gid_for(const smcr_ctx *ctx, uint32_t port, uint16_t vlan_id, bool v2,
                       uint32_t v4_hint, bool loose, smcr_dev_pick *out);
bool smcr_prefix_match(const smcr_tcp_info *tcp, const smcr_clc_proposal *p);
bool smcr_prefix_set(const smcr_tcp_info *tcp, smcr_clc_proposal *p);

/* buf.c */
uint32_t smcr_rmb_wnd_update_limit(uint32_t rmbe_size);
int smcr_buf_create(smcr_conn *conn);
int smcr_buf_map_link(smcr_lgr *lgr, smcr_buf *buf, smcr_link *lnk);
int smcr_buf_map_lgr(smcr_link *lnk);
void smcr_buf_unmap_link(smcr_lgr *lgr, smcr_link *lnk);
void smcr_buf_unuse(smcr_conn *conn);
void smcr_buf_free_all(smcr_lgr *lgr);
void smcr_buf_unuse_done(smcr_lgr *lgr, smcr_buf *buf);
uint32_t smcr_buf_used_rmbs(const smcr_lgr *lgr);
smcr_buf *smcr_buf_next_used_rmb(const smcr_lgr *lgr, uint32_t *pos);
int smcr_rtoken_add(smcr_lgr *lgr, uint8_t link_idx, uint64_t vaddr, uint32_t rkey);
void smcr_rtoken_set(smcr_lgr *lgr, uint8_t link_idx, uint8_t link_idx_new, uint32_t rkey_known,
                     uint64_t vaddr_new, uint32_t rkey_new);
void smcr_rtoken_set2(smcr_lgr *lgr, int rtok_idx, uint8_t link_id, uint64_t vaddr, uint32_t rkey);
int smcr_rtoken_delete(smcr_lgr *lgr, uint8_t link_idx, uint32_t rkey);
void smcr_rtoken_clear_link(smcr_lgr *lgr, uint8_t link_idx);

/* lgr.c */
int smcr_lgr_create(smcr_ctx *ctx, smcr_conn *conn, smcr_hs_ini *ini, smcr_lgr **out);
smcr_lgr *smcr_lgr_match(smcr_ctx *ctx, smcr_role role, const smcr_hs_ini *ini);
int smcr_lgr_register_conn(smcr_lgr *lgr, smcr_conn *conn, bool first);
void smcr_lgr_unregister_conn(smcr_conn *conn);
smcr_conn *smcr_lgr_find_conn(const smcr_lgr *lgr, uint32_t token);
void smcr_lgr_set_type(smcr_lgr *lgr, smcr_lgr_type t);
void smcr_lgr_set_type_asym(smcr_lgr *lgr, smcr_lgr_type t, int asym_idx);
void smcr_lgr_schedule_free(smcr_lgr *lgr);
/* Abnormal termination here; cause: a few words for logs (NULL: the reason code says it). */
void smcr_lgr_terminate(smcr_lgr *lgr, uint32_t rsn, const char *cause);
/* The peer's DELETE LINK ALL (m) ends the lgr: orderly or not, as its flag says. */
void smcr_lgr_end_by_peer(smcr_lgr *lgr, const smcr_llc_msg *m);
void smcr_lgr_cleanup_early(smcr_lgr *lgr);
void smcr_lgr_on_free_timer(smcr_lgr *lgr);
void smcr_lgr_on_term_timer(smcr_lgr *lgr);
void smcr_lgr_term_send_done(smcr_lgr *lgr);
void smcr_lgr_term_send_result(smcr_lgr *lgr, bool ok); /* the DELETE_LINK ALL completed */
void smcr_lgr_free_now(smcr_lgr *lgr);
uint32_t smcr_lgr_active_links(const smcr_lgr *lgr);
smcr_link *smcr_lgr_usable_link(const smcr_lgr *lgr);
void smcr_lgr_fill_info(const smcr_lgr *lgr, smcr_lgr_info *out);

/* link.c */
static inline bool smcr_link_usable(const smcr_link *l)
{
	return l && (l->state == SMCR_LNK_ACTIVE || l->state == SMCR_LNK_ACTIVATING);
}
static inline bool smcr_link_active(const smcr_link *l) { return l && l->state == SMCR_LNK_ACTIVE; }
int smcr_link_init(smcr_lgr *lgr, int idx, const smcr_dev_pick *dev, smcr_link **out);
int smcr_link_ready(smcr_link *lnk);          /* INIT, RTR (+ RTS for the server), post recvs */
int smcr_link_modify_rts(smcr_link *lnk);
void smcr_link_set_uid(smcr_link *lnk);
void smcr_link_activate(smcr_link *lnk);      /* smc_llc_link_active */
void smcr_link_down(smcr_link *lnk, smcr_linkdown_reason why);
void smcr_link_clear(smcr_link *lnk, bool log);
void smcr_link_fill_info(const smcr_link *lnk, smcr_link_info *out);
void smcr_link_emit(smcr_link *lnk, smcr_event_type type, smcr_linkdown_reason why, uint32_t reason);
void smcr_link_on_testlink_timer(smcr_link *lnk);
void smcr_link_testlink_response(smcr_link *lnk);

/* wr.c */
#define SMCR_WRID_KIND_SEND 1u
#define SMCR_WRID_KIND_WRITE 2u
#define SMCR_WRID_KIND_RECV 3u
int smcr_wr_alloc_link(smcr_link *lnk);
void smcr_wr_free_link(smcr_link *lnk);
int smcr_wr_post_recvs(smcr_link *lnk);
/* A free regular slot, or NULL. */
smcr_send_slot *smcr_wr_get_slot(smcr_link *lnk);
void smcr_wr_put_slot(smcr_link *lnk, smcr_send_slot *s);
int smcr_wr_send_slot(smcr_link *lnk, smcr_send_slot *s, uint32_t len);
int smcr_wr_post_write(smcr_link *lnk, const smcr_sge *sges, uint32_t n, uint64_t raddr, uint32_t rkey);
/* Send an encoded LLC message; queued until a slot is free. */
int smcr_wr_send_llc(smcr_link *lnk, const uint8_t *buf, uint32_t len, bool notify_lgr);
void smcr_wr_wait_slot(smcr_link *lnk, smcr_conn *conn);
void smcr_wr_unwait(smcr_conn *conn);
void smcr_wr_dismiss_conn(smcr_conn *conn);
int smcr_wr_on_completion(smcr_ctx *ctx, const smcr_wc *wc);
void smcr_wr_on_slot_timer(smcr_link *lnk);
static inline bool smcr_link_sendable(const smcr_link *l)
{
	return smcr_link_usable(l) && l->qp;
}

/* llc_flow.c */
void smcr_llc_lgr_init(smcr_lgr *lgr);
void smcr_llc_lgr_clear(smcr_lgr *lgr);
int smcr_llc_send(smcr_link *lnk, const smcr_llc_msg *m);
int smcr_llc_send_wait(smcr_link *lnk, const smcr_llc_msg *m);
void smcr_llc_init_msg(smcr_lgr *lgr, smcr_llc_msg *m, uint8_t type);
void smcr_llc_rx(smcr_link *lnk, const uint8_t *buf, uint32_t len);
void smcr_llc_run(smcr_lgr *lgr);
bool smcr_llc_flow_start_local(smcr_lgr *lgr, uint8_t type);
void smcr_llc_flow_stop(smcr_lgr *lgr);
/* Arm a wait; true when it is satisfied (or failed) at once and the caller goes on now. */
bool smcr_llc_wait_msg(smcr_lgr *lgr, smcr_link *lnk, uint64_t timeout, uint8_t exp_msg);
smcr_llc_qentry *smcr_llc_flow_take(smcr_lgr *lgr, uint8_t exp_msg, smcr_llc_wake why, bool *delayed);
void smcr_llc_flow_qentry_del(smcr_lgr *lgr);
void smcr_llc_resume(smcr_lgr *lgr, smcr_llc_wake why);
void smcr_llc_on_timer(smcr_lgr *lgr);
void smcr_llc_link_unusable(smcr_link *lnk);
void smcr_llc_enqueue_local(smcr_link *lnk, const smcr_llc_msg *m);
void smcr_llc_add_waiter(smcr_lgr *lgr, smcr_flow_waiter_kind kind, uint64_t timeout,
                         uint64_t conn_id, smcr_buf *buf, uint64_t link_id, uint64_t to_link_id);
void smcr_llc_remove_waiters_conn(smcr_lgr *lgr, uint64_t conn_id);
void smcr_llc_on_flow_timer(smcr_lgr *lgr);
void smcr_llc_kick_waiters(smcr_lgr *lgr);
void smcr_llc_protocol_violation(smcr_lgr *lgr, uint8_t type);
void smcr_llc_drop(smcr_lgr *lgr, const char *why);

/* llc_link.c: CONFIRM_LINK, ADD_LINK, DELETE_LINK procedures */
int smcr_llc_send_confirm_link(smcr_link *lnk, bool resp);
int smcr_llc_send_delete_link(smcr_link *lnk, uint8_t link_del_id, bool resp, bool orderly,
                              uint32_t reason);
void smcr_llc_send_link_delete_all(smcr_lgr *lgr, bool orderly, uint32_t rsn);
void smcr_llc_proc_clnt_first(smcr_lgr *lgr, smcr_llc_wake why);
void smcr_llc_proc_srv_first(smcr_lgr *lgr, smcr_llc_wake why);
void smcr_llc_proc_srv_add(smcr_lgr *lgr, smcr_llc_wake why);
void smcr_llc_proc_clnt_add(smcr_lgr *lgr, smcr_llc_wake why);
void smcr_llc_proc_clnt_req_add(smcr_lgr *lgr, smcr_llc_wake why);
void smcr_llc_proc_srv_del(smcr_lgr *lgr, smcr_llc_wake why);
void smcr_llc_process_cli_delete_link(smcr_lgr *lgr, smcr_llc_qentry *q);
void smcr_llc_add_link_local(smcr_link *lnk);
void smcr_llc_srv_delete_link_local(smcr_link *lnk, uint8_t del_link_id);
void smcr_llc_cli_add_link_invite(smcr_link *lnk);
void smcr_llc_clnt_linkdown_send(smcr_lgr *lgr, uint64_t link_id, uint64_t to_link_id);

/* llc_rkey.c */
void smcr_llc_proc_rkey(smcr_lgr *lgr, smcr_llc_wake why);
void smcr_llc_proc_del_rkey(smcr_lgr *lgr, smcr_llc_wake why);
void smcr_llc_rmt_conf_rkey(smcr_lgr *lgr, smcr_llc_qentry *q);
void smcr_llc_rmt_delete_rkey(smcr_lgr *lgr, smcr_llc_qentry *q);

/* llc_test.c */
int smcr_llc_send_test_link(smcr_link *lnk, const uint8_t user_data[16], bool resp);

/* clc_stream.c: framing, send, decline, fallback */
int smcr_clc_send(smcr_conn *conn, const uint8_t *buf, size_t len);
int smcr_clc_send_decline(smcr_conn *conn, uint32_t reason, uint8_t version);
void smcr_clc_process(smcr_conn *conn);
void smcr_hs_fallback(smcr_conn *conn, uint32_t reason);
void smcr_hs_decline_fallback(smcr_conn *conn, uint32_t reason, uint8_t version);
void smcr_hs_error(smcr_conn *conn, int err);
void smcr_hs_established(smcr_conn *conn);
void smcr_hs_wait_clc(smcr_conn *conn, smcr_hs_state st, uint64_t timeout);
void smcr_hs_on_clc_timer(smcr_conn *conn);
void smcr_hs_lock_release(smcr_conn *conn);
bool smcr_hs_lock_acquire(smcr_conn *conn);
void smcr_hs_abort_conn_setup(smcr_conn *conn, bool local_first);
int smcr_hs_fill_accept(smcr_conn *conn, smcr_clc_accept *m, smcr_clc_type type, bool first_contact);
int smcr_hs_rtoken_handling(smcr_conn *conn, smcr_link *lnk, const smcr_clc_accept *m);
void smcr_hs_save_peer_info(smcr_conn *conn, const smcr_clc_accept *m);
/* smcr_conn_connect/accept: a new connection of that role, its handshake started */
int smcr_hs_open(smcr_ctx *ctx, smcr_role role, const smcr_tcp_info *tcp, void *conn_user, uint64_t now,
                 smcr_conn **out);

/* Results of first-link confirmation besides 0 and decline codes: wait 1 s for a Decline
 * from the peer; without one, decline TIMEOUT_CL (FAIL) or carry on with one link (OK). */
#define SMCR_HS_RC_DECLINE_WAIT_FAIL 0xFFFF0001u
#define SMCR_HS_RC_DECLINE_WAIT_OK 0xFFFF0002u

/* clc_client.c / clc_server.c */
int smcr_clnt_start(smcr_conn *conn);
void smcr_clnt_on_msg(smcr_conn *conn, const uint8_t *msg, size_t len, const smcr_clc_hdr *hdr);
void smcr_clnt_lock_granted(smcr_conn *conn);
void smcr_clnt_rkey_done(smcr_conn *conn, int rc);
void smcr_clnt_first_link_done(smcr_conn *conn, uint32_t rc);
void smcr_clnt_decline_wait_done(smcr_conn *conn, bool got_decline);
int smcr_srv_start(smcr_conn *conn);
void smcr_srv_on_msg(smcr_conn *conn, const uint8_t *msg, size_t len, const smcr_clc_hdr *hdr);
void smcr_srv_lock_granted(smcr_conn *conn);
void smcr_srv_rkey_done(smcr_conn *conn, int rc);
void smcr_srv_first_link_done(smcr_conn *conn, uint32_t rc);

/* conn.c */
smcr_conn *smcr_conn_new(smcr_ctx *ctx, smcr_role role, const smcr_tcp_info *tcp, void *user);
void smcr_conn_set_state(smcr_conn *conn, smcr_conn_state st);
void smcr_conn_free_lgr(smcr_conn *conn);    /* smc_conn_free */
void smcr_conn_free_deferred_done(smcr_conn *conn);
void smcr_conn_maybe_reap(smcr_conn *conn);
void smcr_conn_reap(smcr_conn *conn);
void smcr_conn_kill(smcr_conn *conn);
void smcr_conn_tcp(smcr_conn *conn, smcr_tcp_action act);
void smcr_conn_wake(smcr_conn *conn, bool readable, bool writable);
void smcr_conn_fill_info(const smcr_conn *conn, smcr_conn_info *out);
void smcr_conn_init_cursors(smcr_conn *conn);

/* tx.c */
int smcr_tx_sndbuf_nonempty(smcr_conn *conn);
uint32_t smcr_tx_prepared_sends(const smcr_conn *conn);
void smcr_tx_consumer_update(smcr_conn *conn, bool force);
int smcr_cdc_get_slot_and_msg_send(smcr_conn *conn);
void smcr_tx_slot_available(smcr_conn *conn);
void smcr_cdc_tx_done(smcr_link *lnk, smcr_send_slot *s, bool ok);

/* rx.c */
void smcr_cdc_rx(smcr_link *lnk, const uint8_t *buf, uint32_t len);

/* close.c */
int smcr_close_active(smcr_conn *conn);
int smcr_close_shutdown_write(smcr_conn *conn);
void smcr_close_passive(smcr_conn *conn);
void smcr_close_active_abort(smcr_conn *conn);
int smcr_close_abort(smcr_conn *conn);
void smcr_close_wake_tx_prepared(smcr_conn *conn);
void smcr_close_on_timer(smcr_conn *conn);

/* failover.c */
smcr_link *smcr_switch_conns(smcr_lgr *lgr, smcr_link *from, bool is_dev_err);
void smcr_failover_slot_available(smcr_conn *conn);
void smcr_failover_orphans(smcr_link *lnk);

/* Byte helpers */
static inline bool smcr_gid_eq(const uint8_t *a, const uint8_t *b) { return !memcmp(a, b, 16); }
static inline bool smcr_mac_eq(const uint8_t *a, const uint8_t *b) { return !memcmp(a, b, 6); }
static inline uint32_t smcr_gid_ipv4(const uint8_t gid[16])
{
	return ((uint32_t)gid[12] << 24) | ((uint32_t)gid[13] << 16) | ((uint32_t)gid[14] << 8) | gid[15];
}
static inline uint64_t smcr_min64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static inline uint32_t smcr_min32(uint32_t a, uint32_t b) { return a < b ? a : b; }

#endif
