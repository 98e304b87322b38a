/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the secure-aggregation suites share: seeded random inputs.
 */
#ifndef FL_TEST_SECAGG_H
#define FL_TEST_SECAGG_H

#include "ns3/fl-types.h"

#include <Eigen/Dense>
#include <random>
#include <vector>

namespace fltest
{

/// n inputs of d values, uniform in [-3, 3), drawn from `seed`.
inline std::vector<Eigen::VectorXd>
SecAggInputs(std::size_t n, std::size_t d, uint64_t seed)
{
    ns3::fl::Rng rng(seed);
    std::uniform_real_distribution<double> u(-3.0, 3.0);
    std::vector<Eigen::VectorXd> x(n, Eigen::VectorXd(static_cast<Eigen::Index>(d)));
    for (auto& v : x)
    {
        for (auto& e : v)
        {
            e = u(rng);
        }
    }
    return x;
}

} // namespace fltest

#endif // FL_TEST_SECAGG_H
