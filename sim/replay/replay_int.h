/* Replay decoder state shared by sim/replay_*.c (not a public interface).
 *
 * Objects live in growing arrays and refer to each other by 1-based index (0 = none), so
 * growth never leaves a dangling pointer. Each connection and link has two sides indexed
 * RP_CLIENT (the TCP active opener, link group role CLNT) and RP_SERVER. */
#ifndef SIM_REPLAY_INT_H
#define SIM_REPLAY_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/cdc.h"
#include "model/clc.h"
#include "model/llc.h"
#include "model/smcr_err.h"
#include "sim/replay/replay.h"
#include "sim/replay/replay_copies.h"
#include "sim/replay/replay_frame.h"
#include "sim/replay/replay_map.h"
#include "sim/report/report.h"

enum { RP_CLIENT = 0,
       RP_SERVER = 1 };
#define RP_OTHER(s) (1 - (s))

/* Out-of-order data kept per TCP direction while the CLC handshake is read. */
#define RP_TCP_OOO_MAX (256u * 1024u)

typedef struct rp_host {
	uint32_t alias; /* 0, or the host this one turned out to be (same system id) */
	bool has_sysid;
	uint8_t sysid[8];
	uint8_t family;
	uint8_t ip[16];             /* first TCP address seen */
	char name[REPORT_NAME_LEN]; /* host name from a v2 First Contact Extension */
	uint8_t os_type;            /* SMCR_CLC_OS_*, 0 unknown */
	bool server_side;           /* the server end of connections from this address to itself */
	bool same_system_noted;
} rp_host;

typedef struct rp_seg {
	uint32_t seq, len;
	uint64_t frame;
	uint8_t *data;
} rp_seg;

/* One direction of a TCP connection: reassembly and the CLC reader. */
typedef struct rp_stream {
	bool started;
	uint32_t next; /* next sequence number expected */
	rp_seg *ooo;   /* buffered future segments, sorted by seq */
	size_t n_ooo, cap_ooo;
	uint32_t ooo_bytes;
	bool parsing; /* still reading CLC messages from this direction */
	bool broken;  /* a CLC message did not decode: reading stopped */
	uint8_t msg[SMCR_CLC_MAX_LEN];
	uint32_t msg_len;
	uint64_t msg_frame; /* frame where the pending message began */
	uint64_t cut_frame; /* a snaplen-cut segment left a hole at next (0 none) */
	uint64_t app_bytes; /* stream bytes after the CLC phase */
	bool fin;
} rp_stream;

typedef struct rp_half {
	uint32_t host;
	uint8_t ip[16];
	uint16_t port;
	bool smc_option; /* put the SMC option into its SYN / SYN-ACK */
	bool smc_active; /* took part in SMC: the option, or a CLC message */
	bool clc_seen;   /* sent Accept or Confirm */
	uint8_t sysid[8];
	uint32_t token, rkey, rmbe_size;
	uint64_t rmb_vaddr;
	uint8_t gid[16], mac[6];
	uint32_t qpn, psn;
	uint8_t mtu_code;
	uint32_t fallback, peer_diag;
	bool cdc_seen;
	smcr_cdc_msg last_cdc; /* last CDC message this side sent */
	smcr_cursor prod_high; /* the furthest producer cursor it sent: bytes are counted past it */
	uint64_t cdc_count;
	uint64_t bytes_sent; /* producer cursor advances */
	uint64_t sends;      /* CDC messages that advanced the producer cursor */
	uint64_t rdma_bytes; /* RDMA WRITE payload sent */
	bool done_writing, closed, aborted;
	rp_stream tcp; /* the byte stream this side sent */
} rp_half;

typedef enum rp_mode {
	RP_MODE_PENDING = 0, /* SMC handshake not (yet) finished */
	RP_MODE_SMCR,
	RP_MODE_TCP, /* fallback */
} rp_mode;

typedef struct rp_conn {
	uint8_t family;
	rp_half h[2];
	rp_mode mode;
	bool syn_seen;
	uint32_t client_isn, server_isn;
	bool synack_seen;
	uint8_t version;
	bool first_contact;
	bool proposal, accept, confirm;
	int decliner; /* -1, RP_CLIENT or RP_SERVER */
	bool clc_error;
	bool not_smc; /* the client's SYN had no SMC option: plain TCP */
	bool reset;
	bool refused; /* the server answered the SYN with a RST: no connection, nothing to report */
	uint32_t refused_more;       /* later attempts from the same address to the same port, refused too */
	uint64_t refused_last_frame; /* the last of them */
	uint32_t lgr, link;
	uint16_t vlan;
	uint64_t first_frame;
	uint64_t proposal_frame, accept_frame, confirm_frame; /* CLC messages, 0 not seen */
	uint8_t n_prefixes;                                   /* the Proposal's IP prefixes */
	report_prefix prefixes[REPORT_MAX_PREFIXES];
} rp_conn;

typedef struct rp_ep {
	uint8_t gid[16], mac[6];
	uint32_t qpn, psn;
} rp_ep;

/* Requests one side of a link sends, and what came back. */
typedef struct rp_flow {
	uint64_t frames, bytes, ops;
	uint64_t retrans, gaps;
	uint64_t naks; /* NAK / RNR NAK this side sent as responder */
	bool psn_valid;
	uint32_t next_psn;
	bool unacked; /* a request with AckReq waits for its ACK */
	uint32_t unacked_psn;
	uint64_t unacked_ns, unacked_frame;
	uint64_t last_ns;
	/* a multi-packet RDMA WRITE or SEND in progress */
	uint32_t write_conn;
	uint64_t write_va;
	uint32_t write_rkey;
	uint64_t write_next_va; /* remote address of the next packet of that WRITE */
	uint8_t send_buf[SMCR_LLC_V2_MAX_LEN];
	uint32_t send_len;
	bool send_active;
	uint64_t send_frame; /* first packet of that SEND */
} rp_flow;

typedef struct rp_link {
	uint32_t lgr;
	uint8_t link_num; /* 0 until CONFIRM / ADD LINK names it */
	rp_ep ep[2];
	uint32_t uid[2]; /* 4-byte link ids each side sent in CONFIRM LINK */
	uint16_t vlan;
	uint8_t roce_version;
	uint32_t mtu;
	report_link_state state;
	uint64_t confirm_req_frame; /* the first CONFIRM LINK request, 0 none */
	bool confirmed;             /* CONFIRM LINK answered, or data flowed on it */
	bool unknown_rkey_noted;
	rp_flow flow[2];
	uint64_t created_frame;
	uint64_t deleted_frame; /* the DELETE LINK that removed it, 0 none */
	int deleted_by;         /* the side that sent it (RP_CLIENT or RP_SERVER) */
} rp_link;

typedef struct rp_rkey_alias {
	int side;                /* owner of the RMB */
	uint32_t rkey_a, rkey_b; /* the same RMB on two links */
	uint64_t vaddr_b;
} rp_rkey_alias;

typedef struct rp_lgr {
	uint32_t host[2];
	uint32_t seq; /* creation order, 1-based */
	uint16_t vlan;
	uint8_t version;
	uint8_t max_links, max_conns;
	bool seen_first_contact; /* created by a first-contact handshake in the capture */
	bool ended;
	bool add_pending;   /* the server offered a link (ADD LINK request) */
	uint64_t add_frame; /* where */
	rp_ep add_ep;
	uint8_t add_link_num;
	uint8_t add_mtu;
	rp_rkey_alias *aliases;
	size_t n_aliases, cap_aliases;
} rp_lgr;

/* A failure or removal, before it becomes report events for the stacks. */
typedef struct rp_event {
	uint64_t time_ns, frame;
	uint32_t link;
	report_event_kind kind;
	uint32_t code;
	char cause[96];
} rp_event;

struct replay_decoder {
	replay_opts opts;
	uint64_t frame; /* number of the frame being decoded */
	uint64_t now;   /* its time stamp */
	uint32_t frame_len;
	replay_result res; /* counters and lists filled while decoding */
	rp_host *hosts;
	size_t n_hosts, cap_hosts;
	rp_conn *conns;
	size_t n_conns, cap_conns;
	rp_link *links;
	size_t n_links, cap_links;
	rp_lgr *lgrs;
	size_t n_lgrs, cap_lgrs;
	rp_event *events;
	size_t n_events, cap_events;
	rp_map tcp_map;   /* normalized 4-tuple -> conn */
	rp_map refused_map; /* (client IP, server IP, server port) -> first refused conn */
	rp_map ip_host;   /* IP -> host */
	rp_map ep_map;    /* (GID, QPN) -> link << 1 | side */
	rp_map token_map; /* (lgr, side, token) -> conn */
	rp_map rkey_map;  /* (lgr, side, rkey) -> conn */
	rp_map reasons;   /* unexplained reason text -> index in res.reasons + 1 */
	size_t cap_reasons;
	uint32_t iface;    /* capture interface of the current frame */
	rp_copies *copies; /* recent packets, to tell copies from resends */
};

/* replay_decoder.c */
void *rp_grow(void *rows, size_t *n, size_t *cap, size_t size);
void rp_unexplained(replay_decoder *d, const char *reason, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void rp_error(replay_decoder *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rp_note(replay_decoder *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
uint32_t rp_host_for_ip(replay_decoder *d, uint8_t family, const uint8_t ip[16], uint8_t side_tag);
uint32_t rp_host_root(const replay_decoder *d, uint32_t h);
void rp_host_set_sysid(replay_decoder *d, uint32_t h, const uint8_t sysid[8]);
void rp_event_add(replay_decoder *d, uint32_t link, report_event_kind kind, uint32_t code, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));
/* Tell the observer (opts.on_msg) about a message; m's kind, data, len and the WRITE fields
 * are the caller's, the rest is filled from (conn, link, from). */
void rp_emit(replay_decoder *d, replay_msg *m, uint32_t conn, uint32_t link, int from);

/* replay_tcp.c */
void rp_tcp_segment(replay_decoder *d, const rp_frame *f);
void rp_tcp_finish(replay_decoder *d);

/* replay_clc.c: a CLC message arrived complete from side `from` of conn c */
void rp_clc_message(replay_decoder *d, uint32_t conn, int from, const uint8_t *msg, uint32_t len);
uint32_t rp_mtu_bytes(uint8_t code);
void rp_link_register(replay_decoder *d, uint32_t link);
void rp_rkey_alias_add(replay_decoder *d, uint32_t lgr, int side, uint32_t rkey_a, uint32_t rkey_b, uint64_t vaddr_b);

/* replay_roce.c */
void rp_add_link_reject_text(const smcr_llc_msg *m, char *out, size_t n);
void rp_roce_frame(replay_decoder *d, const rp_frame *f);
void rp_roce_finish(replay_decoder *d);

/* replay_steps.c: notes for the steps the capture lacks */
void rp_missing_steps(replay_decoder *d);

/* replay_report.c */
void rp_build_report(replay_decoder *d, smcr_report *r);

#define RP_CONN(d, i) (&(d)->conns[(i)-1])
#define RP_LINK(d, i) (&(d)->links[(i)-1])
#define RP_LGR(d, i) (&(d)->lgrs[(i)-1])
#define RP_HOST(d, i) (&(d)->hosts[(i)-1])

#endif
