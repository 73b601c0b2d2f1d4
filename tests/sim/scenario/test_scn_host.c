/* The scenario's hosts: `host=` on the stack line picks a cost profile (the personality's
 * by default), the `host` statement in the block overrides its fields; impossible values
 * are refused with their position. */
#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>

#include "sim/scenario/scn_int.h"
#include "sim/scenario/scn_model.h"

#define STACK_A(line, extra)                             \
	"switch SW1\n"                                   \
	"stack A" line "\n"                              \
	"  interface eth0 switch=SW1 ip=10.0.0.1/24\n"   \
	extra                                            \
	"end\n"

static char *errors_of(const char *text)
{
	scn_diag d;
	scn_diag_init(&d);
	scn_scenario *s = scn_load_string("t.scn", text, strlen(text), &d);
	GString *out = g_string_new(NULL);
	for (size_t i = 0; i < scn_diag_count(&d); i++)
		g_string_append_printf(out, "%s\n", scn_diag_message(&d, i));
	cr_assert(s == NULL || out->len == 0, "a scenario came back despite errors");
	scn_free(s);
	scn_diag_free(&d);
	return g_string_free(out, FALSE);
}

#define EXPECT_ERRORS(text, expected)                               \
	do {                                                        \
		char *got_ = errors_of(text);                       \
		cr_assert_str_eq(got_, expected, "got:\n%s", got_); \
		g_free(got_);                                       \
	} while (0)

static scn_scenario *load_ok(const char *text)
{
	scn_diag d;
	scn_diag_init(&d);
	scn_scenario *s = scn_load_string("t.scn", text, strlen(text), &d);
	cr_assert_not_null(s, "%s", scn_diag_count(&d) ? scn_diag_message(&d, 0) : "?");
	scn_diag_free(&d);
	return s;
}

Test(scn_host, the_personality_picks_the_profile)
{
	scn_scenario *s = load_ok("switch SW1\n"
	                          "stack Z personality=zos\n  interface e switch=SW1 ip=10.0.0.1/24\nend\n"
	                          "stack L\n  interface e switch=SW1 ip=10.0.0.2/24\nend\n"
	                          "stack N host=none\n  interface e switch=SW1 ip=10.0.0.3/24\nend\n");
	cr_assert_str_eq(s->stacks[0].host.name, "zos");
	cr_assert_str_eq(s->stacks[1].host.name, "linux");
	cr_assert_str_eq(s->stacks[2].host.name, "none");
	cr_assert(!s->stacks[2].host.costs);
	scn_free(s);
}

Test(scn_host, the_host_statement_overrides_fields)
{
	scn_scenario *s = load_ok(STACK_A(" personality=zos", "  host cpus=8 speed=150 irqcpu=3 syscall=2us copy=160Gbps tso=0\n"));
	const host_profile *h = &s->stacks[0].host;
	cr_assert_str_eq(h->name, "zos");
	cr_assert_eq(h->cpus, 8);
	cr_assert_eq(h->speed_pct, 150);
	cr_assert_eq(h->irq_cpu, 3);
	cr_assert_eq(h->syscall_ns, 2000);
	cr_assert_eq(h->copy_ps, 50, "160 Gb/s is 20 GB/s: 50 ps a byte");
	cr_assert_eq(h->tso_max, 0);
	cr_assert_eq(h->smc_wr_ns, host_profile_find("zos")->smc_wr_ns, "what is not written stays");
	scn_free(s);
}

Test(scn_host, impossible_values_are_refused_where_written)
{
	EXPECT_ERRORS(STACK_A("", "  host cpus=0\n"), "t.scn:4:13: cpus=0 is out of range; expected 1..256\n");
	EXPECT_ERRORS(STACK_A("", "  host irqcpu=5\n"), "t.scn:4:15: irqcpu=5 names no CPU of the 2; expected 0..1\n");
	EXPECT_ERRORS(STACK_A("", "  host cpus=4 irqcpu=4\n"), "t.scn:4:22: irqcpu=4 names no CPU of the 4; expected 0..3\n");
	EXPECT_ERRORS(STACK_A("", "  host syscall=0\n"), "t.scn:4:16: syscall=0 is out of range; expected 1ns..1s\n");
	EXPECT_ERRORS(STACK_A("", "  host speed=0\n"), "t.scn:4:14: speed=0 is out of range; expected 1..10000\n");
}

Test(scn_host, unknown_names_list_the_choices)
{
	EXPECT_ERRORS(STACK_A(" host=solaris", ""), "t.scn:2:14: bad value 'solaris' for host; expected none, linux or zos\n");
	char *got = errors_of(STACK_A("", "  host bogus=1\n"));
	cr_assert(g_str_has_prefix(got, "t.scn:4:8: unknown attribute 'bogus' for host; expected one of cpus, speed,"), "%s", got);
	g_free(got);
}

Test(scn_host, one_host_statement_and_not_on_a_host_without_costs)
{
	EXPECT_ERRORS(STACK_A("", "  host cpus=2\n  host cpus=3\n"),
	              "t.scn:5:3: repeated host statement (first at 4:3); expected one per stack\n");
	EXPECT_ERRORS(STACK_A(" host=none", "  host cpus=2\n"),
	              "t.scn:4:3: stack 'A' has host=none, whose costs are all zero; give it host=linux or host=zos to change them\n");
}
