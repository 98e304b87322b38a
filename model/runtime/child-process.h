/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What a run costs when it runs alone: a program started as a child process (POSIX spawn), its
 * output to a log, stopped after a time limit, with its own peak resident memory (the child's
 * getrusage, not the caller's) and its wall time. Benchmarks that compare memory at several
 * sizes run each size this way, so that one run's heap does not count in the next.
 */
#ifndef FL_CHILD_PROCESS_H
#define FL_CHILD_PROCESS_H

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace ns3
{
namespace fl
{

/// What one child process cost.
struct ChildCost
{
    double peakRssMb{0.0}; ///< the child's peak resident memory [MiB] (ru_maxrss)
    double wallS{0.0};     ///< wall time from start to exit [s]
    double cpuS{0.0};      ///< the child's processor time, user + system [s] (load-independent
                           ///< for a single-threaded run, unlike the wall time)
    int exitCode{-1};      ///< exit status; -1 if killed by a signal or not started
    bool timedOut{false};  ///< stopped (SIGKILL) after the time limit
    std::string startError; ///< why the child could not be started (empty: it was; also
                            ///< written to the log)
};

/**
 * Runs args[0] (a path; not searched in PATH) with the arguments args[1..], standard output and
 * error to the file `log` (created or truncated), in the caller's environment. The child is
 * killed (SIGKILL) once it has run `timeoutS` seconds. Returns when it has exited. The peak is
 * the child's ru_maxrss, which Linux keeps across exec: it is the larger of the child's own peak
 * and the caller's resident memory when the child was started, so start children from a small
 * process (fl-scale-benchmark holds about 42 MiB, ns-3's libraries included; every run it
 * measures loads the same libraries and holds more). Throws
 * std::invalid_argument for empty args or a timeout that is not positive.
 */
ChildCost RunMeasuredChild(const std::vector<std::string>& args,
                           const std::string& log,
                           double timeoutS);

/// A run's cost as a straight line in its length: cost = setupS + perStepS x steps.
struct LinearCost
{
    double setupS{0.0};   ///< what a run costs before its first step [s]
    double perStepS{0.0}; ///< what each step adds [s]

    /// The cost of a run of `steps` steps.
    double Project(double steps) const
    {
        return setupS + perStepS * steps;
    }
};

/// The line through two measured runs (steps0, cost0) and (steps1, cost1); steps0 != steps1.
LinearCost FitLinearCost(double steps0, double cost0, double steps1, double cost1);

/**
 * Two builds of one program timed in turn (A short, B short, A long, B long) at two run lengths:
 * each run is `programs[b]` with `args`, then `--<lengthFlag>=<length>` and
 * `--output=<output(name)>`, its log in output(name + ".log") where name is "a-<length>" or
 * "b-<length>". `cost[b]` is the line through build b's two processor times (user + system,
 * which a loaded machine disturbs far less than the wall time); `ok` is false if a run failed.
 */
struct BuildComparison
{
    LinearCost cost[2];                   ///< per build, in processor seconds
    double wallS[2][2]{{0, 0}, {0, 0}};   ///< [build][length] wall time [s]
    bool ok{true};                        ///< every run exited 0
};

BuildComparison CompareBuilds(const std::string (&programs)[2],
                              const std::vector<std::string>& args,
                              const std::string& lengthFlag,
                              const uint32_t (&lengths)[2],
                              const std::function<std::string(const std::string&)>& output,
                              double timeoutS,
                              std::ostream* progress);

/**
 * Prints each build's line ("A: set-up ... s, ... s per <step>: <steps> <step>s in ... s") and
 * returns B's speed-up over A at `steps`: A's projected processor time over B's.
 */
double ReportBuildComparison(std::ostream& os,
                             const BuildComparison& r,
                             double steps,
                             const std::string& step);

/// The absolute path of the running program (/proc/self/exe; `fallback` if unreadable).
std::string ExecutablePath(const std::string& fallback);

/// The directory of the running program ("." if unreadable).
std::string ExecutableDir();

/**
 * The path of another program of the module built beside the running one. A standalone build
 * names a program as it is (fl-scale-run); ns-3's build systems add a prefix and a suffix
 * (ns-3.35's waf: ns3.35-fl-scale-run; CMake: ns3.37-fl-scale-run-default). The running
 * program's file name `selfPath` holds its own name `ownName` between that prefix and suffix;
 * the sibling gets the same ones, in the same directory. If `ownName` is not in the file name,
 * the sibling is `sibling` in that directory.
 */
std::string SiblingProgram(const std::string& selfPath,
                           const std::string& ownName,
                           const std::string& sibling);

/// SiblingProgram of the running program (ExecutablePath).
std::string SiblingProgram(const std::string& ownName, const std::string& sibling);

} // namespace fl
} // namespace ns3

#endif // FL_CHILD_PROCESS_H
