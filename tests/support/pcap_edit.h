/* Test helper: captures as editable lists of frames. Load a pcap with libpcap, change
 * frames (VLAN tags, TCP segment splits and merges, reordering, duplicates, snaplen cuts,
 * payload bytes), then feed the frames to the replay decoder directly or write them as
 * classic pcap (any link type) or a minimal pcapng. Checksums are left as they are: the
 * replay decoder does not verify them. */
#ifndef TESTS_PCAP_EDIT_H
#define TESTS_PCAP_EDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/replay/replay.h"

typedef struct pe_frame {
	uint64_t ts_ns;
	uint8_t *data;
	uint32_t caplen, len;
} pe_frame;

typedef struct pe_capture {
	pe_frame *f;
	size_t n, cap;
} pe_capture;

/* Load a capture (asserts on failure); frames are indexed from 0 (frame number - 1). */
void pe_load(pe_capture *c, const char *path);
void pe_free(pe_capture *c);
void pe_copy(pe_capture *dst, const pe_capture *src);

/* Insert a copy of a frame at index at (the copy gets ts of the original). */
void pe_dup(pe_capture *c, size_t idx, size_t at);
void pe_remove(pe_capture *c, size_t idx);
void pe_move(pe_capture *c, size_t from, size_t to);
/* Append raw bytes as a new frame. */
void pe_append(pe_capture *c, uint64_t ts_ns, const uint8_t *data, uint32_t len);
/* Tag a frame with an 802.1Q VLAN id (inserted after the MAC addresses). */
void pe_vlan(pe_capture *c, size_t idx, uint16_t vid);
/* TCP over IPv4: split frame idx's payload at byte `at` into two segments (idx, idx+1). */
void pe_tcp_split(pe_capture *c, size_t idx, uint32_t at);
/* TCP over IPv4: append frame src's payload to frame dst's and delete frame src. */
void pe_tcp_merge(pe_capture *c, size_t dst, size_t src);
/* TCP over IPv4: shift the sequence number by delta and keep only payload bytes
 * [from, from+n) (a partial retransmission). */
void pe_tcp_slice(pe_capture *c, size_t idx, uint32_t from, uint32_t n);
/* Offset of the TCP payload / of the RoCE v2 IB payload (after BTH and extension headers)
 * in frame idx (IPv4, untagged). */
uint32_t pe_tcp_payload_off(const pe_capture *c, size_t idx);
/* Recompute the ICRC of an untagged RoCE v2 (IPv4) frame after editing it. */
void pe_roce_fix_icrc(pe_capture *c, size_t idx);
/* Keep only the first caplen bytes of frame idx (len stays: a snaplen cut). */
void pe_cut(pe_capture *c, size_t idx, uint32_t caplen);
/* Every IPv4 address b of the capture rewritten as a (untagged frames): a conversation of
 * one address with itself. */
void pe_ipv4_readdress(pe_capture *c, uint32_t a, uint32_t b);
/* IPv4 TCP frames as IPv6 (2001:db8::X for a.b.c.X), the TCP segment unchanged. */
void pe_to_ipv6(pe_capture *c);

/* Decode the frames with the replay decoder, as a capture would. */
void pe_decode(const pe_capture *c, const replay_opts *opts, replay_result *res);
/* Write a classic pcap with the given link type (microsecond stamps), or a pcapng with one
 * Ethernet interface (microsecond stamps). Returns the path (g_free), in a temporary
 * directory removed by pe_tmp_cleanup(). */
char *pe_write_pcap(const pe_capture *c, const char *name, int linktype);
char *pe_write_pcapng(const pe_capture *c, const char *name);
void pe_tmp_cleanup(void);

#endif
