/* The applicability result as a picture: per destination (the first 20) and in total, the
 * three SMCAT shares as bars; below, for the re-run connections (the first 20), the
 * latency of each over TCP and over SMC-R side by side and, beside it, its CPU time; then
 * each host's CPU time (the first 20) over TCP and over SMC-R, by category. Elements carry
 * classes a test can count: dest, bar-eligible, bar-suited, bar-segments, conn, lat-tcp,
 * lat-smcr, cpu-tcp, cpu-smcr, host, host-tcp, host-smcr and cat-app, cat-tcpip, cat-smcr,
 * cat-irq (a host bar's parts); every bar's tooltip (its group's title) has its figures. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <string.h>

#include "sim/applic/applic.h"
#include "sim/observe/svg.h"

#define MAX_ROWS 20
#define BAR_W 300.0
#define CPU_X 620.0 /* the CPU bars of the connections */
#define CPU_W 260.0
#define WIDTH 960.0

static const char *style =
        "text{font:12px sans-serif;fill:#222}.head{font-weight:bold}.axis{stroke:#999;stroke-width:1}"
        ".bar-eligible{fill:#4a7fb5}.bar-suited{fill:#6bb36b}.bar-segments{fill:#d9a13b}"
        ".lat-tcp{fill:#b55a4a}.lat-smcr{fill:#4ab58f}.cpu-tcp{fill:#8c4a3e}.cpu-smcr{fill:#3e8c70}"
        ".cat-app{fill:#9a9a9a}.cat-tcpip{fill:#b55a4a}.cat-smcr{fill:#4ab58f}.cat-irq{fill:#d9a13b}";

static void name_of(uint8_t family, const uint8_t *ip, char *out, size_t n)
{
	if (!family || !inet_ntop(family == 4 ? AF_INET : AF_INET6, ip, out, (socklen_t)n))
		snprintf(out, n, "(other destinations)");
}

static double share(uint64_t part, uint64_t whole) { return whole ? (double)part / (double)whole : 0; }

static void shares_row(svg *s, double y, const char *who, const applic_figures *f)
{
	char tip[160];
	snprintf(tip, sizeof(tip), "%s: %" PRIu64 " connections, %" PRIu64 " eligible, %" PRIu64 " well-suited", who, f->conns,
	         f->eligible, f->well_suited);
	svg_group(s, "dest", tip);
	svg_text(s, 10, y + 22, NULL, "start", "%s", who);
	double v[3] = { share(f->eligible, f->conns), share(f->well_suited, f->eligible),
		        share(f->segments_well_suited, f->segments) };
	const char *cls[3] = { "bar-eligible", "bar-suited", "bar-segments" };
	for (int k = 0; k < 3; k++) {
		svg_rect(s, 260, y + 4 + k * 9, v[k] * BAR_W + 0.5, 8, cls[k]);
		svg_text(s, 260 + v[k] * BAR_W + 6, y + 12 + k * 9, NULL, "start", "%.1f%%", v[k] * 100);
	}
	svg_group_end(s);
}

static void latency_rows(svg *s, double y0, const applic_result *r, size_t rows)
{
	uint64_t top = 1, ctop = 1;
	for (size_t i = 0; i < rows; i++) {
		const applic_rerun_conn *c = &r->rerun[i];
		top = c->tcp.lat_mean_ns > top ? c->tcp.lat_mean_ns : top;
		top = c->smcr.lat_mean_ns > top ? c->smcr.lat_mean_ns : top;
		ctop = c->tcp.cpu_ns > ctop ? c->tcp.cpu_ns : ctop;
		ctop = c->smcr.cpu_ns > ctop ? c->smcr.cpu_ns : ctop;
	}
	svg_text(s, 10, y0, "head", "start", "re-run: mean request/response latency, TCP (top) and SMC-R (bottom), scale %" PRIu64 " us",
	         top / 1000);
	svg_text(s, CPU_X, y0, "head", "start", "its CPU time (both hosts), scale %" PRIu64 " us", ctop / 1000);
	for (size_t i = 0; i < rows; i++) {
		const applic_rerun_conn *c = &r->rerun[i];
		double y = y0 + 10 + (double)i * 30;
		char a[64], tip[300];
		name_of(c->family, c->server, a, sizeof(a));
		snprintf(tip, sizeof(tip), "connection #%" PRIu32 " to %s:%u: latency TCP %" PRIu64 " ns, SMC-R %" PRIu64
		         " ns; CPU TCP %" PRIu64 " ns, SMC-R %" PRIu64 " ns",
		         c->id, a, (unsigned)c->sport, c->tcp.lat_mean_ns, c->smcr.lat_mean_ns, c->tcp.cpu_ns, c->smcr.cpu_ns);
		svg_group(s, "conn", tip);
		svg_text(s, 10, y + 18, NULL, "start", "#%" PRIu32 " %s:%u", c->id, a, (unsigned)c->sport);
		svg_rect(s, 260, y + 4, (double)c->tcp.lat_mean_ns / (double)top * BAR_W + 0.5, 10, "lat-tcp");
		svg_rect(s, 260, y + 15, (double)c->smcr.lat_mean_ns / (double)top * BAR_W + 0.5, 10, "lat-smcr");
		svg_rect(s, CPU_X, y + 4, (double)c->tcp.cpu_ns / (double)ctop * CPU_W + 0.5, 10, "cpu-tcp");
		svg_rect(s, CPU_X, y + 15, (double)c->smcr.cpu_ns / (double)ctop * CPU_W + 0.5, 10, "cpu-smcr");
		svg_group_end(s);
	}
}

/* one run's bar of a host: its CPU time by category, end to end */
static void host_bar(svg *s, double y, const applic_host_cpu *c, uint64_t top, const char *cls)
{
	static const char *cats[APPLIC_CPU_NCATS] = { "cat-app", "cat-tcpip", "cat-smcr", "cat-irq" };
	double x = 260;
	svg_rect(s, x, y, (double)c->cpu_ns / (double)top * BAR_W + 0.5, 10, cls);
	for (unsigned k = 0; k < APPLIC_CPU_NCATS; k++) {
		double w = (double)c->cpu_cat_ns[k] / (double)top * BAR_W;
		svg_rect(s, x, y, w, 10, cats[k]);
		x += w;
	}
	svg_text(s, 260 + (double)c->cpu_ns / (double)top * BAR_W + 6, y + 9, NULL, "start", "%" PRIu64 ".%01" PRIu64 " us",
	         c->cpu_ns / 1000, c->cpu_ns % 1000 / 100);
}

static void host_rows(svg *s, double y0, const applic_result *r, size_t rows)
{
	uint64_t top = 1;
	for (size_t i = 0; i < rows; i++) {
		top = r->hosts[i].tcp.cpu_ns > top ? r->hosts[i].tcp.cpu_ns : top;
		top = r->hosts[i].smcr.cpu_ns > top ? r->hosts[i].smcr.cpu_ns : top;
	}
	svg_text(s, 10, y0, "head", "start", "hosts: CPU time over TCP (top) and SMC-R (bottom): application (grey), TCP/IP (red), "
	                                     "SMC-R (green), interrupts (orange)");
	for (size_t i = 0; i < rows; i++) {
		const applic_rerun_host *h = &r->hosts[i];
		double y = y0 + 10 + (double)i * 30;
		char a[64], tip[APPLIC_HOST_SPEC_LEN + 200];
		name_of(h->family, h->ip, a, sizeof(a));
		snprintf(tip, sizeof(tip), "host %s (%s, %s): CPU TCP %" PRIu64 " ns, SMC-R %" PRIu64 " ns", a, h->spec,
		         h->server ? "server" : "client", h->tcp.cpu_ns, h->smcr.cpu_ns);
		svg_group(s, "host", tip);
		svg_text(s, 10, y + 18, NULL, "start", "%s (%.40s)", a, h->spec);
		host_bar(s, y + 4, &h->tcp, top, "host-tcp");
		host_bar(s, y + 15, &h->smcr, top, "host-smcr");
		svg_group_end(s);
	}
}

void applic_print_svg(FILE *out, const applic_result *r, const char *name)
{
	size_t dests = r->n_dests < MAX_ROWS ? r->n_dests : MAX_ROWS;
	size_t conns = r->n_rerun < MAX_ROWS ? r->n_rerun : MAX_ROWS;
	size_t hosts = r->n_hosts < MAX_ROWS ? r->n_hosts : MAX_ROWS;
	double h = 80 + (double)(dests + 1) * 34 + (conns ? 40 + (double)conns * 30 : 0) +
	           (hosts ? 40 + (double)hosts * 30 : 0) + 20;
	svg s;
	char title[300];
	snprintf(title, sizeof(title), "SMC-R applicability of %s", name);
	svg_begin(&s, out, WIDTH, h, title, style);
	svg_text(&s, 10, 20, "head", "start", "%s", title);
	svg_text(&s, 10, 40, NULL, "start", "bars: eligible of all connections (blue), well-suited of the eligible (green), "
	                                     "segments on well-suited of all (orange)");
	double y = 50;
	char who[64];
	for (size_t i = 0; i < dests; i++, y += 34) {
		name_of(r->dests[i].family, r->dests[i].ip, who, sizeof(who));
		shares_row(&s, y, who, &r->dests[i].f);
	}
	shares_row(&s, y, "total", &r->total);
	y += 54;
	if (conns) {
		latency_rows(&s, y, r, conns);
		y += 40 + (double)conns * 30;
	}
	if (hosts)
		host_rows(&s, y, r, hosts);
	svg_end(&s);
}
