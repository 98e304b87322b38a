/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the GFL and GHP network suites share: the checks that a network run reported and
 * computed what the in-process run did, bit for bit.
 */
#ifndef FL_TEST_GFL_NETWORK_H
#define FL_TEST_GFL_NETWORK_H

#include "ns3/diffusion.h"
#include "ns3/param-vector.h"

#include <cmath>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace fltest
{

/// The network run's per-iteration reports equal the in-process run's (NaN equals NaN).
inline void
ExpectSameReports(const std::vector<ns3::fl::NetworkIterationReport>& net,
                  const std::vector<ns3::fl::NetworkIterationReport>& ref)
{
    ASSERT_EQ(net.size(), ref.size());
    auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
    for (std::size_t i = 0; i < ref.size(); ++i)
    {
        SCOPED_TRACE("iteration " + std::to_string(i));
        EXPECT_EQ(net[i].iteration, ref[i].iteration);
        EXPECT_TRUE(same(net[i].centroidDrift, ref[i].centroidDrift))
            << net[i].centroidDrift << " vs " << ref[i].centroidDrift;
        EXPECT_TRUE(same(net[i].disagreement, ref[i].disagreement));
        EXPECT_TRUE(same(net[i].centroidMsd, ref[i].centroidMsd));
        EXPECT_TRUE(same(net[i].averageMsd, ref[i].averageMsd));
        EXPECT_TRUE(same(net[i].epsilonOneLink, ref[i].epsilonOneLink));
        EXPECT_TRUE(same(net[i].epsilonNeighbour, ref[i].epsilonNeighbour));
        EXPECT_TRUE(same(net[i].epsilonAllLinks, ref[i].epsilonAllLinks));
        EXPECT_EQ(net[i].lostMessages, ref[i].lostMessages);
        EXPECT_EQ(net[i].droppedClients, ref[i].droppedClients);
    }
}

/// Every node's model of every iteration equals, coordinate by coordinate.
inline void
ExpectBitForBit(const std::vector<std::vector<ns3::fl::ParamVector>>& a,
                const std::vector<std::vector<ns3::fl::ParamVector>>& b)
{
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
    {
        ASSERT_EQ(a[i].size(), b[i].size());
        for (std::size_t p = 0; p < a[i].size(); ++p)
        {
            const Eigen::VectorXd& x = a[i][p].Get<double>();
            const Eigen::VectorXd& y = b[i][p].Get<double>();
            ASSERT_EQ(x.size(), y.size());
            for (Eigen::Index j = 0; j < x.size(); ++j)
            {
                EXPECT_EQ(x[j], y[j]) << "iteration " << i << " node " << p << " coordinate " << j;
            }
        }
    }
}

} // namespace fltest

#endif // FL_TEST_GFL_NETWORK_H
