/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/child-process.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <spawn.h>
#include <stdexcept>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace ns3
{
namespace fl
{

ChildCost
RunMeasuredChild(const std::vector<std::string>& args, const std::string& log, double timeoutS)
{
    if (args.empty())
    {
        throw std::invalid_argument("RunMeasuredChild: no program given");
    }
    if (!(timeoutS > 0.0))
    {
        throw std::invalid_argument("RunMeasuredChild: the timeout must be positive");
    }
    ChildCost cost;
    std::vector<char*> argv;
    for (const std::string& a : args)
    {
        argv.push_back(const_cast<char*>(a.c_str()));
    }
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
    {
        cost.startError = "cannot start " + args[0] + ": " + std::strerror(rc);
        std::ofstream(log) << cost.startError << std::endl; // where the caller looks
        return cost;
    }
    int status = 0;
    struct rusage usage;
    std::memset(&usage, 0, sizeof(usage));
    while (true)
    {
        const pid_t done = wait4(pid, &status, WNOHANG, &usage);
        if (done == pid || (done < 0 && errno != EINTR))
        {
            break;
        }
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!cost.timedOut && elapsed > timeoutS)
        {
            kill(pid, SIGKILL);
            cost.timedOut = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    cost.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    cost.peakRssMb = static_cast<double>(usage.ru_maxrss) / 1024.0; // KiB on Linux
    cost.cpuS = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
    cost.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return cost;
}

LinearCost
FitLinearCost(double steps0, double cost0, double steps1, double cost1)
{
    if (steps0 == steps1)
    {
        throw std::invalid_argument("FitLinearCost: the two runs must differ in length");
    }
    LinearCost c;
    c.perStepS = (cost1 - cost0) / (steps1 - steps0);
    c.setupS = cost0 - steps0 * c.perStepS;
    return c;
}

BuildComparison
CompareBuilds(const std::string (&programs)[2],
              const std::vector<std::string>& args,
              const std::string& lengthFlag,
              const uint32_t (&lengths)[2],
              const std::function<std::string(const std::string&)>& output,
              double timeoutS,
              std::ostream* progress)
{
    BuildComparison r;
    double cpu[2][2];
    for (std::size_t l = 0; l < 2; ++l)
    {
        for (std::size_t b = 0; b < 2; ++b)
        {
            const std::string name = (b == 0 ? "a-" : "b-") + std::to_string(lengths[l]);
            std::vector<std::string> argv{programs[b]};
            argv.insert(argv.end(), args.begin(), args.end());
            argv.push_back("--" + lengthFlag + "=" + std::to_string(lengths[l]));
            argv.push_back("--output=" + output(name));
            const ChildCost c = RunMeasuredChild(argv, output(name + ".log"), timeoutS);
            r.ok = r.ok && c.exitCode == 0;
            cpu[b][l] = c.cpuS;
            r.wallS[b][l] = c.wallS;
            if (progress)
            {
                *progress << "  " << (b == 0 ? "A" : "B") << ", " << lengths[l] << " "
                          << lengthFlag << ": " << std::fixed << std::setprecision(1) << c.cpuS
                          << " s processor, " << c.wallS << " s wall"
                          << (c.exitCode == 0 ? "" : " (FAILED, see " + output(name + ".log") + ")")
                          << std::endl;
            }
        }
    }
    for (std::size_t b = 0; b < 2; ++b)
    {
        r.cost[b] = FitLinearCost(lengths[0], cpu[b][0], lengths[1], cpu[b][1]);
    }
    return r;
}

double
ReportBuildComparison(std::ostream& os,
                      const BuildComparison& r,
                      double steps,
                      const std::string& step)
{
    for (std::size_t b = 0; b < 2; ++b)
    {
        os << "  " << (b == 0 ? "A" : "B") << ": set-up " << std::fixed << std::setprecision(1)
           << r.cost[b].setupS << " s, " << std::setprecision(3) << r.cost[b].perStepS
           << " s per " << step << " (processor time): " << std::setprecision(0) << steps << " "
           << step << "s in " << r.cost[b].Project(steps) << " s" << std::endl;
    }
    return r.cost[0].Project(steps) / r.cost[1].Project(steps);
}

std::string
ExecutablePath(const std::string& fallback)
{
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : fallback;
}

std::string
ExecutableDir()
{
    const std::string path = ExecutablePath("");
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string
SiblingProgram(const std::string& selfPath, const std::string& ownName, const std::string& sibling)
{
    const auto slash = selfPath.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : selfPath.substr(0, slash);
    const std::string file = slash == std::string::npos ? selfPath : selfPath.substr(slash + 1);
    const auto at = ownName.empty() ? std::string::npos : file.rfind(ownName);
    if (at == std::string::npos)
    {
        return dir + "/" + sibling;
    }
    return dir + "/" + file.substr(0, at) + sibling + file.substr(at + ownName.size());
}

std::string
SiblingProgram(const std::string& ownName, const std::string& sibling)
{
    return SiblingProgram(ExecutablePath(""), ownName, sibling);
}

} // namespace fl
} // namespace ns3
