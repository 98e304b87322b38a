/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Little-endian field access shared by the wire formats (model messages, UDP chunks, codecs).
 */
#ifndef FL_WIRE_BYTES_H
#define FL_WIRE_BYTES_H

#include <cstdint>
#include <cstring>

namespace ns3
{
namespace fl
{

// Every wire format of the module is little-endian and is read and written with memcpy. On a
// big-endian host each multi-byte field would have to be byte-swapped; we refuse to build there.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "fl's wire formats assume a little-endian host");

/// Writes v at p (4 bytes, little-endian, no alignment needed).
inline void
PutU32(uint8_t* p, uint32_t v)
{
    std::memcpy(p, &v, 4);
}

/// Reads 4 bytes at p as a little-endian uint32 (no alignment needed).
inline uint32_t
GetU32(const uint8_t* p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

} // namespace fl
} // namespace ns3

#endif // FL_WIRE_BYTES_H
