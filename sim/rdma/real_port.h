/* The RoCE port of a real device as the SMC-R core sees it (--real-hw runs and
 * `smcr-sim node`): the device's MAC, state and active MTU (capped), and one GID, the
 * IPv4-mapped RoCE v2 GID of a chosen address (or the port's first one). That GID is
 * listed as the RoCE v2 entry SMC-Rv2 picks and, for each VLAN given, as the entry
 * SMC-Rv1 picks: Soft-RoCE has RoCE v2 GIDs only, and between two smcr-sim stacks a v1 CLC
 * handshake works just as well over RoCE v2 QPs (its frames are plain RoCE v2; a Linux
 * peer would insist on a RoCE v1 GID for v1, see docs/real-hw.md). */
#ifndef SIM_REAL_PORT_H
#define SIM_REAL_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "model/smcr_transport.h"
#include "sim/rdma/verbs_transport.h"

typedef struct real_port_opts {
	uint8_t dev_port;      /* 1-based */
	uint32_t ipv4;         /* the GID of this address (host order); 0 = the first */
	smcr_mtu mtu_cap;      /* 0 = the device's active MTU */
	const uint16_t *vlans; /* VLANs to list the v1 entry for (at least one; 0 = untagged) */
	size_t n_vlans;
} real_port_opts;

/* Fill *out (dev, port, MAC, state, MTU, GIDs; name = the device's, pfid 0, no PNet id).
 * 0, or a negative SMCR_ERR_* with a message in err (no such port, not RoCE, no
 * IPv4-mapped GID, or none for the address, listing the ones there are). */
int real_port_describe(verbs_transport *vt, smcr_tp_dev *dev, const real_port_opts *o, smcr_port_desc *out,
                       char *err, size_t errlen);

/* Is the GID a port description lists last (its RoCE v2 entry) still in the device's
 * table at the same index, and the port active? (GID table changes that leave it alone
 * are no failure of this port; Linux's smc_ib_port_event_work() decides the same way.) */
bool real_port_gid_still_there(verbs_transport *vt, const smcr_port_desc *d);

#endif
