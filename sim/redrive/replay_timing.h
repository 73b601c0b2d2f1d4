/* Replay, mode 2 (timing): inject the frames of a capture into a simulated fabric at
 * their recorded times, scaled, as tcpreplay does, so that the scenario's stacks react to
 * them.
 *
 * Where: an injector endpoint on a spare port of one switch of the world (world_opts.
 * spare_port_switch); the switch learns the played MACs there, so answers come back to it
 * (and both directions are in the world's capture as "SW/replay").
 * What: the frames of the played hosts, in file order. A played host is an IPv4 address
 * of the capture (by default every host the capture has and the scenario does not); its
 * frames are those whose source MAC it used in the capture (its interface MACs, seen on
 * its IPv4 frames and ARP, and the RoCE VMACs the decode pass finds for it). Frames of
 * other hosts are not injected: the scenario's own stacks play them.
 * When: frame i at offset + (t_i - t_0) / speed, t_0 the capture's first frame; never
 * before the previous one. A jump between two frames' time stamps beyond max_gap_ns is
 * closed as every replay mode does (sim/replay/replay_clock.h) and reported.
 * Bytes: as recorded, except two things a live peer needs (as tcpliveplay does): the
 * acknowledgment number of a played TCP segment is moved by the difference between the
 * simulated peer's initial sequence number (seen in its SYN or SYN-ACK at the injector)
 * and the recorded one, with the checksum fixed; and the injector answers ARP requests
 * for played addresses with the MAC the host had in the capture. Nothing else is
 * rewritten: RoCE frames keep their QPNs, PSNs and rkeys, so a conversation continues
 * past the CLC handshake only where the simulated stack happens to choose the recorded
 * values (mode 3, re-drive, adapts instead).
 * Not injected (counted): frames cut by the snap length, frames larger than the fabric's
 * frame buffer, frames due after the end of the run. A damaged capture file stops the
 * injection at the damaged record, with its frame number. */
#ifndef SIM_REPLAY_TIMING_H
#define SIM_REPLAY_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/world/world.h"

#define REPLAY_TIMING_MAX_PLAY 16

typedef struct replay_timing_opts {
	uint64_t speed_num, speed_den;         /* speed num/den: recorded gaps are multiplied by den/num */
	uint64_t offset_ns;                    /* virtual time of the capture's first frame */
	uint32_t play[REPLAY_TIMING_MAX_PLAY]; /* IPv4 (host order); none: see above */
	size_t n_play;
	bool no_tcp_rewrite;
	uint64_t max_gap_ns; /* 0: 1 h */
} replay_timing_opts;

typedef struct replay_timing_stats {
	uint64_t frames; /* read from the capture */
	uint64_t injected;
	uint64_t not_played;    /* sent by hosts the scenario plays */
	uint64_t cut;           /* cut by the snap length */
	uint64_t too_big;       /* larger than a fabric frame */
	uint64_t after_end;     /* due after the end of the run */
	uint64_t tcp_rewritten; /* TCP segments whose acknowledgment number was moved */
	uint64_t arp_answered;
	uint64_t received;          /* frames the fabric delivered to the injector */
	uint64_t first_ns, last_ns; /* virtual times of the first and last injected frame */
	uint32_t played[REPLAY_TIMING_MAX_PLAY];
	size_t n_played;
	bool damaged; /* the file ended in a damaged record */
	char damage[200];
	uint64_t time_gaps;  /* time stamp jumps closed */
	char first_gap[320]; /* the first one, in words with its frames */
	uint64_t roce_injected;      /* RoCE frames among the injected */
	uint64_t roce_no_qp;         /* of them, to a QP number no simulated adapter had then */
	uint32_t first_no_qp;        /* the first such QP number */
	uint64_t first_no_qp_frame;  /* and its frame */
} replay_timing_stats;

typedef struct replay_timing replay_timing;

/* Read the capture (a decode pass learns its hosts), attach the injector to the world's
 * spare port and schedule the first frame. The world must have been built with a spare
 * port and not yet run. NULL with the reason in err: no spare port, an unusable capture,
 * nothing to play. */
replay_timing *replay_timing_new(world *w, const char *path, const replay_timing_opts *o, char *err,
                                 size_t errlen);
const replay_timing_stats *replay_timing_stats_get(const replay_timing *t);
/* After the run: a few lines on what was played, injected, skipped, rewritten, answered
 * (frames still unread count as due after the end). */
void replay_timing_print(FILE *out, replay_timing *t);
/* Detach and free (before the world is freed). */
void replay_timing_free(replay_timing *t);

#endif
