/* Re-drive internals shared by sim/redrive*.c (not a public interface):
 *   redrive.c          the recorded conversation (a decode pass), the run, the results
 *   redrive_world.c    the world: a scenario with R's stack taken over, or one made from
 *                      the capture
 *   redrive_feed.c     the feeder: R's messages over R's TCP/IP stack and its own QPs
 *   redrive_app.c      the recorded application of our side in a world made from the capture
 *   redrive_compare.c  value maps and the field/byte comparison of our messages */
#ifndef SIM_REDRIVE_INT_H
#define SIM_REDRIVE_INT_H

#include <glib.h>

#include "model/cdc.h"
#include "model/clc.h"
#include "model/llc.h"
#include "model/smcr_transport.h"
#include "sim/app/app_recorded.h"
#include "sim/redrive/redrive.h"
#include "sim/replay/replay.h"
#include "sim/rdma/rnic.h"
#include "sim/net/sock.h"
#include "sim/net/stack.h"
#include "sim/world/world.h"

/* One recorded message of the conversation (WRITE: one request, its packets joined). */
typedef struct rd_msg {
	replay_msg_kind kind;
	uint64_t frame, time_ns;
	uint32_t sender;          /* IPv4 address of the sending host */
	bool from_r;              /* sent by the fed side */
	uint32_t conn, link, lgr; /* the decoder's (1-based, 0 unknown) */
	uint16_t server_port;     /* the TCP connection's server port, 0 unknown */
	uint8_t *data;
	uint32_t len;      /* bytes captured */
	uint32_t wire_len; /* WRITE: bytes on the wire */
	uint64_t va;
	uint32_t rkey;
	bool second_link; /* on a link that is not its group's first */
	bool done;        /* R: sent or given up; O: paired with one of ours */
	uint64_t seen_at; /* O: virtual time our message paired with it arrived */
	uint64_t fed_at;  /* R: virtual time it was sent (or given up), 0 not yet */
} rd_msg;

/* Value kinds that are mapped, not compared. */
typedef enum rd_kind {
	RD_QPN,
	RD_PSN,
	RD_RKEY,
	RD_VADDR,
	RD_TOKEN,
	RD_LINK_UID,
	RD_LINK_NUM,
	RD_PEER_ID,
	RD_GID,
	RD_MAC,
	RD_N_KINDS,
} rd_kind;

typedef struct rd_pair {
	uint8_t a[16], b[16]; /* a: live (ours or the feeder's), b: recorded */
} rd_pair;

/* A bijection per kind, learned on first sight. */
typedef struct rd_map {
	rd_pair *p[RD_N_KINDS];
	size_t n[RD_N_KINDS], cap[RD_N_KINDS];
} rd_map;

/* An RMB known under a recorded and a live (rkey, address). */
typedef struct rd_rmb {
	uint32_t rec_rkey, live_rkey;
	uint64_t rec_va, live_va;
	uint32_t size;
} rd_rmb;

typedef struct rd_feed rd_feed;

typedef struct redrive {
	redrive_opts o;
	redrive_result *res;
	/* the recording */
	rd_msg *msgs;
	size_t n_msgs, cap_msgs;
	uint32_t client_ip, server_ip, r_ip, o_ip; /* the world's addresses (host order) */
	/* the recording's: the two ends of the first SMC connection (client, server). An IPv6
	 * conversation, or one between two ends of one address (loopback), is re-driven with
	 * the world addresses 10.0.0.1 (client) and 10.0.0.2 (server) in their place, and the
	 * sender of a message is told by its role, not its address */
	bool have_conversation;
	uint8_t rec_family, rec_ip[2][16];
	bool addr_mapped;
	uint64_t t0;        /* time of the conversation's first message */
	size_t *open_write; /* per (link, side): index + 1 of a WRITE still collecting */
	size_t n_open_write;
	size_t *first_link; /* per lgr (decoder index): its first link */
	size_t n_first_link;
	replay_result decoded;
	/* value maps: O (ours <-> recorded O), R (the feeder's <-> recorded R) */
	rd_map map_o, map_r;
	rd_rmb *rmb_o, *rmb_r; /* RMBs of each side */
	size_t n_rmb_o, cap_rmb_o, n_rmb_r, cap_rmb_r;
	/* the run */
	world *w;
	scn_scenario *scn;
	rd_feed *feed;
	app_recorded *app; /* our side's application in a world made from the capture */
	FILE *devnull;
	char scenario_text[4096];
} redrive;

/* redrive.c */
void rd_diff(redrive *rd, uint64_t frame, const char *msg, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void rd_note(redrive *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* redrive_world.c: build rd->scn and rd->w; R's stack, adapter and port for the feeder */
int rd_world_build(redrive *rd, stack **r_stack, rnic **r_adapter, uint8_t *r_port, char *err, size_t errlen);

/* redrive_app.c: the recorded application of our side (for a world made from the capture),
 * started on our side's stack after the feeder exists. */
int rd_app_start(redrive *rd, stack *o_stack, smc_layer *o_layer, char *err, size_t errlen);

/* redrive.c: a recorded address is O's (the host our core plays) */
bool rd_is_o_addr(const redrive *rd, uint8_t family, const uint8_t ip[16], report_role role);

/* redrive_compare.c */
void rd_map_free(rd_map *m);
/* Pair live and recorded values of a kind: 0 when consistent (learned now or before),
 * -1 when either side is already paired otherwise (*other gets that partner). */
int rd_map_pair(rd_map *m, rd_kind k, const void *live, const void *rec, size_t len, void *other);
bool rd_map_live(const rd_map *m, rd_kind k, const void *rec, size_t len, void *live_out);
bool rd_map_rec(const rd_map *m, rd_kind k, const void *live, size_t len, void *rec_out);
void rd_rmb_add(redrive *rd, bool ours, uint32_t rec_rkey, uint64_t rec_va, uint32_t live_rkey, uint64_t live_va,
                uint32_t size);
const rd_rmb *rd_rmb_by_rec(const redrive *rd, bool ours, uint32_t rec_rkey);
const rd_rmb *rd_rmb_by_live(const redrive *rd, bool ours, uint32_t live_rkey);
/* Compare one message our side sent with the recorded one it pairs with; differences go
 * to rd_diff. Returns true when they agree. Learns O's values on the way. */
bool rd_compare(redrive *rd, const rd_msg *rec, const uint8_t *ours, uint32_t len);
/* A WRITE request of ours: its target (the feeder's RMB) and length against the recorded one. */
bool rd_compare_write(redrive *rd, const rd_msg *rec, uint32_t rkey, uint64_t va, uint32_t len);
const char *rd_msg_name(const rd_msg *m, char *buf, size_t n);

/* redrive_feed.c */
rd_feed *rd_feed_new(redrive *rd, stack *st, rnic *adapter, uint8_t port, char *err, size_t errlen);
/* Everything sent and nothing more to wait for. */
bool rd_feed_done(const rd_feed *f);
/* Every R message recorded before index `idx` has been sent or given up. */
bool rd_feed_passed(const rd_feed *f, size_t idx);
sim_time rd_feed_last_activity(const rd_feed *f);
void rd_feed_free(rd_feed *f);

#endif
