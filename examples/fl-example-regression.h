/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The ridge regression of the decentralised examples (fl-ghp-moving, fl-gfl-handover): one
 * synthetic data set per learner (fl::MakeRegressionTask) and the network's optimum w°.
 */
#ifndef FL_EXAMPLE_REGRESSION_H
#define FL_EXAMPLE_REGRESSION_H

#include "ns3/learning-task.h"
#include "ns3/linear-models.h"
#include "ns3/synthetic-data.h"

#include <memory>
#include <utility>
#include <vector>

namespace ns3
{
namespace flexample
{

/**
 * A ridge regression (dimension `dim`, regulariser `rho`) over `learners` synthetic data sets of
 * `samples` samples each, drawn from fl::Rng(seed), and its optimum over all of them.
 */
inline std::pair<std::shared_ptr<fl::SupervisedTask<double>>, Eigen::VectorXd>
MakeRidgeTask(std::size_t learners, std::size_t samples, std::size_t dim, double rho, uint64_t seed)
{
    fl::RegressionTaskConfig rc;
    rc.dim = dim;
    rc.agents = learners;
    rc.samplesPerAgent = samples;
    fl::Rng rng(seed);
    auto data = fl::MakeRegressionTask<double>(rc, rng);
    std::vector<fl::Dataset<double>> parts;
    for (auto& a : data.agents)
    {
        parts.push_back(std::move(a.data));
    }
    std::vector<const fl::Dataset<double>*> ptrs;
    for (const auto& p : parts)
    {
        ptrs.push_back(&p);
    }
    Eigen::VectorXd wOpt = fl::RidgeOptimum(ptrs, rho);
    auto task = std::make_shared<fl::SupervisedTask<double>>(
        std::make_shared<fl::RidgeRegression<double>>(dim, rho),
        fl::LocalTrainerConfig{},
        std::move(parts),
        fl::Dataset<double>{});
    return {task, wOpt};
}

} // namespace flexample
} // namespace ns3

#endif // FL_EXAMPLE_REGRESSION_H
