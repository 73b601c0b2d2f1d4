/* Integer expressions of scenario files (sim/scenario/scn_expr.c): precedence, names,
 * ranges, formats, and every error with its offset. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sim/scenario/scn_expr.h"

/* i = 17, N = 250, BIG = INT64_MAX; anything else is unknown */
static bool names(void *ctx, const char *name, size_t len, int64_t *value, scn_expr_err *err)
{
	(void)ctx;
	if (len == 1 && name[0] == 'i')
		*value = 17;
	else if (len == 1 && name[0] == 'N')
		*value = 250;
	else if (len == 3 && !memcmp(name, "BIG", 3))
		*value = INT64_MAX;
	else {
		snprintf(err->msg, sizeof(err->msg), "unknown name '%.*s'", (int)len, name);
		return false;
	}
	return true;
}

static int64_t eval(const char *text)
{
	int64_t v;
	scn_expr_err err;
	cr_assert(scn_expr_eval(text, strlen(text), names, NULL, &v, &err), "'%s' refused: %s", text, err.msg);
	return v;
}

/* The message of a refused expression, with its offset as "@N: ". */
static const char *why(const char *text)
{
	static char buf[512];
	int64_t v;
	scn_expr_err err;
	cr_assert_not(scn_expr_eval(text, strlen(text), names, NULL, &v, &err), "'%s' gave %lld", text, (long long)v);
	snprintf(buf, sizeof(buf), "@%zu: %s", err.at, err.msg);
	return buf;
}

Test(scn_expr, precedence_and_associativity)
{
	cr_assert_eq(eval("1+2*3"), 7);
	cr_assert_eq(eval("(1+2)*3"), 9);
	cr_assert_eq(eval("10-4-3"), 3, "left to right");
	cr_assert_eq(eval("100/10/5"), 2);
	cr_assert_eq(eval("7%4*2"), 6);
	cr_assert_eq(eval("-3+5"), 2);
	cr_assert_eq(eval("--3"), 3);
	cr_assert_eq(eval("2*-3"), -6);
	cr_assert_eq(eval(" ( i - 1 ) / 8 + 1 "), 3, "blanks anywhere between");
	cr_assert_eq(eval("0x0100+i"), 0x111);
	cr_assert_eq(eval("0XfF"), 255);
}

Test(scn_expr, division_truncates_toward_zero)
{
	cr_assert_eq(eval("7/2"), 3);
	cr_assert_eq(eval("-7/2"), -3);
	cr_assert_eq(eval("-7%2"), -1);
	cr_assert_eq(eval("i/N"), 0);
	cr_assert_eq(eval("i%N+1"), 18);
}

Test(scn_expr, names_come_from_the_caller)
{
	cr_assert_eq(eval("i*N"), 4250);
	cr_assert_str_eq(why("j+1"), "@0: unknown name 'j'");
	cr_assert_str_eq(why("i+_x"), "@2: unknown name '_x'");
	cr_assert(scn_expr_is_name("leaf_2", 6));
	cr_assert_not(scn_expr_is_name("2leaf", 5));
	cr_assert_not(scn_expr_is_name("a-b", 3));
	cr_assert_not(scn_expr_is_name("", 0));
}

Test(scn_expr, malformed_expressions_say_where)
{
	cr_assert_str_eq(why(""), "@0: the expression ends early; expected a number, a name or '('");
	cr_assert_str_eq(why("1+"), "@2: the expression ends early; expected a number, a name or '('");
	cr_assert_str_eq(why("(1+2"), "@4: '(' at offset 1 is not closed; expected ')'");
	cr_assert_str_eq(why("1+2)"), "@3: ')' without '('; expected an operator or the end of the expression");
	cr_assert_str_eq(why("1 2"), "@2: '2' after a complete value; expected an operator + - * / % or the end");
	cr_assert_str_eq(why("3i"), "@1: 'i' inside a number; expected an operator or the end of the expression");
	cr_assert_str_eq(why("0x"), "@0: '0x' without hex digits; expected a number such as 0x1f");
	cr_assert_str_eq(why("1+*2"), "@2: '*' where a value belongs; expected a number, a name or '('");
	cr_assert_str_eq(why("i.5"), "@1: '.' after a complete value; expected an operator + - * / % or the end");
}

Test(scn_expr, overflow_and_division_by_zero_are_errors)
{
	cr_assert_str_eq(why("1/0"), "@1: '/' by zero; expected a divisor other than 0");
	cr_assert_str_eq(why("5%(i-17)"), "@1: '%' by zero; expected a divisor other than 0");
	cr_assert_str_eq(why("9223372036854775808"),
	                 "@0: number '9223372036854775808' is out of range (max 9223372036854775807); expected a smaller number");
	cr_assert_eq(eval("9223372036854775807"), INT64_MAX);
	cr_assert_str_eq(why("BIG+1"), "@3: the sum is out of range (max 9223372036854775807); expected smaller numbers");
	cr_assert_str_eq(why("-BIG-2"), "@4: the difference is out of range (max 9223372036854775807); expected smaller numbers");
	cr_assert_str_eq(why("BIG*2"), "@3: the product is out of range (max 9223372036854775807); expected smaller factors");
	cr_assert_eq(eval("-BIG-1"), INT64_MIN);
	cr_assert_str_eq(why("(-BIG-1)/-1"), "@8: the quotient is out of range (max 9223372036854775807); expected a smaller number");
	/* the remainder of the same division is 0, not an error */
	cr_assert_eq(eval("(-BIG-1)%-1"), 0);
	cr_assert_eq(eval("(-BIG-1)%-1 + 5"), 5);
	cr_assert_str_eq(why("-(-BIG-1)"), "@0: -(-9223372036854775808) is out of range (max 9223372036854775807); expected a smaller number");
}

Test(scn_expr, nesting_is_bounded)
{
	char deep[200] = "";
	for (int i = 0; i < SCN_EXPR_MAX_DEPTH + 1; i++)
		strcat(deep, "(");
	strcat(deep, "1");
	cr_assert(strstr(why(deep), "parentheses nested deeper than 32"));
	char minus[200] = "";
	for (int i = 0; i < SCN_EXPR_MAX_DEPTH + 1; i++)
		strcat(minus, "-");
	strcat(minus, "1");
	cr_assert(strstr(why(minus), "'-' nested deeper than 32"));
	char ok[200] = "";
	for (int i = 0; i < SCN_EXPR_MAX_DEPTH; i++)
		strcat(ok, "(");
	strcat(ok, "7");
	for (int i = 0; i < SCN_EXPR_MAX_DEPTH; i++)
		strcat(ok, ")");
	cr_assert_eq(eval(ok), 7);
}

Test(scn_expr, ranges)
{
	int64_t a, b;
	scn_expr_err err;
	cr_assert(scn_expr_range("1..N", 4, names, NULL, &a, &b, &err));
	cr_assert(a == 1 && b == 250);
	cr_assert(scn_expr_range("0 .. (i-1)*2", 12, names, NULL, &a, &b, &err));
	cr_assert(a == 0 && b == 32);
	cr_assert_not(scn_expr_range("1-32", 4, names, NULL, &a, &b, &err));
	cr_assert_str_eq(err.msg, "no '..' in the range; expected FROM..TO such as 1..32");
	cr_assert_not(scn_expr_range("1..x", 4, names, NULL, &a, &b, &err));
	cr_assert_eq(err.at, 3, "the offset counts from the start of the range");
	cr_assert_not(scn_expr_range("1...3", 5, names, NULL, &a, &b, &err));
	cr_assert_eq(err.at, 3);
}

static const char *fmt(int64_t v, const char *spec)
{
	static char buf[64];
	scn_expr_err err;
	cr_assert(scn_expr_format(v, spec, strlen(spec), buf, sizeof(buf), &err), "%s: %s", spec, err.msg);
	return buf;
}

Test(scn_expr, formats)
{
	cr_assert_str_eq(fmt(257, ""), "257");
	cr_assert_str_eq(fmt(257, "d"), "257");
	cr_assert_str_eq(fmt(7, "03"), "007");
	cr_assert_str_eq(fmt(7, "3"), "007", "a width always pads with zeros");
	cr_assert_str_eq(fmt(0x10a, "04X"), "010A");
	cr_assert_str_eq(fmt(0x10a, "x"), "10a");
	cr_assert_str_eq(fmt(0x12345, "04X"), "12345", "a width is a minimum");
	cr_assert_str_eq(fmt(-5, "03"), "-05");
	char buf[64];
	scn_expr_err err;
	cr_assert_not(scn_expr_format(-1, "X", 1, buf, sizeof(buf), &err));
	cr_assert_str_eq(err.msg, "-1 is negative; expected a value of 0 or more for hex ':X'");
	cr_assert_not(scn_expr_format(1, "04Y", 3, buf, sizeof(buf), &err));
	cr_assert_str_eq(err.msg, "bad format ':04Y'; expected :d, :x, :X or a width before them, such as :04X or :03");
	cr_assert_not(scn_expr_format(1, "99", 2, buf, sizeof(buf), &err), "widths stop at 20");
	cr_assert_not(scn_expr_format(1, "Xd", 2, buf, sizeof(buf), &err));
}
