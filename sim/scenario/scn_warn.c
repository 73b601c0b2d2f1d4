/* Warnings about valid scenarios (scn_warn.h). */
#include "sim/scenario/scn_warn.h"

#include "sim/scenario/scn_values.h"

/* The failure of the same adapter (or port) that the restore at index r ends. */
static const scn_event *failure_of(const scn_scenario *s, size_t r)
{
	const scn_event *rs = &s->events[r];
	for (size_t i = r; i-- > 0;) {
		const scn_event *e = &s->events[i];
		if (e->target_kind == SCN_TGT_ADAPTER && e->target == rs->target && e->port == rs->port &&
		    (e->kind == SCN_EV_FAIL || e->kind == SCN_EV_RESTORE))
			return e->kind == SCN_EV_FAIL ? e : NULL;
	}
	return NULL;
}

size_t scn_warn_early_restore(const scn_scenario *s, FILE *out)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n_events; i++) { /* in time order (scn_check sorted them) */
		const scn_event *rs = &s->events[i];
		if (rs->kind != SCN_EV_RESTORE || rs->target_kind != SCN_TGT_ADAPTER)
			continue;
		const scn_event *f = failure_of(s, i);
		if (!f || rs->at_ns - f->at_ns >= SCN_RESTORE_SETTLE_NS)
			continue;
		char at[SCN_FMT_LEN], gap[SCN_FMT_LEN], failed[SCN_FMT_LEN], settle[SCN_FMT_LEN], from[SCN_FMT_LEN];
		char port[16] = "";
		if (rs->port)
			snprintf(port, sizeof(port), " port %u", rs->port);
		fprintf(out,
		        "%s:%u:%u: warning: restore adapter '%s'%s at %s comes %s after its failure at %s (line %u); the "
		        "peer's QPs of the failed link retry for about %s (RC timeout 134ms, 7 retries), and a second link set up before they give up "
		        "fails and is not tried again: restore at %s or later for the second link to come back\n",
		        rs->loc.file, rs->loc.line, rs->loc.col, s->adapters[rs->target].name, port,
		        scn_format_duration(rs->at_ns, at, sizeof(at)), scn_format_duration(rs->at_ns - f->at_ns, gap, sizeof(gap)),
		        scn_format_duration(f->at_ns, failed, sizeof(failed)), f->loc.line,
		        scn_format_duration(SCN_RESTORE_SETTLE_NS, settle, sizeof(settle)),
		        scn_format_duration(f->at_ns + SCN_RESTORE_SETTLE_NS, from, sizeof(from)));
		n++;
	}
	return n;
}

size_t scn_warn_no_stack(const scn_scenario *s, FILE *out)
{
	if (s->n_stacks)
		return 0;
	fprintf(out,
	        "%s: warning: no stack: the run simulates the fabric alone and no connection; add a `stack NAME` "
	        "block with an interface (docs/scenario-format.md; smcr-sim --help names the sample scenarios)\n",
	        s->file);
	return 1;
}
