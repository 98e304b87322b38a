/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The experiments of EGA (D. Zeng, S. Liu, S. Liang, Z. Li, H. Wang, I. King, Z. Xu, "Encoded
 * Gradients Aggregation against Gradient Leakage in Federated Learning", arXiv:2205.13216, 2022)
 * as library parts a user's own script calls (pure, no ns-3 header):
 *
 *   - MakeEgaTask: Table 2's task, softmax regression on Fashion-MNIST (or synthetic data), label
 *     shards (2 per client);
 *   - MakeEgaSettings: FedAvg and EGA 1x, 2x, 4x, 8x (b = 32, h = 32, 16, 8, 4) with the learned
 *     codecs of a folder, or the Gaussian surrogate with the measured sigma (Table 2, Fig. 5);
 *   - EgaCodesBytes, EgaUplinkBytesPerClientRound: the codes' payload and a client's uplink bytes;
 *   - EgaClientSeeds, RunFedAvgToTarget: Table 2's protocol, rounds until a target accuracy;
 *   - UniformClientSampler: k of n clients per round, the same for every setting;
 *   - Float64UplinkCodec: plain FedAvg through the uplink-codec seam (exact, float64);
 *   - RunEgaLeakage: the curious server's input reconstruction (gradient-leakage.h) from a
 *     victim's raw single-sample update against its Eq. (2) estimate under EGA, scored by PSNR.
 */
#ifndef FL_EGA_EXPERIMENT_H
#define FL_EGA_EXPERIMENT_H

#include "ns3/ega-codec.h"
#include "ns3/fedavg-reference.h"
#include "ns3/learning-task.h"
#include "ns3/uplink-codec.h"

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace fl
{

/**
 * Table 2's task: softmax regression (L2 1e-4) on Fashion-MNIST read from `fashionMnistDir` (the
 * 60,000 training images, the first 2,000 test images), or with an empty `fashionMnistDir` on a
 * synthetic Gaussian mixture (16 features, 10 classes, separation 1.5, 40 samples per client, 500
 * test); label shards, 2 per client (PartitionShards); local SGD batch 32, learning rate 0.05, 1
 * epoch, FedProx term `proxMu`. All randomness from Rng(seed).
 */
std::shared_ptr<SupervisedTask<double>> MakeEgaTask(const std::string& fashionMnistDir,
                                                    uint32_t clients,
                                                    uint64_t seed,
                                                    double proxMu = 0.0);

/// One setting of the EGA experiments: compression b/h and its codec (none for FedAvg).
struct EgaSetting
{
    std::string name;                      ///< "fedavg", "ega-1x", "ega-2x", ...
    uint32_t compression{0};               ///< b/h; 0 = FedAvg (no codec)
    std::shared_ptr<const EgaCodec> codec; ///< null for FedAvg
    double sigma{0.0};                     ///< the codec's error sigma (quantised units)
    std::string source;                    ///< the codec's file, "gaussian-surrogate" or "none"
};

/**
 * FedAvg, then EGA 1x, 2x, 4x, 8x (b = 32, h = 32 / c). A setting uses the learned codec
 * `codecDir`/ega-default-codec.bin (1x) or `codecDir`/ega-b32-h<h>-codec.bin when the file exists,
 * `surrogateOnly` is false and the codec was trained for m clients and level s; otherwise an
 * EgaGaussianCodec with the measured sigma (EgaLookupSigma(32, h, 64, 10); outside the table
 * 11.74 sqrt(1 - h/b), the 8x extrapolation).
 */
std::vector<EgaSetting> MakeEgaSettings(const std::string& codecDir,
                                        bool surrogateOnly,
                                        uint32_t m,
                                        uint32_t s);

/// Payload bytes of one client's codes for d parameters: 4 ceil(d/32) (32/compression).
uint64_t EgaCodesBytes(uint64_t d, uint32_t compression);

/**
 * Uplink bytes of one client in one round over the model-message transport (MessageHeader::kSize
 * = H per message): FedAvg (compression 0) one float32 model, H + 4 d; EGA the phase-1 report (a
 * 16-byte payload) and the codes, (H + 16) + (H + EgaCodesBytes(d, compression)).
 */
uint64_t EgaUplinkBytesPerClientRound(uint64_t d, uint32_t compression);

/// The n clients' training seeds: DeriveSeed(seed, k, 0xC1), k = 0 .. n-1.
std::vector<uint64_t> EgaClientSeeds(uint64_t seed, uint32_t n);

/// What RunFedAvgToTarget found.
struct RoundsToTarget
{
    double best{0.0};    ///< best test accuracy of the rounds run
    uint32_t reached{0}; ///< first round r > 0 with accuracy >= target (0: not reached / no stop)
};

/**
 * RunFedAvgReference(task, config) with the test accuracy of the global model after every round r
 * (r = 0: the initial model) passed to onAccuracy(r, accuracy, best so far); with stopAtTarget the
 * run stops after the first round r > 0 whose accuracy >= target. config.onRound is replaced.
 */
RoundsToTarget RunFedAvgToTarget(const LearningTask& task,
                                 FedAvgReferenceConfig config,
                                 double target,
                                 bool stopAtTarget,
                                 const std::function<void(uint32_t, double, double)>& onAccuracy);

/**
 * k of n clients per round, uniformly, sorted: shuffle 0..n-1 with Rng(DeriveSeed(seed, round,
 * 0x5A)) and keep the first min(k, n). A FedAvgReferenceConfig::select.
 */
std::function<std::vector<uint32_t>(uint32_t)> UniformClientSampler(uint32_t n,
                                                                    uint32_t k,
                                                                    uint64_t seed);

/**
 * Plain FedAvg through the uplink-codec seam: each client sends (w_i / W) update_i as float64
 * (PackF64), the server sums them: exactly the weighted mean, for runners that take a codec.
 */
class Float64UplinkCodec : public UplinkCodec
{
  public:
    std::string Name() const override;
    UplinkRoundParams Agree(const std::vector<UplinkReport>& reports) const override;
    std::vector<uint8_t> Encode(const ParamVector& update,
                                const UplinkRoundParams& params,
                                uint32_t client,
                                double weight,
                                Rng& rng) const override;
    std::unique_ptr<UplinkAggregator> Begin(const UplinkRoundParams& params,
                                            std::size_t parameters,
                                            Precision precision) const override;
};

/**
 * The curious server's Eq. (2) estimate of client `victim`'s update in one EGA round of
 * `updates` (weights 1, all clients heard): phase 1 and 2 of EgaUplinkCodec with client i encoding
 * with Rng(DeriveSeed(seed, trial, i)) and the server finishing with Rng(DeriveSeed(seed, trial,
 * 0xDD)).
 */
Eigen::VectorXd EgaProbeEstimate(const std::shared_ptr<const EgaCodec>& codec,
                                 uint32_t s,
                                 const std::vector<Eigen::VectorXd>& updates,
                                 uint32_t victim,
                                 uint64_t seed,
                                 uint64_t trial);

/// The leakage experiment's inputs.
struct EgaLeakageConfig
{
    std::vector<Eigen::VectorXd> images; ///< inputs in [0, 1], side x side each
    std::vector<int> labels;             ///< their classes
    int side{8};                         ///< image side
    Eigen::MatrixXd W;                   ///< softmax regression weights (C x side^2)
    Eigen::VectorXd bias;                ///< its bias (C)
    uint32_t clients{10};                ///< clients per round (the codecs' m)
    double learningRate{0.1};            ///< update = -learningRate x gradient
    uint32_t trials{3};                  ///< victims
    uint32_t s{64};                      ///< quantisation level
    uint64_t seed{1};                    ///< encoder and decoder seeds
    /// the settings attacked under EGA: name and codec
    std::vector<std::pair<std::string, std::shared_ptr<const EgaCodec>>> cases;
};

/// One victim under one setting ("raw": the update itself, the relative error and cosine 0).
struct EgaLeakageRecord
{
    uint32_t trial{0};
    std::string setting;
    double psnr{0.0};          ///< dB, reconstruction against the victim's image
    double relativeError{0.0}; ///< estimate against the victim's update (EGA settings)
    double cosine{0.0};
    Eigen::VectorXd reconstruction;
};

/// What RunEgaLeakage found.
struct EgaLeakageResult
{
    /// per trial: "raw" first, then the cases in their order
    std::vector<EgaLeakageRecord> records;
    /// mean PSNR per setting, sorted by setting name
    std::vector<std::pair<std::string, double>> meanPsnr;
};

/**
 * The leakage experiment: in trial t client i's update is -lr SoftmaxSingleSampleGradient of image
 * (t m + i) mod |images|; the victim is client 0. "raw" reconstructs its image from its update,
 * each case from EgaProbeEstimate(case codec, s, updates, 0, seed, t).
 */
EgaLeakageResult RunEgaLeakage(const EgaLeakageConfig& config);

/// Appends the rows of `data` (images flattened row-major) and their labels to `c`.
void AppendDatasetImages(const Dataset<double>& data, EgaLeakageConfig& c);

/**
 * The attacked model of `c`: W (classes x side^2) with N(0, stddev^2) entries drawn from `rng` in
 * storage (column-major) order, bias 0.
 */
void InitLeakageModel(EgaLeakageConfig& c, int classes, double stddev, Rng& rng);

/**
 * Synthetic side x side images: count diagonal stripe patterns (pixel k of image i is on when
 * (row + column + i) mod 4 < 2, with value 0.1 + 0.9 U(0, 1)), labels i mod 10.
 */
void MakeStripeImages(int count,
                      int side,
                      Rng& rng,
                      std::vector<Eigen::VectorXd>& images,
                      std::vector<int>& labels);

} // namespace fl
} // namespace ns3

#endif // FL_EGA_EXPERIMENT_H
