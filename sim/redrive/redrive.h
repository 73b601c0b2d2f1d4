/* Replay, mode 3 (re-drive, conformance): feed one side of a recorded SMC-R conversation
 * to a simulated stack whose protocol core plays the other side, and report, message by
 * message, where our messages differ from the recorded ones.
 *
 * The conversation: the first SMC-R TCP connection of the capture names two hosts; every
 * CLC, LLC, CDC message and RDMA WRITE between them belongs to it. One host is the
 * recorded side R that is fed in (--side client|server|IP), the other, O, is played by
 * our core.
 *
 * The world: with a scenario (--scenario S.scn), its stacks, adapters and applications,
 * where the stack that has R's address is taken over by the feeder (its applications do
 * not run, its SMC-R core is not created); without, a world made from the capture: one
 * switch, a Linux stack for O with R's counterpart settings read from the recording
 * (addresses, SMC version, release and EIDs, host name, OS type, RoCE version, MTU, RMB
 * size), a router when the recorded prefix puts the two in different subnets, a stack for R,
 * and O's recorded application (sim/redrive/redrive_app.c): the ports O served, the connections O
 * opened, and per connection the reads, writes and closes O's CDC messages and RDMA WRITEs
 * show, each at its recorded place among R's messages.
 *
 * The feeder (sim/redrive/redrive_feed.c) plays R over the simulated fabric with R's TCP/IP stack
 * and its own RC QPs on R's adapter: CLC messages are written to the TCP connection, LLC
 * and CDC messages posted as SENDs, RDMA WRITEs posted with the recorded data. A recorded
 * R message is sent once every O message recorded before it (CLC, LLC, CDC) has come from
 * our side, or --wait has passed without it, and not before its recorded distance from
 * the previous R message. Values that name R's own resources are replaced by the
 * feeder's (QPN, GID, MAC, rkeys, RMB addresses); values that name O's are replaced by our
 * side's as learned (alert tokens, rkeys, RMB addresses, QPNs); R's PSNs, tokens, link ids
 * and system id are kept.
 *
 * The comparison (sim/redrive/redrive_compare.c): each message our side sends is paired with the
 * next recorded O message of its stream (CLC: the TCP connection; LLC: the link; CDC and
 * WRITE: the SMC-R connection) and compared field by field, then byte by byte. Fields
 * that carry identities or random values are mapped, not compared: the first sight pairs
 * our value with the recorded one (QPNs, PSNs, rkeys, RMB addresses, alert tokens, link
 * ids, link numbers, system ids, GIDs, MACs) and later sights must keep that pairing; a
 * value that names R's resources is read back as the recorded value. Recorded O messages
 * our side never sent are "missing", ours that have no recorded partner are "extra".
 *
 * Addresses: the simulated stacks speak IPv4. A conversation over IPv6, or between the two
 * ends of one address (a loopback capture), is re-driven in a world whose stacks have
 * 10.0.0.1 (the recorded client) and 10.0.0.2 (the server); the fed side's IP prefix area
 * in its Proposal is the world's, and the Proposal's IP area of ours is mapped, not
 * compared, like the other addresses.
 *
 * Limits: one link per link group is fed (messages of second links are listed as not fed
 * and not compared); RDMA WRITEs are compared by length and target, not content. */
#ifndef SIM_REDRIVE_H
#define SIM_REDRIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/world/world.h"

typedef enum redrive_side {
	REDRIVE_SIDE_CLIENT = 0, /* the recorded client is fed in; our core is the server */
	REDRIVE_SIDE_SERVER = 1,
	REDRIVE_SIDE_IP = 2, /* the host with side_ip */
} redrive_side;

typedef struct redrive_opts {
	const char *scenario; /* NULL: a world made from the capture */
	redrive_side side;
	uint32_t side_ip; /* host order, with REDRIVE_SIDE_IP */
	uint64_t wait_ns; /* 0: 1 s */
	uint64_t end_ns;  /* 0: the recording's span + 10 s */
	uint64_t max_gap_ns; /* a longer time stamp jump is closed and reported (0: 1 h) */
	uint64_t seed;
	bool has_seed;
	world_opts world; /* capture options, verbose, out (the world's own output) */
} redrive_opts;

/* One difference. */
typedef struct redrive_diff {
	uint64_t frame;   /* the recorded message's frame, 0 for an extra message of ours */
	uint64_t time_ns; /* virtual time it was seen */
	char msg[48];     /* "CLC Accept", "LLC CONFIRM_LINK response", "CDC", "WRITE" */
	char text[256];   /* "field qpn: ours 0x..., recorded 0x... (mapped to ...)" */
} redrive_diff;

/* One message of ours paired with a recorded one. */
typedef struct redrive_pair {
	uint64_t frame; /* the recorded message's frame */
	char msg[48];
	bool equal;
} redrive_pair;

typedef struct redrive_result {
	uint32_t r_ip, o_ip;       /* fed side, our side (host order): the world's addresses */
	char r_rec[64], o_rec[64]; /* the recorded addresses, when they differ from those (an
	                          * IPv6 or a one-address conversation); else empty */
	bool r_is_client;
	uint64_t conversation_msgs; /* recorded messages between the two hosts */
	uint64_t fed, not_fed;      /* recorded R messages sent / not sent (second links, timeouts) */
	uint64_t recorded_o;        /* recorded O messages (to compare against) */
	uint64_t ours;              /* messages our side sent */
	uint64_t compared, equal, missing, extra;
	redrive_diff *diffs;
	size_t n_diffs, cap_diffs;
	redrive_pair *pairs; /* every comparison, in the order our messages came */
	size_t n_pairs, cap_pairs;
	char notes[8][200]; /* limits met, waits that ran out, ... */
	size_t n_notes;
	bool damaged;     /* the capture ended in a damaged record */
	char damage[200]; /* what the reader said, with the frame number */
	uint64_t time_gaps;  /* time stamp jumps closed (sim/replay/replay_clock.h) */
	char first_gap[320]; /* the first, in words, with its frames */
} redrive_result;

/* Run a re-drive. 0 with res filled (differences or not); -1 when it cannot run (no SMC-R
 * conversation in the capture, a side that is not in it, an unusable capture or
 * scenario), with the reason in err. */
int redrive_run(const char *capture, const redrive_opts *o, redrive_result *res, char *err, size_t errlen);
/* The summary and the differences; with `pairs`, every comparison as well. */
void redrive_print(FILE *out, const redrive_result *r, bool pairs);
void redrive_result_free(redrive_result *r);

#endif
