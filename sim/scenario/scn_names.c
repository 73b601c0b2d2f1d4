/* Names in scenario files: the tables the pre-scan fills, the checks when a name is
 * defined, and the resolution of references (with wrong-kind messages). */
#include <string.h>

#include "sim/scenario/scn_attrs.h"
#include "sim/scenario/scn_values.h"

/* "defined: A, B, C, …" or "none defined", for unknown-name messages. */
static char *scn_defined_list(GPtrArray *names)
{
	if (!names || names->len == 0)
		return g_strdup("none defined");
	GString *s = g_string_new("defined: ");
	for (guint i = 0; i < names->len && i < 8; i++)
		g_string_append_printf(s, "%s%s", i ? ", " : "", (const char *)names->pdata[i]);
	if (names->len > 8)
		g_string_append(s, ", …");
	return g_string_free(s, FALSE);
}

static const char *const sym_kind_names[SCN_SYM_N] = { "switch", "wire", "adapter", "stack", "app" };

bool scn_name_token_ok(const scn_token *t)
{
	const char *why;
	return t && !t->key && !t->quoted && scn_valid_name(t->value, &why);
}

static scn_sym *scn_sym_get(const scn_symbols *s, scn_sym_kind k, const char *name)
{
	return g_hash_table_lookup(s->by_name[k], name);
}

/* Enter a name; returns its index, or SCN_NONE if it was already there. */
uint32_t scn_sym_add(scn_symbols *s, scn_sym_kind k, const char *name, scn_loc loc, uint64_t ord)
{
	if (scn_sym_get(s, k, name))
		return SCN_NONE;
	scn_sym *e = g_new(scn_sym, 1);
	e->index = s->names[k]->len;
	e->loc = loc;
	e->ord = ord;
	if (k == SCN_SYM_STACK)
		g_ptr_array_add(s->stack_ifaces, g_ptr_array_new_with_free_func(g_free));
	char *key = g_strdup(name);
	g_hash_table_insert(s->by_name[k], key, e);
	g_ptr_array_add(s->names[k], key);
	return e->index;
}

char *scn_iface_key(const char *stack, const char *iface)
{
	return g_strdup_printf("%s\n%s", stack, iface);
}

bool scn_sym_add_iface(scn_symbols *s, uint32_t stack, const char *stack_name, const char *iface, scn_loc loc,
                       uint64_t ord)
{
	char *key = scn_iface_key(stack_name, iface);
	if (g_hash_table_contains(s->ifaces, key)) {
		g_free(key);
		return false;
	}
	GPtrArray *names = s->stack_ifaces->pdata[stack];
	scn_sym *e = g_new(scn_sym, 1);
	e->index = names->len;
	e->loc = loc;
	e->ord = ord;
	g_hash_table_insert(s->ifaces, key, e);
	g_ptr_array_add(names, g_strdup(iface));
	return true;
}

void scn_symbols_init(scn_symbols *s)
{
	for (int k = 0; k < SCN_SYM_N; k++) {
		s->by_name[k] = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
		s->names[k] = g_ptr_array_new_with_free_func(g_free);
	}
	s->ifaces = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	s->stack_ifaces = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
}

void scn_symbols_free(scn_symbols *s)
{
	for (int k = 0; k < SCN_SYM_N; k++) {
		g_hash_table_destroy(s->by_name[k]);
		g_ptr_array_free(s->names[k], TRUE);
	}
	g_hash_table_destroy(s->ifaces);
	g_ptr_array_free(s->stack_ifaces, TRUE);
}

/* Check a positional name token in the main pass: valid and, for kind k, the one the
 * pre-scan entered at this spot. Returns its index, or SCN_NONE after reporting. */
uint32_t scn_declare(scn_parser *P, scn_sym_kind k, const scn_stmt *st, uint32_t expected_index)
{
	const scn_token *t = &st->tok[1];
	const char *why;
	if (!scn_valid_name(t->value, &why) || t->quoted) {
		scn_error(P->d, t->loc, "bad %s name '%s'; %s", sym_kind_names[k], scn_echo(P->d, t->value),
		          t->quoted ? "expected a name without quotes" : why);
		return SCN_NONE;
	}
	scn_sym *e = scn_sym_get(&P->sym, k, t->value);
	g_assert(e);
	if (e->ord != st->ord) {
		char at[96];
		scn_loc_text(e->loc, at, sizeof(at));
		scn_error(P->d, t->loc, "duplicate %s '%s' (first defined at %s); expected a unique name", sym_kind_names[k],
		          scn_echo(P->d, t->value), at);
		return SCN_NONE;
	}
	g_assert(e->index == expected_index);
	return e->index;
}

/* Resolve a reference to a name of kind k written at loc. */
uint32_t scn_resolve(scn_parser *P, scn_sym_kind k, const char *name, scn_loc loc)
{
	scn_sym *e = scn_sym_get(&P->sym, k, name);
	if (e)
		return e->index;
	char *defined = scn_defined_list(P->sym.names[k]);
	for (int other = 0; other < SCN_SYM_N; other++)
		if (other != (int)k && scn_sym_get(&P->sym, (scn_sym_kind)other, name)) {
			scn_error(P->d, loc, "'%s' is %s %s, not %s %s; expected the name of %s %s (%s)", name,
			          other == SCN_SYM_ADAPTER || other == SCN_SYM_APP ? "an" : "a", sym_kind_names[other],
			          k == SCN_SYM_ADAPTER || k == SCN_SYM_APP ? "an" : "a", sym_kind_names[k],
			          k == SCN_SYM_ADAPTER || k == SCN_SYM_APP ? "an" : "a", sym_kind_names[k], defined);
			g_free(defined);
			return SCN_NONE;
		}
	scn_error(P->d, loc, "unknown %s '%s'; expected the name of %s %s (%s)", sym_kind_names[k], scn_echo(P->d, name),
	          k == SCN_SYM_ADAPTER || k == SCN_SYM_APP ? "an" : "a", sym_kind_names[k], defined);
	g_free(defined);
	return SCN_NONE;
}

/* "STACK.IFACE" → stack and interface indices. */
bool scn_resolve_iface(scn_parser *P, const char *text, scn_loc loc, uint32_t *stack, uint32_t *iface)
{
	const char *dot = strchr(text, '.');
	if (!dot || dot == text || !dot[1]) {
		scn_error(P->d, loc, "bad interface '%s'; expected STACK.INTERFACE such as ZOSA.eth0", scn_echo(P->d, text));
		return false;
	}
	char *sname = g_strndup(text, (size_t)(dot - text));
	*stack = scn_resolve(P, SCN_SYM_STACK, sname, loc);
	if (*stack == SCN_NONE) {
		g_free(sname);
		return false;
	}
	char *key = scn_iface_key(sname, dot + 1);
	scn_sym *e = g_hash_table_lookup(P->sym.ifaces, key);
	g_free(key);
	if (!e) {
		/* the pre-scan's names: the stack may be defined further down */
		const GPtrArray *have = P->sym.stack_ifaces->pdata[*stack];
		GString *names = g_string_new(NULL);
		for (guint i = 0; i < have->len && i < 8; i++)
			g_string_append_printf(names, "%s%s", i ? ", " : "", (const char *)have->pdata[i]);
		if (have->len > 8)
			g_string_append(names, ", …");
		scn_error(P->d, loc, "stack '%s' has no interface '%s'; expected one of its interfaces (%s)", sname,
		          scn_echo(P->d, dot + 1), names->len ? names->str : "it has none");
		g_string_free(names, TRUE);
		g_free(sname);
		return false;
	}
	g_free(sname);
	*iface = e->index;
	return true;
}

/* "NAME" or "NAME.K" (one connection of an app with conns=N). */
bool scn_resolve_app_ref(scn_parser *P, const scn_token *t, scn_app_ref *ref)
{
	const char *text = t->value;
	const char *dot = strchr(text, '.');
	char *name = dot ? g_strndup(text, (size_t)(dot - text)) : g_strdup(text);
	ref->instance = 0;
	if (dot) {
		uint64_t k;
		const char *why;
		if (!scn_parse_uint(dot + 1, &k, &why) || dot[1] == '0' || k > 65535) {
			scn_error(P->d, t->loc, "bad connection number in '%s'; expected APP or APP.K with K from 1", text);
			g_free(name);
			return false;
		}
		ref->instance = (uint32_t)k;
	}
	ref->app = scn_resolve(P, SCN_SYM_APP, name, t->loc);
	g_free(name);
	if (ref->app == SCN_NONE)
		return false;
	if (ref->instance) {
		scn_instance_check c = { t->loc, ref->app, ref->instance };
		g_array_append_val(P->app_instances, c);
	}
	return true;
}
