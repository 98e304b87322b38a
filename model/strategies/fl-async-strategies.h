/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Asynchronous federated learning as server strategies (FlServerStrategy) that take every
 * update as it arrives: FedAsync (Xie, Koyejo, Gupta, "Asynchronous Federated Optimization",
 * arXiv:1903.03934, 2019) and FedBuff (Nguyen et al., "Federated Learning with Buffered
 * Asynchronous Aggregation", AISTATS 2022). The maths is in async-fl.h; these classes decide
 * only when and to whom: the server starts ClientsPerRound clients (C, the concurrency) on the
 * initial model, and each client whose update arrives is sent the current model at once, so C
 * clients stay busy and no round ever closes. Each new model version is reported through the
 * server's RoundEnd trace (round = the version that was current when it was made).
 *
 * With secure aggregation (an uplink step; Bonawitz et al., "Practical Secure Aggregation for
 * Privacy-Preserving Machine Learning", ACM CCS 2017) FedBuff forms each buffer as a cohort:
 * the server sends the current model to K clients together, one secure aggregation runs over
 * their uploads, and FedBuff's step is applied to the unmasked sum only
 * (fl::FedBuffBufferFromSum, staleness = versions since the cohort was sent). FedAsync, which
 * applies each update alone, is refused: the sum of one update is the update.
 */
#ifndef FL_ASYNC_STRATEGIES_H
#define FL_ASYNC_STRATEGIES_H

#include "ns3/async-fl.h"
#include "ns3/fl-server-strategy.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-strategies
 * What the asynchronous strategies share: the rule (fl::AsyncRule), the models of the
 * versions still being trained on (for the rule's base model), and the "send the current model
 * to the client whose update arrived" schedule.
 */
class FlAsyncStrategy : public FlServerStrategy, public FlAsyncHooks
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    FlAsyncStrategy();
    ~FlAsyncStrategy() override;

    void ConfigureRound(const Context& ctx,
                        const std::vector<uint32_t>& selected,
                        FlRoundConfig& config) override;
    void UpdateArrived(const FlUpdateInfo& info,
                       const fl::ParamVector& update,
                       fl::ParamVector& global) override;
    /// The client is idle again: it gets the current model at once, as after an update.
    void UpdateLost(uint32_t client, uint32_t version, fl::ParamVector& global) override;

    /// Staleness of every update taken so far, in arrival order.
    const std::vector<uint32_t>& GetStalenessHistory() const;

  protected:
    /// The rule (created in Start from the attributes).
    virtual std::unique_ptr<fl::AsyncRule> MakeRule() const = 0;
    /// Throws fl::ConfigError if the strategy cannot run with an uplink step (default: cannot).
    virtual void CheckUplinkStep() const;
    /// Records an update's staleness (GetStalenessHistory).
    void RecordStaleness(uint32_t staleness);
    void Start(const FlStrategySetup& setup) override;
    void DoDispose() override;

    std::string m_function; ///< StalenessFunction
    double m_a;             ///< StalenessA
    double m_b;             ///< StalenessB

  private:
    void Remember(uint32_t version, const fl::ParamVector& model, std::size_t clients);

    std::unique_ptr<fl::AsyncRule> m_rule;
    /// Models of versions some client is training on, with how many clients are.
    std::map<uint32_t, std::pair<fl::ParamVector, std::size_t>> m_versions;
    std::vector<FlUpdateInfo> m_pending; ///< updates in the rule's buffer (not yet committed)
    std::vector<uint32_t> m_staleness;
    std::size_t m_initialClients{0}; ///< clients sent version 1
    bool m_first{false};             ///< no update has arrived yet
};

/**
 * \ingroup fl-strategies
 * FedAsync (Xie et al. 2019, Algorithm 1): each arriving update is mixed into the global
 * model, x_t = (1 - alpha_t) x_{t-1} + alpha_t x_new, alpha_t = Alpha s(t - tau) with the
 * StalenessFunction constant, polynomial ((1 + tau)^-a) or hinge (1 up to b, then
 * 1 / (a (tau - b) + 1)); every update makes a new version.
 */
class FedAsyncStrategy : public FlAsyncStrategy
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    FedAsyncStrategy();

  protected:
    std::unique_ptr<fl::AsyncRule> MakeRule() const override;

  private:
    double m_alpha;
};

/**
 * \ingroup fl-strategies
 * FedBuff (Nguyen et al. 2022, Algorithm 1): each arriving client delta (its model minus the
 * version it trained on), scaled by s(tau), is added to a buffer; every BufferSize (K)
 * updates the server applies w <- w + ServerLearningRate * buffer / K, a new version. With an
 * uplink step (secure aggregation) the buffer is a cohort of K clients sent the same model,
 * known to the server only as its sum; a cohort that lost some clients (at least the step's
 * threshold left) is a buffer of the survivors, divided by their number.
 */
class FedBuffStrategy : public FlAsyncStrategy
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    FedBuffStrategy();

    /// K with an uplink step: each buffer is one cohort of K clients sent the model together.
    uint32_t UplinkCohortSize() const override;
    /// w <- w + eta_g s(tau) (cohort mean - base) (fl::FedBuffBufferFromSum, FedBuffApply).
    void CohortAggregated(const CohortSum& cohort, fl::ParamVector& global) override;

  protected:
    std::unique_ptr<fl::AsyncRule> MakeRule() const override;
    void CheckUplinkStep() const override;

  private:
    uint32_t m_bufferSize;
    double m_serverLearningRate;
};

} // namespace ns3

#endif // FL_ASYNC_STRATEGIES_H
