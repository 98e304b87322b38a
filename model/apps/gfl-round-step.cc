/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/gfl-round-step.h"

#include "ns3/fl-transport.h"
#include "ns3/log.h"
#include "ns3/model-message.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <iterator>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GflRoundStep");

GflRoundStep::GflRoundStep(Config config)
    : m_config(std::move(config))
{
    if (m_config.clientsPerServer == 0)
    {
        throw fl::ConfigError("clientsPerServer", "is 0", "give each server K >= 1 clients");
    }
    if (!(m_config.mu > 0.0))
    {
        throw fl::ConfigError("mu", "is " + std::to_string(m_config.mu), "use mu > 0");
    }
    m_exchange = Create<FlGraphExchangeNode>(m_config.exchange);
}

void
GflRoundStep::SetIterationCallback(std::function<void(const GflIterationReport&)> cb)
{
    m_callback = std::move(cb);
}

bool
GflRoundStep::SelectClients(uint32_t round,
                            const std::vector<uint32_t>& eligible,
                            std::vector<uint32_t>& selected)
{
    // step 1: L of K from the server's own seed (as RunGflInProcess), mapped to task clients
    const uint32_t K = m_config.clientsPerServer;
    const uint32_t first = m_config.exchange.self * K;
    selected.clear();
    for (uint32_t k : fl::GflSampleClients(K, m_config.sampledClients, m_config.serverSeed, round))
    {
        if (std::binary_search(eligible.begin(), eligible.end(), first + k))
        {
            selected.push_back(first + k);
        }
    }
    return true;
}

void
GflRoundStep::SetPsi(const fl::ParamVector& average, fl::ParamVector& model) const
{
    model = m_config.uplink == fl::GflUplink::Updates
                ? fl::GflApplyUpdate(model, average, m_config.mu) // eq. (55)
                : average;                                        // eq. (7)
}

bool
GflRoundStep::Aggregate(const Context& /* ctx */,
                        const std::vector<const fl::ParamVector*>& uploads,
                        const std::vector<uint32_t>& /* clients */,
                        fl::ParamVector& model)
{
    m_uploads = static_cast<uint32_t>(uploads.size());
    m_dropped =
        static_cast<uint32_t>(m_sampled.size() - std::min(m_sampled.size(), uploads.size()));
    try
    {
        SetPsi(fl::GflServerAverage(uploads), model); // eq. (7)
    }
    catch (const fl::ConfigError& e)
    {
        NS_FATAL_ERROR(e.what());
    }
    return true;
}

bool
GflRoundStep::Joined(uint32_t client, const std::vector<uint8_t>& extra)
{
    if (!m_config.secureAggregation)
    {
        return extra.empty();
    }
    if (extra.size() != fl::kMaskKeyBytes)
    {
        ++m_secure.rejected; // a secure server needs the client's public key
        return false;
    }
    fl::MaskPublicKey key;
    std::copy(extra.begin(), extra.end(), key.begin());
    m_keys[client] = key;
    return true;
}

void
GflRoundStep::RoundStarting(const Context& ctx, const std::vector<uint32_t>& selected)
{
    m_sampled = selected;
    m_dropped = 0;
    if (!m_config.secureAggregation || selected.empty())
    {
        return;
    }
    // The roster: the sampled clients and the keys they advertised, sent before the model.
    std::vector<fl::MaskRosterEntry> roster;
    for (uint32_t k : selected)
    {
        roster.push_back(fl::MaskRosterEntry{k, m_keys.at(k)}); // joined => key known
    }
    const std::vector<uint8_t> bytes = fl::PackMaskRoster(roster);
    Ptr<FlTransport> transport = ctx.server->GetTransport();
    for (const Address& to : ctx.server->GetClientAddresses(selected))
    {
        transport->SendRaw(
            to,
            {fl::MessageKind::Control, ctx.round, 0, fl::kBroadcastId, fl::kMaskRosterTag},
            bytes);
    }
    ++m_secure.rosters;
}

bool
GflRoundStep::RawUploads() const
{
    return m_config.secureAggregation;
}

bool
GflRoundStep::AggregateRaw(const Context& ctx,
                           const std::vector<const std::vector<uint8_t>*>& payloads,
                           const std::vector<uint32_t>& clients,
                           fl::ParamVector& model)
{
    PendingUnmask& p = m_pending;
    p = PendingUnmask();
    p.round = ctx.round;
    for (std::size_t j = 0; j < payloads.size(); ++j)
    {
        std::vector<uint64_t> words;
        if (!std::binary_search(m_sampled.begin(), m_sampled.end(), clients[j]) ||
            !fl::UnpackMaskedWords(*payloads[j], model.Size(), words))
        {
            ++m_secure.rejected; // malformed: dropped, its client counts as dropped
            continue;
        }
        p.survivors.push_back(clients[j]);
        p.masked.push_back(std::move(words));
    }
    std::set_difference(m_sampled.begin(),
                        m_sampled.end(),
                        p.survivors.begin(),
                        p.survivors.end(),
                        std::back_inserter(p.dropped));
    m_dropped = static_cast<uint32_t>(p.dropped.size());
    m_uploads = 0;
    if (p.survivors.empty())
    {
        return true; // nothing to unmask: psi = w_{p,i-1} (Apply)
    }
    if (!p.dropped.empty())
    {
        p.active = true; // Apply asks the survivors for their seeds with the dropped clients
        return true;
    }
    Unmask(p, {}, model);
    p = PendingUnmask();
    return true;
}

void
GflRoundStep::Unmask(const PendingUnmask& p,
                     const std::vector<fl::RevealedMaskSeed>& revealed,
                     fl::ParamVector& model)
{
    std::vector<const std::vector<uint64_t>*> masked;
    masked.reserve(p.masked.size());
    for (const auto& m : p.masked)
    {
        masked.push_back(&m);
    }
    try
    {
        SetPsi(fl::GflUnmaskAverage(masked,
                                    p.survivors,
                                    p.dropped,
                                    revealed,
                                    m_config.maskFractionBits,
                                    model.GetPrecision()),
               model);
    }
    catch (const fl::ConfigError& e)
    {
        NS_FATAL_ERROR(e.what());
    }
    m_uploads = static_cast<uint32_t>(p.survivors.size());
    m_secure.maskedUploads += m_uploads;
}

bool
GflRoundStep::Receive(FlInboundMessage& in)
{
    if (in.msg.header.kind == fl::MessageKind::Control)
    {
        if (in.msg.header.aux != fl::kMaskRevealTag || !m_config.secureAggregation)
        {
            return false;
        }
        HandleReveal(in);
        return true;
    }
    return m_exchange->Receive(in);
}

void
GflRoundStep::HandleReveal(FlInboundMessage& in)
{
    PendingUnmask& p = m_pending;
    uint32_t client = 0;
    std::vector<fl::RevealedMaskSeed> seeds;
    if (!p.active || p.server == nullptr || in.msg.header.round != p.round ||
        !p.server->IdentifyClient(in, client) ||
        !std::binary_search(p.survivors.begin(), p.survivors.end(), client) ||
        p.reveals.count(client) != 0 || !fl::UnpackRevealedSeeds(in.msg.raw, seeds) ||
        seeds.size() != p.dropped.size())
    {
        ++m_secure.rejected;
        return;
    }
    std::vector<uint32_t> named;
    for (const auto& r : seeds)
    {
        if (r.survivor != client)
        {
            ++m_secure.rejected;
            return;
        }
        named.push_back(r.dropped);
    }
    std::sort(named.begin(), named.end());
    if (named != p.dropped)
    {
        ++m_secure.rejected;
        return;
    }
    ++m_secure.revealsReceived;
    p.reveals[client] = std::move(seeds);
    if (p.reveals.size() == p.survivors.size())
    {
        FinishReveal(true);
    }
}

void
GflRoundStep::FinishReveal(bool complete)
{
    PendingUnmask& p = m_pending;
    Simulator::Cancel(p.timer);
    fl::ParamVector& model = *p.model;
    if (complete)
    {
        std::vector<fl::RevealedMaskSeed> revealed;
        for (const auto& kv : p.reveals)
        {
            revealed.insert(revealed.end(), kv.second.begin(), kv.second.end());
        }
        Unmask(p, revealed, model);
    }
    else
    {
        // A survivor did not reveal in time: the sum stays masked, psi = w_{p,i-1}.
        NS_LOG_WARN("server " << m_config.exchange.self << " round " << p.round << ": "
                              << p.reveals.size() << " of " << p.survivors.size()
                              << " survivors revealed; the round's uploads are not used");
        ++m_secure.unmaskFailures;
        m_uploads = 0;
        m_dropped = static_cast<uint32_t>(m_sampled.size());
    }
    FlServerApplication* server = p.server;
    const uint32_t round = p.round;
    std::function<void()> done = std::move(p.done);
    p = PendingUnmask();
    StartExchange(server, round, model, std::move(done));
}

void
GflRoundStep::Apply(const Context& ctx, fl::ParamVector& model, std::function<void()> done)
{
    NS_LOG_FUNCTION(this << ctx.round);
    if (ctx.status != FlRoundStatus::Aggregated)
    {
        m_uploads = 0; // nobody uploaded: psi = w_{p,i-1} (as RunGflInProcess)
        m_dropped = static_cast<uint32_t>(m_sampled.size());
        m_pending = PendingUnmask();
    }
    if (m_pending.active && m_pending.round == ctx.round)
    {
        // Dropout recovery: the survivors reveal their pairwise seeds with the dropped clients.
        PendingUnmask& p = m_pending;
        p.server = ctx.server;
        p.model = &model;
        p.done = std::move(done);
        ++m_secure.revealRequests;
        const std::vector<uint8_t> bytes = fl::PackU32(p.dropped);
        Ptr<FlTransport> transport = ctx.server->GetTransport();
        for (const Address& to : ctx.server->GetClientAddresses(p.survivors))
        {
            transport->SendRaw(to,
                               {fl::MessageKind::Control,
                                ctx.round,
                                0,
                                fl::kBroadcastId,
                                fl::kMaskRevealRequestTag},
                               bytes);
        }
        if (m_config.revealTimeout.IsStrictlyPositive())
        {
            p.timer = Simulator::Schedule(m_config.revealTimeout,
                                          &GflRoundStep::FinishReveal,
                                          this,
                                          false);
        }
        return;
    }
    StartExchange(ctx.server, ctx.round, model, std::move(done));
}

void
GflRoundStep::StartExchange(FlServerApplication* server,
                            uint32_t iteration,
                            fl::ParamVector& model,
                            std::function<void()> done)
{
    m_secure.droppedClients += m_dropped;
    m_psi = model;
    m_exchange->Start(server->GetTransport(),
                      iteration,
                      m_psi,
                      model,
                      [this, iteration, &model, done](const fl::CombineOutcome& outcome) {
                          if (m_callback)
                          {
                              GflIterationReport r;
                              r.server = m_config.exchange.self;
                              r.iteration = iteration;
                              r.psi = &m_psi;
                              r.model = &model;
                              r.outcome = outcome;
                              r.uploads = m_uploads;
                              r.dropped = m_dropped;
                              m_callback(r);
                          }
                          m_uploads = 0;
                          done();
                      });
}

} // namespace ns3
