/* Typed attributes of scenario statements: each value parsed per its spec with a
 * located message, range checks, defaults from the table in scn_defaults.c. */
#include <string.h>

#include "model/clc.h"
#include "sim/scenario/scn_attrs.h"
#include "sim/scenario/scn_values.h"

const uint64_t scn_roce_mtus[] = { 256, 512, 1024, 2048, 4096, 0 };
const uint64_t scn_one_or_two[] = { 1, 2, 0 };

/* ---- small helpers ---------------------------------------------------------------- */

static const char *type_noun(scn_vtype t)
{
	switch (t) {
	case SCN_V_UINT: return "integer";
	case SCN_V_HEX: return "hex number";
	case SCN_V_DURATION: return "duration";
	case SCN_V_SIZE: return "size";
	case SCN_V_RATE: return "rate";
	case SCN_V_RATIO: return "ratio";
	case SCN_V_BOOL: return "boolean";
	case SCN_V_NAME: return "name";
	case SCN_V_STRING: return "string";
	case SCN_V_PREFIX: return "address/prefix";
	case SCN_V_IPV4: return "IPv4 address";
	case SCN_V_MAC: return "MAC address";
	case SCN_V_VLANS: return "VLAN list";
	case SCN_V_UEIDS: return "UEID list";
	case SCN_V_PNETID: return "PNETID";
	case SCN_V_ENUM: return "value";
	case SCN_V_START: return "start time";
	case SCN_V_CLOSE: return "close time";
	case SCN_V_REASON: return "reason code";
	}
	return "value";
}

static void fmt_typed(scn_vtype t, uint64_t v, char *buf, size_t len)
{
	if (t == SCN_V_DURATION)
		scn_format_duration(v, buf, len);
	else if (t == SCN_V_SIZE)
		scn_format_size(v, buf, len);
	else if (t == SCN_V_RATE)
		scn_format_rate(v, buf, len);
	else if (t == SCN_V_HEX)
		snprintf(buf, len, "0x%llx", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* "a, b or c" from a NULL-terminated list */
static char *join_choices(const char *const *c)
{
	GString *s = g_string_new(NULL);
	size_t n = 0;
	while (c[n])
		n++;
	for (size_t i = 0; i < n; i++) {
		if (i)
			g_string_append(s, i + 1 == n ? " or " : ", ");
		g_string_append(s, c[i]);
	}
	return g_string_free(s, FALSE);
}

static char *join_allowed(const uint64_t *a)
{
	GString *s = g_string_new(NULL);
	size_t n = 0;
	while (a[n])
		n++;
	for (size_t i = 0; i < n; i++) {
		if (i)
			g_string_append(s, i + 1 == n ? " or " : ", ");
		g_string_append_printf(s, "%llu", (unsigned long long)a[i]);
	}
	return g_string_free(s, FALSE);
}

bool scn_word_is(const scn_token *t, const char *w)
{
	return !t->key && !t->quoted && !strcmp(t->value, w);
}

/* ---- value parsing ---------------------------------------------------------------- */

bool scn_attr_in_allowed(const uint64_t *a, uint64_t v)
{
	for (; *a; a++)
		if (*a == v)
			return true;
	return false;
}

static bool parse_vlans(const char *text, scn_vlan_set *set, const char **why)
{
	*set = (scn_vlan_set){ 0 };
	if (!strcmp(text, "all")) {
		set->all = true;
		return true;
	}
	char **parts = g_strsplit(text, ",", -1);
	bool ok = true;
	for (char **p = parts; *p; p++) {
		uint64_t v;
		const char *w;
		if (!**p) {
			*why = "expected all or VLAN ids separated by single commas, such as 10,20";
			ok = false;
			break;
		}
		if (!scn_parse_uint(*p, &v, &w) || v < 1 || v > 4094) {
			*why = "expected VLAN ids 1..4094";
			ok = false;
			break;
		}
		if (set->bits[v / 64] & (1ULL << (v % 64))) {
			*why = "expected each VLAN id once";
			ok = false;
			break;
		}
		set->bits[v / 64] |= 1ULL << (v % 64);
	}
	g_strfreev(parts);
	return ok;
}

/* UEIDs: 1..32 of A-Z 0-9 . - starting with a letter or digit (CLC v2 EID characters). */
static bool parse_ueids(const char *text, scn_val *out, const char **why)
{
	char **parts = g_strsplit(text, ",", -1);
	bool ok = true;
	out->n_ueids = 0;
	for (char **p = parts; *p; p++) {
		size_t n = strlen(*p);
		if (n == 0 || n > SCN_UEID_MAX) {
			*why = n ? "expected UEIDs of at most 32 characters" : "expected UEIDs separated by single commas";
			ok = false;
			break;
		}
		for (size_t i = 0; i < n && ok; i++) {
			char c = (*p)[i];
			bool alnum = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
			if (!alnum && (i == 0 || (c != '.' && c != '-'))) {
				*why = "expected UEIDs of A-Z, 0-9, '.' and '-' starting with a letter or digit";
				ok = false;
			}
		}
		if (!ok)
			break;
		if (out->n_ueids == SCN_MAX_UEIDS) {
			*why = "expected at most 4 UEIDs (Linux's table holds 4, SMC_MAX_UEID)";
			ok = false;
			break;
		}
		for (unsigned i = 0; i < out->n_ueids; i++)
			if (!strcmp(out->ueids[i], *p)) {
				*why = "expected each UEID once";
				ok = false;
			}
		if (!ok)
			break;
		g_strlcpy(out->ueids[out->n_ueids++], *p, SCN_UEID_MAX + 1);
	}
	g_strfreev(parts);
	return ok;
}

/* PNETIDs: 1..16 letters and digits, stored upper case (z/OS and Linux compare them so). */
static bool parse_pnetid(const char *text, char out[SCN_PNETID_MAX + 1], const char **why)
{
	size_t n = strlen(text);
	if (n == 0 || n > SCN_PNETID_MAX) {
		*why = "expected 1 to 16 letters and digits";
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		char c = text[i];
		if (!g_ascii_isalnum(c)) {
			*why = "expected 1 to 16 letters and digits";
			return false;
		}
		out[i] = g_ascii_toupper(c);
	}
	out[n] = 0;
	return true;
}

static const struct reason_name {
	const char *name;
	uint32_t code;
} reason_names[] = {
	{ "MEM", SMCR_DECL_MEM },
	{ "TIMEOUT_CL", SMCR_DECL_TIMEOUT_CL },
	{ "TIMEOUT_AL", SMCR_DECL_TIMEOUT_AL },
	{ "CNFERR", SMCR_DECL_CNFERR },
	{ "PEERNOSMC", SMCR_DECL_PEERNOSMC },
	{ "IPSEC", SMCR_DECL_IPSEC },
	{ "NOSMCDEV", SMCR_DECL_NOSMCDEV },
	{ "NOSMCRDEV", SMCR_DECL_NOSMCRDEV },
	{ "NOV2EXT", SMCR_DECL_NOV2EXT },
	{ "NOUEID", SMCR_DECL_NOUEID },
	{ "RELEASEERR", SMCR_DECL_RELEASEERR },
	{ "MAXCONNERR", SMCR_DECL_MAXCONNERR },
	{ "MAXLINKERR", SMCR_DECL_MAXLINKERR },
	{ "MODEUNSUPP", SMCR_DECL_MODEUNSUPP },
	{ "RMBE_EC", SMCR_DECL_RMBE_EC },
	{ "OPTUNSUPP", SMCR_DECL_OPTUNSUPP },
	{ "DIFFPREFIX", SMCR_DECL_DIFFPREFIX },
	{ "GETVLANERR", SMCR_DECL_GETVLANERR },
	{ "NOACTLINK", SMCR_DECL_NOACTLINK },
	{ "NOSRVLINK", SMCR_DECL_NOSRVLINK },
	{ "VERSMISMAT", SMCR_DECL_VERSMISMAT },
	{ "NOROUTE", SMCR_DECL_NOROUTE },
	{ "NOINDIRECT", SMCR_DECL_NOINDIRECT },
	{ "SYNCERR", SMCR_DECL_SYNCERR },
	{ "PEERDECL", SMCR_DECL_PEERDECL },
	{ "INTERR", SMCR_DECL_INTERR },
};

static bool parse_reason(const char *text, uint64_t *code, const char **why)
{
	for (size_t i = 0; i < N_SPECS(reason_names); i++)
		if (!strcmp(text, reason_names[i].name)) {
			*code = reason_names[i].code;
			return true;
		}
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X') && scn_parse_hex(text, 8, code, why))
		return true;
	*why = "expected a 0x-prefixed code such as 0x03010000 or a name such as PEERNOSMC";
	return false;
}

/* One of sp->choices; its index in out->u. */
static bool enum_value(scn_parser *P, const char *key, const char *text, scn_loc loc, const scn_attr_spec *sp,
                       scn_val *out)
{
	for (unsigned i = 0; sp->choices[i]; i++)
		if (!strcmp(text, sp->choices[i])) {
			out->u = i;
			return true;
		}
	char *c = join_choices(sp->choices);
	scn_error(P->d, loc, "bad value '%s' for %s; expected %s", text, key, c);
	g_free(c);
	return false;
}

/* A start time: TIME, or never (out->b). */
static bool parse_start(const char *text, scn_val *out, const char **why)
{
	out->b = !strcmp(text, "never");
	if (out->b) {
		out->u = 0;
		return true;
	}
	if (scn_parse_duration(text, 0, &out->u, why))
		return true;
	if (*why != SCN_WHY_OVERFLOW)
		*why = "expected a time such as 0, 2s or 500ms, or never";
	return false;
}

/* How an app closes: after (its work), never, or at a TIME. */
static bool parse_close(const char *text, scn_val *out, const char **why)
{
	if (!strcmp(text, "after")) {
		out->close = SCN_CLOSE_AFTER;
		return true;
	}
	if (!strcmp(text, "never")) {
		out->close = SCN_CLOSE_NEVER;
		return true;
	}
	out->close = SCN_CLOSE_AT;
	if (scn_parse_duration(text, 0, &out->u, why))
		return true;
	if (*why != SCN_WHY_OVERFLOW)
		*why = "expected after, never or a time such as 30s";
	return false;
}

/* The text as a value of its type; false with *why when it is not written like one. */
static bool parse_typed(const scn_attr_spec *sp, const char *text, scn_val *out, const char **why)
{
	switch (sp->type) {
	case SCN_V_UINT: return scn_parse_uint(text, &out->u, why);
	case SCN_V_HEX: return scn_parse_hex(text, 16, &out->u, why);
	case SCN_V_DURATION: return scn_parse_duration(text, 0, &out->u, why);
	case SCN_V_SIZE: return scn_parse_size(text, &out->u, why);
	case SCN_V_RATE: return scn_parse_rate(text, &out->u, why);
	case SCN_V_RATIO: return scn_parse_ratio(text, &out->r, why);
	case SCN_V_BOOL: return scn_parse_bool(text, &out->b, why);
	case SCN_V_NAME:
		out->s = text;
		return scn_valid_name(text, why);
	case SCN_V_STRING:
		out->s = text;
		return true;
	case SCN_V_PREFIX: return scn_parse_prefix(text, &out->addr, &out->len, why);
	case SCN_V_IPV4: return scn_parse_ipv4(text, &out->addr, why);
	case SCN_V_MAC: return scn_parse_mac(text, out->mac, why);
	case SCN_V_VLANS: return parse_vlans(text, &out->vlans, why);
	case SCN_V_UEIDS: return parse_ueids(text, out, why);
	case SCN_V_PNETID: return parse_pnetid(text, out->pnetid, why);
	case SCN_V_ENUM: g_assert_not_reached(); /* enum_value, which lists the choices */
	case SCN_V_START: return parse_start(text, out, why);
	case SCN_V_CLOSE: return parse_close(text, out, why);
	case SCN_V_REASON: return parse_reason(text, &out->u, why);
	}
	return false;
}

/* A number within the spec: one of allowed[], else in [min, max]. */
static bool check_range(scn_parser *P, const char *key, const char *text, scn_loc loc, const scn_attr_spec *sp,
                        uint64_t u)
{
	if (sp->allowed) {
		if (scn_attr_in_allowed(sp->allowed, u))
			return true;
		char *a = join_allowed(sp->allowed);
		scn_error(P->d, loc, "%s=%s is not allowed; expected %s", key, text, a);
		g_free(a);
		return false;
	}
	if (u >= sp->min && u <= sp->max)
		return true;
	char lo[SCN_FMT_LEN], hi[SCN_FMT_LEN];
	fmt_typed(sp->type, sp->min, lo, sizeof(lo));
	fmt_typed(sp->type, sp->max, hi, sizeof(hi));
	scn_error(P->d, loc, "%s=%s is out of range; expected %s..%s", key, text, lo, hi);
	return false;
}

/* A number too large for 64 bits: out of range, with the largest value the attribute
 * takes (start and close times lie before the run's end, at most 24h). */
static bool overflow(scn_parser *P, const char *key, const char *text, scn_loc loc, const scn_attr_spec *sp)
{
	char lo[SCN_FMT_LEN], hi[SCN_FMT_LEN];
	scn_vtype t = sp->type == SCN_V_START || sp->type == SCN_V_CLOSE ? SCN_V_DURATION : sp->type;
	uint64_t min = sp->min, max = sp->max;
	if (sp->type == SCN_V_START || sp->type == SCN_V_CLOSE)
		max = SCN_MAX_END_NS;
	fmt_typed(t, min, lo, sizeof(lo));
	fmt_typed(t, max, hi, sizeof(hi));
	if (t == SCN_V_HEX)
		scn_error(P->d, loc, "%s=%s is out of range (max %s); expected at most %s", key, scn_echo(P->d, text), hi, hi);
	else
		scn_error(P->d, loc, "%s=%s is out of range (max %s); expected %s..%s", key, scn_echo(P->d, text), hi, lo, hi);
	return false;
}

static bool check_unicast_mac(scn_parser *P, const char *key, const char *text, scn_loc loc, const uint8_t mac[6])
{
	if (mac[0] & 1) {
		scn_error(P->d, loc, "%s=%s is a multicast address; expected a unicast MAC (first byte even)", key, text);
		return false;
	}
	if (!(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5])) {
		scn_error(P->d, loc, "%s=%s is the zero MAC; expected a unicast MAC", key, text);
		return false;
	}
	return true;
}

/* What a well-written value must still satisfy: ranges, lengths, a unicast MAC. */
static bool check_typed(scn_parser *P, const char *key, const char *text, scn_loc loc, const scn_attr_spec *sp,
                        const scn_val *out)
{
	switch (sp->type) {
	case SCN_V_UINT:
	case SCN_V_DURATION:
	case SCN_V_SIZE:
	case SCN_V_RATE:
		return check_range(P, key, text, loc, sp, out->u);
	case SCN_V_HEX:
		if (out->u > sp->max) {
			char mx[SCN_FMT_LEN];
			fmt_typed(SCN_V_HEX, sp->max, mx, sizeof(mx));
			scn_error(P->d, loc, "%s=%s is out of range; expected at most %s", key, text, mx);
			return false;
		}
		return true;
	case SCN_V_STRING:
		if (sp->max && strlen(text) > sp->max) {
			scn_error(P->d, loc, "%s is %zu characters long; expected at most %llu", key, strlen(text),
			          (unsigned long long)sp->max);
			return false;
		}
		return true;
	case SCN_V_PREFIX:
		if (out->len < sp->min || out->len > sp->max) {
			scn_error(P->d, loc, "prefix length /%u is out of range; expected %llu..%llu", out->len,
			          (unsigned long long)sp->min, (unsigned long long)sp->max);
			return false;
		}
		return true;
	case SCN_V_MAC:
		return check_unicast_mac(P, key, text, loc, out->mac);
	case SCN_V_RATIO:
	case SCN_V_BOOL:
	case SCN_V_NAME:
	case SCN_V_IPV4:
	case SCN_V_VLANS:
	case SCN_V_UEIDS:
	case SCN_V_PNETID:
	case SCN_V_ENUM:
	case SCN_V_START:
	case SCN_V_CLOSE:
	case SCN_V_REASON:
		return true;
	}
	return true;
}

/* Parse `text` (written at loc, for attribute `key`) per spec; report and return false on
 * error. */
bool scn_attr_value(scn_parser *P, const char *key, const char *text, scn_loc loc, const scn_attr_spec *sp, scn_val *out)
{
	if (sp->type == SCN_V_ENUM)
		return enum_value(P, key, text, loc, sp, out);
	const char *why = NULL;
	if (!parse_typed(sp, text, out, &why)) {
		if (why == SCN_WHY_OVERFLOW)
			return overflow(P, key, text, loc, sp);
		scn_error(P->d, loc, "bad %s '%s' for %s; %s", type_noun(sp->type), scn_echo(P->d, text), key, why);
		return false;
	}
	return check_typed(P, key, text, loc, sp, out);
}

/* ---- attribute collection --------------------------------------------------------- */

/* Number of positional words at the start of the statement (the keyword included). A
 * positional word after an attribute is an error; returns SIZE_MAX after reporting it. */
size_t scn_attr_positionals(scn_parser *P, const scn_stmt *st, const char *usage)
{
	size_t n = 0;
	while (n < st->n && !st->tok[n].key)
		n++;
	for (size_t i = n; i < st->n; i++)
		if (!st->tok[i].key) {
			scn_error(P->d, st->tok[i].loc, "unexpected word '%s' after the attributes; expected key=value (%s)",
			          scn_echo(P->d, st->tok[i].value), usage);
			return SIZE_MAX;
		}
	return n;
}

bool scn_stmt_name_given(scn_parser *P, const scn_stmt *st, size_t np, const char *what, const char *usage)
{
	if (st->n >= 2 && !st->tok[1].key)
		return true;
	if (np != SIZE_MAX)
		scn_error(P->d, st->loc, "missing %s name; expected %s", what, usage);
	return false;
}

bool scn_stmt_words_at_most(scn_parser *P, const scn_stmt *st, size_t np, size_t max, const char *usage)
{
	if (np == SIZE_MAX)
		return false;
	if (np > max) {
		scn_error(P->d, st->tok[max].loc, "unexpected word '%s'; expected %s", scn_echo(P->d, st->tok[max].value), usage);
		return false;
	}
	return true;
}

static char *spec_keys(const scn_attr_spec *spec, size_t n)
{
	GString *s = g_string_new(NULL);
	for (size_t i = 0; i < n; i++)
		g_string_append_printf(s, "%s%s", i ? ", " : "", spec[i].key);
	return g_string_free(s, FALSE);
}

/* Sort the attributes of tokens [first, n) into a by spec; unknown or repeated keys are
 * errors. `what` names the statement in messages. */
bool scn_attr_collect(scn_parser *P, const scn_stmt *st, size_t first, const scn_attr_spec *spec, size_t nspec,
                      const char *what, scn_attrs *a)
{
	g_assert(nspec <= MAX_ATTRS);
	memset(a, 0, sizeof(*a));
	a->spec = spec;
	a->n = nspec;
	for (size_t i = first; i < st->n; i++) {
		const scn_token *t = &st->tok[i];
		size_t k;
		for (k = 0; k < nspec; k++)
			if (!strcmp(spec[k].key, t->key))
				break;
		if (k == nspec) {
			char *keys = spec_keys(spec, nspec);
			if (nspec)
				scn_error(P->d, t->loc, "unknown attribute '%s' for %s; expected one of %s", scn_echo(P->d, t->key), what, keys);
			else
				scn_error(P->d, t->loc, "unknown attribute '%s' for %s; expected no attributes", scn_echo(P->d, t->key), what);
			g_free(keys);
			return false;
		}
		if (a->tok[k]) {
			scn_error(P->d, t->loc, "repeated attribute '%s' (first at %u:%u); expected each attribute once", scn_echo(P->d, t->key),
			          a->tok[k]->loc.line, a->tok[k]->loc.col);
			return false;
		}
		a->tok[k] = t;
	}
	/* values in the order they are written, so the first error reported is the leftmost */
	for (size_t i = first; i < st->n; i++) {
		const scn_token *t = &st->tok[i];
		for (size_t k = 0; k < nspec; k++)
			if (a->tok[k] == t) {
				scn_val scratch;
				if (!scn_attr_value(P, t->key, t->value, t->vloc, &spec[k], &scratch))
					return false;
			}
	}
	for (size_t k = 0; k < nspec; k++)
		if (spec[k].required && !a->tok[k]) {
			scn_error(P->d, st->loc, "missing attribute '%s' for %s; expected %s", spec[k].key, what, spec[k].hint);
			return false;
		}
	return true;
}

static const scn_token *attr_tok(const scn_attrs *a, const char *key)
{
	for (size_t k = 0; k < a->n; k++)
		if (!strcmp(a->spec[k].key, key))
			return a->tok[k];
	g_assert_not_reached();
}

static const scn_attr_spec *attr_spec_of(const scn_attrs *a, const char *key)
{
	for (size_t k = 0; k < a->n; k++)
		if (!strcmp(a->spec[k].key, key))
			return &a->spec[k];
	g_assert_not_reached();
}

/* The written value of `key`, or its default for `scope` and personality `pers`. Returns
 * false (after reporting) on a bad written value; *given tells which it was. Attributes
 * without a default (SCN_DEF_UNSET/DERIVED) come back with *given false and out zeroed. */
bool scn_attr_get(scn_parser *P, const scn_attrs *a, const char *key, const char *scope, scn_personality pers, scn_val *out,
                  bool *given)
{
	const scn_token *t = attr_tok(a, key);
	const scn_attr_spec *sp = attr_spec_of(a, key);
	memset(out, 0, sizeof(*out));
	if (given)
		*given = t != NULL;
	if (t)
		return scn_attr_value(P, key, t->value, t->vloc, sp, out);
	const scn_default *d = scope ? scn_default_find(scope, key) : NULL;
	if (!d || d->how != SCN_DEF_VALUE)
		return true;
	scn_diag scratch;
	scn_diag_init(&scratch);
	scn_diag *real = P->d;
	P->d = &scratch;
	bool ok = scn_attr_value(P, key, d->value[pers], (scn_loc){ "defaults", 0, 0 }, sp, out);
	P->d = real;
	if (!ok)
		g_error("scenario default %s %s=%s does not parse: %s", scope, key, d->value[pers], scn_diag_message(&scratch, 0));
	scn_diag_free(&scratch);
	return true;
}

void scn_attr_link(scn_parser *P, const scn_attrs *a, const char *scope, scn_link_params *l, bool *ok)
{
	scn_val v;
	bool have_mtu = false;
	if (!*ok)
		return; /* `a` may not have been collected */
	for (size_t k = 0; k < a->n; k++)
		if (!strcmp(a->spec[k].key, "mtu"))
			have_mtu = true;
	if (*ok && (*ok = scn_attr_get(P, a, "latency", scope, SCN_PERS_LINUX, &v, NULL)))
		l->latency_ns = v.u;
	if (*ok && (*ok = scn_attr_get(P, a, "bandwidth", scope, SCN_PERS_LINUX, &v, NULL)))
		l->bandwidth_bps = v.u;
	if (have_mtu && *ok && (*ok = scn_attr_get(P, a, "mtu", scope, SCN_PERS_LINUX, &v, NULL)))
		l->mtu = (uint32_t)v.u;
	if (*ok && (*ok = scn_attr_get(P, a, "loss", scope, SCN_PERS_LINUX, &v, NULL)))
		l->loss = v.r;
	if (*ok && (*ok = scn_attr_get(P, a, "dup", scope, SCN_PERS_LINUX, &v, NULL)))
		l->dup = v.r;
	if (*ok && (*ok = scn_attr_get(P, a, "reorder", scope, SCN_PERS_LINUX, &v, NULL)))
		l->reorder = v.r;
	if (*ok && (*ok = scn_attr_get(P, a, "corrupt", scope, SCN_PERS_LINUX, &v, NULL)))
		l->corrupt = v.r;
}
