/* Small parsers shared by the subcommands; the value syntax itself lives in sim/scenario/scn_values.c
 * so that scenario files and the command line read values the same way. */
#include <stdio.h>

#include "sim/scenario/scn_values.h"
#include "tools/cli.h"

int cli_parse_u64(const char *text, unsigned long long *out)
{
	uint64_t v;
	const char *why;
	if (!text || !scn_parse_uint(text, &v, &why))
		return -1;
	*out = v;
	return 0;
}

int cli_parse_duration(const char *text, unsigned long long *ns, char *err, unsigned long errlen)
{
	uint64_t v;
	const char *why;
	if (!text || !scn_parse_duration(text, SCN_DUR_BARE_NS, &v, &why)) {
		snprintf(err, errlen, "bad duration '%s': %s (such as 10s, 250ms or 5000ns)", text ? text : "",
		         text ? why : "expected a duration");
		return -1;
	}
	*ns = v;
	return 0;
}
