/* Link failure log lines in the shape of the z/OS VTAM message group IST2406I (z/OS
 * Communications Server: SNA Messages, IST2406I):
 *
 *   IST2406I SMC-R LINK FAILURE ON TRLE trlename CODE = rsn_code
 *   IST1717I ULPID = ulp_id ULP INTERFACE = ulp_interface
 *   IST2407I LOCAL LINK ID = local_id REMOTE LINK ID = remote_id
 *   IST2408I LOCAL MAC = local_mac REMOTE MAC = remote_mac
 *   IST2409I LOCAL GID = gid / IST2409I REMOTE GID = gid
 *   IST2410I LOCAL QP = local_qp_num REMOTE QP = remote_qp_num
 *   [IST2411I VLAN = vlan_id]
 *   IST314I END
 *
 * and, when a RoCE interface becomes inoperative, the group IBM lists under IST1717I (the
 * interface INOP) with IST1578I (inoptype DEVICE for a RoCE Express interface):
 *
 *   IST1717I ULPID = ulp_id ULP INTERFACE = ulp_interface
 *   IST1578I DEVICE INOP DETECTED FOR trlename BY modname CODE = code
 *
 * IBM does not say which module detects a RoCE INOP nor with which code: both are shown
 * as *NA* (docs/deviations.md). The INOP comes before the link failures it causes.
 *
 * A Linux stack (or a capture's Linux host) gets Linux net/smc's own kernel message for the
 * link it clears, failed or removed (smc_llc_link_clear, Linux 6.1: "smc: SMC-R lg … net 1
 * link removed: id …, peerid …, ibdev …, ibport …"; net 1: the initial net namespace)
 * instead of the VTAM group, when the RNIC port is known.
 *
 * The TRLE of an RNIC interface EZARIUTpffff is IUTpffff (assumed: the interface name
 * without its EZAR prefix, see docs/zos.md); for other interface names the name itself is
 * shown. The ULP id is the stack's name (the TCP/IP job name on z/OS). Each group is
 * preceded by one line with the time, the capture frame and the cause in words. Orderly
 * removals get that line only: they are not failures; so does the end of a link group,
 * with how it ended and the DELETE LINK reason. */
#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "model/llc.h"
#include "sim/report/report_print.h"

static void upper(char *s)
{
	for (; *s; s++)
		*s = (char)toupper((unsigned char)*s);
}

static void trle_name(const char *intf, char *out, size_t n)
{
	if (!strncmp(intf, "EZAR", 4) && intf[4])
		snprintf(out, n, "%s", intf + 4);
	else
		snprintf(out, n, "%s", intf[0] ? intf : "UNKNOWN");
}

void report_print_log(FILE *out, const smcr_report *r)
{
	for (size_t i = 0; i < r->n_events; i++) {
		const report_event *e = &r->events[i];
		const report_stack *s = report_stack_by_id(r, e->stack_id);
		const char *stack = s && s->name[0] ? s->name : "?";
		fprintf(out, "[%4" PRIu64 ".%09" PRIu64, e->time_ns / 1000000000u, e->time_ns % 1000000000u);
		if (e->frame)
			fprintf(out, ", frame %" PRIu64, e->frame);
		if (e->kind == REPORT_EVENT_LGR_ENDED) {
			fprintf(out, "] %s: SMC-R link group %08" PRIX32 " %s", stack, e->lgr_id, e->cause);
			if (e->code)
				fprintf(out, ", reason %08" PRIX32 " (%s)", e->code, smcr_llc_del_reason_text(e->code));
			fputc('\n', out);
			continue;
		}
		char trle[REPORT_INTF_LEN + 8], a[64], b[64];
		trle_name(e->intf, trle, sizeof(trle));
		if (e->kind == REPORT_EVENT_INTF_INOP) {
			const char *intf = e->intf[0] ? e->intf : "UNKNOWN";
			fprintf(out, "] %s: RoCE interface %s inoperative: %s\n", stack, intf, e->cause);
			fprintf(out, "IST1717I ULPID = %s ULP INTERFACE = %s\n", stack, intf);
			fprintf(out, "IST1578I DEVICE INOP DETECTED FOR %s BY *NA* CODE = *NA*\n", trle);
			continue;
		}
		fprintf(out, "] %s: %s: %s\n", stack, e->kind == REPORT_EVENT_LINK_FAILED ? "SMC-R link failure" : "SMC-R link removed",
		        e->cause);
		if (s && s->os == REPORT_OS_LINUX) {
			/* Linux logs the link it clears, failed or removed (smc_llc_link_clear) */
			if (e->port)
				fprintf(out, "smc: SMC-R lg %08" PRIX32 " net 1 link removed: id %08" PRIX32 ", peerid %08" PRIX32
				             ", ibdev %s, ibport %u\n",
				        e->lgr_id, e->local_link_id, e->remote_link_id, e->intf[0] ? e->intf : "?", e->port);
			continue;
		}
		if (e->kind != REPORT_EVENT_LINK_FAILED)
			continue;
		fprintf(out, "IST2406I SMC-R LINK FAILURE ON TRLE %s CODE = %08" PRIX32 "\n", trle, e->code);
		fprintf(out, "IST1717I ULPID = %s ULP INTERFACE = %s\n", stack, e->intf[0] ? e->intf : "UNKNOWN");
		fprintf(out, "IST2407I LOCAL LINK ID = %08" PRIX32 " REMOTE LINK ID = %08" PRIX32 "\n", e->local_link_id,
		        e->remote_link_id);
		report_vmac_str(e->local_mac, a, sizeof(a));
		report_vmac_str(e->remote_mac, b, sizeof(b));
		fprintf(out, "IST2408I LOCAL MAC = %s REMOTE MAC = %s\n", a, b);
		report_gid_str(e->local_gid, a, sizeof(a));
		report_gid_str(e->remote_gid, b, sizeof(b));
		upper(a);
		upper(b);
		fprintf(out, "IST2409I LOCAL GID = %s\n", a);
		fprintf(out, "IST2409I REMOTE GID = %s\n", b);
		fprintf(out, "IST2410I LOCAL QP = %06" PRIX32 " REMOTE QP = %06" PRIX32 "\n", e->local_qpn, e->remote_qpn);
		if (e->vlan != REPORT_NO_VLAN)
			fprintf(out, "IST2411I VLAN = %u\n", e->vlan);
		fprintf(out, "IST314I END\n");
	}
}
