/* The simulated Ethernet fabric: the container that owns switches and wires, hands out
 * stable object ids and the frame pool.
 *
 * Building a topology:
 *   sim_fabric *fab = sim_fabric_new(eng);
 *   sim_switch *sw = sim_switch_new(fab, "sw1", &swp);           (sim/fabric/switch.h)
 *   sim_wire *w = sim_wire_new(fab, "rnicA-sw1", &wp);            (sim/fabric/wire.h)
 *   sim_plug_connect(sim_wire_end(w, 1), sim_switch_port(sw, 0)); (sim/fabric/plug.h)
 *   sim_endpoint_attach(&my_nic_port, sim_wire_end(w, 0));        (sim/fabric/endpoint.h)
 *
 * Every simulated object (switch, switch port, wire, wire end, endpoint, adapter, QP...)
 * gets its id from sim_fabric_new_id(), in creation order: ids are used as event entities
 * and for sorting, never addresses. Switches and wires belong to the fabric and are freed
 * with it; endpoints belong to whoever embeds them. Free the fabric after the last
 * sim_engine_run() and before the engine: frames still in flight are reclaimed with the
 * pool. */
#ifndef SIM_FABRIC_H
#define SIM_FABRIC_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/engine/engine.h"
#include "sim/engine/huge_pool.h"
#include "sim/fabric/frame.h"

typedef struct sim_fabric sim_fabric;

sim_fabric *sim_fabric_new(sim_engine *eng);
void sim_fabric_free(sim_fabric *fab);

sim_engine *sim_fabric_engine(const sim_fabric *fab);
sim_frame_pool *sim_fabric_frames(const sim_fabric *fab);

/* Every switch hop its own engine event (true), or hops whose outcome is decided made
 * when the frame enters the wire before the switch, without an event of their own (false,
 * the default; sim/fabric/hop_int.h): the same frames at the same times, the same outputs,
 * fewer events (another fingerprint). For comparing the two. */
void sim_fabric_set_event_hops(sim_fabric *fab, bool every_hop_an_event);

/* The next stable object id (1, 2, 3... in creation order). */
uint64_t sim_fabric_new_id(sim_fabric *fab);

/* Hand an object to the fabric: free_fn(obj) runs at sim_fabric_free(), in reverse order
 * of adoption. Used by switches and wires. */
void sim_fabric_adopt(sim_fabric *fab, void *obj, void (*free_fn)(void *obj));

/* The fabric's pool of blocks of `size` bytes on huge pages (sim/engine/huge_pool.h),
 * made on first use, destroyed with the fabric after the objects it adopted: for the
 * small objects a broadcast touches on every wire (the wires, their FIFO chunks). */
sim_huge_pool *sim_fabric_huge_pool(sim_fabric *fab, size_t size);

#endif
