/* Linux kernel presets (scn_kernel.h). Every row: the first version with the value, the
 * value, and where it was read. Sources are Debian's linux-source packages (6.1.176,
 * 6.12.95, 7.3.4: net/smc) and the upstream commits named. */
#include "sim/scenario/scn_kernel.h"

#include <stdlib.h>
#include <string.h>

const scn_kernel scn_kernel_default = { 6, 12 };

int scn_kernel_cmp(scn_kernel a, scn_kernel b)
{
	if (a.major != b.major)
		return a.major < b.major ? -1 : 1;
	return a.minor < b.minor ? -1 : a.minor > b.minor;
}

static bool at_least(scn_kernel k, uint16_t major, uint16_t minor)
{
	return scn_kernel_cmp(k, (scn_kernel){ major, minor }) >= 0;
}

bool scn_kernel_parse(const char *text, scn_kernel *out, const char **why)
{
	unsigned long part[3] = { 0, 0, 0 };
	const char *p = text;
	int n = 0;
	*why = "expected a Linux kernel version such as 6.1, 6.12 or 7.3 (4.11 or later: SMC came with 4.11)";
	while (n < 3) {
		if (*p < '0' || *p > '9')
			return false;
		char *end;
		part[n++] = strtoul(p, &end, 10);
		if (part[n - 1] > 999)
			return false;
		p = end;
		if (!*p)
			break;
		if (*p != '.')
			return false;
		p++;
	}
	if (*p || n < 2)
		return false;
	scn_kernel k = { (uint16_t)part[0], (uint16_t)part[1] };
	if (!at_least(k, 4, 11))
		return false;
	*out = k;
	return true;
}

const char *scn_kernel_text(scn_kernel k, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u", k.major, k.minor);
	return buf;
}

void scn_kernel_values_for(scn_kernel k, scn_kernel_values *out)
{
	memset(out, 0, sizeof(*out));
	out->smcr_v2 = at_least(k, 5, 16);
	out->release = at_least(k, 6, 6) ? 1 : 0;
	out->feature_mask = at_least(k, 6, 8) ? 0x0001 : 0;
	out->rmbe_max_code = at_least(k, 6, 11) ? 15 : 5;
	out->autocork = at_least(k, 5, 18) ? 64 * 1024 : 0;
	out->v21_sysctls = at_least(k, 6, 6);
	out->limit_hs_sysctl = at_least(k, 6, 12);
}

/* The rows of `check --defaults`: what changes with the kernel, from when, and why. */
static const struct {
	const char *what, *until, *from, *source;
} rows[] = {
	{ "SMC-Rv2 (smcr v2=)", "no before 5.16", "yes from 5.16",
	  "SMC-Rv2 support, Karsten Graul's series for 5.16 (Ubuntu 22.04's 5.15 has none)" },
	{ "release proposed (smcr release=)", "0 (v2.0) before 6.6", "1 (v2.1) from 6.6",
	  "SMC_RELEASE (net/smc/smc.h): 0 in 6.1.176, SMC_RELEASE_1 in 6.12.95 and 7.3.4; \"net/smc: support "
	  "SMC release version negotiation in clc handshake\" (6.6)" },
	{ "feature_mask", "0 on 6.6 and 6.7", "1 from 6.8",
	  "SMC_FEATURE_MASK = BIT(SMC_SPF_EMULATED_ISM_DEV) (net/smc/smc.h, 6.12.95); 6.6 and 6.7 send 0" },
	{ "largest RMB and send buffer", "512 KiB up to 6.10", "512 MiB from 6.11",
	  "SMCR_RMBE_SIZES in smc_core.c: 5 in 6.1.176, 15 in 6.12.95 (smc_compress_bufsize caps the size code)" },
	{ "smcr autocork= (net.smc.autocorking_size)", "0 (none) before 5.18", "64K from 5.18",
	  "SMC_AUTOCORKING_DEFAULT_SIZE 0x10000 (net/smc/smc.h), min(sndbuf/2, it) in smc_should_autocork" },
	{ "smcr maxlinks=, maxconns= sysctls", "none before 6.6 (2, 255 fixed)", "from 6.6",
	  "smcr_max_links_per_lgr, smcr_max_conns_per_lgr (net/smc/smc_sysctl.c, 6.12.95)" },
	{ "smcr limiths= (net.smc.limit_smc_hs)", "netlink and SMC_LIMIT_HS only before 6.12", "sysctl from 6.12",
	  "\"net/smc: add sysctl for smc_limit_hs\" (Sept 2024); the socket option and netlink since 5.18; "
	  "default off in every version" },
	{ "rmem, wmem (smcr rmbsize=, sndbufsize=)", "64K", "64K",
	  "net_smc_rmem_init, net_smc_wmem_init (net/smc/smc_sysctl.c) in 6.1.176, 6.12.95, 7.3.4" },
	{ "smcr_max_send_wr, smcr_max_recv_wr", "16, 48 fixed", "16, 48 (sysctls in 7.3)",
	  "SMCR_MAX_SEND_WR_DEF, SMCR_MAX_RECV_WR_DEF (net/smc/smc_core.h, 7.3.4)" },
};

void scn_kernel_print_presets(FILE *out)
{
	fprintf(out, "\nLinux kernel presets (stack ... personality=linux kernel=X.Y; default %s): a stack's smcr\n"
	             "defaults follow its kernel; what its smcr statement says overrides them.\n",
	        SCN_KERNEL_DEFAULT_TEXT);
	fprintf(out, "%-42s %-36s %-26s %s\n", "VALUE", "OLDER KERNELS", "NEWER KERNELS", "SOURCE");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		fprintf(out, "%-42s %-36s %-26s %s\n", rows[i].what, rows[i].until, rows[i].from, rows[i].source);
}
