/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * How the benchmarks measure a run: a child process's exit status, output, time limit and own
 * peak memory (RunMeasuredChild), and stock ns-3's exchange on a module scene
 * (FlRunStockExchange), complete or cut short.
 */
#include "ns3/child-process.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-stock-baseline.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

using namespace ns3;

namespace
{

std::string
LogPath(const char* name)
{
    return std::string(::testing::TempDir()) + "fl-child-" + name + ".log";
}

std::string
ReadAll(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

TEST(ChildProcess, ExitStatusAndOutput)
{
    const std::string log = LogPath("status");
    const fl::ChildCost c = fl::RunMeasuredChild({"/bin/sh", "-c", "echo hello; echo err >&2; exit 3"}, log, 30.0);
    EXPECT_TRUE(c.startError.empty());
    EXPECT_EQ(c.exitCode, 3);
    EXPECT_FALSE(c.timedOut);
    EXPECT_EQ(ReadAll(log), "hello\nerr\n");
    std::remove(log.c_str());
}

TEST(ChildProcess, TimeLimitKillsTheChild)
{
    const std::string log = LogPath("timeout");
    const fl::ChildCost c = fl::RunMeasuredChild({"/bin/sleep", "30"}, log, 0.2);
    EXPECT_TRUE(c.timedOut);
    EXPECT_EQ(c.exitCode, -1); // killed by SIGKILL
    EXPECT_GE(c.wallS, 0.2);
    EXPECT_LT(c.wallS, 10.0);
    std::remove(log.c_str());
}

TEST(ChildProcess, PeakMemoryIsTheChildsOwn)
{
    // dd holds one 64 MiB block in memory: the child's peak is at least that. Linux keeps a
    // process's peak across exec, so a small child reports at most the caller's resident memory
    // when it was started (this test's, well under 64 MiB), never the big child's.
    const std::string log = LogPath("memory");
    const fl::ChildCost big = fl::RunMeasuredChild(
        {"/bin/dd", "if=/dev/zero", "of=/dev/null", "bs=64M", "count=1"}, log, 30.0);
    const fl::ChildCost small = fl::RunMeasuredChild({"/bin/true"}, log, 30.0);
    ASSERT_EQ(big.exitCode, 0);
    ASSERT_EQ(small.exitCode, 0);
    EXPECT_GE(big.peakRssMb, 64.0);
    EXPECT_LT(small.peakRssMb, big.peakRssMb - 16.0);
    std::remove(log.c_str());
}

TEST(ChildProcess, BadArguments)
{
    const fl::ChildCost c = fl::RunMeasuredChild({"/nonexistent/program"}, LogPath("none"), 5.0);
    EXPECT_FALSE(c.startError.empty());
    EXPECT_EQ(c.exitCode, -1);
    EXPECT_THROW(fl::RunMeasuredChild({}, LogPath("none"), 5.0), std::invalid_argument);
    EXPECT_THROW(fl::RunMeasuredChild({"/bin/true"}, LogPath("none"), 0.0), std::invalid_argument);
    EXPECT_FALSE(fl::ExecutablePath("x").empty());
    EXPECT_EQ(fl::ExecutablePath("x").rfind(fl::ExecutableDir(), 0), 0u);
}

TEST(StockExchange, EveryClientDownloadsAndUploads)
{
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(3);
    FlCsmaSceneHelper::AssignStreams(scene, 100);
    const FlStockExchangeResult r = FlRunStockExchange(scene, 20000);
    Simulator::Destroy();
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.uploadsStarted, 3u);
    EXPECT_GT(r.simulatedS, 1.0); // it starts at 1 s
    EXPECT_LT(r.simulatedS, 2.0); // 120 kB over 100 Mb/s
}

TEST(StockExchange, CutShortIsIncomplete)
{
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(3);
    FlCsmaSceneHelper::AssignStreams(scene, 100);
    const FlStockExchangeResult r =
        FlRunStockExchange(scene, 2000000, Seconds(1.0), Seconds(1.01));
    Simulator::Destroy();
    EXPECT_FALSE(r.complete);
    EXPECT_DOUBLE_EQ(r.simulatedS, 1.01);
}
