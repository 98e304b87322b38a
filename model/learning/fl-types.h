/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Basic types of the pure learning layer (no ns-3 headers here).
 */
#ifndef FL_TYPES_H
#define FL_TYPES_H

#include <Eigen/Core>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>

namespace ns3
{
namespace fl
{

/**
 * Random engine used by every pure function that draws random numbers. Pure code never owns
 * global random state: the caller passes an engine, usually seeded from an ns-3
 * RandomVariableStream so that --RngRun reproduces a run bit for bit.
 */
using Rng = std::mt19937_64;

/**
 * Derives an independent 64-bit seed from a base seed and up to two indices (splitmix64
 * finaliser over the combination). Used to give every (client, round) its own engine so that
 * results do not depend on event order.
 */
inline uint64_t
DeriveSeed(uint64_t base, uint64_t a, uint64_t b = 0)
{
    auto mix = [](uint64_t z) {
        z += 0x9E3779B97F4A7C15ULL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    };
    return mix(mix(mix(base) ^ a) ^ (b * 0xD6E8FEB86659FD93ULL));
}

/// Column vector of scalar S (a flat parameter vector, a gradient, a target vector).
template <typename S>
using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1>;

/// Row-major dense matrix of scalar S (one sample per row).
template <typename S>
using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Floating-point precision of a vector in memory or on the wire.
enum class Precision : uint8_t
{
    Float64 = 1, ///< IEEE-754 binary64
    Float32 = 2, ///< IEEE-754 binary32
};

/// Size in bytes of one element of the given precision.
inline std::size_t
PrecisionBytes(Precision p)
{
    return p == Precision::Float64 ? 8 : 4;
}

/// Name of a precision ("float64" or "float32").
inline const char*
PrecisionName(Precision p)
{
    return p == Precision::Float64 ? "float64" : "float32";
}

/// Parses "float64"/"double"/"f64" or "float32"/"float"/"f32"; throws ConfigError otherwise.
Precision ParsePrecision(const std::string& name, const std::string& parameter);

/// Precision that corresponds to a C++ scalar type.
template <typename S>
constexpr Precision
PrecisionOf()
{
    static_assert(std::is_same<S, double>::value || std::is_same<S, float>::value,
                  "the fl learning core supports double and float scalars");
    return std::is_same<S, double>::value ? Precision::Float64 : Precision::Float32;
}

/**
 * A configuration error: the message names the parameter and says how to fix it.
 * Pure layers throw it; ns-3 layers turn it into NS_FATAL_ERROR or a CommandLine error.
 */
class ConfigError : public std::invalid_argument
{
  public:
    ConfigError(const std::string& parameter, const std::string& problem, const std::string& fix)
        : std::invalid_argument("fl: invalid " + parameter + ": " + problem + " (fix: " + fix +
                                ")"),
          m_parameter(parameter)
    {
    }

    /// Name of the offending parameter.
    const std::string& Parameter() const
    {
        return m_parameter;
    }

  private:
    std::string m_parameter;
};

/// Exit status of a program stopped by a bad setting (as a bad command-line flag).
constexpr int kExitConfigError = 2;

/**
 * Ends the program after a configuration error found while the simulation runs (in an event,
 * where an exception would escape Simulator::Run uncaught): prints "<who>: <message>" on the
 * error stream and exits with status kExitConfigError. Buffered output is flushed first;
 * destructors do not run (the simulator is in the middle of an event).
 */
[[noreturn]] inline void
ExitOnConfigError(const std::string& who, const std::exception& e)
{
    std::fflush(stdout);
    std::fprintf(stderr, "%s: %s\n", who.c_str(), e.what());
    std::fflush(stderr);
    std::_Exit(kExitConfigError);
}

/// ExitOnConfigError with the error's message.
[[noreturn]] inline void
ExitOnConfigError(const std::string& who, const std::string& message)
{
    ExitOnConfigError(who, std::invalid_argument(message));
}

/// A data file could not be read (missing, truncated, wrong format). The message names the file.
class DataError : public std::runtime_error
{
  public:
    explicit DataError(const std::string& what)
        : std::runtime_error("fl: " + what)
    {
    }
};

} // namespace fl
} // namespace ns3

#endif // FL_TYPES_H
