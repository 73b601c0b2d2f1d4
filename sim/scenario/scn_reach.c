/* Whether each client can reach its listener with the scenario's own addressing
 * (scn_reach.h), hop by hop as the stacks will route: a connected subnet or a route
 * (longest prefix first, the connected routes before the static ones on a tie, as
 * sim/net/route.h), then a next hop that is an interface on the same L2 network — its
 * switch reached over wires that carry the VLAN — owned by the destination or by a
 * stack that forwards. Both ways: the server must route its answers back to the
 * client's source address (the address of the interface the client leaves by). */
#include "sim/scenario/scn_reach.h"

#include <glib.h>
#include <string.h>

#include "sim/addr/addr_text.h"

#define MAX_HOPS 16

typedef struct reach {
	const scn_scenario *s;
	GHashTable *by_ip; /* address -> GArray of (stack << 32 | interface) */
	GHashTable *l2;    /* (switch << 16 | vlan) -> L2 network number + 1 */
	GHashTable *memo;  /* (stack << 32 | address) -> way_result */
	GArray **wires_of; /* per switch: the wires that end there */
	uint32_t next_net;
} reach;

typedef struct way_result {
	uint32_t src; /* the address the first hop leaves from */
	char why[];   /* "" when it gets there */
} way_result;

static uint16_t vlan_of(const scn_interface *in) { return in->vlan ? in->vlan : 1; }

static bool carries(const scn_vlan_set *v, uint16_t vlan) { return v->all || scn_vlan_set_has(v, vlan); }

/* The L2 network (switches joined by wires that carry the VLAN) of a switch and VLAN,
 * numbered the first time one of its switches is asked for. */
static uint32_t l2_net(reach *r, uint32_t sw, uint16_t vlan)
{
	gint64 key = (gint64)sw << 16 | vlan;
	gpointer v = g_hash_table_lookup(r->l2, &key);
	if (v)
		return GPOINTER_TO_UINT(v) - 1;
	uint32_t net = r->next_net++;
	GArray *todo = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	g_array_append_val(todo, sw);
	while (todo->len) {
		uint32_t x = g_array_index(todo, uint32_t, todo->len - 1);
		g_array_set_size(todo, todo->len - 1);
		gint64 *k = g_new(gint64, 1);
		*k = (gint64)x << 16 | vlan;
		if (g_hash_table_contains(r->l2, k)) {
			g_free(k);
			continue;
		}
		g_hash_table_insert(r->l2, k, GUINT_TO_POINTER(net + 1));
		if (!carries(&r->s->switches[x].vlans, vlan))
			continue; /* the switch itself drops the VLAN: nothing goes on from here */
		for (guint i = 0; r->wires_of[x] && i < r->wires_of[x]->len; i++) {
			const scn_wire *w = &r->s->wires[g_array_index(r->wires_of[x], uint32_t, i)];
			if (!carries(&w->vlans, vlan))
				continue;
			uint32_t y = w->sw_a == x ? w->sw_b : w->sw_a;
			g_array_append_val(todo, y);
		}
	}
	g_array_free(todo, TRUE);
	return net;
}

static bool same_net(reach *r, const scn_interface *a, const scn_interface *b)
{
	return vlan_of(a) == vlan_of(b) && l2_net(r, a->sw, vlan_of(a)) == l2_net(r, b->sw, vlan_of(b));
}

static uint32_t mask_of(uint8_t len) { return len ? ~0u << (32 - len) : 0; }

/* The route stack si takes to dst: the interface it leaves by and the next hop. */
static bool route(const scn_stack *st, uint32_t dst, uint32_t *iface, uint32_t *nexthop)
{
	int best = -1;
	for (size_t i = 0; i < st->n_ifaces; i++) {
		const scn_interface *in = &st->ifaces[i];
		if ((in->ip & mask_of(in->prefix_len)) == (dst & mask_of(in->prefix_len)) && in->prefix_len > best) {
			best = in->prefix_len;
			*iface = (uint32_t)i;
			*nexthop = dst;
		}
	}
	for (size_t i = 0; i < st->n_routes; i++) {
		const scn_route *rt = &st->routes[i];
		if ((dst & mask_of(rt->prefix_len)) == rt->dest && rt->prefix_len > best) {
			best = rt->prefix_len;
			*iface = rt->iface;
			*nexthop = rt->via;
		}
	}
	return best >= 0;
}

static void ip_text(uint32_t ip, char *buf, size_t n) { addr_text_ipv4(ip, buf, n); }

/* The interface, on the network of `from`, that owns `addr`; another one that owns it
 * elsewhere in *elsewhere (for the message). */
static bool owner_on_net(reach *r, const scn_interface *from, uint32_t addr, uint32_t *st, uint32_t *ifc,
                         bool *elsewhere, uint32_t *st2, uint32_t *if2)
{
	GArray *owners = g_hash_table_lookup(r->by_ip, GUINT_TO_POINTER(addr));
	*elsewhere = false;
	for (guint i = 0; owners && i < owners->len; i++) {
		guint64 o = g_array_index(owners, guint64, i);
		uint32_t s = (uint32_t)(o >> 32), k = (uint32_t)o;
		const scn_interface *in = &r->s->stacks[s].ifaces[k];
		if (same_net(r, from, in)) {
			*st = s;
			*ifc = k;
			return true;
		}
		if (!*elsewhere) {
			*elsewhere = true;
			*st2 = s;
			*if2 = k;
		}
	}
	return false;
}

/* One way: from stack si to address dst (owned by stack dst_stack). "" when it gets
 * there, else what stops it; *src gets the address the first hop leaves from. */
static void one_way(reach *r, uint32_t si, uint32_t dst, uint32_t dst_stack, uint32_t *src, char *why, size_t n)
{
	const scn_scenario *s = r->s;
	char d[ADDR_TEXT_IPV4_LEN], h[ADDR_TEXT_IPV4_LEN];
	ip_text(dst, d, sizeof(d));
	why[0] = 0;
	uint32_t at = si;
	for (int hop = 0; hop < MAX_HOPS; hop++) {
		const scn_stack *st = &s->stacks[at];
		uint32_t ifc = 0, nh = 0;
		if (!route(st, dst, &ifc, &nh)) {
			snprintf(why, n, "%s has no route to %s: no interface on its subnet, no route that covers it", st->name, d);
			return;
		}
		const scn_interface *out = &st->ifaces[ifc];
		if (hop == 0 && src)
			*src = out->ip;
		uint32_t os = 0, oi = 0, es = 0, ei = 0;
		bool elsewhere = false;
		ip_text(nh, h, sizeof(h));
		if (!owner_on_net(r, out, nh, &os, &oi, &elsewhere, &es, &ei)) {
			if (elsewhere)
				snprintf(why, n,
				         "%s %s is %s.%s (switch %s, VLAN %u), not on the network of %s.%s (switch %s, VLAN %u): ARP will "
				         "get no answer",
				         nh == dst ? "the address" : "next hop", h, s->stacks[es].name, s->stacks[es].ifaces[ei].name,
				         s->switches[s->stacks[es].ifaces[ei].sw].name, vlan_of(&s->stacks[es].ifaces[ei]), st->name,
				         out->name, s->switches[out->sw].name, vlan_of(out));
			else
				snprintf(why, n, "no interface has %s %s: ARP from %s.%s will get no answer",
				         nh == dst ? "the address" : "next hop", h, st->name, out->name);
			return;
		}
		if (os == dst_stack && nh == dst)
			return;
		if (nh == dst) {
			snprintf(why, n, "%s is %s.%s on that network, not the listener's stack %s", d, s->stacks[os].name,
			         s->stacks[os].ifaces[oi].name, s->stacks[dst_stack].name);
			return;
		}
		if (!s->stacks[os].forwarding) {
			snprintf(why, n, "next hop %s (%s.%s) does not forward (no `forwarding on` in stack %s)", h,
			         s->stacks[os].name, s->stacks[os].ifaces[oi].name, s->stacks[os].name);
			return;
		}
		if (os == dst_stack) { /* the router is the destination itself */
			bool owns = false;
			for (size_t k = 0; k < s->stacks[os].n_ifaces && !owns; k++)
				owns = s->stacks[os].ifaces[k].ip == dst;
			if (owns)
				return;
		}
		at = os;
	}
	snprintf(why, n, "no way to %s within %d hops (a routing loop?)", d, MAX_HOPS);
}

/* one_way, remembered per (stack, address): a million connections of one app pair ask once */
static const char *one_way_memo(reach *r, uint32_t si, uint32_t dst, uint32_t dst_stack, uint32_t *src)
{
	guint64 key = (guint64)si << 32 | dst;
	way_result *hit = g_hash_table_lookup(r->memo, &key);
	if (!hit) {
		char why[320];
		uint32_t first_src = 0;
		one_way(r, si, dst, dst_stack, &first_src, why, sizeof(why));
		hit = g_malloc(sizeof(*hit) + strlen(why) + 1);
		hit->src = first_src;
		strcpy(hit->why, why);
		guint64 *k = g_new(guint64, 1);
		*k = key;
		g_hash_table_insert(r->memo, k, hit);
	}
	if (src)
		*src = hit->src;
	return hit->why;
}

size_t scn_warn_unreachable(const scn_scenario *s, FILE *out)
{
	reach r = { s, g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_array_unref),
		    g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL),
		    g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free), NULL, 0 };
	r.wires_of = g_new0(GArray *, s->n_switches + 1);
	for (size_t i = 0; i < s->n_wires; i++) {
		uint32_t ends[2] = { s->wires[i].sw_a, s->wires[i].sw_b }, wi = (uint32_t)i;
		for (int e = 0; e < 2; e++) {
			if (ends[e] >= s->n_switches)
				continue;
			if (!r.wires_of[ends[e]])
				r.wires_of[ends[e]] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
			g_array_append_val(r.wires_of[ends[e]], wi);
		}
	}
	for (size_t i = 0; i < s->n_stacks; i++)
		for (size_t k = 0; k < s->stacks[i].n_ifaces; k++) {
			uint32_t ip = s->stacks[i].ifaces[k].ip;
			GArray *a = g_hash_table_lookup(r.by_ip, GUINT_TO_POINTER(ip));
			if (!a) {
				a = g_array_new(FALSE, FALSE, sizeof(guint64));
				g_hash_table_insert(r.by_ip, GUINT_TO_POINTER(ip), a);
			}
			guint64 o = (guint64)i << 32 | k;
			g_array_append_val(a, o);
		}
	size_t n = 0;
	for (size_t i = 0; i < s->n_apps; i++) {
		const scn_app *a = &s->apps[i];
		if (a->role != SCN_ROLE_CONNECT || a->dst_stack == SCN_NONE || a->stack == SCN_NONE)
			continue;
		char d[ADDR_TEXT_IPV4_LEN], c[ADDR_TEXT_IPV4_LEN];
		ip_text(a->dst_ip, d, sizeof(d));
		uint32_t src = 0;
		const char *why = one_way_memo(&r, a->stack, a->dst_ip, a->dst_stack, &src);
		const char *dir = "there";
		if (!why[0] && src) {
			why = one_way_memo(&r, a->dst_stack, src, a->stack, NULL);
			dir = "back";
		}
		if (!why[0])
			continue;
		ip_text(src, c, sizeof(c));
		if (!strcmp(dir, "there"))
			fprintf(out, "%s:%u:%u: warning: app '%s' on %s cannot reach %s:%u (%s) with the scenario's addressing: %s; "
			             "its connections will fail\n",
			        a->loc.file, a->loc.line, a->loc.col, a->name, s->stacks[a->stack].name, d, (unsigned)a->port,
			        s->stacks[a->dst_stack].name, why);
		else
			fprintf(out, "%s:%u:%u: warning: app '%s' on %s reaches %s:%u (%s), but the answers cannot come back to %s: "
			             "%s; its connections will fail\n",
			        a->loc.file, a->loc.line, a->loc.col, a->name, s->stacks[a->stack].name, d, (unsigned)a->port,
			        s->stacks[a->dst_stack].name, c, why);
		n++;
	}
	for (size_t i = 0; i < s->n_switches; i++)
		if (r.wires_of[i])
			g_array_free(r.wires_of[i], TRUE);
	g_free(r.wires_of);
	g_hash_table_destroy(r.by_ip);
	g_hash_table_destroy(r.l2);
	g_hash_table_destroy(r.memo);
	return n;
}
