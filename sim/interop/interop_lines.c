/* The line formats of `smcr-sim interop` (see interop_lines.h). */
#include "sim/interop/interop_lines.h"

#include <inttypes.h>
#include <string.h>

#include "sim/addr/addr_text.h"

static void interop_gid_text(const uint8_t g[16], char *out, size_t len)
{
	snprintf(out, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x", g[0], g[1], g[2],
	         g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

/* A blank-padded field without its padding, inner blanks as '_', "-" when empty. */
static void trimmed(const char *src, size_t n, char *out, size_t len)
{
	size_t k = n;
	while (k && (src[k - 1] == ' ' || src[k - 1] == 0))
		k--;
	size_t o = 0;
	for (size_t i = 0; i < k && o + 1 < len; i++)
		out[o++] = src[i] == ' ' ? '_' : src[i];
	out[o] = 0;
	if (!o)
		snprintf(out, len, "-");
}

const char *interop_mode_text(sock_mode m)
{
	return m == SOCK_MODE_SMCR ? "SMCR" : m == SOCK_MODE_FALLBACK ? "FALLBACK_TCP"
	                                                              : "TCP";
}

/* Connections ------------------------------------------------------------------------- */

/* " token=... peer_gid=..." of the connection's link; 0 bytes when the core has none. */
static size_t link_fields(char *out, size_t len, const smc_layer *l, const smc_layer_conn *lc)
{
	smcr_link_info li;
	if (!lc->has_core || !lc->core_info.link_id || smcr_ctx_link_info(smc_layer_ctx(l), lc->core_info.link_id, &li))
		return 0;
	char g[48], pg[48];
	interop_gid_text(li.local_gid, g, sizeof(g));
	interop_gid_text(li.peer_gid, pg, sizeof(pg));
	const smcr_port_desc *pd = smcr_ctx_port(smc_layer_ctx(l), li.port_index);
	return (size_t)snprintf(out, len,
	                        " token=%u peer_token=%u rmbe=%u peer_rmbe=%u link_id=%u ibdev=%s ibport=%u gid=%s "
	                        "peer_gid=%s",
	                        lc->core_info.local_token, lc->core_info.peer_token, lc->core_info.rmbe_size,
	                        lc->core_info.peer_rmbe_size, li.link_id, pd ? pd->name : "?", pd ? pd->port : 0, g, pg);
}

void interop_conn_line(char *line, size_t len, const smc_layer *l, const char *role, uint64_t k,
                       uint32_t fallback_reason, const sock *s)
{
	size_t used = 0;
	smc_layer_conn lc;
	uint32_t reason = fallback_reason, peer_diag = 0;
	bool known = smc_layer_sock_conn(l, s, &lc);
	char lip[16] = "?", pip[16] = "?";
	if (known) {
		reason = lc.fallback_reason;
		peer_diag = lc.peer_diagnosis;
		addr_text_ipv4(lc.local_ip, lip, sizeof(lip));
		addr_text_ipv4(lc.peer_ip, pip, sizeof(pip));
	}
	used += (size_t)snprintf(line + used, len - used, "conn k=%" PRIu64 " role=%s local=%s:%u peer=%s:%u mode=%s", k,
	                         role, lip, known ? lc.local_port : 0, pip, known ? lc.peer_port : 0,
	                         interop_mode_text(sock_get_mode(s)));
	if (known)
		used += link_fields(line + used, len - used, l, &lc);
	snprintf(line + used, len - used, " reason=0x%08x peer_diag=0x%08x", reason, peer_diag);
}

/* The stack and its ports ------------------------------------------------------------- */

/* The text of a port's last GID, "-" without one. */
static void last_gid(const smcr_port_desc *pd, char *out, size_t len)
{
	snprintf(out, len, "-");
	if (pd && pd->n_gids)
		interop_gid_text(pd->gids[pd->n_gids - 1].gid, out, len);
}

void interop_print_header(FILE *out, const interop_header *h, const smcr_ctx *ctx)
{
	const smcr_port_desc *pd = smcr_ctx_port(ctx, 0);
	static const uint8_t none[6];
	char gtxt[48], mac[24], port_mac[24];
	last_gid(pd, gtxt, sizeof(gtxt));
	addr_text_mac(h->mac, mac, sizeof(mac));
	addr_text_mac(pd ? pd->mac : none, port_mac, sizeof(port_mac));
	fprintf(out, "interop role=%s stack=%s mac=%s ifname=%s dev=%s port_mac=%s gid=%s conns=%u bytes=%" PRIu64 " testlink_ms=%" PRIu64 "\n", h->role, h->ip_text, mac, h->ifname, h->devs_text, port_mac, gtxt, h->conns,
	        h->bytes, h->testlink_ns / 1000000u);
	for (uint32_t i = 0; (pd = smcr_ctx_port(ctx, i)) != NULL; i++) {
		char pg[48];
		last_gid(pd, pg, sizeof(pg));
		addr_text_mac(pd->mac, port_mac, sizeof(port_mac));
		fprintf(out, "port index=%u ibdev=%s ibport=%u pnetid=%s port_mac=%s gid=%s\n", i, pd->name, pd->port,
		        pd->pnet_id[0] ? pd->pnet_id : "-", port_mac, pg);
	}
	fflush(out);
}

/* Link groups and links --------------------------------------------------------------- */

static void print_lgr(void *arg, const smcr_lgr_info *g)
{
	FILE *out = arg;
	char eid[40], host[40];
	trimmed(g->negotiated_eid, sizeof(g->negotiated_eid), eid, sizeof(eid));
	trimmed(g->peer_hostname, sizeof(g->peer_hostname), host, sizeof(host));
	fprintf(out, "lgr id=%08x role=%s type=%u vlan=%u conns=%u pnetid=%s v2_ver=%u v2_rel=%u v2_os=%u neg_eid=%s "
	             "peer_host=%s v2_direct=%u max_conns=%u max_links=%u links=%u\n",
	        g->lgr_num, g->role == SMCR_ROLE_SERVER ? "server" : "client", (unsigned)g->type, g->vlan_id, g->conns_num,
	        g->pnet_id[0] ? g->pnet_id : "-", g->version, g->peer_release, g->peer_os, eid, host,
	        g->v2_direct ? 1u : 0u, (unsigned)g->max_conns, (unsigned)g->max_links, g->n_links);
}

void interop_print_lgrs(FILE *out, const smcr_ctx *ctx) { smcr_ctx_foreach_lgr(ctx, print_lgr, out); }

/* The link groups' numbers (a link line names its group by number, as Linux does). */
typedef struct lgr_nums {
	FILE *out;
	const char *key;
	uint64_t id[16];
	uint32_t num[16];
	size_t n;
} lgr_nums;

static void note_lgr_num(void *arg, const smcr_lgr_info *g)
{
	lgr_nums *m = arg;
	if (m->n < sizeof(m->id) / sizeof(m->id[0])) {
		m->id[m->n] = g->id;
		m->num[m->n++] = g->lgr_num;
	}
}

static void print_link(void *arg, const smcr_link_info *li)
{
	const lgr_nums *m = arg;
	char g[48], pg[48];
	interop_gid_text(li->local_gid, g, sizeof(g));
	interop_gid_text(li->peer_gid, pg, sizeof(pg));
	uint32_t lgr_num = 0;
	for (size_t i = 0; i < m->n; i++)
		if (m->id[i] == li->lgr_id)
			lgr_num = m->num[i];
	fprintf(m->out, "%s lgr=%08x link_id=%u state=%u conn_cnt=%u ibdev=%s ibport=%u uid=%08x peer_uid=%08x gid=%s "
	                "peer_gid=%s qpn=%u peer_qpn=%u mtu=%u llc_out=%" PRIu64 " llc_in=%" PRIu64 "\n",
	        m->key, lgr_num, li->link_id, (unsigned)li->state, li->conn_cnt, li->ibdev, li->ibport, li->link_uid,
	        li->peer_link_uid, g, pg, li->local_qpn, li->peer_qpn, (unsigned)li->path_mtu, li->llc_out, li->llc_in);
}

void interop_print_links(FILE *out, const smcr_ctx *ctx, const char *key)
{
	lgr_nums nums = { .out = out, .key = key, .n = 0 };
	smcr_ctx_foreach_lgr(ctx, note_lgr_num, &nums);
	smcr_ctx_foreach_link(ctx, print_link, &nums);
}

static void count_lgr(void *arg, const smcr_lgr_info *g)
{
	(void)g;
	(*(size_t *)arg)++;
}

static void count_link(void *arg, const smcr_link_info *li)
{
	(void)li;
	(*(size_t *)arg)++;
}

size_t interop_count_lgrs(const smc_layer *l)
{
	size_t n = 0;
	smcr_ctx_foreach_lgr(smc_layer_ctx(l), count_lgr, &n);
	return n;
}

size_t interop_count_links(const smc_layer *l)
{
	size_t n = 0;
	smcr_ctx_foreach_link(smc_layer_ctx(l), count_link, &n);
	return n;
}

/* Counters and events ----------------------------------------------------------------- */

bool interop_print_stats(FILE *out, const char *key, const smc_layer *l, const netif_packet *pk)
{
	smcr_stats ss;
	smcr_ctx_get_stats(smc_layer_ctx(l), &ss);
	const netif_packet_counters *pc = netif_packet_counters_get(pk);
	fprintf(out, "%s decode_errors=%" PRIu64 " llc_dropped=%" PRIu64 " llc_prot_viol=%" PRIu64 " cdc_unknown_token=%" PRIu64 " link_down=%" PRIu64 " lgr_terminated=%" PRIu64 " tx_bytes=%" PRIu64 " rx_bytes=%" PRIu64 " frames_out=%" PRIu64 " frames_in=%" PRIu64 " frames_dropped=%" PRIu64 "\n",
	        key, ss.decode_errors, ss.llc_dropped, ss.llc_prot_viol, ss.cdc_unknown_token, ss.link_down_cnt,
	        ss.lgr_terminated_cnt, ss.tx_bytes, ss.rx_bytes, pc->tx_frames, pc->rx_frames, pc->tx_dropped);
	fflush(out);
	return ss.decode_errors || ss.llc_prot_viol;
}

static const char *event_name(smcr_event_type t)
{
	switch (t) {
	case SMCR_EV_LGR_CREATED: return "lgr-created";
	case SMCR_EV_LGR_TYPE: return "lgr-type";
	case SMCR_EV_LGR_TERMINATED: return "lgr-terminated";
	case SMCR_EV_LGR_FREED: return "lgr-freed";
	case SMCR_EV_LINK_ADDED: return "link-added";
	case SMCR_EV_LINK_DOWN: return "link-down";
	case SMCR_EV_LINK_REMOVED: return "link-removed";
	case SMCR_EV_ADD_LINK_REJECTED: return "add-link-rejected";
	case SMCR_EV_DECODE_ERROR: return "decode-error";
	case SMCR_EV_LLC_DROPPED: return "llc-dropped";
	case SMCR_EV_LLC_PROTOCOL_VIOLATION: return "llc-protocol-violation";
	case SMCR_EV_CONN_STATE: return "conn-state";
	}
	return "event";
}

static const char *lgr_end_name(smcr_lgr_end e)
{
	switch (e) {
	case SMCR_LGR_END_NONE: return "none";
	case SMCR_LGR_END_ABNORMAL: return "terminated";
	case SMCR_LGR_END_PEER_ABNORMAL: return "peer-terminated";
	case SMCR_LGR_END_PEER_ORDERLY: return "peer-orderly";
	case SMCR_LGR_END_IDLE: return "idle";
	}
	return "?";
}

void interop_print_event(FILE *out, uint64_t now_ns, const smcr_event *ev)
{
	fprintf(out, "event t=%.6f %s lgr=%" PRIu64 " conn=%" PRIu64, (double)now_ns / 1e9, event_name(ev->type),
	        ev->lgr_id, ev->conn_id);
	if (ev->link)
		fprintf(out, " link_id=%u", ev->link->link_id);
	if (ev->reason)
		fprintf(out, " reason=0x%08x", ev->reason);
	if (ev->type == SMCR_EV_CONN_STATE)
		fprintf(out, " state=%u", (unsigned)ev->conn_state);
	if (ev->type == SMCR_EV_LGR_TERMINATED)
		fprintf(out, " end=%s", lgr_end_name(ev->lgr_end));
	if (ev->decode_err)
		fprintf(out, " field=%s offset=%zu", ev->decode_err->field ? ev->decode_err->field : "?",
		        (size_t)ev->decode_err->offset);
	if (ev->text)
		fprintf(out, " (%s)", ev->text);
	fprintf(out, "\n");
}
