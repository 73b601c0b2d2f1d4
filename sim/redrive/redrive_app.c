/* Re-drive: the recorded application of our side O in a world made from the capture.
 *
 * What O's application did is read from O's recorded messages, per connection:
 *  - it connects (O the client) when its first CLC message is due, or accepts (O the
 *    server; listening on every port the recording shows O serve, SMC or not);
 *  - each O CDC message tells what happened since the previous one: its consumer cursor
 *    moved by the bytes the application read (Linux sends a consumer update from the
 *    receive call, smc_rx_recvmsg), its producer cursor by the bytes the application
 *    wrote; a write still blocked (the write-blocked flag) goes on in the following CDC
 *    messages, so those bytes belong to the same write; the close flags (done writing,
 *    closed, abort) are its shutdown, close or abort, after the peer's close when the
 *    recorded peer's close came first.
 * Each step waits for its own recorded message's turn: every R message recorded before
 * it has been fed, and as long after the last of them as the recording shows. The bytes
 * are a pattern (the content of the data is not in the CDC messages; RDMA WRITEs are
 * compared by target and length). A connection whose cursors cannot be read (RMB sizes
 * unknown, cursors that go backwards) is drained instead, with a note. */
#include <inttypes.h>
#include <string.h>

#include "model/byteorder.h"
#include "model/llc.h"
#include "sim/app/app_recorded.h"
#include "sim/redrive/redrive_int.h"

#define START_NS 1000000ull /* the feeder's first message */

typedef struct conn_facts {
	bool seen, decline, accept, confirm;
	uint16_t port;
	uint64_t first_o_clc;  /* index + 1 */
	uint32_t o_rmb, r_rmb; /* bytes; 0 unknown */
	uint32_t r_token;
	bool has_r_token;
} conn_facts;

static uint64_t curs_abs(const smcr_cursor *c, uint32_t size, uint64_t wraps)
{
	return wraps * size + c->count;
}

/* Bytes from old to new; false when the cursor cannot have moved so (backwards, or a
 * count beyond the ring). */
static bool curs_delta(const smcr_cursor *old, const smcr_cursor *now, uint32_t size, uint64_t *out)
{
	if (!size || now->count >= size || old->count >= size)
		return false;
	uint16_t wraps = (uint16_t)(now->wrap - old->wrap);
	if (wraps >= 0x8000u)
		return false;
	uint64_t a = curs_abs(old, size, 0), b = curs_abs(now, size, wraps);
	if (b < a)
		return false;
	*out = b - a;
	return true;
}

static void facts_of(const redrive *rd, uint32_t ci, conn_facts *f)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < rd->n_msgs; i++) {
		const rd_msg *m = &rd->msgs[i];
		if (m->conn != ci || m->kind != REPLAY_MSG_CLC || m->len < 8)
			continue;
		f->seen = true;
		if (m->server_port)
			f->port = m->server_port;
		if (!m->from_r && !f->first_o_clc)
			f->first_o_clc = i + 1;
		smcr_clc_accept a;
		smcr_decode_err e;
		switch (m->data[4]) {
		case SMCR_CLC_DECLINE:
			f->decline = true;
			break;
		case SMCR_CLC_ACCEPT:
		case SMCR_CLC_CONFIRM:
			if (m->data[4] == SMCR_CLC_ACCEPT)
				f->accept = true;
			else
				f->confirm = true;
			if (smcr_clc_decode_accept(&a, m->data, m->len, &e))
				break;
			if (m->from_r) {
				f->r_rmb = smcr_rmbe_size_bytes(a.rmbe_size);
				f->r_token = a.rmbe_alert_token;
				f->has_r_token = true;
			} else {
				f->o_rmb = smcr_rmbe_size_bytes(a.rmbe_size);
			}
			break;
		default:
			break;
		}
	}
}

static app_rec_step *push_step(app_rec_conn *c, size_t *cap, app_rec_op op, uint64_t bytes, uint64_t gate,
                               bool after_peer_close)
{
	if (c->n_steps == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		c->steps = g_realloc_n(c->steps, *cap, sizeof(*c->steps));
	}
	app_rec_step *s = &c->steps[c->n_steps++];
	*s = (app_rec_step){ .op = op, .bytes = bytes, .gate = gate, .after_peer_close = after_peer_close };
	return s;
}

/* The steps of connection ci from its CDC messages; false (with why) when they cannot be read. */
static bool steps_of(const redrive *rd, uint32_t ci, const conn_facts *f, app_rec_conn *c, char *why, size_t n)
{
	size_t cap = 0;
	smcr_cursor o_prod = { 0, 0 }, o_cons = { 0, 0 };
	uint8_t o_conn_flags = 0;
	bool peer_closed = false, over = false;
	smcr_cursor r_prod = { 0, 0 };
	uint64_t r_prod_total = 0, r_prod_at_run = 0, o_cons_total = 0; /* bytes R announced, O read */
	/* O's RDMA WRITEs since its previous CDC, in runs that no R message separates */
	size_t run_at[32];
	uint64_t run_bytes[32];
	size_t n_runs = 0;
	bool r_between = true;
	/* O's previous data CDC said write blocked: its application had given the socket more
	 * than the window took then, so the bytes of O's next data CDC were there already and
	 * are written from that earlier place (as one bulk send() is), else the next CDC
	 * would find the send buffer holding only its own bytes and clear the flag */
	uint64_t blocked_gate = UINT64_MAX;
	for (size_t i = 0; i < rd->n_msgs && !over; i++) {
		const rd_msg *m = &rd->msgs[i];
		if (m->from_r)
			r_between = true;
		if (m->conn != ci)
			continue;
		if (m->kind == REPLAY_MSG_WRITE && !m->from_r) {
			if (!n_runs)
				r_prod_at_run = r_prod_total;
			if (!r_between && n_runs)
				run_bytes[n_runs - 1] += m->wire_len;
			else if (n_runs < G_N_ELEMENTS(run_at)) {
				run_at[n_runs] = i;
				run_bytes[n_runs++] = m->wire_len;
			}
			r_between = false;
			continue;
		}
		if (m->kind != REPLAY_MSG_CDC)
			continue;
		smcr_cdc_msg cdc;
		smcr_decode_err e;
		if (smcr_cdc_decode(&cdc, m->data, m->len, &e)) {
			snprintf(why, n, "its CDC message in frame %" PRIu64 " does not decode", m->frame);
			return false;
		}
		if (cdc.prod_flags & SMCR_CDC_FAILOVER_VALIDATION)
			continue; /* names the last CDC seen after a failover; its cursors are not the stream's */
		if (m->from_r) {
			uint64_t d = 0;
			if (curs_delta(&r_prod, &cdc.prod, f->o_rmb, &d)) {
				r_prod = cdc.prod;
				r_prod_total += d;
			}
			if (cdc.conn_flags & SMCR_CDC_CLOSE_FLAGS)
				peer_closed = true;
			continue;
		}
		uint64_t read = 0, wrote = 0;
		if (!curs_delta(&o_cons, &cdc.cons, f->o_rmb, &read) || !curs_delta(&o_prod, &cdc.prod, f->r_rmb, &wrote)) {
			snprintf(why, n, "the cursors of its CDC message in frame %" PRIu64 " do not follow the previous ones",
			         m->frame);
			return false;
		}
		o_cons = cdc.cons;
		o_prod = cdc.prod;
		/* the read came before the writes (an echo) when the peer had announced its
		 * bytes by then; otherwise after them, by the CDC's time (a reply read after the
		 * request went out, or bytes whose announcement the capture lacks) */
		o_cons_total += read;
		bool read_first = read && (!n_runs || r_prod_at_run >= o_cons_total);
		if (read_first)
			push_step(c, &cap, APP_REC_READ, read, n_runs ? run_at[0] : i, false);
		/* what this CDC announces went out in its RDMA WRITEs: each run of them was as much
		 * as the application had given the socket by then, written when the run began;
		 * bytes whose WRITEs the capture lacks follow the last run (or come by the CDC's
		 * time); a write the window held back is not told apart from a later one */
		uint64_t in_runs = 0;
		for (size_t k = 0; k < n_runs; k++)
			in_runs += run_bytes[k];
		if (in_runs > wrote) {
			n_runs = 0; /* retransmitted or cut: the CDC alone */
			in_runs = 0;
		}
		uint64_t first_gate = UINT64_MAX;
		for (size_t k = 0; k < n_runs; k++) {
			uint64_t g = blocked_gate != UINT64_MAX ? blocked_gate : run_at[k];
			push_step(c, &cap, APP_REC_WRITE, run_bytes[k], g, false);
			first_gate = first_gate != UINT64_MAX ? first_gate : g;
		}
		if (wrote > in_runs) {
			uint64_t g = blocked_gate != UINT64_MAX ? blocked_gate : n_runs ? run_at[n_runs - 1]
			                                                                : i;
			push_step(c, &cap, APP_REC_WRITE, wrote - in_runs, g, false);
			first_gate = first_gate != UINT64_MAX ? first_gate : g;
		}
		if (wrote)
			blocked_gate = (cdc.prod_flags & SMCR_CDC_WRITE_BLOCKED) ? first_gate : UINT64_MAX;
		if (read && !read_first)
			push_step(c, &cap, APP_REC_READ, read, i, false);
		n_runs = 0;
		r_between = true;
		uint8_t fresh = (uint8_t)(cdc.conn_flags & ~o_conn_flags);
		o_conn_flags |= cdc.conn_flags;
		if (fresh & SMCR_CDC_PEER_CONN_ABORT) {
			push_step(c, &cap, APP_REC_ABORT, 0, i, peer_closed);
			over = true;
		} else if (fresh & SMCR_CDC_PEER_CONN_CLOSED) {
			push_step(c, &cap, APP_REC_CLOSE, 0, i, peer_closed);
			over = true;
		} else if (fresh & SMCR_CDC_PEER_DONE_WRITING) {
			push_step(c, &cap, APP_REC_SHUTDOWN, 0, i, peer_closed);
		}
	}
	return true;
}

static void rd_app_listen_port(app_rec_script *s, uint16_t port)
{
	if (!port)
		return;
	for (size_t i = 0; i < s->n_listen; i++)
		if (s->listen_ports[i] == port)
			return;
	s->listen_ports = g_realloc_n(s->listen_ports, s->n_listen + 1, sizeof(*s->listen_ports));
	s->listen_ports[s->n_listen++] = port;
}

/* The recorded application's script, for a world made from the capture. */
static void rd_app_script(redrive *rd, app_rec_script *s)
{
	memset(s, 0, sizeof(*s));
	bool o_server = rd->o_ip == rd->server_ip;
	uint32_t n_conns = 0;
	for (size_t i = 0; i < rd->n_msgs; i++)
		if (rd->msgs[i].conn > n_conns)
			n_conns = rd->msgs[i].conn;
	/* ports: every TCP connection the decoder saw O serve (SMC or not), and the CLC ones */
	if (o_server) {
		for (size_t i = 0; i < rd->decoded.report.n_conns; i++) {
			const report_conn *c = &rd->decoded.report.conns[i];
			if (c->role == REPORT_ROLE_SERVER && rd_is_o_addr(rd, c->family, c->local_ip, c->role))
				rd_app_listen_port(s, c->local_port);
		}
		for (size_t i = 0; i < rd->n_msgs; i++)
			if (rd->msgs[i].kind == REPLAY_MSG_CLC && rd->msgs[i].server_port)
				rd_app_listen_port(s, rd->msgs[i].server_port);
	}
	for (uint32_t ci = 1; ci <= n_conns; ci++) {
		conn_facts f;
		facts_of(rd, ci, &f);
		if (!f.seen || !f.port)
			continue;
		s->conns = g_realloc_n(s->conns, s->n_conns + 1, sizeof(*s->conns));
		app_rec_conn *c = &s->conns[s->n_conns++];
		memset(c, 0, sizeof(*c));
		c->id = ci;
		c->active = !o_server;
		c->peer_ip = rd->r_ip;
		c->port = f.port;
		c->open_gate = f.first_o_clc ? f.first_o_clc - 1 : 0;
		c->has_peer_token = f.has_r_token && !f.decline;
		c->peer_token = f.r_token;
		if (f.decline || !f.confirm)
			continue; /* a fallback (or unfinished) handshake: no SMC-R data to play */
		char why[160] = "";
		if (!f.o_rmb || !f.r_rmb)
			snprintf(why, sizeof(why), "the RMB sizes are not in its CLC messages");
		else if (steps_of(rd, ci, &f, c, why, sizeof(why)))
			continue;
		g_free(c->steps);
		c->steps = NULL;
		c->n_steps = 0;
		c->drain = true;
		rd_note(rd, "connection %" PRIu32 ": the recorded application cannot be derived (%s); our side reads what "
		            "arrives and closes after the peer",
		        ci, why);
	}
}

/* O's DELETE LINK ALL of an operator (reason SMC_LLC_DEL_OP_INIT_TERM, a request no
 * DELETE LINK of R's came before): `rmmod smc` or interop --end-lgr; 0 when none. */
static uint64_t operator_end_gate(const redrive *rd)
{
	for (size_t i = 0; i < rd->n_msgs; i++) {
		const rd_msg *m = &rd->msgs[i];
		smcr_llc_msg l;
		smcr_decode_err e;
		if (m->kind != REPLAY_MSG_LLC || smcr_llc_decode(&l, m->data, m->len, &e) || l.type != SMCR_LLC_DELETE_LINK)
			continue;
		if (m->from_r)
			return 0; /* the fed side ended it first: ours only answers */
		if (!(l.flags & SMCR_LLC_FLAG_RESP) && (l.flags & SMCR_LLC_FLAG_DEL_LINK_ALL) &&
		    l.u.delete_link.reason == SMCR_LLC_DEL_OP_INIT_TERM)
			return i + 1;
		return 0;
	}
	return 0;
}

static void rd_app_script_free(app_rec_script *s)
{
	for (size_t i = 0; i < s->n_conns; i++)
		g_free(s->conns[i].steps);
	g_free(s->conns);
	g_free(s->listen_ports);
	memset(s, 0, sizeof(*s));
}

/* A step recorded as message `gate` may run once every R message before it is fed, and
 * not sooner after the last of them than the recording shows. */
static sim_time gate_time(void *ctx, uint64_t gate)
{
	redrive *rd = ctx;
	if (!rd->feed || gate > rd->n_msgs || !rd_feed_passed(rd->feed, (size_t)gate))
		return SIM_TIME_NEVER;
	uint64_t rec = gate < rd->n_msgs ? rd->msgs[gate].time_ns : rd->msgs[rd->n_msgs - 1].time_ns;
	for (size_t i = (size_t)gate; i > 0; i--) {
		const rd_msg *m = &rd->msgs[i - 1];
		if (!m->from_r || m->second_link || !m->fed_at)
			continue;
		return m->fed_at + (rec >= m->time_ns ? rec - m->time_ns : 0);
	}
	return START_NS + (rec >= rd->t0 ? rec - rd->t0 : 0);
}

static void app_note(void *ctx, const char *text) { rd_note(ctx, "%s", text); }

int rd_app_start(redrive *rd, stack *o_stack, smc_layer *o_layer, char *err, size_t errlen)
{
	app_rec_script s;
	rd_app_script(rd, &s);
	s.end_lgr_gate = operator_end_gate(rd);
	uint64_t seed = rd->o.has_seed ? rd->o.seed : 1;
	/* a step held by missing data goes on after half the feeder's wait, so that what it
	 * sends still comes before the feeder gives up on it */
	rd->app = app_recorded_start(o_stack, o_layer, &s, seed, rd->o.wait_ns / 2, gate_time, app_note, rd, err,
	                             errlen);
	rd_app_script_free(&s);
	return rd->app ? 0 : -1;
}
