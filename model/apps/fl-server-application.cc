/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlServerApplication, in three files by purpose: this one (attributes, start and stop, joins,
 * the inbound dispatch, selection, sending, the end of a round and of the run),
 * fl-server-rounds.cc (the synchronous driver: uploads, phases, closing and aggregating a round)
 * and fl-server-async.cc (the asynchronous driver: versions, cohorts of an uplink step).
 */
#include "ns3/fl-server-application.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/fedavg-reference.h"
#include "ns3/fedavg.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlServerApplication");
NS_OBJECT_ENSURE_REGISTERED(FlServerApplication);

LogComponent&
FlServerApplicationLog()
{
    return g_log;
}

TypeId
FlServerApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlServerApplication")
            .SetParent<FlApplicationBase>()
            .SetGroupName("Fl")
            .AddConstructor<FlServerApplication>()
            .AddAttribute("Port",
                          "TCP or UDP port the server listens on.",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&FlServerApplication::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("Rounds",
                          "Number of federated rounds to run (repeated rounds do not count).",
                          UintegerValue(10),
                          MakeUintegerAccessor(&FlServerApplication::m_rounds),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ClientsPerRound",
                          "Clients sampled without replacement each round among the eligible "
                          "ones (0 = every eligible client).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlServerApplication::m_clientsPerRound),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ClientSampling",
                          "How ClientsPerRound clients are drawn: uniform, or weighted (each "
                          "draw proportional to the clients' announced sample counts).",
                          StringValue("uniform"),
                          MakeStringAccessor(&FlServerApplication::m_sampling),
                          MakeStringChecker())
            .AddAttribute("ExpectedClients",
                          "Number of clients that must join before round 1 starts "
                          "(0 = the task's number of clients).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlServerApplication::m_expectedClients),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("JoinWindow",
                          "Round 1 starts once ExpectedClients have joined, or this long after "
                          "the server started with the clients that joined by then, even none "
                          "(the round then aggregates nothing and the next follows after "
                          "RoundGap): for clients that may be elsewhere at the start, e.g. "
                          "moving between cells (0 = wait for ExpectedClients).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&FlServerApplication::m_joinWindow),
                          MakeTimeChecker(Seconds(0)))
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
            .AddAttribute("StragglerPolicy",
                          "Updates that arrive after their round closed: drop, or accept them "
                          "into the open round with their staleness recorded (clients with an "
                          "outstanding update are then not selected).",
                          StringValue("drop"),
                          MakeStringAccessor(&FlServerApplication::m_stragglerPolicyName),
                          MakeStringChecker())
            .AddAttribute("MaxStaleness",
                          "StragglerPolicy accept: updates more rounds late than this are "
                          "dropped, and their clients become eligible again.",
                          UintegerValue(2),
                          MakeUintegerAccessor(&FlServerApplication::m_maxStaleness),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MinQuorum",
                          "Fewest updates a round must aggregate (0 = no quorum); below it the "
                          "model is kept and the round skipped or repeated (QuorumPolicy).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlServerApplication::m_minQuorum),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("QuorumPolicy",
                          "Below MinQuorum: skip (the round counts, model unchanged) or repeat "
                          "(run it again with a new round number; see MaxRepeats).",
                          StringValue("skip"),
                          MakeStringAccessor(&FlServerApplication::m_quorumPolicyName),
                          MakeStringChecker())
            .AddAttribute("MaxRepeats",
                          "QuorumPolicy repeat: after this many repeats in a row the round is "
                          "skipped instead (so that a dead network cannot loop forever).",
                          UintegerValue(3),
                          MakeUintegerAccessor(&FlServerApplication::m_maxRepeats),
                          MakeUintegerChecker<uint32_t>())
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
                            "A round closed (new global model, or unchanged below quorum), or an "
                            "asynchronous cohort's uplink step aborted (status aborted).",
                            MakeTraceSourceAccessor(&FlServerApplication::m_roundEndTrace),
                            "ns3::FlServerApplication::RoundEndCallback")
            .AddTraceSource("RoundStart",
                            "A round started (round number, selected clients).",
                            MakeTraceSourceAccessor(&FlServerApplication::m_roundStartTrace),
                            "ns3::FlServerApplication::RoundStartCallback")
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
      m_sampling("uniform"),
      m_expectedClients(0),
      m_initSeed(0),
      m_stragglerPolicyName("drop"),
      m_maxStaleness(2),
      m_minQuorum(0),
      m_quorumPolicyName("skip"),
      m_maxRepeats(3),
      m_stopSimulation(true)
{
    NS_LOG_FUNCTION(this);
    m_rng = CreateObject<UniformRandomVariable>();
}

FlServerApplication::~FlServerApplication()
{
    NS_LOG_FUNCTION(this);
}

FlRoundRules
FlServerApplication::RoundRules(FlServerStrategy& strategy,
                                std::size_t numParameters,
                                bool uplinkStep) const
{
    FlRoundRules rules = FlRoundRules::Of(strategy, numParameters);
    rules.uplinkStep = uplinkStep;
    rules.acceptStale = m_stragglerPolicyName == "accept";
    rules.roundDeadline = m_roundDeadline.IsStrictlyPositive();
    rules.minQuorum = m_minQuorum;
    rules.weightedSampling = m_sampling == "weighted";
    rules.clientsPerRound = m_clientsPerRound;
    rules.expectedClients = m_expectedClients;
    return rules;
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

std::shared_ptr<const fl::LearningTask>
FlServerApplication::GetLearningTask() const
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
    return m_completed;
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
    if (m_transport)
    {
        c.malformed = m_transport->Stats().malformed;
    }
    return c;
}

FlDatagramStats
FlServerApplication::GetDatagramStats() const
{
    return m_transport ? m_transport->DatagramStats() : FlDatagramStats();
}

void
FlServerApplication::SetStrategy(Ptr<FlServerStrategy> strategy)
{
    m_strategy = strategy;
}

Ptr<FlServerStrategy>
FlServerApplication::GetStrategy() const
{
    return m_strategy;
}

void
FlServerApplication::SetUplinkStep(Ptr<FlUplinkServerStep> step)
{
    m_uplink = step;
}

Ptr<FlUplinkServerStep>
FlServerApplication::GetUplinkStep() const
{
    return m_uplink;
}

void
FlServerApplication::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_clients.clear();
    m_strategy = nullptr;
    m_uplink = nullptr;
    FlApplicationBase::DoDispose();
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
    if (m_sampling != "uniform" && m_sampling != "weighted")
    {
        NS_FATAL_ERROR("FlServerApplication::ClientSampling: \""
                       << m_sampling
                       << "\" is not a sampling rule "
                          "(fix: use uniform or weighted)");
    }
    m_weightedSampling = m_sampling == "weighted";
    if (m_stragglerPolicyName != "drop" && m_stragglerPolicyName != "accept")
    {
        NS_FATAL_ERROR("FlServerApplication::StragglerPolicy: \""
                       << m_stragglerPolicyName << "\" is not a policy (fix: use drop or accept)");
    }
    m_acceptStale = m_stragglerPolicyName == "accept";
    if (m_quorumPolicyName != "skip" && m_quorumPolicyName != "repeat")
    {
        NS_FATAL_ERROR("FlServerApplication::QuorumPolicy: \""
                       << m_quorumPolicyName << "\" is not a policy (fix: use skip or repeat)");
    }
    m_repeatBelowQuorum = m_quorumPolicyName == "repeat";
    if (m_expectedClients == 0)
    {
        m_expectedClients = static_cast<uint32_t>(m_task->NumClients());
    }
    if (m_minQuorum > m_expectedClients)
    {
        NS_FATAL_ERROR("FlServerApplication::MinQuorum: " << m_minQuorum << " exceeds the "
                                                          << m_expectedClients
                                                          << " expected clients (fix: lower it)");
    }
    if (!m_strategy)
    {
        m_strategy = CreateObject<FedAvgStrategy>();
    }
    // What the strategy declared and which optional interfaces it has: checked together with
    // the server's settings in one place (FlCheckRoundRules) before anything runs.
    m_traits = m_strategy->Traits(m_task->NumParameters());
    m_uploadValues = m_traits.uploadValues != 0 ? m_traits.uploadValues : m_task->NumParameters();
    m_asyncHooks = FlAsyncHooksOf(PeekPointer(m_strategy));
    m_phaseHooks = FlPhaseHooksOf(PeekPointer(m_strategy));
    m_peerHooks = FlPeerHooksOf(PeekPointer(m_strategy));
    m_async = m_asyncHooks != nullptr;
    m_strategyPhases = m_phaseHooks != nullptr;
    m_strategyRaw = m_traits.rawUploads;
    // Asynchronous with an uplink step: cohorts of the strategy's size (0: refused below).
    m_cohortSize = (m_async && m_uplink) ? m_asyncHooks->UplinkCohortSize() : 0;
    try
    {
        FlCheckRoundRules(RoundRules(*m_strategy, m_task->NumParameters(), m_uplink != nullptr));
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("FlServerApplication", e);
    }
    const uint64_t seed =
        m_initSeed != 0 ? m_initSeed : m_rng->GetInteger(1, std::numeric_limits<uint32_t>::max());
    m_initialSeed = seed;
    fl::Rng rng(seed);
    m_global = m_task->InitialParameters(rng);
    m_quantSeed = fl::ServerQuantSeed(seed);
    FlRoundReport initial; // round 0: the initial model, so that observers see it too
    initial.start = initial.end = Simulator::Now();
    initial.globalModel = &m_global;
    m_roundEndTrace(initial);
    ReportModel(0, FlNodeRole::Server, m_global);

    // the largest message the clients send: an upload of the declared size (or raw bytes)
    StartTransport("FlServerApplication",
                   m_task->GetPrecision(),
                   m_port,
                   std::max(m_uploadValues, m_task->NumParameters()));
    m_transport->SetReceiveCallback(MakeCallback(&FlServerApplication::HandleInbound, this));
    m_transport->SetPeerClosedCallback(MakeCallback(&FlServerApplication::HandlePeerClosed, this));
    m_transport->SetMessageLostCallback(
        MakeCallback(&FlServerApplication::HandleMessageLost, this));
    // Holes of a partial update are filled from the global model its client trained on.
    // (uploads of another size than the model: no base, their holes are retransmitted)
    m_transport->SetBaseModelProvider([this](uint32_t, uint32_t round) {
        return m_uploadValues == m_task->NumParameters() ? BaseModel(round) : nullptr;
    });
    FlServerPort strategyPort;
    strategyPort.roster = [this]() {
        std::vector<uint32_t> out;
        for (const auto& kv : m_clients)
        {
            out.push_back(kv.first);
        }
        return out;
    };
    strategyPort.sampleCount = [this](uint32_t client) {
        auto it = m_clientSamples.find(client);
        return it == m_clientSamples.end() ? 0U : it->second;
    };
    strategyPort.round = [this]() { return m_round; };
    strategyPort.sendModel = [this](const std::vector<uint32_t>& clients) {
        SendCurrentModel(clients);
    };
    // A control message to a joined client (false if it is not one): the strategy's and the
    // uplink step's ports both send through it.
    auto sendControl =
        [this](uint32_t client, uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes) {
            auto peer = m_clients.find(client);
            if (peer == m_clients.end())
            {
                return false;
            }
            m_transport->SendRaw(peer->second.address,
                                 {fl::MessageKind::Control, round, 0, peer->second.node, tag},
                                 bytes);
            return true;
        };
    strategyPort.sendControl = sendControl;
    strategyPort.linkState = [this](uint32_t client) { return LinkStateOf(client); };
    strategyPort.transport = [this]() { return m_transport; };
    strategyPort.commit = [this](const std::vector<FlUpdateInfo>& updates) {
        CommitVersion(updates);
    };
    strategyPort.finished = [this]() { return m_finished; };
    strategyPort.seed = [this]() { return m_initialSeed; };
    m_strategy->SetPort(strategyPort);
    try
    {
        FlStrategySetup setup;
        setup.numParameters = m_task->NumParameters();
        setup.acceptsStale = m_acceptStale;
        setup.hasUplinkStep = m_uplink != nullptr;
        m_strategy->Start(setup);
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("FlServerApplication", e);
    }
    if (m_uplink)
    {
        FlUplinkServerStep::Port port;
        port.send = sendControl;
        m_uplink->SetPort(port);
    }
    if (m_joinWindow.IsStrictlyPositive())
    {
        m_joinWindowEvent = Simulator::Schedule(m_joinWindow, [this]() {
            m_joinWindowOver = true;
            MaybeStartFirstRound();
        });
    }
}

void
FlServerApplication::StopApplication()
{
    NS_LOG_FUNCTION(this);
    Simulator::Cancel(m_deadlineEvent);
    Simulator::Cancel(m_joinWindowEvent);
    for (auto& kv : m_cohorts)
    {
        Simulator::Cancel(kv.second.deadline);
    }
    if (m_uplink)
    {
        m_uplink->Stop();
    }
    if (m_transport)
    {
        m_transport->Close();
    }
}

void
FlServerApplication::LeaveCohort(uint32_t client)
{
    auto inCohort = m_cohortOf.find(client);
    if (inCohort == m_cohortOf.end())
    {
        return;
    }
    // Its cohort does not wait for its upload (the uplink step recovers what it can).
    const uint32_t id = inCohort->second;
    m_cohortOf.erase(inCohort);
    Cohort& c = m_cohorts.at(id);
    if (!c.aggregating && c.uploads.count(client) == 0)
    {
        c.clients.erase(std::find(c.clients.begin(), c.clients.end(), client));
        if (c.uploads.size() >= c.clients.size())
        {
            Simulator::ScheduleNow(&FlServerApplication::CloseCohort, this, id);
        }
    }
}

void
FlServerApplication::HandleMessageLost(const FlLostMessage& lost)
{
    NS_LOG_FUNCTION(this << lost.outgoing << lost.round);
    uint32_t client = 0;
    bool found = false;
    for (const auto& kv : m_clients)
    {
        if (kv.second.address == lost.peer)
        {
            client = kv.first;
            found = true;
            break;
        }
    }
    if (!found || m_finished)
    {
        return; // not a joined client's (a Join is repeated until the client hears from us)
    }
    ++m_counters.messagesGivenUp;
    NS_LOG_INFO((lost.outgoing ? "message to" : "message from")
                << " client " << client << " of round " << lost.round << " given up");
    if (m_cohortSize > 0)
    {
        auto inCohort = m_cohortOf.find(client);
        if (inCohort != m_cohortOf.end() && inCohort->second == lost.round)
        {
            LeaveCohort(client); // it becomes idle: a later dispatch may pick it again
        }
        return;
    }
    if (m_async)
    {
        auto out = m_outstanding.find(client);
        if (out != m_outstanding.end() && out->second == lost.round)
        {
            m_outstanding.erase(out);
            try
            {
                m_asyncHooks->UpdateLost(client, lost.round, m_global);
            }
            catch (const fl::ConfigError& e)
            {
                fl::ExitOnConfigError("FlServerApplication", e);
            }
        }
        return;
    }
    // A selected client whose model or upload of this round was given up is not waited for
    // (as one whose connection closed); its update is still taken if it comes while the round
    // is open and no phases depend on it (HandleUpdate).
    auto sel = std::find(m_selected.begin(), m_selected.end(), client);
    if (m_roundOpen && lost.round == m_round && sel != m_selected.end() &&
        m_updates.count({client, m_round}) == 0)
    {
        m_selected.erase(sel);
        m_strategy->ClientLeft(client);
        m_givenUpThisRound.insert(client);
        MaybeClose();
    }
}

const fl::ParamVector*
FlServerApplication::BaseModel(uint32_t round) const
{
    if (round == m_round)
    {
        return &m_global;
    }
    auto it = m_history.find(round);
    return it == m_history.end() ? nullptr : &it->second;
}

void
FlServerApplication::HandleInbound(FlInboundMessage& in)
{
    const auto& h = in.msg.header;
    NS_LOG_FUNCTION(this << fl::MessageKindName(h.kind) << h.round << h.sender);
    if (h.kind == fl::MessageKind::Join)
    {
        HandleJoin(in);
        return;
    }
    if ((h.kind == fl::MessageKind::PeerModel || h.kind == fl::MessageKind::Control) &&
        m_peerHooks && m_peerHooks->Receive(in))
    {
        return; // the strategy's own traffic (a neighbour server's model, a control message)
    }
    auto client = m_clientOfNode.find(h.sender);
    uint32_t known = 0;
    if (m_uplink && h.kind == fl::MessageKind::Control && IdentifyClient(in, known) &&
        m_uplink->Receive(known, h.round, h.aux, in.msg.raw))
    {
        return; // the uplink step's own traffic
    }
    if (m_strategyPhases && h.kind == fl::MessageKind::Control && IdentifyClient(in, known))
    {
        HandlePhaseMessage(in.msg, known); // the strategy's phases before the upload
        return;
    }
    if (h.kind != fl::MessageKind::LocalModel || client == m_clientOfNode.end() ||
        m_clients.count(client->second) == 0 || m_clients.at(client->second).address != in.from)
    {
        ++m_counters.unexpectedMessages;
        return;
    }
    if (!in.complete)
    {
        ++m_counters.partialUpdates;
    }
    auto sent = m_sentAt.find(client->second);
    if (sent != m_sentAt.end())
    {
        m_lastResponse[client->second] = Simulator::Now() - sent->second;
    }
    if (m_cohortSize > 0)
    {
        HandleCohortUpload(in.msg, client->second);
        return;
    }
    if (m_async)
    {
        HandleAsyncUpdate(in.msg, client->second, in.filledCoordinates);
        return;
    }
    HandleUpdate(in.msg, client->second, in.filledCoordinates);
}

void
FlServerApplication::MaybeClose()
{
    if (m_async)
    {
        return; // asynchronous: rounds never close
    }
    if (m_phasesRunning)
    {
        EndPhases(false);
        return;
    }
    if (m_roundOpen && !m_closing && m_freshReceived >= m_selected.size())
    {
        Simulator::Cancel(m_deadlineEvent);
        CloseRound(false);
    }
}

std::vector<Address>
FlServerApplication::AddressesOf(const std::vector<uint32_t>& clients) const
{
    std::vector<Address> out;
    out.reserve(clients.size());
    for (uint32_t k : clients)
    {
        auto it = m_clients.find(k);
        if (it != m_clients.end())
        {
            out.push_back(it->second.address);
        }
    }
    return out;
}

bool
FlServerApplication::IdentifyClient(const FlInboundMessage& in, uint32_t& client) const
{
    auto it = m_clientOfNode.find(in.msg.header.sender);
    if (it == m_clientOfNode.end())
    {
        return false;
    }
    auto peer = m_clients.find(it->second);
    if (peer == m_clients.end() || peer->second.address != in.from)
    {
        return false;
    }
    client = it->second;
    return true;
}

std::vector<uint32_t>
FlServerApplication::SelectClients()
{
    std::vector<uint32_t> pool;
    std::vector<double> weights;
    for (const auto& kv : m_clients)
    {
        if (m_acceptStale && m_outstanding.count(kv.first) != 0)
        {
            continue; // still computing (or uploading) an earlier round's update
        }
        pool.push_back(kv.first);
        if (m_weightedSampling)
        {
            weights.push_back(static_cast<double>(m_clientSamples[kv.first]));
        }
    }
    std::vector<uint32_t> selected;
    if (m_strategy->SelectClients(m_round, pool, selected))
    {
        return selected;
    }
    try
    {
        return fl::SampleClients(
            std::move(pool),
            weights,
            m_clientsPerRound,
            [this](uint32_t lo, uint32_t hi) { return m_rng->GetInteger(lo, hi); },
            [this]() { return m_rng->GetValue(0.0, 1.0); });
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("FlServerApplication", e);
    }
    return {};
}

void
FlServerApplication::EndRound()
{
    FlRoundReport& report = m_report;
    report.end = Simulator::Now();
    if (report.status != FlRoundStatus::Repeated)
    {
        ++m_completed;
    }
    report.completedRounds = m_completed;
    report.globalModel = &m_global;
    m_roundEndTrace(report);
    if (report.status != FlRoundStatus::Repeated)
    {
        FlModelReport model;
        model.round = m_round;
        model.role = FlNodeRole::Server;
        model.model = &m_global;
        if (m_peerHooks)
        {
            m_peerHooks->DescribeModel(model);
        }
        ReportModel(model);
    }

    if (m_completed >= m_rounds)
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
    std::vector<uint32_t> all;
    for (const auto& kv : m_clients)
    {
        all.push_back(kv.first);
    }
    m_transport->SendSignal(AddressesOf(all),
                            {fl::MessageKind::Stop, m_round, 0, fl::kBroadcastId, 0});
    if (m_stopSimulation)
    {
        // Leave a moment for the stop messages to go out.
        Simulator::Stop(MilliSeconds(100));
    }
}

uint64_t
FlServerApplication::TotalBytesSent() const
{
    return m_transport->Stats().bytesSent;
}

uint64_t
FlServerApplication::TotalBytesReceived() const
{
    return m_transport->Stats().bytesReceived;
}

void
FlServerApplication::SetLinkStateProvider(std::function<FlLinkState(uint32_t client)> provider)
{
    m_linkProvider = std::move(provider);
}

FlLinkState
FlServerApplication::GetClientLinkState(uint32_t client) const
{
    return LinkStateOf(client);
}

FlLinkState
FlServerApplication::LinkStateOf(uint32_t client) const
{
    FlLinkState st = m_linkProvider ? m_linkProvider(client) : FlLinkState();
    auto it = m_lastResponse.find(client);
    if (it != m_lastResponse.end())
    {
        st.lastResponse = it->second;
    }
    return st;
}

void
FlServerApplication::SendCurrentModel(const std::vector<uint32_t>& clients)
{
    if (m_finished || clients.empty())
    {
        return;
    }
    fl::Rng quantRng(fl::DeriveSeed(m_quantSeed, m_round)); // int8 only: one draw per version
    for (uint32_t k : clients)
    {
        m_outstanding[k] = m_round;
        m_sentAt[k] = Simulator::Now();
    }
    m_transport->SendModel(AddressesOf(clients),
                           {fl::MessageKind::GlobalModel, m_round, 0, fl::kBroadcastId, 0},
                           m_global,
                           &quantRng);
}

} // namespace ns3
