/* The report as JSON. Keys are fixed snake_case names written in a fixed order; rows come
 * in report order. Ids, tokens, codes and QP numbers are hex strings ("0x00000101") as
 * operators read them; counters are numbers. Unknown values are null. */
#include <inttypes.h>

#include "model/clc.h"
#include "sim/addr/addr_text.h"
#include "sim/report/report_print.h"
#include "sim/report/report_storage.h"

static void kv_gid(json_writer *w, const char *key, const uint8_t gid[16])
{
	char buf[64];
	report_gid_str(gid, buf, sizeof(buf));
	json_kv_str(w, key, buf);
}

static void kv_mac(json_writer *w, const char *key, const uint8_t mac[6])
{
	char buf[ADDR_TEXT_MAC_LEN];
	json_kv_str(w, key, addr_text_mac(mac, buf, sizeof(buf)));
}

static void kv_vlan(json_writer *w, const char *key, uint16_t vlan)
{
	json_key(w, key);
	if (vlan == REPORT_NO_VLAN)
		json_null(w);
	else
		json_uint(w, vlan);
}

static void kv_known_u32(json_writer *w, const char *key, uint32_t v)
{
	json_key(w, key);
	if (v == REPORT_UNKNOWN)
		json_null(w);
	else
		json_uint(w, v);
}

static void kv_id8(json_writer *w, const char *key, const uint8_t id[8])
{
	char buf[20];
	snprintf(buf, sizeof(buf), "%02x%02x%02x%02x%02x%02x%02x%02x", id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7]);
	json_kv_str(w, key, buf);
}

static void kv_cursor(json_writer *w, const char *key, report_cursor c)
{
	json_key(w, key);
	json_begin_object(w);
	json_kv_uint(w, "wrap", c.wrap);
	json_kv_uint(w, "count", c.count);
	json_end_object(w);
}

/* smc_stats beyond smc-tools' `smcr stats` (per-call payload sizes, buffer counters,
 * cork and nodelay counts, buffers in use): only where the stack's core was there to count */
static void write_stats(json_writer *w, const report_stats *st)
{
	json_key(w, "stats");
	json_begin_object(w);
	json_kv_uint(w, "client_v1_success", st->clnt_v1_succ);
	json_kv_uint(w, "client_v2_success", st->clnt_v2_succ);
	json_kv_uint(w, "server_v1_success", st->srv_v1_succ);
	json_kv_uint(w, "server_v2_success", st->srv_v2_succ);
	json_kv_uint(w, "client_handshake_errors", st->clnt_hshake_err);
	json_kv_uint(w, "server_handshake_errors", st->srv_hshake_err);
	json_kv_uint(w, "rx_bytes", st->rx_bytes);
	json_kv_uint(w, "tx_bytes", st->tx_bytes);
	json_kv_uint(w, "rx_requests", st->rx_cnt);
	json_kv_uint(w, "tx_requests", st->tx_cnt);
	const char *names[REPORT_BUF_BUCKETS] = { "8K", "16K", "32K", "64K", "128K", "256K", "512K", ">512K" };
	const uint64_t *hists[4] = { st->rx_rmb_hist, st->tx_rmb_hist, st->rx_pd, st->tx_pd };
	const char *hist_keys[4] = { "rx_buffers", "tx_buffers", "rx_requests_by_size", "tx_requests_by_size" };
	for (int k = 0; k < 4; k++) {
		json_key(w, hist_keys[k]);
		json_begin_object(w);
		for (int i = 0; i < REPORT_BUF_BUCKETS; i++)
			json_kv_uint(w, names[i], hists[k][i]);
		json_end_object(w);
	}
	json_kv_uint(w, "rx_buffer_usage", st->rx_rmbuse);
	json_kv_uint(w, "tx_buffer_usage", st->tx_rmbuse);
	json_kv_uint(w, "rx_buffer_usage_peak", st->rx_rmbuse_peak);
	json_kv_uint(w, "tx_buffer_usage_peak", st->tx_rmbuse_peak);
	json_kv_uint(w, "rx_buffer_full", st->rx_buf_full);
	json_kv_uint(w, "rx_buffer_too_small", st->rx_size_small);
	json_kv_uint(w, "tx_buffer_full", st->tx_buf_full);
	json_kv_uint(w, "tx_buffer_full_remote", st->tx_buf_full_peer);
	json_kv_uint(w, "tx_buffer_too_small", st->tx_size_small);
	json_kv_uint(w, "tx_buffer_too_small_remote", st->tx_size_small_peer);
	json_kv_uint(w, "rx_buffer_downgrades", st->rx_downgrades);
	json_kv_uint(w, "rx_buffer_reuses", st->rx_reuses);
	json_kv_uint(w, "tx_buffer_downgrades", st->tx_downgrades);
	json_kv_uint(w, "tx_buffer_reuses", st->tx_reuses);
	json_kv_uint(w, "urgent_data", st->urg_data_cnt);
	json_kv_uint(w, "cork", st->cork_cnt);
	json_kv_uint(w, "nodelay", st->ndly_cnt);
	json_key(w, "fallbacks");
	json_begin_array(w);
	for (uint32_t i = 0; i < st->n_fallbacks; i++) {
		const report_fallback *f = &st->fallbacks[i];
		json_begin_object(w);
		json_kv_hex(w, "code", f->code, 8);
		json_kv_str(w, "name", smcr_decline_name(f->code));
		json_kv_uint(w, "client", f->clnt_cnt);
		json_kv_uint(w, "server", f->srv_cnt);
		json_end_object(w);
	}
	json_end_array(w);
	json_end_object(w);
}

static void write_rnic(json_writer *w, const smcr_report *r, const report_rnic *n)
{
	json_begin_object(w);
	json_kv_uint(w, "id", n->id);
	json_kv_str(w, "name", n->name);
	if (r->from_capture)
		json_kv_bool(w, "name_made_up", n->name_made_up);
	json_kv_str(w, "netdev", n->netdev);
	json_kv_str(w, "pnetid", n->pnetid);
	kv_known_u32(w, "pfid", n->pfid);
	json_kv_hex(w, "pci_device", n->pci_device, 4);
	json_kv_uint(w, "port", n->port);
	kv_mac(w, "vmac", n->mac);
	json_key(w, "gids");
	json_begin_array(w);
	for (unsigned i = 0; i < n->n_gids; i++) {
		char buf[64];
		report_gid_str(n->gids[i], buf, sizeof(buf));
		json_string(w, buf);
	}
	json_end_array(w);
	json_kv_uint(w, "mtu", n->mtu);
	json_kv_str(w, "status", report_rnic_status_name(n->status));
	json_kv_uint(w, "bytes_in", n->bytes_in);
	json_kv_uint(w, "bytes_out", n->bytes_out);
	json_kv_uint(w, "ops_in", n->ops_in);
	json_kv_uint(w, "ops_out", n->ops_out);
	json_end_object(w);
}

static void write_link(json_writer *w, const smcr_report *r, const report_link *l)
{
	json_begin_object(w);
	json_kv_uint(w, "link_num", l->link_num);
	json_kv_hex(w, "local_link_id", l->local_link_id, 8);
	json_kv_hex(w, "remote_link_id", l->remote_link_id, 8);
	json_kv_str(w, "state", report_link_state_name(l->state));
	kv_known_u32(w, "rnic_id", l->rnic_id);
	kv_mac(w, "local_vmac", l->local_mac);
	kv_mac(w, "remote_vmac", l->remote_mac);
	kv_gid(w, "local_gid", l->local_gid);
	kv_gid(w, "remote_gid", l->remote_gid);
	json_kv_hex(w, "local_qpn", l->local_qpn, 6);
	json_kv_hex(w, "remote_qpn", l->remote_qpn, 6);
	if (r->from_capture) {
		json_kv_hex(w, "local_psn", l->local_psn, 6);
		json_kv_hex(w, "remote_psn", l->remote_psn, 6);
	}
	kv_vlan(w, "vlan", l->vlan);
	json_kv_uint(w, "mtu", l->mtu);
	json_kv_uint(w, "bytes_in", l->bytes_in);
	json_kv_uint(w, "bytes_out", l->bytes_out);
	json_kv_uint(w, "ops_in", l->ops_in);
	json_kv_uint(w, "ops_out", l->ops_out);
	json_kv_uint(w, "naks_in", l->naks_in);
	json_kv_uint(w, "naks_out", l->naks_out);
	json_kv_uint(w, "retransmits_out", l->retrans_out);
	json_kv_uint(w, "connections", l->n_conns);
	json_end_object(w);
}

static void write_lgr(json_writer *w, const smcr_report *r, const report_lgr *g)
{
	json_begin_object(w);
	json_kv_hex(w, "id", g->id, 8);
	if (r->from_capture)
		json_kv_bool(w, "id_made_up", g->id_made_up);
	json_kv_str(w, "role", report_role_short(g->role));
	json_kv_str(w, "type", report_lgr_type_name(g->type));
	json_kv_uint(w, "version", g->version);
	kv_id8(w, "peer_system_id", g->peer_system_id);
	json_kv_str(w, "peer_host", g->peer_host);
	json_kv_uint(w, "peer_stack_id", g->peer_stack_id);
	kv_vlan(w, "vlan", g->vlan);
	json_kv_str(w, "pnetid", g->pnetid);
	json_kv_uint(w, "link_count", g->n_links);
	json_kv_uint(w, "connection_count", g->n_conns);
	json_kv_uint(w, "buffer_storage", g->buf_storage);
	json_key(w, "send_buffer_storage"); /* a capture shows the peer's RMBs, never a send buffer */
	if (r->from_capture)
		json_null(w);
	else
		json_uint(w, g->sndbuf_storage);
	json_kv_uint(w, "max_links", g->max_links);
	json_kv_uint(w, "max_conns", g->max_conns);
	json_kv_uint(w, "peer_release", g->peer_release);
	json_kv_uint(w, "peer_os", g->peer_os);
	json_kv_bool(w, "v2_direct", g->v2_direct);
	json_kv_str(w, "eid", g->eid);
	json_key(w, "links");
	json_begin_array(w);
	for (size_t i = 0; i < r->n_links; i++)
		if (r->links[i].stack_id == g->stack_id && r->links[i].lgr_id == g->id)
			write_link(w, r, &r->links[i]);
	json_end_array(w);
	json_end_object(w);
}

/* What the CLC handshake of a connection carried (reports from a capture). */
static void write_conn_wire(json_writer *w, const report_conn *c)
{
	json_kv_bool(w, "first_contact", c->first_contact);
	json_kv_hex(w, "local_rkey", c->local_rkey, 8);
	json_kv_hex(w, "peer_rkey", c->peer_rkey, 8);
	json_kv_hex(w, "local_rmb_vaddr", c->local_rmb_vaddr, 16);
	json_kv_hex(w, "peer_rmb_vaddr", c->peer_rmb_vaddr, 16);
	json_key(w, "proposal_prefixes");
	json_begin_array(w);
	for (unsigned i = 0; i < c->n_prefixes && i < REPORT_MAX_PREFIXES; i++) {
		char ip[64], buf[80];
		report_ip_str(c->prefixes[i].family, c->prefixes[i].addr, ip, sizeof(ip));
		snprintf(buf, sizeof(buf), "%s/%u", ip, c->prefixes[i].len);
		json_string(w, buf);
	}
	json_end_array(w);
}

static void write_conn(json_writer *w, const smcr_report *r, const report_conn *c)
{
	char buf[64];
	json_begin_object(w);
	json_kv_uint(w, "id", c->id);
	report_ip_str(c->family, c->local_ip, buf, sizeof(buf));
	json_kv_str(w, "local_ip", buf);
	json_kv_uint(w, "local_port", c->local_port);
	report_ip_str(c->family, c->peer_ip, buf, sizeof(buf));
	json_kv_str(w, "peer_ip", buf);
	json_kv_uint(w, "peer_port", c->peer_port);
	json_kv_str(w, "state", report_conn_state_name(c->state));
	json_kv_str(w, "mode", report_conn_mode_name(c->mode));
	json_kv_str(w, "role", report_role_short(c->role));
	json_kv_uint(w, "smc_version", c->smc_version);
	json_kv_hex(w, "fallback_reason", c->fallback_reason, 8);
	json_kv_hex(w, "peer_diagnosis", c->peer_diagnosis, 8);
	json_key(w, "lgr_id");
	if (c->lgr_id == REPORT_UNKNOWN) {
		json_null(w);
	} else {
		snprintf(buf, sizeof(buf), "0x%08" PRIx32, c->lgr_id);
		json_string(w, buf);
	}
	json_kv_uint(w, "link_num", c->link_num);
	json_kv_hex(w, "link_id", c->link_id, 8);
	kv_gid(w, "local_gid", c->local_gid);
	kv_gid(w, "peer_gid", c->peer_gid);
	json_kv_hex(w, "local_token", c->local_token, 8);
	json_kv_hex(w, "peer_token", c->peer_token, 8);
	json_kv_uint(w, "rmbe_size", c->rmbe_size);
	json_kv_uint(w, "peer_rmbe_size", c->peer_rmbe_size);
	json_kv_uint(w, "sndbuf_size", c->sndbuf_size);
	kv_cursor(w, "rx_prod", c->rx_prod);
	kv_cursor(w, "rx_cons", c->rx_cons);
	kv_cursor(w, "tx_prod", c->tx_prod);
	kv_cursor(w, "tx_cons", c->tx_cons);
	json_kv_hex(w, "rx_flags", (uint64_t)c->rx_prod_flags << 8 | c->rx_conn_flags, 4);
	json_kv_hex(w, "tx_flags", (uint64_t)c->tx_prod_flags << 8 | c->tx_conn_flags, 4);
	json_kv_uint(w, "bytes_sent", c->bytes_sent);
	json_kv_uint(w, "bytes_received", c->bytes_received);
	json_kv_uint(w, "rdma_bytes_out", c->rdma_bytes_out);
	json_kv_uint(w, "rdma_bytes_in", c->rdma_bytes_in);
	json_kv_uint(w, "cdc_out", c->cdc_out);
	json_kv_uint(w, "cdc_in", c->cdc_in);
	if (r->from_capture)
		write_conn_wire(w, c);
	json_end_object(w);
}

static void write_event(json_writer *w, const report_event *e)
{
	json_begin_object(w);
	json_kv_uint(w, "time_ns", e->time_ns);
	json_kv_uint(w, "frame", e->frame);
	json_kv_uint(w, "stack_id", e->stack_id);
	json_kv_str(w, "kind", report_event_kind_name(e->kind));
	json_kv_hex(w, "code", e->code, 8);
	json_kv_str(w, "cause", e->cause);
	json_kv_str(w, "interface", e->intf);
	json_key(w, "lgr_id");
	if (e->lgr_id == REPORT_UNKNOWN) {
		json_null(w);
	} else {
		char buf[16];
		snprintf(buf, sizeof(buf), "0x%08" PRIx32, e->lgr_id);
		json_string(w, buf);
	}
	json_kv_uint(w, "link_num", e->link_num);
	json_kv_hex(w, "local_link_id", e->local_link_id, 8);
	json_kv_hex(w, "remote_link_id", e->remote_link_id, 8);
	kv_mac(w, "local_vmac", e->local_mac);
	kv_mac(w, "remote_vmac", e->remote_mac);
	kv_gid(w, "local_gid", e->local_gid);
	kv_gid(w, "remote_gid", e->remote_gid);
	json_kv_hex(w, "local_qpn", e->local_qpn, 6);
	json_kv_hex(w, "remote_qpn", e->remote_qpn, 6);
	kv_vlan(w, "vlan", e->vlan);
	json_end_object(w);
}

void report_write_json(json_writer *w, const smcr_report *r)
{
	json_key(w, "stacks");
	json_begin_array(w);
	for (size_t si = 0; si < r->n_stacks; si++) {
		const report_stack *s = &r->stacks[si];
		char ip[64];
		json_begin_object(w);
		json_kv_uint(w, "id", s->id);
		json_kv_str(w, "name", s->name);
		json_kv_str(w, "os", report_os_name(s->os));
		kv_id8(w, "system_id", s->system_id);
		report_ip_str(s->family, s->ip, ip, sizeof(ip));
		json_kv_str(w, "ip", s->family ? ip : NULL);
		json_kv_str(w, "hostname", s->hostname);
		json_kv_bool(w, "smcr_v2", s->smcr_v2);
		json_kv_uint(w, "smc_release", s->smc_release);
		write_stats(w, &s->stats);
		report_write_storage_json(w, s);
		json_key(w, "fixed_memory");
		if (s->fixed.known) {
			json_begin_object(w);
			json_kv_uint(w, "in_use", s->fixed.in_use);
			json_key(w, "limit");
			if (s->fixed.limit)
				json_uint(w, s->fixed.limit);
			else
				json_null(w);
			json_kv_uint(w, "declined", s->fixed.declined);
			json_end_object(w);
		} else {
			json_null(w);
		}
		json_key(w, "rnics");
		json_begin_array(w);
		for (size_t i = 0; i < r->n_rnics; i++)
			if (r->rnics[i].stack_id == s->id)
				write_rnic(w, r, &r->rnics[i]);
		json_end_array(w);
		json_key(w, "link_groups");
		json_begin_array(w);
		for (size_t i = 0; i < r->n_lgrs; i++)
			if (r->lgrs[i].stack_id == s->id)
				write_lgr(w, r, &r->lgrs[i]);
		json_end_array(w);
		json_key(w, "connections");
		json_begin_array(w);
		for (size_t i = 0; i < r->n_conns; i++)
			if (r->conns[i].stack_id == s->id)
				write_conn(w, r, &r->conns[i]);
		json_end_array(w);
		json_end_object(w);
	}
	json_end_array(w);
	json_key(w, "events");
	json_begin_array(w);
	for (size_t i = 0; i < r->n_events; i++)
		write_event(w, &r->events[i]);
	json_end_array(w);
}

void report_print_json(FILE *out, const smcr_report *r, report_json_extra_fn extra, void *ctx)
{
	json_writer w;
	json_init(&w, out, true);
	json_begin_object(&w);
	json_kv_str(&w, "format", "smcr-report");
	json_kv_uint(&w, "version", 1);
	if (r->from_capture)
		json_kv_str(&w, "source", "capture");
	report_write_json(&w, r);
	if (extra)
		extra(&w, ctx);
	json_end_object(&w);
	json_finish(&w);
}
