/* The canonical printer: a resolved scenario back in scenario syntax, every default
 * spelled out, the timeline in run order. Loading the output and printing it again gives
 * the same text (tests rely on it). */
#include <inttypes.h>
#include <string.h>

#include "sim/addr/addr_text.h"
#include "sim/scenario/scn_host_text.h"
#include "sim/scenario/scn_model.h"
#include "sim/scenario/scn_values.h"

static void put_quoted(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void put_vlans(FILE *out, const scn_vlan_set *v)
{
	if (v->all) {
		fputs(" vlans=all", out);
		return;
	}
	fputs(" vlans=", out);
	bool first = true;
	for (unsigned id = 1; id <= 4094; id++)
		if (scn_vlan_set_has(v, (uint16_t)id)) {
			fprintf(out, "%s%u", first ? "" : ",", id);
			first = false;
		}
}

static void put_link(FILE *out, const scn_link_params *l, bool with_mtu)
{
	char a[SCN_FMT_LEN], b[SCN_FMT_LEN], c[SCN_FMT_LEN], d[SCN_FMT_LEN], e[SCN_FMT_LEN], f[SCN_FMT_LEN];
	fprintf(out, " latency=%s bandwidth=%s", scn_format_duration(l->latency_ns, a, sizeof(a)),
	        scn_format_rate(l->bandwidth_bps, b, sizeof(b)));
	if (with_mtu)
		fprintf(out, " mtu=%u", l->mtu);
	fprintf(out, " loss=%s dup=%s reorder=%s corrupt=%s", scn_format_ratio(l->loss, c, sizeof(c)),
	        scn_format_ratio(l->dup, d, sizeof(d)), scn_format_ratio(l->reorder, e, sizeof(e)),
	        scn_format_ratio(l->corrupt, f, sizeof(f)));
}

static const char *roce_name(scn_roce r)
{
	return r == SCN_ROCE_V1 ? "v1" : r == SCN_ROCE_V2 ? "v2"
	                                                  : "both";
}

/* Congestion attributes only where they are in use: a scenario without them dumps as before. */
static void put_adapter_cc(FILE *out, const scn_adapter_cc *cc)
{
	char t[32];
	if (cc->pcp >= 0)
		fprintf(out, " prio=%d", cc->pcp);
	if (cc->dscp >= 0)
		fprintf(out, " dscp=%d", cc->dscp);
	if (cc->txwindow_given || cc->txwindow_ns != 10000) {
		scn_format_duration(cc->txwindow_ns, t, sizeof t);
		fprintf(out, " txwindow=%s", t);
	}
	if (cc->rx_stall) {
		scn_format_duration(cc->rx_stall_ns, t, sizeof t);
		fprintf(out, " rxstall=%s", t);
		scn_format_duration(cc->rx_stall_for_ns, t, sizeof t);
		fprintf(out, " rxstallfor=%s", t);
	}
	if (!cc->dcqcn)
		return;
	fprintf(out, " dcqcn=on cnpprio=%u cnpdscp=%u", cc->cnp_pcp, cc->cnp_dscp);
	scn_format_duration(cc->cnp_interval_ns, t, sizeof t);
	fprintf(out, " cnpinterval=%s dcqcn_g=%" PRIu64 "/%" PRIu64, t, cc->g.num, cc->g.den);
	scn_format_duration(cc->alpha_timer_ns, t, sizeof t);
	fprintf(out, " alphatimer=%s", t);
	scn_format_duration(cc->rate_timer_ns, t, sizeof t);
	fprintf(out, " ratetimer=%s bytecounter=%" PRIu64 " recovery=%u rai=%" PRIu64 "bps rhai=%" PRIu64 "bps minrate=%" PRIu64 "bps", t, cc->byte_counter, cc->recovery, cc->rai_bps, cc->rhai_bps, cc->min_bps);
}

/* The host's every cost as the `host` statement writes it (a profile of none has none). */
static void dump_host(const host_profile *hp, FILE *out)
{
	if (!hp->costs)
		return;
	size_t n;
	const host_field *f = host_profile_fields(&n);
	char a[SCN_FMT_LEN];
	fputs("  host", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, " %s=%s", f[i].key, scn_host_field_text(hp, &f[i], a, sizeof(a)));
	fputc('\n', out);
}

static void dump_stack(const scn_scenario *scn, const scn_stack *st, FILE *out)
{
	char a[SCN_FMT_LEN], b[SCN_FMT_LEN], c[SCN_FMT_LEN], d[SCN_FMT_LEN];
	fprintf(out, "stack %s personality=%s ", st->name, scn_personality_name(st->personality));
	if (st->personality == SCN_PERS_LINUX)
		fprintf(out, "kernel=%s ", scn_kernel_text(st->kernel, a, sizeof(a)));
	fprintf(out, "host=%s hostname=", st->host.name);
	put_quoted(out, st->hostname);
	fputc('\n', out);
	for (size_t i = 0; i < st->n_ifaces; i++) {
		const scn_interface *ifc = &st->ifaces[i];
		fprintf(out, "  interface %s switch=%s ip=%s/%u", ifc->name, scn->switches[ifc->sw].name,
		        addr_text_ipv4(ifc->ip, a, sizeof(a)), ifc->prefix_len);
		if (ifc->vlan)
			fprintf(out, " vlan=%u", ifc->vlan);
		fprintf(out, " mac=%s", addr_text_mac(ifc->mac, b, sizeof(b)));
		if (ifc->pnetid[0])
			fprintf(out, " pnetid=%s", ifc->pnetid);
		put_link(out, &ifc->link, true);
		fputc('\n', out);
	}
	for (size_t i = 0; i < st->n_routes; i++) {
		const scn_route *r = &st->routes[i];
		if (r->prefix_len == 0)
			fprintf(out, "  route default");
		else
			fprintf(out, "  route %s/%u", addr_text_ipv4(r->dest, a, sizeof(a)), r->prefix_len);
		fprintf(out, " via=%s\n", addr_text_ipv4(r->via, b, sizeof(b)));
	}
	fprintf(out, "  forwarding %s\n", st->forwarding ? "on" : "off");
	const scn_smcr_config *m = &st->smcr;
	fprintf(out, "  smcr enable=%s mtu=%u fixedmemory=%s rmbsize=%s sndbufsize=%s v2=%s", m->enable ? "yes" : "no",
	        m->mtu, scn_format_size(m->fixedmemory, a, sizeof(a)), scn_format_size(m->rmbsize, b, sizeof(b)),
	        scn_format_size(m->sndbufsize, c, sizeof(c)), m->v2 ? "yes" : "no");
	for (unsigned i = 0; i < m->n_ueids; i++)
		fprintf(out, "%s%s", i ? "," : " ueid=", m->ueids[i]);
	fprintf(out, " keepalive=%s testlink=%s maxlinks=%u maxconns=%u release=%u",
	        scn_format_duration(m->keepalive_ns, a, sizeof(a)), scn_format_duration(m->testlink_ns, d, sizeof(d)),
	        m->maxlinks, m->maxconns, m->release);
	fprintf(out, " autocork=%s limiths=%s hsqueue=%u\n", scn_format_size(m->autocork, a, sizeof(a)),
	        m->limiths ? "yes" : "no", m->hsqueue);
	for (size_t i = 0; i < st->n_smcr_ports; i++)
		fprintf(out, "  smcr pfid=%04X port=%u mtu=%u\n", st->smcr_ports[i].pfid, st->smcr_ports[i].port,
		        st->smcr_ports[i].mtu);
	if (st->tcp_sndbuf || st->tcp_rcvbuf) {
		fputs("  tcp", out);
		if (st->tcp_sndbuf)
			fprintf(out, " sndbuf=%s", scn_format_size(st->tcp_sndbuf, a, sizeof(a)));
		if (st->tcp_rcvbuf)
			fprintf(out, " rcvbuf=%s", scn_format_size(st->tcp_rcvbuf, b, sizeof(b)));
		fputc('\n', out);
	}
	dump_host(&st->host, out);
	fprintf(out, "end\n");
}

static void dump_app(const scn_scenario *scn, const scn_app *app, FILE *out)
{
	char a[SCN_FMT_LEN], b[SCN_FMT_LEN], c[SCN_FMT_LEN];
	fprintf(out, "app %s %s ", app->name, scn->stacks[app->stack].name);
	if (app->role == SCN_ROLE_LISTEN) {
		fprintf(out, "listen port=%u kind=%s", app->port, scn_kind_name(app->kind));
	} else {
		const scn_stack *dst = &scn->stacks[app->dst_stack];
		switch (app->ep_form) {
		case SCN_EP_STACK: fprintf(out, "connect %s:%u", dst->name, app->port); break;
		case SCN_EP_IFACE: fprintf(out, "connect %s.%s:%u", dst->name, dst->ifaces[app->dst_iface].name, app->port); break;
		case SCN_EP_IP: fprintf(out, "connect %s:%u", addr_text_ipv4(app->dst_ip, a, sizeof(a)), app->port); break;
		}
		fprintf(out, " kind=%s", scn_kind_name(app->kind));
		if (app->kind == SCN_KIND_RR || app->kind == SCN_KIND_CRR) {
			fprintf(out, " request=%s response=%s", scn_format_size(app->request, a, sizeof(a)),
			        scn_format_size(app->response, b, sizeof(b)));
			if (!app->duration_ns)
				fprintf(out, " count=%llu", (unsigned long long)app->count);
			if (app->think_ns)
				fprintf(out, " think=%s", scn_format_duration(app->think_ns, a, sizeof(a)));
		} else if (!app->duration_ns) {
			fprintf(out, " bytes=%s", scn_format_size(app->bytes, a, sizeof(a)));
		}
		if (app->duration_ns)
			fprintf(out, " duration=%s", scn_format_duration(app->duration_ns, a, sizeof(a)));
		fprintf(out, " conns=%u interval=%s", app->conns, scn_format_duration(app->interval_ns, c, sizeof(c)));
		switch (app->close) {
		case SCN_CLOSE_AFTER: fputs(" close=after", out); break;
		case SCN_CLOSE_NEVER: fputs(" close=never", out); break;
		case SCN_CLOSE_AT: fprintf(out, " close=%s", scn_format_duration(app->close_at_ns, a, sizeof(a))); break;
		}
	}
	if (app->start_never)
		fputs(" start=never", out);
	else
		fprintf(out, " start=%s", scn_format_duration(app->start_ns, a, sizeof(a)));
	fprintf(out, " smc=%s cork=%s more=%s nodelay=%s", app->smc ? "yes" : "no", app->cork ? "yes" : "no",
	        app->more ? "yes" : "no", app->nodelay ? "yes" : "no");
	if (app->write)
		fprintf(out, " write=%s", scn_format_size(app->write, a, sizeof(a)));
	if (app->cpu)
		fprintf(out, " cpu=%u", app->cpu - 1);
	if (app->work_ns)
		fprintf(out, " work=%s", scn_format_duration(app->work_ns, a, sizeof(a)));
	if (app->role == SCN_ROLE_LISTEN && app->limiths >= 0)
		fprintf(out, " limiths=%s", app->limiths ? "yes" : "no");
	fputc('\n', out);
}

static void dump_report_attrs(const scn_scenario *scn, const scn_report *r, FILE *out)
{
	fprintf(out, "report format=%s", scn_report_format_name(r->format));
	if (r->stack != SCN_NONE)
		fprintf(out, " stack=%s", scn->stacks[r->stack].name);
	if (r->has_smcid)
		fprintf(out, " smcid=%08X", r->smcid);
	fputc('\n', out);
}

static void dump_event(const scn_scenario *scn, const scn_event *ev, FILE *out)
{
	char t[SCN_FMT_LEN], a[SCN_FMT_LEN];
	fprintf(out, "at %s ", scn_format_duration(ev->at_ns, t, sizeof(t)));
	const char *verb = "";
	switch (ev->kind) {
	case SCN_EV_FAIL: verb = "fail"; break;
	case SCN_EV_RESTORE: verb = "restore"; break;
	case SCN_EV_SET: verb = "set"; break;
	case SCN_EV_START_APP: fprintf(out, "start app %s\n", scn->apps[ev->target].name); return;
	case SCN_EV_STOP_APP: fprintf(out, "stop app %s\n", scn->apps[ev->target].name); return;
	case SCN_EV_REPORT: dump_report_attrs(scn, &ev->report, out); return;
	case SCN_EV_EXPECT: {
		char buf[512];
		fprintf(out, "%s\n", scn_format_expect(scn, &scn->expects[ev->expect], buf, sizeof(buf)));
		return;
	}
	}
	switch (ev->target_kind) {
	case SCN_TGT_ADAPTER: fprintf(out, "%s adapter %s", verb, scn->adapters[ev->target].name); break;
	case SCN_TGT_WIRE: fprintf(out, "%s wire %s", verb, scn->wires[ev->target].name); break;
	case SCN_TGT_SWITCH: fprintf(out, "%s switch %s", verb, scn->switches[ev->target].name); break;
	case SCN_TGT_INTERFACE:
		fprintf(out, "%s interface %s.%s", verb, scn->stacks[ev->stack].name,
		        scn->stacks[ev->stack].ifaces[ev->target].name);
		break;
	case SCN_TGT_APP:
	case SCN_TGT_NONE:
		break;
	}
	if (ev->kind == SCN_EV_SET) {
		if (ev->set_mask & SCN_SET_LATENCY)
			fprintf(out, " latency=%s", scn_format_duration(ev->set.latency_ns, a, sizeof(a)));
		if (ev->set_mask & SCN_SET_BANDWIDTH)
			fprintf(out, " bandwidth=%s", scn_format_rate(ev->set.bandwidth_bps, a, sizeof(a)));
		if (ev->set_mask & SCN_SET_LOSS)
			fprintf(out, " loss=%s", scn_format_ratio(ev->set.loss, a, sizeof(a)));
		if (ev->set_mask & SCN_SET_DUP)
			fprintf(out, " dup=%s", scn_format_ratio(ev->set.dup, a, sizeof(a)));
		if (ev->set_mask & SCN_SET_REORDER)
			fprintf(out, " reorder=%s", scn_format_ratio(ev->set.reorder, a, sizeof(a)));
		if (ev->set_mask & SCN_SET_CORRUPT)
			fprintf(out, " corrupt=%s", scn_format_ratio(ev->set.corrupt, a, sizeof(a)));
	}
	if (ev->port)
		fprintf(out, " port=%u", ev->port);
	fputc('\n', out);
}

void scn_dump(const scn_scenario *scn, FILE *out)
{
	char a[SCN_FMT_LEN];
	if (scn->title[0]) {
		fputs("scenario ", out);
		put_quoted(out, scn->title);
		fputc('\n', out);
	}
	if (scn->has_seed)
		fprintf(out, "seed %llu\n", (unsigned long long)scn->seed);
	if (scn->has_end)
		fprintf(out, "end %s\n", scn_format_duration(scn->end_ns, a, sizeof(a)));
	/* the parameters with their resolved values; what used them is expanded below */
	for (size_t i = 0; i < scn->n_params; i++) {
		const scn_param *p = &scn->params[i];
		fprintf(out, "param %s=", p->name);
		bool plain = *p->value && !strpbrk(p->value, " \t\"\\#{}");
		if (plain)
			fputs(p->value, out);
		else
			put_quoted(out, p->value);
		fprintf(out, " type=%s\n", scn_param_kind_name(p->kind));
	}
	if (scn->n_switches || scn->n_wires)
		fputc('\n', out);
	for (size_t i = 0; i < scn->n_switches; i++) {
		fprintf(out, "switch %s", scn->switches[i].name);
		put_vlans(out, &scn->switches[i].vlans);
		fputc('\n', out);
	}
	for (size_t i = 0; i < scn->n_wires; i++) {
		const scn_wire *w = &scn->wires[i];
		fprintf(out, "wire %s %s %s", w->name, scn->switches[w->sw_a].name, scn->switches[w->sw_b].name);
		put_link(out, &w->link, true);
		put_vlans(out, &w->vlans);
		fputc('\n', out);
	}
	if (scn->n_adapters)
		fputc('\n', out);
	for (size_t i = 0; i < scn->n_adapters; i++) {
		const scn_adapter *ad = &scn->adapters[i];
		fprintf(out, "adapter %s pfid=%04X ports=%u switch=%s", ad->name, ad->pfid, ad->n_ports,
		        scn->switches[ad->port[0].sw].name);
		if (ad->n_ports == 2)
			fprintf(out, " switch2=%s", scn->switches[ad->port[1].sw].name);
		for (uint8_t p = 0; p < ad->n_ports; p++) {
			fprintf(out, " %s=%s", p ? "mac2" : "mac", addr_text_mac(ad->port[p].mac, a, sizeof(a)));
			if (ad->port[p].pnetid[0])
				fprintf(out, " %s=%s", p ? "pnetid2" : "pnetid", ad->port[p].pnetid);
		}
		fprintf(out, " mtu=%u roce=%s", ad->mtu, roce_name(ad->roce));
		put_link(out, &ad->link, false);
		put_adapter_cc(out, &ad->cc);
		fputc('\n', out);
	}
	for (size_t i = 0; i < scn->n_stacks; i++) {
		fputc('\n', out);
		dump_stack(scn, &scn->stacks[i], out);
	}
	if (scn->n_apps)
		fputc('\n', out);
	for (size_t i = 0; i < scn->n_apps; i++)
		dump_app(scn, &scn->apps[i], out);
	if (scn->n_events)
		fputc('\n', out);
	for (size_t i = 0; i < scn->n_events; i++)
		dump_event(scn, &scn->events[i], out);
	bool any = false;
	for (size_t i = 0; i < scn->n_expects; i++) {
		if (scn->expects[i].timed)
			continue;
		if (!any)
			fputc('\n', out);
		any = true;
		char buf[512];
		fprintf(out, "%s\n", scn_format_expect(scn, &scn->expects[i], buf, sizeof(buf)));
	}
	if (scn->n_reports)
		fputc('\n', out);
	for (size_t i = 0; i < scn->n_reports; i++)
		dump_report_attrs(scn, &scn->reports[i], out);
}
