/* Replay: CLC handshakes (Proposal, Accept, Confirm, Decline) decoded with the model codecs,
 * and what they establish: fallbacks with their reasons, or an SMC-R connection on a link
 * of a link group, with its alert tokens and RMB rkeys registered for the RoCE decoder. */
#include <string.h>

#include "model/llc.h"
#include "sim/replay/replay_int.h"

uint32_t rp_mtu_bytes(uint8_t code)
{
	return code >= 1 && code <= 5 ? 128u << code : 0;
}

/* Make the QP endpoints of a link findable from RoCE frames (dst GID, dst QPN). A later
 * link with the same endpoint replaces the old one (QP numbers are reused). */
void rp_link_register(replay_decoder *d, uint32_t link)
{
	rp_link *l = RP_LINK(d, link);
	for (int s = 0; s < 2; s++) {
		uint8_t key[20];
		memcpy(key, l->ep[s].gid, 16);
		memcpy(key + 16, &l->ep[s].qpn, 4);
		rp_map_put(&d->ep_map, key, (uint64_t)link << 1 | (uint64_t)s);
	}
}

static void rkey_key(uint8_t key[12], uint32_t lgr, int side, uint32_t rkey)
{
	uint32_t s = (uint32_t)side;
	memcpy(key, &lgr, 4);
	memcpy(key + 4, &s, 4);
	memcpy(key + 8, &rkey, 4);
}

/* RMB of connection `conn` owned by `side`, under rkey (and every alias of it). The value
 * keeps the alias index (+1) in the high half so a write's address can be checked against
 * the RMB address on that link. */
static void rp_rkey_register(replay_decoder *d, uint32_t lgr, int side, uint32_t rkey, uint32_t conn)
{
	uint8_t key[12];
	rkey_key(key, lgr, side, rkey);
	rp_map_put(&d->rkey_map, key, conn);
	rp_lgr *g = RP_LGR(d, lgr);
	for (size_t i = 0; i < g->n_aliases; i++) {
		rp_rkey_alias *a = &g->aliases[i];
		if (a->side == side && a->rkey_a == rkey) {
			rkey_key(key, lgr, side, a->rkey_b);
			rp_map_put(&d->rkey_map, key, (uint64_t)(i + 1) << 32 | conn);
		}
	}
}

void rp_rkey_alias_add(replay_decoder *d, uint32_t lgr, int side, uint32_t rkey_a, uint32_t rkey_b, uint64_t vaddr_b)
{
	rp_lgr *g = RP_LGR(d, lgr);
	g->aliases = rp_grow(g->aliases, &g->n_aliases, &g->cap_aliases, sizeof(*g->aliases));
	rp_rkey_alias *a = &g->aliases[g->n_aliases - 1];
	*a = (rp_rkey_alias){ .side = side, .rkey_a = rkey_a, .rkey_b = rkey_b, .vaddr_b = vaddr_b };
	uint8_t key[12];
	rkey_key(key, lgr, side, rkey_a);
	uint64_t *v = rp_map_get(&d->rkey_map, key);
	if (v) {
		uint64_t conn = *v & 0xFFFFFFFFu;
		rkey_key(key, lgr, side, rkey_b);
		rp_map_put(&d->rkey_map, key, (uint64_t)g->n_aliases << 32 | conn);
	}
}

static uint32_t new_lgr(replay_decoder *d, const rp_conn *c)
{
	d->lgrs = rp_grow(d->lgrs, &d->n_lgrs, &d->cap_lgrs, sizeof(*d->lgrs));
	rp_lgr *g = &d->lgrs[d->n_lgrs - 1];
	g->seq = (uint32_t)d->n_lgrs;
	for (int s = 0; s < 2; s++)
		g->host[s] = rp_host_root(d, c->h[s].host);
	g->vlan = c->vlan;
	g->version = c->version;
	g->seen_first_contact = c->first_contact;
	return (uint32_t)d->n_lgrs;
}

static uint32_t new_link(replay_decoder *d, uint32_t lgr, const rp_ep ep[2], uint32_t mtu, uint16_t vlan)
{
	d->links = rp_grow(d->links, &d->n_links, &d->cap_links, sizeof(*d->links));
	uint32_t li = (uint32_t)d->n_links;
	rp_link *l = RP_LINK(d, li);
	l->lgr = lgr;
	l->ep[0] = ep[0];
	l->ep[1] = ep[1];
	l->mtu = mtu;
	l->vlan = vlan;
	l->state = REPORT_LINK_ACTIVATING;
	l->created_frame = d->frame;
	for (int s = 0; s < 2; s++) {
		l->flow[s].psn_valid = true;
		l->flow[s].next_psn = ep[s].psn;
	}
	rp_link_register(d, li);
	return li;
}

static void half_from_accept(replay_decoder *d, rp_half *h, const smcr_clc_accept *a)
{
	memcpy(h->sysid, a->peer_id, 8);
	memcpy(h->gid, a->gid, 16);
	memcpy(h->mac, a->mac, 6);
	h->qpn = a->qpn;
	h->psn = a->psn;
	h->rkey = a->rkey;
	h->token = a->rmbe_alert_token;
	h->rmbe_size = smcr_rmbe_size_bytes(a->rmbe_size);
	h->rmb_vaddr = a->rmb_vaddr;
	h->mtu_code = a->qp_mtu;
	h->clc_seen = h->smc_active = true;
	rp_host_set_sysid(d, h->host, a->peer_id);
	if (a->version >= 2 && a->first_contact) {
		rp_host *host = RP_HOST(d, rp_host_root(d, h->host));
		size_t n = SMCR_HOSTNAME_LEN;
		while (n > 0 && (a->fce.hostname[n - 1] == ' ' || a->fce.hostname[n - 1] == '\0'))
			n--;
		if (n && !host->name[0]) {
			memcpy(host->name, a->fce.hostname, n);
			host->name[n] = '\0';
		}
		if (!host->os_type)
			host->os_type = a->fce.os_type;
	}
}

/* The client confirmed: the connection runs SMC-R. Find or create its link group and link. */
static void establish(replay_decoder *d, uint32_t ci)
{
	rp_conn *c = RP_CONN(d, ci);
	rp_half *cl = &c->h[RP_CLIENT], *sv = &c->h[RP_SERVER];
	c->mode = RP_MODE_SMCR;
	uint32_t link = 0;
	if (!c->first_contact) {
		uint8_t key[20];
		memcpy(key, sv->gid, 16);
		memcpy(key + 16, &sv->qpn, 4);
		uint64_t *v = rp_map_get(&d->ep_map, key);
		if (v && (*v & 1) == RP_SERVER) {
			rp_link *l = RP_LINK(d, (uint32_t)(*v >> 1));
			rp_lgr *g = RP_LGR(d, l->lgr);
			if (g->host[RP_CLIENT] == rp_host_root(d, cl->host) && g->host[RP_SERVER] == rp_host_root(d, sv->host) &&
			    l->state != REPORT_LINK_INACTIVE)
				link = (uint32_t)(*v >> 1);
		}
		if (link && RP_LINK(d, link)->ep[RP_CLIENT].qpn != cl->qpn)
			rp_note(d, "CLC Confirm names client QP 0x%06x, but the link the server chose uses client QP 0x%06x",
			        cl->qpn, RP_LINK(d, link)->ep[RP_CLIENT].qpn);
		if (!link)
			rp_note(d, "connection reuses a link group whose first contact is not in the capture");
	}
	if (!link) {
		uint32_t lgr = new_lgr(d, c);
		rp_ep ep[2] = {
			{ .qpn = cl->qpn, .psn = cl->psn },
			{ .qpn = sv->qpn, .psn = sv->psn },
		};
		for (int s = 0; s < 2; s++) {
			memcpy(ep[s].gid, c->h[s].gid, 16);
			memcpy(ep[s].mac, c->h[s].mac, 6);
		}
		uint32_t m0 = rp_mtu_bytes(cl->mtu_code), m1 = rp_mtu_bytes(sv->mtu_code);
		link = new_link(d, lgr, ep, m0 && m1 ? (m0 < m1 ? m0 : m1) : (m0 ? m0 : m1), c->vlan);
	}
	c->link = link;
	c->lgr = RP_LINK(d, link)->lgr;
	for (int s = 0; s < 2; s++) {
		uint8_t key[12];
		rkey_key(key, c->lgr, s, c->h[s].token);
		rp_map_put(&d->token_map, key, ci);
		rp_rkey_register(d, c->lgr, s, c->h[s].rkey, ci);
	}
}

/* The IP prefixes a Proposal offers (its IP area, sent when it offers SMC-Rv1 or -D). */
static void proposal_prefixes(rp_conn *c, const smcr_clc_proposal *p)
{
	c->n_prefixes = 0;
	if (p->typev1 == SMCR_CLC_TYPE_NONE)
		return;
	report_prefix *x = &c->prefixes[c->n_prefixes++];
	memset(x, 0, sizeof(*x));
	x->family = 4;
	x->addr[0] = (uint8_t)(p->ipv4_subnet >> 24);
	x->addr[1] = (uint8_t)(p->ipv4_subnet >> 16);
	x->addr[2] = (uint8_t)(p->ipv4_subnet >> 8);
	x->addr[3] = (uint8_t)p->ipv4_subnet;
	x->len = p->ipv4_prefix_len;
	for (uint8_t i = 0; i < p->n_ipv6 && c->n_prefixes < REPORT_MAX_PREFIXES; i++) {
		x = &c->prefixes[c->n_prefixes++];
		x->family = 6;
		memcpy(x->addr, p->ipv6[i].prefix, 16);
		x->len = p->ipv6[i].len;
	}
}

void rp_clc_message(replay_decoder *d, uint32_t ci, int from, const uint8_t *msg, uint32_t len)
{
	rp_conn *c = RP_CONN(d, ci);
	rp_half *h = &c->h[from];
	smcr_decode_err err;
	char text[200];
	int rc = 0;
	d->res.clc_messages++;
	const char *side = from == RP_CLIENT ? "client" : "server";
	uint8_t type = msg[4];
	h->clc_seen = h->smc_active = true;
	if ((type == SMCR_CLC_PROPOSAL || type == SMCR_CLC_CONFIRM) && from != RP_CLIENT) {
		rp_error(d, "%s sent by the server side of the connection", smcr_clc_type_name(type));
		c->clc_error = true;
		return;
	}
	if (type == SMCR_CLC_ACCEPT && from != RP_SERVER) {
		rp_error(d, "CLC Accept sent by the client side of the connection");
		c->clc_error = true;
		return;
	}
	switch (type) {
	case SMCR_CLC_PROPOSAL: {
		smcr_clc_proposal p;
		rc = smcr_clc_decode_proposal(&p, msg, len, &err);
		if (rc < 0)
			break;
		c->proposal = true;
		c->proposal_frame = c->proposal_frame ? c->proposal_frame : d->frame;
		c->version = p.version;
		proposal_prefixes(c, &p);
		if (c->mode == RP_MODE_PENDING)
			memcpy(h->mac, p.mac, 6);
		break;
	}
	case SMCR_CLC_ACCEPT:
	case SMCR_CLC_CONFIRM: {
		smcr_clc_accept a;
		rc = smcr_clc_decode_accept(&a, msg, len, &err);
		if (rc < 0)
			break;
		if (type == SMCR_CLC_ACCEPT) {
			c->accept = true;
			c->accept_frame = c->accept_frame ? c->accept_frame : d->frame;
			c->version = a.version;
			c->first_contact = a.first_contact;
			half_from_accept(d, h, &a);
			break;
		}
		half_from_accept(d, h, &a);
		c->confirm = true;
		c->confirm_frame = c->confirm_frame ? c->confirm_frame : d->frame;
		if (!c->accept)
			rp_note(d, "CLC Confirm without a readable Accept: the server's side of the link is unknown");
		else if (c->mode == RP_MODE_PENDING)
			establish(d, ci);
		break;
	}
	case SMCR_CLC_DECLINE: {
		smcr_clc_decline m;
		rc = smcr_clc_decode_decline(&m, msg, len, &err);
		if (rc < 0)
			break;
		rp_host_set_sysid(d, h->host, m.peer_id);
		if (m.version >= 2) { /* a v2 Decline names the decliner's OS, as a first contact's Accept does */
			rp_host *host = RP_HOST(d, rp_host_root(d, h->host));
			if (!host->os_type)
				host->os_type = m.os_type;
		}
		c->decliner = from;
		if (c->mode == RP_MODE_SMCR && c->first_contact && c->link && !RP_LINK(d, c->link)->confirmed) {
			/* a first contact declined after its Confirm: the link never came up, and Linux
			 * frees the new link group (smc_conn_abort, smc_lgr_cleanup_early) */
			rp_link *l = RP_LINK(d, c->link);
			l->state = REPORT_LINK_INACTIVE;
			RP_LGR(d, c->lgr)->ended = true;
			rp_event_add(d, c->link, REPORT_EVENT_LINK_FAILED, m.diagnosis,
			             "first contact failed: CLC Decline 0x%08x from the %s", m.diagnosis, side);
		}
		c->mode = RP_MODE_TCP;
		h->fallback = m.diagnosis;
		c->h[RP_OTHER(from)].fallback = SMCR_DECL_PEERDECL;
		c->h[RP_OTHER(from)].peer_diag = m.diagnosis;
		rp_note(d, "CLC Decline from the %s: 0x%08x %s (%s)", side, m.diagnosis, smcr_decline_name(m.diagnosis),
		        smcr_decline_text(m.diagnosis));
		break;
	}
	default:
		break;
	}
	if (rc < 0) {
		smcr_decode_err_format(&err, text, sizeof(text));
		rp_error(d, "%s from the %s: %s", smcr_clc_type_name(type), side, text);
		c->clc_error = true;
	}
	/* after the processing, so that a Confirm names the link group it made */
	replay_msg em = { .kind = REPLAY_MSG_CLC, .data = msg, .len = len };
	rp_emit(d, &em, ci, RP_CONN(d, ci)->link, from);
}
