/* Switch internals shared by switch.c (forwarding) and switch_qos.c (buffer, queues,
 * PFC, ECN). Nothing outside sim/fabric/switch*.c includes this. */
#ifndef SIM_SWITCH_INT_H
#define SIM_SWITCH_INT_H

#include "sim/fabric/fdb.h"
#include "sim/fabric/switch.h"

typedef struct sw_port sw_port;

/* A port's congestion state (present only when the switch has a buffer). */
typedef struct port_qos {
	sim_frame *qhead[SIM_PRIOS], *qtail[SIM_PRIOS]; /* egress queues */
	uint64_t egress_bytes[SIM_PRIOS];               /* queued to leave here */
	uint64_t ingress_bytes[SIM_PRIOS];              /* shared-buffer bytes of frames that came in here */
	uint64_t headroom_used[SIM_PRIOS];              /* headroom bytes of frames that came in here */
	bool xoff_sent[SIM_PRIOS];                      /* we paused our link partner's priority */
	sim_time paused_until[SIM_PRIOS];               /* our link partner paused our egress */
	sim_event tx_ev;                                /* next dequeue */
	sim_event refresh_ev;                           /* re-send XOFF before it expires */
	sim_rng ecn_rng;
	sim_switch_port_qos_stats st;
} port_qos;

/* A flood reads every port's plug, mode, VLAN and counters: those first, the trunk's
 * VLAN bitmap (512 bytes) last, so the ports a flood walks are not spread out by it. */
struct sw_port {
	sim_plug plug;
	sim_switch *sw;
	uint32_t idx;
	bool admin_up;
	bool peer_wire; /* connected to a wire end (kept on every carrier change) */
	sim_port_mode mode;
	uint16_t pvid; /* access VLAN, or trunk native VLAN (0 = none) */
	sim_switch_port_stats st;
	/* the last crossing decided early for a frame from this port (sim_switch_hop_decide):
	 * a stream asks for the same again and again; good while the table's gen is */
	struct {
		uint64_t gen;
		uint8_t macs[12]; /* destination, source */
		sim_fdb_entry *src, *dst;
	} hop_memo;
	uint8_t allowed[512]; /* trunk: bit v set = VLAN v allowed */
};

struct sim_switch {
	sim_fabric *fab;
	uint64_t id;
	char name[48];
	sim_switch_params p;
	bool failed;
	sw_port *ports;
	sim_fdb fdb;
	sim_switch_stats st;
	/* congestion features (qos NULL: none) */
	sim_switch_qos *qos;
	port_qos *pq;         /* one per port */
	uint64_t shared_size; /* buffer minus the reserved headroom */
	uint64_t shared_used, headroom_used, used_peak;
};

/* switch_qos.c, called by switch.c: */
/* A frame for egress port `out` that entered at `in` (ownership passes). */
void sim_switch_qos_enqueue(sim_switch *sw, sw_port *in, sw_port *out, sim_frame *f, unsigned prio, sim_time ready);
/* A MAC control frame that reached port `in` (ownership passes). */
void sim_switch_qos_mac_control(sim_switch *sw, sw_port *in, sim_frame *f, sim_time at);
void sim_switch_qos_free(sim_switch *sw);

#endif
