/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Offline training of the learned EGA codec, Algorithm 1 of D. Zeng et al., "Encoded Gradients
 * Aggregation against Gradient Leakage in Federated Learning", arXiv:2205.13216, 2022 (pure; no
 * ns-3 header):
 * synthetic training and held-out sets of vectors drawn uniformly from Q_s^b = {-s, ..., s}^b
 * (10,000 m and 5,000 m vectors in the paper), taken in groups of m; the loss of a group is the
 * MSE of D_c((1/m) sum_i E_c(l_i)) against (1/m) sum_i l_i (Eq. 4; the mean, not Algorithm 1's
 * sum); Adam; after every epoch the held-out error is measured and the best encoder
 * and decoder pair is kept.
 *
 * Choices the paper leaves open (doc/fl-ega.rst, "EGA codec"): the uniform law over Q_s^b, a batch
 * of `batchGroups` groups per Adam step, Adam's learning rate with a cosine decay to
 * `finalLearningRateFactor` of it over the epochs, and the loss computed on l / s (the networks'
 * unit range; sigma is reported in quantised units).
 */
#ifndef FL_EGA_TRAINER_H
#define FL_EGA_TRAINER_H

#include "ns3/ega-mlp-codec.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ns3
{
namespace fl
{

/// Synthetic integer vectors of Q_s^b, one per column (|l| <= s <= 32767 fits int16).
using EgaIntMatrix = Eigen::Matrix<int16_t, Eigen::Dynamic, Eigen::Dynamic>;

/// Hyperparameters of Algorithm 1 (s and m are the codec's).
struct EgaTrainConfig
{
    uint32_t epochs = 60;         ///< T (the paper uses 100)
    uint32_t trainGroups = 10000; ///< groups of m training vectors (paper: 10,000 m vectors)
    uint32_t testGroups = 5000;   ///< held-out groups (paper: 5,000 m vectors)
    uint32_t batchGroups = 32;    ///< groups per Adam step
    double learningRate = 3e-3;   ///< Adam step size at the first epoch
    double finalLearningRateFactor = 0.05; ///< cosine decay to this fraction at the last epoch
    double beta1 = 0.9;                    ///< Adam first-moment decay
    double beta2 = 0.999;                  ///< Adam second-moment decay
    double epsilon = 1e-8;                 ///< Adam denominator offset
    uint64_t seed = 1;                     ///< data, shuffling (the weights come from the codec)

    /// Throws ConfigError naming the first bad field.
    void Validate() const;
};

/// One epoch of training, as passed to the progress callback.
struct EgaEpochReport
{
    uint32_t epoch;      ///< 1-based
    double trainLoss;    ///< mean batch loss (MSE on l / s)
    double heldOutSigma; ///< RMS error on the held-out set, quantised units
    bool best;           ///< this epoch's weights are the best so far (kept)
    double learningRate; ///< Adam step size used in this epoch
    double seconds;      ///< wall time since the start of training
};

/// Outcome of EgaTrainCodec.
struct EgaTrainResult
{
    double heldOutSigma; ///< best held-out sigma (the codec's weights are that epoch's)
    uint32_t bestEpoch;  ///< epoch of the best held-out sigma (0: the initial weights)
    double seconds;      ///< wall time of the whole training
    std::vector<EgaEpochReport> epochs;
};

/**
 * `groups` groups of m vectors drawn uniformly from {-s, ..., s}^b, one vector per column
 * (b x groups m, group g = columns g m .. g m + m - 1), as int16.
 */
EgaIntMatrix EgaSyntheticVectors(uint32_t b, uint32_t s, uint32_t m, uint32_t groups, Rng& rng);

/**
 * Loss and gradient of one batch, for training and the gradient check: `inputs` holds B groups of
 * m vectors on the networks' scale (l / s), one per column. Returns
 *   L = (1 / (B b)) sum_g || D(mean_{i in g} E(u_i)) - mean_{i in g} u_i ||^2
 * and *sets* gradEncoder, gradDecoder (sized like the codec's parameter vectors) to dL/dparams.
 * Throws ConfigError naming "inputs" if the shape does not fit.
 */
double EgaGroupLossAndGradient(const EgaMlpCodec& codec,
                               const Eigen::Ref<const Eigen::MatrixXd>& inputs,
                               Eigen::Ref<Eigen::VectorXd> gradEncoder,
                               Eigen::Ref<Eigen::VectorXd> gradDecoder);

/**
 * Held-out error of any codec on groups of m vectors (columns of `vectors`, quantised units):
 * the RMS over all groups and coordinates of D_c((1/m) sum_i E_c(l_i)) - (1/m) sum_i l_i. This
 * is the sigma of Theorem 1. `rng` feeds codecs whose decoding draws noise.
 */
double EgaCodecSigma(const EgaCodec& codec, const EgaIntMatrix& vectors, uint32_t m, Rng& rng);

/// Outcome of the curious-server probe on synthetic groups (EgaCodecProbeStats).
struct EgaProbeStats
{
    double relativeError; ///< sqrt(sum ||leak - l_0||^2 / sum ||l_0||^2) over the groups
    double cosine;        ///< mean cosine similarity of leak and l_0 over the groups
};

/**
 * The Eq. (2) probe in the quantised domain on groups of m vectors (columns of `vectors`): per
 * group, leak = m [D_c(mean_i E_c(l_i)) - D_c(mean_i E_c(l_i) + (E_c(0) - E_c(l_0)) / m)] is the
 * curious server's estimate of the group's first vector l_0. 0 and 1 for an exactly additive
 * codec; for independent decoding errors of RMS sigma the relative error is about
 * sqrt(2) m sigma / rms(l_0).
 */
EgaProbeStats EgaCodecProbeStats(const EgaCodec& codec,
                                 const EgaIntMatrix& vectors,
                                 uint32_t m,
                                 Rng& rng);

/**
 * The held-out set of a training configuration (regenerated from config.seed): the same vectors
 * EgaTrainCodec measures sigma on.
 */
EgaIntMatrix EgaHeldOutSet(const EgaMlpCodec& codec, const EgaTrainConfig& config);

/**
 * Algorithm 1: trains `codec` in place (its current weights are the initialisation) and leaves
 * the weights of the epoch with the lowest held-out sigma, which it also stores as the codec's
 * HeldOutSigma. `progress` (optional) is called after every epoch.
 */
EgaTrainResult EgaTrainCodec(EgaMlpCodec& codec,
                             const EgaTrainConfig& config,
                             const std::function<void(const EgaEpochReport&)>& progress = {});

} // namespace fl
} // namespace ns3

#endif // FL_EGA_TRAINER_H
