/* CLC: the SMC connection-layer-control handshake carried in the TCP stream
 * (Proposal → Accept → Confirm, or Decline). RFC 7609 plus the Linux SMC v2 layouts.
 *
 * Host form and wire form are separate: protocol logic only sees the structs below; the
 * encoders write exactly Linux's bytes and the decoders validate lengths, eyecatchers,
 * versions, types and trailers as Linux does (smc_clc.c), reporting the first problem
 * precisely in an smcr_decode_err. Layouts: RFC 7609 and Linux
 * smc_clc.h.
 */
#ifndef SMCR_CLC_H
#define SMCR_CLC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/decode_err.h"

#define SMCR_CLC_EYECATCHER_R 0xE2D4C3D9u /* "SMCR" in EBCDIC */
#define SMCR_CLC_EYECATCHER_D 0xE2D4C3C4u /* "SMCD" in EBCDIC */
#define SMCR_CLC_HDR_LEN 8
#define SMCR_CLC_TRAILER_LEN 4
#define SMCR_CLC_MAX_LEN 1024 /* larger than any message we accept */

/* Fixed lengths of the SMC-R messages Linux sends. */
#define SMCR_CLC_ACCEPT_V1_LEN 68  /* Accept/Confirm SMC-R v1 */
#define SMCR_CLC_ACCEPT_V2_LEN 108 /* Accept/Confirm SMC-R v2 without first contact */
#define SMCR_CLC_FCE_LEN 52        /* v2 First Contact Extension (v2.x layout) */
#define SMCR_CLC_DECLINE_V1_LEN 28
#define SMCR_CLC_DECLINE_V2_LEN 44

/* TCP experimental option that announces SMC in SYN / SYN-ACK. */
#define SMCR_TCP_OPTION_KIND 254
#define SMCR_TCP_OPTION_LEN 6
#define SMCR_TCP_OPTION_MAGIC 0xE2D4C3D9u

typedef enum smcr_clc_type {
	SMCR_CLC_PROPOSAL = 0x01,
	SMCR_CLC_ACCEPT = 0x02,
	SMCR_CLC_CONFIRM = 0x03,
	SMCR_CLC_DECLINE = 0x04,
} smcr_clc_type;

/* The 2-bit SMC type fields of header byte 7. */
typedef enum smcr_clc_smc_type {
	SMCR_CLC_TYPE_R = 0,
	SMCR_CLC_TYPE_D = 1,
	SMCR_CLC_TYPE_NONE = 2,
	SMCR_CLC_TYPE_BOTH = 3,
} smcr_clc_smc_type;

/* Peer diagnosis codes (Decline) = Linux fallback reasons. Class in the high byte. */
#define SMCR_DECL_MEM 0x01010000u        /* insufficient memory */
#define SMCR_DECL_TIMEOUT_CL 0x02010000u /* timeout waiting for CONFIRM LINK */
#define SMCR_DECL_TIMEOUT_AL 0x02020000u /* timeout waiting for ADD LINK */
#define SMCR_DECL_CNFERR 0x03000000u     /* configuration error */
#define SMCR_DECL_PEERNOSMC 0x03010000u  /* peer did not indicate SMC */
#define SMCR_DECL_IPSEC 0x03020000u      /* IPsec in use */
#define SMCR_DECL_NOSMCDEV 0x03030000u   /* no SMC device found (R or D) */
#define SMCR_DECL_NOSMCDDEV 0x03030001u  /* no SMC-D device */
#define SMCR_DECL_NOSMCRDEV 0x03030002u  /* no SMC-R device */
#define SMCR_DECL_NOISM2SUPP 0x03030003u /* no ISMv2 support */
#define SMCR_DECL_NOV2EXT 0x03030004u    /* peer sent no v2 extension */
#define SMCR_DECL_NOV2DEXT 0x03030005u   /* peer sent no SMC-Dv2 extension */
#define SMCR_DECL_NOSEID 0x03030006u     /* peer sent no SEID */
#define SMCR_DECL_NOSMCD2DEV 0x03030007u /* no SMC-Dv2 device */
#define SMCR_DECL_NOUEID 0x03030008u     /* no UEID / no common UEID */
#define SMCR_DECL_RELEASEERR 0x03030009u /* release negotiation failed */
#define SMCR_DECL_MAXCONNERR 0x0303000au /* max_conns negotiation failed */
#define SMCR_DECL_MAXLINKERR 0x0303000bu /* max_links negotiation failed */
#define SMCR_DECL_MODEUNSUPP 0x03040000u /* SMC modes do not match */
#define SMCR_DECL_RMBE_EC 0x03050000u    /* peer uses RMBE eyecatchers */
#define SMCR_DECL_OPTUNSUPP 0x03060000u  /* unsupported socket option */
#define SMCR_DECL_DIFFPREFIX 0x03070000u /* IP prefix / subnet mismatch */
#define SMCR_DECL_GETVLANERR 0x03080000u /* cannot get VLAN of IP device */
#define SMCR_DECL_ISMVLANERR 0x03090000u /* cannot register VLAN on ISM */
#define SMCR_DECL_NOACTLINK 0x030a0000u  /* no active link in link group */
#define SMCR_DECL_NOSRVLINK 0x030b0000u  /* SMC-R link named by server not found */
#define SMCR_DECL_VERSMISMAT 0x030c0000u /* SMC version mismatch */
#define SMCR_DECL_MAX_DMB 0x030d0000u    /* SMC-D DMB limit */
#define SMCR_DECL_NOROUTE 0x030e0000u    /* SMC-Rv2: no route to peer */
#define SMCR_DECL_NOINDIRECT 0x030f0000u /* SMC-Rv2: direct/indirect mismatch */
#define SMCR_DECL_SYNCERR 0x04000000u    /* synchronization error (out of sync) */
#define SMCR_DECL_PEERDECL 0x05000000u   /* peer declined (local bookkeeping) */
#define SMCR_DECL_INTERR 0x09990000u     /* internal error */
#define SMCR_DECL_ERR_RTOK 0x09990001u   /* rtoken handling failed */
#define SMCR_DECL_ERR_RDYLNK 0x09990002u /* IB link setup (QP modify) failed */
#define SMCR_DECL_ERR_REGBUF 0x09990003u /* buffer registration failed */

/* Linux-style short name ("SMC_CLC_DECL_PEERNOSMC") and a sentence for a peer diagnosis
 * code; unknown codes (including older kernels' values) get the class text. */
const char *smcr_decline_name(uint32_t code);
const char *smcr_decline_text(uint32_t code);

/* OS types of v2 messages (4 bits). */
#define SMCR_CLC_OS_ZOS 1
#define SMCR_CLC_OS_LINUX 2
#define SMCR_CLC_OS_AIX 3
#define SMCR_CLC_OS_UNKNOWN 15

#define SMCR_MAX_IPV6_PREFIXES 8
#define SMCR_MAX_EIDS 8
#define SMCR_EID_LEN 32
#define SMCR_MAX_CONFIRM_GIDS 8
#define SMCR_HOSTNAME_LEN 32
#define SMCR_CLC_MAX_ISM_V2 8 /* SMC-Dv2 GID/CHID entries in a Proposal */

/* One SMC-Dv2 entry of a Proposal (kept so a Proposal from an SMC-D capable peer
 * round-trips; SMC-R ignores it). */
typedef struct smcr_clc_ism_gid_chid {
	uint64_t gid;
	uint16_t chid;
} smcr_clc_ism_gid_chid;

/* "CLC Proposal", "CLC Accept", ...; "CLC type N" for unknown ones. */
const char *smcr_clc_type_name(uint8_t type);

/* Header as found on the wire (peek before reading a whole message from the stream). */
typedef struct smcr_clc_hdr {
	uint32_t eyecatcher;
	uint8_t type;    /* smcr_clc_type */
	uint16_t length; /* whole message, header and trailer included */
	uint8_t version; /* high nibble of byte 7 */
	uint8_t flags;   /* byte 7 as is */
} smcr_clc_hdr;

typedef struct smcr_ipv6_prefix {
	uint8_t prefix[16];
	uint8_t len;
} smcr_ipv6_prefix;

/* Proposal (client → server). Encoding follows Linux: a version-2 Proposal always has the
 * 40-byte SMC-D/v2 area after the IP-area offset (iparea_offset 40 when a v1 type is
 * offered); a version-1 message with iparea_offset 0 is the RFC/old-Linux layout (decoded;
 * encoded only on request, tshark 4.0 marks it malformed). */
typedef struct smcr_clc_proposal {
	uint8_t version;          /* 1 or 2 */
	smcr_clc_smc_type typev1; /* offered for SMCv1 (R, D, BOTH or NONE) */
	smcr_clc_smc_type typev2; /* offered for SMCv2 (version 2 only) */
	uint8_t peer_id[8];       /* system id (Linux: zero unless v1 offered) */
	uint8_t gid[16];          /* preferred RoCE v1 GID */
	uint8_t mac[6];           /* preferred RoCE MAC */
	bool rfc_layout;          /* v1 without the 40-byte area (iparea_offset 0) */
	uint16_t iparea_offset;   /* decode: as received; encode: derived (0 or 40) */
	uint64_t ism_gid;         /* SMC-D area (zero for SMC-R) */
	uint16_t ism_chid;
	/* IP prefix area, present when typev1 != NONE */
	uint32_t ipv4_subnet; /* host order, address AND mask */
	uint8_t ipv4_prefix_len;
	uint8_t n_ipv6;
	smcr_ipv6_prefix ipv6[SMCR_MAX_IPV6_PREFIXES];
	/* v2 extension, present when typev2 != NONE */
	uint8_t n_eids;
	char eids[SMCR_MAX_EIDS][SMCR_EID_LEN]; /* blank padded, not NUL terminated */
	uint8_t n_ism_gids;                     /* SMC-Dv2 entries (skipped for SMC-R) */
	/* SMC-Dv2 extension, present when typev2 offers SMC-D (decoded only if Linux would
	 * find it: offset 1..288 and inside the message) */
	bool smcd_v2_ext;
	uint8_t seid[SMCR_EID_LEN];
	smcr_clc_ism_gid_chid ism_v2[SMCR_CLC_MAX_ISM_V2];
	uint8_t release; /* 0 = v2.0, 1 = v2.1 */
	bool seid_indicator;
	uint8_t roce_v2_gid[16]; /* IPv4-mapped */
	uint8_t max_conns;       /* v2.1 */
	uint8_t max_links;       /* v2.1 */
	uint16_t feature_mask;   /* v2.1 */
} smcr_clc_proposal;

/* First Contact Extension of v2 Accept/Confirm. */
typedef struct smcr_clc_fce {
	bool v2_direct;  /* peers on one subnet, no gateway */
	uint8_t os_type; /* SMCR_CLC_OS_* */
	uint8_t release;
	char hostname[SMCR_HOSTNAME_LEN]; /* blank padded */
	uint8_t max_conns;
	uint8_t max_links;
	uint16_t feature_mask;
	uint32_t vendor_exp;
} smcr_clc_fce;

/* Accept (server → client) and Confirm (client → server): the same SMC-R body. */
typedef struct smcr_clc_accept {
	smcr_clc_type type; /* SMCR_CLC_ACCEPT or SMCR_CLC_CONFIRM */
	uint8_t version;    /* 1 or 2 */
	bool first_contact;
	uint8_t peer_id[8];
	uint8_t gid[16]; /* v1: RoCE v1 GID, v2: IPv4-mapped RoCE v2 GID */
	uint8_t mac[6];
	uint32_t qpn; /* 24 bits */
	uint32_t rkey;
	uint8_t rmbe_idx; /* Linux: always 1 */
	uint32_t rmbe_alert_token;
	uint8_t rmbe_size; /* compressed size code 0..15 */
	uint8_t qp_mtu;    /* smcr_mtu */
	uint64_t rmb_vaddr;
	uint32_t psn; /* 24 bits */
	/* v2 */
	char eid[SMCR_EID_LEN]; /* negotiated UEID, blank padded */
	smcr_clc_fce fce;       /* present iff version 2 and first_contact */
	uint8_t n_gids;         /* Confirm v2 with first contact: client GIDs */
	uint8_t gids[SMCR_MAX_CONFIRM_GIDS][16];
} smcr_clc_accept;

typedef struct smcr_clc_decline {
	uint8_t version; /* 1 (28 bytes) or 2 (44 bytes) */
	bool out_of_sync;
	uint8_t peer_id[8];
	uint32_t diagnosis;    /* SMCR_DECL_* */
	uint8_t os_type;       /* v2 */
	uint32_t diag_more[4]; /* v2: four more words (Linux: zero) */
} smcr_clc_decline;

/* Read the 8-byte header from the start of a stream buffer. Returns the message length
 * (>= 8) when the header is valid, SMCR_ERR_SHORT when fewer than 8 bytes are there, or
 * a negative error (eyecatcher, type, version 0, length too small/large). */
int smcr_clc_peek(const uint8_t *buf, size_t len, smcr_clc_hdr *hdr, smcr_decode_err *err);

/* Encoders: write the message into out, return its length or SMCR_ERR_NOBUF/INVAL. */
ssize_t smcr_clc_encode_proposal(uint8_t *out, size_t outlen, const smcr_clc_proposal *m);
ssize_t smcr_clc_encode_accept(uint8_t *out, size_t outlen, const smcr_clc_accept *m);
ssize_t smcr_clc_encode_decline(uint8_t *out, size_t outlen, const smcr_clc_decline *m);

/* Decoders: the buffer holds exactly one message (length from smcr_clc_peek). Return 0
 * or a negative SMCR_ERR_* with *err filled. accept decodes both Accept and Confirm. */
int smcr_clc_decode_proposal(smcr_clc_proposal *m, const uint8_t *buf, size_t len, smcr_decode_err *err);
int smcr_clc_decode_accept(smcr_clc_accept *m, const uint8_t *buf, size_t len, smcr_decode_err *err);
int smcr_clc_decode_decline(smcr_clc_decline *m, const uint8_t *buf, size_t len, smcr_decode_err *err);

/* RMBE size code <-> bytes (16 KiB << code); Linux's rounding up; code capped at 15. */
uint8_t smcr_rmbe_size_code(uint32_t bytes);
uint32_t smcr_rmbe_size_bytes(uint8_t code);

/* One-line description of a message for logs and replay reports. */
void smcr_clc_describe(const uint8_t *buf, size_t len, char *out, size_t outlen);

#endif
