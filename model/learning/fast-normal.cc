/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fast-normal.h"

#include <cmath>

namespace ns3
{
namespace fl
{

namespace
{

uint64_t
SplitMix64(uint64_t& state)
{
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

double
Density(double x)
{
    return std::exp(-0.5 * x * x); // f(x), the unnormalised standard normal density
}

ZigguratNormal::Tables
MakeTables()
{
    ZigguratNormal::Tables t{};
    // Marsaglia & Tsang (2000), 256 layers: r solves the layer recursion; every layer (and the
    // base strip with the tail) has area v = r f(r) + int_r^inf f.
    t.r = 3.6541528853610088;
    t.v = t.r * Density(t.r) + std::sqrt(M_PI / 2.0) * std::erfc(t.r / std::sqrt(2.0));
    t.x[0] = t.v / Density(t.r);
    t.x[1] = t.r;
    for (std::size_t i = 1; i < 255; ++i)
    {
        // f(x[i+1]) = f(x[i]) + v / x[i]: the layer between them has area v.
        const double y = Density(t.x[i]) + t.v / t.x[i];
        t.x[i + 1] = y < 1.0 ? std::sqrt(-2.0 * std::log(y)) : 0.0;
    }
    t.x[256] = 0.0;
    for (std::size_t i = 1; i <= 256; ++i)
    {
        t.fx[i] = Density(t.x[i]);
    }
    t.fx[0] = 0.0;
    for (std::size_t i = 0; i < 256; ++i)
    {
        t.ratio[i] = t.x[i + 1] / t.x[i];
    }
    return t;
}

} // namespace

Xoshiro256pp::Xoshiro256pp(uint64_t seed)
{
    uint64_t state = seed;
    for (auto& s : m_s)
    {
        s = SplitMix64(state); // never all zero: splitmix64 is a bijection of distinct inputs
    }
}

ZigguratNormal::ZigguratNormal(uint64_t seed)
    : m_engine(seed),
      m_tables(&GetTables())
{
}

const ZigguratNormal::Tables&
ZigguratNormal::GetTables()
{
    static const Tables tables = MakeTables();
    return tables;
}

double
ZigguratNormal::Slow(uint64_t bits, Xoshiro256pp& engine) const
{
    const Tables& t = *m_tables;
    for (;;)
    {
        const auto i = static_cast<std::size_t>(bits & 0xFF);
        const double u = static_cast<double>(static_cast<int64_t>(bits >> 11)) * 0x1.0p-53;
        const double z = u * t.x[i];
        if (u < t.ratio[i])
        {
            return WithSign(z, bits);
        }
        if (i == 0)
        {
            // The tail beyond r (Marsaglia 1964): a = -ln(U1)/r, b = -ln(U2), accept if 2b > a^2.
            for (;;)
            {
                const double a = -std::log1p(-engine.Uniform()) / t.r;
                const double b = -std::log1p(-engine.Uniform());
                if (b + b > a * a)
                {
                    return WithSign(t.r + a, bits);
                }
            }
        }
        // Wedge of layer i: a uniform height between f(x[i]) and f(x[i+1]), under the curve at z?
        if (t.fx[i] + engine.Uniform() * (t.fx[i + 1] - t.fx[i]) < Density(z))
        {
            return WithSign(z, bits);
        }
        bits = engine();
    }
}

void
ZigguratNormal::Fill(double* out, std::size_t n, double stddev)
{
    Xoshiro256pp engine = m_engine;
    for (std::size_t k = 0; k < n; ++k)
    {
        out[k] = stddev * Draw(engine);
    }
    m_engine = engine;
}

void
ZigguratNormal::Add(double* inout, std::size_t n, double stddev)
{
    Xoshiro256pp engine = m_engine;
    for (std::size_t k = 0; k < n; ++k)
    {
        inout[k] += stddev * Draw(engine);
    }
    m_engine = engine;
}

void
FillNormal(Eigen::Ref<Eigen::VectorXd> out, double stddev, uint64_t seed)
{
    ZigguratNormal normal(seed);
    normal.Fill(out.data(), static_cast<std::size_t>(out.size()), stddev);
}

void
AddNormal(Eigen::Ref<Eigen::VectorXd> inout, double stddev, uint64_t seed)
{
    ZigguratNormal normal(seed);
    normal.Add(inout.data(), static_cast<std::size_t>(inout.size()), stddev);
}

} // namespace fl
} // namespace ns3
