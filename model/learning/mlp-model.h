/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A small multi-layer perceptron classifier.
 */
#ifndef FL_MLP_MODEL_H
#define FL_MLP_MODEL_H

#include "ns3/fl-model.h"

#include <vector>

namespace ns3
{
namespace fl
{

/// Hidden-layer activation of the MLP.
enum class Activation : uint8_t
{
    Relu = 0,
    Tanh = 1,
};

/**
 * Fully connected classifier: input -> hidden layers (ReLU or tanh) -> C logits, softmax
 * cross-entropy loss plus (l2/2) sum ||W_l||^2 (biases not regularised).
 * Layout of the flat vector, layer by layer: W_l (out x in, row-major), then b_l (out).
 * Initialisation: He (ReLU) or Glorot (tanh) uniform weights, zero biases.
 * The 784-128-10 network has 101,770 parameters.
 */
template <typename S>
class MlpClassifier : public Model<S>
{
  public:
    using typename Model<S>::MatRef;
    using typename Model<S>::VecRef;
    /// @param layers sizes input, hidden..., classes (at least 3 entries: one hidden layer)
    MlpClassifier(std::vector<std::size_t> layers, Activation activation, double l2);
    std::string Name() const override;
    std::size_t NumParameters() const override;
    std::size_t InputDim() const override;
    TargetKind Kind() const override;
    std::size_t NumOutputs() const override;
    Vec<S> InitialParameters(Rng& rng) const override;
    S Loss(const Vec<S>& w, const MatRef& X, const VecRef& y) const override;
    S LossAndGradient(const Vec<S>& w,
                      const MatRef& X,
                      const VecRef& y,
                      Vec<S>& grad) const override;
    Mat<S> Predict(const Vec<S>& w, const MatRef& X) const override;
    double FlopsPerSample() const override;

    /// Layer sizes (input first, classes last).
    const std::vector<std::size_t>& Layers() const
    {
        return m_layers;
    }

  private:
    std::vector<std::size_t> m_layers;
    Activation m_activation;
    double m_l2;
    std::size_t m_numParams;
    /// Activations and back-propagated deltas of one call, reused between calls.
    struct Scratch
    {
        std::vector<Mat<S>> act;
        std::vector<Mat<S>> delta;
    };

    /// The calling thread's scratch buffers (one per thread, so that clients train in parallel
    /// on one shared model), sized for this model's layers.
    Scratch& Buffers() const;
};

/**
 * Floating-point operations of the weight matrices for one training sample of an MLP with the
 * given layer sizes n_0 (input), n_1, ..., n_L: 2 per weight forward (multiply-add), 2 for its
 * gradient, and 2 to back-propagate the error to the layer below, which the first layer does not
 * need: 6 W - 2 W_1, with W = sum_l n_l n_{l-1} and W_1 = n_1 n_0. These are the GEMM FLOPs;
 * MlpClassifier::FlopsPerSample adds the per-unit work.
 * @param layers sizes input, hidden..., classes
 */
double MlpGemmFlopsPerSample(const std::vector<std::size_t>& layers);

} // namespace fl
} // namespace ns3

#endif // FL_MLP_MODEL_H
