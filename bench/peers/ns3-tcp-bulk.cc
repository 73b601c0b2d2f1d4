// TCP bulk transfer in ns-3, the peer of `smcr-sim bench tcp --mode bulk`, written for this
// project against the ns-3 3.37 API: two nodes joined by one PointToPoint link of the given
// rate and delay, BulkSend -> PacketSink moving `bytes` over one connection. The TCP
// settings follow smcr-sim's Linux personality (MSS 1448 with timestamps in a 1500-byte
// MTU, SACK, window scaling, send buffer 256 KiB, receive buffer 128 KiB, initial window
// 10, delayed-ACK timeout 40 ms); the application writes 16 KiB at a time as ours does.
// The timed stretch is Simulator::Run, as on our side.
#include "peer_result.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <cstdint>
#include <cstdio>
#include <string>

using namespace ns3;

int
main(int argc, char* argv[])
{
    uint64_t bytes = 100ull << 20;
    std::string rate = "100Gbps";
    uint64_t latencyNs = 500;
    uint32_t mtu = 1500;
    CommandLine cmd;
    cmd.Usage("TCP bulk transfer over one PointToPoint link (smcr-sim's peer).");
    cmd.AddValue("bytes", "bytes over the one connection", bytes);
    cmd.AddValue("rate", "the link's DataRate", rate);
    cmd.AddValue("latency", "the link's delay, ns", latencyNs);
    cmd.AddValue("mtu", "the devices' MTU", mtu);
    cmd.Parse(argc, argv);
    if (bytes == 0 || mtu < 576)
    {
        std::fprintf(stderr, "ns3-tcp-bulk: need bytes > 0 and an MTU of at least 576\n");
        return 2;
    }

    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mtu - 52));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(256 * 1024));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(128 * 1024));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(40)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));

    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(mtu));
    p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(latencyNs)));
    NetDeviceContainer devices = p2p.Install(nodes);
    InternetStackHelper internet;
    internet.Install(nodes);
    Ipv4AddressHelper addresses;
    addresses.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifaces = addresses.Assign(devices);

    const uint16_t port = 5001;
    BulkSendHelper sender("ns3::TcpSocketFactory", InetSocketAddress(ifaces.GetAddress(1), port));
    sender.SetAttribute("MaxBytes", UintegerValue(bytes));
    sender.SetAttribute("SendSize", UintegerValue(16384));
    ApplicationContainer senderApp = sender.Install(nodes.Get(0));
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApp = sink.Install(nodes.Get(1));
    sinkApp.Start(Seconds(0));
    senderApp.Start(Seconds(0));

    peer::Stopwatch sw;
    sw.Start();
    Simulator::Run();
    sw.Stop();
    uint64_t received = DynamicCast<PacketSink>(sinkApp.Get(0))->GetTotalRx();
    uint64_t events = Simulator::GetEventCount();
    double virtualS = Simulator::Now().GetSeconds();
    Simulator::Destroy();
    if (received != bytes)
    {
        std::fprintf(stderr, "ns3-tcp-bulk: the sink received %llu of %llu bytes\n", (unsigned long long)received,
                     (unsigned long long)bytes);
        return 1;
    }
    char extra[160];
    std::snprintf(extra, sizeof extra, "bytes=%llu events=%llu virtual_s=%.6f", (unsigned long long)received,
                  (unsigned long long)events, virtualS);
    peer::PrintResult("tcp-bulk", "ns3:BulkSend", sw, (double)received / sw.wall, "bytes/s", extra);
    return 0;
}
