/* The endpoint attach API: how anything with a MAC plugs into the fabric.
 *
 * A TCP/IP stack's Ethernet interface (an lwIP-style netif: output(frame) down,
 * input(frame) up) or a RoCE adapter port embeds a sim_endpoint, attaches it to a switch
 * port or a wire end, sends frames with sim_endpoint_send() and receives them through its
 * rx callback. That is the whole contract:
 *
 *   static void my_rx(sim_endpoint *ep, sim_frame *f)       // you own f: free or keep it
 *   { struct my_if *nif = ep->ctx; ...; sim_frame_free(f); }
 *   static void my_link(sim_endpoint *ep, bool carrier)     // optional: link up/down
 *
 *   sim_endpoint_init(&nif->ep, fab, "stackA.osa0", mac, my_rx, my_link, nif);
 *   sim_endpoint_attach(&nif->ep, sim_switch_port(sw, 3));  // or sim_wire_end(w, 0)
 *   sim_frame *f = sim_frame_alloc(sim_fabric_frames(fab)); // build a complete Ethernet
 *   ...                                                     // frame (sim/fabric/eth_header.h helps)
 *   sim_endpoint_send(&nif->ep, f);                         // ownership passes
 *
 * Semantics:
 *  - The endpoint sees every frame the fabric delivers to its plug (a switch floods
 *    unknown unicast): filtering by destination MAC (and VLAN) is the owner's job, as in a
 *    NIC's receive filter. `mac` is informational (names, reports).
 *  - rx is always called from an engine event, never from inside sim_endpoint_send(), so
 *    an owner may send from its rx callback.
 *  - The frame is a complete Ethernet frame without FCS; 802.1Q tags are the sender's
 *    business (a NIC on a VLAN sends tagged frames to a trunk port).
 *  - Without carrier (detached, admin down, wire or switch port down, switch failed)
 *    sim_endpoint_send() drops the frame, counts it and returns false.
 *  - The link callback fires whenever carrier changes, including inside attach/detach.
 *  - MAC control frames (802.3x PAUSE, 802.1Qbb PFC; sim/fabric/congestion.h) never reach
 *    rx: the endpoint records, per priority, until when its link partner paused it
 *    (sim_endpoint_paused_until) and tells the owner through the pause callback, if set.
 *    Honouring the pause (holding egress of that priority) is the owner's job, as in a NIC.
 *  - Call sim_endpoint_destroy() before freeing the memory the endpoint lives in.
 */
#ifndef SIM_ENDPOINT_H
#define SIM_ENDPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/fabric/congestion.h"
#include "sim/fabric/eth_header.h"
#include "sim/fabric/plug.h"

typedef struct sim_endpoint sim_endpoint;

typedef void (*sim_endpoint_rx_fn)(sim_endpoint *ep, sim_frame *f);
/* A hint, called shortly before a frame reaches rx (once ctx's first cache line has been
 * asked for): ask for the rest of what rx will read first. It must change nothing. */
typedef void (*sim_endpoint_prefetch_fn)(const void *ctx);
typedef void (*sim_endpoint_link_fn)(sim_endpoint *ep, bool carrier);

typedef struct sim_endpoint_stats {
	uint64_t tx_frames, tx_bytes, tx_dropped;
	uint64_t rx_frames, rx_bytes;
	uint64_t rx_pause_frames; /* PAUSE/PFC frames received (not counted in rx_frames) */
} sim_endpoint_stats;

struct sim_endpoint {
	/* what a delivery reads: these 64 bytes (the rx counters end them), then the plug's
	 * first 64 */
	sim_endpoint_rx_fn rx;
	void *ctx;
	sim_endpoint_prefetch_fn rx_prefetch; /* optional (sim_endpoint_set_rx_prefetch) */
	sim_endpoint_stats stats;
	sim_plug plug;
	uint8_t mac[SIM_ETH_ALEN];
	sim_endpoint_link_fn link;
	bool admin_up;
	bool carrier; /* as last reported through link */
	/* frames waiting for their delivery time (from a switch port's forwarding delay) */
	sim_frame *pending_head, *pending_tail;
	sim_event deliver_ev;
	/* PAUSE/PFC from the link partner: egress of priority p is paused until paused_until[p] */
	sim_time paused_until[SIM_PRIOS];
	sim_pause_fn pause;
	void *pause_ctx;
	bool takes_deferred; /* sim_endpoint_takes_deferred */
};

void sim_endpoint_init(sim_endpoint *ep, sim_fabric *fab, const char *name, const uint8_t *mac,
                       sim_endpoint_rx_fn rx, sim_endpoint_link_fn link, void *ctx);
/* Detach, drop frames awaiting delivery, cancel the endpoint's event. */
void sim_endpoint_destroy(sim_endpoint *ep);

/* Plug into a switch port or a wire end. Errors as sim_plug_connect(). */
int sim_endpoint_attach(sim_endpoint *ep, sim_plug *where);
void sim_endpoint_detach(sim_endpoint *ep);

/* Send a complete Ethernet frame (ownership passes). false = dropped (no carrier). */
bool sim_endpoint_send(sim_endpoint *ep, sim_frame *f);
/* The same, the frame leaving at `at` (>= now): a host that finishes building it later. */
bool sim_endpoint_send_at(sim_endpoint *ep, sim_frame *f, sim_time at);

bool sim_endpoint_carrier(const sim_endpoint *ep);
/* Administrative up/down of the endpoint itself (an interface taken down). */
void sim_endpoint_set_admin(sim_endpoint *ep, bool up);

/* When the transmitter behind this endpoint is idle again: the time the attached wire
 * direction finishes serializing what is queued (now if idle or not on a wire). Lets a
 * NIC pace its transmissions instead of flooding the wire queue. */
sim_time sim_endpoint_tx_idle_at(const sim_endpoint *ep);

/* What rx reads besides ctx's first line, asked for ahead of a delivery: a receiver on
 * an ARP storm's segment gets every broadcast, each a few cache misses (fn NULL: none). */
void sim_endpoint_set_rx_prefetch(sim_endpoint *ep, sim_endpoint_prefetch_fn fn);
/* rx reads deferred copies where they are (sim_frame_bytes_at, sim/fabric/frame.h) and
 * settles before anybody else may look; without this an endpoint gets every frame settled. */
void sim_endpoint_takes_deferred(sim_endpoint *ep);

/* Be told of PAUSE/PFC frames from the link partner (fn NULL: stop). */
void sim_endpoint_set_pause_handler(sim_endpoint *ep, sim_pause_fn fn, void *ctx);
/* Until when the link partner paused priority prio (<= now: not paused). */
sim_time sim_endpoint_paused_until(const sim_endpoint *ep, unsigned prio);
/* The bit rate of the attached wire (0: not on a wire, or an infinite-rate wire). */
uint64_t sim_endpoint_link_bps(const sim_endpoint *ep);

#endif
