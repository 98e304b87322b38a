/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-secagg-benchmark: cost of one secure-aggregation instance against the number of clients n,
 * for the protocol of Bonawitz et al., "Practical Secure Aggregation for Privacy-Preserving
 * Machine Learning", ACM CCS 2017 (Fig. 4, with the consistency check; every client shares with
 * every other) and for SecAgg+ of Bell, Bonawitz, Gascón, Lepoint and Raykova, "Secure
 * Single-Server Aggregation with (Poly)Logarithmic Overhead", ACM CCS 2020 (each client shares
 * with its k neighbours in a random Harary graph; k and t from SecAggPlusParameters for the
 * given corrupt and dropout fractions). Every client and the server run in this process on one
 * core (RunSecAggInProcess); floor(dropout n) clients drop after sharing their keys, so the
 * unmasking of dropped clients is part of the cost. Printed per n and variant: the mean and the
 * largest per-client compute time, the mean bytes a client sends and receives, the server's time
 * and bytes, and whether the decoded sum equals the plain fixed-point sum bit for bit.
 *
 * SecAgg's threshold is the smallest majority, t = floor(n / 2) + 1 (the configuration needs
 * a majority of the share holders, see secagg.h). The complete graph costs O(n) key agreements,
 * signature checks and mask expansions per client, so n = 1000 takes minutes on one core.
 *
 *   fl-secagg-benchmark                                  # n = 10, 100, 1000, both variants
 *   fl-secagg-benchmark --clients=100,1000,10000 --variant=secaggplus --dim=1000
 */

#include "fl-example-flags.h"

#include "ns3/core-module.h"
#include "ns3/secagg.h"

#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{

/// Largest n accepted by --clients (memory grows as n^2 for SecAgg).
constexpr flexample::Bound kMaxClients{100000, "kMaxClients in examples/fl-secagg-benchmark.cc"};
/// Largest --dim.
constexpr flexample::Bound kMaxDim{10000000, "kMaxDim in examples/fl-secagg-benchmark.cc"};

/// One measured instance.
struct Row
{
    std::string variant;
    uint32_t n{0};
    uint32_t k{0};
    uint32_t t{0};
    uint32_t dropped{0};
    double clientMean{0.0};
    double clientMax{0.0};
    double sentMean{0.0};
    double receivedMean{0.0};
    double serverSeconds{0.0};
    uint64_t serverSent{0};
    uint64_t serverReceived{0};
    bool exact{false};
    std::string status;
};

Row
Measure(const std::string& variant,
        uint32_t n,
        std::size_t dim,
        double corrupt,
        double dropout,
        uint64_t seed)
{
    fl::SecAggConfig c;
    c.instance = 1;
    for (uint32_t i = 0; i < n; ++i)
    {
        c.clients.push_back(i);
    }
    c.dim = dim;
    c.fractionBits = 24;
    Row row;
    row.variant = variant;
    row.n = n;
    if (variant == "secaggplus")
    {
        fl::SecAggPlusThreat threat;
        threat.corruptFraction = corrupt;
        threat.dropoutFraction = dropout;
        const fl::SecAggPlusChoice p = fl::SecAggPlusParameters(n, threat);
        c.threshold = p.threshold;
        if (!p.complete)
        {
            c.graph = fl::SecAggGraphKind::Harary;
            c.neighbours = p.neighbours;
            c.graphSeed = seed;
        }
        row.k = p.neighbours;
    }
    else
    {
        c.threshold = n / 2 + 1;
        row.k = n - 1;
    }
    row.t = c.threshold;
    fl::Rng rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<Eigen::VectorXd> inputs(n, Eigen::VectorXd(static_cast<Eigen::Index>(dim)));
    for (auto& x : inputs)
    {
        for (auto& e : x)
        {
            e = u(rng);
        }
    }
    const std::vector<uint64_t> weights(n, 1);
    fl::SecAggDropouts drops;
    row.dropped = static_cast<uint32_t>(std::floor(dropout * n + 1e-9));
    for (uint32_t i = 0; i < row.dropped; ++i)
    {
        drops.beforeInput.insert(static_cast<uint32_t>((i * 7919ull) % n)); // spread out
    }
    row.dropped = static_cast<uint32_t>(drops.beforeInput.size());
    const fl::SecAggRunOutcome run =
        fl::RunSecAggInProcess(c, inputs, weights, fl::KeyMode::Random, {}, drops);
    row.status = fl::SecAggStatusText(run.status);
    uint32_t counted = 0;
    for (const auto& [id, cost] : run.clients)
    {
        if (drops.beforeInput.count(id) != 0)
        {
            continue; // report the clients that ran every round
        }
        row.clientMean += cost.seconds;
        row.clientMax = std::max(row.clientMax, cost.seconds);
        row.sentMean += static_cast<double>(cost.bytesSent);
        row.receivedMean += static_cast<double>(cost.bytesReceived);
        ++counted;
    }
    if (counted > 0)
    {
        row.clientMean /= counted;
        row.sentMean /= counted;
        row.receivedMean /= counted;
    }
    row.serverSeconds = run.server.seconds;
    row.serverSent = run.server.bytesSent;
    row.serverReceived = run.server.bytesReceived;
    if (run.status == fl::SecAggStatus::Ok)
    {
        std::vector<uint64_t> sum(dim, 0);
        for (uint32_t i = 0; i < n; ++i)
        {
            if (drops.beforeInput.count(i) == 0)
            {
                std::vector<uint64_t> words;
                fl::EncodeFixedPoint(inputs[i], c.fractionBits, n, words);
                for (std::size_t j = 0; j < dim; ++j)
                {
                    sum[j] += words[j];
                }
            }
        }
        row.exact = run.result.sum == fl::DecodeFixedPoint(sum, c.fractionBits);
    }
    return row;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string clientsText = "10,100,1000";
    uint32_t dim = 1000;
    std::string variant = "both";
    double corrupt = 0.05;
    double dropout = 0.05;
    uint64_t seed = 1;
    std::string output = "fl-secagg-benchmark.csv";
    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage("Per-client compute time and bytes of one secure-aggregation instance "
                      "against the number of clients: SecAgg (Bonawitz et al., CCS 2017) and "
                      "SecAgg+ (Bell et al., CCS 2020), all parties in one process on one core.");
    flags.AddText("clients", "Comma-separated numbers of clients n (each >= 3)", clientsText);
    flags.AddSize("dim", "Model dimension d (fixed-point words per upload)", dim, 1u, kMaxDim);
    flags.AddChoice("variant",
                    "Which protocol: secagg, secaggplus or both",
                    variant,
                    {"secagg", "secaggplus", "both"});
    flags.AddReal("corrupt",
                  "Fraction of corrupt clients SecAgg+ is dimensioned for",
                  corrupt,
                  flexample::Range{0.0, 1.0, false, true});
    flags.AddReal("dropout",
                  "Fraction of clients that drop after sharing keys (and SecAgg+ is dimensioned "
                  "for)",
                  dropout,
                  flexample::Range{0.0, 0.5, false, true});
    flags.AddWhole<uint64_t>("seed", "Seed of the inputs and the Harary permutation", seed);
    flags.AddOutput("output", "CSV output file", output, false);
    std::vector<uint32_t> ns;
    flags.AddCheck([&] {
        ns = fl::ParseUnsignedList<uint32_t>(clientsText,
                                             "--clients",
                                             3,
                                             static_cast<uint32_t>(kMaxClients.value));
    });
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }
    std::vector<std::string> variants;
    if (variant != "secaggplus")
    {
        variants.push_back("secagg");
    }
    if (variant != "secagg")
    {
        variants.push_back("secaggplus");
    }
    std::ofstream csv(output);
    if (!csv)
    {
        std::cerr << "fl-secagg-benchmark: cannot write " << output << std::endl;
        return 2;
    }
    csv << "variant,n,k,t,dim,dropped,client_s_mean,client_s_max,client_bytes_sent_mean,"
           "client_bytes_received_mean,server_s,server_bytes_sent,server_bytes_received,"
           "exact,status\n";
    std::cout << "fl-secagg-benchmark: d = " << dim << ", dropout " << dropout << ", corrupt "
              << corrupt << " (SecAgg+ parameters), one core\n"
              << std::left << std::setw(11) << "variant" << std::right << std::setw(7) << "n"
              << std::setw(6) << "k" << std::setw(6) << "t" << std::setw(6) << "drop"
              << std::setw(12) << "client ms" << std::setw(12) << "max ms" << std::setw(12)
              << "sent kB" << std::setw(12) << "recv kB" << std::setw(11) << "server s"
              << std::setw(7) << "exact" << std::endl;
    try
    {
        for (uint32_t n : ns)
        {
            for (const std::string& v : variants)
            {
                const Row r = Measure(v, n, dim, corrupt, dropout, seed);
                csv << r.variant << ',' << r.n << ',' << r.k << ',' << r.t << ',' << dim << ','
                    << r.dropped << ',' << std::setprecision(6) << r.clientMean << ','
                    << r.clientMax << ',' << r.sentMean << ',' << r.receivedMean << ','
                    << r.serverSeconds << ',' << r.serverSent << ',' << r.serverReceived << ','
                    << (r.exact ? 1 : 0) << ",\"" << r.status << "\"\n";
                csv.flush();
                std::cout << std::left << std::setw(11) << r.variant << std::right << std::setw(7)
                          << r.n << std::setw(6) << r.k << std::setw(6) << r.t << std::setw(6)
                          << r.dropped << std::fixed << std::setprecision(2) << std::setw(12)
                          << 1e3 * r.clientMean << std::setw(12) << 1e3 * r.clientMax
                          << std::setw(12) << r.sentMean / 1e3 << std::setw(12)
                          << r.receivedMean / 1e3 << std::setw(11) << std::setprecision(3)
                          << r.serverSeconds << std::setw(7) << (r.exact ? "yes" : "NO")
                          << std::defaultfloat << std::endl;
            }
        }
    }
    catch (const fl::ConfigError& e)
    {
        std::cerr << "fl-secagg-benchmark: " << e.what() << std::endl;
        return flexample::kExitBadFlag;
    }
    std::cout << "results: " << output << std::endl;
    return 0;
}
