/* Peer diagnosis codes of CLC Decline (Linux smc_clc.h) and the RMBE size code.
 *
 * Older kernels used other values for some reasons (0x99990000 internal error,
 * 0x02000000 timeout, ...). Where an old value does not collide with a current one it is
 * named too, so a Decline from an old peer still reads well; 0x03030000 (old IPsec) is
 * read with today's meaning, as a current Linux would.
 */
#include "model/clc.h"

#include <stddef.h>

typedef struct decline_entry {
	uint32_t code;
	const char *name;
	const char *text;
} decline_entry;

static const decline_entry decline_table[] = {
	{ SMCR_DECL_MEM, "SMC_CLC_DECL_MEM", "insufficient memory resources" },
	{ SMCR_DECL_TIMEOUT_CL, "SMC_CLC_DECL_TIMEOUT_CL", "timeout waiting for LLC CONFIRM LINK" },
	{ SMCR_DECL_TIMEOUT_AL, "SMC_CLC_DECL_TIMEOUT_AL", "timeout waiting for LLC ADD LINK" },
	{ SMCR_DECL_CNFERR, "SMC_CLC_DECL_CNFERR", "configuration error" },
	{ SMCR_DECL_PEERNOSMC, "SMC_CLC_DECL_PEERNOSMC", "peer did not indicate SMC" },
	{ SMCR_DECL_IPSEC, "SMC_CLC_DECL_IPSEC", "IPsec in use" },
	{ SMCR_DECL_NOSMCDEV, "SMC_CLC_DECL_NOSMCDEV", "no SMC device found (R or D)" },
	{ SMCR_DECL_NOSMCDDEV, "SMC_CLC_DECL_NOSMCDDEV", "no SMC-D device found" },
	{ SMCR_DECL_NOSMCRDEV, "SMC_CLC_DECL_NOSMCRDEV", "no SMC-R device found" },
	{ SMCR_DECL_NOISM2SUPP, "SMC_CLC_DECL_NOISM2SUPP", "hardware has no ISMv2 support" },
	{ SMCR_DECL_NOV2EXT, "SMC_CLC_DECL_NOV2EXT", "peer sent no CLC v2 extension" },
	{ SMCR_DECL_NOV2DEXT, "SMC_CLC_DECL_NOV2DEXT", "peer sent no CLC SMC-Dv2 extension" },
	{ SMCR_DECL_NOSEID, "SMC_CLC_DECL_NOSEID", "peer sent no SEID" },
	{ SMCR_DECL_NOSMCD2DEV, "SMC_CLC_DECL_NOSMCD2DEV", "no SMC-Dv2 device found" },
	{ SMCR_DECL_NOUEID, "SMC_CLC_DECL_NOUEID", "peer sent no UEID or no UEID in common" },
	{ SMCR_DECL_RELEASEERR, "SMC_CLC_DECL_RELEASEERR", "release version negotiation failed" },
	{ SMCR_DECL_MAXCONNERR, "SMC_CLC_DECL_MAXCONNERR", "max connections negotiation failed" },
	{ SMCR_DECL_MAXLINKERR, "SMC_CLC_DECL_MAXLINKERR", "max links negotiation failed" },
	{ SMCR_DECL_MODEUNSUPP, "SMC_CLC_DECL_MODEUNSUPP", "SMC modes do not match (R or D)" },
	{ SMCR_DECL_RMBE_EC, "SMC_CLC_DECL_RMBE_EC", "peer uses eyecatchers in the RMBE" },
	{ SMCR_DECL_OPTUNSUPP, "SMC_CLC_DECL_OPTUNSUPP", "socket option (fastopen) not supported" },
	{ SMCR_DECL_DIFFPREFIX, "SMC_CLC_DECL_DIFFPREFIX", "IP prefix / subnet mismatch" },
	{ SMCR_DECL_GETVLANERR, "SMC_CLC_DECL_GETVLANERR", "cannot get the VLAN id of the IP device" },
	{ SMCR_DECL_ISMVLANERR, "SMC_CLC_DECL_ISMVLANERR", "cannot register the VLAN id on the ISM device" },
	{ SMCR_DECL_NOACTLINK, "SMC_CLC_DECL_NOACTLINK", "no active SMC-R link in the link group" },
	{ SMCR_DECL_NOSRVLINK, "SMC_CLC_DECL_NOSRVLINK", "SMC-R link named by the server not found" },
	{ SMCR_DECL_VERSMISMAT, "SMC_CLC_DECL_VERSMISMAT", "SMC version mismatch" },
	{ SMCR_DECL_MAX_DMB, "SMC_CLC_DECL_MAX_DMB", "SMC-D DMB limit exceeded" },
	{ SMCR_DECL_NOROUTE, "SMC_CLC_DECL_NOROUTE", "SMC-Rv2: no route to the peer" },
	{ SMCR_DECL_NOINDIRECT, "SMC_CLC_DECL_NOINDIRECT", "SMC-Rv2: direct/indirect mismatch" },
	{ SMCR_DECL_SYNCERR, "SMC_CLC_DECL_SYNCERR", "synchronization error" },
	{ SMCR_DECL_PEERDECL, "SMC_CLC_DECL_PEERDECL", "peer declined during the handshake" },
	{ SMCR_DECL_INTERR, "SMC_CLC_DECL_INTERR", "internal error" },
	{ SMCR_DECL_ERR_RTOK, "SMC_CLC_DECL_ERR_RTOK", "rtoken handling failed" },
	{ SMCR_DECL_ERR_RDYLNK, "SMC_CLC_DECL_ERR_RDYLNK", "IB link setup (ready link) failed" },
	{ SMCR_DECL_ERR_REGBUF, "SMC_CLC_DECL_ERR_REGBUF", "registering RDMA buffers failed" },
	/* values used by older kernels */
	{ 0x02000000u, "SMC_CLC_DECL_TIMEOUT", "timeout (older kernels)" },
	{ 0x02040000u, "SMC_CLC_DECL_TCL", "timeout waiting for QP confirm (older kernels)" },
	{ 0x06000000u, "SMC_CLC_DECL_REPLY", "reply to a received decline (older kernels)" },
	{ 0x07000000u, "SMC_CLC_DECL_SEND", "sending problem (older kernels)" },
	{ 0x08000000u, "SMC_CLC_DECL_RMBE_EC", "peer uses eyecatchers in the RMBE (older kernels)" },
	{ 0x99990000u, "SMC_CLC_DECL_INTERR", "internal error (older kernels)" },
	{ 0x99990001u, "SMC_CLC_DECL_ERR_RTOK", "rtoken handling failed (older kernels)" },
	{ 0x99990002u, "SMC_CLC_DECL_ERR_RDYLNK", "IB link setup (ready link) failed (older kernels)" },
	{ 0x99990003u, "SMC_CLC_DECL_ERR_REGRMB", "registering the RMB failed (older kernels)" },
};

static const decline_entry *decline_find(uint32_t code)
{
	for (size_t i = 0; i < sizeof(decline_table) / sizeof(decline_table[0]); i++)
		if (decline_table[i].code == code)
			return &decline_table[i];
	return NULL;
}

/* RFC 7609 and Linux group the codes by their high byte. */
static const char *decline_class_text(uint32_t code)
{
	switch (code >> 24) {
	case 0x01: return "insufficient resources (unknown detail code)";
	case 0x02: return "timeout (unknown detail code)";
	case 0x03: return "configuration error (unknown detail code)";
	case 0x04: return "synchronization error (unknown detail code)";
	case 0x05: return "peer declined (unknown detail code)";
	case 0x06: return "reply to a decline (unknown detail code)";
	case 0x07: return "sending problem (unknown detail code)";
	case 0x08: return "RMBE eyecatcher (unknown detail code)";
	case 0x09:
	case 0x99: return "internal error (unknown detail code)";
	default: return "unknown peer diagnosis code";
	}
}

const char *smcr_decline_name(uint32_t code)
{
	const decline_entry *e = decline_find(code);
	return e ? e->name : "SMC_CLC_DECL_UNKNOWN";
}

const char *smcr_decline_text(uint32_t code)
{
	const decline_entry *e = decline_find(code);
	return e ? e->text : decline_class_text(code);
}

uint8_t smcr_rmbe_size_code(uint32_t bytes)
{
	if (bytes <= 16384)
		return 0;
	/* Linux smc_compress_bufsize: round up to the next power of two */
	uint32_t units = (bytes - 1) >> 14;
	uint8_t log2 = 0;
	while (units >>= 1)
		log2++;
	uint8_t code = (uint8_t)(log2 + 1);
	return code > 15 ? 15 : code;
}

uint32_t smcr_rmbe_size_bytes(uint8_t code)
{
	return 16384u << (code & 0x0F);
}
