/* The report snapshot: tables, stable ordering, shared names and text forms. */
#include "sim/report/report.h"

#include <arpa/inet.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "sim/addr/addr_text.h"

void report_init(smcr_report *r)
{
	memset(r, 0, sizeof(*r));
}

void report_free(smcr_report *r)
{
	g_free(r->stacks);
	g_free(r->rnics);
	g_free(r->lgrs);
	g_free(r->links);
	g_free(r->conns);
	g_free(r->events);
	memset(r, 0, sizeof(*r));
}

/* Grow a table by one zeroed row. */
static void *append(void **rows, size_t *n, size_t *cap, size_t size)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*rows = g_realloc_n(*rows, *cap, size);
	}
	void *row = (char *)*rows + *n * size;
	memset(row, 0, size);
	(*n)++;
	return row;
}

report_stack *report_add_stack(smcr_report *r)
{
	report_stack *s = append((void **)&r->stacks, &r->n_stacks, &r->cap_stacks, sizeof(*s));
	s->id = (uint32_t)r->n_stacks;
	return s;
}

report_rnic *report_add_rnic(smcr_report *r)
{
	report_rnic *n = append((void **)&r->rnics, &r->n_rnics, &r->cap_rnics, sizeof(*n));
	n->id = (uint32_t)r->n_rnics;
	n->pfid = REPORT_UNKNOWN;
	return n;
}

report_lgr *report_add_lgr(smcr_report *r)
{
	report_lgr *g = append((void **)&r->lgrs, &r->n_lgrs, &r->cap_lgrs, sizeof(*g));
	g->vlan = REPORT_NO_VLAN;
	return g;
}

report_link *report_add_link(smcr_report *r)
{
	report_link *l = append((void **)&r->links, &r->n_links, &r->cap_links, sizeof(*l));
	l->vlan = REPORT_NO_VLAN;
	l->rnic_id = REPORT_UNKNOWN;
	return l;
}

report_conn *report_add_conn(smcr_report *r)
{
	report_conn *c = append((void **)&r->conns, &r->n_conns, &r->cap_conns, sizeof(*c));
	c->lgr_id = REPORT_UNKNOWN;
	return c;
}

report_event *report_add_event(smcr_report *r)
{
	report_event *e = append((void **)&r->events, &r->n_events, &r->cap_events, sizeof(*e));
	e->seq = r->n_events;
	e->vlan = REPORT_NO_VLAN;
	e->lgr_id = REPORT_UNKNOWN;
	return e;
}

#define CMP(a, b)                                  \
	do {                                       \
		if ((a) != (b))                    \
			return (a) < (b) ? -1 : 1; \
	} while (0)

static int cmp_stack(const void *pa, const void *pb)
{
	const report_stack *a = pa, *b = pb;
	CMP(a->id, b->id);
	return 0;
}

static int cmp_rnic(const void *pa, const void *pb)
{
	const report_rnic *a = pa, *b = pb;
	CMP(a->stack_id, b->stack_id);
	CMP(a->id, b->id);
	return 0;
}

static int cmp_lgr(const void *pa, const void *pb)
{
	const report_lgr *a = pa, *b = pb;
	CMP(a->stack_id, b->stack_id);
	CMP(a->id, b->id);
	return 0;
}

static int cmp_link(const void *pa, const void *pb)
{
	const report_link *a = pa, *b = pb;
	CMP(a->stack_id, b->stack_id);
	CMP(a->lgr_id, b->lgr_id);
	CMP(a->link_num, b->link_num);
	CMP(a->local_link_id, b->local_link_id);
	CMP(a->local_qpn, b->local_qpn);
	return 0;
}

static int cmp_conn(const void *pa, const void *pb)
{
	const report_conn *a = pa, *b = pb;
	CMP(a->stack_id, b->stack_id);
	CMP(a->id, b->id);
	return 0;
}

static int cmp_event(const void *pa, const void *pb)
{
	const report_event *a = pa, *b = pb;
	CMP(a->time_ns, b->time_ns);
	CMP(a->frame, b->frame);
	CMP(a->seq, b->seq);
	return 0;
}

void report_sort(smcr_report *r)
{
	/* every key ends in a unique id, so qsort's instability cannot show */
	if (r->n_stacks)
		qsort(r->stacks, r->n_stacks, sizeof(*r->stacks), cmp_stack);
	if (r->n_rnics)
		qsort(r->rnics, r->n_rnics, sizeof(*r->rnics), cmp_rnic);
	if (r->n_lgrs)
		qsort(r->lgrs, r->n_lgrs, sizeof(*r->lgrs), cmp_lgr);
	if (r->n_links)
		qsort(r->links, r->n_links, sizeof(*r->links), cmp_link);
	if (r->n_conns)
		qsort(r->conns, r->n_conns, sizeof(*r->conns), cmp_conn);
	if (r->n_events)
		qsort(r->events, r->n_events, sizeof(*r->events), cmp_event);
}

const report_stack *report_stack_by_id(const smcr_report *r, uint32_t id)
{
	for (size_t i = 0; i < r->n_stacks; i++)
		if (r->stacks[i].id == id)
			return &r->stacks[i];
	return NULL;
}

const report_rnic *report_rnic_by_id(const smcr_report *r, uint32_t id)
{
	for (size_t i = 0; i < r->n_rnics; i++)
		if (r->rnics[i].id == id)
			return &r->rnics[i];
	return NULL;
}

const report_lgr *report_lgr_by_id(const smcr_report *r, uint32_t stack_id, uint32_t lgr_id)
{
	for (size_t i = 0; i < r->n_lgrs; i++)
		if (r->lgrs[i].stack_id == stack_id && r->lgrs[i].id == lgr_id)
			return &r->lgrs[i];
	return NULL;
}

void report_stats_add_fallback(report_stats *s, uint32_t code, bool server)
{
	report_fallback *f = NULL;
	for (uint32_t i = 0; i < s->n_fallbacks; i++)
		if (s->fallbacks[i].code == code)
			f = &s->fallbacks[i];
	if (!f) {
		if (s->n_fallbacks == REPORT_MAX_FALLBACKS)
			return; /* more distinct codes than Linux defines: drop the surplus */
		f = &s->fallbacks[s->n_fallbacks++];
		f->code = code;
	}
	if (server) {
		if (!f->srv_cnt++)
			f->srv_seq = ++s->srv_fb_seq;
	} else if (!f->clnt_cnt++) {
		f->clnt_seq = ++s->clnt_fb_seq;
	}
}

unsigned report_buf_bucket(uint64_t bytes)
{
	unsigned b = 0;
	for (uint64_t limit = 8192; b < REPORT_BUF_BUCKETS - 1 && bytes > limit; limit *= 2)
		b++;
	return b;
}

const char *report_os_name(report_os os)
{
	switch (os) {
	case REPORT_OS_ZOS: return "z/OS";
	case REPORT_OS_LINUX: return "Linux";
	case REPORT_OS_AIX: return "AIX";
	case REPORT_OS_UNKNOWN: break;
	}
	return "unknown";
}

const char *report_role_name(report_role role)
{
	switch (role) {
	case REPORT_ROLE_CLIENT: return "Client";
	case REPORT_ROLE_SERVER: return "Server";
	case REPORT_ROLE_UNKNOWN: break;
	}
	return "Unknown";
}

const char *report_role_short(report_role role)
{
	switch (role) {
	case REPORT_ROLE_CLIENT: return "CLNT";
	case REPORT_ROLE_SERVER: return "SERV";
	case REPORT_ROLE_UNKNOWN: break;
	}
	return "?";
}

const char *report_rnic_status_name(report_rnic_status s)
{
	switch (s) {
	case REPORT_RNIC_READY: return "Ready";
	case REPORT_RNIC_INACTIVE: return "Inactive";
	case REPORT_RNIC_FAILED: return "Failed";
	case REPORT_RNIC_UNKNOWN: break;
	}
	return "Unknown";
}

const char *report_lgr_type_name(report_lgr_type t)
{
	switch (t) {
	case REPORT_LGR_NONE: return "NONE";
	case REPORT_LGR_SINGLE: return "SINGLE";
	case REPORT_LGR_SYM: return "SYM";
	case REPORT_LGR_ASYMP: return "ASYMP";
	case REPORT_LGR_ASYML: return "ASYML";
	}
	return "?";
}

const char *report_lgr_redundancy(report_lgr_type t)
{
	switch (t) {
	case REPORT_LGR_NONE: return "None";
	case REPORT_LGR_SINGLE: return "Partial (single local and remote RNIC)";
	case REPORT_LGR_SYM: return "Full";
	case REPORT_LGR_ASYMP: return "Partial (single remote RNIC)";
	case REPORT_LGR_ASYML: return "Partial (single local RNIC)";
	}
	return "?";
}

const char *report_link_state_name(report_link_state s)
{
	switch (s) {
	case REPORT_LINK_UNUSED: return "LINK_UNUSED";
	case REPORT_LINK_INACTIVE: return "LINK_INACTIVE";
	case REPORT_LINK_ACTIVATING: return "LINK_ACTIVATING";
	case REPORT_LINK_ACTIVE: return "LINK_ACTIVE";
	}
	return "?";
}

const char *report_link_state_word(report_link_state s)
{
	switch (s) {
	case REPORT_LINK_UNUSED: return "Unused";
	case REPORT_LINK_INACTIVE: return "Inactive";
	case REPORT_LINK_ACTIVATING: return "Activating";
	case REPORT_LINK_ACTIVE: return "Active";
	}
	return "?";
}

const char *report_conn_state_name(report_conn_state s)
{
	switch (s) {
	case REPORT_CONN_ACTIVE: return "ACTIVE";
	case REPORT_CONN_INIT: return "INIT";
	case REPORT_CONN_CLOSED: return "CLOSED";
	case REPORT_CONN_LISTEN: return "LISTEN";
	case REPORT_CONN_PEERCLOSEWAIT1: return "PEERCLOSEWAIT1";
	case REPORT_CONN_PEERCLOSEWAIT2: return "PEERCLOSEWAIT2";
	case REPORT_CONN_APPCLOSEWAIT1: return "APPCLOSEWAIT1";
	case REPORT_CONN_APPCLOSEWAIT2: return "APPCLOSEWAIT2";
	case REPORT_CONN_APPFINCLOSEWAIT: return "APPFINCLOSEWAIT1";
	case REPORT_CONN_PEERFINCLOSEWAIT: return "PEERFINCLOSEWAIT";
	case REPORT_CONN_PEERABORTWAIT: return "PEERABORTWAIT";
	case REPORT_CONN_PROCESSABORT: return "PROCESSABORT";
	}
	return "?";
}

const char *report_conn_mode_name(report_conn_mode m)
{
	switch (m) {
	case REPORT_MODE_SMCR: return "SMCR";
	case REPORT_MODE_TCP: return "TCP";
	case REPORT_MODE_SMCD: return "SMCD";
	}
	return "?";
}

const char *report_event_kind_name(report_event_kind k)
{
	switch (k) {
	case REPORT_EVENT_LINK_FAILED: return "link_failed";
	case REPORT_EVENT_LINK_DELETED: return "link_deleted";
	case REPORT_EVENT_LGR_ENDED: return "lgr_ended";
	case REPORT_EVENT_INTF_INOP: return "interface_inop";
	}
	return "?";
}

void report_gid_str(const uint8_t gid[16], char *out, size_t outlen)
{
	char buf[INET6_ADDRSTRLEN];
	if (!inet_ntop(AF_INET6, gid, buf, sizeof(buf)))
		buf[0] = '\0';
	g_strlcpy(out, buf, outlen);
}

void report_vmac_str(const uint8_t mac[6], char *out, size_t outlen)
{
	snprintf(out, outlen, "%02X%02X%02X%02X%02X%02X", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
}

void report_ip_str(uint8_t family, const uint8_t ip[16], char *out, size_t outlen)
{
	if (!family) {
		g_strlcpy(out, "?", outlen);
		return;
	}
	if (family != 6) {
		addr_text_ipv4((uint32_t)ip[0] << 24 | (uint32_t)ip[1] << 16 | (uint32_t)ip[2] << 8 | ip[3], out, outlen);
		return;
	}
	char buf[INET6_ADDRSTRLEN];
	if (!inet_ntop(AF_INET6, ip, buf, sizeof(buf)))
		buf[0] = '\0';
	g_strlcpy(out, buf, outlen);
}

void report_vlan_str(uint16_t vlan, char *out, size_t outlen)
{
	if (vlan == REPORT_NO_VLAN)
		g_strlcpy(out, "None", outlen);
	else
		snprintf(out, outlen, "%u", vlan);
}
