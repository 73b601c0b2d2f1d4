/* The event stream (event_stream.h): the world's observer callbacks written as JSON Lines,
 * one fixed set of keys per kind, in a fixed order. */
#include "sim/observe/event_stream.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "model/clc.h"
#include "sim/observe/obs_msg.h"
#include "sim/report/json_writer.h"
#include "sim/report/report.h"
#include "sim/world/world_results.h"

struct event_stream {
	FILE *out;
	world *w;
	obs_ident *id;
	event_stream_opts o;
	GHashTable *cdc_counts; /* (stack, conn, dir) -> CDC messages seen; looked up only */
	uint64_t lines;
	uint64_t passed, failed; /* expectations */
};

int event_stream_parse_cdc(const char *text, event_stream_opts *o, char *err, size_t errlen)
{
	if (!strcmp(text, "all")) {
		o->cdc = OBS_CDC_ALL;
		return 0;
	}
	if (!strcmp(text, "none")) {
		o->cdc = OBS_CDC_NONE;
		return 0;
	}
	if (!strncmp(text, "every=", 6)) {
		char *end = NULL;
		unsigned long long n = g_ascii_strtoull(text + 6, &end, 10);
		if (end && !*end && text[6] && n >= 1 && n <= UINT32_MAX) {
			o->cdc = OBS_CDC_EVERY;
			o->cdc_every = (uint32_t)n;
			return 0;
		}
	}
	snprintf(err, errlen, "'%s'; expected all, none or every=N (N >= 1)", text);
	return -1;
}

/* ---- one line ---- */

static void line_begin(event_stream *es, json_writer *j, const char *kind, uint32_t si)
{
	json_init(j, es->out, false);
	json_begin_object(j);
	json_kv_uint(j, "time_ns", sim_now(world_engine(es->w)));
	json_kv_str(j, "kind", kind);
	json_kv_str(j, "stack", si == OBS_NONE ? NULL : obs_ident_stack_name(es->id, si));
}

static void line_end(event_stream *es, json_writer *j)
{
	json_end_object(j);
	json_finish(j);
	es->lines++;
}

static void kv_hex_or_null(json_writer *j, const char *key, bool known, uint64_t v, int width)
{
	if (known)
		json_kv_hex(j, key, v, width);
	else {
		json_key(j, key);
		json_null(j);
	}
}

static void kv_uint_or_null(json_writer *j, const char *key, bool known, uint64_t v)
{
	json_key(j, key);
	if (known)
		json_uint(j, v);
	else
		json_null(j);
}

static void kv_addr(json_writer *j, const char *key, bool known, uint32_t ip, uint16_t port)
{
	char buf[32];
	obs_addr_text(ip, port, buf, sizeof(buf));
	json_kv_str(j, key, known ? buf : NULL);
}

static void kv_stack(event_stream *es, json_writer *j, const char *key, uint32_t si)
{
	json_kv_str(j, key, si == OBS_NONE ? NULL : obs_ident_stack_name(es->id, si));
}

/* peer, lgr_id, link_num, local_link_id, remote_link_id */
static void kv_link(event_stream *es, json_writer *j, const obs_lgr *g, const obs_link *l)
{
	kv_stack(es, j, "peer", l->known ? l->peer : g->peer);
	bool lgr = l->known || g->known;
	kv_hex_or_null(j, "lgr_id", lgr, l->known ? l->lgr_num : g->num, 8);
	kv_uint_or_null(j, "link_num", l->known, l->link_num);
	kv_hex_or_null(j, "local_link_id", l->known, l->local_id, 8);
	kv_hex_or_null(j, "remote_link_id", l->known && l->remote_id, l->remote_id, 8);
}

/* conn, conn_id, local, remote */
static void kv_conn(json_writer *j, const obs_conn *c)
{
	json_kv_str(j, "conn", c->known && c->name[0] ? c->name : NULL);
	kv_uint_or_null(j, "conn_id", c->known && c->conn_id, c->conn_id);
	kv_addr(j, "local", c->known, c->local_ip, c->local_port);
	kv_addr(j, "remote", c->known, c->peer_ip, c->peer_port);
}

/* ---- messages ---- */

static bool keep_cdc(event_stream *es, uint32_t si, const smcr_trace_msg *m)
{
	switch (es->o.cdc) {
	case OBS_CDC_ALL:
		return true;
	case OBS_CDC_NONE:
		return false;
	case OBS_CDC_EVERY:
		break;
	}
	uint64_t key = (uint64_t)si << 40 ^ m->conn_id << 1 ^ (m->outbound ? 1u : 0u);
	uint64_t *n = g_hash_table_lookup(es->cdc_counts, &key);
	if (!n) {
		uint64_t *k = g_new(uint64_t, 1);
		*k = key;
		n = g_new0(uint64_t, 1);
		g_hash_table_insert(es->cdc_counts, k, n);
	}
	bool keep = *n % es->o.cdc_every == 0 || obs_cdc_is_notable(m->data, m->len);
	(*n)++;
	return keep;
}

static void on_message(void *ctx, world *w, uint32_t si, const smcr_trace_msg *m)
{
	event_stream *es = ctx;
	(void)w;
	if (m->proto == SMCR_TRACE_CDC && !keep_cdc(es, si, m))
		return;
	obs_lgr g;
	obs_link l;
	obs_conn c;
	obs_ident_lgr(es->id, si, m->lgr_id, &g);
	obs_ident_link(es->id, si, m->link_id, &l);
	obs_ident_conn(es->id, si, m->conn_id, &c);
	if (!l.known && !g.known && c.known)
		g.peer = c.peer;
	json_writer j;
	line_begin(es, &j, obs_proto_name(m->proto), si);
	json_kv_str(&j, "dir", m->outbound ? "out" : "in");
	kv_link(es, &j, &g, &l);
	kv_conn(&j, &c);
	char sum[96];
	obs_msg_summary(m->proto, m->data, m->len, sum, sizeof(sum));
	json_kv_str(&j, "summary", sum);
	json_key(&j, "fields");
	json_begin_object(&j);
	obs_msg_fields_json(&j, m->proto, m->data, m->len);
	json_end_object(&j);
	line_end(es, &j);
}

/* ---- core events ---- */

static void link_line(event_stream *es, uint32_t si, const char *what, const smcr_link_info *li, bool has_code,
                      uint32_t code, const char *reason)
{
	obs_link l;
	obs_lgr g = { false, 0, OBS_NONE };
	obs_ident_link_info(es->id, si, li, &l);
	json_writer j;
	line_begin(es, &j, "link", si);
	json_kv_str(&j, "what", what);
	kv_link(es, &j, &g, &l);
	json_kv_str(&j, "interface", l.port_name);
	json_kv_hex(&j, "local_qpn", l.local_qpn, 6);
	json_kv_hex(&j, "remote_qpn", l.remote_qpn, 6);
	kv_hex_or_null(&j, "code", has_code, code, 8);
	json_kv_str(&j, "reason", reason);
	line_end(es, &j);
}

static void lgr_line(event_stream *es, uint32_t si, const char *what, uint64_t lgr_id, const char *type,
                     bool has_code, uint32_t code, const char *reason)
{
	obs_lgr g;
	obs_ident_lgr(es->id, si, lgr_id, &g);
	json_writer j;
	line_begin(es, &j, "lgr", si);
	json_kv_str(&j, "what", what);
	kv_stack(es, &j, "peer", g.peer);
	kv_hex_or_null(&j, "lgr_id", g.known, g.num, 8);
	json_kv_str(&j, "type", type);
	kv_hex_or_null(&j, "code", has_code, code, 8);
	json_kv_str(&j, "reason", reason);
	line_end(es, &j);
}

static void note_line(event_stream *es, uint32_t si, const char *what, const smcr_event *ev)
{
	obs_lgr g;
	obs_ident_lgr(es->id, si, ev->lgr_id, &g);
	char text[256] = "";
	if (ev->decode_err) {
		char e[200];
		smcr_decode_err_format(ev->decode_err, e, sizeof(e));
		snprintf(text, sizeof(text), "%s%s%s", ev->text ? ev->text : "", ev->text ? ": " : "", e);
	} else if (ev->text) {
		snprintf(text, sizeof(text), "%s", ev->text);
	}
	json_writer j;
	line_begin(es, &j, "note", si);
	json_kv_str(&j, "what", what);
	kv_stack(es, &j, "peer", g.peer);
	kv_hex_or_null(&j, "lgr_id", g.known, g.num, 8);
	json_kv_str(&j, "text", text);
	line_end(es, &j);
}

static void conn_state_line(event_stream *es, uint32_t si, const smcr_event *ev);

static void on_core_event(void *ctx, world *w, uint32_t si, const smcr_event *ev)
{
	event_stream *es = ctx;
	(void)w;
	char reason[192];
	switch (ev->type) {
	case SMCR_EV_LINK_ADDED:
		if (ev->link)
			link_line(es, si, "active", ev->link, false, 0, NULL);
		return;
	case SMCR_EV_LINK_DOWN:
		if (ev->link)
			link_line(es, si, ev->link->peer_link_uid ? "failed" : "setup_failed", ev->link, ev->reason != 0,
			          ev->reason, smcr_linkdown_reason_text(ev->linkdown));
		return;
	case SMCR_EV_LINK_REMOVED:
		if (ev->link)
			link_line(es, si, "removed", ev->link, false, 0, ev->text ? ev->text : "link removed");
		return;
	case SMCR_EV_LGR_CREATED:
		lgr_line(es, si, "created", ev->lgr_id, NULL, false, 0, NULL);
		return;
	case SMCR_EV_LGR_TYPE:
		lgr_line(es, si, "type", ev->lgr_id, report_lgr_type_name((report_lgr_type)ev->lgr_type), false, 0, NULL);
		return;
	case SMCR_EV_LGR_TERMINATED:
		snprintf(reason, sizeof(reason), "%s%s%s", smcr_lgr_end_text(ev->lgr_end), ev->text ? ": " : "",
		         ev->text ? ev->text : "");
		lgr_line(es, si, "terminated", ev->lgr_id, NULL, ev->reason != 0, ev->reason, reason);
		return;
	case SMCR_EV_LGR_FREED:
		lgr_line(es, si, "freed", ev->lgr_id, NULL, false, 0, NULL);
		return;
	case SMCR_EV_ADD_LINK_REJECTED:
		note_line(es, si, "add_link_rejected", ev);
		return;
	case SMCR_EV_DECODE_ERROR:
		note_line(es, si, "decode_error", ev);
		return;
	case SMCR_EV_LLC_DROPPED:
		note_line(es, si, "llc_dropped", ev);
		return;
	case SMCR_EV_LLC_PROTOCOL_VIOLATION:
		note_line(es, si, "llc_protocol_violation", ev);
		return;
	case SMCR_EV_CONN_STATE:
		conn_state_line(es, si, ev);
		return;
	}
}

/* ---- connections ---- */

/* The keys every conn line has, after "what". */
static void conn_keys(event_stream *es, json_writer *j, uint32_t si, const obs_conn *c, const char *role,
                      const char *state, const char *mode, uint64_t core_lgr, uint64_t core_link, uint8_t version)
{
	obs_lgr g;
	obs_link l;
	obs_ident_lgr(es->id, si, core_lgr, &g);
	obs_ident_link(es->id, si, core_link, &l);
	json_kv_str(j, "conn", c->known && c->name[0] ? c->name : NULL);
	json_kv_str(j, "role", role);
	kv_stack(es, j, "peer", c->peer);
	kv_uint_or_null(j, "conn_id", c->known && c->conn_id, c->conn_id);
	/* a connect that failed early has no local port yet, but it had a target */
	kv_addr(j, "local", c->known && c->local_port, c->local_ip, c->local_port);
	kv_addr(j, "remote", c->known && c->peer_port, c->peer_ip, c->peer_port);
	json_kv_str(j, "state", state);
	json_kv_str(j, "mode", mode);
	kv_uint_or_null(j, "smc_version", version != 0, version);
	kv_hex_or_null(j, "lgr_id", g.known, g.num, 8);
	kv_hex_or_null(j, "local_link_id", l.known, l.local_id, 8);
}

static void conn_state_line(event_stream *es, uint32_t si, const smcr_event *ev)
{
	obs_conn c;
	obs_ident_conn(es->id, si, ev->conn_id, &c);
	json_writer j;
	line_begin(es, &j, "conn", si);
	json_kv_str(&j, "what", "state");
	conn_keys(es, &j, si, &c, c.known ? (c.server ? "server" : "client") : NULL,
	          report_conn_state_name((report_conn_state)ev->conn_state), NULL, ev->lgr_id, 0, 0);
	kv_hex_or_null(&j, "fallback_reason", false, 0, 8);
	json_kv_str(&j, "fallback_name", NULL);
	kv_hex_or_null(&j, "peer_diagnosis", false, 0, 8);
	kv_uint_or_null(&j, "bytes_sent", false, 0);
	kv_uint_or_null(&j, "bytes_received", false, 0);
	json_kv_str(&j, "error", NULL);
	json_kv_str(&j, "connect", NULL);
	json_kv_str(&j, "cause", NULL);
	line_end(es, &j);
}

static void kv_dist(json_writer *j, const char *key, const app_hist *h)
{
	json_key(j, key);
	if (!h->count) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_kv_uint(j, "count", h->count);
	for (int s = 0; s < APP_NSTATS; s++)
		json_kv_uint(j, app_stat_key((app_stat)s), app_hist_stat(h, (app_stat)s));
	json_end_object(j);
}

/* What a connection (when it ended) or an application (at the end) measured. */
static void result_line(event_stream *es, uint32_t si, const char *what, const char *app, const char *conn,
                        const app_totals *t)
{
	json_writer j;
	line_begin(es, &j, "result", si);
	json_kv_str(&j, "what", what);
	json_kv_str(&j, "app", app);
	json_kv_str(&j, "conn", conn);
	json_kv_uint(&j, "conns", t->conns);
	json_kv_uint(&j, "completed", t->done);
	json_kv_uint(&j, "failed", t->failed);
	json_kv_uint(&j, "ops", t->ops);
	json_kv_uint(&j, "bytes_sent", t->bytes_sent);
	json_kv_uint(&j, "bytes_received", t->bytes_received);
	json_kv_uint(&j, "throughput_bps", app_totals_throughput(t));
	kv_dist(&j, "latency", &t->lat);
	kv_dist(&j, "connect", &t->connect);
	kv_dist(&j, "fct", &t->fct);
	line_end(es, &j);
}

static void on_conn(void *ctx, world *w, world_conn_what what, const world_conn_view *v)
{
	event_stream *es = ctx;
	obs_conn c;
	uint64_t lgr = 0, link = 0;
	uint8_t version = 0;
	obs_ident_end(es->id, v, &c, &lgr, &link, &version);
	bool opened = what == WORLD_CONN_OPENED;
	bool smc = v->connected && v->mode == SOCK_MODE_SMCR;
	bool not_connected = !v->server && v->connect != WORLD_CONNECT_OK;
	if (not_connected && !c.known) { /* it never had a 4-tuple: its name and target */
		c.known = true;
		snprintf(c.name, sizeof(c.name), "%s", v->name);
		c.peer_ip = v->peer_ip;
		c.peer_port = v->peer_port;
	}
	json_writer j;
	line_begin(es, &j, "conn", v->stack);
	json_kv_str(&j, "what", opened                         ? "opened"
	                        : what == WORLD_CONN_PENDING ? "pending"
	                        : v->err                     ? "failed"
	                                                     : "closed");
	conn_keys(es, &j, v->stack, &c, v->server ? "server" : "client", NULL, v->connected ? sock_mode_word(v->mode) : NULL,
	          smc ? lgr : 0, smc ? link : 0, smc ? version : 0);
	bool fb = v->connected && v->mode == SOCK_MODE_FALLBACK;
	kv_hex_or_null(&j, "fallback_reason", fb, v->fallback_reason, 8);
	json_kv_str(&j, "fallback_name", fb ? smcr_decline_name(v->fallback_reason) : NULL);
	kv_hex_or_null(&j, "peer_diagnosis", fb && v->peer_diagnosis, v->peer_diagnosis, 8);
	kv_uint_or_null(&j, "bytes_sent", !opened, v->sent);
	kv_uint_or_null(&j, "bytes_received", !opened, v->received);
	json_kv_str(&j, "error", v->err ? strerror(-v->err) : NULL);
	json_kv_str(&j, "connect", v->server ? NULL : world_connect_kind_name(v->connect));
	json_kv_str(&j, "cause", not_connected ? v->cause : NULL);
	line_end(es, &j);
	if (!opened && !v->server && v->af) {
		app_totals t = { 0 };
		app_totals_add(&t, v->af, false);
		result_line(es, v->stack, "conn", world_scenario(w)->apps[v->app].name, v->name, &t);
		app_totals_free(&t);
	}
}

/* ---- the timeline and expectations ---- */

static void on_timeline(void *ctx, world *w, const scn_event *ev)
{
	event_stream *es = ctx;
	const char *verb = obs_timeline_verb(ev);
	if (!verb)
		return;
	char target[128];
	scn_event_target_text(world_scenario(w), ev, target, sizeof(target));
	json_writer j;
	line_begin(es, &j, "timeline", OBS_NONE);
	json_kv_str(&j, "what", verb);
	json_kv_str(&j, "target", target);
	json_kv_str(&j, "file", world_scenario(w)->file);
	json_kv_uint(&j, "line", ev->loc.line);
	line_end(es, &j);
}

static void on_expect(void *ctx, world *w, const scn_expect *x, bool ok, const char *detail)
{
	event_stream *es = ctx;
	char text[256];
	if (ok)
		es->passed++;
	else
		es->failed++;
	scn_format_expect(world_scenario(w), x, text, sizeof(text));
	json_writer j;
	line_begin(es, &j, "expect", OBS_NONE);
	json_kv_bool(&j, "ok", ok);
	json_kv_str(&j, "expect", text);
	json_kv_str(&j, "detail", detail);
	json_kv_str(&j, "file", world_scenario(w)->file);
	json_kv_uint(&j, "line", x->loc.line);
	line_end(es, &j);
}

/* ---- start and end ---- */

static void start_line(event_stream *es)
{
	const scn_scenario *s = world_scenario(es->w);
	json_writer j;
	line_begin(es, &j, "start", OBS_NONE);
	json_kv_str(&j, "format", "smcr-events");
	json_kv_uint(&j, "version", 1);
	json_kv_str(&j, "scenario", s->file);
	json_kv_str(&j, "title", s->title);
	json_kv_uint(&j, "seed", es->o.seed);
	json_key(&j, "stacks");
	json_begin_array(&j);
	for (size_t i = 0; i < s->n_stacks; i++)
		json_string(&j, s->stacks[i].name);
	json_end_array(&j);
	line_end(es, &j);
}

static void on_finish(void *ctx, world *w)
{
	event_stream *es = ctx;
	const scn_scenario *s = world_scenario(w);
	for (uint32_t i = 0; i < s->n_apps; i++) {
		app_totals t;
		world_app_totals_by_name(w, s->apps[i].name, &t);
		result_line(es, (uint32_t)s->apps[i].stack, "app", s->apps[i].name, NULL, &t);
		app_totals_free(&t);
	}
	json_writer j;
	line_begin(es, &j, "end", OBS_NONE);
	json_kv_uint(&j, "end_ns", sim_now(world_engine(es->w)));
	json_kv_uint(&j, "engine_events", world_events(es->w));
	json_kv_uint(&j, "expectations_passed", es->passed);
	json_kv_uint(&j, "expectations_failed", es->failed);
	char fp[24];
	snprintf(fp, sizeof(fp), "%016" PRIx64, world_fingerprint(es->w));
	json_kv_str(&j, "fingerprint", fp);
	line_end(es, &j);
}

/* ---- the object ---- */

event_stream *event_stream_new(FILE *out, world *w, obs_ident *id, const event_stream_opts *o)
{
	event_stream *es = g_new0(event_stream, 1);
	es->out = out;
	es->w = w;
	es->id = id;
	es->o = *o;
	es->cdc_counts = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	start_line(es);
	return es;
}

void event_stream_observer(event_stream *es, world_observer *obs)
{
	memset(obs, 0, sizeof(*obs));
	obs->ctx = es;
	obs->message = on_message;
	obs->core_event = on_core_event;
	obs->conn = on_conn;
	obs->timeline = on_timeline;
	obs->expect = on_expect;
	obs->finish = on_finish;
}

uint64_t event_stream_lines(const event_stream *es) { return es->lines; }

void event_stream_free(event_stream *es)
{
	if (!es)
		return;
	g_hash_table_destroy(es->cdc_counts);
	g_free(es);
}
