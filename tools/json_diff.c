/* Structural comparison of two JSON trees with identity-matched lists (json_diff.h). */
#include "tools/json_diff.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "sim/scenario/scn_values.h"

typedef struct differ {
	const json_diff_opts *o;
	json_diff_fn fn;
	void *ctx;
	size_t n;
	bool same_scenario; /* else the entries' "file" members only repeat that difference */
} differ;

static bool ignored(const differ *d, const char *key)
{
	if (!d->same_scenario && !strcmp(key, "file"))
		return true;
	if (!d->o || !d->o->ignore)
		return false;
	for (const char *const *k = d->o->ignore; *k; k++)
		if (!strcmp(*k, key))
			return true;
	return false;
}

/* A scalar as text; a container as a short description. Caller frees. */
static char *value_text(const json_value *v)
{
	switch (v->kind) {
	case JSON_NULL: return g_strdup("null");
	case JSON_BOOL: return g_strdup(v->b ? "true" : "false");
	case JSON_NUMBER:
	case JSON_STRING: return g_strdup(v->text);
	case JSON_ARRAY: {
		GString *s = g_string_new("[");
		for (size_t i = 0; i < v->n; i++) {
			char *t = value_text(v->items[i]);
			g_string_append_printf(s, "%s%s", i ? ", " : "", t);
			g_free(t);
		}
		g_string_append_c(s, ']');
		return g_string_free(s, FALSE);
	}
	case JSON_OBJECT: return g_strdup_printf("{%zu members}", v->n);
	}
	return g_strdup("?");
}

static bool all_scalars(const json_value *v)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->items[i]->kind == JSON_ARRAY || v->items[i]->kind == JSON_OBJECT)
			return false;
	return true;
}

static char *join(const char *path, const char *part)
{
	return path[0] ? g_strdup_printf("%s / %s", path, part) : g_strdup(part);
}

static void emit(differ *d, json_diff_kind k, const char *path, const json_value *a, const json_value *b)
{
	char *ta = a ? value_text(a) : NULL, *tb = b ? value_text(b) : NULL;
	d->fn(d->ctx, k, path, ta, tb);
	d->n++;
	g_free(ta);
	g_free(tb);
}

static const char *text_or(const json_value *v, const char *key, const char *dflt)
{
	const char *t = json_get_text(v, key);
	return t ? t : dflt;
}

static char *time_text(const json_value *v)
{
	const char *t = json_get_text(v, "time_ns");
	char buf[SCN_FMT_LEN];
	guint64 ns;
	if (!t || !g_ascii_string_to_unsigned(t, 10, 0, G_MAXUINT64, &ns, NULL))
		return g_strdup(t ? t : "?");
	return g_strdup(scn_format_duration(ns, buf, sizeof(buf)));
}

/* The stable identity of an item of the list named list, or NULL (match by position). */
static char *identity(const char *list, const json_value *it)
{
	if (it->kind != JSON_OBJECT)
		return NULL;
	if (!strcmp(list, "stacks") && json_get_text(it, "name"))
		return g_strdup_printf("stack %s", json_get_text(it, "name"));
	if (!strcmp(list, "rnics") && json_get_text(it, "name"))
		return g_strdup_printf("rnic %s port %s", json_get_text(it, "name"), text_or(it, "port", "?"));
	if (!strcmp(list, "link_groups") && json_get_text(it, "id"))
		return g_strdup_printf("link group %s", json_get_text(it, "id"));
	if (!strcmp(list, "links") && json_get_text(it, "local_link_id"))
		return g_strdup_printf("link %s", json_get_text(it, "local_link_id"));
	if (!strcmp(list, "connections") && json_get_text(it, "local_ip"))
		return g_strdup_printf("connection %s:%s -> %s:%s", json_get_text(it, "local_ip"), text_or(it, "local_port", "?"),
		                       text_or(it, "peer_ip", "?"), text_or(it, "peer_port", "?"));
	if (!strcmp(list, "fallbacks") && json_get_text(it, "code"))
		return g_strdup_printf("fallback %s", json_get_text(it, "code"));
	if (!strcmp(list, "timeline") || !strcmp(list, "reports")) {
		/* by what and when, not by FILE:LINE: an edited copy of a scenario moves lines */
		const char *expect = json_get_text(it, "expect");
		char *t = time_text(it);
		char *id = expect ? g_strdup_printf("'%s' at %s", expect, t)
		                  : g_strdup_printf("report %s at %s", text_or(it, "report", ""), t);
		g_free(t);
		return id;
	}
	return NULL;
}

static void diff_value(differ *d, const char *path, const char *name, const json_value *a, const json_value *b);

/* Labels of a list's items: their identity, else "NAME[i]"; a repeated identity gets "#2"… */
static char **labels_of(const char *name, const json_value *v)
{
	char **l = g_new0(char *, v->n + 1);
	for (size_t i = 0; i < v->n; i++) {
		char *id = identity(name, v->items[i]);
		if (!id) {
			l[i] = g_strdup_printf("%s[%zu]", name, i);
			continue;
		}
		unsigned seen = 1;
		for (size_t j = 0; j < i; j++)
			seen += g_str_has_prefix(l[j], id) && (l[j][strlen(id)] == 0 || l[j][strlen(id)] == ' ');
		l[i] = seen > 1 ? g_strdup_printf("%s #%u", id, seen) : g_strdup(id);
		g_free(id);
	}
	return l;
}

static void diff_array(differ *d, const char *path, const char *name, const json_value *a, const json_value *b)
{
	if (all_scalars(a) && all_scalars(b)) {
		char *ta = value_text(a), *tb = value_text(b);
		if (strcmp(ta, tb))
			emit(d, JSON_DIFF_CHANGED, path, a, b);
		g_free(ta);
		g_free(tb);
		return;
	}
	char **la = labels_of(name, a), **lb = labels_of(name, b);
	bool *matched = g_new0(bool, b->n + 1);
	for (size_t i = 0; i < a->n; i++) {
		size_t j = 0;
		while (j < b->n && (matched[j] || strcmp(la[i], lb[j])))
			j++;
		char *p = join(path, la[i]);
		if (j < b->n) {
			matched[j] = true;
			diff_value(d, p, name, a->items[i], b->items[j]);
		} else {
			emit(d, JSON_DIFF_ONLY_A, p, a->items[i], NULL);
		}
		g_free(p);
	}
	for (size_t j = 0; j < b->n; j++) {
		if (matched[j])
			continue;
		char *p = join(path, lb[j]);
		emit(d, JSON_DIFF_ONLY_B, p, NULL, b->items[j]);
		g_free(p);
	}
	g_free(matched);
	g_strfreev(la);
	g_strfreev(lb);
}

static bool item_list(const json_value *a, const json_value *b)
{
	return a->kind == JSON_ARRAY && b && b->kind == JSON_ARRAY && !(all_scalars(a) && all_scalars(b));
}

static void diff_object(differ *d, const char *path, const json_value *a, const json_value *b)
{
	for (size_t i = 0; i < a->n; i++) {
		if (ignored(d, a->keys[i]))
			continue;
		const json_value *vb = json_get(b, a->keys[i]);
		/* a list's items say what they are ("stack ZOSA"): its name would only repeat that */
		char *p = item_list(a->items[i], vb) ? g_strdup(path) : join(path, a->keys[i]);
		if (vb)
			diff_value(d, p, a->keys[i], a->items[i], vb);
		else
			emit(d, JSON_DIFF_ONLY_A, p, a->items[i], NULL);
		g_free(p);
	}
	for (size_t j = 0; j < b->n; j++) {
		if (ignored(d, b->keys[j]) || json_get(a, b->keys[j]))
			continue;
		char *p = join(path, b->keys[j]);
		emit(d, JSON_DIFF_ONLY_B, p, NULL, b->items[j]);
		g_free(p);
	}
}

static void diff_value(differ *d, const char *path, const char *name, const json_value *a, const json_value *b)
{
	const char *where = path[0] ? path : name;
	if (a->kind != b->kind) {
		emit(d, JSON_DIFF_CHANGED, where, a, b);
		return;
	}
	switch (a->kind) {
	case JSON_OBJECT: diff_object(d, path, a, b); return;
	case JSON_ARRAY: diff_array(d, item_list(a, b) ? path : where, name, a, b); return;
	case JSON_NULL: return;
	case JSON_BOOL:
		if (a->b != b->b)
			emit(d, JSON_DIFF_CHANGED, where, a, b);
		return;
	case JSON_NUMBER:
	case JSON_STRING:
		if (strcmp(a->text, b->text))
			emit(d, JSON_DIFF_CHANGED, where, a, b);
		return;
	}
}

size_t json_diff(const json_value *a, const json_value *b, const json_diff_opts *o, json_diff_fn fn, void *ctx)
{
	const char *sa = json_get_text(a, "scenario"), *sb = json_get_text(b, "scenario");
	differ d = { .o = o, .fn = fn, .ctx = ctx, .same_scenario = !sa || !sb || !strcmp(sa, sb) };
	diff_value(&d, "", "document", a, b);
	return d.n;
}
