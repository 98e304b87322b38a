/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Opt-in wall-time accounting by phase (pure; no ns-3 header), for benchmarks: the code marks
 * the scopes in which it trains, draws Gaussian noise or moves analog signals, and a benchmark
 * reads how the wall time of a run split between them. Off by default: then a scope costs one
 * predictable branch. Not thread-safe (the simulator is single-threaded).
 */
#ifndef FL_PHASE_TIMER_H
#define FL_PHASE_TIMER_H

#include <array>
#include <chrono>
#include <cstddef>

namespace ns3
{
namespace fl
{

/// What the time is spent on.
enum class Phase : std::size_t
{
    Other = 0, ///< everything not marked (events, scheduling, bookkeeping)
    Learning,  ///< local training steps
    Noise,     ///< Gaussian noise generation (artificial and receiver noise)
    Channel,   ///< signal construction, superposition, reception, unpacking, the update
    Count,
};

/**
 * Accumulated wall seconds per phase. Phases nest: entering a phase pauses the enclosing one,
 * so the phases always add up to the wall time since Start().
 */
class PhaseTimer
{
  public:
    using Clock = std::chrono::steady_clock;

    /// Resets the totals and starts accounting (time until the first scope counts as Other).
    static void Start()
    {
        State& s = Get();
        s.seconds.fill(0.0);
        s.current = Phase::Other;
        s.last = Clock::now();
        s.enabled = true;
    }

    /// Stops accounting; the totals stay readable.
    static void Stop()
    {
        State& s = Get();
        if (s.enabled)
        {
            Switch(s.current);
            s.enabled = false;
        }
    }

    /// Seconds spent in `phase` so far.
    static double Seconds(Phase phase)
    {
        return Get().seconds[static_cast<std::size_t>(phase)];
    }

    /// Whether accounting is on.
    static bool Enabled()
    {
        return Get().enabled;
    }

    /// Charges the time since the last switch to the current phase and makes `next` current.
    /// \return the phase that was current
    static Phase Switch(Phase next)
    {
        State& s = Get();
        const Clock::time_point now = Clock::now();
        s.seconds[static_cast<std::size_t>(s.current)] +=
            std::chrono::duration<double>(now - s.last).count();
        s.last = now;
        const Phase previous = s.current;
        s.current = next;
        return previous;
    }

  private:
    struct State
    {
        bool enabled{false};
        Phase current{Phase::Other};
        Clock::time_point last;
        std::array<double, static_cast<std::size_t>(Phase::Count)> seconds{};
    };

    static State& Get()
    {
        static State state;
        return state;
    }
};

/// Marks a scope as spent in one phase (no cost beyond a branch while the timer is off).
class PhaseScope
{
  public:
    explicit PhaseScope(Phase phase)
        : m_active(PhaseTimer::Enabled())
    {
        if (m_active)
        {
            m_previous = PhaseTimer::Switch(phase);
        }
    }

    ~PhaseScope()
    {
        if (m_active)
        {
            PhaseTimer::Switch(m_previous);
        }
    }

    PhaseScope(const PhaseScope&) = delete;
    PhaseScope& operator=(const PhaseScope&) = delete;

  private:
    bool m_active;
    Phase m_previous{Phase::Other};
};

} // namespace fl
} // namespace ns3

#endif // FL_PHASE_TIMER_H
