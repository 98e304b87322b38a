/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/noise-source.h"

#include "ns3/fl-types.h"

#include <sodium.h>

namespace ns3
{
namespace fl
{

const char*
NoiseSourceName(NoiseSource source)
{
    return source == NoiseSource::Sodium ? "sodium" : "run-seed";
}

NoiseSource
ParseNoiseSource(const std::string& name, const std::string& parameter)
{
    if (name == "run-seed" || name == "RunSeed")
    {
        return NoiseSource::RunSeed;
    }
    if (name == "sodium" || name == "Sodium")
    {
        return NoiseSource::Sodium;
    }
    throw ConfigError(parameter,
                      "is '" + name + "'",
                      "use run-seed (noise derived from the run seed, reproducible) or sodium "
                      "(seeds from libsodium's generator, not reproducible)");
}

uint64_t
NoiseSeed(NoiseSource source, uint64_t derived)
{
    if (source == NoiseSource::RunSeed)
    {
        return derived;
    }
    if (sodium_init() < 0)
    {
        throw ConfigError("NoiseSource",
                          "sodium: libsodium could not be initialised",
                          "use run-seed, or check the libsodium installation");
    }
    uint64_t seed = 0;
    randombytes_buf(&seed, sizeof(seed));
    return seed;
}

std::string
NoiseAssumption(NoiseSource source)
{
    if (source == NoiseSource::Sodium)
    {
        return "noise seeds from libsodium's generator (randombytes_buf): the adversary is "
               "assumed unable to predict them, and results change from run to run";
    }
    return "noise derived from the run seed (RngSeed, RngRun), reproducible: the adversary is "
           "assumed not to know the run seed (whoever knows it and the code recomputes the "
           "noise and removes it)";
}

} // namespace fl
} // namespace ns3
