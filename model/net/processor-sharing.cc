/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/processor-sharing.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace ns3
{
namespace fl
{

double
SharedCapacity(std::size_t senders, double contention)
{
    const double extra = senders > 1 ? static_cast<double>(senders - 1) : 0.0;
    return 1.0 / (1.0 + contention * extra);
}

ProcessorSharingMedium::ProcessorSharingMedium(double contention, SharingDiscipline discipline)
    : m_contention(contention),
      m_discipline(discipline)
{
}

std::size_t
ProcessorSharingMedium::Served() const
{
    return m_discipline == SharingDiscipline::PerFlow ? m_flows.size() : m_senders.size();
}

bool
ProcessorSharingMedium::InService(uint64_t id) const
{
    auto it = m_flows.find(id);
    if (it == m_flows.end())
    {
        return false;
    }
    if (m_discipline == SharingDiscipline::PerFlow)
    {
        return true;
    }
    return m_senders.at(it->second.sender).begin()->second == id;
}

double
ProcessorSharingMedium::RatePerFlow() const
{
    if (m_flows.empty())
    {
        return 0.0;
    }
    return SharedCapacity(m_senders.size(), m_contention) / static_cast<double>(Served());
}

void
ProcessorSharingMedium::Advance(double now)
{
    if (now > m_now && !m_flows.empty())
    {
        const double served = RatePerFlow() * (now - m_now);
        for (auto& kv : m_flows)
        {
            if (InService(kv.first))
            {
                kv.second.remaining = std::max(0.0, kv.second.remaining - served);
            }
        }
    }
    m_now = std::max(m_now, now);
}

void
ProcessorSharingMedium::Add(uint64_t id, double work, uint32_t sender)
{
    Remove(id);
    const uint64_t order = m_added++;
    m_flows[id] = Flow{std::max(0.0, work), sender, order};
    m_senders[sender][order] = id;
}

void
ProcessorSharingMedium::Remove(uint64_t id)
{
    auto it = m_flows.find(id);
    if (it == m_flows.end())
    {
        return;
    }
    auto s = m_senders.find(it->second.sender);
    s->second.erase(it->second.order);
    if (s->second.empty())
    {
        m_senders.erase(s);
    }
    m_flows.erase(it);
}

bool
ProcessorSharingMedium::NextCompletion(uint64_t& id, double& time) const
{
    if (m_flows.empty())
    {
        return false;
    }
    // every flow in service is served at the same rate: the one with the least work left ends
    // first (ties: the smallest id)
    bool found = false;
    double least = 0.0;
    for (const auto& kv : m_flows)
    {
        if (InService(kv.first) && (!found || kv.second.remaining < least))
        {
            found = true;
            least = kv.second.remaining;
            id = kv.first;
        }
    }
    time = m_now + least / RatePerFlow();
    return true;
}

double
ProcessorSharingMedium::Remaining(uint64_t id) const
{
    auto it = m_flows.find(id);
    return it == m_flows.end() ? 0.0 : it->second.remaining;
}

std::vector<double>
ProcessorSharingCompletions(const std::vector<SharedFlow>& flows,
                            double contention,
                            SharingDiscipline discipline)
{
    std::vector<std::size_t> order(flows.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&flows](std::size_t a, std::size_t b) {
        return flows[a].arrival < flows[b].arrival;
    });
    std::vector<double> done(flows.size(), std::numeric_limits<double>::quiet_NaN());
    ProcessorSharingMedium medium(contention, discipline);
    std::size_t next = 0;
    while (next < order.size() || !medium.Empty())
    {
        uint64_t id = 0;
        double end = std::numeric_limits<double>::infinity();
        medium.NextCompletion(id, end);
        if (next < order.size() && flows[order[next]].arrival < end)
        {
            const SharedFlow& f = flows[order[next]];
            medium.Advance(f.arrival);
            medium.Add(order[next], f.work, f.sender);
            ++next;
            continue;
        }
        medium.Advance(end);
        medium.Remove(id);
        done[id] = end;
    }
    return done;
}

} // namespace fl
} // namespace ns3
