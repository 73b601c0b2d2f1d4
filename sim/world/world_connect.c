/* What became of a connect attempt that did not connect (world.h world_connect_kind): the
 * cause recorded when it failed (or found still pending at the end), and the same words
 * for every output that shows it — the event log, the event stream, the statistics, the
 * JSON result and a failed expectation — so a connection that never connects always says
 * why: no route, no ARP reply from the next hop (a VLAN or subnet that does not match
 * shows this way), its SYN unanswered, refused. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "sim/addr/addr_text.h"
#include "sim/net/tcp.h"
#include "sim/world/world_int.h"

const char *world_connect_kind_name(world_connect_kind k)
{
	switch (k) {
	case WORLD_CONNECT_OK:
		return "connected";
	case WORLD_CONNECT_NO_ROUTE:
		return "no_route";
	case WORLD_CONNECT_ARP:
		return "arp_unanswered";
	case WORLD_CONNECT_SYN_TIMEOUT:
		return "syn_timeout";
	case WORLD_CONNECT_REFUSED:
		return "refused";
	case WORLD_CONNECT_FAILED:
		return "failed";
	case WORLD_CONNECT_PENDING:
		return "pending";
	}
	return "?";
}

void world_connect_failed(world *w, world_flow *f, sock *s, int err, bool at_once)
{
	(void)w;
	world_flow *e = f; /* what became of the flow's client end */
	e->fail_err = err;
	tcp_pcb *pcb = s ? sock_tcp_pcb(s) : NULL;
	tcp_info ti;
	if (pcb)
		tcp_get_info(pcb, &ti);
	else
		memset(&ti, 0, sizeof(ti));
	e->syns = (uint32_t)ti.retransmits + 1;
	if (at_once && err == -EHOSTUNREACH) {
		e->fail = WORLD_CONNECT_NO_ROUTE;
	} else if (err == -EHOSTUNREACH && ti.unreach_nexthop) {
		e->fail = WORLD_CONNECT_ARP;
		e->fail_addr = ti.unreach_nexthop;
	} else if (err == -ETIMEDOUT) {
		e->fail = WORLD_CONNECT_SYN_TIMEOUT;
	} else if (err == -ECONNREFUSED) {
		e->fail = WORLD_CONNECT_REFUSED;
	} else {
		e->fail = WORLD_CONNECT_FAILED;
	}
}

world_connect_kind world_connect_kind_of(const world_flow *f)
{
	const app_end *e = &f->af.c;
	if (e->connected)
		return WORLD_CONNECT_OK;
	if (e->ended)
		return f->fail ? (world_connect_kind)f->fail : WORLD_CONNECT_FAILED;
	return WORLD_CONNECT_PENDING;
}

/* The interface of the stack whose subnet holds addr ("" none). */
static const char *iface_towards(const world *w, uint32_t si, uint32_t addr)
{
	const scn_stack *st = &w->scn->stacks[si];
	for (size_t i = 0; i < st->n_ifaces; i++) {
		const scn_interface *in = &st->ifaces[i];
		uint32_t mask = in->prefix_len ? ~0u << (32 - in->prefix_len) : 0;
		if ((in->ip & mask) == (addr & mask))
			return in->name;
	}
	return "";
}

static void fmt_time(uint64_t ns, char *buf, size_t n)
{
	snprintf(buf, n, "%" PRIu64 ".%03" PRIu64 " s", (uint64_t)(ns / SIM_S), (uint64_t)(ns % SIM_S / SIM_MS));
}

void world_connect_cause(const world *w, const world_flow *f, char *buf, size_t n)
{
	const scn_app *a = &w->scn->apps[f->app];
	const app_end *e = &f->af.c;
	const char *me = w->scn->stacks[a->stack].name;
	char dst[ADDR_TEXT_IPV4_LEN], hop[ADDR_TEXT_IPV4_LEN], t[32];
	addr_text_ipv4(a->dst_ip, dst, sizeof(dst));
	const arp_config *arp = &w->st[a->stack].st->cfg.arp;
	switch (world_connect_kind_of(f)) {
	case WORLD_CONNECT_OK:
		snprintf(buf, n, "connected");
		return;
	case WORLD_CONNECT_NO_ROUTE:
		snprintf(buf, n, "no route to %s: %s has no interface on its subnet and no route to it", dst, me);
		return;
	case WORLD_CONNECT_ARP: {
		addr_text_ipv4(f->fail_addr, hop, sizeof(hop));
		const char *ifn = iface_towards(w, a->stack, f->fail_addr);
		fmt_time(arp->retry_interval, t, sizeof(t));
		snprintf(buf, n,
		         "no ARP reply from %s%s (%s %s.%s, %u requests %s apart): nothing answers for that address on its "
		         "network and VLAN",
		         f->fail_addr == a->dst_ip ? "" : "next hop ", hop, f->fail_addr == a->dst_ip ? "on" : "via", me,
		         ifn[0] ? ifn : "?", arp->max_tries, t);
		return;
	}
	case WORLD_CONNECT_SYN_TIMEOUT:
		fmt_time(e->t_ended > f->af.t_start ? e->t_ended - f->af.t_start : 0, t, sizeof(t));
		snprintf(buf, n, "no answer to its SYN from %s:%u (sent %u times in %s)", dst, (unsigned)a->port, f->syns, t);
		return;
	case WORLD_CONNECT_REFUSED:
		snprintf(buf, n, "refused: %s:%u answered the SYN with a reset (nothing listens there)", dst, (unsigned)a->port);
		return;
	case WORLD_CONNECT_FAILED:
		if (f->fail_err)
			snprintf(buf, n, "ended before it connected: %s", strerror(-f->fail_err));
		else
			snprintf(buf, n, "closed by its application before it connected");
		return;
	case WORLD_CONNECT_PENDING:
		break;
	}
	tcp_pcb *pcb = e->s ? sock_tcp_pcb(e->s) : NULL;
	tcp_info ti;
	if (pcb)
		tcp_get_info(pcb, &ti);
	fmt_time(f->af.t_start, t, sizeof(t));
	const char *still = w->finished ? "still connecting at the end of the run" : "connecting";
	if (pcb && ti.state == TCP_SYN_SENT)
		snprintf(buf, n, "%s: its SYN to %s:%u unanswered since %s (%u sent)", still, dst, (unsigned)a->port, t,
		         (unsigned)ti.retransmits + 1);
	else if (pcb && ti.state == TCP_ESTABLISHED)
		snprintf(buf, n, "%s: TCP is up, the SMC-R handshake (CLC) begun at %s is not done", still, t);
	else
		snprintf(buf, n, "%s (since %s)", still, t);
}

void world_json_connects(world *w, json_writer *j)
{
	uint64_t attempts = 0, connected = 0;
	for (size_t i = 0; i < w->n_flows; i++) {
		const world_flow *f = w->flows[i];
		if (f->foreign)
			continue;
		attempts++;
		connected += f->af.c.connected;
	}
	json_key(j, "connects");
	json_begin_object(j);
	json_kv_uint(j, "attempts", attempts);
	json_kv_uint(j, "connected", connected);
	json_kv_uint(j, "not_connected", attempts - connected);
	json_key(j, "not_connected_list");
	json_begin_array(j);
	for (size_t i = 0; i < w->n_flows; i++) {
		const world_flow *f = w->flows[i];
		const app_end *e = &f->af.c;
		if (f->foreign || e->connected)
			continue;
		const scn_app *a = &w->scn->apps[f->app];
		char name[48], target[32], ip[ADDR_TEXT_IPV4_LEN], cause[200];
		world_flow_name(w, f, name, sizeof(name));
		snprintf(target, sizeof(target), "%s:%u", addr_text_ipv4(a->dst_ip, ip, sizeof(ip)), (unsigned)a->port);
		world_connect_cause(w, f, cause, sizeof(cause));
		json_begin_object(j);
		json_kv_str(j, "conn", name);
		json_kv_str(j, "stack", w->scn->stacks[a->stack].name);
		json_kv_str(j, "peer", w->scn->stacks[a->dst_stack].name);
		json_kv_str(j, "remote", target);
		json_kv_uint(j, "started_ns", f->af.t_start);
		json_key(j, "ended_ns");
		if (e->ended)
			json_uint(j, e->t_ended);
		else
			json_null(j);
		json_kv_str(j, "outcome", world_connect_kind_name(world_connect_kind_of(f)));
		json_kv_str(j, "cause", cause);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}
