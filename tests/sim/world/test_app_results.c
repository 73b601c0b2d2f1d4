/* What applications measure in a world (sim/app/app_result.h, sim/world/world_results.h):
 * transaction latencies, connect and completion times, throughput, the crr, think and
 * duration workloads, CPU time per transaction, and the expectations that read them.
 * The checks tie the figures to each other and to the wires, so a wrong clock, a lost
 * transaction or a miscounted byte shows. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/app/app_result.h"
#include "sim/host/host.h"
#include "sim/net/stack.h"
#include "sim/world/world_results.h"
#include "tests/support/scn_world.h"

/* Two stacks on one switch, plain TCP, 10 us and 10 Gb/s on each access wire; hosts
 * without costs (host=none), so every time below is the wires' own. */
#define PAIR_HOSTS(ha, hb)                                                                              \
	"switch SW\n"                                                                                   \
	"stack A host=" ha "\n  interface e0 switch=SW ip=10.0.0.1/24 latency=10us bandwidth=10Gbps\nend\n" \
	"stack B host=" hb "\n  interface e0 switch=SW ip=10.0.0.2/24 latency=10us bandwidth=10Gbps\nend\n" \
	"app resp B listen port=80 kind=responder smc=no\n"                                     \
	"app sink B listen port=90 kind=sink smc=no\n"
#define PAIR PAIR_HOSTS("none", "none")

#define ONE_WAY (2 * 10000ull) /* two access wires */

typedef struct flows {
	const char *app;
	app_conn_result r[256];
	uint64_t lat_sum[256];
	size_t n;
} flows;

static void keep(void *arg, const world_conn_view *v)
{
	flows *f = arg;
	if (v->server || strncmp(v->name, f->app, strlen(f->app)) || (v->name[strlen(f->app)] && v->name[strlen(f->app)] != '.'))
		return;
	cr_assert_lt(f->n, 256);
	app_flow_result(v->af, &f->r[f->n]);
	f->lat_sum[f->n] = f->r[f->n].lat ? f->r[f->n].lat->sum : 0;
	f->n++;
}

static void flows_of(scn_world *t, const char *app, flows *f)
{
	memset(f, 0, sizeof(*f));
	f->app = app;
	world_foreach_end(t->w, keep, f);
}

static uint32_t stack_index(const scn_scenario *s, const char *name)
{
	for (uint32_t i = 0; i < s->n_stacks; i++)
		if (!strcmp(s->stacks[i].name, name))
			return i;
	cr_assert_fail("no stack %s", name);
	return 0;
}

Test(app_results, rr_latencies_add_up_to_the_connection_and_cover_the_round_trip)
{
	scn_world *t = scn_world_new("end 1s\n" PAIR "app rr A connect B:80 kind=rr request=100 response=1K count=50 smc=no\n"
	                             "expect ops rr == 50\n"
	                             "expect latency rr min >= 40us\n"
	                             "expect latency rr p99 < 60us\n",
	                             NULL);
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	flows f;
	flows_of(t, "rr", &f);
	cr_assert_eq(f.n, 1);
	const app_conn_result *r = &f.r[0];
	cr_assert(r->done && r->connected);
	cr_assert_eq(r->ops, 50);
	cr_assert_eq(r->lat->count, 50);
	/* each transaction is a round trip at least; one after another they fill the connection */
	cr_assert_geq(r->lat->min, 2 * ONE_WAY);
	cr_assert_eq(r->connect_ns + f.lat_sum[0], r->fct_ns, "connect %llu + transactions %llu != fct %llu",
	             (unsigned long long)r->connect_ns, (unsigned long long)f.lat_sum[0], (unsigned long long)r->fct_ns);
	cr_assert_geq(r->connect_ns, 2 * ONE_WAY, "SYN and SYN-ACK");
	cr_assert_eq(r->bytes_sent, 5000);
	cr_assert_eq(r->bytes_received, 51200);
	/* what the expectations read is what the connection measured */
	char detail[128];
	scn_expect x = t->scn->expects[1];
	x.stat = SCN_STAT_MAX;
	cr_assert_eq(world_measure(t->w, &x, detail, sizeof(detail)), r->lat->max, "%s", detail);
	scn_world_free(t);
}

Test(app_results, crr_makes_a_connection_per_transaction_and_times_from_its_connect_call)
{
	scn_world *t = scn_world_new("end 1s\n" PAIR "app crr A connect B:80 kind=crr request=64 response=64 count=20 conns=3 smc=no\n"
	                             "expect ops crr == 60\n"
	                             "expect ops resp == 60\n"
	                             "expect latency crr min > 0\n",
	                             NULL);
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	flows f;
	flows_of(t, "crr", &f);
	cr_assert_eq(f.n, 60, "one connection a transaction: %zu", f.n);
	for (size_t i = 0; i < f.n; i++) {
		const app_conn_result *r = &f.r[i];
		cr_assert(r->done);
		cr_assert_eq(r->ops, 1);
		cr_assert_eq(r->lat->count, 1);
		cr_assert_eq(r->lat->max, r->fct_ns, "the transaction spans the connection");
		cr_assert_geq(r->fct_ns, r->connect_ns + 2 * ONE_WAY, "connect, then a round trip");
	}
	app_totals tot;
	cr_assert(world_app_totals_by_name(t->w, "crr", &tot));
	cr_assert_eq(tot.conns, 60);
	cr_assert_eq(tot.connect.count, 60);
	cr_assert_eq(tot.lat.count, 60);
	app_totals_free(&tot);
	scn_world_free(t);
}

Test(app_results, think_time_spaces_the_transactions)
{
	scn_world *t = scn_world_new("end 1s\n" PAIR "app rr A connect B:80 kind=rr request=64 response=64 count=5 think=2ms smc=no\n"
	                             "expect fct rr min >= 8ms\n"
	                             "expect fct rr max < 9ms\n",
	                             NULL);
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	flows f;
	flows_of(t, "rr", &f);
	cr_assert_eq(f.n, 1);
	cr_assert_eq(f.r[0].ops, 5);
	/* four pauses between five transactions */
	cr_assert_eq(f.r[0].fct_ns, f.r[0].connect_ns + f.lat_sum[0] + 4 * 2000000ull);
	scn_world_free(t);
}

Test(app_results, duration_bounds_the_work)
{
	scn_world *t = scn_world_new("end 1s\n" PAIR "app bulk A connect B:90 kind=bulk duration=1ms smc=no\n"
	                             "app rr A connect B:80 kind=rr request=64 response=64 duration=2ms smc=no start=100ms\n",
	                             NULL);
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	flows f;
	flows_of(t, "bulk", &f);
	cr_assert_eq(f.n, 1);
	const app_conn_result *b = &f.r[0];
	cr_assert(b->done);
	/* at most 10 Gb/s for the millisecond and what was in flight */
	cr_assert_gt(b->bytes_sent, 10000000000ull / 8 / 1000 / 2, "%llu", (unsigned long long)b->bytes_sent);
	cr_assert_lt(b->bytes_sent, 10000000000ull / 8 / 1000 * 2, "%llu", (unsigned long long)b->bytes_sent);
	cr_assert_leq(b->throughput_bps, 10000000000ull, "no faster than the wire: %llu", (unsigned long long)b->throughput_bps);
	cr_assert_gt(b->throughput_bps, 7000000000ull, "most of the wire: %llu", (unsigned long long)b->throughput_bps);
	flows_of(t, "rr", &f);
	const app_conn_result *r = &f.r[0];
	cr_assert(r->done);
	/* none started after 2 ms: the last began before and took one transaction */
	cr_assert_geq(f.lat_sum[0], 2000000ull);
	cr_assert_lt(f.lat_sum[0], 2000000ull + r->lat->max + 1);
	cr_assert_eq(r->ops, r->lat->count);
	scn_world_free(t);
}

Test(app_results, cpu_per_transaction_divides_the_hosts_time_by_its_transactions)
{
	scn_world *t = scn_world_new("end 1s\n" PAIR_HOSTS("linux", "none")
	                             "app rr A connect B:80 kind=rr request=64 response=64 count=40 smc=no\n",
	                             NULL);
	stack *a = world_stack(t->w, "A");
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	world_cpu c;
	world_cpu_of(t->w, stack_index(t->scn, "A"), &c);
	cr_assert(c.costs);
	uint64_t busy = 0;
	for (unsigned k = 0; k < HOST_NCATS; k++)
		busy += c.tot.busy_ns[k];
	cr_assert_gt(busy, 0);
	cr_assert_eq(c.busy, busy);
	/* its connection has ended: work charged afterwards (timers of an idle tail; here two
	 * pieces by hand) is not the application's, and the figures stay those of its end */
	host_cpu_stats now;
	host_totals(a->host, &now);
	host_run(a->host, 0, HOST_CAT_TCPIP, 400000);
	host_run(a->host, 1, HOST_CAT_IRQ, 100000);
	world_cpu later;
	world_cpu_of(t->w, stack_index(t->scn, "A"), &later);
	cr_assert_eq(later.busy, c.busy);
	cr_assert_leq(c.tot.busy_ns[HOST_CAT_TCPIP], now.busy_ns[HOST_CAT_TCPIP]);
	host_cpu_stats tot = c.tot;
	cr_assert_eq(c.txns, 40, "the client's transactions only: %llu", (unsigned long long)c.txns);
	cr_assert_eq(c.ends, 1);
	cr_assert_eq(world_cpu_per_txn(&c, c.busy), busy / 40);
	cr_assert_eq(c.bytes, 40 * 128);
	cr_assert_eq(world_cpu_per_mib(&c, c.busy), busy * 1048576 / (40 * 128));
	flows f;
	flows_of(t, "rr", &f);
	uint64_t window = c.t1 - c.t0;
	cr_assert_geq(window, f.r[0].fct_ns, "from its connect call to its end");
	cr_assert_eq(world_cpu_util_ppb(&c, c.busy), busy * 1000000000ull / (window * c.ncpus));
	/* expect cpu A tcpip per=txn: the category alone */
	scn_expect x = { .metric = SCN_M_CPU, .stack_a = stack_index(t->scn, "A"), .cpu_cat = SCN_CPU_TCPIP, .cpu_per = SCN_PER_TXN };
	char detail[160];
	cr_assert_eq(world_measure(t->w, &x, detail, sizeof(detail)), tot.busy_ns[HOST_CAT_TCPIP] / 40, "%s", detail);
	world_cpu_of(t->w, stack_index(t->scn, "B"), &c);
	cr_assert_not(c.costs, "B keeps the no-cost host");
	cr_assert_eq(c.busy, 0);
	cr_assert_eq(c.txns, 40, "the responder answered them");
	scn_world_free(t);
}

Test(app_results, a_result_with_nothing_to_measure_fails_its_expectation)
{
	/* the responder is gone when the client connects: refused */
	scn_world *t = scn_world_new("end 100ms\n" PAIR "app rr A connect B:80 kind=rr request=64 response=64 count=5 smc=no start=10ms\n"
	                             "at 5ms stop app resp\n"
	                             "expect latency rr p50 >= 0\n"
	                             "expect connect rr max >= 0\n"
	                             "expect cpu A per=txn >= 0\n",
	                             NULL);
	cr_assert_eq(scn_world_run(t), 3, "%s", scn_world_output(t));
	const char *out = scn_world_output(t);
	cr_assert(strstr(out, "no transaction completed"), "%s", out);
	cr_assert(strstr(out, "no connection became usable"), "%s", out);
	cr_assert(strstr(out, "no transaction on A"), "%s", out);
	scn_world_free(t);
}

/* work=: a responder's own CPU time per request, charged to its host's app category on
 * its CPU before it answers; each transaction takes that much longer, and on a host
 * without costs it is nothing. */
static uint64_t rr_mean(const char *hosts, const char *work, uint64_t *app_ns)
{
	char text[1024];
	snprintf(text, sizeof(text),
	         "end 1s\nswitch SW\n"
	         "stack A host=%s\n  interface e0 switch=SW ip=10.0.0.1/24 latency=10us bandwidth=10Gbps\nend\n"
	         "stack B host=%s\n  interface e0 switch=SW ip=10.0.0.2/24 latency=10us bandwidth=10Gbps\nend\n"
	         "app resp B listen port=80 kind=responder smc=no%s\n"
	         "app rr A connect B:80 kind=rr request=100 response=100 count=40 smc=no\n",
	         hosts, hosts, work);
	scn_world *t = scn_world_new(text, NULL);
	cr_assert_eq(scn_world_run(t), 0, "%s", scn_world_output(t));
	flows f;
	flows_of(t, "rr", &f);
	cr_assert_eq(f.n, 1);
	cr_assert_eq(f.r[0].ops, 40);
	uint64_t mean = f.lat_sum[0] / 40;
	world_cpu c;
	world_cpu_of(t->w, stack_index(t->scn, "B"), &c);
	*app_ns = c.tot.busy_ns[HOST_CAT_APP];
	scn_world_free(t);
	return mean;
}

Test(app_results, a_responders_work_delays_each_answer_and_counts_as_its_cpu)
{
	uint64_t app0, app50, appn0, appn50;
	uint64_t m0 = rr_mean("linux", "", &app0), m50 = rr_mean("linux", " work=50us", &app50);
	/* 40 requests x 50 us more on B's application CPU, and on each transaction's time */
	cr_assert_eq(app50 - app0, 40 * 50000ull, "app CPU %llu -> %llu", (unsigned long long)app0, (unsigned long long)app50);
	cr_assert_geq(m50 - m0, 50000ull, "mean %llu -> %llu", (unsigned long long)m0, (unsigned long long)m50);
	cr_assert_lt(m50 - m0, 55000ull, "mean %llu -> %llu", (unsigned long long)m0, (unsigned long long)m50);
	/* no costs, no work */
	cr_assert_eq(rr_mean("none", "", &appn0), rr_mean("none", " work=50us", &appn50));
	cr_assert_eq(appn50, 0);
}
