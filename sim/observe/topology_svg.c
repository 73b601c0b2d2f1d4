/* The topology picture (topology_svg.h). */
#include "sim/observe/topology_svg.h"

#include <glib.h>
#include <string.h>

#include "sim/addr/addr_text.h"
#include "sim/observe/svg.h"

#define COL 200.0
#define MARGIN 30.0
#define STACK_Y 70.0
#define STACK_H 50.0
#define ADAPTER_Y 220.0
#define ADAPTER_H 44.0
#define SWITCH_Y 440.0
#define SWITCH_H 40.0
#define BOX_W 160.0
#define N_LINK_COLOURS 6

static const char STYLE[] =
        ".stack rect { fill: #eef2f8; stroke: #36587a; stroke-width: 1.4; }\n"
        ".adapter rect { fill: #fbf1e4; stroke: #b5651d; stroke-width: 1.4; } .adapter circle { fill: #b5651d; }\n"
        ".switch rect { fill: #e9f5ec; stroke: #2e7d46; stroke-width: 1.4; }\n"
        ".wire path { fill: none; stroke: #2e7d46; stroke-width: 3; } .wire text { fill: #2e7d46; }\n"
        ".access line { stroke: #b5651d; stroke-width: 1.5; }\n"
        ".activation line { stroke: #36587a; stroke-width: 1; stroke-dasharray: 3 3; }\n"
        ".iface line { stroke: #666; stroke-width: 1.2; } .iface text { font-size: 9px; fill: #444; }\n"
        ".smclink path { fill: none; stroke-width: 2.5; } .smclink text { font-size: 9px; font-weight: bold; }\n"
        ".c0 path { stroke: #c8412f; } .c0 text { fill: #c8412f; } .c1 path { stroke: #8a2be2; } .c1 text { fill: #8a2be2; }\n"
        ".c2 path { stroke: #1f8fa8; } .c2 text { fill: #1f8fa8; } .c3 path { stroke: #d4a017; } .c3 text { fill: #9a7400; }\n"
        ".c4 path { stroke: #e0559b; } .c4 text { fill: #b02a6f; } .c5 path { stroke: #4b7f2a; } .c5 text { fill: #4b7f2a; }\n"
        ".name { font-weight: bold; font-size: 12px; } .small { font-size: 9px; fill: #555; }\n"
        ".head { font-size: 15px; font-weight: bold; }\n";

static double row_x0(size_t n, double width)
{
	return (width - (double)n * COL) / 2 + COL / 2;
}

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

static double port_x(double adapter_x, const scn_adapter *a, uint8_t port)
{
	return a->n_ports == 2 ? adapter_x + (port == 1 ? -BOX_W / 4 : BOX_W / 4) : adapter_x;
}

/* Where each row starts: columns COL apart, centred in the picture. */
typedef struct topo_layout {
	double sx0, ax0, wx0; /* stacks, adapters, switches */
} topo_layout;

#define SX(i) (lay->sx0 + (double)(i)*COL)
#define AX(i) (lay->ax0 + (double)(i)*COL)
#define WX(i) (lay->wx0 + (double)(i)*COL)

static void draw_wires(svg *g, const scn_scenario *s, const topo_layout *lay)
{
	/* wires between switches: curves under the switch row */
	for (size_t i = 0; i < s->n_wires; i++) {
		const scn_wire *wr = &s->wires[i];
		double x1 = WX(wr->sw_a), x2 = WX(wr->sw_b), y = SWITCH_Y + SWITCH_H;
		char vl[96], tip[256];
		vlans_text(&wr->vlans, vl, sizeof(vl));
		snprintf(tip, sizeof(tip), "wire %s: %s - %s, %s", wr->name, s->switches[wr->sw_a].name,
		         s->switches[wr->sw_b].name, vl);
		svg_group(g, "wire", tip);
		double depth = 30 + 10 * (double)(i % 3);
		svg_curve(g, x1, y, (x1 + x2) / 2, y + 2 * depth, x2, y, NULL);
		svg_text(g, (x1 + x2) / 2, y + depth + 14, NULL, "middle", "%s (%s)", wr->name, vl);
		svg_group_end(g);
	}
}

static void draw_access(svg *g, const scn_scenario *s, const topo_layout *lay)
{
	/* access wires: interfaces and adapter ports to their switches */
	for (size_t i = 0; i < s->n_stacks; i++) {
		const scn_stack *st = &s->stacks[i];
		for (size_t k = 0; k < st->n_ifaces; k++) {
			const scn_interface *in = &st->ifaces[k];
			char ip[20], tip[160];
			addr_text_ipv4(in->ip, ip, sizeof(ip));
			snprintf(tip, sizeof(tip), "interface %s.%s %s/%u%s%.0u on switch %s", st->name, in->name, ip,
			         in->prefix_len, in->vlan ? " VLAN " : "", (unsigned)in->vlan, s->switches[in->sw].name);
			double x1 = SX(i) - BOX_W / 2 + 12 + (double)k * 14, y1 = STACK_Y + STACK_H;
			double x2 = WX(in->sw) - BOX_W / 2 + 10 + (double)((i * 7 + k * 3) % 14) * 10, y2 = SWITCH_Y;
			svg_group(g, "iface", tip);
			svg_line(g, x1, y1, x2, y2, NULL);
			double tx = x1 + (x2 - x1) * 0.82, ty = y1 + (y2 - y1) * 0.82 - (double)(k % 2) * 10;
			if (in->vlan)
				svg_text(g, tx, ty, NULL, "middle", "%s %s/%u vlan %u", in->name, ip, in->prefix_len, in->vlan);
			else
				svg_text(g, tx, ty, NULL, "middle", "%s %s/%u", in->name, ip, in->prefix_len);
			svg_group_end(g);
		}
	}
	for (size_t i = 0; i < s->n_adapters; i++) {
		const scn_adapter *a = &s->adapters[i];
		for (uint8_t p = 1; p <= a->n_ports; p++) {
			char tip[120];
			snprintf(tip, sizeof(tip), "adapter %s port %u on switch %s", a->name, p, s->switches[a->port[p - 1].sw].name);
			svg_group(g, "access", tip);
			svg_line(g, port_x(AX(i), a, p), ADAPTER_Y + ADAPTER_H, WX(a->port[p - 1].sw), SWITCH_Y, NULL);
			svg_group_end(g);
		}
	}
}

static void draw_activations(svg *g, const scn_scenario *s, const topo_layout *lay)
{
	/* activations: stack to the adapter port it uses */
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
			svg_line(g, SX(i), STACK_Y + STACK_H, port_x(AX(sp->adapter), a, sp->port), ADAPTER_Y + ADAPTER_H, NULL);
			svg_group_end(g);
		}
	}
}

static void draw_boxes(svg *g, const scn_scenario *s, const topo_layout *lay)
{
	/* the boxes */
	for (size_t i = 0; i < s->n_stacks; i++) {
		const scn_stack *st = &s->stacks[i];
		char tip[120];
		snprintf(tip, sizeof(tip), "stack %s (%s), host %s", st->name,
		         st->personality == SCN_PERS_ZOS ? "z/OS" : "Linux", st->hostname);
		svg_group(g, "stack", tip);
		svg_rect(g, SX(i) - BOX_W / 2, STACK_Y, BOX_W, STACK_H, NULL);
		svg_text(g, SX(i), STACK_Y + 20, "name", "middle", "%s", st->name);
		svg_text(g, SX(i), STACK_Y + 36, "small", "middle", "%s%s", st->personality == SCN_PERS_ZOS ? "z/OS" : "Linux",
		         st->smcr.enable ? (st->smcr.v2 ? ", SMC-Rv1+v2" : ", SMC-Rv1") : ", SMC-R off");
		svg_group_end(g);
	}
	for (size_t i = 0; i < s->n_adapters; i++) {
		const scn_adapter *a = &s->adapters[i];
		char tip[120];
		snprintf(tip, sizeof(tip), "adapter %s, PFID 0x%04x, %u port%s", a->name, a->pfid, a->n_ports,
		         a->n_ports == 1 ? "" : "s");
		svg_group(g, "adapter", tip);
		svg_rect(g, AX(i) - BOX_W / 2, ADAPTER_Y, BOX_W, ADAPTER_H, NULL);
		svg_text(g, AX(i), ADAPTER_Y + 17, "name", "middle", "%s", a->name);
		svg_text(g, AX(i), ADAPTER_Y + 31, "small", "middle", "PFID 0x%04x, RoCE %s", a->pfid,
		         a->roce == SCN_ROCE_V1 ? "v1" : a->roce == SCN_ROCE_V2 ? "v2"
		                                                                : "v1+v2");
		for (uint8_t p = 1; p <= a->n_ports; p++)
			svg_circle(g, port_x(AX(i), a, p), ADAPTER_Y + ADAPTER_H, 4, NULL);
		svg_group_end(g);
	}
	for (size_t i = 0; i < s->n_switches; i++) {
		const scn_switch *sw = &s->switches[i];
		char vl[96];
		vlans_text(&sw->vlans, vl, sizeof(vl));
		svg_group(g, "switch", sw->name);
		svg_rect(g, WX(i) - BOX_W / 2, SWITCH_Y, BOX_W, SWITCH_H, NULL);
		svg_text(g, WX(i), SWITCH_Y + 17, "name", "middle", "%s", sw->name);
		svg_text(g, WX(i), SWITCH_Y + 31, "small", "middle", "%s", vl);
		svg_group_end(g);
	}
}

static void draw_links(svg *g, const scn_scenario *s, const topo_layout *lay, const topo_link *links, size_t n_links)
{
	/* the run's links: adapter port to adapter port, arcs between the adapters and the switches */
	for (size_t i = 0; i < n_links; i++) {
		const topo_link *l = &links[i];
		if (l->adapter[0] >= s->n_adapters || l->adapter[1] >= s->n_adapters)
			continue;
		const scn_adapter *a = &s->adapters[l->adapter[0]], *b = &s->adapters[l->adapter[1]];
		double x1 = port_x(AX(l->adapter[0]), a, l->port[0]), x2 = port_x(AX(l->adapter[1]), b, l->port[1]);
		double y = ADAPTER_Y + ADAPTER_H;
		double depth = 40 + 22 * (double)(i % 6);
		char tip[320], cls[24];
		snprintf(tip, sizeof(tip), "SMC-R link: %s link 0x%08x (%s port %u) - %s link 0x%08x (%s port %u), LGR 0x%08x",
		         s->stacks[l->stack[0]].name, l->link_id[0], a->name, l->port[0], s->stacks[l->stack[1]].name,
		         l->link_id[1], b->name, l->port[1], l->lgr);
		snprintf(cls, sizeof(cls), "smclink c%zu", i % N_LINK_COLOURS);
		svg_group(g, cls, tip);
		if (x1 == x2) /* both ends on one port (one adapter shared by two stacks) */
			svg_curve(g, x1 - 6, y, x1 - 40, y + depth, x1 + 6, y, NULL);
		else
			svg_curve(g, x1, y, (x1 + x2) / 2, y + 2 * depth, x2, y, NULL);
		svg_text(g, (x1 + x2) / 2, y + depth + 4, NULL, "middle", "%s 0x%08x - %s 0x%08x", s->stacks[l->stack[0]].name,
		         l->link_id[0], s->stacks[l->stack[1]].name, l->link_id[1]);
		svg_group_end(g);
	}
}

#undef SX
#undef AX
#undef WX

void topology_svg_write(FILE *f, const scn_scenario *s, const topo_link *links, size_t n_links)
{
	size_t ncol = s->n_stacks;
	if (s->n_adapters > ncol)
		ncol = s->n_adapters;
	if (s->n_switches > ncol)
		ncol = s->n_switches;
	double width = (double)(ncol ? ncol : 1) * COL + 2 * MARGIN;
	if (width < 700)
		width = 700;
	double height = SWITCH_Y + SWITCH_H + 90;
	topo_layout layout = { row_x0(s->n_stacks, width), row_x0(s->n_adapters, width), row_x0(s->n_switches, width) };
	const topo_layout *lay = &layout;
	svg g;
	char title[220];
	snprintf(title, sizeof(title), "topology: %s", s->title && s->title[0] ? s->title : s->file);
	svg_begin(&g, f, width, height, title, STYLE);
	svg_text(&g, 10, 22, "head", "start", "%s", title);
	svg_text(&g, 10, 40, "small", "start",
	         "stacks (top), RoCE adapters and their ports, switches and wires (bottom); dashed: a stack's activated "
	         "ports; grey: IP interfaces%s",
	         n_links ? "; coloured: the SMC-R links of the run (adapter port to adapter port)" : "");
	draw_wires(&g, s, lay);
	draw_access(&g, s, lay);
	draw_activations(&g, s, lay);
	draw_boxes(&g, s, lay);
	draw_links(&g, s, lay, links, n_links);
	svg_end(&g);
}
