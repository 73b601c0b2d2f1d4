/* Captured-frame dissection for the replay decoder: Ethernet (with 802.1Q/802.1ad tags),
 * IPv4/IPv6, TCP (with the SMC experimental option), UDP, RoCE v1 (ethertype 0x8915,
 * GRH) and RoCE v2 (UDP 4791), and the InfiniBand transport headers (BTH, RETH, AETH,
 * IMMDT, IETH). Tolerant: every length is checked against what was captured and a
 * frame cut by the snap length still yields the headers it has, with the wire lengths
 * the headers announce. Nothing here keeps state. */
#ifndef SIM_REPLAY_FRAME_H
#define SIM_REPLAY_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_ROCEV2_PORT 4791
#define RP_TCP_FIN 0x01
#define RP_TCP_SYN 0x02
#define RP_TCP_RST 0x04
#define RP_TCP_ACK 0x10

typedef enum rp_frame_kind {
	RP_FRAME_TCP,   /* an IPv4/IPv6 TCP segment */
	RP_FRAME_ROCE,  /* a RoCE v1 or v2 packet with a readable BTH */
	RP_FRAME_OTHER, /* well-formed, but not something SMC-R uses (why says what) */
	RP_FRAME_BAD,   /* malformed or cut before the headers we need (why says what) */
} rp_frame_kind;

typedef struct rp_frame {
	uint8_t dst_mac[6], src_mac[6];
	uint16_t vlan;      /* VLAN id of the innermost tag, 0xFFFF if untagged */
	uint16_t ethertype; /* after the tags */
	uint8_t family;     /* 4 or 6 for IP (RoCE v2 included), 0 otherwise */
	uint8_t src_ip[16], dst_ip[16];
	/* TCP */
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t tcp_flags;
	bool smc_option;         /* kind 254, length 6, E2 D4 C3 D9 */
	const uint8_t *payload;  /* TCP payload as captured */
	uint32_t payload_caplen; /* bytes of it in the capture */
	uint32_t payload_len;    /* bytes on the wire (from the IP length) */
	/* RoCE: the GIDs (v1 from the GRH, v2 IPv4-mapped or IPv6 addresses) and the IB
	 * transport packet from the BTH to the end, ICRC included */
	uint8_t roce_version;
	uint8_t sgid[16], dgid[16];
	const uint8_t *ib;
	uint32_t ib_caplen, ib_len;
	/* the whole frame as given */
	const uint8_t *raw;
	uint32_t raw_caplen, raw_len;
	/* the network-layer packet after the tags (IPv4, IPv6, GRH, ARP, ...), as captured, and
	 * where in it the TTL / hop limit is (-1 none) and the IPv4 header checksum (-1 none):
	 * what a router changes, so a forwarded copy can be told from a resend */
	const uint8_t *l3;
	uint32_t l3_caplen;
	int hop_off, csum_off;
} rp_frame;

/* Dissect an Ethernet frame of `len` bytes of which `caplen` were captured. On
 * RP_FRAME_OTHER / RP_FRAME_BAD, why holds a short reason ("ARP", "IPv4 fragment",
 * "truncated IPv4 header: 12 of 20 bytes captured"). */
rp_frame_kind rp_frame_parse(rp_frame *f, const uint8_t *data, uint32_t caplen, uint32_t len, char *why,
                             size_t whylen);

/* RC opcodes SMC-R meets (IBTA): */
#define RP_OP_SEND_FIRST 0x00
#define RP_OP_SEND_MIDDLE 0x01
#define RP_OP_SEND_LAST 0x02
#define RP_OP_SEND_LAST_IMM 0x03
#define RP_OP_SEND_ONLY 0x04
#define RP_OP_SEND_ONLY_IMM 0x05
#define RP_OP_WRITE_FIRST 0x06
#define RP_OP_WRITE_MIDDLE 0x07
#define RP_OP_WRITE_LAST 0x08
#define RP_OP_WRITE_LAST_IMM 0x09
#define RP_OP_WRITE_ONLY 0x0A
#define RP_OP_WRITE_ONLY_IMM 0x0B
#define RP_OP_READ_REQ 0x0C
#define RP_OP_READ_RESP_FIRST 0x0D
#define RP_OP_READ_RESP_MIDDLE 0x0E
#define RP_OP_READ_RESP_LAST 0x0F
#define RP_OP_READ_RESP_ONLY 0x10
#define RP_OP_ACK 0x11
#define RP_OP_ATOMIC_ACK 0x12
#define RP_OP_CMP_SWAP 0x13
#define RP_OP_FETCH_ADD 0x14
#define RP_OP_SEND_LAST_INV 0x16
#define RP_OP_SEND_ONLY_INV 0x17

#define RP_AETH_ACK 0 /* syndrome bits 6..5 */
#define RP_AETH_RNR_NAK 1
#define RP_AETH_NAK 3

typedef struct rp_bth {
	uint8_t opcode;
	bool se, ackreq;
	uint8_t padcnt;
	uint16_t pkey;
	uint32_t dest_qp;
	uint32_t psn;
	bool has_reth;
	uint64_t va;
	uint32_t rkey, dmalen;
	bool has_aeth;
	uint8_t syndrome;
	uint32_t msn;
	const uint8_t *payload;  /* after the headers, pad and ICRC excluded */
	uint32_t payload_caplen; /* bytes of it captured */
	uint32_t payload_len;    /* bytes on the wire */
} rp_bth;

/* Parse the IB transport headers of an RC packet (BTH at ib[0], packet of ib_len bytes
 * ending with the 4-byte ICRC, ib_caplen captured). Returns RP_FRAME_ROCE, or with why
 * filled RP_FRAME_OTHER (not an RC opcode, e.g. a CNP) or RP_FRAME_BAD (headers cut or
 * inconsistent). */
rp_frame_kind rp_bth_parse(rp_bth *b, const uint8_t *ib, uint32_t ib_caplen, uint32_t ib_len, char *why, size_t whylen);
const char *rp_opcode_name(uint8_t opcode);
bool rp_opcode_is_send(uint8_t opcode);
bool rp_opcode_is_write(uint8_t opcode);
/* The opcode starts a new message (counts as one work request). */
bool rp_opcode_starts_request(uint8_t opcode);

#endif
