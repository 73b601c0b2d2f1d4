/* The AF_PACKET netif: two virtual stacks in one process reach each other through the
 * host's loopback interface in real time (ARP, ICMP, a TCP bulk transfer with every byte
 * checked), frames of other MACs and our own never reach a stack, short frames leave
 * padded, and a missing interface or privilege is a clear error. Needs CAP_NET_RAW: the
 * tests skip without it. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sim/app/app.h"
#include "sim/net/netif_packet.h"
#include "sim/engine/realtime.h"
#include "sim/net/stack.h"

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

/* Criterion runs tests in parallel processes on the one loopback: every test has its
 * own MACs and subnet. */
static uint8_t MAC_A[6] = { 0x02, 0x5e, 0x00, 0x00, 0x00, 0x0a };
static uint8_t MAC_B[6] = { 0x02, 0x5e, 0x00, 0x00, 0x00, 0x0b };
static uint32_t SUBNET;

static void test_id(uint8_t id)
{
	MAC_A[4] = MAC_B[4] = id;
	SUBNET = IP4(10, 77, id, 0);
}

typedef struct duo {
	sim_engine *eng;
	sim_realtime *rt;
	stack *a, *b;
	netif *na, *nb;
	netif_packet *pa, *pb;
	unsigned wa, wb;
} duo;

static void on_fd(void *ctx, int fd)
{
	(void)fd;
	netif_packet_process(ctx);
}

static bool can_open_packet_socket(void)
{
	int fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0)
		return false;
	close(fd);
	return if_nametoindex("lo") != 0;
}

static void duo_up(duo *d, uint8_t id)
{
	test_id(id);
	if (!can_open_packet_socket())
		cr_skip_test("no AF_PACKET socket here (needs CAP_NET_RAW and a loopback interface)");
	d->eng = sim_engine_new(7);
	d->rt = sim_realtime_new(d->eng);
	d->a = stack_new(d->eng, "pkt-a", STACK_LINUX, NULL);
	d->b = stack_new(d->eng, "pkt-b", STACK_LINUX, NULL);
	d->na = stack_add_netif(d->a, "eth0", MAC_A, 1500, 0);
	d->nb = stack_add_netif(d->b, "eth0", MAC_B, 1500, 0);
	netif_set_ipv4(d->na, SUBNET | 1, 24);
	netif_set_ipv4(d->nb, SUBNET | 2, 24);
	char err[160];
	d->pa = netif_packet_open(d->na, "lo", err, sizeof(err));
	cr_assert_not_null(d->pa, "%s", err);
	d->pb = netif_packet_open(d->nb, "lo", err, sizeof(err));
	cr_assert_not_null(d->pb, "%s", err);
	d->wa = sim_realtime_watch_fd(d->rt, netif_packet_fd(d->pa), on_fd, d->pa);
	d->wb = sim_realtime_watch_fd(d->rt, netif_packet_fd(d->pb), on_fd, d->pb);
}

static void duo_down(duo *d)
{
	sim_realtime_unwatch(d->rt, d->wa);
	sim_realtime_unwatch(d->rt, d->wb);
	netif_packet_close(d->pa);
	netif_packet_close(d->pb);
	stack_free(d->a);
	stack_free(d->b);
	sim_realtime_free(d->rt);
	sim_engine_free(d->eng);
}

Test(netif_packet, two_stacks_resolve_and_ping_each_other_over_loopback)
{
	duo d;
	duo_up(&d, 1);
	cr_assert_eq(stack_ping(d.a, SUBNET | 2, 1), 0);
	sim_realtime_run(d.rt, 300 * SIM_MS);
	cr_assert_eq(d.b->icmp.echo_requests_received, 1, "the request went through ARP and the wire");
	cr_assert_eq(d.a->icmp.echo_replies_received, 1);
	const netif_packet_counters *ca = netif_packet_counters_get(d.pa);
	cr_assert_geq(ca->tx_frames, 2, "an ARP request and the echo request");
	cr_assert_eq(ca->tx_dropped, 0);
	cr_assert_eq(d.na->ctr.rx_not_ours, 0, "the socket filter passed only frames for A or broadcast");
	cr_assert_eq(d.nb->ctr.rx_not_ours, 0);
	duo_down(&d);
}

Test(netif_packet, tcp_bulk_transfer_arrives_intact)
{
	duo d;
	duo_up(&d, 2);
	int err = 0;
	sock_opts o;
	sock_opts_default(&o);
	o.smc = false;
	app_listener *sink = app_serve(d.b, &o, 7000, APP_SINK, NULL, 42, &err);
	cr_assert_not_null(sink, "sink: %d", err);
	app_flow *snd = app_connect(d.a, &o, SUBNET | 2, 7000,
	                            &(app_spec){ .kind = APP_BULK, .bytes = 2 << 20, .close_after = true }, 42, &err);
	cr_assert_not_null(snd, "sender: %d", err);
	for (int i = 0; i < 100 && !app_end_done(&snd->c); i++)
		sim_realtime_run(d.rt, sim_now(d.eng) + 50 * SIM_MS);
	const app_end *ss = &snd->c;
	app_serve_stats ks = app_serve_stats_get(sink);
	cr_assert(app_end_done(ss), "sent %llu bytes, err %d", (unsigned long long)ss->sent, ss->err);
	cr_assert_eq(ks.verified, 2 << 20);
	cr_assert_eq(ks.mismatches, 0);
	cr_assert_eq(ks.completed, 1);
	app_connect_free(snd);
	app_listener_close(sink);
	duo_down(&d);
}

/* A raw socket of the test injects frames a stack must never see, and one it must. */
Test(netif_packet, foreign_and_own_frames_are_filtered_and_short_frames_padded)
{
	duo d;
	duo_up(&d, 3);
	int raw = socket(AF_PACKET, SOCK_RAW, 0);
	cr_assert_geq(raw, 0);
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_ifindex = (int)if_nametoindex("lo"), .sll_halen = 6 };
	uint8_t f[60];
	memset(f, 0, sizeof(f));
	f[12] = 0x88; /* an unknown Ethertype: counted as malformed by the netif if it gets in */
	f[13] = 0xb5;
	const uint8_t other[6] = { 0x02, 0x5e, 0, 0, 0, 0x0c };
	memcpy(f, other, 6); /* to someone else */
	memcpy(f + 6, MAC_B, 6);
	cr_assert_eq(sendto(raw, f, sizeof(f), 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)sizeof(f));
	memcpy(f, MAC_A, 6); /* to A, but "from" A: an echo of our own */
	memcpy(f + 6, MAC_A, 6);
	cr_assert_eq(sendto(raw, f, sizeof(f), 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)sizeof(f));
	memcpy(f + 6, MAC_B, 6); /* to A from B: delivered */
	cr_assert_eq(sendto(raw, f, sizeof(f), 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)sizeof(f));
	close(raw);
	sim_realtime_run(d.rt, 100 * SIM_MS);
	/* other tests broadcast ARP on the same loopback meanwhile: count the test's
	 * Ethertype, which the netif counts as malformed */
	cr_assert_eq(d.na->ctr.rx_malformed, 1, "only the frame from B to A reached A");
	cr_assert_eq(d.nb->ctr.rx_malformed, 0, "B saw none of them");
	cr_assert_eq(d.na->ctr.rx_not_ours + d.nb->ctr.rx_not_ours, 0);

	/* an ARP request is 42 bytes; on the wire it is 60 */
	int tap = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ARP));
	cr_assert_geq(tap, 0);
	struct sockaddr_ll lo = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ARP), .sll_ifindex = to.sll_ifindex };
	cr_assert_eq(bind(tap, (struct sockaddr *)&lo, sizeof(lo)), 0);
	stack_ping(d.a, SUBNET | 9, 1); /* nobody: ARP requests only */
	sim_realtime_run(d.rt, sim_now(d.eng) + 100 * SIM_MS);
	uint8_t buf[128];
	ssize_t n = recv(tap, buf, sizeof(buf), 0);
	cr_assert_eq(n, 60, "ARP request of %zd bytes", n);
	cr_assert_arr_eq(buf + 6, MAC_A, 6);
	close(tap);
	duo_down(&d);
}

Test(netif_packet, a_missing_interface_is_a_clear_error)
{
	sim_engine *eng = sim_engine_new(1);
	stack *st = stack_new(eng, "pkt-x", STACK_LINUX, NULL);
	test_id(9);
	netif *n = stack_add_netif(st, "eth0", MAC_A, 1500, 0);
	char err[160] = "";
	cr_assert_null(netif_packet_open(n, "nosuchif9", err, sizeof(err)));
	cr_assert(strstr(err, "no network interface 'nosuchif9'"), "%s", err);
	cr_assert_null(n->link_output, "the netif stays unplugged");
	stack_free(st);
	sim_engine_free(eng);
}
