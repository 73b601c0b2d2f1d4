/* Kinds of scenario parameters: a parameter's value is checked once, against the kind of
 * its default, so a --set value of the wrong kind is refused at the `param` line rather
 * than somewhere it is used. */
#include <glib.h>
#include <string.h>

#include "sim/scenario/scn_param.h"
#include "sim/scenario/scn_values.h"

static const struct {
	const char *name, *noun;
} kinds[] = {
	[SCN_PARAM_INT] = { "int", "an integer" },
	[SCN_PARAM_DURATION] = { "duration", "a duration" },
	[SCN_PARAM_SIZE] = { "size", "a size" },
	[SCN_PARAM_RATE] = { "rate", "a rate" },
	[SCN_PARAM_RATIO] = { "ratio", "a ratio" },
	[SCN_PARAM_BOOL] = { "bool", "a boolean" },
	[SCN_PARAM_TEXT] = { "text", "text" },
};

const char *scn_param_kind_name(scn_param_kind k)
{
	return kinds[k].name;
}

const char *scn_param_kind_noun(scn_param_kind k)
{
	return kinds[k].noun;
}

bool scn_param_kind_parse(const char *word, scn_param_kind *k)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(word, kinds[i].name)) {
			*k = (scn_param_kind)i;
			return true;
		}
	return false;
}

/* An integer parameter: an optional '-', then decimal or 0x hex, within int64 (the
 * arithmetic of expressions); too large is SCN_WHY_OVERFLOW. */
static bool parse_int(const char *text, int64_t *out, const char **why)
{
	bool neg = text[0] == '-';
	uint64_t u;
	if (!scn_parse_uint(text + neg, &u, why))
		return false;
	if (u > (uint64_t)INT64_MAX + neg) {
		*why = SCN_WHY_OVERFLOW;
		return false;
	}
	*out = neg ? (int64_t)(0 - u) : (int64_t)u;
	return true;
}

/* Written like an integer, whatever its size? */
static bool int_shaped(const char *text)
{
	const char *p = text + (text[0] == '-');
	bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
	if (hex)
		p += 2;
	if (!*p)
		return false;
	for (; *p; p++)
		if (!(g_ascii_isdigit(*p) || (hex && g_ascii_isxdigit(*p))))
			return false;
	return true;
}

bool scn_param_check(scn_param_kind k, const char *text, int64_t *i, const char **why)
{
	uint64_t u;
	sim_ratio r;
	bool b;
	int64_t scratch;
	switch (k) {
	case SCN_PARAM_INT: return parse_int(text, i ? i : &scratch, why);
	case SCN_PARAM_DURATION: return scn_parse_duration(text, 0, &u, why);
	case SCN_PARAM_SIZE: return scn_parse_size(text, &u, why);
	case SCN_PARAM_RATE: return scn_parse_rate(text, &u, why);
	case SCN_PARAM_RATIO: return scn_parse_ratio(text, &r, why);
	case SCN_PARAM_BOOL: return scn_parse_bool(text, &b, why);
	case SCN_PARAM_TEXT: return true;
	}
	return false;
}

scn_param_kind scn_param_infer(const char *text)
{
	const char *why;
	if (int_shaped(text))
		return SCN_PARAM_INT; /* a number too large is an integer out of range, not text */
	for (int k = SCN_PARAM_INT; k < SCN_PARAM_TEXT; k++)
		if (scn_param_check((scn_param_kind)k, text, NULL, &why))
			return (scn_param_kind)k;
	return SCN_PARAM_TEXT;
}
