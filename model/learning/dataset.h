/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A supervised data set: features (one sample per row) and targets.
 */
#ifndef FL_DATASET_H
#define FL_DATASET_H

#include "ns3/fl-types.h"

#include <vector>

namespace ns3
{
namespace fl
{

/// What the targets of a data set mean.
enum class TargetKind : uint8_t
{
    Regression = 0,   ///< real-valued targets
    BinarySigned = 1, ///< labels in {-1, +1} (logistic regression as in GHP)
    Categorical = 2,  ///< class indices 0 .. numClasses-1, stored as scalars
};

/**
 * A supervised data set held in memory.
 *
 * Features are a row-major n x d matrix (one sample per row, contiguous), targets a vector of
 * n scalars whose meaning is given by `kind`.
 */
template <typename S>
struct Dataset
{
    Mat<S> features;                         ///< n x d
    Vec<S> targets;                          ///< n
    TargetKind kind{TargetKind::Regression}; ///< meaning of the targets
    int numClasses{0};                       ///< classes (Categorical: C; BinarySigned: 2)

    /// Number of samples.
    std::size_t Size() const
    {
        return static_cast<std::size_t>(features.rows());
    }

    /// Feature dimension.
    std::size_t Dim() const
    {
        return static_cast<std::size_t>(features.cols());
    }

    /// Class index (0..C-1) of sample i; BinarySigned maps -1 to 0 and +1 to 1.
    int Label(std::size_t i) const;

    /// Rows `indices`, in that order (a copy).
    Dataset Subset(const std::vector<std::size_t>& indices) const;

    /// Rows [begin, begin + count) (a copy).
    Dataset Slice(std::size_t begin, std::size_t count) const;

    /// The same data in another scalar type.
    template <typename T>
    Dataset<T> Cast() const
    {
        Dataset<T> out;
        out.features = features.template cast<T>();
        out.targets = targets.template cast<T>();
        out.kind = kind;
        out.numClasses = numClasses;
        return out;
    }

    /// Throws ConfigError unless features/targets sizes agree and labels are valid for `kind`.
    void Validate(const std::string& name) const;
};

/// Per-feature affine normalisation x' = (x - shift) / scale.
template <typename S>
struct Normalizer
{
    Vec<S> shift; ///< per-feature shift (mean, or min)
    Vec<S> scale; ///< per-feature scale (std, or range), never zero

    /// Applies the normalisation in place.
    void Apply(Dataset<S>& data) const;
};

/// Fits a z-score normaliser (mean 0, std 1 per feature; constant features keep scale 1).
template <typename S>
Normalizer<S> FitStandardizer(const Dataset<S>& data);

/// Fits a min-max normaliser to [0, 1] (constant features keep scale 1).
template <typename S>
Normalizer<S> FitMinMax(const Dataset<S>& data);

/**
 * Splits a data set into a shuffled train part and test part.
 * @param testFraction fraction in (0, 1) of samples that go to the test part
 */
template <typename S>
std::pair<Dataset<S>, Dataset<S>> TrainTestSplit(const Dataset<S>& data,
                                                 double testFraction,
                                                 Rng& rng);

/// Concatenates data sets with the same dimension and target kind.
template <typename S>
Dataset<S> Concatenate(const std::vector<Dataset<S>>& parts);

} // namespace fl
} // namespace ns3

#endif // FL_DATASET_H
