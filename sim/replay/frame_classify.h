/* One line per frame of a capture, classified from its own bytes alone (no state, so
 * retransmitted and forwarded copies are listed like the originals), for `smcr-sim debug
 * frames`; tests hold tshark's verdicts against it (tests/scenarios/t_scenarios_tshark.sh):
 *   tcp [clc TYPE]                 a TCP segment (with a CLC eyecatcher at its start)
 *   roce1|roce2 OPCODE QPN [msg X] a RoCE packet; for the first or only packet of a SEND
 *                                  the SMC-R message type byte (0x01.., 0x21.. v2, 0xfe CDC)
 *   roce1|roce2 ? REASON           a RoCE packet whose BTH does not parse
 *   other REASON / bad REASON */
#ifndef SIM_REPLAY_FRAME_CLASSIFY_H
#define SIM_REPLAY_FRAME_CLASSIFY_H

#include <stddef.h>
#include <stdint.h>

/* Every frame of a capture file (pcap or pcapng) to fn with its number (from 1) and its
 * class. 0 when all were read; 1 when a record cannot be read (after the frames before
 * it; err: "frame N: why"); 2 when the file cannot be opened (err: why). */
int rp_frame_classify_file(const char *path, void (*fn)(void *ctx, uint64_t n, const char *text), void *ctx,
                           char *err, size_t errlen);

#endif
