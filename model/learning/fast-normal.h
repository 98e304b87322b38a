/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Fast Gaussian noise for long vectors (pure; no ns-3 header): the ziggurat method (Marsaglia &
 * Tsang, "The Ziggurat Method for Generating Random Variables", J. Stat. Softw. 5(8), 2000;
 * 256 layers) driven by xoshiro256++ (Blackman & Vigna). One 64-bit draw gives the layer (8
 * bits), the sign (1 bit) and a 53-bit uniform, so about 99 % of the normals cost one engine
 * call, one multiply and one compare (a few ns) instead of the log and square root of
 * std::normal_distribution.
 *
 * Reproducibility: a generator is a deterministic function of one 64-bit seed, which callers
 * take from their Rng (itself seeded from an ns-3 RandomVariableStream), so --RngRun still
 * reproduces a run bit for bit.
 */
#ifndef FL_FAST_NORMAL_H
#define FL_FAST_NORMAL_H

#include "ns3/fl-types.h"

#include <array>
#include <cstdint>
#include <cstring>

namespace ns3
{
namespace fl
{

/// xoshiro256++ 1.0 (Blackman & Vigna), state filled from one seed by splitmix64.
class Xoshiro256pp
{
  public:
    using result_type = uint64_t;

    explicit Xoshiro256pp(uint64_t seed);

    /// The next 64 random bits.
    uint64_t operator()()
    {
        const uint64_t result = Rotl(m_s[0] + m_s[3], 23) + m_s[0];
        const uint64_t t = m_s[1] << 17;
        m_s[2] ^= m_s[0];
        m_s[3] ^= m_s[1];
        m_s[1] ^= m_s[2];
        m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = Rotl(m_s[3], 45);
        return result;
    }

    static constexpr uint64_t min()
    {
        return 0;
    }

    static constexpr uint64_t max()
    {
        return ~uint64_t(0);
    }

    /// A uniform double in [0, 1) with 53 random bits.
    double Uniform()
    {
        return static_cast<double>((*this)() >> 11) * 0x1.0p-53;
    }

  private:
    static uint64_t Rotl(uint64_t x, int k)
    {
        return (x << k) | (x >> (64 - k));
    }

    std::array<uint64_t, 4> m_s;
};

/// Standard normal draws by the 256-layer ziggurat.
class ZigguratNormal
{
  public:
    /// A generator whose draws are a deterministic function of `seed`.
    explicit ZigguratNormal(uint64_t seed);

    /// One N(0, 1) draw.
    double operator()()
    {
        return Draw(m_engine);
    }

    /// Fills out[0 .. n) with N(0, stddev^2) draws.
    void Fill(double* out, std::size_t n, double stddev);
    /// Adds N(0, stddev^2) draws to inout[0 .. n).
    void Add(double* inout, std::size_t n, double stddev);

    /// The layer table: x[0] = v / f(r) (base strip), x[1] = r, ..., x[256] = 0, with
    /// f(x) = exp(-x^2/2) and every layer of area v (exposed for the tests).
    struct Tables
    {
        std::array<double, 257> x;     ///< layer edges
        std::array<double, 257> fx;    ///< f(x[i]) (fx[0] unused)
        std::array<double, 256> ratio; ///< x[i+1] / x[i]
        double r;                      ///< start of the tail
        double v;                      ///< area of every layer
    };

    /// The shared tables (computed once).
    static const Tables& GetTables();

  private:
    /// One draw from `engine` (a local copy in the loops, so that the state stays in
    /// registers): the fast path is branch-free but for the rectangle test.
    double Draw(Xoshiro256pp& engine) const
    {
        const uint64_t bits = engine();
        const auto i = static_cast<std::size_t>(bits & 0xFF);
        const double u = static_cast<double>(static_cast<int64_t>(bits >> 11)) * 0x1.0p-53;
        if (u < m_tables->ratio[i])
        {
            // Inside the layer's rectangle under the curve (about 99 % of the draws); the sign
            // (bit 8) is put into the sign bit without a branch.
            return WithSign(u * m_tables->x[i], bits);
        }
        Xoshiro256pp copy = engine; // only the slow path takes the engine's address
        const double z = Slow(bits, copy);
        engine = copy;
        return z;
    }

    /// z with its sign bit flipped if bit 8 of `bits` is set.
    static double WithSign(double z, uint64_t bits)
    {
        uint64_t raw;
        std::memcpy(&raw, &z, sizeof raw);
        raw ^= (bits & 0x100) << 55;
        std::memcpy(&z, &raw, sizeof raw);
        return z;
    }

    /// The rest of a draw whose first 64 bits fell outside their layer's rectangle: the tail
    /// (layer 0) or the wedge test, and new draws until one is accepted.
    double Slow(uint64_t bits, Xoshiro256pp& engine) const;

    Xoshiro256pp m_engine;
    const Tables* m_tables;
};

/// Fills `out` with N(0, stddev^2) draws from a ZigguratNormal seeded with `seed`.
void FillNormal(Eigen::Ref<Eigen::VectorXd> out, double stddev, uint64_t seed);

/// Adds N(0, stddev^2) draws from a ZigguratNormal seeded with `seed` to `inout`.
void AddNormal(Eigen::Ref<Eigen::VectorXd> inout, double stddev, uint64_t seed);

} // namespace fl
} // namespace ns3

#endif // FL_FAST_NORMAL_H
