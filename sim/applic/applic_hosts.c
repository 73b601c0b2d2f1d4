/* The re-run's host choices (see applic_hosts.h). */
#include "sim/applic/applic_hosts.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "sim/scenario/scn_diag.h"
#include "sim/scenario/scn_host_text.h"
#include "sim/scenario/scn_model.h"
#include "sim/scenario/scn_values.h"

void applic_host_spec(const host_profile *p, char *out, size_t n)
{
	const host_profile *base = host_profile_find(p->name);
	GString *g = g_string_new(p->name);
	size_t nf;
	const host_field *f = host_profile_fields(&nf);
	for (size_t i = 0; base && p->costs && i < nf; i++) {
		uint64_t v = host_field_get(p, &f[i]);
		if (v == host_field_get(base, &f[i]))
			continue;
		char buf[SCN_FMT_LEN];
		scn_host_field_text(p, &f[i], buf, sizeof(buf));
		g_string_append_printf(g, ",%s=%s", f[i].key, buf);
	}
	snprintf(out, n, "%s", g->str);
	g_string_free(g, TRUE);
}

/* a scenario message without its "FILE:LINE:COLUMN: " */
static const char *message_text(const char *m)
{
	const char *p = m;
	for (int colons = 0; colons < 3 && p; colons++)
		if ((p = strchr(p, ':')))
			p++;
	return p ? p + (*p == ' ') : m;
}

int applic_host_parse(const char *spec, const char *what, applic_host_choice *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	size_t len = strlen(spec);
	for (size_t i = 0; i < len; i++)
		if (!g_ascii_isalnum(spec[i]) && !strchr("=.,_- ", spec[i])) {
			snprintf(err, errlen, "%s '%s': unexpected character '%c'; expected PROFILE[,FIELD=VALUE...] such as "
			                      "zos or linux,cpus=8,speed=150",
			         what, spec, spec[i]);
			return -1;
		}
	gchar **w = g_strsplit_set(spec, ", ", -1);
	GString *attrs = g_string_new(NULL);
	const char *profile = NULL;
	for (gchar **q = w; *q; q++) {
		if (!**q)
			continue;
		if (!profile)
			profile = *q;
		else
			g_string_append_printf(attrs, " %s", *q);
	}
	int rc = -1;
	if (!profile || strchr(profile, '=')) {
		snprintf(err, errlen, "%s '%s': expected a profile first (none, linux or zos), then FIELD=VALUE overrides", what,
		         spec);
	} else if (!strcmp(profile, "none") && attrs->len) {
		snprintf(err, errlen, "%s '%s': none has no costs to override; expected linux or zos before FIELD=VALUE", what,
		         spec);
	} else {
		/* a one-stack scenario: the stack line's host= and the host statement */
		GString *text = g_string_new(NULL);
		g_string_append_printf(text, "switch S\nstack X host=%s\n  interface e switch=S ip=10.0.0.1/24\n", profile);
		if (attrs->len)
			g_string_append_printf(text, "  host%s\n", attrs->str);
		g_string_append(text, "end\n");
		scn_diag d;
		scn_diag_init(&d);
		scn_scenario *scn = scn_load_string(what, text->str, text->len, &d);
		if (scn) {
			out->given = true;
			out->profile = scn->stacks[0].host;
			applic_host_spec(&out->profile, out->spec, sizeof(out->spec));
			scn_free(scn);
			rc = 0;
		} else {
			snprintf(err, errlen, "%s '%s': %s", what, spec,
			         scn_diag_count(&d) ? message_text(scn_diag_message(&d, 0)) : "not a host");
		}
		scn_diag_free(&d);
		g_string_free(text, TRUE);
	}
	g_string_free(attrs, TRUE);
	g_strfreev(w);
	return rc;
}
