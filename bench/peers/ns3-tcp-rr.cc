// TCP request/response in ns-3, the peer of `smcr-sim bench tcp --mode rr`, written for this
// project against the ns-3 3.37 API: two nodes joined by one PointToPoint link of the given
// rate and delay; `conns` client sockets each run `count` transactions (send `size` bytes,
// wait for `size` bytes back) against an echo server, then close. TCP settings as in
// ns3-tcp-bulk.cc (smcr-sim's Linux personality), Nagle off as our sockets have it. The
// timed stretch is Simulator::Run, as on our side.
#include "peer_result.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

// The server: every byte received is sent back on the same connection; what the send
// buffer does not take yet waits until it has room. Closes when the client closes.
class EchoServer
{
  public:
    void Listen(Ptr<Node> node, uint16_t port)
    {
        m_listener = Socket::CreateSocket(node, TcpSocketFactory::GetTypeId());
        m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
        m_listener->Listen();
        m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                      MakeCallback(&EchoServer::OnAccept, this));
    }

    uint64_t echoed = 0;

  private:
    void OnAccept(Ptr<Socket> s, const Address&)
    {
        m_owed[s] = 0;
        s->SetRecvCallback(MakeCallback(&EchoServer::OnRecv, this));
        s->SetSendCallback(MakeCallback(&EchoServer::OnSendSpace, this));
        s->SetCloseCallbacks(MakeCallback(&EchoServer::OnPeerClose, this),
                             MakeCallback(&EchoServer::OnPeerClose, this));
    }

    void OnRecv(Ptr<Socket> s)
    {
        Ptr<Packet> p;
        while ((p = s->Recv()))
        {
            m_owed[s] += p->GetSize();
        }
        Flush(s);
    }

    void OnSendSpace(Ptr<Socket> s, uint32_t)
    {
        Flush(s);
    }

    void Flush(Ptr<Socket> s)
    {
        uint32_t& owed = m_owed[s];
        while (owed > 0)
        {
            uint32_t n = std::min(owed, s->GetTxAvailable());
            if (n == 0 || s->Send(Create<Packet>(n)) < 0)
            {
                return;
            }
            owed -= n;
            echoed += n;
        }
    }

    void OnPeerClose(Ptr<Socket> s)
    {
        s->Close();
    }

    Ptr<Socket> m_listener;
    std::map<Ptr<Socket>, uint32_t> m_owed;
};

// One client connection: `count` transactions of `size` bytes each way, then close.
class RrClient
{
  public:
    RrClient(uint32_t size, uint64_t count)
        : m_size(size),
          m_count(count)
    {
    }

    void Start(Ptr<Node> node, Address server)
    {
        m_sock = Socket::CreateSocket(node, TcpSocketFactory::GetTypeId());
        m_sock->SetAttribute("TcpNoDelay", BooleanValue(true));
        m_sock->Bind();
        m_sock->SetConnectCallback(MakeCallback(&RrClient::OnConnected, this),
                                   MakeCallback(&RrClient::OnConnectFailed, this));
        m_sock->SetRecvCallback(MakeCallback(&RrClient::OnRecv, this));
        m_sock->SetSendCallback(MakeCallback(&RrClient::OnSendSpace, this));
        m_sock->Connect(server);
    }

    uint64_t done = 0;

  private:
    void OnConnected(Ptr<Socket>)
    {
        NextRequest();
    }

    void OnConnectFailed(Ptr<Socket>)
    {
    }

    void NextRequest()
    {
        if (done == m_count)
        {
            m_sock->Close();
            return;
        }
        m_toSend = m_size;
        m_got = 0;
        SendMore();
    }

    void SendMore()
    {
        while (m_toSend > 0)
        {
            uint32_t n = std::min(m_toSend, m_sock->GetTxAvailable());
            if (n == 0 || m_sock->Send(Create<Packet>(n)) < 0)
            {
                return;
            }
            m_toSend -= n;
        }
    }

    void OnSendSpace(Ptr<Socket>, uint32_t)
    {
        SendMore();
    }

    void OnRecv(Ptr<Socket> s)
    {
        Ptr<Packet> p;
        while ((p = s->Recv()))
        {
            m_got += p->GetSize();
        }
        if (done < m_count && m_got >= m_size)
        {
            done++;
            NextRequest();
        }
    }

    uint32_t m_size;
    uint64_t m_count;
    uint32_t m_toSend = 0;
    uint32_t m_got = 0;
    Ptr<Socket> m_sock;
};

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t conns = 64;
    uint64_t count = 10000;
    uint32_t size = 64;
    std::string rate = "100Gbps";
    uint64_t latencyNs = 500;
    uint32_t mtu = 1500;
    CommandLine cmd;
    cmd.Usage("TCP request/response over one PointToPoint link (smcr-sim's peer).");
    cmd.AddValue("conns", "connections", conns);
    cmd.AddValue("count", "transactions per connection", count);
    cmd.AddValue("size", "request and response bytes", size);
    cmd.AddValue("rate", "the link's DataRate", rate);
    cmd.AddValue("latency", "the link's delay, ns", latencyNs);
    cmd.AddValue("mtu", "the devices' MTU", mtu);
    cmd.Parse(argc, argv);
    if (conns == 0 || count == 0 || size == 0 || mtu < 576)
    {
        std::fprintf(stderr, "ns3-tcp-rr: need conns, count and size > 0 and an MTU of at least 576\n");
        return 2;
    }

    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mtu - 52));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(256 * 1024));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(128 * 1024));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(40)));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
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
    // sockets are made from events at time 0, once the nodes are initialised
    EchoServer server;
    Simulator::ScheduleWithContext(nodes.Get(1)->GetId(), Seconds(0), &EchoServer::Listen, &server, nodes.Get(1),
                                   port);
    std::vector<RrClient> clients(conns, RrClient(size, count));
    Address to = InetSocketAddress(ifaces.GetAddress(1), port);
    for (auto& c : clients)
    {
        Simulator::ScheduleWithContext(nodes.Get(0)->GetId(), Seconds(0), &RrClient::Start, &c, nodes.Get(0), to);
    }

    peer::Stopwatch sw;
    sw.Start();
    Simulator::Run();
    sw.Stop();
    uint64_t events = Simulator::GetEventCount();
    double virtualS = Simulator::Now().GetSeconds();
    uint64_t transactions = 0;
    uint32_t complete = 0;
    for (const auto& c : clients)
    {
        transactions += c.done;
        complete += c.done == count;
    }
    Simulator::Destroy();
    if (complete != conns)
    {
        std::fprintf(stderr, "ns3-tcp-rr: %u of %u connections completed their %llu transactions\n", complete,
                     conns, (unsigned long long)count);
        return 1;
    }
    char extra[200];
    std::snprintf(extra, sizeof extra, "transactions=%llu events=%llu events_per_transaction=%.2f virtual_s=%.6f",
                  (unsigned long long)transactions, (unsigned long long)events,
                  (double)events / (double)transactions, virtualS);
    peer::PrintResult("tcp-rr", "ns3:TcpSocket", sw, (double)transactions / sw.wall, "transactions/s", extra);
    return 0;
}
