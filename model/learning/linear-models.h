/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Convex models: ridge regression, binary logistic regression, multinomial softmax regression.
 */
#ifndef FL_LINEAR_MODELS_H
#define FL_LINEAR_MODELS_H

#include "ns3/fl-model.h"

#include <vector>

namespace ns3
{
namespace fl
{

/**
 * What ridge and logistic regression share: parameters w in R^M (no intercept; append a constant
 * feature if one is wanted), one score u^T w per sample, zero initial parameters and a
 * regulariser weight rho >= 0. Subclasses give the loss and its gradient.
 */
template <typename S>
class LinearScoreModel : public Model<S>
{
  public:
    using typename Model<S>::MatRef;
    using typename Model<S>::VecRef;
    std::string Name() const override;
    std::size_t NumParameters() const override;
    std::size_t InputDim() const override;
    TargetKind Kind() const override;
    std::size_t NumOutputs() const override;
    /// Zeros.
    Vec<S> InitialParameters(Rng& rng) const override;
    /// Scores X w (n x 1).
    Mat<S> Predict(const Vec<S>& w, const MatRef& X) const override;

    /// Regulariser rho.
    double Rho() const
    {
        return m_rho;
    }

  protected:
    /**
     * @param name short model name
     * @param kind target kind the model expects
     * @param dim feature dimension M > 0
     * @param rho regulariser rho >= 0
     * Throws ConfigError naming `dim` or `rho` if they are out of range.
     */
    LinearScoreModel(std::string name, TargetKind kind, std::size_t dim, double rho);

    /// Throws ConfigError unless w and X (and y, if given) have the sizes this model expects.
    void CheckSizes(const Vec<S>& w, const MatRef& X, const VecRef* y) const;

  private:
    std::string m_name;
    TargetKind m_kind;
    std::size_t m_dim;
    double m_rho;
};

/**
 * Ridge regression in the GFL convention (E. Rizk, S. Vlaski, A. H. Sayed, "Privatized Graph
 * Federated Learning", arXiv:2203.07105, 2022, eq. (54)):
 * J(w) = (1/N) sum_n (d_n - u_n^T w)^2 + rho ||w||^2, gradient (2/N) sum u (u^T w - d) + 2 rho w.
 * No intercept (append a constant feature if one is wanted). Parameters: w in R^M.
 */
template <typename S>
class RidgeRegression : public LinearScoreModel<S>
{
  public:
    using typename Model<S>::MatRef;
    using typename Model<S>::VecRef;
    /// @param rho regulariser rho >= 0
    RidgeRegression(std::size_t dim, double rho);
    S Loss(const Vec<S>& w, const MatRef& X, const VecRef& y) const override;
    S LossAndGradient(const Vec<S>& w,
                      const MatRef& X,
                      const VecRef& y,
                      Vec<S>& grad) const override;
    double FlopsPerSample() const override;
};

/**
 * Closed-form optimum of the ridge risk averaged over several data sets with equal weight
 * (the GFL preprint, eqs. (55)-(57)): w° = (avg_k R̂_k + rho I)^{-1} avg_k r̂_k,
 * R̂_k = (1/N_k) sum u u^T, r̂_k = (1/N_k) sum d u. Computed in double.
 */
template <typename S>
Eigen::VectorXd RidgeOptimum(const std::vector<const Dataset<S>*>& parts, double rho);

/**
 * Binary logistic regression with labels in {-1, +1} (S. Vlaski, A. H. Sayed, "Graph-Homomorphic
 * Perturbations for Private Decentralized Learning", ICASSP 2021, eq. (32)):
 * J(w) = (1/N) sum ln(1 + exp(-gamma h^T w)) + (rho/2) ||w||^2. No intercept.
 */
template <typename S>
class LogisticRegression : public LinearScoreModel<S>
{
  public:
    using typename Model<S>::MatRef;
    using typename Model<S>::VecRef;
    /// @param rho regulariser rho >= 0
    LogisticRegression(std::size_t dim, double rho);
    S Loss(const Vec<S>& w, const MatRef& X, const VecRef& y) const override;
    S LossAndGradient(const Vec<S>& w,
                      const MatRef& X,
                      const VecRef& y,
                      Vec<S>& grad) const override;
    double FlopsPerSample() const override;
};

/**
 * Minimises the logistic risk over a data set to high accuracy with Newton's method
 * (double precision); used as the reference optimum w° in tests and examples.
 */
template <typename S>
Eigen::VectorXd LogisticOptimum(const Dataset<S>& data, double rho, int maxIterations = 100);

/**
 * Multinomial softmax regression with C classes: logits z = W x + b, cross-entropy loss,
 * plus (l2/2) ||W||^2 (biases are not regularised). Layout: W (C x d, row-major), then b (C).
 */
template <typename S>
class SoftmaxRegression : public Model<S>
{
  public:
    using typename Model<S>::MatRef;
    using typename Model<S>::VecRef;
    SoftmaxRegression(std::size_t dim, std::size_t classes, double l2);
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

  private:
    std::size_t m_dim;
    std::size_t m_classes;
    double m_l2;
};

} // namespace fl
} // namespace ns3

#endif // FL_LINEAR_MODELS_H
