/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/gfl-round-step.h"
#include "ns3/fl-application-base.h"
#include "ns3/fl-transport.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <iterator>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GflRoundStep");
NS_OBJECT_ENSURE_REGISTERED(GflRoundStep);

TypeId
GflRoundStep::GetTypeId()
{
    // Created by FlGflHelper with its configuration (CreateObject<GflRoundStep>(config)).
    static TypeId tid =
        TypeId("ns3::GflRoundStep").SetParent<FlServerStrategy>().SetGroupName("Fl");
    return tid;
}

GflRoundStep::GflRoundStep()
    : GflRoundStep(OneClientConfig())
{
}

GflRoundStep::Config
GflRoundStep::OneClientConfig()
{
    Config c;
    c.clientsPerServer = 1;
    return c;
}

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
GflRoundStep::Aggregate(const Context& ctx,
                        const FlAggregationInput& in,
                        fl::ParamVector& model,
                        std::vector<double>& weights)
{
    if (in.IsSum())
    {
        // Secure aggregation's survivors, weight 1 each: totalWeight = |S|. The average is what
        // fl::GflSecureAverage computes in process, bit for bit.
        m_uploads = static_cast<uint32_t>(in.clients.size());
        m_dropped = static_cast<uint32_t>(m_sampled.size() -
                                          std::min(m_sampled.size(), in.clients.size()));
        const Eigen::VectorXd mean = *in.sum / in.totalWeight;
        SetPsi(fl::ParamVector(mean).ConvertedTo(model.GetPrecision()), model); // (7) / (55)
        weights.clear();
        return true;
    }
    const std::vector<fl::RoundUpdate>& updates = in.updates;
    // eq. (7) / (55) over the fresh uploads, in client order, each with weight 1
    std::vector<const fl::ParamVector*> uploads;
    for (const fl::RoundUpdate& u : updates)
    {
        if (u.staleness == 0)
        {
            uploads.push_back(u.model);
        }
    }
    if (uploads.empty())
    {
        return FlServerStrategy::Aggregate(ctx, in, model, weights);
    }
    weights.assign(updates.size(), 1.0);
    m_uploads = static_cast<uint32_t>(uploads.size());
    m_dropped =
        static_cast<uint32_t>(m_sampled.size() - std::min(m_sampled.size(), uploads.size()));
    try
    {
        SetPsi(fl::GflServerAverage(uploads), model); // eq. (7)
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("GflRoundStep", e);
    }
    return true;
}

void
GflRoundStep::ConfigureRound(const Context& /* ctx */,
                             const std::vector<uint32_t>& selected,
                             FlRoundConfig& /* config */)
{
    m_sampled = selected;
    m_dropped = 0;
}

bool
GflRoundStep::Receive(FlInboundMessage& in)
{
    return m_exchange->Receive(in);
}

void
GflRoundStep::AfterAggregation(const Context& ctx,
                               fl::ParamVector& model,
                               std::function<void()> done)
{
    NS_LOG_FUNCTION(this << ctx.round);
    if (ctx.status != FlRoundStatus::Aggregated)
    {
        // nobody uploaded, or secure aggregation aborted: psi = w_{p,i-1} (as RunGflInProcess)
        m_uploads = 0;
        m_dropped = static_cast<uint32_t>(m_sampled.size());
    }
    StartExchange(ctx.round, model, std::move(done));
}

void
GflRoundStep::StartExchange(uint32_t iteration,
                            fl::ParamVector& model,
                            std::function<void()> done)
{
    m_droppedTotal += m_dropped;
    m_psi = model;
    m_exchange->Start(Port().transport(),
                      iteration,
                      m_psi,
                      model,
                      [this, iteration, &model, done](const fl::CombineOutcome& outcome) {
                          m_lastMissing = static_cast<uint32_t>(outcome.missing);
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

void
GflRoundStep::DescribeModel(FlModelReport& report) const
{
    report.aggregate = &m_psi;
    report.missingNeighbours = m_lastMissing;
    report.droppedClients = m_dropped;
}

} // namespace ns3
