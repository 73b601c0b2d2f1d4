/* The scenario parser: statements to the typed model (docs/scenario-format.md).
 *
 * Two passes over the text. The pre-scan only collects names (switches, wires, adapters,
 * stacks and their interfaces, apps), so any statement can name things defined further
 * down. The main pass parses every statement: the first error in a statement is reported
 * and the parser moves on to the next statement. An item whose statement had an error
 * is still entered under its name (so that references to it do not cascade into more
 * errors) and marked broken for the checker. */
#include <string.h>

#include "model/clc.h"
#include "sim/scn_internal.h"
#include "sim/scn_values.h"

/* ---- value types and attribute specs ---------------------------------------------- */

typedef enum vtype {
	V_UINT,     /* integer in [min, max], or one of allowed[] */
	V_HEX,      /* hex digits, at most `max` as a value */
	V_DURATION, /* [min, max] ns */
	V_SIZE,     /* [min, max] bytes */
	V_RATE,     /* [min, max] bps */
	V_RATIO,
	V_BOOL,
	V_NAME,
	V_STRING,   /* max = longest length */
	V_PREFIX,   /* prefix length in [min, max] */
	V_IPV4,
	V_MAC,
	V_VLANS,    /* "all" or a list of VLAN ids */
	V_UEIDS,    /* list of UEIDs */
	V_PNETID,
	V_ENUM,     /* one of choices[] */
	V_START,    /* TIME or never */
	V_CLOSE,    /* after, never or TIME */
	V_REASON,   /* a CLC decline code: hex or a name */
} vtype;

typedef struct attr_spec {
	const char *key;
	vtype type;
	uint64_t min, max;
	const char *const *choices;
	const uint64_t *allowed;
	const char *hint;  /* what a missing required attribute looks like */
	bool required;
} attr_spec;

typedef struct val {
	uint64_t u;        /* UINT, HEX, DURATION, SIZE, RATE, ENUM index, START/CLOSE time, REASON */
	bool b;            /* BOOL; START: never; */
	unsigned close;    /* CLOSE: scn_close */
	sim_ratio r;
	uint32_t addr;
	uint8_t len;
	uint8_t mac[6];
	const char *s;     /* NAME, STRING, PNETID (points into the token) */
	scn_vlan_set vlans;
	uint8_t n_ueids;
	char ueids[SCN_MAX_UEIDS][SCN_UEID_MAX + 1];
	char pnetid[SCN_PNETID_MAX + 1];
} val;

#define NS_S 1000000000ULL
#define NS_H (3600ULL * NS_S)

static const uint64_t roce_mtus[] = { 256, 512, 1024, 2048, 4096, 0 };
static const uint64_t one_or_two[] = { 1, 2, 0 };
static const char *const personalities[] = { "zos", "linux", NULL };
static const char *const roce_names[] = { "v1", "v2", "both", NULL };
static const char *const listen_kinds[] = { "echo", "sink", "responder", NULL };
static const char *const connect_kinds[] = { "bulk", "echo", "rr", NULL };
static const char *const report_formats[] = { "auto", "netstat", "smc", "json", NULL };

/* The access/trunk wire attributes shared by wire, interface, adapter and `set`. */
#define LINK_SPECS(mtu_lo, mtu_hi)                                                    \
	{ "latency", V_DURATION, 0, 10 * NS_S, NULL, NULL, NULL, false },             \
	{ "bandwidth", V_RATE, 1000, 10000000000000ULL, NULL, NULL, NULL, false },    \
	{ "mtu", V_UINT, mtu_lo, mtu_hi, NULL, NULL, NULL, false },                   \
	{ "loss", V_RATIO, 0, 0, NULL, NULL, NULL, false },                            \
	{ "dup", V_RATIO, 0, 0, NULL, NULL, NULL, false },                             \
	{ "reorder", V_RATIO, 0, 0, NULL, NULL, NULL, false },                         \
	{ "corrupt", V_RATIO, 0, 0, NULL, NULL, NULL, false }

#define N_LINK_SPECS 7

static const attr_spec switch_specs[] = {
	{ "vlans", V_VLANS, 0, 0, NULL, NULL, NULL, false },
};

static const attr_spec wire_specs[] = {
	LINK_SPECS(576, 9216),
	{ "vlans", V_VLANS, 0, 0, NULL, NULL, NULL, false },
};

enum { A_PFID = N_LINK_SPECS, A_PORTS, A_SWITCH, A_SWITCH2, A_MAC, A_MAC2, A_PNETID, A_PNETID2, A_ROCE };
static const attr_spec adapter_specs[] = {
	LINK_SPECS(256, 4096), /* mtu: the RoCE MTU, restricted to roce_mtus below */
	{ "pfid", V_HEX, 0, 0xffff, NULL, NULL, "pfid=HEX", true },
	{ "ports", V_UINT, 1, 2, NULL, one_or_two, NULL, false },
	{ "switch", V_NAME, 0, 0, NULL, NULL, "switch=NAME", true },
	{ "switch2", V_NAME, 0, 0, NULL, NULL, "switch2=NAME", false },
	{ "mac", V_MAC, 0, 0, NULL, NULL, NULL, false },
	{ "mac2", V_MAC, 0, 0, NULL, NULL, NULL, false },
	{ "pnetid", V_PNETID, 0, 0, NULL, NULL, NULL, false },
	{ "pnetid2", V_PNETID, 0, 0, NULL, NULL, NULL, false },
	{ "roce", V_ENUM, 0, 0, roce_names, NULL, NULL, false },
};

static const attr_spec stack_specs[] = {
	{ "personality", V_ENUM, 0, 0, personalities, NULL, NULL, false },
	{ "hostname", V_STRING, 0, SCN_HOSTNAME_MAX, NULL, NULL, NULL, false },
};

enum { I_SWITCH = N_LINK_SPECS, I_IP, I_VLAN, I_MAC, I_PNETID };
static const attr_spec iface_specs[] = {
	LINK_SPECS(576, 9216),
	{ "switch", V_NAME, 0, 0, NULL, NULL, "switch=NAME", true },
	{ "ip", V_PREFIX, 1, 32, NULL, NULL, "ip=A.B.C.D/LEN", true },
	{ "vlan", V_UINT, 1, 4094, NULL, NULL, NULL, false },
	{ "mac", V_MAC, 0, 0, NULL, NULL, NULL, false },
	{ "pnetid", V_PNETID, 0, 0, NULL, NULL, NULL, false },
};

static const attr_spec route_specs[] = {
	{ "via", V_IPV4, 0, 0, NULL, NULL, "via=A.B.C.D", true },
};

static const attr_spec pfid_specs[] = {
	{ "pfid", V_HEX, 0, 0xffff, NULL, NULL, "pfid=HEX", true },
	{ "port", V_UINT, 1, 2, NULL, one_or_two, NULL, false },
	{ "mtu", V_UINT, 256, 4096, NULL, roce_mtus, NULL, false },
};

static const attr_spec smcr_specs[] = {
	{ "enable", V_BOOL, 0, 0, NULL, NULL, NULL, false },
	{ "mtu", V_UINT, 256, 4096, NULL, roce_mtus, NULL, false },
	{ "fixedmemory", V_SIZE, 0, 1ULL << 40, NULL, NULL, NULL, false },
	/* RMBE sizes 16 KiB .. 512 MiB (size code 0..15) [digest §6.1] */
	{ "rmbsize", V_SIZE, 16384, 512ULL << 20, NULL, NULL, NULL, false },
	{ "sndbufsize", V_SIZE, 16384, 512ULL << 20, NULL, NULL, NULL, false },
	{ "v2", V_BOOL, 0, 0, NULL, NULL, NULL, false },
	{ "ueid", V_UEIDS, 0, 0, NULL, NULL, NULL, false },
	{ "keepalive", V_DURATION, 0, 24 * NS_H, NULL, NULL, NULL, false },
	{ "testlink", V_DURATION, 0, NS_H, NULL, NULL, NULL, false },
	/* smcr_max_links_per_lgr 1..2, smcr_max_conns_per_lgr 16..255 [lx-smc] */
	{ "maxlinks", V_UINT, 1, 2, NULL, NULL, NULL, false },
	{ "maxconns", V_UINT, 16, 255, NULL, NULL, NULL, false },
};

static const attr_spec listen_specs[] = {
	{ "port", V_UINT, 1, 65535, NULL, NULL, "port=N", true },
	{ "kind", V_ENUM, 0, 0, listen_kinds, NULL, "kind=echo|sink|responder", true },
	{ "smc", V_BOOL, 0, 0, NULL, NULL, NULL, false },
	{ "start", V_START, 0, 0, NULL, NULL, NULL, false },
};

enum { C_KIND, C_BYTES, C_REQUEST, C_RESPONSE, C_COUNT, C_CONNS, C_INTERVAL, C_START, C_CLOSE, C_SMC };
static const attr_spec connect_specs[] = {
	{ "kind", V_ENUM, 0, 0, connect_kinds, NULL, "kind=bulk|echo|rr", true },
	{ "bytes", V_SIZE, 0, 1ULL << 40, NULL, NULL, NULL, false },
	{ "request", V_SIZE, 1, 1ULL << 30, NULL, NULL, NULL, false },
	{ "response", V_SIZE, 1, 1ULL << 30, NULL, NULL, NULL, false },
	{ "count", V_UINT, 1, 1ULL << 32, NULL, NULL, NULL, false },
	{ "conns", V_UINT, 1, 65535, NULL, NULL, NULL, false },
	{ "interval", V_DURATION, 0, NS_H, NULL, NULL, NULL, false },
	{ "start", V_START, 0, 0, NULL, NULL, NULL, false },
	{ "close", V_CLOSE, 0, 0, NULL, NULL, NULL, false },
	{ "smc", V_BOOL, 0, 0, NULL, NULL, NULL, false },
};

static const attr_spec report_specs[] = {
	{ "format", V_ENUM, 0, 0, report_formats, NULL, NULL, false },
	{ "stack", V_NAME, 0, 0, NULL, NULL, NULL, false },
	{ "smcid", V_HEX, 0, 0xffffffffULL, NULL, NULL, NULL, false },
};

static const attr_spec port_only_specs[] = {
	{ "port", V_UINT, 1, 2, NULL, one_or_two, NULL, false },
};

static const attr_spec set_specs[] = {
	{ "latency", V_DURATION, 0, 10 * NS_S, NULL, NULL, NULL, false },
	{ "bandwidth", V_RATE, 1000, 10000000000000ULL, NULL, NULL, NULL, false },
	{ "loss", V_RATIO, 0, 0, NULL, NULL, NULL, false },
	{ "dup", V_RATIO, 0, 0, NULL, NULL, NULL, false },
	{ "reorder", V_RATIO, 0, 0, NULL, NULL, NULL, false },
	{ "corrupt", V_RATIO, 0, 0, NULL, NULL, NULL, false },
	{ "port", V_UINT, 1, 2, NULL, one_or_two, NULL, false },
};

static const attr_spec reason_specs[] = {
	{ "reason", V_REASON, 0, 0, NULL, NULL, NULL, false },
};

#define N_SPECS(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_ATTRS 24

/* The attributes found in one statement, by spec index. */
typedef struct attrs {
	const scn_token *tok[MAX_ATTRS];
	const attr_spec *spec;
	size_t n;
} attrs;

/* ---- small helpers ---------------------------------------------------------------- */

static const char *type_noun(vtype t)
{
	switch (t) {
	case V_UINT: return "integer";
	case V_HEX: return "hex number";
	case V_DURATION: return "duration";
	case V_SIZE: return "size";
	case V_RATE: return "rate";
	case V_RATIO: return "ratio";
	case V_BOOL: return "boolean";
	case V_NAME: return "name";
	case V_STRING: return "string";
	case V_PREFIX: return "address/prefix";
	case V_IPV4: return "IPv4 address";
	case V_MAC: return "MAC address";
	case V_VLANS: return "VLAN list";
	case V_UEIDS: return "UEID list";
	case V_PNETID: return "PNETID";
	case V_ENUM: return "value";
	case V_START: return "start time";
	case V_CLOSE: return "close time";
	case V_REASON: return "reason code";
	}
	return "value";
}

static void fmt_typed(vtype t, uint64_t v, char *buf, size_t len)
{
	if (t == V_DURATION)
		scn_format_duration(v, buf, len);
	else if (t == V_SIZE)
		scn_format_size(v, buf, len);
	else if (t == V_RATE)
		scn_format_rate(v, buf, len);
	else if (t == V_HEX)
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

char *scn_defined_list(GPtrArray *names)
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

void *scn_array_push(void **array, size_t *n, size_t elem_size)
{
	size_t count = *n;
	/* capacity is the next power of two: grow when count is 0 or a power of two */
	if (count == 0 || (count & (count - 1)) == 0) {
		size_t cap = count ? count * 2 : 4;
		if (count == 0 || count >= 4)
			*array = g_realloc(*array, cap * elem_size);
	}
	char *el = (char *)*array + count * elem_size;
	memset(el, 0, elem_size);
	(*n)++;
	return el;
}

static uint64_t brk_key(unsigned kind, uint64_t index)
{
	return ((uint64_t)kind << 56) | index;
}

bool scn_is_broken(const scn_parser *P, unsigned kind, uint64_t index)
{
	uint64_t k = brk_key(kind, index);
	return g_hash_table_contains(P->broken, &k);
}

void scn_mark_broken(scn_parser *P, unsigned kind, uint64_t index)
{
	uint64_t *k = g_new(uint64_t, 1);
	*k = brk_key(kind, index);
	g_hash_table_add(P->broken, k);
}

static bool word_is(const scn_token *t, const char *w)
{
	return !t->key && !t->quoted && !strcmp(t->value, w);
}

/* ---- value parsing ---------------------------------------------------------------- */

static bool in_allowed(const uint64_t *a, uint64_t v)
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
static bool parse_ueids(const char *text, val *out, const char **why)
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
			*why = "expected at most 8 UEIDs";
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
	{ "MEM", SMCR_DECL_MEM }, { "TIMEOUT_CL", SMCR_DECL_TIMEOUT_CL }, { "TIMEOUT_AL", SMCR_DECL_TIMEOUT_AL },
	{ "CNFERR", SMCR_DECL_CNFERR }, { "PEERNOSMC", SMCR_DECL_PEERNOSMC }, { "IPSEC", SMCR_DECL_IPSEC },
	{ "NOSMCDEV", SMCR_DECL_NOSMCDEV }, { "NOSMCRDEV", SMCR_DECL_NOSMCRDEV }, { "NOV2EXT", SMCR_DECL_NOV2EXT },
	{ "NOUEID", SMCR_DECL_NOUEID }, { "RELEASEERR", SMCR_DECL_RELEASEERR }, { "MAXCONNERR", SMCR_DECL_MAXCONNERR },
	{ "MAXLINKERR", SMCR_DECL_MAXLINKERR }, { "MODEUNSUPP", SMCR_DECL_MODEUNSUPP }, { "RMBE_EC", SMCR_DECL_RMBE_EC },
	{ "OPTUNSUPP", SMCR_DECL_OPTUNSUPP }, { "DIFFPREFIX", SMCR_DECL_DIFFPREFIX }, { "GETVLANERR", SMCR_DECL_GETVLANERR },
	{ "NOACTLINK", SMCR_DECL_NOACTLINK }, { "NOSRVLINK", SMCR_DECL_NOSRVLINK }, { "VERSMISMAT", SMCR_DECL_VERSMISMAT },
	{ "NOROUTE", SMCR_DECL_NOROUTE }, { "NOINDIRECT", SMCR_DECL_NOINDIRECT }, { "SYNCERR", SMCR_DECL_SYNCERR },
	{ "PEERDECL", SMCR_DECL_PEERDECL }, { "INTERR", SMCR_DECL_INTERR },
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

/* Parse `text` (written at loc, for attribute `key`) per spec; report and return false on
 * error. */
static bool parse_value(scn_parser *P, const char *key, const char *text, scn_loc loc, const attr_spec *sp, val *out)
{
	const char *why = NULL;
	bool ok = true;
	bool ranged = false;
	switch (sp->type) {
	case V_UINT:
		ok = scn_parse_uint(text, &out->u, &why);
		ranged = true;
		break;
	case V_HEX:
		ok = scn_parse_hex(text, 16, &out->u, &why);
		if (ok && out->u > sp->max) {
			char mx[SCN_FMT_LEN];
			fmt_typed(V_HEX, sp->max, mx, sizeof(mx));
			scn_error(P->d, loc, "%s=%s is out of range; expected at most %s", key, text, mx);
			return false;
		}
		break;
	case V_DURATION:
		ok = scn_parse_duration(text, 0, &out->u, &why);
		ranged = true;
		break;
	case V_SIZE:
		ok = scn_parse_size(text, &out->u, &why);
		ranged = true;
		break;
	case V_RATE:
		ok = scn_parse_rate(text, &out->u, &why);
		ranged = true;
		break;
	case V_RATIO:
		ok = scn_parse_ratio(text, &out->r, &why);
		break;
	case V_BOOL:
		ok = scn_parse_bool(text, &out->b, &why);
		break;
	case V_NAME:
		ok = scn_valid_name(text, &why);
		out->s = text;
		break;
	case V_STRING:
		if (sp->max && strlen(text) > sp->max) {
			scn_error(P->d, loc, "%s is %zu characters long; expected at most %llu", key, strlen(text),
			          (unsigned long long)sp->max);
			return false;
		}
		out->s = text;
		break;
	case V_PREFIX:
		ok = scn_parse_prefix(text, &out->addr, &out->len, &why);
		if (ok && (out->len < sp->min || out->len > sp->max)) {
			scn_error(P->d, loc, "prefix length /%u is out of range; expected %llu..%llu", out->len,
			          (unsigned long long)sp->min, (unsigned long long)sp->max);
			return false;
		}
		break;
	case V_IPV4:
		ok = scn_parse_ipv4(text, &out->addr, &why);
		break;
	case V_MAC:
		ok = scn_parse_mac(text, out->mac, &why);
		if (ok && (out->mac[0] & 1)) {
			scn_error(P->d, loc, "%s=%s is a multicast address; expected a unicast MAC (first byte even)", key, text);
			return false;
		}
		if (ok && !(out->mac[0] | out->mac[1] | out->mac[2] | out->mac[3] | out->mac[4] | out->mac[5])) {
			scn_error(P->d, loc, "%s=%s is the zero MAC; expected a unicast MAC", key, text);
			return false;
		}
		break;
	case V_VLANS:
		ok = parse_vlans(text, &out->vlans, &why);
		break;
	case V_UEIDS:
		ok = parse_ueids(text, out, &why);
		break;
	case V_PNETID:
		ok = parse_pnetid(text, out->pnetid, &why);
		break;
	case V_ENUM: {
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
	case V_START:
		out->b = !strcmp(text, "never");
		if (out->b) {
			out->u = 0;
			break;
		}
		ok = scn_parse_duration(text, 0, &out->u, &why);
		if (!ok)
			why = "expected a time such as 0, 2s or 500ms, or never";
		break;
	case V_CLOSE:
		if (!strcmp(text, "after")) {
			out->close = SCN_CLOSE_AFTER;
		} else if (!strcmp(text, "never")) {
			out->close = SCN_CLOSE_NEVER;
		} else {
			out->close = SCN_CLOSE_AT;
			ok = scn_parse_duration(text, 0, &out->u, &why);
			if (!ok)
				why = "expected after, never or a time such as 30s";
		}
		break;
	case V_REASON:
		ok = parse_reason(text, &out->u, &why);
		break;
	}
	if (!ok) {
		scn_error(P->d, loc, "bad %s '%s' for %s; %s", type_noun(sp->type), text, key, why);
		return false;
	}
	if (ranged) {
		if (sp->allowed) {
			if (!in_allowed(sp->allowed, out->u)) {
				char *a = join_allowed(sp->allowed);
				scn_error(P->d, loc, "%s=%s is not allowed; expected %s", key, text, a);
				g_free(a);
				return false;
			}
		} else if (out->u < sp->min || out->u > sp->max) {
			char lo[SCN_FMT_LEN], hi[SCN_FMT_LEN];
			fmt_typed(sp->type, sp->min, lo, sizeof(lo));
			fmt_typed(sp->type, sp->max, hi, sizeof(hi));
			scn_error(P->d, loc, "%s=%s is out of range; expected %s..%s", key, text, lo, hi);
			return false;
		}
	}
	return true;
}

/* ---- attribute collection --------------------------------------------------------- */

/* Number of positional words at the start of the statement (the keyword included). A
 * positional word after an attribute is an error; returns SIZE_MAX after reporting it. */
static size_t positionals(scn_parser *P, const scn_stmt *st, const char *usage)
{
	size_t n = 0;
	while (n < st->n && !st->tok[n].key)
		n++;
	for (size_t i = n; i < st->n; i++)
		if (!st->tok[i].key) {
			scn_error(P->d, st->tok[i].loc, "unexpected word '%s' after the attributes; expected key=value (%s)",
			          st->tok[i].value, usage);
			return SIZE_MAX;
		}
	return n;
}

static char *spec_keys(const attr_spec *spec, size_t n)
{
	GString *s = g_string_new(NULL);
	for (size_t i = 0; i < n; i++)
		g_string_append_printf(s, "%s%s", i ? ", " : "", spec[i].key);
	return g_string_free(s, FALSE);
}

/* Sort the attributes of tokens [first, n) into a by spec; unknown or repeated keys are
 * errors. `what` names the statement in messages. */
static bool collect(scn_parser *P, const scn_stmt *st, size_t first, const attr_spec *spec, size_t nspec,
                    const char *what, attrs *a)
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
				scn_error(P->d, t->loc, "unknown attribute '%s' for %s; expected one of %s", t->key, what, keys);
			else
				scn_error(P->d, t->loc, "unknown attribute '%s' for %s; expected no attributes", t->key, what);
			g_free(keys);
			return false;
		}
		if (a->tok[k]) {
			scn_error(P->d, t->loc, "repeated attribute '%s' (first at %u:%u); expected each attribute once", t->key,
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
				val scratch;
				if (!parse_value(P, t->key, t->value, t->vloc, &spec[k], &scratch))
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

static const scn_token *attr_tok(const attrs *a, const char *key)
{
	for (size_t k = 0; k < a->n; k++)
		if (!strcmp(a->spec[k].key, key))
			return a->tok[k];
	g_assert_not_reached();
}

static const attr_spec *attr_spec_of(const attrs *a, const char *key)
{
	for (size_t k = 0; k < a->n; k++)
		if (!strcmp(a->spec[k].key, key))
			return &a->spec[k];
	g_assert_not_reached();
}

/* The written value of `key`, or its default for `scope` and personality `pers`. Returns
 * false (after reporting) on a bad written value; *given tells which it was. Attributes
 * without a default (SCN_DEF_UNSET/DERIVED) come back with *given false and out zeroed. */
static bool get(scn_parser *P, const attrs *a, const char *key, const char *scope, scn_personality pers, val *out,
                bool *given)
{
	const scn_token *t = attr_tok(a, key);
	const attr_spec *sp = attr_spec_of(a, key);
	memset(out, 0, sizeof(*out));
	if (given)
		*given = t != NULL;
	if (t)
		return parse_value(P, key, t->value, t->vloc, sp, out);
	const scn_default *d = scope ? scn_default_find(scope, key) : NULL;
	if (!d || d->how != SCN_DEF_VALUE)
		return true;
	scn_diag scratch;
	scn_diag_init(&scratch);
	scn_diag *real = P->d;
	P->d = &scratch;
	bool ok = parse_value(P, key, d->value[pers], (scn_loc){ "defaults", 0, 0 }, sp, out);
	P->d = real;
	if (!ok)
		g_error("scenario default %s %s=%s does not parse: %s", scope, key, d->value[pers], scn_diag_message(&scratch, 0));
	scn_diag_free(&scratch);
	return true;
}

/* ---- names ---------------------------------------------------------------------- */

static const char *const sym_kind_names[SCN_SYM_N] = { "switch", "wire", "adapter", "stack", "app" };

static bool name_token_ok(const scn_token *t)
{
	const char *why;
	return t && !t->key && !t->quoted && scn_valid_name(t->value, &why);
}

static scn_sym *sym_get(const scn_symbols *s, scn_sym_kind k, const char *name)
{
	return g_hash_table_lookup(s->by_name[k], name);
}

/* Enter a name; returns its index, or SCN_NONE if it was already there. */
static uint32_t sym_add(scn_symbols *s, scn_sym_kind k, const char *name, scn_loc loc)
{
	if (sym_get(s, k, name))
		return SCN_NONE;
	scn_sym *e = g_new(scn_sym, 1);
	e->index = s->names[k]->len;
	e->loc = loc;
	char *key = g_strdup(name);
	g_hash_table_insert(s->by_name[k], key, e);
	g_ptr_array_add(s->names[k], key);
	return e->index;
}

static char *iface_key(const char *stack, const char *iface)
{
	return g_strdup_printf("%s\n%s", stack, iface);
}

static void symbols_init(scn_symbols *s)
{
	for (int k = 0; k < SCN_SYM_N; k++) {
		s->by_name[k] = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
		s->names[k] = g_ptr_array_new_with_free_func(g_free);
	}
	s->ifaces = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

static void symbols_free(scn_symbols *s)
{
	for (int k = 0; k < SCN_SYM_N; k++) {
		g_hash_table_destroy(s->by_name[k]);
		g_ptr_array_free(s->names[k], TRUE);
	}
	g_hash_table_destroy(s->ifaces);
}

/* Check a positional name token in the main pass: valid and, for kind k, the one the
 * pre-scan entered at this spot. Returns its index, or SCN_NONE after reporting. */
static uint32_t declare(scn_parser *P, scn_sym_kind k, const scn_token *t, uint32_t expected_index)
{
	const char *why;
	if (!scn_valid_name(t->value, &why) || t->quoted) {
		scn_error(P->d, t->loc, "bad %s name '%s'; %s", sym_kind_names[k], t->value,
		          t->quoted ? "expected a name without quotes" : why);
		return SCN_NONE;
	}
	scn_sym *e = sym_get(&P->sym, k, t->value);
	g_assert(e);
	if (e->loc.line != t->loc.line || e->loc.col != t->loc.col) {
		scn_error(P->d, t->loc, "duplicate %s '%s' (first defined at %u:%u); expected a unique name",
		          sym_kind_names[k], t->value, e->loc.line, e->loc.col);
		return SCN_NONE;
	}
	g_assert(e->index == expected_index);
	return e->index;
}

/* Resolve a reference to a name of kind k written at loc. */
static uint32_t resolve(scn_parser *P, scn_sym_kind k, const char *name, scn_loc loc)
{
	scn_sym *e = sym_get(&P->sym, k, name);
	if (e)
		return e->index;
	char *defined = scn_defined_list(P->sym.names[k]);
	for (int other = 0; other < SCN_SYM_N; other++)
		if (other != (int)k && sym_get(&P->sym, (scn_sym_kind)other, name)) {
			scn_error(P->d, loc, "'%s' is %s %s, not %s %s; expected the name of %s %s (%s)", name,
			          other == SCN_SYM_ADAPTER || other == SCN_SYM_APP ? "an" : "a", sym_kind_names[other],
			          k == SCN_SYM_ADAPTER || k == SCN_SYM_APP ? "an" : "a", sym_kind_names[k],
			          k == SCN_SYM_ADAPTER || k == SCN_SYM_APP ? "an" : "a", sym_kind_names[k], defined);
			g_free(defined);
			return SCN_NONE;
		}
	scn_error(P->d, loc, "unknown %s '%s'; expected the name of %s %s (%s)", sym_kind_names[k], name,
	          k == SCN_SYM_ADAPTER || k == SCN_SYM_APP ? "an" : "a", sym_kind_names[k], defined);
	g_free(defined);
	return SCN_NONE;
}

/* "STACK.IFACE" → stack and interface indices. */
static bool resolve_iface(scn_parser *P, const char *text, scn_loc loc, uint32_t *stack, uint32_t *iface)
{
	const char *dot = strchr(text, '.');
	if (!dot || dot == text || !dot[1]) {
		scn_error(P->d, loc, "bad interface '%s'; expected STACK.INTERFACE such as ZOSA.eth0", text);
		return false;
	}
	char *sname = g_strndup(text, (size_t)(dot - text));
	*stack = resolve(P, SCN_SYM_STACK, sname, loc);
	if (*stack == SCN_NONE) {
		g_free(sname);
		return false;
	}
	char *key = iface_key(sname, dot + 1);
	scn_sym *e = g_hash_table_lookup(P->sym.ifaces, key);
	g_free(key);
	if (!e) {
		const scn_stack *s = &P->scn->stacks[*stack];
		GString *names = g_string_new(NULL);
		for (size_t i = 0; i < s->n_ifaces; i++)
			g_string_append_printf(names, "%s%s", i ? ", " : "", s->ifaces[i].name);
		scn_error(P->d, loc, "stack '%s' has no interface '%s'; expected one of its interfaces (%s)", sname, dot + 1,
		          names->len ? names->str : "it has none yet");
		g_string_free(names, TRUE);
		g_free(sname);
		return false;
	}
	g_free(sname);
	*iface = e->index;
	return true;
}

/* "NAME" or "NAME.K" (one connection of an app with conns=N). */
static bool resolve_app_ref(scn_parser *P, const scn_token *t, scn_app_ref *ref)
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
	ref->app = resolve(P, SCN_SYM_APP, name, t->loc);
	g_free(name);
	if (ref->app == SCN_NONE)
		return false;
	if (ref->instance) {
		scn_instance_check c = { t->loc, ref->app, ref->instance };
		g_array_append_val(P->app_instances, c);
	}
	return true;
}

/* ---- statements ------------------------------------------------------------------- */

static void link_defaults_and_attrs(scn_parser *P, const attrs *a, const char *scope, scn_link_params *l, bool *ok)
{
	val v;
	bool have_mtu = false;
	if (!*ok)
		return; /* `a` may not have been collected */
	for (size_t k = 0; k < a->n; k++)
		if (!strcmp(a->spec[k].key, "mtu"))
			have_mtu = true;
	if (*ok && (*ok = get(P, a, "latency", scope, SCN_PERS_LINUX, &v, NULL)))
		l->latency_ns = v.u;
	if (*ok && (*ok = get(P, a, "bandwidth", scope, SCN_PERS_LINUX, &v, NULL)))
		l->bandwidth_bps = v.u;
	if (have_mtu && *ok && (*ok = get(P, a, "mtu", scope, SCN_PERS_LINUX, &v, NULL)))
		l->mtu = (uint32_t)v.u;
	if (*ok && (*ok = get(P, a, "loss", scope, SCN_PERS_LINUX, &v, NULL)))
		l->loss = v.r;
	if (*ok && (*ok = get(P, a, "dup", scope, SCN_PERS_LINUX, &v, NULL)))
		l->dup = v.r;
	if (*ok && (*ok = get(P, a, "reorder", scope, SCN_PERS_LINUX, &v, NULL)))
		l->reorder = v.r;
	if (*ok && (*ok = get(P, a, "corrupt", scope, SCN_PERS_LINUX, &v, NULL)))
		l->corrupt = v.r;
}

static void once(scn_parser *P, scn_loc *first, const scn_stmt *st, const char *kw, bool *ok)
{
	if (first->line) {
		scn_error(P->d, st->loc, "repeated '%s' (first at %u:%u); expected one '%s' statement", kw, first->line,
		          first->col, kw);
		*ok = false;
		return;
	}
	*first = st->loc;
}

static void stmt_scenario(scn_parser *P, const scn_stmt *st)
{
	bool ok = true;
	size_t np = positionals(P, st, "scenario \"TITLE\"");
	if (np == SIZE_MAX)
		return;
	if (np != 2 || st->n != 2) {
		scn_error(P->d, np < 2 ? st->loc : st->tok[2].loc, "%s; expected scenario \"TITLE\"",
		          np < 2 ? "missing title" : "more than one title");
		return;
	}
	once(P, &P->title_loc, st, "scenario", &ok);
	if (ok) {
		g_free(P->scn->title);
		P->scn->title = g_strdup(st->tok[1].value);
	}
}

static void stmt_seed(scn_parser *P, const scn_stmt *st)
{
	bool ok = true;
	size_t np = positionals(P, st, "seed N");
	if (np == SIZE_MAX)
		return;
	if (np != 2 || st->n != 2) {
		scn_error(P->d, np < 2 ? st->loc : st->tok[2].loc, "%s; expected seed N",
		          np < 2 ? "missing seed value" : "unexpected word after the seed");
		return;
	}
	static const attr_spec spec = { "seed", V_UINT, 0, UINT64_MAX, NULL, NULL, NULL, false };
	val v;
	if (!parse_value(P, "seed", st->tok[1].value, st->tok[1].loc, &spec, &v))
		return;
	once(P, &P->seed_loc, st, "seed", &ok);
	if (ok) {
		P->scn->seed = v.u;
		P->scn->has_seed = true;
	}
}

static void stmt_end_time(scn_parser *P, const scn_stmt *st)
{
	bool ok = true;
	size_t np = positionals(P, st, "end TIME");
	if (np == SIZE_MAX)
		return;
	if (np == 1 && st->n == 1) {
		scn_error(P->d, st->loc, "'end' without an open block; expected 'end TIME' to set the run's end time");
		return;
	}
	if (np != 2 || st->n != 2) {
		scn_error(P->d, st->tok[np < 2 ? 1 : 2].loc, "unexpected word; expected end TIME");
		return;
	}
	static const attr_spec spec = { "end", V_DURATION, 1, SCN_MAX_END_NS, NULL, NULL, NULL, false };
	val v;
	if (!parse_value(P, "end", st->tok[1].value, st->tok[1].loc, &spec, &v))
		return;
	once(P, &P->end_loc, st, "end", &ok);
	if (ok) {
		P->scn->end_ns = v.u;
		P->scn->has_end = true;
	}
}

static void stmt_switch(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "switch NAME [vlans=LIST]";
	size_t np = positionals(P, st, usage);
	if (st->n < 2 || st->tok[1].key) {
		if (np != SIZE_MAX)
			scn_error(P->d, st->loc, "missing switch name; expected %s", usage);
		return;
	}
	uint32_t idx = declare(P, SCN_SYM_SWITCH, &st->tok[1], (uint32_t)P->scn->n_switches);
	if (idx == SCN_NONE)
		return;
	scn_switch *sw = SCN_PUSH(P->scn->switches, P->scn->n_switches);
	g_strlcpy(sw->name, st->tok[1].value, sizeof(sw->name));
	sw->loc = st->loc;
	sw->vlans.all = true;
	bool ok = np != SIZE_MAX;
	if (ok && np > 2) {
		scn_error(P->d, st->tok[2].loc, "unexpected word '%s'; expected %s", st->tok[2].value, usage);
		ok = false;
	}
	attrs a = { 0 };
	val v;
	if (ok)
		ok = collect(P, st, np, switch_specs, N_SPECS(switch_specs), "switch", &a);
	if (ok && (ok = get(P, &a, "vlans", "switch", SCN_PERS_LINUX, &v, NULL)))
		sw->vlans = v.vlans;
	if (!ok)
		scn_mark_broken(P, SCN_BRK_SWITCH, idx);
}

static void stmt_wire(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "wire NAME SWITCH SWITCH [latency=…] [bandwidth=…] [mtu=N] [loss=…] [vlans=LIST]";
	size_t np = positionals(P, st, usage);
	if (st->n < 2 || st->tok[1].key) {
		if (np != SIZE_MAX)
			scn_error(P->d, st->loc, "missing wire name; expected %s", usage);
		return;
	}
	uint32_t idx = declare(P, SCN_SYM_WIRE, &st->tok[1], (uint32_t)P->scn->n_wires);
	if (idx == SCN_NONE)
		return;
	scn_wire *w = SCN_PUSH(P->scn->wires, P->scn->n_wires);
	g_strlcpy(w->name, st->tok[1].value, sizeof(w->name));
	w->loc = st->loc;
	w->sw_a = w->sw_b = SCN_NONE;
	bool ok = np != SIZE_MAX;
	if (ok && np != 4) {
		if (np < 4)
			scn_error(P->d, st->loc, "wire '%s' needs two switches; expected %s", w->name, usage);
		else
			scn_error(P->d, st->tok[4].loc, "unexpected word '%s'; expected %s", st->tok[4].value, usage);
		ok = false;
	}
	attrs a = { 0 };
	val v;
	if (ok)
		ok = collect(P, st, np, wire_specs, N_SPECS(wire_specs), "wire", &a);
	if (ok) {
		w->sw_a = resolve(P, SCN_SYM_SWITCH, st->tok[2].value, st->tok[2].loc);
		ok = w->sw_a != SCN_NONE;
	}
	if (ok) {
		w->sw_b = resolve(P, SCN_SYM_SWITCH, st->tok[3].value, st->tok[3].loc);
		ok = w->sw_b != SCN_NONE;
	}
	if (ok && w->sw_a == w->sw_b) {
		scn_error(P->d, st->tok[3].loc, "wire '%s' joins switch '%s' to itself; expected two different switches",
		          w->name, st->tok[3].value);
		ok = false;
	}
	link_defaults_and_attrs(P, &a, "wire", &w->link, &ok);
	if (ok && (ok = get(P, &a, "vlans", "wire", SCN_PERS_LINUX, &v, NULL)))
		w->vlans = v.vlans;
	if (!ok)
		scn_mark_broken(P, SCN_BRK_WIRE, idx);
}

static void derived_adapter_mac(uint8_t mac[6], uint16_t pfid, uint8_t port)
{
	mac[0] = 0x02;
	mac[1] = 0x01;
	mac[2] = (uint8_t)(pfid >> 8);
	mac[3] = (uint8_t)pfid;
	mac[4] = 0;
	mac[5] = port;
}

static void stmt_adapter(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "adapter NAME pfid=HEX switch=NAME [ports=1|2] [switch2=NAME] …";
	size_t np = positionals(P, st, usage);
	if (st->n < 2 || st->tok[1].key) {
		if (np != SIZE_MAX)
			scn_error(P->d, st->loc, "missing adapter name; expected %s", usage);
		return;
	}
	uint32_t idx = declare(P, SCN_SYM_ADAPTER, &st->tok[1], (uint32_t)P->scn->n_adapters);
	if (idx == SCN_NONE)
		return;
	scn_adapter *ad = SCN_PUSH(P->scn->adapters, P->scn->n_adapters);
	g_strlcpy(ad->name, st->tok[1].value, sizeof(ad->name));
	ad->loc = st->loc;
	ad->port[0].sw = ad->port[1].sw = SCN_NONE;
	scn_loc pfid_loc = st->loc;
	bool ok = np != SIZE_MAX;
	if (ok && np > 2) {
		scn_error(P->d, st->tok[2].loc, "unexpected word '%s'; expected %s", st->tok[2].value, usage);
		ok = false;
	}
	attrs a = { 0 };
	val v;
	bool given;
	if (ok)
		ok = collect(P, st, np, adapter_specs, N_SPECS(adapter_specs), "adapter", &a);
	if (ok && (ok = get(P, &a, "pfid", "adapter", SCN_PERS_LINUX, &v, NULL))) {
		ad->pfid = (uint16_t)v.u;
		pfid_loc = a.tok[A_PFID]->vloc;
	}
	if (ok && (ok = get(P, &a, "ports", "adapter", SCN_PERS_LINUX, &v, NULL)))
		ad->n_ports = (uint8_t)v.u;
	if (ok && (ok = get(P, &a, "mtu", "adapter", SCN_PERS_LINUX, &v, &given))) {
		if (!in_allowed(roce_mtus, v.u)) {
			scn_error(P->d, a.tok[2]->vloc, "mtu=%s is not allowed; expected 256, 512, 1024, 2048 or 4096",
			          a.tok[2]->value);
			ok = false;
		}
		ad->mtu = (uint32_t)v.u;
	}
	if (ok && (ok = get(P, &a, "roce", "adapter", SCN_PERS_LINUX, &v, NULL)))
		ad->roce = (scn_roce)(v.u + 1);
	link_defaults_and_attrs(P, &a, "adapter", &ad->link, &ok);
	ad->link.mtu = 0;
	if (ok) {
		ad->port[0].sw = resolve(P, SCN_SYM_SWITCH, a.tok[A_SWITCH]->value, a.tok[A_SWITCH]->vloc);
		ok = ad->port[0].sw != SCN_NONE;
	}
	/* port-2 attributes need a second port */
	static const int port2_attrs[] = { A_SWITCH2, A_MAC2, A_PNETID2 };
	for (size_t i = 0; ok && i < 3; i++) {
		const scn_token *t = a.tok[port2_attrs[i]];
		if (t && ad->n_ports == 1) {
			scn_error(P->d, t->loc, "%s= describes port 2 but adapter '%s' has one port; expected ports=2 with it",
			          t->key, ad->name);
			ok = false;
		}
	}
	if (ok && ad->n_ports == 2) {
		if (!a.tok[A_SWITCH2]) {
			scn_error(P->d, st->loc, "missing attribute 'switch2' for adapter '%s' with ports=2; expected switch2=NAME",
			          ad->name);
			ok = false;
		} else {
			ad->port[1].sw = resolve(P, SCN_SYM_SWITCH, a.tok[A_SWITCH2]->value, a.tok[A_SWITCH2]->vloc);
			ok = ad->port[1].sw != SCN_NONE;
		}
	}
	for (uint8_t p = 0; ok && p < ad->n_ports; p++) {
		if ((ok = get(P, &a, p ? "mac2" : "mac", "adapter", SCN_PERS_LINUX, &v, &given))) {
			if (given)
				memcpy(ad->port[p].mac, v.mac, 6);
			else
				derived_adapter_mac(ad->port[p].mac, ad->pfid, (uint8_t)(p + 1));
		}
		if (ok && (ok = get(P, &a, p ? "pnetid2" : "pnetid", "adapter", SCN_PERS_LINUX, &v, &given)) && given)
			g_strlcpy(ad->port[p].pnetid, v.pnetid, sizeof(ad->port[p].pnetid));
	}
	g_array_append_val(P->pfid_loc, pfid_loc);
	if (!ok)
		scn_mark_broken(P, SCN_BRK_ADAPTER, idx);
}

static void init_smcr_config(scn_parser *P, scn_smcr_config *c, scn_personality pers, scn_loc loc)
{
	static const attrs none = { .spec = smcr_specs, .n = N_SPECS(smcr_specs) };
	val v;
	c->loc = loc;
	get(P, &none, "enable", "smcr", pers, &v, NULL);
	c->enable = v.b;
	get(P, &none, "mtu", "smcr", pers, &v, NULL);
	c->mtu = (uint32_t)v.u;
	get(P, &none, "fixedmemory", "smcr", pers, &v, NULL);
	c->fixedmemory = v.u;
	get(P, &none, "rmbsize", "smcr", pers, &v, NULL);
	c->rmbsize = v.u;
	get(P, &none, "sndbufsize", "smcr", pers, &v, NULL);
	c->sndbufsize = v.u;
	get(P, &none, "v2", "smcr", pers, &v, NULL);
	c->v2 = v.b;
	get(P, &none, "keepalive", "smcr", pers, &v, NULL);
	c->keepalive_ns = v.u;
	get(P, &none, "testlink", "smcr", pers, &v, NULL);
	c->testlink_ns = v.u;
	get(P, &none, "maxlinks", "smcr", pers, &v, NULL);
	c->maxlinks = (uint8_t)v.u;
	get(P, &none, "maxconns", "smcr", pers, &v, NULL);
	c->maxconns = (uint8_t)v.u;
}

static void stmt_stack(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "stack NAME [personality=zos|linux] [hostname=STRING]";
	size_t np = positionals(P, st, usage);
	/* the block opens whatever goes wrong, so its inner statements and `end` are not
	 * reported as out of place */
	P->block = SCN_NONE;
	P->block_loc = st->loc;
	if (st->n < 2 || st->tok[1].key) {
		if (np != SIZE_MAX)
			scn_error(P->d, st->loc, "missing stack name; expected %s", usage);
		return;
	}
	uint32_t idx = declare(P, SCN_SYM_STACK, &st->tok[1], (uint32_t)P->scn->n_stacks);
	if (idx == SCN_NONE)
		return;
	P->block = idx;
	scn_stack *s = SCN_PUSH(P->scn->stacks, P->scn->n_stacks);
	g_strlcpy(s->name, st->tok[1].value, sizeof(s->name));
	g_strlcpy(s->hostname, s->name, sizeof(s->hostname));
	s->loc = st->loc;
	GArray *ips = g_array_new(FALSE, TRUE, sizeof(scn_loc));
	g_array_append_val(P->ip_loc, ips);
	scn_loc none = { 0 };
	g_array_append_val(P->smcr_settings_loc, none);
	bool ok = np != SIZE_MAX;
	if (ok && np > 2) {
		scn_error(P->d, st->tok[2].loc, "unexpected word '%s'; expected %s", st->tok[2].value, usage);
		ok = false;
	}
	attrs a = { 0 };
	val v;
	bool given;
	if (ok)
		ok = collect(P, st, np, stack_specs, N_SPECS(stack_specs), "stack", &a);
	if (ok && (ok = get(P, &a, "personality", "stack", SCN_PERS_LINUX, &v, NULL)))
		s->personality = (scn_personality)v.u;
	else
		s->personality = SCN_PERS_LINUX;
	if (ok && (ok = get(P, &a, "hostname", "stack", s->personality, &v, &given)) && given) {
		if (!*v.s) {
			scn_error(P->d, a.tok[1]->vloc, "empty hostname; expected 1 to 32 characters");
			ok = false;
		} else {
			g_strlcpy(s->hostname, v.s, sizeof(s->hostname));
		}
	}
	init_smcr_config(P, &s->smcr, s->personality, st->loc);
	if (ok) {
		const scn_default *d = scn_default_find("stack", "forwarding");
		scn_parse_bool(d->value[s->personality], &s->forwarding, &(const char *){ NULL });
	}
	if (!ok)
		scn_mark_broken(P, SCN_BRK_STACK, idx);
}

static scn_personality block_personality(const scn_parser *P)
{
	return P->block == SCN_NONE ? SCN_PERS_LINUX : P->scn->stacks[P->block].personality;
}

static void stmt_interface(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "interface NAME switch=NAME ip=A.B.C.D/LEN [vlan=ID] [mtu=N] [mac=MAC] …";
	size_t np = positionals(P, st, usage);
	if (st->n < 2 || st->tok[1].key) {
		if (np != SIZE_MAX)
			scn_error(P->d, st->loc, "missing interface name; expected %s", usage);
		return;
	}
	const char *why;
	if (!name_token_ok(&st->tok[1])) {
		scn_valid_name(st->tok[1].value, &why);
		scn_error(P->d, st->tok[1].loc, "bad interface name '%s'; %s", st->tok[1].value,
		          st->tok[1].quoted ? "expected a name without quotes" : why);
		return;
	}
	if (P->block == SCN_NONE)
		return; /* the stack statement was broken; nothing to attach to */
	scn_stack *s = &P->scn->stacks[P->block];
	char *key = iface_key(s->name, st->tok[1].value);
	scn_sym *e = g_hash_table_lookup(P->sym.ifaces, key);
	g_free(key);
	g_assert(e);
	if (e->loc.line != st->tok[1].loc.line || e->loc.col != st->tok[1].loc.col) {
		scn_error(P->d, st->tok[1].loc, "duplicate interface '%s' in stack '%s' (first defined at %u:%u); expected a unique name",
		          st->tok[1].value, s->name, e->loc.line, e->loc.col);
		return;
	}
	g_assert(e->index == s->n_ifaces);
	uint32_t idx = (uint32_t)s->n_ifaces;
	scn_interface *ifc = SCN_PUSH(s->ifaces, s->n_ifaces);
	g_strlcpy(ifc->name, st->tok[1].value, sizeof(ifc->name));
	ifc->loc = st->loc;
	ifc->sw = SCN_NONE;
	GArray *ips = g_array_index(P->ip_loc, GArray *, P->block);
	g_array_append_val(ips, st->loc);
	bool ok = np != SIZE_MAX;
	if (ok && np > 2) {
		scn_error(P->d, st->tok[2].loc, "unexpected word '%s'; expected %s", st->tok[2].value, usage);
		ok = false;
	}
	attrs a = { 0 };
	val v;
	bool given;
	scn_personality pers = s->personality;
	if (ok)
		ok = collect(P, st, np, iface_specs, N_SPECS(iface_specs), "interface", &a);
	if (ok) {
		ifc->sw = resolve(P, SCN_SYM_SWITCH, a.tok[I_SWITCH]->value, a.tok[I_SWITCH]->vloc);
		ok = ifc->sw != SCN_NONE;
	}
	if (ok && (ok = get(P, &a, "ip", "interface", pers, &v, NULL))) {
		ifc->ip = v.addr;
		ifc->prefix_len = v.len;
		g_array_index(ips, scn_loc, idx) = a.tok[I_IP]->vloc;
		if (v.len <= 30) {
			uint32_t host = v.len ? ~0u >> v.len : ~0u;
			if ((v.addr & host) == 0) {
				scn_error(P->d, a.tok[I_IP]->vloc, "%s is the subnet's own address; expected a host address",
				          a.tok[I_IP]->value);
				ok = false;
			} else if ((v.addr & host) == host) {
				scn_error(P->d, a.tok[I_IP]->vloc, "%s is the subnet's broadcast address; expected a host address",
				          a.tok[I_IP]->value);
				ok = false;
			}
		}
	}
	if (ok && (ok = get(P, &a, "vlan", "interface", pers, &v, NULL)))
		ifc->vlan = (uint16_t)v.u;
	link_defaults_and_attrs(P, &a, "interface", &ifc->link, &ok);
	if (ok && (ok = get(P, &a, "mac", "interface", pers, &v, &given))) {
		if (given) {
			memcpy(ifc->mac, v.mac, 6);
		} else {
			uint8_t m[6] = { 0x02, 0x00, (uint8_t)(ifc->ip >> 24), (uint8_t)(ifc->ip >> 16), (uint8_t)(ifc->ip >> 8),
			                 (uint8_t)ifc->ip };
			memcpy(ifc->mac, m, 6);
		}
	}
	if (ok && (ok = get(P, &a, "pnetid", "interface", pers, &v, &given)) && given)
		g_strlcpy(ifc->pnetid, v.pnetid, sizeof(ifc->pnetid));
	if (!ok)
		scn_mark_broken(P, SCN_BRK_IFACE, ((uint64_t)P->block << 16) | idx);
}

static void stmt_route(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "route DEST/LEN via=A.B.C.D (or route default via=A.B.C.D)";
	size_t np = positionals(P, st, usage);
	if (np == SIZE_MAX)
		return;
	if (np != 2) {
		scn_error(P->d, np < 2 ? st->loc : st->tok[2].loc, "%s; expected %s",
		          np < 2 ? "missing destination" : "unexpected word", usage);
		return;
	}
	scn_route r = { .loc = st->loc, .iface = SCN_NONE };
	if (!word_is(&st->tok[1], "default")) {
		static const attr_spec dest = { "route", V_PREFIX, 0, 32, NULL, NULL, NULL, false };
		val v;
		if (!parse_value(P, "route", st->tok[1].value, st->tok[1].loc, &dest, &v))
			return;
		uint32_t host = v.len ? (v.len == 32 ? 0 : ~0u >> v.len) : ~0u;
		if (v.addr & host) {
			char net[SCN_FMT_LEN];
			scn_format_ipv4(v.addr & ~host, net, sizeof(net));
			scn_error(P->d, st->tok[1].loc, "%s has host bits set; expected %s/%u", st->tok[1].value, net, v.len);
			return;
		}
		r.dest = v.addr;
		r.prefix_len = v.len;
	}
	attrs a = { 0 };
	val v;
	if (!collect(P, st, np, route_specs, N_SPECS(route_specs), "route", &a))
		return;
	if (!get(P, &a, "via", NULL, SCN_PERS_LINUX, &v, NULL))
		return;
	r.via = v.addr;
	if (P->block == SCN_NONE)
		return;
	scn_stack *s = &P->scn->stacks[P->block];
	for (size_t i = 0; i < s->n_routes; i++)
		if (s->routes[i].dest == r.dest && s->routes[i].prefix_len == r.prefix_len) {
			scn_error(P->d, st->tok[1].loc, "duplicate route to %s (first at %u:%u); expected one route per destination",
			          st->tok[1].value, s->routes[i].loc.line, s->routes[i].loc.col);
			return;
		}
	*SCN_PUSH(s->routes, s->n_routes) = r;
}

static void stmt_forwarding(scn_parser *P, const scn_stmt *st)
{
	size_t np = positionals(P, st, "forwarding on|off");
	if (np == SIZE_MAX)
		return;
	if (np != 2 || st->n != 2) {
		scn_error(P->d, np < 2 ? st->loc : st->tok[2].loc, "%s; expected forwarding on|off",
		          np < 2 ? "missing on or off" : "unexpected word");
		return;
	}
	static const attr_spec spec = { "forwarding", V_BOOL, 0, 0, NULL, NULL, NULL, false };
	val v;
	if (!parse_value(P, "forwarding", st->tok[1].value, st->tok[1].loc, &spec, &v))
		return;
	if (P->block != SCN_NONE)
		P->scn->stacks[P->block].forwarding = v.b;
}

static void stmt_smcr(scn_parser *P, const scn_stmt *st)
{
	size_t np = positionals(P, st, "smcr pfid=HEX … or smcr enable=yes|no …");
	if (np == SIZE_MAX)
		return;
	if (np != 1) {
		scn_error(P->d, st->tok[1].loc, "unexpected word '%s'; expected key=value attributes after smcr",
		          st->tok[1].value);
		return;
	}
	bool activation = false;
	for (size_t i = 1; i < st->n; i++)
		if (!strcmp(st->tok[i].key, "pfid"))
			activation = true;
	scn_personality pers = block_personality(P);
	scn_stack *s = P->block == SCN_NONE ? NULL : &P->scn->stacks[P->block];
	attrs a = { 0 };
	val v;
	bool given;
	if (activation) {
		if (!collect(P, st, 1, pfid_specs, N_SPECS(pfid_specs), "smcr pfid=", &a))
			return;
		scn_smcr_port port = { .loc = st->loc, .adapter = SCN_NONE };
		if (!get(P, &a, "pfid", "smcr pfid", pers, &v, NULL))
			return;
		port.pfid = (uint16_t)v.u;
		if (!get(P, &a, "port", "smcr pfid", pers, &v, NULL))
			return;
		port.port = (uint8_t)v.u;
		if (!get(P, &a, "mtu", "smcr pfid", pers, &v, &given))
			return;
		port.mtu = given ? (uint32_t)v.u : 0; /* 0: the stack's smcr mtu, filled in by the checker */
		if (s) {
			for (size_t i = 0; i < s->n_smcr_ports; i++)
				if (s->smcr_ports[i].pfid == port.pfid && s->smcr_ports[i].port == port.port) {
					scn_error(P->d, st->loc, "PFID %04X port %u is already active in stack '%s' (at %u:%u); expected each port once",
					          port.pfid, port.port, s->name, s->smcr_ports[i].loc.line, s->smcr_ports[i].loc.col);
					return;
				}
			*SCN_PUSH(s->smcr_ports, s->n_smcr_ports) = port;
		}
		return;
	}
	scn_smcr_config c;
	if (s) {
		scn_loc *first = &g_array_index(P->smcr_settings_loc, scn_loc, P->block);
		if (first->line) {
			scn_error(P->d, st->loc, "repeated smcr settings (first at %u:%u); expected one 'smcr' settings statement per stack (activations use smcr pfid=…)",
			          first->line, first->col);
			return;
		}
		*first = st->loc;
		c = s->smcr;
	} else {
		init_smcr_config(P, &c, pers, st->loc);
	}
	if (!collect(P, st, 1, smcr_specs, N_SPECS(smcr_specs), "smcr", &a))
		return;
	c.loc = st->loc;
	/* only what is written overrides the personality defaults set up with the stack */
#define OVERRIDE(key, field, expr)                                                 \
	do {                                                                           \
		if (!get(P, &a, key, NULL, pers, &v, &given))                          \
			return;                                                        \
		if (given)                                                             \
			c.field = (expr);                                              \
	} while (0)
	OVERRIDE("enable", enable, v.b);
	OVERRIDE("mtu", mtu, (uint32_t)v.u);
	OVERRIDE("fixedmemory", fixedmemory, v.u);
	OVERRIDE("rmbsize", rmbsize, v.u);
	OVERRIDE("sndbufsize", sndbufsize, v.u);
	OVERRIDE("v2", v2, v.b);
	OVERRIDE("keepalive", keepalive_ns, v.u);
	OVERRIDE("testlink", testlink_ns, v.u);
	OVERRIDE("maxlinks", maxlinks, (uint8_t)v.u);
	OVERRIDE("maxconns", maxconns, (uint8_t)v.u);
#undef OVERRIDE
	if (!get(P, &a, "ueid", NULL, pers, &v, &given))
		return;
	if (given) {
		c.n_ueids = v.n_ueids;
		memcpy(c.ueids, v.ueids, sizeof(c.ueids));
	}
	if (s)
		s->smcr = c;
}

/* ENDPOINT: STACK:PORT, STACK.IFACE:PORT or A.B.C.D:PORT. */
static bool parse_endpoint(scn_parser *P, const scn_token *t, scn_app *app)
{
	const char *colon = strrchr(t->value, ':');
	if (!colon || colon == t->value || !colon[1]) {
		scn_error(P->d, t->loc, "bad endpoint '%s'; expected STACK:PORT, STACK.INTERFACE:PORT or A.B.C.D:PORT", t->value);
		return false;
	}
	static const attr_spec port_spec = { "port", V_UINT, 1, 65535, NULL, NULL, NULL, false };
	val v;
	scn_loc ploc = t->loc;
	ploc.col += (uint32_t)(colon + 1 - t->value);
	if (!parse_value(P, "port", colon + 1, ploc, &port_spec, &v))
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
		ok = resolve_iface(P, host, t->loc, &app->dst_stack, &app->dst_iface);
		app->ep_form = SCN_EP_IFACE;
	} else {
		app->dst_stack = resolve(P, SCN_SYM_STACK, host, t->loc);
		ok = app->dst_stack != SCN_NONE;
		app->ep_form = SCN_EP_STACK;
	}
	g_free(host);
	return ok;
}

static void stmt_app(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "app NAME STACK listen port=N kind=… or app NAME STACK connect ENDPOINT kind=…";
	size_t np = positionals(P, st, usage);
	if (st->n < 2 || st->tok[1].key) {
		if (np != SIZE_MAX)
			scn_error(P->d, st->loc, "missing app name; expected %s", usage);
		return;
	}
	uint32_t idx = declare(P, SCN_SYM_APP, &st->tok[1], (uint32_t)P->scn->n_apps);
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
		app->stack = resolve(P, SCN_SYM_STACK, st->tok[2].value, st->tok[2].loc);
		ok = app->stack != SCN_NONE;
	}
	bool listen = ok && word_is(&st->tok[3], "listen");
	if (ok && !listen && !word_is(&st->tok[3], "connect")) {
		scn_error(P->d, st->tok[3].loc, "unknown role '%s'; expected listen or connect", st->tok[3].value);
		ok = false;
	}
	size_t want = listen ? 4 : 5;
	if (ok && np != want) {
		if (np < want)
			scn_error(P->d, st->loc, "missing endpoint; expected app NAME STACK connect ENDPOINT kind=…");
		else
			scn_error(P->d, st->tok[want].loc, "unexpected word '%s'; expected %s", st->tok[want].value,
			          listen ? "app NAME STACK listen port=N kind=…" : "app NAME STACK connect ENDPOINT kind=…");
		ok = false;
	}
	attrs a = { 0 };
	val v;
	bool given;
	const char *kinds_scope = NULL;
	if (ok && listen) {
		app->role = SCN_ROLE_LISTEN;
		ok = collect(P, st, np, listen_specs, N_SPECS(listen_specs), "a listening app", &a);
		if (ok && (ok = get(P, &a, "port", "app", SCN_PERS_LINUX, &v, NULL)))
			app->port = (uint16_t)v.u;
		if (ok && (ok = get(P, &a, "kind", "app", SCN_PERS_LINUX, &v, NULL)))
			app->kind = v.u == 0 ? SCN_KIND_ECHO : v.u == 1 ? SCN_KIND_SINK : SCN_KIND_RESPONDER;
	} else if (ok) {
		app->role = SCN_ROLE_CONNECT;
		g_array_index(P->ep_loc, scn_loc, idx) = st->tok[4].loc;
		ok = collect(P, st, np, connect_specs, N_SPECS(connect_specs), "a connecting app", &a);
		if (ok && (ok = get(P, &a, "kind", "app", SCN_PERS_LINUX, &v, NULL)))
			app->kind = v.u == 0 ? SCN_KIND_BULK : v.u == 1 ? SCN_KIND_ECHO : SCN_KIND_RR;
		if (ok)
			ok = parse_endpoint(P, &st->tok[4], app);
		if (ok) {
			/* attributes that belong to other kinds */
			static const struct { int attr; scn_app_kind kind; const char *only; } fit[] = {
				{ C_BYTES, SCN_KIND_RR, "kind=bulk or kind=echo" },
				{ C_REQUEST, SCN_KIND_BULK, "kind=rr" }, { C_REQUEST, SCN_KIND_ECHO, "kind=rr" },
				{ C_RESPONSE, SCN_KIND_BULK, "kind=rr" }, { C_RESPONSE, SCN_KIND_ECHO, "kind=rr" },
				{ C_COUNT, SCN_KIND_BULK, "kind=rr" }, { C_COUNT, SCN_KIND_ECHO, "kind=rr" },
			};
			for (size_t i = 0; ok && i < N_SPECS(fit); i++)
				if (a.tok[fit[i].attr] && app->kind == fit[i].kind) {
					scn_error(P->d, a.tok[fit[i].attr]->loc, "attribute '%s' does not apply to kind=%s; expected it only with %s",
					          a.tok[fit[i].attr]->key, scn_kind_name(app->kind), fit[i].only);
					ok = false;
				}
		}
		kinds_scope = app->kind == SCN_KIND_BULK ? "app bulk" : app->kind == SCN_KIND_ECHO ? "app echo" : "app rr";
		if (ok && app->kind != SCN_KIND_RR && (ok = get(P, &a, "bytes", kinds_scope, SCN_PERS_LINUX, &v, NULL)))
			app->bytes = v.u;
		if (ok && app->kind == SCN_KIND_RR) {
			if ((ok = get(P, &a, "request", kinds_scope, SCN_PERS_LINUX, &v, NULL)))
				app->request = v.u;
			if (ok && (ok = get(P, &a, "response", kinds_scope, SCN_PERS_LINUX, &v, NULL)))
				app->response = v.u;
			if (ok && (ok = get(P, &a, "count", kinds_scope, SCN_PERS_LINUX, &v, NULL)))
				app->count = v.u;
		}
		if (ok && (ok = get(P, &a, "conns", "app", SCN_PERS_LINUX, &v, NULL)))
			app->conns = (uint32_t)v.u;
		if (ok && (ok = get(P, &a, "interval", "app", SCN_PERS_LINUX, &v, NULL)))
			app->interval_ns = v.u;
		if (ok && (ok = get(P, &a, "close", "app", SCN_PERS_LINUX, &v, NULL))) {
			app->close = (scn_close)v.close;
			app->close_at_ns = v.u;
		}
	}
	if (ok && (ok = get(P, &a, "smc", "app", SCN_PERS_LINUX, &v, NULL)))
		app->smc = v.b;
	if (ok && (ok = get(P, &a, "start", "app", SCN_PERS_LINUX, &v, &given))) {
		app->start_never = v.b;
		app->start_ns = v.u;
		g_array_index(P->start_given, gboolean, idx) = given;
	}
	if (!ok)
		scn_mark_broken(P, SCN_BRK_APP, idx);
}

static bool parse_report(scn_parser *P, const scn_stmt *st, size_t first, scn_report *r)
{
	attrs a = { 0 };
	val v;
	bool given;
	*r = (scn_report){ .loc = st->loc, .stack = SCN_NONE };
	if (!collect(P, st, first, report_specs, N_SPECS(report_specs), "report", &a))
		return false;
	if (!get(P, &a, "format", "report", SCN_PERS_LINUX, &v, NULL))
		return false;
	r->format = (scn_report_format)v.u;
	if (!get(P, &a, "stack", NULL, SCN_PERS_LINUX, &v, &given))
		return false;
	if (given && (r->stack = resolve(P, SCN_SYM_STACK, v.s, a.tok[1]->vloc)) == SCN_NONE)
		return false;
	if (!get(P, &a, "smcid", NULL, SCN_PERS_LINUX, &v, &given))
		return false;
	r->has_smcid = given;
	r->smcid = (uint32_t)v.u;
	return true;
}

static void stmt_report(scn_parser *P, const scn_stmt *st)
{
	size_t np = positionals(P, st, "report [format=…] [stack=NAME] [smcid=HEX]");
	if (np == SIZE_MAX)
		return;
	if (np != 1) {
		scn_error(P->d, st->tok[1].loc, "unexpected word '%s'; expected report [format=…] [stack=NAME] [smcid=HEX]",
		          st->tok[1].value);
		return;
	}
	scn_report r;
	if (parse_report(P, st, 1, &r))
		*SCN_PUSH(P->scn->reports, P->scn->n_reports) = r;
}

/* ---- expectations ----------------------------------------------------------------- */

typedef enum { ARGS_TWO_STACKS, ARGS_APP, ARGS_OPT_STACK, ARGS_STACK } metric_args;
typedef enum { RHS_NUM, RHS_MODE_WORD, RHS_BYTES } metric_rhs;

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
};

static const char *const cmp_words[] = { "==", "!=", "<", "<=", ">", ">=", NULL };
static const char *const mode_words[] = { "SMCR", "TCP", "FALLBACK", NULL };

static int cmp_of(const scn_token *t)
{
	for (int i = 0; cmp_words[i]; i++)
		if (word_is(t, cmp_words[i]))
			return i;
	return -1;
}

/* `expect …` whose metric word is st->tok[first]; timed when called from `at`. */
static void parse_expect(scn_parser *P, const scn_stmt *st, size_t first, bool timed, uint64_t at_ns)
{
	size_t np = positionals(P, st, "expect METRIC … OP VALUE");
	if (np == SIZE_MAX)
		return;
	if (np <= first) {
		char *names = NULL;
		GString *s = g_string_new(NULL);
		for (size_t i = 0; i < N_SPECS(metrics); i++)
			g_string_append_printf(s, "%s%s", i ? ", " : "", metrics[i].name);
		names = g_string_free(s, FALSE);
		scn_error(P->d, st->loc, "missing what to expect; expected one of %s", names);
		g_free(names);
		return;
	}
	const scn_token *mt = &st->tok[first];
	const struct metric_def *m = NULL;
	for (size_t i = 0; i < N_SPECS(metrics); i++)
		if (word_is(mt, metrics[i].name))
			m = &metrics[i];
	if (!m) {
		GString *s = g_string_new(NULL);
		for (size_t i = 0; i < N_SPECS(metrics); i++)
			g_string_append_printf(s, "%s%s", i ? ", " : "", metrics[i].name);
		scn_error(P->d, mt->loc, "unknown expectation '%s'; expected one of %s", mt->value, s->str);
		g_string_free(s, TRUE);
		return;
	}
	size_t op = first + 1;
	while (op < np && cmp_of(&st->tok[op]) < 0)
		op++;
	if (op == np) {
		scn_error(P->d, st->loc, "missing comparison; expected ==, !=, <, <=, > or >= in %s", m->usage);
		return;
	}
	size_t nargs = op - first - 1, nrhs = np - op - 1;
	size_t want_lo = m->args == ARGS_TWO_STACKS ? 2 : m->args == ARGS_OPT_STACK ? 0 : 1;
	size_t want_hi = m->args == ARGS_TWO_STACKS ? 2 : 1;
	if (nargs < want_lo || nargs > want_hi) {
		scn_error(P->d, nargs > want_hi ? st->tok[first + 1 + want_hi].loc : st->tok[op].loc,
		          "%s before '%s'; expected %s", nargs > want_hi ? "too many words" : "too few words",
		          st->tok[op].value, m->usage);
		return;
	}
	scn_expect e = { .loc = st->loc, .timed = timed, .at_ns = at_ns, .metric = m->metric, .stack_a = SCN_NONE,
	                 .stack_b = SCN_NONE, .app = { SCN_NONE, 0 }, .rhs_app = { SCN_NONE, 0 } };
	e.cmp = (scn_cmp)cmp_of(&st->tok[op]);
	const scn_token *arg = &st->tok[first + 1];
	switch (m->args) {
	case ARGS_TWO_STACKS:
		if ((e.stack_a = resolve(P, SCN_SYM_STACK, arg[0].value, arg[0].loc)) == SCN_NONE ||
		    (e.stack_b = resolve(P, SCN_SYM_STACK, arg[1].value, arg[1].loc)) == SCN_NONE)
			return;
		if (e.stack_a == e.stack_b) {
			scn_error(P->d, arg[1].loc, "both stacks are '%s'; expected two different stacks", arg[1].value);
			return;
		}
		break;
	case ARGS_APP:
		if (!resolve_app_ref(P, &arg[0], &e.app))
			return;
		break;
	case ARGS_OPT_STACK:
	case ARGS_STACK:
		if (nargs && (e.stack_a = resolve(P, SCN_SYM_STACK, arg[0].value, arg[0].loc)) == SCN_NONE)
			return;
		break;
	}
	const scn_token *rhs = &st->tok[op + 1];
	if (nrhs == 0) {
		scn_error(P->d, st->tok[op].loc, "missing value after '%s'; expected %s", st->tok[op].value, m->usage);
		return;
	}
	switch (m->rhs) {
	case RHS_NUM: {
		static const attr_spec spec = { "the expected count", V_UINT, 0, UINT64_MAX, NULL, NULL, NULL, false };
		val v;
		if (nrhs > 1) {
			scn_error(P->d, rhs[1].loc, "unexpected word '%s'; expected %s", rhs[1].value, m->usage);
			return;
		}
		if (!parse_value(P, "the expected count", rhs->value, rhs->loc, &spec, &v))
			return;
		e.rhs = SCN_RHS_NUMBER;
		e.value = v.u;
		break;
	}
	case RHS_MODE_WORD: {
		if (e.cmp != SCN_CMP_EQ && e.cmp != SCN_CMP_NE) {
			scn_error(P->d, st->tok[op].loc, "'%s' cannot compare modes; expected == or !=", st->tok[op].value);
			return;
		}
		int mode = -1;
		for (int i = 0; mode_words[i]; i++)
			if (word_is(rhs, mode_words[i]))
				mode = i;
		if (mode < 0 || nrhs > 1) {
			scn_error(P->d, mode < 0 ? rhs->loc : rhs[1].loc, "bad mode '%s'; expected SMCR, TCP or FALLBACK",
			          mode < 0 ? rhs->value : rhs[1].value);
			return;
		}
		e.rhs = SCN_RHS_MODE;
		e.mode = (scn_mode)mode;
		break;
	}
	case RHS_BYTES:
		if (nrhs == 2) {
			static const struct { const char *w; scn_metric m; } counters[] = {
				{ "sent", SCN_M_SENT }, { "delivered", SCN_M_DELIVERED }, { "received", SCN_M_RECEIVED },
			};
			int c = -1;
			for (int i = 0; i < 3; i++)
				if (word_is(rhs, counters[i].w))
					c = i;
			if (c < 0) {
				scn_error(P->d, rhs->loc, "unknown counter '%s'; expected sent, delivered or received", rhs->value);
				return;
			}
			e.rhs = SCN_RHS_COUNTER;
			e.rhs_metric = counters[c].m;
			if (!resolve_app_ref(P, &rhs[1], &e.rhs_app))
				return;
		} else if (nrhs == 1) {
			static const attr_spec spec = { "the expected bytes", V_SIZE, 0, UINT64_MAX, NULL, NULL, NULL, false };
			val v;
			if (!parse_value(P, "the expected bytes", rhs->value, rhs->loc, &spec, &v))
				return;
			e.rhs = SCN_RHS_NUMBER;
			e.value = v.u;
		} else {
			scn_error(P->d, rhs[2].loc, "unexpected word '%s'; expected %s", rhs[2].value, m->usage);
			return;
		}
		break;
	}
	attrs a = { 0 };
	val v;
	bool given;
	if (!collect(P, st, np, reason_specs, m->reason ? 1 : 0, m->reason ? "this expectation" : "this expectation", &a))
		return;
	if (m->reason) {
		if (!get(P, &a, "reason", NULL, SCN_PERS_LINUX, &v, &given))
			return;
		if (given && m->metric == SCN_M_MODE && e.mode != SCN_MODE_FALLBACK) {
			scn_error(P->d, a.tok[0]->loc, "reason= applies only to FALLBACK; expected mode … == FALLBACK reason=…");
			return;
		}
		e.has_reason = given;
		e.reason = (uint32_t)v.u;
	}
	uint32_t idx = (uint32_t)P->scn->n_expects;
	*SCN_PUSH(P->scn->expects, P->scn->n_expects) = e;
	if (timed) {
		scn_event *ev = SCN_PUSH(P->scn->events, P->scn->n_events);
		ev->loc = st->loc;
		ev->at_ns = at_ns;
		ev->order = P->event_order++;
		ev->kind = SCN_EV_EXPECT;
		ev->target_kind = SCN_TGT_NONE;
		ev->target = SCN_NONE;
		ev->stack = SCN_NONE;
		ev->expect = idx;
	}
}

static void stmt_expect(scn_parser *P, const scn_stmt *st)
{
	parse_expect(P, st, 1, false, 0);
}

/* ---- the timeline ------------------------------------------------------------------ */

static void stmt_at(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "at TIME fail|restore|set|start|stop|report|expect …";
	size_t np = positionals(P, st, usage);
	if (np == SIZE_MAX)
		return;
	if (np < 3) {
		scn_error(P->d, np < 2 ? st->loc : st->tok[1].loc, "%s; expected %s", np < 2 ? "missing time" : "missing action",
		          usage);
		return;
	}
	static const attr_spec time_spec = { "at", V_DURATION, 0, UINT64_MAX, NULL, NULL, NULL, false };
	val tv;
	if (!parse_value(P, "at", st->tok[1].value, st->tok[1].loc, &time_spec, &tv))
		return;
	const scn_token *verb = &st->tok[2];
	if (word_is(verb, "expect")) {
		parse_expect(P, st, 3, true, tv.u);
		return;
	}
	scn_event ev = { .loc = st->loc, .at_ns = tv.u, .target = SCN_NONE, .stack = SCN_NONE, .expect = SCN_NONE };
	attrs a = { 0 };
	val v;
	bool given;
	if (word_is(verb, "report")) {
		if (np != 3) {
			scn_error(P->d, st->tok[3].loc, "unexpected word '%s'; expected at TIME report [format=…] [stack=NAME] [smcid=HEX]",
			          st->tok[3].value);
			return;
		}
		ev.kind = SCN_EV_REPORT;
		if (!parse_report(P, st, 3, &ev.report))
			return;
	} else if (word_is(verb, "start") || word_is(verb, "stop")) {
		ev.kind = word_is(verb, "start") ? SCN_EV_START_APP : SCN_EV_STOP_APP;
		if (np != 5 || !word_is(&st->tok[3], "app")) {
			scn_error(P->d, np > 5 ? st->tok[5].loc : np > 3 ? st->tok[3].loc : verb->loc, "%s; expected at TIME %s app NAME",
			          np > 5 ? "unexpected word" : np > 3 && !word_is(&st->tok[3], "app") ? "only apps can start or stop" : "missing app",
			          verb->value);
			return;
		}
		if (!collect(P, st, np, NULL, 0, verb->value, &a))
			return;
		ev.target_kind = SCN_TGT_APP;
		if ((ev.target = resolve(P, SCN_SYM_APP, st->tok[4].value, st->tok[4].loc)) == SCN_NONE)
			return;
	} else if (word_is(verb, "fail") || word_is(verb, "restore") || word_is(verb, "set")) {
		bool set = word_is(verb, "set");
		ev.kind = set ? SCN_EV_SET : word_is(verb, "fail") ? SCN_EV_FAIL : SCN_EV_RESTORE;
		const char *kinds = set ? "adapter, wire or interface" : "adapter, wire, switch or interface";
		if (np < 5) {
			scn_error(P->d, np > 3 ? st->tok[3].loc : verb->loc, "missing what to %s; expected at TIME %s %s NAME",
			          verb->value, verb->value, kinds);
			return;
		}
		if (np > 5) {
			scn_error(P->d, st->tok[5].loc, "unexpected word '%s'; expected at TIME %s %s NAME", st->tok[5].value,
			          verb->value, kinds);
			return;
		}
		const scn_token *kt = &st->tok[3], *nt = &st->tok[4];
		if (word_is(kt, "adapter")) {
			ev.target_kind = SCN_TGT_ADAPTER;
		} else if (word_is(kt, "wire")) {
			ev.target_kind = SCN_TGT_WIRE;
		} else if (word_is(kt, "switch") && !set) {
			ev.target_kind = SCN_TGT_SWITCH;
		} else if (word_is(kt, "interface")) {
			ev.target_kind = SCN_TGT_INTERFACE;
		} else {
			scn_error(P->d, kt->loc, "unknown target '%s' for %s; expected %s", kt->value, verb->value, kinds);
			return;
		}
		switch (ev.target_kind) {
		case SCN_TGT_ADAPTER:
			ev.target = resolve(P, SCN_SYM_ADAPTER, nt->value, nt->loc);
			break;
		case SCN_TGT_WIRE:
			ev.target = resolve(P, SCN_SYM_WIRE, nt->value, nt->loc);
			break;
		case SCN_TGT_SWITCH:
			ev.target = resolve(P, SCN_SYM_SWITCH, nt->value, nt->loc);
			break;
		case SCN_TGT_INTERFACE:
			if (!resolve_iface(P, nt->value, nt->loc, &ev.stack, &ev.target))
				return;
			break;
		case SCN_TGT_NONE:
		case SCN_TGT_APP:
			g_assert_not_reached();
		}
		if (ev.target == SCN_NONE)
			return;
		bool port_ok = ev.target_kind == SCN_TGT_ADAPTER;
		if (set) {
			if (!collect(P, st, np, set_specs, N_SPECS(set_specs) - (port_ok ? 0 : 1), "set", &a))
				return;
			static const struct { const char *key; uint32_t bit; } fields[] = {
				{ "latency", SCN_SET_LATENCY }, { "bandwidth", SCN_SET_BANDWIDTH }, { "loss", SCN_SET_LOSS },
				{ "dup", SCN_SET_DUP }, { "reorder", SCN_SET_REORDER }, { "corrupt", SCN_SET_CORRUPT },
			};
			for (size_t i = 0; i < N_SPECS(fields); i++) {
				if (!get(P, &a, fields[i].key, NULL, SCN_PERS_LINUX, &v, &given))
					return;
				if (!given)
					continue;
				ev.set_mask |= fields[i].bit;
				switch (fields[i].bit) {
				case SCN_SET_LATENCY: ev.set.latency_ns = v.u; break;
				case SCN_SET_BANDWIDTH: ev.set.bandwidth_bps = v.u; break;
				case SCN_SET_LOSS: ev.set.loss = v.r; break;
				case SCN_SET_DUP: ev.set.dup = v.r; break;
				case SCN_SET_REORDER: ev.set.reorder = v.r; break;
				default: ev.set.corrupt = v.r; break;
				}
			}
			if (!ev.set_mask) {
				scn_error(P->d, st->loc, "nothing to set; expected at least one of latency=, bandwidth=, loss=, dup=, reorder=, corrupt=");
				return;
			}
		} else if (!collect(P, st, np, port_only_specs, port_ok ? 1 : 0, verb->value, &a)) {
			return;
		}
		if (port_ok) {
			if (!get(P, &a, "port", NULL, SCN_PERS_LINUX, &v, &given))
				return;
			ev.port = given ? (uint8_t)v.u : 0;
		}
	} else {
		scn_error(P->d, verb->loc, "unknown action '%s'; expected fail, restore, set, start, stop, report or expect",
		          verb->value);
		return;
	}
	ev.order = P->event_order++;
	*SCN_PUSH(P->scn->events, P->scn->n_events) = ev;
}

/* ---- statement dispatch ----------------------------------------------------------- */

typedef void (*stmt_fn)(scn_parser *P, const scn_stmt *st);

static const struct stmt_def {
	const char *kw;
	stmt_fn fn;
	bool in_stack; /* belongs inside a stack block */
} stmts[] = {
	{ "scenario", stmt_scenario, false },
	{ "seed", stmt_seed, false },
	{ "end", stmt_end_time, false },
	{ "switch", stmt_switch, false },
	{ "wire", stmt_wire, false },
	{ "adapter", stmt_adapter, false },
	{ "stack", stmt_stack, false },
	{ "app", stmt_app, false },
	{ "at", stmt_at, false },
	{ "expect", stmt_expect, false },
	{ "report", stmt_report, false },
	{ "interface", stmt_interface, true },
	{ "route", stmt_route, true },
	{ "forwarding", stmt_forwarding, true },
	{ "smcr", stmt_smcr, true },
};

static const struct stmt_def *find_stmt(const scn_token *t)
{
	if (t->key || t->quoted)
		return NULL;
	for (size_t i = 0; i < N_SPECS(stmts); i++)
		if (!strcmp(stmts[i].kw, t->value))
			return &stmts[i];
	return NULL;
}

static char *stmt_list(bool in_stack)
{
	GString *s = g_string_new(NULL);
	for (size_t i = 0; i < N_SPECS(stmts); i++)
		if (stmts[i].in_stack == in_stack)
			g_string_append_printf(s, "%s%s", s->len ? ", " : "", stmts[i].kw);
	if (in_stack)
		g_string_append(s, ", end");
	return g_string_free(s, FALSE);
}

/* The pre-scan: enter every name the main pass will enter, at the same index. It follows
 * the same block rules as the main pass and reports nothing. */
static void prescan(scn_parser *P, const char *text, size_t len)
{
	scn_diag quiet;
	scn_diag_init(&quiet);
	scn_lexer lx;
	scn_lex_init(&lx, P->scn->file, text, len);
	scn_stmt st;
	bool in_block = false;
	const char *stack_name = NULL;
	char *stack_copy = NULL;
	uint32_t n_ifaces = 0; /* of the current stack */
	while (scn_lex_next(&lx, &st, &quiet)) {
		scn_diag_clear(&quiet);
		if (st.n == 0)
			continue;
		const struct stmt_def *def = find_stmt(&st.tok[0]);
		if (in_block) {
			if (word_is(&st.tok[0], "end")) {
				in_block = false;
				continue;
			}
			if (def && def->in_stack) {
				if (!strcmp(def->kw, "interface") && stack_name && st.n > 1 && name_token_ok(&st.tok[1])) {
					char *key = iface_key(stack_name, st.tok[1].value);
					if (!g_hash_table_contains(P->sym.ifaces, key)) {
						scn_sym *e = g_new(scn_sym, 1);
						e->index = n_ifaces++;
						e->loc = st.tok[1].loc;
						g_hash_table_insert(P->sym.ifaces, key, e);
					} else {
						g_free(key);
					}
				}
				continue;
			}
			if (!def)
				continue;
			in_block = false; /* a top-level statement closes the block */
		}
		if (!def || def->in_stack || st.n < 2 || !name_token_ok(&st.tok[1]))
			goto maybe_block;
		if (!strcmp(def->kw, "switch"))
			sym_add(&P->sym, SCN_SYM_SWITCH, st.tok[1].value, st.tok[1].loc);
		else if (!strcmp(def->kw, "wire"))
			sym_add(&P->sym, SCN_SYM_WIRE, st.tok[1].value, st.tok[1].loc);
		else if (!strcmp(def->kw, "adapter"))
			sym_add(&P->sym, SCN_SYM_ADAPTER, st.tok[1].value, st.tok[1].loc);
		else if (!strcmp(def->kw, "app"))
			sym_add(&P->sym, SCN_SYM_APP, st.tok[1].value, st.tok[1].loc);
	maybe_block:
		if (def && !strcmp(def->kw, "stack")) {
			in_block = true;
			stack_name = NULL;
			if (st.n >= 2 && name_token_ok(&st.tok[1]) &&
			    sym_add(&P->sym, SCN_SYM_STACK, st.tok[1].value, st.tok[1].loc) != SCN_NONE) {
				g_free(stack_copy);
				stack_copy = g_strdup(st.tok[1].value);
				stack_name = stack_copy;
				n_ifaces = 0;
			}
		}
	}
	g_free(stack_copy);
	scn_lex_free(&lx);
	scn_diag_free(&quiet);
}

/* A definition whose statement had a lexical error: enter its name (as the pre-scan did)
 * with an item marked broken, so that later references to it raise nothing. Only the
 * keyword and the name are looked at; whatever the handler says about the rest is
 * dropped, as the statement has been reported once already. */
static void placeholder(scn_parser *P, const struct stmt_def *def, const scn_stmt *st)
{
	static const struct { const char *kw; unsigned brk; } defs[] = {
		{ "switch", SCN_BRK_SWITCH }, { "wire", SCN_BRK_WIRE }, { "adapter", SCN_BRK_ADAPTER },
		{ "stack", SCN_BRK_STACK }, { "app", SCN_BRK_APP }, { "interface", SCN_BRK_IFACE },
	};
	size_t k;
	for (k = 0; k < N_SPECS(defs); k++)
		if (!strcmp(def->kw, defs[k].kw))
			break;
	if (k == N_SPECS(defs))
		return;
	bool named = st->n >= 2 && name_token_ok(&st->tok[1]);
	if (!named) {
		if (!strcmp(def->kw, "stack")) { /* a block without a usable stack */
			P->block = SCN_NONE;
			P->block_loc = st->loc;
		}
		return;
	}
	scn_stmt head = *st;
	head.n = 2;
	head.bad = false;
	scn_diag scratch, *real = P->d;
	scn_diag_init(&scratch);
	P->d = &scratch;
	size_t before = 0, after = 0;
	scn_stack *blk = P->block == SCN_NONE ? NULL : &P->scn->stacks[P->block];
	switch (defs[k].brk) {
	case SCN_BRK_SWITCH: before = P->scn->n_switches; break;
	case SCN_BRK_WIRE: before = P->scn->n_wires; break;
	case SCN_BRK_ADAPTER: before = P->scn->n_adapters; break;
	case SCN_BRK_STACK: before = P->scn->n_stacks; break;
	case SCN_BRK_APP: before = P->scn->n_apps; break;
	default: before = blk ? blk->n_ifaces : 0; break;
	}
	def->fn(P, &head);
	switch (defs[k].brk) {
	case SCN_BRK_SWITCH: after = P->scn->n_switches; break;
	case SCN_BRK_WIRE: after = P->scn->n_wires; break;
	case SCN_BRK_ADAPTER: after = P->scn->n_adapters; break;
	case SCN_BRK_STACK: after = P->scn->n_stacks; break;
	case SCN_BRK_APP: after = P->scn->n_apps; break;
	default: after = blk ? blk->n_ifaces : 0; break;
	}
	P->d = real;
	scn_diag_free(&scratch);
	if (after > before)
		scn_mark_broken(P, defs[k].brk, defs[k].brk == SCN_BRK_IFACE ? ((uint64_t)P->block << 16) | before : before);
}

static void close_block(scn_parser *P)
{
	P->block = SCN_NONE;
	P->block_loc = (scn_loc){ 0 };
}

void scn_parse_text(scn_parser *P, const char *text, size_t len)
{
	symbols_init(&P->sym);
	prescan(P, text, len);
	scn_lexer lx;
	scn_lex_init(&lx, P->scn->file, text, len);
	scn_stmt st;
	bool in_block = false;
	while (scn_lex_next(&lx, &st, P->d)) {
		if (scn_diag_full(P->d)) {
			scn_error(P->d, st.loc, "more"); /* not stored: marks the overflow */
			break;
		}
		if (st.n == 0)
			continue;
		/* a statement with a lexical error (st.bad) has been reported already: it takes
		 * part in the block structure and keeps its name, but raises nothing more */
		const scn_token *kw = &st.tok[0];
		const struct stmt_def *def = find_stmt(kw);
		if (in_block) {
			if (word_is(kw, "end")) {
				if (st.n > 1 && !st.bad)
					scn_error(P->d, st.tok[1].loc, "'end' closing a stack block takes nothing after it; expected 'end' alone");
				in_block = false;
				close_block(P);
				continue;
			}
			if (def && !def->in_stack) {
				if (!st.bad)
					scn_error(P->d, kw->loc, "'%s' inside the block of stack '%s' (opened at %u:%u); expected 'end' to close the block first",
					          kw->value, P->block == SCN_NONE ? "?" : P->scn->stacks[P->block].name,
					          P->block_loc.line, P->block_loc.col);
				in_block = false;
				close_block(P);
			}
		} else if (def && def->in_stack) {
			if (!st.bad)
				scn_error(P->d, kw->loc, "'%s' outside a stack block; expected it between 'stack NAME' and 'end'", kw->value);
			continue;
		}
		if (!def) {
			if (!st.bad) {
				char *list = stmt_list(in_block);
				if (kw->quoted)
					scn_error(P->d, kw->loc, "a statement cannot start with a quoted string; expected one of %s", list);
				else if (kw->key)
					scn_error(P->d, kw->loc, "a statement cannot start with an attribute ('%s=…'); expected one of %s",
					          kw->key, list);
				else
					scn_error(P->d, kw->loc, "unknown statement '%s'%s; expected one of %s", kw->value,
					          in_block ? " in a stack block" : "", list);
				g_free(list);
			}
			continue;
		}
		if (st.bad)
			placeholder(P, def, &st);
		else
			def->fn(P, &st);
		if (!strcmp(def->kw, "stack"))
			in_block = true;
	}
	if (in_block && !scn_diag_full(P->d))
		scn_error(P->d, P->block_loc, "the block of stack '%s' is not closed; expected 'end' before the end of the file",
		          P->block == SCN_NONE ? "?" : P->scn->stacks[P->block].name);
	scn_lex_free(&lx);
}

void scn_parser_free_symbols(scn_parser *P)
{
	symbols_free(&P->sym);
}
