/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/synthetic-data.h"

#include <cmath>

namespace ns3
{
namespace fl
{

namespace
{

/// Throws ConfigError unless `value` is finite and >= 0 (or > 0 when `strict`).
void
CheckNonNegative(const std::string& parameter, double value, bool strict, const std::string& fix)
{
    if (!std::isfinite(value) || value < 0.0 || (strict && value == 0.0))
    {
        throw ConfigError(parameter,
                          std::string("must be finite and ") +
                              (strict ? "positive" : "non-negative") + ", got " +
                              std::to_string(value),
                          fix);
    }
}

/// Throws ConfigError if `value` is zero.
void
CheckPositiveCount(const std::string& parameter, std::size_t value, const std::string& fix)
{
    if (value == 0)
    {
        throw ConfigError(parameter, "must be positive, got 0", fix);
    }
}

} // namespace

template <typename S>
RegressionTask<S>
MakeRegressionTask(const RegressionTaskConfig& config, Rng& rng)
{
    CheckPositiveCount("dim", config.dim, "use M >= 1 (the GFL paper uses M = 2)");
    CheckPositiveCount("agents", config.agents, "use at least one agent");
    CheckPositiveCount("samplesPerAgent",
                       config.samplesPerAgent,
                       "use N_k >= 1 (the GFL paper uses 100)");
    CheckNonNegative("covarianceScale",
                     config.covarianceScale,
                     true,
                     "use s > 0, e.g. 0.05 so that E[R_k] = s M I stays small");
    CheckNonNegative("noiseVarMin", config.noiseVarMin, false, "use a variance >= 0, e.g. 0.01");
    CheckNonNegative("noiseVarMax", config.noiseVarMax, false, "use a variance >= 0, e.g. 0.1");
    if (config.noiseVarMin > config.noiseVarMax)
    {
        throw ConfigError(
            "noiseVarMin",
            "lower end " + std::to_string(config.noiseVarMin) +
                " exceeds the upper end noiseVarMax = " + std::to_string(config.noiseVarMax),
            "make noiseVarMin <= noiseVarMax");
    }

    const auto m = static_cast<Eigen::Index>(config.dim);
    const auto n = static_cast<Eigen::Index>(config.samplesPerAgent);
    std::normal_distribution<double> normal(0.0, 1.0);

    RegressionTask<S> task;
    task.wStar.resize(m);
    for (Eigen::Index j = 0; j < m; ++j)
    {
        task.wStar[j] = normal(rng);
    }

    const double sqrtScale = std::sqrt(config.covarianceScale);
    task.agents.resize(config.agents);
    for (auto& agent : task.agents)
    {
        // R_k = s L L^T; u = sqrt(s) L z with z ~ N(0, I) has exactly this covariance.
        Eigen::MatrixXd l(m, m);
        for (Eigen::Index r = 0; r < m; ++r)
        {
            for (Eigen::Index c = 0; c < m; ++c)
            {
                l(r, c) = normal(rng);
            }
        }
        agent.covariance = config.covarianceScale * l * l.transpose();
        if (config.noiseVarMax > config.noiseVarMin)
        {
            std::uniform_real_distribution<double> uni(config.noiseVarMin, config.noiseVarMax);
            agent.noiseVariance = uni(rng);
        }
        else
        {
            agent.noiseVariance = config.noiseVarMin;
        }
        const double noiseStd = std::sqrt(agent.noiseVariance);

        Eigen::MatrixXd u(n, m);
        Eigen::VectorXd d(n);
        Eigen::VectorXd z(m);
        for (Eigen::Index i = 0; i < n; ++i)
        {
            for (Eigen::Index j = 0; j < m; ++j)
            {
                z[j] = normal(rng);
            }
            const Eigen::VectorXd ui = sqrtScale * (l * z);
            u.row(i) = ui.transpose();
            d[i] = ui.dot(task.wStar) + noiseStd * normal(rng);
        }
        agent.data.kind = TargetKind::Regression;
        agent.data.numClasses = 0;
        agent.data.features = u.cast<S>();
        agent.data.targets = d.cast<S>();
    }
    return task;
}

template <typename S>
Dataset<S>
MakeGaussianBinary(std::size_t samples,
                   const Eigen::VectorXd& mean,
                   double sigmaH2,
                   double positivePrior,
                   Rng& rng)
{
    CheckPositiveCount("samples", samples, "ask for at least one sample");
    if (mean.size() == 0 || !mean.allFinite())
    {
        throw ConfigError("mean",
                          "must be a finite vector of length M >= 1",
                          "pass the +1 class mean, e.g. ones(M) / sqrt(M)");
    }
    CheckNonNegative("sigmaH2", sigmaH2, true, "use a feature variance > 0 (the GHP paper uses 1)");
    if (!(positivePrior >= 0.0 && positivePrior <= 1.0))
    {
        throw ConfigError("positivePrior",
                          "must lie in [0, 1], got " + std::to_string(positivePrior),
                          "pass P(gamma = +1), e.g. 0.5");
    }

    const auto n = static_cast<Eigen::Index>(samples);
    const Eigen::Index m = mean.size();
    const double sigma = std::sqrt(sigmaH2);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_real_distribution<double> uni(0.0, 1.0);

    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> h(n, m);
    Eigen::VectorXd gamma(n);
    for (Eigen::Index i = 0; i < n; ++i)
    {
        const double g = uni(rng) < positivePrior ? 1.0 : -1.0;
        gamma[i] = g;
        for (Eigen::Index j = 0; j < m; ++j)
        {
            h(i, j) = g * mean[j] + sigma * normal(rng);
        }
    }
    Dataset<S> out;
    out.kind = TargetKind::BinarySigned;
    out.numClasses = 2;
    out.features = h.cast<S>();
    out.targets = gamma.cast<S>();
    return out;
}

Eigen::MatrixXd
MakeMixtureCentres(const GaussianMixtureConfig& config, Rng& rng)
{
    CheckPositiveCount("dim", config.dim, "use a feature dimension >= 1");
    if (config.classes < 2)
    {
        throw ConfigError("classes",
                          "must be at least 2, got " + std::to_string(config.classes),
                          "use two or more classes");
    }
    CheckNonNegative("separation",
                     config.separation,
                     false,
                     "use a centre spread >= 0, e.g. 1 (larger separates the classes more)");
    CheckPositiveCount("clustersPerClass",
                       config.clustersPerClass,
                       "use at least one cluster per class");
    const auto c = static_cast<Eigen::Index>(config.classes * config.clustersPerClass);
    const auto d = static_cast<Eigen::Index>(config.dim);
    std::normal_distribution<double> normal(0.0, 1.0);
    Eigen::MatrixXd centres(c, d);
    for (Eigen::Index k = 0; k < c; ++k)
    {
        for (Eigen::Index j = 0; j < d; ++j)
        {
            centres(k, j) = config.separation * normal(rng);
        }
    }
    return centres;
}

template <typename S>
Dataset<S>
SampleGaussianMixture(const Eigen::MatrixXd& centres,
                      std::size_t samples,
                      Rng& rng,
                      std::size_t classes)
{
    CheckPositiveCount("samples", samples, "ask for at least one sample");
    if (centres.rows() < 2 || centres.cols() < 1 || !centres.allFinite())
    {
        throw ConfigError("centres",
                          "need a finite classes x dim matrix with at least 2 classes and 1 "
                          "feature, got " +
                              std::to_string(centres.rows()) + " x " +
                              std::to_string(centres.cols()),
                          "pass the output of MakeMixtureCentres");
    }
    const auto numClasses = static_cast<Eigen::Index>(classes == 0 ? centres.rows() : classes);
    if (numClasses < 2 || numClasses > centres.rows())
    {
        throw ConfigError(
            "classes",
            std::to_string(classes) + " classes for " + std::to_string(centres.rows()) +
                " cluster centres",
            "pass the GaussianMixtureConfig's classes (at least 2, at most the rows)");
    }
    const auto n = static_cast<Eigen::Index>(samples);
    const Eigen::Index d = centres.cols();
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_int_distribution<Eigen::Index> pick(0, centres.rows() - 1);

    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> x(n, d);
    Eigen::VectorXd label(n);
    for (Eigen::Index i = 0; i < n; ++i)
    {
        const Eigen::Index c = pick(rng);
        label[i] = static_cast<double>(c % numClasses);
        for (Eigen::Index j = 0; j < d; ++j)
        {
            x(i, j) = centres(c, j) + normal(rng);
        }
    }
    Dataset<S> out;
    out.kind = TargetKind::Categorical;
    out.numClasses = static_cast<int>(numClasses);
    out.features = x.cast<S>();
    out.targets = label.cast<S>();
    return out;
}

#define FL_INSTANTIATE_SYNTHETIC(S)                                                                \
    template RegressionTask<S> MakeRegressionTask<S>(const RegressionTaskConfig&, Rng&);           \
    template Dataset<S> MakeGaussianBinary<S>(std::size_t,                                         \
                                              const Eigen::VectorXd&,                              \
                                              double,                                              \
                                              double,                                              \
                                              Rng&);                                               \
    template Dataset<S> SampleGaussianMixture<S>(const Eigen::MatrixXd&,                           \
                                                 std::size_t,                                      \
                                                 Rng&,                                             \
                                                 std::size_t);

FL_INSTANTIATE_SYNTHETIC(double)
FL_INSTANTIATE_SYNTHETIC(float)

} // namespace fl
} // namespace ns3
