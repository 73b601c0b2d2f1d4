/* smc_chk's verdict for every connection (the live test of the smc_chk script of
 * smc-tools v1.8.5, run_client()): smc_chk connects to a server, reads its socket's Mode
 * column from smcss and prints
 *
 *   Test with target IP 10.1.0.1 and port 12345
 *     Live test (SMC-D and SMC-R)
 *        Success, using SMC-R
 *
 * or, for a connection that fell back to TCP, "Failed  (TCP fallback), reasons:" and the
 * client's and the server's reason codes as `man smcss | grep CODE` shows them (the man
 * page of smc-tools v1.8.5 rendered 80 columns wide: a long text wraps, and grep shows
 * only the line with the code; a code the page does not list gets smc_chk's own words,
 * its misspelt "Unkown" and, for the client, the server's code included, as the script
 * prints them). Here every connection of the report is such a test, seen from its client
 * while it was up (a run's closed connections and a capture's are judged by the mode they
 * had); a connection whose client the report does not have is seen from its server. */
#include <inttypes.h>
#include <string.h>

#include "sim/report/report_print.h"
#include "sim/report/report_smc_int.h"

/* the man page's lines, as grep prints them (80 columns) */
static const struct {
	uint32_t code;
	const char *line;
} man_lines[] = {
	{ 0x01010000, "       0x01010000   Out of memory" },
	{ 0x02010000, "       0x02010000   Timeout  while  waiting for confirm link message over RDMA" },
	{ 0x02020000, "       0x02020000   Timeout while waiting for RDMA device to be added" },
	{ 0x03000000, "       0x03000000   Configuration error" },
	{ 0x03010000, "       0x03010000   Peer does not support SMC" },
	{ 0x03020000, "       0x03020000   Connection uses IPsec" },
	{ 0x03030000, "       0x03030000   No SMC devices found (R and D)" },
	{ 0x03030001, "       0x03030001   No ISM device for SMC-D found" },
	{ 0x03030002, "       0x03030002   No RDMA device for SMC-R found" },
	{ 0x03030003, "       0x03030003   Hardware has no ISMv2 support" },
	{ 0x03030004, "       0x03030004   Peer sent no SMCv2 extension" },
	{ 0x03030005, "       0x03030005   Peer sent no SMC-Dv2 extension" },
	{ 0x03030006, "       0x03030006   Peer sent no ISMv2 SEID" },
	{ 0x03030007, "       0x03030007   No SMC-Dv2 device found, but required" },
	{ 0x03030008, "       0x03030008   Peer sent no UEID" },
	{ 0x03040000, "       0x03040000   SMC modes mismatch (R or D)" },
	{ 0x03050000, "       0x03050000   Peer has eyecatcher in RMBE" },
	{ 0x03060000, "       0x03060000   Fastopen sockopt not supported" },
	{ 0x03070000, "       0x03070000   IP prefix / subnet mismatch" },
	{ 0x03080000, "       0x03080000   Error retrieving VLAN ID of IP device" },
	{ 0x03090000, "       0x03090000   Error while registering VLAN ID on ISM device" },
	{ 0x030a0000, "       0x030a0000   No active SMC-R link in link group" },
	{ 0x030b0000, "       0x030b0000   SMC-R link from server not found" },
	{ 0x030c0000, "       0x030c0000   SMC version mismatch" },
	{ 0x030d0000, "       0x030d0000   SMC-D connection limit reached" },
	{ 0x030e0000, "       0x030e0000" }, /* its text wraps to the next line */
	{ 0x030f0000, "       0x030f0000   SMC-Rv2  connection  mismatch  direct/indirect  with  peer" },
	{ 0x04000000, "                    0x04000000 Synchronization error" }, /* run into 0x030f0000's entry */
	{ 0x05000000, "       0x05000000   Peer declined during handshake" },
	{ 0x09990000, "       0x09990000   Internal error" },
	{ 0x09990001, "       0x09990001   rtoken handling failed" },
	{ 0x09990002, "       0x09990002   RDMA link failed" },
	{ 0x09990003, "       0x09990003   RMB registration failed" },
};

static const char *man_line(uint32_t code)
{
	for (size_t i = 0; i < sizeof(man_lines) / sizeof(man_lines[0]); i++)
		if (man_lines[i].code == code)
			return man_lines[i].line;
	return NULL;
}

/* run_client()'s lines for one socket as the client sees it */
static void verdict(FILE *out, const report_conn *c, uint32_t clt, uint32_t srv)
{
	char ip[64];
	report_ip_str(c->family, c->peer_ip, ip, sizeof(ip));
	report_smc_line(out, "Test with target IP %s and port %u", ip, (unsigned)c->peer_port);
	report_smc_line(out, "  Live test (SMC-D and SMC-R)");
	if (c->state == REPORT_CONN_INIT || c->state == REPORT_CONN_LISTEN) {
		report_smc_line(out, "     Failed, no connection"); /* smcss leaves such sockets out */
	} else if (c->mode == REPORT_MODE_SMCR || c->mode == REPORT_MODE_SMCD) {
		report_smc_line(out, "     Success, using %s", c->mode == REPORT_MODE_SMCR ? "SMC-R" : "SMC-D");
	} else {
		char e_srv[16] = "";
		if (srv)
			snprintf(e_srv, sizeof(e_srv), "0x%08" PRIx32, srv);
		report_smc_line(out, "     Failed  (TCP fallback), reasons:");
		const char *l = man_line(clt);
		if (l)
			report_smc_line(out, "          Client: %s", l);
		else
			report_smc_line(out, "          Client: %s (Unkown error code)", e_srv);
		if (srv) {
			l = man_line(srv);
			if (l)
				report_smc_line(out, "          Server: %s", l);
			else
				report_smc_line(out, "          Server:        %s   (Unknown error code or non-Linux OS)", e_srv);
		}
	}
	fputc('\n', out);
}

/* the client's socket of a server's connection, when the report has the client too */
static bool client_listed(const smcr_report *r, const report_conn *srv)
{
	for (size_t i = 0; i < r->n_conns; i++) {
		const report_conn *c = &r->conns[i];
		if (c->role == REPORT_ROLE_CLIENT && c->family == srv->family && c->local_port == srv->peer_port &&
		    c->peer_port == srv->local_port && !memcmp(c->local_ip, srv->peer_ip, 16) &&
		    !memcmp(c->peer_ip, srv->local_ip, 16))
			return true;
	}
	return false;
}

void report_print_smc_chk(FILE *out, const smcr_report *r)
{
	for (size_t si = 0; si < r->n_stacks; si++) {
		const report_stack *s = &r->stacks[si];
		bool header = false;
		for (size_t i = 0; i < r->n_conns; i++) {
			const report_conn *c = &r->conns[i];
			if (c->stack_id != s->id)
				continue;
			report_conn seen = *c;
			uint32_t clt = c->fallback_reason, srv = c->peer_diagnosis;
			if (c->role != REPORT_ROLE_CLIENT) {
				if (client_listed(r, c))
					continue;
				/* only the server's socket: the test as its client would have seen it. A
				 * server that declined left its client PEERDECL with the server's code as
				 * the peer's; a client that declined has its own code, which the server
				 * holds as the peer's, and none from the server */
				memcpy(seen.peer_ip, c->local_ip, 16);
				seen.peer_port = c->local_port;
				if (c->fallback_reason == 0x05000000u) {
					clt = c->peer_diagnosis;
					srv = 0;
				} else {
					clt = c->mode == REPORT_MODE_TCP ? 0x05000000u : 0;
					srv = c->fallback_reason;
				}
			}
			if (!header)
				report_smc_line(out, "=== stack %u: %s (%s) ===", s->id, s->name[0] ? s->name : "?", report_os_name(s->os));
			header = true;
			verdict(out, &seen, clt, srv);
		}
	}
}
