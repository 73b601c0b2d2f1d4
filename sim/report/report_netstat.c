/* NETSTAT DEVLINKS SMC style report, in the spirit of z/OS Communications Server: RNIC
 * interfaces (EZARIUTpffff, PFID, port, VMAC, GID, MTU, status, bytes and operations), SMC-R
 * link groups (id, role, peer, VLAN, redundancy, links, TCP connections, buffer storage)
 * and SMC-R links (local/remote 4-byte link id, state, VMACs, GIDs, QP numbers, VLAN, MTU,
 * traffic, connections). A filter by link group or link id mirrors the SMCID filter.
 * Field names follow the z/OS report where we know them (IntfName, IntfStatus, PFID,
 * PortNum, PNetID, VMAC, GID, VLANid, LnkId, QP#); the layout is our own. */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "sim/report/report_print.h"
#include "sim/report/report_storage.h"

#define COL 28

/* "Key: value" into buf. */
static const char *kv(char *buf, size_t n, const char *key, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static const char *kv(char *buf, size_t n, const char *key, const char *fmt, ...)
{
	int k = snprintf(buf, n, "%s: ", key);
	if (k < 0 || (size_t)k >= n)
		return buf;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + k, n - (size_t)k, fmt, ap);
	va_end(ap);
	return buf;
}

/* A row of up to three fields in COL-wide columns (the last one unpadded). */
static void row(FILE *out, int indent, const char *a, const char *b, const char *c)
{
	fprintf(out, "%*s", indent, "");
	if (b)
		fprintf(out, "%-*s ", COL - 1, a);
	else
		fputs(a, out);
	if (b) {
		if (c)
			fprintf(out, "%-*s %s", COL - 1, b, c);
		else
			fputs(b, out);
	}
	fputc('\n', out);
}

static const char *name_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

static void hex_u32_or_unknown(char *buf, size_t n, uint32_t v, int width)
{
	if (v == REPORT_UNKNOWN)
		snprintf(buf, n, "Unknown");
	else
		snprintf(buf, n, "%0*" PRIX32, width, v);
}

/* absent: "None" from a run, "Unknown" from a capture (no SMC-R message carries a PNET ID
 * or a net device name; the kernel had them) */
static void print_rnic(FILE *out, const report_rnic *n, const char *absent)
{
	char a[96], b[96], c[96], t[64];
	fprintf(out, "\n");
	row(out, 0, kv(a, sizeof(a), "IntfName", "%s", n->name), kv(b, sizeof(b), "IntfType", "RNIC"),
	    kv(c, sizeof(c), "IntfStatus", "%s", report_rnic_status_name(n->status)));
	hex_u32_or_unknown(t, sizeof(t), n->pfid, 4);
	char port[16];
	if (n->port)
		snprintf(port, sizeof(port), "%u", n->port);
	else
		snprintf(port, sizeof(port), "Unknown");
	row(out, 2, kv(a, sizeof(a), "PFID", "%s", t), kv(b, sizeof(b), "PortNum", "%s", port),
	    kv(c, sizeof(c), "PNetID", "%s", name_or(n->pnetid, absent)));
	report_vmac_str(n->mac, t, sizeof(t));
	char mtu[16];
	if (n->mtu)
		snprintf(mtu, sizeof(mtu), "%u", n->mtu);
	else
		snprintf(mtu, sizeof(mtu), "Unknown");
	row(out, 2, kv(a, sizeof(a), "VMAC", "%s", t), kv(b, sizeof(b), "MTU", "%s", mtu),
	    kv(c, sizeof(c), "NetDev", "%s", name_or(n->netdev, absent)));
	if (n->n_gids == 0)
		row(out, 2, "GID: Unknown", NULL, NULL);
	for (unsigned i = 0; i < n->n_gids; i++) {
		report_gid_str(n->gids[i], t, sizeof(t));
		row(out, 2, kv(a, sizeof(a), "GID", "%s", t), NULL, NULL);
	}
	row(out, 2, kv(a, sizeof(a), "BytesIn", "%" PRIu64, n->bytes_in),
	    kv(b, sizeof(b), "BytesOut", "%" PRIu64, n->bytes_out), NULL);
	row(out, 2, kv(a, sizeof(a), "OpsIn", "%" PRIu64, n->ops_in),
	    kv(b, sizeof(b), "OpsOut", "%" PRIu64, n->ops_out), NULL);
}

static void print_link(FILE *out, const smcr_report *r, const report_link *l)
{
	char a[96], b[96], c[96], t[64];
	fprintf(out, "\n");
	row(out, 2, kv(a, sizeof(a), "LnkId", "%08" PRIX32, l->local_link_id),
	    kv(b, sizeof(b), "RemoteLnkId", "%08" PRIX32, l->remote_link_id),
	    kv(c, sizeof(c), "LinkNum", "%u", l->link_num));
	report_vlan_str(l->vlan, t, sizeof(t));
	char mtu[16];
	if (l->mtu)
		snprintf(mtu, sizeof(mtu), "%u", l->mtu);
	else
		snprintf(mtu, sizeof(mtu), "Unknown");
	row(out, 4, kv(a, sizeof(a), "LinkStatus", "%s", report_link_state_word(l->state)),
	    kv(b, sizeof(b), "VLANid", "%s", t), kv(c, sizeof(c), "MTU", "%s", mtu));
	const report_rnic *n = l->rnic_id == REPORT_UNKNOWN ? NULL : report_rnic_by_id(r, l->rnic_id);
	row(out, 4, kv(a, sizeof(a), "RNIC interface", "%s", n ? n->name : "Unknown"), NULL, NULL);
	report_vmac_str(l->local_mac, t, sizeof(t));
	row(out, 4, kv(a, sizeof(a), "LocalVMAC", "%s", t),
	    kv(b, sizeof(b), "LocalQP#", "%06" PRIX32, l->local_qpn), NULL);
	report_gid_str(l->local_gid, t, sizeof(t));
	row(out, 4, kv(a, sizeof(a), "LocalGID", "%s", t), NULL, NULL);
	report_vmac_str(l->remote_mac, t, sizeof(t));
	row(out, 4, kv(a, sizeof(a), "RemoteVMAC", "%s", t),
	    kv(b, sizeof(b), "RemoteQP#", "%06" PRIX32, l->remote_qpn), NULL);
	report_gid_str(l->remote_gid, t, sizeof(t));
	row(out, 4, kv(a, sizeof(a), "RemoteGID", "%s", t), NULL, NULL);
	row(out, 4, kv(a, sizeof(a), "BytesIn", "%" PRIu64, l->bytes_in),
	    kv(b, sizeof(b), "BytesOut", "%" PRIu64, l->bytes_out), NULL);
	row(out, 4, kv(a, sizeof(a), "OpsIn", "%" PRIu64, l->ops_in),
	    kv(b, sizeof(b), "OpsOut", "%" PRIu64, l->ops_out), NULL);
	row(out, 4, kv(a, sizeof(a), "NAKsIn", "%" PRIu64, l->naks_in),
	    kv(b, sizeof(b), "NAKsOut", "%" PRIu64, l->naks_out),
	    kv(c, sizeof(c), "Retransmits", "%" PRIu64, l->retrans_out));
	row(out, 4, kv(a, sizeof(a), "TCPConns", "%u", l->n_conns), NULL, NULL);
}

static void print_lgr_head(FILE *out, const report_lgr *g, const char *absent)
{
	char a[96], b[96], c[96], t[64];
	fprintf(out, "\nSMCR link group: %08" PRIX32 "%s\n", g->id,
	        g->id_made_up ? "  (id made up by replay: no link id in the capture tells it)" : "");
	row(out, 2, kv(a, sizeof(a), "Role", "%s", report_role_name(g->role)),
	    kv(b, sizeof(b), "Type", "%s", report_lgr_type_name(g->type)),
	    kv(c, sizeof(c), "Redundancy", "%s", report_lgr_redundancy(g->type)));
	const uint8_t *s = g->peer_system_id;
	snprintf(t, sizeof(t), "%02X%02X%02X%02X%02X%02X%02X%02X", s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]);
	char ps[16];
	if (g->peer_stack_id)
		snprintf(ps, sizeof(ps), "%u", g->peer_stack_id);
	else
		snprintf(ps, sizeof(ps), "Unknown");
	row(out, 2, kv(a, sizeof(a), "PeerSystemId", "%s", t),
	    kv(b, sizeof(b), "PeerHost", "%s", name_or(g->peer_host, "Unknown")),
	    kv(c, sizeof(c), "PeerStack", "%s", ps));
	report_vlan_str(g->vlan, t, sizeof(t));
	char ver[16];
	if (g->version)
		snprintf(ver, sizeof(ver), "%u", g->version);
	else
		snprintf(ver, sizeof(ver), "Unknown");
	row(out, 2, kv(a, sizeof(a), "VLANid", "%s", t), kv(b, sizeof(b), "PNetID", "%s", name_or(g->pnetid, absent)),
	    kv(c, sizeof(c), "SMCVersion", "%s", ver));
	row(out, 2, kv(a, sizeof(a), "Links", "%u", g->n_links), kv(b, sizeof(b), "TCPConns", "%u", g->n_conns),
	    kv(c, sizeof(c), "BufferStorage", "%" PRIu64, g->buf_storage));
}

static bool link_selected(const report_link *l, const report_netstat_opts *o)
{
	return o->smcid == 0 || o->smcid == l->lgr_id || o->smcid == l->local_link_id;
}

static bool lgr_selected(const smcr_report *r, const report_lgr *g, const report_netstat_opts *o)
{
	if (o->smcid == 0 || o->smcid == g->id)
		return true;
	for (size_t i = 0; i < r->n_links; i++) {
		const report_link *l = &r->links[i];
		if (l->stack_id == g->stack_id && l->lgr_id == g->id && l->local_link_id == o->smcid)
			return true;
	}
	return false;
}

static bool rnic_selected(const smcr_report *r, const report_rnic *n, const report_netstat_opts *o)
{
	if (o->smcid == 0)
		return true;
	for (size_t i = 0; i < r->n_links; i++)
		if (r->links[i].rnic_id == n->id && link_selected(&r->links[i], o))
			return true;
	return false;
}

static bool conn_selected(const report_conn *c, const report_netstat_opts *o)
{
	if (o->smcid == 0)
		return true;
	return c->mode == REPORT_MODE_SMCR && (c->lgr_id == o->smcid || (c->link_id && c->link_id == o->smcid));
}

static void socket_str(uint8_t family, const uint8_t ip[16], uint16_t port, char *out, size_t n)
{
	char ipbuf[64];
	report_ip_str(family, ip, ipbuf, sizeof(ipbuf));
	snprintf(out, n, "%s..%u", ipbuf, port);
}

static void print_conns(FILE *out, const smcr_report *r, uint32_t stack_id, const report_netstat_opts *o)
{
	bool any = false;
	for (size_t i = 0; i < r->n_conns; i++) {
		const report_conn *c = &r->conns[i];
		if (c->stack_id != stack_id || !conn_selected(c, o))
			continue;
		if (!any) {
			fprintf(out, "\nSMC-R connections:\n");
			fprintf(out, "  %-24s %-24s %-16s %-4s %-8s %-8s %-8s %s\n", "Local Socket", "Foreign Socket",
			        "State", "Mode", "LnkId", "Token", "PeerTok", "BytesOut/BytesIn");
			any = true;
		}
		char ls[80], fs[80], lnk[16], tok[16], ptok[16];
		socket_str(c->family, c->local_ip, c->local_port, ls, sizeof(ls));
		socket_str(c->family, c->peer_ip, c->peer_port, fs, sizeof(fs));
		if (c->mode == REPORT_MODE_SMCR) {
			snprintf(lnk, sizeof(lnk), "%08" PRIX32, c->link_id);
			snprintf(tok, sizeof(tok), "%08" PRIX32, c->local_token);
			snprintf(ptok, sizeof(ptok), "%08" PRIX32, c->peer_token);
		} else {
			snprintf(lnk, sizeof(lnk), "-");
			snprintf(tok, sizeof(tok), "-");
			snprintf(ptok, sizeof(ptok), "-");
		}
		fprintf(out, "  %-24s %-24s %-16s %-4s %-8s %-8s %-8s %" PRIu64 "/%" PRIu64 "\n", ls, fs,
		        report_conn_state_name(c->state), report_conn_mode_name(c->mode), lnk, tok, ptok,
		        c->bytes_sent, c->bytes_received);
		if (c->mode == REPORT_MODE_TCP)
			fprintf(out, "    Fallback: %08" PRIX32 " (local)  %08" PRIX32 " (peer)\n", c->fallback_reason,
			        c->peer_diagnosis);
	}
}

unsigned report_print_netstat(FILE *out, const smcr_report *r, const report_netstat_opts *opts)
{
	report_netstat_opts none = { 0 };
	const report_netstat_opts *o = opts ? opts : &none;
	unsigned printed = 0;
	fprintf(out, "SMC-R NETSTAT DEVLINKS SMC REPORT");
	if (o->smcid)
		fprintf(out, "  (SMCID %08" PRIX32 ")", o->smcid);
	fprintf(out, "\n");
	for (size_t si = 0; si < r->n_stacks; si++) {
		const report_stack *s = &r->stacks[si];
		if (o->stack_id && s->id != o->stack_id)
			continue;
		bool any_lgr = false;
		for (size_t gi = 0; gi < r->n_lgrs; gi++)
			if (r->lgrs[gi].stack_id == s->id && lgr_selected(r, &r->lgrs[gi], o))
				any_lgr = true;
		if (o->smcid && !any_lgr)
			continue;
		char ip[64];
		report_ip_str(s->family, s->ip, ip, sizeof(ip));
		const uint8_t *id = s->system_id;
		fprintf(out, "\n==============================================================================\n");
		fprintf(out, "TCP/IP stack: %-20s StackId: %-6u OS: %s\n", name_or(s->name, "?"), s->id, report_os_name(s->os));
		fprintf(out, "SystemId: %02X%02X%02X%02X%02X%02X%02X%02X  IPAddr: %s\n", id[0], id[1], id[2], id[3], id[4],
		        id[5], id[6], id[7], ip);
		if (s->fixed.known) {
			/* what D TCPIP,,STOR tells a z/OS operator: the stack's fixed SMC-R storage */
			char lim[24];
			if (s->fixed.limit)
				snprintf(lim, sizeof(lim), "%" PRIu64, s->fixed.limit);
			else
				snprintf(lim, sizeof(lim), "None");
			fprintf(out, "SMCRFixedMemory: InUse: %" PRIu64 "  Limit: %s  DeclinedConns: %" PRIu64 "\n", s->fixed.in_use,
			        lim, s->fixed.declined);
		}
		fprintf(out, "==============================================================================\n");
		for (size_t ni = 0; ni < r->n_rnics; ni++)
			if (r->rnics[ni].stack_id == s->id && rnic_selected(r, &r->rnics[ni], o))
				print_rnic(out, &r->rnics[ni], r->from_capture ? "Unknown" : "None");
		for (size_t gi = 0; gi < r->n_lgrs; gi++) {
			const report_lgr *g = &r->lgrs[gi];
			if (g->stack_id != s->id || !lgr_selected(r, g, o))
				continue;
			print_lgr_head(out, g, r->from_capture ? "Unknown" : "None");
			printed++;
			for (size_t li = 0; li < r->n_links; li++) {
				const report_link *l = &r->links[li];
				if (l->stack_id == s->id && l->lgr_id == g->id && link_selected(l, o))
					print_link(out, r, l);
			}
		}
		print_conns(out, r, s->id, o);
		if (!o->smcid)
			report_print_storage(out, s);
	}
	if (o->smcid && printed == 0)
		fprintf(out, "\nNo SMC-R link group or link with id %08" PRIX32 "\n", o->smcid);
	return printed;
}
