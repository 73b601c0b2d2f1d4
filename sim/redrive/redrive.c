/* Re-drive: the recorded conversation, the run and its results (see sim/redrive/redrive.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/byteorder.h"
#include "sim/addr/addr_text.h"
#include "sim/redrive/redrive_int.h"

#define MAX_DIFFS 500

void rd_diff(redrive *rd, uint64_t frame, const char *msg, const char *fmt, ...)
{
	redrive_result *r = rd->res;
	if (r->n_diffs >= MAX_DIFFS)
		return;
	if (r->n_diffs == r->cap_diffs) {
		r->cap_diffs = r->cap_diffs ? r->cap_diffs * 2 : 16;
		r->diffs = g_realloc_n(r->diffs, r->cap_diffs, sizeof(*r->diffs));
	}
	redrive_diff *d = &r->diffs[r->n_diffs++];
	memset(d, 0, sizeof(*d));
	d->frame = frame;
	d->time_ns = rd->w ? sim_now(world_engine(rd->w)) : 0;
	g_strlcpy(d->msg, msg, sizeof(d->msg));
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->text, sizeof(d->text), fmt, ap);
	va_end(ap);
}

void rd_note(redrive *rd, const char *fmt, ...)
{
	redrive_result *r = rd->res;
	char text[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < r->n_notes; i++)
		if (!strcmp(r->notes[i], text))
			return;
	if (r->n_notes < G_N_ELEMENTS(r->notes))
		g_strlcpy(r->notes[r->n_notes++], text, sizeof(r->notes[0]));
}

/* ---- the recorded conversation ---- */

static uint32_t ip_of(const uint8_t ip[16]) { return get_be32(ip); }

static size_t *slot(size_t **arr, size_t *n, size_t idx)
{
	if (idx >= *n) {
		size_t m = idx + 16;
		*arr = g_realloc_n(*arr, m, sizeof(**arr));
		memset(*arr + *n, 0, (m - *n) * sizeof(**arr));
		*n = m;
	}
	return &(*arr)[idx];
}

#define MAPPED_CLIENT 0x0A000001u /* 10.0.0.1 */
#define MAPPED_SERVER 0x0A000002u /* 10.0.0.2 */

static bool v4_mapped_ok(uint8_t family, const uint8_t ip[2][16])
{
	return family == 4 && memcmp(ip[0], ip[1], 16);
}

/* The conversation's addresses, from its first CLC message. */
static void start_conversation(redrive *rd, const replay_msg *m)
{
	rd->have_conversation = true;
	rd->rec_family = m->family;
	memcpy(rd->rec_ip, m->ip, sizeof(rd->rec_ip));
	rd->addr_mapped = !v4_mapped_ok(m->family, m->ip);
	rd->client_ip = rd->addr_mapped ? MAPPED_CLIENT : ip_of(m->ip[0]);
	rd->server_ip = rd->addr_mapped ? MAPPED_SERVER : ip_of(m->ip[1]);
	rd->t0 = m->time_ns;
}

static bool in_conversation(const redrive *rd, const replay_msg *m)
{
	if (m->family != rd->rec_family)
		return false;
	return (!memcmp(m->ip[0], rd->rec_ip[0], 16) && !memcmp(m->ip[1], rd->rec_ip[1], 16)) ||
	       (!memcmp(m->ip[0], rd->rec_ip[1], 16) && !memcmp(m->ip[1], rd->rec_ip[0], 16));
}

bool rd_is_o_addr(const redrive *rd, uint8_t family, const uint8_t ip[16], report_role role)
{
	if (!rd->addr_mapped)
		return family == 4 && ip_of(ip) == rd->o_ip;
	/* by role: with one address at both ends, the address cannot tell them */
	int o = rd->o_ip == rd->client_ip ? 0 : 1;
	return family == rd->rec_family && !memcmp(ip, rd->rec_ip[o], 16) &&
	       role == (o == 0 ? REPORT_ROLE_CLIENT : REPORT_ROLE_SERVER);
}

static void collect(void *ctx, const replay_msg *m)
{
	redrive *rd = ctx;
	if (!m->family)
		return;
	if (!rd->have_conversation) {
		if (m->kind != REPLAY_MSG_CLC)
			return; /* the conversation starts with the first CLC message */
		start_conversation(rd, m);
	}
	if (!in_conversation(rd, m))
		return;
	/* the sender by its role (0 the client end): the same as its address, and the only
	 * way to tell the ends of a one-address conversation apart */
	bool from_client = m->from == 0;
	if (!rd->addr_mapped && memcmp(rd->rec_ip[0], rd->rec_ip[1], 16))
		from_client = !memcmp(m->ip[m->from], rd->rec_ip[0], 16);
	uint32_t sender = from_client ? rd->client_ip : rd->server_ip;
	size_t key = (size_t)m->link * 2 + (size_t)m->from;
	if (m->kind == REPLAY_MSG_WRITE && !m->write_first) {
		size_t *ow = slot(&rd->open_write, &rd->n_open_write, key);
		if (*ow) {
			rd_msg *w = &rd->msgs[*ow - 1];
			w->data = g_realloc(w->data, w->len + m->len);
			memcpy(w->data + w->len, m->data, m->len);
			w->len += m->len;
			w->wire_len += m->wire_len;
		}
		return;
	}
	if (rd->n_msgs == rd->cap_msgs) {
		rd->cap_msgs = rd->cap_msgs ? rd->cap_msgs * 2 : 256;
		rd->msgs = g_realloc_n(rd->msgs, rd->cap_msgs, sizeof(*rd->msgs));
	}
	rd_msg *x = &rd->msgs[rd->n_msgs++];
	memset(x, 0, sizeof(*x));
	x->kind = m->kind;
	x->frame = m->frame;
	x->time_ns = m->time_ns;
	x->sender = sender;
	x->conn = m->conn;
	x->server_port = m->port[1];
	x->link = m->link;
	x->lgr = m->lgr;
	x->data = g_memdup2(m->data, m->len);
	x->len = m->len;
	x->wire_len = m->kind == REPLAY_MSG_WRITE ? m->wire_len : m->len;
	x->va = m->va;
	x->rkey = m->rkey;
	/* a SEND on the QP ends a WRITE being collected; a CLC message on TCP in between does
	 * not (the packets of one request are contiguous on the QP only) */
	if (m->link && m->kind != REPLAY_MSG_CLC)
		*slot(&rd->open_write, &rd->n_open_write, key) = m->kind == REPLAY_MSG_WRITE ? rd->n_msgs : 0;
	if (m->link && m->lgr) {
		size_t *fl = slot(&rd->first_link, &rd->n_first_link, m->lgr);
		if (!*fl)
			*fl = m->link;
		x->second_link = *fl != m->link;
	}
}

static void free_run(redrive *rd)
{
	app_recorded_free(rd->app);
	rd->app = NULL;
	rd_feed_free(rd->feed);
	rd->feed = NULL;
	world_free(rd->w);
	rd->w = NULL;
	scn_free(rd->scn);
	rd->scn = NULL;
	if (rd->devnull)
		fclose(rd->devnull);
	rd->devnull = NULL;
	for (size_t i = 0; i < rd->n_msgs; i++)
		g_free(rd->msgs[i].data);
	g_free(rd->msgs);
	g_free(rd->open_write);
	g_free(rd->first_link);
	g_free(rd->rmb_o);
	g_free(rd->rmb_r);
	rd_map_free(&rd->map_o);
	rd_map_free(&rd->map_r);
	replay_result_free(&rd->decoded);
}

const char *rd_msg_name(const rd_msg *m, char *buf, size_t n)
{
	switch (m->kind) {
	case REPLAY_MSG_CLC:
		snprintf(buf, n, "%s", m->len > 4 ? smcr_clc_type_name(m->data[4]) : "CLC");
		break;
	case REPLAY_MSG_LLC:
		snprintf(buf, n, "LLC %s%s %s", m->len ? smcr_llc_type_name(m->data[0]) : "?",
		         m->len && (m->data[0] & 0xF0) == 0x20 ? " (v2)" : "",
		         m->len > 3 && (m->data[3] & SMCR_LLC_FLAG_RESP) ? "response" : "request");
		break;
	case REPLAY_MSG_CDC:
		snprintf(buf, n, "CDC");
		break;
	case REPLAY_MSG_WRITE:
		snprintf(buf, n, "RDMA WRITE");
		break;
	}
	return buf;
}

/* what the reader said of damage and time stamp jumps */
static void damage_of(const replay_result *d, redrive_result *res)
{
	res->damaged = d->file_damaged;
	res->time_gaps = d->time_gaps;
	for (size_t i = 0; i < d->errors.n; i++) {
		const char *text = d->errors.items[i].text;
		if (!res->first_gap[0] && strstr(text, "time stamp jump"))
			g_strlcpy(res->first_gap, text, sizeof(res->first_gap));
		if (res->damaged && !res->damage[0] && strstr(text, "damaged"))
			g_strlcpy(res->damage, text, sizeof(res->damage));
	}
}

int redrive_run(const char *capture, const redrive_opts *o, redrive_result *res, char *err, size_t errlen)
{
	memset(res, 0, sizeof(*res));
	redrive rd;
	memset(&rd, 0, sizeof(rd));
	rd.o = *o;
	rd.res = res;
	if (!rd.o.wait_ns)
		rd.o.wait_ns = 1000000000ull;
	replay_opts ro = { .max_listed = 20, .on_msg = collect, .on_msg_ctx = &rd, .max_gap_ns = o->max_gap_ns };
	if (replay_decode_file(capture, &ro, &rd.decoded, err, errlen)) {
		free_run(&rd);
		return -1;
	}
	damage_of(&rd.decoded, res);
	if (!rd.have_conversation) {
		snprintf(err, errlen, "%s: no SMC-R conversation: no CLC message in the capture", capture);
		free_run(&rd);
		return -1;
	}
	switch (o->side) {
	case REDRIVE_SIDE_CLIENT:
		rd.r_ip = rd.client_ip;
		break;
	case REDRIVE_SIDE_SERVER:
		rd.r_ip = rd.server_ip;
		break;
	case REDRIVE_SIDE_IP:
		rd.r_ip = o->side_ip;
		break;
	}
	if (rd.r_ip != rd.client_ip && rd.r_ip != rd.server_ip) {
		char side[ADDR_TEXT_IPV4_LEN], client[ADDR_TEXT_IPV4_LEN], server[ADDR_TEXT_IPV4_LEN];
		snprintf(err, errlen, "%s: %s is neither side of the conversation (client %s, server %s)", capture,
		         addr_text_ipv4(rd.r_ip, side, sizeof(side)), addr_text_ipv4(rd.client_ip, client, sizeof(client)),
		         addr_text_ipv4(rd.server_ip, server, sizeof(server)));
		free_run(&rd);
		return -1;
	}
	rd.o_ip = rd.r_ip == rd.client_ip ? rd.server_ip : rd.client_ip;
	res->r_ip = rd.r_ip;
	res->o_ip = rd.o_ip;
	if (rd.addr_mapped) {
		bool r_client = rd.r_ip == rd.client_ip;
		report_ip_str(rd.rec_family, rd.rec_ip[r_client ? 0 : 1], res->r_rec, sizeof(res->r_rec));
		report_ip_str(rd.rec_family, rd.rec_ip[r_client ? 1 : 0], res->o_rec, sizeof(res->o_rec));
		rd_note(&rd, "the recorded %s conversation is re-driven with the world addresses %s (client) and %s (server)",
		        rd.rec_family == 6 ? "IPv6" : "one-address", "10.0.0.1", "10.0.0.2");
	}
	res->r_is_client = rd.r_ip == rd.client_ip;
	/* a connection's link group is known from its Confirm on: tell its earlier messages */
	for (size_t i = rd.n_msgs; i > 0; i--) {
		rd_msg *m = &rd.msgs[i - 1];
		if (m->lgr || !m->conn)
			continue;
		for (size_t k = 0; k < rd.n_msgs && !m->lgr; k++)
			if (rd.msgs[k].conn == m->conn && rd.msgs[k].lgr)
				m->lgr = rd.msgs[k].lgr;
	}
	uint64_t last_ns = rd.t0;
	size_t second = 0;
	for (size_t i = 0; i < rd.n_msgs; i++) {
		rd_msg *m = &rd.msgs[i];
		m->from_r = m->sender == rd.r_ip;
		if (m->time_ns > last_ns)
			last_ns = m->time_ns;
		res->conversation_msgs++;
		if (m->second_link) {
			second++;
			m->done = true;
			if (m->from_r)
				res->not_fed++;
			continue;
		}
		if (!m->from_r)
			res->recorded_o++;
	}
	if (second)
		rd_note(&rd, "%zu messages on second links of a link group are neither fed nor compared (one link per "
		             "group is re-driven)",
		        second);

	stack *st;
	rnic *adapter;
	uint8_t port;
	if (rd_world_build(&rd, &st, &adapter, &port, err, errlen) ||
	    !(rd.feed = rd_feed_new(&rd, st, adapter, port, err, errlen)) ||
	    (!rd.o.scenario && rd_app_start(&rd, world_stack(rd.w, "O"), world_layer(rd.w, "O"), err, errlen))) {
		free_run(&rd);
		return -1;
	}
	sim_engine *eng = world_engine(rd.w);
	uint64_t end = o->end_ns ? o->end_ns : (last_ns - rd.t0) + 10000000000ull;
	const uint64_t step = 10000000ull;
	while (sim_now(eng) < end) {
		sim_time next = sim_now(eng) + step;
		world_run_until(rd.w, next < end ? next : end);
		if (rd_feed_done(rd.feed) && sim_now(eng) > rd_feed_last_activity(rd.feed) + 2 * rd.o.wait_ns)
			break;
	}
	char name[64];
	for (size_t i = 0; i < rd.n_msgs; i++) {
		rd_msg *m = &rd.msgs[i];
		if (m->done)
			continue;
		if (m->from_r) {
			res->not_fed++;
			continue;
		}
		res->missing++;
		rd_diff(&rd, m->frame, rd_msg_name(m, name, sizeof(name)), "missing: our side never sent it");
	}
	free_run(&rd);
	return 0;
}

void redrive_print(FILE *out, const redrive_result *r, bool pairs)
{
	char a[20], b[20];
	addr_text_ipv4(r->r_ip, a, sizeof(a));
	addr_text_ipv4(r->o_ip, b, sizeof(b));
	char ra[96], oa[96];
	if (r->r_rec[0]) {
		snprintf(ra, sizeof(ra), "%s (as %s)", r->r_rec, a);
		snprintf(oa, sizeof(oa), "%s (as %s)", r->o_rec, b);
	} else {
		snprintf(ra, sizeof(ra), "%s", a);
		snprintf(oa, sizeof(oa), "%s", b);
	}
	fprintf(out, "re-drive: recorded %s %s fed in, our core plays the %s %s\n", r->r_is_client ? "client" : "server",
	        ra, r->r_is_client ? "server" : "client", oa);
	fprintf(out, "  %" PRIu64 " messages in the conversation: %" PRIu64 " fed, %" PRIu64 " not fed; %" PRIu64 " recorded from our side\n",
	        r->conversation_msgs, r->fed, r->not_fed, r->recorded_o);
	fprintf(out, "  ours: %" PRIu64 " sent, %" PRIu64 " compared, %" PRIu64 " equal, %" PRIu64 " differ, %" PRIu64 " missing, %" PRIu64 " extra\n",
	        r->ours, r->compared, r->equal, r->compared - r->equal, r->missing, r->extra);
	for (size_t i = 0; i < r->n_notes; i++)
		fprintf(out, "  note: %s\n", r->notes[i]);
	if (pairs) {
		fprintf(out, "comparisons (recorded frame, message: result):\n");
		for (size_t i = 0; i < r->n_pairs; i++)
			fprintf(out, "  frame %" PRIu64 " %s: %s\n", r->pairs[i].frame, r->pairs[i].msg,
			        r->pairs[i].equal ? "equal" : "differs");
	}
	if (!r->n_diffs) {
		fprintf(out, "no differences\n");
		return;
	}
	fprintf(out, "differences (recorded frame, message: what):\n");
	for (size_t i = 0; i < r->n_diffs; i++) {
		const redrive_diff *d = &r->diffs[i];
		if (d->frame)
			fprintf(out, "  frame %" PRIu64 " %s: %s\n", d->frame, d->msg, d->text);
		else
			fprintf(out, "  (ours at %" PRIu64 ".%09" PRIu64 " s) %s: %s\n", d->time_ns / 1000000000u,
			        d->time_ns % 1000000000u, d->msg, d->text);
	}
	if (r->n_diffs >= MAX_DIFFS)
		fprintf(out, "  ... (only the first %d are listed)\n", MAX_DIFFS);
}

void redrive_result_free(redrive_result *r)
{
	g_free(r->diffs);
	g_free(r->pairs);
	memset(r, 0, sizeof(*r));
}
