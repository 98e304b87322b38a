/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The GFL regression fixture shared by test-gfl (in process) and test-gfl-network: the
 * regression task of the GFL papers (dimension 2) with one data set per client, its ridge
 * optimum w°, and the three-server combination matrix of the hand cases.
 */
#ifndef FL_TEST_GFL_FIXTURE_H
#define FL_TEST_GFL_FIXTURE_H

#include "ns3/learning-task.h"
#include "ns3/linear-models.h"
#include "ns3/synthetic-data.h"

#include <initializer_list>
#include <memory>
#include <vector>

namespace fltest
{

/// A GFL regression task of P*K clients and its ridge optimum.
struct RegressionFixture
{
    std::shared_ptr<ns3::fl::SupervisedTask<double>> task; ///< ridge regression, M = 2
    Eigen::VectorXd wOpt;                                  ///< w° of the whole network
};

/// `agents` clients with `samples` samples each (MakeRegressionTask from Rng(seed)), ridge rho.
inline RegressionFixture
MakeRegressionFixture(std::size_t agents, std::size_t samples, double rho, uint64_t seed)
{
    using namespace ns3::fl;
    RegressionTaskConfig rc;
    rc.dim = 2;
    rc.agents = agents;
    rc.samplesPerAgent = samples;
    Rng rng(seed);
    auto data = MakeRegressionTask<double>(rc, rng);
    std::vector<Dataset<double>> parts;
    for (auto& a : data.agents)
    {
        parts.push_back(std::move(a.data));
    }
    std::vector<const Dataset<double>*> ptrs;
    for (const auto& p : parts)
    {
        ptrs.push_back(&p);
    }
    RegressionFixture f;
    f.wOpt = RidgeOptimum(ptrs, rho);
    f.task =
        std::make_shared<SupervisedTask<double>>(std::make_shared<RidgeRegression<double>>(2, rho),
                                                 LocalTrainerConfig{},
                                                 std::move(parts),
                                                 Dataset<double>{});
    return f;
}

/// The three-server combination matrix of the hand cases (symmetric, doubly stochastic).
inline Eigen::MatrixXd
ThreeServerCombination()
{
    Eigen::MatrixXd A(3, 3);
    A << 0.5, 0.25, 0.25, 0.25, 0.75, 0.0, 0.25, 0.0, 0.75;
    return A;
}

/// The double vector of a ParamVector.
inline const Eigen::VectorXd&
D(const ns3::fl::ParamVector& v)
{
    return v.Get<double>();
}

/// A vector of the given values.
inline Eigen::VectorXd
V(std::initializer_list<double> v)
{
    Eigen::VectorXd x(static_cast<Eigen::Index>(v.size()));
    Eigen::Index i = 0;
    for (double e : v)
    {
        x[i++] = e;
    }
    return x;
}

/// The three-server combination matrix of the hand cases.
inline Eigen::MatrixXd
HandA()
{
    return fltest::ThreeServerCombination();
}

} // namespace fltest

#endif // FL_TEST_GFL_FIXTURE_H
