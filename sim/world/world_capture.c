/* The world's captures (`--pcap`, `--pcap-per-stack`): where the taps sit, which frames go
 * into which file under which interface, and the packet comments on RoCE frames.
 *
 * Whole fabric (one file, one interface block per tap point):
 *   "SW/STACK.IF", "SW/ADAPTER.pN"  the switch end of every access wire (a stack interface,
 *                                   an adapter port); taps=ingress (default): frames the
 *                                   endpoint sent, as its switch port receives them, so every
 *                                   frame that enters the fabric is there once; taps=both:
 *                                   also the frames the switch port sends to the endpoint,
 *                                   so a frame appears once per access port it crosses;
 *   "ADAPTER.pN/eswitch"            frames between two VFs of one adapter port, turned
 *                                   around inside the adapter (they never reach a switch).
 * Frames a wire lost before the switch are not in the whole-fabric file; a router stack's
 * forwarded frames are (once as they come in, once as the router sends them on).
 *
 * Per stack (DIR/STACK.pcapng): the stack's interfaces and the ports where it has a VF,
 * both directions, at the endpoint end of the access wire (what the stack sent, and what
 * reached it); frames to or from other stacks' VFs on a shared adapter port and floods
 * for other MACs are left out, as the NIC's receive filter leaves them out; turnaround
 * frames appear on the VF's port.
 *
 * Packet comments (pcapng): every RoCE frame whose destination QP belongs to a link of a
 * simulated stack gets "SMC-R <message>; link <n>: <sender> (lgr <id>, LnkId <id>) ->
 * <receiver> (lgr <id>, LnkId <id>)" (link groups and 4-byte link ids as each stack's
 * reports print them), from the cores' introspection at the time of the frame. */
#include "sim/world/world_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/llc.h"
#include "model/byteorder.h"
#include "sim/fabric/capture_file.h"
#include "sim/fabric/endpoint.h"
#include "sim/replay/replay_frame.h"
#include "sim/addr/addr_text.h"

#define DIR_IN (1u << SIM_TAP_IN)
#define DIR_OUT (1u << SIM_TAP_OUT)

/* One file an observation point writes to, under one interface, with its filter. */
typedef struct cap_sink {
	capture_file *file;
	uint32_t ifc;
	uint8_t dirs;   /* DIR_IN / DIR_OUT of the plug */
	uint64_t *macs; /* keep frames from or to these MACs (and broadcasts); none: all */
	size_t n_macs;
} cap_sink;

/* An observation point: a plug's tap or an adapter port's turnaround. */
typedef struct cap_point {
	world_capture *c;
	cap_sink *sinks;
	size_t n_sinks;
} cap_point;

/* An adapter: its turnaround points per port. */
typedef struct cap_adapter {
	rnic *r;
	cap_point *loop[RNIC_MAX_PORTS];
} cap_adapter;

/* A link as the comments name it, keyed by the GID and QPN that receive its frames. */
typedef struct cap_link {
	uint8_t gid[16];
	uint32_t qpn;
	uint8_t peer_gid[16];
	uint32_t peer_qpn;
	uint32_t stack; /* scenario index */
	uint32_t lgr_num;
	uint8_t link_num;
	uint32_t link_uid;
} cap_link;

struct world_capture {
	world *w;
	capture_file *fabric;
	capture_file **stack_files; /* per scenario stack, NULL if none */
	cap_point **points;         /* every point, for freeing */
	size_t n_points, cap_points;
	cap_adapter *adapters; /* per scenario adapter */
	GHashTable *links;     /* (gid, qpn) key -> cap_link row + 1 */
	GHashTable *by_peer;   /* (peer gid, peer qpn) key -> cap_link row + 1 */
	cap_link *link_rows;
	size_t n_link_rows, cap_link_rows;
	bool links_dirty;
	sim_time links_built_at;
	bool links_built;
	char comment[512];
	bool size_told; /* the large-capture warning was given */
};

/* ---- links of the simulated stacks, for comments ---- */

typedef struct lgr_num_entry {
	uint64_t id;
	uint32_t num;
} lgr_num_entry;

typedef struct link_walk {
	world_capture *c;
	uint32_t stack;
	lgr_num_entry *lgrs;
	size_t n_lgrs, cap_lgrs;
} link_walk;

static void walk_lgr(void *arg, const smcr_lgr_info *li)
{
	link_walk *lw = arg;
	if (lw->n_lgrs == lw->cap_lgrs) {
		lw->cap_lgrs = lw->cap_lgrs ? lw->cap_lgrs * 2 : 16;
		lw->lgrs = realloc(lw->lgrs, lw->cap_lgrs * sizeof(*lw->lgrs));
		if (!lw->lgrs)
			abort();
	}
	lw->lgrs[lw->n_lgrs++] = (lgr_num_entry){ li->id, li->lgr_num };
}

static void walk_link(void *arg, const smcr_link_info *li)
{
	link_walk *lw = arg;
	world_capture *c = lw->c;
	if (!li->local_qpn)
		return;
	if (c->n_link_rows == c->cap_link_rows) {
		c->cap_link_rows = c->cap_link_rows ? c->cap_link_rows * 2 : 64;
		c->link_rows = realloc(c->link_rows, c->cap_link_rows * sizeof(*c->link_rows));
		if (!c->link_rows)
			abort();
	}
	cap_link *k = &c->link_rows[c->n_link_rows++];
	memset(k, 0, sizeof(*k));
	memcpy(k->gid, li->local_gid, 16);
	k->qpn = li->local_qpn;
	memcpy(k->peer_gid, li->peer_gid, 16);
	k->peer_qpn = li->peer_qpn;
	k->stack = lw->stack;
	k->link_num = li->link_id;
	k->link_uid = li->link_uid;
	for (size_t i = 0; i < lw->n_lgrs; i++)
		if (lw->lgrs[i].id == li->lgr_id)
			k->lgr_num = lw->lgrs[i].num;
}

/* The key: a hash of (GID, QPN) into 64 bits; rows with the same key are told apart by
 * comparing both, so collisions only cost a look. */
static uint64_t link_key(const uint8_t gid[16], uint32_t qpn)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (int i = 0; i < 16; i++)
		h = (h ^ gid[i]) * 0x100000001b3ull;
	return (h ^ qpn) * 0x100000001b3ull;
}

static void index_row(GHashTable *h, uint64_t k, size_t row)
{
	if (g_hash_table_contains(h, &k))
		return;
	uint64_t *key = malloc(sizeof(*key));
	if (!key)
		abort();
	*key = k;
	g_hash_table_insert(h, key, (gpointer)(uintptr_t)(row + 1));
}

static void links_rebuild(world_capture *c, sim_time at)
{
	world *w = c->w;
	c->n_link_rows = 0;
	g_hash_table_remove_all(c->links);
	for (size_t i = 0; i < w->scn->n_stacks; i++) {
		if (!w->st[i].l)
			continue;
		smcr_ctx *ctx = smc_layer_ctx(w->st[i].l);
		link_walk lw = { .c = c, .stack = (uint32_t)i };
		smcr_ctx_foreach_lgr(ctx, walk_lgr, &lw);
		smcr_ctx_foreach_link(ctx, walk_link, &lw);
		free(lw.lgrs);
	}
	/* rows move while they are collected: index them afterwards (first row wins) */
	g_hash_table_remove_all(c->by_peer);
	for (size_t i = 0; i < c->n_link_rows; i++) {
		index_row(c->links, link_key(c->link_rows[i].gid, c->link_rows[i].qpn), i);
		if (c->link_rows[i].peer_qpn)
			index_row(c->by_peer, link_key(c->link_rows[i].peer_gid, c->link_rows[i].peer_qpn), i);
	}
	c->links_dirty = false;
	c->links_built = true;
	c->links_built_at = at;
}

static const cap_link *link_find(world_capture *c, const uint8_t gid[16], uint32_t qpn)
{
	uint64_t key = link_key(gid, qpn);
	gpointer v = g_hash_table_lookup(c->links, &key);
	if (!v)
		return NULL;
	const cap_link *k = &c->link_rows[(uintptr_t)v - 1];
	if (k->qpn != qpn || memcmp(k->gid, gid, 16))
		return NULL;
	return k;
}

/* The sender of a frame to (gid, qpn): the link whose peer that is, or the peer the
 * receiving link names (either side may not know the other's QP yet). */
static const cap_link *link_sender(world_capture *c, const cap_link *to, const uint8_t gid[16], uint32_t qpn)
{
	uint64_t key = link_key(gid, qpn);
	gpointer v = g_hash_table_lookup(c->by_peer, &key);
	if (v) {
		const cap_link *k = &c->link_rows[(uintptr_t)v - 1];
		if (k->peer_qpn == qpn && !memcmp(k->peer_gid, gid, 16))
			return k;
	}
	return to->peer_qpn ? link_find(c, to->peer_gid, to->peer_qpn) : NULL;
}

/* The link that receives frames for (gid, qpn), rebuilding the table when links changed
 * or when it does not know the pair yet (a link the cores created since; once per
 * instant, so frames for vanished QPs cost little). */
static const cap_link *link_lookup(world_capture *c, sim_time at, const uint8_t gid[16], uint32_t qpn)
{
	if (c->links_dirty || !c->links_built)
		links_rebuild(c, at);
	const cap_link *k = link_find(c, gid, qpn);
	if (!k && c->links_built_at != at) {
		links_rebuild(c, at);
		k = link_find(c, gid, qpn);
	}
	return k;
}

void world_capture_links_changed(world *w)
{
	if (w->cap)
		w->cap->links_dirty = true;
}

/* ---- comments ---- */

static void describe_message(char *out, size_t n, const rp_bth *b)
{
	uint8_t op = b->opcode;
	if (rp_opcode_is_send(op) && (op == RP_OP_SEND_ONLY || op == RP_OP_SEND_FIRST || op == RP_OP_SEND_ONLY_IMM || op == RP_OP_SEND_ONLY_INV) &&
	    b->payload_caplen >= 1) {
		uint8_t t = b->payload[0];
		if (t == SMCR_CDC_TYPE) {
			if (b->payload_caplen >= 44) {
				const uint8_t *p = b->payload;
				snprintf(out, n, "CDC seq %u token 0x%08" PRIx32 " prod %u:%" PRIu32 " cons %u:%" PRIu32 " flags 0x%02x/0x%02x",
				         get_be16(p + 2), get_be32(p + 4), get_be16(p + 10), get_be32(p + 12), get_be16(p + 18),
				         get_be32(p + 20), p[24], p[25]);
			} else {
				snprintf(out, n, "CDC");
			}
			return;
		}
		bool v2 = (t & 0xF0) == 0x20;
		bool resp = b->payload_caplen >= 4 && (b->payload[3] & SMCR_LLC_FLAG_RESP);
		snprintf(out, n, "LLC %s%s %s", smcr_llc_type_name(t), v2 ? " (v2)" : "", resp ? "response" : "request");
		return;
	}
	if (rp_opcode_is_write(op)) {
		snprintf(out, n, "%s %" PRIu32 " bytes", rp_opcode_name(op), b->payload_len);
		return;
	}
	if (b->has_aeth) {
		uint8_t kind = (uint8_t)((b->syndrome >> 5) & 3u);
		snprintf(out, n, "%s PSN 0x%06" PRIx32, kind == RP_AETH_ACK ? "ACK" : kind == RP_AETH_RNR_NAK ? "RNR NAK"
		                                                                                              : "NAK",
		         b->psn);
		return;
	}
	snprintf(out, n, "%s", rp_opcode_name(op));
}

/* The comment of a frame, or NULL: RoCE frames for a link of a simulated stack. */
static const char *frame_comment(world_capture *c, sim_time at, const sim_frame *f)
{
	rp_frame fr;
	char why[96];
	if (rp_frame_parse(&fr, f->data, f->len, f->len, why, sizeof(why)) != RP_FRAME_ROCE)
		return NULL;
	rp_bth b;
	if (rp_bth_parse(&b, fr.ib, fr.ib_caplen, fr.ib_len, why, sizeof(why)) != RP_FRAME_ROCE)
		return NULL;
	const cap_link *to = link_lookup(c, at, fr.dgid, b.dest_qp);
	if (!to)
		return NULL;
	char msg[128];
	describe_message(msg, sizeof(msg), &b);
	const world *w = c->w;
	const cap_link *from = link_sender(c, to, fr.dgid, b.dest_qp);
	if (!from && c->links_built_at != at) {
		links_rebuild(c, at);
		to = link_find(c, fr.dgid, b.dest_qp);
		if (!to)
			return NULL;
		from = link_sender(c, to, fr.dgid, b.dest_qp);
	}
	char sender[96] = "?";
	if (from)
		snprintf(sender, sizeof(sender), "%s (lgr %08" PRIX32 ", LnkId %08" PRIX32 ")", w->st[from->stack].st->name,
		         from->lgr_num, from->link_uid);
	snprintf(c->comment, sizeof(c->comment), "SMC-R %s; link %u: %s -> %s (lgr %08" PRIX32 ", LnkId %08" PRIX32 ")",
	         msg, (unsigned)to->link_num, sender, w->st[to->stack].st->name, to->lgr_num, to->link_uid);
	return c->comment;
}

/* ---- observation points ---- */

static bool sink_keeps(const cap_sink *s, sim_tap_dir dir, const sim_frame *f)
{
	if (!(s->dirs & (1u << dir)))
		return false;
	if (!s->n_macs)
		return true;
	if (f->len < SIM_ETH_HLEN)
		return false;
	if (sim_mac_is_multicast(f->data))
		return true;
	uint64_t dst = sim_mac_key(f->data), src = sim_mac_key(f->data + 6);
	for (size_t i = 0; i < s->n_macs; i++)
		if (s->macs[i] == dst || s->macs[i] == src)
			return true;
	return false;
}

/* A capture of hundreds of megabytes should not come as a surprise: once the files pass
 * the size, one line says so, how large they will be at the end at this pace, and what
 * keeps them small. */
static void check_size(world_capture *c, sim_time at)
{
	world *w = c->w;
	if (c->size_told || !w->o.pcap_warn_bytes || !w->o.warnings)
		return;
	uint64_t bytes = c->fabric ? capture_file_bytes(c->fabric) : 0;
	for (size_t i = 0; i < w->scn->n_stacks; i++)
		if (c->stack_files[i])
			bytes += capture_file_bytes(c->stack_files[i]);
	if (bytes < w->o.pcap_warn_bytes)
		return;
	c->size_told = true;
	const char *what = w->o.pcap_path ? w->o.pcap_path : w->o.pcap_stack_dir;
	char end[96] = "";
	if (w->has_end && at > 0 && w->end_ns > at)
		snprintf(end, sizeof(end), ", about %" PRIu64 " MiB by the end at %" PRIu64 ".%03" PRIu64 " s at this pace",
		         (uint64_t)((double)bytes * ((double)w->end_ns / (double)at)) >> 20, (uint64_t)(w->end_ns / SIM_S),
		         (uint64_t)(w->end_ns % SIM_S / SIM_MS));
	fprintf(w->o.warnings,
	        "smcr-sim: the capture %s has passed %" PRIu64 " MiB at virtual time %" PRIu64 ".%03" PRIu64 " s%s; "
	        "%s--end shortens the run\n",
	        strcmp(what, "-") ? what : "(standard output)", bytes >> 20, (uint64_t)(at / SIM_S),
	        (uint64_t)(at % SIM_S / SIM_MS), end,
	        w->o.pcap_snaplen ? "" : "--pcap-snaplen 256 keeps the headers and the SMC-R control messages and cuts the "
	                                 "RDMA WRITE payloads (replay reads such captures); ");
}

static void point_see(cap_point *pt, sim_tap_dir dir, sim_time at, const sim_frame *f)
{
	world_capture *c = pt->c;
	const char *comment = NULL;
	bool commented = false;
	for (size_t i = 0; i < pt->n_sinks; i++) {
		cap_sink *s = &pt->sinks[i];
		if (!sink_keeps(s, dir, f))
			continue;
		if (!commented && capture_file_format(s->file) == CAPTURE_PCAPNG) {
			comment = frame_comment(c, at, f);
			commented = true;
		}
		capture_file_write(s->file, s->ifc, at, f->data, f->len, comment);
	}
	check_size(c, at);
}

static void plug_tap(void *ctx, const sim_plug *plug, sim_tap_dir dir, sim_time at, const sim_frame *f)
{
	(void)plug;
	point_see(ctx, dir, at, f);
}

/* A turnaround inside an adapter: the frame leaves a VF and enters another on that port. */
static void loop_tap(void *ctx, const sim_plug *plug, sim_tap_dir dir, sim_time at, const sim_frame *f)
{
	cap_adapter *a = ctx;
	(void)dir;
	for (uint8_t p = 0; p < rnic_nports(a->r); p++)
		if (&rnic_port_endpoint(a->r, (uint8_t)(p + 1))->plug == plug && a->loop[p]) {
			/* for per-stack sinks it is both sent and received: one copy per file */
			point_see(a->loop[p], SIM_TAP_OUT, at, f);
			return;
		}
}

static cap_point *point_new(world_capture *c)
{
	cap_point *pt = calloc(1, sizeof(*pt));
	if (!pt)
		abort();
	pt->c = c;
	if (c->n_points == c->cap_points) {
		c->cap_points = c->cap_points ? c->cap_points * 2 : 32;
		c->points = realloc(c->points, c->cap_points * sizeof(*c->points));
		if (!c->points)
			abort();
	}
	c->points[c->n_points++] = pt;
	return pt;
}

static cap_sink *point_add(cap_point *pt, capture_file *file, uint32_t ifc, uint8_t dirs)
{
	pt->sinks = realloc(pt->sinks, (pt->n_sinks + 1) * sizeof(*pt->sinks));
	if (!pt->sinks)
		abort();
	cap_sink *s = &pt->sinks[pt->n_sinks++];
	memset(s, 0, sizeof(*s));
	s->file = file;
	s->ifc = ifc;
	s->dirs = dirs;
	return s;
}

static void sink_add_mac(cap_sink *s, const uint8_t *mac)
{
	s->macs = realloc(s->macs, (s->n_macs + 1) * sizeof(*s->macs));
	if (!s->macs)
		abort();
	s->macs[s->n_macs++] = sim_mac_key(mac);
}

/* The point of a plug (created with the plug's tap on first use). */
static cap_point *plug_point(world_capture *c, sim_plug *plug)
{
	if (plug->tap == plug_tap)
		return plug->tap_ctx;
	cap_point *pt = point_new(c);
	sim_plug_set_tap(plug, plug_tap, pt);
	return pt;
}

static cap_point *loop_point(world_capture *c, size_t adapter, uint8_t port)
{
	cap_adapter *a = &c->adapters[adapter];
	if (!a->loop[port - 1]) {
		a->loop[port - 1] = point_new(c);
		rnic_set_loop_tap(a->r, loop_tap, a);
	}
	return a->loop[port - 1];
}

/* ---- files ---- */

static void attach_fabric(world_capture *c)
{
	world *w = c->w;
	const scn_scenario *s = w->scn;
	uint8_t dirs = w->o.pcap_taps == WORLD_TAPS_BOTH ? (DIR_IN | DIR_OUT) : DIR_OUT;
	const char *what = w->o.pcap_taps == WORLD_TAPS_BOTH ? "frames to and from" : "frames sent by";
	char name[128], descr[256];
	for (size_t i = 0; i < s->n_stacks; i++)
		for (size_t k = 0; k < w->st[i].n_ifs; k++) {
			world_iface *wi = &w->st[i].ifs[k];
			const char *sw = sim_switch_name(wi->sw), *wn = sim_wire_name(wi->wire);
			snprintf(name, sizeof(name), "%s/%s", sw, wn);
			snprintf(descr, sizeof(descr), "%s interface %s of stack %s, at port %" PRIu32 " of switch %s", what,
			         s->stacks[i].ifaces[k].name, s->stacks[i].name, wi->sw_port + 1, sw);
			uint32_t ifc = capture_file_add_interface(c->fabric, name, descr);
			point_add(plug_point(c, sim_wire_end(wi->wire, 1)), c->fabric, ifc, dirs);
		}
	for (size_t i = 0; i < s->n_adapters; i++)
		for (uint8_t p = 0; p < s->adapters[i].n_ports; p++) {
			world_adapter *wa = &w->ad[i];
			const char *sw = sim_switch_name(wa->sw[p]), *wn = sim_wire_name(wa->wire[p]);
			snprintf(name, sizeof(name), "%s/%s", sw, wn);
			snprintf(descr, sizeof(descr), "%s port %u of RoCE adapter %s (PFID %04X), at port %" PRIu32 " of switch %s",
			         what, (unsigned)(p + 1), s->adapters[i].name, (unsigned)s->adapters[i].pfid, wa->sw_port[p] + 1, sw);
			uint32_t ifc = capture_file_add_interface(c->fabric, name, descr);
			point_add(plug_point(c, sim_wire_end(wa->wire[p], 1)), c->fabric, ifc, dirs);
			snprintf(name, sizeof(name), "%s/eswitch", wn);
			snprintf(descr, sizeof(descr),
			         "frames between VFs of port %u of RoCE adapter %s, turned around inside the adapter",
			         (unsigned)(p + 1), s->adapters[i].name);
			ifc = capture_file_add_interface(c->fabric, name, descr);
			point_add(loop_point(c, i, (uint8_t)(p + 1)), c->fabric, ifc, DIR_OUT);
		}
}

static void attach_spare(world_capture *c)
{
	world *w = c->w;
	if (!w->spare_sw)
		return;
	char name[96], descr[160];
	const char *sw = sim_switch_name(w->spare_sw);
	snprintf(name, sizeof(name), "%s/replay", sw);
	snprintf(descr, sizeof(descr), "frames injected by the replay, and frames switch %s sends to it (port %" PRIu32 ")",
	         sw, w->spare_port + 1);
	uint32_t ifc = capture_file_add_interface(c->fabric, name, descr);
	point_add(plug_point(c, sim_switch_port(w->spare_sw, w->spare_port)), c->fabric, ifc, DIR_IN | DIR_OUT);
}

static int attach_stack(world_capture *c, size_t i, const char *dir, char *err, size_t errlen)
{
	world *w = c->w;
	const scn_scenario *s = w->scn;
	const scn_stack *ss = &s->stacks[i];
	world_host *ws = &w->st[i];
	char path[4096], name[128], descr[256];
	snprintf(path, sizeof(path), "%s/%s.%s", dir, ss->name, capture_format_name(w->o.pcap_format));
	capture_file *f = capture_file_open(path, w->o.pcap_format, w->o.pcap_snaplen, err, errlen);
	if (!f)
		return -1;
	c->stack_files[i] = f;
	for (size_t k = 0; k < ws->n_ifs; k++) {
		world_iface *wi = &ws->ifs[k];
		snprintf(name, sizeof(name), "%s", sim_wire_name(wi->wire));
		char ip[ADDR_TEXT_IPV4_LEN];
		snprintf(descr, sizeof(descr), "interface %s of stack %s (%s/%u), both directions", ss->ifaces[k].name,
		         ss->name, addr_text_ipv4(ss->ifaces[k].ip, ip, sizeof(ip)), (unsigned)ss->ifaces[k].prefix_len);
		uint32_t ifc = capture_file_add_interface(f, name, descr);
		/* at the endpoint end: IN = the interface sends, OUT = the wire delivers to it */
		cap_sink *sk = point_add(plug_point(c, sim_wire_end(wi->wire, 0)), f, ifc, DIR_IN | DIR_OUT);
		sink_add_mac(sk, wi->nif->mac);
	}
	for (size_t k = 0; ws->l && k < smc_layer_n_ports(ws->l); k++) {
		const smc_layer_port *lp = smc_layer_port_get(ws->l, k);
		size_t a = 0;
		while (a < s->n_adapters && w->ad[a].r != lp->adapter)
			a++;
		if (a == s->n_adapters)
			continue;
		const uint8_t *vmac = rnic_vf_vmac(lp->vf, lp->port);
		char vmac_text[ADDR_TEXT_MAC_LEN];
		snprintf(name, sizeof(name), "%s", sim_wire_name(w->ad[a].wire[lp->port - 1]));
		snprintf(descr, sizeof(descr),
		         "RoCE port %u of adapter %s, VF %" PRIu32 " of stack %s (VMAC %s), both directions, turnarounds included",
		         (unsigned)lp->port, s->adapters[a].name, rnic_vf_number(lp->vf), ss->name,
		         addr_text_mac(vmac, vmac_text, sizeof(vmac_text)));
		uint32_t ifc = capture_file_add_interface(f, name, descr);
		cap_sink *sk = point_add(plug_point(c, sim_wire_end(w->ad[a].wire[lp->port - 1], 0)), f, ifc, DIR_IN | DIR_OUT);
		sink_add_mac(sk, vmac);
		sk = point_add(loop_point(c, a, lp->port), f, ifc, DIR_OUT);
		sink_add_mac(sk, vmac);
	}
	return 0;
}

int world_capture_open(world *w, char *err, size_t errlen)
{
	if (!w->o.pcap_path && !w->o.pcap_stack_dir)
		return 0;
	world_capture *c = calloc(1, sizeof(*c));
	if (!c)
		abort();
	w->cap = c;
	c->w = w;
	c->links = g_hash_table_new_full(g_int64_hash, g_int64_equal, free, NULL);
	c->by_peer = g_hash_table_new_full(g_int64_hash, g_int64_equal, free, NULL);
	c->adapters = calloc(w->scn->n_adapters ? w->scn->n_adapters : 1, sizeof(*c->adapters));
	for (size_t i = 0; i < w->scn->n_adapters; i++)
		c->adapters[i].r = w->ad[i].r;
	c->stack_files = calloc(w->scn->n_stacks ? w->scn->n_stacks : 1, sizeof(*c->stack_files));
	if (w->o.pcap_path) {
		c->fabric = capture_file_open(w->o.pcap_path, w->o.pcap_format, w->o.pcap_snaplen, err, errlen);
		if (!c->fabric)
			return -1;
		attach_fabric(c);
		attach_spare(c);
	}
	if (w->o.pcap_stack_dir) {
		if (g_mkdir_with_parents(w->o.pcap_stack_dir, 0777)) {
			snprintf(err, errlen, "%s: %s", w->o.pcap_stack_dir, strerror(errno));
			return -1;
		}
		for (size_t i = 0; i < w->scn->n_stacks; i++)
			if (attach_stack(c, i, w->o.pcap_stack_dir, err, errlen))
				return -1;
	}
	return 0;
}

/* Taps are left in place: the fabric is gone by now (world_free), nothing sends. */
int world_capture_close(world *w)
{
	world_capture *c = w->cap;
	if (!c)
		return 0;
	if (c->size_told) { /* the warning's estimate, made good */
		uint64_t bytes = c->fabric ? capture_file_bytes(c->fabric) : 0;
		for (size_t i = 0; i < w->scn->n_stacks; i++)
			if (c->stack_files[i])
				bytes += capture_file_bytes(c->stack_files[i]);
		const char *what = w->o.pcap_path ? w->o.pcap_path : w->o.pcap_stack_dir;
		fprintf(w->o.warnings, "smcr-sim: the capture %s: %" PRIu64 " MiB in all\n",
		        strcmp(what, "-") ? what : "(standard output)", bytes >> 20);
	}
	int rc = capture_file_close(c->fabric);
	for (size_t i = 0; i < w->scn->n_stacks; i++)
		if (capture_file_close(c->stack_files[i]))
			rc = -1;
	for (size_t i = 0; i < c->n_points; i++) {
		for (size_t k = 0; k < c->points[i]->n_sinks; k++)
			free(c->points[i]->sinks[k].macs);
		free(c->points[i]->sinks);
		free(c->points[i]);
	}
	free(c->points);
	free(c->adapters);
	free(c->stack_files);
	free(c->link_rows);
	g_hash_table_destroy(c->links);
	g_hash_table_destroy(c->by_peer);
	free(c);
	w->cap = NULL;
	return rc;
}
