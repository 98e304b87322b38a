/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A public randomness beacon for the SecAgg+ communication graph, pure (no ns-3 header).
 *
 * SecAgg+ (Bell, Bonawitz, Gascón, Lepoint and Raykova, "Secure Single-Server Aggregation with
 * (Poly)Logarithmic Overhead", ACM CCS 2020) is private only if the Harary graph is random with
 * respect to the corrupt clients: a server that may choose the graph (or redraw it) searches
 * until its colluders surround a victim. Here the graph is fixed by a value the server cannot
 * choose, as Flamingo (Ma, Woods, Angel, Polychroniadou and Rabin, "Flamingo: Multi-Round
 * Single-Server Secure Aggregation with Applications to Private Federated Learning", IEEE S&P
 * 2023) does with a public beacon: the server announces the cohort (the roster) together with a
 * beacon round that is not yet published when the clients receive the announcement; once the
 * round is published, every party computes the graph seed from the beacon's value, the instance
 * and the roster (SecAggGraphSeed). The server fixed the roster before it could know the value,
 * so it can neither bias nor redraw the graph of that cohort; every further try costs it a new
 * instance that the clients take part in (the failure bound of SecAggPlusParameters is per
 * instance).
 *
 * The beacon is simulated, like the PKI: round r is published at r * period seconds, and its
 * value is BLAKE2b-256 keyed with the beacon's 32-byte secret over "fl-secagg-beacon" || r (u64
 * LE) — unpredictable to whoever does not hold the secret, the same for every party (a real
 * deployment reads a public beacon such as drand, whose values are threshold BLS signatures;
 * this model assumes that every party obtains round r's value at its publication time, without
 * network cost). The parties of this module read a round only once it is published.
 */
#ifndef FL_SECAGG_BEACON_H
#define FL_SECAGG_BEACON_H

#include "ns3/secagg-primitives.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{
namespace fl
{

/// One published value of the beacon.
using SecAggBeaconValue = std::array<uint8_t, 32>;

/**
 * The simulated public randomness beacon (see the file comment).
 */
class SecAggBeacon
{
  public:
    /**
     * @param secret the beacon's 32-byte key (only the beacon knows it)
     * @param periodSeconds time between two published rounds (> 0, finite)
     * Throws ConfigError naming "beaconPeriod" otherwise.
     */
    SecAggBeacon(const MaskSecret& secret, double periodSeconds);
    ~SecAggBeacon();
    SecAggBeacon(const SecAggBeacon& other);
    SecAggBeacon& operator=(const SecAggBeacon& other);

    /// The period between two rounds [s].
    double Period() const
    {
        return m_period;
    }

    /// When round `round` is published [s]: round * period.
    double PublishedAt(uint64_t round) const;

    /// The first round published strictly after `seconds` (>= 0).
    uint64_t FirstRoundAfter(double seconds) const;

    /// Round `round`'s value.
    SecAggBeaconValue Value(uint64_t round) const;

  private:
    MaskSecret m_secret{};
    double m_period{1.0};
};

/**
 * The Harary graph seed of an instance: the first 8 bytes (little-endian) of
 * BLAKE2b-256("fl-secagg-graph" || beacon value || instance (u64 LE) || n (u32 LE) || the
 * roster's ids (u32 LE, ascending)). Every client computes it itself; a setup whose graph is not
 * this one is refused.
 */
uint64_t SecAggGraphSeed(const SecAggBeaconValue& value,
                         uint64_t instance,
                         const std::vector<uint32_t>& roster);

} // namespace fl
} // namespace ns3

#endif // FL_SECAGG_BEACON_H
