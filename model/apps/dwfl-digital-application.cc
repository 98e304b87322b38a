/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/dwfl-digital-application.h"

#include "ns3/double.h"
#include "ns3/dwfl.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DwflDigitalApplication");
NS_OBJECT_ENSURE_REGISTERED(DwflDigitalApplication);

TypeId
DwflDigitalApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DwflDigitalApplication")
            .SetParent<FlApplicationBase>()
            .SetGroupName("Fl")
            .AddConstructor<DwflDigitalApplication>()
            .AddAttribute("Rounds",
                          "Number of rounds T.",
                          UintegerValue(10),
                          MakeUintegerAccessor(&DwflDigitalApplication::m_rounds),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("WorkerIndex",
                          "Index of this worker's data set in the learning task.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DwflDigitalApplication::m_workerIndex),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Port",
                          "Port on which the worker accepts its peers' models (the same on all).",
                          UintegerValue(9100),
                          MakeUintegerAccessor(&DwflDigitalApplication::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("Eta",
                          "Averaging rate eta of eq. (7), 0 < eta < 2 (N-1)/N; 0 (default): "
                          "(N-1)/N, which averages exactly in one round.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&DwflDigitalApplication::m_eta),
                          MakeDoubleChecker<double>())
            .AddAttribute("ComputeTime",
                          "Simulated time of the local step (between the start of a round and "
                          "the sending of x_i^(t)).",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&DwflDigitalApplication::m_computeTime),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("ExchangeTimeout",
                          "With a neighbour source (SetNeighbourSource): how long after its send "
                          "a worker combines without the neighbours' models that have not "
                          "arrived (> 0 there; unused otherwise: the reference waits for all).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&DwflDigitalApplication::m_exchangeTimeout),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("TrainingSeed",
                          "Base seed of the mini-batch draws (0 = drawn from the ns-3 stream).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DwflDigitalApplication::m_trainingSeedAttr),
                          MakeUintegerChecker<uint64_t>())
            .AddTraceSource("RoundCompleted",
                            "The update of a round was applied (round, simulated time).",
                            MakeTraceSourceAccessor(&DwflDigitalApplication::m_roundCompletedTrace),
                            "ns3::DwflDigitalApplication::RoundCompletedCallback");
    return tid;
}

DwflDigitalApplication::DwflDigitalApplication()
    : m_rounds(10),
      m_workerIndex(0),
      m_port(9100),
      m_eta(0.0),
      m_computeTime(MilliSeconds(10)),
      m_trainingSeedAttr(0)
{
    m_seedRng = CreateObject<UniformRandomVariable>();
}

DwflDigitalApplication::~DwflDigitalApplication() = default;

void
DwflDigitalApplication::SetTask(std::shared_ptr<const fl::LearningTask> task)
{
    m_task = std::move(task);
}

void
DwflDigitalApplication::SetPeers(const std::vector<Address>& peers,
                                 const std::vector<uint32_t>& indices)
{
    m_peers = peers;
    m_peerIndices = indices;
}

void
DwflDigitalApplication::SetInitialModel(const fl::ParamVector& x0)
{
    m_model = x0;
}

uint32_t
DwflDigitalApplication::GetRoundsCompleted() const
{
    return m_round;
}

Time
DwflDigitalApplication::GetLastRoundTime() const
{
    return m_lastRoundTime;
}

const fl::ParamVector&
DwflDigitalApplication::GetModel() const
{
    return m_model;
}

uint64_t
DwflDigitalApplication::GetIgnoredMessages() const
{
    if (!m_exchange)
    {
        return m_ignored;
    }
    const FlGraphExchangeStats& s = m_exchange->Stats();
    return m_ignored + s.ignored + s.notNeighbor + s.lateMessages;
}

int64_t
DwflDigitalApplication::AssignStreams(int64_t stream)
{
    m_seedRng->SetStream(stream);
    return 1;
}

void
DwflDigitalApplication::DoDispose()
{
    m_task.reset();
    if (m_exchange)
    {
        m_exchange->Cancel();
        m_exchange = nullptr;
    }
    FlApplicationBase::DoDispose();
}

void
DwflDigitalApplication::StartApplication()
{
    NS_LOG_FUNCTION(this);
    std::string error;
    try
    {
        if (!m_task)
        {
            throw fl::ConfigError("DwflDigitalApplication task",
                                  "is not set",
                                  "call SetTask() before the application starts");
        }
        if (m_task->GetPrecision() != fl::Precision::Float64)
        {
            throw fl::ConfigError("DwflDigitalApplication task",
                                  "is float32",
                                  "build the task in float64 (DWFL's update is float64)");
        }
        if (m_workerIndex >= m_task->NumClients())
        {
            throw fl::ConfigError("DwflDigitalApplication::WorkerIndex",
                                  std::to_string(m_workerIndex) + " but the task has " +
                                      std::to_string(m_task->NumClients()) + " data sets",
                                  "give every worker the index of its own data set");
        }
        if (m_peers.empty())
        {
            throw fl::ConfigError("DwflDigitalApplication peers",
                                  "are not set",
                                  "call SetPeers() with the other workers' addresses");
        }
        const double n = static_cast<double>(m_peers.size() + 1);
        const double eta = m_eta == 0.0 ? (n - 1.0) / n : m_eta;
        if (!(eta > 0.0 && eta < 2.0 * (n - 1.0) / n))
        {
            throw fl::ConfigError("DwflDigitalApplication::Eta",
                                  "is " + std::to_string(m_eta),
                                  "use 0 < eta < 2 (N-1)/N, or 0 for (N-1)/N (exact averaging)");
        }
        if (m_peerIndices.empty())
        {
            for (uint32_t k = 0; m_peerIndices.size() < m_peers.size(); ++k)
            {
                if (k != m_workerIndex)
                {
                    m_peerIndices.push_back(k);
                }
            }
        }
        if (m_peerIndices.size() != m_peers.size())
        {
            throw fl::ConfigError("DwflDigitalApplication peers",
                                  std::to_string(m_peers.size()) + " addresses but " +
                                      std::to_string(m_peerIndices.size()) + " indices",
                                  "give one worker index per peer address");
        }
        // The complete graph without perturbation: weight 1 on every peer's model, 0 on the
        // own, so that the exchange's combination is v_i = sum_{k != i} x_k^(t).
        FlGraphExchangeConfig exchange;
        exchange.self = m_workerIndex;
        exchange.selfWeight = 0.0;
        std::vector<std::size_t> order(m_peers.size());
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [this](std::size_t a, std::size_t b) {
            return m_peerIndices[a] < m_peerIndices[b];
        });
        for (std::size_t j : order)
        {
            exchange.neighbors.push_back({m_peerIndices[j], m_peers[j], 1.0});
        }
        exchange.policy = fl::MissingMessagePolicy::ReuseLast; // never used: no timeout
        if (m_neighbourSource)
        {
            // the heard-graph variant: this round's neighbours and Metropolis column
            if (!m_exchangeTimeout.IsStrictlyPositive())
            {
                throw fl::ConfigError("DwflDigitalApplication::ExchangeTimeout",
                                      "is 0 with a neighbour source (a neighbour that left "
                                      "never sends)",
                                      "give a positive timeout, shorter than a round");
            }
            exchange.selfWeight = 1.0;
            exchange.neighbors.clear();
            exchange.neighbourSource = m_neighbourSource;
            exchange.nodes = static_cast<uint32_t>(m_peers.size() + 1);
            exchange.timeout = m_exchangeTimeout;
        }
        m_exchange = Create<FlGraphExchangeNode>(exchange); // checks the indices
        if (m_model.Size() == 0)
        {
            fl::Rng rng(1);
            m_model = m_task->InitialParameters(rng);
        }
        if (m_model.Size() != m_task->NumParameters() ||
            m_model.GetPrecision() != fl::Precision::Float64)
        {
            throw fl::ConfigError("DwflDigitalApplication initial model",
                                  "does not match the task (size or precision)",
                                  "give SetInitialModel a float64 vector of the task's size");
        }
    }
    catch (const fl::ConfigError& e)
    {
        error = e.what();
    }
    if (!error.empty())
    {
        fl::ExitOnConfigError("DwflDigitalApplication", error);
    }
    m_trainingSeed = m_trainingSeedAttr != 0
                         ? m_trainingSeedAttr
                         : m_seedRng->GetInteger(1, std::numeric_limits<uint32_t>::max());
    StartTransport("DwflDigitalApplication",
                   fl::Precision::Float64,
                   m_port,
                   m_task->NumParameters());
    m_transport->SetReceiveCallback(MakeCallback(&DwflDigitalApplication::HandleInbound, this));
    ReportModel(0, FlNodeRole::Peer, m_model);
    BeginRound();
}

void
DwflDigitalApplication::StopApplication()
{
    NS_LOG_FUNCTION(this);
    m_stopped = true;
    Simulator::Cancel(m_sendEvent);
    if (m_exchange)
    {
        m_exchange->Cancel();
    }
    if (m_transport)
    {
        m_transport->Close();
    }
}

void
DwflDigitalApplication::BeginRound()
{
    // x_i^(t) = x_i^(t-1/2) - gamma clip(g_i^(t)): the task's trainer (one clipped step).
    fl::Rng rng(fl::DeriveSeed(m_trainingSeed, m_round));
    m_local = m_task->TrainClient(m_workerIndex, m_model, rng).params;
    m_sendEvent = Simulator::Schedule(m_computeTime, &DwflDigitalApplication::SendLocalModel, this);
}

void
DwflDigitalApplication::SendLocalModel()
{
    // x_i^(t) to every peer; CompleteRound once the N-1 models of round t have arrived
    fl::Rng quantRng(fl::DeriveSeed(m_trainingSeed, m_round, 0x9A4D)); // int8 only
    m_exchange->Start(
        m_transport,
        m_round,
        m_local,
        m_received,
        [this](const fl::CombineOutcome&) { CompleteRound(); },
        &quantRng);
}

void
DwflDigitalApplication::HandleInbound(FlInboundMessage& in)
{
    const fl::MessageHeader& h = in.msg.header;
    if (m_stopped || h.kind != fl::MessageKind::PeerModel || h.round >= m_rounds ||
        in.msg.params.Size() != m_model.Size() ||
        in.msg.params.GetPrecision() != fl::Precision::Float64)
    {
        ++m_ignored;
        return;
    }
    m_exchange->Receive(in); // duplicates, late and foreign messages: counted there
}

void
DwflDigitalApplication::SetNeighbourSource(std::function<FlGraphNeighbourhood(uint32_t)> source)
{
    m_neighbourSource = std::move(source);
}

void
DwflDigitalApplication::CompleteRound()
{
    if (m_neighbourSource)
    {
        // the heard-graph variant: the exchange's combination is the update
        std::swap(m_model, m_received);
    }
    else
    {
        // Eq. (7) without noise: v_i = sum_{k != i} x_k^(t), c = 1, a_i G_i = 0.
        Eigen::VectorXd& x = m_local.Get<double>();
        fl::DwflPracticalUpdate(x,
                                m_received.Get<double>(),
                                Eigen::VectorXd::Zero(x.size()),
                                0.0,
                                1.0,
                                m_peers.size() + 1,
                                fl::DwflAveragingRate(m_eta, m_peers.size() + 1));
        std::swap(m_model, m_local);
    }
    m_lastRoundTime = Simulator::Now();
    ReportModel(m_round + 1, FlNodeRole::Peer, m_model);
    m_roundCompletedTrace(m_round + 1, m_lastRoundTime); // round 0 is the initial model
    ++m_round;
    if (m_round < m_rounds)
    {
        BeginRound();
    }
}

} // namespace ns3
