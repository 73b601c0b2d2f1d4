/* The host's CPUs as bookkeeping (sim/host/host.h): queueing behind earlier work, wake-ups
 * of idle CPUs, speed, interrupts that join a running poll, and the profiles' checks. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/engine/engine.h"
#include "sim/host/host.h"

/* A profile with round numbers, so every expected time can be read off. */
static host_profile test_profile(void)
{
	host_profile p = *host_profile_find("linux");
	p.cpus = 3;
	p.irq_cpu = 0;
	p.speed_pct = 100;
	p.wakeup_ns = 1000;
	return p;
}

typedef struct step {
	sim_host *h;
	sim_time got[8];
	int n;
} step;

/* Each test body runs its steps inside engine events, as the stacks do. */
static void at(sim_engine *eng, sim_time t, sim_event_fn fn, step *s)
{
	sim_post(eng, t, sim_kind("test.step"), 1, fn, s, 0);
}

Test(host, none_costs_nothing_and_follows_the_engine)
{
	sim_engine *eng = sim_engine_new(1);
	sim_host *h = host_new(eng, NULL);
	cr_assert(!host_has_costs(h));
	cr_assert_eq(host_run(h, 0, HOST_CAT_TCPIP, 5000), 0);
	cr_assert_eq(host_now(h), 0);
	host_cpu_stats t;
	host_totals(h, &t);
	cr_assert_eq(t.items, 0);
	host_free(h);
	sim_engine_free(eng);
}

static void queue_step1(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	step *s = ev->ctx;
	s->got[s->n++] = host_run(s->h, 1, HOST_CAT_TCPIP, 500); /* 1000 -> 1500 */
	s->got[s->n++] = host_run(s->h, 1, HOST_CAT_SMCR, 200);  /* -> 1700 */
}

static void queue_step2(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	step *s = ev->ctx;
	/* a new event at 1100: the work in hand starts at 1100 and waits for CPU 1 */
	s->got[s->n++] = host_now(s->h);
	s->got[s->n++] = host_run(s->h, 1, HOST_CAT_APP, 100);
}

Test(host, work_queues_behind_what_the_cpu_already_has)
{
	sim_engine *eng = sim_engine_new(1);
	host_profile p = test_profile();
	step s = { .h = host_new(eng, &p) };
	at(eng, 1000, queue_step1, &s);
	at(eng, 1100, queue_step2, &s);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(s.got[0], 1500);
	cr_assert_eq(s.got[1], 1700);
	cr_assert_eq(s.got[2], 1100);
	cr_assert_eq(s.got[3], 1800, "waits until 1700, then 100: got %llu", (unsigned long long)s.got[3]);
	const host_cpu_stats *c = host_cpu(s.h, 1);
	cr_assert_eq(c->busy_ns[HOST_CAT_TCPIP], 500);
	cr_assert_eq(c->busy_ns[HOST_CAT_SMCR], 200);
	cr_assert_eq(c->busy_ns[HOST_CAT_APP], 100);
	cr_assert_eq(c->items, 3);
	cr_assert_eq(c->queued_items, 1);
	cr_assert_eq(c->wait_ns, 600);
	cr_assert_eq(c->wait_max_ns, 600);
	host_free(s.h);
	sim_engine_free(eng);
}

static void wake_step(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	step *s = ev->ctx;
	s->got[s->n++] = host_run(s->h, 0, HOST_CAT_IRQ, 300); /* 0 -> 300 on the interrupt CPU */
	s->got[s->n++] = host_run(s->h, 1, HOST_CAT_APP, 100); /* CPU 1 idle: wake 1000, then 100 */
	s->got[s->n++] = host_run(s->h, 2, HOST_CAT_APP, 50);  /* CPU 2 idle too */
	s->got[s->n++] = host_run(s->h, 1, HOST_CAT_APP, 10);  /* CPU 1 idle again by now */
}

Test(host, an_idle_cpu_is_woken_a_busy_one_is_not)
{
	sim_engine *eng = sim_engine_new(1);
	host_profile p = test_profile();
	step s = { .h = host_new(eng, &p) };
	at(eng, 0, wake_step, &s);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(s.got[0], 300);
	cr_assert_eq(s.got[1], 1400);
	cr_assert_eq(s.got[2], 2450);
	cr_assert_eq(s.got[3], 3460);
	host_free(s.h);
	sim_engine_free(eng);
}

static void busy_first(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	step *s = ev->ctx;
	host_run(s->h, 1, HOST_CAT_APP, 5000); /* CPU 1 busy until 5000 */
}

static void handed_to_busy(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	step *s = ev->ctx;
	host_run(s->h, 0, HOST_CAT_IRQ, 100);                  /* 1000 -> 1100 */
	s->got[s->n++] = host_run(s->h, 1, HOST_CAT_APP, 100); /* busy: no wake-up, after 5000 */
}

Test(host, work_handed_to_a_busy_cpu_waits_without_a_wake_up)
{
	sim_engine *eng = sim_engine_new(1);
	host_profile p = test_profile();
	step s = { .h = host_new(eng, &p) };
	at(eng, 0, busy_first, &s);
	at(eng, 1000, handed_to_busy, &s);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(s.got[0], 5100);
	host_free(s.h);
	sim_engine_free(eng);
}

static void speed_step(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	step *s = ev->ctx;
	s->got[s->n++] = host_run(s->h, 0, HOST_CAT_TCPIP, 1000);
}

Test(host, a_faster_cpu_takes_less_time)
{
	sim_engine *eng = sim_engine_new(1);
	host_profile p = test_profile();
	p.speed_pct = 250;
	step s = { .h = host_new(eng, &p) };
	at(eng, 0, speed_step, &s);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(s.got[0], 400);
	cr_assert_eq(host_cpu(s.h, 0)->busy_ns[HOST_CAT_TCPIP], 400);
	host_free(s.h);
	sim_engine_free(eng);
}

/* A NAPI-style source: frame 1 at 0 takes an interrupt (latency 500, entry 200) and
 * 100 of driver work; the poll looks at its ring at 800. Frame 2 lands at 700, before that
 * look: it joins (no interrupt). Frame 3 lands at 5000, long after: a new interrupt. */
typedef struct irq_test {
	sim_host *h;
	host_irq irq;
	bool taken[3];
	sim_time end[3];
	uint64_t run[3];
	int n;
} irq_test;

static void irq_frame(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	irq_test *x = ev->ctx;
	int i = x->n++;
	x->taken[i] = host_irq_enter(x->h, &x->irq, 0, 500, 200);
	host_run_here(x->h, HOST_CAT_IRQ, 100);
	host_irq_looked(x->h);
	x->run[i] = host_irq_run(x->h);
	host_run_here(x->h, HOST_CAT_TCPIP, 1000); /* the protocol's work: after the look */
	x->end[i] = host_now(x->h);
	host_irq_leave(x->h);
}

Test(host, a_frame_that_lands_before_the_poll_looks_joins_it)
{
	sim_engine *eng = sim_engine_new(1);
	host_profile p = test_profile();
	irq_test x = { .h = host_new(eng, &p) };
	sim_post(eng, 0, sim_kind("test.irq"), 1, irq_frame, &x, 0);
	sim_post(eng, 700, sim_kind("test.irq"), 1, irq_frame, &x, 0);
	sim_post(eng, 5000, sim_kind("test.irq"), 1, irq_frame, &x, 0);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert(x.taken[0]);
	cr_assert_eq(x.end[0], 1800); /* 500 + 200 + 100 + 1000 */
	cr_assert(!x.taken[1], "landed at 700, the poll looked at 800");
	cr_assert_eq(x.run[1], x.run[0], "the same poll: GRO may merge");
	cr_assert_eq(x.end[1], 2900); /* after 1800: 100 + 1000 */
	cr_assert(x.taken[2]);
	cr_assert_neq(x.run[2], x.run[0]);
	cr_assert_eq(x.end[2], 6800);
	cr_assert_eq(host_cpu(x.h, 0)->busy_ns[HOST_CAT_IRQ], 2 * 200 + 3 * 100);
	host_free(x.h);
	sim_engine_free(eng);
}

Test(host, a_draining_source_keeps_its_run_until_the_work_is_done)
{
	sim_engine *eng = sim_engine_new(1);
	host_profile p = test_profile();
	irq_test x = { .h = host_new(eng, &p) };
	x.irq.drains = true;
	sim_post(eng, 0, sim_kind("test.irq"), 1, irq_frame, &x, 0);
	sim_post(eng, 1500, sim_kind("test.irq"), 1, irq_frame, &x, 0); /* during the protocol work */
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert(x.taken[0]);
	cr_assert(!x.taken[1], "a completion queue is drained until its handler's work is done");
	cr_assert_eq(x.end[1], 2900);
	host_free(x.h);
	sim_engine_free(eng);
}

Test(host, applications_take_the_cpus_other_than_the_interrupts_in_turn)
{
	sim_engine *eng = sim_engine_new(1);
	host_profile p = test_profile();
	p.cpus = 4;
	p.irq_cpu = 2;
	sim_host *h = host_new(eng, &p);
	unsigned got[6];
	for (int i = 0; i < 6; i++)
		got[i] = host_next_app_cpu(h);
	unsigned want[6] = { 0, 1, 3, 0, 1, 3 };
	cr_assert_arr_eq(got, want, sizeof got);
	host_free(h);
	host_profile one = test_profile();
	one.cpus = 1;
	h = host_new(eng, &one);
	cr_assert_eq(host_next_app_cpu(h), 0);
	host_free(h);
	sim_engine_free(eng);
}

Test(host, profiles_refuse_impossible_values)
{
	const char *why = NULL;
	host_profile p = *host_profile_find("linux");
	cr_assert_eq(host_profile_check(&p, &why), 0);
	p.irq_cpu = p.cpus;
	cr_assert_eq(host_profile_check(&p, &why), -1);
	cr_assert_str_eq(why, "irqcpu");
	p = *host_profile_find("zos");
	p.syscall_ns = 0;
	cr_assert_eq(host_profile_check(&p, &why), -1);
	cr_assert_str_eq(why, "syscall");
	p = *host_profile_find("zos");
	p.cpus = 0;
	cr_assert_eq(host_profile_check(&p, &why), -1);
	cr_assert_str_eq(why, "cpus");
	cr_assert_null(host_profile_find("solaris"));
	const char *const *names = host_profile_names();
	for (size_t i = 0; names[i]; i++)
		cr_assert_not_null(host_profile_find(names[i]));
}

Test(host, every_field_of_the_table_reads_back_what_was_set)
{
	size_t n;
	const host_field *f = host_profile_fields(&n);
	host_profile p;
	memset(&p, 0, sizeof p);
	for (size_t i = 0; i < n; i++) {
		host_field_set(&p, &f[i], 1000 + i);
		cr_assert_eq(host_field_get(&p, &f[i]), 1000 + i, "%s", f[i].key);
		cr_assert_eq(host_field_find(f[i].key), &f[i]);
	}
}
