/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secagg-graph.h"
#include "ns3/secagg-primitives.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sodium.h>
#include <string>

namespace ns3
{
namespace fl
{

namespace
{

/// A deterministic byte stream: ChaCha20-IETF under BLAKE2b-256("fl-secagg-harary" || seed).
class GraphStream
{
  public:
    explicit GraphStream(uint64_t seed)
    {
        EnsureSodiumReady();
        static const char tag[] = "fl-secagg-harary";
        uint8_t msg[sizeof(tag) - 1 + 8];
        std::copy(tag, tag + sizeof(tag) - 1, msg);
        for (int i = 0; i < 8; ++i)
        {
            msg[sizeof(tag) - 1 + i] = static_cast<uint8_t>(seed >> (8 * i));
        }
        crypto_generichash(m_key, sizeof(m_key), msg, sizeof(msg), nullptr, 0);
    }

    uint64_t Next()
    {
        if (m_used == sizeof(m_block))
        {
            uint8_t nonce[crypto_stream_chacha20_ietf_NONCEBYTES] = {};
            crypto_stream_chacha20_ietf_xor_ic(m_block,
                                               m_zero,
                                               sizeof(m_block),
                                               nonce,
                                               m_counter,
                                               m_key);
            m_counter += sizeof(m_block) / 64;
            m_used = 0;
        }
        uint64_t v = 0;
        for (int i = 0; i < 8; ++i)
        {
            v |= static_cast<uint64_t>(m_block[m_used + i]) << (8 * i);
        }
        m_used += 8;
        return v;
    }

    /// Uniform in [0, bound), bound >= 1 (rejection sampling).
    uint64_t Uniform(uint64_t bound)
    {
        const uint64_t limit = UINT64_MAX - (UINT64_MAX % bound + 1) % bound;
        for (;;)
        {
            const uint64_t v = Next();
            if (v <= limit)
            {
                return v % bound;
            }
        }
    }

  private:
    uint8_t m_key[32];
    uint8_t m_block[256]{};
    const uint8_t m_zero[256]{};
    std::size_t m_used{sizeof(m_block)};
    uint32_t m_counter{0};
};

void
CheckGraphArgs(const std::vector<uint32_t>& clients, uint32_t k)
{
    if (k < 2 || k % 2 != 0)
    {
        throw ConfigError("neighbours",
                          "k = " + std::to_string(k),
                          "use an even number of neighbours k >= 2 (SecAggPlusParameters "
                          "chooses one)");
    }
    for (std::size_t i = 1; i < clients.size(); ++i)
    {
        if (clients[i] <= clients[i - 1])
        {
            throw ConfigError("clients",
                              "ids are not strictly ascending",
                              "list every sampled client once, in ascending order");
        }
    }
}

/// The ring order: a permutation of the clients drawn from the seed.
std::vector<uint32_t>
RingOrder(const std::vector<uint32_t>& clients, uint64_t graphSeed)
{
    std::vector<uint32_t> ring = clients;
    GraphStream stream(graphSeed);
    for (std::size_t i = ring.size(); i > 1; --i)
    {
        const std::size_t j = static_cast<std::size_t>(stream.Uniform(i));
        std::swap(ring[i - 1], ring[j]);
    }
    return ring;
}

std::vector<uint32_t>
RingNeighbours(const std::vector<uint32_t>& ring, std::size_t pos, uint32_t k)
{
    const std::size_t n = ring.size();
    std::vector<uint32_t> out;
    if (k + 1 >= n)
    {
        for (std::size_t i = 0; i < n; ++i)
        {
            if (i != pos)
            {
                out.push_back(ring[i]);
            }
        }
    }
    else
    {
        for (std::size_t d = 1; d <= k / 2; ++d)
        {
            out.push_back(ring[(pos + d) % n]);
            out.push_back(ring[(pos + n - d) % n]);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

double
LogSumExp(double a, double b)
{
    if (a == -HUGE_VAL)
    {
        return b;
    }
    if (b == -HUGE_VAL)
    {
        return a;
    }
    const double m = std::max(a, b);
    return m + std::log1p(std::exp(-std::fabs(a - b)));
}

double
LogChoose(double n, double k)
{
    return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1);
}

/// log Pr[X = x], X hypergeometric(N, K, m); -inf outside the support.
double
LogHypergeometricPmf(uint32_t N, uint32_t K, uint32_t m, int64_t x)
{
    const int64_t lo = std::max<int64_t>(0, static_cast<int64_t>(m) + K - N);
    const int64_t hi = std::min<int64_t>(K, m);
    if (x < lo || x > hi)
    {
        return -HUGE_VAL;
    }
    return LogChoose(K, static_cast<double>(x)) + LogChoose(N - K, static_cast<double>(m - x)) -
           LogChoose(N, m);
}

/// log Pr[X >= x].
double
LogHypergeometricTail(uint32_t N, uint32_t K, uint32_t m, int64_t x)
{
    double acc = -HUGE_VAL;
    for (int64_t v = std::max<int64_t>(x, 0); v <= static_cast<int64_t>(m); ++v)
    {
        acc = LogSumExp(acc, LogHypergeometricPmf(N, K, m, v));
    }
    return acc;
}

/// floor(f n) with a tiny margin so that 0.1 * 100 is 10, not 9.
uint32_t
FloorFraction(double f, uint32_t n)
{
    return static_cast<uint32_t>(std::floor(f * n + 1e-9));
}

} // namespace

std::vector<uint32_t>
HararyNeighbours(const std::vector<uint32_t>& clients,
                 uint32_t k,
                 uint64_t graphSeed,
                 uint32_t self)
{
    CheckGraphArgs(clients, k);
    const auto it = std::lower_bound(clients.begin(), clients.end(), self);
    if (it == clients.end() || *it != self)
    {
        throw ConfigError("clients",
                          "client " + std::to_string(self) + " is not in the list",
                          "ask only for the neighbours of a sampled client");
    }
    const std::vector<uint32_t> ring = RingOrder(clients, graphSeed);
    const std::size_t pos =
        static_cast<std::size_t>(std::find(ring.begin(), ring.end(), self) - ring.begin());
    return RingNeighbours(ring, pos, k);
}

std::vector<std::vector<uint32_t>>
HararyGraph(const std::vector<uint32_t>& clients, uint32_t k, uint64_t graphSeed)
{
    CheckGraphArgs(clients, k);
    const std::vector<uint32_t> ring = RingOrder(clients, graphSeed);
    std::vector<std::vector<uint32_t>> out(clients.size());
    for (std::size_t pos = 0; pos < ring.size(); ++pos)
    {
        const std::size_t index = static_cast<std::size_t>(
            std::lower_bound(clients.begin(), clients.end(), ring[pos]) - clients.begin());
        out[index] = RingNeighbours(ring, pos, k);
    }
    return out;
}

double
LogHypergeometricCdf(uint32_t N, uint32_t K, uint32_t m, int64_t x)
{
    double acc = -HUGE_VAL;
    for (int64_t v = 0; v <= std::min<int64_t>(x, m); ++v)
    {
        acc = LogSumExp(acc, LogHypergeometricPmf(N, K, m, v));
    }
    return acc;
}

SecAggPlusChoice
SecAggPlusParameters(uint32_t n, const SecAggPlusThreat& threat)
{
    if (n < 3)
    {
        throw ConfigError("clients",
                          "n = " + std::to_string(n),
                          "secure aggregation needs at least 3 clients");
    }
    if (!(threat.corruptFraction >= 0.0 && threat.corruptFraction < 1.0))
    {
        throw ConfigError("corruptFraction", "is not in [0, 1)", "give a fraction in [0, 1)");
    }
    if (!(threat.dropoutFraction >= 0.0 && threat.dropoutFraction < 1.0))
    {
        throw ConfigError("dropoutFraction", "is not in [0, 1)", "give a fraction in [0, 1)");
    }
    if (!(threat.securityBits > 0.0) || !(threat.correctnessBits > 0.0))
    {
        throw ConfigError(threat.securityBits > 0.0 ? "correctnessBits" : "securityBits",
                          "is not positive",
                          "give a positive number of bits (e.g. 40 and 20)");
    }
    const double ln2 = std::log(2.0);
    const uint32_t corrupt = FloorFraction(threat.corruptFraction, n);
    const uint32_t dropped = FloorFraction(threat.dropoutFraction, n);
    const uint32_t bad = std::min(n, corrupt + dropped);
    const uint32_t surviving = n - dropped;
    const double logSecurity = -(threat.securityBits + 1.0) * ln2; // split over two events
    const double logPerNodeSecurity = logSecurity - std::log(static_cast<double>(n));
    const double logPerNodeCorrectness =
        -threat.correctnessBits * ln2 - std::log(static_cast<double>(n));

    // The smallest t for k neighbours (h = k + 1 holders) and at most t1 corrupt holders.
    auto minThreshold = [&](uint32_t k, uint32_t t1) {
        uint32_t t = threat.activeServer ? (k + 1 + t1) / 2 + 1 // 2t > (k + 1) + t1
                                         : t1 + 1;              // t > t1
        t = std::max(t, (k + 1) / 2 + 1);                       // 2t > k + 1
        t = std::max(t, t1 + 2);                                // t - t1 >= 2
        return std::max<uint32_t>(t, 2);
    };

    for (uint32_t k = 2; k + 1 < n; k += 2)
    {
        SecAggPlusChoice c;
        c.neighbours = k;
        // (i) connectivity of the honest survivors (union bound over gap pairs).
        double logDisc = -HUGE_VAL;
        if (bad >= k)
        {
            logDisc = std::log(static_cast<double>(n)) + std::log(static_cast<double>(n - k - 1)) -
                      ln2 + std::lgamma(bad + 1.0) + std::lgamma(n - k + 1.0) -
                      std::lgamma(n + 1.0) - std::lgamma(bad - k + 1.0);
        }
        if (logDisc >= logSecurity)
        {
            continue;
        }
        // (ii) t1: corrupt neighbours exceed t1 with probability <= 2^-(sigma+1) / n.
        uint32_t t1 = 0;
        while (t1 < k && LogHypergeometricTail(n, corrupt, k, t1 + 1) > logPerNodeSecurity)
        {
            ++t1;
        }
        const uint32_t t = minThreshold(k, t1);
        // (iii) t2: fewer than t2 surviving neighbours with probability <= 2^-eta / n.
        uint32_t t2 = 0;
        while (t2 < k && LogHypergeometricCdf(n, surviving, k, t2) <= logPerNodeCorrectness)
        {
            ++t2;
        }
        if (t > t2 || t > k + 1)
        {
            continue;
        }
        c.threshold = t;
        c.corruptHolders = t1;
        c.log2Disconnected = logDisc / ln2;
        // Pr[some client has as many corrupt holders as breaks it]: 2t - (k + 1) (active) or t.
        c.log2TooManyCorrupt =
            (LogHypergeometricTail(n, corrupt, k, threat.activeServer ? 2 * t - (k + 1) : t) +
             std::log(static_cast<double>(n))) /
            ln2;
        c.log2TooFewSurvivors =
            (LogHypergeometricCdf(n, surviving, k, static_cast<int64_t>(t) - 1) +
             std::log(static_cast<double>(n))) /
            ln2;
        return c;
    }
    // The complete graph (Bonawitz et al. 2017): every client holds a share of every other.
    SecAggPlusChoice c;
    c.complete = true;
    c.neighbours = n - 1;
    const uint32_t t = minThreshold(n - 1, corrupt);
    if (t > surviving)
    {
        throw ConfigError("dropoutFraction",
                          std::to_string(dropped) + " of " + std::to_string(n) +
                              " clients may drop but the threshold must be at least " +
                              std::to_string(t),
                          "expect fewer dropouts or corrupt clients (a majority must survive)");
    }
    c.threshold = t;
    c.corruptHolders = corrupt;
    c.log2Disconnected = -HUGE_VAL;
    c.log2TooManyCorrupt = -HUGE_VAL;
    c.log2TooFewSurvivors = -HUGE_VAL;
    return c;
}

} // namespace fl
} // namespace ns3
