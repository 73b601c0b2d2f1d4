/* The TCP/IP stack's input path (sim/net): Ethernet and 802.1Q, ARP, IPv4 (options,
 * forwarding), ICMP, TCP with options, down to sockets with echo servers on them.
 *
 * One stack with eth0 (10.0.0.1/24, optionally on VLAN 5) and eth1 (10.1.0.1/24); echo
 * servers on port 7 (plain TCP) and 8 (an SMC socket, which falls back: no SMC layer);
 * optionally an active connection to 10.0.0.2:80 and a ping. The input:
 *   byte 0  setup: 0x01 z/OS personality, 0x02 eth0 on VLAN 5, 0x04 IP forwarding,
 *           0x08 connect to 10.0.0.2:80, 0x10 ping 10.0.0.2, 0x20 learn 10.0.0.2's MAC
 *           first (an ARP reply through the input path)
 *   then records (fuzz_record: 16-bit length, bytes), each: a flags byte, a delay byte
 *   (the engine runs delay * 10 ms before the frame arrives), the frame.
 * The flags rewrite the frame before it arrives, so mutations reach the state machine:
 *   0x01 destination MAC = eth0's; 0x10 from 10.0.0.2 to 10.0.0.1, TCP destination
 *   port 7 or 8 (by its parity); 0x04 TCP ack = what the stack sent last, plus its length
 *   (its snd_nxt); 0x08 TCP seq = the stack's last acknowledgment (its rcv_nxt);
 *   0x02 IPv4 header, TCP and ICMP checksums recomputed (last); 0x20 the frame arrives
 *   on eth1 instead of eth0.
 * After the last frame the engine runs two more virtual minutes (retransmissions,
 * keepalives, TIME_WAIT). */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "sim/app/app.h"
#include "sim/engine/engine.h"
#include "sim/net/sock.h"
#include "sim/net/stack.h"
#include "sim/net/tcp.h"

#define OUR_IP 0x0a000001u
#define PEER_IP 0x0a000002u
#define NET1_IP 0x0a010001u

#define FIX_MAC 0x01
#define FIX_CSUM 0x02
#define FIX_ACK 0x04
#define FIX_SEQ 0x08
#define FIX_TO_US 0x10

static const uint8_t our_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t peer_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };

/* What the stack sent last on TCP: the fix-ups make the input answer it. */
static struct {
	bool seen;
	uint32_t snd_nxt, rcv_nxt;
} last;

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}
static void wr32(uint8_t *p, uint32_t v)
{
	wr16(p, (uint16_t)(v >> 16));
	wr16(p + 2, (uint16_t)v);
}

static uint32_t sum16(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += rd16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* The IPv4 header of an Ethernet frame, with its header length and the bytes of the
 * datagram present (total length, cut to the frame); NULL if there is none. */
static uint8_t *ipv4_of(uint8_t *f, size_t len, size_t *ihl, size_t *tot)
{
	size_t off = 12;
	if (len < 14)
		return NULL;
	if (rd16(f + off) == 0x8100) {
		if (len < 18)
			return NULL;
		off += 4;
	}
	if (rd16(f + off) != 0x0800)
		return NULL;
	off += 2;
	if (len - off < 20)
		return NULL;
	uint8_t *ip = f + off;
	*ihl = (size_t)(ip[0] & 15) * 4;
	*tot = rd16(ip + 2);
	if (*tot > len - off)
		*tot = len - off;
	if (*ihl < 20 || *ihl > *tot)
		return NULL;
	return ip;
}

static void link_output(void *ctx, netif *nif, const uint8_t *frame, size_t len, unsigned flags)
{
	(void)ctx;
	(void)nif;
	(void)flags;
	size_t ihl, tot;
	uint8_t *ip = ipv4_of((uint8_t *)frame, len, &ihl, &tot);
	if (!ip || ip[9] != 6 || tot - ihl < 20)
		return;
	const uint8_t *t = ip + ihl;
	size_t thl = (size_t)(t[12] >> 4) * 4;
	if (thl < 20 || thl > tot - ihl)
		return;
	uint8_t fl = t[13];
	last.seen = true;
	last.snd_nxt = rd32(t + 4) + (uint32_t)(tot - ihl - thl) + ((fl & 0x02) ? 1u : 0u) + ((fl & 0x01) ? 1u : 0u);
	if (fl & 0x10)
		last.rcv_nxt = rd32(t + 8);
}

static void fix_up(uint8_t *f, size_t len, uint8_t flags)
{
	if ((flags & FIX_MAC) && len >= 6)
		memcpy(f, our_mac, 6);
	size_t ihl, tot;
	uint8_t *ip = ipv4_of(f, len, &ihl, &tot);
	if (!ip)
		return;
	uint8_t *l4 = ip + ihl;
	size_t l4len = tot - ihl;
	if (flags & FIX_TO_US) {
		wr32(ip + 12, PEER_IP);
		wr32(ip + 16, OUR_IP);
		if (ip[9] == 6 && l4len >= 4)
			wr16(l4 + 2, (rd16(l4 + 2) & 1) ? 8 : 7);
	}
	if (ip[9] == 6 && l4len >= 20 && last.seen) {
		if (flags & FIX_ACK)
			wr32(l4 + 8, last.snd_nxt);
		if (flags & FIX_SEQ)
			wr32(l4 + 4, last.rcv_nxt);
	}
	if (!(flags & FIX_CSUM))
		return;
	wr16(ip + 10, 0);
	wr16(ip + 10, fold(sum16(0, ip, ihl)));
	if (ip[9] == 6 && l4len >= 20) {
		wr16(l4 + 16, 0);
		uint32_t s = sum16(0, ip + 12, 8) + 6 + (uint32_t)l4len;
		wr16(l4 + 16, fold(sum16(s, l4, l4len)));
	} else if (ip[9] == 1 && l4len >= 4) {
		wr16(l4 + 2, 0);
		wr16(l4 + 2, fold(sum16(0, l4, l4len)));
	}
}

static void arp_reply_from_peer(netif *nif, uint16_t vlan)
{
	uint8_t f[64] = { 0 };
	size_t off = 12;
	memcpy(f, our_mac, 6);
	memcpy(f + 6, peer_mac, 6);
	if (vlan) {
		wr16(f + off, 0x8100);
		wr16(f + off + 2, vlan);
		off += 4;
	}
	wr16(f + off, 0x0806);
	uint8_t *a = f + off + 2;
	wr16(a, 1);
	wr16(a + 2, 0x0800);
	a[4] = 6;
	a[5] = 4;
	wr16(a + 6, 2);
	memcpy(a + 8, peer_mac, 6);
	wr32(a + 14, PEER_IP);
	memcpy(a + 18, our_mac, 6);
	wr32(a + 24, OUR_IP);
	netif_input(nif, f, 60);
}

/* The active connection: send a little, read what comes, nothing else. */
static void on_connect(sock *s, int err, void *user)
{
	(void)user;
	if (!err)
		(void)sock_send(s, "hello", 5);
}

static void on_readable(sock *s, void *user)
{
	(void)user;
	uint8_t buf[2048];
	while (sock_recv(s, buf, sizeof(buf)) > 0)
		;
}

static const sock_callbacks client_cbs = { .on_connect = on_connect, .on_readable = on_readable };

static void run_for(sim_engine *eng, sim_time d)
{
	sim_time until = sim_now(eng) + d;
	if (sim_engine_run(eng, until, 200000) == SIM_RUN_IDLE && sim_now(eng) < until)
		sim_engine_advance(eng, until);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_in in = fuzz_in_make(data, size);
	uint8_t setup = fuzz_u8(&in);
	memset(&last, 0, sizeof(last));
	sim_engine *eng = sim_engine_new(1);
	stack *st = stack_new(eng, "fuzz", setup & 0x01 ? STACK_ZOS : STACK_LINUX, NULL);
	uint16_t vlan = setup & 0x02 ? 5 : 0;
	netif *eth0 = stack_add_netif(st, "eth0", our_mac, 1500, vlan);
	netif *eth1 = stack_add_netif(st, "eth1", NULL, 1500, 0);
	if (!eth0 || !eth1 || netif_set_ipv4(eth0, OUR_IP, 24) || netif_set_ipv4(eth1, NET1_IP, 24))
		abort();
	netif_set_link(eth0, link_output, NULL);
	netif_set_link(eth1, link_output, NULL);
	stack_set_forwarding(st, setup & 0x04);
	sock_opts o;
	sock_opts_default(&o);
	o.smc = false;
	int err;
	app_listener *plain = app_serve(st, &o, 7, APP_ECHO, NULL, 0, &err);
	o.smc = true;
	app_listener *smc = app_serve(st, &o, 8, APP_ECHO, NULL, 0, &err);
	if (setup & 0x20)
		arp_reply_from_peer(eth0, vlan);
	sock *cl = NULL;
	if (setup & 0x08) {
		sock_opts_default(&o);
		cl = sock_connect(st, &o, PEER_IP, 80, &client_cbs, NULL, &err);
	}
	if (setup & 0x10)
		(void)stack_ping(st, PEER_IP, 1);
	run_for(eng, 1000000);

	const uint8_t *rec;
	size_t len;
	while (fuzz_record(&in, &rec, &len)) {
		if (len < 2)
			continue;
		uint8_t flags = rec[0];
		sim_time delay = (sim_time)rec[1] * 10000000u;
		size_t flen = len - 2;
		uint8_t *f = malloc(flen ? flen : 1);
		if (!f)
			abort();
		memcpy(f, rec + 2, flen);
		fix_up(f, flen, flags);
		run_for(eng, delay);
		netif_input(flags & 0x20 ? eth1 : eth0, f, flen);
		free(f);
	}
	run_for(eng, 120ull * 1000000000u);
	if (getenv("FUZZ_DEBUG")) {
		/* how far an input got, for whoever writes seeds */
		const tcp_counters *tc = tcp_get_counters(st);
		app_serve_stats ep = app_serve_stats_get(plain), es = app_serve_stats_get(smc);
		fprintf(stderr, "net: tcp segs in %llu out %llu, passive opens %llu, bad checksum %llu, no pcb %llu, "
		                "out of window %llu; echo accepted %llu+%llu, bytes in %llu+%llu\n",
		        (unsigned long long)tc->segs_in, (unsigned long long)tc->segs_out,
		        (unsigned long long)tc->passive_opens, (unsigned long long)tc->bad_checksum,
		        (unsigned long long)tc->no_pcb, (unsigned long long)tc->out_of_window,
		        (unsigned long long)ep.accepted, (unsigned long long)es.accepted,
		        (unsigned long long)ep.bytes_in, (unsigned long long)es.bytes_in);
	}
	if (cl)
		sock_close(cl);
	app_listener_close(plain);
	app_listener_close(smc);
	run_for(eng, 1000000);
	stack_free(st);
	sim_engine_free(eng);
	return 0;
}
