/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/thread-pool.h"

#include "ns3/fl-types.h"

#include <memory>
#include <string>

namespace ns3
{
namespace fl
{

PoolJob::PoolJob(std::function<void()> work)
    : m_work(std::move(work))
{
}

bool
PoolJob::RunIfQueued()
{
    std::function<void()> work;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_state != State::Queued)
        {
            return false;
        }
        m_state = State::Running;
        work = std::move(m_work);
        m_work = nullptr;
    }
    std::exception_ptr error;
    try
    {
        work();
    }
    catch (...)
    {
        error = std::current_exception();
    }
    work = nullptr; // what the work owned goes before anybody learns it is done
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_error = error;
        m_state = State::Done;
    }
    m_finished.notify_all();
    return true;
}

bool
PoolJob::Wait()
{
    RunIfQueued();
    std::exception_ptr error;
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_finished.wait(lock, [this]() { return m_state != State::Running; });
        if (m_state == State::Discarded)
        {
            return false;
        }
        error = m_error;
    }
    if (error)
    {
        std::rethrow_exception(error);
    }
    return true;
}

void
PoolJob::Discard()
{
    std::function<void()> work;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_state != State::Queued)
        {
            return;
        }
        m_state = State::Discarded;
        work = std::move(m_work);
        m_work = nullptr;
    }
    m_finished.notify_all();
}

bool
PoolJob::Done() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_state == State::Done;
}

ThreadPool::ThreadPool(std::size_t threads)
{
    for (std::size_t t = 1; t < threads; ++t)
    {
        m_workers.emplace_back([this]() { Work(); });
    }
}

ThreadPool::~ThreadPool()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (auto& w : m_workers)
    {
        w.join();
    }
}

void
ThreadPool::RunItems()
{
    for (;;)
    {
        std::size_t i;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (m_next >= m_n)
            {
                return;
            }
            i = m_next++;
        }
        try
        {
            (*m_item)(i);
        }
        catch (...)
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (!m_error || i < m_errorItem)
            {
                m_error = std::current_exception();
                m_errorItem = i;
            }
        }
    }
}

void
ThreadPool::Work()
{
    std::size_t seen = 0;
    for (;;)
    {
        std::shared_ptr<PoolJob> job;
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_wake.wait(lock, [this, seen]() {
                return m_stop || m_generation != seen || !m_jobs.empty();
            });
            if (m_stop)
            {
                return; // jobs still queued run in the threads that wait for them
            }
            if (m_generation == seen)
            {
                job = std::move(m_jobs.front());
                m_jobs.pop_front();
            }
            else
            {
                seen = m_generation;
                ++m_running;
            }
        }
        if (job)
        {
            job->RunIfQueued(); // a job already claimed by its waiter or discarded is skipped
            continue;
        }
        RunItems();
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            --m_running;
        }
        m_done.notify_all();
    }
}

void
ThreadPool::ParallelFor(std::size_t n, const std::function<void(std::size_t)>& item)
{
    bool serial = m_workers.empty() || n <= 1;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        serial = serial || m_busy; // a nested loop runs in the calling thread
        if (!serial)
        {
            m_busy = true;
            m_item = &item;
            m_n = n;
            m_next = 0;
            m_error = nullptr;
            ++m_generation;
        }
    }
    if (serial)
    {
        std::exception_ptr first;
        for (std::size_t i = 0; i < n; ++i)
        {
            try
            {
                item(i);
            }
            catch (...)
            {
                if (!first)
                {
                    first = std::current_exception();
                }
            }
        }
        if (first)
        {
            std::rethrow_exception(first);
        }
        return;
    }
    m_wake.notify_all();
    RunItems();
    std::exception_ptr error;
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_done.wait(lock, [this]() { return m_running == 0 && m_next >= m_n; });
        error = m_error;
        m_error = nullptr;
        m_item = nullptr;
        m_busy = false;
    }
    if (error)
    {
        std::rethrow_exception(error);
    }
}

std::shared_ptr<PoolJob>
ThreadPool::Submit(std::function<void()> work)
{
    auto job = std::make_shared<PoolJob>(std::move(work));
    if (m_workers.empty())
    {
        job->RunIfQueued();
        return job;
    }
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_jobs.push_back(job);
    }
    m_wake.notify_one();
    return job;
}

bool
ThreadPool::Join(const std::shared_ptr<PoolJob>& job)
{
    while (!job->RunIfQueued() && !job->Done())
    {
        std::shared_ptr<PoolJob> other;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (m_jobs.empty())
            {
                break;
            }
            other = std::move(m_jobs.front());
            m_jobs.pop_front();
        }
        other->RunIfQueued();
    }
    return job->Wait();
}

void
OrderedParallelFor(ThreadPool& pool,
                   std::size_t n,
                   const std::function<void(std::size_t)>& work,
                   const std::function<void(std::size_t)>& commit)
{
    // 0 = running or not started, 1 = finished, 2 = threw
    std::vector<unsigned char> state(n, 0);
    std::mutex mutex;
    std::size_t next = 0; // the first item not committed yet
    bool committing = false;
    pool.ParallelFor(n, [&](std::size_t i) {
        unsigned char outcome = 1;
        try
        {
            work(i);
        }
        catch (...)
        {
            outcome = 2;
            std::lock_guard<std::mutex> lock(mutex);
            state[i] = outcome;
            throw;
        }
        std::unique_lock<std::mutex> lock(mutex);
        state[i] = outcome;
        if (committing)
        {
            return; // the thread that commits takes this item too when its turn comes
        }
        committing = true;
        while (next < n && state[next] == 1)
        {
            const std::size_t k = next;
            lock.unlock();
            try
            {
                commit(k);
            }
            catch (...)
            {
                lock.lock();
                state[k] = 2;
                committing = false;
                throw;
            }
            lock.lock();
            ++next;
        }
        committing = false;
    });
}

namespace
{
constexpr std::size_t kMaxThreads = kMaxTrainingThreads;

/// The threads asked for when no store is installed (a build of the pure layers alone).
std::size_t g_requestedThreads = 0;

std::size_t
DefaultGet()
{
    return g_requestedThreads;
}

void
DefaultSet(std::size_t threads)
{
    g_requestedThreads = threads;
}

/// Where the threads asked for are kept (SetTrainingThreadsStore).
std::size_t (*g_get)() = &DefaultGet;
void (*g_set)(std::size_t) = &DefaultSet;

struct PoolState
{
    std::mutex mutex;
    std::unique_ptr<ThreadPool> pool;
};

PoolState&
State()
{
    static PoolState state;
    return state;
}

std::size_t
Resolve()
{
    const std::size_t requested = g_get();
    if (requested > 0)
    {
        return requested;
    }
    const unsigned hw = std::thread::hardware_concurrency();
    return hw > 0 ? hw : 1;
}
} // namespace

ThreadPool&
TrainingPool()
{
    PoolState& s = State();
    std::lock_guard<std::mutex> lock(s.mutex);
    const std::size_t want = Resolve();
    if (!s.pool || s.pool->Threads() != want)
    {
        s.pool.reset();
        s.pool = std::make_unique<ThreadPool>(want);
    }
    return *s.pool;
}

void
SetTrainingThreads(std::size_t threads)
{
    if (threads > kMaxThreads)
    {
        throw ConfigError("threads",
                          "is " + std::to_string(threads),
                          "use 0 (every hardware thread) or at most 1024 threads");
    }
    PoolState& s = State();
    std::lock_guard<std::mutex> lock(s.mutex);
    g_set(threads);
}

void
SetTrainingThreadsStore(std::size_t (*get)(), void (*set)(std::size_t))
{
    PoolState& s = State();
    std::lock_guard<std::mutex> lock(s.mutex);
    g_get = get ? get : &DefaultGet;
    g_set = set ? set : &DefaultSet;
}

std::size_t
TrainingThreads()
{
    PoolState& s = State();
    std::lock_guard<std::mutex> lock(s.mutex);
    return Resolve();
}

} // namespace fl
} // namespace ns3
