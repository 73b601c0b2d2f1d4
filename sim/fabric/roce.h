/* RoCE encapsulation: building and parsing complete Ethernet frames that carry InfiniBand
 * RC transport packets.
 *
 *   RoCE v1: Ethernet (type 0x8915) | GRH (40, NxtHdr 0x1B) | BTH | [RETH|AETH] | payload | pad | ICRC
 *   RoCE v2: Ethernet (type 0x0800) | IPv4 (20, proto 17) | UDP (8, dport 4791, checksum 0) |
 *            BTH | [RETH|AETH] | payload | pad | ICRC
 * No Ethernet FCS follows the ICRC. The ICRC is CRC-32 over 8 bytes of 0xFF (the masked
 * LRH) and the packet from the GRH/IP header to the end of the pad, with the variant fields
 * masked to ones (IBTA Annex A17, as Linux rxe computes it): v2: IPv4 TOS, TTL and header
 * checksum, UDP checksum; v1: GRH traffic class, flow label and hop limit; both: BTH byte 4
 * (FECN/BECN/reserved). It is carried little-endian, like an Ethernet FCS.
 *
 * ECN (RoCE v2): the low two bits of traffic_class are the IPv4 ECN field (RFC 3168), so a
 * sender sets ECT(0) there and a receiver reads CE from the parsed traffic_class; the
 * ICRC masks the whole TOS byte, so a switch marking CE leaves the ICRC valid.
 *
 * The parser checks every length and field the receiver relies on and reports the first
 * problem precisely (smcr_decode_err); a wrong ICRC is reported as field "ICRC".
 */
#ifndef SIM_ROCE_H
#define SIM_ROCE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/decode_err.h"
#include "sim/fabric/frame.h"

typedef enum roce_version {
	ROCE_V1 = 1,
	ROCE_V2 = 2,
} roce_version;

/* RC opcodes (transport bits 000). */
enum roce_opcode {
	ROCE_OP_SEND_FIRST = 0x00,
	ROCE_OP_SEND_MIDDLE = 0x01,
	ROCE_OP_SEND_LAST = 0x02,
	ROCE_OP_SEND_LAST_IMM = 0x03,
	ROCE_OP_SEND_ONLY = 0x04,
	ROCE_OP_SEND_ONLY_IMM = 0x05,
	ROCE_OP_WRITE_FIRST = 0x06,
	ROCE_OP_WRITE_MIDDLE = 0x07,
	ROCE_OP_WRITE_LAST = 0x08,
	ROCE_OP_WRITE_LAST_IMM = 0x09,
	ROCE_OP_WRITE_ONLY = 0x0A,
	ROCE_OP_WRITE_ONLY_IMM = 0x0B,
	ROCE_OP_ACK = 0x11,
	/* RoCE v2 Congestion Notification Packet (Annex A17.9.3): BTH with BECN set, DestQP
	 * the QP to slow down, PSN 0, then 16 reserved bytes; no payload. */
	ROCE_OP_CNP = 0x81,
};

#define ROCE_UDP_PORT 4791
#define ROCE_GRH_NXTHDR 0x1B
#define ROCE_GRH_LEN 40
#define ROCE_IPV4_LEN 20
#define ROCE_UDP_LEN 8
#define ROCE_BTH_LEN 12
#define ROCE_RETH_LEN 16
#define ROCE_AETH_LEN 4
#define ROCE_IMM_LEN 4
#define ROCE_ICRC_LEN 4
#define ROCE_CNP_RESERVED_LEN 16
#define ROCE_DEFAULT_PKEY 0xFFFF

/* AETH syndrome: bits 7..5 say what it is, bits 4..0 carry credits, timer or NAK code. */
#define ROCE_AETH_TYPE_MASK 0xE0
#define ROCE_AETH_ACK 0x00
#define ROCE_AETH_RNR_NAK 0x20
#define ROCE_AETH_NAK 0x60
#define ROCE_AETH_CREDITS_INVALID 0x1F
enum roce_nak_code {
	ROCE_NAK_PSN_SEQ_ERR = 0,
	ROCE_NAK_INVALID_REQ = 1,
	ROCE_NAK_REM_ACCESS_ERR = 2,
	ROCE_NAK_REM_OP_ERR = 3,
};

/* Addressing of one packet (everything outside the IB transport headers). */
typedef struct roce_addr {
	roce_version version;
	uint8_t dmac[6], smac[6];
	uint16_t vlan_tci;          /* 0 = untagged */
	uint8_t sgid[16], dgid[16]; /* v2: IPv4-mapped GIDs, giving the IP addresses */
	uint8_t traffic_class;      /* GRH TClass / IPv4 TOS */
	uint8_t hop_limit;          /* GRH HopLmt / IPv4 TTL */
	uint32_t flow_label;        /* v1 */
	uint16_t udp_sport;         /* v2 */
	uint16_t ip_id;             /* v2 */
} roce_addr;

typedef struct roce_bth {
	uint8_t opcode;
	bool se; /* solicited event */
	bool mig;
	uint8_t pad; /* PadCnt: filled in by the builder */
	uint8_t tver;
	uint16_t pkey;
	bool fecn, becn;
	uint32_t dest_qp; /* 24 bits */
	bool ack_req;
	uint32_t psn; /* 24 bits */
} roce_bth;

typedef struct roce_reth {
	uint64_t va;
	uint32_t rkey;
	uint32_t dma_len;
} roce_reth;

typedef struct roce_aeth {
	uint8_t syndrome;
	uint32_t msn; /* 24 bits */
} roce_aeth;

typedef struct roce_pkt {
	roce_addr addr;
	roce_bth bth;
	bool has_reth, has_aeth, has_imm;
	roce_reth reth;
	roce_aeth aeth;
	uint32_t imm;
	const uint8_t *payload; /* inside the parsed frame */
	uint32_t payload_len;   /* without pad */
	uint32_t icrc;          /* the CRC value (wire bytes are its little-endian form) */
} roce_pkt;

/* One piece of payload to gather. */
typedef struct roce_seg {
	const void *data;
	uint32_t len;
} roce_seg;

/* Bytes of headers before the payload and after it (pad excluded), for MTU planning. */
uint32_t roce_overhead(roce_version v, bool tagged, uint8_t opcode);

/* Build a complete frame. bth->pad is computed from the payload length. reth is used for
 * opcodes that carry one, aeth for ACKNOWLEDGE. Payload is gathered from segs. The frame
 * comes vouched for (sim_frame_vouch_sums): its sums are right until somebody writes to it
 * (sim_frame_writable and friends drop the word; write through f->data only after that). */
sim_frame *roce_build(sim_frame_pool *pool, const roce_addr *a, const roce_bth *bth, const roce_reth *reth,
                      const roce_aeth *aeth, const roce_seg *segs, unsigned nsegs);

/* roce_build of a payload in one piece whose copy into the frame is deferred, its ICRC
 * owed (sim_frame_defer_copy_crc: paid in the same pass as the copy): the frame's bytes,
 * its ICRC included, are those roce_build would make, once settled; until then the caller
 * keeps seg's bytes as they are. A payload too short to leave out is copied at once. */
sim_frame *roce_build_deferred(sim_frame_pool *pool, const roce_addr *a, const roce_bth *bth, const roce_reth *reth,
                               const roce_aeth *aeth, const roce_seg *seg);

/* Parse and validate a frame (ICRC included). 0 or a negative SMCR_ERR_* with *err set.
 * A frame that is not RoCE at all (another ethertype, IPv4 not UDP/4791) gives
 * SMCR_ERR_TYPE. */
int roce_parse(const uint8_t *frame, uint32_t len, roce_pkt *out, smcr_decode_err *err);
/* roce_parse without computing the IPv4 header checksum and the ICRC, for a frame whose
 * sums are vouched for (sim_frame_sums_vouched: roce_build made it and nobody wrote to it
 * since), where both would come out right: every other field is checked, and out->icrc
 * is the value the frame carries, as roce_parse gives it. */
int roce_parse_vouched(const uint8_t *frame, uint32_t len, roce_pkt *out, smcr_decode_err *err);
/* roce_parse_vouched of a frame that still owes its ICRC (sim_frame_crc_owed): the ICRC's
 * bytes are not read, out->icrc is 0 (sim_frame_owed_crc gives the value). */
int roce_parse_owed(const uint8_t *frame, uint32_t len, roce_pkt *out, smcr_decode_err *err);

/* The ICRC over a packet whose GRH or IPv4 header starts at l3 and whose pad ends
 * l3_len bytes later (the ICRC itself excluded). */
uint32_t roce_icrc(roce_version v, const uint8_t *l3, uint32_t l3_len);

/* PSN arithmetic on 24 bits: a - b as a signed distance. */
static inline int32_t roce_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}
static inline uint32_t roce_psn_add(uint32_t a, uint32_t n) { return (a + n) & 0xFFFFFFu; }

#endif
