// The event-scheduler shape of ns-3's utils/bench-scheduler (and of `smcr-sim bench
// scheduler`), written for this project against the ns-3 3.37 API: a population of pending
// events is kept constant, every executed event schedules one new event after an
// exponentially distributed gap until `total` events have been scheduled, then the queue
// drains; exactly `total` events run. The timed stretch is the population's insertion and
// the run, as on our side. --SchedulerType picks any of ns-3's schedulers.
#include "peer_result.h"

#include "ns3/core-module.h"

#include <cstdint>
#include <cstdio>
#include <string>

using namespace ns3;

namespace
{

struct Shape
{
    uint64_t toSchedule = 0;
    uint64_t executed = 0;
    Ptr<ExponentialRandomVariable> gap;
};

void
OnEvent(Shape* s)
{
    s->executed++;
    if (s->toSchedule == 0)
    {
        return;
    }
    s->toSchedule--;
    Simulator::Schedule(NanoSeconds(s->gap->GetValue()), &OnEvent, s);
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string type = "ns3::MapScheduler";
    uint64_t population = 100000;
    uint64_t total = 1000000;
    double mean = 100;
    uint32_t seed = 1;
    CommandLine cmd;
    cmd.Usage("Event scheduler throughput in the bench-scheduler shape (smcr-sim's peer).");
    cmd.AddValue("SchedulerType", "ns3::MapScheduler, HeapScheduler, ListScheduler, CalendarScheduler, "
                                  "PriorityQueueScheduler", type);
    cmd.AddValue("population", "pending events kept in the queue", population);
    cmd.AddValue("total", "events executed in total (>= population)", total);
    cmd.AddValue("mean", "mean inter-event gap, ns", mean);
    cmd.AddValue("seed", "ns-3 RNG seed", seed);
    cmd.Parse(argc, argv);
    if (population == 0 || total < population || mean <= 0 || seed == 0)
    {
        std::fprintf(stderr, "ns3-scheduler: need population > 0, total >= population, mean > 0, seed > 0\n");
        return 2;
    }
    if (type.rfind("ns3::", 0) != 0)
    {
        type = "ns3::" + type;
    }
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(type, &tid))
    {
        std::fprintf(stderr, "ns3-scheduler: no scheduler type '%s'\n", type.c_str());
        return 2;
    }
    RngSeedManager::SetSeed(seed);
    ObjectFactory factory;
    factory.SetTypeId(tid);
    Simulator::SetScheduler(factory);

    Shape s;
    s.toSchedule = total - population;
    s.gap = CreateObject<ExponentialRandomVariable>();
    s.gap->SetAttribute("Mean", DoubleValue(mean));
    peer::Stopwatch sw;
    sw.Start();
    for (uint64_t i = 0; i < population; i++)
    {
        Simulator::Schedule(NanoSeconds(s.gap->GetValue()), &OnEvent, &s);
    }
    Simulator::Run();
    sw.Stop();
    Simulator::Destroy();
    if (s.executed != total)
    {
        std::fprintf(stderr, "ns3-scheduler: %llu events ran, expected %llu\n", (unsigned long long)s.executed,
                     (unsigned long long)total);
        return 1;
    }
    std::string who = "ns3:" + type.substr(5);
    char extra[128];
    std::snprintf(extra, sizeof extra, "population=%llu events=%llu", (unsigned long long)population,
                  (unsigned long long)total);
    peer::PrintResult("scheduler", who, sw, (double)total / sw.wall, "events/s", extra);
    return 0;
}
