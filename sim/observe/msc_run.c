/* A run's message-sequence chart (msc_run.h). */
#include "sim/observe/msc_run.h"

#include <glib.h>
#include <string.h>

#include "model/clc.h"
#include "sim/engine/engine.h"
#include "sim/observe/obs_msg.h"

struct msc_run {
	msc_chart *c;
	world *w;
	obs_ident *id;
	obs_cdc_mode cdc;
	uint32_t cdc_every;
	GHashTable *cdc_counts; /* (stack, connection, direction) -> CDC messages seen */
	uint32_t unknown;       /* the lifeline of a peer no stack is (MSC_ALL until needed) */
};

static uint64_t now(const msc_run *r)
{
	return sim_now(world_engine(r->w));
}

static bool keep_cdc(msc_run *r, uint32_t si, const smcr_trace_msg *m)
{
	if (r->cdc == OBS_CDC_ALL)
		return true;
	if (r->cdc == OBS_CDC_NONE)
		return false;
	uint64_t key = (uint64_t)si << 40 ^ m->conn_id << 1 ^ (m->outbound ? 1u : 0u);
	uint64_t *n = g_hash_table_lookup(r->cdc_counts, &key);
	if (!n) {
		uint64_t *k = g_new(uint64_t, 1);
		*k = key;
		n = g_new0(uint64_t, 1);
		g_hash_table_insert(r->cdc_counts, k, n);
	}
	bool keep = *n % r->cdc_every == 0 || obs_cdc_is_notable(m->data, m->len);
	(*n)++;
	return keep;
}

static void on_message(void *ctx, world *w, uint32_t si, const smcr_trace_msg *m)
{
	msc_run *r = ctx;
	(void)w;
	if (!m->outbound) /* an arrow per message: drawn when it is sent */
		return;
	if (m->proto == SMCR_TRACE_CDC && !keep_cdc(r, si, m))
		return;
	obs_lgr g;
	obs_link l;
	obs_conn c;
	obs_ident_lgr(r->id, si, m->lgr_id, &g);
	obs_ident_link(r->id, si, m->link_id, &l);
	obs_ident_conn(r->id, si, m->conn_id, &c);
	/* the first of them that knows the peer (a server's new link group may not yet) */
	uint32_t peer = l.known && l.peer != OBS_NONE ? l.peer : g.known && g.peer != OBS_NONE ? g.peer
	                                                   : c.known                            ? c.peer
	                                                                                        : OBS_NONE;
	if (peer == OBS_NONE || peer >= r->c->n_lines) {
		if (r->unknown == MSC_ALL)
			r->unknown = msc_line(r->c, "(unknown peer)");
		peer = r->unknown;
	}
	char sum[96], text[112];
	obs_msg_summary(m->proto, m->data, m->len, sum, sizeof(sum));
	if (l.known && m->proto != SMCR_TRACE_CLC)
		snprintf(text, sizeof(text), "%s [link %u]", sum, l.link_num);
	else
		snprintf(text, sizeof(text), "%s", sum);
	msc_kind k = m->proto == SMCR_TRACE_CLC ? MSC_CLC : m->proto == SMCR_TRACE_LLC ? MSC_LLC
	                                                                               : MSC_CDC;
	bool has_lgr = l.known || g.known;
	msc_arrow(r->c, k, now(r), si, peer, has_lgr, l.known ? l.lgr_num : g.num, c.known ? c.name : NULL, text);
}

static void link_mark(msc_run *r, uint32_t si, msc_mark_kind mk, const smcr_link_info *li, const char *what,
                      const char *why)
{
	obs_link l;
	obs_ident_link_info(r->id, si, li, &l);
	char text[112];
	snprintf(text, sizeof(text), "link %u (0x%08x) %s%s%s", l.link_num, l.local_id, what, why ? ": " : "",
	         why ? why : "");
	msc_mark(r->c, mk, now(r), si, l.known, l.lgr_num, NULL, text);
}

static void on_core_event(void *ctx, world *w, uint32_t si, const smcr_event *ev)
{
	msc_run *r = ctx;
	(void)w;
	obs_lgr g;
	char text[112];
	switch (ev->type) {
	case SMCR_EV_LINK_ADDED:
		if (ev->link)
			link_mark(r, si, MSC_MARK_RESTORE, ev->link, "active", NULL);
		return;
	case SMCR_EV_LINK_DOWN:
		if (ev->link)
			link_mark(r, si, MSC_MARK_FAIL, ev->link, ev->link->peer_link_uid ? "failed" : "setup failed",
			          smcr_linkdown_reason_text(ev->linkdown));
		return;
	case SMCR_EV_LGR_TERMINATED:
		obs_ident_lgr(r->id, si, ev->lgr_id, &g);
		snprintf(text, sizeof(text), "link group 0x%08x ended: %s", g.num, smcr_lgr_end_text(ev->lgr_end));
		msc_mark(r->c, MSC_MARK_FAIL, now(r), si, g.known, g.num, NULL, text);
		return;
	case SMCR_EV_ADD_LINK_REJECTED:
		obs_ident_lgr(r->id, si, ev->lgr_id, &g);
		snprintf(text, sizeof(text), "ADD LINK rejected%s%s", ev->text ? ": " : "", ev->text ? ev->text : "");
		msc_mark(r->c, MSC_MARK_INFO, now(r), si, g.known, g.num, NULL, text);
		return;
	case SMCR_EV_LINK_REMOVED:
	case SMCR_EV_LGR_CREATED:
	case SMCR_EV_LGR_TYPE:
	case SMCR_EV_LGR_FREED:
	case SMCR_EV_DECODE_ERROR:
	case SMCR_EV_LLC_DROPPED:
	case SMCR_EV_LLC_PROTOCOL_VIOLATION:
	case SMCR_EV_CONN_STATE:
		return;
	}
}

static void on_conn(void *ctx, world *w, world_conn_what what, const world_conn_view *v)
{
	msc_run *r = ctx;
	(void)w;
	if (what != WORLD_CONN_OPENED || v->server || !v->connected || v->mode != SOCK_MODE_FALLBACK)
		return;
	char text[112];
	snprintf(text, sizeof(text), "%s falls back to TCP: %s", v->name, smcr_decline_name(v->fallback_reason));
	msc_mark(r->c, MSC_MARK_INFO, now(r), v->stack, false, 0, v->name, text);
}

static void on_timeline(void *ctx, world *w, const scn_event *ev)
{
	msc_run *r = ctx;
	const char *verb = obs_timeline_verb(ev);
	if (!verb)
		return;
	char target[96], text[112];
	scn_event_target_text(world_scenario(w), ev, target, sizeof(target));
	snprintf(text, sizeof(text), "%s %s", verb, target);
	msc_mark_kind mk = !strcmp(verb, "fail") ? MSC_MARK_FAIL : !strcmp(verb, "restore") ? MSC_MARK_RESTORE
	                                                                                    : MSC_MARK_INFO;
	msc_mark(r->c, mk, now(r), MSC_ALL, false, 0, NULL, text);
}

static void on_expect(void *ctx, world *w, const scn_expect *x, bool ok, const char *detail)
{
	msc_run *r = ctx;
	if (ok)
		return;
	char e[80], text[112];
	scn_format_expect(world_scenario(w), x, e, sizeof(e));
	snprintf(text, sizeof(text), "expectation failed: %s (%s)", e, detail ? detail : "");
	msc_mark(r->c, MSC_MARK_FAIL, now(r), MSC_ALL, false, 0, NULL, text);
}

msc_run *msc_run_new(msc_chart *c, world *w, obs_ident *id, obs_cdc_mode cdc, uint32_t cdc_every)
{
	msc_run *r = g_new0(msc_run, 1);
	r->c = c;
	r->w = w;
	r->id = id;
	r->cdc = cdc;
	r->cdc_every = cdc_every ? cdc_every : 1;
	r->cdc_counts = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	r->unknown = MSC_ALL;
	const scn_scenario *s = world_scenario(w);
	for (size_t i = 0; i < s->n_stacks; i++)
		msc_line(c, s->stacks[i].name);
	return r;
}

void msc_run_observer(msc_run *r, world_observer *obs)
{
	memset(obs, 0, sizeof(*obs));
	obs->ctx = r;
	obs->message = on_message;
	obs->core_event = on_core_event;
	obs->conn = on_conn;
	obs->timeline = on_timeline;
	obs->expect = on_expect;
}

void msc_run_free(msc_run *r)
{
	if (!r)
		return;
	g_hash_table_destroy(r->cdc_counts);
	g_free(r);
}
