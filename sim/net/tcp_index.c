/* TCP's lookups (tcp_int.h, "tcp_index.c"): the pcbs of a layer found by 4-tuple, the
 * listeners by port, and how many pcbs use a local port (and address), so that segment
 * demultiplexing, ephemeral port choice and bind cost the same whatever the number of
 * pcbs. Each answer is the one a walk of every pcb in creation order gives: pcbs that
 * share a key are chained in creation (id) order and filtered by state as the walk did.
 * The tables are for finding only; nothing iterates them.
 *
 * A layer with a handful of pcbs (most stacks of a run) has no tables and is walked as
 * before: that is faster there and keeps small stacks small. The tables are built when
 * the layer first holds more than TCP_WALK_MAX pcbs and kept from then on. */
#include "sim/net/tcp_int.h"

#include <stdint.h>

#define TCP_WALK_MAX 8

_Static_assert(sizeof(uintptr_t) >= sizeof(uint64_t), "port-use keys are 64-bit values in pointers");

static guint tuple_hash(gconstpointer k)
{
	const tcp_tuple *t = k;
	uint64_t h = ((uint64_t)t->lip << 32 | t->rip) * 0x9E3779B97F4A7C15ull;
	h ^= ((uint64_t)t->lport << 16 | t->rport) * 0xC2B2AE3D27D4EB4Full;
	return (guint)(h >> 32 ^ h);
}

static gboolean tuple_equal(gconstpointer a, gconstpointer b)
{
	const tcp_tuple *x = a, *y = b;
	return x->lip == y->lip && x->rip == y->rip && x->lport == y->lport && x->rport == y->rport;
}

static guint u64_hash(gconstpointer k)
{
	uint64_t h = (uint64_t)(uintptr_t)k * 0x9E3779B97F4A7C15ull;
	return (guint)(h >> 32);
}

static bool indexed(const tcp_layer *tl) { return tl->by_tuple != NULL; }

void tcp_index_free(tcp_layer *tl)
{
	if (!indexed(tl))
		return;
	g_hash_table_destroy(tl->by_tuple);
	g_hash_table_destroy(tl->listeners);
	g_hash_table_destroy(tl->port_use);
	tl->by_tuple = tl->listeners = tl->port_use = NULL;
}

/* ---- local port use ---- */

/* Keys: the port alone counts every pcb on it; (1 << 48 | address << 16 | port) counts
 * those bound to one address (0: the wildcard). */
static gpointer use_key_port(uint16_t port) { return (gpointer)(uintptr_t)port; }

static gpointer use_key_addr(uint32_t ip, uint16_t port)
{
	return (gpointer)(uintptr_t)(1ull << 48 | (uint64_t)ip << 16 | port);
}

static uint32_t use_get(const tcp_layer *tl, gpointer key)
{
	return (uint32_t)GPOINTER_TO_UINT(g_hash_table_lookup(tl->port_use, key));
}

static void use_add(tcp_layer *tl, gpointer key, int d)
{
	uint32_t n = (uint32_t)((int64_t)use_get(tl, key) + d);
	if (n)
		g_hash_table_insert(tl->port_use, key, GUINT_TO_POINTER(n));
	else
		g_hash_table_remove(tl->port_use, key);
}

static void use_count(tcp_pcb *pcb, int d)
{
	if (!pcb->lport || !indexed(pcb->tl))
		return;
	use_add(pcb->tl, use_key_port(pcb->lport), d);
	use_add(pcb->tl, use_key_addr(pcb->lip, pcb->lport), d);
}

bool tcp_index_port_used(const tcp_layer *tl, uint16_t port)
{
	if (indexed(tl))
		return use_get(tl, use_key_port(port)) > 0;
	for (const tcp_pcb *p = tl->head; p; p = p->next)
		if (p->lport == port)
			return true;
	return false;
}

bool tcp_index_bind_conflict(const tcp_layer *tl, uint32_t ip, uint16_t port)
{
	if (!indexed(tl)) {
		for (const tcp_pcb *p = tl->head; p; p = p->next)
			if (p->lport == port && (!ip || !p->lip || p->lip == ip))
				return true;
		return false;
	}
	if (!ip)
		return use_get(tl, use_key_port(port)) > 0;
	return use_get(tl, use_key_addr(0, port)) > 0 || use_get(tl, use_key_addr(ip, port)) > 0;
}

/* ---- chains in creation order ---- */

static tcp_pcb **tuple_link(tcp_pcb *p) { return &p->tuple_next; }
static tcp_pcb **listen_link(tcp_pcb *p) { return &p->listen_next; }

/* Inserts pcb into the chain starting at head by id; returns the new head. */
static tcp_pcb *chain_insert(tcp_pcb *head, tcp_pcb *pcb, tcp_pcb **(*link)(tcp_pcb *))
{
	tcp_pcb **pp = &head;
	while (*pp && (*pp)->id < pcb->id)
		pp = link(*pp);
	*link(pcb) = *pp;
	*pp = pcb;
	return head;
}

static tcp_pcb *chain_remove(tcp_pcb *head, tcp_pcb *pcb, tcp_pcb **(*link)(tcp_pcb *))
{
	tcp_pcb **pp = &head;
	while (*pp && *pp != pcb)
		pp = link(*pp);
	if (*pp)
		*pp = *link(pcb);
	*link(pcb) = NULL;
	return head;
}

/* ---- 4-tuples (pcb->in_tuple_ix: it has one, so it is in the table when there is one) ---- */

static void tuple_insert(tcp_pcb *pcb)
{
	GHashTable *t = pcb->tl->by_tuple;
	tcp_pcb *head = g_hash_table_lookup(t, &pcb->tuple);
	tcp_pcb *nh = chain_insert(head, pcb, tuple_link);
	if (nh != head) {
		/* the table's key is the head's own tuple: rekey with the head */
		if (head)
			g_hash_table_remove(t, &head->tuple);
		g_hash_table_insert(t, &nh->tuple, nh);
	}
}

static void tuple_remove(tcp_pcb *pcb)
{
	if (!pcb->in_tuple_ix)
		return;
	pcb->in_tuple_ix = false;
	if (!indexed(pcb->tl))
		return;
	GHashTable *t = pcb->tl->by_tuple;
	tcp_pcb *nh = chain_remove(g_hash_table_lookup(t, &pcb->tuple), pcb, tuple_link);
	g_hash_table_remove(t, &pcb->tuple);
	if (nh)
		g_hash_table_insert(t, &nh->tuple, nh);
}

void tcp_index_set_remote(tcp_pcb *pcb, uint32_t rip, uint16_t rport)
{
	tuple_remove(pcb);
	pcb->rip = rip;
	pcb->rport = rport;
	pcb->in_tuple_ix = true;
	if (indexed(pcb->tl))
		tuple_insert(pcb);
}

tcp_pcb *tcp_index_lookup_conn(const tcp_layer *tl, uint32_t lip, uint16_t lport, uint32_t rip, uint16_t rport)
{
	tcp_tuple k = { .lip = lip, .rip = rip, .lport = lport, .rport = rport };
	for (tcp_pcb *p = g_hash_table_lookup(tl->by_tuple, &k); p; p = p->tuple_next)
		if (p->state != TCP_CLOSED && p->state != TCP_LISTEN)
			return p;
	return NULL;
}

/* ---- listeners (pcb->in_listen_ix: it listened on its port) ---- */

static void listen_insert(tcp_pcb *pcb)
{
	GHashTable *t = pcb->tl->listeners;
	gpointer key = GUINT_TO_POINTER(pcb->lport);
	g_hash_table_insert(t, key, chain_insert(g_hash_table_lookup(t, key), pcb, listen_link));
}

void tcp_index_listen(tcp_pcb *pcb)
{
	if (pcb->in_listen_ix)
		return;
	pcb->in_listen_ix = true;
	if (indexed(pcb->tl))
		listen_insert(pcb);
}

static void listen_remove(tcp_pcb *pcb)
{
	if (!pcb->in_listen_ix)
		return;
	pcb->in_listen_ix = false;
	if (!indexed(pcb->tl))
		return;
	GHashTable *t = pcb->tl->listeners;
	gpointer key = GUINT_TO_POINTER(pcb->lport);
	tcp_pcb *nh = chain_remove(g_hash_table_lookup(t, key), pcb, listen_link);
	if (nh)
		g_hash_table_insert(t, key, nh);
	else
		g_hash_table_remove(t, key);
}

/* A listener on exactly lip wins; else the first on the wildcard address. */
tcp_pcb *tcp_index_find_listener(const tcp_layer *tl, uint32_t lip, uint16_t lport)
{
	tcp_pcb *any = NULL;
	bool walk = !indexed(tl);
	for (tcp_pcb *p = walk ? tl->head : g_hash_table_lookup(tl->listeners, GUINT_TO_POINTER(lport)); p;
	     p = walk ? p->next : p->listen_next) {
		if (p->state != TCP_LISTEN || p->lport != lport)
			continue;
		if (p->lip == lip)
			return p;
		if (!p->lip && !any)
			any = p;
	}
	return any;
}

/* ---- the pcb's life ---- */

void tcp_index_set_local(tcp_pcb *pcb, uint32_t lip, uint16_t lport)
{
	bool tuple = pcb->in_tuple_ix, listening = pcb->in_listen_ix;
	tuple_remove(pcb);
	listen_remove(pcb);
	use_count(pcb, -1);
	pcb->lip = lip;
	pcb->lport = lport;
	use_count(pcb, +1);
	if (tuple)
		tcp_index_set_remote(pcb, pcb->rip, pcb->rport);
	if (listening)
		tcp_index_listen(pcb);
}

/* Builds the tables from the layer's pcbs, in creation order. */
static void build(tcp_layer *tl)
{
	tl->by_tuple = g_hash_table_new(tuple_hash, tuple_equal);
	tl->listeners = g_hash_table_new(g_direct_hash, g_direct_equal);
	tl->port_use = g_hash_table_new(u64_hash, g_direct_equal);
	for (tcp_pcb *p = tl->head; p; p = p->next) {
		use_count(p, +1);
		if (p->in_tuple_ix)
			tuple_insert(p);
		if (p->in_listen_ix)
			listen_insert(p);
	}
}

void tcp_index_added(tcp_layer *tl)
{
	if (!indexed(tl) && tl->n_pcbs > TCP_WALK_MAX)
		build(tl);
}

void tcp_index_remove(tcp_pcb *pcb)
{
	tuple_remove(pcb);
	listen_remove(pcb);
	use_count(pcb, -1);
}
