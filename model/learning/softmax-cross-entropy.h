/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The softmax cross-entropy loss shared by the classifiers (softmax regression and the MLP).
 */
#ifndef FL_SOFTMAX_CROSS_ENTROPY_H
#define FL_SOFTMAX_CROSS_ENTROPY_H

#include "ns3/fl-types.h"

#include <cmath>
#include <string>

namespace ns3
{
namespace fl
{

/**
 * Class index stored in a categorical target.
 * @param target the stored label (a class index 0..C-1 held in the scalar type)
 * @param classes number of classes C
 * @return the label as an index
 * Throws ConfigError naming `targets` if the label is not in [0, C).
 */
template <typename S>
inline Eigen::Index
ClassIndex(S target, Eigen::Index classes)
{
    if (!(target >= S(0) && target < static_cast<S>(classes)))
    {
        throw ConfigError("targets",
                          "class label " + std::to_string(static_cast<double>(target)) +
                              " is not in [0, " + std::to_string(classes) + ")",
                          "store class indices 0..C-1 and build the model with C classes");
    }
    return static_cast<Eigen::Index>(target);
}

/**
 * Mean softmax cross-entropy of logits Z (n x C, one sample per row) against class indices y:
 * (1/n) sum_i [ln sum_c exp(z_ic) - z_{i,y_i}], computed with the row maximum subtracted so that
 * exp never overflows. If `gradient` is true, Z is overwritten with
 * dLoss/dZ = (softmax(Z) - onehot(y)) / n.
 *
 * Defined here (inline) so that each model's translation unit compiles it into its own loss.
 */
template <typename S>
inline S
SoftmaxCrossEntropy(Eigen::Ref<Mat<S>> Z, const Eigen::Ref<const Vec<S>>& y, bool gradient)
{
    const Eigen::Index n = Z.rows();
    const Eigen::Index classes = Z.cols();
    const S invN = S(1) / static_cast<S>(n);
    S loss(0);
    for (Eigen::Index i = 0; i < n; ++i)
    {
        auto z = Z.row(i);
        const Eigen::Index label = ClassIndex(y[i], classes);
        const S mx = z.maxCoeff();
        const S zy = z[label] - mx;
        if (!gradient)
        {
            loss += std::log((z.array() - mx).exp().sum()) - zy;
            continue;
        }
        z.array() = (z.array() - mx).exp();
        const S sum = z.sum();
        loss += std::log(sum) - zy;
        z *= invN / sum;
        z[label] -= invN;
    }
    return loss * invN;
}

} // namespace fl
} // namespace ns3

#endif // FL_SOFTMAX_CROSS_ENTROPY_H
