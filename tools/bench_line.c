/* The one machine-readable line every benchmark that has a peer prints (see tools/bench.h).
 * The ns-3 programs of bench/peers/ print the same form, so tools/bench-peers reads both
 * sides with one parser. */
#include <stdarg.h>
#include <stdio.h>

#include "tools/bench.h"

void bench_result_line(const char *work, const char *who, double wall_s, double cpu_s, double rate, const char *unit,
                       const char *extra_fmt, ...)
{
	printf("result: work=%s who=%s wall_s=%.6f rate=%.6g unit=%s cpu_s=%.6f", work, who, wall_s, rate, unit, cpu_s);
	if (extra_fmt && extra_fmt[0]) {
		va_list ap;
		va_start(ap, extra_fmt);
		putchar(' ');
		vprintf(extra_fmt, ap);
		va_end(ap);
	}
	putchar('\n');
}
