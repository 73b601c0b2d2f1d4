/* Operator reports of a running world: the plain-data snapshot (sim/report/report.h) filled from
 * the cores' introspection, the stacks' layers and the applications' sockets, printed in
 * the requested style; and the log of link events (IST2406I-style groups). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/clc.h"
#include "sim/addr/addr_text.h"
#include "sim/report/report_core.h"
#include "sim/report/report_print.h"
#include "sim/scenario/scn_values.h"
#include "sim/net/tcp.h"
#include "sim/world/world_int.h"

/* ---- link events ---- */

static uint32_t lgr_num_of(smc_layer *l, uint64_t lgr_id)
{
	return report_core_lgr_num(smc_layer_ctx(l), lgr_id);
}

static const char *port_name(const smc_layer *l, uint32_t port_index)
{
	const smcr_port_desc *pd = smcr_ctx_port(smc_layer_ctx(l), port_index);
	return pd ? pd->name : "?";
}

static report_event *add_event(world *w)
{
	if (w->n_events == w->cap_events) {
		w->cap_events = w->cap_events ? w->cap_events * 2 : 16;
		w->events = realloc(w->events, w->cap_events * sizeof(*w->events));
		if (!w->events)
			abort();
	}
	report_event *e = &w->events[w->n_events];
	memset(e, 0, sizeof(*e));
	e->seq = w->n_events++;
	return e;
}

static void event_from_link(world *w, world_host *ws, report_event *e, const smcr_link_info *li)
{
	e->time_ns = sim_now(w->eng);
	e->stack_id = ws->report_id;
	const smcr_port_desc *pd = smcr_ctx_port(smc_layer_ctx(ws->l), li->port_index);
	snprintf(e->intf, sizeof(e->intf), "%.16s", pd ? pd->name : "");
	e->port = pd ? pd->port : 0;
	e->lgr_id = lgr_num_of(ws->l, li->lgr_id);
	e->link_num = li->link_id;
	e->local_link_id = li->link_uid;
	e->remote_link_id = li->peer_link_uid;
	memcpy(e->local_mac, li->local_mac, 6);
	memcpy(e->remote_mac, li->peer_mac, 6);
	memcpy(e->local_gid, li->local_gid, 16);
	memcpy(e->remote_gid, li->peer_gid, 16);
	e->local_qpn = li->local_qpn;
	e->remote_qpn = li->peer_qpn;
	e->vlan = li->vlan_id ? li->vlan_id : REPORT_NO_VLAN;
}

static void print_event(world *w, const report_event *e)
{
	smcr_report r;
	report_init(&r);
	const world_host *ws = &w->st[e->stack_id - 1];
	report_stack *rs = report_add_stack(&r);
	rs->id = ws->report_id;
	snprintf(rs->name, sizeof(rs->name), "%s", ws->st->name);
	rs->os = ws->st->personality == STACK_ZOS ? REPORT_OS_ZOS : REPORT_OS_LINUX;
	*report_add_event(&r) = *e;
	report_print_log(w->out, &r);
	report_free(&r);
}

/* Linux net/smc's own kernel messages for link and link-group events (smc_llc.c
 * smc_llc_link_active, smc_llc_link_clear; smc_core.c smcr_lgr_set_type, Linux 6.1: with
 * the net namespace cookie, 1 for the initial namespace), after the stack's name. */
static bool linux_log(const world_host *ws) { return ws->st->personality != STACK_ZOS; }

static void log_linux_link_added(world *w, world_host *ws, const smcr_link_info *li)
{
	const smcr_port_desc *pd = smcr_ctx_port(smc_layer_ctx(ws->l), li->port_index);
	world_log_prefix(w, w->out);
	fprintf(w->out, "%s: smc: SMC-R lg %08" PRIX32 " net 1 link added: id %08" PRIX32 ", peerid %08" PRIX32 ", ibdev %s, ibport %u\n",
	        ws->st->name, lgr_num_of(ws->l, li->lgr_id), li->link_uid, li->peer_link_uid, pd ? pd->name : "?",
	        pd ? (unsigned)pd->port : 0u);
}

static void lgr_pnet(void *arg, const smcr_lgr_info *li)
{
	const uint64_t *want = ((const uint64_t **)arg)[0];
	char *out = ((char **)arg)[1];
	if (li->id == *want)
		snprintf(out, 17, "%s", li->pnet_id);
}

static void log_linux_lgr_type(world *w, world_host *ws, uint64_t lgr_id, unsigned type)
{
	static const char *const names[] = { "NONE", "SINGLE", "SYMMETRIC", "ASYMMETRIC_PEER", "ASYMMETRIC_LOCAL" };
	char pnet[17] = "";
	const void *arg[2] = { &lgr_id, pnet };
	smcr_ctx_foreach_lgr(smc_layer_ctx(ws->l), lgr_pnet, arg);
	world_log_prefix(w, w->out);
	fprintf(w->out, "%s: smc: SMC-R lg %08" PRIX32 " net 1 state changed: %s, pnetid %.16s\n", ws->st->name,
	        lgr_num_of(ws->l, lgr_id), type < 5 ? names[type] : "?", pnet);
}

void world_on_layer_event(void *user, smc_layer *l, const smcr_event *ev)
{
	world *w = user;
	world_host *ws = world_stack_of_layer(w, l);
	if (!ws)
		return;
	world_obs_core_event(w, l, ev);
	bool log = w->o.verbose && !w->o.json;
	const char *name = ws->st->name;
	world_capture_links_changed(w);
	switch (ev->type) {
	case SMCR_EV_LINK_DOWN:
		if (ev->link && !ev->link->peer_link_uid) {
			/* never confirmed: a failed setup, not a link failure */
			if (log) {
				world_log_prefix(w, w->out);
				fprintf(w->out, "%s: SMC-R link %08" PRIX32 " setup failed on %s: %s\n", name, ev->link->link_uid,
				        port_name(l, ev->link->port_index), smcr_linkdown_reason_text(ev->linkdown));
			}
			return;
		}
		if (ev->link) {
			report_event *e = add_event(w);
			event_from_link(w, ws, e, ev->link);
			e->kind = REPORT_EVENT_LINK_FAILED;
			/* the DELETE LINK reason; a failure seen locally is a lost path */
			e->code = ev->reason ? ev->reason : SMCR_LLC_DEL_LOST_PATH;
			snprintf(e->cause, sizeof(e->cause), "%s", smcr_linkdown_reason_text(ev->linkdown));
			if (log)
				print_event(w, e);
		}
		return;
	case SMCR_EV_LINK_REMOVED:
		if (ev->link && ev->link->peer_link_uid) {
			for (size_t i = w->n_events; i-- > 0;)
				if (w->events[i].stack_id == ws->report_id && w->events[i].local_link_id == ev->link->link_uid &&
				    w->events[i].kind == REPORT_EVENT_LINK_FAILED)
					return; /* its failure was reported */
			report_event *e = add_event(w);
			event_from_link(w, ws, e, ev->link);
			e->kind = REPORT_EVENT_LINK_DELETED;
			snprintf(e->cause, sizeof(e->cause), "%s", ev->text ? ev->text : "link removed");
			if (log)
				print_event(w, e);
		}
		return;
	case SMCR_EV_LINK_ADDED:
		if (log && ev->link && linux_log(ws)) {
			log_linux_link_added(w, ws, ev->link);
		} else if (log && ev->link) {
			world_log_prefix(w, w->out);
			fprintf(w->out, "%s: SMC-R link %08" PRIX32 " active on %s (link group %08" PRIX32 ", remote link %08" PRIX32 ", QP %06" PRIX32 " -> %06" PRIX32 ")\n",
			        name, ev->link->link_uid, port_name(l, ev->link->port_index), lgr_num_of(l, ev->link->lgr_id),
			        ev->link->peer_link_uid, ev->link->local_qpn, ev->link->peer_qpn);
		}
		return;
	case SMCR_EV_LGR_TERMINATED: {
		report_event *e = add_event(w);
		e->time_ns = sim_now(w->eng);
		e->stack_id = ws->report_id;
		e->kind = REPORT_EVENT_LGR_ENDED;
		e->code = ev->reason;
		e->lgr_id = lgr_num_of(l, ev->lgr_id);
		e->vlan = REPORT_NO_VLAN;
		snprintf(e->cause, sizeof(e->cause), "%s%s%s", smcr_lgr_end_text(ev->lgr_end), ev->text ? ": " : "",
		         ev->text ? ev->text : "");
		if (log)
			print_event(w, e);
		return;
	}
	case SMCR_EV_LGR_CREATED:
	case SMCR_EV_LGR_FREED:
	case SMCR_EV_LGR_TYPE:
		if (log && ev->type == SMCR_EV_LGR_TYPE && linux_log(ws)) {
			log_linux_lgr_type(w, ws, ev->lgr_id, (unsigned)ev->lgr_type);
		} else if (log) {
			smcr_lgr_info li;
			memset(&li, 0, sizeof(li));
			uint32_t num = lgr_num_of(l, ev->lgr_id);
			world_log_prefix(w, w->out);
			if (ev->type == SMCR_EV_LGR_CREATED)
				fprintf(w->out, "%s: SMC-R link group %08" PRIX32 " created\n", name, num);
			else if (ev->type == SMCR_EV_LGR_TYPE)
				fprintf(w->out, "%s: SMC-R link group %08" PRIX32 " is now %s\n", name, num,
				        report_lgr_type_name((report_lgr_type)ev->lgr_type));
			else
				fprintf(w->out, "%s: SMC-R link group freed\n", name);
		}
		return;
	case SMCR_EV_ADD_LINK_REJECTED:
	case SMCR_EV_DECODE_ERROR:
	case SMCR_EV_LLC_DROPPED:
	case SMCR_EV_LLC_PROTOCOL_VIOLATION:
		if (log) {
			world_log_prefix(w, w->out);
			fprintf(w->out, "%s: SMC-R %s%s%s\n", name,
			        ev->type == SMCR_EV_ADD_LINK_REJECTED ? "ADD LINK rejected"
			        : ev->type == SMCR_EV_DECODE_ERROR    ? "message failed to decode"
			        : ev->type == SMCR_EV_LLC_DROPPED     ? "LLC message dropped"
			                                              : "LLC protocol violation",
			        ev->text ? ": " : "", ev->text ? ev->text : "");
		}
		return;
	case SMCR_EV_CONN_STATE:
		return;
	}
}

/* A RoCE port went down or came back. On a z/OS stack the interface's INOP is an event
 * (VTAM's IST1717I/IST1578I group) ahead of the link failures it causes; a Linux stack
 * logs nothing of its own here (its links' events follow). */
void world_on_port_event(void *user, smc_layer *l, uint32_t port_index, bool up)
{
	world *w = user;
	world_host *ws = world_stack_of_layer(w, l);
	if (!ws || ws->st->personality != STACK_ZOS)
		return;
	bool log = w->o.verbose && !w->o.json;
	if (up) {
		if (log) {
			world_log_prefix(w, w->out);
			fprintf(w->out, "%s: RoCE interface %s active again\n", ws->st->name, port_name(l, port_index));
		}
		return;
	}
	report_event *e = add_event(w);
	e->time_ns = sim_now(w->eng);
	e->stack_id = ws->report_id;
	e->kind = REPORT_EVENT_INTF_INOP;
	e->lgr_id = REPORT_UNKNOWN;
	e->vlan = REPORT_NO_VLAN;
	snprintf(e->intf, sizeof(e->intf), "%.16s", port_name(l, port_index));
	snprintf(e->cause, sizeof(e->cause), "port error (the adapter or its link failed)");
	if (log)
		print_event(w, e);
}

/* ---- filling a report ---- */

typedef struct fill_ctx {
	world *w;
	world_host *ws;
	smcr_report *r;
	uint32_t stack_id;
	uint32_t rnic_base; /* report rnic id of the layer's first port */
	const smcr_ctx *ctx;
} fill_ctx;

static void fill_lgr(void *arg, const smcr_lgr_info *li)
{
	fill_ctx *c = arg;
	report_lgr *g = report_add_lgr(c->r);
	report_core_lgr(g, li);
	g->stack_id = c->stack_id;
	/* Only what the protocol told this stack: a v2 first contact names the peer's host
	 * (the Accept's or Confirm's first-contact extension), and the peer stack is the one
	 * with that host name; SMC-Rv1 names no host (only the system id), so a v1 link group
	 * shows none, as a real stack could not. */
	g->peer_stack_id = 0;
	for (size_t i = 0; g->peer_host[0] && i < c->w->scn->n_stacks; i++)
		if (!strcmp(c->w->scn->stacks[i].hostname, g->peer_host)) {
			g->peer_stack_id = (uint32_t)i + 1;
			break;
		}
}

static uint32_t rnic_id_of(const fill_ctx *c, uint32_t port_index)
{
	size_t n = smc_layer_n_ports(c->ws->l);
	for (size_t i = 0; i < n; i++)
		if (smc_layer_port_get(c->ws->l, i)->port_index == port_index)
			return c->rnic_base + (uint32_t)i;
	return REPORT_UNKNOWN;
}

static void fill_link(void *arg, const smcr_link_info *li)
{
	fill_ctx *c = arg;
	report_core_add_link(c->r, c->ctx, li, c->stack_id, rnic_id_of(c, li->port_index));
}

static void ip4(uint8_t out[16], uint32_t a)
{
	memset(out, 0, 16);
	out[0] = (uint8_t)(a >> 24);
	out[1] = (uint8_t)(a >> 16);
	out[2] = (uint8_t)(a >> 8);
	out[3] = (uint8_t)a;
}

static void fill_conn(void *arg, const smc_layer_conn *lc)
{
	fill_ctx *c = arg;
	if (lc->mode == SOCK_MODE_FALLBACK)
		return; /* from the application's socket (below) while it is open */
	report_conn *k = report_add_conn(c->r);
	k->id = (uint32_t)lc->id;
	k->stack_id = c->stack_id;
	k->family = 4;
	ip4(k->local_ip, lc->local_ip);
	ip4(k->peer_ip, lc->peer_ip);
	k->local_port = lc->local_port;
	k->peer_port = lc->peer_port;
	k->role = lc->server ? REPORT_ROLE_SERVER : REPORT_ROLE_CLIENT;
	k->mode = REPORT_MODE_SMCR;
	k->state = REPORT_CONN_INIT;
	if (!lc->has_core)
		return;
	const smcr_conn_info *ci = &lc->core_info;
	k->state = (report_conn_state)ci->state;
	k->smc_version = ci->version;
	k->local_token = ci->local_token;
	k->peer_token = ci->peer_token;
	k->rmbe_size = ci->rmbe_size;
	k->peer_rmbe_size = ci->peer_rmbe_size;
	k->sndbuf_size = ci->sndbuf_size;
	k->rx_prod = (report_cursor){ ci->rx_prod.wrap, ci->rx_prod.count };
	k->rx_cons = (report_cursor){ ci->rx_cons.wrap, ci->rx_cons.count };
	k->tx_prod = (report_cursor){ ci->tx_prod.wrap, ci->tx_prod.count };
	k->tx_cons = (report_cursor){ ci->tx_cons.wrap, ci->tx_cons.count };
	k->tx_prep = (report_cursor){ ci->tx_prep.wrap, ci->tx_prep.count };
	k->tx_sent = (report_cursor){ ci->tx_sent.wrap, ci->tx_sent.count };
	k->tx_fin = (report_cursor){ ci->tx_fin.wrap, ci->tx_fin.count };
	k->rx_prod_flags = ci->rx_prod_flags;
	k->rx_conn_flags = ci->rx_conn_flags;
	k->tx_prod_flags = ci->tx_prod_flags;
	k->tx_conn_flags = ci->tx_conn_flags;
	k->bytes_sent = ci->bytes_sent;
	k->bytes_received = ci->bytes_received;
	if (ci->lgr_id)
		k->lgr_id = lgr_num_of(c->ws->l, ci->lgr_id);
	smcr_link_info li;
	if (ci->link_id && smcr_ctx_link_info(c->ctx, ci->link_id, &li) == 0) {
		k->link_num = li.link_id;
		k->link_id = li.link_uid;
		memcpy(k->local_gid, li.local_gid, 16);
		memcpy(k->peer_gid, li.peer_gid, 16);
	}
}

static void fill_fallback_socks(fill_ctx *c, uint32_t stack_idx, uint32_t *next_id)
{
	world *w = c->w;
	for (size_t i = 0; i < w->n_flows; i++) {
		world_flow *f = w->flows[i];
		world_end *ends[2] = { &f->af.c, &f->af.srv };
		for (int k = 0; k < 2; k++) {
			world_end *e = ends[k];
			if (world_end_stack(e) != stack_idx || !e->s || !e->connected || e->mode != SOCK_MODE_FALLBACK)
				continue;
			tcp_pcb *pcb = sock_tcp_pcb(e->s);
			report_conn *rc = report_add_conn(c->r);
			rc->id = (*next_id)++;
			rc->stack_id = c->stack_id;
			rc->family = 4;
			if (pcb) {
				tcp_info ti;
				tcp_get_info(pcb, &ti);
				ip4(rc->local_ip, ti.local_ip);
				ip4(rc->peer_ip, ti.remote_ip);
				rc->local_port = ti.local_port;
				rc->peer_port = ti.remote_port;
			}
			rc->state = REPORT_CONN_ACTIVE;
			rc->mode = REPORT_MODE_TCP;
			rc->role = e->server ? REPORT_ROLE_SERVER : REPORT_ROLE_CLIENT;
			rc->fallback_reason = e->reason;
			rc->peer_diagnosis = world_end_peer_diag(e);
			rc->bytes_sent = e->sent;
			rc->bytes_received = e->rx_total;
		}
	}
}

static void fill_stats(world *w, uint32_t stack_idx, report_stats *rs, const smcr_ctx *ctx)
{
	report_core_stats(rs, ctx);
	/* PEERNOSMC is decided by TCP before the layer sees the connection */
	for (size_t i = 0; i < w->n_flows; i++) {
		const world_flow *f = w->flows[i];
		const world_end *ends[2] = { &f->af.c, &f->af.srv };
		for (int k = 0; k < 2; k++)
			if (world_end_stack(ends[k]) == stack_idx && ends[k]->connected && ends[k]->mode == SOCK_MODE_FALLBACK &&
			    ends[k]->reason == SMCR_DECL_PEERNOSMC)
				report_stats_add_fallback(rs, SMCR_DECL_PEERNOSMC, ends[k]->server);
	}
}

/* the figures storage planning needs (sim/report/report_storage.c) */
static void fill_storage(report_storage *st, const scn_stack *ss, const smcr_ctx *ctx, size_t ports)
{
	smcr_stats s;
	smcr_ctx_get_stats(ctx, &s);
	st->known = true;
	st->pfids = (uint32_t)ports;
	st->fixed_memory = ss->smcr.fixedmemory;
	st->lgr_peak = s.lgr_peak;
	st->conn_peak = s.conn_peak;
	st->rmb_blocks_peak = s.zos_rmb_blocks_peak;
}

static void fill_stack(world *w, smcr_report *r, uint32_t i)
{
	world_host *ws = &w->st[i];
	const scn_stack *ss = &w->scn->stacks[i];
	report_stack *rs = report_add_stack(r);
	rs->id = ws->report_id;
	snprintf(rs->name, sizeof(rs->name), "%s", ss->name);
	rs->os = ss->personality == SCN_PERS_ZOS ? REPORT_OS_ZOS : REPORT_OS_LINUX;
	snprintf(rs->hostname, sizeof(rs->hostname), "%s", ss->hostname);
	rs->smcr_v2 = ss->smcr.v2;
	rs->smc_release = ss->smcr.release;
	if (ws->n_ifs && ws->ifs[0].nif->ip4) {
		rs->family = 4;
		ip4(rs->ip, ws->ifs[0].nif->ip4);
	}
	if (!ws->l)
		return;
	const smcr_ctx *ctx = smc_layer_ctx(ws->l);
	memcpy(rs->system_id, smcr_ctx_system_id(ctx), 8);
	const smc_layer_counters *lc = smc_layer_counters_get(ws->l);
	rs->fixed = (report_fixed_mem){ true, lc->fixed_used, stack_smcr(ws->st)->fixed_memory, lc->fixed_declined };
	fill_stats(w, i, &rs->stats, ctx);
	fill_storage(&rs->storage, ss, ctx, smc_layer_n_ports(ws->l));
	fill_ctx c = { w, ws, r, ws->report_id, (uint32_t)r->n_rnics + 1, ctx };
	size_t np = smc_layer_n_ports(ws->l);
	for (size_t p = 0; p < np; p++) {
		const smc_layer_port *lp = smc_layer_port_get(ws->l, p);
		const smcr_port_desc *d = smcr_ctx_port(ctx, lp->port_index);
		report_rnic *rn = report_add_rnic(r);
		rn->id = c.rnic_base + (uint32_t)p;
		rn->stack_id = ws->report_id;
		snprintf(rn->name, sizeof(rn->name), "%.16s", d->name);
		snprintf(rn->pnetid, sizeof(rn->pnetid), "%s", d->pnet_id);
		rn->pfid = d->pfid;
		rn->port = d->port;
		memcpy(rn->mac, d->mac, 6);
		for (uint32_t g = 0; g < d->n_gids && rn->n_gids < REPORT_MAX_GIDS; g++)
			memcpy(rn->gids[rn->n_gids++], d->gids[g].gid, 16);
		rn->mtu = smcr_mtu_bytes(d->active_mtu);
		/* what the adapter is: a z/OS stack's the IBM 10GbE RoCE Express its EZARIUT
		 * interfaces name, a Linux stack's a ConnectX-5 (mlx5) port (assumed: a
		 * scenario does not say) */
		rn->pci_device = ss->personality == SCN_PERS_ZOS ? 0x1004 : 0x1017;
		rn->status = d->state == SMCR_PORT_ACTIVE ? REPORT_RNIC_READY : REPORT_RNIC_FAILED;
	}
	smcr_ctx_foreach_lgr(ctx, fill_lgr, &c);
	smcr_ctx_foreach_link(ctx, fill_link, &c);
	smc_layer_foreach_conn(ws->l, fill_conn, &c);
	uint32_t next_id = (uint32_t)smc_layer_counters_get(ws->l)->handshakes + 1000000u;
	fill_fallback_socks(&c, i, &next_id);
}

void world_fill_report(world *w, smcr_report *r, uint32_t stack_filter)
{
	for (uint32_t i = 0; i < w->scn->n_stacks; i++)
		if (stack_filter == SCN_NONE || stack_filter == i)
			fill_stack(w, r, i);
	for (size_t i = 0; i < w->n_events; i++)
		if (stack_filter == SCN_NONE || w->events[i].stack_id == stack_filter + 1)
			*report_add_event(r) = w->events[i];
	report_sort(r);
}

/* ---- printing ---- */

/* Every connection the applications made, open or closed, as the socket its side had
 * (mode, reasons, addresses): what smc_chk's verdicts are about. A connect that never
 * completed is a socket in INIT. */
static void fill_all_conns(world *w, smcr_report *r, uint32_t stack_filter)
{
	for (uint32_t i = 0; i < w->scn->n_stacks; i++) {
		if (stack_filter != SCN_NONE && stack_filter != i)
			continue;
		report_stack *rs = report_add_stack(r);
		rs->id = w->st[i].report_id;
		snprintf(rs->name, sizeof(rs->name), "%s", w->scn->stacks[i].name);
		rs->os = w->scn->stacks[i].personality == SCN_PERS_ZOS ? REPORT_OS_ZOS : REPORT_OS_LINUX;
	}
	uint32_t id = 1;
	for (size_t i = 0; i < w->n_flows; i++) {
		const world_flow *f = w->flows[i];
		const world_end *ends[2] = { &f->af.c, &f->af.srv };
		for (int k = 0; k < 2; k++) {
			const world_end *e = ends[k];
			if ((k && !f->srv_seen) || (stack_filter != SCN_NONE && f->stack[k] != stack_filter))
				continue;
			const scn_app *a = &w->scn->apps[f->app];
			if (!a->smc)
				continue; /* a plain TCP socket: not an SMC socket smcss would list */
			report_conn *rc = report_add_conn(r);
			rc->id = id++;
			rc->stack_id = w->st[f->stack[k]].report_id;
			rc->family = 4;
			ip4(rc->local_ip, f->local_ip[k]);
			ip4(rc->peer_ip, e->connected ? f->peer_ip[k] : a->dst_ip);
			rc->local_port = f->local_port[k];
			rc->peer_port = e->connected ? f->peer_port[k] : a->port;
			rc->role = e->server ? REPORT_ROLE_SERVER : REPORT_ROLE_CLIENT;
			rc->state = e->connected ? REPORT_CONN_ACTIVE : REPORT_CONN_INIT;
			rc->mode = e->mode == SOCK_MODE_FALLBACK ? REPORT_MODE_TCP : REPORT_MODE_SMCR;
			rc->fallback_reason = e->reason;
			rc->peer_diagnosis = f->peer_diag[k];
		}
	}
	report_sort(r);
}

static void print_one(world *w, FILE *out, scn_report_format f, uint32_t stack_filter, bool has_smcid, uint32_t smcid)
{
	smcr_report r;
	report_init(&r);
	if (f == SCN_REPORT_SMC_CHK)
		fill_all_conns(w, &r, stack_filter);
	else
		world_fill_report(w, &r, stack_filter);
	switch (f) {
	case SCN_REPORT_SMC:
		report_print_smc(out, &r);
		break;
	case SCN_REPORT_SMC_CHK:
		report_print_smc_chk(out, &r);
		break;
	case SCN_REPORT_JSON:
		report_print_json(out, &r, NULL, NULL);
		break;
	case SCN_REPORT_NETSTAT:
	case SCN_REPORT_AUTO: {
		report_netstat_opts o = { has_smcid ? smcid : 0, 0 };
		report_print_netstat(out, &r, &o);
		break;
	}
	}
	report_free(&r);
}

void world_print_report(world *w, FILE *out, scn_report_format format, uint32_t stack_filter, bool has_smcid,
                        uint32_t smcid)
{
	if (format != SCN_REPORT_AUTO) {
		print_one(w, out, format, stack_filter, has_smcid, smcid);
		return;
	}
	for (uint32_t i = 0; i < w->scn->n_stacks; i++) {
		if (stack_filter != SCN_NONE && stack_filter != i)
			continue;
		scn_report_format f = w->scn->stacks[i].personality == SCN_PERS_ZOS ? SCN_REPORT_NETSTAT : SCN_REPORT_SMC;
		print_one(w, out, f, i, has_smcid, smcid);
	}
}

void world_report_snapshot(world *w, const scn_report *rep, const char *why)
{
	sim_time t = sim_now(w->eng);
	if (w->o.json) {
		smcr_report r;
		report_init(&r);
		world_fill_report(w, &r, rep->stack);
		json_begin_object(&w->json);
		json_kv_str(&w->json, "report", why);
		json_kv_str(&w->json, "file", w->scn->file);
		json_kv_uint(&w->json, "line", rep->loc.line);
		json_kv_uint(&w->json, "time_ns", t);
		report_write_json(&w->json, &r);
		world_write_fabric_json(w, &w->json);
		json_end_object(&w->json);
		report_free(&r);
		return;
	}
	scn_report_format f = rep->format;
	if (w->o.style == WORLD_STYLE_NETSTAT)
		f = SCN_REPORT_NETSTAT;
	else if (w->o.style == WORLD_STYLE_SMC)
		f = SCN_REPORT_SMC;
	else if (w->o.style == WORLD_STYLE_SMC_CHK)
		f = SCN_REPORT_SMC_CHK;
	fprintf(w->out, "\n==== report (%s:%u) at %" PRIu64 ".%09" PRIu64 " s ====\n", w->scn->file, rep->loc.line, (uint64_t)(t / SIM_S),
	        (uint64_t)(t % SIM_S));
	world_print_report(w, w->out, f, rep->stack, rep->has_smcid, rep->smcid);
	world_print_fabric(w, w->out);
	(void)why;
}

/* ---- connections in the event log ---- */

static void flow_name(const world *w, const world_end *e, char *buf, size_t len)
{
	world_flow_name(w, world_flow_of(e), buf, len);
}

/* ": its buffers would take A's fixed memory (N of LIMIT bytes in use) past its limit"
 * after a MEM decline of this end's own stack under a fixed-memory limit */
static void print_fixed_short(world *w, const world_end *e)
{
	const world_host *ws = &w->st[world_end_stack(e)];
	uint64_t limit = stack_smcr(ws->st)->fixed_memory;
	if (e->reason != SMCR_DECL_MEM || !limit || !ws->l)
		return;
	const scn_stack *ss = &w->scn->stacks[world_end_stack(e)];
	fprintf(w->out, ": its RMB and send buffer (%" PRIu64 " + %" PRIu64 " bytes) would take %s's SMC-R fixed memory (%" PRIu64 " bytes in use) past its limit, smcr fixedmemory=%" PRIu64,
	        ss->smcr.rmbsize, ss->smcr.sndbufsize, ws->st->name, smc_layer_counters_get(ws->l)->fixed_used, limit);
}

void world_log_server_fallback(world *w, const world_end *e)
{
	if (!w->o.verbose || w->o.json || e->mode != SOCK_MODE_FALLBACK || e->reason != SMCR_DECL_MEM)
		return;
	char name[48];
	flow_name(w, e, name, sizeof(name));
	world_log_prefix(w, w->out);
	fprintf(w->out, "%s: %s accepts it on TCP, fallback %08" PRIX32 " (%s)", name, w->st[world_end_stack(e)].st->name, e->reason,
	        smcr_decline_name(e->reason));
	print_fixed_short(w, e);
	fputc('\n', w->out);
}

void world_log_connected(world *w, const world_end *e, sock *s)
{
	world_obs_conn(w, e, WORLD_CONN_OPENED);
	if (!w->o.verbose || w->o.json || e->server)
		return;
	char name[48], addr[64] = "";
	flow_name(w, e, name, sizeof(name));
	const scn_app *a = &w->scn->apps[world_flow_of(e)->app];
	tcp_pcb *pcb = sock_tcp_pcb(s);
	if (pcb) {
		tcp_info ti;
		tcp_get_info(pcb, &ti);
		char ip[ADDR_TEXT_IPV4_LEN];
		snprintf(addr, sizeof(addr), "%s:%u", addr_text_ipv4(ti.remote_ip, ip, sizeof(ip)), (unsigned)ti.remote_port);
	}
	world_log_prefix(w, w->out);
	fprintf(w->out, "%s: %s -> %s %s: ", name, w->scn->stacks[a->stack].name, w->scn->stacks[a->dst_stack].name,
	        addr);
	world_host *ws = &w->st[world_end_stack(e)];
	smc_layer_conn lc;
	if (e->mode == SOCK_MODE_SMCR && ws->l && smc_layer_sock_conn(ws->l, s, &lc) && lc.has_core) {
		uint64_t id = lc.core_info.lgr_id;
		bool seen = false;
		for (size_t i = 0; i < ws->n_lgrs_seen; i++)
			seen |= ws->lgrs_seen[i] == id;
		if (!seen) {
			ws->lgrs_seen = realloc(ws->lgrs_seen, (ws->n_lgrs_seen + 1) * sizeof(*ws->lgrs_seen));
			if (!ws->lgrs_seen)
				abort();
			ws->lgrs_seen[ws->n_lgrs_seen++] = id;
		}
		smcr_link_info li;
		uint32_t link_uid = 0;
		if (smcr_ctx_link_info(smc_layer_ctx(ws->l), lc.core_info.link_id, &li) == 0)
			link_uid = li.link_uid;
		fprintf(w->out, "SMC-Rv%u, %s link group %08" PRIX32 ", link %08" PRIX32 "\n", (unsigned)lc.core_info.version,
		        seen ? "reuses" : "new", lgr_num_of(ws->l, id), link_uid);
	} else if (e->mode == SOCK_MODE_FALLBACK) {
		fprintf(w->out, "TCP, fallback %08" PRIX32 " (%s)", e->reason, smcr_decline_name(e->reason));
		if (world_end_peer_diag(e))
			fprintf(w->out, ", peer %08" PRIX32 " (%s)", world_end_peer_diag(e), smcr_decline_name(world_end_peer_diag(e)));
		tcp_info ti;
		tcp_pcb *tp = sock_tcp_pcb(s);
		if (tp && e->reason == SMCR_DECL_PEERNOSMC) {
			tcp_get_info(tp, &ti);
			if (tcp_smc_hs_was_limited(w->st[a->dst_stack].st, ti.local_ip, ti.local_port))
				fprintf(w->out, ": the server's SMC handshakes were congested (limit_smc_hs), its SYN-ACK "
				                "came without the SMC option");
		}
		print_fixed_short(w, e);
		fputc('\n', w->out);
	} else {
		fprintf(w->out, "TCP (not an SMC socket)\n");
	}
}

/* "bulk.3: A -> B 10.1.1.2:5000: " (the address the app aimed at) */
static void log_client_head(world *w, const world_end *e)
{
	char name[48], ip[ADDR_TEXT_IPV4_LEN];
	flow_name(w, e, name, sizeof(name));
	const scn_app *a = &w->scn->apps[world_flow_of(e)->app];
	world_log_prefix(w, w->out);
	fprintf(w->out, "%s: %s -> %s %s:%u: ", name, w->scn->stacks[a->stack].name, w->scn->stacks[a->dst_stack].name,
	        addr_text_ipv4(a->dst_ip, ip, sizeof(ip)), (unsigned)a->port);
}

static void log_not_connected(world *w, const world_end *e, const char *what)
{
	char cause[200];
	world_connect_cause(w, world_flow_of(e), cause, sizeof(cause));
	log_client_head(w, e);
	fprintf(w->out, "%s: %s\n", what, cause);
}

/* A connect that ended before it connected: the usual end line (an application that
 * reads "NAME: failed (ERROR): ..." or "closed: ..." sees it end as before), then what
 * became of the connect: "bulk.3: failed (No route to host): 0 sent, 0 delivered;
 * connect B -> A 10.10.0.1:5000: no route to 10.10.0.1: ..." */
static void log_connect_ended(world *w, const world_end *e)
{
	char name[48], ip[ADDR_TEXT_IPV4_LEN], a[24], b[24], c[24], cause[200];
	flow_name(w, e, name, sizeof(name));
	const world_flow *f = world_flow_of(e);
	const scn_app *ap = &w->scn->apps[f->app];
	scn_format_size(e->sent, a, sizeof(a));
	scn_format_size(e->f->srv.received, b, sizeof(b));
	scn_format_size(e->received, c, sizeof(c));
	int err = e->err ? e->err : f->fail_err;
	world_log_prefix(w, w->out);
	if (err)
		fprintf(w->out, "%s: failed (%s): %s sent, %s delivered; ", name, strerror(-err), a, b);
	else
		fprintf(w->out, "%s: closed: %s sent, %s delivered, %s received; ", name, a, b, c);
	fprintf(w->out, "connect %s -> %s %s:%u: ", w->scn->stacks[ap->stack].name, w->scn->stacks[ap->dst_stack].name,
	        addr_text_ipv4(ap->dst_ip, ip, sizeof(ip)), (unsigned)ap->port);
	if (err && world_connect_kind_of(f) == WORLD_CONNECT_FAILED)
		snprintf(cause, sizeof(cause), "ended before it connected"); /* the error is said above */
	else
		world_connect_cause(w, f, cause, sizeof(cause));
	fprintf(w->out, "%s\n", cause);
}

void world_log_connect_failed(world *w, const world_flow *f)
{
	const world_end *e = &f->af.c;
	world_obs_conn(w, e, WORLD_CONN_CLOSED);
	if (w->o.verbose && !w->o.json)
		log_connect_ended(w, e);
}

void world_log_pending_connects(world *w)
{
	for (size_t i = 0; i < w->n_flows; i++) {
		const world_end *e = &w->flows[i]->af.c;
		if (e->connected || e->ended || w->flows[i]->foreign)
			continue;
		world_obs_conn(w, e, WORLD_CONN_PENDING);
		if (w->o.verbose && !w->o.json)
			log_not_connected(w, e, "not connected");
	}
}

void world_log_closed(world *w, const world_end *e)
{
	world_obs_conn(w, e, WORLD_CONN_CLOSED);
	if (!w->o.verbose || w->o.json || e->server)
		return;
	if (!e->connected) {
		log_connect_ended(w, e);
		return;
	}
	char name[48], a[24], b[24], c[24];
	flow_name(w, e, name, sizeof(name));
	world_log_prefix(w, w->out);
	scn_format_size(e->sent, a, sizeof(a));
	scn_format_size(e->f->srv.received, b, sizeof(b));
	scn_format_size(e->received, c, sizeof(c));
	if (e->err)
		fprintf(w->out, "%s: failed (%s): %s sent, %s delivered\n", name, strerror(-e->err), a, b);
	else
		fprintf(w->out, "%s: closed: %s sent, %s delivered, %s received\n", name, a, b, c);
}
