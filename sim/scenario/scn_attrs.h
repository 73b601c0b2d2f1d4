/* Typed attributes of scenario statements: value types, attribute specs, and the
 * collection of a statement's key=value words (internal to sim/scn_*.c). */
#ifndef SIM_SCN_ATTRS_H
#define SIM_SCN_ATTRS_H

#include "sim/scenario/scn_int.h"

typedef enum scn_vtype {
	SCN_V_UINT,     /* integer in [min, max], or one of allowed[] */
	SCN_V_HEX,      /* hex digits, at most `max` as a value */
	SCN_V_DURATION, /* [min, max] ns */
	SCN_V_SIZE,     /* [min, max] bytes */
	SCN_V_RATE,     /* [min, max] bps */
	SCN_V_RATIO,
	SCN_V_BOOL,
	SCN_V_NAME,
	SCN_V_STRING, /* max = longest length */
	SCN_V_PREFIX, /* prefix length in [min, max] */
	SCN_V_IPV4,
	SCN_V_MAC,
	SCN_V_VLANS, /* "all" or a list of VLAN ids */
	SCN_V_UEIDS, /* list of UEIDs */
	SCN_V_PNETID,
	SCN_V_ENUM,   /* one of choices[] */
	SCN_V_START,  /* TIME or never */
	SCN_V_CLOSE,  /* after, never or TIME */
	SCN_V_REASON, /* a CLC decline code: hex or a name */
} scn_vtype;

typedef struct scn_attr_spec {
	const char *key;
	scn_vtype type;
	uint64_t min, max;
	const char *const *choices;
	const uint64_t *allowed;
	const char *hint; /* what a missing required attribute looks like */
	bool required;
} scn_attr_spec;

typedef struct scn_val {
	uint64_t u;     /* UINT, HEX, DURATION, SIZE, RATE, ENUM index, START/CLOSE time, REASON */
	bool b;         /* BOOL; START: never; */
	unsigned close; /* CLOSE: scn_close */
	sim_ratio r;
	uint32_t addr;
	uint8_t len;
	uint8_t mac[6];
	const char *s; /* NAME, STRING, PNETID (points into the token) */
	scn_vlan_set vlans;
	uint8_t n_ueids;
	char ueids[SCN_MAX_UEIDS][SCN_UEID_MAX + 1];
	char pnetid[SCN_PNETID_MAX + 1];
} scn_val;

#define NS_S 1000000000ULL
#define NS_H (3600ULL * NS_S)

/* The link attributes of a wire, an interface or an adapter (in that order: callers index
 * their own attributes from N_LINK_SPECS on). */
#define LINK_SPECS(mtu_lo, mtu_hi)                                                             \
	{ "latency", SCN_V_DURATION, 0, 10 * NS_S, NULL, NULL, NULL, false },                  \
	        { "bandwidth", SCN_V_RATE, 1000, 10000000000000ULL, NULL, NULL, NULL, false }, \
	        { "mtu", SCN_V_UINT, mtu_lo, mtu_hi, NULL, NULL, NULL, false },                \
	        { "loss", SCN_V_RATIO, 0, 0, NULL, NULL, NULL, false },                        \
	        { "dup", SCN_V_RATIO, 0, 0, NULL, NULL, NULL, false },                         \
	        { "reorder", SCN_V_RATIO, 0, 0, NULL, NULL, NULL, false },                     \
	{                                                                                      \
		"corrupt", SCN_V_RATIO, 0, 0, NULL, NULL, NULL, false                          \
	}

#define N_LINK_SPECS 7

#define N_SPECS(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_ATTRS 40

/* The attributes found in one statement, by spec index. */
typedef struct scn_attrs {
	const scn_token *tok[MAX_ATTRS];
	const scn_attr_spec *spec;
	size_t n;
} scn_attrs;

/* RoCE MTUs and port numbers, 0-terminated, for scn_attr_spec.allowed. */
extern const uint64_t scn_roce_mtus[];
extern const uint64_t scn_one_or_two[];

bool scn_word_is(const scn_token *t, const char *w);
bool scn_attr_in_allowed(const uint64_t *a, uint64_t v);
/* Parse `text` (written at loc, for attribute `key`) per spec; report and return false on
 * error. */
bool scn_attr_value(scn_parser *P, const char *key, const char *text, scn_loc loc, const scn_attr_spec *sp, scn_val *out);
/* Number of positional words at the start of the statement (the keyword included);
 * SIZE_MAX after reporting a positional word that follows an attribute. */
size_t scn_attr_positionals(scn_parser *P, const scn_stmt *st, const char *usage);
/* The statement's second word names what it declares ("missing WHAT name" otherwise).
 * np is scn_attr_positionals()'s count: SIZE_MAX (already reported) adds no error. */
bool scn_stmt_name_given(scn_parser *P, const scn_stmt *st, size_t np, const char *what, const char *usage);
/* At most max positional words; the first extra one is an error. False also when np is
 * SIZE_MAX. */
bool scn_stmt_words_at_most(scn_parser *P, const scn_stmt *st, size_t np, size_t max, const char *usage);
/* Sort the attributes of tokens [first, n) into a by spec: unknown or repeated keys,
 * bad values (leftmost first) and missing required keys are errors. */
bool scn_attr_collect(scn_parser *P, const scn_stmt *st, size_t first, const scn_attr_spec *spec, size_t nspec,
                      const char *what, scn_attrs *a);
/* The written value of `key`, or its default for `scope` and personality `pers` (see
 * scn_defaults.c); *given says which. Attributes without a default value come back with
 * *given false and out zeroed. */
bool scn_attr_get(scn_parser *P, const scn_attrs *a, const char *key, const char *scope, scn_personality pers, scn_val *out,
                  bool *given);
/* The link attributes (latency, bandwidth, mtu if the spec has it, loss, dup, reorder,
 * corrupt) with their defaults for `scope`; does nothing once *ok is false. */
void scn_attr_link(scn_parser *P, const scn_attrs *a, const char *scope, scn_link_params *l, bool *ok);

#endif
