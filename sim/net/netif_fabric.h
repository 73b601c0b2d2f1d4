/* A netif plugged into the simulated fabric (sim/fabric/endpoint.h): the adapter between the
 * two boundaries. Frames going down are copied into fabric frames and sent from the
 * endpoint; frames the endpoint receives go up through netif_input (always from an
 * engine event, as the netif contract requires). The endpoint filters nothing: the
 * netif's Ethernet layer checks destination MAC and VLAN. */
#ifndef SIM_NETIF_FABRIC_H
#define SIM_NETIF_FABRIC_H

#include "sim/fabric/endpoint.h"
#include "sim/net/netif.h"

typedef struct netif_fabric_port {
	sim_endpoint ep;
	netif *nif;
	sim_fabric *fab;
	uint64_t tx_dropped; /* frames the fabric refused (no carrier) */
} netif_fabric_port;

/* Plug nif into `where` (a switch port or a wire end). Errors as sim_endpoint_attach(). */
int netif_fabric_attach(netif_fabric_port *p, netif *nif, sim_fabric *fab, sim_plug *where);
/* Unplug; the netif has no link afterwards. Call before freeing either side. */
void netif_fabric_detach(netif_fabric_port *p);

#endif
