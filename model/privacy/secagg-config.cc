/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secagg-config.h"

#include <algorithm>
#include <cmath>
#include <sodium.h>
#include <sstream>
#include <string>

namespace ns3
{
namespace fl
{

namespace
{

void
Append(std::vector<uint8_t>& out, const char* text)
{
    while (*text)
    {
        out.push_back(static_cast<uint8_t>(*text++));
    }
    out.push_back(0);
}

void
AppendLe(std::vector<uint8_t>& out, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i)
    {
        out.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
}

template <std::size_t N>
void
AppendRaw(std::vector<uint8_t>& out, const std::array<uint8_t, N>& a)
{
    out.insert(out.end(), a.begin(), a.end());
}

bool
Contains(const std::vector<uint32_t>& sorted, uint32_t id)
{
    return std::binary_search(sorted.begin(), sorted.end(), id);
}

/// ceil(n / 3) - 1: the largest n_C below n / 3.
uint32_t
ThirdBelow(uint32_t n)
{
    return (n + 2) / 3 - 1;
}

/**
 * The complete graph's t and n_C for a roster of n under `rule` (see SecAggRule); throws
 * ConfigError naming "threshold" or "colluders".
 */
void
CompleteThreshold(uint32_t n, const SecAggRule& rule, uint32_t& t, uint32_t& nC)
{
    const uint32_t floorHonest = std::max<uint32_t>(rule.minHonest, 1);
    if (rule.threshold == 0 && rule.colluders == kSecAggAutoColluders)
    {
        t = 2 * n / 3 + 1; // Bonawitz et al.'s active setting: t > 2n/3 ...
        nC = ThirdBelow(n); // ... and n_C < n/3
        t = std::min(std::max(t, nC + floorHonest), n);
    }
    else if (rule.threshold == 0)
    {
        nC = rule.colluders;
        t = std::max({(n + nC) / 2 + 1, nC + floorHonest, 2u});
        if (t > n)
        {
            throw ConfigError("colluders",
                              "n_C = " + std::to_string(nC) + " for a roster of " +
                                  std::to_string(n) + " clients",
                              "tolerate fewer colluders: 2t > n + n_C and t - n_C >= " +
                                  std::to_string(floorHonest) + " need n_C <= " +
                                  std::to_string(n - std::min(n, floorHonest)) +
                                  " at most (use n_C < n / 3 for a threshold that tolerates "
                                  "dropouts)");
        }
    }
    else
    {
        t = rule.threshold;
        if (rule.colluders == kSecAggAutoColluders)
        {
            // the largest n_C with 2t > n + n_C and t - n_C >= minHonest
            const int64_t bySplit = 2 * static_cast<int64_t>(t) - n - 1;
            const int64_t byFloor = static_cast<int64_t>(t) - floorHonest;
            const int64_t c = std::min(bySplit, byFloor);
            if (c < 0)
            {
                throw ConfigError("threshold",
                                  "t = " + std::to_string(t) + " for a roster of " +
                                      std::to_string(n) + " clients",
                                  "use t > n / 2 (t >= " + std::to_string(n / 2 + 1) +
                                      "); the default floor(2n / 3) + 1 = " +
                                      std::to_string(2 * n / 3 + 1) +
                                      " tolerates ceil(n / 3) - 1 colluders");
            }
            nC = static_cast<uint32_t>(c);
        }
        else
        {
            nC = rule.colluders;
        }
    }
}

} // namespace

const char*
SecAggStatusText(SecAggStatus status)
{
    switch (status)
    {
    case SecAggStatus::Ok:
        return "ok";
    case SecAggStatus::Malformed:
        return "malformed message";
    case SecAggStatus::WrongInstance:
        return "message of another protocol instance";
    case SecAggStatus::WrongPhase:
        return "step or message not expected in this round";
    case SecAggStatus::UnknownClient:
        return "client not sampled, not a share holder, or not in the PKI";
    case SecAggStatus::Duplicate:
        return "second message from the same client in this round";
    case SecAggStatus::TooFewClients:
        return "fewer clients than the threshold t (or than the smallest roster): aborted";
    case SecAggStatus::MissingSelf:
        return "the list does not name this client with its own keys";
    case SecAggStatus::DuplicateKey:
        return "two advertised public keys are equal";
    case SecAggStatus::BadSignature:
        return "an Ed25519 signature does not verify";
    case SecAggStatus::BadKey:
        return "an X25519 public key is unusable (low-order point)";
    case SecAggStatus::BadCiphertext:
        return "a share ciphertext does not decrypt or names other parties";
    case SecAggStatus::NotSubset:
        return "the survivor list names a client outside U2 or not sampled";
    case SecAggStatus::InconsistentRequest:
        return "a second request contradicts the first";
    case SecAggStatus::TooFewShares:
        return "fewer shares than the threshold t: aborted";
    case SecAggStatus::BadShares:
        return "shares disagree or do not match the advertised key";
    case SecAggStatus::Aborted:
        return "the party aborted earlier";
    case SecAggStatus::BadConfiguration:
        return "the announced configuration is not the one the client's rule gives";
    case SecAggStatus::BadGraph:
        return "the announced SecAgg+ graph is not the one the public beacon gives";
    case SecAggStatus::StaleBeacon:
        return "the announced beacon round was already public when the setup arrived";
    }
    return "unknown status";
}

uint32_t
SecAggHolderCount(const SecAggConfig& config)
{
    const auto n = static_cast<uint32_t>(config.clients.size());
    if (config.graph == SecAggGraphKind::Harary)
    {
        return std::min(n, config.neighbours + 1);
    }
    return n;
}

void
CheckSecAggConfig(const SecAggConfig& config)
{
    if (config.clients.size() < 2)
    {
        throw ConfigError("clients",
                          std::to_string(config.clients.size()) + " sampled client(s)",
                          "sample at least 2 clients (secure aggregation of one input hides "
                          "nothing)");
    }
    for (std::size_t i = 0; i < config.clients.size(); ++i)
    {
        if ((i > 0 && config.clients[i] <= config.clients[i - 1]) ||
            config.clients[i] == UINT32_MAX)
        {
            throw ConfigError("clients",
                              "ids are not strictly ascending or use 0xFFFFFFFF",
                              "list every sampled client once, ascending, ids < 0xFFFFFFFF");
        }
    }
    if (config.dim == 0)
    {
        throw ConfigError("dim", "is 0", "give the model dimension (>= 1)");
    }
    if (config.fractionBits < 1 || config.fractionBits > 52)
    {
        throw ConfigError("maskFractionBits",
                          "is " + std::to_string(config.fractionBits),
                          "use 1..52 fraction bits");
    }
    if (config.graph == SecAggGraphKind::Harary &&
        (config.neighbours < 2 || config.neighbours % 2 != 0))
    {
        throw ConfigError("neighbours",
                          "k = " + std::to_string(config.neighbours),
                          "use an even k >= 2 (SecAggPlusParameters chooses one)");
    }
    const uint32_t h = SecAggHolderCount(config);
    const uint64_t t = config.threshold;
    if (t < 2 || t > h || 2 * t <= static_cast<uint64_t>(h) + config.colluders)
    {
        const uint32_t lowest = (h + config.colluders) / 2 + 1;
        throw ConfigError(
            "threshold",
            "t = " + std::to_string(t) + " for h = " + std::to_string(h) +
                " share holders per client and n_C = " + std::to_string(config.colluders) +
                " colluders",
            lowest <= h ? "use " + std::to_string(std::max<uint32_t>(lowest, 2)) +
                              " <= t <= " + std::to_string(h) +
                              " (2t > h + n_C: otherwise the server can have two survivor lists "
                              "certified and reconstruct both secrets of one client)"
                        : "tolerate fewer colluders (2t > h + n_C needs n_C < h)");
    }
}

std::vector<uint32_t>
SecAggHolders(const SecAggConfig& config, uint32_t id)
{
    CheckSecAggConfig(config);
    if (!Contains(config.clients, id))
    {
        throw ConfigError("clients",
                          "client " + std::to_string(id) + " is not sampled",
                          "construct parties only for sampled clients");
    }
    std::vector<uint32_t> holders;
    if (config.graph == SecAggGraphKind::Complete || config.neighbours + 1 >= config.clients.size())
    {
        holders = config.clients;
    }
    else
    {
        holders = HararyNeighbours(config.clients, config.neighbours, config.graphSeed, id);
        holders.insert(std::lower_bound(holders.begin(), holders.end(), id), id);
    }
    return holders;
}

std::map<uint32_t, std::vector<uint32_t>>
SecAggHoldersOfHolders(const SecAggConfig& config, uint32_t id)
{
    const std::vector<uint32_t> own = SecAggHolders(config, id);
    std::map<uint32_t, std::vector<uint32_t>> out;
    if (config.graph == SecAggGraphKind::Complete || config.neighbours + 1 >= config.clients.size())
    {
        for (uint32_t v : own)
        {
            out[v] = config.clients;
        }
        return out;
    }
    const auto graph = HararyGraph(config.clients, config.neighbours, config.graphSeed);
    for (uint32_t v : own)
    {
        const std::size_t i = static_cast<std::size_t>(
            std::lower_bound(config.clients.begin(), config.clients.end(), v) -
            config.clients.begin());
        std::vector<uint32_t> h = graph[i];
        h.insert(std::lower_bound(h.begin(), h.end(), v), v);
        out[v] = std::move(h);
    }
    return out;
}

SecAggIdentity
MakeSecAggIdentity(uint32_t id, KeySource& keys)
{
    EnsureSodiumReady();
    SecAggIdentity identity;
    identity.id = id;
    MaskSecret seed = keys.Key();
    crypto_sign_seed_keypair(identity.verifyKey.data(), identity.signingKey.data(), seed.data());
    sodium_memzero(seed.data(), seed.size());
    return identity;
}

std::array<uint8_t, 32>
SecAggConfigDigest(const SecAggConfig& config)
{
    EnsureSodiumReady();
    std::vector<uint8_t> m;
    Append(m, "fl-secagg-v2 config");
    AppendLe(m, config.instance, 8);
    AppendLe(m, config.threshold, 4);
    AppendLe(m, config.colluders, 4);
    AppendLe(m, static_cast<uint8_t>(config.graph), 1);
    AppendLe(m, config.neighbours, 4);
    AppendLe(m, config.graphSeed, 8);
    AppendLe(m, config.dim, 8);
    AppendLe(m, config.fractionBits, 1);
    AppendLe(m, config.clients.size(), 4);
    for (uint32_t id : config.clients)
    {
        AppendLe(m, id, 4);
    }
    std::array<uint8_t, 32> d;
    crypto_generichash(d.data(), d.size(), m.data(), m.size(), nullptr, 0);
    return d;
}

std::vector<uint8_t>
SecAggKeysSignedMessage(const SecAggConfig& config, const SecAggAdvertisedKeys& keys)
{
    std::vector<uint8_t> m;
    Append(m, "fl-secagg-v2 keys");
    AppendRaw(m, SecAggConfigDigest(config));
    AppendLe(m, keys.id, 4);
    AppendRaw(m, keys.cPk);
    AppendRaw(m, keys.sPk);
    return m;
}

std::vector<uint8_t>
SecAggSurvivorsSignedMessage(const SecAggConfig& config, const std::vector<uint32_t>& survivors)
{
    std::vector<uint8_t> m;
    Append(m, "fl-secagg-v2 survivors");
    AppendRaw(m, SecAggConfigDigest(config));
    AppendLe(m, survivors.size(), 4);
    for (uint32_t id : survivors)
    {
        AppendLe(m, id, 4);
    }
    return m;
}

// ------------------------------------------------------------------ the rule

SecAggConfig
MakeSecAggRoundConfig(uint64_t instance,
                      const std::vector<uint32_t>& clients,
                      std::size_t dim,
                      const SecAggRule& rule,
                      uint64_t graphSeed)
{
    SecAggConfig c;
    c.instance = instance;
    c.clients = clients;
    c.dim = dim;
    c.fractionBits = rule.fractionBits;
    const auto n = static_cast<uint32_t>(clients.size());
    const uint32_t smallest = std::max<uint32_t>(rule.minClients, 2);
    if (n < smallest)
    {
        throw ConfigError("clients",
                          std::to_string(n) + " sampled client(s)",
                          "sample at least " + std::to_string(smallest) +
                              " clients (the smallest roster the clients take part in)");
    }
    bool harary = false;
    if (rule.graph == SecAggGraphKind::Harary && n >= 3)
    {
        const SecAggPlusChoice p = SecAggPlusParameters(n, rule.threat);
        c.threshold = rule.threshold != 0 ? rule.threshold : p.threshold;
        c.colluders = p.corruptHolders;
        if (!p.complete)
        {
            harary = true;
            c.graph = SecAggGraphKind::Harary;
            c.neighbours = p.neighbours;
            c.graphSeed = graphSeed;
        }
    }
    if (!harary && rule.graph == SecAggGraphKind::Harary && n >= 3)
    {
        // SecAgg+ fell back to the complete graph: n_C = floor(gamma n) colluders in the roster
        SecAggRule complete = rule;
        complete.colluders = c.colluders;
        CompleteThreshold(n, complete, c.threshold, c.colluders);
    }
    else if (!harary)
    {
        CompleteThreshold(n, rule, c.threshold, c.colluders);
    }
    const uint32_t floorHonest = std::max<uint32_t>(rule.minHonest, 1);
    if (c.threshold < c.colluders + floorHonest)
    {
        throw ConfigError("threshold",
                          "t = " + std::to_string(c.threshold) + " with n_C = " +
                              std::to_string(c.colluders) + " colluders leaves sums of " +
                              std::to_string(c.threshold - std::min(c.threshold, c.colluders)) +
                              " honest input(s)",
                          "raise t to at least n_C + " + std::to_string(floorHonest) +
                              " or tolerate fewer colluders");
    }
    CheckSecAggConfig(c);
    return c;
}

SecAggRoundSetup
SecAggSetupOf(const SecAggConfig& config, uint64_t beaconRound)
{
    SecAggRoundSetup s;
    s.graph = static_cast<uint8_t>(config.graph);
    s.fractionBits = static_cast<uint8_t>(config.fractionBits);
    s.threshold = config.threshold;
    s.neighbours = config.neighbours;
    s.beaconRound = config.graph == SecAggGraphKind::Harary ? beaconRound : 0;
    s.dim = config.dim;
    s.clients = config.clients;
    return s;
}

SecAggStatus
SecAggAcceptSetup(uint64_t instance,
                  const SecAggRoundSetup& setup,
                  uint32_t self,
                  std::size_t dim,
                  const SecAggRule& rule,
                  const SecAggBeacon* beacon,
                  SecAggConfig& config)
{
    if (!Contains(setup.clients, self))
    {
        return SecAggStatus::UnknownClient;
    }
    if (setup.clients.size() < std::max<uint32_t>(rule.minClients, 2))
    {
        return SecAggStatus::TooFewClients;
    }
    if (setup.dim != dim)
    {
        return SecAggStatus::Malformed;
    }
    uint64_t graphSeed = 0;
    if (setup.graph == static_cast<uint8_t>(SecAggGraphKind::Harary))
    {
        if (beacon == nullptr)
        {
            return SecAggStatus::BadGraph;
        }
        graphSeed = SecAggGraphSeed(beacon->Value(setup.beaconRound), instance, setup.clients);
    }
    SecAggConfig own;
    try
    {
        own = MakeSecAggRoundConfig(instance, setup.clients, dim, rule, graphSeed);
    }
    catch (const ConfigError&)
    {
        return SecAggStatus::BadConfiguration;
    }
    const SecAggRoundSetup expected = SecAggSetupOf(own, setup.beaconRound);
    if (expected.graph != setup.graph || expected.fractionBits != setup.fractionBits ||
        expected.threshold != setup.threshold || expected.neighbours != setup.neighbours)
    {
        return SecAggStatus::BadConfiguration;
    }
    config = own;
    return SecAggStatus::Ok;
}

// ------------------------------------------------------------------ the guarantee

SecAggGuarantee
SecAggGuaranteeOf(const SecAggConfig& config, const SecAggPlusThreat& threat)
{
    CheckSecAggConfig(config);
    SecAggGuarantee g;
    g.graph = config.graph;
    g.n = static_cast<uint32_t>(config.clients.size());
    g.holders = SecAggHolderCount(config);
    g.neighbours = config.graph == SecAggGraphKind::Harary ? config.neighbours : g.n - 1;
    g.threshold = config.threshold;
    g.colluders = config.colluders;
    g.minHonestInSum = config.threshold - std::min(config.threshold, config.colluders);
    g.dropouts = g.holders - config.threshold;
    g.log2Failure = -HUGE_VAL;
    if (config.graph == SecAggGraphKind::Harary)
    {
        g.corruptFraction = threat.corruptFraction;
        const SecAggPlusChoice p = SecAggPlusParameters(g.n, threat);
        // privacy fails if the honest survivors are cut apart or a client has too many corrupt
        // holders: log2(2^x + 2^y)
        const double x = p.log2Disconnected;
        const double y = p.log2TooManyCorrupt;
        const double m = std::max(x, y);
        g.log2Failure = m == -HUGE_VAL ? m : m + std::log2(1.0 + std::exp2(std::min(x, y) - m));
    }
    return g;
}

std::string
SecAggGuarantee::Text() const
{
    std::ostringstream s;
    if (graph == SecAggGraphKind::Complete)
    {
        s << "SecAgg (Bonawitz et al., ACM CCS 2017) on n = " << n << " clients, t = " << threshold
          << ": against an active server colluding with at most n_C = " << colluders
          << " clients, the server learns nothing beyond sums of at least t - n_C = "
          << minHonestInSum << " honest inputs (2t > n + n_C: " << 2 * threshold << " > "
          << n + colluders
          << "; under the PKI, simulated here, in the random-oracle model); up to n - t = "
          << dropouts << " clients may drop out. Not protected: a server that aggregates the "
                         "cohorts S and S minus {v} in two rounds learns x_v from the difference";
    }
    else
    {
        s.precision(3);
        s << "SecAgg+ (Bell et al., ACM CCS 2020) on n = " << n << " clients, k = " << neighbours
          << " neighbours from the public beacon, t = " << threshold << " of h = k + 1 = "
          << holders << " holders: a semi-honest server learns only the sum of the surviving "
                        "inputs; against an active server colluding with at most "
          << static_cast<uint32_t>(std::floor(corruptFraction * n + 1e-9)) << " clients ("
          << 100.0 * corruptFraction << " %), no client's self-mask seed and mask key are both "
          << "revealed while fewer than 2t - h = " << 2 * threshold - holders
          << " of its holders collude (at most n_C = " << colluders << " do, except with "
          << "probability <= 2^" << log2Failure
          << " over the graph); no bound on the size of the sums an active server learns is "
             "claimed for SecAgg+; up to h - t = "
          << dropouts << " holders of a client may drop out. Not protected: a server that "
                         "aggregates the cohorts S and S minus {v} in two rounds learns x_v "
                         "from the difference";
    }
    return s.str();
}

} // namespace fl
} // namespace ns3
