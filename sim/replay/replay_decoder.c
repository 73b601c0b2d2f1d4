/* Replay decoder: lifecycle, frame dispatch, hosts, and the lists of unexplained frames,
 * errors and notes. */
#include <glib.h>
#include <stdarg.h>
#include <string.h>

#include "sim/replay/replay_int.h"

void *rp_grow(void *rows, size_t *n, size_t *cap, size_t size)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		rows = g_realloc_n(rows, *cap, size);
	}
	memset((char *)rows + *n * size, 0, size);
	(*n)++;
	return rows;
}

/* CLC and LLC messages are kept for the report's JSON (a few per connection and link). */
static void keep(replay_decoder *d, const replay_msg *m)
{
	replay_result *r = &d->res;
	r->kept = rp_grow(r->kept, &r->n_kept, &r->cap_kept, sizeof(*r->kept));
	replay_msg *k = &r->kept[r->n_kept - 1];
	*k = *m;
	k->data = g_memdup2(m->data, m->len);
}

static void free_kept(replay_result *r)
{
	for (size_t i = 0; i < r->n_kept; i++)
		g_free((void *)r->kept[i].data);
	g_free(r->kept);
	r->kept = NULL;
	r->n_kept = r->cap_kept = 0;
}

replay_decoder *replay_decoder_new(const replay_opts *opts)
{
	replay_decoder *d = g_new0(replay_decoder, 1);
	if (opts)
		d->opts = *opts;
	if (d->opts.stall_ns == 0)
		d->opts.stall_ns = 1000000000ull;
	d->res.linktype = 1;
	rp_map_init(&d->tcp_map, 37);
	rp_map_init(&d->refused_map, 35);
	rp_map_init(&d->ip_host, 18);
	rp_map_init(&d->ep_map, 20);
	rp_map_init(&d->token_map, 12);
	rp_map_init(&d->rkey_map, 12);
	rp_map_init(&d->reasons, 64);
	d->copies = rp_copies_new(d->opts.copy_window_ns);
	return d;
}

static void list_free(replay_list *l)
{
	g_free(l->items);
	memset(l, 0, sizeof(*l));
}

void replay_decoder_free(replay_decoder *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_conns; i++)
		for (int s = 0; s < 2; s++) {
			rp_stream *st = &d->conns[i].h[s].tcp;
			for (size_t k = 0; k < st->n_ooo; k++)
				g_free(st->ooo[k].data);
			g_free(st->ooo);
		}
	for (size_t i = 0; i < d->n_lgrs; i++)
		g_free(d->lgrs[i].aliases);
	g_free(d->hosts);
	g_free(d->conns);
	g_free(d->links);
	g_free(d->lgrs);
	g_free(d->events);
	rp_map_free(&d->tcp_map);
	rp_map_free(&d->refused_map);
	rp_map_free(&d->ip_host);
	rp_map_free(&d->ep_map);
	rp_map_free(&d->token_map);
	rp_map_free(&d->rkey_map);
	rp_map_free(&d->reasons);
	rp_copies_free(d->copies);
	/* lists and report still owned by d->res if finish was not called */
	list_free(&d->res.unexplained);
	list_free(&d->res.errors);
	list_free(&d->res.notes);
	g_free(d->res.reasons);
	free_kept(&d->res);
	report_free(&d->res.report);
	g_free(d);
}

static void list_add(replay_list *l, uint32_t max, uint64_t frame, const char *fmt, va_list ap)
{
	l->total++;
	if (max && l->n >= max)
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->items = g_realloc_n(l->items, l->cap, sizeof(*l->items));
	}
	replay_note *it = &l->items[l->n++];
	it->frame = frame;
	vsnprintf(it->text, sizeof(it->text), fmt, ap);
}

void rp_unexplained(replay_decoder *d, const char *reason, const char *fmt, ...)
{
	char key[64] = { 0 };
	g_strlcpy(key, reason, sizeof(key));
	uint64_t *idx = rp_map_get(&d->reasons, key);
	if (!idx) {
		d->res.reasons = rp_grow(d->res.reasons, &d->res.n_reasons, &d->cap_reasons, sizeof(*d->res.reasons));
		replay_reason_count *rc = &d->res.reasons[d->res.n_reasons - 1];
		g_strlcpy(rc->reason, reason, sizeof(rc->reason));
		rc->first_frame = d->frame;
		rp_map_put(&d->reasons, key, d->res.n_reasons);
		idx = rp_map_get(&d->reasons, key);
	}
	d->res.reasons[*idx - 1].count++;
	va_list ap;
	va_start(ap, fmt);
	list_add(&d->res.unexplained, d->opts.max_listed, d->frame, fmt, ap);
	va_end(ap);
}

void rp_error(replay_decoder *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	list_add(&d->res.errors, d->opts.max_listed, d->frame, fmt, ap);
	va_end(ap);
}

void rp_note(replay_decoder *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	list_add(&d->res.notes, d->opts.max_listed, d->frame, fmt, ap);
	va_end(ap);
}

void replay_decoder_file_error(replay_decoder *d, uint64_t frame, const char *text)
{
	uint64_t saved = d->frame;
	d->frame = frame;
	rp_error(d, "%s", text);
	d->frame = saved;
	d->res.file_damaged = true;
}

void replay_decoder_time_gap(replay_decoder *d, uint64_t frame, const char *text)
{
	uint64_t saved = d->frame;
	d->frame = frame;
	rp_error(d, "%s", text);
	d->frame = saved;
	d->res.time_gaps++;
}

uint32_t rp_host_root(const replay_decoder *d, uint32_t h)
{
	while (h && d->hosts[h - 1].alias)
		h = d->hosts[h - 1].alias;
	return h;
}

/* A host is an address; the server side of a connection from an address to itself
 * (loopback) is a host of its own (side_tag 1), so that the two ends stay two stacks. */
uint32_t rp_host_for_ip(replay_decoder *d, uint8_t family, const uint8_t ip[16], uint8_t side_tag)
{
	uint8_t key[18];
	key[0] = family;
	memcpy(key + 1, ip, 16);
	key[17] = side_tag;
	uint64_t *v = rp_map_get(&d->ip_host, key);
	if (v)
		return rp_host_root(d, (uint32_t)*v);
	d->hosts = rp_grow(d->hosts, &d->n_hosts, &d->cap_hosts, sizeof(*d->hosts));
	rp_host *h = &d->hosts[d->n_hosts - 1];
	h->family = family;
	memcpy(h->ip, ip, 16);
	h->server_side = side_tag != 0;
	rp_map_put(&d->ip_host, key, d->n_hosts);
	return (uint32_t)d->n_hosts;
}

/* Hosts a and b are the two ends of some connection. */
static bool opposite_ends(const replay_decoder *d, uint32_t a, uint32_t b)
{
	for (size_t i = 0; i < d->n_conns; i++) {
		uint32_t x = rp_host_root(d, d->conns[i].h[0].host), y = rp_host_root(d, d->conns[i].h[1].host);
		if ((x == a && y == b) || (x == b && y == a))
			return true;
	}
	return false;
}

/* A system id names a host: two addresses with one system id are one host, unless they
 * talk to each other (both ends of a capture on one system: Linux has one system id per
 * kernel), which stay two stacks. */
void rp_host_set_sysid(replay_decoder *d, uint32_t h, const uint8_t sysid[8])
{
	static const uint8_t zero[8];
	h = rp_host_root(d, h);
	if (!h || !memcmp(sysid, zero, 8))
		return;
	rp_host *host = RP_HOST(d, h);
	if (host->has_sysid) {
		if (memcmp(host->sysid, sysid, 8))
			rp_note(d, "host %u announced a second system id; keeping the first", h);
		return;
	}
	for (size_t i = 0; i < d->n_hosts; i++) {
		rp_host *o = &d->hosts[i];
		if (i + 1 == h || o->alias || !o->has_sysid || memcmp(o->sysid, sysid, 8))
			continue;
		if (opposite_ends(d, (uint32_t)(i + 1), h)) {
			if (!o->same_system_noted) {
				char a[64], b[64];
				report_ip_str(o->family, o->ip, a, sizeof(a));
				report_ip_str(host->family, host->ip, b, sizeof(b));
				rp_note(d, "%s and %s announce the same system id %02X%02X%02X%02X%02X%02X%02X%02X: both ends on one "
				           "system, shown as two stacks",
				        a, b, sysid[0], sysid[1], sysid[2], sysid[3], sysid[4], sysid[5],
				        sysid[6], sysid[7]);
				o->same_system_noted = true;
			}
			continue;
		}
		/* merge into the older host, which keeps the lower id */
		uint32_t keep = (uint32_t)(i + 1) < h ? (uint32_t)(i + 1) : h, gone = keep == h ? (uint32_t)(i + 1) : h;
		RP_HOST(d, gone)->alias = keep;
		rp_host *k = RP_HOST(d, keep);
		if (!k->name[0])
			memcpy(k->name, RP_HOST(d, gone)->name, sizeof(k->name));
		if (!k->os_type)
			k->os_type = RP_HOST(d, gone)->os_type;
		k->has_sysid = true;
		memcpy(k->sysid, sysid, 8);
		return;
	}
	host->has_sysid = true;
	memcpy(host->sysid, sysid, 8);
}

void rp_event_add(replay_decoder *d, uint32_t link, report_event_kind kind, uint32_t code, const char *fmt, ...)
{
	d->events = rp_grow(d->events, &d->n_events, &d->cap_events, sizeof(*d->events));
	rp_event *e = &d->events[d->n_events - 1];
	e->time_ns = d->now;
	e->frame = d->frame;
	e->link = link;
	e->kind = kind;
	e->code = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->cause, sizeof(e->cause), fmt, ap);
	va_end(ap);
}

void rp_emit(replay_decoder *d, replay_msg *m, uint32_t conn, uint32_t link, int from)
{
	if (!m->frame)
		m->frame = d->frame;
	/* the time since the capture's first frame, as the chart of a capture shows it (a
	 * real capture's stamps are wall-clock times) */
	m->time_ns = d->now >= d->res.first_ns ? d->now - d->res.first_ns : 0;
	m->from = from;
	m->conn = conn;
	m->link = link;
	if (link) {
		m->lgr = RP_LINK(d, link)->lgr;
		m->link_num = RP_LINK(d, link)->link_num;
	}
	if (conn) {
		rp_conn *c = RP_CONN(d, conn);
		if (!m->lgr)
			m->lgr = c->lgr;
		m->family = c->family;
		for (int s = 0; s < 2; s++) {
			memcpy(m->ip[s], c->h[s].ip, 16);
			m->port[s] = c->h[s].port;
		}
	} else if (m->lgr) {
		/* no connection named: the hosts of the link group */
		rp_lgr *g = RP_LGR(d, m->lgr);
		for (int s = 0; s < 2; s++) {
			uint32_t h = rp_host_root(d, g->host[s]);
			if (h) {
				m->family = RP_HOST(d, h)->family;
				memcpy(m->ip[s], RP_HOST(d, h)->ip, 16);
			}
		}
	}
	if (m->kind == REPLAY_MSG_CLC || m->kind == REPLAY_MSG_LLC)
		keep(d, m);
	if (d->opts.on_msg)
		d->opts.on_msg(d->opts.on_msg_ctx, m);
}

static void count_frame(replay_decoder *d, uint64_t ts_ns, uint32_t caplen, uint32_t len)
{
	replay_result *res = &d->res;
	d->frame++;
	d->now = ts_ns;
	d->frame_len = len > caplen ? len : caplen;
	if (res->frames == 0)
		res->first_ns = ts_ns;
	res->frames++;
	res->bytes += d->frame_len;
	if (ts_ns > res->last_ns)
		res->last_ns = ts_ns;
	if (caplen < len)
		res->cut_frames++;
}

void replay_decoder_unreadable_frame(replay_decoder *d, uint64_t ts_ns, uint32_t caplen, uint32_t len,
                                     bool malformed, const char *why)
{
	count_frame(d, ts_ns, caplen, len);
	if (malformed)
		rp_unexplained(d, "malformed frame", "malformed: %s", why);
	else
		rp_unexplained(d, why, "%s", why);
}

void replay_decoder_interface(replay_decoder *d, uint32_t iface)
{
	d->iface = iface;
}

void replay_decoder_frame(replay_decoder *d, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t len)
{
	replay_result *res = &d->res;
	count_frame(d, ts_ns, caplen, len);
	rp_frame f;
	char why[REPLAY_TEXT_LEN];
	uint64_t before = res->unexplained.total;
	rp_frame_kind kind = rp_frame_parse(&f, data, caplen, len, why, sizeof(why));
	if (kind != RP_FRAME_BAD && rp_copies_check(d->copies, ts_ns, d->iface, &f)) {
		/* the packet once more, at another capture point: explained, not decoded again */
		res->frames_captured_twice++;
		res->explained++;
		return;
	}
	switch (kind) {
	case RP_FRAME_TCP:
		rp_tcp_segment(d, &f);
		break;
	case RP_FRAME_ROCE:
		rp_roce_frame(d, &f);
		break;
	case RP_FRAME_OTHER:
		rp_unexplained(d, why, "%s", why);
		break;
	case RP_FRAME_BAD:
		rp_unexplained(d, "malformed frame", "malformed: %s", why);
		break;
	}
	if (res->unexplained.total == before)
		res->explained++;
}

static int cmp_reason(const void *pa, const void *pb)
{
	const replay_reason_count *a = pa, *b = pb;
	return strcmp(a->reason, b->reason);
}

void replay_decoder_finish(replay_decoder *d, replay_result *res)
{
	rp_tcp_finish(d);
	rp_roce_finish(d);
	rp_missing_steps(d);
	rp_build_report(d, &d->res.report);
	report_sort(&d->res.report);
	if (d->res.n_reasons)
		qsort(d->res.reasons, d->res.n_reasons, sizeof(*d->res.reasons), cmp_reason);
	*res = d->res;
	memset(&d->res, 0, sizeof(d->res));
}

void replay_result_free(replay_result *res)
{
	report_free(&res->report);
	list_free(&res->unexplained);
	list_free(&res->errors);
	list_free(&res->notes);
	g_free(res->reasons);
	free_kept(res);
	memset(res, 0, sizeof(*res));
}
