/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A supervised data set: features (one sample per row) and targets.
 */
#ifndef FL_DATASET_H
#define FL_DATASET_H

#include "ns3/fl-types.h"

#include <string>
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

/// Fits a centring normaliser: per-feature mean as the shift, scale 1 (x' = x - mean).
template <typename S>
Normalizer<S> FitCentring(const Dataset<S>& data);

/**
 * A normaliser from public constants (known before any data is seen, so that applying it leaks
 * nothing): `shift` and `scale` hold one value for every feature or one value per feature.
 * Throws ConfigError naming `shiftName` or `scaleName` on a list of another length, a
 * non-finite value or a scale that is not positive.
 */
template <typename S>
Normalizer<S> ConstantNormalizer(const std::vector<double>& shift,
                                 const std::vector<double>& scale,
                                 std::size_t dim,
                                 const std::string& shiftName = "shift",
                                 const std::string& scaleName = "scale");

/// How every data holder's features are preprocessed before learning.
enum class FeatureScaling : uint8_t
{
    None = 0,        ///< the features as read
    Centre = 1,      ///< x - mean, the mean fitted on the holder's own data (FitCentring)
    Standardise = 2, ///< (x - mean) / std, fitted on the holder's own data (FitStandardizer)
    Public = 3,      ///< (x - shift) / scale with public constants (ConstantNormalizer)
};

/// Parses none, centre, standardise or public; throws ConfigError naming `parameter`.
FeatureScaling ParseFeatureScaling(const std::string& name, const std::string& parameter);

/**
 * Preprocesses each holder's data set in place: with Centre and Standardise the normaliser of
 * holder k is fitted on holders[k] alone, never on data pooled across holders (a pooled mean
 * would carry every client's data into every other client's inputs); with Public every holder
 * applies `constants`. Holders are the clients, and the evaluator's test set is one more
 * holder. An empty holder is left as it is. Throws ConfigError if Public comes without
 * constants or with constants of another dimension.
 */
template <typename S>
void StandardiseEachHolder(std::vector<Dataset<S>*> holders,
                           FeatureScaling mode,
                           const Normalizer<S>* constants = nullptr);

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
