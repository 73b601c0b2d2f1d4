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
	uint64_t vlan_drops;   /* ingress frames not allowed on this port's VLANs */
	uint64_t runts;
	uint64_t flooded;      /* frames this port sent out as a copy of a flood */
} sim_switch_port_stats;

typedef struct sim_switch_stats {
	uint64_t forwarded, floods, filtered; /* filtered: destination on the ingress port */
	uint64_t learn_full;                  /* sources not learned: table full */
	uint64_t dropped_failed;              /* frames that met a failed switch */
} sim_switch_stats;

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

const sim_switch_stats *sim_switch_stats_get(const sim_switch *sw);
const sim_switch_port_stats *sim_switch_port_stats_get(const sim_switch *sw, uint32_t port);

#endif
