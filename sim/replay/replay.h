/* Replay, mode 1 (decode): read a capture of SMC-R traffic and reconstruct the SMC-R
 * picture as an smcr_report (sim/report/report.h): the hosts as stacks, their RNICs, link groups
 * from both sides, links with their QP pairs, GIDs, MACs and 4-byte link ids, the
 * connections with tokens, cursors and data volumes, fallbacks with their reasons, and
 * link failures.
 *
 * What is read: TCP with the SMC option in SYN / SYN-ACK and the CLC handshake reassembled
 * from the TCP stream (split, coalesced, retransmitted and out-of-order segments); RoCE v1
 * (ethertype 0x8915 with GRH) and v2 (UDP 4791), with or without 802.1Q tags; BTH/RETH/AETH;
 * LLC messages (v2 lengths in either byte order, as Linux x86 writes them little-endian),
 * CDC messages, RDMA WRITEs attributed to connections by rkey and RMB address range,
 * NAKs and retransmissions. Every frame is either explained or listed with a reason, and
 * every message that does not decode is reported with its frame number.
 *
 * Modes 2 (timing replay into a simulated fabric, sim/redrive/replay_timing.h) and 3 (re-drive one
 * side against our core, sim/redrive/redrive.h) read captures with the same reader and decoder. */
#ifndef SIM_REPLAY_H
#define SIM_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/report/json_writer.h"
#include "sim/report/report.h"

#define REPLAY_TEXT_LEN 320

/* One SMC-R message as the decoder reads it, in capture order: a CLC message complete on
 * its TCP stream, an LLC or CDC message (a whole SEND), or one packet of an RDMA WRITE.
 * Retransmitted RoCE packets are not messages. For --messages and the replay modes. */
typedef enum replay_msg_kind {
	REPLAY_MSG_CLC = 1,
	REPLAY_MSG_LLC,
	REPLAY_MSG_CDC,
	REPLAY_MSG_WRITE,
} replay_msg_kind;

typedef struct replay_msg {
	replay_msg_kind kind;
	uint64_t frame;    /* where it is (a multi-packet SEND: its first packet) */
	uint64_t time_ns;  /* that frame's time since the capture's first frame */
	int from;          /* 0: the client side (TCP active opener), 1: the server side */
	uint32_t conn;     /* the decoder's connection (1-based): CLC, and CDC/WRITE once known */
	uint32_t link;     /* the decoder's link (1-based): LLC, CDC, WRITE */
	uint8_t link_num;  /* that link's number in its link group, 0 until a message names it */
	uint32_t lgr;      /* the decoder's link group (1-based), 0 unknown */
	uint8_t family;    /* the connection's addresses (CLC; LLC/CDC/WRITE when known) */
	uint8_t ip[2][16]; /* [side]: client, server */
	uint16_t port[2];
	const uint8_t *data; /* message bytes (WRITE: this packet's payload as captured) */
	uint32_t len;        /* bytes at data */
	uint32_t wire_len;   /* WRITE: payload bytes on the wire */
	uint64_t va;         /* WRITE: remote address of this packet's first byte */
	uint32_t rkey;       /* WRITE: the request's rkey */
	bool write_first;    /* WRITE: the first packet of a request */
} replay_msg;

typedef void (*replay_msg_fn)(void *ctx, const replay_msg *m);

typedef struct replay_opts {
	uint32_t max_listed;  /* frames / errors kept in each list (all are counted); 0 = all */
	uint64_t stall_ns;    /* requests unacknowledged this long before the capture ends count
	                       * as a stopped link; 0 = default 1 s */
	replay_msg_fn on_msg; /* every message as it is read, or NULL */
	void *on_msg_ctx;
	uint64_t copy_window_ns; /* the same packet again at another capture point within this
	                          * time is a copy, not a resend (sim/replay/replay_copies.h);
	                          * 0 = 5 ms */
	uint64_t max_gap_ns;     /* a longer jump between two frames' time stamps is damage,
	                          * reported and closed (sim/replay/replay_clock.h); 0 = 1 h */
} replay_opts;

/* One listed frame or problem. */
typedef struct replay_note {
	uint64_t frame; /* 1-based frame number, 0 when it concerns the file */
	char text[REPLAY_TEXT_LEN];
} replay_note;

/* Frames not explained, grouped by reason (the reason text without frame details). */
typedef struct replay_reason_count {
	char reason[64];
	uint64_t count;
	uint64_t first_frame;
} replay_reason_count;

typedef struct replay_list {
	replay_note *items;
	size_t n, cap;
	uint64_t total; /* all of them, listed or not */
} replay_list;

typedef struct replay_result {
	smcr_report report; /* sorted */
	int linktype;
	uint64_t frames, bytes;
	uint64_t first_ns, last_ns;
	uint64_t explained;
	uint64_t cut_frames;                                /* frames shorter in the capture than on the wire */
	uint64_t frames_captured_twice;                     /* copies of a frame at another capture point: counted,
	                                 * not decoded again (sim/replay/replay_copies.h) */
	uint64_t tcp_retransmissions, roce_retransmissions; /* resent by their sender */
	uint64_t capture_gaps;                              /* RoCE packets missing from the capture (PSN gaps) */
	uint64_t clc_messages, llc_messages, cdc_messages, rdma_writes;
	replay_list unexplained;      /* frames not explained */
	replay_reason_count *reasons; /* unexplained frames grouped by reason, sorted by reason */
	size_t n_reasons;
	replay_list errors; /* decode errors and damaged input, with frame numbers */
	replay_list notes;  /* things worth knowing that are not errors */
	bool file_damaged;  /* the file ended in the middle of a record, or similar */
	uint64_t time_gaps; /* time stamp jumps closed (each also in errors, with its frames) */
	replay_msg *kept;   /* every CLC and LLC message, in capture order (own copies
	                                 * of the bytes), for the JSON "clc" and "llc" lists */
	size_t n_kept, cap_kept;
} replay_result;

typedef struct replay_decoder replay_decoder;

replay_decoder *replay_decoder_new(const replay_opts *opts);
void replay_decoder_free(replay_decoder *d);
/* The capture interface of the frames fed from now on (pcapng interface, cooked
 * interface index; 0 when the file has none): tells copies from resends. */
void replay_decoder_interface(replay_decoder *d, uint32_t iface);
/* Feed frame after frame (Ethernet), numbered from 1 in feeding order. */
void replay_decoder_frame(replay_decoder *d, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t len);
/* Count a frame the reader could not turn into Ethernet (a cut or foreign cooked
 * pseudo-header) as not explained, with its reason; malformed: cut or inconsistent. */
void replay_decoder_unreadable_frame(replay_decoder *d, uint64_t ts_ns, uint32_t caplen, uint32_t len,
                                     bool malformed, const char *why);
/* A time stamp jump the reader closed (sim/replay/replay_clock.h): an error with its frame. */
void replay_decoder_time_gap(replay_decoder *d, uint64_t frame, const char *text);
/* Record a problem with the capture file itself (as the reader meets it). */
void replay_decoder_file_error(replay_decoder *d, uint64_t frame, const char *text);
/* Finish: close open flows, detect stopped links, build the report. The decoder can be
 * freed afterwards; the result owns its memory. */
void replay_decoder_finish(replay_decoder *d, replay_result *res);

/* Read a pcap or pcapng file with libpcap and decode it: Ethernet, or Linux cooked
 * (tcpdump -i any: LINUX_SLL, LINUX_SLL2; sim/replay/replay_cooked.h) link types. Returns 0
 * when a result was produced (possibly with errors listed in it: a truncated file is
 * decoded up to the damage), -1 when the file cannot be used at all (cannot open, not a
 * capture, wrong link type); then err holds the message. */
int replay_decode_file(const char *path, const replay_opts *opts, replay_result *res, char *err, size_t errlen);

void replay_result_free(replay_result *res);

/* One line per message: "FRAME TIME FROM->TO KIND detail", for CLC and LLC followed by
 * ": " and every field (sim/replay/replay_fields.h) (for --messages). */
void replay_print_msg(FILE *out, const replay_msg *m);
/* The same as a JSON object: frame, time, addresses, the decoder's connection / link / link
 * group numbers, and every field (for --messages --format json). */
void replay_write_msg_json(json_writer *w, const replay_msg *m);

/* The capture summary: counts, frames not explained (by reason, then listed), decode
 * errors and notes. */
void replay_print_summary(FILE *out, const replay_result *res);
/* The same as a "capture" member of the current JSON object. */
void replay_write_json(json_writer *w, const replay_result *res);

#endif
