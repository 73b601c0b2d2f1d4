/* Replay: turn the decoder's state into an smcr_report (both sides of every link group,
 * link and connection), and print the capture summary (text and JSON). */
#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "model/llc.h"
#include "model/byteorder.h"
#include "sim/replay/replay_fields.h"
#include "sim/replay/replay_int.h"

typedef struct build {
	replay_decoder *d;
	smcr_report *r;
	uint32_t *stack_of_host; /* root host index -> stack id (0 none) */
	struct rnic_slot {
		uint32_t stack;
		uint8_t mac[6], gid[16];
		uint32_t id;
	} * rnics;
	size_t n_rnics, cap_rnics;
	uint32_t *conn_id_next;           /* per stack */
	uint32_t *lgr_ids;                /* [2 * (lgr - 1) + side]: each side's link group id */
	bool *lgr_id_made_up;             /* the same index: no link id told it */
	uint32_t *first_link, *next_link; /* links of each link group, in index order */
	uint32_t *first_conn, *next_conn; /* SMC-R connections of each link group */
	uint32_t *live_on_link;           /* connections not closed, per link */
} build;

static uint32_t stack_of(build *b, uint32_t host)
{
	uint32_t root = rp_host_root(b->d, host);
	return root ? b->stack_of_host[root - 1] : 0;
}

static void ensure_stack(build *b, uint32_t host)
{
	uint32_t root = rp_host_root(b->d, host);
	if (!root || b->stack_of_host[root - 1])
		return;
	report_stack *s = report_add_stack(b->r);
	b->stack_of_host[root - 1] = s->id;
	rp_host *h = RP_HOST(b->d, root);
	if (h->name[0])
		g_strlcpy(s->name, h->name, sizeof(s->name));
	else
		report_ip_str(h->family, h->ip, s->name, sizeof(s->name));
	if (h->server_side) {
		/* the listening end of a connection to itself: named apart from the other end */
		size_t n = strlen(s->name);
		snprintf(s->name + n, sizeof(s->name) - n, " (server)");
	}
	s->os = h->os_type == SMCR_CLC_OS_ZOS ? REPORT_OS_ZOS : h->os_type == SMCR_CLC_OS_LINUX ? REPORT_OS_LINUX
	                                                : h->os_type == SMCR_CLC_OS_AIX         ? REPORT_OS_AIX
	                                                                                        : REPORT_OS_UNKNOWN;
	memcpy(s->system_id, h->sysid, 8);
	s->family = h->family;
	memcpy(s->ip, h->ip, 16);
}

static report_stack *stack_row(build *b, uint32_t id)
{
	for (size_t i = 0; i < b->r->n_stacks; i++)
		if (b->r->stacks[i].id == id)
			return &b->r->stacks[i];
	return NULL;
}

/* The RNIC of a stack with this (MAC, GID): one per distinct endpoint address. */
static uint32_t rnic_for(build *b, uint32_t stack, const rp_ep *ep, uint32_t mtu)
{
	for (size_t i = 0; i < b->n_rnics; i++) {
		struct rnic_slot *sl = &b->rnics[i];
		if (sl->stack == stack && !memcmp(sl->mac, ep->mac, 6) && !memcmp(sl->gid, ep->gid, 16)) {
			report_rnic *n = &b->r->rnics[sl->id - 1];
			if (mtu > n->mtu)
				n->mtu = mtu;
			return sl->id;
		}
	}
	unsigned count = 0;
	for (size_t i = 0; i < b->n_rnics; i++)
		if (b->rnics[i].stack == stack)
			count++;
	report_rnic *n = report_add_rnic(b->r);
	n->stack_id = stack;
	snprintf(n->name, sizeof(n->name), "RNIC%u", count + 1);
	n->name_made_up = true; /* no SMC-R message names a device */
	memcpy(n->mac, ep->mac, 6);
	n->n_gids = 1;
	memcpy(n->gids[0], ep->gid, 16);
	n->mtu = mtu;
	n->status = REPORT_RNIC_READY;
	b->rnics = rp_grow(b->rnics, &b->n_rnics, &b->cap_rnics, sizeof(*b->rnics));
	struct rnic_slot *sl = &b->rnics[b->n_rnics - 1];
	sl->stack = stack;
	memcpy(sl->mac, ep->mac, 6);
	memcpy(sl->gid, ep->gid, 16);
	sl->id = n->id;
	return n->id;
}

/* A side's link group id: Linux and z/OS build the 4-byte link id from the group id and
 * the link number, so the id of any of its links tells it (the first link that has one).
 * Without one: a synthetic id. */
static void compute_lgr_ids(build *b)
{
	replay_decoder *d = b->d;
	for (size_t gi = 0; gi < d->n_lgrs; gi++)
		for (int s = 0; s < 2; s++)
			b->lgr_ids[2 * gi + (size_t)s] = 0;
	for (size_t i = 0; i < d->n_links; i++) {
		const rp_link *l = &d->links[i];
		for (int s = 0; s < 2; s++) {
			uint32_t *id = &b->lgr_ids[2 * (l->lgr - 1) + (size_t)s];
			if (*id || !l->uid[s])
				continue;
			*id = (l->uid[s] & 0xFF) == l->link_num ? l->uid[s] - l->link_num : l->uid[s] & 0xFFFFFF00u;
		}
	}
	for (size_t gi = 0; gi < d->n_lgrs; gi++)
		for (int s = 0; s < 2; s++)
			if (!b->lgr_ids[2 * gi + (size_t)s]) {
				b->lgr_ids[2 * gi + (size_t)s] = 0xFF000000u | d->lgrs[gi].seq << 8;
				b->lgr_id_made_up[2 * gi + (size_t)s] = true;
			}
}

static uint32_t lgr_id(const build *b, uint32_t lgr, int side)
{
	return b->lgr_ids[2 * (lgr - 1) + (size_t)side];
}

static bool half_reported(const rp_conn *c, int s)
{
	return !c->not_smc && !c->refused && c->h[s].smc_active;
}

/* A first contact is done when its link's CONFIRM LINK was answered (or data flowed on
 * it); until then Linux keeps both sockets in SMC_INIT (smc_connect_rdma and
 * smc_listen_work move them to SMC_ACTIVE only afterwards). */
static bool first_contact_pending(const replay_decoder *d, const rp_conn *c)
{
	return c->mode == RP_MODE_SMCR && c->first_contact && c->link && !RP_LINK(d, c->link)->confirmed;
}

static report_conn_state conn_state(const replay_decoder *d, const rp_conn *c, int s)
{
	const rp_half *me = &c->h[s], *peer = &c->h[RP_OTHER(s)];
	if (c->mode == RP_MODE_SMCR && c->reset)
		return REPORT_CONN_CLOSED;
	if (first_contact_pending(d, c))
		return me->tcp.fin && peer->tcp.fin ? REPORT_CONN_CLOSED : REPORT_CONN_INIT;
	if (c->mode == RP_MODE_PENDING)
		return c->reset || (me->tcp.fin && peer->tcp.fin) ? REPORT_CONN_CLOSED : REPORT_CONN_INIT;
	if (c->mode == RP_MODE_TCP) {
		if (c->reset || (me->tcp.fin && peer->tcp.fin))
			return REPORT_CONN_CLOSED;
		if (me->tcp.fin)
			return REPORT_CONN_PEERCLOSEWAIT1;
		if (peer->tcp.fin)
			return REPORT_CONN_APPCLOSEWAIT1;
		return REPORT_CONN_ACTIVE;
	}
	/* Linux shuts the TCP socket down only when the SMC socket closes (smc_close_active,
	 * smc_release): a FIN tells that side closed, whether or not its CDC close flags are
	 * in the capture */
	bool me_end = me->closed || me->aborted || me->tcp.fin, peer_end = peer->closed || peer->aborted || peer->tcp.fin;
	if (me_end && peer_end)
		return REPORT_CONN_CLOSED;
	if (me->aborted)
		return REPORT_CONN_PEERABORTWAIT;
	if (peer->aborted)
		return REPORT_CONN_PROCESSABORT;
	if (me_end || me->done_writing)
		return REPORT_CONN_PEERCLOSEWAIT1;
	if (peer_end || peer->done_writing)
		return REPORT_CONN_APPCLOSEWAIT1;
	return REPORT_CONN_ACTIVE;
}

static report_cursor cursor(const smcr_cursor *c)
{
	return (report_cursor){ c->wrap, c->count };
}

static void add_conn_row(build *b, const rp_conn *c, int s)
{
	replay_decoder *d = b->d;
	const rp_half *me = &c->h[s], *peer = &c->h[RP_OTHER(s)];
	uint32_t stack = stack_of(b, me->host);
	report_conn *rc = report_add_conn(b->r);
	rc->id = ++b->conn_id_next[stack - 1];
	rc->stack_id = stack;
	rc->family = c->family == 6 ? 6 : 4;
	memcpy(rc->local_ip, me->ip, 16);
	memcpy(rc->peer_ip, peer->ip, 16);
	rc->local_port = me->port;
	rc->peer_port = peer->port;
	rc->state = conn_state(d, c, s);
	rc->mode = c->mode == RP_MODE_TCP ? REPORT_MODE_TCP : REPORT_MODE_SMCR;
	rc->role = s == RP_CLIENT ? REPORT_ROLE_CLIENT : REPORT_ROLE_SERVER;
	rc->fallback_reason = me->fallback;
	rc->peer_diagnosis = me->peer_diag;
	rc->n_prefixes = c->n_prefixes;
	memcpy(rc->prefixes, c->prefixes, sizeof(rc->prefixes));
	if (c->mode == RP_MODE_TCP) {
		rc->bytes_sent = me->tcp.app_bytes;
		rc->bytes_received = peer->tcp.app_bytes;
		return;
	}
	rc->smc_version = c->mode == RP_MODE_SMCR ? c->version : 0;
	memcpy(rc->local_gid, me->gid, 16);
	memcpy(rc->peer_gid, peer->gid, 16);
	rc->local_token = me->token;
	rc->peer_token = peer->token;
	rc->rmbe_size = me->rmbe_size;
	rc->peer_rmbe_size = peer->rmbe_size;
	rc->first_contact = c->first_contact;
	rc->local_rkey = me->rkey;
	rc->peer_rkey = peer->rkey;
	rc->local_rmb_vaddr = me->rmb_vaddr;
	rc->peer_rmb_vaddr = peer->rmb_vaddr;
	if (c->link) {
		const rp_link *l = RP_LINK(d, c->link);
		rc->lgr_id = lgr_id(b, c->lgr, s);
		rc->link_num = l->link_num;
		rc->link_id = l->uid[s];
	}
	rc->tx_prod = cursor(&me->last_cdc.prod);
	rc->tx_cons = cursor(&me->last_cdc.cons);
	rc->tx_prod_flags = me->last_cdc.prod_flags;
	rc->tx_conn_flags = me->last_cdc.conn_flags;
	rc->rx_prod = cursor(&peer->last_cdc.prod);
	rc->rx_cons = cursor(&peer->last_cdc.cons);
	rc->rx_prod_flags = peer->last_cdc.prod_flags;
	rc->rx_conn_flags = peer->last_cdc.conn_flags;
	rc->bytes_sent = me->bytes_sent;
	rc->bytes_received = peer->bytes_sent;
	rc->rdma_bytes_out = me->rdma_bytes;
	rc->rdma_bytes_in = peer->rdma_bytes;
	rc->cdc_out = me->cdc_count;
	rc->cdc_in = peer->cdc_count;
}

static void add_stats(build *b, const rp_conn *c, int s)
{
	const rp_half *me = &c->h[s], *peer = &c->h[RP_OTHER(s)];
	report_stack *st = stack_row(b, stack_of(b, me->host));
	report_stats *x = &st->stats;
	bool server = s == RP_SERVER;
	if (c->clc_error) {
		if (server)
			x->srv_hshake_err++;
		else
			x->clnt_hshake_err++;
		return;
	}
	if (c->mode == RP_MODE_TCP) {
		if (me->fallback)
			report_stats_add_fallback(x, me->fallback, server);
		return;
	}
	if (c->mode != RP_MODE_SMCR)
		return;
	uint64_t *succ = server ? (c->version >= 2 ? &x->srv_v2_succ : &x->srv_v1_succ)
	                        : (c->version >= 2 ? &x->clnt_v2_succ : &x->clnt_v1_succ);
	(*succ)++;
	x->tx_bytes += me->bytes_sent;
	x->rx_bytes += peer->bytes_sent;
	x->tx_cnt += me->sends;
	x->rx_cnt += peer->sends;
	if (me->rmbe_size)
		x->rx_rmb_hist[report_buf_bucket(me->rmbe_size)]++;
	if (peer->rmbe_size)
		x->tx_rmb_hist[report_buf_bucket(peer->rmbe_size)]++;
}

static bool conn_live(const replay_decoder *d, const rp_conn *c)
{
	return c->mode == RP_MODE_SMCR && conn_state(d, c, RP_CLIENT) != REPORT_CONN_CLOSED;
}

static void add_lgr_rows(build *b, uint32_t gi)
{
	replay_decoder *d = b->d;
	rp_lgr *g = RP_LGR(d, gi);
	for (int s = 0; s < 2; s++) {
		int o = RP_OTHER(s);
		uint32_t stack = stack_of(b, g->host[s]);
		report_lgr *rg = report_add_lgr(b->r);
		rg->id = lgr_id(b, gi, s);
		rg->id_made_up = b->lgr_id_made_up[2 * (gi - 1) + (size_t)s];
		rg->stack_id = stack;
		rg->role = s == RP_CLIENT ? REPORT_ROLE_CLIENT : REPORT_ROLE_SERVER;
		rg->version = g->version;
		rp_host *peer = RP_HOST(d, rp_host_root(d, g->host[o]));
		memcpy(rg->peer_system_id, peer->sysid, 8);
		if (peer->name[0])
			g_strlcpy(rg->peer_host, peer->name, sizeof(rg->peer_host));
		else
			report_ip_str(peer->family, peer->ip, rg->peer_host, sizeof(rg->peer_host));
		rg->peer_stack_id = stack_of(b, g->host[o]);
		rg->vlan = g->vlan;
		rg->max_links = g->max_links;
		rg->max_conns = g->max_conns;
		/* links, and the RNICs they use, for the redundancy type */
		uint32_t active = 0, lr[2] = { 0 }, rr[2] = { 0 };
		bool two_local = false, two_remote = false;
		for (uint32_t li = b->first_link[gi - 1]; li; li = b->next_link[li - 1]) {
			rp_link *l = RP_LINK(d, li);
			rg->n_links++;
			if (l->state != REPORT_LINK_ACTIVE && l->state != REPORT_LINK_ACTIVATING)
				continue;
			uint32_t ln = rnic_for(b, stack, &l->ep[s], l->mtu), rn = rnic_for(b, stack_of(b, g->host[o]), &l->ep[o], l->mtu);
			if (active == 0) {
				lr[0] = ln;
				rr[0] = rn;
			} else {
				two_local |= ln != lr[0];
				two_remote |= rn != rr[0];
			}
			active++;
		}
		rg->type = active == 0 ? REPORT_LGR_NONE : active == 1       ? REPORT_LGR_SINGLE
		                                   : two_local && two_remote ? REPORT_LGR_SYM
		                                   : two_local               ? REPORT_LGR_ASYMP
		                                   : two_remote              ? REPORT_LGR_ASYML
		                                                             : REPORT_LGR_SINGLE;
		/* buffer storage: this side's RMBs, each buffer once. A buffer is its address:
		 * one reused for a later connection keeps it (its DMA mapping stays with the
		 * lgr, smcr_buf_map_link) even where it comes back under a new rkey; an RMB
		 * whose address the capture did not show is told apart by its rkey. */
		GHashTable *seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
		for (uint32_t ci = b->first_conn[gi - 1]; ci; ci = b->next_conn[ci - 1]) {
			const rp_conn *c = RP_CONN(d, ci);
			if (conn_live(d, c))
				rg->n_conns++;
			int64_t key = c->h[s].rmb_vaddr ? (int64_t)c->h[s].rmb_vaddr : -1 - (int64_t)c->h[s].rkey;
			if (!g_hash_table_contains(seen, &key)) {
				rg->buf_storage += c->h[s].rmbe_size;
				g_hash_table_add(seen, g_memdup2(&key, sizeof(key)));
			}
		}
		g_hash_table_destroy(seen);
	}
}

static void add_link_rows(build *b, uint32_t li)
{
	replay_decoder *d = b->d;
	rp_link *l = RP_LINK(d, li);
	rp_lgr *g = RP_LGR(d, l->lgr);
	uint32_t conns = b->live_on_link[li - 1];
	for (int s = 0; s < 2; s++) {
		int o = RP_OTHER(s);
		uint32_t stack = stack_of(b, g->host[s]);
		report_link *rl = report_add_link(b->r);
		rl->stack_id = stack;
		rl->lgr_id = lgr_id(b, l->lgr, s);
		rl->link_num = l->link_num;
		rl->local_link_id = l->uid[s];
		rl->remote_link_id = l->uid[o];
		rl->state = l->state;
		rl->rnic_id = rnic_for(b, stack, &l->ep[s], l->mtu);
		memcpy(rl->local_mac, l->ep[s].mac, 6);
		memcpy(rl->remote_mac, l->ep[o].mac, 6);
		memcpy(rl->local_gid, l->ep[s].gid, 16);
		memcpy(rl->remote_gid, l->ep[o].gid, 16);
		rl->local_qpn = l->ep[s].qpn;
		rl->remote_qpn = l->ep[o].qpn;
		rl->local_psn = l->ep[s].psn;
		rl->remote_psn = l->ep[o].psn;
		rl->vlan = l->vlan;
		rl->mtu = l->mtu;
		rl->bytes_out = l->flow[s].bytes;
		rl->bytes_in = l->flow[o].bytes;
		rl->ops_out = l->flow[s].ops;
		rl->ops_in = l->flow[o].ops;
		rl->naks_out = l->flow[s].naks;
		rl->naks_in = l->flow[o].naks;
		rl->retrans_out = l->flow[s].retrans;
		rl->n_conns = conns;
		report_rnic *n = &b->r->rnics[rl->rnic_id - 1]; /* ids are row numbers until the report is sorted */
		n->bytes_out += rl->bytes_out;
		n->bytes_in += rl->bytes_in;
		n->ops_out += rl->ops_out;
		n->ops_in += rl->ops_in;
	}
}

static void add_event_rows(build *b, const rp_event *e)
{
	replay_decoder *d = b->d;
	rp_link *l = RP_LINK(d, e->link);
	rp_lgr *g = RP_LGR(d, l->lgr);
	for (int s = 0; s < 2; s++) {
		int o = RP_OTHER(s);
		report_event *re = report_add_event(b->r);
		re->time_ns = e->time_ns >= d->res.first_ns ? e->time_ns - d->res.first_ns : 0; /* since the first frame */
		re->frame = e->frame;
		re->stack_id = stack_of(b, g->host[s]);
		re->kind = e->kind;
		re->code = e->code;
		g_strlcpy(re->cause, e->cause, sizeof(re->cause));
		uint32_t rn = rnic_for(b, re->stack_id, &l->ep[s], l->mtu);
		const report_rnic *n = report_rnic_by_id(b->r, rn);
		if (n)
			g_strlcpy(re->intf, n->name, sizeof(re->intf));
		re->lgr_id = lgr_id(b, l->lgr, s);
		re->link_num = l->link_num;
		re->local_link_id = l->uid[s];
		re->remote_link_id = l->uid[o];
		memcpy(re->local_mac, l->ep[s].mac, 6);
		memcpy(re->remote_mac, l->ep[o].mac, 6);
		memcpy(re->local_gid, l->ep[s].gid, 16);
		memcpy(re->remote_gid, l->ep[o].gid, 16);
		re->local_qpn = l->ep[s].qpn;
		re->remote_qpn = l->ep[o].qpn;
		re->vlan = l->vlan;
	}
}

void rp_build_report(replay_decoder *d, smcr_report *r)
{
	build b = { .d = d, .r = r };
	report_init(r);
	r->from_capture = true;
	b.stack_of_host = g_new0(uint32_t, d->n_hosts + 1);
	/* stacks in order of first appearance of their hosts in connections and link groups */
	for (size_t ci = 0; ci < d->n_conns; ci++)
		for (int s = 0; s < 2; s++)
			if (half_reported(&d->conns[ci], s))
				ensure_stack(&b, d->conns[ci].h[s].host);
	for (size_t gi = 0; gi < d->n_lgrs; gi++)
		for (int s = 0; s < 2; s++)
			ensure_stack(&b, d->lgrs[gi].host[s]);
	b.conn_id_next = g_new0(uint32_t, r->n_stacks + 1);
	for (size_t li = 0; li < d->n_links; li++)
		for (int s = 0; s < 2; s++) {
			rp_link *l = &d->links[li];
			rnic_for(&b, stack_of(&b, RP_LGR(d, l->lgr)->host[s]), &l->ep[s], l->mtu);
		}
	b.lgr_ids = g_new0(uint32_t, 2 * d->n_lgrs + 1);
	b.lgr_id_made_up = g_new0(bool, 2 * d->n_lgrs + 1);
	compute_lgr_ids(&b);
	b.first_link = g_new0(uint32_t, d->n_lgrs + 1);
	b.next_link = g_new0(uint32_t, d->n_links + 1);
	b.first_conn = g_new0(uint32_t, d->n_lgrs + 1);
	b.next_conn = g_new0(uint32_t, d->n_conns + 1);
	b.live_on_link = g_new0(uint32_t, d->n_links + 1);
	for (size_t li = d->n_links; li > 0; li--) {
		uint32_t g = d->links[li - 1].lgr;
		b.next_link[li - 1] = b.first_link[g - 1];
		b.first_link[g - 1] = (uint32_t)li;
	}
	for (size_t ci = d->n_conns; ci > 0; ci--) {
		const rp_conn *c = &d->conns[ci - 1];
		if (c->mode != RP_MODE_SMCR || !c->lgr)
			continue;
		b.next_conn[ci - 1] = b.first_conn[c->lgr - 1];
		b.first_conn[c->lgr - 1] = (uint32_t)ci;
		if (c->link && conn_live(d, c))
			b.live_on_link[c->link - 1]++;
	}
	for (size_t gi = 0; gi < d->n_lgrs; gi++)
		add_lgr_rows(&b, (uint32_t)(gi + 1));
	for (size_t li = 0; li < d->n_links; li++)
		add_link_rows(&b, (uint32_t)(li + 1));
	for (size_t ci = 0; ci < d->n_conns; ci++)
		for (int s = 0; s < 2; s++)
			if (half_reported(&d->conns[ci], s)) {
				add_conn_row(&b, &d->conns[ci], s);
				add_stats(&b, &d->conns[ci], s);
			}
	for (size_t ei = 0; ei < d->n_events; ei++)
		add_event_rows(&b, &d->events[ei]);
	g_free(b.stack_of_host);
	g_free(b.conn_id_next);
	g_free(b.rnics);
	g_free(b.lgr_ids);
	g_free(b.lgr_id_made_up);
	g_free(b.first_link);
	g_free(b.next_link);
	g_free(b.first_conn);
	g_free(b.next_conn);
	g_free(b.live_on_link);
}

static void print_list(FILE *out, const char *title, const replay_list *l)
{
	fprintf(out, "\n%s: %" PRIu64 "\n", title, l->total);
	for (size_t i = 0; i < l->n; i++) {
		if (l->items[i].frame)
			fprintf(out, "  frame %" PRIu64 ": %s\n", l->items[i].frame, l->items[i].text);
		else
			fprintf(out, "  %s\n", l->items[i].text);
	}
	if (l->total > l->n)
		fprintf(out, "  ... %" PRIu64 " more not listed\n", l->total - l->n);
}

void replay_print_summary(FILE *out, const replay_result *res)
{
	uint64_t dur = res->last_ns - res->first_ns;
	fprintf(out, "\nCAPTURE SUMMARY\n");
	fprintf(out, "  Frames: %" PRIu64 " (%" PRIu64 " bytes) over %" PRIu64 ".%06" PRIu64 " s\n", res->frames,
	        res->bytes, dur / 1000000000u, dur % 1000000000u / 1000u);
	fprintf(out, "  Explained: %" PRIu64 "  Not explained: %" PRIu64 "  Cut by the snap length: %" PRIu64 "\n",
	        res->explained, res->unexplained.total, res->cut_frames);
	fprintf(out, "  SMC messages: CLC %" PRIu64 ", LLC %" PRIu64 ", CDC %" PRIu64 "; RDMA WRITEs %" PRIu64 "\n",
	        res->clc_messages, res->llc_messages, res->cdc_messages, res->rdma_writes);
	fprintf(out, "  Retransmissions (resent by their sender): TCP %" PRIu64 ", RoCE %" PRIu64 "; RoCE packets missing from the capture: %" PRIu64 "\n",
	        res->tcp_retransmissions, res->roce_retransmissions, res->capture_gaps);
	fprintf(out, "  Captured twice (the same packet at another capture point, not decoded again): %" PRIu64 "\n",
	        res->frames_captured_twice);
	if (res->n_reasons) {
		fprintf(out, "\nFrames not explained, by reason:\n");
		for (size_t i = 0; i < res->n_reasons; i++)
			fprintf(out, "  %8" PRIu64 "  %s (first: frame %" PRIu64 ")\n", res->reasons[i].count,
			        res->reasons[i].reason, res->reasons[i].first_frame);
	}
	print_list(out, "Frames not explained", &res->unexplained);
	print_list(out, "Decode errors", &res->errors);
	print_list(out, "Notes", &res->notes);
}

static void write_list(json_writer *w, const char *key, const replay_list *l)
{
	json_key(w, key);
	json_begin_object(w);
	json_kv_uint(w, "total", l->total);
	json_key(w, "listed");
	json_begin_array(w);
	for (size_t i = 0; i < l->n; i++) {
		json_begin_object(w);
		json_kv_uint(w, "frame", l->items[i].frame);
		json_kv_str(w, "text", l->items[i].text);
		json_end_object(w);
	}
	json_end_array(w);
	json_end_object(w);
}

void replay_write_json(json_writer *w, const replay_result *res)
{
	json_key(w, "capture");
	json_begin_object(w);
	json_kv_uint(w, "frames", res->frames);
	json_kv_uint(w, "bytes", res->bytes);
	json_kv_uint(w, "first_ns", res->first_ns);
	json_kv_uint(w, "last_ns", res->last_ns);
	json_kv_uint(w, "explained", res->explained);
	json_kv_uint(w, "cut_frames", res->cut_frames);
	json_kv_uint(w, "clc_messages", res->clc_messages);
	json_kv_uint(w, "llc_messages", res->llc_messages);
	json_kv_uint(w, "cdc_messages", res->cdc_messages);
	json_kv_uint(w, "rdma_writes", res->rdma_writes);
	json_kv_uint(w, "frames_captured_twice", res->frames_captured_twice);
	json_kv_uint(w, "tcp_retransmissions", res->tcp_retransmissions);
	json_kv_uint(w, "roce_retransmissions", res->roce_retransmissions);
	json_kv_uint(w, "capture_gaps", res->capture_gaps);
	json_kv_bool(w, "file_damaged", res->file_damaged);
	json_kv_uint(w, "time_gaps", res->time_gaps);
	json_key(w, "unexplained_by_reason");
	json_begin_array(w);
	for (size_t i = 0; i < res->n_reasons; i++) {
		json_begin_object(w);
		json_kv_str(w, "reason", res->reasons[i].reason);
		json_kv_uint(w, "count", res->reasons[i].count);
		json_kv_uint(w, "first_frame", res->reasons[i].first_frame);
		json_end_object(w);
	}
	json_end_array(w);
	write_list(w, "unexplained", &res->unexplained);
	write_list(w, "errors", &res->errors);
	write_list(w, "notes", &res->notes);
	/* every CLC and LLC message with all its fields: the handshakes and the link
	 * management (ADD LINK and its rkey table, DELETE LINK, CONFIRM RKEY, ...) */
	for (int pass = 0; pass < 2; pass++) {
		replay_msg_kind kind = pass == 0 ? REPLAY_MSG_CLC : REPLAY_MSG_LLC;
		json_key(w, pass == 0 ? "clc" : "llc");
		json_begin_array(w);
		for (size_t i = 0; i < res->n_kept; i++)
			if (res->kept[i].kind == kind)
				replay_write_msg_json(w, &res->kept[i]);
		json_end_array(w);
	}
	json_end_object(w);
}

static void print_fields(FILE *out, const replay_msg *m)
{
	rp_sink k = { .out = out };
	fputs(": ", out);
	rp_fields_of_msg(&k, m);
	fputc('\n', out);
}

void replay_print_msg(FILE *out, const replay_msg *m)
{
	char a[64] = "?", b[64] = "?";
	if (m->family) {
		report_ip_str(m->family, m->ip[m->from], a, sizeof(a));
		report_ip_str(m->family, m->ip[1 - m->from], b, sizeof(b));
	}
	fprintf(out, "%" PRIu64 " %" PRIu64 ".%09" PRIu64 " %s->%s ", m->frame, m->time_ns / 1000000000u,
	        m->time_ns % 1000000000u, a, b);
	const uint8_t *p = m->data;
	switch (m->kind) {
	case REPLAY_MSG_CLC:
		fprintf(out, "%s v%u %" PRIu32 " bytes", m->len > 4 ? smcr_clc_type_name(p[4]) : "CLC ?",
		        m->len > 7 ? (unsigned)(p[7] >> 4) : 0u, m->len);
		print_fields(out, m);
		break;
	case REPLAY_MSG_LLC: {
		bool v2 = m->len && (p[0] & 0xF0) == 0x20;
		fprintf(out, "%s %s %s %" PRIu32 " bytes", v2 ? "LLCv2" : "LLC", m->len ? smcr_llc_type_name(p[0]) : "?",
		        m->len > 3 && (p[3] & SMCR_LLC_FLAG_RESP) ? "response" : "request", m->len);
		print_fields(out, m);
		break;
	}
	case REPLAY_MSG_CDC:
		/* every field of a CDC message is in the line */
		if (m->len >= 26)
			fprintf(out, "CDC seq %u token 0x%08" PRIx32 " prod %u:%" PRIu32 " cons %u:%" PRIu32 " flags 0x%02x/0x%02x\n",
			        get_be16(p + 2), get_be32(p + 4), get_be16(p + 10), get_be32(p + 12), get_be16(p + 18),
			        get_be32(p + 20), p[24], p[25]);
		else
			fprintf(out, "CDC %" PRIu32 " bytes\n", m->len);
		break;
	case REPLAY_MSG_WRITE:
		fprintf(out, "WRITE%s %" PRIu32 " bytes rkey 0x%08" PRIx32 " va 0x%016" PRIx64 "\n",
		        m->write_first ? "" : "+", m->wire_len, m->rkey, m->va);
		break;
	}
}

static const char *kind_name(replay_msg_kind k)
{
	switch (k) {
	case REPLAY_MSG_CLC: return "clc";
	case REPLAY_MSG_LLC: return "llc";
	case REPLAY_MSG_CDC: return "cdc";
	case REPLAY_MSG_WRITE: return "rdma_write";
	}
	return "?";
}

void replay_write_msg_json(json_writer *w, const replay_msg *m)
{
	char a[64] = "", b[64] = "";
	if (m->family) {
		report_ip_str(m->family, m->ip[m->from], a, sizeof(a));
		report_ip_str(m->family, m->ip[1 - m->from], b, sizeof(b));
	}
	json_begin_object(w);
	json_kv_uint(w, "frame", m->frame);
	json_kv_uint(w, "time_ns", m->time_ns);
	json_kv_str(w, "kind", kind_name(m->kind));
	json_kv_str(w, "from", m->from == RP_CLIENT ? "client" : "server");
	json_kv_str(w, "src", m->family ? a : NULL);
	json_kv_str(w, "dst", m->family ? b : NULL);
	json_kv_uint(w, "connection", m->conn);
	json_kv_uint(w, "link", m->link);
	json_kv_uint(w, "link_group", m->lgr);
	json_key(w, "fields");
	json_begin_object(w);
	rp_sink k = { .w = w };
	rp_fields_of_msg(&k, m);
	json_end_object(w);
	json_end_object(w);
}
