/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Secure aggregation against an actively malicious server, tested from the server's side
 * (fl::RunSecAggAttack, secagg-attack.h): the attacks that broke earlier rules fail at the
 * largest number of colluders a configuration claims to tolerate, succeed one colluder beyond
 * it (so the tests have power), and a family of random deviating servers never learns a sum of
 * fewer honest inputs than the guarantee allows (doc/fl-privacy.rst, "Secure aggregation",
 * section "Threat model and guarantees").
 */
#include "fl-test-config-error.h"
#include "fl-test-secagg.h"

#include "ns3/secagg-attack.h"

#include <gtest/gtest.h>
#include <numeric>
#include <random>

using namespace ns3::fl;

namespace
{

std::vector<uint32_t>
Roster(uint32_t n)
{
    std::vector<uint32_t> ids(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        ids[i] = 3 + 2 * i;
    }
    return ids;
}

std::vector<Eigen::VectorXd>
Inputs(std::size_t n, std::size_t d, uint64_t seed)
{
    return fltest::SecAggInputs(n, d, seed);
}

/// The default configuration of the rule (t = floor(2n/3) + 1, n_C = ceil(n/3) - 1).
SecAggConfig
DefaultConfig(uint32_t n, std::size_t dim = 3)
{
    SecAggRule rule;
    rule.fractionBits = 30;
    return MakeSecAggRoundConfig(5, Roster(n), dim, rule, 0);
}

/// The first `count` clients of the roster other than `victim`.
std::set<uint32_t>
Colluders(const SecAggConfig& c, std::size_t count, uint32_t victim)
{
    std::set<uint32_t> out;
    for (uint32_t id : c.clients)
    {
        if (out.size() < count && id != victim)
        {
            out.insert(id);
        }
    }
    return out;
}

/// True if some learnable sum is the victim's input alone, recovered exactly.
bool
RecoveredAlone(const SecAggLeak& leak, uint32_t victim)
{
    for (const auto& s : leak.sums)
    {
        if (s.honest == std::vector<uint32_t>{victim} && s.exact)
        {
            return true;
        }
    }
    return false;
}

/// The guarantee: no honest client's two secrets, no sum of fewer than t - n_C honest inputs,
/// and every learnable sum is what the server computes (the analysis is exact).
void
ExpectGuaranteeHolds(const SecAggConfig& c, const SecAggLeak& leak, const std::string& what)
{
    EXPECT_TRUE(leak.bothSecrets.empty()) << what << ": both secrets of client "
                                          << leak.bothSecrets.front();
    for (const auto& s : leak.sums)
    {
        EXPECT_TRUE(s.exact) << what << ": a learnable sum the server does not compute";
        EXPECT_GE(s.honest.size(), c.threshold - c.colluders)
            << what << ": a sum of " << s.honest.size() << " honest inputs";
    }
}

// ------------------------------------------------------------------ the honest baseline

TEST(SecAggActive, AnHonestRunLeaksExactlyTheSumOfTheSurvivors)
{
    const SecAggConfig c = DefaultConfig(7);
    const auto x = Inputs(7, c.dim, 1);
    SecAggAttackPlan plan;
    plan.config = c;
    const SecAggLeak leak = RunSecAggAttack(plan, x, 1);
    ASSERT_EQ(leak.sums.size(), 1u);
    EXPECT_EQ(leak.sums[0].honest, c.clients);
    EXPECT_TRUE(leak.sums[0].exact);
    EXPECT_TRUE(leak.bothSecrets.empty());
    EXPECT_TRUE(leak.refusals.empty());
    // With two colluders following the protocol, the server learns the sum of the 5 others.
    plan.corrupt = {3, 5};
    const SecAggLeak withColluders = RunSecAggAttack(plan, x, 2);
    ASSERT_EQ(withColluders.sums.size(), 1u);
    EXPECT_EQ(withColluders.sums[0].honest.size(), 5u);
    EXPECT_TRUE(withColluders.sums[0].exact);
}

// ------------------------------------------------------------------ the split of U3

TEST(SecAggActive, SplittingTheConsistencyRoundFailsAtTheLargestToleratedColluders)
{
    for (uint32_t n : {5u, 10u, 20u, 101u})
    {
        const SecAggConfig c = DefaultConfig(n, n > 50 ? 2 : 3);
        const uint32_t victim = c.clients.back();
        const auto x = Inputs(n, c.dim, n);
        const auto corrupt = Colluders(c, c.colluders, victim);
        const SecAggLeak leak = RunSecAggAttack(SplitSurvivorListsPlan(c, corrupt, victim), x, n);
        const std::string what = "n = " + std::to_string(n) + ", t = " +
                                 std::to_string(c.threshold) + ", n_C = " +
                                 std::to_string(c.colluders);
        ExpectGuaranteeHolds(c, leak, what);
        EXPECT_FALSE(RecoveredAlone(leak, victim)) << what;
        EXPECT_FALSE(leak.refusals.empty()) << what << ": one side of the split must fail";
    }
}

TEST(SecAggActive, SplittingTheConsistencyRoundSucceedsWithOneColluderTooMany)
{
    // The earlier rule t = floor(n/2) + 1 claimed to resist fewer than t colluders; 2t - n
    // colluders (1 for odd n, 2 for even n) split U3 and recover the victim's input exactly.
    for (uint32_t n : {5u, 10u, 20u, 101u})
    {
        SecAggConfig c = DefaultConfig(n, n > 50 ? 2 : 3);
        c.threshold = n / 2 + 1;
        c.colluders = 0; // what that configuration tolerates: 2t > n
        CheckSecAggConfig(c);
        const uint32_t victim = c.clients.back();
        const auto x = Inputs(n, c.dim, n);
        const auto corrupt = Colluders(c, 2 * c.threshold - n, victim);
        const SecAggLeak leak = RunSecAggAttack(SplitSurvivorListsPlan(c, corrupt, victim), x, n);
        EXPECT_TRUE(RecoveredAlone(leak, victim)) << "n = " << n;
        EXPECT_EQ(leak.bothSecrets, std::vector<uint32_t>{victim}) << "n = " << n;
    }
    // The same for the default rule one colluder beyond n_C (2t - n of them).
    const SecAggConfig c = DefaultConfig(10);
    const uint32_t victim = c.clients.back();
    ASSERT_EQ(2 * c.threshold - 10, c.colluders + 1);
    const SecAggLeak leak = RunSecAggAttack(
        SplitSurvivorListsPlan(c, Colluders(c, c.colluders + 1, victim), victim),
        Inputs(10, c.dim, 3),
        3);
    EXPECT_TRUE(RecoveredAlone(leak, victim));
}

// ------------------------------------------------------------------ the isolated victim

TEST(SecAggActive, AVictimShownOnlyColludersRefusesAtTheLargestToleratedColluders)
{
    for (uint32_t n : {4u, 7u, 12u, 31u})
    {
        const SecAggConfig c = DefaultConfig(n);
        const uint32_t victim = c.clients.front();
        const auto corrupt = Colluders(c, c.colluders, victim);
        const SecAggLeak leak =
            RunSecAggAttack(IsolateVictimPlan(c, corrupt, victim), Inputs(n, c.dim, 4), 4);
        ExpectGuaranteeHolds(c, leak, "n = " + std::to_string(n));
        ASSERT_EQ(leak.refusals.count(victim), 1u) << n;
        EXPECT_EQ(leak.refusals.at(victim), SecAggStatus::TooFewClients) << n;
        EXPECT_FALSE(RecoveredAlone(leak, victim)) << n;
    }
    // t - 1 colluders (beyond n_C = t - 2 or fewer): the victim's list reaches t with its own
    // entry, every share of its secrets goes to the server's side, its input is recovered.
    const SecAggConfig c = DefaultConfig(7); // t = 5, n_C = 2
    const uint32_t victim = c.clients.front();
    const SecAggLeak leak = RunSecAggAttack(
        IsolateVictimPlan(c, Colluders(c, c.threshold - 1, victim), victim),
        Inputs(7, c.dim, 5),
        5);
    EXPECT_TRUE(RecoveredAlone(leak, victim));
}

// ------------------------------------------------------------------ what is not protected

TEST(SecAggActive, TwoCohortsThatDifferByOneClientRevealItsInput)
{
    // Secure aggregation protects one instance; a server that aggregates S and S minus {v} in
    // two rounds subtracts the two sums (the threat model's stated limit; DP noise on the
    // uploads, not secure aggregation, bounds what such differences reveal).
    const auto x = Inputs(6, 4, 6);
    SecAggRule rule;
    rule.fractionBits = 30;
    const SecAggConfig s = MakeSecAggRoundConfig(1, Roster(6), 4, rule, 0);
    std::vector<uint32_t> without = Roster(6);
    without.pop_back();
    const SecAggConfig t = MakeSecAggRoundConfig(2, without, 4, rule, 0);
    const std::vector<uint64_t> w(6, 1);
    const auto a = RunSecAggInProcess(s, x, w, KeyMode::Random, {});
    const auto b = RunSecAggInProcess(t,
                                      std::vector<Eigen::VectorXd>(x.begin(), x.end() - 1),
                                      std::vector<uint64_t>(5, 1),
                                      KeyMode::Random,
                                      {});
    ASSERT_EQ(a.status, SecAggStatus::Ok);
    ASSERT_EQ(b.status, SecAggStatus::Ok);
    // The fixed-point encodings are exact multiples of 2^-30 here, so the difference is x_v
    // to the encoding's resolution (the summand bound differs: 6 and 5 clients).
    EXPECT_LE((a.result.sum - b.result.sum - x.back()).cwiseAbs().maxCoeff(), std::ldexp(1.0, -29));
    EXPECT_GT(x.back().cwiseAbs().maxCoeff(), 0.1);
}

// ------------------------------------------------------------------ SecAgg+ graphs

TEST(SecAggActive, AServerThatChoosesTheSecAggPlusGraphSurroundsAVictim)
{
    // The earlier protocol let the server announce the graph seed. With the graph dimensioned
    // for no corrupt client (the earlier default) and 12 colluders among 100 clients, the server
    // searches seeds until t of the victim's neighbours are its colluders: they alone hold t
    // shares of both of its secrets, and its input falls out exactly.
    const uint32_t n = 100;
    SecAggPlusThreat none;
    none.corruptFraction = 0.0;
    const SecAggPlusChoice p = SecAggPlusParameters(n, none);
    ASSERT_FALSE(p.complete);
    SecAggConfig c;
    c.instance = 9;
    c.clients = Roster(n);
    c.dim = 2;
    c.fractionBits = 30;
    c.graph = SecAggGraphKind::Harary;
    c.neighbours = p.neighbours;
    c.threshold = p.threshold;
    c.colluders = p.corruptHolders;
    const uint32_t victim = c.clients[50];
    const std::set<uint32_t> corrupt(c.clients.begin(), c.clients.begin() + 12);
    uint64_t tries = 0;
    for (; tries < 3000000; ++tries)
    {
        std::size_t inside = 0;
        for (uint32_t v : HararyNeighbours(c.clients, c.neighbours, tries, victim))
        {
            inside += corrupt.count(v);
        }
        if (inside >= c.threshold)
        {
            break;
        }
    }
    ASSERT_LT(tries, 3000000u) << "k = " << c.neighbours << ", t = " << c.threshold;
    std::cout << "k = " << c.neighbours << ", t = " << c.threshold
              << ": the server's colluders surround the victim after " << tries + 1 << " seeds"
              << std::endl;
    c.graphSeed = tries;
    SecAggAttackPlan plan;
    plan.config = c;
    plan.corrupt = corrupt;
    const SecAggLeak leak = RunSecAggAttack(plan, Inputs(n, c.dim, 8), 8);
    EXPECT_TRUE(RecoveredAlone(leak, victim));
    // Now the clients compute the graph from the beacon round the setup names: the server has
    // no seed to announce, and a round already public when the setup arrives is refused (the
    // client step's check, tested over the network in test-secagg-network).
    SecAggRule rule;
    rule.graph = SecAggGraphKind::Harary;
    rule.fractionBits = 30;
    const SecAggBeacon beacon(MaskSecret{1, 2, 3}, 0.25);
    const SecAggConfig chosen = MakeSecAggRoundConfig(9, c.clients, 2, rule, tries);
    SecAggConfig accepted;
    ASSERT_EQ(SecAggAcceptSetup(9, SecAggSetupOf(chosen, 40), victim, 2, rule, &beacon, accepted),
              SecAggStatus::Ok);
    EXPECT_EQ(accepted.graphSeed, SecAggGraphSeed(beacon.Value(40), 9, c.clients));
    EXPECT_NE(accepted.graphSeed, tries);
    EXPECT_GT(beacon.PublishedAt(beacon.FirstRoundAfter(3.0)), 3.0);
    EXPECT_LE(beacon.PublishedAt(beacon.FirstRoundAfter(3.0) - 1), 3.0);
}

TEST(SecAggActive, BeaconGraphsKeepEveryClientsCorruptHoldersWithinTheBound)
{
    // n = 100, 5 % corrupt (5 colluders, wherever the server put them in the roster): over 500
    // beacon rounds no client has more corrupt holders than t1 (SecAggPlusParameters allows a
    // failure with probability below 2^-41 per graph, so below 500 * 2^-41 for this test), and
    // therefore fewer than 2t - h: the split of any client's survivor lists is impossible.
    const uint32_t n = 100;
    SecAggPlusThreat threat; // the defaults: 5 % corrupt, 5 % dropped, 40 / 20 bits
    const SecAggPlusChoice p = SecAggPlusParameters(n, threat);
    ASSERT_FALSE(p.complete);
    EXPECT_EQ(p.corruptHolders < 2 * p.threshold - (p.neighbours + 1), true);
    const std::vector<uint32_t> roster = Roster(n);
    const std::set<uint32_t> corrupt(roster.begin(), roster.begin() + 5);
    const SecAggBeacon beacon(MaskSecret{7}, 1.0);
    std::size_t worst = 0;
    for (uint64_t round = 1; round <= 500; ++round)
    {
        const uint64_t seed = SecAggGraphSeed(beacon.Value(round), 3, roster);
        const auto graph = HararyGraph(roster, p.neighbours, seed);
        for (const auto& nb : graph)
        {
            std::size_t inside = 0;
            for (uint32_t v : nb)
            {
                inside += corrupt.count(v);
            }
            worst = std::max(worst, inside);
        }
    }
    EXPECT_LE(worst, p.corruptHolders);
    std::cout << "k = " << p.neighbours << ", t = " << p.threshold << ", t1 = " << p.corruptHolders
              << ": at most " << worst << " corrupt holders over 500 beacon graphs" << std::endl;
}

// ------------------------------------------------------------------ random malicious servers

TEST(SecAggActive, RandomMaliciousServersNeverLearnASumSmallerThanTheTheoremAllows)
{
    // A family of deviating servers, one or more deviations per trial: split views of U3 (two
    // or three lists), key lists withheld, ciphertexts withheld, signatures withheld, chosen
    // drops (U3 a random subset), real dropouts; colluders up to the configuration's n_C (t and
    // n_C drawn with 2t > n + n_C, t - n_C >= 2). "Learns" is computed from what the server holds
    // (RunSecAggAttack): never a sum of fewer than t - n_C honest inputs, never both secrets of
    // an honest client.
    const char* names[] = {"colluders only", "split U3", "keys withheld", "ciphertexts withheld",
                           "signatures withheld", "chosen drops", "real dropouts"};
    std::map<std::string, std::pair<int, int>> tally; // strategy -> (trials, learned a sum)
    std::size_t smallestSeen = 1000;
    std::size_t decoded = 0;
    for (uint64_t trial = 0; trial < 140; ++trial)
    {
        Rng rng(DeriveSeed(0x5EC, trial));
        auto pick = [&](uint64_t lo, uint64_t hi) {
            return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
        };
        auto coin = [&](double p) { return std::bernoulli_distribution(p)(rng); };
        const auto n = static_cast<uint32_t>(pick(3, 14));
        SecAggRule rule;
        rule.fractionBits = 30;
        rule.colluders = static_cast<uint32_t>(pick(0, (n - 2) / 2)); // n_C <= n/2 - 1
        SecAggConfig c = MakeSecAggRoundConfig(trial + 1, Roster(n), 2, rule, 0);
        c.threshold = static_cast<uint32_t>(pick(c.threshold, n)); // any larger t serves too
        CheckSecAggConfig(c);
        std::vector<uint32_t> ids = c.clients;
        std::shuffle(ids.begin(), ids.end(), rng);
        SecAggAttackPlan plan;
        plan.config = c;
        plan.corrupt.insert(ids.begin(), ids.begin() + pick(0, c.colluders));
        std::vector<uint32_t> honest;
        for (uint32_t id : c.clients)
        {
            if (plan.corrupt.count(id) == 0)
            {
                honest.push_back(id);
            }
        }
        auto subset = [&](double p) {
            std::set<uint32_t> s;
            for (uint32_t id : c.clients)
            {
                if (coin(p))
                {
                    s.insert(id);
                }
            }
            return s;
        };
        auto victims = [&](double p) {
            std::vector<uint32_t> s;
            for (uint32_t h : honest)
            {
                if (coin(p))
                {
                    s.push_back(h);
                }
            }
            return s;
        };
        std::set<int> used;
        const auto deviations = pick(1, 2);
        for (uint64_t d = 0; d < deviations; ++d)
        {
            const int kind = static_cast<int>(pick(0, 6));
            used.insert(kind);
            switch (kind)
            {
            case 1: { // split views: two or three lists
                std::vector<std::vector<uint32_t>> lists;
                const auto views = pick(2, 3);
                for (uint64_t v = 0; v < views; ++v)
                {
                    const std::set<uint32_t> s = subset(0.85);
                    lists.emplace_back(s.begin(), s.end());
                }
                for (uint32_t h : honest)
                {
                    plan.survivorsShown[h] = lists[pick(0, lists.size() - 1)];
                }
                break;
            }
            case 2:
                for (uint32_t h : victims(0.3))
                {
                    plan.keysShown[h] = subset(0.75);
                }
                break;
            case 3:
                for (uint32_t h : victims(0.3))
                {
                    plan.sharesWithheld[h] = subset(0.25);
                }
                break;
            case 4:
                for (uint32_t h : victims(0.4))
                {
                    plan.signaturesWithheld[h] = subset(0.3);
                }
                break;
            case 5: { // chosen drops: one U3 for everyone, a random subset
                const std::set<uint32_t> s = subset(0.8);
                for (uint32_t h : honest)
                {
                    plan.survivorsShown[h] = std::vector<uint32_t>(s.begin(), s.end());
                }
                break;
            }
            case 6:
                for (uint32_t h : victims(0.15))
                {
                    plan.silent.insert(h);
                }
                break;
            default:
                break; // colluders only
            }
        }
        const SecAggLeak leak = RunSecAggAttack(plan, Inputs(n, c.dim, trial), trial);
        ExpectGuaranteeHolds(c, leak, "trial " + std::to_string(trial));
        for (int kind : used)
        {
            auto& [trials, learned] = tally[names[kind]];
            ++trials;
            learned += leak.sums.empty() ? 0 : 1;
        }
        if (!leak.sums.empty())
        {
            ++decoded;
            smallestSeen = std::min(smallestSeen, leak.SmallestSum());
        }
    }
    // The analysis is not vacuous: every kind of server was tried, and many still decode a sum.
    int learnedAny = 0;
    for (const auto& [name, counts] : tally)
    {
        std::cout << name << ": " << counts.second << " of " << counts.first
                  << " servers learned a sum" << std::endl;
        EXPECT_GE(counts.first, 10) << name;
        learnedAny += counts.second;
    }
    EXPECT_EQ(tally.size(), 7u);
    EXPECT_GT(learnedAny, 40);
    std::cout << decoded << " of 140 servers decoded a sum; the smallest held " << smallestSeen
              << " honest inputs" << std::endl;
}

TEST(SecAggActive, RandomMaliciousServersNeverGetBothSecretsOfASecAggPlusClient)
{
    // SecAgg+ on beacon graphs: per-owner certification keeps every honest client's two secrets
    // apart while fewer than 2t - h of its holders collude (no claim on the size of sums).
    for (uint64_t trial = 0; trial < 40; ++trial)
    {
        Rng rng(DeriveSeed(0x5EC2, trial));
        auto pick = [&](uint64_t lo, uint64_t hi) {
            return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
        };
        const auto n = static_cast<uint32_t>(pick(12, 30));
        SecAggRule rule;
        rule.graph = SecAggGraphKind::Harary;
        rule.fractionBits = 30;
        rule.threat.corruptFraction = 0.1;
        rule.threat.dropoutFraction = 0.1;
        rule.threat.securityBits = 10;
        rule.threat.correctnessBits = 5;
        const SecAggBeacon beacon(MaskSecret{static_cast<uint8_t>(trial)}, 1.0);
        const std::vector<uint32_t> roster = Roster(n);
        const SecAggConfig c =
            MakeSecAggRoundConfig(trial + 1, roster, 2, rule, SecAggGraphSeed(beacon.Value(1), trial + 1, roster));
        if (c.graph != SecAggGraphKind::Harary)
        {
            continue;
        }
        std::vector<uint32_t> ids = roster;
        std::shuffle(ids.begin(), ids.end(), rng);
        SecAggAttackPlan plan = SplitSurvivorListsPlan(c,
                                                       std::set<uint32_t>(ids.begin() + 1,
                                                                          ids.begin() + 1 + pick(0, n / 10)),
                                                       ids[0]);
        const SecAggLeak leak = RunSecAggAttack(plan, Inputs(n, c.dim, trial), trial);
        for (uint32_t v : leak.bothSecrets)
        {
            std::size_t inside = 0;
            for (uint32_t w : SecAggHolders(c, v))
            {
                inside += plan.corrupt.count(w);
            }
            EXPECT_GE(inside + SecAggHolderCount(c), 2 * c.threshold)
                << "trial " << trial << ": both secrets of " << v << " with only " << inside
                << " corrupt holders";
        }
    }
}

} // namespace
