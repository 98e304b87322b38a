/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/dataset.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ns3
{
namespace fl
{

Precision
ParsePrecision(const std::string& name, const std::string& parameter)
{
    if (name == "float64" || name == "double" || name == "f64")
    {
        return Precision::Float64;
    }
    if (name == "float32" || name == "float" || name == "f32")
    {
        return Precision::Float32;
    }
    throw ConfigError(parameter, "unknown precision '" + name + "'", "use float64 or float32");
}

template <typename S>
int
Dataset<S>::Label(std::size_t i) const
{
    const S t = targets[static_cast<Eigen::Index>(i)];
    if (kind == TargetKind::BinarySigned)
    {
        return t > 0 ? 1 : 0;
    }
    return static_cast<int>(std::lround(static_cast<double>(t)));
}

template <typename S>
Dataset<S>
Dataset<S>::Subset(const std::vector<std::size_t>& indices) const
{
    Dataset out;
    out.kind = kind;
    out.numClasses = numClasses;
    out.features.resize(static_cast<Eigen::Index>(indices.size()), features.cols());
    out.targets.resize(static_cast<Eigen::Index>(indices.size()));
    for (std::size_t r = 0; r < indices.size(); ++r)
    {
        if (indices[r] >= Size())
        {
            throw ConfigError("indices",
                              "index " + std::to_string(indices[r]) + " is out of range for " +
                                  std::to_string(Size()) + " samples",
                              "pass indices below the data set size");
        }
        const auto src = static_cast<Eigen::Index>(indices[r]);
        out.features.row(static_cast<Eigen::Index>(r)) = features.row(src);
        out.targets[static_cast<Eigen::Index>(r)] = targets[src];
    }
    return out;
}

template <typename S>
Dataset<S>
Dataset<S>::Slice(std::size_t begin, std::size_t count) const
{
    if (begin + count > Size())
    {
        throw ConfigError("count",
                          "slice [" + std::to_string(begin) + ", " + std::to_string(begin + count) +
                              ") exceeds " + std::to_string(Size()) + " samples",
                          "ask for fewer samples");
    }
    Dataset out;
    out.kind = kind;
    out.numClasses = numClasses;
    out.features =
        features.middleRows(static_cast<Eigen::Index>(begin), static_cast<Eigen::Index>(count));
    out.targets =
        targets.segment(static_cast<Eigen::Index>(begin), static_cast<Eigen::Index>(count));
    return out;
}

template <typename S>
void
Dataset<S>::Validate(const std::string& name) const
{
    if (features.rows() != targets.size())
    {
        throw ConfigError(name,
                          std::to_string(features.rows()) + " feature rows but " +
                              std::to_string(targets.size()) + " targets",
                          "give one target per sample");
    }
    if (!features.allFinite() || !targets.allFinite())
    {
        throw ConfigError(name, "contains NaN or infinite values", "clean the data");
    }
    for (Eigen::Index i = 0; i < targets.size(); ++i)
    {
        const double t = static_cast<double>(targets[i]);
        if (kind == TargetKind::BinarySigned && t != 1.0 && t != -1.0)
        {
            throw ConfigError(name,
                              "binary label " + std::to_string(t) + " at sample " +
                                  std::to_string(i) + " is not -1 or +1",
                              "map binary labels to {-1, +1}");
        }
        if (kind == TargetKind::Categorical && (t < 0 || t >= numClasses || t != std::floor(t)))
        {
            throw ConfigError(name,
                              "class label " + std::to_string(t) + " at sample " +
                                  std::to_string(i) + " is not an integer in [0, " +
                                  std::to_string(numClasses) + ")",
                              "set numClasses to the number of classes, labels 0..C-1");
        }
    }
}

template <typename S>
void
Normalizer<S>::Apply(Dataset<S>& data) const
{
    if (static_cast<std::size_t>(shift.size()) != data.Dim() ||
        static_cast<std::size_t>(scale.size()) != data.Dim())
    {
        throw ConfigError("normalizer",
                          "fitted for " + std::to_string(shift.size()) + " features, data has " +
                              std::to_string(data.Dim()),
                          "fit the normaliser on data of the same dimension");
    }
    data.features.rowwise() -= shift.transpose();
    data.features.array().rowwise() /= scale.transpose().array();
}

template <typename S>
Normalizer<S>
FitStandardizer(const Dataset<S>& data)
{
    Normalizer<S> n;
    const auto rows = static_cast<double>(std::max<std::size_t>(1, data.Size()));
    Eigen::VectorXd mean = data.features.template cast<double>().colwise().sum().transpose() / rows;
    Eigen::VectorXd var = (data.features.template cast<double>().rowwise() - mean.transpose())
                              .array()
                              .square()
                              .colwise()
                              .sum()
                              .transpose() /
                          rows;
    n.shift = mean.cast<S>();
    n.scale = var.array()
                  .sqrt()
                  .unaryExpr([](double s) { return s > 1e-12 ? s : 1.0; })
                  .template cast<S>();
    return n;
}

template <typename S>
Normalizer<S>
FitCentring(const Dataset<S>& data)
{
    Normalizer<S> n;
    const auto rows = static_cast<double>(std::max<std::size_t>(1, data.Size()));
    const Eigen::VectorXd mean =
        data.features.template cast<double>().colwise().sum().transpose() / rows;
    n.shift = mean.cast<S>();
    n.scale = Vec<S>::Ones(static_cast<Eigen::Index>(data.Dim()));
    return n;
}

template <typename S>
Normalizer<S>
ConstantNormalizer(const std::vector<double>& shift,
                   const std::vector<double>& scale,
                   std::size_t dim,
                   const std::string& shiftName,
                   const std::string& scaleName)
{
    const auto expand = [dim](const std::vector<double>& v, const std::string& name, bool scale) {
        if (v.size() != 1 && v.size() != dim)
        {
            throw ConfigError(name,
                              std::to_string(v.size()) + " values for " + std::to_string(dim) +
                                  " features",
                              "give one value for every feature or " + std::to_string(dim) +
                                  " values, one per feature");
        }
        Vec<S> out(static_cast<Eigen::Index>(dim));
        for (std::size_t j = 0; j < dim; ++j)
        {
            const double x = v.size() == 1 ? v[0] : v[j];
            if (!std::isfinite(x) || (scale && !(x > 0.0)))
            {
                throw ConfigError(name,
                                  "value " + std::to_string(x) + " of feature " +
                                      std::to_string(j),
                                  scale ? "use finite scales > 0" : "use finite shifts");
            }
            out[static_cast<Eigen::Index>(j)] = static_cast<S>(x);
        }
        return out;
    };
    Normalizer<S> n;
    n.shift = expand(shift, shiftName, false);
    n.scale = expand(scale, scaleName, true);
    return n;
}

FeatureScaling
ParseFeatureScaling(const std::string& name, const std::string& parameter)
{
    if (name == "none")
    {
        return FeatureScaling::None;
    }
    if (name == "centre")
    {
        return FeatureScaling::Centre;
    }
    if (name == "standardise")
    {
        return FeatureScaling::Standardise;
    }
    if (name == "public")
    {
        return FeatureScaling::Public;
    }
    throw ConfigError(parameter,
                      "'" + name + "' is not a preprocessing",
                      "use none, centre, standardise or public");
}

template <typename S>
void
StandardiseEachHolder(std::vector<Dataset<S>*> holders,
                      FeatureScaling mode,
                      const Normalizer<S>* constants)
{
    if (mode == FeatureScaling::Public && constants == nullptr)
    {
        throw ConfigError("constants",
                          "public preprocessing without constants",
                          "give the public shift and scale (ConstantNormalizer)");
    }
    for (Dataset<S>* data : holders)
    {
        if (data == nullptr || data->Size() == 0)
        {
            continue;
        }
        switch (mode)
        {
        case FeatureScaling::None:
            break;
        case FeatureScaling::Centre:
            FitCentring(*data).Apply(*data);
            break;
        case FeatureScaling::Standardise:
            FitStandardizer(*data).Apply(*data);
            break;
        case FeatureScaling::Public:
            constants->Apply(*data);
            break;
        }
    }
}

template <typename S>
Normalizer<S>
FitMinMax(const Dataset<S>& data)
{
    Normalizer<S> n;
    if (data.Size() == 0)
    {
        n.shift = Vec<S>::Zero(static_cast<Eigen::Index>(data.Dim()));
        n.scale = Vec<S>::Ones(static_cast<Eigen::Index>(data.Dim()));
        return n;
    }
    n.shift = data.features.colwise().minCoeff().transpose();
    Vec<S> range = data.features.colwise().maxCoeff().transpose() - n.shift;
    n.scale = range.unaryExpr([](S r) { return r > S(0) ? r : S(1); });
    return n;
}

template <typename S>
std::pair<Dataset<S>, Dataset<S>>
TrainTestSplit(const Dataset<S>& data, double testFraction, Rng& rng)
{
    if (!(testFraction > 0.0 && testFraction < 1.0))
    {
        throw ConfigError("testFraction",
                          "must lie in (0, 1), got " + std::to_string(testFraction),
                          "pass e.g. 0.2");
    }
    std::vector<std::size_t> idx(data.Size());
    std::iota(idx.begin(), idx.end(), 0);
    std::shuffle(idx.begin(), idx.end(), rng);
    const auto nTest = static_cast<std::size_t>(std::round(testFraction * data.Size()));
    std::vector<std::size_t> test(idx.begin(), idx.begin() + nTest);
    std::vector<std::size_t> train(idx.begin() + nTest, idx.end());
    return {data.Subset(train), data.Subset(test)};
}

template <typename S>
Dataset<S>
Concatenate(const std::vector<Dataset<S>>& parts)
{
    Dataset<S> out;
    if (parts.empty())
    {
        return out;
    }
    Eigen::Index rows = 0;
    for (const auto& p : parts)
    {
        if (p.Dim() != parts.front().Dim() || p.kind != parts.front().kind)
        {
            throw ConfigError("parts",
                              "data sets differ in dimension or target kind",
                              "concatenate only data sets of the same shape");
        }
        rows += static_cast<Eigen::Index>(p.Size());
    }
    out.kind = parts.front().kind;
    out.features.resize(rows, static_cast<Eigen::Index>(parts.front().Dim()));
    out.targets.resize(rows);
    Eigen::Index r = 0;
    for (const auto& p : parts)
    {
        const auto n = static_cast<Eigen::Index>(p.Size());
        out.features.middleRows(r, n) = p.features;
        out.targets.segment(r, n) = p.targets;
        out.numClasses = std::max(out.numClasses, p.numClasses);
        r += n;
    }
    return out;
}

#define FL_INSTANTIATE_DATASET(S)                                                                  \
    template struct Dataset<S>;                                                                    \
    template struct Normalizer<S>;                                                                 \
    template Normalizer<S> FitStandardizer(const Dataset<S>&);                                     \
    template Normalizer<S> FitMinMax(const Dataset<S>&);                                           \
    template Normalizer<S> FitCentring(const Dataset<S>&);                                         \
    template Normalizer<S> ConstantNormalizer(const std::vector<double>&,                          \
                                              const std::vector<double>&,                          \
                                              std::size_t,                                         \
                                              const std::string&,                                  \
                                              const std::string&);                                 \
    template void StandardiseEachHolder(std::vector<Dataset<S>*>,                                  \
                                        FeatureScaling,                                            \
                                        const Normalizer<S>*);                                     \
    template std::pair<Dataset<S>, Dataset<S>> TrainTestSplit(const Dataset<S>&, double, Rng&);    \
    template Dataset<S> Concatenate(const std::vector<Dataset<S>>&);

FL_INSTANTIATE_DATASET(double)
FL_INSTANTIATE_DATASET(float)

} // namespace fl
} // namespace ns3
