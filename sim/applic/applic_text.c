/* The applicability result as text (see applic.h). */
#include <arpa/inet.h>
#include <inttypes.h>
#include <string.h>

#include "sim/addr/addr_text.h"
#include "sim/applic/applic.h"

static void ip_text(uint8_t family, const uint8_t *ip, char *out, size_t n)
{
	if (!family || !inet_ntop(family == 4 ? AF_INET : AF_INET6, ip, out, (socklen_t)n))
		snprintf(out, n, "(other destinations)");
}

/* "82.4%" of a ratio, "-" without a total; integer arithmetic, one decimal */
static void pct(uint64_t part, uint64_t whole, char *out, size_t n)
{
	if (!whole) {
		snprintf(out, n, "-");
		return;
	}
	uint64_t t = (uint64_t)(((unsigned __int128)part * 1000 + whole / 2) / whole);
	snprintf(out, n, "%" PRIu64 ".%" PRIu64 "%%", t / 10, t % 10);
}

static void dur(uint64_t ns, char *out, size_t n)
{
	if (ns >= 1000000000ull)
		snprintf(out, n, "%" PRIu64 ".%03" PRIu64 " s", ns / 1000000000u, ns % 1000000000u / 1000000u);
	else if (ns >= 1000000ull)
		snprintf(out, n, "%" PRIu64 ".%03" PRIu64 " ms", ns / 1000000u, ns % 1000000u / 1000u);
	else
		snprintf(out, n, "%" PRIu64 ".%01" PRIu64 " us", ns / 1000u, ns % 1000u / 100u);
}

static void rate(uint64_t bps, char *out, size_t n)
{
	if (bps >= 1000000000ull)
		snprintf(out, n, "%" PRIu64 ".%02" PRIu64 " Gb/s", bps / 1000000000u, bps % 1000000000u / 10000000u);
	else if (bps >= 1000000ull)
		snprintf(out, n, "%" PRIu64 ".%02" PRIu64 " Mb/s", bps / 1000000u, bps % 1000000u / 10000u);
	else
		snprintf(out, n, "%" PRIu64 " kb/s", bps / 1000u);
}

static void figures_row(FILE *out, const char *who, const applic_figures *f)
{
	char e[32], w[32], s[32];
	pct(f->eligible, f->conns, e, sizeof(e));
	pct(f->well_suited, f->eligible, w, sizeof(w));
	pct(f->segments_well_suited, f->segments, s, sizeof(s));
	fprintf(out, "%-40s %9" PRIu64 " %9s %12s %12s %12" PRIu64 "\n", who, f->conns, e, w, s, f->segments);
}

static void print_capture(FILE *out, const applic_result *r, const char *name)
{
	char span[32];
	dur(r->last_ns > r->first_ns ? r->last_ns - r->first_ns : 0, span, sizeof(span));
	fprintf(out, "applicability of %s\n", name);
	fprintf(out, "  capture: %" PRIu64 " frames over %s, %" PRIu64 " TCP segments, %" PRIu64 " frames not TCP, %" PRIu64
	             " malformed\n",
	        r->frames, span, r->tcp_segments, r->not_tcp, r->bad_frames);
	fprintf(out, "  set-up: %s\n", r->setup_said);
	char sh[32];
	dur(r->o.short_ns, sh, sizeof(sh));
	fprintf(out, "  well-suited: eligible and not both short-lived (under %s) and small (under %" PRIu64
	             " bytes both ways); these thresholds are assumed (--short, --small): SMCAT's own are not published\n",
	        sh, r->o.small_bytes);
	if (r->local_known) {
		char ip[64];
		ip_text(r->local_family, r->local_ip, ip, sizeof(ip));
		fprintf(out, "  the capturing host: %s (destinations are the other ends, sends are its)\n", ip);
	} else {
		fprintf(out, "  destinations: the servers (--local names the capturing host); sends: the clients'\n");
	}
	if (r->conns_no_syn || r->conns_one_way || r->stray_segments || r->evicted || r->time_gaps || r->out_of_order ||
	    r->resyncs || r->damaged)
		fprintf(out, "  partial: %" PRIu64 " connections without their start, %" PRIu64 " seen one way only, %" PRIu64
		             " segments of connections without start or data, %" PRIu64 " folded early (over --max-open at once), %"
		             PRIu64 " time stamp jumps closed, %" PRIu64 " steps back in time, %" PRIu64 " sequence jumps%s\n",
		        r->conns_no_syn, r->conns_one_way, r->stray_segments, r->evicted, r->time_gaps, r->out_of_order, r->resyncs,
		        r->damaged ? ", the file ends damaged" : "");
}

static void print_sizes(FILE *out, const applic_figures *f)
{
	fprintf(out, "\napplication send and receive sizes of the well-suited connections (bytes):\n  %-9s", "");
	for (unsigned i = 0; i < APPLIC_SIZES; i++)
		fprintf(out, " %9s", applic_size_names[i]);
	fputc('\n', out);
	const uint64_t *rows[2] = { f->sends, f->recvs };
	for (int k = 0; k < 2; k++) {
		uint64_t sum = 0;
		for (unsigned i = 0; i < APPLIC_SIZES; i++)
			sum += rows[k][i];
		fprintf(out, "  %-9s", k ? "receives" : "sends");
		for (unsigned i = 0; i < APPLIC_SIZES; i++) {
			char p[32];
			pct(rows[k][i], sum, p, sizeof(p));
			fprintf(out, " %9s", p);
		}
		fprintf(out, "   (%" PRIu64 ")\n", sum);
	}
}

static void print_smcat(FILE *out, const applic_result *r)
{
	fprintf(out, "\nSMC Applicability Tool figures (SMCAT):\n");
	fprintf(out, "%-40s %9s %9s %12s %12s %12s\n", "destination", "conns", "eligible", "well-suited", "seg. share",
	        "segments");
	char ip[64];
	for (size_t i = 0; i < r->n_dests; i++) {
		ip_text(r->dests[i].family, r->dests[i].ip, ip, sizeof(ip));
		figures_row(out, ip, &r->dests[i].f);
	}
	figures_row(out, "total", &r->total);
	fprintf(out, "(eligible: of all connections; well-suited: of the eligible; seg. share: segments on well-suited "
	             "connections of all segments)\n");
	uint64_t ne = r->total.conns - r->total.eligible;
	if (ne) {
		fprintf(out, "not eligible: %" PRIu64 " connections:", ne);
		for (unsigned i = 0; i < APPLIC_INELIG_N; i++)
			if (r->total.not_eligible[i])
				fprintf(out, " %s %" PRIu64 ";", applic_inelig_text((applic_inelig)i), r->total.not_eligible[i]);
		fputc('\n', out);
	}
	print_sizes(out, &r->total);
}

static void meas_cells(const applic_meas *m, char *out, size_t n)
{
	char lat[24], p99[24], tp[24], cpu[24];
	dur(m->lat_mean_ns, lat, sizeof(lat));
	dur(m->lat_p99_ns, p99, sizeof(p99));
	rate(m->throughput_bps, tp, sizeof(tp));
	dur(m->cpu_ns, cpu, sizeof(cpu));
	snprintf(out, n, "%s %10s %10s %12s %10s", m->done ? (m->smc ? "SMC-R" : "TCP  ") : "open ", m->exchanges ? lat : "-",
	         m->exchanges ? p99 : "-", tp, cpu);
}

static const char *role(const applic_rerun_host *h)
{
	return h->client && h->server ? "both" : h->server ? "server" : "client";
}

/* "linux (default)", "zos,cpus=8 (--server-host)", "zos (scenario stack ZOSA)" */
static void choice(const applic_rerun_host *h, char *out, size_t n)
{
	if (!strcmp(h->from, "scenario"))
		snprintf(out, n, "%s (scenario stack %s)", h->spec, h->stack);
	else
		snprintf(out, n, "%s (%s)", h->spec, h->from);
}

/* "clients linux (default), servers zos (--server-host)"; "several" where hosts of one end differ */
static void hosts_said(const applic_result *r, char *out, size_t n)
{
	char side[2][640];
	for (int k = 0; k < 2; k++) {
		side[k][0] = 0;
		for (size_t i = 0; i < r->n_hosts; i++) {
			const applic_rerun_host *h = &r->hosts[i];
			if ((k == 1) != h->server)
				continue;
			char c[640];
			choice(h, c, sizeof(c));
			if (!side[k][0])
				snprintf(side[k], sizeof(side[k]), "%s", c);
			else if (strcmp(side[k], c))
				snprintf(side[k], sizeof(side[k]), "several (below)");
		}
	}
	snprintf(out, n, "clients %s, servers %s", side[0][0] ? side[0] : "-", side[1][0] ? side[1] : "-");
}

static void ppm(uint64_t v, char *out, size_t n)
{
	snprintf(out, n, "%" PRIu64 ".%" PRIu64 "%%", v / 10000, v % 10000 / 1000);
}

static void print_hosts(FILE *out, const applic_result *r)
{
	fprintf(out, "\nhosts of the re-run (their own CPU time; util: of all their CPUs over the makespan; busiest: their "
	             "busiest CPU):\n");
	fprintf(out, "%-40s %-6s %5s %-34s | %10s %6s %7s | %10s %6s %7s\n", "host (simulated as)", "end", "conns",
	        "profile (from)", "TCP CPU", "util", "busiest", "SMC-R CPU", "util", "busiest");
	for (size_t i = 0; i < r->n_hosts; i++) {
		const applic_rerun_host *h = &r->hosts[i];
		char ip[64], sim[ADDR_TEXT_IPV4_LEN], who[96], c[640], cells[2][128];
		ip_text(h->family, h->ip, ip, sizeof(ip));
		addr_text_ipv4(h->sim_ip, sim, sizeof(sim));
		snprintf(who, sizeof(who), "%s (%s)", ip, sim);
		choice(h, c, sizeof(c));
		const applic_host_cpu *hc[2] = { &h->tcp, &h->smcr };
		for (int k = 0; k < 2; k++) {
			char t[24], u[32], b[32];
			dur(hc[k]->cpu_ns, t, sizeof(t));
			ppm(hc[k]->util_ppm, u, sizeof(u));
			ppm(hc[k]->busiest_ppm, b, sizeof(b));
			snprintf(cells[k], sizeof(cells[k]), "%10s %6s %7s", t, u, b);
		}
		fprintf(out, "%-40.40s %-6s %5" PRIu64 " %-34s | %s | %s\n", who, role(h), h->conns, c, cells[0], cells[1]);
	}
}

static void print_totals(FILE *out, const applic_result *r)
{
	const applic_rerun_totals *t[2] = { &r->tcp, &r->smcr };
	for (int k = 0; k < 2; k++) {
		char lat[32], p50[32], p99[32], tp[32], span[32], cpu[32];
		dur(t[k]->lat_mean_ns, lat, sizeof(lat));
		dur(t[k]->lat_p50_ns, p50, sizeof(p50));
		dur(t[k]->lat_p99_ns, p99, sizeof(p99));
		rate(t[k]->throughput_bps, tp, sizeof(tp));
		dur(t[k]->makespan_ns, span, sizeof(span));
		dur(t[k]->cpu_ns, cpu, sizeof(cpu));
		fprintf(out, "total over %-5s: %" PRIu64 "/%" PRIu64 " connections done (%" PRIu64 " on SMC-R), %" PRIu64
		             " exchanges: latency mean %s, p50 %s, p99 %s; %s in %s; CPU %s\n",
		        k ? "SMC-R" : "TCP", t[k]->done, t[k]->conns, t[k]->smc, t[k]->exchanges, lat, p50, p99, tp, span, cpu);
	}
	for (int k = 0; k < 2; k++) {
		char cpu[32], per[32], mib[32];
		dur(t[k]->cpu_ns, cpu, sizeof(cpu));
		dur(t[k]->cpu_per_exchange_ns, per, sizeof(per));
		dur(t[k]->cpu_per_mib_ns, mib, sizeof(mib));
		fprintf(out, "CPU over %-5s: %s:", k ? "SMC-R" : "TCP", cpu);
		for (unsigned c = 0; c < APPLIC_CPU_NCATS; c++) {
			char v[32];
			dur(t[k]->cpu_cat_ns[c], v, sizeof(v));
			fprintf(out, "%s %s %s", c ? "," : "", applic_cpu_names[c], v);
		}
		fprintf(out, "; %s an exchange, %s a MiB\n", t[k]->exchanges ? per : "-", t[k]->bytes ? mib : "-");
	}
}

static void print_rerun(FILE *out, const applic_result *r)
{
	if (!r->n_rerun)
		return;
	fprintf(out, "\nre-run in the simulator: %zu eligible connections (%" PRIu64 " more not re-run: --rerun, --rerun-bytes), "
	             "over TCP and over SMC-R\n",
	        r->n_rerun, r->rerun_skipped);
	char said[1400];
	hosts_said(r, said, sizeof(said));
	fprintf(out, "  hosts: %s; chosen with --client-host, --server-host (the profiles: docs/hosts.md)\n", said);
	if (r->rerun_note[0])
		fprintf(out, "  note: %s\n", r->rerun_note);
	fprintf(out, "%-6s %-46s %9s %10s | %-5s %10s %10s %12s %10s | %-5s %10s %10s %12s %10s\n", "conn", "client > server",
	        "exch.", "recorded", "TCP", "mean", "p99", "throughput", "CPU", "SMC-R", "mean", "p99", "throughput", "CPU");
	for (size_t i = 0; i < r->n_rerun; i++) {
		const applic_rerun_conn *c = &r->rerun[i];
		char a[64], b[64], ends[160], rec[32], tcp[120], smc[120];
		ip_text(c->family, c->client, a, sizeof(a));
		ip_text(c->family, c->server, b, sizeof(b));
		snprintf(ends, sizeof(ends), "%s:%u > %s:%u%s", a, (unsigned)c->cport, b, (unsigned)c->sport, c->truncated ? " (cut)" : "");
		dur(c->rec_lat_mean_ns, rec, sizeof(rec));
		meas_cells(&c->tcp, tcp, sizeof(tcp));
		meas_cells(&c->smcr, smc, sizeof(smc));
		fprintf(out, "#%-5" PRIu32 " %-46.46s %9" PRIu64 " %10s | %s | %s\n", c->id, ends, c->rec_exchanges,
		        c->rec_exchanges ? rec : "-", tcp, smc);
	}
	print_totals(out, r);
	print_hosts(out, r);
	fprintf(out, "(CPU: a host's is the host model's own account; a connection's is its share: what each of its two hosts "
	             "spent up to each of its steps since the host's step before, docs/applicability.md)\n");
}

void applic_print_text(FILE *out, const applic_result *r, const char *name)
{
	print_capture(out, r, name);
	print_smcat(out, r);
	print_rerun(out, r);
	if (r->n_notes) {
		fprintf(out, "\nnotes (%" PRIu64 "):\n", r->notes_total);
		for (size_t i = 0; i < r->n_notes; i++) {
			if (r->notes[i].frame)
				fprintf(out, "  frame %" PRIu64 ": %s\n", r->notes[i].frame, r->notes[i].text);
			else
				fprintf(out, "  %s\n", r->notes[i].text);
		}
		if (r->notes_total > r->n_notes)
			fprintf(out, "  ... %" PRIu64 " more\n", r->notes_total - r->n_notes);
	}
}
