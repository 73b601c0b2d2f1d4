/* The statements of a stack block: stack, interface, route, forwarding, smcr. */
#include <string.h>

#include "sim/addr/addr_text.h"
#include "sim/scenario/scn_attrs.h"
#include "sim/scenario/scn_values.h"

static const char *const personalities[] = { "zos", "linux", NULL };
/* host_profile_names() (sim/host/host_profile.c), in the same order */
static const char *const host_profiles[] = { "none", "linux", "zos", NULL };

static const scn_attr_spec stack_specs[] = {
	{ "personality", SCN_V_ENUM, 0, 0, personalities, NULL, NULL, false },
	{ "hostname", SCN_V_STRING, 0, SCN_HOSTNAME_MAX, NULL, NULL, NULL, false },
	{ "host", SCN_V_ENUM, 0, 0, host_profiles, NULL, NULL, false },
	{ "kernel", SCN_V_STRING, 0, 16, NULL, NULL, NULL, false },
};

enum { I_SWITCH = N_LINK_SPECS,
       I_IP,
       I_VLAN,
       I_MAC,
       I_PNETID };
static const scn_attr_spec iface_specs[] = {
	LINK_SPECS(576, 9216),
	{ "switch", SCN_V_NAME, 0, 0, NULL, NULL, "switch=NAME", true },
	{ "ip", SCN_V_PREFIX, 1, 32, NULL, NULL, "ip=A.B.C.D/LEN", true },
	{ "vlan", SCN_V_UINT, 1, 4094, NULL, NULL, NULL, false },
	{ "mac", SCN_V_MAC, 0, 0, NULL, NULL, NULL, false },
	{ "pnetid", SCN_V_PNETID, 0, 0, NULL, NULL, NULL, false },
};

static const scn_attr_spec route_specs[] = {
	{ "via", SCN_V_IPV4, 0, 0, NULL, NULL, "via=A.B.C.D", true },
};

static const scn_attr_spec pfid_specs[] = {
	{ "pfid", SCN_V_HEX, 0, 0xffff, NULL, NULL, "pfid=HEX", true },
	{ "port", SCN_V_UINT, 1, 2, NULL, scn_one_or_two, NULL, false },
	{ "mtu", SCN_V_UINT, 256, 4096, NULL, scn_roce_mtus, NULL, false },
};

static const scn_attr_spec smcr_specs[] = {
	{ "enable", SCN_V_BOOL, 0, 0, NULL, NULL, NULL, false },
	{ "mtu", SCN_V_UINT, 256, 4096, NULL, scn_roce_mtus, NULL, false },
	{ "fixedmemory", SCN_V_SIZE, 0, 1ULL << 40, NULL, NULL, NULL, false },
	/* RMBE sizes 16 KiB .. 512 MiB (size code 0..15) [digest §6.1] */
	{ "rmbsize", SCN_V_SIZE, 16384, 512ULL << 20, NULL, NULL, NULL, false },
	{ "sndbufsize", SCN_V_SIZE, 16384, 512ULL << 20, NULL, NULL, NULL, false },
	{ "v2", SCN_V_BOOL, 0, 0, NULL, NULL, NULL, false },
	{ "ueid", SCN_V_UEIDS, 0, 0, NULL, NULL, NULL, false },
	{ "keepalive", SCN_V_DURATION, 0, 24 * NS_H, NULL, NULL, NULL, false },
	{ "testlink", SCN_V_DURATION, 0, NS_H, NULL, NULL, NULL, false },
	/* smcr_max_links_per_lgr 1..2, smcr_max_conns_per_lgr 16..255 [lx-smc] */
	{ "maxlinks", SCN_V_UINT, 1, 2, NULL, NULL, NULL, false },
	{ "maxconns", SCN_V_UINT, 16, 255, NULL, NULL, NULL, false },
	/* SMC-Rv2 release offered: 0 (v2.0, Linux before 6.6) or 1 (v2.1) */
	{ "release", SCN_V_UINT, 0, 1, NULL, NULL, NULL, false },
	/* net.smc.autocorking_size (0 turns autocorking off), net.smc.limit_smc_hs */
	{ "autocork", SCN_V_SIZE, 0, 1ULL << 31, NULL, NULL, NULL, false },
	{ "limiths", SCN_V_BOOL, 0, 0, NULL, NULL, NULL, false },
	{ "hsqueue", SCN_V_UINT, 1, 65536, NULL, NULL, NULL, false },
};

/* What the kernel changes in a Linux stack's defaults (scn_kernel.c has the sources). */
static void apply_kernel(scn_smcr_config *c, scn_personality pers, scn_kernel k)
{
	scn_kernel_values kv;
	scn_kernel_values_for(pers == SCN_PERS_LINUX ? k : scn_kernel_default, &kv);
	c->v2_capable = pers != SCN_PERS_LINUX || kv.smcr_v2;
	if (pers != SCN_PERS_LINUX)
		return; /* z/OS: the table's values */
	c->v2 = c->v2 && kv.smcr_v2;
	c->release = kv.release;
	c->feature_mask = kv.feature_mask;
	c->rmbe_max_code = kv.rmbe_max_code;
	c->autocork = kv.autocork;
}

static void init_smcr_config(scn_parser *P, scn_smcr_config *c, scn_personality pers, scn_kernel k,
                             scn_loc loc)
{
	static const scn_attrs none = { .spec = smcr_specs, .n = N_SPECS(smcr_specs) };
	scn_val v;
	c->loc = loc;
	scn_attr_get(P, &none, "enable", "smcr", pers, &v, NULL);
	c->enable = v.b;
	scn_attr_get(P, &none, "mtu", "smcr", pers, &v, NULL);
	c->mtu = (uint32_t)v.u;
	scn_attr_get(P, &none, "fixedmemory", "smcr", pers, &v, NULL);
	c->fixedmemory = v.u;
	scn_attr_get(P, &none, "rmbsize", "smcr", pers, &v, NULL);
	c->rmbsize = v.u;
	scn_attr_get(P, &none, "sndbufsize", "smcr", pers, &v, NULL);
	c->sndbufsize = v.u;
	scn_attr_get(P, &none, "v2", "smcr", pers, &v, NULL);
	c->v2 = v.b;
	scn_attr_get(P, &none, "keepalive", "smcr", pers, &v, NULL);
	c->keepalive_ns = v.u;
	scn_attr_get(P, &none, "testlink", "smcr", pers, &v, NULL);
	c->testlink_ns = v.u;
	scn_attr_get(P, &none, "maxlinks", "smcr", pers, &v, NULL);
	c->maxlinks = (uint8_t)v.u;
	scn_attr_get(P, &none, "maxconns", "smcr", pers, &v, NULL);
	c->maxconns = (uint8_t)v.u;
	scn_attr_get(P, &none, "release", "smcr", pers, &v, NULL);
	c->release = (uint8_t)v.u;
	scn_attr_get(P, &none, "autocork", "smcr", pers, &v, NULL);
	c->autocork = v.u;
	scn_attr_get(P, &none, "limiths", "smcr", pers, &v, NULL);
	c->limiths = v.b;
	scn_attr_get(P, &none, "hsqueue", "smcr", pers, &v, NULL);
	c->hsqueue = (uint32_t)v.u;
	c->feature_mask = 0x0001;
	c->rmbe_max_code = 15;
	apply_kernel(c, pers, k);
}

void scn_stmt_stack(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "stack NAME [personality=zos|linux] [hostname=STRING] [host=none|linux|zos]";
	size_t np = scn_attr_positionals(P, st, usage);
	/* the block opens whatever goes wrong, so its inner statements and `end` are not
	 * reported as out of place */
	P->block = SCN_NONE;
	P->block_loc = st->loc;
	if (!scn_stmt_name_given(P, st, np, "stack", usage))
		return;
	uint32_t idx = scn_declare(P, SCN_SYM_STACK, st, (uint32_t)P->scn->n_stacks);
	if (idx == SCN_NONE)
		return;
	P->block = idx;
	scn_stack *s = SCN_PUSH(P->scn->stacks, P->scn->n_stacks);
	g_strlcpy(s->name, st->tok[1].value, sizeof(s->name));
	g_strlcpy(s->hostname, s->name, sizeof(s->hostname));
	s->loc = st->loc;
	GArray *ips = g_array_new(FALSE, TRUE, sizeof(scn_loc));
	g_array_append_val(P->ip_loc, ips);
	scn_loc none = { 0 };
	g_array_append_val(P->smcr_settings_loc, none);
	bool ok = scn_stmt_words_at_most(P, st, np, 2, usage);
	scn_attrs a = { 0 };
	scn_val v;
	bool given;
	if (ok)
		ok = scn_attr_collect(P, st, np, stack_specs, N_SPECS(stack_specs), "stack", &a);
	if (ok && (ok = scn_attr_get(P, &a, "personality", "stack", SCN_PERS_LINUX, &v, NULL)))
		s->personality = (scn_personality)v.u;
	else
		s->personality = SCN_PERS_LINUX;
	if (ok && (ok = scn_attr_get(P, &a, "hostname", "stack", s->personality, &v, &given)) && given) {
		if (!*v.s) {
			scn_error(P->d, a.tok[1]->vloc, "empty hostname; expected 1 to 32 characters");
			ok = false;
		} else {
			g_strlcpy(s->hostname, v.s, sizeof(s->hostname));
		}
	}
	s->kernel = scn_kernel_default;
	if (ok && (ok = scn_attr_get(P, &a, "kernel", "stack", s->personality, &v, &given)) && given) {
		const char *why;
		if (s->personality != SCN_PERS_LINUX) {
			scn_error(P->d, a.tok[3]->vloc, "kernel=%s on a z/OS stack; expected kernel= only with personality=linux",
			          scn_echo(P->d, v.s));
			ok = false;
		} else if (!scn_kernel_parse(v.s, &s->kernel, &why)) {
			scn_error(P->d, a.tok[3]->vloc, "bad kernel version '%s'; %s", scn_echo(P->d, v.s), why);
			ok = false;
		}
	}
	init_smcr_config(P, &s->smcr, s->personality, s->kernel, st->loc);
	s->host = *host_profile_find(s->personality == SCN_PERS_ZOS ? "zos" : "linux");
	if (ok && (ok = scn_attr_get(P, &a, "host", "stack", s->personality, &v, NULL)))
		s->host = *host_profile_find(host_profiles[v.u]);
	if (ok) {
		const scn_default *d = scn_default_find("stack", "forwarding");
		scn_parse_bool(d->value[s->personality], &s->forwarding, &(const char *){ NULL });
	}
	if (!ok)
		scn_mark_broken(P, SCN_BRK_STACK, idx);
}

/* What the stack's kernel does not have cannot be asked of it. */
static bool kernel_allows(scn_parser *P, const scn_stack *s, const scn_attrs *a, const scn_smcr_config *c)
{
	char kt[16];
	scn_kernel_text(s->kernel, kt, sizeof(kt));
	scn_kernel_values kv;
	scn_kernel_values_for(s->kernel, &kv);
	if (s->personality != SCN_PERS_LINUX)
		return true;
	for (size_t i = 0; i < a->n; i++) {
		const scn_token *t = a->tok[i];
		if (!t)
			continue;
		if (!strcmp(t->key, "v2") && c->v2 && !kv.smcr_v2) {
			scn_error(P->d, t->vloc, "v2=yes on kernel %s; expected SMC-Rv2 only with kernel 5.16 or later", kt);
			return false;
		}
		if (!strcmp(t->key, "release") && c->release && kv.release < 1) {
			scn_error(P->d, t->vloc, "release=1 on kernel %s; expected SMC-Rv2.1 only with kernel 6.6 or later", kt);
			return false;
		}
	}
	return true;
}

static scn_personality block_personality(const scn_parser *P)
{
	return P->block == SCN_NONE ? SCN_PERS_LINUX : P->scn->stacks[P->block].personality;
}

void scn_stmt_interface(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "interface NAME switch=NAME ip=A.B.C.D/LEN [vlan=ID] [mtu=N] [mac=MAC] …";
	size_t np = scn_attr_positionals(P, st, usage);
	if (!scn_stmt_name_given(P, st, np, "interface", usage))
		return;
	const char *why;
	if (!scn_name_token_ok(&st->tok[1])) {
		scn_valid_name(st->tok[1].value, &why);
		scn_error(P->d, st->tok[1].loc, "bad interface name '%s'; %s", scn_echo(P->d, st->tok[1].value),
		          st->tok[1].quoted ? "expected a name without quotes" : why);
		return;
	}
	if (P->block == SCN_NONE)
		return; /* the stack statement was broken; nothing to attach to */
	scn_stack *s = &P->scn->stacks[P->block];
	char *key = scn_iface_key(s->name, st->tok[1].value);
	scn_sym *e = g_hash_table_lookup(P->sym.ifaces, key);
	g_free(key);
	g_assert(e);
	if (e->ord != st->ord) {
		char at[96];
		scn_loc_text(e->loc, at, sizeof(at));
		scn_error(P->d, st->tok[1].loc, "duplicate interface '%s' in stack '%s' (first defined at %s); expected a unique name",
		          scn_echo(P->d, st->tok[1].value), s->name, at);
		return;
	}
	if (s->n_ifaces >= SCN_MAX_IFACES_PER_STACK) {
		scn_error(P->d, st->tok[1].loc, "interface %zu of stack '%s'; expected at most %u interfaces per stack",
		          s->n_ifaces + 1, s->name, SCN_MAX_IFACES_PER_STACK);
		P->limited = true;
		return;
	}
	g_assert(e->index == s->n_ifaces);
	uint32_t idx = (uint32_t)s->n_ifaces;
	scn_interface *ifc = SCN_PUSH(s->ifaces, s->n_ifaces);
	g_strlcpy(ifc->name, st->tok[1].value, sizeof(ifc->name));
	ifc->loc = st->loc;
	ifc->sw = SCN_NONE;
	GArray *ips = g_array_index(P->ip_loc, GArray *, P->block);
	g_array_append_val(ips, st->loc);
	bool ok = scn_stmt_words_at_most(P, st, np, 2, usage);
	scn_attrs a = { 0 };
	scn_val v;
	bool given;
	scn_personality pers = s->personality;
	if (ok)
		ok = scn_attr_collect(P, st, np, iface_specs, N_SPECS(iface_specs), "interface", &a);
	if (ok) {
		ifc->sw = scn_resolve(P, SCN_SYM_SWITCH, a.tok[I_SWITCH]->value, a.tok[I_SWITCH]->vloc);
		ok = ifc->sw != SCN_NONE;
	}
	if (ok && (ok = scn_attr_get(P, &a, "ip", "interface", pers, &v, NULL))) {
		ifc->ip = v.addr;
		ifc->prefix_len = v.len;
		g_array_index(ips, scn_loc, idx) = a.tok[I_IP]->vloc;
		if (v.len <= 30) {
			uint32_t host = v.len ? ~0u >> v.len : ~0u;
			if ((v.addr & host) == 0) {
				scn_error(P->d, a.tok[I_IP]->vloc, "%s is the subnet's own address; expected a host address",
				          scn_echo(P->d, a.tok[I_IP]->value));
				ok = false;
			} else if ((v.addr & host) == host) {
				scn_error(P->d, a.tok[I_IP]->vloc, "%s is the subnet's broadcast address; expected a host address",
				          scn_echo(P->d, a.tok[I_IP]->value));
				ok = false;
			}
		}
	}
	if (ok && (ok = scn_attr_get(P, &a, "vlan", "interface", pers, &v, NULL)))
		ifc->vlan = (uint16_t)v.u;
	scn_attr_link(P, &a, "interface", &ifc->link, &ok);
	if (ok && (ok = scn_attr_get(P, &a, "mac", "interface", pers, &v, &given))) {
		if (given) {
			memcpy(ifc->mac, v.mac, 6);
		} else {
			uint8_t m[6] = { 0x02, 0x00, (uint8_t)(ifc->ip >> 24), (uint8_t)(ifc->ip >> 16), (uint8_t)(ifc->ip >> 8),
				         (uint8_t)ifc->ip };
			memcpy(ifc->mac, m, 6);
		}
	}
	if (ok && (ok = scn_attr_get(P, &a, "pnetid", "interface", pers, &v, &given)) && given)
		g_strlcpy(ifc->pnetid, v.pnetid, sizeof(ifc->pnetid));
	if (!ok)
		scn_mark_broken(P, SCN_BRK_IFACE, ((uint64_t)P->block << 16) | idx);
}

void scn_stmt_route(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "route DEST/LEN via=A.B.C.D (or route default via=A.B.C.D)";
	size_t np = scn_attr_positionals(P, st, usage);
	if (np == SIZE_MAX)
		return;
	if (np != 2) {
		scn_error(P->d, np < 2 ? st->loc : st->tok[2].loc, "%s; expected %s",
		          np < 2 ? "missing destination" : "unexpected word", usage);
		return;
	}
	scn_route r = { .loc = st->loc, .iface = SCN_NONE };
	if (!scn_word_is(&st->tok[1], "default")) {
		static const scn_attr_spec dest = { "route", SCN_V_PREFIX, 0, 32, NULL, NULL, NULL, false };
		scn_val v;
		if (!scn_attr_value(P, "route", st->tok[1].value, st->tok[1].loc, &dest, &v))
			return;
		uint32_t host = v.len ? (v.len == 32 ? 0 : ~0u >> v.len) : ~0u;
		if (v.addr & host) {
			char net[SCN_FMT_LEN];
			addr_text_ipv4(v.addr & ~host, net, sizeof(net));
			scn_error(P->d, st->tok[1].loc, "%s has host bits set; expected %s/%u", scn_echo(P->d, st->tok[1].value), net, v.len);
			return;
		}
		r.dest = v.addr;
		r.prefix_len = v.len;
	}
	scn_attrs a = { 0 };
	scn_val v;
	if (!scn_attr_collect(P, st, np, route_specs, N_SPECS(route_specs), "route", &a))
		return;
	if (!scn_attr_get(P, &a, "via", NULL, SCN_PERS_LINUX, &v, NULL))
		return;
	r.via = v.addr;
	if (P->block == SCN_NONE)
		return;
	scn_stack *s = &P->scn->stacks[P->block];
	gint64 key = ((gint64)P->block << 38) | ((gint64)r.prefix_len << 32) | r.dest;
	gpointer first = g_hash_table_lookup(P->routes, &key);
	if (first) {
		char at[96];
		scn_loc_text(s->routes[GPOINTER_TO_SIZE(first) - 1].loc, at, sizeof(at));
		scn_error(P->d, st->tok[1].loc, "duplicate route to %s (first at %s); expected one route per destination",
		          scn_echo(P->d, st->tok[1].value), at);
		return;
	}
	*SCN_PUSH(s->routes, s->n_routes) = r;
	g_hash_table_insert(P->routes, g_memdup2(&key, sizeof(key)), GSIZE_TO_POINTER(s->n_routes));
}

void scn_stmt_forwarding(scn_parser *P, const scn_stmt *st)
{
	size_t np = scn_attr_positionals(P, st, "forwarding on|off");
	if (np == SIZE_MAX)
		return;
	if (np != 2 || st->n != 2) {
		scn_error(P->d, np < 2 ? st->loc : st->tok[2].loc, "%s; expected forwarding on|off",
		          np < 2 ? "missing on or off" : "unexpected word");
		return;
	}
	static const scn_attr_spec spec = { "forwarding", SCN_V_BOOL, 0, 0, NULL, NULL, NULL, false };
	scn_val v;
	if (!scn_attr_value(P, "forwarding", st->tok[1].value, st->tok[1].loc, &spec, &v))
		return;
	if (P->block != SCN_NONE)
		P->scn->stacks[P->block].forwarding = v.b;
}

void scn_stmt_smcr(scn_parser *P, const scn_stmt *st)
{
	size_t np = scn_attr_positionals(P, st, "smcr pfid=HEX … or smcr enable=yes|no …");
	if (np == SIZE_MAX)
		return;
	if (np != 1) {
		scn_error(P->d, st->tok[1].loc, "unexpected word '%s'; expected key=value attributes after smcr",
		          scn_echo(P->d, st->tok[1].value));
		return;
	}
	bool activation = false;
	for (size_t i = 1; i < st->n; i++)
		if (!strcmp(st->tok[i].key, "pfid"))
			activation = true;
	scn_personality pers = block_personality(P);
	scn_stack *s = P->block == SCN_NONE ? NULL : &P->scn->stacks[P->block];
	scn_attrs a = { 0 };
	scn_val v;
	bool given;
	if (activation) {
		if (!scn_attr_collect(P, st, 1, pfid_specs, N_SPECS(pfid_specs), "smcr pfid=", &a))
			return;
		scn_smcr_port port = { .loc = st->loc, .adapter = SCN_NONE };
		if (!scn_attr_get(P, &a, "pfid", "smcr pfid", pers, &v, NULL))
			return;
		port.pfid = (uint16_t)v.u;
		if (!scn_attr_get(P, &a, "port", "smcr pfid", pers, &v, NULL))
			return;
		port.port = (uint8_t)v.u;
		if (!scn_attr_get(P, &a, "mtu", "smcr pfid", pers, &v, &given))
			return;
		port.mtu = given ? (uint32_t)v.u : 0; /* 0: the stack's smcr mtu, filled in by the checker */
		if (s) {
			gint64 key = ((gint64)P->block << 24) | ((gint64)port.pfid << 8) | port.port;
			gpointer first = g_hash_table_lookup(P->activations, &key);
			if (first) {
				char at[96];
				scn_loc_text(s->smcr_ports[GPOINTER_TO_SIZE(first) - 1].loc, at, sizeof(at));
				scn_error(P->d, st->loc, "PFID %04X port %u is already active in stack '%s' (at %s); expected each port once",
				          port.pfid, port.port, s->name, at);
				return;
			}
			*SCN_PUSH(s->smcr_ports, s->n_smcr_ports) = port;
			g_hash_table_insert(P->activations, g_memdup2(&key, sizeof(key)), GSIZE_TO_POINTER(s->n_smcr_ports));
		}
		return;
	}
	scn_smcr_config c;
	if (s) {
		scn_loc *first = &g_array_index(P->smcr_settings_loc, scn_loc, P->block);
		if (first->line) {
			scn_error(P->d, st->loc, "repeated smcr settings (first at %u:%u); expected one 'smcr' settings statement per stack (activations use smcr pfid=…)",
			          first->line, first->col);
			return;
		}
		*first = st->loc;
		c = s->smcr;
	} else {
		init_smcr_config(P, &c, pers, scn_kernel_default, st->loc);
	}
	if (!scn_attr_collect(P, st, 1, smcr_specs, N_SPECS(smcr_specs), "smcr", &a))
		return;
	c.loc = st->loc;
	/* only what is written overrides the personality defaults set up with the stack */
#define OVERRIDE(key, field, expr)                                     \
	do {                                                           \
		if (!scn_attr_get(P, &a, key, NULL, pers, &v, &given)) \
			return;                                        \
		if (given)                                             \
			c.field = (expr);                              \
	} while (0)
	OVERRIDE("enable", enable, v.b);
	OVERRIDE("mtu", mtu, (uint32_t)v.u);
	OVERRIDE("fixedmemory", fixedmemory, v.u);
	OVERRIDE("rmbsize", rmbsize, v.u);
	OVERRIDE("sndbufsize", sndbufsize, v.u);
	OVERRIDE("v2", v2, v.b);
	OVERRIDE("keepalive", keepalive_ns, v.u);
	OVERRIDE("testlink", testlink_ns, v.u);
	OVERRIDE("maxlinks", maxlinks, (uint8_t)v.u);
	OVERRIDE("maxconns", maxconns, (uint8_t)v.u);
	OVERRIDE("release", release, (uint8_t)v.u);
	OVERRIDE("autocork", autocork, v.u);
	OVERRIDE("limiths", limiths, v.b);
	OVERRIDE("hsqueue", hsqueue, (uint32_t)v.u);
#undef OVERRIDE
	if (s && !kernel_allows(P, s, &a, &c))
		return;
	if (!scn_attr_get(P, &a, "ueid", NULL, pers, &v, &given))
		return;
	if (given) {
		c.n_ueids = v.n_ueids;
		memcpy(c.ueids, v.ueids, sizeof(c.ueids));
	}
	if (s)
		s->smcr = c;
}

/* ENDPOINT: STACK:PORT, STACK.IFACE:PORT or A.B.C.D:PORT. */
