/* TCP's lookups (sim/net/tcp_index.c) with many pcbs: segments reach the connection of
 * their 4-tuple among hundreds, listeners take their address or any and nothing else,
 * ephemeral ports skip every port in use and run out only when all are taken, bind
 * conflicts follow the wildcard rules, and freed pcbs give their ports and tuples back. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/net/stack.h"
#include "sim/net/tcp.h"
#include "tests/support/net.h"

#define A_IP IPV4(10, 0, 0, 1)
#define B_IP IPV4(10, 0, 0, 2)
#define B_IP2 IPV4(10, 0, 1, 2)
#define LAT (20 * SIM_US)

static const sim_ratio no_loss = { 0, 1 };

typedef struct conn {
	tcp_pcb *pcb;
	bool connected;
	uint8_t got[8];
	size_t got_len;
	tcp_pcb *via; /* server side: the listener that accepted it */
	int finished;
} conn;

#define MAXC 400

typedef struct server {
	conn child[MAXC];
	size_t n;
	tcp_pcb *listeners[2];
} server;

static void c_connected(void *user, tcp_pcb *pcb)
{
	(void)pcb;
	((conn *)user)->connected = true;
}

static void c_readable(void *user, tcp_pcb *pcb)
{
	conn *c = user;
	ssize_t n;
	while (c->got_len < sizeof(c->got) &&
	       (n = tcp_read(pcb, c->got + c->got_len, sizeof(c->got) - c->got_len)) > 0)
		c->got_len += (size_t)n;
}

static void c_finished(void *user, tcp_pcb *pcb, int err)
{
	(void)pcb;
	((conn *)user)->finished = 1 + err;
}

static const tcp_callbacks conn_cbs = {
	.connected = c_connected,
	.readable = c_readable,
	.finished = c_finished,
};

static void s_accepted(void *user, tcp_pcb *listener, tcp_pcb *child)
{
	server *s = user;
	cr_assert_lt(s->n, MAXC);
	conn *c = &s->child[s->n++];
	c->pcb = child;
	c->via = listener;
	c->connected = true;
	tcp_set_callbacks(child, &conn_cbs, c);
}

static const tcp_callbacks listen_cbs = { .accepted = s_accepted };

static tcp_pcb *listen_on(stack *st, server *s, uint32_t ip, uint16_t port)
{
	tcp_pcb *l = tcp_new(st);
	tcp_set_callbacks(l, &listen_cbs, s);
	cr_assert_eq(tcp_bind(l, ip, port), 0);
	cr_assert_eq(tcp_listen(l, 1000), 0);
	return l;
}

static uint16_t local_port(const tcp_pcb *p)
{
	tcp_info ti;
	tcp_get_info(p, &ti);
	return ti.local_port;
}

static uint16_t remote_port(const tcp_pcb *p)
{
	tcp_info ti;
	tcp_get_info(p, &ti);
	return ti.remote_port;
}

Test(tcp_index, hundreds_of_connections_each_get_their_own_bytes)
{
	enum { N = 300 };
	test_net net;
	test_net_init(&net, 3, LAT, no_loss);
	stack *a = test_net_add_stack(&net, "a", STACK_LINUX, A_IP, 24, 0);
	stack *b = test_net_add_stack(&net, "b", STACK_LINUX, B_IP, 24, 0);
	static server srv;
	memset(&srv, 0, sizeof(srv));
	listen_on(b, &srv, 0, 5000);
	static conn cl[N];
	memset(cl, 0, sizeof(cl));
	for (int i = 0; i < N; i++) {
		cl[i].pcb = tcp_new(a);
		tcp_set_callbacks(cl[i].pcb, &conn_cbs, &cl[i]);
		cr_assert_eq(tcp_connect(cl[i].pcb, B_IP, 5000), 0);
	}
	test_net_run(&net, 5 * SIM_S); /* SYNs beyond ARP's queue come again after 1 s */
	cr_assert_eq(srv.n, N);
	/* each client sends its index; each server child must get the index of the client
	 * whose port is its remote port */
	for (int i = 0; i < N; i++) {
		cr_assert(cl[i].connected);
		uint8_t m[4] = { (uint8_t)(i >> 8), (uint8_t)i, 0x5a, 0xa5 };
		cr_assert_eq(tcp_write(cl[i].pcb, m, sizeof(m)), 4);
	}
	/* half the clients close before the rest write again: lookups of the others go on */
	static uint16_t cport[N];
	for (int i = 0; i < N; i++)
		cport[i] = local_port(cl[i].pcb);
	for (int i = 0; i < N; i += 2)
		tcp_abort(cl[i].pcb);
	test_net_run(&net, 6 * SIM_S);
	for (int i = 1; i < N; i += 2) {
		uint8_t m[4] = { (uint8_t)(i >> 8), (uint8_t)i, 0x11, 0x22 };
		cr_assert_eq(tcp_write(cl[i].pcb, m, sizeof(m)), 4);
	}
	test_net_run(&net, 7 * SIM_S);
	for (size_t k = 0; k < srv.n; k++) {
		conn *c = &srv.child[k];
		cr_assert_geq(c->got_len, 4);
		int i = c->got[0] << 8 | c->got[1];
		cr_assert_lt(i, N);
		cr_assert_eq(remote_port(c->pcb), cport[i], "child %zu got client %d's bytes", k, i);
		if (i % 2) {
			cr_assert_eq(c->got_len, 8);
			cr_assert_eq(c->got[6], 0x11);
		} else {
			cr_assert_eq(c->finished, 1 - ECONNRESET, "the aborted client's child was reset");
		}
	}
	test_net_free(&net);
}

/* n bound pcbs on ports far from the tests' own: past 8 pcbs a layer answers from its
 * tables, below it walks its list; both must answer alike. */
static void pad(stack *st, int n)
{
	for (int i = 0; i < n; i++)
		cr_assert_eq(tcp_bind(tcp_new(st), 0, (uint16_t)(20000 + i)), 0);
}

static void listeners_case(int padding)
{
	test_net net;
	test_net_init(&net, 4, LAT, no_loss);
	stack *a = test_net_add_stack(&net, "a", STACK_LINUX, A_IP, 16, 0);
	stack *b = test_net_add_stack(&net, "b", STACK_LINUX, B_IP, 16, 0);
	test_net_add_netif(&net, b, net.wires[0], "eth1", B_IP2, 16, 0);
	pad(b, padding);
	static server srv;
	memset(&srv, 0, sizeof(srv));
	tcp_pcb *exact = listen_on(b, &srv, B_IP2, 6000);
	tcp_pcb *wild = listen_on(b, &srv, 0, 6001);
	static conn c[4];
	memset(c, 0, sizeof(c));
	const uint32_t dst[4] = { B_IP2, B_IP, B_IP, B_IP2 };
	const uint16_t port[4] = { 6000, 6000, 6001, 6001 };
	for (int i = 0; i < 4; i++) {
		c[i].pcb = tcp_new(a);
		tcp_set_callbacks(c[i].pcb, &conn_cbs, &c[i]);
		cr_assert_eq(tcp_connect(c[i].pcb, dst[i], port[i]), 0);
	}
	test_net_run(&net, 3 * SIM_S);
	cr_assert(c[0].connected);
	cr_assert_not(c[1].connected);
	cr_assert_eq(c[1].finished, 1 - ECONNREFUSED, "no listener on that address");
	cr_assert(c[2].connected && c[3].connected);
	cr_assert_eq(srv.n, 3);
	for (size_t k = 0; k < srv.n; k++) {
		tcp_info ti;
		tcp_get_info(srv.child[k].pcb, &ti);
		cr_assert_eq(srv.child[k].via, ti.local_port == 6000 ? exact : wild);
	}
	/* a closed listener takes nothing more; a new one on its port does (on the other
	 * address: the accepted child still holds B_IP2:6000) */
	tcp_close(exact);
	conn d = { 0 };
	d.pcb = tcp_new(a);
	tcp_set_callbacks(d.pcb, &conn_cbs, &d);
	cr_assert_eq(tcp_connect(d.pcb, B_IP2, 6000), 0);
	test_net_run(&net, 4 * SIM_S);
	cr_assert_eq(d.finished, 1 - ECONNREFUSED);
	tcp_pcb *refused = tcp_new(b);
	cr_assert_eq(tcp_bind(refused, 0, 6000), -EADDRINUSE);
	tcp_close(refused);
	tcp_pcb *again = listen_on(b, &srv, B_IP, 6000);
	conn e = { 0 };
	e.pcb = tcp_new(a);
	tcp_set_callbacks(e.pcb, &conn_cbs, &e);
	cr_assert_eq(tcp_connect(e.pcb, B_IP, 6000), 0);
	test_net_run(&net, 5 * SIM_S);
	cr_assert(e.connected);
	cr_assert_eq(srv.child[srv.n - 1].via, again);
	test_net_free(&net);
}

Test(tcp_index, listeners_take_their_address_or_any_and_others_are_refused)
{
	listeners_case(0);
}

Test(tcp_index, listeners_answer_alike_from_the_tables)
{
	listeners_case(10);
}

static void bind_case(int padding)
{
	test_net net;
	test_net_init(&net, 5, LAT, no_loss);
	stack *b = test_net_add_stack(&net, "b", STACK_LINUX, B_IP, 16, 0);
	test_net_add_netif(&net, b, net.wires[0], "eth1", B_IP2, 16, 0);
	pad(b, padding);
	tcp_pcb *x = tcp_new(b), *y = tcp_new(b), *z = tcp_new(b), *w = tcp_new(b);
	cr_assert_eq(tcp_bind(x, B_IP, 7000), 0);
	cr_assert_eq(tcp_bind(y, B_IP2, 7000), 0, "another address, the same port");
	cr_assert_eq(tcp_bind(z, B_IP, 7000), -EADDRINUSE);
	cr_assert_eq(tcp_bind(z, 0, 7000), -EADDRINUSE, "the wildcard collides with any address");
	cr_assert_eq(tcp_bind(z, 0, 7001), 0);
	cr_assert_eq(tcp_bind(w, B_IP, 7001), -EADDRINUSE, "any address collides with the wildcard");
	tcp_close(x);
	cr_assert_eq(tcp_bind(w, B_IP, 7000), 0, "a freed pcb gives its port back");
	tcp_close(y);
	tcp_close(z);
	tcp_close(w);
	test_net_free(&net);
}

Test(tcp_index, bind_conflicts_follow_the_wildcard_rules)
{
	bind_case(0);
}

Test(tcp_index, bind_conflicts_answer_alike_from_the_tables)
{
	bind_case(10);
}

Test(tcp_index, ephemeral_ports_skip_those_in_use_and_run_out_only_when_all_are_taken)
{
	test_net net;
	test_net_init(&net, 6, LAT, no_loss);
	stack *a = test_net_add_stack(&net, "a", STACK_LINUX, A_IP, 24, 0);
	test_net_add_stack(&net, "b", STACK_LINUX, B_IP, 24, 0);
	const tcp_config *c = &a->cfg.tcp;
	uint32_t range = (uint32_t)(c->port_hi - c->port_lo) + 1;
	/* the first connection shows where the rotation starts */
	tcp_pcb *first = tcp_new(a);
	cr_assert_eq(tcp_connect(first, B_IP, 9), 0);
	uint16_t p0 = local_port(first);
	uint16_t next = p0 >= c->port_hi ? c->port_lo : (uint16_t)(p0 + 1);
	/* take every other port of the range by bind, but leave one */
	uint16_t spare = next >= c->port_hi ? c->port_lo : (uint16_t)(next + 1);
	tcp_pcb **held = calloc(range, sizeof(*held));
	size_t n = 0;
	for (uint32_t p = c->port_lo; p <= c->port_hi; p++) {
		if (p == p0 || p == spare)
			continue;
		held[n] = tcp_new(a);
		cr_assert_eq(tcp_bind(held[n], 0, (uint16_t)p), 0, "port %u", p);
		n++;
	}
	tcp_pcb *second = tcp_new(a);
	cr_assert_eq(tcp_connect(second, B_IP, 9), 0);
	cr_assert_eq(local_port(second), spare, "the one free port");
	tcp_pcb *third = tcp_new(a);
	cr_assert_eq(tcp_connect(third, B_IP, 9), -EADDRNOTAVAIL);
	/* one held port freed: the next connection gets exactly that one */
	uint16_t freed = local_port(held[n / 2]);
	tcp_close(held[n / 2]);
	held[n / 2] = NULL;
	cr_assert_eq(tcp_connect(third, B_IP, 9), 0);
	cr_assert_eq(local_port(third), freed);
	for (size_t i = 0; i < n; i++)
		if (held[i])
			tcp_close(held[i]);
	free(held);
	tcp_abort(first);
	tcp_abort(second);
	tcp_abort(third);
	test_net_free(&net);
}
