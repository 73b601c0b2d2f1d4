/* Ethernet switches: MAC learning per VLAN, flooding, IEEE 802.1Q access and trunk ports.
 *
 * Forwarding: a frame entering a port is classified to a VLAN (access port: its PVID;
 * trunk port: the tag's VID if allowed, untagged frames to the native VLAN, or dropped
 * when there is none), its source MAC is learned as (VLAN, MAC) -> port, and it leaves
 * after the forwarding latency: to the learned port, or flooded (broadcast, multicast,
 * unknown unicast) to every other port that is a member of the VLAN, in port order. A frame
 * never leaves on the port it came in, and frames on different VLANs never meet. Egress to
 * an access port (or a trunk's native VLAN) is untagged, otherwise tagged; the priority
 * bits of an incoming tag are kept. Learned entries age out after mac_aging.
 *
 * Faults for scenarios: sim_switch_port_set_up() (a port disabled: its link loses carrier),
 * sim_switch_fail()/sim_switch_restore() (the whole switch dies: every port loses carrier,
 * the MAC table is lost). Ports count 0..nports-1.
 */
#ifndef SIM_SWITCH_H
#define SIM_SWITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/rng.h"
#include "sim/fabric/congestion.h"
#include "sim/fabric/fabric.h"
#include "sim/fabric/plug.h"

typedef struct sim_switch sim_switch;

typedef struct sim_switch_params {
	uint32_t nports;
	sim_time latency;      /* ingress to egress, ns */
	sim_time mac_aging;    /* learned entries expire after this long unseen */
	uint32_t mac_capacity; /* most entries learned; later sources are flooded to */
} sim_switch_params;

typedef enum sim_port_mode {
	SIM_PORT_ACCESS = 0,
	SIM_PORT_TRUNK = 1,
} sim_port_mode;

typedef struct sim_switch_port_stats {
	uint64_t rx_frames, tx_frames;
	uint64_t vlan_drops; /* ingress frames not allowed on this port's VLANs */
	uint64_t runts;
	uint64_t flooded; /* frames this port sent out as a copy of a flood */
} sim_switch_port_stats;

typedef struct sim_switch_stats {
	uint64_t forwarded, floods, filtered; /* filtered: destination on the ingress port */
	uint64_t learn_full;                  /* sources not learned: table full */
	uint64_t dropped_failed;              /* frames that met a failed switch */
} sim_switch_stats;

/* Congestion features (docs/congestion.md). All off by default (buffer_bytes 0): the
 * switch then forwards straight onto the egress wire, whose FIFO is the only queue.
 *
 * With a buffer, every egress port keeps 8 priority queues in one shared buffer and
 * hands a frame to its wire only when the wire's transmitter is idle, highest non-paused
 * priority first (strict priority), so the queue builds in the switch where it can be
 * paused, marked and measured. Admission (dynamic thresholds, Choudhury-Hahne):
 *  - lossy priority: tail drop when the egress queue (port, prio) would exceed
 *    alpha * (free shared buffer), or the buffer is full;
 *  - lossless priority (bit set in pfc_mask): ingress accounting per (port, prio); past
 *    the XOFF threshold (xoff bytes, or alpha * free shared buffer when xoff is 0) the
 *    port sends a PFC frame pausing that priority for pause_quanta, refreshed while the
 *    condition lasts; frames still arriving go to the (port, prio) headroom, reserved
 *    out of the buffer; when the ingress occupancy falls to xon and the headroom is
 *    empty, a PFC frame with quanta 0 resumes the sender. A frame that finds the headroom
 *    full is dropped and counted (headroom too small for the link: a configuration error).
 * PFC frames received on a port pause its egress queues (of the enabled priorities) for
 * quanta * 512 bit times at the port's wire rate. MAC control frames are never forwarded.
 * ECN (ecn on): when a frame leaves, an ECT frame of an ECN priority is marked CE with
 * probability 0 below kmin bytes of its queue, pmax * (q - kmin) / (kmax - kmin) up to
 * kmax, 1 above (RED on the instantaneous queue), drawn from the stream
 * "fabric.switch.ecn" indexed by switch id * 64 + port. */
typedef struct sim_switch_qos {
	uint64_t buffer_bytes;   /* 0 = no buffer model (the default) */
	sim_ratio alpha;         /* dynamic threshold factor */
	sim_prio_map prio_map;   /* how ingress frames are classified */
	uint8_t pfc_mask;        /* lossless priorities */
	uint64_t xoff_bytes;     /* ingress XOFF per (port, prio); 0 = alpha * free */
	uint64_t xon_bytes;      /* ingress XON per (port, prio) */
	uint64_t headroom_bytes; /* per (port, lossless prio) */
	uint16_t pause_quanta;   /* quanta of an XOFF */
	bool ecn;
	uint8_t ecn_mask; /* priorities whose ECT frames may be marked */
	uint64_t kmin_bytes, kmax_bytes;
	sim_ratio pmax;
} sim_switch_qos;

/* Per port, as seen from the port. */
typedef struct sim_switch_port_qos_stats {
	uint64_t pause_tx, resume_tx; /* PFC frames sent: XOFF (incl. refreshes), XON */
	uint64_t pause_rx, resume_rx; /* PFC frames received (XOFF, XON) */
	sim_time paused_ns;           /* time some priority of the egress was paused */
	uint64_t drops;               /* lossy tail drops at egress (frames) */
	uint64_t headroom_drops;      /* lossless frames that found the headroom full */
	uint64_t ecn_marks;
	uint64_t enqueued, dequeued;
	uint64_t depth_bytes, max_depth_bytes; /* egress queue, all priorities */
	uint64_t depth_hist[128];              /* egress depth seen by each arrival: see sim_depth_bucket */
} sim_switch_port_qos_stats;

/* Histogram buckets of queue depths: 4 per power of two up to 8 GiB (bucket b holds depths below
 * sim_depth_bucket_upper(b)). */
unsigned sim_depth_bucket(uint64_t bytes);
uint64_t sim_depth_bucket_upper(unsigned b);
/* The depth below which `pct` percent of the arrivals found the queue (bucket bound). */
uint64_t sim_depth_percentile(const uint64_t hist[128], unsigned pct);

/* Off: buffer 0, alpha 1, PCP trust, no PFC, xoff dynamic, xon 2 KiB... see .c. */
void sim_switch_qos_default(sim_switch_qos *q);

/* 16 ports, 500 ns, 300 s aging, 65536 entries. */
void sim_switch_params_default(sim_switch_params *p);

sim_switch *sim_switch_new(sim_fabric *fab, const char *name, const sim_switch_params *p);
const char *sim_switch_name(const sim_switch *sw);
sim_plug *sim_switch_port(sim_switch *sw, uint32_t port);

/* VLAN configuration (ports start as access ports in VLAN 1). VIDs are 1..4094.
 * Errors: SMCR_ERR_INVAL (bad port or VID). */
int sim_switch_port_access(sim_switch *sw, uint32_t port, uint16_t pvid);
/* native_vid 0: untagged frames are dropped. The native VLAN is implicitly allowed. */
int sim_switch_port_trunk(sim_switch *sw, uint32_t port, uint16_t native_vid, const uint16_t *allowed,
                          size_t n_allowed);

void sim_switch_port_set_up(sim_switch *sw, uint32_t port, bool up);
void sim_switch_fail(sim_switch *sw);
void sim_switch_restore(sim_switch *sw);

/* The learned port for (vid, mac), or -1 (also when aged out). */
int sim_switch_lookup(const sim_switch *sw, uint16_t vid, const uint8_t *mac);
size_t sim_switch_mac_count(const sim_switch *sw);

/* Turn congestion features on (before traffic flows). Errors: SMCR_ERR_INVAL when the
 * headroom reserved for every port and lossless priority does not fit in the buffer. */
int sim_switch_set_qos(sim_switch *sw, const sim_switch_qos *q);
bool sim_switch_has_qos(const sim_switch *sw);
uint32_t sim_switch_nports(const sim_switch *sw);
/* false without congestion features (or a bad port). */
bool sim_switch_port_qos_stats_get(const sim_switch *sw, uint32_t port, sim_switch_port_qos_stats *out);
/* Bytes of the shared buffer in use now (headroom included), and the most ever. */
uint64_t sim_switch_buffer_used(const sim_switch *sw);
uint64_t sim_switch_buffer_peak(const sim_switch *sw);

const sim_switch_stats *sim_switch_stats_get(const sim_switch *sw);
const sim_switch_port_stats *sim_switch_port_stats_get(const sim_switch *sw, uint32_t port);

#endif
