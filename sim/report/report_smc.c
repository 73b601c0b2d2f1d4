/* smc-tools style report (Linux): the columns of `smcr linkgroup show`, `smcr -dd linkgroup
 * link-show`, `smcr device`, `smcr -d stats`, `smcss -a` and `smcss -R`, as smc-tools
 * prints them (headers and widths from its linkgroup.c, dev.c, stats.c and smcss.c), one
 * block per stack. What a report cannot know (UID, inode, interface index) prints as zero,
 * like an unset field in smc-tools. A TCP-mode socket shows its fallback reason as
 * "TCP <local>/<peer>", as the smcss man page describes. Trailing blanks are trimmed. */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "model/clc.h"
#include "sim/report/report_print.h"

static void line(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(FILE *out, const char *fmt, ...)
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
		line(out, "%-15.15s %-8.8s %4u  %8s  %-13s  %3s   %5u  %-16s", n->netdev, n->name, n->port,
		     n->status == REPORT_RNIC_READY ? "ACTIVE" : "INACTIVE",
		     s->os == REPORT_OS_ZOS ? "RoCE_Express" : "RoCE", rnic_critical(r, n) ? "Yes" : "No", links,
		     n->pnetid);
	}
}

static int cmp_fallback(const report_fallback *a, const report_fallback *b, bool server)
{
	uint64_t ca = server ? a->srv_cnt : a->clnt_cnt, cb = server ? b->srv_cnt : b->clnt_cnt;
	if (ca != cb)
		return ca > cb ? -1 : 1;
	return a->code < b->code ? -1 : a->code > b->code ? 1
	                                                  : 0;
}

/* Fallback reasons of one side, most frequent first (ties by code), like smc-tools
 * (which shows the top three; we show all). */
static void print_fallbacks(FILE *out, const report_stats *st, bool server)
{
	const report_fallback *order[REPORT_MAX_FALLBACKS];
	uint32_t n = 0;
	for (uint32_t i = 0; i < st->n_fallbacks; i++)
		if (server ? st->fallbacks[i].srv_cnt : st->fallbacks[i].clnt_cnt)
			order[n++] = &st->fallbacks[i];
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && cmp_fallback(order[j], order[j - 1], server) < 0; j--) {
			const report_fallback *t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	if (n)
		line(out, "    %s", server ? "Server" : "Client");
	for (uint32_t i = 0; i < n; i++) {
		const char *name = smcr_decline_name(order[i]->code);
		if (!strncmp(name, "SMC_CLC_DECL_", 13))
			name += 13;
		line(out, "     %-12s %08" PRIx32 "  %12" PRIu64, name, order[i]->code,
		     server ? order[i]->srv_cnt : order[i]->clnt_cnt);
	}
}

static void print_bufs(FILE *out, const uint64_t hist[REPORT_BUF_BUCKETS])
{
	line(out, "            8KB    16KB    32KB    64KB   128KB   256KB   512KB  >512KB");
	line(out, "  Bufs   %6" PRIu64 "  %6" PRIu64 "  %6" PRIu64 "  %6" PRIu64 "  %6" PRIu64 "  %6" PRIu64 "  %6" PRIu64 "  %6" PRIu64, hist[0], hist[1], hist[2], hist[3], hist[4], hist[5], hist[6], hist[7]);
}

static void print_stats(FILE *out, const report_stack *s)
{
	const report_stats *st = &s->stats;
	uint64_t clnt = st->clnt_v1_succ + st->clnt_v2_succ, srv = st->srv_v1_succ + st->srv_v2_succ;
	uint64_t smc = clnt + srv, hs = st->clnt_hshake_err + st->srv_hshake_err;
	uint64_t fb_c = 0, fb_s = 0;
	for (uint32_t i = 0; i < st->n_fallbacks; i++) {
		fb_c += st->fallbacks[i].clnt_cnt;
		fb_s += st->fallbacks[i].srv_cnt;
	}
	/* average with one decimal in integer arithmetic, rounded half up */
	uint64_t reqs = st->rx_cnt + st->tx_cnt, avg10 = smc ? (reqs * 10 + smc / 2) / smc : 0;
	line(out, "# smcr -d stats");
	line(out, "SMC-R Connections Summary");
	line(out, "  Total connections handled  %12" PRIu64, smc + hs + fb_c + fb_s);
	line(out, "  SMC connections            %12" PRIu64 " (client %" PRIu64 ", server %" PRIu64 ")", smc, clnt, srv);
	line(out, "    v1                       %12" PRIu64, st->clnt_v1_succ + st->srv_v1_succ);
	line(out, "    v2                       %12" PRIu64, st->clnt_v2_succ + st->srv_v2_succ);
	line(out, "  Handshake errors           %12" PRIu64 " (client %" PRIu64 ", server %" PRIu64 ")", hs,
	     st->clnt_hshake_err, st->srv_hshake_err);
	line(out, "  Avg requests per SMC conn  %12" PRIu64 ".%" PRIu64, avg10 / 10, avg10 % 10);
	line(out, "  TCP fallback               %12" PRIu64 " (client %" PRIu64 ", server %" PRIu64 ")", fb_c + fb_s,
	     fb_c, fb_s);
	print_fallbacks(out, st, true);
	print_fallbacks(out, st, false);
	fputc('\n', out);
	line(out, "RX Stats");
	line(out, "  Data transmitted (Bytes) %14" PRIu64, st->rx_bytes);
	line(out, "  Total requests             %12" PRIu64, st->rx_cnt);
	print_bufs(out, st->rx_rmb_hist);
	fputc('\n', out);
	line(out, "TX Stats");
	line(out, "  Data transmitted (Bytes) %14" PRIu64, st->tx_bytes);
	line(out, "  Total requests             %12" PRIu64, st->tx_cnt);
	print_bufs(out, st->tx_rmb_hist);
}

static void addr_str(uint8_t family, const uint8_t ip[16], uint16_t port, char *out, size_t n)
{
	char ipbuf[64];
	report_ip_str(family, ip, ipbuf, sizeof(ipbuf));
	snprintf(out, n, "%s:%u", ipbuf, port);
}

static void print_smcss(FILE *out, const smcr_report *r, const report_stack *s, bool smcr_only)
{
	line(out, smcr_only ? "# smcss -R" : "# smcss -a");
	if (smcr_only)
		line(out, "State          UID   Inode   Local Address           Foreign Address         Intf Mode "
		          "Role IB-device       Port Linkid GID                                      Peer-GID");
	else
		line(out, "State          UID   Inode   Local Address           Foreign Address         Intf Mode ");
	for (size_t i = 0; i < r->n_conns; i++) {
		const report_conn *c = &r->conns[i];
		if (c->stack_id != s->id || (smcr_only && c->mode != REPORT_MODE_SMCR))
			continue;
		char la[80], fa[80], mode[40];
		addr_str(c->family, c->local_ip, c->local_port, la, sizeof(la));
		addr_str(c->family, c->peer_ip, c->peer_port, fa, sizeof(fa));
		if (c->mode == REPORT_MODE_TCP)
			snprintf(mode, sizeof(mode), "TCP  0x%08" PRIx32 "/0x%08" PRIx32, c->fallback_reason, c->peer_diagnosis);
		else
			snprintf(mode, sizeof(mode), "%4s", report_conn_mode_name(c->mode));
		char head[256];
		snprintf(head, sizeof(head), "%-14s %05d %07d %-23s %-23s %04x %s", report_conn_state_name(c->state), 0, 0,
		         la, fa, 0u, mode);
		if (!smcr_only) {
			line(out, "%s", head);
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
		line(out, "%s %4s %-15s %02x   %02x     %-40s %s", head, report_role_short(g ? g->role : c->role),
		     n ? n->name : "", n ? n->port : 0, c->link_num, lg, pg);
	}
}

static void cursor_str(report_cursor c, char *out, size_t n)
{
	snprintf(out, n, "%04x:%08" PRIx32, c.wrap, c.count);
}

/* smcss -d: the connection's token, buffers, cursors and flags as its last CDC messages
 * each way carried them (printed for reports from a capture, where they are the wire's). */
static void print_smcss_debug(FILE *out, const smcr_report *r, const report_stack *s)
{
	line(out, "# smcss -d");
	line(out, "State          Local Address           Foreign Address         Mode Token    Sndbuf   Rcvbuf   "
	          "Peerbuf  rxprod-Cursor rxcons-Cursor rxFlags txprod-Cursor txcons-Cursor txFlags");
	for (size_t i = 0; i < r->n_conns; i++) {
		const report_conn *c = &r->conns[i];
		if (c->stack_id != s->id || c->mode != REPORT_MODE_SMCR)
			continue;
		char la[80], fa[80], rp[24], rc[24], tp[24], tc[24];
		addr_str(c->family, c->local_ip, c->local_port, la, sizeof(la));
		addr_str(c->family, c->peer_ip, c->peer_port, fa, sizeof(fa));
		cursor_str(c->rx_prod, rp, sizeof(rp));
		cursor_str(c->rx_cons, rc, sizeof(rc));
		cursor_str(c->tx_prod, tp, sizeof(tp));
		cursor_str(c->tx_cons, tc, sizeof(tc));
		line(out, "%-14s %-23s %-23s %4s %08" PRIx32 " %-8" PRIu32 " %-8" PRIu32 " %-8" PRIu32 " %-13s %-13s %02x:%02x   %-13s %-13s %02x:%02x",
		     report_conn_state_name(c->state), la, fa, report_conn_mode_name(c->mode), c->local_token,
		     c->sndbuf_size, c->rmbe_size, c->peer_rmbe_size, rp, rc, c->rx_prod_flags, c->rx_conn_flags, tp, tc,
		     c->tx_prod_flags, c->tx_conn_flags);
	}
}

void report_print_smc(FILE *out, const smcr_report *r)
{
	for (size_t si = 0; si < r->n_stacks; si++) {
		const report_stack *s = &r->stacks[si];
		if (si)
			fputc('\n', out);
		line(out, "=== stack %u: %s (%s) ===", s->id, s->name[0] ? s->name : "?", report_os_name(s->os));
		print_lgr_show(out, r, s);
		fputc('\n', out);
		print_link_show(out, r, s);
		fputc('\n', out);
		print_device(out, r, s);
		fputc('\n', out);
		print_stats(out, s);
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
