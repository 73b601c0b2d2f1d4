/* Real device ports for the core (see real_port.h). */
#include "sim/rdma/real_port.h"

#include <stdio.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/addr/addr_text.h"

static bool v4_mapped(const uint8_t g[16])
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	return !memcmp(g, pfx, 12);
}

static uint32_t gid_v4(const uint8_t g[16])
{
	return (uint32_t)g[12] << 24 | (uint32_t)g[13] << 16 | (uint32_t)g[14] << 8 | g[15];
}

static void gids_text(const smcr_port_desc *d, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = 0;
	for (uint32_t i = 0; i < d->n_gids && off + 24 < len; i++) {
		const uint8_t *g = d->gids[i].gid;
		char ip[ADDR_TEXT_IPV4_LEN];
		if (v4_mapped(g))
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", addr_text_ipv4(gid_v4(g), ip, sizeof(ip)));
	}
	if (!off)
		snprintf(buf, len, "none");
}

int real_port_describe(verbs_transport *vt, smcr_tp_dev *dev, const real_port_opts *o, smcr_port_desc *out,
                       char *err, size_t errlen)
{
	smcr_port_desc real;
	int rc = verbs_dev_port(vt, dev, o->dev_port, &real);
	if (rc) {
		snprintf(err, errlen, "%s", verbs_transport_last_error(vt, NULL));
		return rc;
	}
	int pick = -1;
	for (uint32_t i = 0; i < real.n_gids && pick < 0; i++) {
		const smcr_gid_entry *g = &real.gids[i];
		if (g->type == SMCR_GID_ROCE_V2 && v4_mapped(g->gid) && (!o->ipv4 || gid_v4(g->gid) == o->ipv4))
			pick = (int)i;
	}
	const char *name = verbs_dev_name(dev);
	if (pick < 0) {
		char have[160], want[ADDR_TEXT_IPV4_LEN];
		gids_text(&real, have, sizeof(have));
		if (o->ipv4)
			snprintf(err, errlen,
			         "%s port %u has no RoCE v2 GID for %s (IPv4-mapped GIDs: %s); add the address to "
			         "the device's network interface (ip addr add)",
			         name, (unsigned)o->dev_port, addr_text_ipv4(o->ipv4, want, sizeof(want)), have);
		else
			snprintf(err, errlen,
			         "%s port %u has no IPv4-mapped RoCE v2 GID: give its network interface an IPv4 address "
			         "(ip addr add A.B.C.D/N dev IFACE)",
			         name, (unsigned)o->dev_port);
		return SMCR_ERR_NOTFOUND;
	}
	const smcr_gid_entry chosen = real.gids[pick];
	memset(out, 0, sizeof(*out));
	out->dev = dev;
	out->port = o->dev_port;
	snprintf(out->name, sizeof(out->name), "%s", name);
	memcpy(out->mac, real.mac, 6);
	out->state = real.state;
	out->active_mtu = real.active_mtu;
	if (o->mtu_cap && o->mtu_cap < out->active_mtu)
		out->active_mtu = o->mtu_cap;
	static const uint16_t untagged = 0;
	const uint16_t *vlans = o->n_vlans ? o->vlans : &untagged;
	size_t n_vlans = o->n_vlans ? o->n_vlans : 1;
	for (size_t i = 0; i < n_vlans && out->n_gids < SMCR_MAX_GIDS - 1; i++) {
		smcr_gid_entry *g = &out->gids[out->n_gids++];
		*g = chosen;
		g->type = SMCR_GID_ROCE_V1; /* what SMC-Rv1 looks for; see real_port.h */
		g->vlan_id = vlans[i];
	}
	out->gids[out->n_gids++] = chosen; /* last: real_port_gid_still_there() looks there */
	return 0;
}

bool real_port_gid_still_there(verbs_transport *vt, const smcr_port_desc *d)
{
	smcr_port_desc real;
	if (!d->n_gids || verbs_dev_port(vt, d->dev, d->port, &real))
		return false;
	const smcr_gid_entry *g = &d->gids[d->n_gids - 1];
	bool found = false;
	for (uint32_t i = 0; i < real.n_gids; i++)
		found |= real.gids[i].index == g->index && !memcmp(real.gids[i].gid, g->gid, 16);
	return found && real.state == SMCR_PORT_ACTIVE;
}
