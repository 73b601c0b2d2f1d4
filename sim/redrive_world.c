/* Re-drive: the world. Either the user's scenario, with the stack that has R's address
 * taken over by the feeder, or a scenario written from what the recording says about the
 * two hosts. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/wire.h"
#include "sim/redrive_int.h"

/* What the recorded CLC messages say about the hosts, for a made world. */
typedef struct rd_facts {
	uint8_t version;          /* 1 or 2 */
	bool roce_v2;
	char eid[SMCR_EID_LEN + 1];
	char o_hostname[SMCR_HOSTNAME_LEN + 1];
	uint8_t o_os;             /* SMCR_CLC_OS_*, 0 unknown */
	uint8_t prefix_len;
	uint32_t mtu_bytes;
	uint32_t o_rmb_bytes;
	uint64_t bytes;           /* application bytes the client sent, from the decode */
} rd_facts;

static void trim_blank(char *dst, const char *src, size_t n)
{
	memcpy(dst, src, n);
	dst[n] = 0;
	for (size_t i = n; i > 0 && (dst[i - 1] == ' ' || dst[i - 1] == 0); i--)
		dst[i - 1] = 0;
}

static void facts(const redrive *rd, rd_facts *f)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < rd->decoded.report.n_conns; i++) {
		const report_conn *c = &rd->decoded.report.conns[i];
		if (c->role == REPORT_ROLE_CLIENT && get_be32(c->local_ip) == rd->client_ip && !f->bytes)
			f->bytes = c->bytes_sent;
	}
	f->version = 1;
	f->prefix_len = 24;
	f->mtu_bytes = 1024;
	for (size_t i = 0; i < rd->n_msgs; i++) {
		const rd_msg *m = &rd->msgs[i];
		if (m->kind != REPLAY_MSG_CLC || m->len < 8)
			continue;
		smcr_decode_err e;
		if (m->data[4] == SMCR_CLC_PROPOSAL) {
			smcr_clc_proposal p;
			if (smcr_clc_decode_proposal(&p, m->data, m->len, &e) == 0 && p.typev1 != SMCR_CLC_TYPE_NONE &&
			    p.ipv4_prefix_len)
				f->prefix_len = p.ipv4_prefix_len;
		} else if (m->data[4] == SMCR_CLC_ACCEPT || m->data[4] == SMCR_CLC_CONFIRM) {
			smcr_clc_accept a;
			if (smcr_clc_decode_accept(&a, m->data, m->len, &e))
				continue;
			f->version = a.version;
			f->roce_v2 = a.version == 2;
			if (a.version == 2 && !f->eid[0])
				trim_blank(f->eid, a.eid, SMCR_EID_LEN);
			if (a.qp_mtu >= SMCR_MTU_256 && a.qp_mtu <= SMCR_MTU_4096)
				f->mtu_bytes = smcr_mtu_bytes((smcr_mtu)a.qp_mtu);
			if (!m->from_r) {
				f->o_rmb_bytes = smcr_rmbe_size_bytes(a.rmbe_size);
				if (a.version == 2 && a.first_contact) {
					trim_blank(f->o_hostname, a.fce.hostname, SMCR_HOSTNAME_LEN);
					f->o_os = a.fce.os_type;
				}
			}
		}
	}
}

static void ip_text(uint32_t ip, char *out, size_t n)
{
	snprintf(out, n, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255u, (ip >> 8) & 255u, ip & 255u);
}

/* A scenario for the two hosts of the recording. */
static void write_scenario(const redrive *rd, uint16_t server_port, char *out, size_t n)
{
	rd_facts f;
	facts(rd, &f);
	char oip[20], rip[20];
	ip_text(rd->o_ip, oip, sizeof(oip));
	ip_text(rd->r_ip, rip, sizeof(rip));
	bool o_server = rd->o_ip == rd->server_ip;
	char host[64] = "";
	if (f.o_hostname[0])
		snprintf(host, sizeof(host), " hostname=\"%s\"", f.o_hostname);
	char v2[96] = " v2=no";
	if (f.version == 2 && f.eid[0])
		snprintf(v2, sizeof(v2), " v2=yes ueid=%s", f.eid);
	char rmb[48] = "";
	if (f.o_rmb_bytes)
		snprintf(rmb, sizeof(rmb), " rmbsize=%" PRIu32, f.o_rmb_bytes);
	/* an echo server and its client; the fed side's application never runs (the feeder
	 * plays it), but it tells the listener how to serve the fed connection */
	char app[200];
	if (o_server)
		snprintf(app, sizeof(app), "app srv O listen port=%u kind=echo\napp cli R connect O:%u kind=echo bytes=%" PRIu64
		         "\n", (unsigned)server_port, (unsigned)server_port, f.bytes ? f.bytes : 65536u);
	else
		snprintf(app, sizeof(app), "app srv R listen port=%u kind=echo\napp cli O connect R:%u kind=echo bytes=%" PRIu64
		         " start=1ms\n", (unsigned)server_port, (unsigned)server_port, f.bytes ? f.bytes : 65536u);
	uint64_t span_s = 3600;
	snprintf(out, n,
	         "scenario \"re-drive\"\n"
	         "seed 1\n"
	         "end %" PRIu64 "s\n"
	         "switch NET\n"
	         "adapter RO pfid=0001 switch=NET roce=%s mtu=%" PRIu32 "\n"
	         "adapter RR pfid=0002 switch=NET roce=%s mtu=%" PRIu32 "\n"
	         "stack O personality=%s%s\n"
	         "  interface eth0 switch=NET ip=%s/%u\n"
	         "  smcr pfid=0001\n"
	         "  smcr mtu=%" PRIu32 "%s%s\n"
	         "end\n"
	         "stack R personality=linux\n"
	         "  interface eth0 switch=NET ip=%s/%u\n"
	         "  smcr pfid=0002\n"
	         "end\n"
	         "%s",
	         span_s, f.roce_v2 ? "v2" : "v1", f.mtu_bytes, f.roce_v2 ? "v2" : "v1", f.mtu_bytes,
	         f.o_os == SMCR_CLC_OS_ZOS ? "zos" : "linux", host, oip, (unsigned)f.prefix_len, f.mtu_bytes, v2, rmb, rip,
	         (unsigned)f.prefix_len, app);
}

static uint32_t stack_with_ip(const scn_scenario *s, uint32_t ip)
{
	for (size_t i = 0; i < s->n_stacks; i++)
		for (size_t k = 0; k < s->stacks[i].n_ifaces; k++)
			if (s->stacks[i].ifaces[k].ip == ip)
				return (uint32_t)i;
	return SCN_NONE;
}

int rd_world_build(redrive *rd, stack **r_stack, rnic **r_adapter, uint8_t *r_port, char *err, size_t errlen)
{
	scn_diag diag;
	scn_diag_init(&diag);
	if (rd->o.scenario) {
		rd->scn = scn_load_file(rd->o.scenario, &diag);
	} else {
		uint16_t port = 0;
		/* the server port: from the decoder's connections of the server host */
		for (size_t i = 0; i < rd->decoded.report.n_conns && !port; i++) {
			const report_conn *c = &rd->decoded.report.conns[i];
			if (c->role == REPORT_ROLE_SERVER && get_be32(c->local_ip) == rd->server_ip)
				port = c->local_port;
		}
		write_scenario(rd, port, rd->scenario_text, sizeof(rd->scenario_text));
		rd->scn = scn_load_string("(re-drive world)", rd->scenario_text, strlen(rd->scenario_text), &diag);
	}
	if (!rd->scn) {
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		scn_diag_print(&diag, m);
		fclose(m);
		snprintf(err, errlen, "%s", text ? text : "the scenario does not load");
		free(text);
		scn_diag_free(&diag);
		return -1;
	}
	scn_diag_free(&diag);
	scn_scenario *s = rd->scn;
	uint32_t ri = stack_with_ip(s, rd->r_ip), oi = stack_with_ip(s, rd->o_ip);
	char a[20];
	if (ri == SCN_NONE || oi == SCN_NONE) {
		ip_text(ri == SCN_NONE ? rd->r_ip : rd->o_ip, a, sizeof(a));
		snprintf(err, errlen, "%s: no stack has the address %s of the recording", s->file, a);
		return -1;
	}
	scn_stack *rs = &s->stacks[ri];
	if (!rs->n_smcr_ports) {
		snprintf(err, errlen, "%s: stack %s (the fed side) activates no RoCE adapter for the feeder to use", s->file,
		         rs->name);
		return -1;
	}
	if (!s->stacks[oi].smcr.enable) {
		snprintf(err, errlen, "%s: stack %s (our side) has SMC-R disabled", s->file, s->stacks[oi].name);
		return -1;
	}
	uint32_t adapter = rs->smcr_ports[0].adapter;
	uint8_t port = rs->smcr_ports[0].port;
	/* R's stack: no SMC-R layer of its own (the feeder plugs in), no applications */
	rs->smcr.enable = false;
	for (size_t i = 0; i < s->n_apps; i++)
		if (s->apps[i].stack == ri) {
			s->apps[i].start_never = true;
			s->apps[i].start_ns = 0;
		}
	s->n_expects = 0;
	s->n_reports = 0;
	world_opts wo = rd->o.world;
	if (rd->o.has_seed) {
		wo.seed = rd->o.seed;
		wo.has_seed = true;
	}
	wo.quiet = !wo.verbose;
	if (!wo.verbose && !wo.out) {
		rd->devnull = fopen("/dev/null", "w");
		wo.out = rd->devnull; /* the scenario's own expectations and reports do not apply */
	}
	rd->w = world_new(s, &wo, err, errlen);
	if (!rd->w)
		return -1;
	*r_stack = world_stack(rd->w, rs->name);
	*r_adapter = world_rnic(rd->w, adapter);
	*r_port = port;
	stack_smcr(*r_stack)->enabled = true; /* the SMC option in its SYNs: the feeder answers */
	return 0;
}
