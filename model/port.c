/* RoCE port and GID selection (Linux smc_pnet.c, smc_ib_determine_gid()).
 *
 * A TCP connection reaches the RoCE ports with the PNET id of its egress interface; without
 * a PNET id, the port whose netdev is the egress interface. SMC-Rv1 needs a RoCE v1 GID on
 * the connection's VLAN; SMC-Rv2 an IPv4-mapped RoCE v2 GID whose netdev address has the
 * connection's source address in its subnet (smc_ib_determine_gid_rcu: inet_ifa_match).
 * An alternate port for a second link must have the link group's PNET id, sit on another
 * device than the existing link's and, for v2, have such a GID for the link group's
 * source address. */
#include "model/port_int.h"

#include <string.h>

#include "model/addr_int.h"
#include "model/clc.h"
#include "model/ctx_int.h"
#include "model/lgr_int.h"
#include "model/smcr.h"
#include "model/smcr_transport.h"

static bool gid_is_v4_mapped(const uint8_t g[16])
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	return !memcmp(g, pfx, 12);
}

static bool port_usable(const smcr_ctx *ctx, uint32_t port)
{
	return port < ctx->n_ports && ctx->ports[port].d.state == SMCR_PORT_ACTIVE;
}

static uint32_t prefix_mask(uint8_t len)
{
	return len == 0 ? 0 : len >= 32 ? 0xffffffffu
	                                : ~(0xffffffffu >> len);
}

/* v2: is the GID's address (from an interface with prefix_len bits of network) in the
 * subnet of v4 (Linux: the netdev's in_ifaddr matches the source address)? A GID whose
 * prefix the host did not know (a real device's address outside the simulated network)
 * is judged as a /24. */
static bool gid_in_subnet(const smcr_gid_entry *g, uint32_t v4)
{
	uint32_t m = prefix_mask(g->prefix_len ? g->prefix_len : 24);
	return (smcr_gid_ipv4(g->gid) & m) == (v4 & m);
}

static void pick(uint32_t port, const smcr_gid_entry *g, smcr_dev_pick *out)
{
	out->port = (int32_t)port;
	memcpy(out->gid, g->gid, 16);
	out->sgid_index = g->index;
}

/* The GID a port offers: v1 the one on vlan_id; v2 one in v4_hint's subnet (any when
 * v4_hint is 0), with `loose` also one of unknown prefix. */
static bool port_gid_for(const smcr_ctx *ctx, uint32_t port, uint16_t vlan_id, bool v2,
                         uint32_t v4_hint, bool loose, smcr_dev_pick *out)
{
	if (!port_usable(ctx, port))
		return false;
	const smcr_port_desc *d = &ctx->ports[port].d;
	for (uint32_t i = 0; i < d->n_gids; i++) {
		const smcr_gid_entry *g = &d->gids[i];
		if (!v2) {
			if (g->type != SMCR_GID_ROCE_V1 || g->vlan_id != vlan_id)
				continue;
		} else {
			if (g->type != SMCR_GID_ROCE_V2 || !gid_is_v4_mapped(g->gid))
				continue;
			/* loose: any GID of unknown prefix will do (a real device whose addresses
			 * are not the simulated stack's); a known prefix must always match */
			if (v4_hint && !gid_in_subnet(g, v4_hint) && (!loose || g->prefix_len))
				continue;
		}
		pick(port, g, out);
		return true;
	}
	return false;
}

static uint32_t v4_subnet_hint(const smcr_tcp_info *tcp)
{
	return tcp->family == 4 ? tcp->local_ipv4 : 0;
}

/* One pass looks for a GID in the source address's subnet on every candidate port, the
 * second (v2 only) accepts a GID of unknown prefix: a port is never taken for a loose GID
 * while another has a matching one. */
bool smcr_port_find(const smcr_ctx *ctx, const smcr_tcp_info *tcp, uint16_t vlan_id, bool v2,
                    smcr_dev_pick *out)
{
	out->port = -1;
	uint32_t hint = v4_subnet_hint(tcp);
	for (int loose = 0; loose <= (v2 ? 1 : 0); loose++) {
		if (tcp->pnet_id[0]) {
			for (uint32_t i = 0; i < ctx->n_ports; i++) {
				if (strncmp(ctx->ports[i].d.pnet_id, tcp->pnet_id, 16))
					continue;
				if (port_gid_for(ctx, i, vlan_id, v2, hint, loose, out))
					return true;
			}
		} else if (tcp->netdev_port >= 0 && (uint32_t)tcp->netdev_port < ctx->n_ports) {
			if (port_gid_for(ctx, (uint32_t)tcp->netdev_port, vlan_id, v2, hint, loose, out))
				return true;
		}
	}
	return false;
}

bool smcr_port_find_alt(const smcr_ctx *ctx, const smcr_lgr *lgr, uint32_t known_port,
                        smcr_dev_pick *out)
{
	out->port = -1;
	if (!lgr->pnet_id[0] || known_port >= ctx->n_ports)
		return false;
	const smcr_tp_dev *known_dev = ctx->ports[known_port].d.dev;
	bool v2 = lgr->version == 2;
	for (int loose = 0; loose <= (v2 ? 1 : 0); loose++) {
		for (uint32_t i = 0; i < ctx->n_ports; i++) {
			const smcr_port_desc *d = &ctx->ports[i].d;
			if (d->dev == known_dev || strncmp(d->pnet_id, lgr->pnet_id, 16))
				continue;
			if (port_gid_for(ctx, i, lgr->vlan_id, v2, lgr->saddr, loose, out))
				return true;
		}
	}
	return false;
}

/* Used by the server's prefix check (smc_clc_prfx_match): v4 needs an interface address
 * with the same prefix length inside the proposed subnet; v6 an address equal to one of
 * the proposed prefixes. */
bool smcr_prefix_match(const smcr_tcp_info *tcp, const smcr_clc_proposal *p)
{
	if (!p->n_ipv6) {
		for (uint32_t i = 0; i < tcp->n_ipv4 && i < SMCR_MAX_IFADDRS; i++) {
			uint8_t len = tcp->ipv4[i].prefix_len;
			if (len != p->ipv4_prefix_len)
				continue;
			if ((tcp->ipv4[i].addr & prefix_mask(len)) == (p->ipv4_subnet & prefix_mask(len)))
				return true;
		}
		return false;
	}
	for (uint32_t i = 0; i < tcp->n_ipv6 && i < SMCR_MAX_IFADDRS; i++) {
		for (uint32_t j = 0; j < p->n_ipv6 && j < SMCR_MAX_IPV6_PREFIXES; j++) {
			uint8_t len = p->ipv6[j].len;
			if (tcp->ipv6[i].prefix_len != len || len > 128)
				continue;
			uint8_t full = len / 8, rest = len % 8;
			if (memcmp(tcp->ipv6[i].addr, p->ipv6[j].prefix, full))
				continue;
			if (rest) {
				uint8_t m = (uint8_t)(0xff << (8 - rest));
				if ((tcp->ipv6[i].addr[full] & m) != (p->ipv6[j].prefix[full] & m))
					continue;
			}
			return true;
		}
	}
	return false;
}

/* The client's Proposal prefix (smc_clc_prfx_set): v4: the interface address that holds
 * the local address; v6: up to 8 non-link-local prefixes. false when none is known. */
bool smcr_prefix_set(const smcr_tcp_info *tcp, smcr_clc_proposal *p)
{
	p->ipv4_subnet = 0;
	p->ipv4_prefix_len = 0;
	p->n_ipv6 = 0;
	if (tcp->family == 4) {
		for (uint32_t i = 0; i < tcp->n_ipv4 && i < SMCR_MAX_IFADDRS; i++) {
			uint32_t m = prefix_mask(tcp->ipv4[i].prefix_len);
			if ((tcp->ipv4[i].addr & m) != (tcp->local_ipv4 & m))
				continue;
			p->ipv4_subnet = tcp->local_ipv4 & m;
			p->ipv4_prefix_len = tcp->ipv4[i].prefix_len;
			return true;
		}
		return false;
	}
	for (uint32_t i = 0; i < tcp->n_ipv6 && i < SMCR_MAX_IFADDRS && p->n_ipv6 < SMCR_MAX_IPV6_PREFIXES; i++) {
		const uint8_t *a = tcp->ipv6[i].addr;
		if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
			continue; /* link local */
		uint8_t len = tcp->ipv6[i].prefix_len;
		smcr_ipv6_prefix *pf = &p->ipv6[p->n_ipv6++];
		memset(pf->prefix, 0, 16);
		uint8_t full = len / 8, rest = len % 8;
		memcpy(pf->prefix, a, full > 16 ? 16 : full);
		if (rest && full < 16)
			pf->prefix[full] = (uint8_t)(a[full] & (0xff << (8 - rest)));
		pf->len = len;
	}
	return p->n_ipv6 > 0;
}
