// What every ns-3 peer program measures and prints: wall and CPU seconds around
// Simulator::Run, and the one machine-readable line smcr-sim's benchmarks print too
// (tools/bench_line.c), so tools/bench-peers reads both sides with one parser:
//   result: work=WORK who=WHO wall_s=SECONDS rate=RATE unit=UNIT [KEY=VALUE...]
#ifndef BENCH_PEERS_PEER_RESULT_H
#define BENCH_PEERS_PEER_RESULT_H

#include <sys/resource.h>
#include <time.h>

#include <cstdio>
#include <string>

namespace peer
{

inline double
WallSeconds()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// User plus system time of this process: less disturbed than wall time on a shared machine.
inline double
CpuSeconds()
{
    rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec * 1e-6;
}

// One timed stretch of the program: Start() before, Stop() after.
struct Stopwatch
{
    double wall0 = 0, cpu0 = 0, wall = 0, cpu = 0;

    void Start()
    {
        wall0 = WallSeconds();
        cpu0 = CpuSeconds();
    }

    void Stop()
    {
        wall = WallSeconds() - wall0;
        cpu = CpuSeconds() - cpu0;
    }
};

inline void
PrintResult(const std::string& work,
            const std::string& who,
            const Stopwatch& sw,
            double rate,
            const std::string& unit,
            const std::string& extra)
{
    std::printf("result: work=%s who=%s wall_s=%.6f rate=%.6g unit=%s cpu_s=%.6f%s%s\n",
                work.c_str(),
                who.c_str(),
                sw.wall,
                rate,
                unit.c_str(),
                sw.cpu,
                extra.empty() ? "" : " ",
                extra.c_str());
    std::fflush(stdout);
}

} // namespace peer

#endif
