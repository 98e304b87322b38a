/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-application-base.h"

#include <limits>

#include "ns3/fl-flow-network.h"
#include "ns3/fl-server-strategy.h"

#include "ns3/boolean.h"
#include "ns3/fl-types.h"
#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/thread-pool.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlApplicationBase");

namespace
{
/// The size of the training pool (fl::TrainingPool): --FlTrainingThreads=N on any command line.
GlobalValue g_trainingThreads(
    "FlTrainingThreads",
    "Threads that train clients and run independent runs in parallel (0 = every hardware "
    "thread). Results do not depend on it.",
    UintegerValue(0),
    MakeUintegerChecker<uint32_t>(0, fl::kMaxTrainingThreads));

std::size_t
GetTrainingThreadsValue()
{
    UintegerValue value;
    g_trainingThreads.GetValue(value);
    return static_cast<std::size_t>(value.Get());
}

void
SetTrainingThreadsValue(std::size_t threads)
{
    g_trainingThreads.SetValue(UintegerValue(threads));
}

/// Makes the global value the training pool's store when the library is loaded.
struct TrainingThreadsStore
{
    TrainingThreadsStore()
    {
        fl::SetTrainingThreadsStore(&GetTrainingThreadsValue, &SetTrainingThreadsValue);
    }
} g_trainingThreadsStore;
} // namespace
NS_OBJECT_ENSURE_REGISTERED(FlApplicationBase);

TypeId
FlApplicationBase::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlApplicationBase")
            .SetParent<Application>()
            .SetGroupName("Fl")
            .AddAttribute("Transport",
                          "Transport of model messages: tcp (one connection per client), udp "
                          "(chunked datagrams; see HolePolicy) or flow (whole messages over a "
                          "flow-level network, FlFlowNetwork; tcp on a node of a flow-level "
                          "network is flow). Server and clients must agree.",
                          StringValue("tcp"),
                          MakeStringAccessor(&FlApplicationBase::m_transportName),
                          MakeStringChecker())
            .AddAttribute(
                "WirePrecision",
                "Encoding of the models this application sends: auto (the task's precision: "
                "float32 for a float32 model, float64 otherwise), float64, float32, float16 or "
                "int8 (unbiased stochastic quantisation, float32 scale in the payload).",
                StringValue("auto"),
                MakeStringAccessor(&FlApplicationBase::m_wirePrecision),
                MakeStringChecker())
            .AddAttribute("TcpSegmentSize",
                          "TCP maximum segment size of this application's sockets in bytes "
                          "(0 = keep ns3::TcpSocket::SegmentSize; ns-3's default is 536).",
                          UintegerValue(1448),
                          MakeUintegerAccessor(&FlApplicationBase::m_tcpSegmentSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("TcpTimestamps",
                          "TCP timestamps (RFC 7323) on this application's sockets. Off by "
                          "default: with ns-3.37's TcpSocketBase, a connection that acknowledges "
                          "by piggy-backing on its next message keeps echoing the handshake's "
                          "timestamp, so its RTT samples and retransmission timeout grow with "
                          "the connection's age.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FlApplicationBase::m_tcpTimestamps),
                          MakeBooleanChecker())
            .AddAttribute("TcpMinRto",
                          "Minimum retransmission timeout of this application's TCP sockets "
                          "(ns3::TcpSocketBase::MinRto; 1 s as in ns-3 and RFC 6298, Linux uses "
                          "200 ms). Each segment leaves a cancelled retransmission timer of at "
                          "least this horizon in ns-3's scheduler: a shorter one keeps fewer. "
                          "It changes a run only where a timeout fires.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&FlApplicationBase::m_tcpMinRto),
                          MakeTimeChecker())
            .AddAttribute("TcpConnTimeout",
                          "Time before this application's TCP sockets send a SYN again "
                          "(ns3::TcpSocket::ConnTimeout, doubled after each retry: 1 s, 2 s, 4 s, "
                          "...). 1 s as RFC 6298 (sections 2.1 and 5.7) and Linux; ns-3's default "
                          "is 3 s (RFC 1122's older value). A client that starts before its link "
                          "is up (a station not yet associated) loses its first SYN and waits "
                          "this long.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&FlApplicationBase::m_tcpConnTimeout),
                          MakeTimeChecker())
            .AddAttribute("UdpMtu",
                          "UDP only: IP MTU of the path; a chunk (40-byte header + payload of at "
                          "least 256 bytes) plus IPv4 and UDP headers fits in it.",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&FlApplicationBase::m_udpMtu),
                          MakeUintegerChecker<uint32_t>(324))
            .AddAttribute("UdpPacingRate",
                          "UDP only: rate at which this application emits datagrams (IP bytes). "
                          "UDP has no congestion control: keep it below the bottleneck's rate.",
                          DataRateValue(DataRate("20Mb/s")),
                          MakeDataRateAccessor(&FlApplicationBase::m_pacingRate),
                          MakeDataRateChecker())
            .AddAttribute("HolePolicy",
                          "UDP only: what to do with a model some of whose chunks were lost: "
                          "drop (discard the message), keep-previous (use the receiver's previous "
                          "values for the missing coordinates) or retransmit (NACK the missing "
                          "chunks, up to RetryLimit times, then discard).",
                          StringValue("retransmit"),
                          MakeStringAccessor(&FlApplicationBase::m_holePolicy),
                          MakeStringChecker())
            .AddAttribute("ReassemblyTimeout",
                          "UDP only: an incomplete message that received no chunk for this long "
                          "is resolved by the hole policy.",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&FlApplicationBase::m_reassemblyTimeout),
                          MakeTimeChecker())
            .AddAttribute("AckTimeout",
                          "UDP retransmit only: the sender probes with the last chunk when no "
                          "feedback came this long after a message went out.",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&FlApplicationBase::m_ackTimeout),
                          MakeTimeChecker())
            .AddAttribute("CongestionTarget",
                          "UDP retransmit only: the queueing delay the sender's delay-based rate "
                          "control aims at (in the spirit of LEDBAT, RFC 6817): while the "
                          "feedback delay exceeds its smallest value by more, the sending rate "
                          "drops below UdpPacingRate; zero (the default) turns the control "
                          "off, e.g. 100ms turns it on.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&FlApplicationBase::m_congestionTarget),
                          MakeTimeChecker())
            .AddAttribute("RetryLimit",
                          "UDP retransmit only: NACK rounds per incoming message and probes per "
                          "outgoing message before giving up (at most 64); the wait after each "
                          "is twice the one before, up to 64 timeouts (FlRetryWait).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&FlApplicationBase::m_retryLimit),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MaxMessageBytes",
                          "Largest incoming message (header and payload), TCP and UDP: a TCP "
                          "stream whose header declares more is closed before its payload is "
                          "buffered, a UDP chunk declaring more is malformed (0 = "
                          "FlMaxModelMessageBytes of the task's model: a float64 model message "
                          "plus 4 KiB).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlApplicationBase::m_maxMessageBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("UdpMaxMessageBytes",
                          "Former name of MaxMessageBytes, which now bounds both transports "
                          "(used if MaxMessageBytes is 0).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlApplicationBase::m_udpMaxMessageBytes),
                          MakeUintegerChecker<uint32_t>(),
                          TypeId::DEPRECATED,
                          "use MaxMessageBytes (it bounds TCP and UDP)")
            .AddAttribute("UdpBroadcastAddress",
                          "UDP only: the subnet broadcast address of the node's link (e.g. "
                          "10.1.255.255), or 0.0.0.0 for none. When set, a message for all "
                          "neighbours goes out as one link-layer broadcast to it at the listen "
                          "port (no MAC ACK, no retry); HolePolicy must be drop.",
                          Ipv4AddressValue(Ipv4Address::GetAny()),
                          MakeIpv4AddressAccessor(&FlApplicationBase::m_udpBroadcastAddress),
                          MakeIpv4AddressChecker())
            .AddTraceSource("ModelReport",
                            "A model this node holds (round, node, role, model): every FL "
                            "application reports through it; observers subscribe to it.",
                            MakeTraceSourceAccessor(&FlApplicationBase::m_modelReportTrace),
                            "ns3::FlApplicationBase::ModelReportCallback");
    return tid;
}

FlApplicationBase::FlApplicationBase()
    : m_transportName("tcp"),
      m_wirePrecision("auto"),
      m_holePolicy("retransmit"),
      m_pacingRate("20Mb/s"),
      m_reassemblyTimeout(MilliSeconds(100)),
      m_ackTimeout(MilliSeconds(200)),
      m_congestionTarget(Seconds(0)),
      m_udpBroadcastAddress(Ipv4Address::GetAny())
{
}

FlApplicationBase::~FlApplicationBase() = default;

const char*
FlNodeRoleName(FlNodeRole role)
{
    switch (role)
    {
    case FlNodeRole::Server:
        return "server";
    case FlNodeRole::Client:
        return "client";
    case FlNodeRole::Peer:
        return "peer";
    }
    return "unknown";
}

uint32_t
FlApplicationBase::GetNodeLevelId() const
{
    return GetNode()->GetId();
}

void
FlApplicationBase::DoDispose()
{
    if (m_transport)
    {
        m_transport->Abandon(); // the stack may be gone already: send nothing
        m_transport = nullptr;
    }
    Application::DoDispose();
}

void
FlApplicationBase::ReportModel(uint32_t round, FlNodeRole role, const fl::ParamVector& model)
{
    FlModelReport r;
    r.round = round;
    r.node = GetNodeLevelId();
    r.role = role;
    r.model = &model;
    ReportModel(r);
}

void
FlApplicationBase::ReportModel(FlModelReport report)
{
    report.node = GetNodeLevelId();
    report.countsBytes = false;
    report.bytesSent = 0;
    report.bytesReceived = 0;
    if (m_transport)
    {
        const FlTransportStats stats = m_transport->Stats();
        report.countsBytes = true;
        report.bytesSent = stats.bytesSent;
        report.bytesReceived = stats.bytesReceived;
    }
    m_modelReportTrace(report);
}

uint32_t
FlApplicationBase::MaxMessageBytesFor(std::size_t values) const
{
    return m_maxMessageBytes != 0      ? m_maxMessageBytes
           : m_udpMaxMessageBytes != 0 ? m_udpMaxMessageBytes
                                       : FlMaxModelMessageBytes(values);
}

fl::WireEncoding
FlApplicationBase::Wire() const
{
    return m_wire;
}

Ptr<FlTransport>
FlApplicationBase::StartTransport(const char* who,
                                  fl::Precision decodeTo,
                                  uint16_t listenPort,
                                  std::size_t modelParameters)
{
    const std::string prefix = std::string(who) + "::";
    std::string error;
    try
    {
        FlTransportConfig c;
        m_wire = m_wirePrecision == "auto"
                     ? (decodeTo == fl::Precision::Float32 ? fl::WireEncoding::Float32
                                                           : fl::WireEncoding::Float64)
                     : fl::ParseWireEncoding(m_wirePrecision, prefix + "WirePrecision");
        c.wire = m_wire;
        c.decodeTo = decodeTo;
        c.tcpSegmentSize = m_tcpSegmentSize;
        c.tcpTimestamps = m_tcpTimestamps;
        if (!m_tcpMinRto.IsStrictlyPositive())
        {
            throw fl::ConfigError(prefix + "TcpMinRto",
                                  "must be positive",
                                  "use e.g. 1s (ns-3's and RFC 6298's) or 200ms (Linux's)");
        }
        c.tcpMinRto = m_tcpMinRto;
        if (!m_tcpConnTimeout.IsStrictlyPositive())
        {
            throw fl::ConfigError(prefix + "TcpConnTimeout",
                                  "must be positive",
                                  "use e.g. 1s (RFC 6298's and Linux's) or 3s (ns-3's)");
        }
        c.tcpConnTimeout = m_tcpConnTimeout;
        // A node of a flow-level network (a scene built in flow fidelity) has no Internet
        // stack: its TCP messages cross the flow model instead (same bytes, no packets).
        const bool flowNode = GetNode()->GetObject<FlFlowStack>() != nullptr;
        if (m_transportName == "tcp")
        {
            m_transportKind = flowNode ? FlTransportKind::Flow : FlTransportKind::Tcp;
        }
        else if (m_transportName == "flow")
        {
            m_transportKind = FlTransportKind::Flow;
        }
        else if (m_transportName == "udp")
        {
            if (flowNode)
            {
                throw fl::ConfigError(prefix + "Transport",
                                      "is udp on node " + std::to_string(GetNode()->GetId()) +
                                          " of a flow-level network",
                                      "use tcp (modelled as flows), or build the scene in packet "
                                      "fidelity");
            }
            m_transportKind = FlTransportKind::Udp;
        }
        else
        {
            throw fl::ConfigError(prefix + "Transport",
                                  "\"" + m_transportName + "\" is not a transport",
                                  "use tcp, udp or flow");
        }
        c.kind = m_transportKind;
        c.datagram.mtu = m_udpMtu;
        c.datagram.pacingRate = m_pacingRate;
        c.datagram.holePolicy = ParseFlHolePolicy(m_holePolicy, prefix + "HolePolicy");
        c.datagram.reassemblyTimeout = m_reassemblyTimeout;
        c.datagram.ackTimeout = m_ackTimeout;
        c.datagram.congestionTarget = m_congestionTarget;
        c.datagram.retryLimit = m_retryLimit;
        c.maxMessageBytes = MaxMessageBytesFor(modelParameters);
        c.broadcastAddress = m_udpBroadcastAddress;
        if (m_udpBroadcastAddress != Ipv4Address::GetAny())
        {
            if (m_transportKind != FlTransportKind::Udp)
            {
                throw fl::ConfigError(prefix + "UdpBroadcastAddress",
                                      "is set with Transport " + m_transportName,
                                      "use Transport udp (or UdpBroadcastAddress 0.0.0.0)");
            }
            if (c.datagram.holePolicy != FlHolePolicy::Drop)
            {
                throw fl::ConfigError(
                    prefix + "HolePolicy",
                    "is " + m_holePolicy + " with UdpBroadcastAddress set",
                    "use drop: a broadcast has no single receiver to ACK or NACK");
            }
            if (listenPort == 0)
            {
                throw fl::ConfigError(prefix + "UdpBroadcastAddress",
                                      "is set on an application without a listen port",
                                      "broadcast only from applications that listen (agents)");
            }
        }
        if (m_transportKind == FlTransportKind::Udp)
        {
            if (!m_reassemblyTimeout.IsStrictlyPositive())
            {
                throw fl::ConfigError(prefix + "ReassemblyTimeout",
                                      "must be positive",
                                      "use e.g. 100ms (a few round-trip times)");
            }
            if (!m_ackTimeout.IsStrictlyPositive())
            {
                throw fl::ConfigError(prefix + "AckTimeout",
                                      "must be positive",
                                      "use e.g. 200ms (more than ReassemblyTimeout + an RTT)");
            }
            if (m_congestionTarget.IsStrictlyNegative())
            {
                throw fl::ConfigError(prefix + "CongestionTarget",
                                      "must not be negative",
                                      "use e.g. 100ms, or 0 to turn the rate control off");
            }
            if (m_retryLimit > kFlMaxRetryLimit)
            {
                throw fl::ConfigError(prefix + "RetryLimit",
                                      "is " + std::to_string(m_retryLimit) + ", above " +
                                          std::to_string(kFlMaxRetryLimit),
                                      "use at most " + std::to_string(kFlMaxRetryLimit) +
                                          " (the waits back off: 5 already give 32 timeouts)");
            }
            if (m_pacingRate.GetBitRate() == 0)
            {
                throw fl::ConfigError(prefix + "UdpPacingRate",
                                      "must be positive",
                                      "use a rate below the path's bottleneck, e.g. 20Mb/s");
            }
        }
        m_transport = FlTransport::Create(GetNode(), GetNodeLevelId(), c);
        const bool bound = listenPort != 0 ? m_transport->Listen(listenPort) : m_transport->Open();
        if (!bound)
        {
            throw fl::ConfigError(
                prefix + (listenPort != 0 ? "Port" : "transport"),
                "cannot bind a " + m_transportName + " socket on node " +
                    std::to_string(GetNode()->GetId()) +
                    (listenPort != 0 ? " port " + std::to_string(listenPort) : std::string()),
                "use a free port and give the node an Internet stack");
        }
    }
    catch (const fl::ConfigError& e)
    {
        error = e.what();
    }
    if (!error.empty())
    {
        fl::ExitOnConfigError("FlApplicationBase", error); // outside the handler
    }
    return m_transport;
}

std::shared_ptr<const fl::LearningTask>
FlApplicationBase::GetLearningTask() const
{
    return nullptr;
}

bool
FlApplicationBase::HasUplinkPerturbation() const
{
    return false;
}

double
FlApplicationBase::GetUplinkEpsilon(double /* delta */) const
{
    return std::numeric_limits<double>::quiet_NaN();
}

fl::MechanismKind
FlApplicationBase::GetUplinkMechanism() const
{
    return fl::MechanismKind::Gaussian;
}

fl::NoiseSource
FlApplicationBase::GetUplinkNoiseSource() const
{
    return fl::NoiseSource::RunSeed;
}

uint32_t
FlApplicationBase::GetLearnerIndex() const
{
    return std::numeric_limits<uint32_t>::max();
}

FlLinkState
FlApplicationBase::GetClientLinkState(uint32_t /* client */) const
{
    return FlLinkState();
}

} // namespace ns3
