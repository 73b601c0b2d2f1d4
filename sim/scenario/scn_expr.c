/* Integer expressions: a recursive-descent evaluator with exact overflow checks. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim/scenario/scn_expr.h"

typedef struct ev {
	const char *s;
	size_t len, pos;
	scn_expr_lookup lookup;
	void *ctx;
	scn_expr_err *err;
	unsigned depth;
} ev;

static bool fail_at(ev *e, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool fail_at(ev *e, size_t at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->err->msg, sizeof(e->err->msg), fmt, ap);
	va_end(ap);
	e->err->at = at;
	return false;
}

static void skip_blanks(ev *e)
{
	while (e->pos < e->len && (e->s[e->pos] == ' ' || e->s[e->pos] == '\t'))
		e->pos++;
}

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && c >= '0' && c <= '9');
}

bool scn_expr_is_name(const char *name, size_t len)
{
	if (!len || !name_char(name[0], true))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!name_char(name[i], false))
			return false;
	return true;
}

static int digit_value(char c, bool hex)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (hex && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (hex && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool number(ev *e, int64_t *out)
{
	size_t start = e->pos;
	bool hex = e->pos + 1 < e->len && e->s[e->pos] == '0' && (e->s[e->pos + 1] == 'x' || e->s[e->pos + 1] == 'X');
	if (hex)
		e->pos += 2;
	int base = hex ? 16 : 10;
	int64_t v = 0;
	size_t digits = 0;
	int d;
	while (e->pos < e->len && (d = digit_value(e->s[e->pos], hex)) >= 0) {
		if (__builtin_mul_overflow(v, base, &v) || __builtin_add_overflow(v, d, &v))
			return fail_at(e, start, "number '%.*s' is out of range (max %" PRId64 "); expected a smaller number",
			               (int)(e->len - start > 40 ? 40 : e->len - start), e->s + start, INT64_MAX);
		e->pos++;
		digits++;
	}
	if (!digits)
		return fail_at(e, start, "'0x' without hex digits; expected a number such as 0x1f");
	if (e->pos < e->len && name_char(e->s[e->pos], false))
		return fail_at(e, e->pos, "'%c' inside a number; expected an operator or the end of the expression",
		               e->s[e->pos]);
	*out = v;
	return true;
}

static bool expr(ev *e, int64_t *out);

static bool primary(ev *e, int64_t *out)
{
	skip_blanks(e);
	if (e->pos >= e->len)
		return fail_at(e, e->pos, "the expression ends early; expected a number, a name or '('");
	char c = e->s[e->pos];
	if (c >= '0' && c <= '9')
		return number(e, out);
	if (name_char(c, true)) {
		size_t start = e->pos;
		while (e->pos < e->len && name_char(e->s[e->pos], false))
			e->pos++;
		if (!e->lookup(e->ctx, e->s + start, e->pos - start, out, e->err)) {
			e->err->at = start;
			return false;
		}
		return true;
	}
	if (c == '(') {
		size_t open = e->pos++;
		if (++e->depth > SCN_EXPR_MAX_DEPTH)
			return fail_at(e, open, "parentheses nested deeper than %d; expected a simpler expression",
			               SCN_EXPR_MAX_DEPTH);
		if (!expr(e, out))
			return false;
		e->depth--;
		skip_blanks(e);
		if (e->pos >= e->len || e->s[e->pos] != ')')
			return fail_at(e, e->pos < e->len ? e->pos : e->len, "'(' at offset %zu is not closed; expected ')'",
			               open + 1);
		e->pos++;
		return true;
	}
	return fail_at(e, e->pos, "'%c' where a value belongs; expected a number, a name or '('", c);
}

static bool unary(ev *e, int64_t *out)
{
	skip_blanks(e);
	if (e->pos < e->len && e->s[e->pos] == '-') {
		size_t at = e->pos++;
		if (++e->depth > SCN_EXPR_MAX_DEPTH)
			return fail_at(e, at, "'-' nested deeper than %d; expected a simpler expression", SCN_EXPR_MAX_DEPTH);
		int64_t v;
		if (!unary(e, &v))
			return false;
		e->depth--;
		if (v == INT64_MIN)
			return fail_at(e, at, "-(%" PRId64 ") is out of range (max %" PRId64 "); expected a smaller number", v,
			               INT64_MAX);
		*out = -v;
		return true;
	}
	return primary(e, out);
}

static bool term(ev *e, int64_t *out)
{
	int64_t v;
	if (!unary(e, &v))
		return false;
	for (;;) {
		skip_blanks(e);
		if (e->pos >= e->len)
			break;
		char op = e->s[e->pos];
		if (op != '*' && op != '/' && op != '%')
			break;
		size_t at = e->pos++;
		int64_t r;
		if (!unary(e, &r))
			return false;
		if (op == '*') {
			if (__builtin_mul_overflow(v, r, &v))
				return fail_at(e, at, "the product is out of range (max %" PRId64 "); expected smaller factors",
				               INT64_MAX);
			continue;
		}
		if (r == 0)
			return fail_at(e, at, "'%c' by zero; expected a divisor other than 0", op);
		if (v == INT64_MIN && r == -1) {
			/* the remainder is 0; only the quotient is out of range (and C leaves both undefined) */
			if (op == '%') {
				v = 0;
				continue;
			}
			return fail_at(e, at, "the quotient is out of range (max %" PRId64 "); expected a smaller number",
			               INT64_MAX);
		}
		v = op == '/' ? v / r : v % r;
	}
	*out = v;
	return true;
}

static bool expr(ev *e, int64_t *out)
{
	int64_t v;
	if (!term(e, &v))
		return false;
	for (;;) {
		skip_blanks(e);
		if (e->pos >= e->len)
			break;
		char op = e->s[e->pos];
		if (op != '+' && op != '-')
			break;
		size_t at = e->pos++;
		int64_t r;
		if (!term(e, &r))
			return false;
		if (op == '+' ? __builtin_add_overflow(v, r, &v) : __builtin_sub_overflow(v, r, &v))
			return fail_at(e, at, "the %s is out of range (max %" PRId64 "); expected smaller numbers",
			               op == '+' ? "sum" : "difference", INT64_MAX);
	}
	*out = v;
	return true;
}

bool scn_expr_eval(const char *text, size_t len, scn_expr_lookup lookup, void *ctx, int64_t *out, scn_expr_err *err)
{
	ev e = { .s = text, .len = len, .lookup = lookup, .ctx = ctx, .err = err };
	if (!expr(&e, out))
		return false;
	skip_blanks(&e);
	if (e.pos < e.len) {
		char c = e.s[e.pos];
		if (c == ')')
			return fail_at(&e, e.pos, "')' without '('; expected an operator or the end of the expression");
		return fail_at(&e, e.pos, "'%c' after a complete value; expected an operator + - * / %% or the end", c);
	}
	return true;
}

bool scn_expr_range(const char *text, size_t len, scn_expr_lookup lookup, void *ctx, int64_t *from, int64_t *to,
                    scn_expr_err *err)
{
	size_t dots = len;
	for (size_t i = 0; i + 1 < len; i++)
		if (text[i] == '.' && text[i + 1] == '.') {
			dots = i;
			break;
		}
	if (dots == len) {
		err->at = 0;
		snprintf(err->msg, sizeof(err->msg), "no '..' in the range; expected FROM..TO such as 1..32");
		return false;
	}
	if (!scn_expr_eval(text, dots, lookup, ctx, from, err))
		return false;
	if (!scn_expr_eval(text + dots + 2, len - dots - 2, lookup, ctx, to, err)) {
		err->at += dots + 2;
		return false;
	}
	return true;
}

bool scn_expr_format(int64_t v, const char *spec, size_t len, char *buf, size_t buflen, scn_expr_err *err)
{
	size_t i = 0;
	unsigned width = 0;
	while (i < len && spec[i] >= '0' && spec[i] <= '9') {
		width = width * 10 + (unsigned)(spec[i] - '0');
		if (width > 20)
			break;
		i++;
	}
	char conv = i < len ? spec[i++] : 'd';
	if (i != len || width > 20 || (conv != 'd' && conv != 'x' && conv != 'X')) {
		err->at = 0;
		snprintf(err->msg, sizeof(err->msg),
		         "bad format ':%.*s'; expected :d, :x, :X or a width before them, such as :04X or :03", (int)len, spec);
		return false;
	}
	if (conv != 'd' && v < 0) {
		err->at = 0;
		snprintf(err->msg, sizeof(err->msg), "%" PRId64 " is negative; expected a value of 0 or more for hex ':%.*s'",
		         v, (int)len, spec);
		return false;
	}
	if (conv == 'd')
		snprintf(buf, buflen, "%0*" PRId64, (int)width, v);
	else
		snprintf(buf, buflen, conv == 'x' ? "%0*" PRIx64 : "%0*" PRIX64, (int)width, (uint64_t)v);
	return true;
}
