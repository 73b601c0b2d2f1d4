/* The scenario parser: statements to the typed model (docs/scenario-format.md).
 *
 * Two passes over the text. The pre-scan only collects names (switches, wires, adapters,
 * stacks and their interfaces, apps), so any statement can name things defined further
 * down. The main pass parses every statement: the first error in a statement is reported
 * and the parser moves on to the next statement. An item whose statement had an error
 * is still entered under its name (so that references to it do not cascade into more
 * errors) and marked broken for the checker.
 *
 * Both passes read the statements the expander (scn_expand.c) makes of loops and
 * parameters; it yields the same statements to both, so a statement's place (its `ord`)
 * identifies it in both.
 *
 * This file holds the dispatch, the pre-scan and the run and fabric statements; the stack
 * block is in scn_parse_stack.c, apps, reports, expectations and the timeline in
 * scn_parse_apps.c, values and attributes in scn_attrs.c, names in scn_names.c. */
#include <inttypes.h>
#include <string.h>

#include "sim/scenario/scn_attrs.h"
#include "sim/scenario/scn_expand.h"
#include "sim/scenario/scn_values.h"

static const char *const roce_names[] = { "v1", "v2", "both", NULL };

static const char *const trust_names[] = { "pcp", "dscp", NULL };
enum { A_SW_BUFFER = 1,
       A_SW_ALPHA,
       A_SW_PFC,
       A_SW_XOFF,
       A_SW_XON,
       A_SW_HEADROOM,
       A_SW_QUANTA,
       A_SW_ECN,
       A_SW_KMIN,
       A_SW_KMAX,
       A_SW_PMAX,
       A_SW_TRUST };
static const scn_attr_spec switch_specs[] = {
	{ "vlans", SCN_V_VLANS, 0, 0, NULL, NULL, NULL, false },
	{ "buffer", SCN_V_SIZE, 0, 1ULL << 32, NULL, NULL, NULL, false },
	{ "alpha", SCN_V_RATIO, 0, 0, NULL, NULL, NULL, false },
	{ "pfc", SCN_V_HEX, 0, 0xff, NULL, NULL, NULL, false },
	{ "xoff", SCN_V_SIZE, 0, 1ULL << 32, NULL, NULL, NULL, false },
	{ "xon", SCN_V_SIZE, 0, 1ULL << 32, NULL, NULL, NULL, false },
	{ "headroom", SCN_V_SIZE, 0, 1ULL << 30, NULL, NULL, NULL, false },
	{ "quanta", SCN_V_UINT, 1, 0xffff, NULL, NULL, NULL, false },
	{ "ecn", SCN_V_BOOL, 0, 0, NULL, NULL, NULL, false },
	{ "kmin", SCN_V_SIZE, 0, 1ULL << 32, NULL, NULL, NULL, false },
	{ "kmax", SCN_V_SIZE, 1, 1ULL << 32, NULL, NULL, NULL, false },
	{ "pmax", SCN_V_RATIO, 0, 0, NULL, NULL, NULL, false },
	{ "trust", SCN_V_ENUM, 0, 0, trust_names, NULL, NULL, false },
};

static const scn_attr_spec wire_specs[] = {
	LINK_SPECS(576, 9216),
	{ "vlans", SCN_V_VLANS, 0, 0, NULL, NULL, NULL, false },
};

enum { A_PFID = N_LINK_SPECS,
       A_PORTS,
       A_SWITCH,
       A_SWITCH2,
       A_MAC,
       A_MAC2,
       A_PNETID,
       A_PNETID2,
       A_ROCE };
static const scn_attr_spec adapter_specs[] = {
	LINK_SPECS(256, 4096), /* mtu: the RoCE MTU, restricted to scn_roce_mtus below */
	{ "pfid", SCN_V_HEX, 0, 0xffff, NULL, NULL, "pfid=HEX", true },
	{ "ports", SCN_V_UINT, 1, 2, NULL, scn_one_or_two, NULL, false },
	{ "switch", SCN_V_NAME, 0, 0, NULL, NULL, "switch=NAME", true },
	{ "switch2", SCN_V_NAME, 0, 0, NULL, NULL, "switch2=NAME", false },
	{ "mac", SCN_V_MAC, 0, 0, NULL, NULL, NULL, false },
	{ "mac2", SCN_V_MAC, 0, 0, NULL, NULL, NULL, false },
	{ "pnetid", SCN_V_PNETID, 0, 0, NULL, NULL, NULL, false },
	{ "pnetid2", SCN_V_PNETID, 0, 0, NULL, NULL, NULL, false },
	{ "roce", SCN_V_ENUM, 0, 0, roce_names, NULL, NULL, false },
	/* congestion (sim/rdma/rnic.h rnic_cc_config, sim/rdma/dcqcn.h) */
	{ "dcqcn", SCN_V_BOOL, 0, 0, NULL, NULL, NULL, false },
	{ "prio", SCN_V_UINT, 0, 7, NULL, NULL, NULL, false },
	{ "dscp", SCN_V_UINT, 0, 63, NULL, NULL, NULL, false },
	{ "cnpprio", SCN_V_UINT, 0, 7, NULL, NULL, NULL, false },
	{ "cnpdscp", SCN_V_UINT, 0, 63, NULL, NULL, NULL, false },
	{ "cnpinterval", SCN_V_DURATION, 0, 10 * NS_S / 1000, NULL, NULL, NULL, false },
	{ "txwindow", SCN_V_DURATION, 0, NS_S / 1000, NULL, NULL, NULL, false },
	{ "dcqcn_g", SCN_V_RATIO, 0, 0, NULL, NULL, NULL, false },
	{ "alphatimer", SCN_V_DURATION, 1000, 100 * NS_S / 1000, NULL, NULL, NULL, false },
	{ "ratetimer", SCN_V_DURATION, 1000, 100 * NS_S / 1000, NULL, NULL, NULL, false },
	{ "bytecounter", SCN_V_SIZE, 0, 1ULL << 30, NULL, NULL, NULL, false },
	{ "recovery", SCN_V_UINT, 1, 64, NULL, NULL, NULL, false },
	{ "rai", SCN_V_RATE, 1000, 1000000000000ULL, NULL, NULL, NULL, false },
	{ "rhai", SCN_V_RATE, 1000, 1000000000000ULL, NULL, NULL, NULL, false },
	{ "minrate", SCN_V_RATE, 1000, 1000000000000ULL, NULL, NULL, NULL, false },
	{ "rxstall", SCN_V_DURATION, 0, 3600 * NS_S, NULL, NULL, NULL, false },
	{ "rxstallfor", SCN_V_DURATION, 1000, 10 * NS_S, NULL, NULL, NULL, false },
};

static uint64_t brk_key(unsigned kind, uint64_t index)
{
	return ((uint64_t)kind << 56) | index;
}

bool scn_is_broken(const scn_parser *P, unsigned kind, uint64_t index)
{
	uint64_t k = brk_key(kind, index);
	return g_hash_table_contains(P->broken, &k);
}

void scn_mark_broken(scn_parser *P, unsigned kind, uint64_t index)
{
	uint64_t *k = g_new(uint64_t, 1);
	*k = brk_key(kind, index);
	g_hash_table_add(P->broken, k);
}

/* ---- run settings and fabric ----------------------------------------------------- */

static void once(scn_parser *P, scn_loc *first, const scn_stmt *st, const char *kw, bool *ok)
{
	if (first->line) {
		scn_error(P->d, st->loc, "repeated '%s' (first at %u:%u); expected one '%s' statement", kw, first->line,
		          first->col, kw);
		*ok = false;
		return;
	}
	*first = st->loc;
}

static void stmt_scenario(scn_parser *P, const scn_stmt *st)
{
	bool ok = true;
	size_t np = scn_attr_positionals(P, st, "scenario \"TITLE\"");
	if (np == SIZE_MAX)
		return;
	if (np != 2 || st->n != 2) {
		scn_error(P->d, np < 2 ? st->loc : st->tok[2].loc, "%s; expected scenario \"TITLE\"",
		          np < 2 ? "missing title" : "more than one title");
		return;
	}
	once(P, &P->title_loc, st, "scenario", &ok);
	if (ok) {
		g_free(P->scn->title);
		P->scn->title = g_strdup(st->tok[1].value);
	}
}

static void stmt_seed(scn_parser *P, const scn_stmt *st)
{
	bool ok = true;
	size_t np = scn_attr_positionals(P, st, "seed N");
	if (np == SIZE_MAX)
		return;
	if (np != 2 || st->n != 2) {
		scn_error(P->d, np < 2 ? st->loc : st->tok[2].loc, "%s; expected seed N",
		          np < 2 ? "missing seed value" : "unexpected word after the seed");
		return;
	}
	uint64_t seed;
	char err[256];
	if (!scn_parse_seed(st->tok[1].value, &seed, err, sizeof(err))) {
		scn_error(P->d, st->tok[1].loc, "%s", err);
		return;
	}
	once(P, &P->seed_loc, st, "seed", &ok);
	if (ok) {
		P->scn->seed = seed;
		P->scn->has_seed = true;
	}
}

static void stmt_end_time(scn_parser *P, const scn_stmt *st)
{
	bool ok = true;
	size_t np = scn_attr_positionals(P, st, "end TIME");
	if (np == SIZE_MAX)
		return;
	if (np == 1 && st->n == 1) {
		scn_error(P->d, st->loc, "'end' without an open block; expected 'end TIME' to set the run's end time");
		return;
	}
	if (np != 2 || st->n != 2) {
		scn_error(P->d, st->tok[np < 2 ? 1 : 2].loc, "unexpected word; expected end TIME");
		return;
	}
	uint64_t ns;
	char err[256];
	if (!scn_parse_end_time(st->tok[1].value, &ns, err, sizeof(err))) {
		scn_error(P->d, st->tok[1].loc, "%s", err);
		return;
	}
	once(P, &P->end_loc, st, "end", &ok);
	if (ok) {
		P->scn->end_ns = ns;
		P->scn->has_end = true;
	}
}

static void qos_get(scn_parser *P, const scn_attrs *a, const char *key, scn_val *v, bool *ok)
{
	if (*ok)
		*ok = scn_attr_get(P, a, key, "switch", SCN_PERS_LINUX, v, NULL);
	else
		memset(v, 0, sizeof(*v)); /* the statement is broken: nothing is read from v */
}

/* The congestion attributes, with the checks that join two of them. */
static void switch_qos(scn_parser *P, const scn_attrs *a, scn_switch_qos *q, bool *ok)
{
	scn_val v;
	qos_get(P, a, "buffer", &v, ok);
	q->buffer = v.u;
	qos_get(P, a, "alpha", &v, ok);
	q->alpha = v.r;
	if (*ok && q->alpha.num == 0) {
		scn_error(P->d, a->tok[A_SW_ALPHA]->vloc, "alpha=%s leaves no buffer to anyone; expected a ratio above 0",
		          scn_echo(P->d, a->tok[A_SW_ALPHA]->value));
		*ok = false;
	}
	qos_get(P, a, "pfc", &v, ok);
	q->pfc = (uint8_t)v.u;
	qos_get(P, a, "xoff", &v, ok);
	q->xoff = v.u;
	qos_get(P, a, "xon", &v, ok);
	q->xon = v.u;
	qos_get(P, a, "headroom", &v, ok);
	q->headroom = v.u;
	qos_get(P, a, "quanta", &v, ok);
	q->quanta = (uint16_t)v.u;
	qos_get(P, a, "ecn", &v, ok);
	q->ecn = v.b;
	qos_get(P, a, "kmin", &v, ok);
	q->kmin = v.u;
	qos_get(P, a, "kmax", &v, ok);
	q->kmax = v.u;
	qos_get(P, a, "pmax", &v, ok);
	q->pmax = v.r;
	qos_get(P, a, "trust", &v, ok);
	q->trust_dscp = v.u == 1;
	if (!*ok)
		return;
	if (q->xoff && q->xon >= q->xoff) {
		scn_error(P->d, a->tok[A_SW_XON] ? a->tok[A_SW_XON]->vloc : a->tok[A_SW_XOFF]->vloc,
		          "xon=%" PRIu64 " is not below xoff=%" PRIu64 "; expected xon < xoff", q->xon, q->xoff);
		*ok = false;
	} else if (q->kmin >= q->kmax) {
		scn_error(P->d, a->tok[A_SW_KMIN] ? a->tok[A_SW_KMIN]->vloc : a->tok[A_SW_KMAX]->vloc,
		          "kmin=%" PRIu64 " is not below kmax=%" PRIu64 "; expected kmin < kmax", q->kmin, q->kmax);
		*ok = false;
	} else if (!q->buffer) {
		/* congestion settings without a buffer would silently do nothing */
		static const int need_buffer[] = { A_SW_ALPHA, A_SW_PFC, A_SW_XOFF, A_SW_XON, A_SW_HEADROOM, A_SW_QUANTA,
			                           A_SW_ECN, A_SW_KMIN, A_SW_KMAX, A_SW_PMAX, A_SW_TRUST };
		for (size_t i = 0; i < sizeof(need_buffer) / sizeof(need_buffer[0]); i++)
			if (a->tok[need_buffer[i]]) {
				scn_error(P->d, a->tok[need_buffer[i]]->loc, "%s= needs a switch buffer; expected buffer=SIZE too",
				          a->tok[need_buffer[i]]->key);
				*ok = false;
				break;
			}
	}
}

static void stmt_switch(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "switch NAME [vlans=LIST]";
	size_t np = scn_attr_positionals(P, st, usage);
	if (!scn_stmt_name_given(P, st, np, "switch", usage))
		return;
	uint32_t idx = scn_declare(P, SCN_SYM_SWITCH, st, (uint32_t)P->scn->n_switches);
	if (idx == SCN_NONE)
		return;
	scn_switch *sw = SCN_PUSH(P->scn->switches, P->scn->n_switches);
	g_strlcpy(sw->name, st->tok[1].value, sizeof(sw->name));
	sw->loc = st->loc;
	sw->vlans.all = true;
	bool ok = scn_stmt_words_at_most(P, st, np, 2, usage);
	scn_attrs a = { 0 };
	scn_val v;
	if (ok)
		ok = scn_attr_collect(P, st, np, switch_specs, N_SPECS(switch_specs), "switch", &a);
	if (ok && (ok = scn_attr_get(P, &a, "vlans", "switch", SCN_PERS_LINUX, &v, NULL)))
		sw->vlans = v.vlans;
	switch_qos(P, &a, &sw->qos, &ok);
	if (!ok)
		scn_mark_broken(P, SCN_BRK_SWITCH, idx);
}

static void stmt_wire(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "wire NAME SWITCH SWITCH [latency=…] [bandwidth=…] [mtu=N] [loss=…] [vlans=LIST]";
	size_t np = scn_attr_positionals(P, st, usage);
	if (!scn_stmt_name_given(P, st, np, "wire", usage))
		return;
	uint32_t idx = scn_declare(P, SCN_SYM_WIRE, st, (uint32_t)P->scn->n_wires);
	if (idx == SCN_NONE)
		return;
	scn_wire *w = SCN_PUSH(P->scn->wires, P->scn->n_wires);
	g_strlcpy(w->name, st->tok[1].value, sizeof(w->name));
	w->loc = st->loc;
	w->sw_a = w->sw_b = SCN_NONE;
	bool ok = np != SIZE_MAX;
	if (ok && np != 4) {
		if (np < 4)
			scn_error(P->d, st->loc, "wire '%s' needs two switches; expected %s", w->name, usage);
		else
			scn_error(P->d, st->tok[4].loc, "unexpected word '%s'; expected %s", scn_echo(P->d, st->tok[4].value), usage);
		ok = false;
	}
	scn_attrs a = { 0 };
	scn_val v;
	if (ok)
		ok = scn_attr_collect(P, st, np, wire_specs, N_SPECS(wire_specs), "wire", &a);
	if (ok) {
		w->sw_a = scn_resolve(P, SCN_SYM_SWITCH, st->tok[2].value, st->tok[2].loc);
		ok = w->sw_a != SCN_NONE;
	}
	if (ok) {
		w->sw_b = scn_resolve(P, SCN_SYM_SWITCH, st->tok[3].value, st->tok[3].loc);
		ok = w->sw_b != SCN_NONE;
	}
	if (ok && w->sw_a == w->sw_b) {
		scn_error(P->d, st->tok[3].loc, "wire '%s' joins switch '%s' to itself; expected two different switches",
		          w->name, scn_echo(P->d, st->tok[3].value));
		ok = false;
	}
	scn_attr_link(P, &a, "wire", &w->link, &ok);
	if (ok && (ok = scn_attr_get(P, &a, "vlans", "wire", SCN_PERS_LINUX, &v, NULL)))
		w->vlans = v.vlans;
	if (!ok)
		scn_mark_broken(P, SCN_BRK_WIRE, idx);
}

static void derived_adapter_mac(uint8_t mac[6], uint16_t pfid, uint8_t port)
{
	mac[0] = 0x02;
	mac[1] = 0x01;
	mac[2] = (uint8_t)(pfid >> 8);
	mac[3] = (uint8_t)pfid;
	mac[4] = 0;
	mac[5] = port;
}

/* The congestion attributes: every one has a default row in scn_defaults.c except the
 * priority ones, which are unset (-1) unless written. */
static void adapter_cc(scn_parser *P, const scn_attrs *a, scn_adapter_cc *cc, bool *ok)
{
	scn_val v;
	bool given;
	const char *sc = "adapter";
	scn_personality px = SCN_PERS_LINUX;
#define GET(key) (*ok && (*ok = scn_attr_get(P, a, key, sc, px, &v, &given)))
	if (GET("dcqcn"))
		cc->dcqcn = v.b;
	cc->pcp = GET("prio") && given ? (int)v.u : -1;
	cc->dscp = GET("dscp") && given ? (int)v.u : -1;
	if (GET("cnpprio"))
		cc->cnp_pcp = (uint8_t)v.u;
	if (GET("cnpdscp"))
		cc->cnp_dscp = (uint8_t)v.u;
	if (GET("cnpinterval"))
		cc->cnp_interval_ns = v.u;
	if (GET("txwindow")) {
		cc->txwindow_ns = v.u;
		cc->txwindow_given = given;
	}
	if (GET("dcqcn_g")) {
		cc->g = v.r;
		if (v.r.num == 0) {
			for (size_t i = 0; i < a->n; i++)
				if (a->tok[i] && !strcmp(a->spec[i].key, "dcqcn_g"))
					scn_error(P->d, a->tok[i]->vloc, "dcqcn_g=%s makes alpha stand still; expected a gain above 0 such as 1/256",
					          scn_echo(P->d, a->tok[i]->value));
			*ok = false;
		}
	}
	if (GET("alphatimer"))
		cc->alpha_timer_ns = v.u;
	if (GET("ratetimer"))
		cc->rate_timer_ns = v.u;
	if (GET("bytecounter"))
		cc->byte_counter = v.u;
	if (GET("recovery"))
		cc->recovery = (uint32_t)v.u;
	if (GET("rai"))
		cc->rai_bps = v.u;
	if (GET("rhai"))
		cc->rhai_bps = v.u;
	if (GET("minrate"))
		cc->min_bps = v.u;
	if (GET("rxstall") && given) {
		cc->rx_stall = true;
		cc->rx_stall_ns = v.u;
	}
	if (GET("rxstallfor"))
		cc->rx_stall_for_ns = v.u;
#undef GET
}

static void stmt_adapter(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "adapter NAME pfid=HEX switch=NAME [ports=1|2] [switch2=NAME] …";
	size_t np = scn_attr_positionals(P, st, usage);
	if (!scn_stmt_name_given(P, st, np, "adapter", usage))
		return;
	uint32_t idx = scn_declare(P, SCN_SYM_ADAPTER, st, (uint32_t)P->scn->n_adapters);
	if (idx == SCN_NONE)
		return;
	scn_adapter *ad = SCN_PUSH(P->scn->adapters, P->scn->n_adapters);
	g_strlcpy(ad->name, st->tok[1].value, sizeof(ad->name));
	ad->loc = st->loc;
	ad->port[0].sw = ad->port[1].sw = SCN_NONE;
	scn_loc pfid_loc = st->loc;
	bool ok = scn_stmt_words_at_most(P, st, np, 2, usage);
	scn_attrs a = { 0 };
	scn_val v;
	bool given;
	if (ok)
		ok = scn_attr_collect(P, st, np, adapter_specs, N_SPECS(adapter_specs), "adapter", &a);
	if (ok && (ok = scn_attr_get(P, &a, "pfid", "adapter", SCN_PERS_LINUX, &v, NULL))) {
		ad->pfid = (uint16_t)v.u;
		pfid_loc = a.tok[A_PFID]->vloc;
	}
	if (ok && (ok = scn_attr_get(P, &a, "ports", "adapter", SCN_PERS_LINUX, &v, NULL)))
		ad->n_ports = (uint8_t)v.u;
	if (ok && (ok = scn_attr_get(P, &a, "mtu", "adapter", SCN_PERS_LINUX, &v, &given))) {
		if (!scn_attr_in_allowed(scn_roce_mtus, v.u)) {
			scn_error(P->d, a.tok[2]->vloc, "mtu=%s is not allowed; expected 256, 512, 1024, 2048 or 4096",
			          scn_echo(P->d, a.tok[2]->value));
			ok = false;
		}
		ad->mtu = (uint32_t)v.u;
	}
	if (ok && (ok = scn_attr_get(P, &a, "roce", "adapter", SCN_PERS_LINUX, &v, NULL)))
		ad->roce = (scn_roce)(v.u + 1);
	scn_attr_link(P, &a, "adapter", &ad->link, &ok);
	ad->link.mtu = 0;
	adapter_cc(P, &a, &ad->cc, &ok);
	if (ok) {
		ad->port[0].sw = scn_resolve(P, SCN_SYM_SWITCH, a.tok[A_SWITCH]->value, a.tok[A_SWITCH]->vloc);
		ok = ad->port[0].sw != SCN_NONE;
	}
	/* port-2 attributes need a second port */
	static const int port2_attrs[] = { A_SWITCH2, A_MAC2, A_PNETID2 };
	for (size_t i = 0; ok && i < 3; i++) {
		const scn_token *t = a.tok[port2_attrs[i]];
		if (t && ad->n_ports == 1) {
			scn_error(P->d, t->loc, "%s= describes port 2 but adapter '%s' has one port; expected ports=2 with it",
			          scn_echo(P->d, t->key), ad->name);
			ok = false;
		}
	}
	if (ok && ad->n_ports == 2) {
		if (!a.tok[A_SWITCH2]) {
			scn_error(P->d, st->loc, "missing attribute 'switch2' for adapter '%s' with ports=2; expected switch2=NAME",
			          ad->name);
			ok = false;
		} else {
			ad->port[1].sw = scn_resolve(P, SCN_SYM_SWITCH, a.tok[A_SWITCH2]->value, a.tok[A_SWITCH2]->vloc);
			ok = ad->port[1].sw != SCN_NONE;
		}
	}
	for (uint8_t p = 0; ok && p < ad->n_ports; p++) {
		if ((ok = scn_attr_get(P, &a, p ? "mac2" : "mac", "adapter", SCN_PERS_LINUX, &v, &given))) {
			if (given)
				memcpy(ad->port[p].mac, v.mac, 6);
			else
				derived_adapter_mac(ad->port[p].mac, ad->pfid, (uint8_t)(p + 1));
		}
		if (ok && (ok = scn_attr_get(P, &a, p ? "pnetid2" : "pnetid", "adapter", SCN_PERS_LINUX, &v, &given)) && given)
			g_strlcpy(ad->port[p].pnetid, v.pnetid, sizeof(ad->port[p].pnetid));
	}
	g_array_append_val(P->pfid_loc, pfid_loc);
	if (!ok)
		scn_mark_broken(P, SCN_BRK_ADAPTER, idx);
}

/* ---- statement dispatch ----------------------------------------------------------- */

typedef void (*stmt_fn)(scn_parser *P, const scn_stmt *st);

static const struct stmt_def {
	const char *kw;
	stmt_fn fn;
	bool in_stack; /* belongs inside a stack block */
} stmts[] = {
	{ "scenario", stmt_scenario, false },
	{ "seed", stmt_seed, false },
	{ "end", stmt_end_time, false },
	{ "switch", stmt_switch, false },
	{ "wire", stmt_wire, false },
	{ "adapter", stmt_adapter, false },
	{ "stack", scn_stmt_stack, false },
	{ "app", scn_stmt_app, false },
	{ "at", scn_stmt_at, false },
	{ "expect", scn_stmt_expect, false },
	{ "report", scn_stmt_report, false },
	{ "interface", scn_stmt_interface, true },
	{ "route", scn_stmt_route, true },
	{ "forwarding", scn_stmt_forwarding, true },
	{ "smcr", scn_stmt_smcr, true },
	{ "host", scn_stmt_host, true },
	{ "tcp", scn_stmt_tcp, true },
};

static const struct stmt_def *find_stmt(const scn_token *t)
{
	if (t->key || t->quoted)
		return NULL;
	for (size_t i = 0; i < N_SPECS(stmts); i++)
		if (!strcmp(stmts[i].kw, t->value))
			return &stmts[i];
	return NULL;
}

scn_kw_class scn_keyword_class(const scn_token *t)
{
	const struct stmt_def *def = find_stmt(t);
	return !def ? SCN_KW_UNKNOWN : def->in_stack ? SCN_KW_IN_STACK
	                                             : SCN_KW_TOP;
}

static char *stmt_list(bool in_stack)
{
	GString *s = g_string_new(NULL);
	for (size_t i = 0; i < N_SPECS(stmts); i++)
		if (stmts[i].in_stack == in_stack)
			g_string_append_printf(s, "%s%s", s->len ? ", " : "", stmts[i].kw);
	if (in_stack)
		g_string_append(s, ", end");
	return g_string_free(s, FALSE);
}

/* The pre-scan: enter every name the main pass will enter, at the same index. It follows
 * the same block rules as the main pass and reports nothing. */
static void prescan(scn_parser *P, scn_expander *x)
{
	scn_diag quiet;
	scn_diag_init(&quiet);
	scn_expand_rewind(x, &quiet, NULL);
	scn_stmt st;
	bool in_block = false;
	const char *stack_name = NULL;
	char *stack_copy = NULL;
	uint32_t stack_index = 0;
	while (scn_expand_next(x, &st)) {
		scn_diag_clear(&quiet);
		if (st.n == 0)
			continue;
		const struct stmt_def *def = find_stmt(&st.tok[0]);
		if (in_block) {
			if (scn_word_is(&st.tok[0], "end")) {
				in_block = false;
				continue;
			}
			if (def && def->in_stack) {
				if (!strcmp(def->kw, "interface") && stack_name && st.n > 1 && scn_name_token_ok(&st.tok[1]))
					scn_sym_add_iface(&P->sym, stack_index, stack_name, st.tok[1].value, st.tok[1].loc, st.ord);
				continue;
			}
			if (!def)
				continue;
			in_block = false; /* a top-level statement closes the block */
		}
		if (!def || def->in_stack || st.n < 2 || !scn_name_token_ok(&st.tok[1]))
			goto maybe_block;
		if (!strcmp(def->kw, "switch"))
			scn_sym_add(&P->sym, SCN_SYM_SWITCH, st.tok[1].value, st.tok[1].loc, st.ord);
		else if (!strcmp(def->kw, "wire"))
			scn_sym_add(&P->sym, SCN_SYM_WIRE, st.tok[1].value, st.tok[1].loc, st.ord);
		else if (!strcmp(def->kw, "adapter"))
			scn_sym_add(&P->sym, SCN_SYM_ADAPTER, st.tok[1].value, st.tok[1].loc, st.ord);
		else if (!strcmp(def->kw, "app"))
			scn_sym_add(&P->sym, SCN_SYM_APP, st.tok[1].value, st.tok[1].loc, st.ord);
	maybe_block:
		if (def && !strcmp(def->kw, "stack")) {
			in_block = true;
			stack_name = NULL;
			if (st.n >= 2 && scn_name_token_ok(&st.tok[1]) &&
			    (stack_index = scn_sym_add(&P->sym, SCN_SYM_STACK, st.tok[1].value, st.tok[1].loc, st.ord)) != SCN_NONE) {
				g_free(stack_copy);
				stack_copy = g_strdup(st.tok[1].value);
				stack_name = stack_copy;
			}
		}
	}
	g_free(stack_copy);
	scn_diag_free(&quiet);
}

/* A definition whose statement had a lexical error: enter its name (as the pre-scan did)
 * with an item marked broken, so that later references to it raise nothing. Only the
 * keyword and the name are looked at; whatever the handler says about the rest is
 * dropped, as the statement has been reported once already. */
static void placeholder(scn_parser *P, const struct stmt_def *def, const scn_stmt *st)
{
	static const struct {
		const char *kw;
		unsigned brk;
	} defs[] = {
		{ "switch", SCN_BRK_SWITCH },
		{ "wire", SCN_BRK_WIRE },
		{ "adapter", SCN_BRK_ADAPTER },
		{ "stack", SCN_BRK_STACK },
		{ "app", SCN_BRK_APP },
		{ "interface", SCN_BRK_IFACE },
	};
	size_t k;
	for (k = 0; k < N_SPECS(defs); k++)
		if (!strcmp(def->kw, defs[k].kw))
			break;
	if (k == N_SPECS(defs))
		return;
	bool named = st->n >= 2 && scn_name_token_ok(&st->tok[1]);
	if (!named) {
		if (!strcmp(def->kw, "stack")) { /* a block without a usable stack */
			P->block = SCN_NONE;
			P->block_loc = st->loc;
		}
		return;
	}
	scn_stmt head = *st;
	head.n = 2;
	head.bad = false;
	scn_diag scratch, *real = P->d;
	scn_diag_init(&scratch);
	P->d = &scratch;
	size_t before = 0, after = 0;
	scn_stack *blk = P->block == SCN_NONE ? NULL : &P->scn->stacks[P->block];
	switch (defs[k].brk) {
	case SCN_BRK_SWITCH: before = P->scn->n_switches; break;
	case SCN_BRK_WIRE: before = P->scn->n_wires; break;
	case SCN_BRK_ADAPTER: before = P->scn->n_adapters; break;
	case SCN_BRK_STACK: before = P->scn->n_stacks; break;
	case SCN_BRK_APP: before = P->scn->n_apps; break;
	default: before = blk ? blk->n_ifaces : 0; break;
	}
	def->fn(P, &head);
	switch (defs[k].brk) {
	case SCN_BRK_SWITCH: after = P->scn->n_switches; break;
	case SCN_BRK_WIRE: after = P->scn->n_wires; break;
	case SCN_BRK_ADAPTER: after = P->scn->n_adapters; break;
	case SCN_BRK_STACK: after = P->scn->n_stacks; break;
	case SCN_BRK_APP: after = P->scn->n_apps; break;
	default: after = blk ? blk->n_ifaces : 0; break;
	}
	P->d = real;
	scn_diag_free(&scratch);
	if (after > before)
		scn_mark_broken(P, defs[k].brk, defs[k].brk == SCN_BRK_IFACE ? ((uint64_t)P->block << 16) | before : before);
}

static void close_block(scn_parser *P)
{
	P->block = SCN_NONE;
	P->block_loc = (scn_loc){ 0 };
}

/* The main pass over the expanded statements. */
static void parse_statements(scn_parser *P, scn_expander *x)
{
	scn_expand_rewind(x, P->d, P->scn);
	scn_stmt st;
	bool in_block = false;
	while (!P->limited && scn_expand_next(x, &st)) {
		if (scn_diag_full(P->d)) {
			scn_error(P->d, st.loc, "more"); /* not stored: marks the overflow */
			break;
		}
		if (st.n == 0)
			continue;
		/* a statement with a lexical error (st.bad) has been reported already: it takes
		 * part in the block structure and keeps its name, but raises nothing more */
		const scn_token *kw = &st.tok[0];
		const struct stmt_def *def = find_stmt(kw);
		if (in_block) {
			if (scn_word_is(kw, "end")) {
				if (st.n > 1 && !st.bad)
					scn_error(P->d, st.tok[1].loc, "'end' closing a stack block takes nothing after it; expected 'end' alone");
				in_block = false;
				close_block(P);
				continue;
			}
			if (def && !def->in_stack) {
				if (!st.bad)
					scn_error(P->d, kw->loc, "'%s' inside the block of stack '%s' (opened at %u:%u); expected 'end' to close the block first",
					          kw->value, P->block == SCN_NONE ? "?" : P->scn->stacks[P->block].name,
					          P->block_loc.line, P->block_loc.col);
				in_block = false;
				close_block(P);
			}
		} else if (def && def->in_stack) {
			if (!st.bad)
				scn_error(P->d, kw->loc, "'%s' outside a stack block; expected it between 'stack NAME' and 'end'", kw->value);
			continue;
		}
		if (!def) {
			if (!st.bad) {
				char *list = stmt_list(in_block);
				if (kw->quoted)
					scn_error(P->d, kw->loc, "a statement cannot start with a quoted string; expected one of %s", list);
				else if (kw->key)
					scn_error(P->d, kw->loc, "a statement cannot start with an attribute ('%s=…'); expected one of %s",
					          scn_echo(P->d, kw->key), list);
				else
					scn_error(P->d, kw->loc, "unknown statement '%s'%s; expected one of %s", scn_echo(P->d, kw->value),
					          in_block ? " in a stack block" : "", list);
				g_free(list);
			}
			continue;
		}
		if (st.bad)
			placeholder(P, def, &st);
		else
			def->fn(P, &st);
		if (!strcmp(def->kw, "stack"))
			in_block = true;
	}
	if (in_block && !scn_diag_full(P->d) && !scn_expand_limited(x) && !P->limited)
		scn_error(P->d, P->block_loc, "the block of stack '%s' is not closed; expected 'end' before the end of the file",
		          P->block == SCN_NONE ? "?" : P->scn->stacks[P->block].name);
}

void scn_parse_text(scn_parser *P, const char *text, size_t len, const scn_load_opts *opts)
{
	scn_symbols_init(&P->sym);
	scn_expander *x = scn_expand_new(P->scn->file, text, len, opts, P->scn->iters, P->d);
	if (!scn_diag_full(P->d)) {
		prescan(P, x);
		if (scn_expand_limited(x)) {
			/* over a limit: only say which, with the expansion's own messages */
			scn_expand_rewind(x, P->d, NULL);
			scn_stmt st;
			while (scn_expand_next(x, &st))
				;
			P->limited = true;
		} else {
			parse_statements(P, x);
			P->limited |= scn_expand_limited(x);
		}
	}
	scn_expand_free(x);
}

void scn_parser_free_symbols(scn_parser *P)
{
	scn_symbols_free(&P->sym);
}
