/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * q-FFL as its authors define it (pure; no ns-3 header): T. Li, M. Sanjabi, A. Beirami,
 * V. Smith, "Fair Resource Allocation in Federated Learning", ICLR 2020, Algorithm 2
 * (q-FedAvg). In round t the server samples S_t with p_k = n_k / n; each selected client k
 * computes F_k(w^t), its loss at the model it received, runs its local updates to get w_bar_k
 * and, with L = 1/eta (eta the local learning rate),
 *   Delta_k = F_k^q(w^t) L (w^t - w_bar_k),
 *   h_k     = q F_k^(q-1)(w^t) ||L (w^t - w_bar_k)||^2 + L F_k^q(w^t);
 * the server applies w^{t+1} = w^t - sum_{k in S_t} Delta_k / sum_{k in S_t} h_k.
 * With q = 0: Delta_k = L (w^t - w_bar_k) and h_k = L, so w^{t+1} is the plain average of the
 * w_bar_k: FedAvg's step with clients sampled in proportion to n_k and averaged uniformly
 * (McMahan et al.'s FedAvg, as Algorithm 2's q = 0 case).
 *
 * Not to be confused with "loss-weighted FedAvg" (fl::UplinkClientWeight, the uplink codec's
 * LossWeightExponent): FedAvg's weights n_k times the mean training loss to the power q, which
 * the EGA paper uses as its "q-FedAvg" through the client importance lambda_i.
 */
#ifndef FL_QFFL_H
#define FL_QFFL_H

#include "ns3/learning-task.h"
#include "ns3/param-vector.h"

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <vector>

namespace ns3
{
namespace fl
{

/// What a q-FFL client sends (Algorithm 2): Delta_k and h_k.
struct QfflClientUpdate
{
    Eigen::VectorXd delta; ///< Delta_k = F_k^q L (w^t - w_bar_k)
    double h{0.0};         ///< h_k = q F_k^(q-1) ||L (w^t - w_bar_k)||^2 + L F_k^q
};

/**
 * A client's Delta_k and h_k from the model it received (`received` = w^t), its local result
 * (`local` = w_bar_k), its loss at the received model (`loss` = F_k(w^t)), q and L = 1/eta
 * (`lipschitz`). Throws ConfigError on mismatched sizes, q < 0, L <= 0, a negative or
 * non-finite loss, or a zero loss with 0 < q < 1 (F^(q-1) is then infinite).
 */
QfflClientUpdate QfflClientQuantities(const ParamVector& received,
                                      const ParamVector& local,
                                      double loss,
                                      double q,
                                      double lipschitz);

/**
 * The server step: global -= sum_k Delta_k / sum_k h_k, sums in the order given, in float64,
 * the result rounded to the model's precision. Throws ConfigError on no update, mismatched
 * sizes, or a sum of h that is not positive and finite.
 */
void QfflServerStep(ParamVector& global, const std::vector<const QfflClientUpdate*>& updates);

/**
 * The clients of round `round`: `count` of the eligible `clients` (0 or more than there are:
 * all), drawn without replacement with p_k proportional to `samples[k]` (WeightedSample-
 * WithoutReplacement) from Rng(QfflSamplingSeed(seed, round)). Returns them sorted ascending.
 */
std::vector<uint32_t> QfflSampleClients(const std::vector<uint32_t>& clients,
                                        const std::vector<double>& samples,
                                        std::size_t count,
                                        uint64_t seed,
                                        uint32_t round);

/// Seed of the sampling engine of `round` from the server's seed (its initial model's seed).
inline uint64_t
QfflSamplingSeed(uint64_t seed, uint32_t round)
{
    return DeriveSeed(seed, round, 0x9FF1);
}

/// The raw upload of a q-FFL client: h_k then Delta_k, float64 little-endian (8 (d + 1) bytes).
std::vector<uint8_t> PackQfflUpdate(const QfflClientUpdate& update);

/// Reads PackQfflUpdate's bytes for a model of d parameters; false if the size is wrong or a
/// value is not finite.
bool UnpackQfflUpdate(const std::vector<uint8_t>& bytes, std::size_t d, QfflClientUpdate& out);

/// The in-process q-FFL run (the network strategy pair's reference).
struct QfflReferenceConfig
{
    uint32_t rounds{1};                ///< rounds
    uint64_t initSeed{1};              ///< as FlServerApplication::InitSeed
    std::vector<uint64_t> clientSeeds; ///< as each FlClientApplication::TrainingSeed
    double q{1.0};                     ///< fairness exponent q >= 0
    uint32_t clientsPerRound{0};       ///< |S_t| (0 = every client)
    /// Called after every round (and with round 0 for the initial model).
    std::function<void(uint32_t round, const ParamVector& global)> onRound;
};

/**
 * Runs q-FFL in process: global model from task.InitialParameters(Rng(initSeed)); in round r
 * the clients QfflSampleClients(all, n_k, clientsPerRound, initSeed, r); client k computes
 * F_k = task.ClientLoss(k, w), trains with Rng(DeriveSeed(clientSeeds[k], r)) (as the default
 * client strategy), and QfflClientQuantities with L = 1 / the trainer's learning rate; the server
 * applies QfflServerStep in ascending client order. Returns the final model. Throws ConfigError
 * on a seed count that is not one per client, or a trainer whose step rule is not Fixed.
 */
ParamVector RunQfflReference(const LearningTask& task, const QfflReferenceConfig& config);

/// L = 1 / eta of a task's trainer; throws ConfigError unless its step rule is Fixed.
double QfflLipschitz(const LocalTrainerConfig& trainer);

} // namespace fl
} // namespace ns3

#endif // FL_QFFL_H
