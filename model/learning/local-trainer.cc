/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/local-trainer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace ns3
{
namespace fl
{

void
LocalTrainerConfig::Validate() const
{
    if (!(learningRate > 0.0) || !std::isfinite(learningRate))
    {
        throw ConfigError("learningRate",
                          "must be a finite number > 0, got " + std::to_string(learningRate),
                          "pass e.g. learningRate=0.05");
    }
    if (!(localEpochs >= 0.0) || !std::isfinite(localEpochs))
    {
        throw ConfigError("localEpochs",
                          "must be a finite number >= 0, got " + std::to_string(localEpochs),
                          "pass e.g. localEpochs=1, or 0 to use localSteps");
    }
    if (localEpochs == 0.0 && localSteps == 0)
    {
        throw ConfigError("localSteps",
                          "must be >= 1 when localEpochs is 0",
                          "pass e.g. localSteps=5, or set localEpochs > 0");
    }
    if (!(clipNorm >= 0.0) || !std::isfinite(clipNorm))
    {
        throw ConfigError("clipNorm",
                          "must be a finite number >= 0, got " + std::to_string(clipNorm),
                          "pass e.g. clipNorm=1, or 0 to switch clipping off");
    }
    if (!(proxMu >= 0.0) || !std::isfinite(proxMu))
    {
        throw ConfigError("proxMu",
                          "must be a finite number >= 0, got " + std::to_string(proxMu),
                          "pass e.g. proxMu=0.01, or 0 for plain FedAvg");
    }
    if (proxMu > 0.0 && learningRate * proxMu >= 2.0)
    {
        // The explicit proximal step multiplies (w - w_start) by (1 - lr * proxMu) each step.
        throw ConfigError("proxMu",
                          "learningRate x proxMu = " + std::to_string(learningRate * proxMu) +
                              " >= 2 makes the proximal step diverge",
                          "keep learningRate x proxMu below 2 (typically proxMu <= 1)");
    }
    if (stepRule != StepRule::Fixed && stepRule != StepRule::DividedBySteps)
    {
        throw ConfigError("stepRule", "unknown step rule", "use Fixed or DividedBySteps");
    }
}

std::size_t
LocalTrainerConfig::StepsFor(std::size_t n) const
{
    if (n == 0)
    {
        return 0;
    }
    if (localEpochs > 0.0)
    {
        // The effective batch never exceeds the data set (batchSize 0 = full batch).
        const std::size_t batch = batchSize == 0 ? n : std::min(batchSize, n);
        const double steps =
            std::ceil(localEpochs * static_cast<double>(n) / static_cast<double>(batch) - 1e-9);
        return std::max<std::size_t>(1, static_cast<std::size_t>(steps));
    }
    return localSteps;
}

TrainingPlan
PlanTraining(const LocalTrainerConfig& config, std::size_t n, double flopsPerSample)
{
    TrainingPlan plan;
    plan.steps = config.StepsFor(n);
    if (plan.steps == 0)
    {
        return plan; // Train returns before its first step
    }
    const std::size_t batch = config.batchSize == 0 ? n : std::min(config.batchSize, n);
    plan.samplesProcessed = plan.steps * batch;
    plan.flops = static_cast<double>(plan.samplesProcessed) * flopsPerSample;
    return plan;
}

template <typename S>
LocalTrainer<S>::LocalTrainer(LocalTrainerConfig config)
    : m_config(config)
{
    m_config.Validate();
}

template <typename S>
LocalResult<S>
LocalTrainer<S>::Train(const Model<S>& model,
                       const Vec<S>& start,
                       const Dataset<S>& data,
                       Rng& rng) const
{
    Vec<S> w;
    LocalResult<S> result = TrainInto(model, start, data, rng, w);
    result.update = w - start;
    result.params = std::move(w);
    return result;
}

template <typename S>
typename LocalTrainer<S>::Workspace&
LocalTrainer<S>::Buffers()
{
    thread_local Workspace ws;
    return ws;
}

template <typename S>
LocalResult<S>
LocalTrainer<S>::TrainInto(const Model<S>& model,
                           const Vec<S>& start,
                           const Dataset<S>& data,
                           Rng& rng,
                           Vec<S>& w) const
{
    if (static_cast<std::size_t>(start.size()) != model.NumParameters())
    {
        throw ConfigError("start",
                          "has " + std::to_string(start.size()) + " entries but " + model.Name() +
                              " has " + std::to_string(model.NumParameters()) + " parameters",
                          "start from a parameter vector of this model");
    }
    if (data.Size() > 0 && data.Dim() != model.InputDim())
    {
        throw ConfigError("data",
                          "has " + std::to_string(data.Dim()) + " features but " + model.Name() +
                              " expects " + std::to_string(model.InputDim()),
                          "build the model with the data set's dimension");
    }

    const std::size_t n = data.Size();
    LocalResult<S> result;
    w = start; // reuses w's storage when it has the right size
    result.steps = m_config.StepsFor(n);
    if (result.steps == 0)
    {
        return result;
    }

    const std::size_t batch = m_config.batchSize == 0 ? n : std::min(m_config.batchSize, n);
    const bool fullBatch = batch == n;
    const double eta = m_config.stepRule == StepRule::DividedBySteps
                           ? m_config.learningRate / static_cast<double>(result.steps)
                           : m_config.learningRate;
    const S etaS = static_cast<S>(eta);
    const S proxMu = static_cast<S>(m_config.proxMu);
    const GradientHook* hook = m_config.gradientHook.get();

    Workspace& ws = Buffers();
    Vec<S>& grad = ws.grad;
    grad.resize(start.size());
    double lossSum = 0.0;

    if (fullBatch)
    {
        // Every step sees the whole data set in its stored order: no shuffling, no copies, and
        // no random numbers drawn.
        for (std::size_t e = 0; e < result.steps; ++e)
        {
            lossSum +=
                static_cast<double>(model.LossAndGradient(w, data.features, data.targets, grad));
            ClipToNorm(grad, m_config.clipNorm);
            if (m_config.proxMu > 0.0)
            {
                grad += proxMu * (w - start);
            }
            if (hook)
            {
                hook->Apply(w, start, grad);
            }
            w -= etaS * grad;
        }
    }
    else
    {
        // Mini-batches of exactly `batch` rows taken in order from a shuffled permutation. When
        // the permutation runs out (also in the middle of a batch) it is reshuffled and the walk
        // restarts, so every pass over the data sees each sample once and E * B samples are
        // processed in total (as tf.data's shuffle-repeat-batch).
        std::vector<std::size_t>& perm = ws.perm;
        perm.resize(n);
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
        std::size_t pos = 0;
        const auto B = static_cast<Eigen::Index>(batch);
        Mat<S>& batchX = ws.batchX;
        Vec<S>& batchY = ws.batchY;
        batchX.resize(B, data.features.cols());
        batchY.resize(B);
        for (std::size_t e = 0; e < result.steps; ++e)
        {
            for (Eigen::Index r = 0; r < B; ++r)
            {
                if (pos == n)
                {
                    std::shuffle(perm.begin(), perm.end(), rng);
                    pos = 0;
                }
                const auto src = static_cast<Eigen::Index>(perm[pos++]);
                batchX.row(r) = data.features.row(src);
                batchY[r] = data.targets[src];
            }
            lossSum += static_cast<double>(model.LossAndGradient(w, batchX, batchY, grad));
            ClipToNorm(grad, m_config.clipNorm);
            if (m_config.proxMu > 0.0)
            {
                grad += proxMu * (w - start);
            }
            if (hook)
            {
                hook->Apply(w, start, grad);
            }
            w -= etaS * grad;
        }
    }

    result.samplesProcessed = result.steps * batch;
    result.meanLoss = lossSum / static_cast<double>(result.steps);
    return result;
}

GradientShift::GradientShift(Vec<double> shift)
    : m_shift(std::move(shift)),
      m_shiftF(m_shift.cast<float>())
{
}

void
GradientShift::Apply(const Vec<double>& /* w */,
                     const Vec<double>& /* start */,
                     Vec<double>& grad) const
{
    if (grad.size() != m_shift.size())
    {
        throw ConfigError("gradientHook",
                          "a shift of " + std::to_string(m_shift.size()) + " values for a model of " +
                              std::to_string(grad.size()),
                          "give the shift the model's size");
    }
    grad += m_shift;
}

void
GradientShift::Apply(const Vec<float>& /* w */, const Vec<float>& /* start */, Vec<float>& grad) const
{
    if (grad.size() != m_shiftF.size())
    {
        throw ConfigError("gradientHook",
                          "a shift of " + std::to_string(m_shiftF.size()) +
                              " values for a model of " + std::to_string(grad.size()),
                          "give the shift the model's size");
    }
    grad += m_shiftF;
}

template <typename S>
S
ClipToNorm(Vec<S>& g, double clipNorm)
{
    if (clipNorm <= 0.0)
    {
        return S(1);
    }
    const double norm = std::sqrt(g.template cast<double>().squaredNorm());
    if (!(norm > clipNorm) || !std::isfinite(norm))
    {
        return S(1);
    }
    const auto factor = static_cast<S>(clipNorm / norm);
    g *= factor;
    return factor;
}

template class LocalTrainer<double>;
template class LocalTrainer<float>;
template double ClipToNorm(Vec<double>&, double);
template float ClipToNorm(Vec<float>&, double);

} // namespace fl
} // namespace ns3
