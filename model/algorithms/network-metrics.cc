/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/network-metrics.h"

#include "ns3/fedavg.h"
#include "ns3/metrics.h"

namespace ns3
{
namespace fl
{

namespace
{
/// Throws ConfigError on an empty set of models.
template <typename S>
void
CheckNotEmpty(const std::vector<const Vec<S>*>& models)
{
    if (models.empty())
    {
        throw ConfigError("models", "no models", "measure at least one node's model");
    }
}
} // namespace

template <typename S>
Vec<S>
Centroid(const std::vector<const Vec<S>*>& models, const std::vector<double>& weights)
{
    CheckNotEmpty(models);
    // w_c = (1/N) sum_k w_k, or sum_k (p_k / sum_j p_j) w_k
    return WeightedAverage<S>(models,
                              weights.empty() ? std::vector<double>(models.size(), 1.0) : weights);
}

template <typename S>
double
MsdDb(const Vec<S>& w, const Eigen::VectorXd& wOpt)
{
    return ToDb(Msd<S>(w, wOpt)); // 10 log10 ||w - w_opt||^2
}

template <typename S>
double
AverageMsdDb(const std::vector<const Vec<S>*>& models, const Eigen::VectorXd& wOpt)
{
    CheckNotEmpty(models);
    double sum = 0.0;
    for (const auto* w : models)
    {
        sum += Msd<S>(*w, wOpt);
    }
    return ToDb(sum / static_cast<double>(models.size())); // 10 log10 (1/N) sum ||w_k - w_opt||^2
}

template <typename S>
double
Disagreement(const std::vector<const Vec<S>*>& models)
{
    const Eigen::VectorXd c = Centroid<S>(models).template cast<double>();
    double sum = 0.0;
    for (const auto* w : models)
    {
        sum += (w->template cast<double>() - c).squaredNorm();
    }
    return sum / static_cast<double>(models.size()); // (1/N) sum_k ||w_k - w_c||^2
}

#define FL_INSTANTIATE_NETWORK_METRICS(S)                                                          \
    template Vec<S> Centroid(const std::vector<const Vec<S>*>&, const std::vector<double>&);       \
    template double MsdDb(const Vec<S>&, const Eigen::VectorXd&);                                  \
    template double AverageMsdDb(const std::vector<const Vec<S>*>&, const Eigen::VectorXd&);       \
    template double Disagreement(const std::vector<const Vec<S>*>&);

FL_INSTANTIATE_NETWORK_METRICS(double)
FL_INSTANTIATE_NETWORK_METRICS(float)

} // namespace fl
} // namespace ns3
