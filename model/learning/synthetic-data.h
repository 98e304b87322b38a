/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Synthetic data generators matching the settings of the seed papers.
 */
#ifndef FL_SYNTHETIC_DATA_H
#define FL_SYNTHETIC_DATA_H

#include "ns3/dataset.h"

#include <vector>

namespace ns3
{
namespace fl
{

/**
 * Streaming linear regression of GFL (E. Rizk, S. Vlaski, A. H. Sayed, "Privatized Graph Federated
 * Learning", arXiv:2203.07105, 2022, Section V-A; journal version Section 5.1):
 * d = u^T w* + v, u ~ N(0, R_k) with a random covariance per agent R_k = s L L^T
 * (L an M x M standard Gaussian matrix, s = covarianceScale), v ~ N(0, sigma_v,k^2) with
 * sigma_v,k^2 ~ U[noiseVarMin, noiseVarMax] per agent. w* ~ N(0, I) is shared by all agents.
 */
struct RegressionTaskConfig
{
    std::size_t dim{2};               ///< M
    std::size_t agents{10};           ///< number of agents (data sets)
    std::size_t samplesPerAgent{100}; ///< N_k
    double covarianceScale{0.05};     ///< s in R_k = s L L^T
    double noiseVarMin{0.01};         ///< lower end of sigma_v^2
    double noiseVarMax{0.1};          ///< upper end of sigma_v^2
};

/// One agent's regression data plus the generating parameters (for closed-form checks).
template <typename S>
struct RegressionAgentData
{
    Dataset<S> data;            ///< samples (TargetKind::Regression)
    Eigen::MatrixXd covariance; ///< R_k
    double noiseVariance{0.0};  ///< sigma_v,k^2
};

/// Output of the GFL regression generator.
template <typename S>
struct RegressionTask
{
    Eigen::VectorXd wStar;                      ///< generating model w*
    std::vector<RegressionAgentData<S>> agents; ///< one entry per agent
};

/// Draws a GFL-style regression task; validates the configuration (ConfigError).
template <typename S>
RegressionTask<S> MakeRegressionTask(const RegressionTaskConfig& config, Rng& rng);

/**
 * Binary Gaussian class-conditional data of GHP (S. Vlaski, A. H. Sayed, "Graph-Homomorphic
 * Perturbations for Private Decentralized Learning", ICASSP 2021, Section 4):
 * gamma in {-1,+1} with P(+1) = positivePrior, h | gamma ~ N(gamma * mean, sigmaH2 * I).
 * `mean` has length M (the +1 class mean; the -1 class mean is its negative).
 */
template <typename S>
Dataset<S> MakeGaussianBinary(std::size_t samples,
                              const Eigen::VectorXd& mean,
                              double sigmaH2,
                              double positivePrior,
                              Rng& rng);

/**
 * Gaussian mixture for multi-class demos: classes x clustersPerClass cluster centres drawn once
 * from N(0, separation^2 I) (returned by MakeMixtureCentres so that train and test share them;
 * row r belongs to class r mod classes), samples x | cluster ~ N(centre, I), clusters
 * equiprobable. With clustersPerClass > 1 the classes are not linearly separable, so a linear
 * model saturates early and an MLP keeps improving.
 */
struct GaussianMixtureConfig
{
    std::size_t dim{20};             ///< feature dimension
    std::size_t classes{10};         ///< number of classes
    double separation{1.0};          ///< std of the cluster centres around the origin
    std::size_t clustersPerClass{1}; ///< Gaussian clusters per class
};

/// Draws the cluster centres of a Gaussian mixture ((classes x clustersPerClass) x dim).
Eigen::MatrixXd MakeMixtureCentres(const GaussianMixtureConfig& config, Rng& rng);

/**
 * Draws `samples` labelled points from a Gaussian mixture with the given cluster centres.
 * @param classes number of classes; cluster row r has label r mod classes (0 = one class per row)
 */
template <typename S>
Dataset<S> SampleGaussianMixture(const Eigen::MatrixXd& centres,
                                 std::size_t samples,
                                 Rng& rng,
                                 std::size_t classes = 0);

} // namespace fl
} // namespace ns3

#endif // FL_SYNTHETIC_DATA_H
