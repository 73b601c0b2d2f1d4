/* LLC: link layer control messages, RDMA SENDs on a link's QP (RFC 7609 §3.2, Linux
 * smc_llc.c). v1 messages are exactly 44 bytes; v2 messages (type 0x20|t) carry a 16-bit
 * length and may be longer (ADD_LINK with its rkey extension, REQUEST_ADD_LINK).
 *
 * Linux writes the v2 16-bit length (and the ADD_LINK v2 rkey count) in the sender's CPU
 * byte order: little-endian on x86, big-endian on s390 and in Wireshark. The encoder takes
 * the order as a parameter; the decoder accepts either, picking the one that matches the
 * received byte count. Layouts: RFC 7609 and Linux
 * smc_llc.c.
 */
#ifndef SMCR_LLC_H
#define SMCR_LLC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/decode_err.h"

#define SMCR_LLC_LEN 44          /* v1, and the fixed-size v2 messages */
#define SMCR_LLC_V2_MAX_LEN 8192 /* SMC_WR_BUF_V2_SIZE */
#define SMCR_CDC_TYPE 0xFE       /* byte 0 that marks a CDC message instead of LLC */

typedef enum smcr_llc_type {
	SMCR_LLC_CONFIRM_LINK = 0x01,
	SMCR_LLC_ADD_LINK = 0x02,
	SMCR_LLC_ADD_LINK_CONT = 0x03,
	SMCR_LLC_DELETE_LINK = 0x04,
	SMCR_LLC_REQ_ADD_LINK = 0x05,
	SMCR_LLC_CONFIRM_RKEY = 0x06,
	SMCR_LLC_TEST_LINK = 0x07,
	SMCR_LLC_CONFIRM_RKEY_CONT = 0x08,
	SMCR_LLC_DELETE_RKEY = 0x09,
} smcr_llc_type;

/* Flag bits (byte 3). */
#define SMCR_LLC_FLAG_RESP 0x80
#define SMCR_LLC_FLAG_ADD_LNK_REJ 0x40
#define SMCR_LLC_FLAG_DEL_LINK_ALL 0x40
#define SMCR_LLC_FLAG_DEL_LINK_ORDERLY 0x20
#define SMCR_LLC_FLAG_RKEY_NEG 0x20
#define SMCR_LLC_FLAG_RKEY_RETRY 0x10
#define SMCR_LLC_FLAG_NO_RMBE_EYEC 0x03 /* CONFIRM_LINK: Linux sets it in both directions */

/* ADD_LINK reject reason (v1: byte 2 low nibble). */
#define SMCR_LLC_REJ_NO_ALT_PATH 1

/* DELETE_LINK reason codes. */
#define SMCR_LLC_DEL_LOST_PATH 0x00010000u
#define SMCR_LLC_DEL_OP_INIT_TERM 0x00020000u
#define SMCR_LLC_DEL_PROG_INIT_TERM 0x00030000u
#define SMCR_LLC_DEL_PROT_VIOL 0x00040000u
#define SMCR_LLC_DEL_NO_ASYM_NEEDED 0x00050000u
#define SMCR_LLC_DEL_NOLNK 0x00100000u /* response: unknown link id */
#define SMCR_LLC_DEL_NOLGR 0x00200000u /* response: unknown link group */

const char *smcr_llc_type_name(uint8_t type);
const char *smcr_llc_del_reason_text(uint32_t reason);

/* Byte order of the v2 16-bit fields. */
typedef enum smcr_llc_v2_order {
	SMCR_LLC_V2_LE = 0, /* x86 Linux: what a Linux peer on x86 actually sends */
	SMCR_LLC_V2_BE = 1, /* s390 Linux, Wireshark's reading */
} smcr_llc_v2_order;

#define SMCR_LLC_MAX_RKEY_PAIRS 255
#define SMCR_LLC_MAX_REQ_GIDS 8

typedef struct smcr_rkey_pair {
	uint32_t rkey_known; /* rkey of the RMB on the existing link */
	uint32_t rkey_new;   /* rkey of the RMB on the new link */
	uint64_t vaddr_new;  /* RMB address on the new link */
} smcr_rkey_pair;

typedef struct smcr_rkey_entry {
	uint8_t link_id;
	uint32_t rkey;
	uint64_t vaddr;
} smcr_rkey_entry;

typedef struct smcr_llc_msg {
	uint8_t type;    /* smcr_llc_type (without the 0x20 of v2) */
	uint8_t version; /* 1, or 2 for the 0x2X type byte */
	uint16_t length; /* total bytes on the wire (44 for v1); set by decode, the
	                      * encoder computes it from the content */
	/* v2 only, set by decode: the byte order the sender used for its 16-bit fields, and
	 * whether the bytes could not tell (then order is LE and nothing depended on it) */
	smcr_llc_v2_order order;
	bool order_ambiguous;
	uint8_t flags;         /* byte 3 */
	uint8_t reject_reason; /* v1 ADD_LINK: byte 2 low nibble */
	union {
		struct {
			uint8_t mac[6];
			uint8_t gid[16];
			uint32_t qpn;
			uint8_t link_id;
			uint32_t link_uid; /* the 4 bytes as a big-endian number */
			uint8_t max_links;
			uint8_t max_conns; /* v2.1 */
		} confirm_link;
		struct {
			uint8_t mac[6];
			uint8_t gid[16];
			uint32_t qpn;
			uint8_t link_id;
			uint8_t mtu; /* smcr_mtu, 0 = client suggestion */
			uint32_t psn;
			/* v2 extension (Linux omits it in rejects and client suggestions) */
			bool v2_ext; /* present (message longer than 44 bytes) */
			bool v2_direct;
			uint8_t client_target_gid[16];
			uint16_t n_rkeys;
			smcr_rkey_pair rkeys[SMCR_LLC_MAX_RKEY_PAIRS];
		} add_link;
		struct {
			uint8_t link_id;
			uint8_t n_remaining; /* pairs still to come, this message's included */
			uint8_t n_here;      /* 0..2 pairs in this message; decode sets
			                      * min(n_remaining, 2) as Linux reads it */
			smcr_rkey_pair rkeys[2];
		} add_link_cont;
		struct {
			uint8_t link_id; /* 0 with ALL */
			uint32_t reason;
		} delete_link;
		struct {
			uint8_t n_gids;
			uint8_t gids[SMCR_LLC_MAX_REQ_GIDS][16];
		} req_add_link;
		struct {
			uint8_t n_other; /* additional entries (other links); Linux answers
			                      * > 3 negatively, so any value is decoded */
			uint32_t rkey;   /* on the link the message travels on */
			uint64_t vaddr;
			smcr_rkey_entry other[3]; /* only 2 fit in the 44 bytes: other[2] is never
			                           * on the wire, min(n_other, 2) are coded */
		} confirm_rkey;
		struct {
			uint8_t n_remaining; /* min(n_remaining, 3) entries are coded */
			smcr_rkey_entry entries[3];
		} confirm_rkey_cont;
		struct {
			uint8_t n_rkeys;  /* v1: <= 8 (fixed 8 slots); v2: the message is
			                      * max(44, 8 + 4 * n_rkeys) bytes */
			uint8_t err_mask; /* v1 response; v2: count of invalid rkeys */
			uint32_t rkeys[SMCR_LLC_MAX_RKEY_PAIRS];
		} delete_rkey;
		struct {
			uint8_t user_data[16];
		} test_link;
	} u;
} smcr_llc_msg;

/* Encode into out (>= 44 bytes, more for long v2 messages); returns bytes written or
 * SMCR_ERR_NOBUF / SMCR_ERR_INVAL. */
ssize_t smcr_llc_encode(uint8_t *out, size_t outlen, const smcr_llc_msg *m, smcr_llc_v2_order order);

/* Decode a received SEND of `len` bytes (the completion's byte_len). Returns 0 or a
 * negative SMCR_ERR_* with *err filled. Types Linux has no handler for are reported as
 * SMCR_ERR_TYPE so the caller can count and drop them. */
int smcr_llc_decode(smcr_llc_msg *m, const uint8_t *buf, size_t len, smcr_decode_err *err);

void smcr_llc_describe(const smcr_llc_msg *m, char *out, size_t outlen);

#endif
