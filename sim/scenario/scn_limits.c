/* The limits that need the parsed model: the connections the apps open (their conns=
 * values are attributes, so the expander cannot count them). The others are counted
 * by the expander (scn_expand.c) and the stack block (interfaces per stack). */
#include <inttypes.h>

#include "sim/scenario/scn_int.h"

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
	if (first_over == SIZE_MAX)
		return;
	const scn_app *a = &s->apps[first_over];
	scn_error(P->d, a->loc,
	          "app '%s' (conns=%u) takes the connections over the limit: %" PRIu64 " in all; expected at most %u connections in a scenario",
	          a->name, a->conns, total, SCN_MAX_CONNS);
	P->limited = true;
}
