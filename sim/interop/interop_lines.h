/* The text of `smcr-sim interop`: one fact per line, "KEY k=v ...", with the same keys
 * and value forms as the Linux side's tools (tests/interop/smc_peer.c, smc_nl.c) print,
 * so that a script compares the two views: each connection's mode, reasons and link, the
 * link groups, the links, the core's counters, and the core's events. */
#ifndef SIM_INTEROP_LINES_H
#define SIM_INTEROP_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/smcr.h"
#include "sim/net/netif_packet.h"
#include "sim/net/sock.h"
#include "sim/smc/smc_layer.h"

/* "xxxx:xxxx:...": 8 groups of 4 hex digits. */
/* SMCR, FALLBACK_TCP or TCP. */
const char *interop_mode_text(sock_mode m);

/* The start of a connection's line, taken when it completes: "conn k=K role=R local=
 * peer= mode= [token= ... peer_gid=] reason= peer_diag=" (the link fields when the core
 * knows the connection's link). */
void interop_conn_line(char *line, size_t len, const smc_layer *l, const char *role, uint64_t k,
                       uint32_t fallback_reason, const sock *s);

/* The stack and each RoCE port the core got, in --dev order ("interop ...", "port ..."). */
typedef struct interop_header {
	const char *role, *ip_text, *ifname, *devs_text;
	const uint8_t *mac;
	unsigned conns;
	uint64_t bytes, testlink_ns;
} interop_header;
void interop_print_header(FILE *out, const interop_header *h, const smcr_ctx *ctx);

/* A "lgr ..." line per link group. */
void interop_print_lgrs(FILE *out, const smcr_ctx *ctx);
/* A "KEY lgr=... link_id=..." line per link ("link", or "prefail_link" before --fail-cmd). */
void interop_print_links(FILE *out, const smcr_ctx *ctx, const char *key);
/* The core's and the packet netif's counters as one "KEY ..." line; true if they show a
 * protocol problem (decode errors, LLC protocol violations). */
bool interop_print_stats(FILE *out, const char *key, const smc_layer *l, const netif_packet *pk);
/* "event t=SECONDS NAME lgr= conn= ..." */
void interop_print_event(FILE *out, uint64_t now_ns, const smcr_event *ev);

/* Link groups and links the core has now. */
size_t interop_count_lgrs(const smc_layer *l);
size_t interop_count_links(const smc_layer *l);

#endif
