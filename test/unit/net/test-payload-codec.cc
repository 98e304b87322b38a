/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Payload encodings: float16 conversion (exhaustive over all half values, known values, ties,
 * subnormals, saturation, NaN), unbiased stochastic int8 quantisation (mean error within a
 * bound derived from its variance, fixed seed), byte sizes, and exact float64/float32 round
 * trips.
 */
#include "ns3/model-message.h"
#include "ns3/payload-codec.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

using namespace ns3::fl;

namespace
{

uint32_t
Bits(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

float
FromBits(uint32_t u)
{
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

/// The value of a finite half from its fields, computed independently of the codec.
double
HalfValue(uint16_t h)
{
    const int sign = (h & 0x8000) ? -1 : 1;
    const int e = (h >> 10) & 0x1F;
    const int m = h & 0x3FF;
    const double mag = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
    return sign * mag;
}

/**
 * Reference binary64 -> binary16 for finite x: scale |x| by a power of two so that the half's
 * last mantissa bit has weight 1 (exact), round to nearest even with nearbyint (exact), scale
 * back. Saturates beyond 65504 as the codec does.
 */
uint16_t
ReferenceDoubleToHalf(double x)
{
    const double a = std::fabs(x);
    const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    int exp = 0;
    std::frexp(a, &exp); // a = f 2^exp, f in [0.5, 1)
    const int ulpExp = a < std::ldexp(1.0, -14) ? -24 : exp - 11;
    const double r = std::ldexp(std::nearbyint(std::ldexp(a, -ulpExp)), ulpExp);
    if (r > 65504.0)
    {
        return sign | 0x7BFF;
    }
    // r is a half value: find its bits from the (exact) float conversion.
    const uint32_t fb = Bits(static_cast<float>(r));
    if (r == 0.0)
    {
        return sign;
    }
    if (r < std::ldexp(1.0, -14))
    {
        return sign | static_cast<uint16_t>(std::ldexp(r, 24));
    }
    const int e = static_cast<int>((fb >> 23) & 0xFF) - 127 + 15;
    return sign | static_cast<uint16_t>((e << 10) | ((fb >> 13) & 0x3FF));
}

ParamVector
RandomParams(Precision p, std::size_t n, uint64_t seed, double sigma = 1.0)
{
    Rng rng(seed);
    std::normal_distribution<double> g(0.0, sigma);
    Eigen::VectorXd v(static_cast<Eigen::Index>(n));
    for (auto& x : v)
    {
        x = g(rng);
    }
    return p == Precision::Float64 ? ParamVector(v) : ParamVector(Eigen::VectorXf(v.cast<float>()));
}

std::vector<uint8_t>
Encode(const ParamVector& v, WireEncoding e, Rng* rng = nullptr, EncodeReport* report = nullptr)
{
    std::vector<uint8_t> out(EncodedSize(e, v.Size()));
    const EncodeReport r = EncodePayload(v, e, rng, out.data());
    if (report)
    {
        *report = r;
    }
    return out;
}

} // namespace

TEST(Float16, EveryHalfRoundTripsExactly)
{
    for (uint32_t h = 0; h < 65536; ++h)
    {
        const auto hh = static_cast<uint16_t>(h);
        const float f = HalfToFloat(hh);
        ASSERT_EQ(FloatToHalf(f), hh) << std::hex << h;
        const bool isNan = (h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0;
        if (isNan)
        {
            ASSERT_TRUE(std::isnan(f));
            // float -> double quietens a signalling NaN: the quiet bit appears, the rest stays.
            ASSERT_EQ(DoubleToHalf(static_cast<double>(f)), hh | 0x200) << std::hex << h;
        }
        else if ((h & 0x7C00) == 0x7C00)
        {
            ASSERT_TRUE(std::isinf(f));
            ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0);
            ASSERT_EQ(DoubleToHalf(static_cast<double>(f)), hh);
        }
        else
        {
            ASSERT_EQ(static_cast<double>(f), HalfValue(hh)) << std::hex << h;
            ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0);
            ASSERT_EQ(DoubleToHalf(static_cast<double>(f)), hh) << std::hex << h;
        }
    }
}

TEST(Float16, KnownValues)
{
    EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
    EXPECT_EQ(FloatToHalf(-2.0f), 0xC000);
    EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);
    EXPECT_EQ(FloatToHalf(-65504.0f), 0xFBFF);
    EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);    // smallest subnormal
    EXPECT_EQ(FloatToHalf(std::ldexp(1023.0f, -24)), 0x03FF); // largest subnormal
    EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -14)), 0x0400);    // smallest normal
    EXPECT_EQ(FloatToHalf(0.0f), 0x0000);
    EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
    EXPECT_EQ(FloatToHalf(0.5f), 0x3800);
    EXPECT_EQ(FloatToHalf(1.0f / 3.0f), 0x3555);
    // 0.1 = 0x2E66.66..: rounds down to 0x2E66 = 0.0999755859375.
    EXPECT_EQ(FloatToHalf(0.1f), 0x2E66);
    EXPECT_EQ(DoubleToHalf(0.1), 0x2E66);
    EXPECT_EQ(HalfToFloat(0x2E66), 0.0999755859375f);
    EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));
    EXPECT_EQ(HalfToFloat(0x7BFF), 65504.0f);
    EXPECT_EQ(HalfToFloat(0xC000), -2.0f);
    // Below half the smallest subnormal: zero with the sign kept.
    EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -26)), 0x0000);
    EXPECT_EQ(FloatToHalf(-std::ldexp(1.0f, -26)), 0x8000);
    EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::denorm_min()), 0x0000);
    EXPECT_EQ(DoubleToHalf(std::numeric_limits<double>::denorm_min()), 0x0000);
}

TEST(Float16, RoundToNearestEvenTies)
{
    // Normal range around 1: the half step is 2^-10.
    EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);     // tie -> even (down)
    EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02); // tie -> even (up)
    EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3C01);
    EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11) - std::ldexp(1.0f, -20)), 0x3C00);
    // Subnormal range: the step is 2^-24.
    EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);     // 0.5 ulp: tie -> 0
    EXPECT_EQ(FloatToHalf(3 * std::ldexp(1.0f, -25)), 0x0002); // 1.5 ulp: tie -> 2
    EXPECT_EQ(FloatToHalf(5 * std::ldexp(1.0f, -25)), 0x0002); // 2.5 ulp: tie -> 2
    EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25) + std::ldexp(1.0f, -40)), 0x0001);
    // The largest subnormal plus half a step rounds (tie, to even) to the smallest normal.
    EXPECT_EQ(FloatToHalf(std::ldexp(1023.5f, -24)), 0x0400);
    // Carry into the exponent: 2 - 2^-12 rounds to 2.
    EXPECT_EQ(FloatToHalf(2.0f - std::ldexp(1.0f, -12)), 0x4000);
    // Binary64 is rounded once: just above a tie goes up although the nearest float is the tie.
    const double aboveTie = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
    EXPECT_EQ(FloatToHalf(static_cast<float>(aboveTie)), 0x3C00); // double rounding via float
    EXPECT_EQ(DoubleToHalf(aboveTie), 0x3C01);                    // correct
    EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -25) + std::ldexp(1.0, -60)), 0x0001);
}

TEST(Float16, DoubleConversionMatchesAReference)
{
    Rng rng(11);
    std::uniform_real_distribution<double> logMag(-30.0, 17.0);
    std::uniform_int_distribution<uint32_t> halfBits(0, 0x7BFE);
    std::uniform_int_distribution<int> sign(0, 1);
    std::uniform_int_distribution<int> nudge(-3, 3);
    for (int i = 0; i < 200000; ++i)
    {
        double x;
        if (i % 2 == 0)
        {
            x = std::exp2(logMag(rng));
        }
        else
        {
            // Midpoints between adjacent halves, nudged by a few binary64 ulps.
            const auto h = static_cast<uint16_t>(halfBits(rng));
            x = 0.5 * (HalfValue(h) + HalfValue(static_cast<uint16_t>(h + 1)));
            for (int k = nudge(rng); k != 0; k += k > 0 ? -1 : 1)
            {
                x = std::nextafter(x, k > 0 ? 1e9 : -1e9);
            }
        }
        if (sign(rng))
        {
            x = -x;
        }
        ASSERT_EQ(DoubleToHalf(x), ReferenceDoubleToHalf(x)) << x;
        if (static_cast<double>(static_cast<float>(x)) == x)
        {
            ASSERT_EQ(FloatToHalf(static_cast<float>(x)), ReferenceDoubleToHalf(x)) << x;
        }
    }
}

TEST(Float16, OverflowSaturates)
{
    EXPECT_EQ(FloatToHalf(65519.0f), 0x7BFF); // rounds down to 65504: no overflow
    EXPECT_FALSE(HalfSaturates(65519.0));
    EXPECT_EQ(FloatToHalf(65520.0f), 0x7BFF); // the tie that would round to inf
    EXPECT_TRUE(HalfSaturates(65520.0));
    EXPECT_EQ(FloatToHalf(1e6f), 0x7BFF);
    EXPECT_EQ(FloatToHalf(-1e6f), 0xFBFF);
    EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::max()), 0x7BFF);
    EXPECT_EQ(DoubleToHalf(1e300), 0x7BFF);
    EXPECT_EQ(DoubleToHalf(-1e300), 0xFBFF);
    EXPECT_EQ(DoubleToHalf(65520.0), 0x7BFF);
    EXPECT_EQ(DoubleToHalf(std::nextafter(65520.0, 0.0)), 0x7BFF);
    // Infinities are not overflow: they stay infinite.
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(FloatToHalf(inf), 0x7C00);
    EXPECT_EQ(FloatToHalf(-inf), 0xFC00);
    EXPECT_EQ(DoubleToHalf(-std::numeric_limits<double>::infinity()), 0xFC00);
    EXPECT_FALSE(HalfSaturates(std::numeric_limits<double>::infinity()));

    // The bulk encoder counts saturated elements.
    Eigen::VectorXf v(6);
    v << 1.0f, 7e4f, -1e9f, inf, 65504.0f, -65520.0f;
    EncodeReport r;
    const auto bytes = Encode(ParamVector(v), WireEncoding::Float16, nullptr, &r);
    EXPECT_EQ(r.saturated, 3u);
    const ParamVector back =
        DecodePayload(WireEncoding::Float16, bytes.data(), 6, Precision::Float32);
    EXPECT_EQ(back.At(1), 65504.0);
    EXPECT_EQ(back.At(2), -65504.0);
    EXPECT_TRUE(std::isinf(back.At(3)));
    EXPECT_EQ(back.At(5), -65504.0);
    EncodeReport r64;
    Encode(ParamVector(Eigen::VectorXd(v.cast<double>())), WireEncoding::Float16, nullptr, &r64);
    EXPECT_EQ(r64.saturated, 3u);
}

TEST(Float16, NaNIsPreserved)
{
    const float qnan = std::numeric_limits<float>::quiet_NaN();
    const uint16_t h = FloatToHalf(qnan);
    EXPECT_EQ(h & 0x7C00, 0x7C00);
    EXPECT_NE(h & 0x3FF, 0);
    EXPECT_TRUE(std::isnan(HalfToFloat(h)));
    EXPECT_EQ(FloatToHalf(-qnan) & 0x8000, 0x8000); // sign kept
    // A payload only in the low 13 bits must not turn into infinity.
    EXPECT_EQ(FloatToHalf(FromBits(0x7F800001u)), 0x7E00);
    EXPECT_EQ(FloatToHalf(FromBits(0xFF800001u)), 0xFE00);
    EXPECT_EQ(FloatToHalf(FromBits(0x7FC12000u)), 0x7E09); // top payload bits kept
    EXPECT_TRUE(std::isnan(HalfToFloat(DoubleToHalf(std::nan("")))));
    Eigen::VectorXd v(3);
    v << 1.0, std::nan(""), -3.0;
    const auto bytes = Encode(ParamVector(v), WireEncoding::Float16);
    const ParamVector back =
        DecodePayload(WireEncoding::Float16, bytes.data(), 3, Precision::Float64);
    EXPECT_EQ(back.At(0), 1.0);
    EXPECT_TRUE(std::isnan(back.At(1)));
    EXPECT_EQ(back.At(2), -3.0);
}

TEST(Float16, BulkCodecMatchesTheScalarFunctions)
{
    // Every half value, as floats and as doubles, plus random values across the range.
    const std::size_t n = 65536 + 3001;
    Eigen::VectorXf f(static_cast<Eigen::Index>(n));
    for (uint32_t h = 0; h < 65536; ++h)
    {
        f[h] = HalfToFloat(static_cast<uint16_t>(h));
    }
    Rng rng(5);
    std::uniform_real_distribution<float> u(-70000.0f, 70000.0f);
    for (std::size_t i = 65536; i < n; ++i)
    {
        f[static_cast<Eigen::Index>(i)] = u(rng) * std::exp2(static_cast<float>(i % 40) - 30.0f);
    }
    const auto bytes = Encode(ParamVector(f), WireEncoding::Float16);
    ASSERT_EQ(bytes.size(), 2 * n);
    const ParamVector back32 =
        DecodePayload(WireEncoding::Float16, bytes.data(), n, Precision::Float32);
    const ParamVector back64 =
        DecodePayload(WireEncoding::Float16, bytes.data(), n, Precision::Float64);
    for (std::size_t i = 0; i < n; ++i)
    {
        uint16_t h;
        std::memcpy(&h, bytes.data() + 2 * i, 2);
        ASSERT_EQ(h, FloatToHalf(f[static_cast<Eigen::Index>(i)])) << i;
        const float expect = HalfToFloat(h);
        const float got = back32.Get<float>()[static_cast<Eigen::Index>(i)];
        ASSERT_EQ(Bits(got), Bits(expect)) << i;
        if (!std::isnan(expect))
        {
            ASSERT_EQ(back64.At(i), static_cast<double>(expect)) << i;
        }
    }
    // Doubles (no NaN: float -> double changes signalling NaNs) encode like DoubleToHalf.
    const Eigen::VectorXd d = f.cast<double>();
    const auto bytes64 = Encode(ParamVector(d), WireEncoding::Float16);
    for (std::size_t i = 0; i < n; ++i)
    {
        uint16_t h;
        std::memcpy(&h, bytes64.data() + 2 * i, 2);
        ASSERT_EQ(h, DoubleToHalf(d[static_cast<Eigen::Index>(i)])) << i;
    }
}

TEST(WireEncoding, NamesAndSizes)
{
    EXPECT_EQ(ParseWireEncoding("float64", "p"), WireEncoding::Float64);
    EXPECT_EQ(ParseWireEncoding("float32", "p"), WireEncoding::Float32);
    EXPECT_EQ(ParseWireEncoding("float16", "p"), WireEncoding::Float16);
    EXPECT_EQ(ParseWireEncoding("int8", "p"), WireEncoding::Int8);
    try
    {
        ParseWireEncoding("int4", "--wireEncoding");
        FAIL() << "int4 was accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Parameter(), "--wireEncoding");
        EXPECT_NE(std::string(e.what()).find("int8"), std::string::npos);
    }
    for (auto e :
         {WireEncoding::Float64, WireEncoding::Float32, WireEncoding::Float16, WireEncoding::Int8})
    {
        EXPECT_EQ(ParseWireEncoding(WireEncodingName(e), "p"), e);
        EXPECT_TRUE(IsValidWireEncoding(static_cast<uint8_t>(e)));
    }
    EXPECT_FALSE(IsValidWireEncoding(0));
    EXPECT_FALSE(IsValidWireEncoding(5));
    // Wire codes 1 and 2 are the model message header's precision codes.
    EXPECT_EQ(static_cast<int>(WireEncoding::Float64), static_cast<int>(Precision::Float64));
    EXPECT_EQ(static_cast<int>(WireEncoding::Float32), static_cast<int>(Precision::Float32));

    for (std::size_t n : {0u, 1u, 1001u, 101770u})
    {
        EXPECT_EQ(EncodedSize(WireEncoding::Float64, n), 8 * n);
        EXPECT_EQ(EncodedSize(WireEncoding::Float32, n), 4 * n);
        EXPECT_EQ(EncodedSize(WireEncoding::Float16, n), 2 * n);
        EXPECT_EQ(EncodedSize(WireEncoding::Int8, n), 4 + n); // float32 scale + n bytes
    }
    EXPECT_EQ(WireDataOffset(WireEncoding::Int8), 4u);
    EXPECT_EQ(WireDataOffset(WireEncoding::Float16), 0u);
}

TEST(WireEncoding, Float64AndFloat32RoundTripsAreExact)
{
    for (Precision p : {Precision::Float64, Precision::Float32})
    {
        const ParamVector w = RandomParams(p, 1537, 3);
        const WireEncoding same =
            p == Precision::Float64 ? WireEncoding::Float64 : WireEncoding::Float32;
        const auto bytes = Encode(w, same);
        EXPECT_EQ(bytes.size(), w.Size() * PrecisionBytes(p));
        EXPECT_TRUE(DecodePayload(same, bytes.data(), w.Size(), p) == w);
        // Float32 data over a float64 wire is exact too.
        const auto wide = Encode(w, WireEncoding::Float64);
        EXPECT_TRUE(DecodePayload(WireEncoding::Float64, wide.data(), w.Size(), p) == w);
    }
    // Float64 data over a float32 wire is the float cast; and the bytes are those of a model
    // message payload with wire precision float32.
    const ParamVector w64 = RandomParams(Precision::Float64, 1000, 4);
    const auto bytes = Encode(w64, WireEncoding::Float32);
    const ParamVector back =
        DecodePayload(WireEncoding::Float32, bytes.data(), 1000, Precision::Float64);
    EXPECT_TRUE(back ==
                ParamVector(Eigen::VectorXd(w64.Get<double>().cast<float>().cast<double>())));
    const auto msg = EncodeMessage({MessageKind::LocalModel, 1, 1, kBroadcastId, 1}, w64, Precision::Float32);
    ASSERT_EQ(msg.size(), MessageHeader::kSize + bytes.size());
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), msg.begin() + MessageHeader::kSize));
    // Empty vectors.
    EXPECT_EQ(DecodePayload(WireEncoding::Float16, nullptr, 0, Precision::Float32).Size(), 0u);
}

TEST(Int8, ErrorIsBelowOneStepAndValuesInRange)
{
    for (Precision p : {Precision::Float64, Precision::Float32})
    {
        const ParamVector w = RandomParams(p, 5000, 21, 0.3);
        Rng rng(1);
        EncodeReport r;
        const auto bytes = Encode(w, WireEncoding::Int8, &rng, &r);
        ASSERT_EQ(bytes.size(), 4 + w.Size());
        float scale;
        std::memcpy(&scale, bytes.data(), 4);
        EXPECT_EQ(scale, r.scale);
        double maxAbs = 0;
        for (std::size_t i = 0; i < w.Size(); ++i)
        {
            maxAbs = std::max(maxAbs, std::fabs(w.At(i)));
        }
        const double s = scale;
        EXPECT_GE(s, maxAbs / 127.0);                // rounded up, so |x / s| <= 127
        EXPECT_LE(s, maxAbs / 127.0 * (1.0 + 1e-6)); // by at most one float ulp
        const ParamVector back = DecodePayload(WireEncoding::Int8, bytes.data(), w.Size(), p);
        for (std::size_t i = 0; i < w.Size(); ++i)
        {
            const auto q = static_cast<int8_t>(bytes[4 + i]);
            ASSERT_GE(q, -127);
            ASSERT_LE(q, 127);
            ASSERT_EQ(back.At(i),
                      p == Precision::Float64 ? q * s
                                              : static_cast<double>(static_cast<float>(q * s)));
            ASSERT_LT(std::fabs(q * s - w.At(i)), s) << i;
            // q is one of the two neighbours of x / s.
            ASSERT_TRUE(q == std::floor(w.At(i) / s) || q == std::floor(w.At(i) / s) + 1);
        }
    }
}

TEST(Int8, QuantisationIsUnbiased)
{
    // For fixed x_i, q_i s - x_i takes the values (1 - f) s with probability f and -f s with
    // probability 1 - f (f = frac(x_i / s)): mean 0, variance s^2 f (1 - f) <= s^2 / 4, so the
    // standard deviation is at most s / 2. The mean error over T independent trials has standard
    // deviation at most s / (2 sqrt(T)); we require it within 5 of those (a false failure has
    // probability below 6e-7 per element; the seed is fixed anyway). Over all n elements
    // together the errors are independent too: bound 5 s / (2 sqrt(n T)).
    const std::size_t n = 64;
    const int trials = 20000;
    Eigen::VectorXd x(static_cast<Eigen::Index>(n));
    Rng init(77);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (auto& v : x)
    {
        v = u(init);
    }
    x[0] = 1.0;                 // the largest: x / s close to 127
    x[1] = -1.0;                // the most negative
    x[2] = 0.0;                 // exactly zero
    x[3] = 1e-5;                // far below one step
    x[4] = 0.5 * (1.0 / 127.0); // half a step: the largest variance
    const ParamVector w{Eigen::VectorXd(x)};
    Rng rng(2025);
    Eigen::VectorXd sumErr = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(n));
    Eigen::VectorXd sumSq = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(n));
    std::vector<uint8_t> bytes(EncodedSize(WireEncoding::Int8, n));
    double s = 0;
    for (int t = 0; t < trials; ++t)
    {
        const EncodeReport r = EncodePayload(w, WireEncoding::Int8, &rng, bytes.data());
        s = r.scale;
        const ParamVector back =
            DecodePayload(WireEncoding::Int8, bytes.data(), n, Precision::Float64);
        const Eigen::VectorXd err = back.Get<double>() - x;
        sumErr += err;
        sumSq += err.cwiseAbs2();
    }
    const double perElementBound = 5.0 * s / (2.0 * std::sqrt(static_cast<double>(trials)));
    for (std::size_t i = 0; i < n; ++i)
    {
        const auto k = static_cast<Eigen::Index>(i);
        EXPECT_LE(std::fabs(sumErr[k] / trials), perElementBound) << "element " << i;
        // The empirical second moment also respects the variance bound (with slack 10%).
        EXPECT_LE(sumSq[k] / trials, 1.1 * s * s / 4.0) << "element " << i;
    }
    const double overallBound =
        5.0 * s / (2.0 * std::sqrt(static_cast<double>(trials) * static_cast<double>(n)));
    EXPECT_LE(std::fabs(sumErr.sum() / (trials * static_cast<double>(n))), overallBound);
    // Zero is quantised exactly (floor(0 + u) = 0); half a step has variance s^2 / 4 exactly.
    EXPECT_EQ(sumSq[2], 0.0);
    EXPECT_NEAR(sumSq[4] / trials, s * s / 4.0, 0.05 * s * s / 4.0);
}

TEST(Int8, AllZeroVectorAndSpecialCases)
{
    Rng rng(3);
    EncodeReport r;
    const auto bytes = Encode(ParamVector(Eigen::VectorXf(Eigen::VectorXf::Zero(100))),
                              WireEncoding::Int8,
                              &rng,
                              &r);
    EXPECT_EQ(r.scale, 0.0f);
    EXPECT_FALSE(r.nonFinite);
    ASSERT_EQ(bytes.size(), 104u);
    for (uint8_t b : bytes)
    {
        EXPECT_EQ(b, 0);
    }
    const ParamVector back =
        DecodePayload(WireEncoding::Int8, bytes.data(), 100, Precision::Float32);
    EXPECT_TRUE(back == ParamVector(Eigen::VectorXf(Eigen::VectorXf::Zero(100))));
    // An empty vector is just the scale.
    EXPECT_EQ(Encode(ParamVector(Eigen::VectorXd(0)), WireEncoding::Int8, &rng).size(), 4u);
    // Int8 without a random engine is a configuration error naming the parameter.
    try
    {
        Encode(ParamVector(Eigen::VectorXd(Eigen::VectorXd::Ones(3))), WireEncoding::Int8, nullptr);
        FAIL() << "int8 without an engine was accepted";
    }
    catch (const ConfigError& e)
    {
        EXPECT_EQ(e.Parameter(), "rng");
    }
    // A non-finite vector is sent as scale NaN and decodes to all-NaN.
    Eigen::VectorXd bad = Eigen::VectorXd::Ones(5);
    bad[3] = std::numeric_limits<double>::infinity();
    const auto nb = Encode(ParamVector(bad), WireEncoding::Int8, &rng, &r);
    EXPECT_TRUE(r.nonFinite);
    const ParamVector nanBack = DecodePayload(WireEncoding::Int8, nb.data(), 5, Precision::Float64);
    for (std::size_t i = 0; i < 5; ++i)
    {
        EXPECT_TRUE(std::isnan(nanBack.At(i)));
    }
    // A tiny vector (scale rounded up to a float32 subnormal) and a huge one (scale overflows
    // float32: non-finite).
    Encode(ParamVector(Eigen::VectorXd(Eigen::VectorXd::Constant(4, 1e-300))),
           WireEncoding::Int8,
           &rng,
           &r);
    EXPECT_GT(r.scale, 0.0f);
    EXPECT_FALSE(r.nonFinite);
    Encode(ParamVector(Eigen::VectorXd(Eigen::VectorXd::Constant(4, 1e300))),
           WireEncoding::Int8,
           &rng,
           &r);
    EXPECT_TRUE(r.nonFinite);
}

TEST(Int8, DeterministicAndDrawCountDocumented)
{
    const ParamVector w = RandomParams(Precision::Float32, 1001, 9);
    Rng a(42);
    Rng b(42);
    EXPECT_EQ(Encode(w, WireEncoding::Int8, &a), Encode(w, WireEncoding::Int8, &b));
    // ceil(1001 / 2) = 501 draws per encoding.
    Rng c(42);
    Encode(w, WireEncoding::Int8, &c);
    Rng d(42);
    d.discard(501);
    EXPECT_EQ(c(), d());
}
