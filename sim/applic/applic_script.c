/* The recorded applications of the connections kept for the re-run (applic_int.h): each
 * connection's messages become the two ends' steps for the recorded-application player
 * (sim/app/app_recorded.h), as the re-drive's player takes them from a capture.
 *
 * A message written by one end is a WRITE there and a READ at the other. Its think time,
 * the writer's pause before it, is the gap the capture shows between the end of the
 * message before and the start of this one, less the path the capture point does not
 * see: after a message of the other side, the round trip from the capture point to the
 * writer and back (the SYN to SYN-ACK time for the server, SYN-ACK to ACK for the client:
 * whichever end the capture sits at, the sum is the round trip); after its own, nothing.
 * The first message counts from the end of the handshake. The end that closed first
 * closes (or aborts, for a RST) after its last step, the other after the peer's close.
 * The same gaps measure the recording itself: an exchange is a client message followed
 * by a server message, its latency from the request's first byte to the answer's last as
 * the capture point saw them. */
#include <string.h>

#include "sim/applic/applic_script_int.h"

static app_rec_step *push(app_rec_conn *c, size_t *cap, app_rec_op op, uint64_t bytes, uint64_t think, bool after)
{
	if (c->n_steps == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		c->steps = g_realloc_n(c->steps, *cap, sizeof(*c->steps));
	}
	app_rec_step *s = &c->steps[c->n_steps++];
	*s = (app_rec_step){ .op = op, .bytes = bytes, .think_ns = think, .after_peer_close = after };
	return s;
}

static uint64_t minus(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

void as_steps(const ac_script *s, app_rec_conn *cli, app_rec_conn *srv)
{
	size_t cap[2] = { 0, 0 };
	app_rec_conn *end[2] = { cli, srv };
	uint64_t rtt[2] = { s->rtt_s, s->rtt_c }; /* the writer's round trip from the capture point */
	uint64_t prev_t1 = s->t_open + s->rtt_c + s->rtt_s;
	int prev_dir = -1;
	for (size_t i = 0; i < s->n_msgs; i++) {
		const ac_msg *m = &s->msgs[i];
		int w = m->dir;
		uint64_t think = minus(m->t0, prev_t1);
		if (prev_dir >= 0 && prev_dir != w)
			think = minus(think, rtt[w]);
		push(end[w], &cap[w], APP_REC_WRITE, m->bytes, think, false);
		push(end[1 - w], &cap[1 - w], APP_REC_READ, m->bytes, 0, false);
		prev_t1 = m->t1;
		prev_dir = w;
	}
	if (s->closer < 0 || s->truncated)
		return;
	int c = s->closer;
	push(end[c], &cap[c], s->reset ? APP_REC_ABORT : APP_REC_CLOSE, 0, 0, false);
	if (s->closed[1 - c] || !s->reset)
		push(end[1 - c], &cap[1 - c], APP_REC_CLOSE, 0, 0, true);
}

void as_recorded(const ac_script *s, applic_rerun_conn *out)
{
	uint64_t sum = 0, n = 0;
	for (size_t i = 0; i + 1 < s->n_msgs; i++) {
		const ac_msg *q = &s->msgs[i], *a = &s->msgs[i + 1];
		if (q->dir == 0 && a->dir == 1 && (i == 0 || s->msgs[i - 1].dir == 1)) {
			sum += minus(a->t1, q->t0);
			n++;
		}
	}
	out->rec_exchanges = n;
	out->rec_lat_mean_ns = n ? sum / n : 0;
	out->rec_completion_ns = s->n_msgs ? minus(s->msgs[s->n_msgs - 1].t1, s->t_open) : 0;
	out->rec_bytes = s->bytes;
}
