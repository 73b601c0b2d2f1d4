/* The SMC-R protocol core: public API (sans-I/O, ngtcp2 style).
 *
 * A context (smcr_ctx) is one TCP/IP stack's SMC-R world, what Linux keeps per network
 * namespace: its RoCE ports, link groups, links, connections and buffers. The core never
 * reads a clock, opens a socket or calls verbs:
 *  - every call that can change state takes `now` (nanoseconds, monotonic, host's clock);
 *  - timers are pulled: the host asks smcr_ctx_next_expiry() and calls
 *    smcr_ctx_handle_expiry(ctx, now) once that time has come;
 *  - RDMA work goes out through smcr_transport_ops (model/smcr_transport.h); completions and
 *    asynchronous events come back in through smcr_ctx_on_completion()/_on_async_event();
 *  - CLC bytes go out through the clc_send callback and come in with smcr_conn_clc_input()
 *    (raw TCP stream bytes, split or coalesced as the stream delivers them);
 *  - everything else the host must know is an upcall in smcr_callbacks, with `user`.
 *
 * Objects carry stable numeric ids assigned in creation order (lgr, link, conn); nothing is
 * ordered by address. Protocol behaviour follows Linux net/smc and RFC 7609.
 *
 * Lifetimes: a connection handle returned by smcr_conn_connect/_accept stays valid until the
 * host calls smcr_conn_close() (the application's close()). After that the core finishes the
 * protocol on its own (close handshake, TCP close through tcp_control) and reports
 * conn_freed; the handle must not be used after smcr_conn_close() returns except inside
 * callbacks that pass it.
 */
#ifndef SMCR_H
#define SMCR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/cdc.h"
#include "model/clc.h"
#include "model/decode_err.h"
#include "model/llc.h"
#include "model/smcr_err.h"
#include "model/smcr_transport.h"

#define SMCR_NS 1ULL
#define SMCR_MS 1000000ULL
#define SMCR_S 1000000000ULL
#define SMCR_NEVER UINT64_MAX

typedef struct smcr_ctx smcr_ctx;
typedef struct smcr_conn smcr_conn;

/* Allocator (ngtcp2_mem style). All core memory, including RMBs and send buffers, comes
 * from here, so a host can count bytes and a test can inject failures. */
typedef struct smcr_mem {
	void *user;
	void *(*malloc)(size_t size, void *user);
	void (*free)(void *ptr, void *user);
	void *(*calloc)(size_t nmemb, size_t size, void *user);
	/* Optional, all four or none: RMBs and send buffers from the host's own store, for a
	 * host that backs them lazily (a simulator: only bytes in flight need memory). Real
	 * registered memory must stay resident, so a host on real devices leaves these NULL
	 * and buffers come from calloc above, zeroed with memset when reused.
	 *  - buf_alloc: size bytes (a power of two), page aligned, reading as zero; NULL when
	 *    there is no memory (the core then tries a smaller size, as Linux does);
	 *  - buf_free: give it back;
	 *  - buf_reset: the buffer goes to a new connection: make it read as zero;
	 *  - buf_idle(idle = true): the core will not read the buffer's bytes again before new
	 *    ones are written: an RMB's consumer caught up with its producer (or the RMB lost
	 *    its connection), a send buffer's bytes were all sent and confirmed. peer_bytes is
	 *    how many bytes the peer wrote into it (RDMA) since it was allocated or reset, as
	 *    far as the core knows (0 for a send buffer). The host may give its pages back
	 *    (reading as zero afterwards) until the buffer is written again, unless more than
	 *    peer_bytes reached it: those are bytes in flight, announced by a CDC the core
	 *    has not seen yet, and so are bytes that reach it later;
	 *  - buf_idle(idle = false): the core is about to write into a send buffer it said
	 *    was idle (RMBs are written by the peer, and the host sees those bytes arrive). */
	void *(*buf_alloc)(size_t size, void *user);
	void (*buf_free)(void *ptr, size_t size, void *user);
	void (*buf_reset)(void *ptr, size_t size, void *user);
	void (*buf_idle)(void *ptr, size_t size, bool idle, uint64_t peer_bytes, void *user);
	/* Optional: when set, the core gives memory from malloc/calloc back here instead of
	 * through free, with the size it asked for, so a host that counts bytes needs no
	 * header of its own in every block (a million connections hold millions of them). */
	void (*free_sized)(void *ptr, size_t size, void *user);
	/* Optional: the core is about to write size bytes at ptr of a send buffer (the only
	 * place it writes one), for a host whose adapter may take a packet's bytes from the
	 * buffer later than it sends the packet: it must take those bytes first. */
	void (*buf_write)(void *ptr, size_t size, void *user);
} smcr_mem;

/* The libc allocator. */
const smcr_mem *smcr_mem_default(void);

/* Linux constants (net/smc): protocol timers. */
#define SMCR_CLC_WAIT_TIME (6 * SMCR_S)       /* CLC_WAIT_TIME */
#define SMCR_CLC_WAIT_TIME_SHORT (1 * SMCR_S) /* CLC_WAIT_TIME_SHORT */
#define SMCR_LLC_WAIT_TIME (2 * SMCR_S)       /* SMC_LLC_WAIT_TIME */
#define SMCR_LLC_WAIT_FIRST_TIME (5 * SMCR_S) /* SMC_LLC_WAIT_FIRST_TIME (added links) */
#define SMCR_LLC_FLOW_WAIT_TIME (20 * SMCR_S) /* 10 * SMC_LLC_WAIT_TIME */
#define SMCR_WR_SLOT_WAIT_TIME (10 * SMCR_S)  /* SMC_WR_TX_WAIT_FREE_SLOT_TIME */
#define SMCR_CLOSE_WAIT_TIME (2 * SMCR_S)     /* SMC_MAX_STREAM_WAIT_TIMEOUT */
#define SMCR_LGR_FREE_DELAY_SERV (600 * SMCR_S)
#define SMCR_LGR_FREE_DELAY_CLNT (610 * SMCR_S)
#define SMCR_TESTLINK_DEFAULT_TIME (30 * SMCR_S)

#define SMCR_MAX_UEIDS 4 /* SMC_MAX_UEID (include/uapi/linux/smc.h): the local UEID table */
#define SMCR_MAX_PORTS 16
#define SMCR_LINKS_PER_LGR_MAX 3
#define SMCR_CONN_PER_LGR_MAX 255 /* SMC_CONN_PER_LGR_MAX: v1 and v2.0 link groups */
#define SMCR_LINKS_ADD_LNK_MAX 2  /* SMC_LINKS_ADD_LNK_MAX: v1 and v2.0 link groups */

typedef struct smcr_settings {
	uint32_t rmb_size;      /* bytes per RMB (Linux: SO_RCVBUF/2, default 64 KiB) */
	uint32_t sndbuf_size;   /* bytes per send buffer (Linux: SO_SNDBUF/2, 64 KiB) */
	uint64_t testlink_time; /* idle ns before TEST_LINK; 0 disables (Linux 30 s) */
	uint8_t max_links;      /* links per lgr 1..2 (sysctl smcr_max_links_per_lgr) */
	uint8_t max_conns;      /* conns per lgr 16..255 (sysctl smcr_max_conns_per_lgr) */
	uint16_t send_wr;       /* send slots per link (smcr_max_send_wr, 16) */
	uint16_t recv_wr;       /* receive buffers per link (smcr_max_recv_wr, 48) */
	bool v1;                /* offer/accept SMC-Rv1 */
	bool v2;                /* offer/accept SMC-Rv2 (needs a UEID and IPv4) */
	uint8_t release;        /* SMC-Rv2 release offered: 0 (v2.0) or 1 (v2.1) */
	uint16_t feature_mask;  /* v2.1 supplemental features (SMC_FEATURE_MASK: 0 in Linux 6.6
	                         * and 6.7, 1 from 6.8: SMC_SPF_EMULATED_ISM_DEV) */
	uint8_t rmbe_max_code;  /* largest RMB and send buffer, 16 KiB << code: SMCR_RMBE_SIZES,
	                         * 5 (512 KiB) up to Linux 6.10, 15 (512 MiB) from 6.11 */
	uint32_t autocorking_size; /* net.smc.autocorking_size: corking holds at most
	                            * min(sndbuf/2, this); 0 = no autocorking (default 64 KiB) */
	/* What the sending system is, as the peer sees it on the wire; the host sets both from
	 * its personality. Defaults: x86 Linux. */
	smcr_llc_v2_order llc_v2_order; /* v2 LLC lengths and counts: LE (x86 Linux), BE (z/OS) */
	uint8_t os_type;                /* SMCR_CLC_OS_* in the v2 FCE and Decline (Linux 2, z/OS 1) */
	uint8_t n_ueids;
	char ueids[SMCR_MAX_UEIDS][SMCR_EID_LEN]; /* blank padded */
	char hostname[SMCR_HOSTNAME_LEN];         /* blank padded, v2 FCE */
	bool oob_inline;                          /* SO_OOBINLINE: urgent byte stays in the stream */
	/* When the memory of an RMB or send buffer is refused: try the next smaller size
	 * (Linux __smc_buf_create, default), or decline the connection with MEM at once (a
	 * z/OS stack at its FIXEDMEMORY limit: new connections use TCP). */
	bool buf_downgrade;
} smcr_settings;

void smcr_settings_default(smcr_settings *s);

/* Connection state numbers as Linux shows them in smc_diag (enum smc_state). */
typedef enum smcr_conn_state {
	SMCR_ACTIVE = 1,
	SMCR_INIT = 2,
	SMCR_CLOSED = 7,
	SMCR_LISTEN = 10,
	SMCR_PEERCLOSEWAIT1 = 20,
	SMCR_PEERCLOSEWAIT2 = 21,
	SMCR_APPCLOSEWAIT1 = 22,
	SMCR_APPCLOSEWAIT2 = 23,
	SMCR_APPFINCLOSEWAIT = 24,
	SMCR_PEERFINCLOSEWAIT = 25,
	SMCR_PEERABORTWAIT = 26,
	SMCR_PROCESSABORT = 27,
} smcr_conn_state;

/* smc_diag mode. */
typedef enum smcr_conn_mode {
	SMCR_MODE_SMCR = 0,
	SMCR_MODE_FALLBACK = 1,
	SMCR_MODE_HANDSHAKE = 15, /* not yet decided (not a Linux value) */
} smcr_conn_mode;

typedef enum smcr_role { SMCR_ROLE_CLIENT = 0,
	                 SMCR_ROLE_SERVER = 1 } smcr_role;

/* Link group types (enum smc_lgr_type). */
typedef enum smcr_lgr_type {
	SMCR_LGR_NONE = 0,
	SMCR_LGR_SINGLE = 1,
	SMCR_LGR_SYMMETRIC = 2,
	SMCR_LGR_ASYMMETRIC_PEER = 3,
	SMCR_LGR_ASYMMETRIC_LOCAL = 4,
} smcr_lgr_type;

/* Link states as Linux numbers them (enum smc_link_state). */
typedef enum smcr_link_state {
	SMCR_LNK_UNUSED = 0,
	SMCR_LNK_INACTIVE = 1,
	SMCR_LNK_ACTIVATING = 2,
	SMCR_LNK_ACTIVE = 3,
} smcr_link_state;

/* What the host tells the core about one TCP connection when SMC starts on it. */
#define SMCR_MAX_IFADDRS 8
typedef struct smcr_tcp_info {
	bool peer_smc;       /* SMC TCP option seen in SYN and SYN-ACK */
	bool ipsec;          /* IPsec policy on the socket (Linux declines 0x03020000) */
	uint8_t family;      /* 4 or 6 */
	uint32_t local_ipv4; /* host order */
	uint32_t peer_ipv4;
	uint8_t local_ipv6[16];
	uint8_t peer_ipv6[16];
	int32_t vlan_id;     /* VLAN of the egress interface, 0 untagged, -1 unknown */
	char pnet_id[17];    /* PNET id of the egress interface, "" if none */
	int32_t netdev_port; /* port index whose netdev is the egress interface, -1 none */
	/* addresses of the egress interface (prefixes for the Proposal / prefix match) */
	uint8_t n_ipv4;
	struct {
		uint32_t addr;
		uint8_t prefix_len;
	} ipv4[SMCR_MAX_IFADDRS];
	uint8_t n_ipv6;
	struct {
		uint8_t addr[16];
		uint8_t prefix_len;
	} ipv6[SMCR_MAX_IFADDRS];
	uint32_t rcvbuf; /* 0 = settings.rmb_size, else the RMB size wanted */
	uint32_t sndbuf; /* 0 = settings.sndbuf_size */
} smcr_tcp_info;

/* What the core asks the host to do with the TCP connection of an SMC connection. */
typedef enum smcr_tcp_action {
	SMCR_TCP_SHUTDOWN = 1,    /* shutdown(SHUT_RDWR): send FIN, keep the socket */
	SMCR_TCP_CLOSE = 2,       /* release the socket (close) */
	SMCR_TCP_ABORT = 3,       /* abort with RST (tcp_abort ECONNABORTED) */
	SMCR_TCP_SHUTDOWN_WR = 4, /* shutdown(SHUT_WR): send FIN after an SMC shutdown */
} smcr_tcp_action;

/* Events for logs and reports. */
typedef enum smcr_event_type {
	SMCR_EV_LGR_CREATED = 1,
	SMCR_EV_LGR_TYPE,       /* lgr type changed (lgr_type) */
	SMCR_EV_LGR_TERMINATED, /* the lgr ends: lgr_end says how, reason is the DELETE LINK
	                           * reason code (0 = none), text the local cause */
	SMCR_EV_LGR_FREED,
	SMCR_EV_LINK_ADDED,   /* link became ACTIVE ("link added" in Linux logs) */
	SMCR_EV_LINK_DOWN,    /* link failed (reason: SMCR_LINKDOWN_*) */
	SMCR_EV_LINK_REMOVED, /* link cleared */
	SMCR_EV_ADD_LINK_REJECTED,
	SMCR_EV_DECODE_ERROR, /* a received message failed to decode (decode_err) */
	SMCR_EV_LLC_DROPPED,  /* an LLC message was dropped (text says why) */
	SMCR_EV_LLC_PROTOCOL_VIOLATION,
	SMCR_EV_CONN_STATE, /* connection state changed (conn_state) */
} smcr_event_type;

/* Why a link went down. */
typedef enum smcr_linkdown_reason {
	SMCR_LINKDOWN_NONE = 0,
	SMCR_LINKDOWN_WC_ERROR,     /* a work completion with error status */
	SMCR_LINKDOWN_QP_FATAL,     /* asynchronous QP error */
	SMCR_LINKDOWN_PORT_ERROR,   /* port went down */
	SMCR_LINKDOWN_TESTLINK,     /* no TEST_LINK response within 2 s */
	SMCR_LINKDOWN_SLOT_TIMEOUT, /* no free send slot within 10 s */
	SMCR_LINKDOWN_PEER_DELETE,  /* peer sent DELETE_LINK */
	SMCR_LINKDOWN_ADD_FAILED,   /* link setup failed */
	SMCR_LINKDOWN_LGR_END,      /* its link group ended */
	SMCR_LINKDOWN_LOCAL,        /* host asked (smcr_ctx_link_fail) */
	SMCR_LINKDOWN_ASYM_UNNEEDED,
} smcr_linkdown_reason;

const char *smcr_linkdown_reason_text(smcr_linkdown_reason r);

/* How a link group ended (SMCR_EV_LGR_TERMINATED). */
typedef enum smcr_lgr_end {
	SMCR_LGR_END_NONE = 0,
	SMCR_LGR_END_ABNORMAL,      /* terminated here: no usable link, protocol violation, ... */
	SMCR_LGR_END_PEER_ABNORMAL, /* the peer sent DELETE LINK ALL without the orderly flag */
	SMCR_LGR_END_PEER_ORDERLY,  /* the peer sent an orderly DELETE LINK ALL (its idle end) */
	SMCR_LGR_END_IDLE,          /* idle past its linger time: we sent an orderly DELETE LINK ALL */
} smcr_lgr_end;

/* "terminated abnormally", "ended by the peer (orderly)", ... */
const char *smcr_lgr_end_text(smcr_lgr_end e);

/* One link as reports see it (Linux netlink SMC_GEN_LINK_SMCR + the 7-tuple). */
typedef struct smcr_link_info {
	uint64_t id;       /* stable numeric id, creation order, ctx-wide */
	uint64_t lgr_id;   /* numeric id of its link group */
	uint8_t link_id;   /* 1-byte link number (server assigned) */
	uint32_t link_uid; /* local link user id (4 bytes, big-endian as number) */
	uint32_t peer_link_uid;
	smcr_link_state state;
	uint32_t port_index;
	char ibdev[32];
	uint8_t ibport;
	uint8_t local_mac[6];
	uint8_t local_gid[16];
	uint32_t local_qpn;
	uint8_t peer_mac[6];
	uint8_t peer_gid[16];
	uint32_t peer_qpn;
	uint16_t vlan_id;
	smcr_mtu path_mtu;
	uint32_t psn;
	uint32_t peer_psn;
	bool asymmetric;
	uint32_t conn_cnt;
	uint64_t bytes_out, bytes_in; /* payload: RDMA WRITE bytes out, data placed in */
	uint64_t ops_out, ops_in;     /* SENDs + WRITEs posted / receives completed */
	uint64_t llc_out, llc_in, cdc_out, cdc_in;
} smcr_link_info;

typedef struct smcr_lgr_info {
	uint64_t id;      /* stable numeric id */
	uint32_t lgr_num; /* Linux-style lgr id (counter in steps of 256) */
	smcr_role role;
	smcr_lgr_type type;
	uint8_t version; /* 1 or 2 */
	uint8_t peer_system_id[8];
	uint16_t vlan_id;
	char pnet_id[17];
	uint32_t n_links;
	uint64_t link_ids[SMCR_LINKS_PER_LGR_MAX];
	uint32_t conns_num;
	uint64_t sndbuf_bytes; /* allocated send buffers */
	uint64_t rmb_bytes;    /* allocated RMBs */
	bool terminating;
	uint8_t max_conns, max_links, peer_release, peer_os;
	char negotiated_eid[SMCR_EID_LEN];
	char peer_hostname[SMCR_HOSTNAME_LEN];
	bool v2_direct;
} smcr_lgr_info;

typedef struct smcr_conn_info {
	uint64_t id;
	smcr_role role;
	smcr_conn_state state;
	smcr_conn_mode mode;
	uint32_t fallback_reason; /* local decline reason (SMCR_DECL_*) or 0 */
	uint32_t peer_diagnosis;  /* peer's decline diagnosis, if it declined */
	uint64_t lgr_id;          /* 0 if none */
	uint64_t link_id;         /* current link, 0 if none */
	uint8_t version;
	uint32_t local_token, peer_token;
	uint32_t sndbuf_size, rmbe_size, peer_rmbe_size;
	smcr_cursor rx_prod, rx_cons;         /* received producer, local consumer */
	smcr_cursor tx_prod, tx_cons;         /* our producer in the peer RMBE, peer's consumer */
	smcr_cursor tx_prep, tx_sent, tx_fin; /* send buffer cursors */
	uint8_t rx_prod_flags, rx_conn_flags, tx_prod_flags, tx_conn_flags;
	uint32_t bytes_to_rcv;
	uint32_t sndbuf_space;
	uint32_t peer_rmbe_space;
	uint64_t bytes_sent, bytes_received;
	bool shutdown_wr, shutdown_rd;
} smcr_conn_info;

typedef struct smcr_event {
	smcr_event_type type;
	uint64_t lgr_id;
	uint64_t conn_id;
	const smcr_link_info *link;    /* link events: full identity */
	smcr_linkdown_reason linkdown; /* SMCR_EV_LINK_DOWN */
	uint32_t reason;               /* wire reason code (DELETE_LINK, decline) */
	smcr_lgr_type lgr_type;        /* SMCR_EV_LGR_TYPE */
	smcr_lgr_end lgr_end;          /* SMCR_EV_LGR_TERMINATED */
	smcr_conn_state conn_state;    /* SMCR_EV_CONN_STATE */
	const smcr_decode_err *decode_err;
	const char *text; /* short human-readable detail, or NULL */
} smcr_event;

/* One protocol message the core sent or took in, for event logs and traces (the optional
 * `trace` callback): CLC when it is handed to clc_send and when it is framed out of the
 * stream, LLC and CDC when their SEND is posted and when their receive completes. The
 * bytes are the whole message and valid during the call only. */
typedef enum smcr_trace_proto {
	SMCR_TRACE_CLC = 1,
	SMCR_TRACE_LLC,
	SMCR_TRACE_CDC,
} smcr_trace_proto;

typedef struct smcr_trace_msg {
	smcr_trace_proto proto;
	bool outbound;    /* sent (true) or received */
	uint64_t conn_id; /* CLC, CDC: the connection's id (a received CDC: the one its
	                         * token names), 0 when none */
	uint64_t lgr_id;  /* LLC, CDC: the link's link group; CLC: the connection's, 0 none */
	uint64_t link_id; /* LLC, CDC: the link's id; 0 for CLC */
	const uint8_t *data;
	size_t len;
} smcr_trace_msg;

typedef struct smcr_callbacks {
	/* Fill dst with random bytes (PSNs, alert token base, system id). Required. */
	void (*rand)(void *user, uint8_t *dst, size_t len);
	/* Write CLC bytes into the connection's TCP stream. Return 0 or a negative error. */
	int (*clc_send)(void *user, smcr_conn *conn, const uint8_t *buf, size_t len);
	/* The connection uses SMC-R from now on. */
	void (*established)(void *user, smcr_conn *conn);
	/* The connection continues as plain TCP. reason: local reason (SMCR_DECL_*), peer
	 * diagnosis if the peer declined (reason then SMCR_DECL_PEERDECL). app_data: stream
	 * bytes the core had taken in after the last CLC message; they are application data
	 * and are handed back untouched (valid during the call only). */
	void (*fallback)(void *user, smcr_conn *conn, uint32_t reason, uint32_t peer_diagnosis,
	                 const uint8_t *app_data, size_t app_len);
	void (*readable)(void *user, smcr_conn *conn);
	void (*writable)(void *user, smcr_conn *conn);
	/* The peer shut down its sending side or closed (EOF for the reader). */
	void (*peer_closed)(void *user, smcr_conn *conn);
	/* What to do with the TCP connection (FIN, close, RST). */
	void (*tcp_control)(void *user, smcr_conn *conn, smcr_tcp_action act);
	/* The connection ended with an error (SMCR_ERR_*: CLOSED for ECONNRESET/ABORTED,
	 * PROTO for a CLC protocol error, AGAIN for a CLC timeout). */
	void (*aborted)(void *user, smcr_conn *conn, int err);
	/* The core freed the connection; the handle is gone after this returns. */
	void (*conn_freed)(void *user, smcr_conn *conn);
	/* Link and link-group events, decode errors. Optional. */
	void (*event)(void *user, const smcr_event *ev);
	/* SMC-Rv2: route from saddr to daddr (host order). Fill the next-hop MAC and whether a
	 * gateway is used; return 0, or negative when there is no route. Optional: without it
	 * every peer counts as directly reachable. */
	int (*route_lookup)(void *user, uint32_t saddr, uint32_t daddr, uint8_t nexthop_mac[6],
	                    bool *uses_gateway);
	/* Every CLC, LLC and CDC message sent or received (smcr_trace_msg). Optional; it
	 * only observes: it must not call back into the core. */
	void (*trace)(void *user, const smcr_trace_msg *m);
} smcr_callbacks;

/* Context ------------------------------------------------------------------------------ */

/* Create a context. mem may be NULL (libc). The transport handle tp is passed back to
 * every ops call. Returns SMCR_ERR_NOMEM / SMCR_ERR_INVAL. */
int smcr_ctx_new(smcr_ctx **out, const smcr_settings *settings, const smcr_callbacks *cb,
                 void *user, const smcr_transport_ops *ops, void *tp, const smcr_mem *mem,
                 uint64_t now);
/* Free everything at once (no protocol shutdown; QPs destroyed, MRs deregistered). */
void smcr_ctx_free(smcr_ctx *ctx);

/* Ports: returns the port index (>= 0) or a negative error. The first ACTIVE port with a
 * MAC fixes the system id (2 random bytes + that MAC), as Linux does. */
int smcr_ctx_add_port(smcr_ctx *ctx, const smcr_port_desc *desc, uint64_t now);
const smcr_port_desc *smcr_ctx_port(const smcr_ctx *ctx, uint32_t port_index);
const uint8_t *smcr_ctx_system_id(const smcr_ctx *ctx);

/* Timers. */
uint64_t smcr_ctx_next_expiry(const smcr_ctx *ctx);
int smcr_ctx_handle_expiry(smcr_ctx *ctx, uint64_t now);

/* Transport input: one work completion (any QP of this context). */
int smcr_ctx_on_completion(smcr_ctx *ctx, const smcr_wc *wc, uint64_t now);
/* Asynchronous events: SMCR_EV_QP_FATAL (qp_ctx given), SMCR_EV_PORT_ERR/_ACTIVE/
 * _GID_CHANGE (port_index given). */
int smcr_ctx_on_async_event(smcr_ctx *ctx, smcr_async_event ev, uint32_t port_index,
                            void *qp_ctx, uint64_t now);

/* Connections -------------------------------------------------------------------------- */

/* Client side: the TCP connection is established; start SMC on it (Proposal or fallback).
 * Server side: a TCP connection was accepted on an SMC listener. */
int smcr_conn_connect(smcr_ctx *ctx, const smcr_tcp_info *tcp, void *conn_user, uint64_t now,
                      smcr_conn **out);
int smcr_conn_accept(smcr_ctx *ctx, const smcr_tcp_info *tcp, void *conn_user, uint64_t now,
                     smcr_conn **out);

/* Bytes read from the TCP stream during the handshake, split or coalesced in any way.
 * The core takes them all (returns len) and frames CLC messages itself; if the connection
 * falls back, bytes after the last CLC message come back through the fallback callback.
 * After fallback the core takes nothing (returns 0: the bytes are application data);
 * after establishment stray bytes are taken and ignored. Returns fewer than len only if
 * more than 64 KiB pile up before the handshake reads them. */
ssize_t smcr_conn_clc_input(smcr_conn *conn, const uint8_t *buf, size_t len, uint64_t now);
/* The TCP connection was closed or reset by the peer (EOF/RST on the CLC socket). */
int smcr_conn_tcp_closed(smcr_conn *conn, bool reset, uint64_t now);

#define SMCR_MSG_OOB 0x1u
#define SMCR_MSG_PEEK 0x2u
#define SMCR_MSG_MORE 0x4u /* send: more follows, hold the RDMA write while there is room */

/* TCP_CORK and TCP_NODELAY on an SMC socket (Linux smc_setsockopt, smc_tx_should_cork):
 * a corked connection holds what it is given while its send buffer has room; uncorking,
 * and turning Nagle off, push what is held (smc_tx_pending) and count (cork_cnt,
 * ndly_cnt) on a connection past the handshake. The cork applies from then on whenever it
 * was set (the CLC socket keeps it). */
int smcr_conn_set_cork(smcr_conn *conn, bool on, uint64_t now);
int smcr_conn_set_nodelay(smcr_conn *conn, bool on, uint64_t now);

/* Copy data into the send buffer; returns bytes accepted (may be fewer than len),
 * SMCR_ERR_AGAIN when the buffer is full, SMCR_ERR_CLOSED/STATE otherwise. */
ssize_t smcr_conn_send(smcr_conn *conn, const uint8_t *data, size_t len, uint32_t flags,
                       uint64_t now);
/* Copy received data out; returns bytes (0 = end of stream), SMCR_ERR_AGAIN when nothing
 * is there yet. With SMCR_MSG_OOB: the urgent byte (non-inline mode). */
ssize_t smcr_conn_recv(smcr_conn *conn, uint8_t *buf, size_t len, uint32_t flags, uint64_t now);
/* The same without the caller's buffer (what an application that generates or checks the
 * data in place does, like MSG_ZEROCOPY): fill() writes the accepted bytes straight into
 * the send buffer, visit() reads the received ones straight from the RMB, each called once
 * per contiguous span (twice when the ring wraps), in stream order. Same results, cursors
 * and wire traffic as smcr_conn_send/recv with the same length. */
typedef void (*smcr_fill_fn)(void *ctx, uint8_t *dst, size_t len);
typedef void (*smcr_visit_fn)(void *ctx, const uint8_t *src, size_t len);
ssize_t smcr_conn_send_fill(smcr_conn *conn, size_t len, uint32_t flags, uint64_t now,
                            smcr_fill_fn fill, void *ctx);
ssize_t smcr_conn_recv_visit(smcr_conn *conn, size_t len, uint32_t flags, uint64_t now,
                             smcr_visit_fn visit, void *ctx);
/* shutdown(SHUT_WR) */
int smcr_conn_shutdown_write(smcr_conn *conn, uint64_t now);
/* close(): see Lifetimes above. */
int smcr_conn_close(smcr_conn *conn, uint64_t now);
/* Abort now (CDC abort, TCP RST). The handle stays valid until smcr_conn_close(). */
int smcr_conn_abort(smcr_conn *conn, uint64_t now);

void *smcr_conn_user(const smcr_conn *conn);
uint64_t smcr_conn_id(const smcr_conn *conn);
smcr_conn_state smcr_conn_get_state(const smcr_conn *conn);
size_t smcr_conn_readable(const smcr_conn *conn); /* bytes waiting to be read */
size_t smcr_conn_writable(const smcr_conn *conn); /* free bytes in the send buffer */
bool smcr_conn_at_urgent_mark(const smcr_conn *conn);
int smcr_conn_get_info(const smcr_conn *conn, smcr_conn_info *out);

/* Introspection ------------------------------------------------------------------------ */

/* Iterate in creation order. */
void smcr_ctx_foreach_lgr(const smcr_ctx *ctx, void (*fn)(void *arg, const smcr_lgr_info *),
                          void *arg);
void smcr_ctx_foreach_link(const smcr_ctx *ctx, void (*fn)(void *arg, const smcr_link_info *),
                           void *arg);
void smcr_ctx_foreach_conn(const smcr_ctx *ctx, void (*fn)(void *arg, const smcr_conn_info *),
                           void *arg);
int smcr_ctx_link_info(const smcr_ctx *ctx, uint64_t link_id, smcr_link_info *out);

/* Host-triggered link failure (tests, operator action): the link goes down as if its QP
 * had failed. */
int smcr_ctx_link_fail(smcr_ctx *ctx, uint64_t link_id, uint64_t now);

/* Operator-initiated end of every link group (Linux smc_smcr_terminate_all(NULL), run on
 * module unload and reboot): each sends DELETE_LINK ALL, not orderly, reason 0x00020000,
 * and its connections end with an error. Returns how many link groups it ended. */
int smcr_ctx_terminate_all(smcr_ctx *ctx, uint64_t now);

/* Counters like smc-tools `smcr stats` (SMC_NETLINK_GET_STATS / _FBACK_STATS). */
#define SMCR_MAX_FBACK_RSN 30
typedef struct smcr_fback_count {
	uint32_t code;
	uint32_t count;
} smcr_fback_count;

typedef struct smcr_stats {
	uint64_t clnt_v1_succ, clnt_v2_succ, srv_v1_succ, srv_v2_succ;
	uint64_t clnt_hshake_err, srv_hshake_err;
	uint64_t clnt_fback, srv_fback;
	smcr_fback_count clnt_fback_rsn[SMCR_MAX_FBACK_RSN];
	smcr_fback_count srv_fback_rsn[SMCR_MAX_FBACK_RSN];
	uint64_t rmb_alloc, rmb_reuse, rmb_downgrade, sndbuf_alloc, sndbuf_reuse, sndbuf_downgrade;
	/* buckets 8K,16K,32K,64K,128K,256K,512K,1024K,>1024K (SMC_STAT_RMB_SIZE_SUB: fls((len-1) >> 13)) */
	uint64_t rmb_size_hist[9];    /* RMBs given to connections, by size (rx_rmbsize) */
	uint64_t sndbuf_size_hist[9]; /* send buffers given to connections, by size (tx_rmbsize) */
	uint64_t rx_pd[9], tx_pd[9];  /* receive / send calls that moved bytes, by the length asked for
	                               * (SMC_STAT_PAYLOAD_SUB) */
	uint64_t rmb_bytes_used, sndbuf_bytes_used; /* rx_rmbuse / tx_rmbuse: bytes of buffers
	                                             * connections hold now (given, not yet unused) */
	uint64_t rmb_bytes_peak, sndbuf_bytes_peak; /* the most they held at once */
	uint64_t tx_buf_full;        /* a sender found its send buffer full and got room again
	                              * (SMC_STAT_RMB_TX_FULL, smc_tx_write_space) */
	uint64_t tx_size_small;      /* send calls longer than the send buffer */
	uint64_t tx_peer_size_small; /* send calls longer than the peer's RMBE */
	uint64_t rx_buf_full;        /* receive calls that found the RMBE full (SMC_STAT_RMB_RX_FULL) */
	uint64_t rx_size_small;      /* receive calls that asked for less than was there */
	/* for storage planning (not Linux counters): the most link groups and connections on
	 * link groups at once, and the 1 MB RMB blocks z/OS would hold for these link groups
	 * (three per link group at least, RMBEs of 32K and up, as many as the most
	 * connections each size had at once needed; kept while the link group lives) */
	uint64_t lgrs_now, lgr_peak, conns_now, conn_peak;
	uint64_t zos_rmb_blocks_now, zos_rmb_blocks_peak;
	uint64_t tx_bytes, rx_bytes, tx_cnt, rx_cnt, urg_tx_cnt, urg_rx_cnt;
	uint64_t cork_cnt, ndly_cnt; /* uncorks and Nagle-off calls (smc_stats cork_cnt, ndly_cnt) */
	uint64_t tx_peer_full;  /* sends that found the peer RMBE full */
	uint64_t rx_rmb_full;   /* peer signalled write blocked */
	uint64_t decode_errors; /* CLC, LLC and CDC messages that failed to decode */
	uint64_t llc_dropped;
	uint64_t llc_prot_viol;
	uint64_t cdc_unknown_token;
	uint64_t link_down_cnt, lgr_terminated_cnt, failovers; /* terminated: abnormal ends only */
	uint64_t mem_bytes;                                    /* bytes currently allocated by this context */
} smcr_stats;

void smcr_ctx_get_stats(const smcr_ctx *ctx, smcr_stats *out);

#endif
