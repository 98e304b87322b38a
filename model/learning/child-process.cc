/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "child-process.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
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
    cost.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return cost;
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

} // namespace fl
} // namespace ns3
