/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/gfl-server-strategy.h"

#include "ns3/fl-application-base.h"
#include "ns3/fl-transport.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <iterator>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GflServerStrategy");
NS_OBJECT_ENSURE_REGISTERED(GflServerStrategy);

TypeId
GflServerStrategy::GetTypeId()
{
    // Created by FlGflHelper with its configuration (CreateObject<GflServerStrategy>(config)).
    static TypeId tid =
        TypeId("ns3::GflServerStrategy").SetParent<FlServerStrategy>().SetGroupName("Fl");
    return tid;
}

GflServerStrategy::GflServerStrategy()
    : GflServerStrategy(OneClientConfig())
{
}

GflServerStrategy::Config
GflServerStrategy::OneClientConfig()
{
    Config c;
    c.clientsPerServer = 1;
    return c;
}

GflServerStrategy::GflServerStrategy(Config config)
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
GflServerStrategy::SetIterationCallback(std::function<void(const GflIterationReport&)> cb)
{
    m_callback = std::move(cb);
}

bool
GflServerStrategy::SelectClients(uint32_t round,
                                 const std::vector<uint32_t>& eligible,
                                 std::vector<uint32_t>& selected)
{
    selected.clear();
    if (m_config.followCells)
    {
        // L of the clients in this server's cell now, in the place of its own K
        std::vector<uint32_t> here;
        const FlServerPort& port = Port();
        for (uint32_t c : eligible) // ascending
        {
            if (port.linkState &&
                port.linkState(c).cell == static_cast<int32_t>(m_config.exchange.self))
            {
                here.push_back(c);
            }
        }
        if (!here.empty())
        {
            const std::size_t L = m_config.sampledClients == 0
                                      ? 0
                                      : std::min<std::size_t>(m_config.sampledClients, here.size());
            for (uint32_t k : fl::GflSampleClients(here.size(), L, m_config.serverSeed, round))
            {
                selected.push_back(here[k]);
            }
        }
        m_sampled = selected;
        return true;
    }
    // step 1: L of K from the server's own seed (as RunGflInProcess), mapped to task clients
    const uint32_t K = m_config.clientsPerServer;
    const uint32_t first = m_config.exchange.self * K;
    for (uint32_t k : fl::GflSampleClients(K, m_config.sampledClients, m_config.serverSeed, round))
    {
        if (std::binary_search(eligible.begin(), eligible.end(), first + k))
        {
            selected.push_back(first + k);
        }
    }
    m_sampled = selected;
    return true;
}

void
GflServerStrategy::SetPsi(const fl::ParamVector& average, fl::ParamVector& model) const
{
    model = m_config.uplink == fl::GflUplink::Updates
                ? fl::GflApplyUpdate(model, average, m_config.mu) // eq. (55)
                : average;                                        // eq. (7)
}

bool
GflServerStrategy::Aggregate(const Context& ctx,
                             const FlAggregationInput& in,
                             fl::ParamVector& model,
                             std::vector<double>& weights)
{
    if (in.IsSum())
    {
        // Secure aggregation's survivors, weight 1 each: totalWeight = |S|. The average is what
        // fl::GflSecureAverage computes in process, bit for bit.
        m_uploads = static_cast<uint32_t>(in.clients.size());
        m_dropped =
            static_cast<uint32_t>(m_sampled.size() - std::min(m_sampled.size(), in.clients.size()));
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
        fl::ExitOnConfigError("GflServerStrategy", e);
    }
    return true;
}

void
GflServerStrategy::ConfigureRound(const Context& /* ctx */,
                                  const std::vector<uint32_t>& selected,
                                  FlRoundConfig& /* config */)
{
    m_sampled = selected;
    m_dropped = 0;
}

bool
GflServerStrategy::Receive(FlInboundMessage& in)
{
    return m_exchange->Receive(in);
}

void
GflServerStrategy::AfterAggregation(const Context& ctx,
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
GflServerStrategy::StartExchange(uint32_t iteration,
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
GflServerStrategy::DescribeModel(FlModelReport& report) const
{
    report.aggregate = &m_psi;
    report.missingNeighbours = m_lastMissing;
    report.droppedClients = m_dropped;
}

} // namespace ns3
