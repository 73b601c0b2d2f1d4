/* The statistics sampler (stats.h): a row of fixed columns per object and sample, written
 * as CSV or JSON Lines. */
#include "sim/observe/stats.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "sim/app/app_result.h"
#include "sim/host/host.h"
#include "sim/net/stack.h"
#include "model/clc.h"
#include "sim/net/tcp.h"
#include "sim/rdma/qp.h"
#include "sim/rdma/rnic.h"
#include "sim/report/json_writer.h"
#include "sim/report/report.h"

enum col {
	C_TIME,
	C_OBJECT,
	C_STACK,
	C_ID,
	C_PEER,
	C_APP,
	C_LGR,
	C_LINK,
	C_STATE,
	C_MODE,
	C_REASON,
	C_BYTES_OUT,
	C_BYTES_IN,
	C_OPS_OUT,
	C_OPS_IN,
	C_LLC_OUT,
	C_LLC_IN,
	C_CDC_OUT,
	C_CDC_IN,
	C_ROCE_RETX,
	C_TCP_RETX,
	C_LGRS,
	C_LINKS,
	C_ACTIVE_LINKS,
	C_CONNS,
	C_BUFFER_BYTES,
	C_RX_PROD,
	C_RX_CONS,
	C_TX_PROD,
	C_TX_CONS,
	C_RX_BUFFERED,
	C_RMBE_SIZE,
	C_SNDBUF_USED,
	C_SNDBUF_SIZE,
	C_PEER_RMBE_SPACE,
	C_CPU_APP,
	C_CPU_TCPIP,
	C_CPU_SMCR,
	C_CPU_IRQ,
	C_CPU_QUEUED,
	C_CPU_WAIT,
	C_APP_OPS,
	C_LAT_P50,
	C_LAT_P99,
	C_N
};

const char *const stats_columns[] = {
	"time_ns",
	"object",
	"stack",
	"id",
	"peer",
	"app",
	"lgr_id",
	"link_id",
	"state",
	"mode",
	"reason",
	"bytes_out",
	"bytes_in",
	"ops_out",
	"ops_in",
	"llc_out",
	"llc_in",
	"cdc_out",
	"cdc_in",
	"roce_retransmits",
	"tcp_retransmits",
	"lgrs",
	"links",
	"active_links",
	"conns",
	"buffer_bytes",
	"rx_prod",
	"rx_cons",
	"tx_prod",
	"tx_cons",
	"rx_buffered",
	"rmbe_size",
	"sndbuf_used",
	"sndbuf_size",
	"peer_rmbe_space",
	"cpu_app_ns",
	"cpu_tcpip_ns",
	"cpu_smcr_ns",
	"cpu_irq_ns",
	"cpu_queued",
	"cpu_wait_ns",
	"app_ops",
	"latency_p50_ns",
	"latency_p99_ns",
};
const size_t stats_n_columns = C_N;

/* The text columns come first (time_ns aside); the rest are counts. */
#define C_FIRST_NUM C_BYTES_OUT

typedef struct row {
	char text[C_FIRST_NUM][208]; /* a reason is a sentence */
	bool has_text[C_FIRST_NUM];
	uint64_t num[C_N];
	bool has_num[C_N];
} row;

struct stats_sampler {
	FILE *out;
	world *w;
	obs_ident *id;
	stats_opts o;
	link_series *series;
	uint64_t rows;
	GHashTable *failed_told; /* flows whose failed connect has had its row */
};

static void set_text(row *r, enum col c, const char *s)
{
	if (!s)
		return;
	snprintf(r->text[c], sizeof(r->text[c]), "%s", s);
	r->has_text[c] = true;
}

static void set_hex(row *r, enum col c, uint32_t v)
{
	char buf[16];
	snprintf(buf, sizeof(buf), "0x%08" PRIx32, v);
	set_text(r, c, buf);
}

static void set_num(row *r, enum col c, uint64_t v)
{
	r->num[c] = v;
	r->has_num[c] = true;
}

static void row_init(row *r, uint64_t t, const char *object, const char *si)
{
	memset(r, 0, sizeof(*r));
	set_num(r, C_TIME, t);
	set_text(r, C_OBJECT, object);
	set_text(r, C_STACK, si);
}

/* ---- writing ---- */

/* CSV cells are names, hex ids, addresses and numbers: quoted only if they need it. */
static void csv_cell(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

static void write_row(stats_sampler *s, const row *r)
{
	s->rows++;
	if (!s->out)
		return;
	if (s->o.format == STATS_CSV) {
		for (int c = 0; c < C_N; c++) {
			if (c)
				fputc(',', s->out);
			if (c != C_TIME && c < C_FIRST_NUM) {
				if (r->has_text[c])
					csv_cell(s->out, r->text[c]);
			} else if (r->has_num[c]) {
				fprintf(s->out, "%" PRIu64, r->num[c]);
			}
		}
		fputc('\n', s->out);
		return;
	}
	json_writer j;
	json_init(&j, s->out, false);
	json_begin_object(&j);
	for (int c = 0; c < C_N; c++) {
		json_key(&j, stats_columns[c]);
		if (c != C_TIME && c < C_FIRST_NUM) {
			if (r->has_text[c])
				json_string(&j, r->text[c]);
			else
				json_null(&j);
		} else if (r->has_num[c]) {
			json_uint(&j, r->num[c]);
		} else {
			json_null(&j);
		}
	}
	json_end_object(&j);
	json_finish(&j);
}

/* ---- stacks ---- */

typedef struct lgr_sum {
	uint64_t lgrs, conns, buffers;
} lgr_sum;

static void sum_lgr(void *arg, const smcr_lgr_info *li)
{
	lgr_sum *g = arg;
	g->lgrs++;
	g->conns += li->conns_num;
	g->buffers += li->sndbuf_bytes + li->rmb_bytes;
}

typedef struct link_count {
	uint64_t links, active;
} link_count;

static void count_link(void *arg, const smcr_link_info *li)
{
	link_count *c = arg;
	c->links++;
	c->active += li->state == SMCR_LNK_ACTIVE;
}

static void stack_row(stats_sampler *s, uint64_t t, uint32_t i)
{
	const char *name = obs_ident_stack_name(s->id, i);
	row r;
	row_init(&r, t, "stack", name);
	set_text(&r, C_ID, name);
	const stack *st = world_stack_at(s->w, i);
	if (st) {
		set_num(&r, C_TCP_RETX, tcp_get_counters(st)->retransmits);
		host_cpu_stats h;
		host_totals(st->host, &h);
		set_num(&r, C_CPU_APP, h.busy_ns[HOST_CAT_APP]);
		set_num(&r, C_CPU_TCPIP, h.busy_ns[HOST_CAT_TCPIP]);
		set_num(&r, C_CPU_SMCR, h.busy_ns[HOST_CAT_SMCR]);
		set_num(&r, C_CPU_IRQ, h.busy_ns[HOST_CAT_IRQ]);
		set_num(&r, C_CPU_QUEUED, h.queued_items);
		set_num(&r, C_CPU_WAIT, h.wait_ns);
	}
	smc_layer *l = world_layer_at(s->w, i);
	if (l) {
		const smcr_ctx *ctx = smc_layer_ctx(l);
		smcr_stats cs;
		smcr_ctx_get_stats(ctx, &cs);
		set_num(&r, C_BYTES_OUT, cs.tx_bytes);
		set_num(&r, C_BYTES_IN, cs.rx_bytes);
		set_num(&r, C_OPS_OUT, cs.tx_cnt);
		set_num(&r, C_OPS_IN, cs.rx_cnt);
		lgr_sum g = { 0, 0, 0 };
		smcr_ctx_foreach_lgr(ctx, sum_lgr, &g);
		link_count lc = { 0, 0 };
		smcr_ctx_foreach_link(ctx, count_link, &lc);
		set_num(&r, C_LGRS, g.lgrs);
		set_num(&r, C_LINKS, lc.links);
		set_num(&r, C_ACTIVE_LINKS, lc.active);
		set_num(&r, C_CONNS, g.conns);
		set_num(&r, C_BUFFER_BYTES, g.buffers);
	}
	write_row(s, &r);
}

/* ---- links ---- */

typedef struct link_ctx {
	stats_sampler *s;
	uint64_t t;
	uint32_t si;
	smc_layer *l;
} link_ctx;

/* Packets the link's QP sent again, from the simulated adapter (0 on a real device). */
static bool qp_retransmits(const link_ctx *c, const smcr_link_info *li, uint64_t *n)
{
	size_t np = smc_layer_n_ports(c->l);
	for (size_t i = 0; i < np; i++) {
		const smc_layer_port *p = smc_layer_port_get(c->l, i);
		if (p->port_index != li->port_index || !p->adapter)
			continue;
		const rnic_qp *qp = rnic_find_qp(p->adapter, li->local_qpn);
		if (!qp)
			return false;
		*n = rnic_qp_stats_get(qp)->retransmitted_packets;
		return true;
	}
	return false;
}

static void link_row(void *arg, const smcr_link_info *li)
{
	link_ctx *c = arg;
	stats_sampler *s = c->s;
	obs_link ol;
	obs_ident_link_info(s->id, c->si, li, &ol);
	const char *stack_name = obs_ident_stack_name(s->id, c->si);
	row r;
	row_init(&r, c->t, "link", stack_name);
	set_hex(&r, C_ID, ol.local_id);
	set_text(&r, C_PEER, ol.peer == OBS_NONE ? NULL : obs_ident_stack_name(s->id, ol.peer));
	set_hex(&r, C_LGR, ol.lgr_num);
	set_hex(&r, C_LINK, ol.local_id);
	set_text(&r, C_STATE, report_link_state_name((report_link_state)li->state));
	set_num(&r, C_BYTES_OUT, li->bytes_out);
	set_num(&r, C_BYTES_IN, li->bytes_in);
	set_num(&r, C_OPS_OUT, li->ops_out);
	set_num(&r, C_OPS_IN, li->ops_in);
	set_num(&r, C_LLC_OUT, li->llc_out);
	set_num(&r, C_LLC_IN, li->llc_in);
	set_num(&r, C_CDC_OUT, li->cdc_out);
	set_num(&r, C_CDC_IN, li->cdc_in);
	uint64_t retx;
	if (qp_retransmits(c, li, &retx))
		set_num(&r, C_ROCE_RETX, retx);
	set_num(&r, C_CONNS, li->conn_cnt);
	write_row(s, &r);
	if (s->series) {
		uint32_t lane = link_series_lane(s->series, stack_name, r.text[C_ID], r.text[C_PEER], r.text[C_LGR]);
		link_series_add(s->series, c->t, lane, (report_link_state)li->state, li->bytes_out, li->bytes_in);
	}
}

/* ---- connections ---- */

static const char *tcp_state_name(tcp_state st)
{
	switch (st) {
	case TCP_CLOSED: return "CLOSED";
	case TCP_LISTEN: return "LISTEN";
	case TCP_SYN_SENT: return "SYN_SENT";
	case TCP_SYN_RCVD: return "SYN_RCVD";
	case TCP_ESTABLISHED: return "ESTABLISHED";
	case TCP_FIN_WAIT_1: return "FIN_WAIT_1";
	case TCP_FIN_WAIT_2: return "FIN_WAIT_2";
	case TCP_CLOSE_WAIT: return "CLOSE_WAIT";
	case TCP_CLOSING: return "CLOSING";
	case TCP_LAST_ACK: return "LAST_ACK";
	case TCP_TIME_WAIT: return "TIME_WAIT";
	}
	return "?";
}

/* A cursor as a position in the byte stream: wraps times the buffer plus the count. */
static uint64_t linear(smcr_cursor c, uint32_t size) { return (uint64_t)c.wrap * size + c.count; }

typedef struct conn_ctx {
	stats_sampler *s;
	uint64_t t;
} conn_ctx;

/* A connect that did not connect: while it is pending a row each sample (its TCP state),
 * once it failed one row (state FAILED); the reason says why. */
static void connect_row(conn_ctx *c, const world_conn_view *v)
{
	stats_sampler *s = c->s;
	bool pending = v->connect == WORLD_CONNECT_PENDING;
	if (!pending) {
		if (g_hash_table_contains(s->failed_told, GUINT_TO_POINTER(v->flow)))
			return;
		g_hash_table_add(s->failed_told, GUINT_TO_POINTER(v->flow));
	}
	row r;
	row_init(&r, c->t, "conn", obs_ident_stack_name(s->id, v->stack));
	char a[32], b[32], id[72];
	obs_addr_text(v->local_ip, v->local_port, a, sizeof(a));
	obs_addr_text(v->peer_ip, v->peer_port, b, sizeof(b));
	snprintf(id, sizeof(id), "%s-%s", v->local_port ? a : "-", b);
	set_text(&r, C_ID, id);
	set_text(&r, C_PEER, obs_ident_stack_name(s->id, v->peer_stack));
	set_text(&r, C_APP, v->name);
	set_text(&r, C_STATE, "FAILED");
	tcp_pcb *pcb = pending && v->s ? sock_tcp_pcb(v->s) : NULL;
	if (pcb) {
		tcp_info ti;
		tcp_get_info(pcb, &ti);
		r.has_text[C_STATE] = false;
		set_text(&r, C_STATE, tcp_state_name(ti.state));
		set_num(&r, C_TCP_RETX, ti.retransmits);
	}
	set_text(&r, C_REASON, v->cause);
	set_num(&r, C_BYTES_OUT, v->sent);
	set_num(&r, C_BYTES_IN, v->received);
	write_row(s, &r);
}

static void conn_row(void *arg, const world_conn_view *v)
{
	conn_ctx *c = arg;
	stats_sampler *s = c->s;
	if (!v->server && v->connect != WORLD_CONNECT_OK) {
		connect_row(c, v);
		return;
	}
	if (!v->s || !v->connected)
		return; /* ended */
	obs_conn oc;
	uint64_t lgr = 0, link = 0;
	uint8_t version = 0;
	obs_ident_end(s->id, v, &oc, &lgr, &link, &version);
	row r;
	row_init(&r, c->t, "conn", obs_ident_stack_name(s->id, v->stack));
	char a[32], b[32], id[72];
	obs_addr_text(v->local_ip, v->local_port, a, sizeof(a));
	obs_addr_text(v->peer_ip, v->peer_port, b, sizeof(b));
	snprintf(id, sizeof(id), "%s-%s", a, b);
	set_text(&r, C_ID, id);
	set_text(&r, C_PEER, obs_ident_stack_name(s->id, v->peer_stack));
	set_text(&r, C_APP, v->name);
	set_text(&r, C_MODE, sock_mode_word(v->mode));
	if (v->mode == SOCK_MODE_FALLBACK) {
		char why[160];
		snprintf(why, sizeof(why), "%s%s%s", smcr_decline_name(v->fallback_reason),
		         v->peer_diagnosis ? ", peer " : "", v->peer_diagnosis ? smcr_decline_name(v->peer_diagnosis) : "");
		set_text(&r, C_REASON, why);
	}
	set_num(&r, C_BYTES_OUT, v->sent);
	set_num(&r, C_BYTES_IN, v->received);
	if (v->af) {
		app_conn_result res;
		app_flow_result(v->af, &res);
		set_num(&r, C_APP_OPS, v->server ? v->af->srv.txns : res.ops);
		if (!v->server && res.lat) {
			set_num(&r, C_LAT_P50, app_hist_stat(res.lat, APP_STAT_P50));
			set_num(&r, C_LAT_P99, app_hist_stat(res.lat, APP_STAT_P99));
		}
	}
	tcp_pcb *pcb = sock_tcp_pcb(v->s);
	tcp_info ti;
	if (pcb) {
		tcp_get_info(pcb, &ti);
		set_num(&r, C_TCP_RETX, ti.retransmits);
		set_text(&r, C_STATE, tcp_state_name(ti.state));
	}
	smc_layer *l = world_layer_at(s->w, v->stack);
	smc_layer_conn lc;
	if (v->mode == SOCK_MODE_SMCR && l && smc_layer_sock_conn(l, v->s, &lc) && lc.has_core) {
		const smcr_conn_info *ci = &lc.core_info;
		obs_lgr g;
		obs_link ol;
		obs_ident_lgr(s->id, v->stack, ci->lgr_id, &g);
		obs_ident_link(s->id, v->stack, ci->link_id, &ol);
		if (g.known)
			set_hex(&r, C_LGR, g.num);
		if (ol.known)
			set_hex(&r, C_LINK, ol.local_id);
		r.has_text[C_STATE] = false;
		set_text(&r, C_STATE, report_conn_state_name((report_conn_state)ci->state));
		set_num(&r, C_RX_PROD, linear(ci->rx_prod, ci->rmbe_size));
		set_num(&r, C_RX_CONS, linear(ci->rx_cons, ci->rmbe_size));
		set_num(&r, C_TX_PROD, linear(ci->tx_prod, ci->peer_rmbe_size));
		set_num(&r, C_TX_CONS, linear(ci->tx_cons, ci->peer_rmbe_size));
		set_num(&r, C_RX_BUFFERED, ci->bytes_to_rcv);
		set_num(&r, C_RMBE_SIZE, ci->rmbe_size);
		set_num(&r, C_SNDBUF_USED, ci->sndbuf_size - ci->sndbuf_space);
		set_num(&r, C_SNDBUF_SIZE, ci->sndbuf_size);
		set_num(&r, C_PEER_RMBE_SPACE, ci->peer_rmbe_space);
	}
	write_row(s, &r);
}

/* ---- sampling ---- */

static void on_sample(void *ctx, world *w, uint64_t t)
{
	stats_sampler *s = ctx;
	const scn_scenario *scn = world_scenario(w);
	if (s->series)
		link_series_time(s->series, t);
	for (uint32_t i = 0; i < scn->n_stacks; i++)
		stack_row(s, t, i);
	for (uint32_t i = 0; i < scn->n_stacks; i++) {
		smc_layer *l = world_layer_at(w, i);
		if (!l)
			continue;
		link_ctx c = { s, t, i, l };
		smcr_ctx_foreach_link(smc_layer_ctx(l), link_row, &c);
	}
	conn_ctx c = { s, t };
	world_foreach_end(w, conn_row, &c);
}

static void on_timeline(void *ctx, world *w, const scn_event *ev)
{
	stats_sampler *s = ctx;
	const char *verb = obs_timeline_verb(ev);
	if (!s->series || !verb)
		return;
	char target[96], text[128];
	scn_event_target_text(world_scenario(w), ev, target, sizeof(target));
	snprintf(text, sizeof(text), "%s %s", verb, target);
	link_series_mark(s->series, sim_now(world_engine(w)), text);
}

stats_sampler *stats_new(FILE *out, world *w, obs_ident *id, const stats_opts *o, link_series *series)
{
	stats_sampler *s = g_new0(stats_sampler, 1);
	s->out = out;
	s->w = w;
	s->id = id;
	s->o = *o;
	if (!s->o.interval_ns)
		s->o.interval_ns = STATS_DEFAULT_INTERVAL_NS;
	s->series = series;
	s->failed_told = g_hash_table_new(g_direct_hash, g_direct_equal);
	if (series) {
		const scn_scenario *scn = world_scenario(w);
		snprintf(series->title, sizeof(series->title), "%s", scn->title[0] ? scn->title : scn->file);
	}
	if (out && o->format == STATS_CSV) {
		for (size_t c = 0; c < C_N; c++)
			fprintf(out, "%s%s", c ? "," : "", stats_columns[c]);
		fputc('\n', out);
	}
	return s;
}

void stats_observer(stats_sampler *s, world_observer *obs)
{
	memset(obs, 0, sizeof(*obs));
	obs->ctx = s;
	obs->sample_ns = s->o.interval_ns;
	obs->sample = on_sample;
	obs->timeline = on_timeline;
}

uint64_t stats_rows(const stats_sampler *s) { return s->rows; }

void stats_free(stats_sampler *s)
{
	if (s)
		g_hash_table_destroy(s->failed_told);
	g_free(s);
}
