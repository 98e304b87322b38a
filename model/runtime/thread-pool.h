/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A pool of worker threads for independent work items (the clients' local training of a round,
 * Monte-Carlo runs) and for single jobs that run while the caller goes on (a network client's
 * local training while the simulator runs events). Results never depend on the number of
 * threads: each item writes only its own output slot, draws only from its own seeded generator,
 * and the caller combines the slots in item order afterwards.
 */
#ifndef FL_THREAD_POOL_H
#define FL_THREAD_POOL_H

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ns3
{
namespace fl
{

/**
 * One job handed to ThreadPool::Submit. It owns its work (a closure that must own or share
 * everything it touches), so it may outlive the pool and the object that submitted it.
 */
class PoolJob
{
  public:
    explicit PoolJob(std::function<void()> work);
    PoolJob(const PoolJob&) = delete;
    PoolJob& operator=(const PoolJob&) = delete;

    /**
     * Returns when the job has run: if no thread has started it yet, the calling thread runs it
     * now; if a worker runs it, waits for the worker. Rethrows what the work threw. A discarded
     * job that never started does not run: Wait returns false for it (true otherwise).
     */
    bool Wait();

    /**
     * Gives the job up: if no thread has started it, it never runs; if a worker runs it, the
     * worker finishes it on its own (the result is simply not used). Never blocks.
     */
    void Discard();

    /// True once the work has run to its end (or thrown).
    bool Done() const;

  private:
    friend class ThreadPool;
    enum class State
    {
        Queued,
        Running,
        Done,
        Discarded
    };

    /// Runs the work if still queued (claimed by the calling thread); true if it ran here.
    bool RunIfQueued();

    mutable std::mutex m_mutex;
    std::condition_variable m_finished;
    State m_state{State::Queued};
    std::function<void()> m_work;
    std::exception_ptr m_error;
};

/**
 * A fixed set of worker threads that run ParallelFor loops and submitted jobs; the calling thread takes part, so
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

    /**
     * Starts `work` on a worker thread and returns at once; the caller joins it with
     * PoolJob::Wait (which runs it in the calling thread if no worker has taken it yet) or gives
     * it up with PoolJob::Discard. A pool of one thread runs it here, before Submit returns.
     * Jobs start in the order submitted. `work` must own or share what it touches.
     */
    std::shared_ptr<PoolJob> Submit(std::function<void()> work);

    /**
     * PoolJob::Wait that, while a worker runs `job`, runs the jobs still queued in this pool in
     * the calling thread instead of sleeping (they are due later anyway). `job` may come from
     * another pool. Returns and throws as PoolJob::Wait.
     */
    bool Join(const std::shared_ptr<PoolJob>& job);

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
    std::deque<std::shared_ptr<PoolJob>> m_jobs; ///< submitted, not yet taken by a worker
};

/**
 * ParallelFor whose results are taken in item order: runs work(i) for i = 0 .. n-1 on `pool`,
 * each exactly once, and calls commit(i) once per item, in item order and one call at a time:
 * commit(i) runs as soon as work(0) .. work(i) have all finished, in whichever thread finished
 * the last of them (so the first runs' results, and the lines they print, come out while later
 * runs still go on). work(i) must write only its own slot; commit(i) combines slot i into the
 * caller's totals and prints its output, so totals and output are those of the serial loop
 * for any number of threads. If work(i) throws, no item from i on is committed, and the
 * exception of the lowest-numbered item that threw is rethrown (as ParallelFor). A nested call
 * (from an item of the same pool) runs serially: work(0), commit(0), work(1), ...
 */
void OrderedParallelFor(ThreadPool& pool,
                        std::size_t n,
                        const std::function<void(std::size_t)>& work,
                        const std::function<void(std::size_t)>& commit);

/**
 * The pool that local training and Monte-Carlo runs share. Its size is TrainingThreads(); it is
 * created on first use and again when the size asked for changed since (jobs submitted to the
 * previous pool stay valid: a job nobody took yet runs in the thread that waits for it).
 */
ThreadPool& TrainingPool();

/**
 * Sets the number of threads of TrainingPool (0 = every hardware thread, the default). This is
 * the global value "FlTrainingThreads" (ns3::GlobalValue), which any program also takes on its
 * command line as --FlTrainingThreads=N. Throws ConfigError naming "threads" above 1024.
 */
void SetTrainingThreads(std::size_t threads);

/// The number of threads TrainingPool uses (>= 1).
std::size_t TrainingThreads();

/**
 * Where the number of threads asked for (0 = every hardware thread) is kept: by default a
 * variable of this layer; the module's ns-3 layer installs the global value "FlTrainingThreads"
 * here when it is loaded, so that --FlTrainingThreads=N on a command line sets it. `get` and
 * `set` are called with the pool's lock held.
 */
void SetTrainingThreadsStore(std::size_t (*get)(), void (*set)(std::size_t));

/// Most threads TrainingPool may have.
constexpr std::size_t kMaxTrainingThreads = 1024;

} // namespace fl
} // namespace ns3

#endif // FL_THREAD_POOL_H
