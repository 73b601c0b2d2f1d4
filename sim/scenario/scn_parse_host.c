/* The `host` statement of a stack block: overrides of the host profile's fields (the
 * profile itself is the stack's `host=`). The attributes are the profile's fields
 * (sim/host/host_profile.h): counts, durations, sizes, and per-byte costs written as the
 * rate they allow (`copy=160Gbps` is 20 GB/s, 50 ps a byte). */
#include <string.h>

#include "sim/scenario/scn_attrs.h"
#include "sim/scenario/scn_host_text.h"


static scn_attr_spec specs[MAX_ATTRS];
static size_t n_specs;

static const scn_attr_spec *host_specs(size_t *n)
{
	if (!n_specs) {
		size_t nf;
		const host_field *f = host_profile_fields(&nf);
		for (size_t i = 0; i < nf && i < MAX_ATTRS; i++) {
			scn_attr_spec *s = &specs[n_specs++];
			s->key = f[i].key;
			s->min = f[i].min;
			s->max = f[i].max;
			switch (f[i].unit) {
			case HOST_UNIT_COUNT:
			case HOST_UNIT_PCT:
				s->type = SCN_V_UINT;
				break;
			case HOST_UNIT_NS:
				s->type = SCN_V_DURATION;
				break;
			case HOST_UNIT_BYTES:
				s->type = SCN_V_SIZE;
				break;
			case HOST_UNIT_PS_BYTE:
				s->type = SCN_V_RATE;
				s->min = 0; /* 0 (where allowed) is checked below */
				s->max = SCN_PS_PER_BYTE_BITS / (f[i].min ? f[i].min : 1);
				break;
			}
		}
	}
	*n = n_specs;
	return specs;
}

static bool set_field(scn_parser *P, host_profile *hp, const host_field *f, const scn_token *t, uint64_t v)
{
	if (f->unit == HOST_UNIT_PS_BYTE) {
		if (!v) {
			if (f->min) {
				scn_error(P->d, t->vloc, "%s=%s: a copy takes time; expected a rate above 0", f->key, t->value);
				return false;
			}
			host_field_set(hp, f, 0);
			return true;
		}
		uint64_t ps = SCN_PS_PER_BYTE_BITS / v;
		if (ps < f->min || ps > f->max || ps == 0) {
			scn_error(P->d, t->vloc, "%s=%s is out of range; expected %llu..%llu bps", f->key, t->value,
			          (unsigned long long)(SCN_PS_PER_BYTE_BITS / f->max),
			          (unsigned long long)(SCN_PS_PER_BYTE_BITS / (f->min ? f->min : 1)));
			return false;
		}
		v = ps;
	}
	host_field_set(hp, f, v);
	return true;
}

void scn_stmt_host(scn_parser *P, const scn_stmt *st)
{
	const char *usage = "host ATTR=VALUE… (cpus=, speed=, copy=, syscall=, …: docs/hosts.md)";
	size_t np = scn_attr_positionals(P, st, usage);
	if (np == SIZE_MAX)
		return;
	if (np != 1) {
		scn_error(P->d, st->tok[1].loc, "unexpected word '%s'; expected key=value attributes after host",
		          scn_echo(P->d, st->tok[1].value));
		return;
	}
	scn_stack *s = P->block == SCN_NONE ? NULL : &P->scn->stacks[P->block];
	if (s && s->host_loc.line) {
		scn_error(P->d, st->loc, "repeated host statement (first at %u:%u); expected one per stack", s->host_loc.line,
		          s->host_loc.col);
		return;
	}
	size_t ns;
	const scn_attr_spec *sp = host_specs(&ns);
	scn_attrs a = { 0 };
	if (!scn_attr_collect(P, st, 1, sp, ns, "host", &a))
		return;
	host_profile hp = s ? s->host : *host_profile_find("linux");
	if (s && !hp.costs) {
		scn_error(P->d, st->loc, "stack '%s' has host=none, whose costs are all zero; give it host=linux or host=zos to change them",
		          s->name);
		return;
	}
	for (size_t i = 0; i < ns; i++) {
		if (!a.tok[i])
			continue;
		scn_val v;
		bool given;
		if (!scn_attr_get(P, &a, sp[i].key, NULL, SCN_PERS_LINUX, &v, &given) || !given)
			continue;
		if (!set_field(P, &hp, host_field_find(sp[i].key), a.tok[i], v.u))
			return;
	}
	const char *why = NULL;
	if (host_profile_check(&hp, &why)) {
		const host_field *f = host_field_find(why);
		size_t k = 0;
		while (k < ns && strcmp(sp[k].key, why))
			k++;
		scn_loc at = k < ns && a.tok[k] ? a.tok[k]->vloc : st->loc;
		if (!strcmp(why, "irqcpu"))
			scn_error(P->d, at, "irqcpu=%u names no CPU of the %u; expected 0..%u", hp.irq_cpu, hp.cpus, hp.cpus - 1);
		else
			scn_error(P->d, at, "%s is out of range for this host (%s)", why, f ? f->what : "");
		return;
	}
	if (s) {
		s->host = hp;
		s->host_loc = st->loc;
	}
}
