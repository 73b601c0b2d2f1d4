/* Running a world: the loop over virtual time, the timeline's events, expectations, the
 * event log and the closing summary. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/clc.h"
#include "sim/fabric/endpoint.h"
#include "sim/report/report_print.h"
#include "sim/world/world_int.h"

/* ---- log lines ---- */

void world_log_prefix(world *w, FILE *out)
{
	sim_time t = sim_now(w->eng);
	fprintf(out, "[%4" PRIu64 ".%09" PRIu64 "] ", (uint64_t)(t / SIM_S), (uint64_t)(t % SIM_S));
}

/* ---- link group metrics ---- */

typedef struct lgr_count {
	const uint8_t *peer_sysid;
	GHashTable *lgr_ids; /* the counted groups, to find a link's (every one, however many) */
	size_t n;
	uint64_t conns;
	uint64_t links;
} lgr_count;

static void count_lgr(void *arg, const smcr_lgr_info *li)
{
	lgr_count *c = arg;
	if (li->terminating || memcmp(li->peer_system_id, c->peer_sysid, 8))
		return;
	g_hash_table_add(c->lgr_ids, g_memdup2(&li->id, sizeof(li->id)));
	c->n++;
	c->conns += li->conns_num;
}

static void count_link(void *arg, const smcr_link_info *li)
{
	lgr_count *c = arg;
	if (li->state == SMCR_LNK_ACTIVE && g_hash_table_contains(c->lgr_ids, &li->lgr_id))
		c->links++;
}

static uint64_t lgr_metric(world *w, scn_metric m, uint32_t a, uint32_t b)
{
	smc_layer *la = w->st[a].l, *lb = w->st[b].l;
	if (!la || !lb)
		return 0;
	lgr_count c;
	memset(&c, 0, sizeof(c));
	c.peer_sysid = smcr_ctx_system_id(smc_layer_ctx(lb));
	c.lgr_ids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	smcr_ctx_foreach_lgr(smc_layer_ctx(la), count_lgr, &c);
	if (m == SCN_M_LINKS)
		smcr_ctx_foreach_link(smc_layer_ctx(la), count_link, &c);
	g_hash_table_destroy(c.lgr_ids);
	return m == SCN_M_LINKGROUPS ? c.n : m == SCN_M_CONNS ? c.conns : c.links;
}

/* ---- expectations ---- */

static bool mode_matches(const world_end *e, const scn_expect *x)
{
	if (!e->connected)
		return false;
	bool same;
	switch (x->mode) {
	case SCN_MODE_SMCR:
		same = e->mode == SOCK_MODE_SMCR;
		break;
	case SCN_MODE_TCP:
		same = e->mode == SOCK_MODE_TCP;
		break;
	case SCN_MODE_FALLBACK:
	default:
		same = e->mode == SOCK_MODE_FALLBACK && (!x->has_reason || e->reason == x->reason);
		break;
	}
	return same;
}

static void describe_mode(const world *w, const world_end *e, char *buf, size_t len)
{
	if (!e->connected && !e->server) {
		char cause[200];
		world_connect_cause(w, world_flow_of(e), cause, sizeof(cause));
		snprintf(buf, len, "not connected (%s)", cause);
	} else if (!e->connected) {
		snprintf(buf, len, "not connected%s", e->err ? " (failed)" : "");
	} else if (e->mode == SOCK_MODE_FALLBACK && world_end_peer_diag(e)) {
		snprintf(buf, len, "FALLBACK reason=0x%08" PRIx32 " (%s) peer diagnosis 0x%08" PRIx32 " (%s)", e->reason,
		         smcr_decline_name(e->reason), world_end_peer_diag(e), smcr_decline_name(world_end_peer_diag(e)));
	} else if (e->mode == SOCK_MODE_FALLBACK) {
		snprintf(buf, len, "FALLBACK reason=0x%08" PRIx32 " (%s)", e->reason, smcr_decline_name(e->reason));
	} else {
		snprintf(buf, len, "%s", sock_mode_word(e->mode));
	}
}

/* mode: holds if it holds for every connection (and there is one) */
static bool check_mode(world *w, const scn_expect *x, char *detail, size_t dlen)
{
	const scn_app *a = &w->scn->apps[x->app.app];
	bool client = a->role == SCN_ROLE_CONNECT;
	uint64_t n = 0, bad = 0;
	char first[256] = "";
	uint32_t first_inst = 0;
	const world_app *wa = &w->apps[x->app.app];
	for (size_t i = 0; i < wa->n_flows; i++) {
		const world_flow *f = wa->flows[i];
		if (client ? f->app != x->app.app : f->listener != x->app.app)
			continue;
		if (x->app.instance && f->instance != x->app.instance)
			continue;
		const world_end *e = client ? &f->af.c : &f->af.srv;
		n++;
		bool same = mode_matches(e, x);
		bool ok = x->cmp == SCN_CMP_NE ? (e->connected && !same) : same;
		if (!ok && !bad++) {
			describe_mode(w, e, first, sizeof(first));
			first_inst = f->instance;
		}
	}
	if (!n) {
		snprintf(detail, dlen, "no connection");
		return false;
	}
	if (bad)
		snprintf(detail, dlen, "%" PRIu64 " of %" PRIu64 " connections differ; %s.%u is %s", bad, n, a->name,
		         first_inst, first);
	else
		snprintf(detail, dlen, "%" PRIu64 " connection%s", n, n == 1 ? "" : "s");
	return bad == 0;
}

static uint64_t count_ends(world *w, const scn_expect *x)
{
	uint64_t n = 0;
	for (size_t i = 0; i < w->n_flows; i++) {
		const world_flow *f = w->flows[i];
		const world_end *ends[2] = { &f->af.c, &f->af.srv };
		for (int k = 0; k < 2; k++) {
			const world_end *e = ends[k];
			if (k == 1 && !f->srv_seen)
				continue;
			if (x->stack_a != SCN_NONE && world_end_stack(e) != x->stack_a)
				continue;
			if (x->metric == SCN_M_ABORTED) {
				n += e->err != 0;
			} else if (e->connected && e->mode == SOCK_MODE_FALLBACK &&
			           (!x->has_reason || e->reason == x->reason)) {
				n++;
			}
		}
	}
	return n;
}

uint64_t world_measure(world *w, const scn_expect *x, char *detail, size_t dlen)
{
	uint64_t v = 0;
	switch (x->metric) {
	case SCN_M_LINKGROUPS:
	case SCN_M_LINKS:
	case SCN_M_CONNS:
		v = lgr_metric(w, x->metric, x->stack_a, x->stack_b);
		break;
	case SCN_M_SENT:
	case SCN_M_DELIVERED:
	case SCN_M_RECEIVED:
		v = world_app_counter(w, x->metric, x->app);
		break;
	case SCN_M_ABORTED:
	case SCN_M_FALLBACK:
		v = count_ends(w, x);
		break;
	case SCN_M_MODE:
		return check_mode(w, x, detail, dlen) ? 1 : 0;
	case SCN_M_OPS:
	case SCN_M_LATENCY:
	case SCN_M_CONNECT:
	case SCN_M_FCT:
	case SCN_M_THROUGHPUT:
	case SCN_M_CPU:
		world_result_measure(w, x, &v, detail, dlen);
		return v;
	}
	snprintf(detail, dlen, "measured %" PRIu64, v);
	return v;
}

static void record_failure(world *w, const scn_expect *x, const char *text, const char *detail)
{
	if (!w->failures) {
		w->failures = g_array_new(FALSE, FALSE, sizeof(world_failure));
		w->failure_text = g_string_chunk_new(1024);
	}
	world_failure f = {
		.line = x->loc.line,
		.at_ns = sim_now(w->eng),
		.expect = g_string_chunk_insert(w->failure_text, text),
		.detail = g_string_chunk_insert(w->failure_text, detail),
	};
	g_array_append_val(w->failures, f);
}

void world_foreach_failure(const world *w, void (*fn)(void *arg, const world_failure *f), void *arg)
{
	for (guint i = 0; w->failures && i < w->failures->len; i++)
		fn(arg, &g_array_index(w->failures, world_failure, i));
}

bool world_over_budget(const world *w)
{
	return w->over_budget;
}

uint64_t world_expectations_passed(const world *w)
{
	return w->expect_passed;
}

static void check_expect(world *w, const scn_expect *x)
{
	char detail[400], text[256];
	uint64_t v = 0;
	/* a result with nothing to measure (no transaction, no connection) fails */
	bool measured = world_metric_is_result(x->metric) ? world_result_measure(w, x, &v, detail, sizeof(detail)) : true;
	if (!world_metric_is_result(x->metric))
		v = world_measure(w, x, detail, sizeof(detail));
	bool ok;
	if (x->metric == SCN_M_MODE) {
		ok = v == 1;
	} else if (!measured) {
		ok = false;
	} else {
		uint64_t rhs = x->value;
		if (x->rhs == SCN_RHS_COUNTER) {
			rhs = world_app_counter(w, x->rhs_metric, x->rhs_app);
			size_t l = strlen(detail);
			snprintf(detail + l, sizeof(detail) - l, ", right side %" PRIu64, rhs);
		}
		ok = scn_cmp_holds(x->cmp, v, rhs);
	}
	scn_format_expect(w->scn, x, text, sizeof(text));
	world_obs_expect(w, x, ok, detail);
	if (ok) {
		w->expect_passed++;
		if (w->o.verbose && !w->o.json) {
			world_log_prefix(w, w->out);
			fprintf(w->out, "%s:%u: ok: %s (%s)\n", w->scn->file, x->loc.line, text, detail);
		}
	} else {
		w->expect_failed++;
		record_failure(w, x, text, detail);
		fprintf(w->o.json ? stderr : w->out, "%s:%u: expectation failed: %s (%s)\n", w->scn->file, x->loc.line, text,
		        detail);
	}
	if (w->o.json) {
		json_begin_object(&w->json);
		json_kv_str(&w->json, "file", w->scn->file);
		json_kv_uint(&w->json, "line", x->loc.line);
		json_kv_uint(&w->json, "time_ns", sim_now(w->eng));
		json_kv_str(&w->json, "expect", text);
		json_kv_bool(&w->json, "ok", ok);
		json_kv_str(&w->json, "detail", detail);
		json_end_object(&w->json);
	}
}

/* ---- timeline actions ---- */

static void apply_set(sim_wire *wire, const scn_event *ev)
{
	sim_wire_params p = *sim_wire_params_get(wire);
	const scn_link_params *s = &ev->set;
	if (ev->set_mask & SCN_SET_LATENCY)
		p.latency = s->latency_ns;
	if (ev->set_mask & SCN_SET_BANDWIDTH)
		p.bandwidth_bps = s->bandwidth_bps;
	if (ev->set_mask & SCN_SET_LOSS)
		p.loss = s->loss;
	if (ev->set_mask & SCN_SET_DUP)
		p.duplicate = s->dup;
	if (ev->set_mask & SCN_SET_REORDER)
		p.reorder = s->reorder;
	if (ev->set_mask & SCN_SET_CORRUPT)
		p.corrupt = s->corrupt;
	sim_wire_set_params(wire, &p);
}

static void adapter_port_up(world *w, uint32_t a, uint8_t p, bool up)
{
	world_adapter *wa = &w->ad[a];
	sim_endpoint_set_admin(rnic_port_endpoint(wa->r, (uint8_t)(p + 1)), up);
	sim_wire_set_up(wa->wire[p], up);
}

static void adapter_apply(world *w, uint32_t a)
{
	world_adapter *wa = &w->ad[a];
	for (uint8_t p = 0; p < w->scn->adapters[a].n_ports; p++)
		adapter_port_up(w, a, p, !wa->failed && !wa->port_failed[p]);
}

static void do_fail_restore(world *w, const scn_event *ev, bool fail)
{
	switch (ev->target_kind) {
	case SCN_TGT_ADAPTER:
		if (w->rt) {
			/* a real device: its QPs of the stacks that use it, and their port events */
			for (size_t i = 0; i < w->scn->n_stacks; i++)
				if (w->st[i].l)
					smc_layer_real_fail(w->st[i].l, w->scn->adapters[ev->target].pfid, ev->port, fail);
			break;
		}
		if (ev->port)
			w->ad[ev->target].port_failed[ev->port - 1] = fail;
		else
			w->ad[ev->target].failed = fail;
		adapter_apply(w, ev->target);
		break;
	case SCN_TGT_WIRE:
		sim_wire_set_up(w->trunks[ev->target], !fail);
		break;
	case SCN_TGT_SWITCH:
		if (fail)
			sim_switch_fail(w->sw[ev->target]);
		else
			sim_switch_restore(w->sw[ev->target]);
		break;
	case SCN_TGT_INTERFACE: {
		world_iface *wi = &w->st[ev->stack].ifs[ev->target];
		wi->failed = fail;
		netif_set_up(wi->nif, !fail);
		sim_endpoint_set_admin(&wi->port.ep, !fail);
		break;
	}
	case SCN_TGT_NONE:
	case SCN_TGT_APP:
		break;
	}
}

static void do_set(world *w, const scn_event *ev)
{
	switch (ev->target_kind) {
	case SCN_TGT_ADAPTER:
		for (uint8_t p = 0; p < w->scn->adapters[ev->target].n_ports; p++)
			if (!ev->port || ev->port == p + 1)
				apply_set(w->ad[ev->target].wire[p], ev);
		break;
	case SCN_TGT_WIRE:
		apply_set(w->trunks[ev->target], ev);
		break;
	case SCN_TGT_INTERFACE:
		apply_set(w->st[ev->stack].ifs[ev->target].wire, ev);
		break;
	case SCN_TGT_NONE:
	case SCN_TGT_SWITCH:
	case SCN_TGT_APP:
		break;
	}
}

static void run_timeline_event(world *w, const scn_event *ev)
{
	char what[96];
	scn_event_target_text(w->scn, ev, what, sizeof(what));
	const char *verb = NULL;
	switch (ev->kind) {
	case SCN_EV_FAIL:
		verb = "fail";
		do_fail_restore(w, ev, true);
		break;
	case SCN_EV_RESTORE:
		verb = "restore";
		do_fail_restore(w, ev, false);
		break;
	case SCN_EV_SET:
		verb = "set";
		do_set(w, ev);
		break;
	case SCN_EV_START_APP:
		verb = "start";
		world_app_start(w, ev->target);
		break;
	case SCN_EV_STOP_APP:
		verb = "stop";
		world_app_stop(w, ev->target);
		break;
	case SCN_EV_REPORT:
		if (!w->o.quiet)
			world_report_snapshot(w, &ev->report, "timeline");
		return;
	case SCN_EV_EXPECT:
		check_expect(w, &w->scn->expects[ev->expect]);
		return;
	}
	world_obs_timeline(w, ev);
	if (w->o.verbose && !w->o.json) {
		world_log_prefix(w, w->out);
		fprintf(w->out, "timeline: %s %s (%s:%u)\n", verb, what, w->scn->file, ev->loc.line);
	}
}

/* ---- the loop ---- */

/* "  virtual 1.250 s of 60.000 s (2%), 1.84 M events/s, ETA 1m12s" (the rest of virtual
 * time at the pace of the last second): wall-clock figures, on a terminal only (cmd_run
 * gives a stream only then), never part of the output. */
static void progress(world *w, bool last)
{
	if (!w->o.progress)
		return;
	double now = world_wall_seconds();
	if (!last && now - w->wall_last_progress < 1.0)
		return;
	double dt = now - w->wall_last_progress;
	uint64_t ev = sim_engine_events_run(w->eng);
	if (now - w->wall_start >= 2.0) {
		sim_time t = sim_now(w->eng);
		char pct[64] = "", eta[48] = "";
		if (w->has_end && w->end_ns) {
			snprintf(pct, sizeof(pct), " of %" PRIu64 ".%03" PRIu64 " s (%u%%)", (uint64_t)(w->end_ns / SIM_S),
			         (uint64_t)((w->end_ns % SIM_S) / SIM_MS), (unsigned)(t >= w->end_ns ? 100 : t * 100 / w->end_ns));
			/* the rest of virtual time at the pace of the last second */
			if (!last && t > w->progress_vt && t < w->end_ns) {
				uint64_t left = (uint64_t)(dt * (double)(w->end_ns - t) / (double)(t - w->progress_vt));
				if (left >= 3600)
					snprintf(eta, sizeof(eta), ", ETA %" PRIu64 "h%02" PRIu64 "m", left / 3600, left / 60 % 60);
				else
					snprintf(eta, sizeof(eta), ", ETA %" PRIu64 "m%02" PRIu64 "s", left / 60, left % 60);
			}
		} else {
			snprintf(pct, sizeof(pct), " (no end: until idle)");
		}
		fprintf(w->o.progress, "\r  virtual %" PRIu64 ".%03" PRIu64 " s%s, %.2f M events/s%s\033[K%s",
		        (uint64_t)(t / SIM_S), (uint64_t)((t % SIM_S) / SIM_MS), pct,
		        dt > 0 ? (double)(ev - w->progress_events) / dt / 1e6 : 0.0, eta, last ? "\n" : "");
		fflush(w->o.progress);
	}
	w->wall_last_progress = now;
	w->progress_events = ev;
	w->progress_vt = sim_now(w->eng);
}

static void count_conn(void *arg, const smc_layer_conn *c)
{
	(void)c;
	(*(size_t *)arg)++;
}

/* --real-hw: is everything done? Checked every 20 ms of wall time. */
#define DONE_CHECK_NS (20 * SIM_MS)

static bool layers_idle(const world *w)
{
	for (size_t i = 0; i < w->scn->n_stacks; i++) {
		const smc_layer *l = w->st[i].l;
		if (l) {
			size_t n = 0;
			smc_layer_foreach_conn(l, count_conn, &n);
			if (n)
				return false;
		}
	}
	return true;
}

static void on_done_check(sim_engine *eng, sim_event *ev)
{
	world *w = ev->ctx;
	if (w->next_timeline == w->scn->n_events && world_apps_done(w) && layers_idle(w)) {
		w->done = true;
		sim_realtime_quit(w->rt);
		return;
	}
	sim_event_schedule(eng, ev, sim_now(eng) + DONE_CHECK_NS);
}

/* Run the engine until `t` (inclusive), in slices so a progress line can be shown; in
 * real time with --real-hw. */
static sim_run_result run_engine_slices(world *w, sim_time t)
{
	if (w->rt) {
		if (w->done)
			return SIM_RUN_STOPPED;
		sim_realtime_result r = sim_realtime_run(w->rt, t);
		return r == SIM_RT_QUIT || r == SIM_RT_STOPPED ? SIM_RUN_STOPPED : SIM_RUN_TIME;
	}
	/* slices: a progress line now and then, the caller's poll hook more often; the
	 * trajectory does not depend on where a slice ends */
	uint64_t slice = w->o.poll || w->o.max_events ? WORLD_POLL_EVENTS : w->o.progress ? 500000
	                                                                                  : 0;
	for (;;) {
		if (w->over_budget)
			return SIM_RUN_STOPPED;
		sim_run_result r = sim_engine_run(w->eng, t, slice);
		if (w->o.max_events && sim_engine_events_run(w->eng) >= w->o.max_events)
			w->over_budget = true;
		if (r != SIM_RUN_COUNT)
			return r;
		if (w->o.poll)
			w->o.poll(w->o.poll_arg);
		if (w->o.progress && ++w->progress_slices * slice >= 500000) {
			w->progress_slices = 0;
			progress(w, false);
		}
	}
}

/* The same, stopping at the observer's sample times on the way. */
static sim_run_result run_engine(world *w, sim_time t)
{
	for (sim_time s; (s = world_obs_next_sample(w)) <= t;) {
		sim_run_result r = run_engine_slices(w, s);
		if (r == SIM_RUN_STOPPED)
			return r;
		world_obs_sample(w, s, r == SIM_RUN_IDLE, t);
	}
	return run_engine_slices(w, t);
}

void world_run_until(world *w, sim_time t)
{
	const scn_scenario *s = w->scn;
	if (w->wall_start == 0) {
		w->wall_start = w->wall_last_progress = world_wall_seconds();
		if (w->o.json && !w->json_open) {
			json_init(&w->json, w->out, true);
			json_begin_object(&w->json);
			json_kv_str(&w->json, "format", "smcr-run");
			json_kv_uint(&w->json, "version", 1);
			json_kv_str(&w->json, "scenario", s->file);
			json_kv_str(&w->json, "title", s->title);
			json_kv_uint(&w->json, "seed", w->seed);
			json_key(&w->json, "timeline");
			json_begin_array(&w->json);
			w->json_open = true;
		}
		if (w->rt) {
			sim_event_init(&w->done_check, sim_kind("world.done"), 0, on_done_check, w);
			sim_event_schedule(w->eng, &w->done_check, sim_now(w->eng) + DONE_CHECK_NS);
		}
	}
	while (w->next_timeline < s->n_events && s->events[w->next_timeline].at_ns <= t) {
		const scn_event *ev = &s->events[w->next_timeline];
		sim_run_result r = run_engine(w, ev->at_ns);
		if (r == SIM_RUN_STOPPED && (w->rt || w->over_budget))
			return; /* real time: interrupted; or out of events */
		w->next_timeline++;
		if (r == SIM_RUN_IDLE && sim_now(w->eng) < ev->at_ns)
			sim_engine_advance(w->eng, ev->at_ns);
		run_timeline_event(w, ev);
	}
	if (run_engine(w, t) == SIM_RUN_IDLE && sim_now(w->eng) < t && w->has_end && !w->over_budget)
		sim_engine_advance(w->eng, t);
}

uint64_t world_finish(world *w)
{
	const scn_scenario *s = w->scn;
	if (w->finished)
		return w->expect_failed;
	w->finished = true;
	if (w->rt)
		sim_event_cancel(w->eng, &w->done_check);
	progress(w, true);
	world_log_pending_connects(w);
	for (size_t i = 0; i < s->n_expects; i++)
		if (!s->expects[i].timed)
			check_expect(w, &s->expects[i]);
	world_obs_finish(w);
	if (w->o.json) {
		json_end_array(&w->json);
		json_key(&w->json, "reports");
		json_begin_array(&w->json);
	}
	if (!w->o.quiet)
		for (size_t i = 0; i < s->n_reports; i++)
			world_report_snapshot(w, &s->reports[i], "end");
	sim_time t = sim_now(w->eng);
	if (w->o.json) {
		json_end_array(&w->json);
		world_json_connects(w, &w->json);
		world_json_congestion(w, &w->json);
		world_json_results(w, &w->json);
		json_kv_uint(&w->json, "end_ns", t);
		json_kv_uint(&w->json, "engine_events", sim_engine_events_run(w->eng));
		json_kv_uint(&w->json, "expectations_passed", w->expect_passed);
		json_kv_uint(&w->json, "expectations_failed", w->expect_failed);
		char fp[24];
		snprintf(fp, sizeof(fp), "%016" PRIx64, world_fingerprint(w));
		json_kv_str(&w->json, "fingerprint", fp);
		json_end_object(&w->json);
		json_finish(&w->json);
	} else if (!w->o.quiet) {
		world_print_congestion(w, w->out);
		world_print_results(w, w->out);
		uint64_t events = sim_engine_events_run(w->eng);
		fprintf(w->out, "\n%s: %" PRIu64 " expectation%s met, %" PRIu64 " failed; virtual time %" PRIu64 ".%09" PRIu64 " s, %" PRIu64 " event%s\n",
		        s->file, w->expect_passed, w->expect_passed == 1 ? "" : "s", w->expect_failed, (uint64_t)(t / SIM_S), (uint64_t)(t % SIM_S),
		        events, events == 1 ? "" : "s");
		fprintf(w->out, "fingerprint %016" PRIx64 "\n", world_fingerprint(w));
	}
	return w->expect_failed;
}

uint64_t world_run(world *w)
{
	world_run_until(w, w->end_ns);
	return world_finish(w);
}
