/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-hello-application.h"

#include "ns3/fl-types.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-address.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlHelloApplication");
NS_OBJECT_ENSURE_REGISTERED(FlHelloApplication);

namespace
{
constexpr uint32_t kUnsetId = std::numeric_limits<uint32_t>::max();
/// The largest well-formed hello (fl::kMaxHelloNeighbours listed).
constexpr uint32_t kMaxHelloBytes = 16 + 4 * fl::kMaxHelloNeighbours;
} // namespace

TypeId
FlHelloApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlHelloApplication")
            .SetParent<Application>()
            .SetGroupName("Fl")
            .AddConstructor<FlHelloApplication>()
            .AddAttribute("Interval",
                          "Time between two hellos of the node (plus a jitter).",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&FlHelloApplication::m_interval),
                          MakeTimeChecker(MilliSeconds(1)))
            .AddAttribute("Timeout",
                          "A node not heard for this long is no longer a neighbour (a few "
                          "Intervals: a hello or two may be lost).",
                          TimeValue(Seconds(3)),
                          MakeTimeAccessor(&FlHelloApplication::m_timeout),
                          MakeTimeChecker(MilliSeconds(1)))
            .AddAttribute("Jitter",
                          "Each hello leaves up to this much after its time (uniform).",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&FlHelloApplication::m_jitter),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("Port",
                          "UDP port of the hellos (every node the same).",
                          UintegerValue(9797),
                          MakeUintegerAccessor(&FlHelloApplication::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("Id",
                          "The node's id in the hellos (unset: the ns-3 node id), e.g. its agent "
                          "index.",
                          UintegerValue(kUnsetId),
                          MakeUintegerAccessor(&FlHelloApplication::m_idAttr),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("NeighboursChanged",
                            "The node's symmetric neighbours changed (its id, the new set).",
                            MakeTraceSourceAccessor(&FlHelloApplication::m_changedTrace),
                            "ns3::FlHelloApplication::NeighboursCallback");
    return tid;
}

FlHelloApplication::FlHelloApplication()
    : m_interval(Seconds(1)),
      m_timeout(Seconds(3)),
      m_jitter(MilliSeconds(100)),
      m_port(9797),
      m_idAttr(kUnsetId)
{
    m_jitterRv = CreateObject<UniformRandomVariable>();
}

FlHelloApplication::~FlHelloApplication() = default;

void
FlHelloApplication::DoDispose()
{
    m_socket = nullptr;
    m_jitterRv = nullptr;
    Application::DoDispose();
}

int64_t
FlHelloApplication::AssignStreams(int64_t stream)
{
    m_jitterRv->SetStream(stream);
    return 1;
}

double
FlHelloApplication::Now() const
{
    return Simulator::Now().GetSeconds();
}

void
FlHelloApplication::StartApplication()
{
    m_id = m_idAttr != kUnsetId ? m_idAttr : GetNode()->GetId();
    if (m_timeout <= m_interval + m_jitter)
    {
        fl::ExitOnConfigError(
            "FlHelloApplication",
            fl::ConfigError("Timeout",
                            std::to_string(m_timeout.GetSeconds()) +
                                " s, not above Interval + Jitter (" +
                                std::to_string((m_interval + m_jitter).GetSeconds()) + " s)",
                            "a neighbour would expire between two of its hellos: give a few "
                            "Intervals"));
    }
    try
    {
        m_table = std::make_unique<fl::NeighbourTable>(m_id, m_timeout.GetSeconds());
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("FlHelloApplication", e);
    }
    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    m_socket->SetAllowBroadcast(true);
    if (m_socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port)) != 0)
    {
        fl::ExitOnConfigError("FlHelloApplication",
                              fl::ConfigError("Port",
                                              std::to_string(m_port) + " is in use on node " +
                                                  std::to_string(GetNode()->GetId()),
                                              "give the hellos a free port"));
    }
    m_socket->SetRecvCallback(MakeCallback(&FlHelloApplication::Receive, this));
    m_sendEvent = Simulator::Schedule(Seconds(m_jitterRv->GetValue(0.0, m_jitter.GetSeconds())),
                                      &FlHelloApplication::SendHello,
                                      this);
}

void
FlHelloApplication::StopApplication()
{
    Simulator::Cancel(m_sendEvent);
    if (m_socket)
    {
        m_socket->Close();
        m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    }
}

void
FlHelloApplication::SendHello()
{
    m_table->Expire(Now());
    CheckChanged();
    const std::vector<uint8_t> bytes = fl::PackHello(m_table->MakeHello(Now()));
    Ptr<Packet> p = Create<Packet>(bytes.data(), static_cast<uint32_t>(bytes.size()));
    if (m_socket->SendTo(p, 0, InetSocketAddress(Ipv4Address::GetBroadcast(), m_port)) >= 0)
    {
        ++m_counters.sent;
    }
    m_sendEvent =
        Simulator::Schedule(m_interval + Seconds(m_jitterRv->GetValue(0.0, m_jitter.GetSeconds())),
                            &FlHelloApplication::SendHello,
                            this);
}

void
FlHelloApplication::Receive(Ptr<Socket> socket)
{
    Ptr<Packet> p;
    Address from;
    while ((p = socket->RecvFrom(from)))
    {
        if (p->GetSize() > kMaxHelloBytes)
        {
            ++m_counters.malformed; // larger than any hello: not copied
            continue;
        }
        std::vector<uint8_t> bytes(p->GetSize());
        p->CopyData(bytes.data(), p->GetSize());
        fl::Hello hello;
        if (!fl::UnpackHello(bytes, hello))
        {
            ++m_counters.malformed;
            continue;
        }
        if (hello.sender == m_id)
        {
            continue; // its own broadcast
        }
        ++m_counters.received;
        m_table->Heard(hello, Now());
        if (InetSocketAddress::IsMatchingType(from))
        {
            m_addresses[hello.sender] = InetSocketAddress::ConvertFrom(from).GetIpv4();
        }
    }
    CheckChanged();
}

void
FlHelloApplication::CheckDiscovery(Time interval, Time timeout)
{
    if (!interval.IsStrictlyPositive())
    {
        throw fl::ConfigError("interval",
                              "is " + std::to_string(interval.GetSeconds()) + " s",
                              "give a positive hello interval, e.g. 0.5 s");
    }
    if (!(timeout > interval + interval / 10))
    {
        throw fl::ConfigError("timeout",
                              "is " + std::to_string(timeout.GetSeconds()) +
                                  " s, not above the hello interval and its jitter (" +
                                  std::to_string((interval + interval / 10).GetSeconds()) + " s)",
                              "give a timeout of a few intervals, e.g. 3 intervals");
    }
}

Ptr<FlHelloApplication>
FlHelloApplication::InstallOn(Ptr<Node> node,
                              uint32_t id,
                              Time interval,
                              Time timeout,
                              Time start)
{
    Ptr<FlHelloApplication> hello = CreateObject<FlHelloApplication>();
    hello->SetAttribute("Id", UintegerValue(id));
    hello->SetAttribute("Interval", TimeValue(interval));
    hello->SetAttribute("Timeout", TimeValue(timeout));
    hello->SetAttribute("Jitter", TimeValue(interval / 10));
    hello->SetStartTime(start);
    node->AddApplication(hello);
    return hello;
}

Ipv4Address
FlHelloApplication::GetAddress(uint32_t id) const
{
    auto it = m_addresses.find(id);
    return it == m_addresses.end() ? Ipv4Address() : it->second;
}

FlGraphNeighbourhood
FlHelloApplication::GetNeighbourhood(uint16_t port) const
{
    FlGraphNeighbourhood hood;
    hood.selfWeight = 1.0;
    if (!m_table)
    {
        return hood;
    }
    const std::map<uint32_t, uint32_t> degrees = m_table->NeighbourDegrees(Now());
    const std::map<uint32_t, double> column =
        fl::LocalMetropolisWeights(m_id, static_cast<uint32_t>(degrees.size()), degrees);
    for (const auto& [node, weight] : column)
    {
        if (node == m_id)
        {
            hood.selfWeight = weight;
            continue;
        }
        hood.neighbors.push_back({node, InetSocketAddress(GetAddress(node), port), weight});
    }
    return hood;
}

void
FlHelloApplication::CheckChanged()
{
    std::vector<uint32_t> now = m_table->Neighbours(Now());
    if (now != m_lastNeighbours)
    {
        m_lastNeighbours = now;
        m_changedTrace(m_id, m_lastNeighbours);
    }
}

uint32_t
FlHelloApplication::GetId() const
{
    return m_id;
}

std::vector<uint32_t>
FlHelloApplication::GetNeighbours() const
{
    return m_table ? m_table->Neighbours(Now()) : std::vector<uint32_t>();
}

std::map<uint32_t, uint32_t>
FlHelloApplication::GetNeighbourDegrees() const
{
    return m_table ? m_table->NeighbourDegrees(Now()) : std::map<uint32_t, uint32_t>();
}

std::vector<uint32_t>
FlHelloApplication::GetHeard() const
{
    return m_table ? m_table->HeardNodes(Now()) : std::vector<uint32_t>();
}

const FlHelloApplication::Counters&
FlHelloApplication::GetCounters() const
{
    return m_counters;
}

} // namespace ns3
