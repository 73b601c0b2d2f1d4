/* Semantic checks of a parsed scenario: what needs the whole file to be known.
 *
 * L2 segments, unique PFIDs, MACs and addresses, VLANs the switches carry, routes,
 * SMC-R activations, app endpoints and their listeners, times against the run's end,
 * fail/restore order, expectation instances; then the timeline is sorted. Items whose own
 * statement had an error are skipped, so one mistake is reported once.
 *
 * Linear in the size of the scenario: whatever is looked up by value (PFIDs, MACs,
 * addresses, listeners, failed targets) is found in a hash table; the tables only find,
 * every loop that reports walks the arrays in file order. */
#include <stdlib.h>
#include <string.h>

#include "sim/addr/addr_text.h"
#include "sim/scenario/scn_int.h"
#include "sim/scenario/scn_values.h"

static scn_loc ip_loc(const scn_parser *P, uint32_t stack, uint32_t iface)
{
	GArray *ips = g_array_index(P->ip_loc, GArray *, stack);
	return g_array_index(ips, scn_loc, iface);
}

static bool iface_ok(const scn_parser *P, uint32_t stack, uint32_t i)
{
	return !scn_is_broken(P, SCN_BRK_IFACE, ((uint64_t)stack << 16) | i) &&
	       P->scn->stacks[stack].ifaces[i].sw != SCN_NONE;
}

static uint32_t host_mask(uint8_t len)
{
	return len ? (len == 32 ? 0 : ~0u >> len) : ~0u;
}

static bool on_subnet(const scn_interface *ifc, uint32_t addr)
{
	uint32_t net = ~host_mask(ifc->prefix_len);
	return (ifc->ip & net) == (addr & net);
}

/* A table of 64-bit keys to indices (stored + 1, so that NULL is "absent"). */
static GHashTable *index_table(void)
{
	return g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
}

static bool index_get(GHashTable *t, gint64 key, size_t *index)
{
	gpointer v = g_hash_table_lookup(t, &key);
	if (!v)
		return false;
	*index = GPOINTER_TO_SIZE(v) - 1;
	return true;
}

static void index_put(GHashTable *t, gint64 key, size_t index)
{
	g_hash_table_insert(t, g_memdup2(&key, sizeof(key)), GSIZE_TO_POINTER(index + 1));
}

/* ---- L2 segments -------------------------------------------------------------------- */

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

static void compute_segments(scn_parser *P)
{
	scn_scenario *s = P->scn;
	uint32_t *parent = g_new(uint32_t, s->n_switches + 1);
	for (uint32_t i = 0; i < s->n_switches; i++)
		parent[i] = i;
	for (size_t w = 0; w < s->n_wires; w++) {
		if (s->wires[w].sw_a == SCN_NONE || s->wires[w].sw_b == SCN_NONE)
			continue;
		uint32_t a = uf_find(parent, s->wires[w].sw_a), b = uf_find(parent, s->wires[w].sw_b);
		/* the lower index is the root, so segment numbers follow file order */
		if (a < b)
			parent[b] = a;
		else if (b < a)
			parent[a] = b;
	}
	uint32_t *seg_of_root = g_new(uint32_t, s->n_switches + 1);
	uint32_t next = 0;
	for (uint32_t i = 0; i < s->n_switches; i++) {
		uint32_t r = uf_find(parent, i);
		if (r == i)
			seg_of_root[i] = next++;
		s->switches[i].segment = seg_of_root[r];
	}
	g_free(seg_of_root);
	g_free(parent);
}

/* The switches flood unknown and broadcast frames and run no spanning tree protocol, so
 * wires that close a loop make a broadcast storm that never ends and takes the memory of
 * the machine: refused at the wire that closes it. A loop counts per VLAN (a wire or a
 * switch that does not carry the VLAN breaks it). The VLANs to try: the native VLAN 1,
 * every VLAN a list names, and one no list names (what only `all` carries). */
static bool carries(const scn_vlan_set *v, uint16_t vlan)
{
	return v->all || scn_vlan_set_has(v, vlan);
}

static void check_wire_loops(scn_parser *P)
{
	scn_scenario *s = P->scn;
	if (!s->n_wires)
		return;
	scn_vlan_set named = { 0 };
	named.bits[0] |= 2; /* VLAN 1 */
	for (size_t i = 0; i < s->n_switches; i++)
		if (!s->switches[i].vlans.all)
			for (size_t k = 0; k < 64; k++)
				named.bits[k] |= s->switches[i].vlans.bits[k];
	for (size_t w = 0; w < s->n_wires; w++)
		if (!s->wires[w].vlans.all)
			for (size_t k = 0; k < 64; k++)
				named.bits[k] |= s->wires[w].vlans.bits[k];
	bool lists = false; /* name the VLAN in the message */
	for (size_t k = 0; k < 64; k++)
		lists |= named.bits[k] != (k ? 0 : 2u);
	bool *reported = g_new0(bool, s->n_wires);
	uint32_t *parent = g_new(uint32_t, s->n_switches + 1);
	bool other_tried = false;
	for (uint16_t v = 1; v <= 4094; v++) {
		bool is_named = scn_vlan_set_has(&named, v);
		if (!is_named && other_tried)
			continue;
		other_tried |= !is_named;
		for (uint32_t i = 0; i < s->n_switches; i++)
			parent[i] = i;
		for (size_t w = 0; w < s->n_wires; w++) {
			const scn_wire *x = &s->wires[w];
			if (x->sw_a == SCN_NONE || x->sw_b == SCN_NONE || x->sw_a == x->sw_b || scn_is_broken(P, SCN_BRK_WIRE, w) ||
			    !carries(&x->vlans, v) || !carries(&s->switches[x->sw_a].vlans, v) ||
			    !carries(&s->switches[x->sw_b].vlans, v))
				continue;
			uint32_t a = uf_find(parent, x->sw_a), b = uf_find(parent, x->sw_b);
			if (a != b) {
				parent[a < b ? b : a] = a < b ? a : b;
				continue;
			}
			if (reported[w])
				continue;
			reported[w] = true;
			char on[32] = "";
			if (lists)
				snprintf(on, sizeof(on), " on VLAN %u", v);
			scn_error(P->d, x->loc,
			          "wire '%s' closes a loop%s: switches '%s' and '%s' are joined already by the wires above it; "
			          "expected wires that form a tree (the switches run no spanning tree protocol: a loop would flood "
			          "broadcasts forever)",
			          x->name, on, s->switches[x->sw_a].name, s->switches[x->sw_b].name);
		}
	}
	g_free(parent);
	g_free(reported);
}

/* ---- fabric ------------------------------------------------------------------------- */

/* The first adapter (not broken) with each PFID, by PFID. */
static GHashTable *adapters_by_pfid(const scn_parser *P)
{
	GHashTable *t = index_table();
	for (size_t i = 0; i < P->scn->n_adapters; i++) {
		size_t first;
		if (!scn_is_broken(P, SCN_BRK_ADAPTER, i) && !index_get(t, P->scn->adapters[i].pfid, &first))
			index_put(t, P->scn->adapters[i].pfid, i);
	}
	return t;
}

static void check_pfids(scn_parser *P, GHashTable *by_pfid)
{
	scn_scenario *s = P->scn;
	for (size_t i = 0; i < s->n_adapters; i++) {
		size_t j;
		if (scn_is_broken(P, SCN_BRK_ADAPTER, i) || !index_get(by_pfid, s->adapters[i].pfid, &j) || j == i)
			continue;
		char at[96];
		scn_loc_text(s->adapters[j].loc, at, sizeof(at));
		scn_error(P->d, g_array_index(P->pfid_loc, scn_loc, i),
		          "duplicate PFID %04X (adapter '%s' at %s has it); expected a PFID unique in the fabric",
		          s->adapters[i].pfid, s->adapters[j].name, at);
	}
}

/* Switches learn addresses per VLAN (independent VLAN learning), so a MAC must be unique
 * per L2 segment and VLAN; adapter ports count as untagged. */
typedef struct mac_owner {
	uint8_t mac[6];
	uint32_t segment;
	uint16_t vlan;
	bool derived;
	char what[80];
	scn_loc loc;
} mac_owner;

/* The key of a MAC on a segment and VLAN: 48 + 12 bits of MAC and VLAN, the segment
 * hashed in by the table below (segments are few; a collision only costs a compare). */
typedef struct mac_key {
	uint8_t mac[6];
	uint16_t vlan;
	uint32_t segment;
} mac_key;

static guint mac_key_hash(gconstpointer p)
{
	const mac_key *k = p;
	guint h = k->segment * 2654435761u ^ k->vlan;
	for (int i = 0; i < 6; i++)
		h = h * 31 + k->mac[i];
	return h;
}

static gboolean mac_key_equal(gconstpointer a, gconstpointer b)
{
	const mac_key *x = a, *y = b;
	return x->segment == y->segment && x->vlan == y->vlan && !memcmp(x->mac, y->mac, 6);
}

/* `derived`: the MAC is the default one made from an address or PFID. Two derived MACs
 * collide only if their addresses or PFIDs do, which is reported on its own. */
static void claim_mac(scn_parser *P, GHashTable *owners, const uint8_t mac[6], bool derived, uint32_t segment,
                      uint16_t vlan, const char *what, scn_loc loc)
{
	mac_key k = { .vlan = vlan, .segment = segment };
	memcpy(k.mac, mac, 6);
	const mac_owner *o = g_hash_table_lookup(owners, &k);
	if (o) {
		if (derived && o->derived)
			return;
		char m[SCN_FMT_LEN], at[96];
		scn_loc_text(o->loc, at, sizeof(at));
		scn_error(P->d, loc, "MAC %s of %s is already used by %s (%s) on the same network; expected a unique MAC",
		          addr_text_mac(mac, m, sizeof(m)), what, o->what, at);
		return;
	}
	mac_owner *n = g_new0(mac_owner, 1);
	*n = (mac_owner){ .segment = segment, .vlan = vlan, .derived = derived, .loc = loc };
	memcpy(n->mac, mac, 6);
	g_strlcpy(n->what, what, sizeof(n->what));
	g_hash_table_insert(owners, g_memdup2(&k, sizeof(k)), n);
}

static void check_macs(scn_parser *P)
{
	scn_scenario *s = P->scn;
	GHashTable *owners = g_hash_table_new_full(mac_key_hash, mac_key_equal, g_free, g_free);
	for (size_t i = 0; i < s->n_adapters; i++) {
		const scn_adapter *ad = &s->adapters[i];
		if (scn_is_broken(P, SCN_BRK_ADAPTER, i))
			continue;
		for (uint8_t p = 0; p < ad->n_ports; p++) {
			char what[80];
			snprintf(what, sizeof(what), "adapter '%s' port %u", ad->name, p + 1);
			const uint8_t derived[6] = { 0x02, 0x01, (uint8_t)(ad->pfid >> 8), (uint8_t)ad->pfid, 0, (uint8_t)(p + 1) };
			claim_mac(P, owners, ad->port[p].mac, !memcmp(derived, ad->port[p].mac, 6),
			          s->switches[ad->port[p].sw].segment, 0, what, ad->loc);
		}
	}
	for (uint32_t si = 0; si < s->n_stacks; si++) {
		const scn_stack *st = &s->stacks[si];
		for (uint32_t i = 0; i < st->n_ifaces; i++) {
			if (!iface_ok(P, si, i))
				continue;
			char what[80];
			snprintf(what, sizeof(what), "interface %s.%s", st->name, st->ifaces[i].name);
			const scn_interface *ifc = &st->ifaces[i];
			const uint8_t derived[6] = { 0x02, 0x00, (uint8_t)(ifc->ip >> 24), (uint8_t)(ifc->ip >> 16),
				                     (uint8_t)(ifc->ip >> 8), (uint8_t)ifc->ip };
			claim_mac(P, owners, ifc->mac, !memcmp(derived, ifc->mac, 6), s->switches[ifc->sw].segment, ifc->vlan, what,
			          ifc->loc);
		}
	}
	g_hash_table_destroy(owners);
}

static char *vlan_list(const scn_vlan_set *v)
{
	GString *s = g_string_new(NULL);
	for (unsigned id = 1; id <= 4094; id++)
		if (scn_vlan_set_has(v, (uint16_t)id))
			g_string_append_printf(s, "%s%u", s->len ? "," : "", id);
	return g_string_free(s, FALSE);
}

/* ---- stacks ------------------------------------------------------------------------- */

/* What the checks look up, built once. */
typedef struct check_ctx {
	GHashTable *by_pfid; /* PFID -> first adapter */
	bool any_broken_adapter;
	GHashTable *listeners; /* stack << 16 | port -> first listening app */
	GHashTable *by_ip;     /* address -> first stack << 32 | interface that has it */
	bool *stack_has_broken_app;
	uint64_t *start_event; /* per app: earliest `at … start app`, UINT64_MAX: none */
} check_ctx;

static void check_stack(scn_parser *P, const check_ctx *c, uint32_t si)
{
	scn_scenario *s = P->scn;
	scn_stack *st = &s->stacks[si];
	if (st->n_ifaces == 0) {
		scn_error(P->d, st->loc, "stack '%s' has no interface; expected at least one 'interface' statement in its block",
		          st->name);
	}
	for (uint32_t i = 0; i < st->n_ifaces; i++) {
		scn_interface *ifc = &st->ifaces[i];
		if (!iface_ok(P, si, i))
			continue;
		const scn_switch *sw = &s->switches[ifc->sw];
		if (ifc->vlan && !scn_vlan_set_has(&sw->vlans, ifc->vlan)) {
			char *l = vlan_list(&sw->vlans);
			scn_error(P->d, ifc->loc, "VLAN %u is not carried by switch '%s' (vlans=%s); expected a VLAN the switch carries",
			          ifc->vlan, sw->name, l);
			g_free(l);
		} else if (!ifc->vlan && !scn_vlan_set_has(&sw->vlans, 1)) {
			/* untagged frames travel on VLAN 1, the native VLAN, which this switch drops */
			char *l = vlan_list(&sw->vlans);
			scn_error(P->d, ifc->loc,
			          "untagged interface on switch '%s', which does not carry VLAN 1 (vlans=%s); expected vlan=ID "
			          "on the interface or 1 in the switch's vlans",
			          sw->name, l);
			g_free(l);
		}
	}
	/* routes: the gateway must be on one of the stack's subnets */
	for (size_t r = 0; r < st->n_routes; r++) {
		scn_route *rt = &st->routes[r];
		char via[SCN_FMT_LEN];
		addr_text_ipv4(rt->via, via, sizeof(via));
		for (uint32_t i = 0; i < st->n_ifaces && rt->iface == SCN_NONE; i++) {
			if (!iface_ok(P, si, i))
				continue;
			if (st->ifaces[i].ip == rt->via) {
				scn_error(P->d, rt->loc, "gateway %s is stack '%s''s own address; expected a neighbour's address", via,
				          st->name);
				rt->iface = i; /* reported; do not report again below */
				break;
			}
			if (on_subnet(&st->ifaces[i], rt->via))
				rt->iface = i;
		}
		if (rt->iface == SCN_NONE && st->n_ifaces) {
			GString *nets = g_string_new(NULL);
			for (uint32_t i = 0; i < st->n_ifaces; i++) {
				char a[SCN_FMT_LEN];
				addr_text_ipv4(st->ifaces[i].ip & ~host_mask(st->ifaces[i].prefix_len), a, sizeof(a));
				g_string_append_printf(nets, "%s%s/%u", i ? ", " : "", a, st->ifaces[i].prefix_len);
			}
			scn_error(P->d, rt->loc, "gateway %s is not on a subnet of stack '%s' (%s); expected an address on one of them",
			          via, st->name, nets->str);
			g_string_free(nets, TRUE);
		}
	}
	/* SMC-R activations: the PFID names an adapter, the port exists */
	for (size_t k = 0; k < st->n_smcr_ports; k++) {
		scn_smcr_port *p = &st->smcr_ports[k];
		size_t a;
		if (index_get(c->by_pfid, p->pfid, &a))
			p->adapter = (uint32_t)a;
		if (p->adapter == SCN_NONE) {
			if (c->any_broken_adapter)
				continue; /* a broken adapter may have had this PFID: reported there */
			GString *have = g_string_new(NULL);
			for (uint32_t i = 0; i < s->n_adapters && i < 8; i++)
				g_string_append_printf(have, "%s%04X (%s)", i ? ", " : "", s->adapters[i].pfid, s->adapters[i].name);
			if (s->n_adapters > 8)
				g_string_append(have, ", …");
			scn_error(P->d, p->loc, "no adapter has PFID %04X (%s); expected the pfid= of an adapter", p->pfid,
			          have->len ? have->str : "no adapters defined");
			g_string_free(have, TRUE);
			continue;
		}
		const scn_adapter *ad = &s->adapters[p->adapter];
		if (p->port > ad->n_ports)
			scn_error(P->d, p->loc, "adapter '%s' (PFID %04X) has one port; expected port=1", ad->name, ad->pfid);
		if (!p->mtu)
			p->mtu = st->smcr.mtu;
	}
}

static void check_addresses(scn_parser *P)
{
	scn_scenario *s = P->scn;
	/* (address, segment, VLAN) -> the first stack << 32 | interface that has it */
	GHashTable *owners = g_hash_table_new_full(mac_key_hash, mac_key_equal, g_free, NULL);
	for (uint32_t si = 0; si < s->n_stacks; si++) {
		const scn_stack *st = &s->stacks[si];
		for (uint32_t i = 0; i < st->n_ifaces; i++) {
			if (!iface_ok(P, si, i))
				continue;
			const scn_interface *ifc = &st->ifaces[i];
			mac_key k = { .vlan = ifc->vlan, .segment = s->switches[ifc->sw].segment };
			memcpy(k.mac, &ifc->ip, sizeof(ifc->ip));
			gpointer o;
			if (!g_hash_table_lookup_extended(owners, &k, NULL, &o)) {
				g_hash_table_insert(owners, g_memdup2(&k, sizeof(k)), GSIZE_TO_POINTER(((size_t)si << 32) | i));
				continue;
			}
			const scn_stack *os = &s->stacks[GPOINTER_TO_SIZE(o) >> 32];
			const scn_interface *oi = &os->ifaces[GPOINTER_TO_SIZE(o) & 0xffffffffu];
			char a[SCN_FMT_LEN], vl[24] = "untagged", at[96];
			if (ifc->vlan)
				snprintf(vl, sizeof(vl), "VLAN %u", ifc->vlan);
			scn_loc_text(oi->loc, at, sizeof(at));
			scn_error(P->d, ip_loc(P, si, i),
			          "address %s is already used by %s.%s (%s) on the same network (L2 segment of switch '%s', %s); expected a unique address",
			          addr_text_ipv4(ifc->ip, a, sizeof(a)), os->name, oi->name, at, s->switches[ifc->sw].name, vl);
		}
	}
	g_hash_table_destroy(owners);
}

/* ---- applications ------------------------------------------------------------------- */

/* The earliest time an app starts: start= or the first `at … start app`. */
static bool earliest_start(const scn_scenario *s, const check_ctx *c, uint32_t app, uint64_t *at)
{
	const scn_app *a = &s->apps[app];
	bool found = !a->start_never;
	uint64_t t = a->start_ns;
	uint64_t ev = c->start_event[app];
	if (ev != UINT64_MAX && (!found || ev < t)) {
		t = ev;
		found = true;
	}
	*at = t;
	return found;
}

/* For STACK:PORT: the destination interface on a subnet the client shares, else the
 * first one. */
static uint32_t pick_dst_iface(const scn_parser *P, const scn_app *app)
{
	const scn_scenario *s = P->scn;
	const scn_stack *dst = &s->stacks[app->dst_stack], *src = &s->stacks[app->stack];
	for (uint32_t i = 0; i < dst->n_ifaces; i++) {
		if (!iface_ok(P, app->dst_stack, i))
			continue;
		for (uint32_t j = 0; j < src->n_ifaces; j++)
			if (iface_ok(P, app->stack, j) && on_subnet(&src->ifaces[j], dst->ifaces[i].ip) &&
			    s->switches[src->ifaces[j].sw].segment == s->switches[dst->ifaces[i].sw].segment &&
			    src->ifaces[j].vlan == dst->ifaces[i].vlan)
				return i;
	}
	for (uint32_t i = 0; i < dst->n_ifaces; i++)
		if (iface_ok(P, app->dst_stack, i))
			return i;
	return SCN_NONE;
}

static const char *listener_kind_for(scn_app_kind k)
{
	return k == SCN_KIND_BULK ? "sink" : k == SCN_KIND_ECHO ? "echo"
	                                                        : "responder"; /* rr, crr */
}

static scn_app_kind listener_kind_enum(scn_app_kind k)
{
	return k == SCN_KIND_BULK ? SCN_KIND_SINK : k == SCN_KIND_ECHO ? SCN_KIND_ECHO
	                                                               : SCN_KIND_RESPONDER;
}

static void build_ctx(scn_parser *P, check_ctx *c)
{
	scn_scenario *s = P->scn;
	c->by_pfid = adapters_by_pfid(P);
	for (uint32_t a = 0; a < s->n_adapters; a++)
		c->any_broken_adapter |= scn_is_broken(P, SCN_BRK_ADAPTER, a);
	c->listeners = index_table();
	c->stack_has_broken_app = g_new0(bool, s->n_stacks + 1);
	for (uint32_t i = 0; i < s->n_apps; i++) {
		const scn_app *a = &s->apps[i];
		if (scn_is_broken(P, SCN_BRK_APP, i)) {
			if (a->stack != SCN_NONE)
				c->stack_has_broken_app[a->stack] = true;
			continue;
		}
		size_t first;
		gint64 key = ((gint64)a->stack << 16) | a->port;
		if (a->role == SCN_ROLE_LISTEN && !index_get(c->listeners, key, &first))
			index_put(c->listeners, key, i);
	}
	c->by_ip = index_table();
	for (uint32_t si = 0; si < s->n_stacks; si++)
		for (uint32_t k = 0; k < s->stacks[si].n_ifaces; k++) {
			size_t first;
			if (iface_ok(P, si, k) && !index_get(c->by_ip, s->stacks[si].ifaces[k].ip, &first))
				index_put(c->by_ip, s->stacks[si].ifaces[k].ip, ((size_t)si << 32) | k);
		}
	c->start_event = g_new(uint64_t, s->n_apps + 1);
	for (size_t i = 0; i < s->n_apps; i++)
		c->start_event[i] = UINT64_MAX;
	for (size_t e = 0; e < s->n_events; e++) {
		const scn_event *ev = &s->events[e];
		if (ev->kind == SCN_EV_START_APP && ev->at_ns < c->start_event[ev->target])
			c->start_event[ev->target] = ev->at_ns;
	}
}

static void free_ctx(check_ctx *c)
{
	g_hash_table_destroy(c->by_pfid);
	g_hash_table_destroy(c->listeners);
	g_hash_table_destroy(c->by_ip);
	g_free(c->stack_has_broken_app);
	g_free(c->start_event);
}

static void check_listeners(scn_parser *P, const check_ctx *c)
{
	scn_scenario *s = P->scn;
	/* one listener per stack and port */
	for (uint32_t i = 0; i < s->n_apps; i++) {
		const scn_app *a = &s->apps[i];
		size_t j;
		if (scn_is_broken(P, SCN_BRK_APP, i) || a->role != SCN_ROLE_LISTEN ||
		    !index_get(c->listeners, ((gint64)a->stack << 16) | a->port, &j) || j == i)
			continue;
		const scn_app *b = &s->apps[j];
		char at[96];
		scn_loc_text(b->loc, at, sizeof(at));
		scn_error(P->d, a->loc, "port %u of stack '%s' already has listener '%s' (%s); expected one listener per port",
		          a->port, s->stacks[a->stack].name, b->name, at);
	}
}

/* A connecting app's destination: its address, interface and listener. */
static void check_client(scn_parser *P, const check_ctx *c, uint32_t i, bool starts, uint64_t my_start)
{
	scn_scenario *s = P->scn;
	scn_app *a = &s->apps[i];
	char t1[SCN_FMT_LEN], t2[SCN_FMT_LEN];
	scn_loc ep = g_array_index(P->ep_loc, scn_loc, i);
	if (a->ep_form == SCN_EP_IP) {
		size_t owner;
		if (!index_get(c->by_ip, a->dst_ip, &owner)) {
			scn_error(P->d, ep, "no interface has address %s; expected the address of a stack's interface",
			          addr_text_ipv4(a->dst_ip, t1, sizeof(t1)));
			return;
		}
		a->dst_stack = (uint32_t)(owner >> 32);
		a->dst_iface = (uint32_t)(owner & 0xffffffffu);
	} else if (a->ep_form == SCN_EP_STACK) {
		a->dst_iface = pick_dst_iface(P, a);
		if (a->dst_iface == SCN_NONE)
			return; /* the stack has no usable interface: reported with the stack */
	}
	if (!iface_ok(P, a->dst_stack, a->dst_iface))
		return;
	a->dst_ip = s->stacks[a->dst_stack].ifaces[a->dst_iface].ip;
	const scn_stack *dst = &s->stacks[a->dst_stack];
	if (a->dst_stack == a->stack) {
		scn_error(P->d, ep, "app '%s' connects to its own stack '%s'; expected another stack", a->name, dst->name);
		return;
	}
	size_t l_index;
	if (!index_get(c->listeners, ((gint64)a->dst_stack << 16) | a->port, &l_index)) {
		/* a broken app on that stack may have been the listener: reported there */
		if (!c->stack_has_broken_app[a->dst_stack])
			scn_error(P->d, ep, "no app listens on %s port %u; expected an 'app NAME %s listen port=%u kind=%s'", dst->name,
			          a->port, dst->name, a->port, listener_kind_for(a->kind));
		return;
	}
	a->listener = (uint32_t)l_index;
	const scn_app *l = &s->apps[a->listener];
	if (l->kind != listener_kind_enum(a->kind)) {
		scn_error(P->d, ep, "app '%s' (kind=%s) connects to '%s' (kind=%s) on %s:%u; expected a listener with kind=%s",
		          a->name, scn_kind_name(a->kind), l->name, scn_kind_name(l->kind), dst->name, a->port,
		          listener_kind_for(a->kind));
		return;
	}
	uint64_t l_start;
	if (!earliest_start(s, c, a->listener, &l_start))
		return; /* reported for the listener */
	if (starts && my_start < l_start)
		scn_error(P->d, a->loc, "app '%s' starts at %s but its listener '%s' starts at %s; expected a start at or after %s",
		          a->name, scn_format_duration(my_start, t1, sizeof(t1)), l->name,
		          scn_format_duration(l_start, t2, sizeof(t2)), t2);
}

static void check_apps(scn_parser *P, const check_ctx *c)
{
	scn_scenario *s = P->scn;
	char t1[SCN_FMT_LEN], t2[SCN_FMT_LEN];
	check_listeners(P, c);
	for (uint32_t i = 0; i < s->n_apps; i++) {
		scn_app *a = &s->apps[i];
		if (scn_is_broken(P, SCN_BRK_APP, i))
			continue;
		uint64_t my_start;
		bool starts = earliest_start(s, c, i, &my_start);
		if (!starts)
			scn_error(P->d, a->loc, "app '%s' never starts (start=never and no 'at … start app %s'); expected one of them",
			          a->name, a->name);
		if (a->role != SCN_ROLE_CONNECT)
			continue;
		if (a->close == SCN_CLOSE_AT && starts && a->close_at_ns <= my_start)
			scn_error(P->d, a->loc, "close=%s of app '%s' is not after its start (%s); expected a later close time",
			          scn_format_duration(a->close_at_ns, t1, sizeof(t1)), a->name,
			          scn_format_duration(my_start, t2, sizeof(t2)));
		check_client(P, c, i, starts, my_start);
	}
}

/* ---- time, timeline, expectations ---------------------------------------------------- */

static void end_desc(const scn_parser *P, char *buf, size_t len)
{
	char t[SCN_FMT_LEN];
	scn_format_duration(P->scn->end_ns, t, sizeof(t));
	if (P->scn->has_end)
		snprintf(buf, len, "end %s at %u:%u", t, P->end_loc.line, P->end_loc.col);
	else
		snprintf(buf, len, "%s without an 'end' statement", t);
}

static void check_times(scn_parser *P)
{
	scn_scenario *s = P->scn;
	char t[SCN_FMT_LEN], e[80];
	end_desc(P, e, sizeof(e));
	for (size_t i = 0; i < s->n_events; i++) {
		const scn_event *ev = &s->events[i];
		if (ev->at_ns >= s->end_ns)
			scn_error(P->d, ev->loc, "time %s is not before the run's end (%s); expected an earlier time",
			          scn_format_duration(ev->at_ns, t, sizeof(t)), e);
	}
	for (uint32_t i = 0; i < s->n_apps; i++) {
		const scn_app *a = &s->apps[i];
		if (scn_is_broken(P, SCN_BRK_APP, i))
			continue;
		if (!a->start_never && a->start_ns >= s->end_ns && g_array_index(P->start_given, gboolean, i))
			scn_error(P->d, a->loc, "start=%s of app '%s' is not before the run's end (%s); expected an earlier time",
			          scn_format_duration(a->start_ns, t, sizeof(t)), a->name, e);
		if (a->close == SCN_CLOSE_AT && a->close_at_ns >= s->end_ns)
			scn_error(P->d, a->loc, "close=%s of app '%s' is not before the run's end (%s); expected an earlier time",
			          scn_format_duration(a->close_at_ns, t, sizeof(t)), a->name, e);
	}
}

static int by_time_then_order(const void *pa, const void *pb)
{
	const scn_event *a = pa, *b = pb;
	if (a->at_ns != b->at_ns)
		return a->at_ns < b->at_ns ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* "adapter 'R1' port 2" for messages, and "adapter R1 port=2" as it is written. */
static void target_phrase(const scn_scenario *s, const scn_event *ev, bool as_written, char *buf, size_t len)
{
	const char *q = as_written ? "" : "'";
	switch (ev->target_kind) {
	case SCN_TGT_ADAPTER:
		if (ev->port)
			snprintf(buf, len, "adapter %s%s%s %s%u", q, s->adapters[ev->target].name, q, as_written ? "port=" : "port ",
			         ev->port);
		else
			snprintf(buf, len, "adapter %s%s%s", q, s->adapters[ev->target].name, q);
		break;
	case SCN_TGT_WIRE: snprintf(buf, len, "wire %s%s%s", q, s->wires[ev->target].name, q); break;
	case SCN_TGT_SWITCH: snprintf(buf, len, "switch %s%s%s", q, s->switches[ev->target].name, q); break;
	case SCN_TGT_INTERFACE:
		snprintf(buf, len, "interface %s%s.%s%s", q, s->stacks[ev->stack].name,
		         s->stacks[ev->stack].ifaces[ev->target].name, q);
		break;
	case SCN_TGT_APP: snprintf(buf, len, "app %s%s%s", q, s->apps[ev->target].name, q); break;
	case SCN_TGT_NONE: snprintf(buf, len, "-"); break;
	}
}

typedef struct fail_state {
	scn_target_kind kind;
	uint32_t stack, target;
	uint8_t port;
	scn_loc failed_at; /* line 0: not failed */
} fail_state;

static void check_timeline(scn_parser *P)
{
	scn_scenario *s = P->scn;
	if (s->n_events > 1)
		qsort(s->events, s->n_events, sizeof(s->events[0]), by_time_then_order);
	/* (kind, stack, target, port) -> its state */
	GHashTable *states = g_hash_table_new_full(mac_key_hash, mac_key_equal, g_free, g_free);
	char t[SCN_FMT_LEN], name[96], written[96];
	for (size_t i = 0; i < s->n_events; i++) {
		scn_event *ev = &s->events[i];
		if (ev->target_kind == SCN_TGT_ADAPTER && ev->port && ev->port > s->adapters[ev->target].n_ports) {
			scn_error(P->d, ev->loc, "adapter '%s' has one port; expected port=1 or no port=", s->adapters[ev->target].name);
			continue;
		}
		if (ev->kind != SCN_EV_FAIL && ev->kind != SCN_EV_RESTORE)
			continue;
		mac_key key = { .vlan = (uint16_t)(ev->target_kind << 8 | ev->port), .segment = ev->target };
		memcpy(key.mac, &ev->stack, sizeof(ev->stack));
		fail_state *st = g_hash_table_lookup(states, &key);
		if (!st) {
			st = g_new0(fail_state, 1);
			*st = (fail_state){ ev->target_kind, ev->stack, ev->target, ev->port, { 0 } };
			g_hash_table_insert(states, g_memdup2(&key, sizeof(key)), st);
		}
		target_phrase(s, ev, false, name, sizeof(name));
		target_phrase(s, ev, true, written, sizeof(written));
		scn_format_duration(ev->at_ns, t, sizeof(t));
		if (ev->kind == SCN_EV_FAIL) {
			if (st->failed_at.line)
				scn_error(P->d, ev->loc, "%s fails again at %s but is still failed (since %u:%u); expected 'restore %s' in between",
				          name, t, st->failed_at.line, st->failed_at.col, written);
			else
				st->failed_at = ev->loc;
		} else {
			if (!st->failed_at.line)
				scn_error(P->d, ev->loc, "%s is restored at %s but is not failed then; expected an earlier 'fail %s'", name,
				          t, written);
			st->failed_at = (scn_loc){ 0 };
		}
	}
	g_hash_table_destroy(states);
}

static void check_instances(scn_parser *P)
{
	const scn_scenario *s = P->scn;
	for (guint i = 0; i < P->app_instances->len; i++) {
		const scn_instance_check *c = &g_array_index(P->app_instances, scn_instance_check, i);
		if (scn_is_broken(P, SCN_BRK_APP, c->app))
			continue;
		const scn_app *a = &s->apps[c->app];
		if (a->role != SCN_ROLE_CONNECT)
			scn_error(P->d, c->loc, "'%s.%u' names one connection of '%s', which listens; expected a connecting app",
			          a->name, c->instance, a->name);
		else if (c->instance > a->conns)
			scn_error(P->d, c->loc, "app '%s' has %u connection%s; expected %s.1 … %s.%u", a->name, a->conns,
			          a->conns == 1 ? "" : "s", a->name, a->name, a->conns);
	}
}

/* Results an app cannot have: transaction latencies of an app without transactions. */
static void check_result_expects(scn_parser *P)
{
	const scn_scenario *s = P->scn;
	for (size_t i = 0; i < s->n_expects; i++) {
		const scn_expect *e = &s->expects[i];
		if (e->metric != SCN_M_LATENCY || scn_is_broken(P, SCN_BRK_APP, e->app.app))
			continue;
		const scn_app *a = &s->apps[e->app.app];
		if (a->kind != SCN_KIND_RR && a->kind != SCN_KIND_CRR && a->kind != SCN_KIND_RESPONDER)
			scn_error(P->d, e->app_loc, "app '%s' (kind=%s) has no transactions; expected an app of kind rr, crr or responder",
			          a->name, scn_kind_name(a->kind));
	}
}

void scn_check(scn_parser *P)
{
	const scn_scenario *S = P->scn;
	/* an empty file (or only parameters, a title, an end): nothing to run; a fabric
	 * without stacks is valid (it checks switch buffers) and check warns (scn_warn.h) */
	if (!S->n_stacks && !S->n_switches && !S->n_adapters && !S->n_wires && !scn_diag_count(P->d))
		scn_error(P->d, (scn_loc){ P->scn->file, 0, 0 },
		          "no stack: nothing to simulate; expected at least one `stack NAME` block with an interface "
		          "(docs/scenario-format.md; smcr-sim --help names the sample scenarios)");
	compute_segments(P);
	check_wire_loops(P);
	check_ctx c = { 0 };
	build_ctx(P, &c);
	check_pfids(P, c.by_pfid);
	check_macs(P);
	for (uint32_t i = 0; i < P->scn->n_stacks; i++)
		if (!scn_is_broken(P, SCN_BRK_STACK, i))
			check_stack(P, &c, i);
	check_addresses(P);
	check_apps(P, &c);
	check_instances(P);
	check_result_expects(P);
	check_times(P);
	check_timeline(P);
	free_ctx(&c);
}
