/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The Model seam: a learning model as a function of a flat parameter vector.
 */
#ifndef FL_MODEL_H
#define FL_MODEL_H

#include "ns3/dataset.h"

#include <memory>
#include <string>

namespace ns3
{
namespace fl
{

/**
 * A learning model with a flat parameter vector w (Eigen). Models are stateless with respect to
 * w: every call takes the parameters, so one model object serves every client and the server.
 *
 * Losses are means over the rows of X plus the model's regulariser, so that a full-batch
 * gradient is the gradient of the empirical risk. Implementations must be safe to call from one
 * thread at a time (they may keep scratch buffers).
 */
template <typename S>
class Model
{
  public:
    using Scalar = S;
    using MatRef = Eigen::Ref<const Mat<S>>;
    using VecRef = Eigen::Ref<const Vec<S>>;

    virtual ~Model() = default;

    /// Short name, e.g. "ridge", "logistic", "softmax", "mlp-784-128-10".
    virtual std::string Name() const = 0;
    /// Length of the flat parameter vector.
    virtual std::size_t NumParameters() const = 0;
    /// Expected feature dimension.
    virtual std::size_t InputDim() const = 0;
    /// Target kind the model expects (Regression, BinarySigned or Categorical).
    virtual TargetKind Kind() const = 0;
    /// Number of outputs per sample (1 for ridge/logistic, C for softmax/MLP).
    virtual std::size_t NumOutputs() const = 0;
    /// Initial parameters (zeros for convex models; scaled random weights for an MLP).
    virtual Vec<S> InitialParameters(Rng& rng) const = 0;
    /// Mean loss over the rows of X, plus regulariser.
    virtual S Loss(const Vec<S>& w, const MatRef& X, const VecRef& y) const = 0;
    /**
     * Mean loss and its gradient with respect to w. `grad` is resized to NumParameters().
     * @return the loss (same value as Loss())
     */
    virtual S LossAndGradient(const Vec<S>& w,
                              const MatRef& X,
                              const VecRef& y,
                              Vec<S>& grad) const = 0;
    /**
     * Output scores, n x NumOutputs(): regression values, binary scores h^T w (sign = class),
     * or class logits (argmax = class).
     */
    virtual Mat<S> Predict(const Vec<S>& w, const MatRef& X) const = 0;
    /// Floating-point operations of one forward + backward pass for one sample (compute model).
    virtual double FlopsPerSample() const = 0;
};

/**
 * Creates a model from a short specification:
 *  "ridge:rho=0.1", "logistic:rho=0.1", "softmax:l2=1e-4", "mlp:hidden=128,l2=0" or
 *  "mlp:hidden=256-64,activation=tanh". The input dimension and class count come from the data.
 * Throws ConfigError naming `model` on an unknown name or option.
 */
template <typename S>
std::shared_ptr<Model<S>> MakeModel(const std::string& spec,
                                    std::size_t inputDim,
                                    std::size_t numClasses);

} // namespace fl
} // namespace ns3

#endif // FL_MODEL_H
