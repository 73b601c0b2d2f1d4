/* The limits that need the parsed model: the connections the apps open (their conns=
 * values are attributes, so the expander cannot count them). The others are counted
 * by the expander (scn_expand.c) and the stack block (interfaces per stack). */
#include <inttypes.h>

#include "sim/scenario/scn_int.h"

/* The estimate of what running the scenario needs, refused at the statement that takes it
 * over the limit: the stack whose own share does, else the app whose connections do. */
static void check_memory(scn_parser *P, uint64_t conns)
{
	const scn_scenario *s = P->scn;
	uint64_t est = (uint64_t)s->n_stacks * SCN_EST_STACK_BYTES + conns * SCN_EST_CONN_BYTES;
	if (est <= SCN_MAX_MEMORY_ESTIMATE)
		return;
	scn_loc at = s->n_stacks ? s->stacks[s->n_stacks - 1].loc : (scn_loc){ s->file, 1, 1, NULL };
	if ((uint64_t)s->n_stacks * SCN_EST_STACK_BYTES > SCN_MAX_MEMORY_ESTIMATE) {
		at = s->stacks[SCN_MAX_MEMORY_ESTIMATE / SCN_EST_STACK_BYTES].loc;
	} else {
		uint64_t sum = (uint64_t)s->n_stacks * SCN_EST_STACK_BYTES;
		for (size_t i = 0; i < s->n_apps; i++) {
			if (s->apps[i].role != SCN_ROLE_CONNECT || scn_is_broken(P, SCN_BRK_APP, i))
				continue;
			sum += s->apps[i].conns * SCN_EST_CONN_BYTES;
			if (sum > SCN_MAX_MEMORY_ESTIMATE) {
				at = s->apps[i].loc;
				break;
			}
		}
	}
	scn_error(P->d, at,
	          "this takes the run's memory estimate over the limit: %zu stacks and %" PRIu64 " connections need about %" PRIu64
	          " MiB (%llu KiB a stack, %llu KiB a connection); expected at most %llu MiB",
	          s->n_stacks, conns, est >> 20, SCN_EST_STACK_BYTES >> 10, SCN_EST_CONN_BYTES >> 10,
	          SCN_MAX_MEMORY_ESTIMATE >> 20);
	P->limited = true;
}

void scn_check_limits(scn_parser *P)
{
	const scn_scenario *s = P->scn;
	uint64_t total = 0;
	size_t first_over = SIZE_MAX;
	for (size_t i = 0; i < s->n_apps; i++) {
		if (s->apps[i].role != SCN_ROLE_CONNECT || scn_is_broken(P, SCN_BRK_APP, i))
			continue;
		total += s->apps[i].conns;
		if (total > SCN_MAX_CONNS && first_over == SIZE_MAX)
			first_over = i;
	}
	if (first_over == SIZE_MAX) {
		check_memory(P, total);
		return;
	}
	const scn_app *a = &s->apps[first_over];
	scn_error(P->d, a->loc,
	          "app '%s' (conns=%u) takes the connections over the limit: %" PRIu64 " in all; expected at most %u connections in a scenario",
	          a->name, a->conns, total, SCN_MAX_CONNS);
	P->limited = true;
}
