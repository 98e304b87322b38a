/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Where the seeds of privacy noise come from (pure; no ns-3 header).
 *
 * Every noise draw of the module comes from an engine seeded with a 64-bit seed. By default
 * (NoiseSource::RunSeed) that seed is derived from the run's seed (ns-3's RngSeed and RngRun
 * through a RandomVariableStream), so that --RngRun reproduces a run bit for bit. Anyone who
 * knows the run seed and the code can then recompute every noise vector and subtract it: every
 * epsilon the module reports therefore assumes an adversary who does not know the run seed and
 * cannot predict the noise. NoiseSource::Sodium draws each noise seed from libsodium's
 * cryptographically secure generator (randombytes_buf) instead, for those who use the code as a
 * reference implementation of a mechanism: results then change from run to run.
 */
#ifndef FL_NOISE_SOURCE_H
#define FL_NOISE_SOURCE_H

#include <cstdint>
#include <string>

namespace ns3
{
namespace fl
{

/// Where the seed of a noise engine comes from.
enum class NoiseSource : uint8_t
{
    RunSeed = 0, ///< derived from the run seed: reproducible (--RngRun), predictable by anyone
                 ///< who knows the run seed
    Sodium = 1,  ///< libsodium's CSPRNG (randombytes_buf): unpredictable, not reproducible
};

/// "run-seed" or "sodium".
const char* NoiseSourceName(NoiseSource source);

/**
 * Parses "run-seed" (also "RunSeed") or "sodium" (also "Sodium"); throws ConfigError naming
 * `parameter` otherwise.
 */
NoiseSource ParseNoiseSource(const std::string& name, const std::string& parameter);

/**
 * The seed of a noise engine: `derived` (a seed derived from the run seed, e.g.
 * UplinkNoiseSeed) for RunSeed, 64 bits from libsodium's randombytes_buf for Sodium (`derived`
 * is then ignored). Throws ConfigError if libsodium cannot be initialised.
 */
uint64_t NoiseSeed(NoiseSource source, uint64_t derived);

/**
 * What an epsilon assumes about the noise, for a PrivacyStatement: with RunSeed, that the
 * adversary does not know the run seed (the noise is a function of it, and of public code);
 * with Sodium, that libsodium's generator is unpredictable.
 */
std::string NoiseAssumption(NoiseSource source);

} // namespace fl
} // namespace ns3

#endif // FL_NOISE_SOURCE_H
