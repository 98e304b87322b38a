/*
 * SPDX-License-Identifier: GPL-2.0-only
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
#include <iostream>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlServerApplication");
NS_OBJECT_ENSURE_REGISTERED(FlServerApplication);

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
    m_uploadValues =
        m_traits.uploadValues != 0 ? m_traits.uploadValues : m_task->NumParameters();
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
}

void
FlServerApplication::StopApplication()
{
    NS_LOG_FUNCTION(this);
    Simulator::Cancel(m_deadlineEvent);
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
FlServerApplication::HandlePeerClosed(const Address& peer)
{
    NS_LOG_FUNCTION(this << peer);
    WarnOversized(); // a stream closed after a message above MaxMessageBytes
    for (const auto& kv : m_clients)
    {
        if (kv.second.address == peer)
        {
            ClientGone(kv.first);
            return;
        }
    }
}

void
FlServerApplication::ClientGone(uint32_t client)
{
    NS_LOG_INFO("client " << client << " disconnected");
    ++m_counters.disconnects;
    m_clients.erase(client);
    m_outstanding.erase(client);
    LeaveCohort(client);
    // A selected client that can no longer answer is not waited for.
    auto sel = std::find(m_selected.begin(), m_selected.end(), client);
    if (m_roundOpen && sel != m_selected.end() && m_updates.count({client, m_round}) == 0)
    {
        m_selected.erase(sel);
        m_strategy->ClientLeft(client); // nor do the strategy's phases
        ++m_lostThisRound;
        MaybeClose();
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
FlServerApplication::HandleJoin(const FlInboundMessage& in)
{
    const auto& h = in.msg.header;
    // payload: the client index (u32)
    std::vector<uint32_t> index;
    if (!fl::UnpackU32(in.msg.raw, index) || index.size() != 1)
    {
        NS_LOG_WARN("join from node " << h.sender << " without a client index; ignored");
        ++m_counters.unexpectedMessages;
        return;
    }
    const uint32_t client = index[0];
    auto known = m_clients.find(client);
    if (known != m_clients.end() && !m_transport->IsReliable() &&
        known->second.address == in.from && known->second.node == h.sender)
    {
        return; // a client repeating its Join over a datagram transport until it hears from us
    }
    if (client >= m_task->NumClients() || known != m_clients.end() ||
        m_clientOfNode.count(h.sender) != 0)
    {
        NS_LOG_WARN("join from unknown or duplicate client " << client << "; ignored");
        ++m_counters.unexpectedMessages;
        return;
    }
    m_clients[client] = Peer{in.from, h.sender};
    m_clientOfNode[h.sender] = client;
    m_clientSamples[client] = h.aux;
    m_joinTrace(client, h.aux);
    if (m_round == 0 && !m_roundOpen && m_clients.size() >= m_expectedClients)
    {
        Simulator::ScheduleNow(m_async ? &FlServerApplication::StartAsynchronous
                                       : &FlServerApplication::StartRound,
                               this);
    }
}

void
FlServerApplication::HandleUpdate(fl::ReceivedMessage& msg,
                                  uint32_t client,
                                  uint64_t missingCoordinates)
{
    const auto& h = msg.header;
    const bool rawUploads = m_uplink != nullptr || m_strategyRaw;
    if (h.raw != rawUploads)
    {
        NS_LOG_WARN("update from client " << client << (h.raw ? " is raw" : " is a model")
                                          << ", the uplink step or strategy expects the "
                                             "other");
        ++m_counters.unexpectedMessages;
        return;
    }
    if (!rawUploads && msg.params.Size() != m_uploadValues)
    {
        NS_LOG_WARN("update from client " << client << " has " << msg.params.Size()
                                          << " values, expected " << m_uploadValues);
        ++m_counters.badModelSize;
        return;
    }
    Update u;
    u.info.client = client;
    u.info.trainedRound = h.round;
    u.info.sampleCount = h.aux;
    u.info.arrival = Simulator::Now();
    u.info.missingCoordinates = missingCoordinates;
    if (m_roundOpen && h.round == m_round)
    {
        if (!m_phasesRunning && !m_strategyPhases && m_givenUpThisRound.erase(client) != 0)
        {
            // its model had arrived after all (the acknowledgements were lost): taken back
            m_selected.insert(std::upper_bound(m_selected.begin(), m_selected.end(), client),
                              client);
            ++m_counters.givenUpRecovered;
        }
        if (m_phasesRunning || // no upload before the strategy's phases are over
            std::find(m_selected.begin(), m_selected.end(), client) == m_selected.end() ||
            m_updates.count({client, h.round}) != 0)
        {
            ++m_counters.unexpectedMessages;
            return;
        }
        m_outstanding.erase(client);
        u.msg = std::move(msg);
        m_updates.emplace(UpdateKey{client, h.round}, std::move(u));
        ++m_freshReceived;
        MaybeClose();
        return;
    }
    // A late update: its round has closed.
    const uint32_t target = m_roundOpen ? m_round : m_round + 1; // round it would join
    auto out = m_outstanding.find(client);
    const bool acceptable = m_acceptStale && h.round < target && out != m_outstanding.end() &&
                            out->second == h.round && target - h.round <= m_maxStaleness &&
                            !m_finished;
    if (!acceptable)
    {
        NS_LOG_INFO("stale update from client " << client << " for round " << h.round
                                                << " (current " << m_round << "); dropped");
        ++m_counters.staleUpdates;
        return;
    }
    m_outstanding.erase(out);
    u.info.staleness = target - h.round;
    u.msg = std::move(msg);
    ++m_counters.staleAccepted;
    (m_roundOpen ? m_updates : m_pendingStale)[UpdateKey{client, h.round}] = std::move(u);
}

void
FlServerApplication::HandlePhaseMessage(const fl::ReceivedMessage& msg, uint32_t client)
{
    const auto& h = msg.header;
    if (!m_roundOpen || !m_phasesRunning || h.round != m_round ||
        std::find(m_selected.begin(), m_selected.end(), client) == m_selected.end())
    {
        ++m_counters.unexpectedMessages;
        return;
    }
    FlServerStrategy::Context ctx;
    ctx.round = m_round;
    switch (m_phaseHooks->PhaseMessage(ctx, client, h.aux, msg.raw))
    {
    case FlPhaseHooks::Verdict::Accepted:
        EndPhases(false);
        return;
    case FlPhaseHooks::Verdict::Malformed:
        ++m_counters.strategyRejected;
        return;
    case FlPhaseHooks::Verdict::Unexpected:
        ++m_counters.unexpectedMessages;
        return;
    }
}

bool
FlServerApplication::EndPhases(bool deadlineHit)
{
    if (!m_roundOpen || !m_phasesRunning)
    {
        return false;
    }
    FlServerStrategy::Context ctx;
    ctx.round = m_round;
    std::vector<uint32_t> uploaders;
    bool done = false;
    try
    {
        done = m_phaseHooks->PhasesDone(ctx, m_selected, deadlineHit, uploaders);
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("FlServerApplication", e);
    }
    if (!done)
    {
        return false;
    }
    m_phasesRunning = false;
    if (uploaders.empty())
    {
        if (!deadlineHit)
        {
            Simulator::Cancel(m_deadlineEvent); // nobody left to wait for: an empty round
            CloseRound(false);
        }
        return false; // at the deadline: the round closes now
    }
    // The upload waits for the strategy's uploaders.
    m_selected = std::move(uploaders);
    if (deadlineHit && m_roundDeadline.IsStrictlyPositive())
    {
        m_deadlineEvent =
            Simulator::Schedule(m_roundDeadline, &FlServerApplication::CloseRound, this, true);
    }
    return true;
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
    m_updates.clear();
    m_freshReceived = 0;
    m_lostThisRound = 0;
    m_givenUpThisRound.clear();
    m_phasesRunning = m_strategyPhases;
    m_bytesSentAtStart = TotalBytesSent();
    m_bytesReceivedAtStart = TotalBytesReceived();

    if (m_acceptStale)
    {
        // Outstanding updates too old to be accepted: their clients are eligible again.
        for (auto it = m_outstanding.begin(); it != m_outstanding.end();)
        {
            it = (m_round - it->second > m_maxStaleness) ? m_outstanding.erase(it) : std::next(it);
        }
        while (!m_history.empty() && m_round - m_history.begin()->first > m_maxStaleness)
        {
            m_history.erase(m_history.begin());
        }
        m_history[m_round] = m_global;
        for (auto& kv : m_pendingStale)
        {
            m_updates[kv.first] = std::move(kv.second);
        }
        m_pendingStale.clear();
    }
    // Stop (re)sending models nobody will use and give up incoming ones too old to count.
    const uint32_t keep = m_acceptStale ? m_maxStaleness : 0;
    m_transport->DiscardBefore(m_round > keep ? m_round - keep : 0);

    m_selected = SelectClients();
    m_roundStartTrace(m_round, m_selected);
    if (m_selected.empty())
    {
        NS_LOG_WARN("round " << m_round << ": no eligible clients");
        CloseRound(false);
        return;
    }
    FlServerStrategy::Context ctx;
    ctx.round = m_round;
    ctx.status = FlRoundStatus::Aggregated;
    FlRoundConfig config;
    m_strategy->ConfigureRound(ctx, m_selected, config);
    if (config.attachment.Size() != m_traits.attachmentValues)
    {
        fl::ExitOnConfigError(
            "FlServerApplication",
            fl::ConfigError("strategy",
                            m_strategy->GetInstanceTypeId().GetName() + " attached " +
                                std::to_string(config.attachment.Size()) +
                                " values to the model of round " + std::to_string(m_round) +
                                " but declares " + std::to_string(m_traits.attachmentValues),
                            "declare the attachment's size in Traits (attachmentValues)"));
    }
    m_attachment = std::move(config.attachment);
    if (m_uplink)
    {
        // e.g. the round's configuration: sent before the model (in order over a stream)
        // the step carries the model, or the values the strategy's clients make of their
        // payloads
        m_uplink->RoundStarting(m_round, m_selected, m_uploadValues);
    }
    fl::Rng quantRng(fl::DeriveSeed(m_quantSeed, m_round)); // int8 only
    for (uint32_t k : m_selected)
    {
        m_outstanding[k] = m_round;
        m_sentAt[k] = Simulator::Now();
    }
    if (m_attachment.Size() == 0)
    {
        m_transport->SendModel(AddressesOf(m_selected),
                               {fl::MessageKind::GlobalModel, m_round, 0, fl::kBroadcastId, 0},
                               m_global,
                               &quantRng);
    }
    else
    {
        // the attachment travels in the model's message, after the model (aux = its size)
        const uint32_t extra = static_cast<uint32_t>(m_attachment.Size());
        m_transport->SendModel(AddressesOf(m_selected),
                               {fl::MessageKind::GlobalModel, m_round, 0, fl::kBroadcastId, extra},
                               fl::Concatenate(m_global, m_attachment),
                               &quantRng);
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
    if (deadlineHit && m_phasesRunning && EndPhases(true))
    {
        return; // the phases end at the deadline; the upload gets its own
    }
    m_phasesRunning = false;
    if (deadlineHit && !m_acceptStale)
    {
        // Use what arrived of updates still in flight (UDP keep-previous: their holes keep the
        // global values; other transports and policies: nothing to flush).
        m_closing = true;
        m_transport->FlushPartial();
        m_closing = false;
    }
    m_roundOpen = false;
    FillOpenRoundReport(deadlineHit);
    FlRoundReport& report = m_report;
    if (!m_acceptStale)
    {
        m_outstanding.clear();
    }

    const bool belowQuorum = m_minQuorum > 0 && m_updates.size() < m_minQuorum;
    if (belowQuorum)
    {
        if (m_repeatBelowQuorum && m_repeatsInARow < m_maxRepeats)
        {
            report.status = FlRoundStatus::Repeated;
            ++m_repeatsInARow;
            ++m_counters.roundsRepeated;
        }
        else
        {
            report.status = FlRoundStatus::Skipped;
            m_repeatsInARow = 0;
            ++m_counters.roundsSkipped;
        }
        NS_LOG_INFO("round " << m_round << ": " << m_updates.size() << " updates, quorum "
                             << m_minQuorum << "; " << FlRoundStatusName(report.status));
        if (m_uplink)
        {
            m_uplink->Forget(m_round); // nothing of this round is aggregated
        }
    }
    else if (m_updates.empty() && !m_uplink)
    {
        report.status = FlRoundStatus::Empty;
        m_repeatsInARow = 0;
    }
    else if (m_uplink)
    {
        // The uplink-step seam: its phases run now with the clients that uploaded (none: the
        // step says why, e.g. fewer than t), and the round goes on in FinishUplinkRound (now
        // or later in simulated time).
        std::map<UpdateKey, Update> updates = std::move(m_updates);
        m_updates.clear();
        m_uplinkInfos.clear();
        std::vector<uint32_t> clients;
        std::vector<const std::vector<uint8_t>*> payloads;
        for (const auto& kv : updates) // ascending client index; fresh uploads only
        {
            clients.push_back(kv.first.first);
            payloads.push_back(&kv.second.msg.raw);
            m_uplinkInfos[kv.first.first] = kv.second.info;
        }
        m_uplinkRunning = true;
        m_uplink->Aggregate(m_round,
                            clients,
                            payloads,
                            [this](const FlUplinkServerStep::Result& r) { FinishUplinkRound(r); });
        return;
    }
    else
    {
        // The strategy's aggregation of the round's uploads, in client order: its raw payloads
        // or the models (stale ones with their base model).
        report.status = FlRoundStatus::Aggregated;
        m_repeatsInARow = 0;
        FlAggregationInput in;
        for (auto& kv : m_updates) // std::map: ascending (client index, round)
        {
            const Update& u = kv.second;
            in.clients.push_back(kv.first.first);
            if (m_strategyRaw)
            {
                in.payloads.push_back(&u.msg.raw);
                continue;
            }
            fl::RoundUpdate ru;
            ru.model = &u.msg.params;
            ru.base = u.info.staleness > 0 ? BaseModel(u.info.trainedRound) : nullptr;
            ru.sampleCount = static_cast<double>(u.info.sampleCount);
            ru.staleness = u.info.staleness;
            in.updates.push_back(ru);
        }
        std::vector<double> weights;
        bool used = false;
        try
        {
            FlServerStrategy::Context actx;
            actx.round = m_round;
            actx.status = FlRoundStatus::Aggregated;
            used = m_strategy->Aggregate(actx, in, m_global, weights);
        }
        catch (const fl::ConfigError& e)
        {
            fl::ExitOnConfigError("FlServerApplication", e);
        }
        std::size_t i = 0;
        for (const auto& kv : m_updates)
        {
            const double weight = i < weights.size() ? weights[i] : 0.0;
            ++i;
            if (std::isnan(weight))
            {
                ++m_counters.strategyRejected; // a payload the strategy found malformed
                continue;
            }
            const Update& u = kv.second;
            report.staleUpdates += u.info.staleness > 0 ? 1 : 0;
            if (report.participants.empty() || report.participants.back() != kv.first.first)
            {
                report.participants.push_back(kv.first.first);
            }
            report.updates.push_back(u.info);
            report.updates.back().weight = weight;
            report.missingCoordinates += u.info.missingCoordinates;
        }
        if (!used)
        {
            report.status = FlRoundStatus::Empty;
        }
    }
    m_updates.clear();
    AfterAggregation();
}

void
FlServerApplication::AfterAggregation()
{
    const FlRoundReport& report = m_report;
    if (report.status == FlRoundStatus::Repeated)
    {
        EndRound();
        return;
    }
    // The strategy acts on the model before the next round starts (now or later).
    FlServerStrategy::Context ctx;
    ctx.round = m_round;
    ctx.status = report.status;
    m_strategy->AfterAggregation(ctx, m_global, [this]() { EndRound(); });
}

void
FlServerApplication::WarnOversized()
{
    const uint64_t tooLarge = m_transport ? m_transport->Stats().tooLarge : 0;
    if (tooLarge > m_tooLargeWarned)
    {
        // Said loudly once: a client whose uploads exceed the bound is misconfigured, and its
        // rounds would otherwise pass as empty.
        if (m_tooLargeWarned == 0)
        {
            std::cerr << "FlServerApplication: a client sent a message above MaxMessageBytes ("
                      << MaxMessageBytesFor(std::max(m_uploadValues, m_task->NumParameters()))
                      << " bytes); it was dropped and its connection closed (fix: declare the "
                         "upload's size in the strategies, FlStrategyTraits::uploadValues and "
                         "FlClientStrategy::UploadValues, or raise MaxMessageBytes)"
                      << std::endl;
        }
        NS_LOG_WARN(tooLarge << " messages above MaxMessageBytes so far");
        m_tooLargeWarned = tooLarge;
    }
}

void
FlServerApplication::FinishUplinkRound(const FlUplinkServerStep::Result& result)
{
    NS_LOG_FUNCTION(this << result.ok << result.status);
    if (!m_uplinkRunning)
    {
        return; // reported as unfinished already
    }
    m_uplinkRunning = false;
    FlRoundReport& report = m_report;
    report.uplinkStatus = result.status;
    // the step's phases are part of the round: their bytes too
    report.bytesDown = TotalBytesSent() - m_bytesSentAtStart;
    report.bytesUp = TotalBytesReceived() - m_bytesReceivedAtStart;
    m_repeatsInARow = 0;
    if (!result.ok)
    {
        // The step aborted (e.g. fewer participants than it needs): the model is kept.
        NS_LOG_WARN("round " << m_round << ": uplink step aborted: " << result.status);
        report.status = FlRoundStatus::Aborted;
        ++m_counters.roundsAborted;
    }
    else
    {
        report.status = FlRoundStatus::Aggregated;
        FlServerStrategy::Context ctx;
        ctx.round = m_round;
        ctx.status = FlRoundStatus::Aggregated;
        // the weights are hidden by the step (only sums are known), or the strategy's own
        std::vector<double> weights;
        FlAggregationInput in;
        in.clients = result.participants;
        in.sum = &result.sum;
        in.totalWeight = result.totalWeight;
        bool used = false;
        try
        {
            used = m_strategy->Aggregate(ctx, in, m_global, weights);
        }
        catch (const fl::ConfigError& e)
        {
            fl::ExitOnConfigError("FlServerApplication", e);
        }
        if (!used)
        {
            ++m_counters.strategyRejected;
            report.status = FlRoundStatus::Empty;
        }
        for (std::size_t i = 0; i < result.participants.size(); ++i)
        {
            const uint32_t client = result.participants[i];
            report.participants.push_back(client);
            auto info = m_uplinkInfos.find(client);
            if (info != m_uplinkInfos.end())
            {
                report.updates.push_back(info->second);
                report.updates.back().weight = i < weights.size() ? weights[i] : 0.0;
            }
        }
    }
    m_uplinkInfos.clear();
    AfterAggregation();
}

void
FlServerApplication::FillOpenRoundReport(bool deadlineHit)
{
    WarnOversized();
    FlRoundReport& report = m_report;
    report = FlRoundReport();
    report.round = m_round;
    report.start = m_roundStart;
    report.selected = m_selected;
    report.disconnected = m_lostThisRound;
    report.givenUp.assign(m_givenUpThisRound.begin(), m_givenUpThisRound.end());
    report.deadlineHit = deadlineHit;
    report.stragglers = static_cast<uint32_t>(m_selected.size()) - m_freshReceived;
    report.bytesDown = TotalBytesSent() - m_bytesSentAtStart;
    report.bytesUp = TotalBytesReceived() - m_bytesReceivedAtStart;
    m_strategy->DescribeRound(report);
}

bool
FlServerApplication::ReportUnfinishedRound()
{
    NS_LOG_FUNCTION(this);
    if (m_uplinkRunning)
    {
        // closed for uploads, the uplink step's phases still running: reported as it stands
        m_uplinkRunning = false;
        m_uplink->Stop();
        m_uplinkInfos.clear();
        m_report.uplinkStatus = "still running when the simulation ended";
    }
    else if (!m_roundOpen)
    {
        return false;
    }
    else
    {
        Simulator::Cancel(m_deadlineEvent);
        m_roundOpen = false;
        FillOpenRoundReport(false);
    }
    m_report.status = FlRoundStatus::Timeout;
    m_report.end = Simulator::Now();
    m_report.completedRounds = m_completed;
    m_report.globalModel = &m_global;
    m_roundEndTrace(m_report);
    return true;
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

void
FlServerApplication::StartAsynchronous()
{
    NS_LOG_FUNCTION(this);
    if (m_finished || m_roundOpen)
    {
        return;
    }
    // Version 1 (the initial model) goes to the strategy's (or ClientsPerRound's) clients;
    // from then on the strategy sends models as updates arrive, and no round closes.
    m_round = 1;
    m_roundOpen = true;
    m_roundStart = Simulator::Now();
    m_bytesSentAtStart = TotalBytesSent();
    m_bytesReceivedAtStart = TotalBytesReceived();
    if (m_cohortSize > 0)
    {
        // Cohorts of K clients, each sent the current model together with one run of the
        // uplink step; their sums make the versions.
        m_selected = DispatchCohorts(); // the clients of version 1
        m_roundStartTrace(m_round, m_selected);
        FlServerStrategy::Context ctx;
        ctx.round = m_round;
        FlRoundConfig config; // asynchronous: nothing attached (FlCheckRoundRules)
        m_strategy->ConfigureRound(ctx, m_selected, config);
        return;
    }
    m_selected = SelectClients();
    m_roundStartTrace(m_round, m_selected);
    FlServerStrategy::Context ctx;
    ctx.round = m_round;
    FlRoundConfig config; // asynchronous: nothing attached (FlCheckRoundRules)
    m_strategy->ConfigureRound(ctx, m_selected, config);
    SendCurrentModel(m_selected);
}

std::vector<uint32_t>
FlServerApplication::DispatchCohorts()
{
    const std::size_t k = m_cohortSize;
    const std::size_t busyLimit =
        m_clientsPerRound == 0 ? std::numeric_limits<std::size_t>::max() : m_clientsPerRound;
    std::vector<uint32_t> dispatched;
    while (!m_finished)
    {
        std::vector<uint32_t> idle;
        for (const auto& kv : m_clients)
        {
            if (m_cohortOf.count(kv.first) == 0)
            {
                idle.push_back(kv.first);
            }
        }
        if (idle.size() < k || m_cohortOf.size() + k > busyLimit)
        {
            break;
        }
        std::vector<uint32_t> members;
        try
        {
            members = fl::SampleClients(
                std::move(idle),
                {},
                static_cast<uint32_t>(k),
                [this](uint32_t lo, uint32_t hi) { return m_rng->GetInteger(lo, hi); },
                [this]() { return m_rng->GetValue(0.0, 1.0); });
        }
        catch (const fl::ConfigError& e)
        {
            fl::ExitOnConfigError("FlServerApplication", e);
        }
        std::sort(members.begin(), members.end());
        const uint32_t id = ++m_lastCohort; // the round number of the cohort's messages
        Cohort& c = m_cohorts[id];
        c.version = m_round;
        c.sent = Simulator::Now();
        c.base = m_global;
        c.clients = members;
        for (uint32_t m : members)
        {
            m_cohortOf[m] = id;
            m_outstanding[m] = id;
            m_sentAt[m] = Simulator::Now();
        }
        try
        {
            // e.g. the cohort's configuration: sent before the model (in order over a stream)
            m_uplink->RoundStarting(id, members, m_uploadValues);
        }
        catch (const fl::ConfigError& e)
        {
            fl::ExitOnConfigError("FlServerApplication", e);
        }
        fl::Rng quantRng(fl::DeriveSeed(m_quantSeed, id)); // int8 only
        m_transport->SendModel(AddressesOf(members),
                               {fl::MessageKind::GlobalModel, id, 0, fl::kBroadcastId, 0},
                               m_global,
                               &quantRng);
        if (m_roundDeadline.IsStrictlyPositive())
        {
            c.deadline =
                Simulator::Schedule(m_roundDeadline, &FlServerApplication::CloseCohort, this, id);
        }
        dispatched.insert(dispatched.end(), members.begin(), members.end());
    }
    std::sort(dispatched.begin(), dispatched.end());
    return dispatched;
}

void
FlServerApplication::HandleCohortUpload(fl::ReceivedMessage& msg, uint32_t client)
{
    const auto& h = msg.header;
    auto it = m_cohorts.find(h.round);
    if (!h.raw || m_finished || it == m_cohorts.end() || it->second.aggregating ||
        std::find(it->second.clients.begin(), it->second.clients.end(), client) ==
            it->second.clients.end() ||
        it->second.uploads.count(client) != 0)
    {
        ++m_counters.unexpectedMessages;
        return;
    }
    Cohort& c = it->second;
    Update u;
    u.info.client = client;
    u.info.trainedRound = c.version;
    u.info.sampleCount = h.aux;
    u.info.arrival = Simulator::Now();
    u.msg = std::move(msg);
    c.uploads.emplace(client, std::move(u));
    if (c.uploads.size() >= c.clients.size())
    {
        CloseCohort(it->first);
    }
}

void
FlServerApplication::CloseCohort(uint32_t cohort)
{
    NS_LOG_FUNCTION(this << cohort);
    auto it = m_cohorts.find(cohort);
    if (it == m_cohorts.end() || it->second.aggregating || m_finished)
    {
        return;
    }
    Cohort& c = it->second;
    Simulator::Cancel(c.deadline);
    c.aggregating = true;
    // The uploads move out: the step may finish (and the cohort be gone) during the call.
    std::map<uint32_t, Update> uploads = std::move(c.uploads);
    c.uploads.clear();
    std::vector<uint32_t> clients;
    std::vector<const std::vector<uint8_t>*> payloads;
    for (const auto& kv : uploads) // ascending client index
    {
        clients.push_back(kv.first);
        payloads.push_back(&kv.second.msg.raw);
        c.infos[kv.first] = kv.second.info;
    }
    m_uplink->Aggregate(
        cohort,
        clients,
        payloads,
        [this, cohort](const FlUplinkServerStep::Result& r) { FinishCohort(cohort, r); });
}

void
FlServerApplication::FinishCohort(uint32_t cohort, const FlUplinkServerStep::Result& result)
{
    NS_LOG_FUNCTION(this << cohort << result.ok << result.status);
    auto it = m_cohorts.find(cohort);
    if (it == m_cohorts.end())
    {
        return;
    }
    Cohort c = std::move(it->second);
    m_cohorts.erase(it);
    for (uint32_t k : c.clients)
    {
        auto busy = m_cohortOf.find(k);
        if (busy != m_cohortOf.end() && busy->second == cohort)
        {
            m_cohortOf.erase(busy); // idle again
        }
        auto out = m_outstanding.find(k);
        if (out != m_outstanding.end() && out->second == cohort)
        {
            m_outstanding.erase(out);
        }
    }
    if (m_finished)
    {
        return;
    }
    if (!result.ok)
    {
        // Too few left (below the step's threshold): the buffer is dropped, the model kept.
        NS_LOG_WARN("cohort " << cohort << ": uplink step aborted: " << result.status);
        ++m_counters.roundsAborted;
        // Observers see it as a round that aborted: the number of the version being built (no
        // new version: no ModelReport), its clients, why; its bytes count in that version's row.
        FlRoundReport& report = m_report;
        report = FlRoundReport();
        report.round = m_round;
        report.completedRounds = m_completed;
        report.status = FlRoundStatus::Aborted;
        report.start = c.sent;
        report.end = Simulator::Now();
        report.selected = c.clients;
        for (uint32_t k : c.clients)
        {
            report.stragglers += c.infos.count(k) == 0 ? 1 : 0;
        }
        report.uplinkStatus = result.status;
        report.globalModel = &m_global;
        m_roundEndTrace(report);
    }
    else
    {
        FlAsyncHooks::CohortSum sum;
        sum.cohort = cohort;
        sum.trainedRound = c.version;
        sum.staleness = m_round - c.version;
        sum.base = &c.base;
        sum.sum = &result.sum;
        sum.totalWeight = result.totalWeight;
        for (uint32_t p : result.participants)
        {
            FlUpdateInfo info;
            auto known = c.infos.find(p);
            if (known != c.infos.end())
            {
                info = known->second;
            }
            info.client = p;
            info.trainedRound = c.version;
            info.staleness = sum.staleness;
            sum.updates.push_back(info);
        }
        if (sum.staleness > 0)
        {
            m_counters.staleAccepted += sum.updates.size();
        }
        try
        {
            m_asyncHooks->CohortAggregated(sum, m_global);
        }
        catch (const fl::ConfigError& e)
        {
            fl::ExitOnConfigError("FlServerApplication", e);
        }
    }
    DispatchCohorts();
}

void
FlServerApplication::HandleAsyncUpdate(fl::ReceivedMessage& msg,
                                       uint32_t client,
                                       uint64_t missingCoordinates)
{
    const auto& h = msg.header;
    if (h.raw || msg.params.Size() != m_task->NumParameters())
    {
        ++m_counters.badModelSize;
        return;
    }
    auto out = m_outstanding.find(client);
    if (m_finished || out == m_outstanding.end() || out->second != h.round || h.round > m_round)
    {
        ++m_counters.unexpectedMessages;
        return;
    }
    m_outstanding.erase(out);
    FlUpdateInfo info;
    info.client = client;
    info.trainedRound = h.round;
    info.staleness = m_round - h.round;
    info.sampleCount = h.aux;
    info.arrival = Simulator::Now();
    info.missingCoordinates = missingCoordinates;
    if (info.staleness > 0)
    {
        ++m_counters.staleAccepted;
    }
    try
    {
        m_asyncHooks->UpdateArrived(info, msg.params, m_global);
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("FlServerApplication", e);
    }
}

void
FlServerApplication::CommitVersion(const std::vector<FlUpdateInfo>& updates)
{
    NS_LOG_FUNCTION(this << m_round << updates.size());
    if (m_finished)
    {
        return;
    }
    FlRoundReport& report = m_report;
    report = FlRoundReport();
    report.round = m_round;
    report.status = FlRoundStatus::Aggregated;
    report.start = m_roundStart;
    report.end = Simulator::Now();
    report.updates = updates;
    for (const FlUpdateInfo& u : updates)
    {
        report.participants.push_back(u.client);
        report.staleUpdates += u.staleness > 0 ? 1 : 0;
        report.missingCoordinates += u.missingCoordinates;
    }
    std::sort(report.participants.begin(), report.participants.end());
    report.participants.erase(std::unique(report.participants.begin(), report.participants.end()),
                              report.participants.end());
    report.selected = report.participants;
    report.bytesDown = TotalBytesSent() - m_bytesSentAtStart;
    report.bytesUp = TotalBytesReceived() - m_bytesReceivedAtStart;
    ++m_completed;
    report.completedRounds = m_completed;
    report.globalModel = &m_global;
    m_roundEndTrace(report);
    ReportModel(m_round, FlNodeRole::Server, m_global);
    if (m_completed >= m_rounds)
    {
        m_roundOpen = false;
        Finish();
        return;
    }
    ++m_round; // the next version
    // Forget (UDP) messages of versions no client is still training on.
    uint32_t oldest = m_round;
    for (const auto& kv : m_outstanding)
    {
        oldest = std::min(oldest, kv.second);
    }
    m_transport->DiscardBefore(oldest);
    m_roundStart = Simulator::Now();
    m_bytesSentAtStart = TotalBytesSent();
    m_bytesReceivedAtStart = TotalBytesReceived();
}

} // namespace ns3
