/* Drawing a random world (swarm_draw.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/engine/rng.h"
#include "sim/swarm/swarm_draw.h"

#define MS UINT64_C(1000000)
#define US UINT64_C(1000)
#define S_ UINT64_C(1000000000)

#define MAX_SEGS 2
#define MAX_SW_PER_SEG 3
#define MAX_NETS 4
#define MAX_STACKS 64
#define MAX_ADAPTERS 256
#define MAX_APPS 32
#define MAX_SHARE 6 /* stacks sharing one adapter */

typedef struct dnet {
	int seg;
	uint16_t vlan; /* 0 = untagged */
	int n;         /* 10.n.0.0/16 */
	int mtu;       /* every interface on it, the router's too (one L2 MTU) */
} dnet;

typedef struct dif {
	int net;
	int sw;        /* global switch index */
	uint32_t host; /* the address's last two bytes */
	int mtu;
} dif;

typedef struct dstack {
	char name[16]; /* "S00".."S63"; room for any int (the compiler checks) */
	bool zos;
	dif ifs[2];
	int n_ifs;
	bool v2;
	bool enable;
	uint64_t testlink_ns;
	int acts; /* activations drawn */
} dstack;

typedef struct dadapter {
	int sw[2];
	int ports;
	int mtu;
	const char *roce;
	int users;
	int seg;
} dadapter;

typedef struct draw {
	sim_rng r;
	GString *o;
	int n_segs, n_sw, sw_seg[MAX_SEGS * MAX_SW_PER_SEG], seg_sw0[MAX_SEGS], seg_nsw[MAX_SEGS];
	int n_trunks, trunk_a[MAX_SEGS * MAX_SW_PER_SEG], trunk_b[MAX_SEGS * MAX_SW_PER_SEG];
	dnet nets[MAX_NETS];
	int n_nets;
	bool routed; /* a router between nets 0 and 1 */
	dstack st[MAX_STACKS];
	int n_st;
	dadapter ad[MAX_ADAPTERS];
	int n_ad;
	bool mixed_roce;  /* some adapters RoCE v1 or v2 only */
	uint64_t last_ns; /* the latest start or fault time drawn */
	uint64_t longest_outage_ns;
	uint64_t max_testlink_ns;
} draw;

static uint64_t below(draw *d, uint64_t n)
{
	return sim_rng_below(&d->r, n);
}

static uint64_t range(draw *d, uint64_t lo, uint64_t hi)
{
	return sim_rng_range(&d->r, lo, hi);
}

static bool chance(draw *d, uint64_t pct)
{
	return below(d, 100) < pct;
}

/* log-uniform in [lo, hi] */
static uint64_t logu(draw *d, uint64_t lo, uint64_t hi)
{
	int b = 0;
	while ((lo << (b + 1)) <= hi)
		b++;
	uint64_t base = lo << below(d, (uint64_t)b + 1);
	uint64_t top = base * 2 - 1 > hi ? hi : base * 2 - 1;
	return range(d, base, top);
}

static void note_time(draw *d, uint64_t t)
{
	if (t > d->last_ns)
		d->last_ns = t;
}

/* "12ms", "345us" or "6789ns": the shortest exact form */
static void put_time(GString *o, uint64_t ns)
{
	if (ns % MS == 0)
		g_string_append_printf(o, "%" PRIu64 "ms", ns / MS);
	else if (ns % US == 0)
		g_string_append_printf(o, "%" PRIu64 "us", ns / US);
	else
		g_string_append_printf(o, "%" PRIu64 "ns", ns);
}

static const char *ratio_text(draw *d, bool allow_one)
{
	static const char *r[] = { "1/1000", "1/100", "1/20", "1/4", "1" };
	return r[below(d, allow_one ? 5 : 4)];
}

/* ---- fabric ---- */

static void draw_fabric(draw *d)
{
	d->n_segs = chance(d, 30) ? 2 : 1;
	for (int s = 0; s < d->n_segs; s++) {
		int n = (int)range(d, 1, MAX_SW_PER_SEG);
		d->seg_sw0[s] = d->n_sw;
		d->seg_nsw[s] = n;
		for (int k = 0; k < n; k++) {
			d->sw_seg[d->n_sw] = s;
			g_string_append_printf(d->o, "switch SW%d\n", d->n_sw);
			if (k) {
				/* a chain or a star: a tree, so every path between two switches is one */
				int to = chance(d, 50) ? d->n_sw - 1 : d->seg_sw0[s];
				d->trunk_a[d->n_trunks] = to;
				d->trunk_b[d->n_trunks] = d->n_sw;
				g_string_append_printf(d->o, "wire T%d SW%d SW%d latency=%" PRIu64 "us\n", d->n_trunks, to, d->n_sw,
				                       range(d, 1, 20));
				d->n_trunks++;
			}
			d->n_sw++;
		}
	}
	/* networks: an IP subnet on a segment, untagged or on a VLAN */
	d->n_nets = (int)range(d, 1, d->n_segs == 2 ? 3 : 2);
	if (d->n_segs == 2 && d->n_nets < 2)
		d->n_nets = 2;
	for (int n = 0; n < d->n_nets; n++) {
		dnet *x = &d->nets[n];
		x->seg = d->n_segs == 2 ? n % 2 : 0;
		x->n = n + 1;
		/* two networks on one segment must differ in VLAN */
		bool other_here = false;
		for (int k = 0; k < n; k++)
			other_here |= d->nets[k].seg == x->seg;
		x->vlan = other_here || chance(d, 30) ? (uint16_t)(10 * (n + 1)) : 0;
		/* MTUs differ between networks, not on one: a host whose MTU is larger than its
		 * router's on the same wire is a black hole in any real network (the router's NIC
		 * drops the frame, no ICMP comes back); behind a router PMTU discovery copes */
		static const int mtus[] = { 1500, 1500, 1500, 9000, 4000, 1492 };
		x->mtu = mtus[below(d, 6)];
	}
	d->routed = d->n_nets >= 2 && chance(d, 40);
}

static int switch_of_net(draw *d, int net)
{
	int s = d->nets[net].seg;
	return d->seg_sw0[s] + (int)below(d, (uint64_t)d->seg_nsw[s]);
}

/* ---- stacks ---- */

static void draw_stacks(draw *d)
{
	uint64_t c = below(d, 100);
	int n = c < 60 ? (int)range(d, 2, 4) : c < 85 ? (int)range(d, 5, 12)
	                               : c < 97       ? (int)range(d, 13, 32)
	                                              : (int)range(d, 33, 64);
	d->n_st = n;
	for (int i = 0; i < n; i++) {
		dstack *s = &d->st[i];
		snprintf(s->name, sizeof(s->name), "S%02d", i);
		s->zos = chance(d, 50);
		s->n_ifs = chance(d, 30) && d->n_nets > 1 ? 2 : 1;
		int first = (int)below(d, (uint64_t)d->n_nets);
		for (int k = 0; k < s->n_ifs; k++) {
			dif *f = &s->ifs[k];
			f->net = k == 0 ? first : (first + 1 + (int)below(d, (uint64_t)d->n_nets - 1)) % d->n_nets;
			f->sw = switch_of_net(d, f->net);
			f->host = (uint32_t)(i + 1);
			f->mtu = d->nets[f->net].mtu;
		}
		s->enable = !chance(d, 5);
		s->v2 = chance(d, 60);
		static const uint64_t tl[] = { 30 * S_, 30 * S_, 10 * S_, 5 * S_ };
		s->testlink_ns = tl[below(d, 4)];
		if (s->testlink_ns > d->max_testlink_ns)
			d->max_testlink_ns = s->testlink_ns;
	}
}

static bool stack_on_seg(const dstack *s, const draw *d, int seg)
{
	for (int k = 0; k < s->n_ifs; k++)
		if (d->nets[s->ifs[k].net].seg == seg)
			return true;
	return false;
}

/* The largest RoCE MTU whose frames fit every network on an adapter's segment: a RoCE
 * port's active MTU follows its netdev's (Linux iboe_get_mtu: the IP MTU less the GRH or
 * IPv4+UDP, BTH, the largest extension headers and the ICRC, rounded down to an IB MTU).
 * A larger one is a world no real adapter makes: routed SMC-Rv2 frames then exceed the
 * router's interface MTU and are dropped (RoCE has no PMTU discovery), the small LLC
 * messages pass and the first RDMA write's retries run out. */
static int roce_mtu_cap(const draw *d, int seg)
{
	int l2 = 9000;
	for (int n = 0; n < d->n_nets; n++)
		if (d->nets[n].seg == seg && d->nets[n].mtu < l2)
			l2 = d->nets[n].mtu;
	int room = l2 - 96;
	return room >= 4096 ? 4096 : room >= 2048 ? 2048
	                                          : 1024;
}

/* An adapter port on a switch of one of the stack's interfaces: a new one, or one that
 * other stacks use already (shared RoCE). Written into acts as `smcr pfid=… [port=2]`. */
static void draw_activations(draw *d, int i, GString *acts)
{
	dstack *s = &d->st[i];
	uint64_t c = below(d, 100);
	int n = c < 35 ? 1 : c < 75 ? 2
	             : c < 90       ? 3
	                            : 4;
	bool used[MAX_ADAPTERS * 2] = { false };
	for (int k = 0; k < n && d->n_ad < MAX_ADAPTERS; k++) {
		int a = -1, port = 1;
		if (chance(d, 30)) {
			/* shared: an existing adapter on one of our segments with room for a VF */
			int cand[MAX_ADAPTERS], nc = 0;
			for (int x = 0; x < d->n_ad; x++)
				if (d->ad[x].users < MAX_SHARE && stack_on_seg(s, d, d->ad[x].seg))
					cand[nc++] = x;
			if (nc)
				a = cand[below(d, (uint64_t)nc)];
		}
		if (a < 0) {
			a = d->n_ad++;
			dadapter *x = &d->ad[a];
			const dif *f = &s->ifs[below(d, (uint64_t)s->n_ifs)];
			x->seg = d->nets[f->net].seg;
			x->sw[0] = f->sw;
			x->ports = chance(d, 25) ? 2 : 1;
			x->sw[1] = x->ports == 2 ? d->seg_sw0[x->seg] + (int)below(d, (uint64_t)d->seg_nsw[x->seg]) : -1;
			static const int rm[] = { 1024, 2048, 4096, 4096 };
			x->mtu = rm[below(d, 4)];
			if (x->mtu > roce_mtu_cap(d, x->seg))
				x->mtu = roce_mtu_cap(d, x->seg);
			uint64_t rc = below(d, 100);
			x->roce = !d->mixed_roce || rc < 50 ? "both" : rc < 75 ? "v1"
			                                                       : "v2";
		}
		dadapter *x = &d->ad[a];
		port = x->ports == 2 && chance(d, 50) ? 2 : 1;
		if (used[a * 2 + port - 1])
			port = x->ports == 2 ? 3 - port : port;
		if (used[a * 2 + port - 1])
			continue;
		used[a * 2 + port - 1] = true;
		x->users++;
		g_string_append_printf(acts, "  smcr pfid=%04X", 0x100 + a);
		if (port == 2)
			g_string_append(acts, " port=2");
		if (chance(d, 15)) {
			int mtu = chance(d, 50) ? 1024 : 2048;
			g_string_append_printf(acts, " mtu=%d", mtu < roce_mtu_cap(d, x->seg) ? mtu : roce_mtu_cap(d, x->seg));
		}
		g_string_append_c(acts, '\n');
		s->acts++;
	}
}

static void ip_of(const draw *d, const dif *f, char *buf, size_t len)
{
	snprintf(buf, len, "10.%d.%u.%u", d->nets[f->net].n, f->host / 250, f->host % 250);
}

static void write_stacks(draw *d)
{
	GString *acts = g_string_new(NULL);
	GString *stacks = g_string_new(NULL);
	for (int i = 0; i < d->n_st; i++) {
		dstack *s = &d->st[i];
		g_string_truncate(acts, 0);
		if (s->enable)
			draw_activations(d, i, acts);
		g_string_append_printf(stacks, "stack %s personality=%s\n", s->name, s->zos ? "zos" : "linux");
		for (int k = 0; k < s->n_ifs; k++) {
			const dif *f = &s->ifs[k];
			char ip[24];
			ip_of(d, f, ip, sizeof(ip));
			g_string_append_printf(stacks, "  interface if%d switch=SW%d ip=%s/16", k, f->sw, ip);
			if (d->nets[f->net].vlan)
				g_string_append_printf(stacks, " vlan=%u", d->nets[f->net].vlan);
			if (f->mtu != 1500)
				g_string_append_printf(stacks, " mtu=%d", f->mtu);
			g_string_append_c(stacks, '\n');
		}
		if (d->routed) {
			/* reach the network on the router's other side through it */
			bool on[2] = { false, false };
			for (int k = 0; k < s->n_ifs; k++)
				if (s->ifs[k].net < 2)
					on[s->ifs[k].net] = true;
			for (int side = 0; side < 2; side++)
				if (on[side] && !on[1 - side])
					g_string_append_printf(stacks, "  route 10.%d.0.0/16 via=10.%d.0.254\n", d->nets[1 - side].n,
					                       d->nets[side].n);
		}
		g_string_append(stacks, acts->str);
		if (!s->enable) {
			g_string_append(stacks, "  smcr enable=no\n");
		} else {
			static const char *bufs[] = { "16K", "64K", "64K", "256K" };
			g_string_append_printf(stacks, "  smcr rmbsize=%s sndbufsize=%s", bufs[below(d, 4)], bufs[below(d, 4)]);
			if (s->v2)
				g_string_append(stacks, " v2=yes ueid=SWARM.UEID");
			else
				g_string_append(stacks, " v2=no");
			if (chance(d, 20))
				g_string_append(stacks, " maxlinks=1");
			if (chance(d, 30))
				g_string_append(stacks, " release=0");
			if (s->testlink_ns != 30 * S_)
				g_string_append_printf(stacks, " testlink=%" PRIu64 "s", s->testlink_ns / S_);
			g_string_append_c(stacks, '\n');
		}
		g_string_append(stacks, "end\n");
	}
	/* the adapters first (a name may be used before it is defined, but reading is easier) */
	for (int a = 0; a < d->n_ad; a++) {
		const dadapter *x = &d->ad[a];
		g_string_append_printf(d->o, "adapter R%03d pfid=%04X switch=SW%d", a, 0x100 + a, x->sw[0]);
		if (x->ports == 2)
			g_string_append_printf(d->o, " ports=2 switch2=SW%d", x->sw[1]);
		if (x->mtu != 4096)
			g_string_append_printf(d->o, " mtu=%d", x->mtu);
		if (strcmp(x->roce, "both"))
			g_string_append_printf(d->o, " roce=%s", x->roce);
		g_string_append_c(d->o, '\n');
	}
	g_string_append(d->o, stacks->str);
	if (d->routed) {
		g_string_append(d->o, "stack RTR personality=linux\n");
		for (int side = 0; side < 2; side++) {
			g_string_append_printf(d->o, "  interface r%d switch=SW%d ip=10.%d.0.254/16", side, switch_of_net(d, side),
			                       d->nets[side].n);
			if (d->nets[side].vlan)
				g_string_append_printf(d->o, " vlan=%u", d->nets[side].vlan);
			if (d->nets[side].mtu != 1500)
				g_string_append_printf(d->o, " mtu=%d", d->nets[side].mtu);
			g_string_append_c(d->o, '\n');
		}
		g_string_append(d->o, "  forwarding on\n  smcr enable=no\nend\n");
	}
	g_string_free(acts, TRUE);
	g_string_free(stacks, TRUE);
}

/* ---- applications ---- */

/* Can client c reach server s, and through which of s's interfaces? */
static int reach(const draw *d, int c, int s)
{
	const dstack *a = &d->st[c], *b = &d->st[s];
	for (int k = 0; k < b->n_ifs; k++)
		for (int j = 0; j < a->n_ifs; j++)
			if (a->ifs[j].net == b->ifs[k].net)
				return k;
	if (!d->routed)
		return -1;
	/* through the router: the client has a route to the server's side */
	for (int k = 0; k < b->n_ifs; k++)
		for (int j = 0; j < a->n_ifs; j++)
			if (a->ifs[j].net < 2 && b->ifs[k].net == 1 - a->ifs[j].net)
				return k;
	return -1;
}

typedef struct dapp {
	uint64_t start_ns;
} dapp;

static void draw_apps(draw *d, dapp *apps, int *n_apps)
{
	int want = (int)range(d, 1, d->n_st * 2 < MAX_APPS ? (uint64_t)d->n_st * 2 : MAX_APPS);
	bool listener[MAX_STACKS][3] = { { false } };
	static const char *ckind[] = { "bulk", "echo", "rr" };
	static const char *lkind[] = { "sink", "echo", "responder" };
	GString *clients = g_string_new(NULL);
	int made = 0;
	for (int i = 0; i < want; i++) {
		int c = (int)below(d, (uint64_t)d->n_st);
		int cand[MAX_STACKS], via[MAX_STACKS], nc = 0;
		for (int s = 0; s < d->n_st; s++) {
			int k = s == c ? -1 : reach(d, c, s);
			if (k >= 0) {
				cand[nc] = s;
				via[nc++] = k;
			}
		}
		if (!nc)
			continue;
		int pick = (int)below(d, (uint64_t)nc);
		int s = cand[pick], k = via[pick];
		uint64_t kc = below(d, 100);
		int kind = kc < 40 ? 0 : kc < 70 ? 1
		                                 : 2;
		listener[s][kind] = true;
		uint64_t start = range(d, 0, 150) * MS + below(d, 1000) * US;
		apps[made].start_ns = start;
		note_time(d, start);
		g_string_append_printf(clients, "app c%02d %s connect %s.if%d:%d kind=%s", made, d->st[c].name, d->st[s].name, k,
		                       5000 + kind, ckind[kind]);
		if (kind == 0)
			g_string_append_printf(clients, " bytes=%" PRIu64, logu(d, 1024, 2 << 20));
		else if (kind == 1)
			g_string_append_printf(clients, " bytes=%" PRIu64, logu(d, 1024, 512 << 10));
		else
			g_string_append_printf(clients, " request=%" PRIu64 " response=%" PRIu64 " count=%" PRIu64, logu(d, 1, 2048),
			                       logu(d, 1, 8192), range(d, 1, 100));
		uint64_t conns = chance(d, 70) ? 1 : chance(d, 80) ? range(d, 2, 3)
		                                                   : range(d, 4, 8);
		if (conns > 1)
			g_string_append_printf(clients, " conns=%" PRIu64 " interval=%" PRIu64 "us", conns, below(d, 3000));
		note_time(d, start + conns * 3 * MS);
		if (chance(d, 8))
			g_string_append(clients, " smc=no");
		g_string_append(clients, " start=");
		put_time(clients, start);
		if (kind == 0 && chance(d, 10)) {
			g_string_append(clients, " close=");
			put_time(clients, start + conns * 3 * MS + range(d, 100, 5000) * US);
		}
		g_string_append_c(clients, '\n');
		made++;
	}
	for (int s = 0; s < d->n_st; s++)
		for (int kind = 0; kind < 3; kind++)
			if (listener[s][kind])
				g_string_append_printf(d->o, "app l%s%s %s listen port=%d kind=%s\n", d->st[s].name, lkind[kind],
				                       d->st[s].name, 5000 + kind, lkind[kind]);
	g_string_append(d->o, clients->str);
	g_string_free(clients, TRUE);
	*n_apps = made;
}

/* ---- faults ---- */

/* One target's disturbances must not overlap (fail/restore alternate; a burst ends before
 * the next one starts on it). */
typedef struct busy {
	char what[48];
	uint64_t from, to;
} busy;

static bool free_at(const busy *b, int nb, const char *what, uint64_t from, uint64_t to)
{
	for (int i = 0; i < nb; i++)
		if (!strcmp(b[i].what, what) && from <= b[i].to + MS && b[i].from <= to + MS)
			return false;
	return true;
}

static void draw_faults(draw *d, const dapp *apps, int n_apps)
{
	uint64_t c = below(d, 100);
	int n = c < 15 ? 0 : (int)range(d, 1, c < 85 ? 3 : 8);
	busy b[64];
	int nb = 0;
	for (int i = 0; i < n && nb < 62; i++) {
		uint64_t t;
		if (n_apps && chance(d, 50))
			t = apps[below(d, (uint64_t)n_apps)].start_ns + below(d, 400) * US + below(d, 1000); /* mid-handshake, mid-LLC */
		else
			t = range(d, 1, 250) * MS + below(d, 1000) * US;
		if (!t)
			t = 1;
		uint64_t k = below(d, 100);
		char target[48], verb[96];
		bool burst = false, permanent = false;
		uint64_t dur;
		if (k < 35 && d->n_ad) {
			int a = (int)below(d, (uint64_t)d->n_ad);
			int port = d->ad[a].ports == 2 && chance(d, 40) ? (int)range(d, 1, 2) : 0;
			if (port)
				snprintf(target, sizeof(target), "adapter R%03d port=%d", a, port);
			else
				snprintf(target, sizeof(target), "adapter R%03d", a);
			/* restores 1.2 s or more after the failure: sooner is a documented limit of the
			 * second link (scenario-format.md, `check` warns) */
			dur = range(d, 1200, 3000) * MS;
			permanent = chance(d, 30);
		} else if (k < 45 && d->n_trunks) {
			snprintf(target, sizeof(target), "wire T%d", (int)below(d, (uint64_t)d->n_trunks));
			dur = range(d, 10, 2000) * MS;
		} else if (k < 55) {
			snprintf(target, sizeof(target), "switch SW%d", (int)below(d, (uint64_t)d->n_sw));
			dur = range(d, 10, 2000) * MS;
		} else if (k < 65) {
			int s = (int)below(d, (uint64_t)d->n_st);
			snprintf(target, sizeof(target), "interface %s.if%d", d->st[s].name, (int)below(d, (uint64_t)d->st[s].n_ifs));
			dur = range(d, 10, 2000) * MS;
		} else {
			burst = true;
			uint64_t w = below(d, 100);
			if ((w < 70 || (!d->n_trunks && w < 90)) && d->n_ad) {
				int a = (int)below(d, (uint64_t)d->n_ad);
				snprintf(target, sizeof(target), "adapter R%03d", a);
			} else if (w < 90 || !d->n_trunks) {
				int s = (int)below(d, (uint64_t)d->n_st);
				snprintf(target, sizeof(target), "interface %s.if%d", d->st[s].name,
				         (int)below(d, (uint64_t)d->st[s].n_ifs));
			} else {
				snprintf(target, sizeof(target), "wire T%d", (int)below(d, (uint64_t)d->n_trunks));
			}
			dur = range(d, 1, 500) * MS;
		}
		/* a target by its kind and name (ports of one adapter count as the adapter) */
		char key[48];
		snprintf(key, sizeof(key), "%s", target);
		char *sp = strstr(key, " port=");
		if (sp)
			*sp = 0;
		uint64_t to = permanent ? UINT64_MAX / 4 : t + dur;
		if (!free_at(b, nb, key, t, to))
			continue;
		snprintf(b[nb].what, sizeof(b[nb].what), "%s", key);
		b[nb].from = t;
		b[nb++].to = to;
		if (burst) {
			GString *attrs = g_string_new(NULL);
			static const char *f[] = { "loss", "dup", "reorder", "corrupt" };
			for (int x = 0; x < 4; x++)
				if (chance(d, 40) || (x == 3 && !attrs->len))
					g_string_append_printf(attrs, " %s=%s", f[x], ratio_text(d, x == 0));
			g_string_append(d->o, "at ");
			put_time(d->o, t);
			snprintf(verb, sizeof(verb), " set %s", target);
			g_string_append_printf(d->o, "%s%s\n", verb, attrs->str);
			g_string_append(d->o, "at ");
			put_time(d->o, t + dur);
			g_string_append_printf(d->o, "%s loss=0 dup=0 reorder=0 corrupt=0\n", verb);
			g_string_free(attrs, TRUE);
		} else {
			g_string_append(d->o, "at ");
			put_time(d->o, t);
			g_string_append_printf(d->o, " fail %s\n", target);
			if (!permanent) {
				g_string_append(d->o, "at ");
				put_time(d->o, t + dur);
				g_string_append_printf(d->o, " restore %s\n", target);
			}
		}
		note_time(d, permanent ? t : t + dur);
		if (!permanent && dur > d->longest_outage_ns)
			d->longest_outage_ns = dur;
	}
}

uint64_t swarm_hang_bound_ns(uint64_t longest_outage_ns, uint64_t testlink_ns)
{
	/* see swarm_check.h for each part */
	return 2 * longest_outage_ns + 500 * MS /* TCP: the backed-off retransmission after a restore */
	       + 6 * S_                         /* CLC_WAIT_TIME: a handshake's wait for its next message */
	       + 20 * S_                        /* LLC flow wait: a flow queued behind another */
	       + 10 * S_                        /* a sender's wait for a free send slot */
	       + testlink_ns + 2 * S_           /* TEST_LINK on an idle link, and its answer's wait */
	       + 2 * S_                         /* RC retries running out: 8 x 134 ms, with margin */
	       + 2 * S_                         /* SMC close: its wait for the peer */
	       + 2 * S_;                        /* the exchanges themselves (megabytes at 25 Gbit/s) */
}

void swarm_draw(uint64_t seed, GString *out)
{
	draw *d = g_new0(draw, 1);
	sim_rng_stream(&d->r, seed, "swarm.draw", 0);
	d->o = out;
	g_string_append_printf(out, "# drawn by smcr-sim swarm --from %" PRIu64 " --seeds 1\n", seed);
	g_string_append_printf(out, "scenario \"swarm world %" PRIu64 "\"\nseed %" PRIu64 "\n", seed, seed);
	/* the end goes in after the draw knows it: remember where */
	gsize end_at = out->len;
	draw_fabric(d);
	/* adapters of one RoCE version only, in some worlds: with them a client's v1 and v2
	 * RNICs can differ, and SMC-Rv2's first contact then fails as in Linux (swarm_known.c) */
	d->mixed_roce = chance(d, 10);
	draw_stacks(d);
	write_stacks(d);
	dapp apps[MAX_APPS];
	int n_apps = 0;
	draw_apps(d, apps, &n_apps);
	draw_faults(d, apps, n_apps);
	uint64_t end = d->last_ns + swarm_hang_bound_ns(d->longest_outage_ns, d->max_testlink_ns ? d->max_testlink_ns : 30 * S_);
	end = (end / S_ + 1) * S_;
	char line[64];
	snprintf(line, sizeof(line), "end %" PRIu64 "s\n", end / S_);
	g_string_insert(out, (gssize)end_at, line);
	g_free(d);
}
