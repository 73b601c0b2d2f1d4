/* A plain-data snapshot of an SMC-R world, for operator reports.
 *
 * Whoever knows the world fills it: the live simulator from the core's introspection, the
 * replay decoder (sim/replay/replay.h) from a capture. Printers only read it:
 *   report_print_netstat()  z/OS NETSTAT DEVLINKS SMC style, filter by link/group id (SMCID)
 *   report_print_smc()      smc-tools style: smcr linkgroup [link-show], smcr device,
 *                           smcr -d stats, smcss and smcss -R
 *   report_print_json()     the same data as JSON with stable keys
 *   report_print_log()      IST2406I-style message groups for link failures, the
 *                           IST1717I/IST1578I group of a RoCE interface INOP
 * All output is deterministic: rows are printed in the order report_sort() gives, which
 * depends on numeric ids only, never on addresses or insertion by hash.
 *
 * Objects refer to each other by ids: every RNIC, link group, link and connection names
 * its stack (stack_id); links name their link group (lgr_id, per stack) and local RNIC.
 * Unknown numeric fields hold REPORT_UNKNOWN (or 0 where 0 is not a valid value, as for
 * link ids, tokens and QP numbers); unknown byte arrays are all zero.
 */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define REPORT_UNKNOWN 0xFFFFFFFFu
#define REPORT_NO_VLAN 0xFFFFu
#define REPORT_NAME_LEN 33 /* 32 characters + NUL (host names, job names) */
#define REPORT_INTF_LEN 17 /* 16 characters + NUL (interface, device, PNetID) */
#define REPORT_MAX_GIDS 4
#define REPORT_MAX_FALLBACKS 48
#define REPORT_BUF_BUCKETS 8 /* smc-tools buffer columns: 8K 16K 32K 64K 128K 256K 512K >512K */

typedef enum report_os {
	REPORT_OS_UNKNOWN = 0,
	REPORT_OS_ZOS,
	REPORT_OS_LINUX,
	REPORT_OS_AIX,
} report_os;

typedef enum report_role {
	REPORT_ROLE_UNKNOWN = 0,
	REPORT_ROLE_CLIENT, /* TCP active opener; link group role CLNT */
	REPORT_ROLE_SERVER, /* TCP listener; link group role SERV, owns link ids */
} report_role;

typedef enum report_rnic_status {
	REPORT_RNIC_UNKNOWN = 0,
	REPORT_RNIC_READY,    /* port active, usable for links */
	REPORT_RNIC_INACTIVE, /* configured, not started or stopped */
	REPORT_RNIC_FAILED,   /* adapter or port failed */
} report_rnic_status;

/* Linux lgr types (SMC_NLA_LGR_R_TYPE values). */
typedef enum report_lgr_type {
	REPORT_LGR_NONE = 0,   /* no link yet */
	REPORT_LGR_SINGLE = 1, /* one link: each side has one usable RNIC */
	REPORT_LGR_SYM = 2,    /* two links over distinct RNICs on both sides (full redundancy) */
	REPORT_LGR_ASYMP = 3,  /* the peer has one RNIC */
	REPORT_LGR_ASYML = 4,  /* we have one RNIC */
} report_lgr_type;

/* Linux link states (SMC_NLA_LINK_STATE values). */
typedef enum report_link_state {
	REPORT_LINK_UNUSED = 0,
	REPORT_LINK_INACTIVE = 1,   /* deleted or failed */
	REPORT_LINK_ACTIVATING = 2, /* QPs set up, CONFIRM LINK not completed */
	REPORT_LINK_ACTIVE = 3,
} report_link_state;

/* SMC socket states with their smc_diag numbers (smcss prints these names). */
typedef enum report_conn_state {
	REPORT_CONN_ACTIVE = 1,
	REPORT_CONN_INIT = 2,
	REPORT_CONN_CLOSED = 7,
	REPORT_CONN_LISTEN = 10,
	REPORT_CONN_PEERCLOSEWAIT1 = 20,
	REPORT_CONN_PEERCLOSEWAIT2 = 21,
	REPORT_CONN_APPCLOSEWAIT1 = 22,
	REPORT_CONN_APPCLOSEWAIT2 = 23,
	REPORT_CONN_APPFINCLOSEWAIT = 24,
	REPORT_CONN_PEERFINCLOSEWAIT = 25,
	REPORT_CONN_PEERABORTWAIT = 26,
	REPORT_CONN_PROCESSABORT = 27,
} report_conn_state;

typedef enum report_conn_mode {
	REPORT_MODE_SMCR = 0, /* smc_diag mode numbers */
	REPORT_MODE_TCP = 1,  /* fallback to TCP; see fallback_reason / peer_diagnosis */
	REPORT_MODE_SMCD = 2,
} report_conn_mode;

typedef enum report_event_kind {
	REPORT_EVENT_LINK_FAILED = 0, /* link lost: DELETE LINK for a failure, fatal NAK,
	                               * traffic stopped with requests unacknowledged */
	REPORT_EVENT_LINK_DELETED,    /* orderly removal (idle link group, operator) */
	REPORT_EVENT_LGR_ENDED,       /* a link group ended: cause says how (orderly or not),
	                               * code is the DELETE LINK reason (0 = none) */
	REPORT_EVENT_INTF_INOP,       /* a z/OS stack's RoCE interface (intf) became inoperative:
	                               * its adapter or the adapter's link failed */
} report_event_kind;

typedef struct report_cursor {
	uint16_t wrap;
	uint32_t count;
} report_cursor;

typedef struct report_fallback {
	uint32_t code; /* CLC decline / Linux fallback reason (SMCR_DECL_*) */
	uint64_t clnt_cnt;
	uint64_t srv_cnt;
	uint32_t clnt_seq, srv_seq; /* 1-based order of the code's first count on each side (the
	                             * kernel lists a side's reasons so: smc-tools' order of ties) */
} report_fallback;

/* smc-tools `smcr stats` counters of one stack (the kernel's struct smc_stats_tech). */
typedef struct report_stats {
	uint64_t clnt_v1_succ, clnt_v2_succ, srv_v1_succ, srv_v2_succ;
	uint64_t clnt_hshake_err, srv_hshake_err;
	uint64_t rx_bytes, tx_bytes;              /* SMC-R payload bytes received / sent */
	uint64_t rx_cnt, tx_cnt;                  /* receive / send requests */
	uint64_t rx_rmb_hist[REPORT_BUF_BUCKETS]; /* RMBs by size (receive buffers) */
	uint64_t tx_rmb_hist[REPORT_BUF_BUCKETS]; /* send buffers by size (from a capture, which
	                                           * shows no send buffer: the peer's RMBs) */
	uint64_t rx_pd[REPORT_BUF_BUCKETS], tx_pd[REPORT_BUF_BUCKETS]; /* requests by payload size */
	uint64_t rx_rmbuse, tx_rmbuse;      /* bytes of RMBs / send buffers connections hold now */
	uint64_t rx_rmbuse_peak, tx_rmbuse_peak;
	uint64_t rx_buf_full;               /* receive calls that found the RMBE full */
	uint64_t rx_size_small;             /* receive calls asking for less than was there */
	uint64_t tx_buf_full, tx_buf_full_peer;     /* send buffer full; peer RMBE full */
	uint64_t tx_size_small, tx_size_small_peer; /* sends longer than the send buffer; than the peer RMBE */
	uint64_t rx_downgrades, rx_reuses, tx_downgrades, tx_reuses; /* RMBs; send buffers */
	uint64_t urg_data_cnt;              /* urgent data sent or read (the one special call modelled) */
	uint64_t cork_cnt, ndly_cnt;        /* TCP_CORK released / TCP_NODELAY set past the handshake */
	uint32_t n_fallbacks;
	uint32_t clnt_fb_seq, srv_fb_seq; /* the last seq given on each side */
	report_fallback fallbacks[REPORT_MAX_FALLBACKS];
} report_stats;

/* Storage planning figures of one stack from a run (sim/report/report_storage.c prints
 * them): what IBM's worksheet needs, and what the run held at its peak. */
typedef struct report_storage {
	bool known;              /* from a run; a capture has none */
	uint32_t pfids;          /* RoCE PFIDs (ports) the stack activated */
	uint64_t fixed_memory;   /* the stack's FIXEDMEMORY limit in bytes (0: none) */
	uint64_t lgr_peak;       /* the most SMC-R link groups at once */
	uint64_t conn_peak;      /* the most SMC-R connections at once */
	uint64_t rmb_blocks_peak; /* the most 1 MB RMB blocks z/OS would have held at once */
} report_storage;
/* A stack's SMC-R buffer memory: the RMBs and send buffers it holds now (the sum of its
 * link groups' buffer_storage and sndbuf_storage; --stats buffer_bytes), what z/OS's
 * GLOBALCONFIG SMCR FIXEDMEMORY limits, and the connections that use TCP because a
 * buffer would have taken it past the limit. Unknown from a capture. */
typedef struct report_fixed_mem {
	bool known;
	uint64_t in_use;   /* bytes */
	uint64_t limit;    /* bytes, 0 = none */
	uint64_t declined; /* connections declined with MEM for it */
} report_fixed_mem;

typedef struct report_stack {
	uint32_t id;                /* 1, 2, ... */
	char name[REPORT_NAME_LEN]; /* TCP/IP job name (z/OS) or host name */
	report_os os;
	uint8_t system_id[8]; /* SMC peer id: 2 random bytes + RNIC MAC */
	uint8_t family;       /* 4 or 6 (0 = no address known) */
	uint8_t ip[16];       /* main address (IPv4 in the first 4 bytes) */
	char hostname[REPORT_NAME_LEN]; /* the SMC-Rv2 host name (smcr info), may be empty */
	bool smcr_v2;                   /* SMC-Rv2 offered and accepted */
	uint8_t smc_release;            /* SMC-Rv2 release (0: 2.0, 1: 2.1) */
	report_stats stats;
	report_storage storage;
	report_fixed_mem fixed;
} report_stack;

typedef struct report_rnic {
	uint32_t id; /* unique in the report */
	uint32_t stack_id;
	char name[REPORT_INTF_LEN];   /* EZARIUTpffff (z/OS), IB device name (Linux) */
	bool name_made_up;            /* from a capture: no message names devices ("RNIC1") */
	char netdev[REPORT_INTF_LEN]; /* associated net device, may be empty */
	char pnetid[REPORT_INTF_LEN]; /* may be empty */
	uint32_t pfid;                /* PCI function id, REPORT_UNKNOWN if unknown */
	uint8_t port;                 /* 1-based, 0 unknown */
	uint8_t mac[6];               /* VMAC */
	uint8_t n_gids;
	uint8_t gids[REPORT_MAX_GIDS][16];
	uint32_t mtu; /* bytes, 0 unknown */
	uint16_t pci_device; /* PCI device id (0x1004 10GbE RoCE Express, 0x1016 RoCE Express2,
	                      * 0x1017 ConnectX-5), 0 unknown */
	report_rnic_status status;
	uint64_t bytes_in, bytes_out, ops_in, ops_out;
} report_rnic;

typedef struct report_lgr {
	uint32_t id;     /* link group id (unique per stack) */
	bool id_made_up; /* from a capture: no link id in it told the id */
	uint32_t stack_id;
	report_role role;
	report_lgr_type type;
	uint8_t version; /* SMC-R version 1 or 2, 0 unknown */
	uint8_t peer_system_id[8];
	char peer_host[REPORT_NAME_LEN];
	uint32_t peer_stack_id; /* 0 unknown */
	uint16_t vlan;          /* REPORT_NO_VLAN if untagged */
	char pnetid[REPORT_INTF_LEN];
	uint32_t n_links;
	uint32_t n_conns;
	uint64_t buf_storage;         /* bytes of RMBs (receive buffers) this stack has in the group
	                               * (netstat BufferStorage: a z/OS link group's RMBs) */
	uint64_t sndbuf_storage;      /* bytes of its send buffers there (Linux keeps them per group;
	                               * z/OS's staging buffers belong to the stack) */
	uint8_t max_links, max_conns; /* v2.1 negotiated limits, 0 unknown */
	uint8_t peer_release;         /* SMC-Rv2: the peer's release (0: 2.0, 1: 2.1) */
	uint8_t peer_os;              /* SMC-Rv2: the peer's OS type (1 z/OS, 2 Linux, 3 AIX), 0 unknown */
	bool v2_direct;               /* SMC-Rv2: peers in one subnet (no router between) */
	char eid[33];                 /* SMC-Rv2: the negotiated EID, blank-trimmed */
} report_lgr;

typedef struct report_link {
	uint32_t stack_id;
	uint32_t lgr_id;
	uint8_t link_num;       /* 1-byte link number in the group ("link id" in Linux) */
	uint32_t local_link_id; /* 4-byte SMC-R link id (Linux: link user id) */
	uint32_t remote_link_id;
	report_link_state state;
	uint32_t rnic_id; /* local RNIC, REPORT_UNKNOWN if unknown */
	uint8_t local_mac[6], remote_mac[6];
	uint8_t local_gid[16], remote_gid[16];
	uint32_t local_qpn, remote_qpn;
	uint16_t vlan;
	uint32_t mtu;                 /* path MTU in bytes, 0 unknown */
	uint64_t bytes_in, bytes_out; /* RoCE frame bytes on this link */
	uint64_t ops_in, ops_out;     /* work requests (SENDs, RDMA WRITEs) */
	uint64_t naks_in, naks_out;   /* NAK / RNR NAK acknowledgements */
	uint64_t retrans_out;         /* requests this side sent again */
	uint32_t n_conns;
	uint32_t local_psn, remote_psn; /* from a capture: the initial PSNs the CLC or ADD LINK
	                                 * messages announced */
} report_link;

/* An IP prefix of a CLC Proposal. */
typedef struct report_prefix {
	uint8_t family; /* 4 or 6 */
	uint8_t addr[16];
	uint8_t len;
} report_prefix;

#define REPORT_MAX_PREFIXES 9 /* an IPv4 subnet and 8 IPv6 prefixes */

typedef struct report_conn {
	uint32_t id; /* per stack, creation order */
	uint32_t stack_id;
	uint8_t family; /* 4 or 6 */
	uint8_t local_ip[16], peer_ip[16];
	uint16_t local_port, peer_port;
	report_conn_state state;
	report_conn_mode mode;
	report_role role;
	uint8_t smc_version;      /* 1 or 2 with SMC-R, 0 otherwise */
	uint32_t fallback_reason; /* local reason (SMCR_DECL_*), 0 none */
	uint32_t peer_diagnosis;  /* the peer's Decline code, 0 none */
	uint32_t lgr_id;          /* REPORT_UNKNOWN when not on a link group */
	uint8_t link_num;         /* 0 unknown */
	uint32_t link_id;         /* 4-byte local link id, 0 unknown */
	uint8_t local_gid[16], peer_gid[16];
	uint32_t local_token, peer_token;                 /* RMBE alert tokens */
	uint32_t rmbe_size, peer_rmbe_size, sndbuf_size;  /* bytes, 0 unknown */
	report_cursor rx_prod, rx_cons, tx_prod, tx_cons; /* last CDC received / sent */
	report_cursor tx_prep, tx_sent, tx_fin;           /* send buffer cursors (unknown in a capture) */
	uint8_t rx_prod_flags, rx_conn_flags, tx_prod_flags, tx_conn_flags;
	uint64_t bytes_sent, bytes_received;    /* application bytes */
	uint64_t rdma_bytes_out, rdma_bytes_in; /* RDMA WRITE payload bytes (retransmissions included) */
	uint64_t cdc_out, cdc_in;
	/* from a capture: what the CLC handshake carried */
	bool first_contact;
	uint32_t local_rkey, peer_rkey; /* RMB rkeys (Accept / Confirm) */
	uint64_t local_rmb_vaddr, peer_rmb_vaddr;
	uint8_t n_prefixes; /* the client's Proposal: its IP prefixes */
	report_prefix prefixes[REPORT_MAX_PREFIXES];
} report_conn;

/* A link failure or removal, printed as an IST2406I message group. */
typedef struct report_event {
	uint64_t seq;     /* order of recording */
	uint64_t time_ns; /* virtual time, or from a capture the time since its first frame */
	uint64_t frame;   /* capture frame number, 0 if none */
	uint32_t stack_id;
	report_event_kind kind;
	uint32_t code;              /* reason: DELETE LINK reason, AETH syndrome, ... */
	char cause[96];             /* what happened, in words */
	char intf[REPORT_INTF_LEN]; /* local RNIC interface */
	uint32_t lgr_id;
	uint8_t link_num;
	uint32_t local_link_id, remote_link_id;
	uint8_t local_mac[6], remote_mac[6];
	uint8_t local_gid[16], remote_gid[16];
	uint32_t local_qpn, remote_qpn;
	uint16_t vlan;
	uint8_t port; /* the local RNIC port (1-based), 0 unknown */
} report_event;

typedef struct smcr_report {
	bool from_capture; /* read from a capture (replay): the printers add what the
	                               * wire carried and mark what replay had to make up */
	report_stack *stacks;
	size_t n_stacks, cap_stacks;
	report_rnic *rnics;
	size_t n_rnics, cap_rnics;
	report_lgr *lgrs;
	size_t n_lgrs, cap_lgrs;
	report_link *links;
	size_t n_links, cap_links;
	report_conn *conns;
	size_t n_conns, cap_conns;
	report_event *events;
	size_t n_events, cap_events;
} smcr_report;

void report_init(smcr_report *r);
void report_free(smcr_report *r);

/* Append a zeroed row and return it (valid until the next append of the same kind).
 * Ids, references and unknown markers are the caller's to set; report_add_stack sets
 * id = count, report_add_rnic sets id = count and pfid = REPORT_UNKNOWN, lgr/link/conn/
 * event set vlan = REPORT_NO_VLAN and lgr_id / rnic_id = REPORT_UNKNOWN where they have them,
 * report_add_event sets seq = count. */
report_stack *report_add_stack(smcr_report *r);
report_rnic *report_add_rnic(smcr_report *r);
report_lgr *report_add_lgr(smcr_report *r);
report_link *report_add_link(smcr_report *r);
report_conn *report_add_conn(smcr_report *r);
report_event *report_add_event(smcr_report *r);

/* Sort every table into its stable print order: stacks by id; RNICs by (stack, id); link
 * groups by (stack, id); links by (stack, group, link number, local link id); connections
 * by (stack, id); events by (time, frame, seq). */
void report_sort(smcr_report *r);

const report_stack *report_stack_by_id(const smcr_report *r, uint32_t id);
const report_rnic *report_rnic_by_id(const smcr_report *r, uint32_t id);
const report_lgr *report_lgr_by_id(const smcr_report *r, uint32_t stack_id, uint32_t lgr_id);

/* Count one fallback (reason code) on the client or server side. */
void report_stats_add_fallback(report_stats *s, uint32_t code, bool server);
/* smc-tools buffer bucket (0..7) of a buffer size in bytes. */
unsigned report_buf_bucket(uint64_t bytes);

/* Names and text forms shared by the printers. Buffers: gid >= 46, mac >= 18. */
const char *report_os_name(report_os os);
const char *report_role_name(report_role role);            /* "Client", "Server", "Unknown" */
const char *report_role_short(report_role role);           /* "CLNT", "SERV", "?" */
const char *report_rnic_status_name(report_rnic_status s); /* "Ready", ... */
const char *report_lgr_type_name(report_lgr_type t);       /* smc-tools: NONE SINGLE SYM ASYMP ASYML */
const char *report_lgr_redundancy(report_lgr_type t);      /* z/OS-style redundancy words */
const char *report_link_state_name(report_link_state s);   /* "LINK_ACTIVE", ... */
const char *report_link_state_word(report_link_state s);   /* "Active", ... */
const char *report_conn_state_name(report_conn_state s);   /* smcss names */
const char *report_conn_mode_name(report_conn_mode m);     /* "SMCR", "TCP", "SMCD" */
const char *report_event_kind_name(report_event_kind k);
void report_gid_str(const uint8_t gid[16], char *out, size_t outlen); /* IPv6 text, "::" if zero */
void report_vmac_str(const uint8_t mac[6], char *out, size_t outlen); /* 020000000001 */
void report_ip_str(uint8_t family, const uint8_t ip[16], char *out, size_t outlen);
void report_vlan_str(uint16_t vlan, char *out, size_t outlen); /* "None" or number */

#endif
