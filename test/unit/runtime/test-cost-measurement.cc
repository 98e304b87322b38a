/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * How the benchmarks measure a run: a child process's exit status, output, time limit and own
 * peak memory (RunMeasuredChild), and stock ns-3's exchange on a module scene
 * (FlRunStockExchange), complete or cut short.
 */
#include "ns3/child-process.h"
#include "ns3/sweep-grid.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-stock-baseline.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/stat.h>

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
    const fl::ChildCost c =
        fl::RunMeasuredChild({"/bin/sh", "-c", "echo hello; echo err >&2; exit 3"}, log, 30.0);
    EXPECT_TRUE(c.startError.empty());
    EXPECT_EQ(c.exitCode, 3);
    EXPECT_FALSE(c.timedOut);
    EXPECT_EQ(ReadAll(log), "hello\nerr\n");
    std::remove(log.c_str());
}

TEST(ChildProcess, ProcessorTimeIsTheChildsWork)
{
    // A child that counts to 300,000 in the shell (a fixed amount of work, whatever the load)
    // and one that sleeps: the first one's cpuS is positive and at most its wall time, the
    // second one's close to 0.
    const std::string log = LogPath("cpu");
    const fl::ChildCost busy = fl::RunMeasuredChild(
        {"/bin/sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done"},
        log,
        60.0);
    const fl::ChildCost idle = fl::RunMeasuredChild({"/bin/sleep", "0.3"}, log, 30.0);
    ASSERT_EQ(busy.exitCode, 0);
    ASSERT_EQ(idle.exitCode, 0);
    EXPECT_GT(busy.cpuS, 0.02);
    EXPECT_LE(busy.cpuS, busy.wallS + 0.02);
    EXPECT_LT(idle.cpuS, 0.05);
    EXPECT_GE(idle.wallS, 0.3);
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

/// This process's resident memory [MiB] (VmRSS of /proc/self/status), 0 if unknown.
static double
ResidentMb()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
    {
        if (line.rfind("VmRSS:", 0) == 0)
        {
            return std::stod(line.substr(6)) / 1024.0; // "VmRSS:   12345 kB"
        }
    }
    return 0.0;
}

TEST(ChildProcess, PeakMemoryIsTheChildsOwn)
{
    // dd holds one block in memory: the child's peak is at least that. Linux keeps a process's
    // peak across exec, so a small child reports at most about the caller's resident memory when
    // it was started, never the big child's. The block is 64 MiB more than this process holds
    // (about 20 MiB in a release build, about 150 MiB under AddressSanitizer, whose shadow
    // memory counts), so that the big child's peak is its own.
    const double resident = ResidentMb();
    const auto blockMb = static_cast<long>(std::ceil(std::max(64.0, resident + 64.0)));
    const std::string log = LogPath("memory");
    const fl::ChildCost big = fl::RunMeasuredChild(
        {"/bin/dd", "if=/dev/zero", "of=/dev/null", "bs=" + std::to_string(blockMb) + "M", "count=1"},
        log,
        30.0);
    const fl::ChildCost small = fl::RunMeasuredChild({"/bin/true"}, log, 30.0);
    ASSERT_EQ(big.exitCode, 0);
    ASSERT_EQ(small.exitCode, 0);
    EXPECT_GE(big.peakRssMb, static_cast<double>(blockMb));
    EXPECT_LT(small.peakRssMb, big.peakRssMb - 16.0) << "this process: " << resident << " MiB";
    std::remove(log.c_str());
}

TEST(ChildProcess, BadArguments)
{
    const fl::ChildCost c = fl::RunMeasuredChild({"/nonexistent/program"}, LogPath("none"), 5.0);
    EXPECT_FALSE(c.startError.empty());
    EXPECT_EQ(c.exitCode, -1);
    EXPECT_EQ(ReadAll(LogPath("none")), c.startError + "\n");
    EXPECT_THROW(fl::RunMeasuredChild({}, LogPath("none"), 5.0), std::invalid_argument);
    EXPECT_THROW(fl::RunMeasuredChild({"/bin/true"}, LogPath("none"), 0.0), std::invalid_argument);
    EXPECT_FALSE(fl::ExecutablePath("x").empty());
    EXPECT_EQ(fl::ExecutablePath("x").rfind(fl::ExecutableDir(), 0), 0u);
}

TEST(ChildProcess, SiblingProgramsAreNamedAsTheBuildNamesTheRunningOne)
{
    using ns3::fl::SiblingProgram;
    // standalone, ns-3.35's waf, ns-3's CMake (build profile suffix)
    EXPECT_EQ(SiblingProgram("/b/examples/fl-scale-benchmark", "fl-scale-benchmark", "fl-gfl"),
              "/b/examples/fl-gfl");
    EXPECT_EQ(SiblingProgram("/t/build/contrib/fl/ns3.35-fl-scale-benchmark",
                             "fl-scale-benchmark",
                             "fl-scale-run"),
              "/t/build/contrib/fl/ns3.35-fl-scale-run");
    EXPECT_EQ(SiblingProgram("/t/build/contrib/fl/examples/ns3.37-fl-scale-benchmark-default",
                             "fl-scale-benchmark",
                             "fl-flow-validation"),
              "/t/build/contrib/fl/examples/ns3.37-fl-flow-validation-default");
    // a renamed program: the sibling under its own name in the same directory
    EXPECT_EQ(SiblingProgram("/x/my-bench", "fl-scale-benchmark", "fl-gfl"), "/x/fl-gfl");
    EXPECT_EQ(SiblingProgram("fl-scale-benchmark", "fl-scale-benchmark", "fl-gfl"), "./fl-gfl");
    // the running test program is not fl-scale-benchmark: its directory and the plain name
    EXPECT_EQ(SiblingProgram("fl-scale-benchmark", "fl-gfl"), ns3::fl::ExecutableDir() + "/fl-gfl");
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

TEST(LinearCost, ThroughTwoRuns)
{
    const fl::LinearCost c = fl::FitLinearCost(23, 30.0, 203, 120.0);
    EXPECT_NEAR(c.perStepS, 0.5, 1e-12);
    EXPECT_NEAR(c.setupS, 18.5, 1e-12);
    EXPECT_NEAR(c.Project(1000), 518.5, 1e-12);
    EXPECT_THROW(fl::FitLinearCost(5, 1.0, 5, 2.0), std::invalid_argument);
}

TEST(CompareBuilds, TheBuildThatWorksMorePerStepCostsMorePerStep)
{
    // Two "builds" of one shell program: A counts to 20,000 per step, B to 2,000; both write the
    // same result row and a row of what they measured (different).
    const std::string dir = ::testing::TempDir();
    std::string programs[2];
    for (int b = 0; b < 2; ++b)
    {
        programs[b] = dir + "fl-build-" + std::string(b == 0 ? "a" : "b") + ".sh";
        std::ofstream f(programs[b]);
        f << "#!/bin/sh\nk=" << (b == 0 ? 20000 : 2000) << "\nn=${2#--iterations=}\n"
          << "i=0; while [ $i -lt $((n * k)) ]; do i=$((i + 1)); done\n"
          << "printf 'step,result,value\\n%s,sum,%s\\n%s,wall_s,%s\\n' $n $1 $n $k"
          << " > ${3#--output=}\n";
        f.close();
        ASSERT_EQ(chmod(programs[b].c_str(), 0755), 0);
    }
    const uint32_t lengths[2] = {1, 11};
    auto output = [&dir](const std::string& name) { return dir + "fl-builds-" + name; };
    const fl::BuildComparison r =
        fl::CompareBuilds(programs, {"7"}, "iterations", lengths, output, 120.0, nullptr);
    EXPECT_TRUE(r.ok);
    EXPECT_GT(r.cost[0].perStepS, r.cost[1].perStepS); // 18,000 more counts per step
    EXPECT_GT(r.wallS[0][1], 0.0);
    // The same results, whatever each measured; another length is another result.
    EXPECT_TRUE(fl::SameCsvRecordsExcept(output("a-11"), output("b-11"), 1, "wall"));
    EXPECT_FALSE(fl::SameCsvRecordsExcept(output("a-11"), output("b-1"), 1, "wall"));
    EXPECT_FALSE(fl::SameCsvRecordsExcept(output("a-11"), output("missing"), 1, "wall"));
}
