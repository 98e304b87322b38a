/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secagg-beacon.h"

#include <cmath>
#include <sodium.h>
#include <string>

namespace ns3
{
namespace fl
{

namespace
{

void
AppendLe(std::vector<uint8_t>& out, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i)
    {
        out.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
}

void
AppendText(std::vector<uint8_t>& out, const char* text)
{
    while (*text)
    {
        out.push_back(static_cast<uint8_t>(*text++));
    }
}

} // namespace

SecAggBeacon::SecAggBeacon(const MaskSecret& secret, double periodSeconds)
    : m_secret(secret),
      m_period(periodSeconds)
{
    EnsureSodiumReady();
    if (!(periodSeconds > 0.0) || !std::isfinite(periodSeconds))
    {
        sodium_memzero(m_secret.data(), m_secret.size());
        throw ConfigError("beaconPeriod",
                          "is " + std::to_string(periodSeconds) + " s",
                          "give a positive, finite period between beacon rounds");
    }
}

SecAggBeacon::~SecAggBeacon()
{
    sodium_memzero(m_secret.data(), m_secret.size());
}

SecAggBeacon::SecAggBeacon(const SecAggBeacon& other) = default;
SecAggBeacon& SecAggBeacon::operator=(const SecAggBeacon& other) = default;

double
SecAggBeacon::PublishedAt(uint64_t round) const
{
    return static_cast<double>(round) * m_period;
}

uint64_t
SecAggBeacon::FirstRoundAfter(double seconds) const
{
    if (!(seconds >= 0.0))
    {
        return 0;
    }
    uint64_t r = static_cast<uint64_t>(std::floor(seconds / m_period));
    while (PublishedAt(r) <= seconds)
    {
        ++r; // exact with respect to PublishedAt's rounding
    }
    while (r > 0 && PublishedAt(r - 1) > seconds)
    {
        --r;
    }
    return r;
}

SecAggBeaconValue
SecAggBeacon::Value(uint64_t round) const
{
    std::vector<uint8_t> m;
    AppendText(m, "fl-secagg-beacon");
    AppendLe(m, round, 8);
    SecAggBeaconValue v;
    crypto_generichash(v.data(),
                       v.size(),
                       m.data(),
                       m.size(),
                       m_secret.data(),
                       m_secret.size());
    return v;
}

uint64_t
SecAggGraphSeed(const SecAggBeaconValue& value,
                uint64_t instance,
                const std::vector<uint32_t>& roster)
{
    EnsureSodiumReady();
    std::vector<uint8_t> m;
    AppendText(m, "fl-secagg-graph");
    m.insert(m.end(), value.begin(), value.end());
    AppendLe(m, instance, 8);
    AppendLe(m, roster.size(), 4);
    for (uint32_t id : roster)
    {
        AppendLe(m, id, 4);
    }
    uint8_t h[32];
    crypto_generichash(h, sizeof(h), m.data(), m.size(), nullptr, 0);
    uint64_t seed = 0;
    for (int i = 0; i < 8; ++i)
    {
        seed |= static_cast<uint64_t>(h[i]) << (8 * i);
    }
    return seed;
}

} // namespace fl
} // namespace ns3
