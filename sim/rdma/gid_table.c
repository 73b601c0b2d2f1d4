/* RoCE GID classification, selection and the kernel's text formats (see roce_gid.h). */
#include "sim/rdma/gid_table.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "sim/fabric/gid.h"

static bool same_subnet(uint32_t a, uint32_t b, unsigned prefix_len)
{
	if (prefix_len == 0)
		return true;
	if (prefix_len > 32)
		prefix_len = 32;
	uint32_t mask = prefix_len == 32 ? UINT32_MAX : ~(UINT32_MAX >> prefix_len);
	return (a & mask) == (b & mask);
}

int gid_table_select(const smcr_port_desc *p, smcr_gid_type type, uint16_t vlan, uint32_t ipv4,
                     unsigned prefix_len)
{
	uint32_t n = p->n_gids < SMCR_MAX_GIDS ? p->n_gids : SMCR_MAX_GIDS;
	for (uint32_t i = 0; i < n; i++) {
		const smcr_gid_entry *g = &p->gids[i];
		if (g->type != type || g->vlan_id != vlan)
			continue;
		if (type == SMCR_GID_ROCE_V2) {
			if (!gid_is_ipv4_mapped(g->gid))
				continue;
			if (!same_subnet(gid_ipv4(g->gid), ipv4, prefix_len))
				continue;
		}
		return (int)i;
	}
	return -1;
}

/* Copy text without surrounding whitespace into buf; -1 if it does not fit or is empty. */
static int trimmed(const char *text, char *buf, size_t buflen)
{
	while (isspace((unsigned char)*text))
		text++;
	size_t len = strlen(text);
	while (len > 0 && isspace((unsigned char)text[len - 1]))
		len--;
	if (len == 0 || len >= buflen)
		return -1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	return 0;
}

int gid_table_parse_gid(const char *text, uint8_t gid[16])
{
	char buf[64];
	if (trimmed(text, buf, sizeof buf) != 0)
		return -1;
	return inet_pton(AF_INET6, buf, gid) == 1 ? 0 : -1;
}

int gid_table_parse_type(const char *text, smcr_gid_type *type)
{
	char buf[32];
	if (trimmed(text, buf, sizeof buf) != 0)
		return -1;
	if (!strcmp(buf, "RoCE v2")) {
		*type = SMCR_GID_ROCE_V2;
		return 0;
	}
	if (!strcmp(buf, "IB/RoCE v1") || !strcmp(buf, "RoCE v1")) {
		*type = SMCR_GID_ROCE_V1;
		return 0;
	}
	return -1;
}

int gid_table_parse_mac(const char *text, uint8_t mac[6])
{
	char buf[32];
	unsigned v[6];
	char end;
	if (trimmed(text, buf, sizeof buf) != 0)
		return -1;
	if (sscanf(buf, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &end) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return 0;
}

int gid_table_vlan_lookup(const char *vlan_config, const char *ifname, uint16_t *vid)
{
	/* Lines after the two header lines read "eth0.100       | 100  | eth0". */
	const char *line = vlan_config;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[128], name[64];
		unsigned id;
		if (len < sizeof buf) {
			memcpy(buf, line, len);
			buf[len] = '\0';
			if (sscanf(buf, " %63s | %u |", name, &id) == 2 && !strcmp(name, ifname) && id < 4096) {
				*vid = (uint16_t)id;
				return 1;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}
