/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secagg-server-step.h"

#include "ns3/secagg-beacon.h"

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
            .AddAttribute("BeaconLead",
                          "secaggplus: the beacon round announced in a setup is the first one "
                          "published at least this long after the setup is sent; a client that "
                          "receives the setup after that round is public refuses it, so the lead "
                          "must cover the setup's delivery to every sampled client.",
                          TimeValue(MilliSeconds(750)),
                          MakeTimeAccessor(&SecAggServerStep::m_beaconLead),
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
    : m_timeout(Seconds(10)),
      m_beaconLead(MilliSeconds(750))
{
}

SecAggServerStep::~SecAggServerStep() = default;

void
SecAggServerStep::DoDispose()
{
    Stop();
    m_instances.clear();
    m_port = Port();
    FlUplinkServerStep::DoDispose();
}

void
SecAggServerStep::SetPki(const fl::SecAggPki& pki)
{
    m_pki = pki;
}

void
SecAggServerStep::SetBeacon(std::shared_ptr<const fl::SecAggBeacon> beacon)
{
    m_beacon = std::move(beacon);
}

void
SecAggServerStep::SetPort(Port port)
{
    m_port = std::move(port);
}

void
SecAggServerStep::Stop()
{
    for (auto& kv : m_instances)
    {
        Simulator::Cancel(kv.second.timer);
    }
}

void
SecAggServerStep::Forget(uint32_t round)
{
    auto it = m_instances.find(round);
    if (it != m_instances.end() && it->second.phase < 0)
    {
        Simulator::Cancel(it->second.timer);
        m_instances.erase(it);
    }
}

void
SecAggServerStep::Send(uint32_t instance, uint32_t client, const fl::SecAggBytes& bytes)
{
    if (m_port.send && m_port.send(client, instance, kSecAggControlTag, bytes))
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
    auto old = m_instances.find(round);
    if (old != m_instances.end())
    {
        Simulator::Cancel(old->second.timer);
        m_instances.erase(old);
    }
    Instance& in = m_instances[round];
    const fl::SecAggRule rule = m_settings.Rule("SecAggServerStep"); // ConfigError: attribute
    const fl::KeyMode mode = m_settings.Mode("SecAggServerStep");
    static bool warned = false;
    if (mode == fl::KeyMode::Reproducible && !warned)
    {
        warned = true;
        std::clog << "SecAggServerStep: KeyMode " << SecAggKeyModeText(mode) << std::endl;
    }
    const std::size_t least = std::max<std::size_t>(rule.minClients, 2);
    if (selected.size() < least)
    {
        // Nothing goes out: the clients would refuse a roster below MinClients, so they never
        // advertise keys, and nobody uploads anything (least of all in the clear).
        in.setupText = std::to_string(selected.size()) + " sampled client(s), fewer than the " +
                       std::to_string(least) + " clients of the smallest roster (MinClients): " +
                       "aborted";
        return;
    }
    try
    {
        in.config = fl::MakeSecAggRoundConfig(round, selected, dim, rule, 0);
    }
    catch (const fl::ConfigError& e)
    {
        // a roster the rule cannot serve (e.g. a threshold above the sampled clients)
        in.setupText = std::to_string(selected.size()) + " sampled clients: " + e.what();
        return;
    }
    if (in.config.graph == fl::SecAggGraphKind::Harary)
    {
        if (!m_beacon)
        {
            in.setupText = "no beacon for the SecAgg+ graph (create the steps with "
                           "FlSecAggHelper)";
            return;
        }
        // a round nobody can know yet: the roster is fixed before the graph can be
        in.beaconRound = m_beacon->FirstRoundAfter((Simulator::Now() + m_beaconLead).GetSeconds());
    }
    const fl::SecAggBytes setup =
        fl::PackSecAggRoundSetup(round, fl::SecAggSetupOf(in.config, in.beaconRound));
    for (uint32_t c : selected)
    {
        Send(round, c, setup);
    }
    in.configured = true;
}

void
SecAggServerStep::Aggregate(uint32_t round,
                            const std::vector<uint32_t>& clients,
                            const std::vector<const std::vector<uint8_t>*>& uploads,
                            Done done)
{
    NS_LOG_FUNCTION(this << round << clients.size());
    ++m_counters.rounds;
    Instance& in = m_instances[round]; // an instance never set up is aborted below
    in.done = std::move(done);
    in.report = SecAggRoundReport();
    in.report.round = round;
    in.report.start = Simulator::Now();
    if (!in.configured)
    {
        Abort(round,
              fl::SecAggStatus::TooFewClients,
              in.setupText.empty() ? "the round was not set up" : in.setupText);
        return;
    }
    if (in.config.graph == fl::SecAggGraphKind::Harary)
    {
        if (Simulator::Now().GetSeconds() < m_beacon->PublishedAt(in.beaconRound))
        {
            Abort(round,
                  fl::SecAggStatus::TooFewClients,
                  "the uploads closed before the beacon round of the graph was public (no "
                  "client could advertise keys): raise the round deadline or lower BeaconLead");
            return;
        }
        in.config.graphSeed =
            fl::SecAggGraphSeed(m_beacon->Value(in.beaconRound), round, in.config.clients);
    }
    in.report.sampled = static_cast<uint32_t>(in.config.clients.size());
    in.report.threshold = in.config.threshold;
    in.report.neighbours = in.config.graph == fl::SecAggGraphKind::Harary ? in.config.neighbours
                                                                          : in.report.sampled - 1;
    in.server = std::make_unique<fl::SecAggServer>(in.config, m_pki);
    in.phase = 0;
    in.asked.clear();
    in.answered.clear();
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
        in.asked.insert(clients[i]);
        const fl::SecAggStatus st = in.server->ReceiveAdvertisedKeys(bytes);
        if (st == fl::SecAggStatus::Ok)
        {
            in.answered.insert(clients[i]);
        }
        else
        {
            Count(st);
        }
    }
    EndPhase(round, false);
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
        NS_LOG_INFO("round " << round << ": malformed message from client " << client
                             << " dropped");
        ++m_counters.malformed;
        return true;
    }
    auto it = m_instances.find(round);
    if (it == m_instances.end() || !it->second.server || it->second.phase < 1)
    {
        ++m_counters.late;
        return true;
    }
    Instance& in = it->second;
    if (type != Expected(in.phase))
    {
        // an answer to an earlier phase arriving after it closed, or one out of order
        if (type == Expected(in.phase - 1) || type == fl::SecAggMessageType::AdvertiseKeys)
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
        st = in.server->ReceiveEncryptedShares(bytes);
        break;
    case fl::SecAggMessageType::MaskedInput:
        st = in.server->ReceiveMaskedInput(bytes);
        break;
    case fl::SecAggMessageType::ConsistencySignature:
        st = in.server->ReceiveConsistencySignature(bytes);
        break;
    case fl::SecAggMessageType::UnmaskShares:
        st = in.server->ReceiveUnmaskShares(bytes);
        break;
    default:
        break;
    }
    if (st != fl::SecAggStatus::Ok)
    {
        NS_LOG_INFO("round " << round << " phase " << in.phase + 1 << ": message of client "
                             << client << " dropped: " << fl::SecAggStatusText(st));
        Count(st);
        return true;
    }
    in.answered.insert(client);
    if (in.answered.size() >= in.asked.size())
    {
        EndPhase(round, false);
    }
    return true;
}

void
SecAggServerStep::EndPhase(uint32_t instance, bool timeout)
{
    NS_LOG_FUNCTION(this << instance << timeout);
    auto it = m_instances.find(instance);
    if (it == m_instances.end() || !it->second.server)
    {
        return;
    }
    Instance& in = it->second;
    Simulator::Cancel(in.timer);
    if (timeout && in.answered.size() < in.asked.size())
    {
        ++m_counters.timeouts;
        ++in.report.timeouts;
    }
    m_phaseEndTrace(instance,
                    static_cast<uint32_t>(in.phase + 1),
                    static_cast<uint32_t>(in.answered.size()),
                    static_cast<uint32_t>(in.asked.size()));
    std::map<uint32_t, fl::SecAggBytes> out;
    fl::SecAggStatus st = fl::SecAggStatus::Ok;
    fl::SecAggResult result;
    switch (in.phase)
    {
    case 0:
        st = in.server->BroadcastKeys(out);
        break;
    case 1:
        st = in.server->ForwardShares(out);
        break;
    case 2:
        st = in.server->AnnounceSurvivors(out);
        break;
    case 3:
        st = in.server->RelaySignatures(out);
        break;
    default:
        st = in.server->Finish(result);
        break;
    }
    for (int i = 0; i < 5; ++i)
    {
        in.report.sets[i] = static_cast<uint32_t>(in.server->Set(i + 1).size());
    }
    if (st != fl::SecAggStatus::Ok)
    {
        Abort(instance, st, fl::SecAggStatusText(st));
        return;
    }
    if (in.phase == 4)
    {
        Complete(instance, result);
        return;
    }
    ++in.phase;
    in.asked.clear();
    in.answered.clear();
    for (const auto& [client, bytes] : out)
    {
        in.asked.insert(client);
        Send(instance, client, bytes);
    }
    if (m_timeout.IsStrictlyPositive())
    {
        in.timer =
            Simulator::Schedule(m_timeout, &SecAggServerStep::EndPhase, this, instance, true);
    }
}

void
SecAggServerStep::Abort(uint32_t instance, fl::SecAggStatus status, const std::string& text)
{
    NS_LOG_WARN("secure aggregation of round " << instance << " aborted: " << text);
    auto it = m_instances.find(instance);
    NS_ASSERT(it != m_instances.end());
    Simulator::Cancel(it->second.timer);
    ++m_counters.aborted;
    SecAggRoundReport report = it->second.report;
    Done done = std::move(it->second.done);
    m_instances.erase(it); // before `done`: it may set up the next instance
    report.ok = false;
    report.status = status;
    report.statusText = text;
    report.end = Simulator::Now();
    m_roundEndTrace(report);
    Result r;
    r.ok = false;
    r.status = text;
    if (done)
    {
        done(r);
    }
}

void
SecAggServerStep::Complete(uint32_t instance, const fl::SecAggResult& result)
{
    auto it = m_instances.find(instance);
    NS_ASSERT(it != m_instances.end());
    ++m_counters.completed;
    SecAggRoundReport report = it->second.report;
    Done done = std::move(it->second.done);
    Result r;
    r.ok = true;
    r.status = fl::SecAggStatusText(fl::SecAggStatus::Ok);
    r.sum = result.sum;
    r.totalWeight = static_cast<double>(result.totalWeight);
    r.participants = result.survivors;
    m_instances.erase(it); // before `done`: it may set up the next instance
    report.ok = true;
    report.status = fl::SecAggStatus::Ok;
    report.statusText = r.status;
    report.end = Simulator::Now();
    m_roundEndTrace(report);
    if (done)
    {
        done(r);
    }
}

} // namespace ns3
