/* Loops, parameters and limits of the scenario language (sim/scenario/scn_expand.c):
 * what they expand to, the message and position of every mistake (with the iteration
 * that made it), --set, the limits, and input that used to crash or never end. */
#include <criterion/criterion.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "sim/scenario/scn_model.h"
#include "sim/scenario/scn_values.h"

/* Two stacks that talk, after the statements under test (which start on line 1). */
#define TAIL                                                         \
	"switch SW\n"                                                \
	"stack TA\n  interface e switch=SW ip=192.168.0.1/24\nend\n" \
	"stack TB\n  interface e switch=SW ip=192.168.0.2/24\nend\n" \
	"app tsrv TB listen port=9 kind=sink\n"                      \
	"app tcli TA connect TB:9 kind=bulk\n"

static char *errors_set(const char *text, const char *const *set, size_t n_set)
{
	scn_diag d;
	scn_diag_init(&d);
	scn_load_opts o = { set, n_set };
	scn_scenario *s = scn_load_string_opts("t.scn", text, strlen(text), &o, &d);
	GString *out = g_string_new(NULL);
	for (size_t i = 0; i < scn_diag_count(&d); i++)
		g_string_append_printf(out, "%s\n", scn_diag_message(&d, i));
	cr_assert(s == NULL || out->len == 0, "a scenario came back despite errors");
	cr_assert(s != NULL || out->len > 0, "no scenario and no error");
	scn_free(s);
	scn_diag_free(&d);
	return g_string_free(out, FALSE);
}

#define EXPECT_ERRORS_SET(text, set, expected)                                      \
	do {                                                                        \
		char *got_ = errors_set(text, set, sizeof(set) / sizeof((set)[0])); \
		cr_assert_str_eq(got_, expected, "got:\n%s", got_);                 \
		g_free(got_);                                                       \
	} while (0)

#define EXPECT_ERRORS(text, expected)                               \
	do {                                                        \
		char *got_ = errors_set(text, NULL, 0);             \
		cr_assert_str_eq(got_, expected, "got:\n%s", got_); \
		g_free(got_);                                       \
	} while (0)

static scn_scenario *load_set(const char *text, const char *const *set, size_t n_set)
{
	scn_diag d;
	scn_diag_init(&d);
	scn_load_opts o = { set, n_set };
	scn_scenario *s = scn_load_string_opts("t.scn", text, strlen(text), &o, &d);
	cr_assert(s, "unexpected errors: %s", scn_diag_count(&d) ? scn_diag_message(&d, 0) : "(none)");
	scn_diag_free(&d);
	return s;
}

static scn_scenario *load_ok(const char *text)
{
	return load_set(text, NULL, 0);
}

static char *dump_of(const scn_scenario *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	scn_dump(s, f);
	fclose(f);
	return buf;
}

/* ---- loops ---------------------------------------------------------------------- */

Test(scn_loops, a_loop_repeats_its_body_with_the_variable_in_names)
{
	scn_scenario *s = load_ok("for i in 1..3\n  switch S{i}\nend\n" TAIL);
	cr_assert_eq(s->n_switches, 4);
	cr_assert_str_eq(s->switches[0].name, "S1");
	cr_assert_str_eq(s->switches[2].name, "S3");
	cr_assert_str_eq(s->switches[3].name, "SW", "file order is kept");
	scn_free(s);
}

Test(scn_loops, no_iterations_when_the_range_is_empty)
{
	scn_scenario *s = load_ok("for i in 5..4\n  switch S{i}\nend\nfor i in 0..0\n  switch Z{i}\nend\n" TAIL);
	cr_assert_eq(s->n_switches, 2);
	cr_assert_str_eq(s->switches[0].name, "Z0");
	scn_free(s);
}

Test(scn_loops, addresses_pfids_and_nested_loops)
{
	scn_scenario *s = load_ok("switch SP\n"
	                          "for l in 1..3\n"
	                          "  switch L{l}\n"
	                          "  wire U{l} L{l} SP\n"
	                          "  for k in 0..299\n"
	                          "    adapter R{(l-1)*300+k:04} pfid={0x1000+(l-1)*300+k:04X} switch=L{l}\n"
	                          "    stack H{(l-1)*300+k:04}\n"
	                          "      interface eth0 switch=L{l} ip=10.{l}.{k/250}.{k%250+1}/16\n"
	                          "      smcr pfid={0x1000+(l-1)*300+k:04X}\n"
	                          "    end\n"
	                          "  end\n"
	                          "end\n" TAIL);
	cr_assert_eq(s->n_stacks, 902);
	cr_assert_eq(s->n_adapters, 900);
	cr_assert_eq(s->n_wires, 3);
	const scn_stack *h = &s->stacks[300 + 251]; /* l=2, k=251 */
	cr_assert_str_eq(h->name, "H0551");
	cr_assert_eq(h->ifaces[0].ip, (10u << 24) | (2u << 16) | (1u << 8) | 2u, "10.2.1.2");
	cr_assert_eq(s->adapters[551].pfid, 0x1000 + 551);
	cr_assert_eq(h->smcr_ports[0].adapter, 551);
	cr_assert_str_eq(s->switches[s->adapters[551].port[0].sw].name, "L2");
	scn_free(s);
}

Test(scn_loops, loops_inside_a_stack_block_and_ports_and_times)
{
	scn_scenario *s = load_ok("switch SW\n"
	                          "stack R\n"
	                          "  for n in 1..4\n"
	                          "    interface e{n} switch=SW ip=10.{n}.0.1/24\n"
	                          "    route 172.16.{n}.0/24 via=10.{n}.0.2\n"
	                          "  end\n"
	                          "  forwarding on\n"
	                          "end\n"
	                          "stack C\n  interface e switch=SW ip=10.1.0.2/24\nend\n"
	                          "for p in 1..3\n"
	                          "  app s{p} R listen port={5000+p} kind=echo\n"
	                          "  app c{p} C connect R.e1:{5000+p} kind=echo start={p*10}ms\n"
	                          "  at {p}s expect mode c{p} == SMCR\n"
	                          "end\n");
	cr_assert_eq(s->stacks[0].n_ifaces, 4);
	cr_assert_eq(s->stacks[0].n_routes, 4);
	cr_assert_str_eq(s->stacks[0].ifaces[3].name, "e4");
	cr_assert(s->stacks[0].forwarding);
	cr_assert_eq(s->n_apps, 6);
	cr_assert_eq(s->apps[5].port, 5003);
	cr_assert_eq(s->apps[5].start_ns, 30000000ULL);
	cr_assert_eq(s->n_events, 3);
	cr_assert_eq(s->events[2].at_ns, 3000000000ULL);
	scn_free(s);
}

Test(scn_loops, the_dump_is_the_expanded_scenario_and_loads_to_itself)
{
	const char *looped = "scenario \"l\"\nswitch SW\n"
	                     "for i in 1..4\n"
	                     "  stack S{i}\n    interface e switch=SW ip=10.0.0.{i}/24\n  end\n"
	                     "end\n"
	                     "for i in 1..2\n"
	                     "  app l{i} S{2*i} listen port=7 kind=sink\n"
	                     "  app c{i} S{2*i-1} connect S{2*i}:7 kind=bulk bytes={i}K\n"
	                     "  expect sent c{i} == {i}K\n"
	                     "end\n";
	const char *flat = "scenario \"l\"\nswitch SW\n"
	                   "stack S1\n interface e switch=SW ip=10.0.0.1/24\nend\n"
	                   "stack S2\n interface e switch=SW ip=10.0.0.2/24\nend\n"
	                   "stack S3\n interface e switch=SW ip=10.0.0.3/24\nend\n"
	                   "stack S4\n interface e switch=SW ip=10.0.0.4/24\nend\n"
	                   "app l1 S2 listen port=7 kind=sink\napp c1 S1 connect S2:7 kind=bulk bytes=1K\nexpect sent c1 == 1K\n"
	                   "app l2 S4 listen port=7 kind=sink\napp c2 S3 connect S4:7 kind=bulk bytes=2K\nexpect sent c2 == 2K\n";
	scn_scenario *a = load_ok(looped), *b = load_ok(flat);
	char *da = dump_of(a), *db = dump_of(b);
	cr_assert_str_eq(da, db);
	scn_scenario *c = load_ok(da);
	char *dc = dump_of(c);
	cr_assert_str_eq(dc, da);
	free(da);
	free(db);
	free(dc);
	scn_free(a);
	scn_free(b);
	scn_free(c);
}

Test(scn_loops, end_closes_the_innermost_loop_or_block)
{
	/* the stack's `end` and the loop's `end` are told apart by nesting alone */
	scn_scenario *s = load_ok("switch SW\nfor i in 1..2\nstack X{i}\ninterface e switch=SW ip=10.0.0.{i}/24\nend\nend\n"
	                          "end 5s\n");
	cr_assert_eq(s->n_stacks, 2);
	cr_assert(s->has_end && s->end_ns == 5000000000ULL, "`end TIME` is the run's end, not a loop's");
	scn_free(s);
}

/* ---- errors in loops name the iteration ------------------------------------------------ */

Test(scn_loops, an_error_names_its_iteration_and_is_folded_over_the_others)
{
	EXPECT_ERRORS("for i in 1..5\n  switch S{i/2}\nend\n" TAIL,
	              "t.scn:2:10: in iteration i=3: duplicate switch 'S1' (first defined at 2:10 in iteration i=2); expected a unique name (and in 1 more iteration)\n");
	EXPECT_ERRORS("for i in 1..100\n  adapter A{i} pfid={0x100+i%7:04X} switch=SW\nend\n" TAIL,
	              "t.scn:2:21: in iteration i=8: duplicate PFID 0101 (adapter 'A1' at 2:3 in iteration i=1 has it); expected a PFID unique in the fabric (and in 92 more iterations)\n");
}

Test(scn_loops, nested_iterations_are_named_together)
{
	EXPECT_ERRORS("for a in 1..2\n  for b in 1..3\n    switch S{b}\n  end\nend\n" TAIL,
	              "t.scn:3:12: in iteration a=2, b=1: duplicate switch 'S1' (first defined at 3:12 in iteration a=1, b=1); expected a unique name (and in 2 more iterations)\n");
}

Test(scn_loops, checker_errors_of_expanded_items_name_the_iteration_too)
{
	EXPECT_ERRORS(TAIL "for i in 1..3\n  stack D{i}\n    interface e switch=SW ip=192.168.0.{i}/24\n  end\nend\n",
	              "t.scn:12:30: in iteration i=1: address 192.168.0.1 is already used by TA.e (3:3) on the same network (L2 segment of switch 'SW', untagged); expected a unique address (and in 1 more iteration)\n");
	/* and the other way round, the place of the first one */
	EXPECT_ERRORS("for i in 1..1\n  stack D{i}\n    interface e switch=SW ip=192.168.0.{i}/24\n  end\nend\n" TAIL,
	              "t.scn:8:28: address 192.168.0.1 is already used by D1.e (3:5 in iteration i=1) on the same network (L2 segment of switch 'SW', untagged); expected a unique address\n");
}

Test(scn_loops, expression_errors_point_into_the_word)
{
	EXPECT_ERRORS("for i in 1..3\n  switch S{10/(i-2)}\nend\n" TAIL,
	              "t.scn:2:14: in iteration i=2: '/' by zero; expected a divisor other than 0\n");
	EXPECT_ERRORS("switch X{j}\n" TAIL, "t.scn:1:10: unknown name 'j'; expected a loop variable or a parameter (none here)\n");
	EXPECT_ERRORS("for i in 1..2\n  switch X{i+k}\nend\n" TAIL,
	              "t.scn:2:14: in iteration i=1: unknown name 'k'; expected a loop variable or a parameter (i) (and in 1 more iteration)\n");
	EXPECT_ERRORS("switch X{1:04Q}\n" TAIL,
	              "t.scn:1:11: bad format ':04Q'; expected :d, :x, :X or a width before them, such as :04X or :03\n");
	EXPECT_ERRORS("switch X{0-1:X}\n" TAIL, "t.scn:1:13: -1 is negative; expected a value of 0 or more for hex ':X'\n");
	EXPECT_ERRORS("switch X{}\n" TAIL, "t.scn:1:10: the expression ends early; expected a number, a name or '('\n");
}

Test(scn_loops, malformed_loops)
{
	EXPECT_ERRORS("for\nend\n" TAIL, "t.scn:1:1: missing loop variable; expected for NAME in FROM..TO\n");
	EXPECT_ERRORS("for i-j in 1..2\nend\n" TAIL,
	              "t.scn:1:5: bad loop variable 'i-j'; expected a name of letters, digits and '_' (at most 31) such as i\n");
	EXPECT_ERRORS("for i of 1..2\nend\n" TAIL, "t.scn:1:7: a word where 'in' belongs; expected for NAME in FROM..TO\n");
	EXPECT_ERRORS("for i in\nend\n" TAIL, "t.scn:1:7: missing range after 'in'; expected for NAME in FROM..TO such as 1..32\n");
	EXPECT_ERRORS("for i in 1..2 step=2\nend\n" TAIL,
	              "t.scn:1:15: an attribute in the range; expected for NAME in FROM..TO such as 1..32\n");
	EXPECT_ERRORS("for i in 1-2\nend\n" TAIL, "t.scn:1:10: no '..' in the range; expected FROM..TO such as 1..32\n");
	EXPECT_ERRORS("for i in 1 .. 2+x\nend\n" TAIL,
	              "t.scn:1:17: unknown name 'x'; expected a loop variable or a parameter (none here)\n");
	EXPECT_ERRORS("for i in 1..2\n  switch S{i}\n" TAIL,
	              "t.scn:1:1: the loop 'for i' is not closed; expected 'end' before the end of the file\n");
	EXPECT_ERRORS("for i in 1..2\n  for i in 1..2\n  end\nend\n" TAIL,
	              "t.scn:2:7: in iteration i=1: loop variable 'i' is the variable of the loop at 1:1 already; expected another name (and in 1 more iteration)\n");
	EXPECT_ERRORS("param N=1\nfor N in 1..2\nend\n" TAIL,
	              "t.scn:2:5: loop variable 'N' is also a parameter (1:7); expected another name\n");
}

Test(scn_loops, loops_nest_at_most_16_deep)
{
	GString *t = g_string_new(NULL);
	for (int i = 0; i < 17; i++)
		g_string_append_printf(t, "for v%d in 1..1\n", i);
	for (int i = 0; i < 17; i++)
		g_string_append(t, "end\n");
	g_string_append(t, TAIL);
	EXPECT_ERRORS(t->str, "t.scn:17:1: loops nested deeper than 16; expected at most 16 levels\n");
	g_string_free(t, TRUE);
}

Test(scn_loops, what_a_loop_in_a_stack_block_may_hold)
{
	EXPECT_ERRORS("stack Q\n  interface e switch=SW ip=10.1.1.1/24\n  for k in 1..2\n    app z{k} Q listen port=1 kind=sink\n  end\nend\n" TAIL,
	              "t.scn:4:5: 'app' inside the loop at 3:3 in the block of stack 'Q' (opened at 1:1); expected only interface, route, forwarding and smcr statements there\n");
	EXPECT_ERRORS("stack Q\n  interface e switch=SW ip=10.1.1.1/24\n  for k in 1..2\n  end 5s\nend\n" TAIL,
	              "t.scn:4:7: 'end' closing the loop at 3:3 takes nothing after it; expected 'end' alone\n");
	EXPECT_ERRORS("for i in 1..2\n  interface e switch=SW ip=10.1.1.1/24\nend\n" TAIL,
	              "t.scn:2:3: in iteration i=1: 'interface' outside a stack block; expected it between 'stack NAME' and 'end' (and in 1 more iteration)\n");
	EXPECT_ERRORS("{1}x\n" TAIL, "t.scn:1:1: a statement cannot start with '{…}'; expected a keyword such as stack or app\n");
}

Test(scn_loops, braces_are_lexed_whole_on_their_line)
{
	scn_scenario *s = load_ok("switch S{ 2 * (3 + 1) }\n" TAIL);
	cr_assert_str_eq(s->switches[0].name, "S8");
	scn_free(s);
	EXPECT_ERRORS("switch S{ 2 # 3 }\n" TAIL, "t.scn:1:13: '#' after a complete value; expected an operator + - * / % or the end\n");
	EXPECT_ERRORS("switch S{1\n" TAIL, "t.scn:1:9: '{' is not closed; expected '}' on the same line\n");
	EXPECT_ERRORS("switch S{1{2}}\n" TAIL, "t.scn:1:11: '{' inside '{…}' (opened at column 9); expected one level of braces\n");
	EXPECT_ERRORS("switch S}\n" TAIL, "t.scn:1:9: '}' without '{'; expected '{' before it, as in R{i}\n");
	EXPECT_ERRORS("switch S{\"x\"}\n" TAIL, "t.scn:1:10: '\"' inside '{…}'; expected an expression such as {i*2+1}\n");
	/* a quoted string is literal */
	s = load_ok("scenario \"{i} stays\"\n" TAIL);
	cr_assert_str_eq(s->title, "{i} stays");
	scn_free(s);
}

/* ---- parameters --------------------------------------------------------------------- */

#define PARAMS                                         \
	"param N=3\n"                                  \
	"param DATA=64K\n"                             \
	"param START=10ms\n"                           \
	"param PERS=zos type=text\n"                   \
	"param PF=0x0101\n"                            \
	"switch SW\n"                                  \
	"adapter RA pfid={PF} switch=SW\n"             \
	"for i in 1..N\n"                              \
	"  stack S{i} personality={PERS}\n"            \
	"    interface e switch=SW ip=10.0.0.{i}/24\n" \
	"  end\n"                                      \
	"end\n"                                        \
	"app l S1 listen port=7 kind=sink\n"           \
	"app c S2 connect S1:7 kind=bulk bytes={DATA} start={START}\n"

Test(scn_loops, parameters_with_their_defaults)
{
	scn_scenario *s = load_ok(PARAMS);
	cr_assert_eq(s->n_stacks, 3);
	cr_assert_eq(s->stacks[0].personality, SCN_PERS_ZOS);
	cr_assert_eq(s->apps[1].bytes, 65536);
	cr_assert_eq(s->apps[1].start_ns, 10000000ULL);
	cr_assert_eq(s->adapters[0].pfid, 0x0101, "{PF} alone is its text: 0x0101 stays hex");
	cr_assert_eq(s->n_params, 5);
	cr_assert_str_eq(s->params[0].name, "N");
	cr_assert_eq(s->params[0].kind, SCN_PARAM_INT);
	cr_assert_eq(s->params[1].kind, SCN_PARAM_SIZE);
	cr_assert_eq(s->params[2].kind, SCN_PARAM_DURATION);
	cr_assert_eq(s->params[3].kind, SCN_PARAM_TEXT);
	cr_assert_not(s->params[0].overridden);
	scn_free(s);
}

Test(scn_loops, set_overrides_parameters_and_the_dump_shows_the_values)
{
	static const char *const set[] = { "N=5", "DATA=1M", "PERS=linux", "START=0" };
	scn_scenario *s = load_set(PARAMS, set, 4);
	cr_assert_eq(s->n_stacks, 5);
	cr_assert_eq(s->stacks[4].personality, SCN_PERS_LINUX);
	cr_assert_eq(s->apps[1].bytes, 1048576);
	cr_assert_eq(s->apps[1].start_ns, 0);
	cr_assert(s->params[0].overridden && !s->params[4].overridden);
	char *d = dump_of(s);
	cr_assert(strstr(d, "param N=5 type=int\nparam DATA=1M type=size\nparam START=0 type=duration\n"
	                    "param PERS=linux type=text\nparam PF=0x0101 type=int\n"),
	          "%s", d);
	cr_assert(strstr(d, "stack S5 personality=linux"));
	scn_scenario *again = load_ok(d);
	char *d2 = dump_of(again);
	cr_assert_str_eq(d2, d, "the dump loads to itself");
	free(d);
	free(d2);
	scn_free(again);
	scn_free(s);
}

Test(scn_loops, kinds_are_inferred_from_the_default_or_given)
{
	scn_scenario *s = load_ok("param A=7\nparam B=-3\nparam C=2.5ms\nparam D=1M\nparam E=10Gbps\nparam F=1/1000\n"
	                          "param G=yes\nparam H=fast\nparam I=0 type=ratio\nparam J=\"two words\"\nparam K={A*2}\n" TAIL);
	static const scn_param_kind want[] = { SCN_PARAM_INT, SCN_PARAM_INT, SCN_PARAM_DURATION, SCN_PARAM_SIZE,
		                               SCN_PARAM_RATE, SCN_PARAM_RATIO, SCN_PARAM_BOOL, SCN_PARAM_TEXT,
		                               SCN_PARAM_RATIO, SCN_PARAM_TEXT, SCN_PARAM_INT };
	cr_assert_eq(s->n_params, 11);
	for (size_t i = 0; i < 11; i++)
		cr_assert_eq(s->params[i].kind, want[i], "param %s", s->params[i].name);
	cr_assert_str_eq(s->params[9].value, "two words");
	cr_assert_str_eq(s->params[10].value, "14", "a default may use earlier parameters");
	scn_free(s);
}

Test(scn_loops, parameter_errors_name_the_parameter_and_its_line)
{
	static const char *const wrong_kind[] = { "N=abc" };
	EXPECT_ERRORS_SET(PARAMS, wrong_kind,
	                  "t.scn:1:9: --set N=abc is not an integer, the kind of parameter 'N' (default 3); expected a decimal or 0x-prefixed hex integer\n");
	static const char *const wrong_size[] = { "DATA=10ms" };
	EXPECT_ERRORS_SET(PARAMS, wrong_size,
	                  "t.scn:2:12: --set DATA=10ms is not a size, the kind of parameter 'DATA' (default 64K); expected a unit K, KiB, M, MiB, G, GiB, T, TiB, KB, MB, GB or TB\n");
	static const char *const unknown[] = { "M=1" };
	EXPECT_ERRORS_SET(PARAMS, unknown,
	                  "t.scn: --set M=1: no parameter 'M' in this scenario; expected one of its parameters: N (1:7), DATA (2:7), START (3:7), PERS (4:7), PF (5:7)\n");
	static const char *const twice[] = { "N=1", "N=2" };
	EXPECT_ERRORS_SET(PARAMS, twice, "t.scn: --set N given twice (also as N=1); expected each parameter once\n");
	static const char *const malformed[] = { "N" };
	EXPECT_ERRORS_SET(PARAMS, malformed, "t.scn: bad --set 'N'; expected NAME=VALUE such as N=32\n");
	static const char *const none[] = { "N=1" };
	EXPECT_ERRORS_SET(TAIL, none, "t.scn: --set N=1: no parameter 'N' in this scenario; expected a 'param' line for it (the scenario has none)\n");
}

Test(scn_loops, parameter_definition_errors)
{
	EXPECT_ERRORS("switch S{N}\nparam N=2\n" TAIL,
	              "t.scn:1:10: parameter 'N' is used before its definition at 2:7; expected its 'param' line above its first use\n");
	EXPECT_ERRORS("param N=2\nparam N=3\n" TAIL,
	              "t.scn:2:7: repeated parameter 'N' (first at 1:7); expected each parameter once\n");
	EXPECT_ERRORS("param N=x type=int\n" TAIL,
	              "t.scn:1:9: default 'x' of parameter 'N' is not an integer; expected a decimal or 0x-prefixed hex integer\n");
	EXPECT_ERRORS("param N=1 type=number\n" TAIL,
	              "t.scn:1:16: bad type 'number' for parameter 'N'; expected int, duration, size, rate, ratio, bool or text\n");
	EXPECT_ERRORS("param N=1 extra\n" TAIL,
	              "t.scn:1:11: unexpected 'extra'; expected param NAME=DEFAULT [type=int|duration|size|rate|ratio|bool|text]\n");
	EXPECT_ERRORS("param\n" TAIL, "t.scn:1:1: missing NAME=DEFAULT; expected param NAME=DEFAULT [type=KIND]\n");
	EXPECT_ERRORS("param D=64K\nswitch S{D+1}\n" TAIL,
	              "t.scn:2:10: parameter 'D' is a size (64K), not an integer; expected an integer in arithmetic ({D} alone gives its text)\n");
	EXPECT_ERRORS("param D=64K\nswitch S{D:04X}\n" TAIL,
	              "t.scn:2:11: ':04X' formats integers, but parameter 'D' is a size; expected {D} without a format\n");
	EXPECT_ERRORS("param N=99999999999999999999\n" TAIL,
	              "t.scn:1:9: default '99999999999999999999' of parameter 'N' is out of range (max 9223372036854775807); expected a smaller integer\n");
	/* a default that uses its own parameter: reported, not a silently dropped scenario */
	EXPECT_ERRORS("param N={N}\nswitch S{N}\n" TAIL,
	              "t.scn:1:10: parameter 'N' is used in its own default; expected a default of values and parameters defined above it\n");
	EXPECT_ERRORS("param N={N+1}\n" TAIL,
	              "t.scn:1:10: parameter 'N' is used in its own default; expected a default of values and parameters defined above it\n");
	static const char *const big[] = { "N=-9223372036854775809" };
	EXPECT_ERRORS_SET("param N=1\n" TAIL, big,
	                  "t.scn:1:9: --set N=-9223372036854775809 is out of range (max 9223372036854775807) for parameter 'N'; expected a smaller integer\n");
}

Test(scn_loops, a_broken_parameter_is_reported_once)
{
	/* N's --set value is wrong: what uses N raises nothing more */
	static const char *const set[] = { "N=x" };
	EXPECT_ERRORS_SET("param N=2\nfor i in 1..N\n  switch S{i+N}\nend\n" TAIL, set,
	                  "t.scn:1:9: --set N=x is not an integer, the kind of parameter 'N' (default 2); expected a decimal or 0x-prefixed hex integer\n");
	EXPECT_ERRORS("for i in 1..2\n  param Z=3\nend\n" TAIL, "t.scn:2:3: 'param' inside the loop at 1:1; expected param at top level\n");
	EXPECT_ERRORS("stack Q\n  param Z=3\n  interface e switch=SW ip=10.1.1.1/24\nend\n" TAIL,
	              "t.scn:2:3: 'param' inside the block of stack 'Q' (opened at 1:1); expected param at top level\n");
}

/* ---- limits ------------------------------------------------------------------------- */

Test(scn_loops, a_loop_over_a_limit_is_refused_before_it_expands)
{
	/* a billion statements would take minutes and gigabytes: the loop is measured first */
	EXPECT_ERRORS("for i in 1..1000000000\n  expect aborted == 0\nend\n" TAIL,
	              "t.scn:1:1: this loop makes 1000000000 statements (1000000000 iterations); expected at most 1000000 statements in a scenario\n");
	EXPECT_ERRORS("for i in 1..100\n  for j in 1..1000\n    switch S{i}_{j}\n  end\nend\n" TAIL,
	              "t.scn:1:1: this loop makes 100000 switches (100 iterations); expected at most 16384 switches in a scenario\n");
	EXPECT_ERRORS("for i in 1..65537\n  stack S{i}\n  end\nend\n" TAIL,
	              "t.scn:1:1: this loop makes 65537 stacks (65537 iterations); expected at most 65536 stacks in a scenario\n");
	/* an empty body still takes a step per iteration */
	EXPECT_ERRORS("for i in -9223372036854775807-1..9223372036854775807\nend\n" TAIL,
	              "t.scn:1:1: this loop makes over 18446744073709551615 loop iterations (18446744073709551615 iterations); expected at most 1000000 loop iterations in a scenario\n");
	EXPECT_ERRORS("for i in 1..1000001\nend\n" TAIL,
	              "t.scn:1:1: this loop makes 1000001 loop iterations (1000001 iterations); expected at most 1000000 loop iterations in a scenario\n");
}

Test(scn_loops, limits_count_what_came_before)
{
	EXPECT_ERRORS("for i in 1..16000\n  switch A{i}\nend\nfor i in 1..1000\n  switch B{i}\nend\n" TAIL,
	              "t.scn:4:1: this loop makes 1000 switches (1000 iterations), 17000 with those before it; expected at most 16384 switches in a scenario\n");
}

Test(scn_loops, a_loop_whose_bound_needs_the_outer_variable_is_counted_as_it_goes)
{
	/* 1+2+…+400 = 80200 adapters: the inner loops are measured as each starts */
	EXPECT_ERRORS("for i in 1..400\n  for j in 1..i\n    adapter A{i}_{j} pfid={i*400+j:X} switch=SW\n  end\nend\n" TAIL,
	              "t.scn:2:3: in iteration i=362: this loop makes 362 adapters (362 iterations), 65703 with those before it; expected at most 65536 adapters in a scenario\n");
}

Test(scn_loops, iterations_of_loops_whose_bounds_need_the_outer_variable)
{
	EXPECT_ERRORS("for i in 1..2000\n  for j in 1..i\n  end\nend\n" TAIL,
	              "t.scn:2:3: in iteration i=1413: this loop makes 1413 loop iterations (1413 iterations), 1000404 with those before it; expected at most 1000000 loop iterations in a scenario\n");
}

Test(scn_loops, the_connections_of_all_apps_are_limited)
{
	EXPECT_ERRORS("for i in 1..65\n  app c{i} TA connect TB:9 kind=bulk conns=65535\nend\n" TAIL,
	              "t.scn:2:3: in iteration i=65: app 'c65' (conns=65535) takes the connections over the limit: 4259776 in all; expected at most 4194304 connections in a scenario\n");
}

Test(scn_loops, interfaces_per_stack_are_limited)
{
	EXPECT_ERRORS("stack BIG\n  for k in 0..1024\n    interface e{k} switch=SW ip=10.{k/250}.{k%250}.1/24\n  end\nend\n" TAIL,
	              "t.scn:3:15: in iteration k=1024: interface 1025 of stack 'BIG'; expected at most 1024 interfaces per stack\n");
}

/* ---- bad input ---------------------------------------------------------------------- */

Test(scn_loops, an_unknown_interface_of_a_stack_further_down)
{
	/* used to read stacks[] before the stack was parsed: a crash, or garbage */
	EXPECT_ERRORS("app c A connect B.nosuch:5000 kind=bulk\nstack A\nend\nstack B\nend\n",
	              "t.scn:1:17: stack 'B' has no interface 'nosuch'; expected one of its interfaces (it has none)\n"
	              "t.scn:2:1: stack 'A' has no interface; expected at least one 'interface' statement in its block\n"
	              "t.scn:4:1: stack 'B' has no interface; expected at least one 'interface' statement in its block\n");
	EXPECT_ERRORS("at 1s fail interface B.eth9\nswitch SW\nstack B\n  interface eth0 switch=SW ip=10.0.0.1/24\nend\n",
	              "t.scn:1:22: stack 'B' has no interface 'eth9'; expected one of its interfaces (eth0)\n");
}

Test(scn_loops, lines_words_and_statements_are_bounded)
{
	GString *t = g_string_new("switch ");
	for (int i = 0; i < 70000; i++)
		g_string_append_c(t, 'A');
	g_string_append(t, "\n" TAIL);
	EXPECT_ERRORS(t->str, "t.scn:1:65537: line 1 is 70007 bytes long; expected at most 65536 bytes per line\n");
	g_string_assign(t, "switch ");
	for (int i = 0; i < 5000; i++)
		g_string_append_c(t, 'A');
	g_string_append(t, "\n" TAIL);
	EXPECT_ERRORS(t->str, "t.scn:1:8: a word of more than 4096 bytes; expected shorter words\n");
	g_string_assign(t, "scenario \"");
	for (int i = 0; i < 5000; i++)
		g_string_append_c(t, 'x');
	g_string_append(t, "\"\n" TAIL);
	EXPECT_ERRORS(t->str, "t.scn:1:10: a word of more than 4096 bytes; expected shorter words\n");
	g_string_assign(t, "switch A");
	for (int i = 0; i < 1100; i++)
		g_string_append(t, " \\\nx");
	g_string_append(t, "\n" TAIL);
	EXPECT_ERRORS(t->str, "t.scn:1024:1: more than 1024 words in one statement; expected at most 1024\n");
	g_string_free(t, TRUE);
}

Test(scn_loops, long_words_are_echoed_cut)
{
	GString *t = g_string_new("switch S vlans=");
	for (int i = 0; i < 300; i++)
		g_string_append_c(t, 'x');
	g_string_append(t, "\n" TAIL);
	EXPECT_ERRORS(t->str, "t.scn:1:16: bad VLAN list 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx… (300 bytes)' for vlans; expected VLAN ids 1..4094\n");
	g_string_free(t, TRUE);
}

Test(scn_loops, numbers_too_large_are_out_of_range)
{
	EXPECT_ERRORS("switch SW\nstack A\n  interface e switch=SW ip=10.0.0.1/24\n  smcr rmbsize=18446744073709551616\nend\n",
	              "t.scn:4:16: rmbsize=18446744073709551616 is out of range (max 512M); expected 16K..512M\n");
	EXPECT_ERRORS("seed 18446744073709551616\n" TAIL,
	              "t.scn:1:6: seed=18446744073709551616 is out of range (max 18446744073709551615); expected 0..18446744073709551615\n");
	EXPECT_ERRORS("end 99999999999999999999h\n" TAIL,
	              "t.scn:1:5: end=99999999999999999999h is out of range (max 24h); expected 1ns..24h\n");
	EXPECT_ERRORS("switch SW\nadapter R pfid=0x10000000000000000 switch=SW\n",
	              "t.scn:2:16: pfid=0x10000000000000000 is out of range (max 0xffff); expected at most 0xffff\n");
	EXPECT_ERRORS("app x TA connect TB:9 kind=bulk start=99999999999999999999s\n" TAIL,
	              "t.scn:1:39: start=99999999999999999999s is out of range (max 24h); expected 0..24h\n");
}

Test(scn_loops, end_and_seed_have_one_rule_for_files_and_the_command_line)
{
	uint64_t v;
	char err[256];
	cr_assert(scn_parse_end_time("24h", &v, err, sizeof(err)) && v == 24ULL * 3600 * 1000000000ULL);
	cr_assert_not(scn_parse_end_time("5", &v, err, sizeof(err)));
	cr_assert_str_eq(err, "bad duration '5' for end; expected a unit after the number: ns, us, ms, s, m or h");
	cr_assert_not(scn_parse_end_time("100h", &v, err, sizeof(err)));
	cr_assert_str_eq(err, "end=100h is out of range; expected 1ns..24h");
	cr_assert_not(scn_parse_end_time("0", &v, err, sizeof(err)));
	cr_assert_str_eq(err, "end=0 is out of range; expected 1ns..24h");
	cr_assert(scn_parse_seed("0x10", &v, err, sizeof(err)) && v == 16);
	cr_assert_not(scn_parse_seed("-1", &v, err, sizeof(err)));
	cr_assert_str_eq(err, "bad integer '-1' for seed; expected a decimal or 0x-prefixed hex integer");
}

Test(scn_loops, endless_files_are_refused_at_the_size_limit)
{
	scn_diag d;
	scn_diag_init(&d);
	cr_assert_null(scn_load_file("/dev/zero", &d));
	cr_assert_eq(scn_diag_count(&d), 1);
	cr_assert_str_eq(scn_diag_message(&d, 0),
	                 "/dev/zero: the file is larger than 64 MiB; expected a scenario file of at most 67108864 bytes");
	scn_diag_free(&d);
}
