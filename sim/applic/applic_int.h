/* The applicability command's parts (private to sim/applic): the connection tracker the
 * reader feeds (applic_track.c), the figures per destination (applic_smcat.c), the
 * recorded applications and their re-run (applic_script.c, applic_rerun.c). */
#ifndef SIM_APPLIC_INT_H
#define SIM_APPLIC_INT_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/applic/applic.h"
#include "sim/applic/applic_packet.h"

/* One message of a recorded conversation: a run of bytes one way (a write), as the
 * capture saw it. */
typedef struct ac_msg {
	uint8_t dir; /* 0 client to server, 1 back */
	uint64_t bytes;
	uint64_t t0, t1; /* its first and last new byte */
} ac_msg;

/* A connection kept for the re-run: its messages, its handshake and closes. */
typedef struct ac_script {
	uint32_t conn_id;
	uint64_t frame;
	uint8_t family, ip[2][16]; /* client, server */
	uint16_t port[2];
	uint64_t t_open;           /* the client's SYN (or the first packet) */
	uint64_t rtt_c, rtt_s;     /* capture point to server and back; to client and back */
	ac_msg *msgs;
	size_t n_msgs, cap_msgs;
	bool truncated;
	int8_t closer;   /* the side whose FIN or RST came first, -1 none */
	bool reset;      /* the first close was a RST */
	bool closed[2];
	uint64_t bytes;
} ac_script;

/* One tracked connection. */
typedef struct ac_conn {
	uint32_t id;        /* 1-based, capture order */
	uint64_t frame;     /* its first frame */
	uint8_t family;
	uint8_t ip[2][16];  /* [0] the client (active opener), [1] the server */
	uint16_t port[2];
	uint16_t vlan;
	bool syn_seen;      /* the client's SYN: the roles are known */
	bool any_data;
	bool seen[2];
	bool fin[2], rst;
	bool folded;        /* closed: its script is complete (figures fold when the slot goes) */
	bool eligible;
	applic_inelig why;
	uint64_t t_first, t_last, t_syn, t_synack, t_ack;
	uint32_t base[2];   /* sequence number of byte 0 each way */
	bool base_set[2];
	uint64_t hi[2];     /* bytes each way (new data only) */
	uint64_t segs[2];
	uint64_t send_now[2]; /* the send (PSH-delimited) being read each way */
	uint32_t sizes[2][APPLIC_SIZES];
	int8_t run_dir;     /* the message being read: -1 none */
	uint64_t run_bytes, run_t0, run_t1;
	int32_t script;     /* index in the tracker's scripts, -1 none */
	uint32_t lru_prev, lru_next; /* slot + 1, 0 none */
} ac_conn;

typedef struct ac_key {
	uint8_t family;
	uint8_t a[16], b[16]; /* the two ends, (a, pa) < (b, pb) */
	uint16_t pa, pb;
} ac_key;

typedef struct ac_tracker {
	applic_opts o;
	const applic_setup *setup;
	applic_result *res;
	ac_conn *slots; /* max_open of them */
	ac_key *keys;
	uint32_t n_used, free_head; /* free slots chained through lru_next */
	uint32_t high;              /* slots ever taken (the rest never touched) */
	uint32_t lru_old, lru_new;  /* slot + 1 */
	GHashTable *index;          /* ac_key* -> slot + 1 */
	uint32_t next_id;
	GHashTable *dest_index;     /* (family, ip) -> dests index + 1 */
	applic_dest *dests;
	size_t n_dests, cap_dests;
	bool has_other;
	applic_dest other;
	ac_script *scripts;
	size_t n_scripts, cap_scripts;
	uint64_t script_bytes;
	uint64_t last_ns;
	uint64_t frame;
} ac_tracker;

void ac_tracker_init(ac_tracker *t, const applic_opts *o, applic_result *res);
/* One TCP segment at (gap-closed) time ts of frame `frame`. */
void ac_tracker_packet(ac_tracker *t, const ap_packet *p, uint64_t ts, uint64_t frame);
/* Fold what is still open (the end of the capture), hand the destinations and the
 * scripts over to the result / to the caller, free the rest. */
void ac_tracker_finish(ac_tracker *t);
void ac_tracker_free(ac_tracker *t);

/* A note with a frame number, at most APPLIC_MAX_NOTES kept, all counted. */
void ac_note(applic_result *res, uint64_t frame, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The figures: one ended connection into its destination and the total (applic_smcat.c). */
void ac_fold(ac_tracker *t, const ac_conn *c);
/* Sort the destinations, other last, into the result. */
void ac_dests_finish(ac_tracker *t);

/* The re-run of the scripts (applic_rerun.c); fills res->rerun, tcp, smcr. */
void ac_rerun(ac_tracker *t);

#endif
