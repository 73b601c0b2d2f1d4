/* Internals shared by the scenario loader's files (lexer, parser, checker, defaults,
 * printer). Not for use outside sim/scn_*.c. */
#ifndef SIM_SCN_INT_H
#define SIM_SCN_INT_H

#include <glib.h>

#include "sim/scenario/scn_lex.h"
#include "sim/scenario/scn_model.h"

/* --- defaults (scn_defaults.c) ---------------------------------------------------- */

typedef enum scn_default_how {
	SCN_DEF_VALUE,   /* value[] is attribute syntax, parsed like a written value */
	SCN_DEF_UNSET,   /* the attribute is simply absent */
	SCN_DEF_DERIVED, /* computed per item; value[] describes how */
	SCN_DEF_INFO,    /* fixed by the personality, not an attribute */
} scn_default_how;

typedef struct scn_default {
	const char *scope; /* statement ("smcr", "app bulk", …) */
	const char *key;
	const char *value[SCN_N_PERS]; /* indexed by scn_personality */
	const char *note;
	scn_default_how how;
} scn_default;

extern const scn_default scn_defaults[];
extern const size_t scn_n_defaults;
const scn_default *scn_default_find(const char *scope, const char *key);

/* --- names ------------------------------------------------------------------------- */

typedef enum scn_sym_kind {
	SCN_SYM_SWITCH,
	SCN_SYM_WIRE,
	SCN_SYM_ADAPTER,
	SCN_SYM_STACK,
	SCN_SYM_APP,
	SCN_SYM_N,
} scn_sym_kind;

typedef struct scn_sym {
	uint32_t index;
	scn_loc loc;
	uint64_t ord; /* the defining statement's place in the expanded file (scn_stmt.ord) */
} scn_sym;

/* Name tables, filled by a pre-scan of the whole file so that statements may refer to
 * names defined further down. An item gets an index when its name is valid and new in
 * its kind; the parser appends items under the same rule and asserts the same index. */
typedef struct scn_symbols {
	GHashTable *by_name[SCN_SYM_N]; /* name -> scn_sym* */
	GPtrArray *names[SCN_SYM_N];    /* names in index order */
	GHashTable *ifaces;             /* "STACK\nIFACE" -> scn_sym* (index within the stack) */
	GPtrArray *stack_ifaces;        /* per stack index: GPtrArray of its interface names */
} scn_symbols;

/* --- the parser's state --------------------------------------------------------- */

typedef struct scn_parser {
	scn_scenario *scn;
	scn_diag *d;
	scn_symbols sym;
	uint32_t block; /* stack whose block is open, SCN_NONE at top level */
	scn_loc block_loc;
	scn_loc title_loc, seed_loc, end_loc;
	uint32_t event_order;
	GHashTable *broken;        /* items with an error in their statement (see scn_broken_key) */
	GArray *app_instances;     /* per expectation/event app ref: where to check the instance */
	GArray *smcr_settings_loc; /* per stack: where its `smcr` settings statement was (line 0: none) */
	GArray *pfid_loc;          /* per adapter: location of its pfid= value */
	GArray *ip_loc;            /* per stack, GArray of per-interface ip= value locations */
	GArray *ep_loc;            /* per app: location of the connect endpoint (or the statement) */
	GArray *start_given;       /* per app: gboolean, start= written */
	GHashTable *routes;        /* (stack, prefix) of every route, for duplicates */
	GHashTable *activations;   /* (stack, PFID, port) of every `smcr pfid=` */
	uint64_t n_conns;          /* conns= of the connecting apps so far */
	bool limited;              /* a limit was exceeded: the file is refused as it is */
} scn_parser;

/* Keys of the `broken` set: kind in the high byte, index below (interfaces: stack<<16|i). */
enum {
	SCN_BRK_SWITCH = 1,
	SCN_BRK_WIRE,
	SCN_BRK_ADAPTER,
	SCN_BRK_STACK,
	SCN_BRK_IFACE,
	SCN_BRK_ROUTE,
	SCN_BRK_SMCR_PORT,
	SCN_BRK_APP,
	SCN_BRK_EVENT,
	SCN_BRK_EXPECT,
	SCN_BRK_REPORT,
};
bool scn_is_broken(const scn_parser *P, unsigned kind, uint64_t index);
void scn_mark_broken(scn_parser *P, unsigned kind, uint64_t index);

/* An app reference with an instance number, checked once all apps are known. */
typedef struct scn_instance_check {
	scn_loc loc;
	uint32_t app;
	uint32_t instance;
} scn_instance_check;

/* What a statement keyword is: the parser's table, which scn_expand.c follows for the
 * block structure. */
typedef enum scn_kw_class {
	SCN_KW_UNKNOWN,
	SCN_KW_TOP,      /* a top-level statement (`end` too) */
	SCN_KW_IN_STACK, /* interface, route, forwarding, smcr */
} scn_kw_class;
scn_kw_class scn_keyword_class(const scn_token *t);

/* scn_parse.c: parse the whole text into P->scn (errors into P->d). */
void scn_parse_text(scn_parser *P, const char *text, size_t len, const scn_load_opts *opts);
void scn_parser_free_symbols(scn_parser *P);

/* scn_names.c: the name tables, definitions and references. */
void scn_symbols_init(scn_symbols *s);
void scn_symbols_free(scn_symbols *s);
/* Enter a name defined by statement `ord`; its index, or SCN_NONE if it was there already. */
uint32_t scn_sym_add(scn_symbols *s, scn_sym_kind k, const char *name, scn_loc loc, uint64_t ord);
/* The key of an interface in scn_symbols.ifaces (g_free it). */
char *scn_iface_key(const char *stack, const char *iface);
/* Enter interface `iface` of the stack with index `stack` (pre-scan order); false if the
 * stack has it already. */
bool scn_sym_add_iface(scn_symbols *s, uint32_t stack, const char *stack_name, const char *iface, scn_loc loc,
                       uint64_t ord);
/* A positional, unquoted, valid name? */
bool scn_name_token_ok(const scn_token *t);
/* Check the defining name st->tok[1] in the main pass: valid, and the one the pre-scan
 * entered for this statement (else a duplicate). Its index, or SCN_NONE after reporting. */
uint32_t scn_declare(scn_parser *P, scn_sym_kind k, const scn_stmt *st, uint32_t expected_index);
/* A reference to a name of kind k written at loc; SCN_NONE after reporting. */
uint32_t scn_resolve(scn_parser *P, scn_sym_kind k, const char *name, scn_loc loc);
/* "STACK.IFACE" to stack and interface indices. */
bool scn_resolve_iface(scn_parser *P, const char *text, scn_loc loc, uint32_t *stack, uint32_t *iface);
/* "APP" or "APP.K"; the instance is checked once all apps are known. */
bool scn_resolve_app_ref(scn_parser *P, const scn_token *t, scn_app_ref *ref);

/* Statement handlers (scn_parse_stack.c, scn_parse_apps.c); scn_parse.c dispatches. */
void scn_stmt_stack(scn_parser *P, const scn_stmt *st);
void scn_stmt_interface(scn_parser *P, const scn_stmt *st);
void scn_stmt_route(scn_parser *P, const scn_stmt *st);
void scn_stmt_forwarding(scn_parser *P, const scn_stmt *st);
void scn_stmt_smcr(scn_parser *P, const scn_stmt *st);
void scn_stmt_host(scn_parser *P, const scn_stmt *st);
void scn_stmt_tcp(scn_parser *P, const scn_stmt *st);
void scn_stmt_app(scn_parser *P, const scn_stmt *st);
void scn_stmt_report(scn_parser *P, const scn_stmt *st);
void scn_stmt_expect(scn_parser *P, const scn_stmt *st);
void scn_stmt_at(scn_parser *P, const scn_stmt *st);
/* scn_check.c: cross-item checks and resolution; sorts the timeline. */
void scn_check(scn_parser *P);
/* scn_limits.c: the limits the parsed model must keep (the connections of all apps). */
void scn_check_limits(scn_parser *P);

/* Growing arrays of the model (count in *n). Returns the new, zeroed element. */
void *scn_array_push(void **array, size_t *n, size_t elem_size);
#define SCN_PUSH(arr, n) ((__typeof__(arr))scn_array_push((void **)&(arr), &(n), sizeof(*(arr))))

#endif
