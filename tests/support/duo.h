/* Two SMC-R cores against each other for tests: an event engine, the in-memory loopback
 * transport (sim/rdma/loopback_transport.h), two hosts (each one smcr_ctx with its RoCE
 * ports) and fake TCP connections that carry CLC bytes between them (split into chunks of
 * a configurable size, coalesced when they pile up). Applications on the connections can stream a deterministic byte pattern and
 * verify it on the other side. Every callback is recorded for the tests to inspect. */
#ifndef DUO_H
#define DUO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/smcr.h"
#include "sim/engine/engine.h"
#include "sim/rdma/loopback_transport.h"

#define DUO_MAX_PORTS 4
#define DUO_MAX_CONNS 64
#define DUO_MAX_EVENTS 512

typedef struct duo duo;
typedef struct duo_host duo_host;

typedef struct duo_conn {
	duo *d;
	duo_host *host;
	int index;
	smcr_conn *c;
	struct duo_conn *peer;
	bool is_client;
	/* what the core reported */
	bool established, fallback, aborted, freed, peer_closed;
	int abort_err;
	uint32_t fb_reason, fb_peer_diag;
	int readable_calls, writable_calls;
	/* TCP side */
	bool tcp_shutdown, tcp_shutdown_wr, tcp_closed, tcp_aborted;
	uint8_t *app_rx; /* bytes handed back at fallback + TCP data after it */
	size_t app_rx_len;
	uint8_t *clc_pending; /* bytes on the way to the peer */
	size_t clc_pending_len;
	bool clc_in_flight;
	uint32_t clc_chunk; /* deliver at most this many bytes per TCP segment (0: all) */
	uint64_t clc_sent_bytes;
	uint8_t last_clc[256]; /* the last CLC message this side sent */
	size_t last_clc_len;
	bool drop_clc; /* swallow what this side sends */
	/* streaming application */
	uint64_t tx_total, tx_done;
	uint64_t rx_total, rx_done;
	bool rx_bad;
	uint64_t rx_bad_at;
	uint32_t tx_chunk;       /* write at most this much per send call (0: as much as fits) */
	bool in_place;           /* write with smcr_conn_send_fill, read with smcr_conn_recv_visit */
	uint64_t in_place_spans; /* spans those handed out (two where the ring wrapped) */
	uint64_t in_place_bad;   /* calls whose spans did not add up to the bytes returned */
	bool auto_read;          /* read on readable */
	bool close_when_done;    /* close after tx_total is written and all is read */
	uint64_t pattern_seed;
	bool closed_by_app;
} duo_conn;

typedef struct duo_event_rec {
	int host;
	smcr_event_type type;
	uint64_t lgr_id, conn_id, link_id;
	smcr_linkdown_reason linkdown;
	uint32_t reason;
	smcr_lgr_type lgr_type;
	smcr_lgr_end lgr_end;
	smcr_conn_state conn_state;
	uint64_t at;
} duo_event_rec;

/* A call the core made to the buffer hooks of its allocator (duo_opts.buf_hooks). */
typedef enum duo_buf_call_kind { DUO_BUF_ALLOC,
	                         DUO_BUF_FREE,
	                         DUO_BUF_RESET,
	                         DUO_BUF_IDLE,
	                         DUO_BUF_BUSY } duo_buf_call_kind;

typedef struct duo_buf_call {
	duo_buf_call_kind kind;
	void *ptr;
	size_t size;
	uint64_t peer_bytes;
} duo_buf_call;

#define DUO_MAX_BUF_CALLS 4096

struct duo_host {
	duo *d;
	int idx;
	smcr_ctx *ctx;
	sim_rng rng;
	sim_event timer;
	smcr_tp_dev *dev[DUO_MAX_PORTS];
	int port_idx[DUO_MAX_PORTS];
	int n_ports;
	smcr_settings set;
	smcr_mem mem;
	/* allocation failure injection: fail the n-th allocation from now (0 off) */
	uint64_t alloc_count, fail_at, fail_every;
	uint64_t allocs_failed;
	/* buffer hooks (duo_opts.buf_hooks): every call, in order (the first DUO_MAX_BUF_CALLS) */
	duo_buf_call buf_calls[DUO_MAX_BUF_CALLS];
	size_t n_buf_calls;
	/* smcr_mem buf_write (duo_opts.buf_write): the ranges, in order, and their bytes */
	void *write_ptr[DUO_MAX_BUF_CALLS];
	size_t write_size[DUO_MAX_BUF_CALLS];
	size_t n_writes;
	uint64_t write_bytes;
};

typedef struct duo_opts {
	uint64_t seed;
	int ports[2];         /* RoCE ports per host (devices: one port each), default 1 */
	bool same_pnet;       /* all ports share one PNET id (default true) */
	smcr_settings set[2]; /* settings per host; zero rmb_size = defaults */
	bool v2_gids;         /* also give each port an IPv4-mapped RoCE v2 GID */
	int vlan;             /* VLAN of the TCP path, default 0 */
	bool buf_hooks[2];    /* give the host's core the buffer hooks of smcr_mem (page-aligned
	                          * buffers, every call recorded in buf_calls) */
	bool buf_write[2];    /* with buf_hooks: also smcr_mem buf_write, recorded in write_* */
} duo_opts;

struct duo {
	sim_engine *eng;
	loopback *lb;
	duo_host h[2];
	duo_conn conns[DUO_MAX_CONNS];
	int n_conns;
	duo_event_rec ev[DUO_MAX_EVENTS];
	int n_ev;
	uint64_t tcp_latency;
	uint32_t kind_tcp, kind_timer;
	duo_opts opts;
};

void duo_opts_default(duo_opts *o);
duo *duo_new(const duo_opts *o);
void duo_free(duo *d);

/* Default TCP info of host `h` towards the other host. */
void duo_tcp_info(duo *d, int h, smcr_tcp_info *out);

/* A TCP connection from host `client` to the other: both ends start SMC at once. */
duo_conn *duo_connect(duo *d, int client);
duo_conn *duo_connect_tcp(duo *d, int client, const smcr_tcp_info *ci, const smcr_tcp_info *si);

/* Run the engine until `until` (absolute ns) or until nothing is left. */
void duo_run(duo *d, uint64_t until);
/* Run until pred(arg) holds or `limit` ns passed; returns pred's last value. */
bool duo_run_until(duo *d, bool (*pred)(void *arg), void *arg, uint64_t limit);
/* Call after driving a core directly from a test: re-arm both hosts' timers. */
void duo_sync(duo *d);
uint64_t duo_now(duo *d);

/* Streaming: `from` sends `bytes` of the pattern, the peer reads and verifies. */
void duo_stream(duo_conn *from, uint64_t bytes);
bool duo_stream_done(duo_conn *from);
void duo_pump(duo_conn *c); /* write what fits now */
void duo_read_all(duo_conn *c);

/* Events. */
int duo_count(const duo *d, int host, smcr_event_type type);
const duo_event_rec *duo_find(const duo *d, int host, smcr_event_type type, int nth);

/* Introspection helpers. */
int duo_lgr_count(duo *d, int host);
int duo_link_count(duo *d, int host, smcr_link_state state);
bool duo_first_link(duo *d, int host, smcr_link_info *out);
bool duo_link_nth(duo *d, int host, int nth, smcr_link_info *out);

uint8_t duo_pattern_byte(uint64_t seed, uint64_t i);

#endif
