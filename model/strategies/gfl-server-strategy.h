/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The GFL server (E. Rizk, S. Vlaski, A. H. Sayed, "Privatized Graph Federated Learning",
 * arXiv:2203.07105, 2022, and its journal version, EURASIP J. Adv. Signal Process. 2023, article
 * 87) as the generic server with a strategy: FlServerApplication
 * samples, sends w_{p,i-1}, collects the uploads; this strategy supplies the GFL sampling
 * (fl::GflSampleClients from the server's seed), the aggregation of eq. (7) / (55), and between
 * "aggregate" and "next round" the server-to-server exchange of eq. (8) over the server's own
 * transport (FlGraphExchangeNode: graph-homomorphic, i.i.d. or no noise; loss policies).
 *
 * Secure aggregation is an uplink step of the server (SecAggServerStep; FlGflHelper installs
 * it): the step then gets the survivors' unmasked sum (weights 1) through Aggregate (a sum), and an
 * aborted secure round arrives here as a round that aggregated nothing (psi = w_{p,i-1}).
 */
#ifndef GFL_SERVER_STRATEGY_H
#define GFL_SERVER_STRATEGY_H

#include "ns3/event-id.h"
#include "ns3/fl-graph-exchange.h"
#include "ns3/fl-server-strategy.h"
#include "ns3/gfl.h"
#include "ns3/nstime.h"

#include <functional>
#include <map>

namespace ns3
{

/**
 * \ingroup fl-strategies
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
    uint32_t dropped{0};                   ///< sampled clients whose upload did not count
};

/**
 * \ingroup fl-strategies
 * The GFL server strategy of server p (install it with FlServerApplication::SetStrategy; the
 * FlGflHelper does, with CreateObject<GflServerStrategy>(config)). It reaches its neighbour servers
 * through the port's transport.
 */
class GflServerStrategy : public FlServerStrategy, public FlPeerHooks
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    /// The settings of server p.
    struct Config
    {
        uint32_t clientsPerServer{0}; ///< K; the server's clients are task clients p*K .. p*K+K-1
        uint32_t sampledClients{0};   ///< L (0 = all)
        /**
         * Cells that follow their clients (clients handed over between the servers' cells,
         * FlGraphSceneHelper::SetCellRoaming): the server samples L of the clients that joined
         * it and are in its cell now (the port's linkState(c).cell is p), the k-th of them in
         * ascending index order taking the place of its k-th own client in the paper's
         * sampling (fl::GflSampleClients over their number, all of them if fewer than L), so
         * that with every client at home the sampling is the paper's. False (default): L of its
         * own K clients p*K .. p*K+K-1, wherever they are.
         */
        bool followCells{false};
        uint64_t serverSeed{0};       ///< fl::GflServerSeed(seed, p)
        fl::GflUplink uplink{fl::GflUplink::Models}; ///< models (eq. 7) or updates (eq. 55)
        double mu{0.1};                              ///< step size (eq. 55)
        FlGraphExchangeConfig exchange;              ///< the server-to-server exchange
    };

    /// Throws fl::ConfigError naming a bad setting.
    explicit GflServerStrategy(Config config);
    /// One client per server, no neighbours (for the TypeId system; use the Config form).
    GflServerStrategy();
    /// The settings of GflServerStrategy(): one client per server, everything else default.
    static Config OneClientConfig();

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
                   const FlAggregationInput& in,
                   fl::ParamVector& model,
                   std::vector<double>& weights) override;
    bool Receive(FlInboundMessage& in) override;
    void AfterAggregation(const Context& ctx,
                          fl::ParamVector& model,
                          std::function<void()> done) override;
    void ConfigureRound(const Context& ctx,
                        const std::vector<uint32_t>& selected,
                        FlRoundConfig& config) override;
    /// The aggregate psi_{p,i}, the neighbour messages missing and the dropped clients.
    void DescribeModel(FlModelReport& report) const override;

    /// Sampled clients whose upload did not count, over all iterations so far.
    uint64_t GetDroppedClients() const
    {
        return m_droppedTotal;
    }

  private:
    /// psi from the average of the uploads: the average (models, eq. 7) or eq. (55).
    void SetPsi(const fl::ParamVector& average, fl::ParamVector& model) const;
    void StartExchange(uint32_t iteration,
                       fl::ParamVector& model,
                       std::function<void()> done);
    Config m_config;
    std::vector<uint32_t> m_sampled; ///< this round's selected clients
    uint32_t m_dropped{0};           ///< this round's dropped clients
    uint64_t m_droppedTotal{0};      ///< all rounds
    Ptr<FlGraphExchangeNode> m_exchange;
    fl::ParamVector m_psi;
    uint32_t m_uploads{0};
    uint32_t m_lastMissing{0}; ///< neighbour messages missing at the last combination
    std::function<void(const GflIterationReport&)> m_callback;
};

} // namespace ns3

#endif // GFL_SERVER_STRATEGY_H
