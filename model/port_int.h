/* RoCE ports (port.c): the context's ports, picking a port and GID for a connection or
 * for a link group's alternate link, and the IP prefix rules of the CLC Proposal. */
#ifndef SMCR_PORT_INT_H
#define SMCR_PORT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/smcr.h"

typedef struct smcr_lgr smcr_lgr;

typedef struct smcr_port {
	smcr_port_desc d;
	uint32_t index;
} smcr_port;

/* A chosen device: port index (or -1), the GID on it and that GID's index. */
typedef struct smcr_dev_pick {
	int32_t port;
	uint8_t gid[16];
	uint16_t sgid_index;
} smcr_dev_pick;

/* Find the RoCE port for a TCP connection (smc_pnet_find_roce_resource). */
bool smcr_port_find(const smcr_ctx *ctx, const smcr_tcp_info *tcp, uint16_t vlan_id, bool v2,
                    smcr_dev_pick *out);
/* Find an alternate port for a new link (smc_pnet_find_alt_roce): same PNET id as the lgr,
 * another device than known_port's. */
bool smcr_port_find_alt(const smcr_ctx *ctx, const smcr_lgr *lgr, uint32_t known_port,
                        smcr_dev_pick *out);
/* Server: does the Proposal's prefix match an address of the connection's interface?
 * Client: fill the Proposal's prefix from the interface. */
bool smcr_prefix_match(const smcr_tcp_info *tcp, const smcr_clc_proposal *p);
bool smcr_prefix_set(const smcr_tcp_info *tcp, smcr_clc_proposal *p);

#endif
