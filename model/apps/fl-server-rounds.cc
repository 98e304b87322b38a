/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlServerApplication: the synchronous driver (uploads of the open round, the strategy's
 * phases before the upload, closing a round, its aggregation and the uplink step's result).
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
    // Stop (re)sending models nobody will use and give up incoming ones too old to count. A
    // strategy that talks to other nodes (GFL's servers) keeps two rounds more: its message of
    // the round just closed may still be on its way to a neighbour (its last chunks queued or
    // waiting for their acknowledgement when the neighbours' messages completed the round
    // here), and a neighbour may lag by up to two rounds (FlGraphExchangeNode's lookahead).
    const uint32_t keep = m_acceptStale ? m_maxStaleness : (m_peerHooks ? 2 : 0);
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
                      << " bytes); it was dropped (fix: declare the "
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


} // namespace ns3
