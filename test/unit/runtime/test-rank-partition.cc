/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * One GFL simulation across MPI ranks, the pure part: which rank simulates which server, and
 * the model reports packed for the gather to rank 0. The distributed runs themselves (1, 2 and
 * 4 ranks, the same CSV bytes) are utils/test-mpi.sh, run by ctest where an MPI tree is built.
 */
#include "ns3/fl-types.h"
#include "ns3/rank-partition.h"

#include <gtest/gtest.h>
#include <limits>

using namespace ns3::fl;

TEST(RankPartition, BlockKeepsNeighbouringServersTogether)
{
    // rank r holds floor(r P / R) .. floor((r + 1) P / R) - 1: P = 10, R = 4 -> 0-1, 2-4, 5-6, 7-9
    EXPECT_EQ(PartitionServers(10, 4, "block"),
              (std::vector<uint32_t>{0, 0, 1, 1, 1, 2, 2, 3, 3, 3}));
    EXPECT_EQ(PartitionServers(10, 2, "block"),
              (std::vector<uint32_t>{0, 0, 0, 0, 0, 1, 1, 1, 1, 1}));
    EXPECT_EQ(PartitionServers(3, 1, "block"), (std::vector<uint32_t>{0, 0, 0}));
    EXPECT_EQ(PartitionServers(3, 3, "block"), (std::vector<uint32_t>{0, 1, 2}));
}

TEST(RankPartition, RoundRobinDealsServersInTurn)
{
    EXPECT_EQ(PartitionServers(10, 4, "round-robin"),
              (std::vector<uint32_t>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1}));
    EXPECT_EQ(PartitionServers(5, 1, "round-robin"), (std::vector<uint32_t>{0, 0, 0, 0, 0}));
}

TEST(RankPartition, EveryRankGetsFloorOrCeilOfTheServers)
{
    for (uint32_t P : {1u, 7u, 10u, 64u})
    {
        for (uint32_t R = 1; R <= P; ++R)
        {
            for (const char* scheme : {"block", "round-robin"})
            {
                const auto rank = PartitionServers(P, R, scheme);
                std::vector<uint32_t> count(R, 0);
                for (uint32_t r : rank)
                {
                    ASSERT_LT(r, R);
                    ++count[r];
                }
                for (uint32_t n : count)
                {
                    EXPECT_TRUE(n == P / R || n == (P + R - 1) / R)
                        << scheme << " P " << P << " R " << R;
                }
            }
        }
    }
}

TEST(RankPartition, RejectsMoreRanksThanServersAndUnknownPlacements)
{
    try
    {
        PartitionServers(3, 4, "block");
        FAIL() << "4 ranks for 3 servers accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Parameter(), "ranks");
        EXPECT_NE(std::string(e.what()).find("1 to 3 ranks"), std::string::npos) << e.what();
    }
    EXPECT_THROW(PartitionServers(3, 0, "block"), ConfigError);
    try
    {
        PartitionServers(3, 2, "random");
        FAIL() << "an unknown placement accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Parameter(), "placement");
    }
}

TEST(RankPartition, PackedReportsComeBackExactly)
{
    RankModelReport a;
    a.round = 3;
    a.node = 7;
    a.role = 0;
    a.timeS = 0.225059295123;
    a.model = {1.0 / 3.0, -2.5e-300, 7.0};
    RankModelReport b;
    b.round = 4294967295u;
    b.node = 0;
    b.role = 2;
    b.float32 = true;
    b.timeS = 12.5;
    b.model = {static_cast<double>(0.1f)};
    b.countsBytes = true;
    b.bytesSent = (uint64_t{1} << 53) - 1; // the largest count exact in a double
    b.bytesReceived = 123456789;
    // the network view's fields: a GFL server's psi, missing messages and dropped clients
    b.graphIndex = 9;
    b.missingNeighbours = 2;
    b.droppedClients = 4294967295u;
    b.hasAggregate = true;
    b.aggregateFloat32 = true;
    b.aggregate = {static_cast<double>(-0.3f), 2.0};
    RankModelReport empty;
    const auto packed = PackModelReports({a, b, empty});
    // [round, node, role, float32, time, countsBytes, bytesSent, bytesReceived, graphIndex,
    //  missingNeighbours, droppedClients, hasAggregate, aggregateFloat32, n, m, values...]
    // per report: 15 + 3, 15 + 1 + 2, 15 values
    ASSERT_EQ(kPackedReportHeader, 15u);
    ASSERT_EQ(packed.size(), 51u);
    EXPECT_EQ(packed[0], 3.0);
    EXPECT_EQ(packed[1], 7.0);
    EXPECT_EQ(packed[5], 0.0);      // a counts no bytes
    EXPECT_EQ(packed[11], 0.0);     // a has no aggregate
    EXPECT_EQ(packed[13], 3.0);     // a's model size
    EXPECT_EQ(packed[14], 0.0);     // a's aggregate size
    EXPECT_EQ(packed[18 + 3], 1.0); // b.float32
    EXPECT_EQ(packed[18 + 5], 1.0); // b.countsBytes
    EXPECT_EQ(packed[18 + 6], 9007199254740991.0);
    EXPECT_EQ(packed[18 + 7], 123456789.0);
    EXPECT_EQ(packed[18 + 8], 9.0);
    EXPECT_EQ(packed[18 + 9], 2.0);
    EXPECT_EQ(packed[18 + 10], 4294967295.0);
    EXPECT_EQ(packed[18 + 11], 1.0);
    EXPECT_EQ(packed[18 + 12], 1.0);
    EXPECT_EQ(packed[18 + 13], 1.0); // b's model size
    EXPECT_EQ(packed[18 + 14], 2.0); // b's aggregate size
    EXPECT_EQ(packed[18 + 15], static_cast<double>(0.1f));
    EXPECT_EQ(packed[18 + 16], static_cast<double>(-0.3f));
    EXPECT_EQ(packed[18 + 17], 2.0);
    const auto back = UnpackModelReports(packed.data(), packed.size());
    ASSERT_EQ(back.size(), 3u);
    EXPECT_EQ(back[0].round, 3u);
    EXPECT_EQ(back[0].node, 7u);
    EXPECT_EQ(back[0].timeS, a.timeS);
    EXPECT_EQ(back[0].model, a.model);
    EXPECT_FALSE(back[0].float32);
    EXPECT_EQ(back[1].round, 4294967295u);
    EXPECT_EQ(back[1].role, 2u);
    EXPECT_TRUE(back[1].float32);
    EXPECT_EQ(back[1].model, b.model);
    EXPECT_FALSE(back[0].countsBytes);
    EXPECT_EQ(back[0].bytesSent, 0u);
    EXPECT_TRUE(back[1].countsBytes);
    EXPECT_EQ(back[1].bytesSent, (uint64_t{1} << 53) - 1);
    EXPECT_EQ(back[1].bytesReceived, 123456789u);
    EXPECT_EQ(back[0].graphIndex, 0u);
    EXPECT_EQ(back[0].missingNeighbours, 0u);
    EXPECT_FALSE(back[0].hasAggregate);
    EXPECT_TRUE(back[0].aggregate.empty());
    EXPECT_EQ(back[1].graphIndex, 9u);
    EXPECT_EQ(back[1].missingNeighbours, 2u);
    EXPECT_EQ(back[1].droppedClients, 4294967295u);
    EXPECT_TRUE(back[1].hasAggregate);
    EXPECT_TRUE(back[1].aggregateFloat32);
    EXPECT_EQ(back[1].aggregate, b.aggregate);
    EXPECT_TRUE(back[2].model.empty());
    EXPECT_FALSE(back[2].hasAggregate);
    // an aggregate with no values (a model of size 0) is still an aggregate
    RankModelReport hollow;
    hollow.hasAggregate = true;
    const auto hollowPacked = PackModelReports({hollow});
    ASSERT_EQ(hollowPacked.size(), 15u);
    const auto hollowBack = UnpackModelReports(hollowPacked.data(), hollowPacked.size());
    ASSERT_EQ(hollowBack.size(), 1u);
    EXPECT_TRUE(hollowBack[0].hasAggregate);
    EXPECT_TRUE(hollowBack[0].aggregate.empty());
    // two ranks' arrays, concatenated as the gather does
    auto twice = packed;
    twice.insert(twice.end(), packed.begin(), packed.end());
    EXPECT_EQ(UnpackModelReports(twice.data(), twice.size()).size(), 6u);
}

TEST(RankPartition, MalformedArraysAreRejected)
{
    RankModelReport a;
    a.model = {1.0, 2.0};
    a.hasAggregate = true;
    a.aggregate = {3.0};
    const auto packed = PackModelReports({a});
    ASSERT_EQ(packed.size(), 18u);
    // cut inside the aggregate, inside the model, inside the header
    EXPECT_THROW(UnpackModelReports(packed.data(), packed.size() - 1), ConfigError);
    EXPECT_THROW(UnpackModelReports(packed.data(), 16), ConfigError);
    EXPECT_THROW(UnpackModelReports(packed.data(), 4), ConfigError);
    EXPECT_THROW(UnpackModelReports(packed.data(), 14), ConfigError);
    auto bad = packed;
    bad[1] = 1.5; // node not whole
    EXPECT_THROW(UnpackModelReports(bad.data(), bad.size()), ConfigError);
    bad = packed;
    bad[3] = 2.0; // float32 flag not 0/1
    EXPECT_THROW(UnpackModelReports(bad.data(), bad.size()), ConfigError);
    bad = packed;
    bad[5] = 2.0; // countsBytes flag not 0/1
    EXPECT_THROW(UnpackModelReports(bad.data(), bad.size()), ConfigError);
    bad = packed;
    bad[6] = -1.0; // a negative byte count
    EXPECT_THROW(UnpackModelReports(bad.data(), bad.size()), ConfigError);
    bad = packed;
    bad[7] = 0.5; // a fractional byte count
    EXPECT_THROW(UnpackModelReports(bad.data(), bad.size()), ConfigError);
    bad = packed;
    bad[8] = 4294967296.0; // a graph index beyond 32 bits
    EXPECT_THROW(UnpackModelReports(bad.data(), bad.size()), ConfigError);
    bad = packed;
    bad[9] = -1.0; // a negative count of missing messages
    EXPECT_THROW(UnpackModelReports(bad.data(), bad.size()), ConfigError);
    bad = packed;
    bad[10] = std::numeric_limits<double>::infinity(); // dropped clients
    EXPECT_THROW(UnpackModelReports(bad.data(), bad.size()), ConfigError);
    bad = packed;
    bad[11] = 2.0; // hasAggregate not 0/1
    EXPECT_THROW(UnpackModelReports(bad.data(), bad.size()), ConfigError);
    bad = packed;
    bad[12] = 0.5; // aggregateFloat32 not 0/1
    EXPECT_THROW(UnpackModelReports(bad.data(), bad.size()), ConfigError);
    bad = packed;
    bad[13] = 1e18; // more model values than the array holds (refused before allocating)
    EXPECT_THROW(UnpackModelReports(bad.data(), bad.size()), ConfigError);
    bad = packed;
    bad[14] = 1e18; // more aggregate values than the array holds
    EXPECT_THROW(UnpackModelReports(bad.data(), bad.size()), ConfigError);
    bad = packed;
    bad[13] = 3.0; // model and aggregate sizes that each fit but together do not
    bad[14] = 1.0;
    EXPECT_THROW(UnpackModelReports(bad.data(), bad.size()), ConfigError);
    bad = packed;
    bad[11] = 0.0; // aggregate values in a report without an aggregate
    EXPECT_THROW(UnpackModelReports(bad.data(), bad.size()), ConfigError);
    bad = PackModelReports({RankModelReport{}});
    bad[12] = 1.0; // an aggregate's precision without an aggregate
    EXPECT_THROW(UnpackModelReports(bad.data(), bad.size()), ConfigError);
    bad = packed;
    bad[4] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(UnpackModelReports(bad.data(), bad.size()), ConfigError);
    EXPECT_TRUE(UnpackModelReports(packed.data(), 0).empty());
    RankModelReport huge;
    huge.bytesSent = (uint64_t{1} << 53) + 1; // not exact in a double
    EXPECT_THROW(PackModelReports({huge}), ConfigError);
    RankModelReport stray;
    stray.aggregate = {1.0}; // aggregate values without hasAggregate
    EXPECT_THROW(PackModelReports({stray}), ConfigError);
    stray.aggregate.clear();
    stray.aggregateFloat32 = true;
    EXPECT_THROW(PackModelReports({stray}), ConfigError);
}

TEST(RankPartition, SortPutsReportsInRoundThenTimeThenNodeOrder)
{
    auto r = [](double t, uint32_t round, uint32_t node, double tag) {
        RankModelReport m;
        m.timeS = t;
        m.round = round;
        m.node = node;
        m.model = {tag};
        return m;
    };
    // as gathered: rank 0's reports, then rank 1's
    std::vector<RankModelReport> v{r(0.3, 2, 0, 1), r(0.1, 0, 0, 2), r(0.2, 1, 1, 3),
                                   r(0.1, 0, 2, 4), r(0.2, 1, 0, 5), r(0.2, 2, 1, 6),
                                   r(0.15, 2, 3, 7)}; // round 2 at one server before round 1 ends

    SortModelReports(v);
    std::vector<double> tags;
    for (const auto& m : v)
    {
        tags.push_back(m.model[0]);
    }
    EXPECT_EQ(tags, (std::vector<double>{2, 4, 5, 3, 7, 6, 1}));
}
