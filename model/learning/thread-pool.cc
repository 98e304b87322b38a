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
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_wake.wait(lock, [this, seen]() { return m_stop || m_generation != seen; });
            if (m_stop)
            {
                return;
            }
            seen = m_generation;
            ++m_running;
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

namespace
{
struct PoolState
{
    std::mutex mutex;
    std::size_t requested{0}; ///< 0 = every hardware thread
    std::unique_ptr<ThreadPool> pool;
};

PoolState&
State()
{
    static PoolState state;
    return state;
}

std::size_t
Resolve(std::size_t requested)
{
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
    const std::size_t want = Resolve(s.requested);
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
    if (threads > 1024)
    {
        throw ConfigError("threads",
                          "is " + std::to_string(threads),
                          "use 0 (every hardware thread) or at most 1024 threads");
    }
    PoolState& s = State();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.requested = threads;
}

std::size_t
TrainingThreads()
{
    PoolState& s = State();
    std::lock_guard<std::mutex> lock(s.mutex);
    return Resolve(s.requested);
}

} // namespace fl
} // namespace ns3
