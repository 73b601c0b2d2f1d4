/* Observing a run (sim/observe/, sim/world/world_observer.h): the core's trace of every
 * message, the event stream, the statistics, and that watching changes nothing. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "sim/observe/event_stream.h"
#include "sim/observe/link_series.h"
#include "sim/observe/obs_ident.h"
#include "sim/observe/obs_mux.h"
#include "sim/observe/stats.h"
#include "tests/support/scn_world.h"

/* Two stacks, two adapter pairs on two switches, one bulk transfer, a failover. */
#define SCN                                                                                           \
	"end 2s\n"                                                                                    \
	"switch S1\nswitch S2\n"                                                                      \
	"adapter RA1 pfid=0011 switch=S1\nadapter RA2 pfid=0012 switch=S2\n"                          \
	"adapter RB1 pfid=0021 switch=S1\nadapter RB2 pfid=0022 switch=S2\n"                          \
	"stack A\n  interface e0 switch=S1 ip=10.0.0.1/24\n  interface e1 switch=S2 ip=10.0.1.1/24\n" \
	"  smcr pfid=0011\n  smcr pfid=0012\nend\n"                                                   \
	"stack B\n  interface e0 switch=S1 ip=10.0.0.2/24\n  interface e1 switch=S2 ip=10.0.1.2/24\n" \
	"  smcr pfid=0021\n  smcr pfid=0022\nend\n"                                                   \
	"app sink B listen port=5000 kind=sink\n"                                                     \
	"app bulk A connect B.e0:5000 kind=bulk bytes=4M conns=2\n"                                   \
	"at 20ms fail adapter RA1\n"                                                                  \
	"expect delivered bulk == sent bulk\n"

/* ---- the core's trace ---- */

typedef struct msg_count {
	uint64_t out[4], in[4];      /* by smcr_trace_proto */
	int first_proto, first_type; /* the first message: protocol and CLC type byte */
	bool first_out;
	uint64_t cdc_without_conn, llc_without_link;
} msg_count;

static void count_message(void *ctx, world *w, uint32_t si, const smcr_trace_msg *m)
{
	(void)w;
	(void)si;
	msg_count *c = ctx;
	if (!c->first_proto) {
		c->first_proto = m->proto;
		c->first_type = m->len > 4 ? m->data[4] : -1;
		c->first_out = m->outbound;
	}
	(m->outbound ? c->out : c->in)[m->proto]++;
	if (m->proto == SMCR_TRACE_CDC && !m->conn_id)
		c->cdc_without_conn++;
	if (m->proto == SMCR_TRACE_LLC && (!m->link_id || !m->lgr_id))
		c->llc_without_link++;
}

Test(observe, the_core_traces_every_message_once_each_way)
{
	msg_count c;
	memset(&c, 0, sizeof(c));
	world_observer ob = { .ctx = &c, .message = count_message };
	world_opts o;
	world_opts_default(&o);
	o.observer = &ob;
	scn_world *t = scn_world_new(SCN, &o);
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	cr_assert_eq(c.first_proto, SMCR_TRACE_CLC);
	cr_assert_eq(c.first_type, SMCR_CLC_PROPOSAL);
	cr_assert(c.first_out);
	/* CLC: Proposal, Accept, Confirm per connection, each sent and received once */
	cr_assert_eq(c.out[SMCR_TRACE_CLC], 6);
	cr_assert_eq(c.in[SMCR_TRACE_CLC], 6);
	cr_assert_gt(c.out[SMCR_TRACE_LLC], 8, "CONFIRM LINK, ADD LINK, ..., DELETE LINK: %lu",
	             (unsigned long)c.out[SMCR_TRACE_LLC]);
	cr_assert_gt(c.out[SMCR_TRACE_CDC], 100);
	/* the failed link loses some in flight: never more received than sent */
	cr_assert_leq(c.in[SMCR_TRACE_LLC], c.out[SMCR_TRACE_LLC]);
	cr_assert_leq(c.in[SMCR_TRACE_CDC], c.out[SMCR_TRACE_CDC]);
	cr_assert_gt(c.in[SMCR_TRACE_CDC], c.out[SMCR_TRACE_CDC] * 9 / 10);
	cr_assert_eq(c.cdc_without_conn, 0);
	cr_assert_eq(c.llc_without_link, 0);
	scn_world_free(t);
}

/* ---- watching changes nothing ---- */

typedef struct run_result {
	uint64_t fingerprint, events, end;
	char *out;
} run_result;

static void run_plain(const world_opts *o, run_result *r)
{
	scn_world *t = scn_world_new(SCN, o);
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	r->fingerprint = world_fingerprint(t->w);
	r->events = world_events(t->w);
	r->end = sim_now(world_engine(t->w));
	r->out = strdup(scn_world_output(t));
	scn_world_free(t);
}

/* A run with the event stream and the statistics (every 1 ms) into memory. */
typedef struct observed {
	run_result r;
	char *events, *stats;
	size_t events_len, stats_len;
	uint64_t lines, rows;
	link_series series;
} observed;

static void run_observed(const event_stream_opts *eo, stats_format fmt, observed *ob)
{
	memset(ob, 0, sizeof(*ob));
	obs_mux mux;
	obs_mux_init(&mux);
	world_opts o;
	world_opts_default(&o);
	o.observer = &mux.obs;
	scn_world *t = scn_world_new(SCN, &o);
	FILE *ev = open_memstream(&ob->events, &ob->events_len);
	FILE *st = open_memstream(&ob->stats, &ob->stats_len);
	obs_ident *id = obs_ident_new(t->w);
	event_stream *es = event_stream_new(ev, t->w, id, eo);
	stats_opts so = { 1000000, fmt };
	link_series_init(&ob->series);
	stats_sampler *ss = stats_new(st, t->w, id, &so, &ob->series);
	world_observer w1, w2;
	event_stream_observer(es, &w1);
	stats_observer(ss, &w2);
	cr_assert_eq(obs_mux_add(&mux, &w1), 0);
	cr_assert_eq(obs_mux_add(&mux, &w2), 0);
	cr_assert_eq(obs_mux_add(&mux, &w2), -1, "a second sampler is refused");
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	ob->r.fingerprint = world_fingerprint(t->w);
	ob->r.events = world_events(t->w);
	ob->r.end = sim_now(world_engine(t->w));
	ob->r.out = strdup(scn_world_output(t));
	ob->lines = event_stream_lines(es);
	ob->rows = stats_rows(ss);
	fclose(ev);
	fclose(st);
	event_stream_free(es);
	stats_free(ss);
	obs_ident_free(id);
	scn_world_free(t);
}

static void observed_free(observed *ob)
{
	free(ob->r.out);
	free(ob->events);
	free(ob->stats);
	link_series_free(&ob->series);
}

static size_t count_lines_with(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

Test(observe, watching_a_run_changes_nothing_and_repeats_byte_for_byte)
{
	run_result plain;
	world_opts o;
	world_opts_default(&o);
	run_plain(&o, &plain);
	event_stream_opts eo = { OBS_CDC_ALL, 0, 7 };
	observed a, b;
	run_observed(&eo, STATS_CSV, &a);
	run_observed(&eo, STATS_CSV, &b);
	cr_assert_eq(a.r.fingerprint, plain.fingerprint, "the observer must not add or move engine events");
	cr_assert_eq(a.r.events, plain.events);
	cr_assert_eq(a.r.end, plain.end);
	cr_assert_str_eq(a.r.out, plain.out);
	cr_assert_eq(a.events_len, b.events_len);
	cr_assert(!memcmp(a.events, b.events, a.events_len), "same seed, same event stream");
	cr_assert_eq(a.stats_len, b.stats_len);
	cr_assert(!memcmp(a.stats, b.stats, a.stats_len), "same seed, same statistics");
	free(plain.out);
	observed_free(&a);
	observed_free(&b);
}

Test(observe, the_event_stream_has_every_kind_in_time_order)
{
	event_stream_opts eo = { OBS_CDC_ALL, 0, 7 };
	observed ob;
	run_observed(&eo, STATS_CSV, &ob);
	cr_assert_eq(count_lines_with(ob.events, "\n"), ob.lines);
	cr_assert(!strncmp(ob.events, "{\"time_ns\":0,\"kind\":\"start\",\"stack\":null,\"format\":\"smcr-events\"", 60),
	          "%.200s", ob.events);
	cr_assert(strstr(ob.events, "\"seed\":7"));
	const char *last = ob.events + ob.events_len - 2;
	while (last > ob.events && last[-1] != '\n')
		last--;
	cr_assert(strstr(last, "\"kind\":\"end\""), "%s", last);
	cr_assert_eq(count_lines_with(ob.events, "\"kind\":\"clc\""), 12);
	cr_assert(strstr(ob.events, "\"summary\":\"CLC Proposal v2\""));
	cr_assert(strstr(ob.events, "\"kind\":\"clc\",\"stack\":\"A\",\"dir\":\"out\",\"peer\":\"B\""));
	cr_assert(strstr(ob.events, "\"conn\":\"bulk.1\",\"conn_id\":1,\"local\":\"10.0.0.1:"));
	cr_assert(strstr(ob.events, "\"summary\":\"LLC CONFIRM_LINK request\""));
	cr_assert(strstr(ob.events, "\"kind\":\"link\",\"stack\":\"A\",\"what\":\"failed\""));
	cr_assert(strstr(ob.events, "\"kind\":\"lgr\",\"stack\":\"B\",\"what\":\"created\""));
	cr_assert(strstr(ob.events, "\"kind\":\"conn\",\"stack\":\"B\",\"what\":\"opened\",\"conn\":\"bulk.2\",\"role\":\"server\""));
	cr_assert(strstr(ob.events, "\"kind\":\"timeline\",\"stack\":null,\"what\":\"fail\",\"target\":\"adapter RA1\""));
	cr_assert(strstr(ob.events, "\"kind\":\"expect\",\"stack\":null,\"ok\":true"));
	/* decoded fields with replay's names */
	cr_assert(strstr(ob.events, "\"fields\":{\"type\":\"CLC Accept\",\"length\":68"));
	cr_assert(strstr(ob.events, "\"fields\":{\"length\":44,\"seqno\":"));
	/* times never go backwards */
	uint64_t prev = 0;
	for (const char *p = ob.events; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		uint64_t t = strtoull(p + strlen("{\"time_ns\":"), NULL, 10);
		cr_assert_geq(t, prev, "%.120s", p);
		prev = t;
	}
	observed_free(&ob);
}

Test(observe, cdc_messages_can_be_sampled_or_left_out)
{
	event_stream_opts all = { OBS_CDC_ALL, 0, 1 }, none = { OBS_CDC_NONE, 0, 1 }, every = { OBS_CDC_EVERY, 10, 1 };
	observed a, n, e;
	run_observed(&all, STATS_CSV, &a);
	run_observed(&none, STATS_CSV, &n);
	run_observed(&every, STATS_CSV, &e);
	size_t ca = count_lines_with(a.events, "\"kind\":\"cdc\"");
	size_t ce = count_lines_with(e.events, "\"kind\":\"cdc\"");
	cr_assert_gt(ca, 100);
	cr_assert_eq(count_lines_with(n.events, "\"kind\":\"cdc\""), 0);
	cr_assert_eq(n.lines + ca, a.lines, "leaving CDC out leaves everything else");
	cr_assert_lt(ce, ca / 5);
	cr_assert_geq(ce, ca / 10);
	/* the closing CDC messages are kept */
	cr_assert_eq(count_lines_with(e.events, " closed\""), count_lines_with(a.events, " closed\""));
	cr_assert_gt(count_lines_with(a.events, " closed\""), 0);
	observed_free(&a);
	observed_free(&n);
	observed_free(&e);
	event_stream_opts p;
	char err[128];
	cr_assert_eq(event_stream_parse_cdc("every=5", &p, err, sizeof(err)), 0);
	cr_assert_eq(p.cdc, OBS_CDC_EVERY);
	cr_assert_eq(p.cdc_every, 5);
	cr_assert_eq(event_stream_parse_cdc("every=0", &p, err, sizeof(err)), -1);
	cr_assert(strstr(err, "expected all, none or every=N"), "%s", err);
	cr_assert_eq(event_stream_parse_cdc("some", &p, err, sizeof(err)), -1);
}

Test(observe, statistics_have_a_row_per_object_and_sample)
{
	event_stream_opts eo = { OBS_CDC_NONE, 0, 1 };
	observed ob;
	run_observed(&eo, STATS_CSV, &ob);
	const char *nl = strchr(ob.stats, '\n');
	cr_assert(nl);
	char header[1024];
	snprintf(header, sizeof(header), "%.*s", (int)(nl - ob.stats), ob.stats);
	size_t cols = 1;
	for (const char *p = header; *p; p++)
		cols += *p == ',';
	cr_assert_eq(cols, stats_n_columns, "%s", header);
	cr_assert(!strncmp(header, "time_ns,object,stack,id,", 24));
	cr_assert_eq(count_lines_with(ob.stats, "\n"), ob.rows + 1);
	/* every line has every column */
	for (const char *p = ob.stats; *p;) {
		const char *e = strchr(p, '\n');
		size_t c = 1;
		bool quoted = false; /* RFC 4180: a comma inside a quoted field is text */
		for (const char *q = p; q < e; q++) {
			quoted ^= *q == '"';
			c += *q == ',' && !quoted;
		}
		cr_assert_eq(c, stats_n_columns, "%.*s", (int)(e - p), p);
		p = e + 1;
	}
	cr_assert(strstr(ob.stats, "\n0,stack,A,A,"), "a first sample at time 0");
	cr_assert(strstr(ob.stats, ",link,A,0x00000101,B,,0x00000100,0x00000101,LINK_ACTIVE,"));
	cr_assert(strstr(ob.stats, ",conn,A,10.0.0.1:"));
	cr_assert(strstr(ob.stats, ",bulk.2,0x00000100,"));
	/* the link series the timeline draws: lanes of both stacks, the link that failed */
	cr_assert_geq(ob.series.n_lanes, 4);
	cr_assert_gt(ob.series.n_times, 20);
	cr_assert_eq(ob.series.n_marks, 1);
	cr_assert_str_eq(ob.series.marks[0].text, "fail adapter RA1");
	/* A's first link carries data until its adapter fails at 20 ms, and is not active after */
	uint64_t before = 0, active_after = 0;
	for (size_t i = 0; i < ob.series.n_samples; i++) {
		const link_sample *s = &ob.series.samples[i];
		const link_lane *l = &ob.series.lanes[s->lane];
		if (strcmp(l->stack, "A") || strcmp(l->link_id, "0x00000101"))
			continue;
		if (s->time_ns <= 20000000 && s->state == REPORT_LINK_ACTIVE && s->bytes_out > 0)
			before++;
		if (s->time_ns >= 25000000 && s->state == REPORT_LINK_ACTIVE)
			active_after++;
	}
	cr_assert_gt(before, 5);
	cr_assert_eq(active_after, 0);
	observed_free(&ob);
}

Test(observe, statistics_as_json_lines_have_the_same_columns)
{
	event_stream_opts eo = { OBS_CDC_NONE, 0, 1 };
	observed ob;
	run_observed(&eo, STATS_JSONL, &ob);
	cr_assert_eq(count_lines_with(ob.stats, "\n"), ob.rows);
	cr_assert_eq(count_lines_with(ob.stats, "{\"time_ns\":"), ob.rows);
	cr_assert_eq(count_lines_with(ob.stats, "\"peer_rmbe_space\":"), ob.rows);
	cr_assert(strstr(ob.stats, "\"object\":\"stack\",\"stack\":\"A\",\"id\":\"A\",\"peer\":null"));
	observed_free(&ob);
}
