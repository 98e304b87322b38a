/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secagg-server-step.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <iostream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SecAggServerStep");
NS_OBJECT_ENSURE_REGISTERED(SecAggServerStep);

namespace
{

/// The client message each phase waits for (phase 1 .. 4; phase 0 comes as uploads).
fl::SecAggMessageType
Expected(int phase)
{
    switch (phase)
    {
    case 0:
        return fl::SecAggMessageType::AdvertiseKeys;
    case 1:
        return fl::SecAggMessageType::EncryptedShares;
    case 2:
        return fl::SecAggMessageType::MaskedInput;
    case 3:
        return fl::SecAggMessageType::ConsistencySignature;
    default:
        return fl::SecAggMessageType::UnmaskShares;
    }
}

bool
IsClientMessage(fl::SecAggMessageType t)
{
    return t == fl::SecAggMessageType::AdvertiseKeys ||
           t == fl::SecAggMessageType::EncryptedShares || t == fl::SecAggMessageType::MaskedInput ||
           t == fl::SecAggMessageType::ConsistencySignature ||
           t == fl::SecAggMessageType::UnmaskShares;
}

} // namespace

TypeId
SecAggServerStep::GetTypeId()
{
    static TypeId tid =
        AddSecAggSettingsAttributes(TypeId("ns3::SecAggServerStep")
                                        .SetParent<FlUplinkServerStep>()
                                        .SetGroupName("Fl")
                                        .AddConstructor<SecAggServerStep>())
            .AddAttribute("Timeout",
                          "Each phase closes this long after it began with the clients that "
                          "answered (fewer than t: the round aborts and the server keeps its "
                          "model); it closes earlier once every client asked has answered. "
                          "0 = wait for all (a client that drops out then stalls the round).",
                          TimeValue(Seconds(10)),
                          MakeTimeAccessor(&SecAggServerStep::m_timeout),
                          MakeTimeChecker(Seconds(0)))
            .AddTraceSource("RoundEnd",
                            "A secure-aggregation round ended: the sum decoded, or aborted with "
                            "its status.",
                            MakeTraceSourceAccessor(&SecAggServerStep::m_roundEndTrace),
                            "ns3::SecAggServerStep::RoundEndCallback")
            .AddTraceSource("PhaseEnd",
                            "A phase closed (round, phase 1 keys .. 5 unmask, answers, clients "
                            "asked).",
                            MakeTraceSourceAccessor(&SecAggServerStep::m_phaseEndTrace),
                            "ns3::SecAggServerStep::PhaseEndCallback");
    return tid;
}

SecAggServerStep::SecAggServerStep()
    : m_timeout(Seconds(10))
{
}

SecAggServerStep::~SecAggServerStep() = default;

void
SecAggServerStep::DoDispose()
{
    Simulator::Cancel(m_timer);
    m_server.reset();
    m_done = nullptr;
    m_port = Port();
    FlUplinkServerStep::DoDispose();
}

void
SecAggServerStep::SetPki(const fl::SecAggPki& pki)
{
    m_pki = pki;
}

void
SecAggServerStep::SetGraphSeedBase(uint64_t base)
{
    m_graphSeedBase = base;
}

void
SecAggServerStep::SetPort(Port port)
{
    m_port = std::move(port);
}

void
SecAggServerStep::Stop()
{
    Simulator::Cancel(m_timer);
}

void
SecAggServerStep::Send(uint32_t client, const fl::SecAggBytes& bytes)
{
    if (m_port.send && m_port.send(client, m_instance, kSecAggControlTag, bytes))
    {
        ++m_counters.messagesSent;
        m_counters.bytesSent += bytes.size();
    }
}

void
SecAggServerStep::RoundStarting(uint32_t round,
                                const std::vector<uint32_t>& selected,
                                std::size_t dim)
{
    NS_LOG_FUNCTION(this << round << selected.size());
    Simulator::Cancel(m_timer);
    m_server.reset();
    m_phase = -1;
    m_instance = round;
    m_configured = false;
    m_setupText.clear();
    const fl::SecAggRule rule = m_settings.Rule("SecAggServerStep"); // ConfigError: attribute
    const fl::KeyMode mode = m_settings.Mode("SecAggServerStep");
    static bool warned = false;
    if (mode == fl::KeyMode::Reproducible && !warned)
    {
        warned = true;
        std::clog << "SecAggServerStep: KeyMode " << SecAggKeyModeText(mode) << std::endl;
    }
    const std::size_t least = std::max<std::size_t>(2, rule.threshold);
    if (selected.size() < least)
    {
        // Nothing goes out: the clients never get a configuration, so they never advertise
        // keys, and nobody uploads anything (least of all in the clear).
        m_setupText = std::to_string(selected.size()) + " sampled client(s), fewer than the " +
                      std::to_string(least) + " secure aggregation needs: aborted";
        return;
    }
    uint64_t graphSeed = 0;
    if (rule.graph == fl::SecAggGraphKind::Harary)
    {
        graphSeed = fl::DeriveSeed(m_graphSeedBase, round);
    }
    m_config = fl::MakeSecAggRoundConfig(round, selected, dim, rule, graphSeed);
    const fl::SecAggBytes setup = fl::PackSecAggRoundSetup(round, fl::SecAggSetupOf(m_config));
    for (uint32_t c : selected)
    {
        Send(c, setup);
    }
    m_configured = true;
}

void
SecAggServerStep::Aggregate(uint32_t round,
                            const std::vector<uint32_t>& clients,
                            const std::vector<const std::vector<uint8_t>*>& uploads,
                            Done done)
{
    NS_LOG_FUNCTION(this << round << clients.size());
    ++m_counters.rounds;
    m_done = std::move(done);
    m_report = SecAggRoundReport();
    m_report.round = round;
    m_report.start = Simulator::Now();
    if (!m_configured || round != m_instance)
    {
        Abort(fl::SecAggStatus::TooFewClients,
              m_setupText.empty() ? "the round was not set up" : m_setupText);
        return;
    }
    m_report.sampled = static_cast<uint32_t>(m_config.clients.size());
    m_report.threshold = m_config.threshold;
    m_report.neighbours =
        m_config.graph == fl::SecAggGraphKind::Harary ? m_config.neighbours : m_report.sampled - 1;
    m_server = std::make_unique<fl::SecAggServer>(m_config, m_pki);
    m_phase = 0;
    m_asked.clear();
    m_answered.clear();
    for (std::size_t i = 0; i < clients.size(); ++i)
    {
        const fl::SecAggBytes& bytes = *uploads[i];
        ++m_counters.messagesReceived;
        m_counters.bytesReceived += bytes.size();
        uint32_t sender = 0;
        fl::SecAggMessageType type;
        uint64_t instance = 0;
        if (!fl::PeekSecAggHeader(bytes, type, instance) ||
            type != fl::SecAggMessageType::AdvertiseKeys || !fl::PeekSecAggSender(bytes, sender) ||
            sender != clients[i])
        {
            ++m_counters.malformed;
            continue;
        }
        m_asked.insert(clients[i]);
        const fl::SecAggStatus st = m_server->ReceiveAdvertisedKeys(bytes);
        if (st == fl::SecAggStatus::Ok)
        {
            m_answered.insert(clients[i]);
        }
        else
        {
            Count(st);
        }
    }
    EndPhase(false);
}

void
SecAggServerStep::Count(fl::SecAggStatus status)
{
    switch (status)
    {
    case fl::SecAggStatus::Malformed:
        ++m_counters.malformed;
        break;
    case fl::SecAggStatus::WrongInstance:
    case fl::SecAggStatus::WrongPhase:
        ++m_counters.late;
        break;
    default:
        ++m_counters.rejected;
        break;
    }
}

bool
SecAggServerStep::Receive(uint32_t client,
                          uint32_t round,
                          uint32_t tag,
                          const std::vector<uint8_t>& bytes)
{
    if (tag != kSecAggControlTag)
    {
        return false;
    }
    ++m_counters.messagesReceived;
    m_counters.bytesReceived += bytes.size();
    fl::SecAggMessageType type;
    uint64_t instance = 0;
    uint32_t sender = 0;
    if (!fl::PeekSecAggHeader(bytes, type, instance) || !IsClientMessage(type) ||
        instance != round || !fl::PeekSecAggSender(bytes, sender) || sender != client)
    {
        NS_LOG_INFO("round " << m_instance << ": malformed message from client " << client
                             << " dropped");
        ++m_counters.malformed;
        return true;
    }
    if (!m_server || m_phase < 1 || instance != m_instance)
    {
        ++m_counters.late;
        return true;
    }
    if (type != Expected(m_phase))
    {
        // an answer to an earlier phase arriving after it closed, or one out of order
        if (type == Expected(m_phase - 1) || type == fl::SecAggMessageType::AdvertiseKeys)
        {
            ++m_counters.late;
        }
        else
        {
            ++m_counters.malformed;
        }
        return true;
    }
    fl::SecAggStatus st = fl::SecAggStatus::WrongPhase;
    switch (type)
    {
    case fl::SecAggMessageType::EncryptedShares:
        st = m_server->ReceiveEncryptedShares(bytes);
        break;
    case fl::SecAggMessageType::MaskedInput:
        st = m_server->ReceiveMaskedInput(bytes);
        break;
    case fl::SecAggMessageType::ConsistencySignature:
        st = m_server->ReceiveConsistencySignature(bytes);
        break;
    case fl::SecAggMessageType::UnmaskShares:
        st = m_server->ReceiveUnmaskShares(bytes);
        break;
    default:
        break;
    }
    if (st != fl::SecAggStatus::Ok)
    {
        NS_LOG_INFO("round " << m_instance << " phase " << m_phase + 1 << ": message of client "
                             << client << " dropped: " << fl::SecAggStatusText(st));
        Count(st);
        return true;
    }
    m_answered.insert(client);
    if (m_answered.size() >= m_asked.size())
    {
        EndPhase(false);
    }
    return true;
}

void
SecAggServerStep::EndPhase(bool timeout)
{
    NS_LOG_FUNCTION(this << m_phase << timeout);
    Simulator::Cancel(m_timer);
    if (timeout && m_answered.size() < m_asked.size())
    {
        ++m_counters.timeouts;
        ++m_report.timeouts;
    }
    m_phaseEndTrace(m_instance,
                    static_cast<uint32_t>(m_phase + 1),
                    static_cast<uint32_t>(m_answered.size()),
                    static_cast<uint32_t>(m_asked.size()));
    std::map<uint32_t, fl::SecAggBytes> out;
    fl::SecAggStatus st = fl::SecAggStatus::Ok;
    fl::SecAggResult result;
    switch (m_phase)
    {
    case 0:
        st = m_server->BroadcastKeys(out);
        break;
    case 1:
        st = m_server->ForwardShares(out);
        break;
    case 2:
        st = m_server->AnnounceSurvivors(out);
        break;
    case 3:
        st = m_server->RelaySignatures(out);
        break;
    default:
        st = m_server->Finish(result);
        break;
    }
    for (int i = 0; i < 5; ++i)
    {
        m_report.sets[i] = static_cast<uint32_t>(m_server->Set(i + 1).size());
    }
    if (st != fl::SecAggStatus::Ok)
    {
        Abort(st, fl::SecAggStatusText(st));
        return;
    }
    if (m_phase == 4)
    {
        Complete(result);
        return;
    }
    ++m_phase;
    m_asked.clear();
    m_answered.clear();
    for (const auto& [client, bytes] : out)
    {
        m_asked.insert(client);
        Send(client, bytes);
    }
    if (m_timeout.IsStrictlyPositive())
    {
        m_timer = Simulator::Schedule(m_timeout, &SecAggServerStep::EndPhase, this, true);
    }
}

void
SecAggServerStep::Abort(fl::SecAggStatus status, const std::string& text)
{
    NS_LOG_WARN("secure aggregation of round " << m_report.round << " aborted: " << text);
    Simulator::Cancel(m_timer);
    ++m_counters.aborted;
    m_server.reset();
    m_phase = -1;
    m_configured = false;
    m_report.ok = false;
    m_report.status = status;
    m_report.statusText = text;
    m_report.end = Simulator::Now();
    m_roundEndTrace(m_report);
    Result r;
    r.ok = false;
    r.status = text;
    Done done = std::move(m_done);
    m_done = nullptr;
    if (done)
    {
        done(r);
    }
}

void
SecAggServerStep::Complete(const fl::SecAggResult& result)
{
    ++m_counters.completed;
    m_server.reset();
    m_phase = -1;
    m_configured = false;
    m_report.ok = true;
    m_report.status = fl::SecAggStatus::Ok;
    m_report.statusText = fl::SecAggStatusText(fl::SecAggStatus::Ok);
    m_report.end = Simulator::Now();
    m_roundEndTrace(m_report);
    Result r;
    r.ok = true;
    r.status = m_report.statusText;
    r.sum = result.sum;
    r.totalWeight = static_cast<double>(result.totalWeight);
    r.participants = result.survivors;
    Done done = std::move(m_done);
    m_done = nullptr;
    if (done)
    {
        done(r);
    }
}

} // namespace ns3
