/* smc-tools style report (Linux), one block per stack, as smc-tools v1.8.5 prints each view
 * (its linkgroup.c, dev.c, stats.c, info.c, smcss.c and the smc_rnics script, read for
 * their format strings): smcr info, smcr linkgroup show, smcr -d linkgroup, smcr -dd
 * linkgroup link-show, smcr device, smc_rnics, smcr -d stats, smcss -a, smcss -R, and for a
 * report read from a capture smcss -d. What a report cannot know (UID, inode, interface
 * index) prints as zero, like an unset field in smc-tools. A TCP-mode socket shows its
 * fallback reason as smcss does: "TCP 0x03030002", the peer's code after a slash only
 * when there is one. Trailing blanks are trimmed. */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "model/clc.h"
#include "sim/report/report_print.h"
#include "sim/report/report_smc_int.h"

void report_smc_line(FILE *out, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	size_t n = strlen(buf);
	while (n > 0 && buf[n - 1] == ' ')
		buf[--n] = '\0';
	fprintf(out, "%s\n", buf);
}

#define line report_smc_line

static const report_rnic *rnic_of(const smcr_report *r, uint32_t id)
{
	return id == REPORT_UNKNOWN ? NULL : report_rnic_by_id(r, id);
}

/* A link group id replay had to make up is said below the table (the column keeps
 * smc-tools' width). */
static void print_made_up_ids(FILE *out, const smcr_report *r, const report_stack *s)
{
	for (size_t i = 0; i < r->n_lgrs; i++) {
		const report_lgr *g = &r->lgrs[i];
		if (g->stack_id == s->id && g->id_made_up)
			line(out, "(%08" PRIx32 ": id made up by replay, no link id in the capture tells it)", g->id);
	}
}

static void print_lgr_show(FILE *out, const smcr_report *r, const report_stack *s)
{
	line(out, "# smcr linkgroup show");
	line(out, "LG-ID    LG-Role  LG-Type  VLAN  #Conns  PNET-ID ");
	for (size_t i = 0; i < r->n_lgrs; i++) {
		const report_lgr *g = &r->lgrs[i];
		if (g->stack_id != s->id)
			continue;
		unsigned vlan = g->vlan == REPORT_NO_VLAN ? 0 : g->vlan;
		char v[16];
		snprintf(v, sizeof(v), "%#x", vlan);
		line(out, "%08" PRIx32 " %-8s %-8s %4s  %6u  %-16s", g->id, report_role_short(g->role),
		     report_lgr_type_name(g->type), v, g->n_conns, g->pnetid);
	}
	if (r->from_capture)
		print_made_up_ids(out, r, s);
}

static void print_link_show(FILE *out, const smcr_report *r, const report_stack *s)
{
	line(out, "# smcr -dd linkgroup link-show");
	line(out, "LG-ID    LG-Role  LG-Type  Net-Dev         Link-State      #Conns  Link-UID  Peer-UID  "
	          "IB-Dev    IB-P  Local-GID                                 Peer-GID");
	for (size_t i = 0; i < r->n_links; i++) {
		const report_link *l = &r->links[i];
		if (l->stack_id != s->id)
			continue;
		const report_lgr *g = report_lgr_by_id(r, s->id, l->lgr_id);
		const report_rnic *n = rnic_of(r, l->rnic_id);
		char lg[46], pg[46];
		report_gid_str(l->local_gid, lg, sizeof(lg));
		report_gid_str(l->remote_gid, pg, sizeof(pg));
		line(out, "%08" PRIx32 " %-8s %-8s %-15.15s %-15s %6u  %08" PRIx32 "  %08" PRIx32 "  %-8.8s  %4u  %-40s  %s",
		     l->lgr_id, report_role_short(g ? g->role : REPORT_ROLE_UNKNOWN),
		     report_lgr_type_name(g ? g->type : REPORT_LGR_NONE), n ? n->netdev : "",
		     report_link_state_name(l->state), l->n_conns, l->local_link_id, l->remote_link_id,
		     n ? n->name : "", n ? n->port : 0, lg, pg);
	}
}

/* A device is critical when some link group of its stack has no active link elsewhere. */
static bool rnic_critical(const smcr_report *r, const report_rnic *n)
{
	for (size_t gi = 0; gi < r->n_lgrs; gi++) {
		const report_lgr *g = &r->lgrs[gi];
		if (g->stack_id != n->stack_id)
			continue;
		unsigned here = 0, elsewhere = 0;
		for (size_t li = 0; li < r->n_links; li++) {
			const report_link *l = &r->links[li];
			if (l->stack_id != g->stack_id || l->lgr_id != g->id || l->state != REPORT_LINK_ACTIVE)
				continue;
			if (l->rnic_id == n->id)
				here++;
			else
				elsewhere++;
		}
		if (here && !elsewhere)
			return true;
	}
	return false;
}

static void print_device(FILE *out, const smcr_report *r, const report_stack *s)
{
	line(out, "# smcr device");
	line(out, "Net-Dev         IB-Dev   IB-P  IB-State  Type          Crit  #Links  PNET-ID  ");
	for (size_t i = 0; i < r->n_rnics; i++) {
		const report_rnic *n = &r->rnics[i];
		if (n->stack_id != s->id)
			continue;
		unsigned links = 0;
		for (size_t li = 0; li < r->n_links; li++)
			if (r->links[li].rnic_id == n->id && r->links[li].state == REPORT_LINK_ACTIVE)
				links++;
		char type[16];
		report_smc_dev_type(n->pci_device, type, sizeof(type));
		line(out, "%-15.15s %-8.8s %4u  %8s  %-13s  %3s   %5u  %-16s", n->netdev, n->name, n->port,
		     n->status == REPORT_RNIC_READY ? "ACTIVE" : "INACTIVE", type, rnic_critical(r, n) ? "Yes" : "No", links,
		     n->pnetid);
	}
}

/* smcss's addr_format() without -w: "addr:port", and past 23 characters the address cut
 * and marked "..": "fd00:1234:5678:9a..:5000" */
static void addr_str(uint8_t family, const uint8_t ip[16], uint16_t port, char *out, size_t n)
{
	char ipbuf[64], portbuf[8];
	report_ip_str(family, ip, ipbuf, sizeof(ipbuf));
	snprintf(portbuf, sizeof(portbuf), "%u", port);
	size_t alen = strlen(ipbuf), plen = strlen(portbuf);
	if (alen + 1 + plen > 23)
		snprintf(out, n, "%.*s..:%s", (int)(23 - 1 - plen - 2), ipbuf, portbuf);
	else
		snprintf(out, n, "%s:%s", ipbuf, portbuf);
}

/* State, UID, Inode, Local Address, Peer Address, Intf: the columns every smcss row has */
static void row_head(const report_conn *c, char *out, size_t n)
{
	char la[80], pa[80];
	addr_str(c->family, c->local_ip, c->local_port, la, sizeof(la));
	addr_str(c->family, c->peer_ip, c->peer_port, pa, sizeof(pa));
	snprintf(out, n, "%-14s %05d %07d %-23s %-23s %04x", report_conn_state_name(c->state), 0, 0, la, pa, 0u);
}

/* smcss's Mode column of a TCP socket: its reason, the peer's after a slash when it sent one */
static void fallback_mode(const report_conn *c, char *out, size_t n)
{
	if (c->peer_diagnosis)
		snprintf(out, n, "TCP 0x%08" PRIx32 "/0x%08" PRIx32, c->fallback_reason, c->peer_diagnosis);
	else
		snprintf(out, n, "TCP 0x%08" PRIx32, c->fallback_reason);
}

static void print_smcss(FILE *out, const smcr_report *r, const report_stack *s, bool smcr_only)
{
	line(out, smcr_only ? "# smcss -R" : "# smcss -a");
	if (smcr_only)
		line(out, "State          UID   Inode   Local Address           Peer Address            Intf Mode "
		          "Role IB-device       Port Linkid GID                                      Peer-GID");
	else
		line(out, "State          UID   Inode   Local Address           Peer Address            Intf Mode ");
	for (size_t i = 0; i < r->n_conns; i++) {
		const report_conn *c = &r->conns[i];
		if (c->stack_id != s->id || (smcr_only && c->mode != REPORT_MODE_SMCR))
			continue;
		char head[256], mode[40];
		row_head(c, head, sizeof(head));
		if (c->mode == REPORT_MODE_TCP)
			fallback_mode(c, mode, sizeof(mode));
		else
			snprintf(mode, sizeof(mode), "%4s", report_conn_mode_name(c->mode));
		if (!smcr_only) {
			line(out, "%s %s", head, mode);
			continue;
		}
		const report_link *lk = NULL;
		for (size_t li = 0; li < r->n_links; li++)
			if (r->links[li].stack_id == c->stack_id && r->links[li].lgr_id == c->lgr_id &&
			    r->links[li].link_num == c->link_num)
				lk = &r->links[li];
		const report_lgr *g = report_lgr_by_id(r, c->stack_id, c->lgr_id);
		const report_rnic *n = lk ? rnic_of(r, lk->rnic_id) : NULL;
		char lg[46], pg[46];
		report_gid_str(c->local_gid, lg, sizeof(lg));
		report_gid_str(c->peer_gid, pg, sizeof(pg));
		line(out, "%s %s %4s %-15s %02x   %02x     %-40s %s", head, mode, report_role_short(g ? g->role : c->role),
		     n ? n->name : "", n ? n->port : 0, c->link_num, lg, pg);
	}
}

static void cursor_str(report_cursor c, char *out, size_t n)
{
	snprintf(out, n, "%04x:%08" PRIx32, c.wrap, c.count);
}

/* the CDC connection state flags (RFC 7609 and Linux struct smc_cdc_conn_state_flags):
 * done writing, closed, abnormal close */
#define CONN_FLAGS_CLOSING 0xE0u

/* smcss -d: every socket; an SMC-R one with its shutdown state (R: receiving shut, from
 * the peer's close flags; W: sending shut, from ours), token, buffer sizes and cursors,
 * in hex as smcss prints them. A capture shows no send buffer cursors: zeros there. */
static void print_smcss_debug(FILE *out, const smcr_report *r, const report_stack *s)
{
	line(out, "# smcss -d");
	line(out, "State          UID   Inode   Local Address           Peer Address            Intf Mode Shutd Token    "
	          "Sndbuf   Rcvbuf   Peerbuf  rxprod-Cursor rxcons-Cursor rxFlags txprod-Cursor txcons-Cursor txFlags "
	          "txprep-Cursor txsent-Cursor txfin-Cursor  ");
	for (size_t i = 0; i < r->n_conns; i++) {
		const report_conn *c = &r->conns[i];
		if (c->stack_id != s->id)
			continue;
		char head[256], mode[40];
		row_head(c, head, sizeof(head));
		if (c->mode != REPORT_MODE_SMCR) {
			fallback_mode(c, mode, sizeof(mode));
			line(out, "%s %s", head, c->mode == REPORT_MODE_TCP ? mode : report_conn_mode_name(c->mode));
			continue;
		}
		char cur[7][24];
		report_cursor cs[7] = { c->rx_prod, c->rx_cons, c->tx_prod, c->tx_cons, c->tx_prep, c->tx_sent, c->tx_fin };
		for (int k = 0; k < 7; k++)
			cursor_str(cs[k], cur[k], sizeof(cur[k]));
		line(out, "%s %4s  %c-%c  %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %s %s %02x:%02x   %s %s %02x:%02x   %s %s %s",
		     head, "SMCR", c->rx_conn_flags & CONN_FLAGS_CLOSING ? 'R' : '<', c->tx_conn_flags & CONN_FLAGS_CLOSING ? 'W' : '>',
		     c->local_token, c->sndbuf_size, c->rmbe_size, c->peer_rmbe_size, cur[0], cur[1], c->rx_prod_flags,
		     c->rx_conn_flags, cur[2], cur[3], c->tx_prod_flags, c->tx_conn_flags, cur[4], cur[5], cur[6]);
	}
}

/* smcr -d linkgroup: show_lgr_smcr_info_lgr_details() per link group, a blank line between */
static void print_lgr_details(FILE *out, const smcr_report *r, const report_stack *s)
{
	static const char *os_names[] = { "Unknown (0)", "ZOS", "LINUX", "AIX" };
	line(out, "# smcr -d linkgroup");
	bool first = true;
	for (size_t i = 0; i < r->n_lgrs; i++) {
		const report_lgr *g = &r->lgrs[i];
		if (g->stack_id != s->id)
			continue;
		if (!first)
			fputc('\n', out);
		first = false;
		line(out, "LG-ID    : %08" PRIx32, g->id);
		line(out, "LG-Role  : %s", g->role == REPORT_ROLE_SERVER ? "SERV" : "CLNT");
		line(out, "LG-Type  : %s", report_lgr_type_name(g->type));
		line(out, "VLAN     : %x", g->vlan == REPORT_NO_VLAN ? 0u : (unsigned)g->vlan);
		line(out, "PNET-ID  : %s", g->pnetid);
		line(out, "Version  : %u", g->version == 2 ? 2u : 1u);
		if (g->version == 2) {
			line(out, "Peer-Rel : %u", (unsigned)g->peer_release);
			line(out, "Peer-Host: %s", g->peer_host);
			if (g->peer_os < sizeof(os_names) / sizeof(os_names[0]))
				line(out, "Peer-OS  : %s", os_names[g->peer_os]);
			else
				line(out, "Peer-OS  : Unknown (%#x)", (unsigned)g->peer_os);
			line(out, "Direct   : %s", g->v2_direct ? "Yes" : "No");
			line(out, "EID      : %s", g->eid);
		}
		line(out, "#Conns   : %u", g->n_conns);
		line(out, "Sndbuf   : %" PRIu64 " B", g->sndbuf_storage);
		line(out, "RMB      : %" PRIu64 " B", g->buf_storage);
	}
}

void report_print_smc(FILE *out, const smcr_report *r)
{
	for (size_t si = 0; si < r->n_stacks; si++) {
		const report_stack *s = &r->stacks[si];
		if (si)
			fputc('\n', out);
		line(out, "=== stack %u: %s (%s) ===", s->id, s->name[0] ? s->name : "?", report_os_name(s->os));
		if (!r->from_capture) { /* a capture shows neither the hosts nor their counters */
			report_smc_info(out, r, s);
			fputc('\n', out);
		}
		print_lgr_show(out, r, s);
		fputc('\n', out);
		print_lgr_details(out, r, s);
		fputc('\n', out);
		print_link_show(out, r, s);
		fputc('\n', out);
		print_device(out, r, s);
		fputc('\n', out);
		report_smc_rnics(out, r, s);
		fputc('\n', out);
		report_smc_stats(out, s);
		fputc('\n', out);
		print_smcss(out, r, s, false);
		fputc('\n', out);
		print_smcss(out, r, s, true);
		if (r->from_capture) {
			fputc('\n', out);
			print_smcss_debug(out, r, s);
		}
	}
}
