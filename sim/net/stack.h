/* A virtual TCP/IP stack: what a z/OS or Linux host's stack is to SMC-R.
 *
 * A stack owns everything of its own: interfaces (each with its ARP cache), the routing
 * table, TCP (its PCBs, ISN stream, ephemeral ports, timers, counters), sockets, and its
 * SMC-R configuration. There is no process-wide state: a run holds many stacks on one
 * engine, and two stacks never influence each other except through frames.
 *
 * Fields are readable by sim/ code and tests; change them through the functions. */
#ifndef SIM_STACK_H
#define SIM_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/engine.h"
#include "sim/host/host.h"
#include "sim/net/icmp.h"
#include "sim/net/ipv4.h"
#include "sim/net/netif.h"
#include "sim/net/route.h"
#include "sim/net/stack_config.h"

#define STACK_NAME_LEN 32
#define STACK_MAX_NETIFS 16

typedef struct tcp_layer tcp_layer;
typedef struct sock_smc_hooks sock_smc_hooks;
typedef struct loop_dgram loop_dgram;

struct stack {
	sim_engine *eng;
	char name[STACK_NAME_LEN];
	uint64_t entity; /* stable id (hash of the name) for engine events */
	stack_personality personality;
	stack_config cfg; /* tcp/arp/ip apply to what is created after a change */
	netif *netifs[STACK_MAX_NETIFS];
	size_t n_netifs;
	route_table routes;
	tcp_layer *tcp;
	uint16_t ip_id; /* next IPv4 identification */
	ipv4_counters ip;
	icmp_counters icmp;
	loop_dgram *loop_head, *loop_tail; /* datagrams to ourselves, in order */
	sim_event loop_ev;
	const sock_smc_hooks *smc_hooks; /* the SMC-R layer, when one is plugged in */
	void *smc_ctx;
	sim_host *host; /* its CPUs and costs (sim/host/host.h); profile "none" unless set */
};

/* A new stack with the personality's defaults, or with *cfg when cfg is not NULL.
 * The name (up to 31 characters) must be unique in the run: it seeds the stack's
 * random streams and names its engine entities. */
stack *stack_new(sim_engine *eng, const char *name, stack_personality p, const stack_config *cfg);
/* Frees interfaces and connections (dropped silently) and cancels every timer of the
 * stack. Free the applications and their sockets first, and detach the links. */
void stack_free(stack *st);

/* Add an OSA-like Ethernet interface. mac NULL: derived from the stack name and index
 * (locally administered, stable across runs). vlan_id 0: untagged. The interface is up;
 * give it an address with netif_set_ipv4 and plug it into a link with netif_set_link. */
netif *stack_add_netif(stack *st, const char *ifname, const uint8_t *mac, uint16_t mtu,
                       uint16_t vlan_id);
netif *stack_netif(stack *st, const char *ifname);

/* Static routes; gateway must be on a connected subnet when packets are sent. */
int stack_add_route(stack *st, uint32_t prefix, uint8_t prefix_len, uint32_t gateway);
int stack_set_default_gateway(stack *st, uint32_t gateway);
void stack_set_forwarding(stack *st, bool on);

/* The SMC-R configuration (GLOBALCONFIG SMCR and friends). Stored for the SMC-R layer;
 * TCP consults `enabled` and the excluded ports when deciding on the SMC option. */
smcr_config *stack_smcr(stack *st);
/* Plug the SMC-R layer in (see sim/net/sock.h); NULL unplugs. */
void stack_set_smc_hooks(stack *st, const sock_smc_hooks *hooks, void *ctx);

/* The host under the stack: a new one with profile p (NULL: no costs); the stack's
 * sockets, TCP, interfaces and SMC-R layer charge their work to it. Set it before
 * anything runs. Returns -ENOMEM, else 0. */
int stack_set_host(stack *st, const host_profile *p);
/* The time the stack's work in hand has reached (host_now): what leaves the stack and
 * what its applications measure carries this time, not the engine's. */
static inline sim_time stack_now(stack *st) { return host_now(st->host); }

/* Send an ICMP echo request; replies are counted in st->icmp. */
int stack_ping(stack *st, uint32_t dst, uint16_t seq);

#endif
