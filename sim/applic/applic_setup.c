/* The SMC-R set-up of a capture's hosts (see applic_setup.h). */
#include "sim/applic/applic_setup.h"

#include <arpa/inet.h>
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "sim/scenario/scn_diag.h"
#include "sim/scenario/scn_model.h"

const char *applic_inelig_text(applic_inelig r)
{
	switch (r) {
	case APPLIC_INELIG_NO_SMCR:
		return "an end without SMC-R";
	case APPLIC_INELIG_SUBNET:
		return "different subnets, no common SMC-Rv2 UEID";
	case APPLIC_INELIG_VLAN:
		return "different VLANs";
	case APPLIC_INELIG_PNETID:
		return "no common PNet ID";
	case APPLIC_INELIG_N:
		break;
	}
	return "?";
}

void applic_setup_default(applic_setup *s)
{
	memset(s, 0, sizeof(*s));
	s->def.smcr = true;
	s->def_prefix4 = 24;
	s->def_prefix6 = 64;
	snprintf(s->source, sizeof(s->source),
	         "none given: every host has SMC-R on one physical network, subnets /24 (IPv4) and /64 (IPv6), SMC-Rv1");
}

void applic_setup_free(applic_setup *s)
{
	g_free(s->hosts);
	s->hosts = NULL;
	s->n_hosts = s->cap_hosts = 0;
}

static applic_host *add_host(applic_setup *s)
{
	if (s->n_hosts == s->cap_hosts) {
		s->cap_hosts = s->cap_hosts ? s->cap_hosts * 2 : 16;
		s->hosts = g_realloc_n(s->hosts, s->cap_hosts, sizeof(*s->hosts));
	}
	applic_host *h = &s->hosts[s->n_hosts++];
	*h = s->def;
	return h;
}

static bool prefix_match(uint8_t family, const uint8_t *net, uint8_t len, const uint8_t *ip)
{
	unsigned bytes = len / 8u, bits = len % 8u, max = family == 4 ? 4u : 16u;
	if (bytes > max)
		return false;
	if (memcmp(net, ip, bytes))
		return false;
	if (!bits)
		return true;
	uint8_t m = (uint8_t)(0xFFu << (8 - bits));
	return (net[bytes] & m) == (ip[bytes] & m);
}

const applic_host *applic_setup_host(const applic_setup *s, uint8_t family, const uint8_t ip[16])
{
	const applic_host *best = NULL;
	for (size_t i = 0; i < s->n_hosts; i++) {
		const applic_host *h = &s->hosts[i];
		if (h->family == family && prefix_match(family, h->ip, h->len, ip) && (!best || h->len >= best->len))
			best = h;
	}
	return best;
}

static uint8_t net_len(const applic_setup *s, const applic_host *h, uint8_t family)
{
	if (h && h->net_len)
		return h->net_len;
	return family == 4 ? s->def_prefix4 : s->def_prefix6;
}

static bool common_ueid(const applic_host *a, const applic_host *b)
{
	for (unsigned i = 0; i < a->n_ueids; i++)
		for (unsigned k = 0; k < b->n_ueids; k++)
			if (!strcmp(a->ueids[i], b->ueids[k]))
				return true;
	return false;
}

bool applic_setup_eligible(const applic_setup *s, uint8_t family, const uint8_t a[16], const uint8_t b[16],
                           uint16_t vlan, applic_inelig *why)
{
	const applic_host *ha = applic_setup_host(s, family, a), *hb = applic_setup_host(s, family, b);
	const applic_host *pa = ha ? ha : &s->def, *pb = hb ? hb : &s->def;
	if (!pa->smcr || !pb->smcr) {
		*why = APPLIC_INELIG_NO_SMCR;
		return false;
	}
	/* SMC-Rv2: IPv4, both v2, a common UEID, any subnet */
	if (family == 4 && pa->v2 && pb->v2 && common_ueid(pa, pb))
		return true;
	if (!prefix_match(family, a, net_len(s, ha, family), b) || !prefix_match(family, b, net_len(s, hb, family), a)) {
		*why = APPLIC_INELIG_SUBNET;
		return false;
	}
	if (!vlan && pa->vlan != pb->vlan) {
		*why = APPLIC_INELIG_VLAN;
		return false;
	}
	if (strcmp(pa->pnetid, pb->pnetid)) {
		*why = APPLIC_INELIG_PNETID;
		return false;
	}
	return true;
}

/* "10.1.0.0/24", "fd00::7"; 0 or -1 */
static int parse_addr(const char *text, applic_host *h)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%s", text);
	char *slash = strchr(buf, '/');
	long len = -1;
	if (slash) {
		*slash = 0;
		char *end;
		errno = 0;
		len = strtol(slash + 1, &end, 10);
		if (errno || *end || end == slash + 1)
			return -1;
	}
	memset(h->ip, 0, 16);
	if (inet_pton(AF_INET, buf, h->ip) == 1)
		h->family = 4;
	else if (inet_pton(AF_INET6, buf, h->ip) == 1)
		h->family = 6;
	else
		return -1;
	long max = h->family == 4 ? 32 : 128;
	if (len > max)
		return -1;
	h->len = (uint8_t)(len < 0 ? max : len);
	h->net_len = len < 0 ? 0 : (uint8_t)len;
	return 0;
}

static bool yes_no(const char *v, bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "on") || !strcmp(v, "true"))
		*out = true;
	else if (!strcmp(v, "no") || !strcmp(v, "off") || !strcmp(v, "false"))
		*out = false;
	else
		return false;
	return true;
}

/* one KEY=VALUE of a default or host line; NULL, or what is wrong */
static const char *apply_attr(applic_setup *s, applic_host *h, const char *key, const char *v)
{
	char *end;
	if (!strcmp(key, "smcr"))
		return yes_no(v, &h->smcr) ? NULL : "smcr= wants yes or no";
	if (!strcmp(key, "v2"))
		return yes_no(v, &h->v2) ? NULL : "v2= wants yes or no";
	if (!strcmp(key, "pnetid")) {
		if (strlen(v) > 16)
			return "a PNet ID has at most 16 characters";
		snprintf(h->pnetid, sizeof(h->pnetid), "%s", v);
		return NULL;
	}
	if (!strcmp(key, "vlan")) {
		long n = strtol(v, &end, 10);
		if (*end || n < 0 || n > 4094)
			return "vlan= wants 0..4094";
		h->vlan = (uint16_t)n;
		return NULL;
	}
	if (!strcmp(key, "ueid")) {
		gchar **ids = g_strsplit(v, ",", -1);
		h->n_ueids = 0;
		const char *bad = NULL;
		for (gchar **q = ids; *q && !bad; q++) {
			if (h->n_ueids == 8 || !**q || strlen(*q) > 32)
				bad = "ueid= wants at most 8 ids of 1..32 characters";
			else
				snprintf(h->ueids[h->n_ueids++], sizeof(h->ueids[0]), "%s", *q);
		}
		g_strfreev(ids);
		return bad;
	}
	if (!strcmp(key, "prefix") && h == &s->def) {
		long n = strtol(v, &end, 10);
		if (*end || n < 1 || n > 32)
			return "prefix= wants the IPv4 default prefix length, 1..32";
		s->def_prefix4 = (uint8_t)n;
		return NULL;
	}
	return "unknown attribute (smcr, pnetid, vlan, v2, ueid; prefix on default)";
}

static int load_line(applic_setup *s, char *line, const char **why)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	gchar **w = g_strsplit_set(g_strstrip(line), " \t", -1);
	int rc = 0;
	size_t i = 0;
	while (w[i] && !*w[i])
		i++;
	if (!w[i]) {
		g_strfreev(w);
		return 0;
	}
	applic_host *h = NULL;
	if (!strcmp(w[i], "default")) {
		h = &s->def;
	} else if (!strcmp(w[i], "host")) {
		i++;
		applic_host tmp = s->def;
		if (!w[i] || parse_addr(w[i], &tmp)) {
			*why = "host wants an address, ADDR or ADDR/LEN";
			rc = -1;
		} else {
			h = add_host(s);
			*h = tmp;
		}
	} else {
		*why = "expected default or host";
		rc = -1;
	}
	for (i++; !rc && w[i]; i++) {
		if (!*w[i])
			continue;
		char *eq = strchr(w[i], '=');
		if (!eq) {
			*why = "expected KEY=VALUE";
			rc = -1;
			break;
		}
		*eq = 0;
		if ((*why = apply_attr(s, h, w[i], eq + 1)))
			rc = -1;
	}
	g_strfreev(w);
	return rc;
}

int applic_setup_load(applic_setup *s, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char line[1024];
	unsigned no = 0;
	int rc = 0;
	while (!rc && fgets(line, sizeof(line), f)) {
		no++;
		const char *why = NULL;
		if (!strchr(line, '\n') && !feof(f))
			why = "line longer than 1023 characters", rc = -1;
		else
			rc = load_line(s, line, &why);
		if (rc)
			snprintf(err, errlen, "%s:%u: %s", path, no, why ? why : "bad line");
	}
	fclose(f);
	if (!rc)
		snprintf(s->source, sizeof(s->source), "%s", path);
	return rc;
}

int applic_setup_from_scenario(applic_setup *s, const char *path, char *err, size_t errlen)
{
	scn_diag diag;
	scn_diag_init(&diag);
	scn_scenario *scn = scn_load_file(path, &diag);
	if (!scn) {
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		scn_diag_print(&diag, m);
		fclose(m);
		snprintf(err, errlen, "%s", text && *text ? text : "the scenario does not load");
		free(text);
		scn_diag_free(&diag);
		return -1;
	}
	scn_diag_free(&diag);
	for (size_t i = 0; i < scn->n_stacks; i++) {
		const scn_stack *st = &scn->stacks[i];
		for (size_t k = 0; k < st->n_ifaces; k++) {
			const scn_interface *ifc = &st->ifaces[k];
			applic_host *h = add_host(s);
			memset(h, 0, sizeof(*h));
			h->family = 4;
			uint32_t ip = htonl(ifc->ip);
			memcpy(h->ip, &ip, 4);
			h->len = 32;
			h->net_len = ifc->prefix_len;
			h->smcr = st->smcr.enable && st->n_smcr_ports;
			h->v2 = st->smcr.v2;
			h->vlan = ifc->vlan;
			snprintf(h->pnetid, sizeof(h->pnetid), "%s", ifc->pnetid);
			for (unsigned u = 0; u < st->smcr.n_ueids && u < 8; u++)
				snprintf(h->ueids[h->n_ueids++], sizeof(h->ueids[0]), "%s", st->smcr.ueids[u]);
			h->has_host = true;
			h->host = st->host;
			snprintf(h->stack, sizeof(h->stack), "%s", st->name);
		}
	}
	s->def.smcr = false; /* a host the scenario does not have has no SMC-R */
	snprintf(s->source, sizeof(s->source), "%s (its stacks; other hosts without SMC-R)", path);
	scn_free(scn);
	return 0;
}
