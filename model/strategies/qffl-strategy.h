/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * q-FFL (T. Li, M. Sanjabi, A. Beirami, V. Smith, "Fair Resource Allocation in Federated
 * Learning", ICLR 2020, Algorithm 2, q-FedAvg) as a strategy pair on the server/client seam:
 * the server samples S_t with p_k = n_k / n, each client sends Delta_k and h_k (computed from
 * its loss at the model it received), and the server applies w <- w - sum Delta_k / sum h_k.
 * The maths is fl::QfflClientQuantities and fl::QfflServerStep (model/algorithms/qffl.h).
 */
#ifndef FL_QFFL_STRATEGY_H
#define FL_QFFL_STRATEGY_H

#include "ns3/fl-client-strategy.h"
#include "ns3/fl-server-strategy.h"
#include "ns3/qffl.h"

namespace ns3
{

/**
 * \ingroup fl-strategies
 * The server half of q-FFL: SelectClients draws ClientsPerRound of the eligible clients with
 * probabilities proportional to their sample counts (fl::QfflSampleClients, seeded by the
 * initial model's seed and the round, as fl::RunQfflReference); the clients upload raw
 * payloads (fl::PackQfflUpdate: h_k and Delta_k in float64), and the round's step is
 * fl::QfflServerStep over them in ascending client order. With an uplink step (secure
 * aggregation) the step's sum of [Delta_k; h_k] gives the same step. Not combinable with
 * StragglerPolicy accept.
 */
class QfflServerStrategy : public FlServerStrategy
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    QfflServerStrategy();

    FlStrategyTraits Traits(std::size_t numParameters) const override;
    void Start(const FlStrategySetup& setup) override;
    bool SelectClients(uint32_t round,
                       const std::vector<uint32_t>& eligible,
                       std::vector<uint32_t>& selected) override;
    /// fl::QfflServerStep over the payloads in client order, or from the step's sums.
    bool Aggregate(const Context& ctx,
                   const FlAggregationInput& in,
                   fl::ParamVector& model,
                   std::vector<double>& weights) override;

  private:
    uint32_t m_clientsPerRound{0}; ///< ClientsPerRound attribute (0 = all)
    std::size_t m_parameters{0};   ///< the model size
};

/**
 * \ingroup fl-strategies
 * The client half of q-FFL: Fit computes F_k(w^t) = LearningTask::ClientLoss at the received
 * model, trains as the default client strategy (Rng(DeriveSeed(seed, round))), and forms
 * Delta_k and h_k with L = 1 / the trainer's learning rate (Fixed step rule) and the Q
 * attribute; the upload is raw (fl::PackQfflUpdate; with an uplink step the
 * step gets [Delta_k; h_k] with weight 1). Uplink noise is refused: no privacy accounting covers the
 * loss that h_k carries.
 */
class QfflClientStrategy : public FlClientStrategy
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    QfflClientStrategy();

    void Start(const fl::LearningTask& task, uint32_t client, bool hasUplinkStep) override;
    FitFunction MakeFit() const override;
    bool PerturbsUpload() const override;
    /// 1: an uplink step sums [Delta_k; h_k] unweighted.
    uint64_t UploadWeight(const fl::LearningTask& task, uint32_t client) const override;
    /// [Delta_k; h_k]: the model size + 1.
    std::size_t UploadValues(std::size_t numParameters) const override;

  private:
    double m_q{1.0}; ///< Q attribute
};

} // namespace ns3

#endif // FL_QFFL_STRATEGY_H
