/* Observers' names for the cores' objects (obs_ident.h). The caches are only looked up,
 * never iterated, so their hash order reaches no output. */
#include "sim/observe/obs_ident.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "sim/addr/addr_text.h"
#include "sim/report/report_core.h"

typedef struct stack_cache {
	GHashTable *lgrs;  /* core lgr id -> obs_lgr */
	GHashTable *conns; /* core conn id -> obs_conn */
	GHashTable *ends;  /* flow << 1 | server -> end_entry */
} stack_cache;

typedef struct end_entry {
	obs_conn c;
	uint64_t lgr, link;
	uint8_t version;
} end_entry;

struct obs_ident {
	world *w;
	const scn_scenario *scn;
	size_t n;
	stack_cache *st;
};

static GHashTable *id_table(void) { return g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free); }

obs_ident *obs_ident_new(world *w)
{
	obs_ident *id = g_new0(obs_ident, 1);
	id->w = w;
	id->scn = world_scenario(w);
	id->n = id->scn->n_stacks;
	id->st = g_new0(stack_cache, id->n ? id->n : 1);
	for (size_t i = 0; i < id->n; i++) {
		id->st[i].lgrs = id_table();
		id->st[i].conns = id_table();
		id->st[i].ends = id_table();
	}
	return id;
}

void obs_ident_free(obs_ident *id)
{
	if (!id)
		return;
	for (size_t i = 0; i < id->n; i++) {
		g_hash_table_destroy(id->st[i].lgrs);
		g_hash_table_destroy(id->st[i].conns);
		g_hash_table_destroy(id->st[i].ends);
	}
	g_free(id->st);
	g_free(id);
}

static void *lookup(GHashTable *t, uint64_t key) { return g_hash_table_lookup(t, &key); }

static void insert(GHashTable *t, uint64_t key, void *value)
{
	uint64_t *k = g_new(uint64_t, 1);
	*k = key;
	g_hash_table_replace(t, k, value);
}

const char *obs_ident_stack_name(const obs_ident *id, uint32_t si)
{
	return si < id->n ? id->scn->stacks[si].name : NULL;
}

uint32_t obs_ident_stack_by_sysid(const obs_ident *id, const uint8_t sysid[8])
{
	for (uint32_t i = 0; i < id->n; i++) {
		smc_layer *l = world_layer_at(id->w, i);
		if (l && !memcmp(smcr_ctx_system_id(smc_layer_ctx(l)), sysid, 8))
			return i;
	}
	return OBS_NONE;
}

void obs_addr_text(uint32_t ip, uint16_t port, char *buf, size_t len)
{
	char a[ADDR_TEXT_IPV4_LEN];
	snprintf(buf, len, "%s:%u", addr_text_ipv4(ip, a, sizeof(a)), (unsigned)port);
}

const char *obs_timeline_verb(const scn_event *ev)
{
	switch (ev->kind) {
	case SCN_EV_FAIL:
		return "fail";
	case SCN_EV_RESTORE:
		return "restore";
	case SCN_EV_SET:
		return "set";
	case SCN_EV_START_APP:
		return "start";
	case SCN_EV_STOP_APP:
		return "stop";
	case SCN_EV_REPORT:
	case SCN_EV_EXPECT:
		break;
	}
	return NULL;
}

/* ---- link groups ---- */

typedef struct lgr_find {
	uint64_t id;
	bool found;
	smcr_lgr_info info;
} lgr_find;

static void find_lgr(void *arg, const smcr_lgr_info *li)
{
	lgr_find *f = arg;
	if (li->id == f->id) {
		f->found = true;
		f->info = *li;
	}
}

/* The stack with this host name (blank-padded, as the first-contact extension carries it). */
static uint32_t stack_by_host(const obs_ident *id, const char *host, size_t n)
{
	while (n && (host[n - 1] == ' ' || !host[n - 1]))
		n--;
	const scn_scenario *s = world_scenario(id->w);
	for (uint32_t i = 0; n && i < s->n_stacks; i++)
		if (strlen(s->stacks[i].hostname) == n && !memcmp(s->stacks[i].hostname, host, n))
			return i;
	return OBS_NONE;
}

void obs_ident_lgr(obs_ident *id, uint32_t si, uint64_t lgr_id, obs_lgr *out)
{
	memset(out, 0, sizeof(*out));
	out->peer = OBS_NONE;
	smc_layer *l = world_layer_at(id->w, si);
	if (!l || !lgr_id)
		return;
	obs_lgr *c = lookup(id->st[si].lgrs, lgr_id);
	if (c) {
		*out = *c;
		return;
	}
	lgr_find f = { lgr_id, false, { 0 } };
	smcr_ctx_foreach_lgr(smc_layer_ctx(l), find_lgr, &f);
	if (!f.found)
		return;
	out->known = true;
	out->num = report_core_lgr_num(smc_layer_ctx(l), lgr_id);
	out->peer = obs_ident_stack_by_sysid(id, f.info.peer_system_id);
	if (out->peer == OBS_NONE) /* a v2 Proposal may carry no system id: the host name then */
		out->peer = stack_by_host(id, f.info.peer_hostname, sizeof(f.info.peer_hostname));
	if (out->peer != OBS_NONE) /* a server's group is made before the peer's id is known */
		insert(id->st[si].lgrs, lgr_id, g_memdup2(out, sizeof(*out)));
}

/* ---- links ---- */

void obs_ident_link_info(obs_ident *id, uint32_t si, const smcr_link_info *li, obs_link *out)
{
	memset(out, 0, sizeof(*out));
	out->peer = OBS_NONE;
	smc_layer *l = world_layer_at(id->w, si);
	if (!l)
		return;
	obs_lgr g;
	obs_ident_lgr(id, si, li->lgr_id, &g);
	out->known = true;
	out->lgr_num = g.num;
	out->peer = g.peer;
	out->link_num = li->link_id;
	out->local_id = li->link_uid;
	out->remote_id = li->peer_link_uid;
	out->port_index = li->port_index;
	const smcr_port_desc *pd = smcr_ctx_port(smc_layer_ctx(l), li->port_index);
	snprintf(out->port_name, sizeof(out->port_name), "%.16s", pd ? pd->name : "");
	out->local_qpn = li->local_qpn;
	out->remote_qpn = li->peer_qpn;
	out->state = li->state;
}

void obs_ident_link(obs_ident *id, uint32_t si, uint64_t link_id, obs_link *out)
{
	memset(out, 0, sizeof(*out));
	out->peer = OBS_NONE;
	smc_layer *l = world_layer_at(id->w, si);
	smcr_link_info li;
	if (l && link_id && smcr_ctx_link_info(smc_layer_ctx(l), link_id, &li) == 0)
		obs_ident_link_info(id, si, &li, out);
}

/* ---- connections ---- */

typedef struct conn_find {
	uint64_t core_id;
	bool found;
	smc_layer_conn lc;
} conn_find;

static void find_conn(void *arg, const smc_layer_conn *c)
{
	conn_find *f = arg;
	if (c->has_core && c->core_info.id == f->core_id && !f->found) {
		f->found = true;
		f->lc = *c;
	}
}

static void name_from_world(obs_ident *id, uint32_t si, obs_conn *c)
{
	world_conn_view v;
	if (world_find_end(id->w, si, c->local_ip, c->local_port, c->peer_ip, c->peer_port, &v)) {
		snprintf(c->name, sizeof(c->name), "%s", v.name);
		c->peer = v.peer_stack;
	}
}

void obs_ident_conn(obs_ident *id, uint32_t si, uint64_t core_conn_id, obs_conn *out)
{
	memset(out, 0, sizeof(*out));
	out->peer = OBS_NONE;
	smc_layer *l = world_layer_at(id->w, si);
	if (!l || !core_conn_id)
		return;
	obs_conn *c = lookup(id->st[si].conns, core_conn_id);
	if (c) {
		*out = *c;
		return;
	}
	conn_find f = { core_conn_id, false, { 0 } };
	smc_layer_foreach_conn(l, find_conn, &f);
	if (!f.found)
		return;
	out->known = true;
	out->conn_id = (uint32_t)f.lc.id;
	out->server = f.lc.server;
	out->local_ip = f.lc.local_ip;
	out->local_port = f.lc.local_port;
	out->peer_ip = f.lc.peer_ip;
	out->peer_port = f.lc.peer_port;
	name_from_world(id, si, out);
	insert(id->st[si].conns, core_conn_id, g_memdup2(out, sizeof(*out)));
}

void obs_ident_end(obs_ident *id, const world_conn_view *v, obs_conn *out, uint64_t *core_lgr, uint64_t *core_link,
                   uint8_t *smc_version)
{
	uint64_t key = v->flow << 1 | (v->server ? 1u : 0u);
	end_entry *e = v->stack < id->n ? lookup(id->st[v->stack].ends, key) : NULL;
	if (!e) {
		e = g_new0(end_entry, 1);
		e->c.peer = OBS_NONE;
		if (v->stack < id->n)
			insert(id->st[v->stack].ends, key, e);
	}
	if (v->local_ip || v->local_port) {
		e->c.known = true;
		e->c.server = v->server;
		e->c.local_ip = v->local_ip;
		e->c.local_port = v->local_port;
		e->c.peer_ip = v->peer_ip;
		e->c.peer_port = v->peer_port;
	}
	snprintf(e->c.name, sizeof(e->c.name), "%s", v->name);
	e->c.peer = v->peer_stack;
	smc_layer *l = world_layer_at(id->w, v->stack);
	smc_layer_conn lc;
	if (l && v->s && smc_layer_sock_conn(l, v->s, &lc)) {
		e->c.conn_id = (uint32_t)lc.id;
		if (lc.has_core) {
			e->lgr = lc.core_info.lgr_id;
			e->link = lc.core_info.link_id;
			e->version = lc.core_info.version;
		}
	}
	*out = e->c;
	*core_lgr = e->lgr;
	*core_link = e->link;
	*smc_version = e->version;
	if (v->stack >= id->n)
		g_free(e);
}
