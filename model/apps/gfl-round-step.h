/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The GFL server (seeds 000/003) as the FedAvg server with a round step: FlServerApplication
 * samples, sends w_{p,i-1}, collects the uploads; this step supplies the GFL sampling
 * (fl::GflSampleClients from the server's seed), the aggregation of eq. (7) / (55), and between
 * "aggregate" and "next round" the server-to-server exchange of eq. (8) over the server's own
 * transport (FlGraphExchangeNode: graph-homomorphic, i.i.d. or no noise; loss policies).
 *
 * Secure aggregation (V000 eq. 48; secure-aggregation.h for the wire format): clients join with
 * their X25519 public key; every round the step sends the sampled clients the roster (their ids
 * and keys) before the model; each client uploads its masked fixed-point words (raw LocalModel);
 * if sampled clients did not upload by the round's close (they dropped, or the network lost
 * them: the same path), the step asks the survivors for their pairwise seeds with them and
 * unmasks once every survivor answered (fl::GflUnmaskAverage, as RunGflInProcess). A survivor
 * that does not answer within RevealTimeout leaves the sum masked: the round then keeps
 * psi = w_{p,i-1}, counted as an unmask failure.
 */
#ifndef GFL_ROUND_STEP_H
#define GFL_ROUND_STEP_H

#include "ns3/event-id.h"
#include "ns3/fl-graph-exchange.h"
#include "ns3/fl-server-application.h"
#include "ns3/gfl.h"
#include "ns3/nstime.h"

#include <functional>
#include <map>

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
    uint32_t dropped{0};                   ///< sampled clients whose upload did not count
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
        bool secureAggregation{false};               ///< pairwise masks on the uplink
        unsigned maskFractionBits{fl::kDefaultMaskFractionBits}; ///< fixed-point resolution
        Time revealTimeout{Seconds(0)}; ///< wait this long for the survivors' seeds (0 = ever)
    };

    /// Secure-aggregation counters.
    struct SecureCounters
    {
        uint64_t rosters{0};         ///< rounds whose roster was sent
        uint64_t maskedUploads{0};   ///< masked uploads unmasked into an aggregate
        uint64_t revealRequests{0};  ///< rounds in which survivors were asked for seeds
        uint64_t revealsReceived{0}; ///< survivors' answers accepted
        uint64_t rejected{0};        ///< malformed or unexpected keys, uploads and reveals
        uint64_t unmaskFailures{0};  ///< rounds left masked (a survivor did not reveal in time)
        uint64_t droppedClients{0};  ///< sampled clients without a (valid) upload, all rounds
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
    bool Joined(uint32_t client, const std::vector<uint8_t>& extra) override;
    void RoundStarting(const Context& ctx, const std::vector<uint32_t>& selected) override;
    bool RawUploads() const override;
    bool AggregateRaw(const Context& ctx,
                      const std::vector<const std::vector<uint8_t>*>& payloads,
                      const std::vector<uint32_t>& clients,
                      fl::ParamVector& model) override;

    /// Secure-aggregation counters.
    const SecureCounters& Secure() const
    {
        return m_secure;
    }

  private:
    /// psi from the average of the uploads: the average (models, eq. 7) or eq. (55).
    void SetPsi(const fl::ParamVector& average, fl::ParamVector& model) const;
    void StartExchange(FlServerApplication* server,
                       uint32_t iteration,
                       fl::ParamVector& model,
                       std::function<void()> done);
    void HandleReveal(FlInboundMessage& in);
    void FinishReveal(bool complete);
    struct PendingUnmask;
    /// psi from the pending masked uploads, the dropped clients' seeds revealed by the
    /// survivors (none when nobody dropped) and fl::GflUnmaskAverage; counts the uploads.
    void Unmask(const PendingUnmask& p,
                const std::vector<fl::RevealedMaskSeed>& revealed,
                fl::ParamVector& model);

    /// A masked sum waiting for the survivors' seeds.
    struct PendingUnmask
    {
        bool active{false};
        uint32_t round{0};
        std::vector<uint32_t> survivors;
        std::vector<uint32_t> dropped;
        std::vector<std::vector<uint64_t>> masked;
        std::map<uint32_t, std::vector<fl::RevealedMaskSeed>> reveals; ///< by survivor
        FlServerApplication* server{nullptr};
        fl::ParamVector* model{nullptr};
        std::function<void()> done;
        EventId timer;
    };

    Config m_config;
    std::map<uint32_t, fl::MaskPublicKey> m_keys; ///< advertised public keys by client
    std::vector<uint32_t> m_sampled;              ///< this round's selected clients
    uint32_t m_dropped{0};                        ///< this round's dropped clients
    PendingUnmask m_pending;
    SecureCounters m_secure;
    Ptr<FlGraphExchangeNode> m_exchange;
    fl::ParamVector m_psi;
    uint32_t m_uploads{0};
    std::function<void(const GflIterationReport&)> m_callback;
};

} // namespace ns3

#endif // GFL_ROUND_STEP_H
