/* `smcr-sim interop client|server`: one virtual stack on a real Ethernet interface
 * (sim/net/netif_packet.h) with its SMC-R QPs on real RDMA devices (the layer's verbs
 * transport), in real time, running the interoperability exchange (sim/app/app_interop.h)
 * against a real peer (Linux net/smc with tests/interop/smc_peer.c), and saying what it
 * saw, one fact per line (interop_lines.h).
 *
 * The run: until every connection closed and the linger passed, or the timeout. The
 * report is taken then; with end_lgr the link groups are ended next. With `after` the run
 * goes on that long, or until the link groups (ended by us or by the peer) are gone
 * (+1 s for the last sends), and reports again how they ended. With a fail command, it
 * runs once the link group has two active links and the connections received fail_after
 * bytes in total (a real path failure mid-transfer, failover). */
#ifndef SIM_INTEROP_RUN_H
#define SIM_INTEROP_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/smc/realhw_map.h"

#define INTEROP_PFID 0x0001 /* --dev N is PFID 0001 + N */
#define INTEROP_MAX_DEVS 4

typedef struct interop_config {
	bool server;
	const char *role;    /* "client" or "server", as printed */
	const char *ifname;  /* the real Ethernet interface */
	const char *ip_text; /* the stack's address as given */
	uint32_t ip;
	uint8_t plen;
	uint8_t mac[6];
	uint32_t peer;         /* client: the server's address */
	realhw_map map;        /* PFID 0001+i = the i-th device, each on the PNET */
	const char *devs_text; /* the devices as printed: "rxe0,rxe1" */
	const char *pnet;
	const char *const *ueids; /* NULL-terminated, at least one */
	const char *hostname;
	bool v1;
	int release; /* SMC-Rv2 release offered, -1: the core's default */
	int max_links, max_conns; /* smcr_max_links_per_lgr, _conns_per_lgr; -1: the defaults */
	/* a Linux kernel's values (--kernel): feature mask, largest buffer, autocorking */
	bool kernel_values;
	uint16_t feature_mask;
	uint8_t rmbe_max_code;
	uint32_t autocorking_size;
	uint64_t testlink_ns;
	uint16_t port;
	unsigned conns;
	uint64_t bytes; /* each way per connection */
	uint64_t wait_ns, timeout_ns, linger_ns, after_ns;
	bool end_lgr;
	uint64_t fail_after;  /* with fail_cmd */
	const char *fail_cmd; /* or NULL */
	bool verbose;         /* every core event on log, not only the problems */
} interop_config;

/* Run it, the lines on out and the events on log. 0: every connection ran on SMC-R with
 * its data verified both ways and closed in order; 1: not, or the stack could not be set
 * up (err says why then, else it is empty). */
int interop_run(const interop_config *c, FILE *out, FILE *log, char *err, size_t errlen);

#endif
