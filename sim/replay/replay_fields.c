/* Every wire field of an SMC-R message, as text or JSON (see replay_fields.h). */
#include "sim/replay/replay_fields.h"

#include <inttypes.h>
#include <string.h>

#include "model/byteorder.h"
#include "model/cdc.h"
#include "model/clc.h"
#include "model/llc.h"
#include "sim/report/report.h"

/* ---- the sink ---- */

static void item(rp_sink *k, const char *key)
{
	if (k->w) {
		if (key)
			json_key(k->w, key);
		return;
	}
	int d = k->depth;
	if (k->list_item[d])
		fputc(k->in_list[d] ? ',' : ' ', k->out);
	k->list_item[d] = true;
	if (key)
		fprintf(k->out, "%s=", key);
}

static void open_(rp_sink *k, const char *key, bool list)
{
	item(k, key);
	if (k->w) {
		if (list)
			json_begin_array(k->w);
		else
			json_begin_object(k->w);
		return;
	}
	fputc(list ? '[' : '{', k->out);
	if (k->depth < 15)
		k->depth++;
	k->in_list[k->depth] = list;
	k->list_item[k->depth] = false;
}

static void close_(rp_sink *k, bool list)
{
	if (k->w) {
		if (list)
			json_end_array(k->w);
		else
			json_end_object(k->w);
		return;
	}
	fputc(list ? ']' : '}', k->out);
	if (k->depth > 0)
		k->depth--;
}

static void obj(rp_sink *k, const char *key) { open_(k, key, false); }
static void obj_end(rp_sink *k) { close_(k, false); }
static void arr(rp_sink *k, const char *key) { open_(k, key, true); }
static void arr_end(rp_sink *k) { close_(k, true); }

static void u(rp_sink *k, const char *key, uint64_t v)
{
	item(k, key);
	if (k->w)
		json_uint(k->w, v);
	else
		fprintf(k->out, "%" PRIu64, v);
}

static void hex(rp_sink *k, const char *key, uint64_t v, int width)
{
	char buf[40];
	snprintf(buf, sizeof(buf), "0x%0*" PRIx64, width, v);
	item(k, key);
	if (k->w)
		json_string(k->w, buf);
	else
		fputs(buf, k->out);
}

/* Text values are written as they are when they are one word, else quoted. */
static void str(rp_sink *k, const char *key, const char *s)
{
	item(k, key);
	if (k->w) {
		json_string(k->w, s);
		return;
	}
	bool plain = *s != '\0';
	for (const char *p = s; *p; p++)
		plain &= *p > ' ' && *p != '"' && *p != ',' && *p != ']' && *p != '}' && *p < 0x7f;
	if (plain) {
		fputs(s, k->out);
		return;
	}
	fputc('"', k->out);
	for (const char *p = s; *p; p++)
		fprintf(k->out, *p == '"' || *p == '\\' ? "\\%c" : (unsigned char)*p < ' ' || (unsigned char)*p >= 0x7f ? "\\x%02x"
		                                                                                                        : "%c",
		        *p == '"' || *p == '\\' ? *p : (unsigned char)*p);
	fputc('"', k->out);
}

static void flag(rp_sink *k, const char *key, bool v)
{
	item(k, key);
	if (k->w)
		json_bool(k->w, v);
	else
		fputs(v ? "yes" : "no", k->out);
}

static void gid(rp_sink *k, const char *key, const uint8_t g[16])
{
	char buf[64];
	report_gid_str(g, buf, sizeof(buf));
	str(k, key, buf);
}

static void mac(rp_sink *k, const char *key, const uint8_t m[6])
{
	char buf[24];
	snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	str(k, key, buf);
}

static void id8(rp_sink *k, const char *key, const uint8_t id[8])
{
	char buf[20];
	snprintf(buf, sizeof(buf), "%02x%02x%02x%02x%02x%02x%02x%02x", id[0], id[1], id[2], id[3], id[4], id[5], id[6],
	         id[7]);
	str(k, key, buf);
}

static void bytes(rp_sink *k, const char *key, const uint8_t *p, size_t n)
{
	char buf[2 * 64 + 1];
	size_t m = n < 64 ? n : 64;
	for (size_t i = 0; i < m; i++)
		snprintf(buf + 2 * i, 3, "%02x", p[i]);
	buf[2 * m] = '\0';
	str(k, key, buf);
}

/* A blank-padded name of n bytes, trimmed. */
static void padded(rp_sink *k, const char *key, const char *s, size_t n)
{
	char buf[64];
	size_t m = n < sizeof(buf) - 1 ? n : sizeof(buf) - 1;
	memcpy(buf, s, m);
	buf[m] = '\0';
	while (m > 0 && (buf[m - 1] == ' ' || buf[m - 1] == '\0'))
		buf[--m] = '\0';
	str(k, key, buf);
}

static void error(rp_sink *k, const smcr_decode_err *e)
{
	char text[200];
	smcr_decode_err_format(e, text, sizeof(text));
	str(k, "error", text);
}

/* ---- CLC ---- */

static const char *smc_type(smcr_clc_smc_type t)
{
	switch (t) {
	case SMCR_CLC_TYPE_R: return "R";
	case SMCR_CLC_TYPE_D: return "D";
	case SMCR_CLC_TYPE_NONE: return "none";
	case SMCR_CLC_TYPE_BOTH: return "both";
	}
	return "?";
}

static void clc_proposal(rp_sink *k, const smcr_clc_proposal *p)
{
	u(k, "version", p->version);
	str(k, "smc_type_v1", smc_type(p->typev1));
	str(k, "smc_type_v2", smc_type(p->typev2));
	id8(k, "peer_id", p->peer_id);
	gid(k, "gid", p->gid);
	mac(k, "mac", p->mac);
	u(k, "iparea_offset", p->iparea_offset);
	hex(k, "ism_gid", p->ism_gid, 16);
	hex(k, "ism_chid", p->ism_chid, 4);
	if (p->typev1 != SMCR_CLC_TYPE_NONE) {
		char buf[80];
		snprintf(buf, sizeof(buf), "%u.%u.%u.%u/%u", p->ipv4_subnet >> 24, (p->ipv4_subnet >> 16) & 0xFF,
		         (p->ipv4_subnet >> 8) & 0xFF, p->ipv4_subnet & 0xFF, p->ipv4_prefix_len);
		str(k, "ipv4_prefix", buf);
		arr(k, "ipv6_prefixes");
		for (uint8_t i = 0; i < p->n_ipv6 && i < SMCR_MAX_IPV6_PREFIXES; i++) {
			char ip[64];
			report_gid_str(p->ipv6[i].prefix, ip, sizeof(ip));
			snprintf(buf, sizeof(buf), "%s/%u", ip, p->ipv6[i].len);
			str(k, NULL, buf);
		}
		arr_end(k);
	}
	if (p->typev2 == SMCR_CLC_TYPE_NONE)
		return;
	arr(k, "eids");
	for (uint8_t i = 0; i < p->n_eids && i < SMCR_MAX_EIDS; i++)
		padded(k, NULL, p->eids[i], SMCR_EID_LEN);
	arr_end(k);
	u(k, "ism_v2_entries", p->n_ism_gids);
	u(k, "release", p->release);
	flag(k, "seid_indicator", p->seid_indicator);
	gid(k, "roce_v2_gid", p->roce_v2_gid);
	u(k, "max_conns", p->max_conns);
	u(k, "max_links", p->max_links);
	hex(k, "feature_mask", p->feature_mask, 4);
	if (p->smcd_v2_ext)
		padded(k, "seid", (const char *)p->seid, SMCR_EID_LEN);
}

static void clc_accept(rp_sink *k, const smcr_clc_accept *a)
{
	u(k, "version", a->version);
	flag(k, "first_contact", a->first_contact);
	id8(k, "peer_id", a->peer_id);
	gid(k, "gid", a->gid);
	mac(k, "mac", a->mac);
	hex(k, "qpn", a->qpn, 6);
	hex(k, "rkey", a->rkey, 8);
	u(k, "rmbe_idx", a->rmbe_idx);
	hex(k, "rmbe_alert_token", a->rmbe_alert_token, 8);
	u(k, "rmbe_size_code", a->rmbe_size);
	u(k, "rmbe_size", smcr_rmbe_size_bytes(a->rmbe_size));
	u(k, "qp_mtu_code", a->qp_mtu);
	u(k, "qp_mtu", a->qp_mtu >= 1 && a->qp_mtu <= 5 ? 128u << a->qp_mtu : 0);
	hex(k, "rmb_vaddr", a->rmb_vaddr, 16);
	hex(k, "psn", a->psn, 6);
	if (a->version < 2)
		return;
	padded(k, "eid", a->eid, SMCR_EID_LEN);
	if (a->first_contact) {
		obj(k, "first_contact_extension");
		flag(k, "v2_direct", a->fce.v2_direct);
		u(k, "os_type", a->fce.os_type);
		u(k, "release", a->fce.release);
		padded(k, "hostname", a->fce.hostname, SMCR_HOSTNAME_LEN);
		u(k, "max_conns", a->fce.max_conns);
		u(k, "max_links", a->fce.max_links);
		hex(k, "feature_mask", a->fce.feature_mask, 4);
		hex(k, "vendor_exp", a->fce.vendor_exp, 8);
		obj_end(k);
	}
	if (a->type == SMCR_CLC_CONFIRM && a->first_contact) {
		arr(k, "gids");
		for (uint8_t i = 0; i < a->n_gids && i < SMCR_MAX_CONFIRM_GIDS; i++)
			gid(k, NULL, a->gids[i]);
		arr_end(k);
	}
}

static void clc_decline(rp_sink *k, const smcr_clc_decline *m)
{
	u(k, "version", m->version);
	flag(k, "out_of_sync", m->out_of_sync);
	id8(k, "peer_id", m->peer_id);
	hex(k, "diagnosis", m->diagnosis, 8);
	str(k, "diagnosis_name", smcr_decline_name(m->diagnosis));
	if (m->version < 2)
		return;
	u(k, "os_type", m->os_type);
	arr(k, "diag_more");
	for (int i = 0; i < 4; i++)
		hex(k, NULL, m->diag_more[i], 8);
	arr_end(k);
}

static void clc_fields(rp_sink *k, const uint8_t *p, uint32_t len)
{
	smcr_decode_err e;
	memset(&e, 0, sizeof(e));
	uint8_t type = len > 4 ? p[4] : 0;
	str(k, "type", smcr_clc_type_name(type));
	u(k, "length", len);
	hex(k, "flags", len > 7 ? p[7] : 0, 2);
	switch (type) {
	case SMCR_CLC_PROPOSAL: {
		smcr_clc_proposal m;
		if (smcr_clc_decode_proposal(&m, p, len, &e) < 0)
			error(k, &e);
		else
			clc_proposal(k, &m);
		return;
	}
	case SMCR_CLC_ACCEPT:
	case SMCR_CLC_CONFIRM: {
		smcr_clc_accept m;
		if (smcr_clc_decode_accept(&m, p, len, &e) < 0)
			error(k, &e);
		else
			clc_accept(k, &m);
		return;
	}
	case SMCR_CLC_DECLINE: {
		smcr_clc_decline m;
		if (smcr_clc_decode_decline(&m, p, len, &e) < 0)
			error(k, &e);
		else
			clc_decline(k, &m);
		return;
	}
	default:
		str(k, "error", "unknown CLC type");
	}
}

/* ---- LLC ---- */

static void rkey_pairs(rp_sink *k, const smcr_rkey_pair *pairs, unsigned n)
{
	arr(k, "rkeys");
	for (unsigned i = 0; i < n; i++) {
		obj(k, NULL);
		hex(k, "rkey_known", pairs[i].rkey_known, 8);
		hex(k, "rkey_new", pairs[i].rkey_new, 8);
		hex(k, "vaddr_new", pairs[i].vaddr_new, 16);
		obj_end(k);
	}
	arr_end(k);
}

static void rkey_entries(rp_sink *k, const char *key, const smcr_rkey_entry *e, unsigned n)
{
	arr(k, key);
	for (unsigned i = 0; i < n; i++) {
		obj(k, NULL);
		u(k, "link_num", e[i].link_id);
		hex(k, "rkey", e[i].rkey, 8);
		hex(k, "vaddr", e[i].vaddr, 16);
		obj_end(k);
	}
	arr_end(k);
}

static void llc_add_link(rp_sink *k, const smcr_llc_msg *m)
{
	const typeof(m->u.add_link) *a = &m->u.add_link;
	bool rej = m->flags & SMCR_LLC_FLAG_ADD_LNK_REJ;
	flag(k, "rejected", rej);
	if (rej) {
		/* v1 carries the reason in byte 2; v2 has the length there (replay_roce.c) */
		if (m->version == 2)
			str(k, "reject_reason", "not on the wire");
		else
			u(k, "reject_reason", m->reject_reason);
	}
	mac(k, "mac", a->mac);
	gid(k, "gid", a->gid);
	hex(k, "qpn", a->qpn, 6);
	u(k, "link_num", a->link_id);
	u(k, "mtu_code", a->mtu);
	u(k, "mtu", a->mtu >= 1 && a->mtu <= 5 ? 128u << a->mtu : 0);
	hex(k, "psn", a->psn, 6);
	if (!a->v2_ext)
		return;
	flag(k, "v2_direct", a->v2_direct);
	gid(k, "client_target_gid", a->client_target_gid);
	rkey_pairs(k, a->rkeys, a->n_rkeys);
}

static void llc_body(rp_sink *k, const smcr_llc_msg *m)
{
	switch ((smcr_llc_type)m->type) {
	case SMCR_LLC_CONFIRM_LINK:
		mac(k, "mac", m->u.confirm_link.mac);
		gid(k, "gid", m->u.confirm_link.gid);
		hex(k, "qpn", m->u.confirm_link.qpn, 6);
		u(k, "link_num", m->u.confirm_link.link_id);
		hex(k, "link_uid", m->u.confirm_link.link_uid, 8);
		u(k, "max_links", m->u.confirm_link.max_links);
		u(k, "max_conns", m->u.confirm_link.max_conns);
		break;
	case SMCR_LLC_ADD_LINK:
		llc_add_link(k, m);
		break;
	case SMCR_LLC_ADD_LINK_CONT:
		u(k, "link_num", m->u.add_link_cont.link_id);
		u(k, "remaining", m->u.add_link_cont.n_remaining);
		rkey_pairs(k, m->u.add_link_cont.rkeys, m->u.add_link_cont.n_here < 2 ? m->u.add_link_cont.n_here : 2);
		break;
	case SMCR_LLC_DELETE_LINK:
		flag(k, "all", m->flags & SMCR_LLC_FLAG_DEL_LINK_ALL);
		flag(k, "orderly", m->flags & SMCR_LLC_FLAG_DEL_LINK_ORDERLY);
		u(k, "link_num", m->u.delete_link.link_id);
		hex(k, "reason", m->u.delete_link.reason, 8);
		str(k, "reason_text", smcr_llc_del_reason_text(m->u.delete_link.reason));
		break;
	case SMCR_LLC_REQ_ADD_LINK:
		arr(k, "gids");
		for (uint8_t i = 0; i < m->u.req_add_link.n_gids && i < SMCR_LLC_MAX_REQ_GIDS; i++)
			gid(k, NULL, m->u.req_add_link.gids[i]);
		arr_end(k);
		break;
	case SMCR_LLC_CONFIRM_RKEY:
		flag(k, "negative", m->flags & SMCR_LLC_FLAG_RKEY_NEG);
		flag(k, "retry", m->flags & SMCR_LLC_FLAG_RKEY_RETRY);
		hex(k, "rkey", m->u.confirm_rkey.rkey, 8);
		hex(k, "vaddr", m->u.confirm_rkey.vaddr, 16);
		u(k, "other_links", m->u.confirm_rkey.n_other);
		rkey_entries(k, "others", m->u.confirm_rkey.other, m->u.confirm_rkey.n_other < 2 ? m->u.confirm_rkey.n_other : 2);
		break;
	case SMCR_LLC_CONFIRM_RKEY_CONT:
		u(k, "remaining", m->u.confirm_rkey_cont.n_remaining);
		rkey_entries(k, "entries", m->u.confirm_rkey_cont.entries,
		             m->u.confirm_rkey_cont.n_remaining < 3 ? m->u.confirm_rkey_cont.n_remaining : 3);
		break;
	case SMCR_LLC_DELETE_RKEY:
		u(k, "count", m->u.delete_rkey.n_rkeys);
		hex(k, "err_mask", m->u.delete_rkey.err_mask, 2);
		arr(k, "rkeys");
		for (unsigned i = 0; i < m->u.delete_rkey.n_rkeys && i < SMCR_LLC_MAX_RKEY_PAIRS; i++)
			hex(k, NULL, m->u.delete_rkey.rkeys[i], 8);
		arr_end(k);
		break;
	case SMCR_LLC_TEST_LINK:
		bytes(k, "user_data", m->u.test_link.user_data, 16);
		break;
	}
}

static void llc_fields(rp_sink *k, const uint8_t *p, uint32_t len)
{
	str(k, "type", len ? smcr_llc_type_name(p[0]) : "?");
	u(k, "length", len);
	smcr_llc_msg m;
	smcr_decode_err e;
	memset(&e, 0, sizeof(e));
	if (smcr_llc_decode(&m, p, len, &e) < 0) {
		error(k, &e);
		return;
	}
	u(k, "version", m.version);
	if (m.version == 2)
		str(k, "length_byte_order", m.order_ambiguous ? "either" : m.order == SMCR_LLC_V2_LE ? "little-endian"
		                                                                                     : "big-endian");
	hex(k, "flags", m.flags, 2);
	flag(k, "response", m.flags & SMCR_LLC_FLAG_RESP);
	llc_body(k, &m);
}

/* ---- CDC and RDMA WRITE ---- */

static void cursor(rp_sink *k, const char *key, const smcr_cursor *c)
{
	obj(k, key);
	u(k, "wrap", c->wrap);
	u(k, "count", c->count);
	obj_end(k);
}

static void cdc_fields(rp_sink *k, const uint8_t *p, uint32_t len)
{
	smcr_cdc_msg m;
	smcr_decode_err e;
	memset(&e, 0, sizeof(e));
	u(k, "length", len);
	if (smcr_cdc_decode(&m, p, len, &e) < 0) {
		error(k, &e);
		return;
	}
	u(k, "seqno", m.seqno);
	hex(k, "token", m.token, 8);
	cursor(k, "prod", &m.prod);
	cursor(k, "cons", &m.cons);
	hex(k, "prod_flags", m.prod_flags, 2);
	hex(k, "conn_flags", m.conn_flags, 2);
	flag(k, "write_blocked", m.prod_flags & SMCR_CDC_WRITE_BLOCKED);
	flag(k, "urgent_pending", m.prod_flags & SMCR_CDC_URG_PENDING);
	flag(k, "urgent_present", m.prod_flags & SMCR_CDC_URG_PRESENT);
	flag(k, "cons_update_requested", m.prod_flags & SMCR_CDC_CONS_UPD_REQ);
	flag(k, "failover_validation", m.prod_flags & SMCR_CDC_FAILOVER_VALIDATION);
	flag(k, "peer_done_writing", m.conn_flags & SMCR_CDC_PEER_DONE_WRITING);
	flag(k, "peer_conn_closed", m.conn_flags & SMCR_CDC_PEER_CONN_CLOSED);
	flag(k, "peer_conn_abort", m.conn_flags & SMCR_CDC_PEER_CONN_ABORT);
}

void rp_fields_of_msg(rp_sink *k, const replay_msg *m)
{
	switch (m->kind) {
	case REPLAY_MSG_CLC:
		clc_fields(k, m->data, m->len);
		break;
	case REPLAY_MSG_LLC:
		llc_fields(k, m->data, m->len);
		break;
	case REPLAY_MSG_CDC:
		cdc_fields(k, m->data, m->len);
		break;
	case REPLAY_MSG_WRITE:
		flag(k, "first", m->write_first);
		hex(k, "rkey", m->rkey, 8);
		hex(k, "va", m->va, 16);
		u(k, "length", m->wire_len);
		u(k, "captured", m->len);
		break;
	}
}
