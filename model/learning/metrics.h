/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Metrics: loss, accuracy, mean-square deviation.
 */
#ifndef FL_METRICS_H
#define FL_METRICS_H

#include "ns3/fl-model.h"

#include <vector>

namespace ns3
{
namespace fl
{

/// Loss and accuracy of a model on a data set.
struct Evaluation
{
    double loss{0.0};       ///< mean loss incl. regulariser
    double accuracy{0.0};   ///< fraction correct (NaN for regression)
    std::size_t samples{0}; ///< number of samples evaluated
};

/// Evaluates w on data (in chunks, so large test sets need no large temporaries).
template <typename S>
Evaluation Evaluate(const Model<S>& model, const Vec<S>& w, const Dataset<S>& data);

/// Fraction of rows whose predicted class (argmax, or sign for binary) equals the label.
template <typename S>
double Accuracy(const Model<S>& model, const Vec<S>& w, const Dataset<S>& data);

/// Mean-square deviation ||w - wOpt||^2 (computed in double).
template <typename S>
double Msd(const Vec<S>& w, const Eigen::VectorXd& wOpt);

/// 10 log10(x); -inf for x = 0.
double ToDb(double x);

/// The mean of repeated measurements and the half-width of its 95 % confidence interval.
struct MeanCi
{
    double mean{0.0};      ///< sample mean
    double halfWidth{0.0}; ///< t_{0.975, n-1} s / sqrt(n); NaN for n < 2
    std::size_t n{0};      ///< measurements
};

/**
 * Mean and Student-t 95 % confidence half-width t_{0.975, n-1} s / sqrt(n) (s: sample standard
 * deviation) of independent measurements, e.g. one per seed. Non-finite inputs give a
 * non-finite mean. n = 0: NaN mean.
 */
MeanCi MeanCi95(const std::vector<double>& xs);

/// The 0.975 quantile of Student's t with `dof` >= 1 degrees of freedom (exact table to 30,
/// then the Cornish-Fisher expansion; 1.96 in the limit).
double StudentT975(std::size_t dof);

} // namespace fl
} // namespace ns3

#endif // FL_METRICS_H
