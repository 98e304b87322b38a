/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/neighbour-discovery.h"

#include "ns3/fl-types.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace ns3
{
namespace fl
{

namespace
{
constexpr uint32_t kHelloMagic = 0x484c4f31u; // "HLO1"
constexpr std::size_t kHelloHeader = 16;

void
PutU32(std::vector<uint8_t>& out, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
    {
        out.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
}

uint32_t
GetU32(const std::vector<uint8_t>& in, std::size_t at)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
    {
        v |= static_cast<uint32_t>(in[at + i]) << (8 * i);
    }
    return v;
}
} // namespace

std::vector<uint8_t>
PackHello(const Hello& hello)
{
    std::vector<uint8_t> out;
    out.reserve(kHelloHeader + 4 * hello.heard.size());
    PutU32(out, kHelloMagic);
    PutU32(out, hello.sender);
    PutU32(out, hello.degree);
    PutU32(out, static_cast<uint32_t>(hello.heard.size()));
    for (uint32_t id : hello.heard)
    {
        PutU32(out, id);
    }
    return out;
}

bool
UnpackHello(const std::vector<uint8_t>& bytes, Hello& hello)
{
    if (bytes.size() < kHelloHeader || GetU32(bytes, 0) != kHelloMagic)
    {
        return false;
    }
    const uint32_t count = GetU32(bytes, 12);
    if (count > kMaxHelloNeighbours || bytes.size() != kHelloHeader + 4 * std::size_t{count})
    {
        return false; // checked before anything is allocated
    }
    Hello h;
    h.sender = GetU32(bytes, 4);
    h.degree = GetU32(bytes, 8);
    if (h.degree > count)
    {
        return false; // a symmetric neighbour is heard
    }
    h.heard.reserve(count);
    for (uint32_t i = 0; i < count; ++i)
    {
        const uint32_t id = GetU32(bytes, kHelloHeader + 4 * std::size_t{i});
        if (id == h.sender || (!h.heard.empty() && id <= h.heard.back()))
        {
            return false;
        }
        h.heard.push_back(id);
    }
    hello = std::move(h);
    return true;
}

NeighbourTable::NeighbourTable(uint32_t self, double timeout)
    : m_self(self),
      m_timeout(timeout)
{
    if (!(timeout > 0.0) || !std::isfinite(timeout))
    {
        throw ConfigError("timeout",
                          "must be a finite number of seconds > 0",
                          "give a few hello periods, e.g. 3 x the hello interval");
    }
}

void
NeighbourTable::Heard(const Hello& hello, double now)
{
    if (hello.sender == m_self)
    {
        return;
    }
    Entry& e = m_entries[hello.sender];
    e.heardAt = now;
    e.degree = hello.degree;
    e.listsSelf = std::binary_search(hello.heard.begin(), hello.heard.end(), m_self);
}

bool
NeighbourTable::Current(const Entry& e, double now) const
{
    return now - e.heardAt <= m_timeout;
}

void
NeighbourTable::Expire(double now)
{
    for (auto it = m_entries.begin(); it != m_entries.end();)
    {
        it = Current(it->second, now) ? std::next(it) : m_entries.erase(it);
    }
}

std::vector<uint32_t>
NeighbourTable::HeardNodes(double now) const
{
    std::vector<uint32_t> out;
    for (const auto& [id, e] : m_entries)
    {
        if (Current(e, now))
        {
            out.push_back(id);
        }
    }
    return out;
}

std::vector<uint32_t>
NeighbourTable::Neighbours(double now) const
{
    std::vector<uint32_t> out;
    for (const auto& [id, e] : m_entries)
    {
        if (Current(e, now) && e.listsSelf)
        {
            out.push_back(id);
        }
    }
    return out;
}

std::map<uint32_t, uint32_t>
NeighbourTable::NeighbourDegrees(double now) const
{
    std::map<uint32_t, uint32_t> out;
    for (const auto& [id, e] : m_entries)
    {
        if (Current(e, now) && e.listsSelf)
        {
            out[id] = e.degree;
        }
    }
    return out;
}

Hello
NeighbourTable::MakeHello(double now) const
{
    Hello h;
    h.sender = m_self;
    h.heard = HeardNodes(now);
    h.degree = static_cast<uint32_t>(Neighbours(now).size());
    return h;
}

uint32_t
NeighbourTable::Self() const
{
    return m_self;
}

double
NeighbourTable::Timeout() const
{
    return m_timeout;
}

std::map<uint32_t, double>
LocalMetropolisWeights(uint32_t self,
                       uint32_t selfDegree,
                       const std::map<uint32_t, uint32_t>& neighbours)
{
    if (selfDegree < neighbours.size() || neighbours.count(self) != 0)
    {
        throw ConfigError("selfDegree",
                          std::to_string(selfDegree) + " with " +
                              std::to_string(neighbours.size()) +
                              " neighbours (or self among them)",
                          "give the node's degree: its number of neighbours");
    }
    const double nk = static_cast<double>(selfDegree) + 1.0;
    std::map<uint32_t, double> column;
    double sum = 0.0;
    for (const auto& [l, degree] : neighbours)
    {
        const double a = 1.0 / std::max(nk, static_cast<double>(degree) + 1.0);
        column[l] = a;
        sum += a;
    }
    column[self] = 1.0 - sum;
    return column;
}

double
StochasticityError(const std::map<uint32_t, std::map<uint32_t, double>>& columns)
{
    std::map<uint32_t, double> received; // sender l -> sum_k a_lk
    for (const auto& [k, column] : columns)
    {
        for (const auto& [l, a] : column)
        {
            received[l] += a;
        }
    }
    double worst = 0.0;
    for (const auto& [l, sum] : received)
    {
        worst = std::max(worst, std::abs(sum - 1.0));
    }
    return worst;
}

} // namespace fl
} // namespace ns3
