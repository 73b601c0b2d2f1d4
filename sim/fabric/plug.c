/* Plugs: connection, carrier and taps. */
#include "sim/fabric/plug.h"

#include <stdio.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/fabric/fabric.h"
#include "sim/fabric/hop_int.h"

void sim_plug_init(sim_plug *p, sim_fabric *fab, sim_plug_kind kind, const char *name, void *owner,
                   void (*receive)(sim_plug *, sim_frame *, sim_time),
                   void (*carrier_changed)(sim_plug *))
{
	memset(p, 0, sizeof(*p));
	p->fab = fab;
	p->id = sim_fabric_new_id(fab);
	p->kind = kind;
	p->up = true;
	p->owner = owner;
	p->receive = receive;
	p->carrier_changed = carrier_changed;
	snprintf(p->name, sizeof(p->name), "%s", name ? name : "");
}

/* Recompute p's carrier; every change of up or peer does it for both plugs concerned
 * before either owner hears of it, so owners always read current carriers. */
static void refresh(sim_plug *p)
{
	if (p)
		p->carrier = p->up && p->peer && p->peer->up;
}

static void notify(sim_plug *p)
{
	if (p->carrier_changed)
		p->carrier_changed(p);
}

int sim_plug_connect(sim_plug *a, sim_plug *b)
{
	if (!a || !b || a == b)
		return SMCR_ERR_INVAL;
	if (a->kind == b->kind && a->kind != SIM_PLUG_SWITCH_PORT)
		return SMCR_ERR_INVAL;
	if (a->peer || b->peer)
		return SMCR_ERR_STATE;
	sim_hops_abort(sim_fabric_hops(a->fab), NULL); /* the fabric changes: crossings made early go again */
	a->peer = b;
	b->peer = a;
	refresh(a);
	refresh(b);
	notify(a);
	notify(b);
	return SMCR_ERR_OK;
}

void sim_plug_disconnect(sim_plug *p)
{
	sim_plug *q = p->peer;
	if (!q)
		return;
	sim_hops_abort(sim_fabric_hops(p->fab), NULL);
	p->peer = NULL;
	q->peer = NULL;
	refresh(p);
	refresh(q);
	notify(p);
	notify(q);
}

void sim_plug_set_up(sim_plug *p, bool up)
{
	if (p->up == up)
		return;
	sim_hops_abort(sim_fabric_hops(p->fab), NULL);
	p->up = up;
	refresh(p);
	refresh(p->peer);
	notify(p);
	if (p->peer)
		notify(p->peer);
}

bool sim_plug_send(sim_plug *p, sim_frame *f, sim_time at)
{
	if (!sim_plug_carrier(p)) {
		p->drops_no_carrier++;
		sim_frame_free(f);
		return false;
	}
	sim_plug *q = p->peer;
	/* a tap looks at every byte: a copy deferred until the receiver is made now */
	if (__builtin_expect(p->tap || q->tap, 0))
		sim_frame_settle(f);
	if (p->tap)
		p->tap(p->tap_ctx, p, SIM_TAP_OUT, at, f);
	if (q->tap)
		q->tap(q->tap_ctx, q, SIM_TAP_IN, at, f);
	q->receive(q, f, at);
	return true;
}

void sim_plug_set_tap(sim_plug *p, sim_tap_fn fn, void *ctx)
{
	sim_hops_abort(sim_fabric_hops(p->fab), NULL);
	p->tap = fn;
	p->tap_ctx = ctx;
}
