/* The SMC-R layer on real RoCE devices (--real-hw): the verbs transport instead of
 * simulated VFs, the port description the core gets, the descriptors the real-time
 * driver watches, and timeline faults mapped onto the device. See smc_layer.h. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "sim/rdma/real_port.h"
#include "sim/engine/realtime.h"
#include "sim/smc/smc_layer_int.h"

/* ---- what the device reports ---- */

static void on_wc(void *user, const smcr_wc *wc)
{
	smc_layer *l = user;
	if (l->freeing)
		return;
	smc_layer_enter(l);
	smcr_ctx_on_completion(l->ctx, wc, smc_layer_now(l));
	smc_layer_leave(l);
}

/* A GID table change (an address added or removed anywhere on the device's interface,
 * IPv6 DAD finishing) concerns this port only if its own GID went away or the port is no
 * longer active (see real_port.h). */
static bool gid_still_there(smc_layer *l, const smc_layer_port *p)
{
	const smcr_port_desc *d = smcr_ctx_port(l->ctx, p->port_index);
	return d && real_port_gid_still_there(l->vt, d);
}

static void on_async(void *user, smcr_tp_dev *dev, uint8_t port, smcr_async_event ev, void *qp_ctx)
{
	smc_layer *l = user;
	if (l->freeing)
		return;
	if (ev == SMCR_EV_QP_FATAL) {
		smc_layer_enter(l);
		smcr_ctx_on_async_event(l->ctx, ev, 0, qp_ctx, smc_layer_now(l));
		smc_layer_leave(l);
		return;
	}
	/* a port event reaches every layer port on that device port */
	for (size_t i = 0; i < l->n_ports; i++) {
		const smc_layer_port *p = &l->ports[i];
		if (p->dev != dev || (port && p->dev_port != port))
			continue;
		if (ev == SMCR_EV_GID_CHANGE && gid_still_there(l, p))
			continue;
		smc_layer_port_changed(l, p->port_index, ev);
		smc_layer_enter(l);
		smcr_ctx_on_async_event(l->ctx, ev, p->port_index, NULL, smc_layer_now(l));
		smc_layer_leave(l);
	}
}

verbs_transport *smc_real_transport_new(smc_layer *l)
{
	verbs_sink sink = { .completion = on_wc, .async_event = on_async };
	return verbs_transport_new(&sink, l);
}

void smc_real_free(smc_layer *l)
{
	if (!l->vt)
		return;
	for (size_t i = 0; i < l->n_rdevs; i++)
		for (int k = 0; k < 2; k++)
			if (l->rt && l->rdevs[i].watch[k])
				sim_realtime_unwatch(l->rt, l->rdevs[i].watch[k]);
	verbs_transport_free(l->vt); /* closes the devices */
	l->vt = NULL;
}

/* ---- activation ---- */

static smc_real_dev *real_dev(smc_layer *l, const char *name, char *err, size_t errlen)
{
	for (size_t i = 0; i < l->n_rdevs; i++)
		if (!strcmp(l->rdevs[i].name, name))
			return &l->rdevs[i];
	if (l->n_rdevs == SMC_MAX_ADAPTERS) {
		snprintf(err, errlen, "stack %s: more than %d RDMA devices", l->st->name, SMC_MAX_ADAPTERS);
		return NULL;
	}
	smcr_tp_dev *dev = verbs_dev_open(l->vt, name);
	if (!dev) {
		snprintf(err, errlen, "stack %s: %s", l->st->name, verbs_transport_last_error(l->vt, NULL));
		return NULL;
	}
	smc_real_dev *rd = &l->rdevs[l->n_rdevs++];
	memset(rd, 0, sizeof(*rd));
	rd->l = l;
	snprintf(rd->name, sizeof(rd->name), "%s", name);
	rd->dev = dev;
	return rd;
}

/* The port the core sees (real_port.h), named and placed as the scenario says. */
static int real_desc(smc_layer *l, const smcr_pfid_config *pc, const smc_real_port *m, smc_real_dev *rd,
                     smcr_port_desc *d, char *err, size_t errlen)
{
	const char *pnet = m->pnet_id[0] ? m->pnet_id : l->cfg.default_pnet;
	uint16_t vids[SMCR_MAX_GIDS - 1];
	const smcr_config *sc = stack_smcr(l->st);
	uint32_t mtu = pc->mtu ? pc->mtu : sc->mtu;
	smcr_mtu cap = mtu ? smc_layer_mtu_enum(mtu) : (smcr_mtu)0;
	if (m->mtu && (!cap || smc_layer_mtu_enum(m->mtu) < cap))
		cap = smc_layer_mtu_enum(m->mtu);
	real_port_opts o = {
		.dev_port = m->dev_port,
		.ipv4 = m->ipv4,
		.mtu_cap = cap,
		.vlans = vids,
		.n_vlans = smc_layer_pnet_vlans(l, pnet, vids, SMCR_MAX_GIDS - 1),
	};
	char why[512];
	int rc = real_port_describe(l->vt, rd->dev, &o, d, why, sizeof(why));
	if (rc) {
		snprintf(err, errlen, "stack %s, PFID %04X: %s", l->st->name, (unsigned)pc->pfid, why);
		return rc;
	}
	d->pfid = pc->pfid;
	if (l->st->personality == STACK_ZOS)
		snprintf(d->name, sizeof(d->name), "EZARIUT%u%04X", (unsigned)pc->portnum, (unsigned)pc->pfid);
	snprintf(d->pnet_id, sizeof(d->pnet_id), "%s", pnet);
	return 0;
}

static const smc_real_port *find_map(const smc_real_port *map, size_t n, uint16_t pfid, uint8_t port)
{
	for (size_t i = 0; i < n; i++)
		if (map[i].pfid == pfid && map[i].port == port)
			return &map[i];
	return NULL;
}

int smc_layer_activate_real(smc_layer *l, const smc_real_port *map, size_t n_map, char *err, size_t errlen)
{
	if (!l->vt) {
		snprintf(err, errlen, "stack %s: its SMC-R layer was not made for real devices", l->st->name);
		return SMCR_ERR_STATE;
	}
	const smcr_config *sc = stack_smcr(l->st);
	int added = 0;
	for (size_t i = 0; i < sc->n_pfids; i++) {
		const smcr_pfid_config *pc = &sc->pfids[i];
		bool have = false;
		for (size_t k = 0; k < l->n_ports; k++)
			have |= l->ports[k].pfid == pc->pfid && l->ports[k].port == pc->portnum;
		if (have)
			continue; /* activated twice */
		const smc_real_port *m = find_map(map, n_map, pc->pfid, pc->portnum);
		if (!m) {
			snprintf(err, errlen,
			         "stack %s activates PFID %04X port %u, which --real-hw does not map to a device "
			         "(add %04X%s=DEV:PORT)",
			         l->st->name, (unsigned)pc->pfid, (unsigned)pc->portnum, (unsigned)pc->pfid,
			         pc->portnum == 1 ? "" : "/2");
			return SMCR_ERR_NOTFOUND;
		}
		if (l->n_ports == SMCR_MAX_PORTS) {
			snprintf(err, errlen, "stack %s: more than %d RoCE ports", l->st->name, SMCR_MAX_PORTS);
			return SMCR_ERR_LIMIT;
		}
		smc_real_dev *rd = real_dev(l, m->dev, err, errlen);
		if (!rd)
			return SMCR_ERR_NOTFOUND;
		smcr_port_desc d;
		int rc = real_desc(l, pc, m, rd, &d, err, errlen);
		if (rc)
			return rc;
		smc_layer_enter(l);
		rc = smcr_ctx_add_port(l->ctx, &d, smc_layer_now(l));
		smc_layer_leave(l);
		if (rc < 0) {
			snprintf(err, errlen, "stack %s: the core refused %s port %u: %s", l->st->name, m->dev,
			         (unsigned)m->dev_port, smcr_strerror(rc));
			return rc;
		}
		smc_layer_port *p = &l->ports[l->n_ports++];
		memset(p, 0, sizeof(*p));
		p->port = pc->portnum;
		p->port_index = (uint32_t)rc;
		p->pfid = pc->pfid;
		p->dev = rd->dev;
		p->dev_port = m->dev_port;
		added++;
	}
	return added;
}

/* ---- the real-time driver ---- */

static void on_fd(void *ctx, int fd)
{
	(void)fd;
	smc_real_dev *rd = ctx;
	if (!rd->l->freeing)
		verbs_dev_process(rd->l->vt, rd->dev);
}

void smc_layer_real_watch(smc_layer *l, sim_realtime *rt)
{
	if (!l->vt)
		return;
	l->rt = rt;
	for (size_t i = 0; i < l->n_rdevs; i++) {
		smc_real_dev *rd = &l->rdevs[i];
		int fds[2];
		size_t n = verbs_dev_fds(rd->dev, fds, 2);
		for (size_t k = 0; k < n && k < 2; k++)
			if (!rd->watch[k])
				rd->watch[k] = sim_realtime_watch_fd(rt, fds[k], on_fd, rd);
	}
}

/* ---- timeline faults ---- */

/* every QP of the port's usable links, however many (no fixed-size list on a failure path) */
typedef struct port_qpns {
	uint32_t port_index;
	GArray *qpn; /* uint32_t */
} port_qpns;

static void collect_qpn(void *arg, const smcr_link_info *li)
{
	port_qpns *q = arg;
	if (li->port_index == q->port_index && li->local_qpn &&
	    (li->state == SMCR_LNK_ACTIVE || li->state == SMCR_LNK_ACTIVATING))
		g_array_append_val(q->qpn, li->local_qpn);
}

int smc_layer_real_fail(smc_layer *l, uint16_t pfid, uint8_t port, bool fail)
{
	if (!l->vt)
		return 0;
	int n = 0;
	for (size_t i = 0; i < l->n_ports; i++) {
		const smc_layer_port *p = &l->ports[i];
		if (p->pfid != pfid || (port && p->port != port))
			continue;
		n++;
		if (fail) {
			/* what the device completed before it failed reaches the core first, as a
			 * port's completions come before its port event: a CDC the QP received and
			 * acknowledged is data the peer will not send again */
			verbs_dev_process(l->vt, p->dev);
			/* then the adapter stops: its QPs go to the error state (their flushed work
			 * requests complete after the port event, for QPs the core has let go) */
			port_qpns q = { .port_index = p->port_index, .qpn = g_array_new(false, false, sizeof(uint32_t)) };
			smcr_ctx_foreach_link(l->ctx, collect_qpn, &q);
			for (guint k = 0; k < q.qpn->len; k++)
				verbs_dev_qp_to_err(l->vt, p->dev, g_array_index(q.qpn, uint32_t, k));
			g_array_free(q.qpn, true);
		}
		smc_layer_port_changed(l, p->port_index, fail ? SMCR_EV_PORT_ERR : SMCR_EV_PORT_ACTIVE);
		smc_layer_enter(l);
		smcr_ctx_on_async_event(l->ctx, fail ? SMCR_EV_PORT_ERR : SMCR_EV_PORT_ACTIVE, p->port_index, NULL,
		                        smc_layer_now(l));
		smc_layer_leave(l);
	}
	return n;
}
