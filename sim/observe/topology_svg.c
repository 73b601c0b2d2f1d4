/* The topology picture (topology_svg.h).
 *
 * Laid out so that it reads: no text lies on a line or on another text, nothing past the
 * edges (tests/support/svg-layout checks it in Chromium). Stacks on top, their IP
 * interfaces listed inside their boxes; adapters a row below, half a column aside, so
 * that each stack's interface lines drop between the adapters; under the adapters a
 * corridor where the interface lines run to their switches, each on its own lane, and
 * the adapters' access wires and the run's SMC-R links (arcs between adapter ports) cross
 * it; switches at the bottom with the wires between them as arcs under the row. Names of
 * the links and wires are listed below the picture, each with its colour. */
#include "sim/observe/topology_svg.h"

#include <glib.h>
#include <string.h>

#include "sim/addr/addr_text.h"
#include "sim/observe/svg.h"

#define MARGIN 30.0
#define BOX_W 160.0
#define STACK_Y 70.0
#define ROW_GAP 60.0
#define ADAPTER_H 44.0
#define SWITCH_H 40.0
#define LANE 6.0     /* between two interface lines in the corridor */
#define IF_LINE 11.0 /* between two interface labels in a stack box */
#define IF_SHOWN 6   /* interfaces listed per stack box; more are counted */
#define LEGEND_LINE 14.0
#define LEGEND_SHOWN 24 /* links or wires listed; more are counted */
#define N_LINK_COLOURS 6

static const char STYLE[] =
        ".stack rect { fill: #eef2f8; stroke: #36587a; stroke-width: 1.4; }\n"
        ".adapter rect { fill: #fbf1e4; stroke: #b5651d; stroke-width: 1.4; } .adapter circle { fill: #b5651d; }\n"
        ".switch rect { fill: #e9f5ec; stroke: #2e7d46; stroke-width: 1.4; }\n"
        ".wire path { fill: none; stroke: #2e7d46; stroke-width: 3; } .wire line { stroke: #2e7d46; stroke-width: 3; }\n"
        ".wire text { fill: #2e7d46; }\n"
        ".access line { stroke: #b5651d; stroke-width: 1.5; }\n"
        ".activation line { stroke: #36587a; stroke-width: 1; stroke-dasharray: 3 3; }\n"
        ".iface polyline { fill: none; stroke: #666; stroke-width: 1.2; } .iface text { font-size: 9px; fill: #444; }\n"
        ".smclink path { fill: none; stroke-width: 2.5; } .smclink line { stroke-width: 2.5; }\n"
        ".smclink text { font-size: 9px; font-weight: bold; }\n"
        ".c0 path, .c0 line { stroke: #c8412f; } .c0 text { fill: #c8412f; }\n"
        ".c1 path, .c1 line { stroke: #8a2be2; } .c1 text { fill: #8a2be2; }\n"
        ".c2 path, .c2 line { stroke: #1f8fa8; } .c2 text { fill: #1f8fa8; }\n"
        ".c3 path, .c3 line { stroke: #d4a017; } .c3 text { fill: #9a7400; }\n"
        ".c4 path, .c4 line { stroke: #e0559b; } .c4 text { fill: #b02a6f; }\n"
        ".c5 path, .c5 line { stroke: #4b7f2a; } .c5 text { fill: #4b7f2a; }\n"
        ".name { font-weight: bold; font-size: 12px; } .small { font-size: 9px; fill: #555; }\n"
        ".head { font-size: 15px; font-weight: bold; }\n";

typedef struct topo_layout {
	const scn_scenario *s;
	double col;     /* column width */
	double stack_w; /* stack box width (the interface list decides) */
	double stack_h; /* stack box height */
	double s_bot, a_top, a_bot, w_top, w_bot;
	double sx0, ax0, wx0; /* centres of the first stack, adapter, switch */
	size_t lanes;         /* interface lines in the corridor */
	double wire_depth;    /* below the switch row */
	double width, height;
} topo_layout;

static double sx(const topo_layout *l, size_t i) { return l->sx0 + (double)i * l->col; }
static double ax(const topo_layout *l, size_t i) { return l->ax0 + (double)i * l->col; }
static double wx(const topo_layout *l, size_t i) { return l->wx0 + (double)i * l->col; }

static void vlans_text(const scn_vlan_set *v, char *buf, size_t n)
{
	if (v->all) {
		snprintf(buf, n, "VLANs: all");
		return;
	}
	size_t off = (size_t)snprintf(buf, n, "VLANs:");
	int shown = 0;
	for (unsigned id = 1; id < 4095 && off < n; id++) {
		if (!scn_vlan_set_has(v, (uint16_t)id))
			continue;
		if (++shown > 6) {
			snprintf(buf + off, n - off, " …");
			return;
		}
		off += (size_t)snprintf(buf + off, n - off, " %u", id);
	}
	if (!shown)
		snprintf(buf + off, n - off, " none");
}

static void iface_label(const scn_scenario *s, const scn_interface *in, char *buf, size_t n)
{
	char ip[ADDR_TEXT_IPV4_LEN];
	addr_text_ipv4(in->ip, ip, sizeof(ip));
	if (in->vlan)
		snprintf(buf, n, "%s %s/%u vlan %u (%s)", in->name, ip, in->prefix_len, in->vlan, s->switches[in->sw].name);
	else
		snprintf(buf, n, "%s %s/%u (%s)", in->name, ip, in->prefix_len, s->switches[in->sw].name);
}

static double port_x(double adapter_x, const scn_adapter *a, uint8_t port)
{
	return a->n_ports == 2 ? adapter_x + (port == 1 ? -BOX_W / 4 : BOX_W / 4) : adapter_x;
}

/* The x of interface k of n leaving a stack box: between the adapters half a column aside. */
static double iface_x(const topo_layout *l, size_t stack, size_t k, size_t n)
{
	double room = l->col / 2 - BOX_W / 2 - 6; /* half the gap between two adapters */
	double step = n > 1 ? 2 * room / (double)(n - 1) : 0;
	if (step > 8)
		step = 8;
	return sx(l, stack) - step * (double)(n - 1) / 2 + step * (double)k;
}

/* ---- drawing ---- */

static void draw_ifaces(svg *g, const topo_layout *l)
{
	const scn_scenario *s = l->s;
	size_t lane = 0;
	for (size_t i = 0; i < s->n_stacks; i++) {
		const scn_stack *st = &s->stacks[i];
		for (size_t k = 0; k < st->n_ifaces; k++) {
			const scn_interface *in = &st->ifaces[k];
			char label[160], tip[260];
			iface_label(s, in, label, sizeof(label));
			snprintf(tip, sizeof(tip), "interface %s.%s: %s", st->name, in->name, label);
			svg_group(g, "iface", tip);
			/* down between the adapters, along its lane, down to a place on the switch's top */
			double x1 = iface_x(l, i, k, st->n_ifaces), y = l->a_bot + 14 + (double)lane * LANE;
			double x2 = wx(l, in->sw) - BOX_W / 2 + 12 + (double)((i * 7 + k * 3) % 14) * 10;
			double xs[4] = { x1, x1, x2, x2 }, ys[4] = { l->s_bot, y, y, l->w_top };
			svg_polyline(g, xs, ys, 4, NULL);
			if (k < IF_SHOWN)
				svg_text(g, sx(l, i), STACK_Y + 44 + (double)k * IF_LINE, NULL, "middle", "%s", label);
			svg_group_end(g);
			lane++;
		}
		if (st->n_ifaces > IF_SHOWN)
			svg_text(g, sx(l, i), STACK_Y + 44 + IF_SHOWN * IF_LINE, "small", "middle", "… %zu more interfaces",
			         st->n_ifaces - IF_SHOWN);
	}
}

static void draw_access(svg *g, const topo_layout *l)
{
	const scn_scenario *s = l->s;
	for (size_t i = 0; i < s->n_adapters; i++) {
		const scn_adapter *a = &s->adapters[i];
		for (uint8_t p = 1; p <= a->n_ports; p++) {
			char tip[120];
			snprintf(tip, sizeof(tip), "adapter %s port %u on switch %s", a->name, p, s->switches[a->port[p - 1].sw].name);
			svg_group(g, "access", tip);
			svg_line(g, port_x(ax(l, i), a, p), l->a_bot, wx(l, a->port[p - 1].sw), l->w_top, NULL);
			svg_group_end(g);
		}
	}
}

static void draw_activations(svg *g, const topo_layout *l)
{
	const scn_scenario *s = l->s;
	for (size_t i = 0; i < s->n_stacks; i++) {
		const scn_stack *st = &s->stacks[i];
		for (size_t k = 0; k < st->n_smcr_ports; k++) {
			const scn_smcr_port *sp = &st->smcr_ports[k];
			if (sp->adapter == SCN_NONE || sp->adapter >= s->n_adapters)
				continue;
			const scn_adapter *a = &s->adapters[sp->adapter];
			char tip[120];
			snprintf(tip, sizeof(tip), "%s activates PFID 0x%04x (%s) port %u", st->name, sp->pfid, a->name, sp->port);
			svg_group(g, "activation", tip);
			svg_line(g, sx(l, i), l->s_bot, port_x(ax(l, sp->adapter), a, sp->port), l->a_top, NULL);
			svg_group_end(g);
		}
	}
}

static void draw_boxes(svg *g, const topo_layout *l)
{
	const scn_scenario *s = l->s;
	for (size_t i = 0; i < s->n_stacks; i++) {
		const scn_stack *st = &s->stacks[i];
		char tip[120];
		snprintf(tip, sizeof(tip), "stack %s (%s), host %s", st->name,
		         st->personality == SCN_PERS_ZOS ? "z/OS" : "Linux", st->hostname);
		svg_group(g, "stack", tip);
		svg_rect(g, sx(l, i) - l->stack_w / 2, STACK_Y, l->stack_w, l->stack_h, NULL);
		svg_text(g, sx(l, i), STACK_Y + 17, "name", "middle", "%s", st->name);
		svg_text(g, sx(l, i), STACK_Y + 30, "small", "middle", "%s%s", st->personality == SCN_PERS_ZOS ? "z/OS" : "Linux",
		         st->smcr.enable ? (st->smcr.v2 ? ", SMC-Rv1+v2" : ", SMC-Rv1") : ", SMC-R off");
		svg_group_end(g);
	}
	for (size_t i = 0; i < s->n_adapters; i++) {
		const scn_adapter *a = &s->adapters[i];
		char tip[120];
		snprintf(tip, sizeof(tip), "adapter %s, PFID 0x%04x, %u port%s", a->name, a->pfid, a->n_ports,
		         a->n_ports == 1 ? "" : "s");
		svg_group(g, "adapter", tip);
		svg_rect(g, ax(l, i) - BOX_W / 2, l->a_top, BOX_W, ADAPTER_H, NULL);
		svg_text(g, ax(l, i), l->a_top + 17, "name", "middle", "%s", a->name);
		svg_text(g, ax(l, i), l->a_top + 31, "small", "middle", "PFID 0x%04x, RoCE %s", a->pfid,
		         a->roce == SCN_ROCE_V1 ? "v1" : a->roce == SCN_ROCE_V2 ? "v2"
		                                                                : "v1+v2");
		for (uint8_t p = 1; p <= a->n_ports; p++)
			svg_circle(g, port_x(ax(l, i), a, p), l->a_bot, 4, NULL);
		svg_group_end(g);
	}
	for (size_t i = 0; i < s->n_switches; i++) {
		const scn_switch *sw = &s->switches[i];
		char vl[96];
		vlans_text(&sw->vlans, vl, sizeof(vl));
		svg_group(g, "switch", sw->name);
		svg_rect(g, wx(l, i) - BOX_W / 2, l->w_top, BOX_W, SWITCH_H, NULL);
		svg_text(g, wx(l, i), l->w_top + 17, "name", "middle", "%s", sw->name);
		svg_text(g, wx(l, i), l->w_top + 31, "small", "middle", "%s", vl);
		svg_group_end(g);
	}
}

/* The run's links, arcs under the adapters; the wires, arcs under the switches. Their
 * names go to the legend (legend_y: where it starts). */
static void draw_arcs(svg *g, const topo_layout *l, const topo_link *links, size_t n_links, double legend_y)
{
	const scn_scenario *s = l->s;
	double y = legend_y;
	for (size_t i = 0; i < n_links; i++) {
		const topo_link *k = &links[i];
		if (k->adapter[0] >= s->n_adapters || k->adapter[1] >= s->n_adapters)
			continue;
		const scn_adapter *a = &s->adapters[k->adapter[0]], *b = &s->adapters[k->adapter[1]];
		double x1 = port_x(ax(l, k->adapter[0]), a, k->port[0]), x2 = port_x(ax(l, k->adapter[1]), b, k->port[1]);
		double depth = 24 + 8 * (double)(i % 6);
		char tip[320], cls[24];
		snprintf(tip, sizeof(tip), "SMC-R link: %s link 0x%08x (%s port %u) - %s link 0x%08x (%s port %u), LGR 0x%08x",
		         s->stacks[k->stack[0]].name, k->link_id[0], a->name, k->port[0], s->stacks[k->stack[1]].name,
		         k->link_id[1], b->name, k->port[1], k->lgr);
		snprintf(cls, sizeof(cls), "smclink c%zu", i % N_LINK_COLOURS);
		svg_group(g, cls, tip);
		if (x1 == x2) /* both ends on one port (one adapter shared by two stacks) */
			svg_curve(g, x1 - 6, l->a_bot, x1 - 40, l->a_bot + depth, x1 + 6, l->a_bot, NULL);
		else
			svg_curve(g, x1, l->a_bot, (x1 + x2) / 2, l->a_bot + 2 * depth, x2, l->a_bot, NULL);
		if (i < LEGEND_SHOWN) {
			svg_line(g, MARGIN, y - 3, MARGIN + 24, y - 3, NULL);
			svg_text(g, MARGIN + 32, y, NULL, "start", "%s 0x%08x - %s 0x%08x", s->stacks[k->stack[0]].name,
			         k->link_id[0], s->stacks[k->stack[1]].name, k->link_id[1]);
			y += LEGEND_LINE;
		}
		svg_group_end(g);
	}
	if (n_links > LEGEND_SHOWN) {
		svg_text(g, MARGIN + 32, y, "small", "start", "… %zu more links", n_links - LEGEND_SHOWN);
		y += LEGEND_LINE;
	}
	for (size_t i = 0; i < s->n_wires; i++) {
		const scn_wire *wr = &s->wires[i];
		double x1 = wx(l, wr->sw_a), x2 = wx(l, wr->sw_b);
		char vl[96], tip[256];
		vlans_text(&wr->vlans, vl, sizeof(vl));
		snprintf(tip, sizeof(tip), "wire %s: %s - %s, %s", wr->name, s->switches[wr->sw_a].name,
		         s->switches[wr->sw_b].name, vl);
		svg_group(g, "wire", tip);
		double depth = 10 + 6 * (double)(i % 4);
		svg_curve(g, x1, l->w_bot, (x1 + x2) / 2, l->w_bot + 2 * depth, x2, l->w_bot, NULL);
		if (i < LEGEND_SHOWN) {
			svg_line(g, MARGIN, y - 3, MARGIN + 24, y - 3, NULL);
			svg_text(g, MARGIN + 32, y, NULL, "start", "%s %s - %s (%s)", wr->name, s->switches[wr->sw_a].name,
			         s->switches[wr->sw_b].name, vl);
			y += LEGEND_LINE;
		}
		svg_group_end(g);
	}
	if (s->n_wires > LEGEND_SHOWN)
		svg_text(g, MARGIN + 32, y, "small", "start", "… %zu more wires", s->n_wires - LEGEND_SHOWN);
}

/* ---- layout ---- */

static double widest_iface_label(const scn_scenario *s)
{
	double w = 0;
	for (size_t i = 0; i < s->n_stacks; i++)
		for (size_t k = 0; k < s->stacks[i].n_ifaces && k < IF_SHOWN; k++) {
			char label[160];
			iface_label(s, &s->stacks[i].ifaces[k], label, sizeof(label));
			double x = svg_text_width(label, 9, 0);
			if (x > w)
				w = x;
		}
	return w;
}

static double widest_legend_line(const scn_scenario *s, const topo_link *links, size_t n_links)
{
	double w = 0;
	for (size_t i = 0; i < n_links && i < LEGEND_SHOWN; i++) {
		char t[160];
		snprintf(t, sizeof(t), "%s 0x%08x - %s 0x%08x", s->stacks[links[i].stack[0]].name, links[i].link_id[0],
		         s->stacks[links[i].stack[1]].name, links[i].link_id[1]);
		double x = svg_text_width(t, 9, 1);
		w = x > w ? x : w;
	}
	for (size_t i = 0; i < s->n_wires && i < LEGEND_SHOWN; i++) {
		char vl[96], t[256];
		vlans_text(&s->wires[i].vlans, vl, sizeof(vl));
		snprintf(t, sizeof(t), "%s %s - %s (%s)", s->wires[i].name, s->switches[s->wires[i].sw_a].name,
		         s->switches[s->wires[i].sw_b].name, vl);
		double x = svg_text_width(t, 11, 0);
		w = x > w ? x : w;
	}
	return w + MARGIN + 32;
}

static void layout(topo_layout *l, const scn_scenario *s, size_t n_links)
{
	memset(l, 0, sizeof(*l));
	l->s = s;
	size_t max_ifaces = 0;
	for (size_t i = 0; i < s->n_stacks; i++) {
		l->lanes += s->stacks[i].n_ifaces;
		if (s->stacks[i].n_ifaces > max_ifaces)
			max_ifaces = s->stacks[i].n_ifaces;
	}
	l->stack_w = widest_iface_label(s) + 16;
	if (l->stack_w < BOX_W)
		l->stack_w = BOX_W;
	l->col = l->stack_w + 40 > 200 ? l->stack_w + 40 : 200;
	size_t shown = max_ifaces < IF_SHOWN ? max_ifaces : IF_SHOWN + (max_ifaces > IF_SHOWN);
	l->stack_h = 38 + (double)shown * IF_LINE;
	size_t m = s->n_stacks;
	if (s->n_adapters > m)
		m = s->n_adapters;
	if (s->n_switches > m)
		m = s->n_switches;
	if (!m)
		m = 1;
	/* stacks on whole columns, adapters half a column aside, each row centred as it can */
	double base = MARGIN + l->col / 2;
	l->sx0 = base + (double)((m - s->n_stacks) / 2) * l->col;
	l->ax0 = base + (double)((m - s->n_adapters) / 2) * l->col + l->col / 2;
	l->wx0 = base + (double)((m - s->n_switches) / 2) * l->col;
	l->s_bot = STACK_Y + l->stack_h;
	l->a_top = l->s_bot + ROW_GAP;
	l->a_bot = l->a_top + ADAPTER_H;
	double arcs = n_links ? 2 * (24 + 8 * 5.0) : 0;
	double lanes = 14 + (double)l->lanes * LANE;
	l->w_top = l->a_bot + (arcs > lanes ? arcs : lanes) + 30;
	l->w_bot = l->w_top + SWITCH_H;
	l->wire_depth = s->n_wires ? 2 * (10 + 6 * 3.0) : 0;
	l->width = 2 * MARGIN + ((double)m + 0.5) * l->col;
}

void topology_svg_write(FILE *f, const scn_scenario *s, const topo_link *links, size_t n_links)
{
	topo_layout lay;
	layout(&lay, s, n_links);
	char title[220];
	snprintf(title, sizeof(title), "topology: %s", s->title && s->title[0] ? s->title : s->file);
	static const char line1[] = "stacks (top) with their IP interfaces, RoCE adapters and their ports, switches and wires "
	                            "(bottom); grey: an interface's way to its switch;";
	const char *line2 = n_links ? "dashed: a stack's activated adapter ports; coloured: the SMC-R links of the run (adapter "
	                              "port to adapter port), named below"
	                            : "dashed: a stack's activated adapter ports";
	double legend_y = lay.w_bot + lay.wire_depth + 28;
	size_t legend_lines = (n_links < LEGEND_SHOWN ? n_links : LEGEND_SHOWN + 1) +
	                      (s->n_wires < LEGEND_SHOWN ? s->n_wires : LEGEND_SHOWN + 1);
	double height = legend_y + (double)legend_lines * LEGEND_LINE + 10;
	double width = lay.width;
	double need[4] = { svg_text_width(title, 15, 1), svg_text_width(line1, 9, 0), svg_text_width(line2, 9, 0),
		           widest_legend_line(s, links, n_links) };
	for (int i = 0; i < 4; i++)
		if (need[i] + 2 * MARGIN > width)
			width = need[i] + 2 * MARGIN;
	svg g;
	svg_begin(&g, f, width, height, title, STYLE);
	svg_text(&g, 10, 22, "head", "start", "%s", title);
	svg_text(&g, 10, 40, "small", "start", "%s", line1);
	svg_text(&g, 10, 52, "small", "start", "%s", line2);
	draw_boxes(&g, &lay); /* first: the interface labels are written on the stacks' boxes */
	draw_ifaces(&g, &lay);
	draw_access(&g, &lay);
	draw_activations(&g, &lay);
	draw_arcs(&g, &lay, links, n_links, legend_y);
	svg_end(&g);
}
