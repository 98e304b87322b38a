/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the secure-aggregation suites share: seeded random inputs.
 */
#ifndef FL_TEST_SECAGG_H
#define FL_TEST_SECAGG_H

#include "ns3/fl-types.h"
#include "ns3/secagg-config.h"
#include "ns3/secagg-protocol.h"

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

/// A run seed of 32 equal bytes b.
inline ns3::fl::SecAggRunSeed
Seed(uint8_t b)
{
    ns3::fl::SecAggRunSeed s;
    s.fill(b);
    return s;
}

/// A configuration of n clients (ids 10, 13, 16, ...), threshold t, dim values, 30 fraction bits.
inline ns3::fl::SecAggConfig
Config(uint32_t n, uint32_t t, std::size_t dim = 6)
{
    ns3::fl::SecAggConfig c;
    c.instance = 42;
    for (uint32_t i = 0; i < n; ++i)
    {
        c.clients.push_back(10 + 3 * i);
    }
    c.threshold = t;
    c.dim = dim;
    c.fractionBits = 30;
    return c;
}

} // namespace fltest

#endif // FL_TEST_SECAGG_H
