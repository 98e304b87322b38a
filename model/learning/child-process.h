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
    int exitCode{-1};      ///< exit status; -1 if killed by a signal or not started
    bool timedOut{false};  ///< stopped (SIGKILL) after the time limit
    std::string startError; ///< why the child could not be started (empty: it was)
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

/// The absolute path of the running program (/proc/self/exe; `fallback` if unreadable).
std::string ExecutablePath(const std::string& fallback);

/// The directory of the running program ("." if unreadable).
std::string ExecutableDir();

} // namespace fl
} // namespace ns3

#endif // FL_CHILD_PROCESS_H
