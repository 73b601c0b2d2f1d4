/* The applicability result as JSON (docs/schema/applicability.schema.json). */
#include <arpa/inet.h>
#include <string.h>

#include "sim/addr/addr_text.h"
#include "sim/applic/applic.h"
#include "sim/report/json_writer.h"

static void kv_ip(json_writer *w, const char *key, uint8_t family, const uint8_t *ip)
{
	char buf[64];
	if (!family || !inet_ntop(family == 4 ? AF_INET : AF_INET6, ip, buf, sizeof(buf)))
		json_kv_str(w, key, NULL);
	else
		json_kv_str(w, key, buf);
}

static void sizes(json_writer *w, const char *key, const uint64_t *v)
{
	json_key(w, key);
	json_begin_object(w);
	for (unsigned i = 0; i < APPLIC_SIZES; i++)
		json_kv_uint(w, applic_size_names[i], v[i]);
	json_end_object(w);
}

static void figures(json_writer *w, const applic_figures *f)
{
	json_kv_uint(w, "connections", f->conns);
	json_kv_uint(w, "eligible", f->eligible);
	json_kv_uint(w, "well_suited", f->well_suited);
	json_kv_uint(w, "segments", f->segments);
	json_kv_uint(w, "segments_well_suited", f->segments_well_suited);
	json_kv_uint(w, "bytes", f->bytes);
	json_kv_uint(w, "bytes_well_suited", f->bytes_well_suited);
	sizes(w, "sends", f->sends);
	sizes(w, "receives", f->recvs);
	json_key(w, "not_eligible");
	json_begin_object(w);
	static const char *keys[APPLIC_INELIG_N] = { "no_smcr", "subnet", "vlan", "pnetid" };
	for (unsigned i = 0; i < APPLIC_INELIG_N; i++)
		json_kv_uint(w, keys[i], f->not_eligible[i]);
	json_end_object(w);
}

static void capture(json_writer *w, const applic_result *r, const char *name)
{
	json_key(w, "capture");
	json_begin_object(w);
	json_kv_str(w, "file", name);
	json_kv_uint(w, "linktype", (uint64_t)r->linktype);
	json_kv_uint(w, "frames", r->frames);
	json_kv_uint(w, "tcp_segments", r->tcp_segments);
	json_kv_uint(w, "not_tcp", r->not_tcp);
	json_kv_uint(w, "malformed", r->bad_frames);
	json_kv_uint(w, "span_ns", r->last_ns > r->first_ns ? r->last_ns - r->first_ns : 0);
	json_kv_uint(w, "time_gaps", r->time_gaps);
	json_kv_uint(w, "out_of_order", r->out_of_order);
	json_kv_uint(w, "connections_without_start", r->conns_no_syn);
	json_kv_uint(w, "connections_one_way", r->conns_one_way);
	json_kv_uint(w, "stray_segments", r->stray_segments);
	json_kv_uint(w, "folded_early", r->evicted);
	json_kv_uint(w, "sequence_jumps", r->resyncs);
	json_kv_bool(w, "damaged", r->damaged);
	json_kv_uint(w, "notes_total", r->notes_total);
	json_key(w, "notes");
	json_begin_array(w);
	for (size_t i = 0; i < r->n_notes; i++) {
		json_begin_object(w);
		json_kv_uint(w, "frame", r->notes[i].frame);
		json_kv_str(w, "text", r->notes[i].text);
		json_end_object(w);
	}
	json_end_array(w);
	json_end_object(w);
}

static void settings(json_writer *w, const applic_result *r)
{
	json_key(w, "settings");
	json_begin_object(w);
	json_kv_str(w, "setup", r->setup_said);
	json_kv_uint(w, "short_ns", r->o.short_ns);
	json_kv_uint(w, "small_bytes", r->o.small_bytes);
	json_kv_uint(w, "pause_ns", r->o.pause_ns);
	json_kv_uint(w, "max_open", r->o.max_open);
	json_kv_uint(w, "rerun_max", r->o.rerun_max);
	if (r->local_known)
		kv_ip(w, "local", r->local_family, r->local_ip);
	else
		json_kv_str(w, "local", NULL);
	json_kv_str(w, "client_host", r->o.client_host.given ? r->o.client_host.spec : NULL);
	json_kv_str(w, "server_host", r->o.server_host.given ? r->o.server_host.spec : NULL);
	json_end_object(w);
}

static void cpu_cats(json_writer *w, const uint64_t *v)
{
	json_key(w, "cpu_by_category_ns");
	json_begin_object(w);
	for (unsigned k = 0; k < APPLIC_CPU_NCATS; k++)
		json_kv_uint(w, applic_cpu_names[k], v[k]);
	json_end_object(w);
}

static void host_cpu(json_writer *w, const char *key, const applic_host_cpu *c)
{
	json_key(w, key);
	json_begin_object(w);
	json_kv_uint(w, "cpu_ns", c->cpu_ns);
	cpu_cats(w, c->cpu_cat_ns);
	json_kv_uint(w, "busiest_cpu_ns", c->busiest_ns);
	json_kv_uint(w, "utilisation_ppm", c->util_ppm);
	json_kv_uint(w, "busiest_cpu_ppm", c->busiest_ppm);
	json_end_object(w);
}

static void hosts(json_writer *w, const applic_result *r)
{
	json_key(w, "hosts");
	json_begin_array(w);
	for (size_t i = 0; i < r->n_hosts; i++) {
		const applic_rerun_host *h = &r->hosts[i];
		char sim[ADDR_TEXT_IPV4_LEN];
		addr_text_ipv4(h->sim_ip, sim, sizeof(sim));
		json_begin_object(w);
		kv_ip(w, "address", h->family, h->ip);
		json_kv_str(w, "simulated_address", sim);
		json_kv_bool(w, "client", h->client);
		json_kv_bool(w, "server", h->server);
		json_kv_uint(w, "connections", h->conns);
		json_kv_str(w, "profile", h->spec);
		json_kv_str(w, "from", h->from);
		json_kv_str(w, "stack", h->stack[0] ? h->stack : NULL);
		json_kv_uint(w, "cpus", h->cpus);
		host_cpu(w, "tcp", &h->tcp);
		host_cpu(w, "smcr", &h->smcr);
		json_end_object(w);
	}
	json_end_array(w);
}

static void meas(json_writer *w, const char *key, const applic_meas *m)
{
	json_key(w, key);
	json_begin_object(w);
	json_kv_bool(w, "done", m->done);
	json_kv_bool(w, "smcr", m->smc);
	json_kv_uint(w, "exchanges", m->exchanges);
	json_kv_uint(w, "latency_mean_ns", m->lat_mean_ns);
	json_kv_uint(w, "latency_p50_ns", m->lat_p50_ns);
	json_kv_uint(w, "latency_p99_ns", m->lat_p99_ns);
	json_kv_uint(w, "completion_ns", m->completion_ns);
	json_kv_uint(w, "bytes", m->bytes);
	json_kv_uint(w, "throughput_bps", m->throughput_bps);
	json_kv_uint(w, "cpu_ns", m->cpu_ns);
	json_kv_uint(w, "cpu_client_ns", m->cpu_client_ns);
	json_kv_uint(w, "cpu_server_ns", m->cpu_server_ns);
	json_end_object(w);
}

static void totals(json_writer *w, const char *key, const applic_rerun_totals *t)
{
	json_key(w, key);
	json_begin_object(w);
	json_kv_uint(w, "connections", t->conns);
	json_kv_uint(w, "done", t->done);
	json_kv_uint(w, "smcr", t->smc);
	json_kv_uint(w, "exchanges", t->exchanges);
	json_kv_uint(w, "latency_mean_ns", t->lat_mean_ns);
	json_kv_uint(w, "latency_p50_ns", t->lat_p50_ns);
	json_kv_uint(w, "latency_p99_ns", t->lat_p99_ns);
	json_kv_uint(w, "makespan_ns", t->makespan_ns);
	json_kv_uint(w, "bytes", t->bytes);
	json_kv_uint(w, "throughput_bps", t->throughput_bps);
	json_kv_uint(w, "cpu_ns", t->cpu_ns);
	cpu_cats(w, t->cpu_cat_ns);
	json_kv_uint(w, "cpu_per_exchange_ns", t->cpu_per_exchange_ns);
	json_kv_uint(w, "cpu_per_mib_ns", t->cpu_per_mib_ns);
	json_end_object(w);
}

static void rerun(json_writer *w, const applic_result *r)
{
	json_key(w, "rerun");
	json_begin_object(w);
	json_kv_uint(w, "not_rerun", r->rerun_skipped);
	json_kv_str(w, "note", r->rerun_note[0] ? r->rerun_note : NULL);
	json_key(w, "connections");
	json_begin_array(w);
	for (size_t i = 0; i < r->n_rerun; i++) {
		const applic_rerun_conn *c = &r->rerun[i];
		json_begin_object(w);
		json_kv_uint(w, "id", c->id);
		json_kv_uint(w, "frame", c->frame);
		kv_ip(w, "client", c->family, c->client);
		json_kv_uint(w, "client_port", c->cport);
		kv_ip(w, "server", c->family, c->server);
		json_kv_uint(w, "server_port", c->sport);
		json_kv_uint(w, "steps", c->steps);
		json_kv_bool(w, "truncated", c->truncated);
		json_kv_uint(w, "recorded_exchanges", c->rec_exchanges);
		json_kv_uint(w, "recorded_latency_mean_ns", c->rec_lat_mean_ns);
		json_kv_uint(w, "recorded_completion_ns", c->rec_completion_ns);
		json_kv_uint(w, "recorded_bytes", c->rec_bytes);
		meas(w, "tcp", &c->tcp);
		meas(w, "smcr", &c->smcr);
		json_end_object(w);
	}
	json_end_array(w);
	hosts(w, r);
	totals(w, "tcp", &r->tcp);
	totals(w, "smcr", &r->smcr);
	json_end_object(w);
}

void applic_print_json(FILE *out, const applic_result *r, const char *name)
{
	json_writer w;
	json_init(&w, out, true);
	json_begin_object(&w);
	json_kv_str(&w, "format", "smcr-applicability");
	json_kv_uint(&w, "version", 1);
	capture(&w, r, name);
	settings(&w, r);
	json_key(&w, "destinations");
	json_begin_array(&w);
	for (size_t i = 0; i < r->n_dests; i++) {
		json_begin_object(&w);
		kv_ip(&w, "address", r->dests[i].family, r->dests[i].ip);
		figures(&w, &r->dests[i].f);
		json_end_object(&w);
	}
	json_end_array(&w);
	json_key(&w, "total");
	json_begin_object(&w);
	figures(&w, &r->total);
	json_end_object(&w);
	rerun(&w, r);
	json_end_object(&w);
	fputc('\n', out);
}
