/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/gfl-round-step.h"

#include "ns3/log.h"

#include <algorithm>

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

bool
GflRoundStep::Aggregate(const Context& /* ctx */,
                        const std::vector<const fl::ParamVector*>& uploads,
                        const std::vector<uint32_t>& /* clients */,
                        fl::ParamVector& model)
{
    m_uploads = static_cast<uint32_t>(uploads.size());
    try
    {
        fl::ParamVector average = fl::GflServerAverage(uploads); // eq. (7)
        model = m_config.uplink == fl::GflUplink::Updates
                    ? fl::GflApplyUpdate(model, average, m_config.mu) // eq. (55)
                    : std::move(average);
    }
    catch (const fl::ConfigError& e)
    {
        NS_FATAL_ERROR(e.what());
    }
    return true;
}

bool
GflRoundStep::Receive(FlInboundMessage& in)
{
    return m_exchange->Receive(in);
}

void
GflRoundStep::Apply(const Context& ctx, fl::ParamVector& model, std::function<void()> done)
{
    NS_LOG_FUNCTION(this << ctx.round);
    if (ctx.status != FlRoundStatus::Aggregated)
    {
        m_uploads = 0; // nobody uploaded: psi = w_{p,i-1} (as RunGflInProcess)
    }
    m_psi = model;
    const uint32_t iteration = ctx.round;
    m_exchange->Start(ctx.server->GetTransport(),
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
                              m_callback(r);
                          }
                          m_uploads = 0;
                          done();
                      });
}

} // namespace ns3
