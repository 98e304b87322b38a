/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A small learning task shared by the network tests: 4-class Gaussian mixture, unequal client
 * sizes (so that the FedAvg sample weights matter), a few SGD steps per round.
 */
#ifndef FL_TEST_TASK_H
#define FL_TEST_TASK_H

#include "ns3/learning-task.h"
#include "ns3/partition.h"
#include "ns3/synthetic-data.h"

#include <memory>
#include <string>

namespace fltest
{

using namespace ns3;

/// The local training of MakeTask: batch 8, learning rate 0.1, 5 steps.
inline fl::LocalTrainerConfig
TestTrainer()
{
    fl::LocalTrainerConfig tc;
    tc.batchSize = 8;
    tc.learningRate = 0.1;
    tc.localSteps = 5;
    return tc;
}

template <typename S>
std::shared_ptr<fl::SupervisedTask<S>>
MakeTask(std::size_t clients,
         const std::string& modelSpec,
         std::size_t dim = 8,
         fl::LocalTrainerConfig tc = TestTrainer())
{
    fl::Rng rng(42);
    fl::GaussianMixtureConfig cfg;
    cfg.dim = dim;
    cfg.classes = 4;
    cfg.separation = 1.0;
    const Eigen::MatrixXd centres = fl::MakeMixtureCentres(cfg, rng);
    fl::Dataset<S> train = fl::SampleGaussianMixture<S>(centres, clients * 60, rng);
    fl::Dataset<S> test = fl::SampleGaussianMixture<S>(centres, 200, rng);
    // Unequal client sizes so that the sample weighting matters.
    fl::Partition part = fl::PartitionUnequal(train.Size(), clients, 0.8, 10, rng);
    std::vector<fl::Dataset<S>> parts;
    for (const auto& p : part)
    {
        parts.push_back(train.Subset(p));
    }
    auto model = fl::MakeModel<S>(modelSpec, train.Dim(), 4);
    return std::make_shared<fl::SupervisedTask<S>>(model, tc, std::move(parts), std::move(test));
}

} // namespace fltest

#endif // FL_TEST_TASK_H
