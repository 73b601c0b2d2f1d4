/* A scenario's topology as SVG: stacks on top, RoCE adapters (with their ports) under them,
 * switches at the bottom with the wires between them; a stack's activated adapter ports
 * (`smcr pfid=… port=…`), each adapter port's and interface's access wire to its switch
 * (an interface labelled with its address and VLAN), each switch's VLANs. After a run, the
 * SMC-R links it had are drawn too: which adapter port pair each link uses, named by its
 * stacks and link ids (topology_run.h collects them). */
#ifndef SIM_TOPOLOGY_SVG_H
#define SIM_TOPOLOGY_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/scenario/scn_model.h"

/* One SMC-R link between two stacks: the adapter port each end uses. */
typedef struct topo_link {
	uint32_t stack[2];   /* scenario stack indices */
	uint32_t adapter[2]; /* scenario adapter indices, SCN_NONE unknown */
	uint8_t port[2];     /* 1-based */
	uint32_t link_id[2]; /* the 4-byte link ids */
	uint32_t lgr;
} topo_link;

void topology_svg_write(FILE *f, const scn_scenario *s, const topo_link *links, size_t n_links);

#endif
