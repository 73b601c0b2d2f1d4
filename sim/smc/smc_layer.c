/* The SMC-R layer of a stack: the core context, the RNIC VFs and ports it activates, the
 * timer, the fixed-memory cap and the report view. Connections live in smc_conn.c. */
#include "sim/smc/smc_layer_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/oom.h"
#include "sim/fabric/speed_contracts.h" /* 1 and 2: the memory hooks */
#include "sim/net/arp.h"
#include "sim/rdma/lazy_arena.h"
#include "sim/smc/core_timer.h"
#include "sim/net/route.h"

void smc_layer_config_default(smc_layer_config *c)
{
	memset(c, 0, sizeof(*c));
	smcr_settings_default(&c->core);
	snprintf(c->default_pnet, sizeof(c->default_pnet), "SIMNET");
	c->hs_queue = 256; /* WQ_DFL_ACTIVE */
}

/* ---- memory: the core allocates through here; buffers obey the fixed-memory cap ---- */

/* Without buffer hooks (--real-hw) the core's RMBs and send buffers come through
 * mem_calloc, with the core's small header: they are told by their size, an RMBE size (a
 * power of two from 16 KiB) and a few bytes more, and counted without those. */
#define SMC_BUF_MIN 16384u
static size_t real_buffer_bytes(size_t n)
{
	size_t b = n & ~(size_t)0xff;
	return b >= SMC_BUF_MIN && !(b & (b - 1)) ? b : 0;
}

/* The fixed-memory limit (z/OS GLOBALCONFIG SMCR FIXEDMEMORY) counts the RMBs and send
 * buffers the stack holds — z/OS fixes the storage of both (IBM: "an RMB is a contiguous
 * 1-MB block of fixed 64-bit private storage", staging buffers likewise) — not the
 * connections' and links' control blocks. A buffer that would take it past the limit is
 * refused; the core then declines the connection with MEM (z/OS: before its Accept) or
 * tries a smaller size (Linux). Running out of the host's memory is not a simulated event
 * and ends the run (sim/engine/oom.h). */
static bool cap_refuses(smc_layer *l, size_t n)
{
	if (l->mem_cap && l->ctr.fixed_used + n > l->mem_cap) {
		l->ctr.mem_refused++;
		return true;
	}
	return false;
}

static size_t real_buffer(const smc_layer *l, size_t n) { return l->cfg.real_hw ? real_buffer_bytes(n) : 0; }

/* The core says the size of every block it gives back (free_sized), so blocks carry no
 * header of the layer's: at a million connections that is tens of megabytes. */
static void *mem_calloc(size_t nmemb, size_t size, void *user)
{
	smc_layer *l = user;
	if (size && nmemb > SIZE_MAX / size)
		return NULL;
	size_t n = nmemb * size;
	if (!n || (real_buffer(l, n) && cap_refuses(l, real_buffer(l, n))))
		return NULL;
	void *p = sim_xcalloc(1, n, "SMC-R core memory");
	l->ctr.mem_used += n;
	l->ctr.fixed_used += real_buffer(l, n);
	l->core_heap += sim_heap_block_bytes(p);
	return p;
}

static void *mem_malloc(size_t size, void *user)
{
	return mem_calloc(1, size, user);
}

static void mem_free_sized(void *p, size_t size, void *user)
{
	smc_layer *l = user;
	if (!p)
		return;
	l->ctr.mem_used -= size;
	l->ctr.fixed_used -= real_buffer(l, size);
	l->core_heap -= sim_heap_block_bytes(p);
	free(p);
}

/* Not called: the core gives blocks back through mem_free_sized when it is set
 * (model/smcr.h); the allocator's hooks need one all the same. */
static void mem_free(void *p, void *user)
{
	(void)user;
	free(p);
}

/* Simulated adapters only: RMBs and send buffers backed lazily (sim/rdma/lazy_arena.h),
 * resident only while bytes are in flight (speed contracts 2 and 3). */
/* The memory of a send buffer or RMB is about to change: the adapters' packets in flight
 * that still take their payload from there take it now (speed contract 1). */
static void mem_changes(smc_layer *l, const void *p, size_t n)
{
	for (size_t i = 0; i < l->n_vfs; i++)
		rnic_host_writes(l->vfs[i].adapter, p, n);
}

static void mem_buf_write(void *p, size_t size, void *user)
{
	mem_changes(user, p, size);
}

static void *mem_buf_alloc(size_t size, void *user)
{
	smc_layer *l = user;
	if (cap_refuses(l, size))
		return NULL;
	l->ctr.mem_used += size;
	l->ctr.fixed_used += size;
	lazy_arena_sweep(&l->idle_bufs, sim_now(l->st->eng));
	sim_host *h = l->st->host;
	if (host_has_costs(h)) /* allocated, mapped and registered with the adapter */
		host_run_here(h, HOST_CAT_SMCR, host_get_profile(h)->smc_buf_ns);
	return lazy_arena_alloc(size);
}

static void mem_buf_free(void *p, size_t size, void *user)
{
	smc_layer *l = user;
	mem_changes(l, p, size);
	l->ctr.mem_used -= size;
	l->ctr.fixed_used -= size;
	lazy_arena_free(p);
}

static void mem_buf_reset(void *p, size_t size, void *user)
{
	mem_changes(user, p, size);
	lazy_arena_reset(p);
}

static void mem_buf_idle(void *p, size_t size, bool idle, uint64_t peer_bytes, void *user)
{
	smc_layer *l = user;
	sim_time now = sim_now(l->st->eng);
	if (idle)
		mem_changes(l, p, size); /* its pages may be given back (reading as zero) */
	if (idle)
		lazy_arena_idle_at(&l->idle_bufs, p, peer_bytes, now);
	else
		lazy_arena_busy(p, now);
	lazy_arena_sweep(&l->idle_bufs, now);
}

/* Between events (never an event itself): buffers idle long enough give their pages back
 * even when the stack has nothing else to do. */
static void mem_sweep_tick(void *ctx, sim_time now)
{
	smc_layer *l = ctx;
	lazy_arena_sweep(&l->idle_bufs, now);
}

/* ---- entering and leaving the core ---- */

uint64_t smc_layer_now(const smc_layer *l)
{
	return sim_now(l->st->eng);
}

void smc_layer_enter(smc_layer *l)
{
	l->depth++;
	l->ctr.core_calls++;
}

static void timer_sync(smc_layer *l) { sim_core_timer_sync(l->st->eng, &l->timer, l->ctx); }

void smc_layer_leave(smc_layer *l)
{
	if (--l->depth)
		return;
	/* deferred work may call into the core again: run it at depth 1 */
	while (l->work_head && !l->freeing) {
		smc_conn *c = l->work_head;
		l->work_head = c->work_next;
		if (!l->work_head)
			l->work_tail = NULL;
		c->work_next = NULL;
		c->on_work = false;
		l->depth++;
		smc_conn_do_work(c);
		l->depth--;
	}
	if (!l->freeing)
		timer_sync(l);
}

static void on_timer(sim_engine *eng, sim_event *ev)
{
	smc_layer *l = ev->ctx;
	smc_layer_enter(l);
	smcr_ctx_handle_expiry(l->ctx, sim_now(eng));
	smc_layer_leave(l);
}

/* ---- the RNIC's reports ---- */

/* The host's part of a completion: the interrupt (or a join of the CQ being drained),
 * polling the entry, and for a receive the message's handling (CDC or LLC). */
static void host_wc(smc_vf *v, const smcr_wc *wc)
{
	sim_host *h = v->l->st->host;
	if (!host_has_costs(h))
		return;
	const host_profile *p = host_get_profile(h);
	v->cq_irq.drains = true;
	host_irq_enter(h, &v->cq_irq, p->irq_cpu, p->rnic_irq_delay_ns, p->irq_ns);
	host_run_here(h, HOST_CAT_IRQ, p->smc_cqe_ns);
	if (wc->opcode == SMCR_WC_RECV && wc->status == SMCR_WC_SUCCESS)
		host_run_here(h, HOST_CAT_SMCR, p->smc_cdc_ns);
}

static void on_wc(void *ctx, const smcr_wc *wc)
{
	smc_vf *v = ctx;
	smc_layer *l = v->l;
	host_wc(v, wc);
	smc_layer_enter(l);
	smcr_ctx_on_completion(l->ctx, wc, smc_layer_now(l));
	smc_layer_leave(l);
	host_irq_leave(l->st->host);
}

static void on_async(void *ctx, smcr_async_event ev, uint8_t port, void *qp_ctx)
{
	smc_vf *v = ctx;
	smc_layer *l = v->l;
	int32_t idx = port >= 1 && port <= RNIC_MAX_PORTS ? v->port_index[port] : -1;
	if (ev != SMCR_EV_QP_FATAL && idx < 0)
		return; /* a port this stack did not activate */
	if (idx >= 0)
		smc_layer_port_changed(l, (uint32_t)idx, ev);
	smc_layer_enter(l);
	smcr_ctx_on_async_event(l->ctx, ev, idx < 0 ? 0 : (uint32_t)idx, qp_ctx, smc_layer_now(l));
	smc_layer_leave(l);
}

void smc_layer_port_changed(smc_layer *l, uint32_t port_index, smcr_async_event ev)
{
	if (l->port_fn && !l->freeing && (ev == SMCR_EV_PORT_ERR || ev == SMCR_EV_PORT_ACTIVE))
		l->port_fn(l->port_user, l, port_index, ev == SMCR_EV_PORT_ACTIVE);
}

/* ---- core callbacks that concern the whole layer ---- */

void smc_layer_core_rand(void *user, uint8_t *dst, size_t len);
void smc_layer_core_rand(void *user, uint8_t *dst, size_t len)
{
	smc_layer *l = user;
	sim_rng_bytes(&l->rng, dst, len);
}

void smc_layer_core_event(void *user, const smcr_event *ev);
void smc_layer_core_event(void *user, const smcr_event *ev)
{
	smc_layer *l = user;
	if (l->event_fn && !l->freeing)
		l->event_fn(l->event_user, l, ev);
}

void smc_layer_core_trace(void *user, const smcr_trace_msg *m);
void smc_layer_core_trace(void *user, const smcr_trace_msg *m)
{
	smc_layer *l = user;
	if (l->trace_fn && !l->freeing)
		l->trace_fn(l->trace_user, l, m);
}

/* SMC-Rv2: the next hop towards daddr from the stack's routing table; its MAC from the
 * ARP cache (the TCP connection has just used that path, so it is resolved). A directly
 * reachable peer needs no MAC here: the core takes it from the CLC message. */
int smc_layer_core_route(void *user, uint32_t saddr, uint32_t daddr, uint8_t nexthop_mac[6], bool *uses_gateway);
int smc_layer_core_route(void *user, uint32_t saddr, uint32_t daddr, uint8_t nexthop_mac[6], bool *uses_gateway)
{
	(void)saddr;
	smc_layer *l = user;
	if (l->vt) {
		/* real devices: the GIDs are the devices' own addresses, outside the simulated
		 * network; the kernel routes RoCE v2 and resolves the MAC from the DGID */
		*uses_gateway = false;
		memset(nexthop_mac, 0, 6);
		return 0;
	}
	netif *nif = NULL;
	uint32_t nexthop = 0;
	if (!route_lookup(&l->st->routes, daddr, &nif, &nexthop) || !nif)
		return -1;
	*uses_gateway = nexthop != daddr;
	memset(nexthop_mac, 0, 6);
	if (!*uses_gateway)
		return 0;
	return arp_lookup(nif, nexthop, nexthop_mac) ? 0 : -1;
}

/* ---- creation ---- */

static void pad_blank(char *dst, size_t n, const char *src)
{
	memset(dst, ' ', n);
	size_t len = strlen(src);
	memcpy(dst, src, len < n ? len : n);
}

smc_layer *smc_layer_new(stack *st, const smc_layer_config *cfg)
{
	smc_layer *l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->st = st;
	if (cfg)
		l->cfg = *cfg;
	else
		smc_layer_config_default(&l->cfg);
	if (!l->cfg.default_pnet[0])
		snprintf(l->cfg.default_pnet, sizeof(l->cfg.default_pnet), "SIMNET");
	const smcr_config *sc = stack_smcr(st);
	smcr_settings set = l->cfg.core;
	set.n_ueids = 0;
	for (size_t i = 0; i < sc->n_ueids && i < SMCR_MAX_UEIDS; i++)
		pad_blank(set.ueids[set.n_ueids++], SMCR_EID_LEN, sc->ueids[i]);
	/* No UEID does not turn a server's v2 off: Linux's server takes a v2 Proposal, finds
	 * no common UEID in its v2 device search and, the Proposal offering no v1, declines
	 * with NOSMCDEV (0x03030000; seen in a real 6.1 capture). A client offers v2 only
	 * with a UEID (model/clc_client.c). */
	set.v2 = set.v2 && sc->v2;
	set.os_type = sc->clc_os_type;
	set.llc_v2_order = sc->llc_v2_big_endian ? SMCR_LLC_V2_BE : SMCR_LLC_V2_LE;
	set.buf_downgrade = sc->buf_downgrade;
	l->mem_cap = sc->fixed_memory;
	l->mem = (smcr_mem){ l, mem_malloc, mem_free, mem_calloc };
	l->mem.free_sized = mem_free_sized;
	if (!l->cfg.real_hw) {
		l->mem.buf_alloc = mem_buf_alloc;
		l->mem.buf_free = mem_buf_free;
		l->mem.buf_reset = mem_buf_reset;
		l->mem.buf_idle = mem_buf_idle;
		l->mem.buf_write = mem_buf_write;
	}
	SIM_CONTRACT_SIM_MEM_HOOKS(&l->mem);
	sim_engine_rng(st->eng, "smc.layer", st->entity, &l->rng);
	sim_event_init(&l->timer, sim_kind("smc.timer"), st->entity, on_timer, l);
	l->k_steer = sim_kind("smc.steer");
	const smcr_transport_ops *ops;
	void *tp;
	if (l->cfg.real_hw) {
		l->vt = smc_real_transport_new(l);
		ops = verbs_transport_ops();
		tp = l->vt;
	} else {
		l->tp = sim_transport_new();
		ops = sim_transport_ops();
		tp = l->tp;
	}
	if (!tp || smcr_ctx_new(&l->ctx, &set, &smc_conn_core_callbacks, l, ops, tp, &l->mem, sim_now(st->eng))) {
		sim_transport_free(l->tp);
		if (l->vt)
			verbs_transport_free(l->vt);
		free(l);
		return NULL;
	}
	l->next_conn_id = 1;
	if (!l->cfg.real_hw)
		sim_engine_tick_add(st->eng, LAZY_ARENA_IDLE_TIME, mem_sweep_tick, l);
	stack_set_smc_hooks(st, &smc_conn_hooks, l);
	return l;
}

void smc_layer_free(smc_layer *l)
{
	if (!l)
		return;
	/* the sockets the layer still holds are reset; no callback reaches anyone now */
	l->freeing = true;
	while (l->head)
		smc_conn_teardown(l->head);
	stack_set_smc_hooks(l->st, NULL, NULL);
	sim_event_cancel(l->st->eng, &l->timer);
	if (!l->cfg.real_hw)
		sim_engine_tick_remove(l->st->eng, mem_sweep_tick, l);
	smc_steer_detach(l);
	smcr_ctx_free(l->ctx);
	for (size_t i = 0; i < l->n_vfs; i++)
		rnic_deactivate(l->vfs[i].vf);
	sim_transport_free(l->tp);
	smc_real_free(l);
	free(l);
}

void smc_layer_set_port_fn(smc_layer *l, smc_layer_port_fn fn, void *user)
{
	l->port_fn = fn;
	l->port_user = user;
}

void smc_layer_set_event_fn(smc_layer *l, smc_layer_event_fn fn, void *user)
{
	l->event_fn = fn;
	l->event_user = user;
}

void smc_layer_set_trace_fn(smc_layer *l, smc_layer_trace_fn fn, void *user)
{
	l->trace_fn = fn;
	l->trace_user = user;
}

void smc_layer_set_pnet(smc_layer *l, const netif *nif, const char *pnet_id)
{
	smc_pnet_map *m = NULL;
	for (size_t i = 0; i < l->n_pnets; i++)
		if (l->pnets[i].nif == nif)
			m = &l->pnets[i];
	if (!m) {
		if (l->n_pnets == STACK_MAX_NETIFS)
			return;
		m = &l->pnets[l->n_pnets++];
		m->nif = nif;
	}
	snprintf(m->pnet, sizeof(m->pnet), "%s", pnet_id ? pnet_id : "");
}

const char *smc_layer_pnet_of(const smc_layer *l, const netif *nif)
{
	for (size_t i = 0; i < l->n_pnets; i++)
		if (l->pnets[i].nif == nif && l->pnets[i].pnet[0])
			return l->pnets[i].pnet;
	return l->cfg.default_pnet;
}

/* ---- activation ---- */

smcr_mtu smc_layer_mtu_enum(uint32_t bytes)
{
	if (bytes >= 4096)
		return SMCR_MTU_4096;
	if (bytes >= 2048)
		return SMCR_MTU_2048;
	if (bytes >= 1024)
		return SMCR_MTU_1024;
	if (bytes >= 512)
		return SMCR_MTU_512;
	return SMCR_MTU_256;
}

static smc_vf *vf_for(smc_layer *l, rnic *adapter)
{
	for (size_t i = 0; i < l->n_vfs; i++)
		if (l->vfs[i].adapter == adapter)
			return &l->vfs[i];
	if (l->n_vfs == SMC_MAX_ADAPTERS)
		return NULL;
	smc_vf *v = &l->vfs[l->n_vfs];
	memset(v, 0, sizeof(*v));
	v->l = l;
	v->adapter = adapter;
	for (int p = 0; p <= RNIC_MAX_PORTS; p++)
		v->port_index[p] = -1;
	rnic_host host = { on_wc, on_async, v };
	v->vf = rnic_activate(adapter, l->st->name, &host);
	if (!v->vf)
		return NULL;
	if (l->mem.buf_write)
		rnic_vf_notes_writes(v->vf); /* mem_changes tells the adapter first */
	if (v->vf)
		rnic_vf_set_host(v->vf, l->st->host);
	l->n_vfs++;
	return v;
}

/* The VLANs of the stack's interfaces in a PNet (the v1 GIDs of a real device's port). */
size_t smc_layer_pnet_vlans(const smc_layer *l, const char *pnet, uint16_t *vids, size_t max)
{
	size_t n_vids = 0;
	const stack *st = l->st;
	for (size_t i = 0; i < st->n_netifs; i++) {
		const netif *nif = st->netifs[i];
		if (strncmp(smc_layer_pnet_of(l, nif), pnet, 16))
			continue;
		bool have = false;
		for (size_t k = 0; k < n_vids; k++)
			have |= vids[k] == nif->vlan_id;
		if (!have && n_vids < max)
			vids[n_vids++] = nif->vlan_id;
	}
	if (!n_vids && max)
		vids[n_vids++] = 0;
	return n_vids;
}

int smc_layer_associate(smc_layer *l, uint16_t pfid, uint8_t port, const netif *nif)
{
	for (size_t i = 0; i < l->n_assocs; i++)
		if (l->assocs[i].pfid == pfid && l->assocs[i].port == port && l->assocs[i].nif == nif)
			return 0;
	if (l->n_assocs == SMC_MAX_ASSOCS)
		return SMCR_ERR_LIMIT;
	l->assocs[l->n_assocs++] = (smc_port_assoc){ pfid, port, nif };
	return 0;
}

static bool associated(const smc_layer *l, uint16_t pfid, uint8_t port, const netif *nif)
{
	for (size_t i = 0; i < l->n_assocs; i++)
		if (l->assocs[i].pfid == pfid && l->assocs[i].port == port && l->assocs[i].nif == nif)
			return true;
	return false;
}

/* The interfaces whose addresses and VLANs are the port's GIDs: those in the port's PNet
 * that share its network, or every one in the PNet when none does. A Linux RoCE port has
 * GIDs only for its own netdev, so two ports on two networks have different RoCE v2 GIDs
 * (else a second link's peer GID would equal the first link's: an asymmetric lgr). */
static size_t port_netifs(const smc_layer *l, uint16_t pfid, uint8_t port, const char *pnet,
                          const netif **out)
{
	const stack *st = l->st;
	size_t n = 0;
	for (int any = 0; any <= 1 && !n; any++)
		for (size_t i = 0; i < st->n_netifs; i++) {
			const netif *nif = st->netifs[i];
			if (strncmp(smc_layer_pnet_of(l, nif), pnet, 16))
				continue;
			if (any || associated(l, pfid, port, nif))
				out[n++] = nif;
		}
	return n;
}

static int port_gids(smc_layer *l, smc_vf *v, uint16_t pfid, uint8_t port, const char *pnet)
{
	const netif *nifs[STACK_MAX_NETIFS];
	size_t n = port_netifs(l, pfid, port, pnet, nifs);
	uint16_t vids[RNIC_MAX_VLANS];
	size_t n_vids = 0;
	for (size_t i = 0; i < n; i++) {
		bool have = false;
		for (size_t k = 0; k < n_vids; k++)
			have |= vids[k] == nifs[i]->vlan_id;
		if (!have && n_vids < RNIC_MAX_VLANS)
			vids[n_vids++] = nifs[i]->vlan_id;
	}
	if (!n_vids)
		vids[n_vids++] = 0;
	int rc = rnic_vf_set_vlans(v->vf, port, vids, n_vids);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		if (!nifs[i]->ip4)
			continue;
		rc = rnic_vf_add_ipv4(v->vf, port, nifs[i]->ip4, nifs[i]->ip4_prefix_len, nifs[i]->vlan_id);
		if (rc && rc != SMCR_ERR_LIMIT)
			return rc;
	}
	return 0;
}

int smc_layer_activate(smc_layer *l, rnic *const *adapters, size_t n_adapters)
{
	if (l->vt)
		return SMCR_ERR_STATE; /* real devices: smc_layer_activate_real() */
	const smcr_config *sc = stack_smcr(l->st);
	int added = 0;
	for (size_t i = 0; i < sc->n_pfids; i++) {
		const smcr_pfid_config *pc = &sc->pfids[i];
		rnic *a = NULL;
		for (size_t k = 0; k < n_adapters && !a; k++)
			if (adapters[k] && rnic_pfid(adapters[k]) == pc->pfid)
				a = adapters[k];
		if (!a || pc->portnum < 1 || pc->portnum > rnic_nports(a))
			continue;
		if (l->n_ports == SMCR_MAX_PORTS)
			return SMCR_ERR_LIMIT;
		smc_vf *v = vf_for(l, a);
		if (!v)
			return SMCR_ERR_LIMIT;
		if (v->port_index[pc->portnum] >= 0)
			continue; /* activated twice */
		smcr_port_desc d;
		rnic_vf_port_desc(v->vf, pc->portnum, &d);
		if (!d.pnet_id[0])
			snprintf(d.pnet_id, sizeof(d.pnet_id), "%s", l->cfg.default_pnet);
		int rc = port_gids(l, v, pc->pfid, pc->portnum, d.pnet_id);
		if (rc)
			return rc;
		char pnet[17];
		snprintf(pnet, sizeof(pnet), "%s", d.pnet_id);
		rnic_vf_port_desc(v->vf, pc->portnum, &d);
		snprintf(d.pnet_id, sizeof(d.pnet_id), "%s", pnet);
		if (l->st->personality == STACK_ZOS)
			snprintf(d.name, sizeof(d.name), "EZARIUT%u%04X", (unsigned)pc->portnum, (unsigned)pc->pfid);
		uint32_t mtu = pc->mtu ? pc->mtu : sc->mtu;
		if (mtu && smc_layer_mtu_enum(mtu) < d.active_mtu)
			d.active_mtu = smc_layer_mtu_enum(mtu);
		smc_layer_enter(l);
		rc = smcr_ctx_add_port(l->ctx, &d, smc_layer_now(l));
		smc_layer_leave(l);
		if (rc < 0)
			return rc;
		v->port_index[pc->portnum] = rc;
		smc_layer_port *p = &l->ports[l->n_ports++];
		p->adapter = a;
		p->vf = v->vf;
		p->port = pc->portnum;
		p->port_index = (uint32_t)rc;
		p->pfid = pc->pfid;
		p->dev = d.dev;
		added++;
	}
	smc_steer_attach(l);
	return added;
}

/* ---- views ---- */

int smc_layer_terminate_all(smc_layer *l)
{
	smc_layer_enter(l);
	int n = smcr_ctx_terminate_all(l->ctx, smc_layer_now(l));
	smc_layer_leave(l);
	return n;
}

smcr_ctx *smc_layer_ctx(const smc_layer *l) { return l->ctx; }
size_t smc_layer_n_ports(const smc_layer *l) { return l->n_ports; }

const smc_layer_port *smc_layer_port_get(const smc_layer *l, size_t i)
{
	return i < l->n_ports ? &l->ports[i] : NULL;
}

const smc_layer_counters *smc_layer_counters_get(const smc_layer *l) { return &l->ctr; }

static void conn_view(const smc_conn *c, smc_layer_conn *v)
{
	memset(v, 0, sizeof(*v));
	v->id = c->id;
	v->server = c->server;
	v->mode = c->established ? SOCK_MODE_SMCR : c->fallen ? SOCK_MODE_FALLBACK
	                                                      : SOCK_MODE_TCP;
	v->handshake = !c->established && !c->fallen;
	v->fallback_reason = c->reason;
	v->peer_diagnosis = c->peer_diag;
	v->local_ip = c->local_ip;
	v->peer_ip = c->peer_ip;
	v->local_port = c->local_port;
	v->peer_port = c->peer_port;
	if (c->conn && smcr_conn_get_info(c->conn, &v->core_info) == 0)
		v->has_core = true;
}

void smc_layer_mem_census_add(const smc_layer *l, smc_layer_mem_census *out)
{
	out->core_bytes += l->core_heap;
	for (const smc_conn *c = l->head; c; c = c->next) {
		out->conns++;
		out->conn_bytes += sim_heap_block_bytes(c) + sim_heap_block_bytes(c->out);
	}
	for (size_t i = 0; i < l->n_vfs; i++)
		if (l->vfs[i].vf)
			rnic_vf_mem_census_add(l->vfs[i].vf, &out->rdma);
}

void smc_layer_foreach_conn(const smc_layer *l, void (*fn)(void *arg, const smc_layer_conn *c), void *arg)
{
	for (const smc_conn *c = l->head; c; c = c->next) {
		smc_layer_conn v;
		conn_view(c, &v);
		fn(arg, &v);
	}
}

/* The layer's connection on socket s: the socket points at it (sock_smc_state) exactly
 * while the connection holds the socket (c->s), so no walk of the layer's list. */
static const smc_conn *sock_conn(const smc_layer *l, const sock *s)
{
	const smc_conn *c = s ? sock_smc_state(s) : NULL;
	return c && c->l == l && c->s == s ? c : NULL;
}

bool smc_layer_sock_conn(const smc_layer *l, const sock *s, smc_layer_conn *out)
{
	const smc_conn *c = sock_conn(l, s);
	if (!c)
		return false;
	conn_view(c, out);
	return true;
}

bool smc_layer_sock_reasons(const smc_layer *l, const sock *s, uint32_t *reason, uint32_t *peer_diagnosis)
{
	if (l->telling && l->telling == s) {
		*reason = l->telling_reason;
		*peer_diagnosis = l->telling_diag;
		return true;
	}
	const smc_conn *c = sock_conn(l, s);
	if (!c)
		return false;
	*reason = c->reason;
	*peer_diagnosis = c->peer_diag;
	return true;
}
