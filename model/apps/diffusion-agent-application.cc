/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/diffusion-agent-application.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DiffusionAgentApplication");
NS_OBJECT_ENSURE_REGISTERED(DiffusionAgentApplication);

TypeId
DiffusionAgentApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DiffusionAgentApplication")
            .SetParent<FlApplicationBase>()
            .SetGroupName("Fl")
            .AddConstructor<DiffusionAgentApplication>()
            .AddAttribute("Iterations",
                          "Number of ATC iterations.",
                          UintegerValue(10),
                          MakeUintegerAccessor(&DiffusionAgentApplication::m_iterations),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("AgentIndex",
                          "Index of this agent's data set in the learning task.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DiffusionAgentApplication::m_agentIndex),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Port",
                          "Port on which the agent accepts its neighbours' messages.",
                          UintegerValue(9200),
                          MakeUintegerAccessor(&DiffusionAgentApplication::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("Mu",
                          "Step size mu of the adapt step.",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&DiffusionAgentApplication::m_mu),
                          MakeDoubleChecker<double>())
            .AddAttribute("BatchSize",
                          "Samples per adapt step (1 = streaming SGD).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&DiffusionAgentApplication::m_batchSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ClipNorm",
                          "Gradient clipping G (0 = off).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&DiffusionAgentApplication::m_clipNorm),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("ComputeTime",
                          "Simulated time of the adapt step.",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&DiffusionAgentApplication::m_computeTime),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("IterationPeriod",
                          "0: begin the next iteration as soon as one is combined. > 0: "
                          "iteration i begins at start + (i - 1) IterationPeriod (synchronous "
                          "slots; ComputeTime + ReleaseJitter + the exchange timeout must fit in "
                          "one).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&DiffusionAgentApplication::m_period),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("ReleaseJitter",
                          "The release happens ComputeTime + U[0, ReleaseJitter] after the "
                          "iteration begins (agents that release at the same instant on an idle "
                          "802.11 channel transmit at once and their broadcasts collide).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&DiffusionAgentApplication::m_jitter),
                          MakeTimeChecker(Seconds(0)));
    return tid;
}

DiffusionAgentApplication::DiffusionAgentApplication()
    : m_iterations(10),
      m_agentIndex(0),
      m_port(9200),
      m_mu(0.1),
      m_batchSize(1),
      m_clipNorm(0.0),
      m_computeTime(MilliSeconds(1)),
      m_period(Seconds(0)),
      m_jitter(Seconds(0)),
      m_jitterRv(CreateObject<UniformRandomVariable>())
{
}

DiffusionAgentApplication::~DiffusionAgentApplication() = default;

void
DiffusionAgentApplication::SetTask(std::shared_ptr<const fl::LearningTask> task)
{
    m_task = std::move(task);
}

void
DiffusionAgentApplication::SetExchange(const FlGraphExchangeConfig& exchange)
{
    m_exchangeConfig = exchange;
}

void
DiffusionAgentApplication::SetInitialModel(const fl::ParamVector& w0)
{
    m_model = w0;
}

void
DiffusionAgentApplication::SetIterationCallback(IterationCallback cb)
{
    m_callback = std::move(cb);
}

const FlGraphExchangeStats*
DiffusionAgentApplication::GetExchangeStats() const
{
    return m_exchange ? &m_exchange->Stats() : nullptr;
}

int64_t
DiffusionAgentApplication::AssignStreams(int64_t stream)
{
    m_jitterRv->SetStream(stream);
    return 1;
}

const std::vector<uint32_t>&
DiffusionAgentApplication::GetLastMissing() const
{
    static const std::vector<uint32_t> kNone;
    return m_exchange ? m_exchange->LastMissing() : kNone;
}

void
DiffusionAgentApplication::DoDispose()
{
    m_jitterRv = nullptr;
    m_task.reset();
    m_exchange = nullptr;
    FlApplicationBase::DoDispose();
}

void
DiffusionAgentApplication::StartApplication()
{
    NS_LOG_FUNCTION(this);
    std::string error;
    try
    {
        if (!m_task)
        {
            throw fl::ConfigError("DiffusionAgentApplication task",
                                  "is not set",
                                  "call SetTask() (or use DiffusionHelper)");
        }
        if (m_agentIndex >= m_task->NumClients())
        {
            throw fl::ConfigError("DiffusionAgentApplication::AgentIndex",
                                  std::to_string(m_agentIndex) + " but the task has " +
                                      std::to_string(m_task->NumClients()) + " data sets",
                                  "give every agent the index of its own data set");
        }
        if (m_period.IsStrictlyPositive() &&
            (!m_exchangeConfig.timeout.IsStrictlyPositive() ||
             m_computeTime + m_jitter + m_exchangeConfig.timeout > m_period))
        {
            throw fl::ConfigError(
                "DiffusionAgentApplication::IterationPeriod",
                "is " + std::to_string(m_period.GetSeconds()) +
                    " s but ComputeTime + ReleaseJitter + the exchange timeout "
                    "is " +
                    std::to_string(
                        (m_computeTime + m_jitter + m_exchangeConfig.timeout).GetSeconds()) +
                    " s (or the timeout is 0)",
                "give a positive timeout with ComputeTime + ReleaseJitter + "
                "timeout <= period");
        }
        m_adapt = fl::DiffusionAdaptConfig(m_mu, m_batchSize, m_clipNorm);
        m_exchangeConfig.self = m_agentIndex;
        m_exchange = Create<FlGraphExchangeNode>(m_exchangeConfig);
        if (m_model.Size() == 0)
        {
            fl::Rng rng(fl::InitialModelSeed(m_exchangeConfig.seed));
            m_model = m_task->InitialParameters(rng);
        }
    }
    catch (const fl::ConfigError& e)
    {
        error = e.what();
    }
    if (!error.empty())
    {
        fl::ExitOnConfigError("DiffusionAgentApplication", error);
    }
    StartTransport("DiffusionAgentApplication",
                   m_task->GetPrecision(),
                   m_port,
                   m_task->NumParameters());
    m_transport->SetReceiveCallback(MakeCallback(&DiffusionAgentApplication::HandleInbound, this));
    m_startedAt = Simulator::Now();
    ReportModel(0, FlNodeRole::Peer, m_model);
    BeginIteration();
}

void
DiffusionAgentApplication::StopApplication()
{
    m_stopped = true;
    Simulator::Cancel(m_releaseEvent);
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
DiffusionAgentApplication::BeginIteration()
{
    const uint32_t i = m_completed + 1;
    // adapt (eq. 14): phi_k = w_k - mu grad Q_k(w_k; x_k,i), the agent's seed and i
    fl::Rng rng(fl::DeriveSeed(m_exchangeConfig.seed, i));
    m_phi = fl::TrainClientWith(*m_task, m_agentIndex, m_model, m_adapt, rng).params;
    Time delay = m_computeTime;
    if (m_jitter.IsStrictlyPositive())
    {
        delay += Seconds(m_jitterRv->GetValue(0.0, m_jitter.GetSeconds()));
    }
    m_releaseEvent = Simulator::Schedule(delay, &DiffusionAgentApplication::Release, this);
}

void
DiffusionAgentApplication::Release()
{
    if (m_stopped)
    {
        return;
    }
    const uint32_t i = m_completed + 1;
    m_exchange->Start(m_transport, i, m_phi, m_model, [this, i](const fl::CombineOutcome& o) {
        m_completed = i;
        FlModelReport report;
        report.round = i;
        report.role = FlNodeRole::Peer;
        report.model = &m_model;
        report.aggregate = &m_phi;
        report.missingNeighbours = static_cast<uint32_t>(o.missing);
        report.combination = &m_exchange->LastCombination();
        ReportModel(report);
        if (m_callback)
        {
            m_callback(m_agentIndex, i, m_phi, m_model, o);
        }
        if (m_completed < m_iterations && !m_stopped)
        {
            const Time next = m_startedAt + TimeStep(m_period.GetTimeStep() * i);
            if (m_period.IsStrictlyPositive() && next > Simulator::Now())
            {
                m_releaseEvent = Simulator::Schedule(next - Simulator::Now(),
                                                     &DiffusionAgentApplication::BeginIteration,
                                                     this);
            }
            else
            {
                BeginIteration();
            }
        }
    });
}

void
DiffusionAgentApplication::HandleInbound(FlInboundMessage& in)
{
    if (m_stopped || !m_exchange || !m_exchange->Receive(in))
    {
        NS_LOG_INFO("agent " << m_agentIndex << ": message ignored");
    }
}

} // namespace ns3
