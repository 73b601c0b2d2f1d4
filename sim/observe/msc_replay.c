/* A capture's message-sequence chart (msc_replay.h). */
#include "sim/observe/msc_replay.h"

#include <arpa/inet.h>
#include <glib.h>
#include <string.h>
#include <sys/socket.h>

#include "sim/observe/obs_msg.h"
#include "sim/replay/replay.h"

typedef struct from_capture {
	msc_chart *c;
	obs_cdc_mode cdc;
	uint32_t cdc_every;
	GHashTable *cdc_counts;
} from_capture;

static uint32_t host_line(msc_chart *c, const replay_msg *m, int side)
{
	char name[INET6_ADDRSTRLEN];
	if (m->family == 4)
		inet_ntop(AF_INET, m->ip[side], name, sizeof(name));
	else if (m->family == 6)
		inet_ntop(AF_INET6, m->ip[side], name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%s", side ? "server" : "client");
	return msc_line(c, name);
}

static bool keep_cdc(from_capture *fc, const replay_msg *m)
{
	if (fc->cdc == OBS_CDC_ALL)
		return true;
	if (fc->cdc == OBS_CDC_NONE)
		return false;
	uint64_t key = (uint64_t)m->conn << 1 ^ (uint64_t)(m->from & 1);
	uint64_t *n = g_hash_table_lookup(fc->cdc_counts, &key);
	if (!n) {
		uint64_t *k = g_new(uint64_t, 1);
		*k = key;
		n = g_new0(uint64_t, 1);
		g_hash_table_insert(fc->cdc_counts, k, n);
	}
	bool keep = *n % fc->cdc_every == 0 || obs_cdc_is_notable(m->data, m->len);
	(*n)++;
	return keep;
}

static void on_msg(void *ctx, const replay_msg *m)
{
	from_capture *fc = ctx;
	smcr_trace_proto p;
	msc_kind k;
	switch (m->kind) {
	case REPLAY_MSG_CLC:
		p = SMCR_TRACE_CLC;
		k = MSC_CLC;
		break;
	case REPLAY_MSG_LLC:
		p = SMCR_TRACE_LLC;
		k = MSC_LLC;
		break;
	case REPLAY_MSG_CDC:
		if (!keep_cdc(fc, m))
			return;
		p = SMCR_TRACE_CDC;
		k = MSC_CDC;
		break;
	case REPLAY_MSG_WRITE:
	default:
		return;
	}
	uint64_t t = m->time_ns; /* the decoder's: since the capture's first frame */
	uint32_t from = host_line(fc->c, m, m->from ? 1 : 0), to = host_line(fc->c, m, m->from ? 0 : 1);
	char sum[96], text[112], conn[16] = "", link[16] = "";
	obs_msg_summary(p, m->data, m->len, sum, sizeof(sum));
	if (m->link_num && k != MSC_CLC) /* the link it went over, as a run's chart says it */
		snprintf(link, sizeof(link), " [link %u]", m->link_num);
	snprintf(text, sizeof(text), "%s%s (frame %llu)", sum, link, (unsigned long long)m->frame);
	if (m->conn)
		snprintf(conn, sizeof(conn), "%u", m->conn);
	msc_arrow(fc->c, k, t, from, to, m->lgr != 0, m->lgr, conn, text);
}

int msc_from_capture(msc_chart *c, const char *path, obs_cdc_mode cdc, uint32_t cdc_every, char *err,
                     size_t errlen)
{
	from_capture fc = { c, cdc, cdc_every ? cdc_every : 1,
		            g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free) };
	snprintf(c->time_axis, sizeof(c->time_axis), "since the first frame");
	replay_opts o;
	memset(&o, 0, sizeof(o));
	o.on_msg = on_msg;
	o.on_msg_ctx = &fc;
	replay_result res;
	int rc = replay_decode_file(path, &o, &res, err, errlen);
	g_hash_table_destroy(fc.cdc_counts);
	if (rc < 0)
		return -1;
	/* the link failures and removals the decoder found, on the lifeline of the host that
	 * lost the link, where the capture shows it */
	for (size_t i = 0; i < res.report.n_events; i++) {
		const report_event *e = &res.report.events[i];
		const report_stack *s = report_stack_by_id(&res.report, e->stack_id);
		if (!s)
			continue;
		char text[112];
		if (e->kind == REPORT_EVENT_LGR_ENDED)
			snprintf(text, sizeof(text), "link group 0x%08x ended: %.60s", e->lgr_id, e->cause);
		else
			snprintf(text, sizeof(text), "link %u (0x%08x) %s: %.60s", e->link_num,
			         e->local_link_id ? e->local_link_id : e->remote_link_id,
			         e->kind == REPORT_EVENT_LINK_FAILED ? "failed" : "removed", e->cause);
		msc_mark_in_order(c, MSC_MARK_FAIL, e->time_ns, msc_line(c, s->name), e->lgr_id != REPORT_UNKNOWN, e->lgr_id,
		                  NULL, text);
	}
	/* what the decoder could not read, where it was */
	for (size_t i = 0; i < res.errors.n; i++) {
		char text[112];
		snprintf(text, sizeof(text), "frame %llu: %.80s", (unsigned long long)res.errors.items[i].frame,
		         res.errors.items[i].text);
		msc_mark(c, MSC_MARK_FAIL, c->n_items ? c->items[c->n_items - 1].time_ns : 0, MSC_ALL, false, 0, NULL, text);
	}
	replay_result_free(&res);
	return 0;
}
