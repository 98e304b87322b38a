/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Small helpers the secure-aggregation parties share (byte packing, sorted-list membership,
 * Ed25519 signing and checking, the weight bound), pure (no ns-3 header). Internal to the
 * secagg-*.cc files.
 */
#ifndef FL_SECAGG_UTIL_H
#define FL_SECAGG_UTIL_H

#include "ns3/secagg-config.h"

#include <algorithm>
#include <cstdint>
#include <sodium.h>
#include <vector>

namespace ns3
{
namespace fl
{
namespace secagg_detail
{

/// Appends the `bytes` low bytes of v, little-endian.
inline void
AppendLe(std::vector<uint8_t>& out, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i)
    {
        out.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
}

/// Reads `bytes` little-endian bytes.
inline uint64_t
ReadLe(const uint8_t* p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
    {
        v |= static_cast<uint64_t>(p[i]) << (8 * i);
    }
    return v;
}

/// Membership in an ascending list.
inline bool
Contains(const std::vector<uint32_t>& sorted, uint32_t id)
{
    return std::binary_search(sorted.begin(), sorted.end(), id);
}

/// True if `sig` is id's valid Ed25519 signature of `message` under the PKI.
inline bool
Verify(const SecAggPki& pki,
       uint32_t id,
       const std::vector<uint8_t>& message,
       const Ed25519Signature& sig)
{
    auto it = pki.find(id);
    return it != pki.end() && crypto_sign_verify_detached(sig.data(),
                                                          message.data(),
                                                          message.size(),
                                                          it->second.data()) == 0;
}

/// The identity's Ed25519 signature of `message`.
inline Ed25519Signature
Sign(const SecAggIdentity& identity, const std::vector<uint8_t>& message)
{
    Ed25519Signature sig;
    crypto_sign_detached(sig.data(),
                         nullptr,
                         message.data(),
                         message.size(),
                         identity.signingKey.data());
    return sig;
}

/// The largest weight a client may give so that the sum of n weights stays below 2^62.
inline uint64_t
MaxWeight(std::size_t summands)
{
    return (uint64_t{1} << 62) / static_cast<uint64_t>(summands);
}

/// Wipes a trivially copyable object's bytes.
template <typename T>
void
Wipe(T& secret)
{
    sodium_memzero(&secret, sizeof(T));
}

} // namespace secagg_detail
} // namespace fl
} // namespace ns3

#endif // FL_SECAGG_UTIL_H
