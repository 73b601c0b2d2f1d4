/* A receive side that stops draining: the host behind the adapter stalls (a hung driver,
 * a full receive ring), so for rx_stall_for from rx_stall_at the adapter takes no frame
 * off the wire. It pauses its priority with PFC, as a ConnectX whose receive buffer
 * crosses its XOFF threshold does, and keeps re-sending XOFF every half pause while the
 * stall lasts, so the pause never lapses: the "PFC storm" of a stuck receiver. Frames
 * that still arrive (those already on the wire, other priorities) wait in the adapter in
 * order; when the stall ends the adapter sends XON (quanta 0) and receives them.
 *
 * The model's receive buffer is unbounded (the peak it reached is reported): a real
 * adapter drops past its buffer, which the switch's headroom sizing avoids for the
 * paused priority. The PFC frame leaves through the access wire's FIFO, behind at most
 * `tx_window` of the adapter's own frames. */
#include "sim/fabric/congestion.h"
#include "sim/rdma/rnic_int.h"

#define XOFF_QUANTA 65535u

static void send_pfc(rnic_port *port, uint16_t quanta)
{
	rnic *r = port->r;
	uint16_t q[SIM_PRIOS] = { 0 };
	q[r->prio] = quanta;
	sim_frame *f = sim_pfc_build(sim_fabric_frames(r->fab), port->pmac, (uint8_t)(1u << r->prio), q);
	r->st.pfc_tx++;
	sim_endpoint_send(&port->ep, f);
}

/* Start, refresh or end the stall. */
static void stall_event(sim_engine *eng, sim_event *ev)
{
	rnic_port *port = ev->ctx;
	rnic *r = port->r;
	sim_time now = sim_now(eng), end = r->cfg.rx_stall_at + r->cfg.rx_stall_for;
	if (now < end) {
		if (!port->rx_stalled) {
			port->rx_stalled = true;
			port->rx_stalled_since = now;
		}
		send_pfc(port, XOFF_QUANTA);
		/* re-send XOFF at half the pause, so it runs on for as long as the stall does */
		sim_time half = sim_pause_quanta_ns(XOFF_QUANTA, sim_endpoint_link_bps(&port->ep)) / 2;
		sim_event_schedule(eng, ev, now + half < end ? now + half : end);
		return;
	}
	if (!port->rx_stalled)
		return;
	port->rx_stalled = false;
	port->rx_stalled_total += now - port->rx_stalled_since;
	send_pfc(port, 0);
	/* the host drains again: what waited is received in arrival order */
	while (port->rx_head) {
		sim_frame *f = port->rx_head;
		port->rx_head = f->next;
		f->next = NULL;
		rnic_port_receive(port, f);
	}
	port->rx_tail = NULL;
	port->rx_bytes = 0;
}

void rnic_rx_stall_init(rnic_port *port)
{
	rnic *r = port->r;
	sim_event_init(&port->stall_ev, sim_kind("rnic.rxstall"), port->ep.plug.id, stall_event, port);
	if (r->cfg.rx_stall_for)
		sim_event_schedule(r->eng, &port->stall_ev, r->cfg.rx_stall_at);
}

bool rnic_rx_stall_hold(rnic_port *port, sim_frame *f)
{
	if (!port->rx_stalled)
		return false;
	rnic *r = port->r;
	f->next = NULL;
	if (port->rx_tail)
		port->rx_tail->next = f;
	else
		port->rx_head = f;
	port->rx_tail = f;
	port->rx_bytes += f->len;
	r->st.rx_stall_held++;
	if (port->rx_bytes > r->st.rx_stall_peak)
		r->st.rx_stall_peak = port->rx_bytes;
	return true;
}

void rnic_rx_stall_free(rnic_port *port)
{
	sim_event_cancel(port->r->eng, &port->stall_ev);
	while (port->rx_head) {
		sim_frame *f = port->rx_head;
		port->rx_head = f->next;
		sim_frame_free(f);
	}
	port->rx_tail = NULL;
}

sim_time rnic_port_rx_stalled_ns(const rnic *r, uint8_t port)
{
	if (port < 1 || port > r->cfg.nports)
		return 0;
	const rnic_port *p = &r->ports[port - 1];
	sim_time t = p->rx_stalled_total;
	return p->rx_stalled ? t + (sim_now(r->eng) - p->rx_stalled_since) : t;
}
