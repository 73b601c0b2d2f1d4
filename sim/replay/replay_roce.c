/* Replay: RoCE packets on the links the CLC and LLC announced.
 *
 * A packet is attributed to a link by its destination (GID, QP number); the sender is the
 * other end. Requests are checked against the sender's PSN sequence (retransmissions and
 * packets missing from the capture are counted, retransmitted content is not applied
 * twice), ACKs clear the outstanding request and NAKs are counted (fatal NAK codes fail
 * the link). SEND payloads are LLC or CDC messages, decoded with the model codecs (the
 * v2 LLC length in either byte order); RDMA WRITEs are attributed to connections by rkey
 * and checked against the RMB's address range.
 *
 * Complete frames are parsed and validated by the fabric's RoCE parser (sim/fabric/roce.h: lengths,
 * IPv4 checksum, ICRC); a frame that fails validation is reported with the failing field and
 * still decoded by the tolerant header parser of sim/replay/replay_frame.c, which also handles what
 * the fabric does not build (snaplen-cut frames, IPv6, stacked VLAN tags, IP options, RDMA
 * READ and atomic opcodes). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/llc.h"
#include "model/byteorder.h"
#include "sim/replay/replay_int.h"
#include "sim/fabric/roce.h"

static int32_t psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & 0xFFFFFF;
	return d & 0x800000 ? (int32_t)d - 0x1000000 : (int32_t)d;
}

static const char *side_name(int s)
{
	return s == RP_CLIENT ? "client" : "server";
}

static uint32_t find_conn_by_token(replay_decoder *d, uint32_t lgr, int side, uint32_t token)
{
	uint8_t key[12];
	uint32_t s = (uint32_t)side;
	memcpy(key, &lgr, 4);
	memcpy(key + 4, &s, 4);
	memcpy(key + 8, &token, 4);
	uint64_t *v = rp_map_get(&d->token_map, key);
	return v ? (uint32_t)*v : 0;
}

/* Bytes between two producer cursors of a ring of `size` bytes (0 if it went backwards). */
static uint64_t cursor_advance(const smcr_cursor *old, const smcr_cursor *new_, uint32_t size)
{
	uint16_t wraps = (uint16_t)(new_->wrap - old->wrap);
	if (wraps >= 0x8000)
		return 0;
	int64_t v = (int64_t)wraps * size + (int64_t)new_->count - (int64_t)old->count;
	return v > 0 ? (uint64_t)v : 0;
}

static void on_cdc(replay_decoder *d, uint32_t li, int s, const uint8_t *p, uint32_t len)
{
	smcr_cdc_msg m;
	smcr_decode_err err;
	if (smcr_cdc_decode(&m, p, len, &err) < 0) {
		char text[200];
		smcr_decode_err_format(&err, text, sizeof(text));
		rp_error(d, "CDC from the %s: %s", side_name(s), text);
		return;
	}
	d->res.cdc_messages++;
	rp_link *l = RP_LINK(d, li);
	if (l->state == REPORT_LINK_ACTIVATING)
		l->state = REPORT_LINK_ACTIVE; /* data flows, whether or not CONFIRM LINK was captured */
	l->confirmed = true;
	int r = RP_OTHER(s);
	uint32_t ci = find_conn_by_token(d, l->lgr, r, m.token);
	if (!ci) {
		rp_note(d, "CDC from the %s for alert token 0x%08x, which no CLC handshake in the capture announced",
		        side_name(s), m.token);
		return;
	}
	rp_conn *c = RP_CONN(d, ci);
	if (c->link != li && l->state == REPORT_LINK_INACTIVE && l->deleted_frame && c->link &&
	    RP_LINK(d, c->link)->state != REPORT_LINK_INACTIVE) {
		/* sent on a link already deleted, before the sender processed its DELETE LINK (a
		 * capture on the wire sees what a downed interface never received): the
		 * connection stays where it failed over to */
		rp_note(d,
		        "CDC from the %s for the connection with token 0x%08x on link %u after that link's DELETE LINK "
		        "(frame %" PRIu64 "); the connection stays on link %u",
		        side_name(s), m.token, l->link_num, l->deleted_frame, RP_LINK(d, c->link)->link_num);
	} else if (c->link != li) {
		rp_link *old = c->link ? RP_LINK(d, c->link) : NULL;
		rp_note(d, "connection with token 0x%08x moved from link %u to link %u", m.token, old ? old->link_num : 0,
		        l->link_num);
		c->link = li;
	}
	rp_half *h = &c->h[s];
	h->cdc_count++;
	/* a failover validation message carries only its sequence number (Linux leaves the
	 * cursors zero): it says nothing about data */
	if (m.prod_flags & SMCR_CDC_FAILOVER_VALIDATION)
		return;
	smcr_cursor zero = { 0, 0 };
	uint32_t size = c->h[r].rmbe_size;
	/* after a failover the sender rewinds its producer cursor to what the peer confirmed
	 * and writes the rest again (Linux smc_switch_cursor): those bytes count once */
	uint64_t adv = cursor_advance(h->cdc_seen ? &h->prod_high : &zero, &m.prod, size ? size : 1u << 30);
	if (adv || !h->cdc_seen)
		h->prod_high = m.prod;
	h->bytes_sent += adv;
	if (adv)
		h->sends++;
	h->last_cdc = m;
	h->cdc_seen = true;
	if (m.conn_flags & SMCR_CDC_PEER_CONN_ABORT)
		h->aborted = true;
	if (m.conn_flags & SMCR_CDC_PEER_CONN_CLOSED)
		h->closed = true;
	if (m.conn_flags & SMCR_CDC_PEER_DONE_WRITING)
		h->done_writing = true;
}

static uint32_t link_by_num(replay_decoder *d, uint32_t lgr, uint8_t num)
{
	for (size_t i = 0; i < d->n_links; i++)
		if (d->links[i].lgr == lgr && d->links[i].link_num == num && d->links[i].state != REPORT_LINK_INACTIVE)
			return (uint32_t)(i + 1);
	return 0;
}

static bool orderly_reason(uint32_t reason)
{
	return reason == SMCR_LLC_DEL_PROG_INIT_TERM || reason == SMCR_LLC_DEL_OP_INIT_TERM ||
	       reason == SMCR_LLC_DEL_NO_ASYM_NEEDED;
}

static void delete_link(replay_decoder *d, uint32_t li, int s, const smcr_llc_msg *m)
{
	rp_link *l = RP_LINK(d, li);
	if (l->state == REPORT_LINK_INACTIVE)
		return;
	l->state = REPORT_LINK_INACTIVE;
	l->deleted_frame = d->frame;
	l->deleted_by = s;
	uint32_t reason = m->u.delete_link.reason;
	bool orderly = (m->flags & SMCR_LLC_FLAG_DEL_LINK_ORDERLY) || orderly_reason(reason);
	rp_event_add(d, li, orderly ? REPORT_EVENT_LINK_DELETED : REPORT_EVENT_LINK_FAILED, reason,
	             "DELETE LINK %s%s from the %s: %s", (m->flags & SMCR_LLC_FLAG_RESP) ? "response" : "request",
	             (m->flags & SMCR_LLC_FLAG_DEL_LINK_ALL) ? " (all links)" : "", side_name(s),
	             smcr_llc_del_reason_text(reason));
}

/* Linux's SMC_CONN_PER_LGR_MAX and SMC_LINKS_ADD_LNK_MAX (net/smc/smc_core.h) */
#define RP_CONN_PER_LGR_MAX 255
#define RP_LINKS_ADD_LNK_MAX 2

static void llc_confirm_link(replay_decoder *d, uint32_t li, int s, const smcr_llc_msg *m)
{
	rp_link *l = RP_LINK(d, li);
	rp_lgr *g = RP_LGR(d, l->lgr);
	l->uid[s] = m->u.confirm_link.link_uid;
	if (m->u.confirm_link.link_id)
		l->link_num = m->u.confirm_link.link_id;
	if (m->u.confirm_link.qpn != l->ep[s].qpn || memcmp(m->u.confirm_link.gid, l->ep[s].gid, 16))
		rp_note(d, "CONFIRM LINK from the %s names QP 0x%06x, the link's %s QP is 0x%06x", side_name(s),
		        m->u.confirm_link.qpn, side_name(s), l->ep[s].qpn);
	if (!(m->flags & SMCR_LLC_FLAG_RESP)) {
		/* a v1 or v2.0 sender leaves max_conns 0 (smc_llc_send_confirm_link fills it only
		 * for a v2.1 peer); the kernel's lgr then has SMC_CONN_PER_LGR_MAX (smc_lgr_create
		 * via smc_clc_srv_v2x_features_validate's default), which netlink reports: 255.
		 * A v2.1 group negotiates 16..255, never 0. */
		g->max_links = m->u.confirm_link.max_links ? m->u.confirm_link.max_links : RP_LINKS_ADD_LNK_MAX;
		g->max_conns = m->u.confirm_link.max_conns ? m->u.confirm_link.max_conns : RP_CONN_PER_LGR_MAX;
		if (!l->confirm_req_frame)
			l->confirm_req_frame = d->frame;
	} else {
		l->state = REPORT_LINK_ACTIVE;
		l->confirmed = true;
	}
}

/* The client accepted the server's ADD LINK: the new link, between the endpoint the
 * request named and the one in this response, beside link li. */
static void add_link_accepted(replay_decoder *d, uint32_t li, const smcr_llc_msg *m)
{
	const typeof(m->u.add_link) *a = &m->u.add_link;
	uint32_t lgr = RP_LINK(d, li)->lgr;
	rp_lgr *g = RP_LGR(d, lgr);
	rp_ep ep[2];
	ep[RP_SERVER] = g->add_ep;
	memcpy(ep[RP_CLIENT].gid, a->gid, 16);
	memcpy(ep[RP_CLIENT].mac, a->mac, 6);
	ep[RP_CLIENT].qpn = a->qpn;
	ep[RP_CLIENT].psn = a->psn;
	uint8_t mtu = a->mtu && (!g->add_mtu || a->mtu < g->add_mtu) ? a->mtu : g->add_mtu;
	d->links = rp_grow(d->links, &d->n_links, &d->cap_links, sizeof(*d->links));
	uint32_t nl = (uint32_t)d->n_links;
	rp_link *n = RP_LINK(d, nl);
	const rp_link *l = RP_LINK(d, li); /* after the growth: the array may have moved */
	n->lgr = lgr;
	n->ep[0] = ep[0];
	n->ep[1] = ep[1];
	n->link_num = g->add_link_num ? g->add_link_num : a->link_id;
	n->mtu = rp_mtu_bytes(mtu);
	n->vlan = l->vlan;
	n->roce_version = l->roce_version;
	n->state = REPORT_LINK_ACTIVATING;
	n->created_frame = d->frame;
	for (int k = 0; k < 2; k++) {
		n->flow[k].psn_valid = true;
		n->flow[k].next_psn = ep[k].psn;
	}
	rp_link_register(d, nl);
	g->add_pending = false;
}

/* The reason of an ADD LINK reject as the bytes give it. SMC-Rv1 carries it in the low
 * nibble of byte 2 (RFC 7609: 1 = no alternate path); in SMC-Rv2 bytes 1-2 are the 16-bit
 * length, so the reason Linux sets (smc_llc_cli_add_link_reject) is overwritten by the
 * length's high byte and a v2 reject carries none. */
void rp_add_link_reject_text(const smcr_llc_msg *m, char *out, size_t n)
{
	if (m->version == 2)
		snprintf(out, n, "the reason is not on the wire (SMC-Rv2: byte 2, where v1 has the reason, "
		                 "is the %u-byte length's %s byte)",
		         m->length, m->order == SMCR_LLC_V2_LE ? "high" : "low");
	else if (m->reject_reason == SMCR_LLC_REJ_NO_ALT_PATH)
		snprintf(out, n, "reason 1, no alternate path");
	else
		snprintf(out, n, "reason %u (%s)", m->reject_reason, m->reject_reason ? "not defined by RFC 7609" : "none given");
}

/* The server's request is remembered until the client's response makes the link. */
static void llc_add_link(replay_decoder *d, uint32_t li, int s, const smcr_llc_msg *m)
{
	const typeof(m->u.add_link) *a = &m->u.add_link;
	bool resp = m->flags & SMCR_LLC_FLAG_RESP;
	uint32_t lgr = RP_LINK(d, li)->lgr;
	rp_lgr *g = RP_LGR(d, lgr);
	if (s == RP_SERVER && !resp) {
		g->add_pending = true;
		g->add_frame = d->frame;
		memcpy(g->add_ep.gid, a->gid, 16);
		memcpy(g->add_ep.mac, a->mac, 6);
		g->add_ep.qpn = a->qpn;
		g->add_ep.psn = a->psn;
		g->add_link_num = a->link_id;
		g->add_mtu = a->mtu;
	} else if (s == RP_CLIENT && resp) {
		if (m->flags & SMCR_LLC_FLAG_ADD_LNK_REJ) {
			char why[160];
			rp_add_link_reject_text(m, why, sizeof(why));
			rp_note(d, "ADD LINK rejected by the client: %s", why);
			g->add_pending = false;
			return;
		}
		if (!g->add_pending) {
			rp_note(d, "ADD LINK response without its request in the capture");
			return;
		}
		add_link_accepted(d, li, m);
	} else {
		rp_note(d, "ADD LINK %s from the %s (a suggestion; no link is created)", resp ? "response" : "request",
		        side_name(s));
	}
	for (uint16_t i = 0; i < a->n_rkeys; i++)
		rp_rkey_alias_add(d, lgr, s, a->rkeys[i].rkey_known, a->rkeys[i].rkey_new, a->rkeys[i].vaddr_new);
}

static void llc_delete_link(replay_decoder *d, uint32_t lgr, int s, const smcr_llc_msg *m)
{
	if (m->flags & SMCR_LLC_FLAG_DEL_LINK_ALL) {
		RP_LGR(d, lgr)->ended = true;
		for (size_t i = 0; i < d->n_links; i++)
			if (d->links[i].lgr == lgr)
				delete_link(d, (uint32_t)(i + 1), s, m);
		return;
	}
	uint32_t t = link_by_num(d, lgr, m->u.delete_link.link_id);
	if (t) {
		delete_link(d, t, s, m);
		return;
	}
	if (m->flags & SMCR_LLC_FLAG_RESP)
		return;
	/* the latest removed link of that number: Linux's server answers a client's DELETE
	 * LINK (the client lost the path) with a DELETE LINK request of its own for the same
	 * link (smc_llc_process_srv_delete_link); the client has dropped the link already and
	 * responds "no such link" (0x00100000) */
	const rp_link *gone = NULL;
	for (size_t i = 0; i < d->n_links; i++)
		if (d->links[i].lgr == lgr && d->links[i].link_num == m->u.delete_link.link_id && d->links[i].deleted_frame)
			gone = &d->links[i];
	if (gone && gone->deleted_by == RP_CLIENT && s == RP_SERVER)
		rp_note(d,
		        "DELETE LINK request from the server for link %u, which the client's DELETE LINK (frame %" PRIu64
		        ") removed: the server runs the deletion itself and asks the client (Linux's server does)",
		        m->u.delete_link.link_id, gone->deleted_frame);
	else if (gone)
		rp_note(d, "DELETE LINK for link %u, which the DELETE LINK of frame %" PRIu64 " removed already",
		        m->u.delete_link.link_id, gone->deleted_frame);
	else
		rp_note(d, "DELETE LINK for link %u, which is not active in this link group", m->u.delete_link.link_id);
}

static void llc_confirm_rkey(replay_decoder *d, uint32_t lgr, int s, const smcr_llc_msg *m)
{
	/* the response echoes the request (Linux sends the message back with the RESP
	 * flag): the rkeys in it are the requester's, not the responder's */
	if (m->flags & SMCR_LLC_FLAG_RESP)
		return;
	uint8_t n = m->u.confirm_rkey.n_other < 2 ? m->u.confirm_rkey.n_other : 2;
	for (uint8_t i = 0; i < n; i++)
		rp_rkey_alias_add(d, lgr, s, m->u.confirm_rkey.rkey, m->u.confirm_rkey.other[i].rkey,
		                  m->u.confirm_rkey.other[i].vaddr);
}

static void on_llc(replay_decoder *d, uint32_t li, int s, const uint8_t *p, uint32_t len)
{
	smcr_llc_msg m;
	smcr_decode_err err;
	if (smcr_llc_decode(&m, p, len, &err) < 0) {
		char text[200];
		smcr_decode_err_format(&err, text, sizeof(text));
		rp_error(d, "LLC from the %s: %s", side_name(s), text);
		return;
	}
	d->res.llc_messages++;
	uint32_t lgr = RP_LINK(d, li)->lgr;
	switch ((smcr_llc_type)m.type) {
	case SMCR_LLC_CONFIRM_LINK:
		llc_confirm_link(d, li, s, &m);
		break;
	case SMCR_LLC_ADD_LINK:
		llc_add_link(d, li, s, &m);
		break;
	case SMCR_LLC_ADD_LINK_CONT:
		for (uint8_t i = 0; i < m.u.add_link_cont.n_here && i < 2; i++)
			rp_rkey_alias_add(d, lgr, s, m.u.add_link_cont.rkeys[i].rkey_known, m.u.add_link_cont.rkeys[i].rkey_new,
			                  m.u.add_link_cont.rkeys[i].vaddr_new);
		break;
	case SMCR_LLC_DELETE_LINK:
		llc_delete_link(d, lgr, s, &m);
		break;
	case SMCR_LLC_CONFIRM_RKEY:
		llc_confirm_rkey(d, lgr, s, &m);
		break;
	case SMCR_LLC_REQ_ADD_LINK:
	case SMCR_LLC_CONFIRM_RKEY_CONT:
	case SMCR_LLC_DELETE_RKEY:
	case SMCR_LLC_TEST_LINK:
		break;
	}
}

static void on_send_message(replay_decoder *d, uint32_t li, int s, const uint8_t *p, uint32_t caplen, uint32_t len,
                            uint64_t frame)
{
	if (caplen < len) {
		rp_error(d, "SMC-R message from the %s cut by the snap length (%u of %u bytes captured)", side_name(s), caplen,
		         len);
		return;
	}
	if (len == 0) {
		rp_note(d, "empty SEND from the %s", side_name(s));
		return;
	}
	replay_msg em = { .kind = p[0] == SMCR_CDC_TYPE ? REPLAY_MSG_CDC : REPLAY_MSG_LLC, .frame = frame, .data = p, .len = len };
	uint32_t ci = 0;
	if (p[0] == SMCR_CDC_TYPE && len >= 8)
		ci = find_conn_by_token(d, RP_LINK(d, li)->lgr, RP_OTHER(s), get_be32(p + 4));
	rp_emit(d, &em, ci, li, s);
	if (p[0] == SMCR_CDC_TYPE)
		on_cdc(d, li, s, p, len);
	else
		on_llc(d, li, s, p, len);
}

static void on_write(replay_decoder *d, uint32_t li, int s, const rp_bth *b)
{
	rp_link *l = RP_LINK(d, li);
	rp_flow *fl = &l->flow[s];
	int r = RP_OTHER(s);
	if (b->has_reth) {
		d->res.rdma_writes++;
		fl->write_conn = 0;
		uint8_t key[12];
		uint32_t side = (uint32_t)r;
		memcpy(key, &l->lgr, 4);
		memcpy(key + 4, &side, 4);
		memcpy(key + 8, &b->rkey, 4);
		uint64_t *v = rp_map_get(&d->rkey_map, key);
		if (!v) {
			if (!l->unknown_rkey_noted)
				rp_note(d, "RDMA WRITE from the %s with rkey 0x%08x, which no CLC or LLC message announced "
				           "(further ones on this link are not listed)",
				        side_name(s), b->rkey);
			l->unknown_rkey_noted = true;
		} else {
			uint32_t ci = (uint32_t)(*v & 0xFFFFFFFFu), alias = (uint32_t)(*v >> 32);
			rp_conn *c = RP_CONN(d, ci);
			uint64_t base = alias ? RP_LGR(d, l->lgr)->aliases[alias - 1].vaddr_b : c->h[r].rmb_vaddr;
			uint64_t size = c->h[r].rmbe_size;
			/* in two steps: va - base + dmalen wraps for a VA near 2^64 and a small base */
			if (size && (b->va < base || b->va - base > size || b->dmalen > size - (b->va - base)))
				rp_error(d, "RDMA WRITE from the %s to 0x%016" PRIx64 "+%u lies outside the RMB at 0x%016" PRIx64 " (%" PRIu64 " bytes, rkey 0x%08x)", side_name(s), b->va, b->dmalen, base, size, b->rkey);
			fl->write_conn = ci;
		}
	}
	if (b->has_reth) {
		fl->write_rkey = b->rkey;
		fl->write_next_va = b->va;
	}
	replay_msg em = { .kind = REPLAY_MSG_WRITE, .data = b->payload, .len = b->payload_caplen, .wire_len = b->payload_len, .va = fl->write_next_va, .rkey = fl->write_rkey, .write_first = b->has_reth };
	rp_emit(d, &em, fl->write_conn, li, s);
	fl->write_next_va += b->payload_len;
	if (fl->write_conn)
		RP_CONN(d, fl->write_conn)->h[s].rdma_bytes += b->payload_len;
	if (b->opcode != RP_OP_WRITE_FIRST && b->opcode != RP_OP_WRITE_MIDDLE)
		fl->write_conn = 0;
}

static const char *nak_text(uint8_t code)
{
	switch (code) {
	case 0: return "PSN sequence error";
	case 1: return "invalid request";
	case 2: return "remote access error";
	case 3: return "remote operational error";
	case 4: return "invalid RD request";
	default: return "reserved NAK code";
	}
}

static void on_ack(replay_decoder *d, uint32_t li, int s, const rp_bth *b)
{
	rp_link *l = RP_LINK(d, li);
	rp_flow *req = &l->flow[RP_OTHER(s)]; /* the requests this acknowledges */
	uint8_t type = (uint8_t)(b->syndrome >> 5), code = b->syndrome & 0x1F;
	if (type == RP_AETH_ACK) {
		if (req->unacked) {
			if (psn_diff(b->psn, req->unacked_psn) >= 0)
				req->unacked = false;
			else
				req->unacked_ns = d->now; /* progress: older requests are done */
		}
		return;
	}
	l->flow[s].naks++;
	if (type == RP_AETH_NAK && code != 0 && l->state != REPORT_LINK_INACTIVE) {
		l->state = REPORT_LINK_INACTIVE;
		rp_event_add(d, li, REPORT_EVENT_LINK_FAILED, b->syndrome, "NAK (%s) from the %s for PSN 0x%06x",
		             nak_text(code), side_name(s), b->psn);
	}
}

/* The fabric's strict parser on a complete frame. False when it cannot take the frame;
 * a frame it rejects for being wrong (not merely outside what it builds) is reported. */
static bool strict_parse(replay_decoder *d, const rp_frame *f, rp_bth *b)
{
	if (f->raw_caplen != f->raw_len)
		return false;
	roce_pkt pkt;
	smcr_decode_err err;
	if (roce_parse(f->raw, f->raw_caplen, &pkt, &err) != SMCR_ERR_OK) {
		if (err.code != SMCR_ERR_TYPE && strcmp(err.field ? err.field : "", "IPv4 version/IHL")) {
			char text[200];
			smcr_decode_err_format(&err, text, sizeof(text));
			rp_error(d, "RoCE v%u packet does not validate: %s", f->roce_version, text);
		}
		return false;
	}
	memset(b, 0, sizeof(*b));
	b->opcode = pkt.bth.opcode;
	b->se = pkt.bth.se;
	b->ackreq = pkt.bth.ack_req;
	b->padcnt = pkt.bth.pad;
	b->pkey = pkt.bth.pkey;
	b->dest_qp = pkt.bth.dest_qp;
	b->psn = pkt.bth.psn;
	b->has_reth = pkt.has_reth;
	b->va = pkt.reth.va;
	b->rkey = pkt.reth.rkey;
	b->dmalen = pkt.reth.dma_len;
	b->has_aeth = pkt.has_aeth;
	b->syndrome = pkt.aeth.syndrome;
	b->msn = pkt.aeth.msn;
	b->payload = pkt.payload;
	b->payload_len = b->payload_caplen = pkt.payload_len;
	return true;
}

void rp_roce_frame(replay_decoder *d, const rp_frame *f)
{
	rp_bth b;
	char why[REPLAY_TEXT_LEN];
	switch (strict_parse(d, f, &b) ? RP_FRAME_ROCE : rp_bth_parse(&b, f->ib, f->ib_caplen, f->ib_len, why, sizeof(why))) {
	case RP_FRAME_ROCE:
		break;
	case RP_FRAME_OTHER:
		rp_unexplained(d, "RoCE packet that is not RC", "RoCE v%u: %s", f->roce_version, why);
		return;
	case RP_FRAME_BAD:
	case RP_FRAME_TCP:
		rp_unexplained(d, "malformed RoCE packet", "malformed RoCE v%u packet: %s", f->roce_version, why);
		return;
	}
	uint8_t key[20];
	memcpy(key, f->dgid, 16);
	memcpy(key + 16, &b.dest_qp, 4);
	uint64_t *v = rp_map_get(&d->ep_map, key);
	if (!v) {
		char gid[64];
		report_gid_str(f->dgid, gid, sizeof(gid));
		rp_unexplained(d, "RoCE packet to a QP no handshake announced", "RoCE v%u %s to QP 0x%06x at %s, not a QP of "
		                                                                "any SMC-R link seen in the capture",
		               f->roce_version, rp_opcode_name(b.opcode), b.dest_qp, gid);
		return;
	}
	uint32_t li = (uint32_t)(*v >> 1);
	int r = (int)(*v & 1), s = RP_OTHER(r);
	rp_link *l = RP_LINK(d, li);
	rp_flow *fl = &l->flow[s];
	fl->frames++;
	fl->bytes += d->frame_len;
	fl->last_ns = d->now;
	if (!l->roce_version)
		l->roce_version = f->roce_version;
	if (l->vlan == 0xFFFF)
		l->vlan = f->vlan;
	if (b.opcode == RP_OP_ACK || b.opcode == RP_OP_ATOMIC_ACK) {
		on_ack(d, li, s, &b);
		return;
	}
	if (fl->psn_valid) {
		int32_t delta = psn_diff(b.psn, fl->next_psn);
		if (delta < 0) {
			fl->retrans++;
			d->res.roce_retransmissions++;
			return;
		}
		if (delta > 0) {
			fl->gaps += (uint32_t)delta;
			d->res.capture_gaps += (uint32_t)delta;
			fl->send_active = false;
			fl->write_conn = 0;
		}
	}
	fl->psn_valid = true;
	fl->next_psn = (b.psn + 1) & 0xFFFFFF;
	if (rp_opcode_starts_request(b.opcode))
		fl->ops++;
	if (b.ackreq) {
		if (!fl->unacked) {
			fl->unacked = true;
			fl->unacked_ns = d->now;
			fl->unacked_frame = d->frame;
		}
		fl->unacked_psn = b.psn;
	}
	switch (b.opcode) {
	case RP_OP_SEND_ONLY:
	case RP_OP_SEND_ONLY_IMM:
	case RP_OP_SEND_ONLY_INV:
		on_send_message(d, li, s, b.payload, b.payload_caplen, b.payload_len, 0);
		return;
	case RP_OP_SEND_FIRST:
	case RP_OP_SEND_MIDDLE:
	case RP_OP_SEND_LAST:
	case RP_OP_SEND_LAST_IMM:
	case RP_OP_SEND_LAST_INV:
		if (b.opcode == RP_OP_SEND_FIRST) {
			fl->send_active = true;
			fl->send_len = 0;
			fl->send_frame = d->frame;
		} else if (!fl->send_active) {
			rp_note(d, "%s from the %s without the start of its message in the capture", rp_opcode_name(b.opcode),
			        side_name(s));
			return;
		}
		if (b.payload_caplen < b.payload_len || fl->send_len + b.payload_len > sizeof(fl->send_buf)) {
			rp_error(d, "multi-packet SEND from the %s %s; message dropped", side_name(s),
			         b.payload_caplen < b.payload_len ? "cut by the snap length" : "longer than 8192 bytes");
			fl->send_active = false;
			return;
		}
		memcpy(fl->send_buf + fl->send_len, b.payload, b.payload_len);
		fl->send_len += b.payload_len;
		if (b.opcode != RP_OP_SEND_FIRST && b.opcode != RP_OP_SEND_MIDDLE) {
			fl->send_active = false;
			on_send_message(d, li, s, fl->send_buf, fl->send_len, fl->send_len, fl->send_frame);
		}
		return;
	case RP_OP_WRITE_FIRST:
	case RP_OP_WRITE_MIDDLE:
	case RP_OP_WRITE_LAST:
	case RP_OP_WRITE_LAST_IMM:
	case RP_OP_WRITE_ONLY:
	case RP_OP_WRITE_ONLY_IMM:
		on_write(d, li, s, &b);
		return;
	default:
		rp_note(d, "%s on an SMC-R link (SMC-R does not use it)", rp_opcode_name(b.opcode));
		return;
	}
}

void rp_roce_finish(replay_decoder *d)
{
	uint64_t end = d->res.last_ns;
	for (size_t i = 0; i < d->n_links; i++) {
		rp_link *l = &d->links[i];
		int stalled = -1;
		for (int s = 0; s < 2; s++) {
			rp_flow *fl = &l->flow[s];
			if (fl->send_active) {
				uint64_t saved = d->frame;
				d->frame = 0;
				rp_error(d, "link %u: the capture ends inside a multi-packet SEND from the %s", l->link_num, side_name(s));
				d->frame = saved;
			}
			if (fl->unacked && end - fl->unacked_ns >= d->opts.stall_ns &&
			    (stalled < 0 || fl->unacked_ns < l->flow[stalled].unacked_ns))
				stalled = s;
		}
		if (stalled < 0 || l->state == REPORT_LINK_INACTIVE)
			continue;
		/* the oldest request left without an answer dates the failure */
		rp_flow *fl = &l->flow[stalled];
		uint64_t saved_now = d->now, saved_frame = d->frame;
		d->now = fl->unacked_ns;
		d->frame = fl->unacked_frame;
		l->state = REPORT_LINK_INACTIVE;
		rp_event_add(d, (uint32_t)(i + 1), REPORT_EVENT_LINK_FAILED, 0,
		             "traffic stopped: requests from the %s up to PSN 0x%06x unacknowledged for %" PRIu64
		             " ms until the capture ends",
		             side_name(stalled), fl->unacked_psn, (end - fl->unacked_ns) / 1000000u);
		d->now = saved_now;
		d->frame = saved_frame;
	}
}
