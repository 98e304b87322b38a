/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Asynchronous aggregation rules, pure (no ns-3):
 *  - FedAsync: C. Xie, S. Koyejo, I. Gupta, "Asynchronous Federated Optimization",
 *    arXiv:1903.03934, 2019 (12th Workshop on Optimization for Machine Learning, 2020):
 *    x_t = (1 - alpha_t) x_{t-1} + alpha_t x_new, alpha_t = alpha s(t - tau) (Algorithm 1), with
 *    the staleness functions constant, polynomial and hinge of its Section 5.2.
 *  - FedBuff: J. Nguyen, K. Malik, H. Zhan, A. Yousefpour, M. Rabbat, M. Malek, D. Huba,
 *    "Federated Learning with Buffered Asynchronous Aggregation", AISTATS 2022 (Algorithm 1):
 *    the server adds each arriving client delta, scaled by s(tau), to a buffer; after K of them
 *    it applies w <- w + eta_g * buffer / K and empties the buffer.
 * tau is the staleness: model versions between the one a client trained on and the current one.
 */
#ifndef FL_ASYNC_FL_H
#define FL_ASYNC_FL_H

#include "ns3/param-vector.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{
namespace fl
{

/// FedAsync's staleness functions s(t - tau) (Xie et al. 2019, Section 5.2).
enum class StalenessFunction : uint8_t
{
    Constant = 0,   ///< s = 1
    Polynomial = 1, ///< s = (1 + tau)^-a
    Hinge = 2,      ///< s = 1 if tau <= b, else 1 / (a (tau - b) + 1)
};

/// Parses "constant", "polynomial" or "hinge"; throws ConfigError naming `parameter` otherwise.
StalenessFunction ParseStalenessFunction(const std::string& text,
                                         const std::string& parameter = "StalenessFunction");

/// "constant", "polynomial" or "hinge".
const char* StalenessFunctionName(StalenessFunction f);

/**
 * s(tau) of Xie et al. 2019, Section 5.2: constant 1; polynomial (1 + tau)^-a (a >= 0); hinge
 * 1 for tau <= b and 1 / (a (tau - b) + 1) beyond (a, b >= 0). Throws ConfigError for a or b
 * negative or not finite.
 */
double AsyncStalenessWeight(StalenessFunction f, uint32_t tau, double a, double b);

/**
 * FedAsync's update (Xie et al. 2019, Algorithm 1, "Updater"):
 * global <- (1 - alphaT) global + alphaT local, in the model's precision. Throws ConfigError if
 * alphaT is outside (0, 1] or the sizes or precisions differ.
 */
void FedAsyncMix(ParamVector& global, const ParamVector& local, double alphaT);

/**
 * FedBuff's accumulation (Nguyen et al. 2022, Algorithm 1, server lines "Delta-bar <- Delta-bar
 * + s(tau) Delta_k"): buffer += weight * (local - base), where local - base is the client's
 * delta. An empty buffer is started at zero. Throws ConfigError for mismatched sizes.
 */
void FedBuffAccumulate(ParamVector& buffer,
                       const ParamVector& local,
                       const ParamVector& base,
                       double weight);

/**
 * FedBuff's server step (Nguyen et al. 2022, Algorithm 1): global <- global + eta_g buffer / K.
 * Throws ConfigError for K = 0, eta_g <= 0 or mismatched sizes.
 */
void FedBuffApply(ParamVector& global, const ParamVector& buffer, uint32_t k, double etaG);

/**
 * FedBuff's buffer when it is known only as a sum (secure aggregation of a cohort: Bonawitz et
 * al., "Practical Secure Aggregation for Privacy-Preserving Machine Learning", ACM CCS 2017).
 * The `count` updates of the buffer all trained on `base` (one cohort, one staleness tau, one
 * staleness weight s = s(tau)); `sum` = sum_k w_k x_k of their models with weights w_k summing
 * to `totalWeight`. Returns the buffer of Nguyen et al. 2022, Algorithm 1,
 *   Delta-bar = s * count * (sum / totalWeight - base),
 * which is sum_k s (x_k - base) when every w_k is equal (the cohort's weighted mean delta,
 * times count, otherwise), in base's precision. FedBuffApply(global, buffer, count, eta_g)
 * then makes the step. Throws ConfigError for count = 0, totalWeight <= 0 or mismatched sizes.
 */
ParamVector FedBuffBufferFromSum(const Eigen::VectorXd& sum,
                                 double totalWeight,
                                 uint32_t count,
                                 const ParamVector& base,
                                 double s);

/**
 * An asynchronous rule fed one arriving update at a time. The same object is driven by the
 * network strategies (FedAsyncStrategy, FedBuffStrategy) and by the in-process replay
 * (ReplayAsync), so that both compute the same numbers.
 */
class AsyncRule
{
  public:
    virtual ~AsyncRule() = default;
    /**
     * One arriving update.
     * @param local the client's trained model
     * @param base the global model it trained on (model version t - tau)
     * @param tau its staleness
     * @param global the current global model, changed in place when the rule commits
     * @param weightOut the weight the update got (alpha_t for FedAsync, s(tau) for FedBuff)
     * @return true if the global model changed (a new model version)
     */
    virtual bool Add(const ParamVector& local,
                     const ParamVector& base,
                     uint32_t tau,
                     ParamVector& global,
                     double& weightOut) = 0;
    /// Whether Add needs the base model (FedBuff: yes; FedAsync: no).
    virtual bool NeedsBase() const = 0;
};

/// FedAsync's settings (Xie et al. 2019): alpha in (0, 1], s and its a, b.
struct FedAsyncConfig
{
    double alpha{0.6};                                           ///< mixing hyper-parameter
    StalenessFunction function{StalenessFunction::Polynomial};  ///< s
    double a{0.5};                                               ///< a of s
    double b{4.0};                                               ///< b of the hinge
    /// Throws ConfigError naming the attribute and the fix.
    void Validate() const;
};

/// FedAsync as an AsyncRule: every update commits.
class FedAsyncRule : public AsyncRule
{
  public:
    explicit FedAsyncRule(FedAsyncConfig config);
    bool Add(const ParamVector& local,
             const ParamVector& base,
             uint32_t tau,
             ParamVector& global,
             double& weightOut) override;

    bool NeedsBase() const override
    {
        return false;
    }

  private:
    FedAsyncConfig m_config;
};

/// FedBuff's settings (Nguyen et al. 2022): buffer size K, server learning rate eta_g, s.
struct FedBuffConfig
{
    uint32_t bufferSize{10};                                    ///< K
    double serverLearningRate{1.0};                             ///< eta_g
    StalenessFunction function{StalenessFunction::Polynomial}; ///< s
    double a{0.5}; ///< a of s ((1 + tau)^-1/2, as in the paper's experiments)
    double b{4.0}; ///< b of the hinge
    /// Throws ConfigError naming the attribute and the fix.
    void Validate() const;
};

/// FedBuff as an AsyncRule: commits every K-th update.
class FedBuffRule : public AsyncRule
{
  public:
    explicit FedBuffRule(FedBuffConfig config);
    bool Add(const ParamVector& local,
             const ParamVector& base,
             uint32_t tau,
             ParamVector& global,
             double& weightOut) override;

    bool NeedsBase() const override
    {
        return true;
    }

    /// Updates in the buffer now.
    uint32_t Buffered() const
    {
        return m_count;
    }

  private:
    FedBuffConfig m_config;
    ParamVector m_buffer;
    uint32_t m_count{0};
};

/// One arrival of an asynchronous run.
struct AsyncArrival
{
    uint32_t client{0};       ///< client index
    uint32_t trainedOn{0};    ///< model version the client trained on (1 = the initial model)
};

/**
 * Replays an arrival sequence in process: version 1 is `initial`; each arrival's client trains
 * on the model of version `trainedOn` (train(client, version, model)), its staleness is the
 * current version minus trainedOn, and the rule updates the model; a commit makes the next
 * version. Returns the models of every version, initial first. Throws ConfigError for an
 * arrival that trained on a version that does not exist yet.
 */
std::vector<ParamVector> ReplayAsync(
    const ParamVector& initial,
    const std::vector<AsyncArrival>& arrivals,
    AsyncRule& rule,
    const std::function<ParamVector(uint32_t client, uint32_t version, const ParamVector& model)>&
        train);

} // namespace fl
} // namespace ns3

#endif // FL_ASYNC_FL_H
