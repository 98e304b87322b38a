/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlServerApplication: the asynchronous driver (an asynchronous strategy's versions, and
 * the cohorts of an uplink step under it).
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

/// The server's log component (NS_LOG=FlServerApplication), defined in fl-server-application.cc.
LogComponent& FlServerApplicationLog();

namespace
{
LogComponent& g_log = FlServerApplicationLog();
} // namespace

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
    u.info.cohort = h.round;
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
            info.cohort = cohort;
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
