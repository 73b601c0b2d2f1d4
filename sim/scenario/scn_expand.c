/* Loops and parameters: the file becomes a program of operations (statements, loop
 * starts and ends, parameters) that a walk turns into expanded statements.
 *
 * The program is read once: every statement is lexed and copied (so lexical errors are
 * reported once), and the loops are matched to their `end`s with the block rules of the
 * parser (scn_keyword_class), which this file mirrors: `end` closes the innermost loop
 * or stack block, a top-level statement closes an open stack block. A walk keeps the
 * loop variables of the open loops and the values of the parameters defined so far. */
#include <inttypes.h>
#include <string.h>

#include "sim/scenario/scn_expand.h"
#include "sim/scenario/scn_expr.h"
#include "sim/scenario/scn_int.h"
#include "sim/scenario/scn_param.h"
#include "sim/scenario/scn_values.h"

/* ---- limits ---------------------------------------------------------------------------- */

enum { LIM_STATEMENTS,
       LIM_ITERATIONS,
       LIM_SWITCHES,
       LIM_WIRES,
       LIM_ADAPTERS,
       LIM_STACKS,
       LIM_IFACES,
       LIM_ROUTES,
       LIM_APPS,
       LIM_TIMELINE,
       LIM_EXPECTS,
       N_LIM };

static const struct limit {
	const char *kw; /* the statement that counts against it */
	const char *what;
	uint64_t max;
} limits[N_LIM] = {
	[LIM_STATEMENTS] = { NULL, "statements", SCN_MAX_STATEMENTS },
	/* an empty loop body still takes time per iteration */
	[LIM_ITERATIONS] = { NULL, "loop iterations", SCN_MAX_ITERATIONS },
	[LIM_SWITCHES] = { "switch", "switches", SCN_MAX_SWITCHES },
	[LIM_WIRES] = { "wire", "wires", SCN_MAX_WIRES },
	[LIM_ADAPTERS] = { "adapter", "adapters", SCN_MAX_ADAPTERS },
	[LIM_STACKS] = { "stack", "stacks", SCN_MAX_STACKS },
	[LIM_IFACES] = { "interface", "interfaces", SCN_MAX_IFACES },
	[LIM_ROUTES] = { "route", "routes", SCN_MAX_ROUTES },
	[LIM_APPS] = { "app", "apps", SCN_MAX_APPS },
	[LIM_TIMELINE] = { "at", "timeline lines", SCN_MAX_TIMELINE },
	[LIM_EXPECTS] = { "expect", "expectations", SCN_MAX_EXPECTS },
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* ---- the program ------------------------------------------------------------------------ */

typedef enum { OP_STMT,
	       OP_FOR,
	       OP_END,
	       OP_PARAM } op_kind;

typedef struct raw_stmt {
	size_t tok; /* first token in x->toks */
	uint32_t n;
	bool bad;
	scn_loc loc;
} raw_stmt;

typedef struct op {
	op_kind kind;
	bool broken;    /* FOR: skipped (reported); PARAM: its definition is unusable (reported) */
	int lim;        /* STMT: the limit it counts against besides statements, or -1 */
	uint32_t stmt;  /* index in x->stmts */
	uint32_t match; /* FOR: its END; END: its FOR */
	uint32_t decl;  /* PARAM: index in x->decls */
} op;

typedef struct param_decl {
	const char *name;
	scn_loc loc;
	const char *set; /* the --set value, or NULL */
	bool set_twice;  /* reported; the default stands in */
} param_decl;

typedef struct param_val {
	bool defined, broken;
	bool resolving; /* its own default is being expanded: a use of it there is a loop */
	scn_param_kind kind;
	const char *text;
	int64_t i;
} param_val;

typedef struct frame {
	uint32_t op; /* its FOR */
	const char *var;
	int64_t value, last;
} frame;

struct scn_expander {
	const char *file;
	GStringChunk *strings;    /* token texts, parameter values */
	GArray *toks;             /* scn_token */
	GArray *stmts;            /* raw_stmt */
	GArray *ops;              /* op */
	GArray *decls;            /* param_decl */
	GHashTable *decl_by_name; /* name -> index + 1 */
	GStringChunk *iters;
	/* the walk */
	scn_diag *d;
	scn_scenario *record;
	uint32_t pc;
	frame frames[SCN_MAX_LOOP_DEPTH];
	unsigned depth;
	const char *iter; /* the iteration text, when !iter_stale */
	bool iter_stale;
	param_val *vals;
	uint64_t count[N_LIM];
	uint64_t ord;
	bool limited;
	/* the statement being handed out */
	GArray *out_tok;
	GString *out_text;
	GArray *out_off; /* per token: offset of its substituted value in out_text, or SIZE_MAX */
	GString *word;
};

static raw_stmt *stmt_at(const scn_expander *x, uint32_t i)
{
	return &g_array_index(x->stmts, raw_stmt, i);
}

static scn_token *tok_of(const scn_expander *x, const raw_stmt *r, uint32_t i)
{
	return &g_array_index(x->toks, scn_token, r->tok + i);
}

static op *op_at(const scn_expander *x, uint32_t i)
{
	return &g_array_index(x->ops, op, i);
}

static bool is_word(const scn_token *t, const char *w)
{
	return !t->key && !t->quoted && !strcmp(t->value, w);
}

static void read_statements(scn_expander *x, const char *text, size_t len, scn_diag *d)
{
	scn_lexer lx;
	scn_lex_init(&lx, x->file, text, len);
	scn_stmt st;
	while (scn_lex_next(&lx, &st, d)) {
		raw_stmt r = { .tok = x->toks->len, .n = (uint32_t)st.n, .bad = st.bad, .loc = st.loc };
		for (size_t i = 0; i < st.n; i++) {
			scn_token t = st.tok[i];
			t.key = t.key ? g_string_chunk_insert_const(x->strings, t.key) : NULL;
			t.value = g_string_chunk_insert(x->strings, t.value);
			g_array_append_val(x->toks, t);
		}
		g_array_append_val(x->stmts, r);
		if (scn_diag_full(d)) {
			scn_diag_stopped(d, x->file); /* the parser stops at a full diag too */
			break;
		}
	}
	scn_lex_free(&lx);
}

/* ---- structure: loops matched to their ends ------------------------------------------- */

typedef struct block {
	bool loop;
	uint32_t op; /* loop: its FOR */
	scn_loc loc;
	const char *name; /* stack block: the stack's name as written */
} block;

typedef struct builder {
	scn_expander *x;
	scn_diag *d;
	GArray *blocks;
	unsigned loops;
} builder;

static block *top_block(builder *b)
{
	return b->blocks->len ? &g_array_index(b->blocks, block, b->blocks->len - 1) : NULL;
}

static const block *enclosing_stack(builder *b)
{
	for (guint i = b->blocks->len; i-- > 0;) {
		const block *k = &g_array_index(b->blocks, block, i);
		if (!k->loop)
			return k;
	}
	return NULL;
}

static uint32_t add_op(scn_expander *x, op o)
{
	g_array_append_val(x->ops, o);
	return x->ops->len - 1;
}

static int limit_of(const scn_token *kw)
{
	for (int l = LIM_SWITCHES; l < N_LIM; l++)
		if (is_word(kw, limits[l].kw))
			return l;
	return -1;
}

static void add_stmt(builder *b, uint32_t si)
{
	const raw_stmt *r = stmt_at(b->x, si);
	add_op(b->x, (op){ .kind = OP_STMT, .stmt = si, .lim = limit_of(tok_of(b->x, r, 0)) });
}

/* `for NAME in RANGE…`: the shape; false after reporting. */
static bool loop_shape_ok(builder *b, const raw_stmt *r)
{
	const char *usage = "for NAME in FROM..TO";
	const scn_token *t = tok_of(b->x, r, 0);
	if (r->n < 2) {
		scn_error(b->d, r->loc, "missing loop variable; expected %s", usage);
		return false;
	}
	if (t[1].key || t[1].quoted || !scn_expr_is_name(t[1].value, strlen(t[1].value)) || strlen(t[1].value) > SCN_NAME_MAX) {
		scn_error(b->d, t[1].loc, "bad loop variable '%s'; expected a name of letters, digits and '_' (at most %d) such as i",
		          scn_echo(b->d, t[1].key ? t[1].key : t[1].value), SCN_NAME_MAX);
		return false;
	}
	if (r->n < 3 || !is_word(&t[2], "in")) {
		scn_error(b->d, r->n < 3 ? r->loc : t[2].loc, "%s where 'in' belongs; expected %s",
		          r->n < 3 ? "nothing" : "a word", usage);
		return false;
	}
	if (r->n < 4) {
		scn_error(b->d, t[2].loc, "missing range after 'in'; expected %s such as 1..32", usage);
		return false;
	}
	for (uint32_t i = 3; i < r->n; i++)
		if (t[i].key || t[i].quoted) {
			scn_error(b->d, t[i].loc, "%s in the range; expected %s such as 1..32",
			          t[i].key ? "an attribute" : "a quoted string", usage);
			return false;
		}
	return true;
}

static void open_loop(builder *b, uint32_t si)
{
	const raw_stmt *r = stmt_at(b->x, si);
	bool ok = !r->bad && loop_shape_ok(b, r);
	if (ok && b->loops >= SCN_MAX_LOOP_DEPTH) {
		scn_error(b->d, r->loc, "loops nested deeper than %u; expected at most %u levels", SCN_MAX_LOOP_DEPTH,
		          SCN_MAX_LOOP_DEPTH);
		ok = false;
	}
	uint32_t o = add_op(b->x, (op){ .kind = OP_FOR, .stmt = si, .broken = !ok });
	block k = { .loop = true, .op = o, .loc = r->loc };
	g_array_append_val(b->blocks, k);
	b->loops++;
}

static void close_loop(builder *b, uint32_t si)
{
	block *k = top_block(b);
	uint32_t e = add_op(b->x, (op){ .kind = OP_END, .stmt = si, .match = k->op });
	op_at(b->x, k->op)->match = e;
	g_array_set_size(b->blocks, b->blocks->len - 1);
	b->loops--;
}

static void declare_param(builder *b, uint32_t si)
{
	scn_expander *x = b->x;
	const raw_stmt *r = stmt_at(x, si);
	const scn_token *t = tok_of(x, r, 0);
	op o = { .kind = OP_PARAM, .stmt = si, .decl = UINT32_MAX };
	if (r->n < 2 || !t[1].key) {
		if (!r->bad)
			scn_error(b->d, r->n < 2 ? r->loc : t[1].loc, "missing NAME=DEFAULT; expected param NAME=DEFAULT [type=KIND]");
		return;
	}
	const char *name = t[1].key;
	if (strlen(name) > SCN_NAME_MAX) {
		scn_error(b->d, t[1].loc, "parameter name '%s' is longer than %d characters; expected a shorter name",
		          scn_echo(b->d, name), SCN_NAME_MAX);
		return;
	}
	gpointer known = g_hash_table_lookup(x->decl_by_name, name);
	if (known) {
		char at[96];
		scn_loc_text(g_array_index(x->decls, param_decl, GPOINTER_TO_UINT(known) - 1).loc, at, sizeof(at));
		scn_error(b->d, t[1].loc, "repeated parameter '%s' (first at %s); expected each parameter once", name, at);
		return;
	}
	if (x->decls->len >= SCN_MAX_PARAMS) {
		scn_error(b->d, t[1].loc, "parameter %u; expected at most %u parameters", x->decls->len + 1, SCN_MAX_PARAMS);
		return;
	}
	param_decl pd = { .name = name, .loc = t[1].loc };
	g_array_append_val(x->decls, pd);
	g_hash_table_insert(x->decl_by_name, (gpointer)name, GUINT_TO_POINTER(x->decls->len));
	o.decl = x->decls->len - 1;
	o.broken = r->bad;
	add_op(x, o);
}

/* One statement in a loop that lies inside a stack block: only block statements. */
static void in_stack_loop(builder *b, uint32_t si, const scn_token *kw, scn_kw_class cls)
{
	const raw_stmt *r = stmt_at(b->x, si);
	if (is_word(kw, "end")) { /* `end WORDS`: not the loop's `end`, and no run end here */
		if (!r->bad)
			scn_error(b->d, tok_of(b->x, r, 1)->loc, "'end' closing the loop at %u:%u takes nothing after it; expected 'end' alone",
			          top_block(b)->loc.line, top_block(b)->loc.col);
		close_loop(b, si);
		return;
	}
	if (cls == SCN_KW_TOP) {
		const block *s = enclosing_stack(b);
		if (!r->bad)
			scn_error(b->d, kw->loc, "'%s' inside the loop at %u:%u in the block of stack '%s' (opened at %u:%u); expected only interface, route, forwarding and smcr statements there",
			          kw->value, top_block(b)->loc.line, top_block(b)->loc.col, scn_echo(b->d, s->name), s->loc.line,
			          s->loc.col);
		return;
	}
	add_stmt(b, si); /* block statements, and unknown ones the parser reports */
}

static void structure(builder *b, uint32_t si)
{
	scn_expander *x = b->x;
	const raw_stmt *r = stmt_at(x, si);
	if (r->n == 0)
		return; /* a statement broken before its first word: reported */
	const scn_token *kw = tok_of(x, r, 0);
	if (kw->braces) {
		if (!r->bad)
			scn_error(b->d, kw->loc, "a statement cannot start with '{…}'; expected a keyword such as stack or app");
		return;
	}
	bool is_for = is_word(kw, "for"), is_param = is_word(kw, "param"), is_end = is_word(kw, "end");
	scn_kw_class cls = scn_keyword_class(kw);
	for (;;) {
		block *top = top_block(b);
		if (top && !top->loop) { /* a stack block */
			if (is_for) {
				open_loop(b, si);
			} else if (is_param) {
				if (!r->bad)
					scn_error(b->d, kw->loc, "'param' inside the block of stack '%s' (opened at %u:%u); expected param at top level",
					          scn_echo(b->d, top->name), top->loc.line, top->loc.col);
			} else if (cls == SCN_KW_TOP && !is_end) {
				g_array_set_size(b->blocks, b->blocks->len - 1); /* closed; the parser says so */
				continue;
			} else {
				if (is_end)
					g_array_set_size(b->blocks, b->blocks->len - 1);
				add_stmt(b, si);
			}
			return;
		}
		if (is_for) {
			open_loop(b, si);
		} else if (is_param) {
			if (top) {
				if (!r->bad)
					scn_error(b->d, kw->loc, "'param' inside the loop at %u:%u; expected param at top level", top->loc.line,
					          top->loc.col);
			} else {
				declare_param(b, si);
			}
		} else if (top && is_end && r->n == 1) {
			close_loop(b, si);
		} else if (top && enclosing_stack(b)) {
			in_stack_loop(b, si, kw, cls);
		} else {
			if (is_word(kw, "stack")) {
				const scn_token *name = r->n > 1 ? tok_of(x, r, 1) : NULL;
				block k = { .loop = false, .loc = r->loc, .name = name && !name->key ? name->value : "?" };
				g_array_append_val(b->blocks, k);
			}
			add_stmt(b, si);
		}
		return;
	}
}

static void close_open_loops(builder *b)
{
	while (b->blocks->len) {
		block *k = top_block(b);
		if (!k->loop) {
			g_array_set_size(b->blocks, b->blocks->len - 1); /* the parser reports it */
			continue;
		}
		const raw_stmt *r = stmt_at(b->x, op_at(b->x, k->op)->stmt);
		if (!op_at(b->x, k->op)->broken && !scn_diag_full(b->d))
			scn_error(b->d, r->loc, "the loop 'for %s' is not closed; expected 'end' before the end of the file",
			          scn_echo(b->d, tok_of(b->x, r, 1)->value));
		op_at(b->x, k->op)->broken = true;
		close_loop(b, op_at(b->x, k->op)->stmt);
	}
}

/* ---- --set ---------------------------------------------------------------------------- */

static char *param_list(const scn_expander *x)
{
	if (!x->decls->len)
		return g_strdup("a 'param' line for it (the scenario has none)");
	GString *s = g_string_new("one of its parameters: ");
	for (guint i = 0; i < x->decls->len && i < 8; i++) {
		const param_decl *p = &g_array_index(x->decls, param_decl, i);
		g_string_append_printf(s, "%s%s (%u:%u)", i ? ", " : "", p->name, p->loc.line, p->loc.col);
	}
	if (x->decls->len > 8)
		g_string_append(s, ", …");
	return g_string_free(s, FALSE);
}

static void apply_overrides(scn_expander *x, const scn_load_opts *opts, scn_diag *d)
{
	scn_loc file = { x->file, 0, 0, NULL };
	for (size_t i = 0; opts && i < opts->n_set; i++) {
		const char *s = opts->set[i];
		const char *eq = strchr(s, '=');
		if (!eq || eq == s || !scn_expr_is_name(s, (size_t)(eq - s))) {
			scn_error(d, file, "bad --set '%s'; expected NAME=VALUE such as N=32", scn_echo(d, s));
			continue;
		}
		char *name = g_strndup(s, (size_t)(eq - s));
		gpointer idx = g_hash_table_lookup(x->decl_by_name, name);
		if (!idx) {
			char *list = param_list(x);
			scn_error(d, file, "--set %s: no parameter '%s' in this scenario; expected %s", scn_echo(d, s),
			          scn_echo(d, name), list);
			g_free(list);
		} else {
			param_decl *p = &g_array_index(x->decls, param_decl, GPOINTER_TO_UINT(idx) - 1);
			if (p->set) {
				scn_error(d, file, "--set %s given twice (also as %s=%s); expected each parameter once", name, name,
				          scn_echo(d, p->set));
				p->set_twice = true;
			} else
				p->set = g_string_chunk_insert(x->strings, eq + 1);
		}
		g_free(name);
	}
}

scn_expander *scn_expand_new(const char *file, const char *text, size_t len, const scn_load_opts *opts,
                             GStringChunk *iters, scn_diag *d)
{
	scn_expander *x = g_new0(scn_expander, 1);
	x->file = file;
	x->strings = g_string_chunk_new(4096);
	x->toks = g_array_new(FALSE, FALSE, sizeof(scn_token));
	x->stmts = g_array_new(FALSE, FALSE, sizeof(raw_stmt));
	x->ops = g_array_new(FALSE, FALSE, sizeof(op));
	x->decls = g_array_new(FALSE, FALSE, sizeof(param_decl));
	x->decl_by_name = g_hash_table_new(g_str_hash, g_str_equal);
	x->iters = iters;
	x->out_tok = g_array_new(FALSE, FALSE, sizeof(scn_token));
	x->out_off = g_array_new(FALSE, FALSE, sizeof(size_t));
	x->out_text = g_string_new(NULL);
	x->word = g_string_new(NULL);
	read_statements(x, text, len, d);
	builder b = { .x = x, .d = d, .blocks = g_array_new(FALSE, FALSE, sizeof(block)) };
	for (uint32_t i = 0; i < x->stmts->len; i++)
		structure(&b, i);
	close_open_loops(&b);
	g_array_free(b.blocks, TRUE);
	apply_overrides(x, opts, d);
	x->vals = g_new0(param_val, x->decls->len + 1);
	return x;
}

void scn_expand_free(scn_expander *x)
{
	if (!x)
		return;
	g_string_chunk_free(x->strings);
	g_array_free(x->toks, TRUE);
	g_array_free(x->stmts, TRUE);
	g_array_free(x->ops, TRUE);
	g_array_free(x->decls, TRUE);
	g_hash_table_destroy(x->decl_by_name);
	g_array_free(x->out_tok, TRUE);
	g_array_free(x->out_off, TRUE);
	g_string_free(x->out_text, TRUE);
	g_string_free(x->word, TRUE);
	g_free(x->vals);
	g_free(x);
}

/* ---- names in expressions -------------------------------------------------------------- */

typedef struct lookup_ctx {
	scn_expander *x;
	bool silent; /* the failure goes back to a broken parameter: reported already */
} lookup_ctx;

static char *names_in_scope(const scn_expander *x)
{
	GString *s = g_string_new(NULL);
	unsigned n = 0;
	for (unsigned i = x->depth; i-- > 0 && n < 8; n++)
		g_string_append_printf(s, "%s%s", s->len ? ", " : "", x->frames[i].var);
	for (guint i = 0; i < x->decls->len && n < 8; i++)
		if (x->vals[i].defined) {
			g_string_append_printf(s, "%s%s", s->len ? ", " : "", g_array_index(x->decls, param_decl, i).name);
			n++;
		}
	if (!s->len)
		g_string_append(s, "none here");
	return g_string_free(s, FALSE);
}

static bool lookup(void *ctx, const char *name, size_t len, int64_t *value, scn_expr_err *err)
{
	lookup_ctx *l = ctx;
	scn_expander *x = l->x;
	for (unsigned i = x->depth; i-- > 0;)
		if (strlen(x->frames[i].var) == len && !memcmp(x->frames[i].var, name, len)) {
			*value = x->frames[i].value;
			return true;
		}
	char buf[SCN_NAME_MAX + 2];
	if (len > SCN_NAME_MAX) {
		snprintf(err->msg, sizeof(err->msg), "unknown name '%.*s…'; expected a loop variable or a parameter", SCN_NAME_MAX,
		         name);
		return false;
	}
	memcpy(buf, name, len);
	buf[len] = 0;
	gpointer idx = g_hash_table_lookup(x->decl_by_name, buf);
	if (idx) {
		const param_decl *pd = &g_array_index(x->decls, param_decl, GPOINTER_TO_UINT(idx) - 1);
		const param_val *v = &x->vals[GPOINTER_TO_UINT(idx) - 1];
		if (v->resolving) {
			snprintf(err->msg, sizeof(err->msg),
			         "parameter '%s' is used in its own default; expected a default of values and parameters defined above it", buf);
			return false;
		}
		if (v->broken) {
			l->silent = true;
			return false;
		}
		if (!v->defined) {
			snprintf(err->msg, sizeof(err->msg),
			         "parameter '%s' is used before its definition at %u:%u; expected its 'param' line above its first use", buf,
			         pd->loc.line, pd->loc.col);
			return false;
		}
		if (v->kind != SCN_PARAM_INT) {
			snprintf(err->msg, sizeof(err->msg),
			         "parameter '%s' is %s (%.40s), not an integer; expected an integer in arithmetic ({%s} alone gives its text)",
			         buf, scn_param_kind_noun(v->kind), v->text, buf);
			return false;
		}
		*value = v->i;
		return true;
	}
	char *scope = names_in_scope(x);
	snprintf(err->msg, sizeof(err->msg), "unknown name '%s'; expected a loop variable or a parameter (%s)", buf, scope);
	g_free(scope);
	return false;
}

/* The parameter a lone `{NAME}` names, if it is one. */
static const param_val *lone_param(const scn_expander *x, const char *body, size_t len, const param_decl **decl)
{
	while (len && (*body == ' ' || *body == '\t'))
		body++, len--;
	while (len && (body[len - 1] == ' ' || body[len - 1] == '\t'))
		len--;
	if (!scn_expr_is_name(body, len) || len > SCN_NAME_MAX)
		return NULL;
	for (unsigned i = 0; i < x->depth; i++)
		if (strlen(x->frames[i].var) == len && !memcmp(x->frames[i].var, body, len))
			return NULL; /* a loop variable */
	char buf[SCN_NAME_MAX + 1];
	memcpy(buf, body, len);
	buf[len] = 0;
	gpointer idx = g_hash_table_lookup(x->decl_by_name, buf);
	if (!idx)
		return NULL;
	*decl = &g_array_index(x->decls, param_decl, GPOINTER_TO_UINT(idx) - 1);
	return &x->vals[GPOINTER_TO_UINT(idx) - 1];
}

/* ---- substitution ------------------------------------------------------------------------ */

static scn_loc loc_plus(scn_loc l, size_t cols)
{
	l.col += (uint32_t)cols;
	return l;
}

/* One `{BODY}` (body[0..len), written at column `at` of the word at vloc) appended to
 * out; false after reporting (unless quiet or silent). */
static bool subst_one(scn_expander *x, const char *body, size_t len, scn_loc vloc, size_t at, bool quiet, GString *out)
{
	const char *colon = memchr(body, ':', len);
	size_t elen = colon ? (size_t)(colon - body) : len;
	const param_decl *pd = NULL;
	const param_val *pv = lone_param(x, body, elen, &pd);
	if (pv && pv->resolving) {
		if (!quiet)
			scn_error(x->d, loc_plus(vloc, at + 1), "parameter '%s' is used in its own default; expected a default of values and parameters defined above it",
			          pd->name);
		return false;
	}
	if (pv && pv->broken)
		return false;
	if (pv && pv->defined && (pv->kind != SCN_PARAM_INT || !colon)) {
		if (colon) {
			if (!quiet)
				scn_error(x->d, loc_plus(vloc, at + 1 + elen), "':%.*s' formats integers, but parameter '%s' is %s; expected {%s} without a format",
				          (int)(len - elen - 1), colon + 1, pd->name, scn_param_kind_noun(pv->kind), pd->name);
			return false;
		}
		g_string_append(out, pv->text); /* as written, 0x0101 stays hex */
		return true;
	}
	lookup_ctx l = { .x = x };
	scn_expr_err err;
	int64_t v;
	if (!scn_expr_eval(body, elen, lookup, &l, &v, &err)) {
		if (!quiet && !l.silent)
			scn_error(x->d, loc_plus(vloc, at + 1 + err.at), "%s", err.msg);
		return false;
	}
	char buf[64];
	if (!scn_expr_format(v, colon ? colon + 1 : "", colon ? len - elen - 1 : 0, buf, sizeof(buf), &err)) {
		if (!quiet)
			scn_error(x->d, loc_plus(vloc, at + 1 + elen), "%s", err.msg);
		return false;
	}
	g_string_append(out, buf);
	return true;
}

/* The word `raw` (written at vloc) with its `{…}` replaced, in out. */
static bool subst(scn_expander *x, const char *raw, scn_loc vloc, bool quiet, GString *out)
{
	g_string_truncate(out, 0);
	const char *p = raw;
	for (;;) {
		const char *open = strchr(p, '{');
		if (!open) {
			g_string_append(out, p);
			break;
		}
		g_string_append_len(out, p, open - p);
		const char *close = strchr(open, '}'); /* the lexer saw it */
		if (!subst_one(x, open + 1, (size_t)(close - open - 1), vloc, (size_t)(open - raw), quiet, out))
			return false;
		p = close + 1;
	}
	if (out->len > SCN_MAX_WORD_BYTES) {
		if (!quiet)
			scn_error(x->d, vloc, "the word grows to %zu bytes; expected at most %d", out->len, SCN_MAX_WORD_BYTES);
		return false;
	}
	return true;
}

/* ---- the walk ---------------------------------------------------------------------------- */

void scn_expand_rewind(scn_expander *x, scn_diag *d, scn_scenario *record)
{
	x->d = d;
	x->record = record;
	x->pc = 0;
	x->depth = 0;
	x->iter = NULL;
	x->iter_stale = false;
	memset(x->vals, 0, sizeof(param_val) * (x->decls->len + 1));
	memset(x->count, 0, sizeof(x->count));
	x->ord = 0;
	x->limited = false;
}

bool scn_expand_limited(const scn_expander *x)
{
	return x->limited;
}

/* The loops moved on: the iteration text is made again when something needs it (an
 * empty loop body never does). */
static void update_iter(scn_expander *x)
{
	x->iter_stale = x->depth > 0;
	if (!x->depth)
		x->iter = NULL;
}

static const char *cur_iter(scn_expander *x)
{
	if (!x->iter_stale)
		return x->iter;
	GString *s = x->word;
	g_string_truncate(s, 0);
	for (unsigned i = 0; i < x->depth; i++)
		g_string_append_printf(s, "%s%s=%" PRId64, i ? ", " : "", x->frames[i].var, x->frames[i].value);
	x->iter = g_string_chunk_insert_const(x->iters, s->str);
	x->iter_stale = false;
	return x->iter;
}

/* The statement's tokens with their `{…}` replaced, in x->out_tok; false if one failed. */
static bool expand_tokens(scn_expander *x, const raw_stmt *r, bool quiet)
{
	g_array_set_size(x->out_tok, 0);
	g_array_set_size(x->out_off, 0);
	g_string_truncate(x->out_text, 0);
	bool ok = true;
	const char *iter = cur_iter(x);
	for (uint32_t i = 0; i < r->n; i++) {
		scn_token t = *tok_of(x, r, i);
		t.loc.iter = t.vloc.iter = iter;
		size_t off = SIZE_MAX;
		if (t.braces && ok) {
			if (subst(x, t.value, t.vloc, quiet, x->word)) {
				off = x->out_text->len;
				g_string_append_len(x->out_text, x->word->str, (gssize)x->word->len + 1);
			} else {
				ok = false;
			}
		}
		g_array_append_val(x->out_tok, t);
		g_array_append_val(x->out_off, off);
	}
	for (guint i = 0; i < x->out_tok->len; i++) {
		size_t off = g_array_index(x->out_off, size_t, i);
		if (off != SIZE_MAX)
			g_array_index(x->out_tok, scn_token, i).value = x->out_text->str + off;
	}
	return ok;
}

static void walk_param(scn_expander *x, const op *o)
{
	param_val *v = &x->vals[o->decl];
	const param_decl *pd = &g_array_index(x->decls, param_decl, o->decl);
	const raw_stmt *r = stmt_at(x, o->stmt);
	v->broken = true; /* until it is defined */
	v->resolving = true;
	bool expanded = !o->broken && expand_tokens(x, r, false);
	v->resolving = false;
	if (!expanded)
		return;
	const scn_token *t = &g_array_index(x->out_tok, scn_token, 0);
	const char *usage = "param NAME=DEFAULT [type=int|duration|size|rate|ratio|bool|text]";
	scn_param_kind kind;
	bool typed = false;
	for (uint32_t i = 2; i < r->n; i++) {
		if (!t[i].key || strcmp(t[i].key, "type") || typed) {
			scn_error(x->d, t[i].loc, "%s '%s'; expected %s", typed && t[i].key && !strcmp(t[i].key, "type") ? "repeated" : "unexpected",
			          scn_echo(x->d, t[i].key ? t[i].key : t[i].value), usage);
			return;
		}
		if (!scn_param_kind_parse(t[i].value, &kind)) {
			scn_error(x->d, t[i].vloc, "bad type '%s' for parameter '%s'; expected int, duration, size, rate, ratio, bool or text",
			          scn_echo(x->d, t[i].value), pd->name);
			return;
		}
		typed = true;
	}
	const char *def = t[1].value, *why;
	if (!typed)
		kind = scn_param_infer(def);
	int64_t iv = 0;
	if (!scn_param_check(kind, def, &iv, &why)) {
		if (why == SCN_WHY_OVERFLOW)
			scn_error(x->d, t[1].vloc, "default '%s' of parameter '%s' is out of range (max %" PRId64 "); expected a smaller integer",
			          scn_echo(x->d, def), pd->name, INT64_MAX);
		else
			scn_error(x->d, t[1].vloc, "default '%s' of parameter '%s' is not %s; %s", scn_echo(x->d, def), pd->name,
			          scn_param_kind_noun(kind), why);
		return;
	}
	const char *value = def;
	if (pd->set && !pd->set_twice) {
		int64_t def_iv = iv;
		if (!scn_param_check(kind, pd->set, &iv, &why)) {
			/* reported; the default stands in, so that what uses the parameter expands
			 * as it would and raises nothing more */
			iv = def_iv;
			if (why == SCN_WHY_OVERFLOW)
				scn_error(x->d, t[1].vloc, "--set %s=%s is out of range (max %" PRId64 ") for parameter '%s'; expected a smaller integer",
				          pd->name, scn_echo(x->d, pd->set), INT64_MAX, pd->name);
			else
				scn_error(x->d, t[1].vloc, "--set %s=%s is not %s, the kind of parameter '%s' (default %s); %s", pd->name,
				          scn_echo(x->d, pd->set), scn_param_kind_noun(kind), pd->name, scn_echo(x->d, def), why);
		} else {
			value = pd->set;
		}
	}
	*v = (param_val){ .defined = true, .kind = kind, .text = g_string_chunk_insert(x->strings, value), .i = iv };
	if (x->record) {
		scn_param *p = SCN_PUSH(x->record->params, x->record->n_params);
		g_strlcpy(p->name, pd->name, sizeof(p->name));
		p->value = g_strdup(value);
		p->kind = kind;
		p->overridden = pd->set != NULL;
		p->loc = pd->loc;
	}
}

/* The range of a loop in the current scope (quiet: no messages). */
static bool loop_range(scn_expander *x, const op *o, bool quiet, int64_t *from, int64_t *to)
{
	const raw_stmt *r = stmt_at(x, o->stmt);
	if (!expand_tokens(x, r, quiet))
		return false;
	const scn_token *t = &g_array_index(x->out_tok, scn_token, 0);
	GString *range = g_string_new(NULL);
	size_t starts[SCN_MAX_STMT_WORDS];
	for (uint32_t i = 3; i < r->n; i++) {
		if (i > 3)
			g_string_append_c(range, ' ');
		starts[i] = range->len;
		g_string_append(range, t[i].value);
	}
	lookup_ctx l = { .x = x };
	scn_expr_err err;
	bool ok = scn_expr_range(range->str, range->len, lookup, &l, from, to, &err);
	if (!ok && !quiet && !l.silent) {
		uint32_t i = 3;
		while (i + 1 < r->n && starts[i + 1] <= err.at)
			i++;
		scn_error(x->d, loc_plus(t[i].vloc, err.at - starts[i]), "%s", err.msg);
	}
	g_string_free(range, TRUE);
	return ok;
}

static uint64_t iterations(int64_t from, int64_t to)
{
	if (to < from)
		return 0;
	uint64_t n = (uint64_t)to - (uint64_t)from + 1;
	return n ? n : UINT64_MAX; /* the whole int64 range: 2^64, saturated */
}

/* The statements a loop makes, per limit, as far as its bounds and those of the loops in
 * it are known now (a loop whose range needs an enclosing loop's variable counts as
 * nothing here: it is measured when it starts). */
static void loop_counts(scn_expander *x, uint32_t for_op, uint64_t iters, uint64_t out[N_LIM])
{
	uint64_t body[N_LIM] = { [LIM_ITERATIONS] = 1 };
	const op *f = op_at(x, for_op);
	for (uint32_t j = for_op + 1; j < f->match; j++) {
		const op *c = op_at(x, j);
		if (c->kind == OP_STMT) {
			body[LIM_STATEMENTS]++;
			if (c->lim >= 0)
				body[c->lim]++;
		} else if (c->kind == OP_FOR) {
			int64_t a, b;
			if (!c->broken && loop_range(x, c, true, &a, &b)) {
				uint64_t sub[N_LIM];
				loop_counts(x, j, iterations(a, b), sub);
				for (int k = 0; k < N_LIM; k++)
					body[k] = sat_add(body[k], sub[k]);
			}
			j = c->match;
		}
	}
	for (int k = 0; k < N_LIM; k++)
		out[k] = sat_mul(body[k], iters);
}

static void report_loop_limit(scn_expander *x, const raw_stmt *r, int k, uint64_t makes, uint64_t iters)
{
	scn_loc loc = r->loc;
	loc.iter = cur_iter(x);
	uint64_t total = sat_add(x->count[k], makes);
	char before[64] = "";
	if (x->count[k])
		snprintf(before, sizeof(before), ", %" PRIu64 " with those before it", total);
	scn_error(x->d, loc, "this loop makes %s%" PRIu64 " %s (%" PRIu64 " iteration%s)%s; expected at most %" PRIu64 " %s in a scenario",
	          makes == UINT64_MAX ? "over " : "", makes, limits[k].what, iters, iters == 1 ? "" : "s", before,
	          limits[k].max, limits[k].what);
}

/* One more iteration of the loop written at r: false after reporting. */
static bool count_iteration(scn_expander *x, const raw_stmt *r)
{
	if (x->count[LIM_ITERATIONS] >= SCN_MAX_ITERATIONS) {
		scn_loc loc = r->loc;
		loc.iter = cur_iter(x);
		scn_error(x->d, loc, "loop iteration number %" PRIu64 " of the scenario; expected at most %u loop iterations in a scenario",
		          x->count[LIM_ITERATIONS] + 1, SCN_MAX_ITERATIONS);
		x->limited = true;
		return false;
	}
	x->count[LIM_ITERATIONS]++;
	return true;
}

/* A loop starts: its variable, its range, whether it fits the limits. */
static void enter_loop(scn_expander *x, uint32_t at)
{
	const op *o = op_at(x, at);
	const raw_stmt *r = stmt_at(x, o->stmt);
	x->pc = o->match + 1; /* unless it runs */
	if (o->broken)
		return;
	const scn_token *var = tok_of(x, r, 1);
	scn_loc vloc = var->loc;
	vloc.iter = cur_iter(x);
	for (unsigned i = 0; i < x->depth; i++)
		if (!strcmp(x->frames[i].var, var->value)) {
			const raw_stmt *outer = stmt_at(x, op_at(x, x->frames[i].op)->stmt);
			scn_error(x->d, vloc, "loop variable '%s' is the variable of the loop at %u:%u already; expected another name",
			          var->value, outer->loc.line, outer->loc.col);
			return;
		}
	gpointer idx = g_hash_table_lookup(x->decl_by_name, var->value);
	if (idx) {
		const param_decl *pd = &g_array_index(x->decls, param_decl, GPOINTER_TO_UINT(idx) - 1);
		scn_error(x->d, vloc, "loop variable '%s' is also a parameter (%u:%u); expected another name", var->value,
		          pd->loc.line, pd->loc.col);
		return;
	}
	int64_t from, to;
	if (!loop_range(x, o, false, &from, &to))
		return;
	uint64_t iters = iterations(from, to);
	if (!iters)
		return;
	uint64_t makes[N_LIM];
	loop_counts(x, at, iters, makes);
	for (int k = 0; k < N_LIM; k++)
		if (sat_add(x->count[k], makes[k]) > limits[k].max) {
			report_loop_limit(x, r, k, makes[k], iters);
			x->limited = true;
			return;
		}
	if (!count_iteration(x, r))
		return;
	x->frames[x->depth++] = (frame){ .op = at, .var = var->value, .value = from, .last = to };
	update_iter(x);
	x->pc = at + 1;
}

static void next_iteration(scn_expander *x)
{
	frame *f = &x->frames[x->depth - 1];
	if (f->value < f->last) {
		if (!count_iteration(x, stmt_at(x, op_at(x, f->op)->stmt)))
			return;
		f->value++;
		update_iter(x);
		x->pc = f->op + 1;
		return;
	}
	x->depth--;
	update_iter(x);
	x->pc++;
}

/* One more statement of limit k (and of the statements): false after reporting. */
static bool count_statement(scn_expander *x, const raw_stmt *r, int k)
{
	int ks[2] = { LIM_STATEMENTS, k };
	for (int i = 0; i < 2; i++) {
		if (ks[i] < 0)
			continue;
		if (x->count[ks[i]] >= limits[ks[i]].max) {
			scn_loc loc = r->loc;
			loc.iter = cur_iter(x);
			scn_error(x->d, loc, "%s number %" PRIu64 " of the scenario; expected at most %" PRIu64 " %s in a scenario",
			          ks[i] == LIM_STATEMENTS ? "statement" : limits[ks[i]].kw, x->count[ks[i]] + 1, limits[ks[i]].max,
			          limits[ks[i]].what);
			x->limited = true;
			return false;
		}
	}
	x->count[LIM_STATEMENTS]++;
	if (k >= 0)
		x->count[k]++;
	return true;
}

bool scn_expand_next(scn_expander *x, scn_stmt *st)
{
	while (!x->limited && x->pc < x->ops->len) {
		const op *o = op_at(x, x->pc);
		switch (o->kind) {
		case OP_PARAM:
			walk_param(x, o);
			x->pc++;
			break;
		case OP_FOR:
			enter_loop(x, x->pc);
			break;
		case OP_END:
			next_iteration(x);
			break;
		case OP_STMT: {
			const raw_stmt *r = stmt_at(x, o->stmt);
			x->pc++;
			if (!count_statement(x, r, o->lim))
				return false;
			/* a statement with a lexical error is expanded quietly: it only lends its
			 * name to the parser's placeholder */
			bool ok = expand_tokens(x, r, r->bad);
			*st = (scn_stmt){
				.tok = (scn_token *)(void *)x->out_tok->data,
				.n = x->out_tok->len,
				.loc = r->n ? g_array_index(x->out_tok, scn_token, 0).loc : r->loc,
				.bad = r->bad || !ok,
				.ord = x->ord++,
			};
			return true;
		}
		}
	}
	return false;
}
