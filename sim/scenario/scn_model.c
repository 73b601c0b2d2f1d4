/* Loading and freeing scenarios, lookups and the names of the model's enums. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario/scn_int.h"
#include "sim/scenario/scn_values.h"

bool scn_vlan_set_has(const scn_vlan_set *s, uint16_t vlan)
{
	if (vlan < 1 || vlan > 4094)
		return false;
	return s->all || (s->bits[vlan / 64] >> (vlan % 64)) & 1;
}

static guint u64_hash(gconstpointer p)
{
	uint64_t v = *(const uint64_t *)p;
	return (guint)(v ^ (v >> 32) ^ (v >> 56));
}

static gboolean u64_equal(gconstpointer a, gconstpointer b)
{
	return *(const uint64_t *)a == *(const uint64_t *)b;
}

static void free_ip_locs(gpointer p)
{
	g_array_free(*(GArray **)p, TRUE);
}

static void free_key(gpointer p)
{
	g_free(p);
}

/* The name indexes of scn_find_stack and scn_find_app. */
typedef struct scn_index {
	GHashTable *stacks, *apps; /* name -> index + 1 */
} scn_index;

static void build_index(scn_scenario *scn)
{
	scn_index *ix = g_new(scn_index, 1);
	ix->stacks = g_hash_table_new(g_str_hash, g_str_equal);
	ix->apps = g_hash_table_new(g_str_hash, g_str_equal);
	for (size_t i = 0; i < scn->n_stacks; i++)
		g_hash_table_insert(ix->stacks, scn->stacks[i].name, GSIZE_TO_POINTER(i + 1));
	for (size_t i = 0; i < scn->n_apps; i++)
		g_hash_table_insert(ix->apps, scn->apps[i].name, GSIZE_TO_POINTER(i + 1));
	scn->index = ix;
}

scn_scenario *scn_load_string_opts(const char *name, const char *text, size_t len, const scn_load_opts *opts,
                                   scn_diag *diag)
{
	scn_scenario *scn = g_new0(scn_scenario, 1);
	scn->file = g_strdup(name);
	scn->title = g_strdup("");
	scn->seed = 1;
	scn->end_ns = SCN_DEFAULT_END_NS;
	scn->iters = g_string_chunk_new(1024);
	size_t before = scn_diag_count(diag);
	scn_parser P = {
		.scn = scn,
		.d = diag,
		.block = SCN_NONE,
		.broken = g_hash_table_new_full(u64_hash, u64_equal, g_free, NULL),
		.app_instances = g_array_new(FALSE, TRUE, sizeof(scn_instance_check)),
		.smcr_settings_loc = g_array_new(FALSE, TRUE, sizeof(scn_loc)),
		.pfid_loc = g_array_new(FALSE, TRUE, sizeof(scn_loc)),
		.ip_loc = g_array_new(FALSE, TRUE, sizeof(GArray *)),
		.ep_loc = g_array_new(FALSE, TRUE, sizeof(scn_loc)),
		.start_given = g_array_new(FALSE, TRUE, sizeof(gboolean)),
		.routes = g_hash_table_new_full(g_int64_hash, g_int64_equal, free_key, NULL),
		.activations = g_hash_table_new_full(g_int64_hash, g_int64_equal, free_key, NULL),
	};
	g_array_set_clear_func(P.ip_loc, free_ip_locs);
	const scn_default *seed = scn_default_find("run", "seed");
	uint64_t v;
	const char *why;
	if (seed && scn_parse_uint(seed->value[SCN_PERS_LINUX], &v, &why))
		scn->seed = v;
	scn_parse_text(&P, text, len, opts);
	if (!scn_diag_full(diag) && !P.limited)
		scn_check_limits(&P);
	if (!scn_diag_full(diag) && !P.limited)
		scn_check(&P);
	bool failed = scn_diag_count(diag) > before || diag->overflow || g_hash_table_size(P.broken) > 0 || P.limited;
	scn_parser_free_symbols(&P);
	g_hash_table_destroy(P.broken);
	g_array_free(P.app_instances, TRUE);
	g_array_free(P.smcr_settings_loc, TRUE);
	g_array_free(P.pfid_loc, TRUE);
	g_array_free(P.ip_loc, TRUE);
	g_array_free(P.ep_loc, TRUE);
	g_array_free(P.start_given, TRUE);
	g_hash_table_destroy(P.routes);
	g_hash_table_destroy(P.activations);
	if (failed) {
		scn_free(scn);
		return NULL;
	}
	build_index(scn);
	return scn;
}

scn_scenario *scn_load_string(const char *name, const char *text, size_t len, scn_diag *diag)
{
	return scn_load_string_opts(name, text, len, NULL, diag);
}

/* The whole file, at most SCN_MAX_FILE_BYTES: a device or a pipe that never ends
 * (/dev/zero) is refused once it has given more. */
static char *read_scenario(const char *path, size_t *len, scn_diag *diag)
{
	scn_loc file = { path, 0, 0, NULL };
	FILE *f = fopen(path, "rb");
	if (!f) {
		scn_error(diag, file, "cannot read the file (%s); expected a readable scenario file", g_strerror(errno));
		return NULL;
	}
	size_t cap = 65536, n = 0;
	char *buf = g_malloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if (cap > SCN_MAX_FILE_BYTES)
				break;
			cap *= 2;
			buf = g_realloc(buf, cap + 1);
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0 || n > SCN_MAX_FILE_BYTES)
			break;
	}
	bool err = ferror(f) != 0;
	int e = errno;
	fclose(f);
	if (err) {
		scn_error(diag, file, "cannot read the file (%s); expected a readable scenario file", g_strerror(e));
		g_free(buf);
		return NULL;
	}
	if (n > SCN_MAX_FILE_BYTES) {
		scn_error(diag, file, "the file is larger than %u MiB; expected a scenario file of at most %u bytes",
		          SCN_MAX_FILE_BYTES >> 20, SCN_MAX_FILE_BYTES);
		g_free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

scn_scenario *scn_load_file_opts(const char *path, const scn_load_opts *opts, scn_diag *diag)
{
	size_t len;
	char *text = read_scenario(path, &len, diag);
	if (!text)
		return NULL;
	scn_scenario *scn = scn_load_string_opts(path, text, len, opts, diag);
	g_free(text);
	return scn;
}

scn_scenario *scn_load_file(const char *path, scn_diag *diag)
{
	return scn_load_file_opts(path, NULL, diag);
}

void scn_free(scn_scenario *scn)
{
	if (!scn)
		return;
	for (size_t i = 0; i < scn->n_stacks; i++) {
		g_free(scn->stacks[i].ifaces);
		g_free(scn->stacks[i].routes);
		g_free(scn->stacks[i].smcr_ports);
	}
	for (size_t i = 0; i < scn->n_params; i++)
		g_free(scn->params[i].value);
	if (scn->index) {
		scn_index *ix = scn->index;
		g_hash_table_destroy(ix->stacks);
		g_hash_table_destroy(ix->apps);
		g_free(ix);
	}
	if (scn->iters)
		g_string_chunk_free(scn->iters);
	g_free(scn->params);
	g_free(scn->switches);
	g_free(scn->wires);
	g_free(scn->adapters);
	g_free(scn->stacks);
	g_free(scn->apps);
	g_free(scn->events);
	g_free(scn->expects);
	g_free(scn->reports);
	g_free(scn->title);
	g_free(scn->file);
	g_free(scn);
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

uint32_t scn_find_stack(const scn_scenario *scn, const char *name)
{
	if (scn->index)
		return (uint32_t)GPOINTER_TO_SIZE(g_hash_table_lookup(((const scn_index *)scn->index)->stacks, name)) - 1;
	for (size_t i = 0; i < scn->n_stacks; i++)
		if (!strcmp(scn->stacks[i].name, name))
			return (uint32_t)i;
	return SCN_NONE;
}

int scn_iface_pnetid(const scn_scenario *scn, const char *spec, char *out, size_t outlen, char *err, size_t errlen)
{
	const char *dot = strchr(spec, '.');
	const scn_interface *hit = NULL;
	unsigned hits = 0;
	for (size_t i = 0; i < scn->n_stacks; i++) {
		const scn_stack *st = &scn->stacks[i];
		if (dot && (strlen(st->name) != (size_t)(dot - spec) || strncmp(st->name, spec, (size_t)(dot - spec))))
			continue;
		for (size_t k = 0; k < st->n_ifaces; k++)
			if (!strcmp(st->ifaces[k].name, dot ? dot + 1 : spec)) {
				hit = &st->ifaces[k];
				hits++;
			}
	}
	if (hits != 1) {
		if (hits)
			snprintf(err, errlen, "interface '%s' is on %u stacks; name it STACK.IFACE", spec, hits);
		else
			snprintf(err, errlen, "no interface '%s' in %s (STACK.IFACE or IFACE)", spec, scn->file);
		return -1;
	}
	/* the default network's name is the SMC-R layer's (sim/smc/smc_layer.c) */
	snprintf(out, outlen, "%s", hit->pnetid[0] ? hit->pnetid : "SIMNET");
	return 0;
}

uint32_t scn_find_app(const scn_scenario *scn, const char *name)
{
	if (scn->index)
		return (uint32_t)GPOINTER_TO_SIZE(g_hash_table_lookup(((const scn_index *)scn->index)->apps, name)) - 1;
	for (size_t i = 0; i < scn->n_apps; i++)
		if (!strcmp(scn->apps[i].name, name))
			return (uint32_t)i;
	return SCN_NONE;
}

const char *scn_personality_name(scn_personality p)
{
	return p == SCN_PERS_ZOS ? "zos" : "linux";
}

const char *scn_kind_name(scn_app_kind k)
{
	switch (k) {
	case SCN_KIND_BULK: return "bulk";
	case SCN_KIND_ECHO: return "echo";
	case SCN_KIND_RR: return "rr";
	case SCN_KIND_SINK: return "sink";
	case SCN_KIND_RESPONDER: return "responder";
	case SCN_KIND_CRR: return "crr";
	}
	return "?";
}

const char *scn_stat_name(scn_stat st)
{
	switch (st) {
	case SCN_STAT_MIN: return "min";
	case SCN_STAT_MEAN: return "mean";
	case SCN_STAT_P50: return "p50";
	case SCN_STAT_P90: return "p90";
	case SCN_STAT_P99: return "p99";
	case SCN_STAT_P999: return "p99.9";
	case SCN_STAT_MAX: return "max";
	}
	return "?";
}

const char *scn_cpu_cat_name(scn_cpu_cat c)
{
	switch (c) {
	case SCN_CPU_ALL: return "";
	case SCN_CPU_APP: return "app";
	case SCN_CPU_TCPIP: return "tcpip";
	case SCN_CPU_SMCR: return "smcr";
	case SCN_CPU_IRQ: return "irq";
	}
	return "?";
}

const char *scn_cpu_per_name(scn_cpu_per p)
{
	switch (p) {
	case SCN_PER_TOTAL: return "";
	case SCN_PER_TXN: return "txn";
	case SCN_PER_MIB: return "MiB";
	case SCN_PER_UTIL: return "util";
	case SCN_PER_BUSIEST: return "busiest";
	}
	return "?";
}

static const char *scn_metric_name(scn_metric m)
{
	switch (m) {
	case SCN_M_LINKGROUPS: return "linkgroups";
	case SCN_M_LINKS: return "links";
	case SCN_M_CONNS: return "conns";
	case SCN_M_MODE: return "mode";
	case SCN_M_SENT: return "sent";
	case SCN_M_DELIVERED: return "delivered";
	case SCN_M_RECEIVED: return "received";
	case SCN_M_ABORTED: return "aborted";
	case SCN_M_FALLBACK: return "fallback";
	case SCN_M_OPS: return "ops";
	case SCN_M_LATENCY: return "latency";
	case SCN_M_CONNECT: return "connect";
	case SCN_M_FCT: return "fct";
	case SCN_M_THROUGHPUT: return "throughput";
	case SCN_M_CPU: return "cpu";
	}
	return "?";
}

static const char *scn_cmp_name(scn_cmp c)
{
	switch (c) {
	case SCN_CMP_EQ: return "==";
	case SCN_CMP_NE: return "!=";
	case SCN_CMP_LT: return "<";
	case SCN_CMP_LE: return "<=";
	case SCN_CMP_GT: return ">";
	case SCN_CMP_GE: return ">=";
	}
	return "?";
}

static const char *scn_mode_name(scn_mode m)
{
	switch (m) {
	case SCN_MODE_SMCR: return "SMCR";
	case SCN_MODE_TCP: return "TCP";
	case SCN_MODE_FALLBACK: return "FALLBACK";
	}
	return "?";
}

const char *scn_report_format_name(scn_report_format f)
{
	switch (f) {
	case SCN_REPORT_AUTO: return "auto";
	case SCN_REPORT_NETSTAT: return "netstat";
	case SCN_REPORT_SMC: return "smc";
	case SCN_REPORT_SMC_CHK: return "smc_chk";
	case SCN_REPORT_JSON: return "json";
	}
	return "?";
}

bool scn_parse_end_time(const char *text, uint64_t *ns, char *err, size_t len)
{
	const char *why;
	char lo[SCN_FMT_LEN], hi[SCN_FMT_LEN];
	scn_format_duration(1, lo, sizeof(lo));
	scn_format_duration(SCN_MAX_END_NS, hi, sizeof(hi));
	if (!scn_parse_duration(text, 0, ns, &why)) {
		if (why == SCN_WHY_OVERFLOW)
			snprintf(err, len, "end=%.64s is out of range (max %s); expected %s..%s", text, hi, lo, hi);
		else
			snprintf(err, len, "bad duration '%.64s' for end; %s", text, why);
		return false;
	}
	if (*ns < 1 || *ns > SCN_MAX_END_NS) {
		snprintf(err, len, "end=%.64s is out of range; expected %s..%s", text, lo, hi);
		return false;
	}
	return true;
}

bool scn_parse_seed(const char *text, uint64_t *seed, char *err, size_t len)
{
	const char *why;
	if (scn_parse_uint(text, seed, &why))
		return true;
	if (why == SCN_WHY_OVERFLOW)
		snprintf(err, len, "seed=%.64s is out of range (max %llu); expected 0..%llu", text, (unsigned long long)UINT64_MAX,
		         (unsigned long long)UINT64_MAX);
	else
		snprintf(err, len, "bad integer '%.64s' for seed; %s", text, why);
	return false;
}

bool scn_cmp_holds(scn_cmp c, uint64_t measured, uint64_t expected)
{
	switch (c) {
	case SCN_CMP_EQ: return measured == expected;
	case SCN_CMP_NE: return measured != expected;
	case SCN_CMP_LT: return measured < expected;
	case SCN_CMP_LE: return measured <= expected;
	case SCN_CMP_GT: return measured > expected;
	case SCN_CMP_GE: return measured >= expected;
	}
	return false;
}

static void app_ref(GString *s, const scn_scenario *scn, scn_app_ref r)
{
	g_string_append(s, scn->apps[r.app].name);
	if (r.instance)
		g_string_append_printf(s, ".%u", r.instance);
}

char *scn_format_expect(const scn_scenario *scn, const scn_expect *e, char *buf, size_t len)
{
	GString *s = g_string_new("expect ");
	g_string_append(s, scn_metric_name(e->metric));
	switch (e->metric) {
	case SCN_M_LINKGROUPS:
	case SCN_M_LINKS:
	case SCN_M_CONNS:
		g_string_append_printf(s, " %s %s", scn->stacks[e->stack_a].name, scn->stacks[e->stack_b].name);
		break;
	case SCN_M_MODE:
	case SCN_M_SENT:
	case SCN_M_DELIVERED:
	case SCN_M_RECEIVED:
		g_string_append_c(s, ' ');
		app_ref(s, scn, e->app);
		break;
	case SCN_M_ABORTED:
	case SCN_M_FALLBACK:
		if (e->stack_a != SCN_NONE)
			g_string_append_printf(s, " %s", scn->stacks[e->stack_a].name);
		break;
	case SCN_M_OPS:
	case SCN_M_THROUGHPUT:
	case SCN_M_LATENCY:
	case SCN_M_CONNECT:
	case SCN_M_FCT:
		g_string_append_c(s, ' ');
		app_ref(s, scn, e->app);
		if (e->metric != SCN_M_OPS && e->metric != SCN_M_THROUGHPUT)
			g_string_append_printf(s, " %s", scn_stat_name(e->stat));
		break;
	case SCN_M_CPU:
		g_string_append_printf(s, " %s", scn->stacks[e->stack_a].name);
		if (e->cpu_cat != SCN_CPU_ALL)
			g_string_append_printf(s, " %s", scn_cpu_cat_name(e->cpu_cat));
		if (e->cpu_per != SCN_PER_TOTAL)
			g_string_append_printf(s, " per=%s", scn_cpu_per_name(e->cpu_per));
		break;
	}
	g_string_append_printf(s, " %s ", scn_cmp_name(e->cmp));
	char v[SCN_FMT_LEN];
	switch (e->rhs) {
	case SCN_RHS_NUMBER:
		if (e->metric == SCN_M_SENT || e->metric == SCN_M_DELIVERED || e->metric == SCN_M_RECEIVED)
			g_string_append(s, scn_format_size(e->value, v, sizeof(v)));
		else if (e->metric == SCN_M_LATENCY || e->metric == SCN_M_CONNECT || e->metric == SCN_M_FCT ||
		         (e->metric == SCN_M_CPU && e->cpu_per != SCN_PER_UTIL && e->cpu_per != SCN_PER_BUSIEST))
			g_string_append(s, scn_format_duration(e->value, v, sizeof(v)));
		else if (e->metric == SCN_M_CPU && e->ratio.den && e->ratio.num * 100 % e->ratio.den == 0)
			g_string_append_printf(s, "%llu%%", (unsigned long long)(e->ratio.num * 100 / e->ratio.den));
		else if (e->metric == SCN_M_CPU)
			g_string_append(s, scn_format_ratio(e->ratio, v, sizeof(v)));
		else if (e->metric == SCN_M_THROUGHPUT)
			g_string_append(s, scn_format_rate(e->value, v, sizeof(v)));
		else
			g_string_append_printf(s, "%llu", (unsigned long long)e->value);
		break;
	case SCN_RHS_MODE:
		g_string_append(s, scn_mode_name(e->mode));
		break;
	case SCN_RHS_COUNTER:
		g_string_append_printf(s, "%s ", scn_metric_name(e->rhs_metric));
		app_ref(s, scn, e->rhs_app);
		break;
	}
	if (e->has_reason)
		g_string_append_printf(s, " reason=0x%08x", e->reason);
	g_strlcpy(buf, s->str, len);
	g_string_free(s, TRUE);
	return buf;
}

void scn_event_target_text(const scn_scenario *s, const scn_event *ev, char *buf, size_t len)
{
	switch (ev->target_kind) {
	case SCN_TGT_ADAPTER:
		if (ev->port)
			snprintf(buf, len, "adapter %s port %u", s->adapters[ev->target].name, (unsigned)ev->port);
		else
			snprintf(buf, len, "adapter %s", s->adapters[ev->target].name);
		return;
	case SCN_TGT_WIRE:
		snprintf(buf, len, "wire %s", s->wires[ev->target].name);
		return;
	case SCN_TGT_SWITCH:
		snprintf(buf, len, "switch %s", s->switches[ev->target].name);
		return;
	case SCN_TGT_INTERFACE:
		snprintf(buf, len, "interface %s.%s", s->stacks[ev->stack].name, s->stacks[ev->stack].ifaces[ev->target].name);
		return;
	case SCN_TGT_APP:
		snprintf(buf, len, "app %s", s->apps[ev->target].name);
		return;
	case SCN_TGT_NONE:
		break;
	}
	snprintf(buf, len, "-");
}
