/* Re-drive: the world. Either the user's scenario, with the stack that has R's address
 * taken over by the feeder, or a scenario written from what the recording says about the
 * two hosts (their settings and subnets; the application is redrive_app.c's). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/byteorder.h"
#include "sim/addr/addr_text.h"
#include "sim/redrive/redrive_int.h"

/* What the recorded CLC messages say about the hosts, for a made world. */
typedef struct rd_facts {
	uint8_t version; /* 1 or 2 */
	bool roce_v2;
	char eids[SMCR_MAX_EIDS][SMCR_EID_LEN + 1]; /* O's: its Proposal's list, else the agreed one */
	uint8_t n_eids;
	bool o_proposed; /* eids are O's Proposal's */
	char o_hostname[SMCR_HOSTNAME_LEN + 1];
	uint8_t o_os;                     /* SMCR_CLC_OS_*, 0 unknown */
	int o_release;                    /* the SMC-Rv2 release O used, -1 unknown */
	uint8_t o_max_conns, o_max_links; /* v2.1, 0 unknown */
	uint8_t prefix_len;
	uint32_t mtu_bytes;
	uint32_t o_rmb_bytes;
	uint64_t o_testlink_ns; /* O's TEST_LINK idle time, from its requests; 0 unknown */
} rd_facts;

static void trim_blank(char *dst, const char *src, size_t n)
{
	memcpy(dst, src, n);
	dst[n] = 0;
	for (size_t i = n; i > 0 && (dst[i - 1] == ' ' || dst[i - 1] == 0); i--)
		dst[i - 1] = 0;
}

static void facts_proposal(const rd_msg *m, rd_facts *f)
{
	smcr_clc_proposal p;
	smcr_decode_err e;
	if (smcr_clc_decode_proposal(&p, m->data, m->len, &e))
		return;
	/* a recorded prefix length is the capture's word: only 1..32 names a subnet */
	if (p.typev1 != SMCR_CLC_TYPE_NONE && p.ipv4_prefix_len && p.ipv4_prefix_len <= 32)
		f->prefix_len = p.ipv4_prefix_len;
	if (m->from_r || p.typev2 == SMCR_CLC_TYPE_NONE || f->o_proposed)
		return;
	/* O's own Proposal: its EIDs and release as they were */
	f->o_proposed = true;
	f->n_eids = 0;
	/* a stack's table holds SMCR_MAX_UEIDS (Linux: 4); a Proposal may carry more */
	for (uint8_t i = 0; i < p.n_eids && i < SMCR_MAX_EIDS && f->n_eids < SMCR_MAX_UEIDS; i++) {
		trim_blank(f->eids[f->n_eids], p.eids[i], SMCR_EID_LEN);
		if (f->eids[f->n_eids][0])
			f->n_eids++;
	}
	f->o_release = p.release;
	f->o_max_conns = p.max_conns;
	f->o_max_links = p.max_links;
}

static void facts_accept(const rd_msg *m, rd_facts *f)
{
	smcr_clc_accept a;
	smcr_decode_err e;
	if (smcr_clc_decode_accept(&a, m->data, m->len, &e))
		return;
	f->version = a.version;
	f->roce_v2 = a.version == 2;
	if (a.version == 2 && !f->n_eids && !f->o_proposed) {
		trim_blank(f->eids[0], a.eid, SMCR_EID_LEN);
		f->n_eids = f->eids[0][0] ? 1 : 0;
	}
	if (a.qp_mtu >= SMCR_MTU_256 && a.qp_mtu <= SMCR_MTU_4096)
		f->mtu_bytes = smcr_mtu_bytes((smcr_mtu)a.qp_mtu);
	if (m->from_r)
		return;
	f->o_rmb_bytes = smcr_rmbe_size_bytes(a.rmbe_size);
	if (a.version == 2 && a.first_contact) {
		trim_blank(f->o_hostname, a.fce.hostname, SMCR_HOSTNAME_LEN);
		f->o_os = a.fce.os_type;
		if (f->o_release < 0) {
			/* the server's Accept: the release both agreed on, at most O's own */
			f->o_release = a.fce.release;
			f->o_max_conns = a.fce.max_conns;
			f->o_max_links = a.fce.max_links;
		}
	}
}

/* O's TEST_LINK interval: its requests on an idle link come the idle time after the
 * answer to the one before (Linux's smc_llc_testlink_work measures from wr_rx_tstamp),
 * so the shortest gap between two, cut to 100 ms, is it (a lab's RTT is far below). */
static void facts_testlink(const redrive *rd, rd_facts *f)
{
	uint64_t last = 0, best = 0;
	for (size_t i = 0; i < rd->n_msgs; i++) {
		const rd_msg *m = &rd->msgs[i];
		if (m->from_r || m->kind != REPLAY_MSG_LLC || m->len < 4 || (m->data[0] & 0x1f) != (SMCR_LLC_TEST_LINK & 0x1f) ||
		    (m->data[3] & SMCR_LLC_FLAG_RESP))
			continue;
		if (last && m->time_ns > last && (!best || m->time_ns - last < best))
			best = m->time_ns - last;
		last = m->time_ns;
	}
	if (best >= 1000000000ull)
		f->o_testlink_ns = best / 100000000ull * 100000000ull;
}

static void facts(const redrive *rd, rd_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->version = 1;
	f->prefix_len = 24;
	f->mtu_bytes = 1024;
	f->o_release = -1;
	for (size_t i = 0; i < rd->n_msgs; i++) {
		const rd_msg *m = &rd->msgs[i];
		if (m->kind != REPLAY_MSG_CLC || m->len < 8)
			continue;
		if (m->data[4] == SMCR_CLC_PROPOSAL)
			facts_proposal(m, f);
		else if (m->data[4] == SMCR_CLC_ACCEPT || m->data[4] == SMCR_CLC_CONFIRM)
			facts_accept(m, f);
		else if (m->data[4] == SMCR_CLC_DECLINE && !m->from_r && (m->data[7] >> 4) >= 2 && f->version < 2)
			f->version = 2; /* O declined in v2 format: it speaks v2, with or without a UEID */
	}
	facts_testlink(rd, f);
}

static uint32_t mask_of(uint8_t len) { return len ? ~0u << (32 - len) : 0; }

/* A router address in ip's subnet that is neither ip nor the subnet's ends. */
static uint32_t gateway_for(uint32_t ip, uint8_t len)
{
	uint32_t m = mask_of(len), gw = (ip & m) | (~m - 1u);
	return gw == ip ? gw - 1u : gw;
}

/* A scenario for the two hosts of the recording: O with the SMC-R settings the recording
 * shows, R for the feeder, one switch, or two and a router when the recording's prefix
 * puts them in different subnets. No applications: O's is the recorded application
 * (redrive_app.c), R's is the feeder. */
static void write_scenario(const redrive *rd, char *out, size_t n)
{
	rd_facts f;
	facts(rd, &f);
	char oip[20], rip[20];
	addr_text_ipv4(rd->o_ip, oip, sizeof(oip));
	addr_text_ipv4(rd->r_ip, rip, sizeof(rip));
	char host[64] = "";
	if (f.o_hostname[0])
		snprintf(host, sizeof(host), " hostname=\"%s\"", f.o_hostname);
	char v2[SMCR_MAX_EIDS * (SMCR_EID_LEN + 1) + 32] = "";
	if (f.version == 2 || f.o_proposed) {
		size_t k = (size_t)snprintf(v2, sizeof(v2), " v2=yes");
		for (uint8_t i = 0; i < f.n_eids && k < sizeof(v2); i++)
			k += (size_t)snprintf(v2 + k, sizeof(v2) - k, "%s%s", i ? "," : " ueid=", f.eids[i]);
	} else {
		snprintf(v2, sizeof(v2), " v2=no");
	}
	char extra[160] = "";
	size_t k = 0;
	if (f.o_rmb_bytes)
		k += (size_t)snprintf(extra + k, sizeof(extra) - k, " rmbsize=%" PRIu32, f.o_rmb_bytes);
	if (f.o_release == 0 || f.o_release == 1)
		k += (size_t)snprintf(extra + k, sizeof(extra) - k, " release=%d", f.o_release);
	if (f.o_release == 1 && f.o_max_links >= 1 && f.o_max_links <= 2)
		k += (size_t)snprintf(extra + k, sizeof(extra) - k, " maxlinks=%u", (unsigned)f.o_max_links);
	if (f.o_release == 1 && f.o_max_conns >= 16)
		k += (size_t)snprintf(extra + k, sizeof(extra) - k, " maxconns=%u", (unsigned)f.o_max_conns);
	if (f.o_testlink_ns)
		snprintf(extra + k, sizeof(extra) - k, " testlink=%" PRIu64 "ms", f.o_testlink_ns / 1000000u);
	uint32_t m = mask_of(f.prefix_len);
	bool routed = (rd->o_ip & m) != (rd->r_ip & m) && f.prefix_len <= 30;
	char o_route[64] = "", r_route[64] = "", router[400] = "";
	if (routed) {
		char og[20], rg[20], rnet[20], onet[20];
		addr_text_ipv4(gateway_for(rd->o_ip, f.prefix_len), og, sizeof(og));
		addr_text_ipv4(gateway_for(rd->r_ip, f.prefix_len), rg, sizeof(rg));
		addr_text_ipv4(rd->r_ip & m, rnet, sizeof(rnet));
		addr_text_ipv4(rd->o_ip & m, onet, sizeof(onet));
		snprintf(o_route, sizeof(o_route), "  route %s/%u via=%s\n", rnet, (unsigned)f.prefix_len, og);
		snprintf(r_route, sizeof(r_route), "  route %s/%u via=%s\n", onet, (unsigned)f.prefix_len, rg);
		snprintf(router, sizeof(router),
		         "stack GW personality=linux\n"
		         "  interface o switch=NET ip=%s/%u\n"
		         "  interface r switch=NETR ip=%s/%u\n"
		         "  forwarding on\n"
		         "  smcr enable=no\n"
		         "end\n",
		         og, (unsigned)f.prefix_len, rg, (unsigned)f.prefix_len);
	}
	snprintf(out, n,
	         "scenario \"re-drive\"\n"
	         "seed 1\n"
	         "end 3600s\n"
	         "switch NET\n"
	         "%s"
	         "adapter RO pfid=0001 switch=NET roce=%s mtu=%" PRIu32 "\n"
	         "adapter RR pfid=0002 switch=%s roce=%s mtu=%" PRIu32 "\n"
	         "stack O personality=%s%s\n"
	         "  interface eth0 switch=NET ip=%s/%u\n"
	         "%s"
	         "  smcr pfid=0001\n"
	         "  smcr mtu=%" PRIu32 "%s%s\n"
	         "end\n"
	         "stack R personality=linux\n"
	         "  interface eth0 switch=%s ip=%s/%u\n"
	         "%s"
	         "  smcr pfid=0002\n"
	         "end\n"
	         "%s",
	         routed ? "switch NETR\n" : "", f.roce_v2 ? "v2" : "v1", f.mtu_bytes, routed ? "NETR" : "NET",
	         f.roce_v2 ? "v2" : "v1", f.mtu_bytes, f.o_os == SMCR_CLC_OS_ZOS ? "zos" : "linux", host, oip,
	         (unsigned)f.prefix_len, o_route, f.mtu_bytes, v2, extra, routed ? "NETR" : "NET", rip,
	         (unsigned)f.prefix_len, r_route, router);
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
		write_scenario(rd, rd->scenario_text, sizeof(rd->scenario_text));
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
		addr_text_ipv4(ri == SCN_NONE ? rd->r_ip : rd->o_ip, a, sizeof(a));
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
