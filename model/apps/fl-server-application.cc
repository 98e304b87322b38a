/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-server-application.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/fedavg.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlServerApplication");
NS_OBJECT_ENSURE_REGISTERED(FlServerApplication);

namespace
{
constexpr uint32_t kServerId = 0xFFFFFFFFu;
}

TypeId
FlServerApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlServerApplication")
            .SetParent<Application>()
            .SetGroupName("Fl")
            .AddConstructor<FlServerApplication>()
            .AddAttribute("Port",
                          "TCP port the server listens on.",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&FlServerApplication::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("Rounds",
                          "Number of federated rounds to run.",
                          UintegerValue(10),
                          MakeUintegerAccessor(&FlServerApplication::m_rounds),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ClientsPerRound",
                          "Clients sampled uniformly without replacement each round "
                          "(0 = every joined client).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlServerApplication::m_clientsPerRound),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ExpectedClients",
                          "Number of clients that must join before round 1 starts "
                          "(0 = the task's number of clients).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlServerApplication::m_expectedClients),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RoundDeadline",
                          "A round closes this long after it started even if some selected "
                          "clients have not answered (0 = wait for all).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&FlServerApplication::m_roundDeadline),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("RoundGap",
                          "Idle time between the end of a round and the start of the next.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&FlServerApplication::m_roundGap),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("TcpSegmentSize",
                          "TCP maximum segment size of this application's sockets in bytes "
                          "(0 = keep ns3::TcpSocket::SegmentSize; ns-3's default is 536).",
                          UintegerValue(1448),
                          MakeUintegerAccessor(&FlServerApplication::m_tcpSegmentSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "WirePrecision",
                "Encoding of the global model on the wire: float64, float32, float16 or int8 "
                "(unbiased stochastic quantisation).",
                StringValue("float64"),
                MakeStringAccessor(&FlServerApplication::m_wirePrecision),
                MakeStringChecker())
            .AddAttribute("ServerMomentum",
                          "FedAvgM server momentum beta in [0, 1) (0 = plain FedAvg).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&FlServerApplication::m_serverMomentum),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("ServerLearningRate",
                          "FedAvgM server learning rate eta > 0 (used when ServerMomentum > 0 or "
                          "eta != 1).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&FlServerApplication::m_serverLearningRate),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("InitSeed",
                          "Seed of the initial global model (0 = drawn from the ns-3 stream).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlServerApplication::m_initSeed),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("StopSimulation",
                          "Call Simulator::Stop() when the last round is done.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FlServerApplication::m_stopSimulation),
                          MakeBooleanChecker())
            .AddTraceSource("RoundEnd",
                            "A round closed and a new global model was formed.",
                            MakeTraceSourceAccessor(&FlServerApplication::m_roundEndTrace),
                            "ns3::FlServerApplication::RoundEndCallback")
            .AddTraceSource("ClientJoined",
                            "A client announced itself (client index, sample count).",
                            MakeTraceSourceAccessor(&FlServerApplication::m_joinTrace),
                            "ns3::TracedCallback::Uint32Uint32");
    return tid;
}

FlServerApplication::FlServerApplication()
    : m_port(9000),
      m_rounds(10),
      m_clientsPerRound(0),
      m_expectedClients(0),
      m_initSeed(0),
      m_serverMomentum(0.0),
      m_serverLearningRate(1.0),
      m_stopSimulation(true)
{
    NS_LOG_FUNCTION(this);
    m_rng = CreateObject<UniformRandomVariable>();
}

FlServerApplication::~FlServerApplication()
{
    NS_LOG_FUNCTION(this);
}

void
FlServerApplication::SetTask(std::shared_ptr<const fl::LearningTask> task)
{
    m_task = std::move(task);
}

std::shared_ptr<const fl::LearningTask>
FlServerApplication::GetTask() const
{
    return m_task;
}

const fl::ParamVector&
FlServerApplication::GetGlobalModel() const
{
    return m_global;
}

uint32_t
FlServerApplication::GetCompletedRounds() const
{
    return m_roundOpen ? m_round - 1 : m_round;
}

bool
FlServerApplication::IsFinished() const
{
    return m_finished;
}

int64_t
FlServerApplication::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

FlServerApplication::Counters
FlServerApplication::GetCounters() const
{
    Counters c = m_counters;
    for (const auto& conn : m_connections)
    {
        c.malformedHeaders += conn->RxStats().malformedHeaders;
        c.crcErrors += conn->RxStats().crcErrors;
    }
    return c;
}

void
FlServerApplication::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (auto& c : m_connections)
    {
        c->Close();
    }
    m_connections.clear();
    m_clients.clear();
    m_listen = nullptr;
    Application::DoDispose();
}

void
FlServerApplication::StartApplication()
{
    NS_LOG_FUNCTION(this);
    if (!m_task)
    {
        NS_FATAL_ERROR(
            "FlServerApplication: no learning task; call SetTask() or use FlServerHelper");
    }
    try
    {
        m_wire = fl::ParseWireEncoding(m_wirePrecision, "FlServerApplication::WirePrecision");
    }
    catch (const fl::ConfigError& e)
    {
        NS_FATAL_ERROR(e.what());
    }
    if (m_expectedClients == 0)
    {
        m_expectedClients = static_cast<uint32_t>(m_task->NumClients());
    }
    const uint64_t seed =
        m_initSeed != 0 ? m_initSeed : m_rng->GetInteger(1, std::numeric_limits<uint32_t>::max());
    fl::Rng rng(seed);
    m_global = m_task->InitialParameters(rng);
    m_quantSeed = fl::DeriveSeed(seed, 0x9A4D);
    FlRoundReport initial; // round 0: the initial model, so that observers see it too
    initial.start = initial.end = Simulator::Now();
    initial.globalModel = &m_global;
    m_roundEndTrace(initial);

    m_listen = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
    if (m_tcpSegmentSize > 0)
    {
        m_listen->SetAttribute("SegmentSize", UintegerValue(m_tcpSegmentSize));
    }
    if (m_listen->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port)) != 0)
    {
        NS_FATAL_ERROR("FlServerApplication: cannot bind TCP port " << m_port
                                                                    << "; set the Port attribute "
                                                                       "to a free port");
    }
    m_listen->Listen();
    m_listen->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                MakeCallback(&FlServerApplication::HandleAccept, this));
}

void
FlServerApplication::StopApplication()
{
    NS_LOG_FUNCTION(this);
    Simulator::Cancel(m_deadlineEvent);
    for (auto& c : m_connections)
    {
        c->Close();
    }
    if (m_listen)
    {
        m_listen->Close();
    }
}

void
FlServerApplication::HandleAccept(Ptr<Socket> socket, const Address& from)
{
    NS_LOG_FUNCTION(this << socket << from);
    Ptr<FlMessageSocket> conn = Create<FlMessageSocket>(socket, m_task->GetPrecision());
    conn->SetReceiveCallback(MakeCallback(&FlServerApplication::HandleMessage, this));
    socket->SetCloseCallbacks(MakeCallback(&FlServerApplication::HandlePeerClose, this),
                              MakeCallback(&FlServerApplication::HandlePeerClose, this));
    m_connections.push_back(conn);
}

void
FlServerApplication::HandlePeerClose(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    for (auto it = m_clients.begin(); it != m_clients.end(); ++it)
    {
        if (it->second->GetSocket() == socket)
        {
            const uint32_t client = it->first;
            NS_LOG_INFO("client " << client << " disconnected");
            ++m_counters.disconnects;
            m_clients.erase(it);
            // A selected client that can no longer answer is not waited for.
            auto sel = std::find(m_selected.begin(), m_selected.end(), client);
            if (m_roundOpen && sel != m_selected.end() && m_received.count(client) == 0)
            {
                m_selected.erase(sel);
                ++m_lostThisRound;
                if (m_received.size() == m_selected.size())
                {
                    Simulator::Cancel(m_deadlineEvent);
                    CloseRound(false);
                }
            }
            break;
        }
    }
}

void
FlServerApplication::HandleMessage(Ptr<FlMessageSocket> conn, fl::ReceivedMessage& msg)
{
    const auto& h = msg.header;
    NS_LOG_FUNCTION(this << fl::MessageKindName(h.kind) << h.round << h.sender);
    if (h.kind == fl::MessageKind::Join)
    {
        if (h.sender >= m_task->NumClients() || m_clients.count(h.sender) != 0)
        {
            NS_LOG_WARN("join from unknown or duplicate client " << h.sender << "; ignored");
            ++m_counters.unexpectedMessages;
            return;
        }
        conn->peerId = h.sender;
        m_clients[h.sender] = conn;
        m_clientSamples[h.sender] = h.sampleCount;
        m_joinTrace(h.sender, h.sampleCount);
        if (m_round == 0 && !m_roundOpen && m_clients.size() >= m_expectedClients)
        {
            Simulator::ScheduleNow(&FlServerApplication::StartRound, this);
        }
        return;
    }
    if (h.kind != fl::MessageKind::LocalModel || conn->peerId != static_cast<int64_t>(h.sender))
    {
        ++m_counters.unexpectedMessages;
        return;
    }
    if (!m_roundOpen || h.round != m_round)
    {
        NS_LOG_INFO("stale update from client " << h.sender << " for round " << h.round
                                                << " (current " << m_round << "); dropped");
        ++m_counters.staleUpdates;
        return;
    }
    if (std::find(m_selected.begin(), m_selected.end(), h.sender) == m_selected.end() ||
        m_received.count(h.sender) != 0)
    {
        ++m_counters.unexpectedMessages;
        return;
    }
    if (msg.params.Size() != m_task->NumParameters())
    {
        NS_LOG_WARN("update from client " << h.sender << " has " << msg.params.Size()
                                          << " parameters, expected " << m_task->NumParameters());
        ++m_counters.badModelSize;
        return;
    }
    m_received.emplace(h.sender, std::move(msg));
    if (m_received.size() == m_selected.size())
    {
        Simulator::Cancel(m_deadlineEvent);
        CloseRound(false);
    }
}

void
FlServerApplication::StartRound()
{
    NS_LOG_FUNCTION(this);
    if (m_finished || m_roundOpen)
    {
        return;
    }
    ++m_round;
    m_roundOpen = true;
    m_roundStart = Simulator::Now();
    m_received.clear();
    m_lostThisRound = 0;
    m_bytesSentAtStart = TotalBytesSent();
    m_bytesReceivedAtStart = TotalBytesReceived();

    // Select clients: all joined ones, or a uniform sample without replacement (partial
    // Fisher-Yates with draws from the ns-3 stream).
    std::vector<uint32_t> pool;
    for (const auto& kv : m_clients)
    {
        pool.push_back(kv.first);
    }
    const std::size_t want = (m_clientsPerRound == 0 || m_clientsPerRound >= pool.size())
                                 ? pool.size()
                                 : m_clientsPerRound;
    for (std::size_t i = 0; i < want && pool.size() > want; ++i)
    {
        const auto j = static_cast<std::size_t>(
            m_rng->GetInteger(static_cast<uint32_t>(i), static_cast<uint32_t>(pool.size() - 1)));
        std::swap(pool[i], pool[j]);
    }
    pool.resize(want);
    std::sort(pool.begin(), pool.end());
    m_selected = pool;

    if (m_selected.empty())
    {
        NS_LOG_WARN("round " << m_round << ": no connected clients");
        CloseRound(false);
        return;
    }
    auto bytes = std::make_shared<std::vector<uint8_t>>();
    fl::Rng quantRng(fl::DeriveSeed(m_quantSeed, m_round)); // int8 only
    fl::EncodeMessage(fl::MessageKind::GlobalModel,
                      m_round,
                      kServerId,
                      0,
                      m_global,
                      m_wire,
                      &quantRng,
                      *bytes);
    for (uint32_t k : m_selected)
    {
        m_clients[k]->Send(bytes);
    }
    if (m_roundDeadline.IsStrictlyPositive())
    {
        m_deadlineEvent =
            Simulator::Schedule(m_roundDeadline, &FlServerApplication::CloseRound, this, true);
    }
}

void
FlServerApplication::CloseRound(bool deadlineHit)
{
    NS_LOG_FUNCTION(this << deadlineHit);
    if (!m_roundOpen)
    {
        return;
    }
    m_roundOpen = false;
    FlRoundReport report;
    report.round = m_round;
    report.start = m_roundStart;
    report.end = Simulator::Now();
    report.selected = m_selected;
    report.disconnected = m_lostThisRound;
    report.deadlineHit = deadlineHit;
    report.bytesDown = TotalBytesSent() - m_bytesSentAtStart;
    report.bytesUp = TotalBytesReceived() - m_bytesReceivedAtStart;

    if (!m_received.empty())
    {
        std::vector<const fl::ParamVector*> models;
        std::vector<double> weights;
        for (const auto& kv : m_received) // std::map: ascending client index
        {
            report.participants.push_back(kv.first);
            models.push_back(&kv.second.params);
            weights.push_back(static_cast<double>(kv.second.header.sampleCount));
        }
        fl::ParamVector avg = fl::FedAvgAggregate(models, weights);
        if (m_serverMomentum == 0.0 && m_serverLearningRate == 1.0)
        {
            m_global = std::move(avg); // plain FedAvg, bit for bit
        }
        else
        {
            try
            {
                fl::ServerMomentumStep(m_global,
                                       avg,
                                       m_velocity,
                                       m_serverMomentum,
                                       m_serverLearningRate);
            }
            catch (const fl::ConfigError& e)
            {
                NS_FATAL_ERROR(e.what());
            }
        }
    }
    m_received.clear();
    report.globalModel = &m_global;
    m_roundEndTrace(report);

    if (m_round >= m_rounds)
    {
        Finish();
        return;
    }
    Simulator::Schedule(m_roundGap, &FlServerApplication::StartRound, this);
}

void
FlServerApplication::Finish()
{
    NS_LOG_FUNCTION(this);
    m_finished = true;
    auto bytes = std::make_shared<std::vector<uint8_t>>();
    fl::EncodeMessage(fl::MessageKind::Stop,
                      m_round,
                      kServerId,
                      0,
                      fl::ParamVector(),
                      fl::Precision::Float64,
                      *bytes);
    for (auto& kv : m_clients)
    {
        kv.second->Send(bytes);
    }
    if (m_stopSimulation)
    {
        // Leave a moment for the stop messages to go out.
        Simulator::Stop(MilliSeconds(100));
    }
}

uint64_t
FlServerApplication::TotalBytesSent() const
{
    uint64_t n = 0;
    for (const auto& c : m_connections)
    {
        n += c->BytesSent();
    }
    return n;
}

uint64_t
FlServerApplication::TotalBytesReceived() const
{
    uint64_t n = 0;
    for (const auto& c : m_connections)
    {
        n += c->BytesReceived();
    }
    return n;
}

} // namespace ns3
