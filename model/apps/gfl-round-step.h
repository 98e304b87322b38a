/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The GFL server (seeds 000/003) as the FedAvg server with a round step: FlServerApplication
 * samples, sends w_{p,i-1}, collects the uploads; this step supplies the GFL sampling
 * (fl::GflSampleClients from the server's seed), the aggregation of eq. (7) / (55), and between
 * "aggregate" and "next round" the server-to-server exchange of eq. (8) over the server's own
 * transport (FlGraphExchangeNode: graph-homomorphic, i.i.d. or no noise; loss policies).
 */
#ifndef GFL_ROUND_STEP_H
#define GFL_ROUND_STEP_H

#include "ns3/fl-graph-exchange.h"
#include "ns3/fl-server-application.h"
#include "ns3/gfl.h"

#include <functional>

namespace ns3
{

/**
 * \ingroup fl
 * What a GFL server reports after each iteration's combination.
 */
struct GflIterationReport
{
    uint32_t server{0};                    ///< graph index p
    uint32_t iteration{0};                 ///< i
    const fl::ParamVector* psi{nullptr};   ///< psi_{p,i}, the aggregate before the exchange
    const fl::ParamVector* model{nullptr}; ///< w_{p,i}, after the combination
    fl::CombineOutcome outcome;            ///< missing / reused neighbour terms
    uint32_t uploads{0};                   ///< client uploads aggregated
};

/**
 * \ingroup fl
 * The GFL round step of server p (install it with FlServerApplication::SetRoundStep; the
 * FlGflHelper does).
 */
class GflRoundStep : public FlRoundStep
{
  public:
    /// The settings of server p.
    struct Config
    {
        uint32_t clientsPerServer{0}; ///< K; the server's clients are task clients p*K .. p*K+K-1
        uint32_t sampledClients{0};   ///< L (0 = all)
        uint64_t serverSeed{0};       ///< fl::GflServerSeed(seed, p)
        fl::GflUplink uplink{fl::GflUplink::Models}; ///< models (eq. 7) or updates (eq. 55)
        double mu{0.1};                              ///< step size (eq. 55)
        FlGraphExchangeConfig exchange;              ///< the server-to-server exchange
    };

    /// Throws fl::ConfigError naming a bad setting.
    explicit GflRoundStep(Config config);

    /// Called after every iteration's combination.
    void SetIterationCallback(std::function<void(const GflIterationReport&)> cb);

    /// The exchange node (counters).
    const FlGraphExchangeNode& Exchange() const
    {
        return *m_exchange;
    }

    bool SelectClients(uint32_t round,
                       const std::vector<uint32_t>& eligible,
                       std::vector<uint32_t>& selected) override;
    bool Aggregate(const Context& ctx,
                   const std::vector<const fl::ParamVector*>& uploads,
                   const std::vector<uint32_t>& clients,
                   fl::ParamVector& model) override;
    bool Receive(FlInboundMessage& in) override;
    void Apply(const Context& ctx, fl::ParamVector& model, std::function<void()> done) override;

  private:
    Config m_config;
    Ptr<FlGraphExchangeNode> m_exchange;
    fl::ParamVector m_psi;
    uint32_t m_uploads{0};
    std::function<void(const GflIterationReport&)> m_callback;
};

} // namespace ns3

#endif // GFL_ROUND_STEP_H
