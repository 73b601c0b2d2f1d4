/* Replay: the protocol steps a capture lacks, as notes (the states in the report come
 * from the messages seen; what should have come and did not is said here, with the frame
 * of the last step that was there):
 *   - a CLC handshake that stops (Proposal without Accept or Decline, Accept without
 *     Confirm);
 *   - a first contact whose link was never confirmed (no CONFIRM LINK request, or no
 *     response to it): both sockets stay in SMC_INIT;
 *   - an SMC-R connection whose TCP connection closed (FIN both ways) without the CDC
 *     close flags of one side in the capture;
 *   - an ADD LINK request that got no response. */
#include <stdio.h>

#include "sim/replay/replay_int.h"

static void conn_name(const rp_conn *c, char *out, size_t n)
{
	char a[64], b[64];
	report_ip_str(c->family, c->h[RP_CLIENT].ip, a, sizeof(a));
	report_ip_str(c->family, c->h[RP_SERVER].ip, b, sizeof(b));
	snprintf(out, n, c->family == 6 ? "[%s]:%u -> [%s]:%u" : "%s:%u -> %s:%u", a, c->h[RP_CLIENT].port, b,
	         c->h[RP_SERVER].port);
}

static void clc_steps(replay_decoder *d, const rp_conn *c, const char *name)
{
	if (c->mode != RP_MODE_PENDING || c->clc_error || c->reset)
		return;
	uint64_t saved = d->frame;
	if (c->accept && !c->confirm) {
		d->frame = c->accept_frame;
		rp_note(d, "SMC connection %s: CLC Accept, but no Confirm from the client in the capture", name);
	} else if (c->proposal && !c->accept) {
		d->frame = c->proposal_frame;
		rp_note(d, "SMC connection %s: CLC Proposal, but no Accept or Decline from the server in the capture", name);
	}
	d->frame = saved;
}

static void first_contact_steps(replay_decoder *d, const rp_conn *c, const char *name)
{
	if (c->mode != RP_MODE_SMCR || !c->first_contact || !c->link)
		return;
	const rp_link *l = RP_LINK(d, c->link);
	if (l->confirmed)
		return;
	uint64_t saved = d->frame;
	d->frame = l->confirm_req_frame ? l->confirm_req_frame : c->confirm_frame;
	if (l->confirm_req_frame)
		rp_note(d, "SMC connection %s: first contact not completed: the client's CONFIRM LINK response is not in the "
		           "capture, so both sockets are shown in SMC_INIT",
		        name);
	else
		rp_note(d, "SMC connection %s: first contact not completed: no CONFIRM LINK request from the server followed "
		           "the CLC Confirm, so both sockets are shown in SMC_INIT (Linux's client gives up after 5 s and "
		           "declines with 0x02010000)",
		        name);
	d->frame = saved;
}

static void close_steps(replay_decoder *d, const rp_conn *c, const char *name)
{
	if (c->mode != RP_MODE_SMCR || c->reset || !c->h[0].tcp.fin || !c->h[1].tcp.fin)
		return;
	for (int s = 0; s < 2; s++) {
		const rp_half *h = &c->h[s];
		if (h->closed || h->aborted || h->done_writing)
			continue;
		uint64_t saved = d->frame;
		d->frame = 0;
		rp_note(d, "SMC connection %s: TCP closed both ways (FIN), but no CDC message with the close flags from the "
		           "%s in the capture",
		        name, s == RP_CLIENT ? "client" : "server");
		d->frame = saved;
	}
}

void rp_missing_steps(replay_decoder *d)
{
	for (size_t i = 0; i < d->n_conns; i++) {
		const rp_conn *c = &d->conns[i];
		if (c->not_smc)
			continue;
		char name[200];
		conn_name(c, name, sizeof(name));
		clc_steps(d, c, name);
		first_contact_steps(d, c, name);
		close_steps(d, c, name);
	}
	for (size_t gi = 0; gi < d->n_lgrs; gi++) {
		const rp_lgr *g = &d->lgrs[gi];
		if (!g->add_pending)
			continue;
		uint64_t saved = d->frame;
		d->frame = g->add_frame;
		rp_note(d, "ADD LINK request for link %u without a response in the capture", g->add_link_num);
		d->frame = saved;
	}
}
