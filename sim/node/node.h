/* One SMC-R stack in a process of its own (`smcr-sim node`): the SMC-R core on a real RDMA
 * device, with the CLC handshake on a real kernel TCP connection to another node, usually
 * on another host.
 *
 *   server:  node_config c; node_config_default(&c); c.server = true; c.port = 7100;
 *            snprintf(c.dev, …, "rxe0"); node_run(&c, &report, &res, err, sizeof err);
 *   client:  c.server = false; snprintf(c.host, …, "10.0.0.1"); c.app = NODE_APP_BULK; …
 *
 * How the two sides agree to use SMC-R: Linux learns it from the SMC TCP option in the
 * SYN and SYN-ACK, which a process cannot put on a kernel TCP connection. Nodes are told
 * by configuration instead: both ends of a node connection speak CLC first, always — the
 * client's first bytes on the stream are its CLC Proposal (or, without a usable device, a
 * CLC Decline), and the server reads CLC before anything else. From there the handshake
 * is the core's, unchanged: Accept/Confirm and an SMC-R connection whose data moves by
 * RDMA WRITE while the TCP connection stays idle, or a Decline and a fallback to the
 * kernel TCP connection for the data (with the reason, as Linux would report it).
 *
 * Applications: a client opens `conns` connections (`interval` apart) and runs `app` on
 * each: BULK writes `bytes` and closes after the server's close; ECHO writes `bytes` and
 * reads them back. The server serves `conns` connections: it checks what a bulk client
 * writes (SINK) or sends it back (ECHO). Every byte is a seeded pattern (data_seed, by
 * stream offset), checked on arrival. The node ends `linger_ns` after its connections are
 * closed and freed, or fails after `timeout_ns`; it never hangs on a missing device or
 * peer. */
#ifndef SIM_NODE_H
#define SIM_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/smcr.h"
#include "sim/report/report.h"

typedef enum node_app {
	NODE_APP_BULK = 1, /* client writes, server checks (sink) */
	NODE_APP_ECHO = 2, /* client writes and checks the echo, server echoes */
} node_app;

typedef struct node_config {
	bool server;
	char host[64];     /* client: the server's address; server: bind address ("" = any) */
	uint16_t port;     /* TCP port */
	char dev[32];      /* RDMA device; "" = none (every connection falls back to TCP) */
	uint8_t dev_port;  /* 1-based */
	uint32_t gid_ipv4; /* the device's RoCE v2 GID of this address; 0 = its first */
	node_app app;
	uint64_t bytes; /* per connection */
	uint32_t conns;
	uint64_t interval_ns;     /* between the client's connections */
	uint64_t data_seed;       /* the pattern both ends expect */
	uint64_t seed;            /* the core's randomness (PSNs, system id) */
	uint64_t timeout_ns;      /* give up (error) after this much wall time */
	uint64_t connect_wait_ns; /* client: keep retrying a refused connect this long */
	uint64_t linger_ns;       /* after the last close, keep the link group serving this long:
	                         * the last CDC messages of the close reach the peer, and the
	                         * peer's reach us (a process that exits takes its QPs along) */
	smcr_settings core;       /* v1/v2, UEIDs, buffer sizes, … */
	char name[32];            /* the stack's name in reports */
	FILE *log;                /* event lines (link groups, links, connections), or NULL */
} node_config;

void node_config_default(node_config *c);

typedef struct node_result {
	uint32_t conns;          /* connections that completed their exchange */
	uint32_t smcr, fallback; /* of those: on SMC-R / fallen back to TCP */
	uint32_t failed;         /* connections that failed or were aborted */
	uint32_t last_reason;    /* the last fallback reason (SMCR_DECL_*), 0 none */
	uint64_t bytes_sent, bytes_received, bytes_verified;
	bool content_bad;    /* some byte did not match the pattern */
	double seconds;      /* wall time from the first connection to the last close */
	double data_seconds; /* wall time of the data exchange (first byte to last) */
} node_result;

/* Run the node to its end. The report (if not NULL, initialised by the caller) is filled
 * from the core at the end: the stack, its RoCE port, link groups and links. Returns 0
 * when every connection completed with its content intact, 1 when one failed, or -1 when
 * the node could not run at all (bad device, address in use, timeout), with err set. */
int node_run(const node_config *cfg, smcr_report *report, node_result *res, char *err, size_t errlen);

#endif
