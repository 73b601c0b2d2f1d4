/* `smcr info` (smc-tools info.c) and `smc_rnics` (the smc_rnics script of smc-tools
 * v1.8.5) of one stack, and smcr device's Type column (dev.c smc_ib_dev_type).
 *
 * smcr info: the kernel's capabilities (SMC version and release, host name, SMC-D and
 * SMC-R feature levels) and the hardware's: the system EID (ISM v2, s390 only: n/a here),
 * ISM (none simulated: n/a) and RoCE, "v1" when an IBM RoCE Express adapter is there and
 * "v2" as well for RoCE Express2 or 3, from the adapters' PCI device ids as info.c counts
 * them; other adapters (a Linux stack's ConnectX) leave it n/a, as on a real host.
 *
 * smc_rnics lists the IBM Z PCI functions with their FID; only IBM adapters are shown
 * without -a, as the script does. What a simulated adapter lacks is made up
 * deterministically: the PCI address is the FID's domain (0101:00:00.0), the PCHID 0000. */
#include <inttypes.h>
#include <string.h>

#include "sim/report/report_smc_int.h"

#define PCI_ROCE_EXPRESS 0x1004
#define PCI_ROCE_EXPRESS2 0x1016
#define PCI_ROCE_EXPRESS3 0x101e
#define PCI_ISM 0x04ed

void report_smc_dev_type(uint16_t pci_device, char *out, size_t outlen)
{
	switch (pci_device) {
	case PCI_ROCE_EXPRESS:
		snprintf(out, outlen, "RoCE_Express");
		break;
	case PCI_ROCE_EXPRESS2:
		snprintf(out, outlen, "RoCE_Express2");
		break;
	case PCI_ROCE_EXPRESS3:
		snprintf(out, outlen, "RoCE_Express3");
		break;
	case PCI_ISM:
		snprintf(out, outlen, "ISM");
		break;
	default:
		snprintf(out, outlen, "%#x", (unsigned)pci_device);
		break;
	}
}

void report_smc_info(FILE *out, const smcr_report *r, const report_stack *s)
{
	unsigned v1 = 0, v2 = 0; /* RoCE Express; Express2 or 3 */
	for (size_t i = 0; i < r->n_rnics; i++) {
		const report_rnic *n = &r->rnics[i];
		if (n->stack_id != s->id)
			continue;
		v1 += n->pci_device == PCI_ROCE_EXPRESS;
		v2 += n->pci_device == PCI_ROCE_EXPRESS2 || n->pci_device == PCI_ROCE_EXPRESS3;
	}
	char roce[8] = "";
	if (v1 || v2)
		snprintf(roce, sizeof(roce), "v1 %s", v2 ? "v2" : "");
	report_smc_line(out, "# smcr info");
	report_smc_line(out, "Kernel Capabilities");
	report_smc_line(out, "SMC Version:      2.%u", (unsigned)s->smc_release);
	report_smc_line(out, "SMC Hostname:     %s", s->hostname[0] ? s->hostname : "n/a");
	report_smc_line(out, "SMC-D Features:   v1 v2");
	report_smc_line(out, "SMC-R Features:   v1%s", s->smcr_v2 ? " v2" : "");
	fputc('\n', out);
	report_smc_line(out, "Hardware Capabilities");
	report_smc_line(out, "SEID:             n/a");
	report_smc_line(out, "ISM:              n/a");
	report_smc_line(out, "RoCE:             %s", roce[0] ? roce : "n/a");
}

void report_smc_rnics(FILE *out, const smcr_report *r, const report_stack *s)
{
	report_smc_line(out, "# smc_rnics");
	report_smc_line(out, "FID   Power  PCI_ID        PCHID  Type             PFT   VF   PPrt  PNET_ID            Net-Dev");
	report_smc_line(out, "----------------------------------------------------------------------------------------------------");
	for (size_t i = 0; i < r->n_rnics; i++) {
		const report_rnic *n = &r->rnics[i];
		bool ibm = n->pci_device == PCI_ROCE_EXPRESS || n->pci_device == PCI_ROCE_EXPRESS2 ||
		           n->pci_device == PCI_ROCE_EXPRESS3;
		if (n->stack_id != s->id || !ibm || n->pfid == REPORT_UNKNOWN)
			continue;
		char type[16], addr[16], port[8];
		report_smc_dev_type(n->pci_device, type, sizeof(type));
		snprintf(addr, sizeof(addr), "%04" PRIx32 ":00:00.0", n->pfid & 0xFFFFu);
		/* the script's PPrt: the net device's dev_port for a RoCE Express (0-based), the
		 * port file less one for the later ones: 0-based both */
		if (n->port)
			snprintf(port, sizeof(port), "%u", (unsigned)n->port - 1);
		else
			snprintf(port, sizeof(port), "n/a");
		report_smc_line(out, "%4" PRIx32 "  %-5s  %-12s  %-4s   %-15s  %-4s  %-3s  %-4s  %-17s  %s", n->pfid, "1", addr, "0000",
		                type, n->pci_device == PCI_ROCE_EXPRESS ? "ROC" : "ROC2", "y", port, n->pnetid[0] ? n->pnetid : "n/a",
		                n->netdev[0] ? n->netdev : "n/a");
	}
}
