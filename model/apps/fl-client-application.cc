/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-client-application.h"

#include "ns3/double.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-address.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlClientApplication");
NS_OBJECT_ENSURE_REGISTERED(FlClientApplication);

TypeId
FlClientApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlClientApplication")
            .SetParent<Application>()
            .SetGroupName("Fl")
            .AddConstructor<FlClientApplication>()
            .AddAttribute("ServerAddress",
                          "IPv4 address of the server.",
                          AddressValue(),
                          MakeAddressAccessor(&FlClientApplication::m_serverAddress),
                          MakeAddressChecker())
            .AddAttribute("ServerPort",
                          "TCP port of the server.",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&FlClientApplication::m_serverPort),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("ClientIndex",
                          "Index of this client's data set in the learning task.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlClientApplication::m_clientIndex),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("SecondsPerSample",
                          "Simulated compute time per training sample processed (used when "
                          "FlopRate is 0).",
                          DoubleValue(1e-4),
                          MakeDoubleAccessor(&FlClientApplication::m_secondsPerSample),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("FlopRate",
                          "Device speed in FLOP/s; if > 0 the compute time is the training "
                          "FLOPs divided by this rate.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&FlClientApplication::m_flopRate),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("TcpSegmentSize",
                          "TCP maximum segment size of this application's sockets in bytes "
                          "(0 = keep ns3::TcpSocket::SegmentSize; ns-3's default is 536).",
                          UintegerValue(1448),
                          MakeUintegerAccessor(&FlClientApplication::m_tcpSegmentSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "WirePrecision",
                "Encoding of the uploaded model: float64, float32, float16 or int8 (unbiased "
                "stochastic quantisation).",
                StringValue("float64"),
                MakeStringAccessor(&FlClientApplication::m_wirePrecision),
                MakeStringChecker())
            .AddAttribute("TrainingSeed",
                          "Base seed of local training (0 = drawn from the ns-3 stream).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlClientApplication::m_trainingSeedAttr),
                          MakeUintegerChecker<uint64_t>())
            .AddTraceSource("TrainingDone",
                            "Local training finished (round, steps, mean loss, compute time).",
                            MakeTraceSourceAccessor(&FlClientApplication::m_trainingDoneTrace),
                            "ns3::FlClientApplication::TrainingDoneCallback");
    return tid;
}

FlClientApplication::FlClientApplication()
    : m_serverPort(9000),
      m_clientIndex(0),
      m_secondsPerSample(1e-4),
      m_flopRate(0.0),
      m_trainingSeedAttr(0)
{
    NS_LOG_FUNCTION(this);
    m_rng = CreateObject<UniformRandomVariable>();
}

FlClientApplication::~FlClientApplication()
{
    NS_LOG_FUNCTION(this);
}

void
FlClientApplication::SetTask(std::shared_ptr<const fl::LearningTask> task)
{
    m_task = std::move(task);
}

uint64_t
FlClientApplication::GetTrainingSeed() const
{
    return m_trainingSeed;
}

uint32_t
FlClientApplication::GetRoundsTrained() const
{
    return m_roundsTrained;
}

uint64_t
FlClientApplication::GetBytesSent() const
{
    return m_conn ? m_conn->BytesSent() : 0;
}

uint64_t
FlClientApplication::GetBytesReceived() const
{
    return m_conn ? m_conn->BytesReceived() : 0;
}

uint64_t
FlClientApplication::GetDroppedMessages() const
{
    uint64_t n = m_unexpected;
    if (m_conn)
    {
        n += m_conn->RxStats().malformedHeaders + m_conn->RxStats().crcErrors;
    }
    return n;
}

int64_t
FlClientApplication::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

void
FlClientApplication::DoDispose()
{
    NS_LOG_FUNCTION(this);
    if (m_conn)
    {
        m_conn->Close();
    }
    m_conn = nullptr;
    m_socket = nullptr;
    Application::DoDispose();
}

void
FlClientApplication::StartApplication()
{
    NS_LOG_FUNCTION(this);
    if (!m_task)
    {
        NS_FATAL_ERROR(
            "FlClientApplication: no learning task; call SetTask() or use FlClientHelper");
    }
    if (m_clientIndex >= m_task->NumClients())
    {
        NS_FATAL_ERROR("FlClientApplication: ClientIndex "
                       << m_clientIndex << " but the task has " << m_task->NumClients()
                       << " clients; install at most that many "
                          "clients or give the task more data sets");
    }
    if (!Ipv4Address::IsMatchingType(m_serverAddress))
    {
        NS_FATAL_ERROR("FlClientApplication: ServerAddress must be an IPv4 address (set it, or use "
                       "FlClientHelper)");
    }
    try
    {
        m_wire = fl::ParseWireEncoding(m_wirePrecision, "FlClientApplication::WirePrecision");
    }
    catch (const fl::ConfigError& e)
    {
        NS_FATAL_ERROR(e.what());
    }
    m_trainingSeed = m_trainingSeedAttr != 0
                         ? m_trainingSeedAttr
                         : m_rng->GetInteger(1, std::numeric_limits<uint32_t>::max());

    m_socket = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
    if (m_tcpSegmentSize > 0)
    {
        m_socket->SetAttribute("SegmentSize", UintegerValue(m_tcpSegmentSize));
    }
    if (m_socket->Bind() != 0)
    {
        NS_FATAL_ERROR("FlClientApplication: cannot bind a TCP socket on node "
                       << GetNode()->GetId());
    }
    m_socket->SetConnectCallback(MakeCallback(&FlClientApplication::ConnectionSucceeded, this),
                                 MakeCallback(&FlClientApplication::ConnectionFailed, this));
    m_socket->Connect(InetSocketAddress(Ipv4Address::ConvertFrom(m_serverAddress), m_serverPort));
}

void
FlClientApplication::StopApplication()
{
    NS_LOG_FUNCTION(this);
    Simulator::Cancel(m_sendEvent);
    if (m_conn)
    {
        m_conn->Close();
    }
    else if (m_socket)
    {
        m_socket->Close();
    }
}

void
FlClientApplication::ConnectionSucceeded(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    m_conn = Create<FlMessageSocket>(socket, m_task->GetPrecision());
    m_conn->SetReceiveCallback(MakeCallback(&FlClientApplication::HandleMessage, this));
    const auto samples = static_cast<uint32_t>(m_task->ClientSamples(m_clientIndex));
    auto bytes = std::make_shared<std::vector<uint8_t>>(fl::EncodeMessage(fl::MessageKind::Join,
                                                                          0,
                                                                          m_clientIndex,
                                                                          samples,
                                                                          fl::ParamVector(),
                                                                          fl::Precision::Float64));
    m_conn->Send(bytes);
}

void
FlClientApplication::ConnectionFailed(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    NS_LOG_WARN("client " << m_clientIndex << ": connection to the server failed");
}

void
FlClientApplication::HandleMessage(Ptr<FlMessageSocket> conn, fl::ReceivedMessage& msg)
{
    const auto& h = msg.header;
    NS_LOG_FUNCTION(this << fl::MessageKindName(h.kind) << h.round);
    if (h.kind == fl::MessageKind::Stop)
    {
        Simulator::Cancel(m_sendEvent);
        return;
    }
    if (h.kind != fl::MessageKind::GlobalModel || msg.params.Size() != m_task->NumParameters())
    {
        ++m_unexpected;
        return;
    }
    // A newer global model supersedes an update still "in computation".
    Simulator::Cancel(m_sendEvent);

    fl::Rng rng(fl::DeriveSeed(m_trainingSeed, h.round));
    fl::TrainOutcome out = m_task->TrainClient(m_clientIndex, msg.params, rng);
    ++m_roundsTrained;

    const double seconds = m_flopRate > 0.0
                               ? out.flops / m_flopRate
                               : static_cast<double>(out.samplesProcessed) * m_secondsPerSample;
    const Time compute = Seconds(seconds);
    m_trainingDoneTrace(h.round, static_cast<uint32_t>(out.steps), out.meanLoss, compute);

    auto bytes = std::make_shared<std::vector<uint8_t>>();
    fl::Rng quantRng(fl::DeriveSeed(m_trainingSeed, h.round, 0x9A4D)); // int8 only
    fl::EncodeMessage(fl::MessageKind::LocalModel,
                      h.round,
                      m_clientIndex,
                      static_cast<uint32_t>(m_task->ClientSamples(m_clientIndex)),
                      out.params,
                      m_wire,
                      &quantRng,
                      *bytes);
    m_sendEvent =
        Simulator::Schedule(compute, &FlClientApplication::SendUpdate, this, h.round, bytes);
}

void
FlClientApplication::SendUpdate(uint32_t round, std::shared_ptr<const std::vector<uint8_t>> bytes)
{
    NS_LOG_FUNCTION(this << round);
    if (m_conn)
    {
        m_conn->Send(std::move(bytes));
    }
}

} // namespace ns3
