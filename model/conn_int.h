/* Connections (conn.c, Linux struct smc_connection / smc_sock): the cursors and flags of
 * both directions, the handshake and close state, the link group, link and buffers it
 * uses; creation, leaving the link group (smc_conn_free), being killed with it and being
 * freed once the application and the protocol are both done. */
#ifndef SMCR_CONN_INT_H
#define SMCR_CONN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/handshake_int.h"
#include "model/index_int.h"
#include "model/list_int.h"
#include "model/smcr.h"
#include "model/timer_int.h"

typedef struct smcr_lgr smcr_lgr;
typedef struct smcr_link smcr_link;
typedef struct smcr_buf smcr_buf;

typedef enum smcr_urg_state {
	SMCR_URG_VALID = 1,  /* data present */
	SMCR_URG_NOTYET = 2, /* data pending */
	SMCR_URG_READ = 3,   /* data was already read */
} smcr_urg_state;

/* A CDC's content in host form (Linux struct smc_host_cdc_msg). */
typedef struct smcr_host_cdc {
	uint16_t seqno;
	uint32_t token;
	smcr_cursor prod;
	smcr_cursor cons;
	uint8_t prod_flags;
	uint8_t conn_flags;
} smcr_host_cdc;

struct smcr_conn {
	smcr_list node;          /* ctx->conns, creation order */
	smcr_index_node id_node; /* ctx->conns_by_id while on ctx->conns */
	smcr_list lgr_node;      /* lgr->conns when registered */
	struct smcr_conn *token_next;
	smcr_list slot_node; /* link->slot_waiters */
	smcr_list lock_node; /* ctx handshake lock waiters */
	uint64_t id;
	smcr_ctx *ctx;
	void *user;
	smcr_role role;
	smcr_hs_state hs;
	smcr_conn_state state;
	smcr_conn_mode mode;
	uint32_t fallback_rsn;
	uint32_t peer_diagnosis;
	smcr_tcp_info *tcp; /* the handshake's view of the TCP connection; NULL once it is over */
	smcr_hs_ini *ini;
	/* CLC input */
	uint8_t *clc_buf;
	size_t clc_len, clc_cap;
	smcr_timer clc_timer;
	/* link group */
	smcr_lgr *lgr;
	smcr_link *lnk;
	uint32_t alert_token_local;
	smcr_buf *rmb, *sndbuf;
	uint32_t rmbe_size;
	uint32_t rmbe_update_limit;
	uint32_t peer_rmbe_size;
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
	bool tx_nospace; /* a send found the send buffer full (SOCK_NOSPACE): room again counts
	                  * as a full buffer (smc_tx_write_space, SMC_STAT_RMB_TX_FULL) */
	bool corked; /* TCP_CORK (smc_tx_is_corked: the CLC socket's nonagle & TCP_NAGLE_CORK) */
	bool urg_rx_skip_pend;
	/* closing */
	bool host_closed;   /* the application closed: no more upcalls for data */
	bool sock_dead;     /* SOCK_DEAD, set after close() ran */
	bool send_shutdown; /* SEND_SHUTDOWN */
	bool rcv_shutdown;  /* RCV_SHUTDOWN */
	bool killed;
	bool out_of_sync;
	bool close_flush_wait; /* close()/shutdown waits for the send buffer to drain */
	bool close_flush_is_shutdown;
	int sk_err;
	smcr_timer close_timer;
	bool tcp_released;
	bool dead;
	bool freed_reported;
	bool established_reported;
	/* send slot wait */
	bool tx_pending;       /* needs smcr_tx_sndbuf_nonempty when a slot frees */
	bool failover_pending; /* needs the switch-cursor step when a slot frees */
	bool cons_update_pending;
	bool close_flags_held;   /* after a failover rewind: done-writing/closed wait for the data */
	bool free_deferred;      /* leaving the lgr waits for the CDCs in flight (smc_conn_free) */
	uint32_t cdc_pend_tx_wr; /* CDCs posted, not yet completed */
	/* small fields kept together (no padding between them) */
	uint8_t version;
	uint8_t rmbe_size_code;
	uint8_t peer_rmbe_idx;
	bool registered; /* on its link group's list */
	bool tcp_eof;    /* the TCP stream ended while no CLC message was awaited */
	/* counters */
	uint64_t bytes_sent, bytes_received;
};

smcr_conn *smcr_conn_new(smcr_ctx *ctx, smcr_role role, const smcr_tcp_info *tcp, void *user);
void smcr_conn_set_state(smcr_conn *conn, smcr_conn_state st);
void smcr_conn_free_lgr(smcr_conn *conn); /* smc_conn_free */
void smcr_conn_free_deferred_done(smcr_conn *conn);
void smcr_conn_maybe_reap(smcr_conn *conn);
void smcr_conn_reap(smcr_conn *conn);
void smcr_conn_kill(smcr_conn *conn);
void smcr_conn_tcp(smcr_conn *conn, smcr_tcp_action act);
void smcr_conn_wake(smcr_conn *conn, bool readable, bool writable);
void smcr_conn_fill_info(const smcr_conn *conn, smcr_conn_info *out);
void smcr_conn_init_cursors(smcr_conn *conn);

#endif
