/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Metrics: loss, accuracy, mean-square deviation.
 */
#ifndef FL_METRICS_H
#define FL_METRICS_H

#include "ns3/fl-model.h"

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

} // namespace fl
} // namespace ns3

#endif // FL_METRICS_H
