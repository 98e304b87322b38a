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
 * SecAgg's threshold is the rule's, t = floor(2n / 3) + 1 with n_C = ceil(n / 3) - 1 colluders
 * tolerated (Bonawitz et al.'s active setting; secagg-config.h). The complete graph costs O(n) key agreements,
 * signature checks and mask expansions per client, so n = 1000 takes minutes on one core.
 *
 * Over the network (--wifiClients, setting "wifi" in the CSV): FedAvg rounds over the module's
 * 802.11n infrastructure scene (FlWifiScenarioHelper: the server on the access point, n
 * stations, TCP), a softmax model of about --dim parameters, once with secure aggregation
 * (FlFedAvgHelper::SetSecureAggregation: every protocol message a packet) and once plain. The
 * simulated time of a round (the model going down, the local training, and the upload or the
 * protocol's five phases) is measured for both, and the difference is what secure aggregation
 * costs a round over that link; the protocol's bytes per client come from the steps' counters,
 * and "exact" says the secure run's models equal the in-process fixed-point reference bit for
 * bit (RunFedAvgReference with secureFractionBits).
 *
 *   fl-secagg-benchmark                                  # n = 10, 100, 1000, both variants,
 *                                                        # and 5, 10, 20 Wi-Fi clients
 *   fl-secagg-benchmark --clients=100,1000,10000 --variant=secaggplus --dim=1000
 */

#include "../fl-example-flags.h"

#include "ns3/core-module.h"
#include "ns3/fedavg-reference.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/learning-task.h"
#include "ns3/partition.h"
#include "ns3/secagg-protocol.h"
#include "ns3/synthetic-data.h"

#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{

/// Largest n accepted by --clients (memory grows as n^2 for SecAgg).
constexpr flexample::Bound kMaxClients{100000,
                                       "kMaxClients in examples/benchmarks/fl-secagg-benchmark.cc"};
/// Largest --dim.
constexpr flexample::Bound kMaxDim{10000000,
                                   "kMaxDim in examples/benchmarks/fl-secagg-benchmark.cc"};

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
    std::vector<uint32_t> ids(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        ids[i] = i;
    }
    // The configuration both sides derive from the rule: SecAgg t = floor(2n/3) + 1 with
    // n_C = ceil(n/3) - 1 colluders tolerated; SecAgg+ k and t from SecAggPlusParameters.
    fl::SecAggRule rule;
    rule.fractionBits = 24;
    if (variant == "secaggplus")
    {
        rule.graph = fl::SecAggGraphKind::Harary;
        rule.threat.corruptFraction = corrupt;
        rule.threat.dropoutFraction = dropout;
    }
    const fl::SecAggConfig c = fl::MakeSecAggRoundConfig(1, ids, dim, rule, seed);
    Row row;
    row.variant = variant;
    row.n = n;
    row.k = c.graph == fl::SecAggGraphKind::Harary ? c.neighbours : n - 1;
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

/// One network measurement (FedAvg rounds over Wi-Fi, secure or plain).
struct WifiRow
{
    std::string variant; ///< secagg, secaggplus or plain
    uint32_t n{0};
    uint32_t k{0};
    uint32_t t{0};
    std::size_t parameters{0};
    double roundSeconds{0.0};   ///< mean simulated time of a round
    double clientSent{0.0};     ///< protocol (or upload) bytes a client sent per round
    double clientReceived{0.0}; ///< protocol bytes a client received per round (0: plain)
    uint64_t serverSent{0};     ///< protocol bytes the server sent, all rounds
    uint64_t serverReceived{0}; ///< protocol bytes the server received, all rounds
    bool exact{false};
    std::string status;
};

/// A 4-class softmax task with n clients and about `dim` parameters ((features + 1) x 4).
std::shared_ptr<fl::SupervisedTask<double>>
BenchTask(uint32_t n, std::size_t dim, uint64_t seed)
{
    fl::Rng rng(seed);
    fl::GaussianMixtureConfig cfg;
    cfg.dim = std::max<std::size_t>(1, dim / 4 > 0 ? dim / 4 - 1 : 1);
    cfg.classes = 4;
    const Eigen::MatrixXd centres = fl::MakeMixtureCentres(cfg, rng);
    fl::Dataset<double> train = fl::SampleGaussianMixture<double>(centres, n * 40, rng);
    fl::Dataset<double> test = fl::SampleGaussianMixture<double>(centres, 100, rng);
    std::vector<fl::Dataset<double>> parts;
    for (const auto& p : fl::PartitionIid(train.Size(), n, rng))
    {
        parts.push_back(train.Subset(p));
    }
    fl::LocalTrainerConfig tc;
    tc.batchSize = 8;
    tc.learningRate = 0.1;
    tc.localSteps = 5;
    return std::make_shared<fl::SupervisedTask<double>>(
        fl::MakeModel<double>("softmax:l2=0.001", train.Dim(), 4),
        tc,
        std::move(parts),
        std::move(test));
}

WifiRow
MeasureWifi(const std::string& variant, uint32_t n, std::size_t dim, uint32_t rounds, uint64_t seed)
{
    WifiRow row;
    row.variant = variant;
    row.n = n;
    auto task = BenchTask(n, dim, seed);
    row.parameters = task->NumParameters();
    FlWifiScenarioHelper wifi;
    FlScene scene = wifi.Build(n);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(rounds));
    fedavg.SetServerAttribute("InitSeed", UintegerValue(seed));
    fedavg.SetTransportAttribute("WirePrecision", StringValue("float64"));
    const unsigned fractionBits = 32;
    if (variant != "plain")
    {
        FlSecAggHelper secagg;
        secagg.SetAttribute("Variant", StringValue(variant));
        secagg.SetAttribute("FractionBits", UintegerValue(fractionBits));
        secagg.AssignStreams(1 << 21);
        fedavg.SetSecureAggregation(secagg);
    }
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    std::vector<uint64_t> clientSeeds;
    for (uint32_t i = 0; i < stack.clientApps.GetN(); ++i)
    {
        clientSeeds.push_back(fl::DeriveSeed(seed, 0xBE7C, i));
        stack.clientApps.Get(i)->SetAttribute("TrainingSeed", UintegerValue(clientSeeds.back()));
    }
    int64_t stream = 100;
    stream += FlWifiScenarioHelper::AssignStreams(scene, stream);
    FlFedAvgHelper::AssignStreams(stack, stream);
    double roundSum = 0.0;
    uint64_t upBytes = 0;
    uint32_t closed = 0;
    uint32_t aggregated = 0;
    fl::ParamVector last;
    stack.server->TraceConnectWithoutContext(
        "RoundEnd",
        FlCallback<void, const FlRoundReport&>([&](const FlRoundReport& r) {
            if (r.round == 0)
            {
                return;
            }
            roundSum += (r.end - r.start).GetSeconds();
            upBytes += r.bytesUp;
            ++closed;
            aggregated += r.status == FlRoundStatus::Aggregated ? 1 : 0;
            last = *r.globalModel;
        }));
    if (stack.secAgg.server)
    {
        stack.secAgg.server->TraceConnectWithoutContext(
            "RoundEnd",
            FlCallback<void, const SecAggRoundReport&>([&row](const SecAggRoundReport& r) {
                row.k = r.neighbours;
                row.t = r.threshold;
            }));
    }
    Simulator::Stop(Seconds(600));
    Simulator::Run();
    row.roundSeconds = closed > 0 ? roundSum / closed : 0.0;
    row.status =
        std::to_string(aggregated) + " of " + std::to_string(rounds) + " rounds aggregated";
    if (stack.secAgg.server)
    {
        const auto& sc = stack.secAgg.server->GetCounters();
        row.serverSent = sc.bytesSent;
        row.serverReceived = sc.bytesReceived;
        uint64_t sent = 0;
        for (const auto& [id, c] : stack.secAgg.clients)
        {
            sent += c->GetCounters().bytesSent;
        }
        row.clientSent = static_cast<double>(sent) / n / rounds;
        row.clientReceived = static_cast<double>(sc.bytesSent) / n / rounds;
        fl::FedAvgReferenceConfig cfg;
        cfg.rounds = rounds;
        cfg.initSeed = seed;
        cfg.clientSeeds = clientSeeds;
        cfg.secureFractionBits = fractionBits;
        row.exact = closed == rounds && fl::RunFedAvgReference(*task, cfg).finalModel == last;
    }
    else
    {
        row.k = n - 1;
        row.clientSent = static_cast<double>(upBytes) / n / rounds; // the model upload
        fl::FedAvgReferenceConfig cfg;
        cfg.rounds = rounds;
        cfg.initSeed = seed;
        cfg.clientSeeds = clientSeeds;
        row.exact = closed == rounds && fl::RunFedAvgReference(*task, cfg).finalModel == last;
    }
    Simulator::Destroy();
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
    std::string wifiText = "5,10,20";
    uint32_t wifiRounds = 2;
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
    flags.AddRefusedAlias("seed",
                          "--RngRun=N",
                          " (the run number, ns-3's --RngRun, seeds the inputs and the Harary "
                          "permutation)");
    flags.AddCheck([&seed] { seed = RngSeedManager::GetRun(); });
    flags.AddText("wifiClients",
                  "Comma-separated numbers of Wi-Fi clients for the network rounds, secure and "
                  "plain (each 2..100; \"none\" to skip)",
                  wifiText);
    flags.AddWhole<uint32_t>("wifiRounds",
                             "FedAvg rounds of each network run",
                             wifiRounds,
                             1,
                             1000);
    flags.AddOutput("output", "CSV output file", output, false);
    std::vector<uint32_t> ns;
    std::vector<uint32_t> wifiNs;
    flags.AddCheck([&] {
        ns = fl::ParseUnsignedList<uint32_t>(clientsText,
                                             "--clients",
                                             3,
                                             static_cast<uint32_t>(kMaxClients.value));
    });
    flags.AddCheck([&] {
        if (wifiText != "none")
        {
            wifiNs = fl::ParseUnsignedList<uint32_t>(wifiText, "--wifiClients", 2, 100);
        }
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
    csv << "setting,variant,n,k,t,dim,dropped,client_s_mean,client_s_max,client_bytes_sent_mean,"
           "client_bytes_received_mean,server_s,server_bytes_sent,server_bytes_received,"
           "exact,status,sim_round_s,sim_round_overhead_s\n";
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
                csv << "in-process," << r.variant << ',' << r.n << ',' << r.k << ',' << r.t << ','
                    << dim << ',' << r.dropped << ',' << std::setprecision(6) << r.clientMean << ','
                    << r.clientMax << ',' << r.sentMean << ',' << r.receivedMean << ','
                    << r.serverSeconds << ',' << r.serverSent << ',' << r.serverReceived << ','
                    << (r.exact ? 1 : 0) << ",\"" << r.status << "\",,\n";
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
    if (!wifiNs.empty())
    {
        std::cout << "\nFedAvg over 802.11n (FlWifiScenarioHelper, TCP), " << wifiRounds
                  << " round(s) per run; simulated seconds per round, secure vs plain\n"
                  << std::left << std::setw(11) << "variant" << std::right << std::setw(5) << "n"
                  << std::setw(5) << "k" << std::setw(5) << "t" << std::setw(8) << "params"
                  << std::setw(12) << "round s" << std::setw(12) << "overhead s" << std::setw(13)
                  << "client sent" << std::setw(13) << "client recv" << std::setw(7) << "exact"
                  << std::endl;
    }
    try
    {
        for (uint32_t n : wifiNs)
        {
            const WifiRow plain = MeasureWifi("plain", n, dim, wifiRounds, seed);
            std::vector<WifiRow> rows{plain};
            for (const std::string& v : variants)
            {
                rows.push_back(MeasureWifi(v, n, dim, wifiRounds, seed));
            }
            for (const WifiRow& r : rows)
            {
                const bool secure = r.variant != "plain";
                const double overhead = r.roundSeconds - plain.roundSeconds;
                csv << "wifi," << r.variant << ',' << r.n << ',' << r.k << ',' << r.t << ','
                    << r.parameters << ",0,,," << std::setprecision(6) << r.clientSent << ','
                    << r.clientReceived << ",," << r.serverSent << ',' << r.serverReceived << ','
                    << (r.exact ? 1 : 0) << ",\"" << r.status << "\"," << r.roundSeconds << ',';
                if (secure)
                {
                    csv << overhead;
                }
                csv << "\n";
                csv.flush();
                std::cout << std::left << std::setw(11) << r.variant << std::right << std::setw(5)
                          << r.n << std::setw(5) << r.k << std::setw(5) << r.t << std::setw(8)
                          << r.parameters << std::fixed << std::setprecision(4) << std::setw(12)
                          << r.roundSeconds << std::setw(12)
                          << (secure ? std::to_string(overhead).substr(0, 7) : std::string("-"))
                          << std::setprecision(0) << std::setw(13) << r.clientSent << std::setw(13)
                          << r.clientReceived << std::setw(7) << (r.exact ? "yes" : "NO")
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
