/* Statements about applications and time: app, report, expect and the timeline (at). */
#include <string.h>

#include "sim/scenario/scn_attrs.h"
#include "sim/scenario/scn_values.h"

static const char *const listen_kinds[] = { "echo", "sink", "responder", NULL };
static const char *const connect_kinds[] = { "bulk", "echo", "rr", "crr", NULL };
static const char *const report_formats[] = { "auto", "netstat", "smc", "json", "smc_chk", NULL };

static const scn_attr_spec listen_specs[] = {
	{ "port", SCN_V_UINT, 1, 65535, NULL, NULL, "port=N", true },
	{ "kind", SCN_V_ENUM, 0, 0, listen_kinds, NULL, "kind=echo|sink|responder", true },
	{ "smc", SCN_V_BOOL, 0, 0, NULL, NULL, NULL, false },
	{ "start", SCN_V_START, 0, 0, NULL, NULL, NULL, false },
	{ "cpu", SCN_V_UINT, 0, HOST_MAX_CPUS - 1, NULL, NULL, NULL, false },
	{ "cork", SCN_V_BOOL, 0, 0, NULL, NULL, NULL, false },
	{ "more", SCN_V_BOOL, 0, 0, NULL, NULL, NULL, false },
	{ "nodelay", SCN_V_BOOL, 0, 0, NULL, NULL, NULL, false },
	{ "limiths", SCN_V_BOOL, 0, 0, NULL, NULL, NULL, false },
	/* a responder's own CPU time per request (its host's app category) */
	{ "work", SCN_V_DURATION, 0, NS_S, NULL, NULL, NULL, false },
};
enum { L_WORK = 9 };

enum { C_KIND,
       C_BYTES,
       C_REQUEST,
       C_RESPONSE,
       C_COUNT,
       C_CONNS,
       C_INTERVAL,
       C_START,
       C_CLOSE,
       C_SMC,
       C_THINK,
       C_DURATION,
       C_WRITE,
       C_CPU };
static const scn_attr_spec connect_specs[] = {
	{ "kind", SCN_V_ENUM, 0, 0, connect_kinds, NULL, "kind=bulk|echo|rr|crr", true },
	{ "bytes", SCN_V_SIZE, 0, 1ULL << 40, NULL, NULL, NULL, false },
	{ "request", SCN_V_SIZE, 1, 1ULL << 30, NULL, NULL, NULL, false },
	{ "response", SCN_V_SIZE, 1, 1ULL << 30, NULL, NULL, NULL, false },
	{ "count", SCN_V_UINT, 1, 1ULL << 32, NULL, NULL, NULL, false },
	{ "conns", SCN_V_UINT, 1, 65535, NULL, NULL, NULL, false },
	{ "interval", SCN_V_DURATION, 0, NS_H, NULL, NULL, NULL, false },
	{ "start", SCN_V_START, 0, 0, NULL, NULL, NULL, false },
	{ "close", SCN_V_CLOSE, 0, 0, NULL, NULL, NULL, false },
	{ "smc", SCN_V_BOOL, 0, 0, NULL, NULL, NULL, false },
	{ "think", SCN_V_DURATION, 0, NS_H, NULL, NULL, NULL, false },
	{ "duration", SCN_V_DURATION, 1, 24 * NS_H, NULL, NULL, NULL, false },
	/* bytes per send call (and per receive call at the listener), as qperf's msg_size */
	{ "write", SCN_V_SIZE, 1, 65536, NULL, NULL, NULL, false },
	/* the host CPU the application runs on (default: the application CPUs in turn) */
	{ "cpu", SCN_V_UINT, 0, HOST_MAX_CPUS - 1, NULL, NULL, NULL, false },
	{ "cork", SCN_V_BOOL, 0, 0, NULL, NULL, NULL, false },
	{ "more", SCN_V_BOOL, 0, 0, NULL, NULL, NULL, false },
	{ "nodelay", SCN_V_BOOL, 0, 0, NULL, NULL, NULL, false },
};

static const scn_attr_spec report_specs[] = {
	{ "format", SCN_V_ENUM, 0, 0, report_formats, NULL, NULL, false },
	{ "stack", SCN_V_NAME, 0, 0, NULL, NULL, NULL, false },
	{ "smcid", SCN_V_HEX, 0, 0xffffffffULL, NULL, NULL, NULL, false },
};

static const scn_attr_spec port_only_specs[] = {
	{ "port", SCN_V_UINT, 1, 2, NULL, scn_one_or_two, NULL, false },
};

static const scn_attr_spec set_specs[] = {
	{ "latency", SCN_V_DURATION, 0, 10 * NS_S, NULL, NULL, NULL, false },
	{ "bandwidth", SCN_V_RATE, 1000, 10000000000000ULL, NULL, NULL, NULL, false },
	{ "loss", SCN_V_RATIO, 0, 0, NULL, NULL, NULL, false },
	{ "dup", SCN_V_RATIO, 0, 0, NULL, NULL, NULL, false },
	{ "reorder", SCN_V_RATIO, 0, 0, NULL, NULL, NULL, false },
	{ "corrupt", SCN_V_RATIO, 0, 0, NULL, NULL, NULL, false },
	{ "port", SCN_V_UINT, 1, 2, NULL, scn_one_or_two, NULL, false },
};

static const scn_attr_spec reason_specs[] = {
	{ "reason", SCN_V_REASON, 0, 0, NULL, NULL, NULL, false },
};

static bool parse_endpoint(scn_parser *P, const scn_token *t, scn_app *app)
{
	const char *colon = strrchr(t->value, ':');
	if (!colon || colon == t->value || !colon[1]) {
		scn_error(P->d, t->loc, "bad endpoint '%s'; expected STACK:PORT, STACK.INTERFACE:PORT or A.B.C.D:PORT",
		          scn_echo(P->d, t->value));
		return false;
	}
	static const scn_attr_spec port_spec = { "port", SCN_V_UINT, 1, 65535, NULL, NULL, NULL, false };
	scn_val v;
	scn_loc ploc = t->loc;
	ploc.col += (uint32_t)(colon + 1 - t->value);
	if (!scn_attr_value(P, "port", colon + 1, ploc, &port_spec, &v))
		return false;
	app->port = (uint16_t)v.u;
	char *host = g_strndup(t->value, (size_t)(colon - t->value));
	bool ok = true;
	const char *why;
	uint32_t addr;
	app->dst_iface = SCN_NONE;
	app->dst_stack = SCN_NONE;
	if (g_ascii_isdigit(host[0])) {
		ok = scn_parse_ipv4(host, &addr, &why);
		if (!ok)
			scn_error(P->d, t->loc, "bad IPv4 address '%s' in endpoint; %s", host, why);
		app->ep_form = SCN_EP_IP;
		app->dst_ip = addr;
	} else if (strchr(host, '.')) {
		ok = scn_resolve_iface(P, host, t->loc, &app->dst_stack, &app->dst_iface);
		app->ep_form = SCN_EP_IFACE;
	} else {
		app->dst_stack = scn_resolve(P, SCN_SYM_STACK, host, t->loc);
		ok = app->dst_stack != SCN_NONE;
		app->ep_form = SCN_EP_STACK;
	}
	g_free(host);
	return ok;
}

/* Attributes that belong to other kinds, or exclude each other, are errors. */
static bool connect_attrs_fit(scn_parser *P, const scn_app *app, const scn_attrs *a)
{
	static const struct {
		int attr;
		unsigned kinds; /* bit per scn_app_kind it applies to */
		const char *only;
	} fit[] = {
		{ C_BYTES, 1u << SCN_KIND_BULK | 1u << SCN_KIND_ECHO, "kind=bulk or kind=echo" },
		{ C_REQUEST, 1u << SCN_KIND_RR | 1u << SCN_KIND_CRR, "kind=rr or kind=crr" },
		{ C_RESPONSE, 1u << SCN_KIND_RR | 1u << SCN_KIND_CRR, "kind=rr or kind=crr" },
		{ C_COUNT, 1u << SCN_KIND_RR | 1u << SCN_KIND_CRR, "kind=rr or kind=crr" },
		{ C_THINK, 1u << SCN_KIND_RR | 1u << SCN_KIND_CRR, "kind=rr or kind=crr" },
		{ C_DURATION, 1u << SCN_KIND_BULK | 1u << SCN_KIND_RR | 1u << SCN_KIND_CRR, "kind=bulk, rr or crr" },
		{ C_WRITE, 1u << SCN_KIND_BULK | 1u << SCN_KIND_ECHO, "kind=bulk or kind=echo" },
	};
	for (size_t i = 0; i < N_SPECS(fit); i++)
		if (a->tok[fit[i].attr] && !(fit[i].kinds & 1u << app->kind)) {
			scn_error(P->d, a->tok[fit[i].attr]->loc, "attribute '%s' does not apply to kind=%s; expected it only with %s",
			          a->tok[fit[i].attr]->key, scn_kind_name(app->kind), fit[i].only);
			return false;
		}
	const scn_token *amount = a->tok[C_BYTES] ? a->tok[C_BYTES] : a->tok[C_COUNT];
	if (a->tok[C_DURATION] && amount) {
		scn_error(P->d, a->tok[C_DURATION]->loc, "duration= replaces %s= (given at %u:%u); expected one of them",
		          amount->key, amount->loc.line, amount->loc.col);
		return false;
	}
	return true;
}

/* bytes, request, response, count, think and duration of a connecting app. */
static bool connect_workload(scn_parser *P, scn_app *app, const scn_attrs *a)
{
	const char *scope = app->kind == SCN_KIND_BULK ? "app bulk" : app->kind == SCN_KIND_ECHO ? "app echo"
	                                                      : app->kind == SCN_KIND_RR   ? "app rr"
	                                                                                   : "app crr";
	bool rr = app->kind == SCN_KIND_RR || app->kind == SCN_KIND_CRR;
	scn_val v;
	bool dur;
	if (!scn_attr_get(P, a, "duration", NULL, SCN_PERS_LINUX, &v, &dur))
		return false;
	app->duration_ns = dur ? v.u : 0;
	if (!rr) {
		if (!scn_attr_get(P, a, "write", scope, SCN_PERS_LINUX, &v, NULL))
			return false;
		app->write = v.u;
		if (dur)
			return true; /* bulk for a time: no byte count */
		if (!scn_attr_get(P, a, "bytes", scope, SCN_PERS_LINUX, &v, NULL))
			return false;
		app->bytes = v.u;
		return true;
	}
	if (!scn_attr_get(P, a, "request", scope, SCN_PERS_LINUX, &v, NULL))
		return false;
	app->request = v.u;
	if (!scn_attr_get(P, a, "response", scope, SCN_PERS_LINUX, &v, NULL))
		return false;
	app->response = v.u;
	if (!scn_attr_get(P, a, "think", scope, SCN_PERS_LINUX, &v, NULL))
		return false;
	app->think_ns = v.u;
	if (dur) {
		app->count = UINT64_MAX;
		return true;
	}
	if (!scn_attr_get(P, a, "count", scope, SCN_PERS_LINUX, &v, NULL))
		return false;
	app->count = v.u;
	return true;
}

void scn_stmt_app(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "app NAME STACK listen port=N kind=… or app NAME STACK connect ENDPOINT kind=…";
	size_t np = scn_attr_positionals(P, st, usage);
	if (!scn_stmt_name_given(P, st, np, "app", usage))
		return;
	uint32_t idx = scn_declare(P, SCN_SYM_APP, st, (uint32_t)P->scn->n_apps);
	if (idx == SCN_NONE)
		return;
	scn_app *app = SCN_PUSH(P->scn->apps, P->scn->n_apps);
	g_strlcpy(app->name, st->tok[1].value, sizeof(app->name));
	app->loc = st->loc;
	app->stack = app->dst_stack = app->dst_iface = app->listener = SCN_NONE;
	app->conns = 1;
	g_array_append_val(P->ep_loc, st->loc);
	gboolean start_given = FALSE;
	g_array_append_val(P->start_given, start_given);
	bool ok = np != SIZE_MAX;
	if (ok && np < 4) {
		scn_error(P->d, st->loc, "app '%s' needs a stack and a role; expected %s", app->name, usage);
		ok = false;
	}
	if (ok) {
		app->stack = scn_resolve(P, SCN_SYM_STACK, st->tok[2].value, st->tok[2].loc);
		ok = app->stack != SCN_NONE;
	}
	bool listen = ok && scn_word_is(&st->tok[3], "listen");
	if (ok && !listen && !scn_word_is(&st->tok[3], "connect")) {
		scn_error(P->d, st->tok[3].loc, "unknown role '%s'; expected listen or connect", scn_echo(P->d, st->tok[3].value));
		ok = false;
	}
	size_t want = listen ? 4 : 5;
	if (ok && np != want) {
		if (np < want)
			scn_error(P->d, st->loc, "missing endpoint; expected app NAME STACK connect ENDPOINT kind=…");
		else
			scn_error(P->d, st->tok[want].loc, "unexpected word '%s'; expected %s", scn_echo(P->d, st->tok[want].value),
			          listen ? "app NAME STACK listen port=N kind=…" : "app NAME STACK connect ENDPOINT kind=…");
		ok = false;
	}
	scn_attrs a = { 0 };
	scn_val v;
	bool given;
	if (ok && listen) {
		app->role = SCN_ROLE_LISTEN;
		ok = scn_attr_collect(P, st, np, listen_specs, N_SPECS(listen_specs), "a listening app", &a);
		if (ok && (ok = scn_attr_get(P, &a, "port", "app", SCN_PERS_LINUX, &v, NULL)))
			app->port = (uint16_t)v.u;
		if (ok && (ok = scn_attr_get(P, &a, "kind", "app", SCN_PERS_LINUX, &v, NULL)))
			app->kind = v.u == 0 ? SCN_KIND_ECHO : v.u == 1 ? SCN_KIND_SINK
			                                                : SCN_KIND_RESPONDER;
		bool given_work = false;
		if (ok && (ok = scn_attr_get(P, &a, "work", NULL, SCN_PERS_LINUX, &v, &given_work)) && given_work) {
			if (app->kind != SCN_KIND_RESPONDER) {
				scn_error(P->d, a.tok[L_WORK]->loc,
				          "work= is a responder's CPU time per request; expected it with kind=responder");
				ok = false;
			}
			app->work_ns = v.u;
		}
	} else if (ok) {
		app->role = SCN_ROLE_CONNECT;
		g_array_index(P->ep_loc, scn_loc, idx) = st->tok[4].loc;
		ok = scn_attr_collect(P, st, np, connect_specs, N_SPECS(connect_specs), "a connecting app", &a);
		if (ok && (ok = scn_attr_get(P, &a, "kind", "app", SCN_PERS_LINUX, &v, NULL)))
			app->kind = v.u == 0 ? SCN_KIND_BULK : v.u == 1 ? SCN_KIND_ECHO : v.u == 2 ? SCN_KIND_RR : SCN_KIND_CRR;
		if (ok)
			ok = parse_endpoint(P, &st->tok[4], app);
		if (ok)
			ok = connect_attrs_fit(P, app, &a);
		if (ok)
			ok = connect_workload(P, app, &a);
		if (ok && (ok = scn_attr_get(P, &a, "conns", "app", SCN_PERS_LINUX, &v, NULL)))
			app->conns = (uint32_t)v.u;
		if (ok && (ok = scn_attr_get(P, &a, "interval", "app", SCN_PERS_LINUX, &v, NULL)))
			app->interval_ns = v.u;
		if (ok && (ok = scn_attr_get(P, &a, "close", "app", SCN_PERS_LINUX, &v, NULL))) {
			app->close = (scn_close)v.close;
			app->close_at_ns = v.u;
		}
		if (ok && app->kind == SCN_KIND_CRR && app->close != SCN_CLOSE_AFTER) {
			scn_error(P->d, a.tok[C_CLOSE]->loc, "kind=crr closes each connection after its transaction; expected close=after");
			ok = false;
		}
	}
	if (ok && (ok = scn_attr_get(P, &a, "smc", "app", SCN_PERS_LINUX, &v, NULL)))
		app->smc = v.b;
	bool given_cpu = false;
	if (ok && (ok = scn_attr_get(P, &a, "cpu", NULL, SCN_PERS_LINUX, &v, &given_cpu)) && given_cpu)
		app->cpu = (uint32_t)v.u + 1;
	if (ok && (ok = scn_attr_get(P, &a, "cork", "app", SCN_PERS_LINUX, &v, NULL)))
		app->cork = v.b;
	if (ok && (ok = scn_attr_get(P, &a, "more", "app", SCN_PERS_LINUX, &v, NULL)))
		app->more = v.b;
	if (ok && (ok = scn_attr_get(P, &a, "nodelay", "app", SCN_PERS_LINUX, &v, NULL)))
		app->nodelay = v.b;
	app->limiths = -1;
	if (ok && listen && (ok = scn_attr_get(P, &a, "limiths", "app", SCN_PERS_LINUX, &v, &given)) && given)
		app->limiths = v.b ? 1 : 0;
	if (ok && (ok = scn_attr_get(P, &a, "start", "app", SCN_PERS_LINUX, &v, &given))) {
		app->start_never = v.b;
		app->start_ns = v.u;
		g_array_index(P->start_given, gboolean, idx) = given;
	}
	if (!ok)
		scn_mark_broken(P, SCN_BRK_APP, idx);
}

static bool parse_report(scn_parser *P, const scn_stmt *st, size_t first, scn_report *r)
{
	scn_attrs a = { 0 };
	scn_val v;
	bool given;
	*r = (scn_report){ .loc = st->loc, .stack = SCN_NONE };
	if (!scn_attr_collect(P, st, first, report_specs, N_SPECS(report_specs), "report", &a))
		return false;
	if (!scn_attr_get(P, &a, "format", "report", SCN_PERS_LINUX, &v, NULL))
		return false;
	r->format = (scn_report_format)v.u;
	if (!scn_attr_get(P, &a, "stack", NULL, SCN_PERS_LINUX, &v, &given))
		return false;
	if (given && (r->stack = scn_resolve(P, SCN_SYM_STACK, v.s, a.tok[1]->vloc)) == SCN_NONE)
		return false;
	if (!scn_attr_get(P, &a, "smcid", NULL, SCN_PERS_LINUX, &v, &given))
		return false;
	r->has_smcid = given;
	r->smcid = (uint32_t)v.u;
	return true;
}

void scn_stmt_report(scn_parser *P, const scn_stmt *st)
{
	size_t np = scn_attr_positionals(P, st, "report [format=…] [stack=NAME] [smcid=HEX]");
	if (np == SIZE_MAX)
		return;
	if (np != 1) {
		scn_error(P->d, st->tok[1].loc, "unexpected word '%s'; expected report [format=…] [stack=NAME] [smcid=HEX]",
		          scn_echo(P->d, st->tok[1].value));
		return;
	}
	scn_report r;
	if (parse_report(P, st, 1, &r))
		*SCN_PUSH(P->scn->reports, P->scn->n_reports) = r;
}

/* ---- expectations ----------------------------------------------------------------- */

typedef enum { ARGS_TWO_STACKS,
	       ARGS_APP,
	       ARGS_OPT_STACK,
	       ARGS_STACK,
	       ARGS_APP_STAT,
	       ARGS_CPU } metric_args;
typedef enum { RHS_NUM,
	       RHS_MODE_WORD,
	       RHS_BYTES,
	       RHS_DURATION,
	       RHS_RATE,
	       RHS_CPU } metric_rhs;

static const struct metric_def {
	const char *name;
	scn_metric metric;
	metric_args args;
	metric_rhs rhs;
	bool reason;
	const char *usage;
} metrics[] = {
	{ "linkgroups", SCN_M_LINKGROUPS, ARGS_TWO_STACKS, RHS_NUM, false, "expect linkgroups STACK STACK OP N" },
	{ "links", SCN_M_LINKS, ARGS_TWO_STACKS, RHS_NUM, false, "expect links STACK STACK OP N" },
	{ "conns", SCN_M_CONNS, ARGS_TWO_STACKS, RHS_NUM, false, "expect conns STACK STACK OP N" },
	{ "mode", SCN_M_MODE, ARGS_APP, RHS_MODE_WORD, true, "expect mode APP ==|!= SMCR|TCP|FALLBACK [reason=CODE]" },
	{ "sent", SCN_M_SENT, ARGS_APP, RHS_BYTES, false, "expect sent APP OP SIZE|sent APP|delivered APP|received APP" },
	{ "delivered", SCN_M_DELIVERED, ARGS_APP, RHS_BYTES, false,
	  "expect delivered APP OP SIZE|sent APP|delivered APP|received APP" },
	{ "received", SCN_M_RECEIVED, ARGS_APP, RHS_BYTES, false,
	  "expect received APP OP SIZE|sent APP|delivered APP|received APP" },
	{ "aborted", SCN_M_ABORTED, ARGS_OPT_STACK, RHS_NUM, false, "expect aborted [STACK] OP N" },
	{ "fallback", SCN_M_FALLBACK, ARGS_STACK, RHS_NUM, true, "expect fallback STACK OP N [reason=CODE]" },
	{ "ops", SCN_M_OPS, ARGS_APP, RHS_NUM, false, "expect ops APP OP N" },
	{ "latency", SCN_M_LATENCY, ARGS_APP_STAT, RHS_DURATION, false,
	  "expect latency APP min|mean|p50|p90|p99|p99.9|max OP DURATION" },
	{ "connect", SCN_M_CONNECT, ARGS_APP_STAT, RHS_DURATION, false,
	  "expect connect APP min|mean|p50|p90|p99|p99.9|max OP DURATION" },
	{ "fct", SCN_M_FCT, ARGS_APP_STAT, RHS_DURATION, false, "expect fct APP min|mean|p50|p90|p99|p99.9|max OP DURATION" },
	{ "throughput", SCN_M_THROUGHPUT, ARGS_APP, RHS_RATE, false, "expect throughput APP OP RATE" },
	{ "cpu", SCN_M_CPU, ARGS_CPU, RHS_CPU, false,
	  "expect cpu STACK [app|tcpip|smcr|irq] [per=txn|MiB|util|busiest] OP DURATION|RATIO" },
};

static const char *const stat_words[] = { "min", "mean", "p50", "p90", "p99", "p99.9", "max", NULL };
static const char *const cpu_cat_words[] = { "app", "tcpip", "smcr", "irq", NULL };
static const char *const cpu_per_words[] = { "txn", "MiB", "util", "busiest", NULL };

static const scn_attr_spec cpu_specs[] = {
	{ "per", SCN_V_ENUM, 0, 0, cpu_per_words, NULL, "per=txn|MiB|util|busiest", false },
};

static int word_index(const scn_token *t, const char *const *words)
{
	for (int i = 0; words[i]; i++)
		if (scn_word_is(t, words[i]))
			return i;
	return -1;
}

static const char *const cmp_words[] = { "==", "!=", "<", "<=", ">", ">=", NULL };
static const char *const mode_words[] = { "SMCR", "TCP", "FALLBACK", NULL };

static int cmp_of(const scn_token *t)
{
	for (int i = 0; cmp_words[i]; i++)
		if (scn_word_is(t, cmp_words[i]))
			return i;
	return -1;
}

/* "linkgroups, links, …": the metric words, for messages (g_free it). */
static char *metric_names(void)
{
	GString *s = g_string_new(NULL);
	for (size_t i = 0; i < N_SPECS(metrics); i++)
		g_string_append_printf(s, "%s%s", i ? ", " : "", metrics[i].name);
	return g_string_free(s, FALSE);
}

/* The metric that st->tok[first] names; NULL after reporting. */
static const struct metric_def *expect_metric(scn_parser *P, const scn_stmt *st, size_t np, size_t first)
{
	if (np <= first) {
		char *names = metric_names();
		scn_error(P->d, st->loc, "missing what to expect; expected one of %s", names);
		g_free(names);
		return NULL;
	}
	const scn_token *mt = &st->tok[first];
	for (size_t i = 0; i < N_SPECS(metrics); i++)
		if (scn_word_is(mt, metrics[i].name))
			return &metrics[i];
	char *names = metric_names();
	scn_error(P->d, mt->loc, "unknown expectation '%s'; expected one of %s", scn_echo(P->d, mt->value), names);
	g_free(names);
	return NULL;
}

/* APP STAT: an app and the statistic of its distribution. */
static bool expect_app_stat(scn_parser *P, const scn_token *arg, scn_expect *e)
{
	e->app_loc = arg[0].loc;
	if (!scn_resolve_app_ref(P, &arg[0], &e->app))
		return false;
	int st = word_index(&arg[1], stat_words);
	if (st < 0) {
		scn_error(P->d, arg[1].loc, "unknown statistic '%s'; expected min, mean, p50, p90, p99, p99.9 or max",
		          scn_echo(P->d, arg[1].value));
		return false;
	}
	e->stat = (scn_stat)st;
	return true;
}

/* STACK [CATEGORY]. */
static bool expect_cpu_subject(scn_parser *P, const scn_token *arg, size_t nargs, scn_expect *e)
{
	if ((e->stack_a = scn_resolve(P, SCN_SYM_STACK, arg[0].value, arg[0].loc)) == SCN_NONE)
		return false;
	e->cpu_cat = SCN_CPU_ALL;
	if (nargs < 2)
		return true;
	int c = word_index(&arg[1], cpu_cat_words);
	if (c < 0) {
		scn_error(P->d, arg[1].loc, "unknown CPU category '%s'; expected app, tcpip, smcr or irq",
		          scn_echo(P->d, arg[1].value));
		return false;
	}
	e->cpu_cat = (scn_cpu_cat)(c + 1);
	return true;
}

/* per= of `expect cpu` (before its value, whose kind it decides). */
static bool expect_cpu_per(scn_parser *P, const scn_stmt *st, size_t np, scn_expect *e)
{
	scn_attrs a = { 0 };
	scn_val v;
	bool given;
	if (!scn_attr_collect(P, st, np, cpu_specs, N_SPECS(cpu_specs), "expect cpu", &a) ||
	    !scn_attr_get(P, &a, "per", NULL, SCN_PERS_LINUX, &v, &given))
		return false;
	e->cpu_per = given ? (scn_cpu_per)(v.u + 1) : SCN_PER_TOTAL;
	return true;
}

/* The words between the metric and the comparison st->tok[op]: two stacks, an app or
 * a stack (optional for `aborted`), an app and a statistic, a stack and a category. */
static bool expect_subject(scn_parser *P, const scn_stmt *st, size_t first, size_t op, const struct metric_def *m,
                           scn_expect *e)
{
	size_t nargs = op - first - 1;
	size_t want_lo = m->args == ARGS_TWO_STACKS || m->args == ARGS_APP_STAT ? 2 : m->args == ARGS_OPT_STACK ? 0
	                                                                                                     : 1;
	size_t want_hi = m->args == ARGS_TWO_STACKS || m->args == ARGS_APP_STAT || m->args == ARGS_CPU ? 2 : 1;
	if (nargs < want_lo || nargs > want_hi) {
		scn_error(P->d, nargs > want_hi ? st->tok[first + 1 + want_hi].loc : st->tok[op].loc,
		          "%s before '%s'; expected %s", nargs > want_hi ? "too many words" : "too few words",
		          scn_echo(P->d, st->tok[op].value), m->usage);
		return false;
	}
	const scn_token *arg = &st->tok[first + 1];
	switch (m->args) {
	case ARGS_TWO_STACKS:
		if ((e->stack_a = scn_resolve(P, SCN_SYM_STACK, arg[0].value, arg[0].loc)) == SCN_NONE ||
		    (e->stack_b = scn_resolve(P, SCN_SYM_STACK, arg[1].value, arg[1].loc)) == SCN_NONE)
			return false;
		if (e->stack_a == e->stack_b) {
			scn_error(P->d, arg[1].loc, "both stacks are '%s'; expected two different stacks", scn_echo(P->d, arg[1].value));
			return false;
		}
		return true;
	case ARGS_APP:
		e->app_loc = arg[0].loc;
		return scn_resolve_app_ref(P, &arg[0], &e->app);
	case ARGS_OPT_STACK:
	case ARGS_STACK:
		return !nargs || (e->stack_a = scn_resolve(P, SCN_SYM_STACK, arg[0].value, arg[0].loc)) != SCN_NONE;
	case ARGS_APP_STAT:
		return expect_app_stat(P, arg, e);
	case ARGS_CPU:
		return expect_cpu_subject(P, arg, nargs, e);
	}
	return false;
}

/* A plain number right of the comparison (counts, or bytes with a size suffix). */
static bool expect_number(scn_parser *P, const scn_token *rhs, const scn_attr_spec *spec, scn_expect *e)
{
	scn_val v;
	if (!scn_attr_value(P, spec->key, rhs->value, rhs->loc, spec, &v))
		return false;
	e->rhs = SCN_RHS_NUMBER;
	e->value = v.u;
	return true;
}

static bool expect_count(scn_parser *P, const scn_token *rhs, size_t nrhs, const struct metric_def *m, scn_expect *e)
{
	static const scn_attr_spec spec = { "the expected count", SCN_V_UINT, 0, UINT64_MAX, NULL, NULL, NULL, false };
	if (nrhs > 1) {
		scn_error(P->d, rhs[1].loc, "unexpected word '%s'; expected %s", scn_echo(P->d, rhs[1].value), m->usage);
		return false;
	}
	return expect_number(P, rhs, &spec, e);
}

static bool expect_mode(scn_parser *P, const scn_token *optok, const scn_token *rhs, size_t nrhs, scn_expect *e)
{
	if (e->cmp != SCN_CMP_EQ && e->cmp != SCN_CMP_NE) {
		scn_error(P->d, optok->loc, "'%s' cannot compare modes; expected == or !=", scn_echo(P->d, optok->value));
		return false;
	}
	int mode = -1;
	for (int i = 0; mode_words[i]; i++)
		if (scn_word_is(rhs, mode_words[i]))
			mode = i;
	if (mode < 0 || nrhs > 1) {
		scn_error(P->d, mode < 0 ? rhs->loc : rhs[1].loc, "bad mode '%s'; expected SMCR, TCP or FALLBACK",
		          mode < 0 ? scn_echo(P->d, rhs->value) : scn_echo(P->d, rhs[1].value));
		return false;
	}
	e->rhs = SCN_RHS_MODE;
	e->mode = (scn_mode)mode;
	return true;
}

/* A size, or another app's counter: `sent APP`, `delivered APP`, `received APP`. */
static bool expect_bytes(scn_parser *P, const scn_token *rhs, size_t nrhs, const struct metric_def *m, scn_expect *e)
{
	static const scn_attr_spec spec = { "the expected bytes", SCN_V_SIZE, 0, UINT64_MAX, NULL, NULL, NULL, false };
	static const struct {
		const char *w;
		scn_metric m;
	} counters[] = {
		{ "sent", SCN_M_SENT },
		{ "delivered", SCN_M_DELIVERED },
		{ "received", SCN_M_RECEIVED },
	};
	if (nrhs == 1)
		return expect_number(P, rhs, &spec, e);
	if (nrhs != 2) {
		scn_error(P->d, rhs[2].loc, "unexpected word '%s'; expected %s", scn_echo(P->d, rhs[2].value), m->usage);
		return false;
	}
	int c = -1;
	for (int i = 0; i < 3; i++)
		if (scn_word_is(rhs, counters[i].w))
			c = i;
	if (c < 0) {
		scn_error(P->d, rhs->loc, "unknown counter '%s'; expected sent, delivered or received", scn_echo(P->d, rhs->value));
		return false;
	}
	e->rhs = SCN_RHS_COUNTER;
	e->rhs_metric = counters[c].m;
	return scn_resolve_app_ref(P, &rhs[1], &e->rhs_app);
}

/* A duration, a rate or a ratio right of the comparison: one word. */
static bool expect_value(scn_parser *P, const scn_token *rhs, size_t nrhs, const struct metric_def *m, scn_vtype t,
                         scn_expect *e)
{
	static const scn_attr_spec specs[] = {
		{ "the expected duration", SCN_V_DURATION, 0, UINT64_MAX, NULL, NULL, NULL, false },
		{ "the expected rate", SCN_V_RATE, 0, UINT64_MAX, NULL, NULL, NULL, false },
		{ "the expected ratio", SCN_V_RATIO, 0, 0, NULL, NULL, NULL, false },
	};
	if (nrhs > 1) {
		scn_error(P->d, rhs[1].loc, "unexpected word '%s'; expected %s", scn_echo(P->d, rhs[1].value), m->usage);
		return false;
	}
	const scn_attr_spec *sp = t == SCN_V_DURATION ? &specs[0] : t == SCN_V_RATE ? &specs[1]
	                                                                            : &specs[2];
	scn_val v;
	if (!scn_attr_value(P, sp->key, rhs->value, rhs->loc, sp, &v))
		return false;
	e->rhs = SCN_RHS_NUMBER;
	if (t != SCN_V_RATIO) {
		e->value = v.u;
		return true;
	}
	e->ratio = v.r;
	e->value = (uint64_t)((unsigned __int128)v.r.num * 1000000000u / v.r.den); /* parts per billion */
	return true;
}

/* The words right of the comparison st->tok[op], up to the attributes at np. */
static bool expect_rhs(scn_parser *P, const scn_stmt *st, size_t op, size_t np, const struct metric_def *m,
                       scn_expect *e)
{
	const scn_token *rhs = &st->tok[op + 1];
	size_t nrhs = np - op - 1;
	if (nrhs == 0) {
		scn_error(P->d, st->tok[op].loc, "missing value after '%s'; expected %s", scn_echo(P->d, st->tok[op].value), m->usage);
		return false;
	}
	switch (m->rhs) {
	case RHS_NUM:
		return expect_count(P, rhs, nrhs, m, e);
	case RHS_MODE_WORD:
		return expect_mode(P, &st->tok[op], rhs, nrhs, e);
	case RHS_BYTES:
		return expect_bytes(P, rhs, nrhs, m, e);
	case RHS_DURATION:
		return expect_value(P, rhs, nrhs, m, SCN_V_DURATION, e);
	case RHS_RATE:
		return expect_value(P, rhs, nrhs, m, SCN_V_RATE, e);
	case RHS_CPU:
		return expect_value(P, rhs, nrhs, m,
		                    e->cpu_per == SCN_PER_UTIL || e->cpu_per == SCN_PER_BUSIEST ? SCN_V_RATIO : SCN_V_DURATION, e);
	}
	return false;
}

/* reason=CODE, where the metric takes one (FALLBACK modes and fallback counts). */
static bool expect_reason(scn_parser *P, const scn_stmt *st, size_t np, const struct metric_def *m, scn_expect *e)
{
	scn_attrs a = { 0 };
	scn_val v;
	bool given;
	if (!scn_attr_collect(P, st, np, reason_specs, m->reason ? 1 : 0, "this expectation", &a))
		return false;
	if (!m->reason)
		return true;
	if (!scn_attr_get(P, &a, "reason", NULL, SCN_PERS_LINUX, &v, &given))
		return false;
	if (given && m->metric == SCN_M_MODE && e->mode != SCN_MODE_FALLBACK) {
		scn_error(P->d, a.tok[0]->loc, "reason= applies only to FALLBACK; expected mode … == FALLBACK reason=…");
		return false;
	}
	e->has_reason = given;
	e->reason = (uint32_t)v.u;
	return true;
}

/* Keep the expectation; a timed one also gets its place on the timeline. */
static void add_expect(scn_parser *P, const scn_stmt *st, const scn_expect *e)
{
	uint32_t idx = (uint32_t)P->scn->n_expects;
	*SCN_PUSH(P->scn->expects, P->scn->n_expects) = *e;
	if (!e->timed)
		return;
	scn_event *ev = SCN_PUSH(P->scn->events, P->scn->n_events);
	ev->loc = st->loc;
	ev->at_ns = e->at_ns;
	ev->order = P->event_order++;
	ev->kind = SCN_EV_EXPECT;
	ev->target_kind = SCN_TGT_NONE;
	ev->target = SCN_NONE;
	ev->stack = SCN_NONE;
	ev->expect = idx;
}

static void parse_expect_stmt(scn_parser *P, const scn_stmt *st, size_t first, bool timed, uint64_t at_ns);

/* `expect cpu STACK per=… OP VALUE`: per= may stand before the comparison, where it
 * reads best, or trail like other attributes; a copy of st with it at the end (tok is
 * g_free'd by the caller), or NULL when it trails already. */
static scn_token *cpu_per_last(const scn_stmt *st, size_t first, scn_stmt *moved)
{
	if (first >= st->n || st->tok[first].key || strcmp(st->tok[first].value, "cpu"))
		return NULL;
	size_t k = first + 1;
	while (k < st->n && st->tok[k].key == NULL)
		k++;
	size_t rest = k + 1;
	while (rest < st->n && st->tok[rest].key)
		rest++;
	if (k >= st->n || rest >= st->n || strcmp(st->tok[k].key, "per"))
		return NULL; /* no per= followed by more words */
	scn_token *tok = g_new(scn_token, st->n);
	size_t n = 0;
	for (size_t i = 0; i < st->n; i++)
		if (i != k)
			tok[n++] = st->tok[i];
	tok[n] = st->tok[k];
	*moved = *st;
	moved->tok = tok;
	return tok;
}

/* `expect …` whose metric word is st->tok[first]; timed when called from `at`. */
static void parse_expect(scn_parser *P, const scn_stmt *st, size_t first, bool timed, uint64_t at_ns)
{
	scn_stmt moved;
	scn_token *tok = cpu_per_last(st, first, &moved);
	if (tok)
		st = &moved;
	parse_expect_stmt(P, st, first, timed, at_ns);
	g_free(tok);
}

static void parse_expect_stmt(scn_parser *P, const scn_stmt *st, size_t first, bool timed, uint64_t at_ns)
{
	size_t np = scn_attr_positionals(P, st, "expect METRIC … OP VALUE");
	if (np == SIZE_MAX)
		return;
	const struct metric_def *m = expect_metric(P, st, np, first);
	if (!m)
		return;
	size_t op = first + 1;
	while (op < np && cmp_of(&st->tok[op]) < 0)
		op++;
	if (op == np) {
		scn_error(P->d, st->loc, "missing comparison; expected ==, !=, <, <=, > or >= in %s", m->usage);
		return;
	}
	scn_expect e = { .loc = st->loc, .timed = timed, .at_ns = at_ns, .metric = m->metric, .stack_a = SCN_NONE, .stack_b = SCN_NONE, .app = { SCN_NONE, 0 }, .rhs_app = { SCN_NONE, 0 } };
	e.cmp = (scn_cmp)cmp_of(&st->tok[op]);
	bool cpu = m->metric == SCN_M_CPU;
	if (expect_subject(P, st, first, op, m, &e) && (!cpu || expect_cpu_per(P, st, np, &e)) &&
	    expect_rhs(P, st, op, np, m, &e) && (cpu || expect_reason(P, st, np, m, &e)))
		add_expect(P, st, &e);
}

void scn_stmt_expect(scn_parser *P, const scn_stmt *st)
{
	parse_expect(P, st, 1, false, 0);
}

/* ---- the timeline ------------------------------------------------------------------ */

/* An action of `at TIME VERB …` (st->tok[2]) fills ev; false after reporting. */
typedef bool (*at_action)(scn_parser *P, const scn_stmt *st, size_t np, scn_event *ev);

static bool at_report(scn_parser *P, const scn_stmt *st, size_t np, scn_event *ev)
{
	if (np != 3) {
		scn_error(P->d, st->tok[3].loc, "unexpected word '%s'; expected at TIME report [format=…] [stack=NAME] [smcid=HEX]",
		          scn_echo(P->d, st->tok[3].value));
		return false;
	}
	ev->kind = SCN_EV_REPORT;
	return parse_report(P, st, 3, &ev->report);
}

static bool at_start_stop(scn_parser *P, const scn_stmt *st, size_t np, scn_event *ev)
{
	const scn_token *verb = &st->tok[2];
	ev->kind = scn_word_is(verb, "start") ? SCN_EV_START_APP : SCN_EV_STOP_APP;
	if (np != 5 || !scn_word_is(&st->tok[3], "app")) {
		scn_error(P->d, np > 5 ? st->tok[5].loc : np > 3 ? st->tok[3].loc
		                                                 : verb->loc,
		          "%s; expected at TIME %s app NAME",
		          np > 5 ? "unexpected word" : np > 3 && !scn_word_is(&st->tok[3], "app") ? "only apps can start or stop"
		                                                                                  : "missing app",
		          scn_echo(P->d, verb->value));
		return false;
	}
	scn_attrs a = { 0 };
	if (!scn_attr_collect(P, st, np, NULL, 0, verb->value, &a))
		return false;
	ev->target_kind = SCN_TGT_APP;
	return (ev->target = scn_resolve(P, SCN_SYM_APP, st->tok[4].value, st->tok[4].loc)) != SCN_NONE;
}

/* `… KIND NAME` (st->tok[3], st->tok[4]) of fail, restore and set: the target. */
static bool at_target(scn_parser *P, const scn_stmt *st, bool set, const char *kinds, scn_event *ev)
{
	static const struct {
		const char *word;
		scn_target_kind target;
		scn_sym_kind sym;
	} targets[] = {
		{ "adapter", SCN_TGT_ADAPTER, SCN_SYM_ADAPTER },
		{ "wire", SCN_TGT_WIRE, SCN_SYM_WIRE },
		{ "switch", SCN_TGT_SWITCH, SCN_SYM_SWITCH }, /* switches fail and restore, nothing to set */
		{ "interface", SCN_TGT_INTERFACE, SCN_SYM_N },
	};
	const scn_token *verb = &st->tok[2], *kt = &st->tok[3], *nt = &st->tok[4];
	size_t i = 0;
	while (i < N_SPECS(targets) && !(scn_word_is(kt, targets[i].word) && !(set && targets[i].target == SCN_TGT_SWITCH)))
		i++;
	if (i == N_SPECS(targets)) {
		scn_error(P->d, kt->loc, "unknown target '%s' for %s; expected %s", scn_echo(P->d, kt->value),
		          scn_echo(P->d, verb->value), kinds);
		return false;
	}
	ev->target_kind = targets[i].target;
	if (ev->target_kind == SCN_TGT_INTERFACE)
		return scn_resolve_iface(P, nt->value, nt->loc, &ev->stack, &ev->target) && ev->target != SCN_NONE;
	return (ev->target = scn_resolve(P, targets[i].sym, nt->value, nt->loc)) != SCN_NONE;
}

/* The link parameters of `at TIME set …`: at least one. */
static bool at_set_fields(scn_parser *P, const scn_stmt *st, size_t np, bool port_ok, scn_event *ev, scn_attrs *a)
{
	static const struct {
		const char *key;
		uint32_t bit;
	} fields[] = {
		{ "latency", SCN_SET_LATENCY },
		{ "bandwidth", SCN_SET_BANDWIDTH },
		{ "loss", SCN_SET_LOSS },
		{ "dup", SCN_SET_DUP },
		{ "reorder", SCN_SET_REORDER },
		{ "corrupt", SCN_SET_CORRUPT },
	};
	if (!scn_attr_collect(P, st, np, set_specs, N_SPECS(set_specs) - (port_ok ? 0 : 1), "set", a))
		return false;
	for (size_t i = 0; i < N_SPECS(fields); i++) {
		scn_val v;
		bool given;
		if (!scn_attr_get(P, a, fields[i].key, NULL, SCN_PERS_LINUX, &v, &given))
			return false;
		if (!given)
			continue;
		ev->set_mask |= fields[i].bit;
		switch (fields[i].bit) {
		case SCN_SET_LATENCY: ev->set.latency_ns = v.u; break;
		case SCN_SET_BANDWIDTH: ev->set.bandwidth_bps = v.u; break;
		case SCN_SET_LOSS: ev->set.loss = v.r; break;
		case SCN_SET_DUP: ev->set.dup = v.r; break;
		case SCN_SET_REORDER: ev->set.reorder = v.r; break;
		default: ev->set.corrupt = v.r; break;
		}
	}
	if (!ev->set_mask) {
		scn_error(P->d, st->loc, "nothing to set; expected at least one of latency=, bandwidth=, loss=, dup=, reorder=, corrupt=");
		return false;
	}
	return true;
}

/* fail, restore and set: a target, then set's parameters or an adapter's port=. */
static bool at_change(scn_parser *P, const scn_stmt *st, size_t np, scn_event *ev)
{
	const scn_token *verb = &st->tok[2];
	bool set = scn_word_is(verb, "set");
	ev->kind = set ? SCN_EV_SET : scn_word_is(verb, "fail") ? SCN_EV_FAIL
	                                                        : SCN_EV_RESTORE;
	const char *kinds = set ? "adapter, wire or interface" : "adapter, wire, switch or interface";
	if (np < 5) {
		scn_error(P->d, np > 3 ? st->tok[3].loc : verb->loc, "missing what to %s; expected at TIME %s %s NAME",
		          scn_echo(P->d, verb->value), scn_echo(P->d, verb->value), kinds);
		return false;
	}
	if (np > 5) {
		scn_error(P->d, st->tok[5].loc, "unexpected word '%s'; expected at TIME %s %s NAME", scn_echo(P->d, st->tok[5].value),
		          scn_echo(P->d, verb->value), kinds);
		return false;
	}
	if (!at_target(P, st, set, kinds, ev))
		return false;
	bool port_ok = ev->target_kind == SCN_TGT_ADAPTER;
	scn_attrs a = { 0 };
	if (set) {
		if (!at_set_fields(P, st, np, port_ok, ev, &a))
			return false;
	} else if (!scn_attr_collect(P, st, np, port_only_specs, port_ok ? 1 : 0, verb->value, &a)) {
		return false;
	}
	if (port_ok) {
		scn_val v;
		bool given;
		if (!scn_attr_get(P, &a, "port", NULL, SCN_PERS_LINUX, &v, &given))
			return false;
		ev->port = given ? (uint8_t)v.u : 0;
	}
	return true;
}

static const struct {
	const char *verb;
	at_action parse;
} at_actions[] = {
	{ "report", at_report },
	{ "start", at_start_stop },
	{ "stop", at_start_stop },
	{ "fail", at_change },
	{ "restore", at_change },
	{ "set", at_change },
};

void scn_stmt_at(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "at TIME fail|restore|set|start|stop|report|expect …";
	size_t np = scn_attr_positionals(P, st, usage);
	if (np == SIZE_MAX)
		return;
	if (np < 3) {
		scn_error(P->d, np < 2 ? st->loc : st->tok[1].loc, "%s; expected %s", np < 2 ? "missing time" : "missing action",
		          usage);
		return;
	}
	static const scn_attr_spec time_spec = { "at", SCN_V_DURATION, 0, UINT64_MAX, NULL, NULL, NULL, false };
	scn_val tv;
	if (!scn_attr_value(P, "at", st->tok[1].value, st->tok[1].loc, &time_spec, &tv))
		return;
	const scn_token *verb = &st->tok[2];
	if (scn_word_is(verb, "expect")) {
		parse_expect(P, st, 3, true, tv.u);
		return;
	}
	size_t i = 0;
	while (i < N_SPECS(at_actions) && !scn_word_is(verb, at_actions[i].verb))
		i++;
	if (i == N_SPECS(at_actions)) {
		scn_error(P->d, verb->loc, "unknown action '%s'; expected fail, restore, set, start, stop, report or expect",
		          scn_echo(P->d, verb->value));
		return;
	}
	scn_event ev = { .loc = st->loc, .at_ns = tv.u, .target = SCN_NONE, .stack = SCN_NONE, .expect = SCN_NONE };
	if (!at_actions[i].parse(P, st, np, &ev))
		return;
	ev.order = P->event_order++;
	*SCN_PUSH(P->scn->events, P->scn->n_events) = ev;
}
