/* The points of a sweep (sweep_space.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/sweep/sweep_space.h"

static bool parse_u64(const char *s, const char *end, uint64_t *out)
{
	if (s == end)
		return false;
	uint64_t v = 0;
	for (const char *p = s; p < end; p++) {
		if (*p < '0' || *p > '9')
			return false;
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

bool sweep_parse_seeds(const char *text, uint64_t *from, uint64_t *to, char *err, size_t errlen)
{
	const char *dots = strstr(text, "..");
	const char *end = text + strlen(text);
	bool ok = dots ? parse_u64(text, dots, from) && parse_u64(dots + 2, end, to) : parse_u64(text, end, from);
	if (!dots)
		*to = *from;
	if (!ok) {
		snprintf(err, errlen, "bad --seeds '%s'; expected A..B (decimal seeds, A <= B) or one seed", text);
		return false;
	}
	if (*to < *from) {
		snprintf(err, errlen, "bad --seeds '%s': %" PRIu64 " is below %" PRIu64 "; expected A..B with A <= B", text,
		         *to, *from);
		return false;
	}
	return true;
}

static bool name_ok(const char *s, size_t n)
{
	if (!n || n > 31 || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!g_ascii_isalnum(s[i]) && s[i] != '_')
			return false;
	return true;
}

bool sweep_space_init(sweep_space *s, uint64_t seed_from, uint64_t seed_to, const char *const *sets, size_t n_sets,
                      char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->seed_from = seed_from;
	s->seed_to = seed_to;
	s->axes = g_new0(sweep_axis, n_sets ? n_sets : 1);
	uint64_t n = seed_to - seed_from + 1;
	if (n == 0 || n > SWEEP_MAX_POINTS)
		goto too_many;
	for (size_t i = 0; i < n_sets; i++) {
		const char *eq = strchr(sets[i], '=');
		if (!eq || !name_ok(sets[i], (size_t)(eq - sets[i])) || !eq[1]) {
			snprintf(err, errlen, "bad --set '%s'; expected NAME=VALUE or NAME=V1,V2,… (a parameter and its values)",
			         sets[i]);
			sweep_space_free(s);
			return false;
		}
		sweep_axis *a = &s->axes[s->n_axes];
		a->name = g_strndup(sets[i], (size_t)(eq - sets[i]));
		for (size_t k = 0; k < s->n_axes; k++)
			if (!strcmp(s->axes[k].name, a->name)) {
				snprintf(err, errlen, "--set %s given twice; expected each parameter once, its values separated by commas",
				         a->name);
				g_free(a->name);
				sweep_space_free(s);
				return false;
			}
		a->values = g_strsplit(eq + 1, ",", -1);
		a->n_values = g_strv_length(a->values);
		s->n_axes++;
		for (size_t k = 0; k < a->n_values; k++)
			if (!a->values[k][0]) {
				snprintf(err, errlen, "bad --set '%s': an empty value; expected NAME=V1,V2,… without empty items", sets[i]);
				sweep_space_free(s);
				return false;
			}
		if (n > SWEEP_MAX_POINTS / a->n_values)
			goto too_many;
		n *= a->n_values;
	}
	s->n_points = n;
	return true;
too_many:
	snprintf(err, errlen, "the sweep has more than %llu points; expected fewer seeds or values", SWEEP_MAX_POINTS);
	sweep_space_free(s);
	return false;
}

void sweep_space_free(sweep_space *s)
{
	for (size_t i = 0; i < s->n_axes; i++) {
		g_free(s->axes[i].name);
		g_strfreev(s->axes[i].values);
	}
	g_free(s->axes);
	memset(s, 0, sizeof(*s));
}

static uint64_t n_seeds(const sweep_space *s)
{
	return s->seed_to - s->seed_from + 1;
}

uint64_t sweep_point_seed(const sweep_space *s, uint64_t point)
{
	return s->seed_from + point % n_seeds(s);
}

uint64_t sweep_point_params_key(const sweep_space *s, uint64_t point)
{
	return point / n_seeds(s);
}

size_t sweep_point_value(const sweep_space *s, uint64_t point, size_t axis)
{
	/* the last axis varies fastest after the seed */
	uint64_t rest = point / n_seeds(s);
	for (size_t k = s->n_axes; k-- > axis + 1;)
		rest /= s->axes[k].n_values;
	return (size_t)(rest % s->axes[axis].n_values);
}

char **sweep_point_sets(const sweep_space *s, uint64_t point)
{
	char **v = g_new0(char *, s->n_axes + 1);
	for (size_t k = 0; k < s->n_axes; k++)
		v[k] = g_strdup_printf("%s=%s", s->axes[k].name, s->axes[k].values[sweep_point_value(s, point, k)]);
	return v;
}

void sweep_shell_word(GString *out, const char *word)
{
	bool plain = word[0] != 0;
	for (const char *p = word; *p; p++)
		if (!g_ascii_isalnum(*p) && !strchr("_./=:,+-@%", *p))
			plain = false;
	if (plain) {
		g_string_append(out, word);
		return;
	}
	g_string_append_c(out, '\'');
	for (const char *p = word; *p; p++) {
		if (*p == '\'')
			g_string_append(out, "'\\''");
		else
			g_string_append_c(out, *p);
	}
	g_string_append_c(out, '\'');
}
