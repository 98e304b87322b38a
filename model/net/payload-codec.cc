/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/payload-codec.h"

#include "ns3/wire-bytes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace ns3
{
namespace fl
{

namespace
{

inline uint32_t
FloatBits(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

inline float
BitsToFloat(uint32_t u)
{
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

inline uint64_t
DoubleBits(double d)
{
    uint64_t u;
    std::memcpy(&u, &d, 8);
    return u;
}

inline double
BitsToDouble(uint64_t u)
{
    double d;
    std::memcpy(&d, &u, 8);
    return d;
}

// Bit patterns used by the conversions (magnitudes, sign bit cleared).
constexpr uint32_t kF32Inf = 0x7F800000u;
constexpr uint32_t kF32HalfMinNormal = 0x38800000u; // 2^-14
constexpr uint32_t kF32HalfSaturate = 0x477FF000u;  // 65520: rounds to +inf in binary16
constexpr uint64_t kF64Inf = 0x7FF0000000000000ull;
constexpr uint64_t kF64HalfMinNormal = 0x3F10000000000000ull; // 2^-14
constexpr uint64_t kF64HalfSaturate = 0x40EFFE0000000000ull;  // 65520
constexpr uint32_t kHalfMax = 0x7BFFu;                        // 65504
constexpr uint32_t kHalfInf = 0x7C00u;

// binary32 -> binary16, branch-free so that the bulk loops vectorise (every candidate result
// is computed and the right one selected).
inline uint16_t
FloatToHalfInline(float x)
{
    const uint32_t bits = FloatBits(x);
    const uint32_t sign = (bits >> 16) & 0x8000u;
    const uint32_t a = bits & 0x7FFFFFFFu;
    // Normal halves: rebias the exponent (127 -> 15, i.e. subtract 112 << 23) and round the
    // mantissa from 23 to 10 bits to nearest even: add 0xFFF plus the lowest kept bit, shift.
    // A carry out of the mantissa correctly bumps the exponent.
    const uint32_t normal = (a + 0xC8000FFFu + ((a >> 13) & 1u)) >> 13;
    // Subnormal halves (|x| < 2^-14): the ulp of 0.5f is 2^-24, the half subnormal step, so
    // |x| + 0.5f lets the FPU round to nearest even; the low bits are then the half's bits
    // (0x400, the smallest normal, when |x| rounds up to 2^-14).
    const uint32_t sub = FloatBits(BitsToFloat(a) + 0.5f) - 0x3F000000u;
    const uint32_t payload = (a >> 13) & 0x3FFu;
    const uint32_t nan = kHalfInf | payload | (payload == 0 ? 0x200u : 0u);
    uint32_t h = a < kF32HalfMinNormal ? sub : normal;
    h = a >= kF32HalfSaturate ? kHalfMax : h;
    h = a == kF32Inf ? kHalfInf : h;
    h = a > kF32Inf ? nan : h;
    return static_cast<uint16_t>(h | sign);
}

// binary64 -> binary16 with a single rounding (same scheme on 64-bit patterns).
inline uint16_t
DoubleToHalfInline(double x)
{
    const uint64_t bits = DoubleBits(x);
    const auto sign = static_cast<uint32_t>(bits >> 48) & 0x8000u;
    const uint64_t a = bits & 0x7FFFFFFFFFFFFFFFull;
    // Rebias 1023 -> 15 (subtract 1008 << 52) and round 52 -> 10 mantissa bits to even.
    const auto normal = static_cast<uint32_t>(
        (a + 0xC100000000000000ull + 0x1FFFFFFFFFFull + ((a >> 42) & 1u)) >> 42);
    // The ulp of 2^28 in binary64 is 2^-24, the half subnormal step.
    const auto sub =
        static_cast<uint32_t>(DoubleBits(BitsToDouble(a) + 268435456.0) - 0x41B0000000000000ull);
    const auto payload = static_cast<uint32_t>(a >> 42) & 0x3FFu;
    const uint32_t nan = kHalfInf | payload | (payload == 0 ? 0x200u : 0u);
    uint32_t h = a < kF64HalfMinNormal ? sub : normal;
    h = a >= kF64HalfSaturate ? kHalfMax : h;
    h = a == kF64Inf ? kHalfInf : h;
    h = a > kF64Inf ? nan : h;
    return static_cast<uint16_t>(h | sign);
}

inline float
HalfToFloatInline(uint16_t hv)
{
    const uint32_t h = hv;
    const uint32_t sign = (h & 0x8000u) << 16;
    const uint32_t em = h & 0x7FFFu;
    const uint32_t normal = (em << 13) + 0x38000000u;         // rebias 15 -> 127
    const uint32_t infNan = (em << 13) | kF32Inf;             // keeps the NaN payload
    const uint32_t sub = FloatBits(static_cast<float>(em)     // exact: em < 2^15
                                   * 5.9604644775390625e-8f); // x 2^-24, exact
    // Selections written as masks: GCC does not if-convert ternaries here, masks vectorise.
    const uint32_t isSub = 0u - static_cast<uint32_t>(em < 0x400u);
    const uint32_t isInfNan = 0u - static_cast<uint32_t>(em >= kHalfInf);
    const uint32_t finite = (sub & isSub) | (normal & ~isSub);
    return BitsToFloat(((infNan & isInfNan) | (finite & ~isInfNan)) | sign);
}

// Float16 bulk encoders. The saturation count is a separate reduction so that both loops
// vectorise.
template <typename S>
std::size_t
EncodeHalf(const S* x, std::size_t n, uint8_t* out)
{
    std::size_t saturated = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
        uint16_t h;
        if constexpr (std::is_same<S, float>::value)
        {
            h = FloatToHalfInline(x[i]);
            const uint32_t a = FloatBits(x[i]) & 0x7FFFFFFFu;
            saturated += (a >= kF32HalfSaturate) & (a < kF32Inf);
        }
        else
        {
            h = DoubleToHalfInline(x[i]);
            const uint64_t a = DoubleBits(x[i]) & 0x7FFFFFFFFFFFFFFFull;
            saturated += (a >= kF64HalfSaturate) & (a < kF64Inf);
        }
        std::memcpy(out + 2 * i, &h, 2);
    }
    return saturated;
}

template <typename S>
void
DecodeHalf(const uint8_t* in, std::size_t n, S* y)
{
    for (std::size_t i = 0; i < n; ++i)
    {
        uint16_t h;
        std::memcpy(&h, in + 2 * i, 2);
        y[i] = static_cast<S>(HalfToFloatInline(h));
    }
}

// Int8: float32 scale rounded up from max|x| / 127 (so that |x / s| <= 127), or 0.
float
Int8Scale(double maxAbs)
{
    if (maxAbs == 0.0)
    {
        return 0.0f;
    }
    const double s = maxAbs / 127.0;
    auto sf = static_cast<float>(s);
    if (static_cast<double>(sf) < s)
    {
        sf = std::nextafter(sf, std::numeric_limits<float>::infinity());
    }
    return sf;
}

template <typename S>
void
EncodeInt8(const S* x, std::size_t n, double inv, Rng& rng, int8_t* q)
{
    // q_i = floor(x_i / s + u_i). Computed as trunc(x_i / s + (128 + u_i)) - 128: the argument
    // lies in [1, 256] (up to rounding), where truncation is floor, and truncation vectorises
    // without SSE4.1. 128 + u_i is exact (u_i has 32 fractional bits); the one rounding of the
    // sum is on a grid of 2^-45, a bias far below the 2^-32 resolution of u_i.
    constexpr std::size_t kBlock = 256;
    double u[kBlock];
    for (std::size_t start = 0; start < n; start += kBlock)
    {
        const std::size_t m = std::min(kBlock, n - start);
        for (std::size_t j = 0; j < m; j += 2)
        {
            const uint64_t r = rng();
            u[j] = 128.0 + static_cast<double>(static_cast<uint32_t>(r)) * 0x1p-32;
            u[j + 1] = 128.0 + static_cast<double>(static_cast<uint32_t>(r >> 32)) * 0x1p-32;
        }
        const S* xb = x + start;
        int8_t* qb = q + start;
        for (std::size_t j = 0; j < m; ++j)
        {
            const double y = static_cast<double>(xb[j]) * inv + u[j];
            int t = static_cast<int>(y);
            t = t < 1 ? 1 : t;
            t = t > 255 ? 255 : t;
            qb[j] = static_cast<int8_t>(t - 128);
        }
    }
}

template <typename S>
void
DecodeInt8(const int8_t* q, std::size_t n, float scale, S* y)
{
    // q s is computed in double (exact: 8 x 24 bits) and rounded once to S.
    const auto s = static_cast<double>(scale);
    for (std::size_t i = 0; i < n; ++i)
    {
        y[i] = static_cast<S>(static_cast<double>(q[i]) * s);
    }
}

// Float64 <-> float32 conversions between a typed array and unaligned wire bytes, through a
// small aligned block so that the conversion loop vectorises and no misaligned pointer is
// dereferenced.
template <typename To, typename From>
void
ConvertToBytes(const From* x, std::size_t n, uint8_t* out)
{
    constexpr std::size_t kBlock = 512;
    To tmp[kBlock];
    for (std::size_t start = 0; start < n; start += kBlock)
    {
        const std::size_t m = std::min(kBlock, n - start);
        for (std::size_t j = 0; j < m; ++j)
        {
            tmp[j] = static_cast<To>(x[start + j]);
        }
        std::memcpy(out + start * sizeof(To), tmp, m * sizeof(To));
    }
}

template <typename From, typename To>
void
ConvertFromBytes(const uint8_t* in, std::size_t n, To* y)
{
    constexpr std::size_t kBlock = 512;
    From tmp[kBlock];
    for (std::size_t start = 0; start < n; start += kBlock)
    {
        const std::size_t m = std::min(kBlock, n - start);
        std::memcpy(tmp, in + start * sizeof(From), m * sizeof(From));
        for (std::size_t j = 0; j < m; ++j)
        {
            y[start + j] = static_cast<To>(tmp[j]);
        }
    }
}

template <typename S>
EncodeReport
EncodeTyped(const Vec<S>& v, WireEncoding e, Rng* rng, uint8_t* out)
{
    EncodeReport report;
    const auto n = static_cast<std::size_t>(v.size());
    switch (e)
    {
    case WireEncoding::Float64:
        if constexpr (std::is_same<S, double>::value)
        {
            std::memcpy(out, v.data(), 8 * n);
        }
        else
        {
            ConvertToBytes<double>(v.data(), n, out);
        }
        break;
    case WireEncoding::Float32:
        if constexpr (std::is_same<S, float>::value)
        {
            std::memcpy(out, v.data(), 4 * n);
        }
        else
        {
            ConvertToBytes<float>(v.data(), n, out);
        }
        break;
    case WireEncoding::Float16:
        report.saturated = EncodeHalf(v.data(), n, out);
        break;
    case WireEncoding::Int8: {
        if (rng == nullptr)
        {
            throw ConfigError("rng",
                              "int8 stochastic quantisation needs a random engine",
                              "pass an fl::Rng to EncodePayload for WireEncoding::Int8");
        }
        float scale = 0.0f;
        if (n > 0)
        {
            if (!v.allFinite())
            {
                report.nonFinite = true;
            }
            else
            {
                scale = Int8Scale(static_cast<double>(v.cwiseAbs().maxCoeff()));
                report.nonFinite = !std::isfinite(scale);
            }
        }
        if (report.nonFinite)
        {
            scale = std::numeric_limits<float>::quiet_NaN();
        }
        report.scale = scale;
        std::memcpy(out, &scale, 4);
        auto* q = reinterpret_cast<int8_t*>(out + 4);
        if (scale == 0.0f || report.nonFinite)
        {
            std::memset(q, 0, n);
        }
        else
        {
            EncodeInt8(v.data(), n, 1.0 / static_cast<double>(scale), *rng, q);
        }
        break;
    }
    default:
        throw ConfigError("encoding",
                          "unknown wire encoding " + std::to_string(static_cast<int>(e)),
                          "use float64, float32, float16 or int8");
    }
    return report;
}

/// Decodes n elements at `in` (no int8 scale in front: it is `scale`) into dst[0, n).
template <typename S>
void
DecodeRun(WireEncoding e, const uint8_t* in, std::size_t n, float scale, S* dst)
{
    switch (e)
    {
    case WireEncoding::Float64:
        if constexpr (std::is_same<S, double>::value)
        {
            std::memcpy(dst, in, 8 * n);
        }
        else
        {
            ConvertFromBytes<double>(in, n, dst);
        }
        break;
    case WireEncoding::Float32:
        if constexpr (std::is_same<S, float>::value)
        {
            std::memcpy(dst, in, 4 * n);
        }
        else
        {
            ConvertFromBytes<float>(in, n, dst);
        }
        break;
    case WireEncoding::Float16:
        DecodeHalf(in, n, dst);
        break;
    case WireEncoding::Int8:
        DecodeInt8(reinterpret_cast<const int8_t*>(in), n, scale, dst);
        break;
    default:
        throw ConfigError("encoding",
                          "unknown wire encoding " + std::to_string(static_cast<int>(e)),
                          "use float64, float32, float16 or int8");
    }
}

template <typename S>
Vec<S>
DecodeTyped(WireEncoding e, const uint8_t* in, std::size_t n)
{
    Vec<S> y(static_cast<Eigen::Index>(n));
    float scale = 0.0f;
    if (e == WireEncoding::Int8)
    {
        std::memcpy(&scale, in, 4);
    }
    DecodeRun(e, in + WireDataOffset(e), n, scale, y.data());
    return y;
}

} // namespace

const char*
WireEncodingName(WireEncoding e)
{
    switch (e)
    {
    case WireEncoding::Float64:
        return "float64";
    case WireEncoding::Float32:
        return "float32";
    case WireEncoding::Float16:
        return "float16";
    case WireEncoding::Int8:
        return "int8";
    }
    return "unknown";
}

WireEncoding
ParseWireEncoding(const std::string& name, const std::string& parameter)
{
    if (name == "float64" || name == "double" || name == "f64")
    {
        return WireEncoding::Float64;
    }
    if (name == "float32" || name == "float" || name == "f32")
    {
        return WireEncoding::Float32;
    }
    if (name == "float16" || name == "half" || name == "f16")
    {
        return WireEncoding::Float16;
    }
    if (name == "int8" || name == "q8")
    {
        return WireEncoding::Int8;
    }
    throw ConfigError(parameter,
                      "unknown wire encoding '" + name + "'",
                      "use float64, float32, float16 or int8");
}

bool
IsValidWireEncoding(uint8_t code)
{
    return code >= static_cast<uint8_t>(WireEncoding::Float64) &&
           code <= static_cast<uint8_t>(WireEncoding::Int8);
}

std::size_t
WireElementBytes(WireEncoding e)
{
    switch (e)
    {
    case WireEncoding::Float64:
        return 8;
    case WireEncoding::Float32:
        return 4;
    case WireEncoding::Float16:
        return 2;
    case WireEncoding::Int8:
        return 1;
    }
    throw ConfigError("encoding",
                      "unknown wire encoding " + std::to_string(static_cast<int>(e)),
                      "use float64, float32, float16 or int8");
}

std::size_t
WireDataOffset(WireEncoding e)
{
    return e == WireEncoding::Int8 ? 4 : 0;
}

std::size_t
EncodedSize(WireEncoding e, std::size_t n)
{
    return WireDataOffset(e) + n * WireElementBytes(e);
}

EncodeReport
EncodePayload(const ParamVector& params, WireEncoding e, Rng* rng, uint8_t* out)
{
    if (params.GetPrecision() == Precision::Float64)
    {
        return EncodeTyped(params.Get<double>(), e, rng, out);
    }
    return EncodeTyped(params.Get<float>(), e, rng, out);
}

ParamVector
DecodePayload(WireEncoding e, const uint8_t* in, std::size_t n, Precision to)
{
    if (to == Precision::Float64)
    {
        return ParamVector(DecodeTyped<double>(e, in, n));
    }
    return ParamVector(DecodeTyped<float>(e, in, n));
}

void
DecodeElements(WireEncoding e, const uint8_t* elements, std::size_t n, float int8Scale, double* out)
{
    DecodeRun(e, elements, n, int8Scale, out);
}

void
DecodeElements(WireEncoding e, const uint8_t* elements, std::size_t n, float int8Scale, float* out)
{
    DecodeRun(e, elements, n, int8Scale, out);
}

uint16_t
FloatToHalf(float x)
{
    return FloatToHalfInline(x);
}

uint16_t
DoubleToHalf(double x)
{
    return DoubleToHalfInline(x);
}

float
HalfToFloat(uint16_t h)
{
    return HalfToFloatInline(h);
}

bool
HalfSaturates(double x)
{
    return std::isfinite(x) && std::fabs(x) >= 65520.0;
}

} // namespace fl
} // namespace ns3
