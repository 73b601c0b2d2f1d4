/* Wall time and peak memory for the benchmarks (see bench_measure.h). */
#include "sim/engine/bench_measure.h"

#include <sys/resource.h>

#include "sim/engine/realtime.h"

double bench_wall_seconds(void)
{
	return (double)sim_realtime_clock_ns() * 1e-9;
}

double bench_cpu_seconds(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec * 1e-6;
}

uint64_t bench_peak_rss(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (uint64_t)ru.ru_maxrss * 1024u;
}
