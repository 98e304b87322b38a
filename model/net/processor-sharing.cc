/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/processor-sharing.h"

#include <cmath>

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

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

double
FlowMessageAirtime(double wireBytes,
                   double rate,
                   double efficiency,
                   double packets,
                   double perPacketS)
{
    return wireBytes * 8.0 / (rate * efficiency) + packets * perPacketS;
}

double
BulkLoadCapacity(std::size_t bulk, double free, double penalty)
{
    if (bulk == 0 || static_cast<double>(bulk) <= free)
    {
        return 1.0;
    }
    return 1.0 / (1.0 + penalty * (1.0 - free / static_cast<double>(bulk)));
}

double
AssociationSuccesses(double contenders, double capacity, double sharpness)
{
    if (contenders <= 0.0)
    {
        return 0.0;
    }
    return std::pow(std::pow(contenders, -sharpness) + std::pow(capacity, -sharpness),
                    -1.0 / sharpness);
}

double
AssociationFailureProbability(double contenders, double capacity, double sharpness)
{
    if (contenders <= 0.0)
    {
        return 0.0;
    }
    return 1.0 - AssociationSuccesses(contenders, capacity, sharpness) / contenders;
}

double
AssociationTime(uint32_t attempt, uint32_t rank, const AssociationModel& model)
{
    return model.firstS + attempt * model.retryS + (rank + 1.0) * model.perStationS;
}

std::vector<double>
DrawAssociationTimes(uint32_t stations,
                     const AssociationModel& model,
                     const std::function<double()>& uniform)
{
    std::vector<double> t(stations, 0.0);
    std::vector<uint32_t> waiting(stations);
    for (uint32_t i = 0; i < stations; ++i)
    {
        waiting[i] = i;
    }
    for (uint32_t attempt = 0; !waiting.empty(); ++attempt)
    {
        if (attempt == model.maxAttempts)
        {
            for (uint32_t r = 0; r < waiting.size(); ++r)
            {
                t[waiting[r]] = AssociationTime(attempt, r, model);
            }
            break;
        }
        const double p = AssociationFailureProbability(static_cast<double>(waiting.size()),
                                                       model.capacity,
                                                       model.sharpness);
        std::vector<uint32_t> failed;
        uint32_t rank = 0;
        for (const uint32_t i : waiting)
        {
            if (uniform() < p)
            {
                failed.push_back(i);
            }
            else
            {
                t[i] = AssociationTime(attempt, rank++, model);
            }
        }
        waiting.swap(failed);
    }
    return t;
}

ProcessorSharingMedium::ProcessorSharingMedium(double contention, SharingDiscipline discipline)
    : m_contention(contention),
      m_discipline(discipline)
{
}

void
ProcessorSharingMedium::SetBulkLoad(double free, double penalty)
{
    m_bulkFree = std::max(0.0, free);
    m_bulkPenalty = std::max(0.0, penalty);
}

double
ProcessorSharingMedium::Capacity() const
{
    return SharedCapacity(m_senders.size(), m_contention) *
           BulkLoadCapacity(m_bulk, m_bulkFree, m_bulkPenalty);
}

bool
ProcessorSharingMedium::InService(uint64_t id) const
{
    auto it = m_flows.find(id);
    if (it == m_flows.end())
    {
        return false;
    }
    if (m_discipline == SharingDiscipline::PerSender)
    {
        return m_senders.at(it->second.sender).begin()->second == id;
    }
    if (m_discipline == SharingDiscipline::BySize)
    {
        const uint64_t oldest = m_senders.at(it->second.sender).begin()->second;
        // a short oldest flow leaves alone; behind a bulk one, the sender's bulk flows share
        return oldest == id || (it->second.bulk && m_flows.at(oldest).bulk);
    }
    return true;
}

double
ProcessorSharingMedium::Rate(uint64_t id) const
{
    auto it = m_flows.find(id);
    if (it == m_flows.end() || !InService(id))
    {
        return 0.0;
    }
    const double capacity = Capacity();
    switch (m_discipline)
    {
    case SharingDiscipline::PerFlow:
        return capacity / static_cast<double>(m_flows.size());
    case SharingDiscipline::PerSender:
        return capacity / static_cast<double>(m_senders.size());
    case SharingDiscipline::PerSenderShared:
        return capacity / static_cast<double>(m_senders.size()) /
               static_cast<double>(m_senders.at(it->second.sender).size());
    case SharingDiscipline::BySize: {
        if (!it->second.bulk)
        {
            return capacity / static_cast<double>(m_senders.size());
        }
        std::size_t bulk = 0; // the sender's bulk flows (all in service: its oldest is bulk)
        for (const auto& kv : m_senders.at(it->second.sender))
        {
            bulk += m_flows.at(kv.second).bulk ? 1 : 0;
        }
        return capacity / static_cast<double>(m_senders.size()) / static_cast<double>(bulk);
    }
    }
    return 0.0;
}

void
ProcessorSharingMedium::Advance(double now)
{
    if (now > m_now && !m_flows.empty())
    {
        std::vector<double> rates;
        rates.reserve(m_flows.size());
        for (const auto& kv : m_flows)
        {
            rates.push_back(Rate(kv.first)); // every rate before any flow changes
        }
        std::size_t i = 0;
        for (auto& kv : m_flows)
        {
            kv.second.remaining = std::max(0.0, kv.second.remaining - rates[i++] * (now - m_now));
        }
    }
    m_now = std::max(m_now, now);
}

void
ProcessorSharingMedium::Add(uint64_t id, double work, uint32_t sender, bool bulk)
{
    Remove(id);
    const uint64_t order = m_added++;
    m_flows[id] = Flow{std::max(0.0, work), sender, order, bulk};
    m_bulk += bulk ? 1 : 0;
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
    m_bulk -= it->second.bulk ? 1 : 0;
    m_flows.erase(it);
}

bool
ProcessorSharingMedium::NextCompletion(uint64_t& id, double& time) const
{
    if (m_flows.empty())
    {
        return false;
    }
    // the flow in service whose work left takes the least time at its rate ends first (ties:
    // the smallest id)
    bool found = false;
    double least = 0.0;
    for (const auto& kv : m_flows)
    {
        const double rate = Rate(kv.first);
        if (rate <= 0.0)
        {
            continue;
        }
        const double left = kv.second.remaining / rate;
        if (!found || left < least)
        {
            found = true;
            least = left;
            id = kv.first;
        }
    }
    time = m_now + least;
    return found;
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
                            SharingDiscipline discipline,
                            double bulkFree,
                            double bulkPenalty)
{
    std::vector<std::size_t> order(flows.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&flows](std::size_t a, std::size_t b) {
        return flows[a].arrival < flows[b].arrival;
    });
    std::vector<double> done(flows.size(), std::numeric_limits<double>::quiet_NaN());
    ProcessorSharingMedium medium(contention, discipline);
    medium.SetBulkLoad(bulkFree, bulkPenalty);
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
            medium.Add(order[next], f.work, f.sender, f.bulk);
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
