/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The LocalTrainer seam: E local steps of mini-batch SGD on a client's data.
 */
#ifndef FL_LOCAL_TRAINER_H
#define FL_LOCAL_TRAINER_H

#include "ns3/fl-model.h"

#include <memory>
#include <vector>

namespace ns3
{
namespace fl
{

/// How the SGD step size is chosen.
enum class StepRule : uint8_t
{
    Fixed = 0,         ///< every step uses learningRate
    DividedBySteps = 1 ///< every step uses learningRate / E (GFL: mu / E_{p,k}, eq. (3))
};

/**
 * A term added to every mini-batch gradient of local training, after clipping and the proximal
 * term: an algorithm's gradient correction (SCAFFOLD's c - c_i, Karimireddy et al., ICML 2020,
 * Algorithm 1 line 10) or a regulariser's gradient. Called with the iterate w before the step,
 * the start of the training and the gradient to change in place; it must be deterministic and
 * safe to call from the training pool's threads (read-only state).
 */
class GradientHook
{
  public:
    virtual ~GradientHook() = default;
    /// Adds the hook's term to `grad` at iterate `w` (float64 training).
    virtual void Apply(const Vec<double>& w, const Vec<double>& start, Vec<double>& grad) const = 0;
    /// Adds the hook's term to `grad` at iterate `w` (float32 training).
    virtual void Apply(const Vec<float>& w, const Vec<float>& start, Vec<float>& grad) const = 0;
};

/**
 * The gradient hook grad += shift with a fixed vector (SCAFFOLD's correction c - c_i), held in
 * float64 and converted once to the training's precision.
 */
class GradientShift : public GradientHook
{
  public:
    /// The shift (its size must be the model's).
    explicit GradientShift(Vec<double> shift);
    void Apply(const Vec<double>& w, const Vec<double>& start, Vec<double>& grad) const override;
    void Apply(const Vec<float>& w, const Vec<float>& start, Vec<float>& grad) const override;

  private:
    Vec<double> m_shift;
    Vec<float> m_shiftF;
};

/// Configuration of local training.
struct LocalTrainerConfig
{
    std::size_t localSteps{1};          ///< E, used when localEpochs == 0
    double localEpochs{0.0};            ///< if > 0: E = ceil(localEpochs * n / batchSize)
    std::size_t batchSize{32};          ///< mini-batch size B (0 = full batch)
    StepRule stepRule{StepRule::Fixed}; ///< see StepRule
    double learningRate{0.05};          ///< learning rate, or mu under DividedBySteps
    double clipNorm{0.0};               ///< clip each mini-batch gradient to this L2 norm (0 = off)
    double proxMu{0.0}; ///< FedProx: adds proxMu * (w - w_start) to the gradient (0 = off)
    /// Added to every mini-batch gradient after clipping and proxMu (null = none)
    std::shared_ptr<const GradientHook> gradientHook;

    /// Throws ConfigError naming the offending field.
    void Validate() const;
    /// Number of steps E for a data set of n samples.
    std::size_t StepsFor(std::size_t n) const;
};

/**
 * What a local training run will report, known before it runs: the number of steps and the
 * samples processed depend only on the configuration and the size of the data set, and the
 * FLOPs on those and the model (not on the data or the random numbers).
 */
struct TrainingPlan
{
    std::size_t steps{0};            ///< E
    std::size_t samplesProcessed{0}; ///< sum of batch sizes over the steps
    double flops{0.0};               ///< samplesProcessed x the model's FLOPs per sample
};

/**
 * The steps and samples a LocalTrainer with `config` reports for a data set of n samples (its
 * LocalResult's steps and samplesProcessed, exactly), with flops = samples x flopsPerSample.
 */
TrainingPlan PlanTraining(const LocalTrainerConfig& config,
                          std::size_t n,
                          double flopsPerSample = 0.0);

/// Result of one local training run.
template <typename S>
struct LocalResult
{
    Vec<S> params;                   ///< w after E steps
    Vec<S> update;                   ///< params - start
    std::size_t steps{0};            ///< E
    std::size_t samplesProcessed{0}; ///< sum of batch sizes over the steps
    double meanLoss{0.0};            ///< mean mini-batch loss over the steps (before each step)
};

/**
 * Runs E steps of mini-batch SGD from `start` on `data`:
 *   w_e = w_{e-1} - eta (clip(grad_batch(w_{e-1})) + proxMu (w_{e-1} - start) + h(w_{e-1}))
 * with h the configuration's gradient hook (0 if none).
 * Mini-batches walk through a shuffled permutation of the data (reshuffled after each pass), so
 * each epoch sees every sample once. All randomness comes from `rng`; the same rng state gives
 * bit-identical results. No allocation per step beyond the first.
 */
template <typename S>
class LocalTrainer
{
  public:
    explicit LocalTrainer(LocalTrainerConfig config);

    const LocalTrainerConfig& Config() const
    {
        return m_config;
    }

    LocalResult<S> Train(const Model<S>& model,
                         const Vec<S>& start,
                         const Dataset<S>& data,
                         Rng& rng) const;

    /**
     * The same training with the result written into `w` (resized; its storage is reused when
     * it already has the model's size): w becomes Train(...).params, bit for bit. The returned
     * result has empty params and update (no vector of the model's size is allocated: the
     * gradient lives in a workspace of the trainer, so a trainer must not be used by two threads
     * at once, as for the models' own workspaces).
     */
    LocalResult<S> TrainInto(const Model<S>& model,
                             const Vec<S>& start,
                             const Dataset<S>& data,
                             Rng& rng,
                             Vec<S>& w) const;

  private:
    /// Workspaces of one training run, reused between runs of the same thread (one per
    /// thread, so that clients sharing a trainer train in parallel).
    struct Workspace
    {
        Vec<S> grad;                   ///< gradient
        Mat<S> batchX;                 ///< mini-batch features
        Vec<S> batchY;                 ///< mini-batch targets
        std::vector<std::size_t> perm; ///< sample permutation
    };

    /// The calling thread's workspace.
    static Workspace& Buffers();

    LocalTrainerConfig m_config;
};

/// Scales g in place so that ||g|| <= clipNorm (no-op if clipNorm <= 0). Returns the factor.
template <typename S>
S ClipToNorm(Vec<S>& g, double clipNorm);

} // namespace fl
} // namespace ns3

#endif // FL_LOCAL_TRAINER_H
