/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A pool of worker threads for independent work items (the clients' local training of a round,
 * Monte-Carlo runs), pure (no ns-3 header). Results never depend on the number of threads: each
 * item writes only its own output slot, draws only from its own seeded generator, and the
 * caller combines the slots in item order afterwards.
 */
#ifndef FL_THREAD_POOL_H
#define FL_THREAD_POOL_H

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ns3
{
namespace fl
{

/**
 * A fixed set of worker threads that run ParallelFor loops; the calling thread takes part, so
 * a pool of T threads keeps T - 1 workers. Not re-entrant: an item must not call ParallelFor on
 * the same pool (it then runs serially in the calling thread instead of deadlocking).
 */
class ThreadPool
{
  public:
    /// A pool of `threads` threads in all (>= 1; 1 = everything in the calling thread).
    explicit ThreadPool(std::size_t threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    /// Threads in all, the caller's included.
    std::size_t Threads() const
    {
        return m_workers.size() + 1;
    }

    /**
     * Runs item(i) for i = 0 .. n-1, each exactly once, on the pool's threads, and returns when
     * all are done. If items throw, the exception of the lowest-numbered item that threw is
     * rethrown (the others still run to the end).
     */
    void ParallelFor(std::size_t n, const std::function<void(std::size_t)>& item);

  private:
    void Work();
    void RunItems();

    std::vector<std::thread> m_workers;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    const std::function<void(std::size_t)>* m_item{nullptr};
    std::size_t m_n{0};
    std::size_t m_next{0};
    std::size_t m_running{0};   ///< workers inside the current loop
    std::size_t m_generation{0}; ///< loops started
    bool m_stop{false};
    bool m_busy{false};
    std::size_t m_errorItem{0};
    std::exception_ptr m_error;
};

/**
 * The pool that local training and Monte-Carlo runs share. Its size is TrainingThreads(); it is
 * created on first use and again after SetTrainingThreads changed the size.
 */
ThreadPool& TrainingPool();

/**
 * Sets the number of threads of TrainingPool (0 = every hardware thread, the default). Throws
 * ConfigError naming "threads" above 1024.
 */
void SetTrainingThreads(std::size_t threads);

/// The number of threads TrainingPool uses (>= 1).
std::size_t TrainingThreads();

} // namespace fl
} // namespace ns3

#endif // FL_THREAD_POOL_H
