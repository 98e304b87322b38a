/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Payload encodings of a parameter vector on the wire: float64, float32, float16 and unbiased
 * stochastic int8 quantisation. Pure code (no ns-3 header).
 */
#ifndef FL_PAYLOAD_CODEC_H
#define FL_PAYLOAD_CODEC_H

#include "ns3/param-vector.h"

#include <cstdint>
#include <string>

namespace ns3
{
namespace fl
{

/**
 * How the elements of a parameter vector are laid out in a message payload. The numeric
 * values are the wire codes; 1 and 2 coincide with Precision::Float64 / Precision::Float32
 * (the precision byte of a model message header).
 *
 * Payload layouts (little-endian, n = number of parameters):
 *
 *     encoding  payload bytes   layout
 *     Float64   8 n             n IEEE-754 binary64 values
 *     Float32   4 n             n IEEE-754 binary32 values (float64 input rounded to nearest;
 *                               overflow gives +-inf, exactly like a C++ cast)
 *     Float16   2 n             n IEEE-754 binary16 values, round to nearest even, finite
 *                               overflow saturates to +-65504, inf and NaN preserved
 *     Int8      4 + n           float32 scale s, then n int8 values q_i in [-127, 127];
 *                               the decoded value is q_i s
 */
enum class WireEncoding : uint8_t
{
    Float64 = 1, ///< IEEE-754 binary64, 8 bytes per element
    Float32 = 2, ///< IEEE-754 binary32, 4 bytes per element
    Float16 = 3, ///< IEEE-754 binary16, 2 bytes per element
    Int8 = 4,    ///< unbiased stochastic int8 with a float32 scale, 1 byte per element + 4
};

/// Name of an encoding ("float64", "float32", "float16", "int8", or "unknown").
const char* WireEncodingName(WireEncoding e);

/**
 * Parses an encoding name: "float64" (also "double", "f64"), "float32" ("float", "f32"),
 * "float16" ("half", "f16") or "int8" ("q8"). Throws ConfigError naming `parameter` otherwise.
 */
WireEncoding ParseWireEncoding(const std::string& name, const std::string& parameter);

/// True if `code` is the wire code of a WireEncoding (1..4). Use it before casting a header byte.
bool IsValidWireEncoding(uint8_t code);

/// Bytes per element: 8, 4, 2 or 1.
std::size_t WireElementBytes(WireEncoding e);

/**
 * Bytes of the payload that come before element 0: 4 for Int8 (the float32 scale), 0 otherwise.
 * Element i occupies payload bytes [WireDataOffset + i * WireElementBytes, + WireElementBytes).
 */
std::size_t WireDataOffset(WireEncoding e);

/**
 * Payload size in bytes of n elements: 8n, 4n, 2n, or 4 + n for Int8 (a 4-byte float32 scale
 * followed by n one-byte values; the scale is present even for n = 0).
 */
std::size_t EncodedSize(WireEncoding e, std::size_t n);

/// What EncodePayload did besides writing bytes.
struct EncodeReport
{
    /// Float16: number of finite elements whose magnitude rounds beyond the largest half
    /// (|x| >= 65520) and were written as +-65504. Always 0 for the other encodings.
    std::size_t saturated{0};
    /// Int8: the vector held a NaN or an infinity (or max|x| / 127 overflows float32); it was
    /// sent as scale NaN and all q_i = 0, so that it decodes to all-NaN and the receiver sees
    /// the divergence instead of a silently wrong model.
    bool nonFinite{false};
    /// Int8: the scale s written to the wire (0 for an all-zero vector). 0 for other encodings.
    float scale{0.0f};
};

/**
 * Writes `params` in encoding `e` to `out`, which must have room for
 * EncodedSize(e, params.Size()) bytes (no alignment needed).
 *
 * Int8 (unbiased stochastic quantisation): s = max_i |x_i| / 127, rounded *up* to float32 so
 * that |x_i / s| <= 127 (s = 0 for an all-zero vector; then every q_i = 0);
 * q_i = floor(x_i / s + u_i) with u_i ~ U[0, 1) drawn from `rng`, clamped to [-127, 127].
 * Then E[q_i] s = x_i (up to a bias below 2^-32 s from the 32-bit resolution of u_i),
 * |q_i s - x_i| < s, and Var[q_i s] = s^2 f (1 - f) <= s^2 / 4 with f = frac(x_i / s).
 * It consumes ceil(n / 2) draws of `rng` (two 32-bit uniforms per 64-bit draw), in element
 * order, so a given engine state gives the same bytes on every platform.
 *
 * @param params the vector (float64 or float32)
 * @param e the wire encoding
 * @param rng random engine; needed for Int8 only (may be nullptr otherwise); throws ConfigError
 *        if Int8 is asked for without one
 * @param out destination, EncodedSize(e, params.Size()) bytes
 * @return saturation count (float16), scale and non-finite flag (int8)
 */
EncodeReport EncodePayload(const ParamVector& params, WireEncoding e, Rng* rng, uint8_t* out);

/**
 * Decodes n elements of encoding `e` from `in` (EncodedSize(e, n) bytes, no alignment needed)
 * into a vector of precision `to`. Float16 and Int8 values are exact in float32 and float64
 * except that q_i s is rounded once to `to`. Any byte content decodes without error (the
 * caller checks the CRC first); an Int8 payload whose scale is NaN decodes to all-NaN.
 */
ParamVector DecodePayload(WireEncoding e, const uint8_t* in, std::size_t n, Precision to);

/**
 * Decodes n consecutive elements of encoding `e` into out[0, n): `elements` points at the first
 * one's bytes (n WireElementBytes(e) bytes; for Int8 the int8 values only, the payload's scale
 * being passed as `int8Scale`, ignored for the other encodings). The values are those
 * DecodePayload gives for the same elements, bit for bit, so a payload decoded run by run (for
 * example the runs of a message that arrived with holes) equals its whole decode.
 */
void DecodeElements(WireEncoding e,
                    const uint8_t* elements,
                    std::size_t n,
                    float int8Scale,
                    double* out);

/// DecodeElements into float32.
void DecodeElements(WireEncoding e,
                    const uint8_t* elements,
                    std::size_t n,
                    float int8Scale,
                    float* out);

/**
 * IEEE-754 binary32 -> binary16 bits, round to nearest, ties to even. Subnormal halves are
 * produced exactly (magnitudes below 2^-25 round to zero, keeping the sign); finite values with
 * |x| >= 65520 (those that round beyond the largest half) saturate to +-65504 (0x7BFF / 0xFBFF);
 * +-inf stays +-inf; NaN stays NaN with its sign and the top 10 payload bits (a payload whose
 * top bits are all zero becomes the quiet NaN 0x7E00 with the sign), so that
 * FloatToHalf(HalfToFloat(h)) == h for all 65536 bit patterns h.
 */
uint16_t FloatToHalf(float x);

/// As FloatToHalf, from binary64 with a single rounding (no double rounding through float).
uint16_t DoubleToHalf(double x);

/// IEEE-754 binary16 bits -> binary32 (exact; NaN payloads are kept, not quietened).
float HalfToFloat(uint16_t h);

/// True if FloatToHalf / DoubleToHalf saturates x (finite and |x| >= 65520).
bool HalfSaturates(double x);

} // namespace fl
} // namespace ns3

#endif // FL_PAYLOAD_CODEC_H
