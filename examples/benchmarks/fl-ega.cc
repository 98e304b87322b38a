/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-ega: the experiments of EGA (D. Zeng, S. Liu, S. Liang, Z. Li, H. Wang, I. King, Z. Xu,
 * "Encoded Gradients Aggregation against Gradient Leakage in Federated Learning",
 * arXiv:2205.13216, 2022), one flag picks which.
 *
 *   --experiment=sigma     codec error sigma against m, s, b, h (Fig. 3), from the measured codec
 *                          table (EgaMeasuredSigmas, fl-ega-train runs)
 *   --experiment=rounds    Table 2's protocol: rounds to reach FedAvg's best accuracy within 100
 *                          rounds for EGA 1x, 2x, 4x, 8x; Fashion-MNIST, softmax regression, 100
 *                          clients (2 label shards each), 10 per round; in-process reference
 *                          runner (the same seam as the apps); uplink bytes per setting (Fig. 5)
 *   --experiment=algorithms  FedAvg, FedProx and loss-weighted FedAvg (the paper's "q-FedAvg"
 *                          through its client importance lambda_i) with and without EGA 1x
 *                          (Fig. 4)
 *   --experiment=network   FedAvg and EGA over an ns-3 Wi-Fi cell (TCP): uplink bytes, simulated
 *                          phase 1 and 2 times, encoder time, the curious-server probe (Eq. 2) of
 *                          every client in every round; --secure=secagg|secaggplus masks uploads
 *   --experiment=leakage   input reconstruction from a single-sample softmax-regression update:
 *                          raw (exact: x = dW row / db entry) against the Eq. 2 estimate under
 *                          EGA; PSNR; the images as matrices for utils/plot-ega.sh
 *   --experiment=all       all five
 *
 * The machinery is in the library for your own script: ega-experiment.h (MakeEgaTask,
 * MakeEgaSettings, RunFedAvgToTarget, RunEgaLeakage), gradient-leakage.h (the attack, PSNR) and
 * ega-network-helper.h (FlRunEgaNetwork). This file decides what to run and writes one tidy CSV
 * (--output: experiment,setting,round,client,metric,value). --quick: synthetic data, few rounds.
 */
#include "../fl-example-flags.h"

#include "ns3/core-module.h"
#include "ns3/data-io.h"
#include "ns3/ega-experiment.h"
#include "ns3/ega-network-helper.h"
#include "ns3/ega-uplink-codec.h"
#include "ns3/gradient-leakage.h"

#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <tuple>

#ifndef FL_EGA_DATA_DIR
#define FL_EGA_DATA_DIR "data"
#endif

using namespace ns3;

namespace
{

/// The tidy CSV: experiment,setting,round,client,metric,value (10 significant digits).
struct Csv
{
    explicit Csv(const std::string& path)
        : out(path)
    {
        out << "experiment,setting,round,client,metric,value\n" << std::setprecision(10);
    }

    void Row(const std::string& exp, const std::string& setting, int64_t round, int64_t client,
             const std::string& metric, double value)
    {
        out << exp << ',' << setting << ',' << round << ',' << client << ',' << metric << ','
            << value << '\n';
    }

    std::ofstream out;
};

struct Options
{
    bool quick{false};
    std::string experiment{"all"};
    std::string output{"fl-ega.csv"};
    std::string codecDir{FL_EGA_DATA_DIR};
    std::string imageDir{"."};
    uint32_t clients{100};
    uint32_t perRound{10};
    uint32_t targetRounds{100};
    uint32_t maxRounds{600};
    uint32_t networkRounds{3};
    uint32_t s{64};
    uint64_t seed{1};
    std::string secure{"none"}; ///< network experiment: none, secagg or secaggplus
};

/// The Fashion-MNIST folder, or a ConfigError naming --quick with `fix`.
std::string
FashionMnist(const std::string& fix)
{
    const std::string dir = fl::FindFashionMnistDirectory();
    if (dir.empty())
    {
        throw fl::ConfigError("--quick", "Fashion-MNIST is not installed", fix);
    }
    return dir;
}

/// Table 2's task (fl::MakeEgaTask): Fashion-MNIST, or synthetic data with --quick.
std::shared_ptr<fl::SupervisedTask<double>>
BuildTask(const Options& o, double proxMu = 0.0)
{
    std::string dir;
    if (!o.quick)
    {
        dir = FashionMnist("sudo apt-get install dataset-fashion-mnist (or set "
                           "FL_FASHION_MNIST_DIR), or run with --quick (synthetic data)");
        std::cout << "fl-ega: loading Fashion-MNIST from " << dir << std::endl;
    }
    return fl::MakeEgaTask(dir, o.clients, o.seed, proxMu);
}

void
RunSigma(const Options&, Csv& csv)
{
    std::cout << "fl-ega: sigma (Fig. 3) from the measured codec table (fl-ega-train runs)"
              << std::endl;
    for (const auto& e : fl::EgaMeasuredSigmas())
    {
        std::ostringstream name;
        name << "b" << e.b << "-h" << e.h << "-s" << e.s << "-m" << e.m << "-e" << e.epochs;
        csv.Row("sigma", name.str(), 0, -1, "b", e.b);
        csv.Row("sigma", name.str(), 0, -1, "h", e.h);
        csv.Row("sigma", name.str(), 0, -1, "s", e.s);
        csv.Row("sigma", name.str(), 0, -1, "m", e.m);
        csv.Row("sigma", name.str(), 0, -1, "epochs", e.epochs);
        csv.Row("sigma", name.str(), 0, -1, "sigma", e.sigma);
        csv.Row("sigma", name.str(), 0, -1, "sigma_over_s", e.sigma / e.s);
        csv.Row("sigma", name.str(), 0, -1, "probe_relative_error", e.probeRelativeError);
        std::cout << "  " << name.str() << ": sigma = " << e.sigma
                  << " (quantised units), probe relative error " << e.probeRelativeError
                  << std::endl;
    }
}

/// Table 2: rounds until EGA reaches FedAvg's best accuracy of --targetRounds rounds, uplink bytes.
void
RunRounds(const Options& o, Csv& csv)
{
    auto task = BuildTask(o);
    const uint64_t d = task->NumParameters();
    std::cout << "fl-ega: rounds to target (Table 2 protocol), in-process reference runner; "
              << task->Describe() << ", " << o.clients << " clients (2 label shards each), "
              << o.perRound << " per round" << std::endl;
    double target = 0.0;
    for (const auto& st : fl::MakeEgaSettings(o.codecDir, o.quick, o.perRound, o.s))
    {
        fl::FedAvgReferenceConfig cfg;
        cfg.initSeed = o.seed;
        cfg.clientSeeds = fl::EgaClientSeeds(o.seed, o.clients);
        cfg.select = fl::UniformClientSampler(o.clients, o.perRound, o.seed);
        cfg.uplinkCodec = st.codec ? std::shared_ptr<const fl::UplinkCodec>(
                                         std::make_shared<fl::EgaUplinkCodec>(st.codec, o.s))
                                   : std::make_shared<fl::Float64UplinkCodec>();
        const bool baseline = st.compression == 0;
        cfg.rounds = baseline ? o.targetRounds : o.maxRounds;
        const auto t0 = std::chrono::steady_clock::now();
        auto onAccuracy = [&](uint32_t r, double acc, double best) {
            csv.Row("rounds", st.name, r, -1, "accuracy", acc);
            if (r > 0 && r % 25 == 0)
            {
                std::cout << "  " << st.name << " round " << r << ": accuracy " << acc
                          << " (best " << best << ")" << std::endl;
            }
        };
        fl::RoundsToTarget res = fl::RunFedAvgToTarget(*task, cfg, target, !baseline, onAccuracy);
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (baseline)
        {
            target = res.best;
            res.reached = o.targetRounds;
        }
        const uint64_t perClientUp = fl::EgaUplinkBytesPerClientRound(d, st.compression);
        const uint64_t roundsUsed = res.reached > 0 ? res.reached : o.maxRounds;
        const double volume = static_cast<double>(roundsUsed) * o.perRound * perClientUp;
        const bool learned = st.codec && st.source != "gaussian-surrogate";
        for (const auto& [metric, value] : std::vector<std::pair<const char*, double>>{
                 {"target_accuracy", target},
                 {"best_accuracy", res.best},
                 {"rounds_to_target", res.reached > 0 ? static_cast<double>(res.reached) : -1.0},
                 {"uplink_bytes_per_client_round", static_cast<double>(perClientUp)},
                 {"uplink_bytes_total", volume},
                 {"sigma", st.sigma},
                 {"learned_codec", learned ? 1.0 : 0.0},
                 {"wall_seconds", wall}})
        {
            csv.Row("rounds", st.name, -1, -1, metric, value);
        }
        std::cout << "  " << st.name << " (" << st.source << ", sigma " << st.sigma
                  << "): rounds to " << target << " = "
                  << (res.reached > 0 ? std::to_string(res.reached)
                                      : "not within " + std::to_string(o.maxRounds))
                  << ", uplink " << volume / 1e6 << " MB, " << wall << " s" << std::endl;
    }
}

/// Fig. 4: FedAvg, FedProx (mu = 0.1) and loss-weighted FedAvg (q = 1; the EGA paper's "q-FedAvg",
/// lambda_i = samples x mean loss^q, not q-FFL) with and without EGA (default codec),
/// in process, --targetRounds rounds, the rounds experiment's data and sampling.
void
RunAlgorithms(const Options& o, Csv& csv)
{
    std::cout << "fl-ega: algorithms (Fig. 4), in-process reference runner, " << o.targetRounds
              << " rounds" << std::endl;
    // MakeEgaSettings: FedAvg first, then EGA 1x.
    const auto ega1x = fl::MakeEgaSettings(o.codecDir, o.quick, o.perRound, o.s).at(1).codec;
    using Alg = std::tuple<const char*, double, double>; // name, FedProx mu, loss exponent q
    for (const auto& [algName, mu, q] :
         {Alg{"fedavg", 0, 0}, Alg{"fedprox", 0.1, 0}, Alg{"lossweighted", 0, 1}})
    {
        auto task = BuildTask(o, mu);
        for (bool withEga : {false, true})
        {
            const std::string name = std::string(algName) + (withEga ? "-ega" : "");
            fl::FedAvgReferenceConfig cfg;
            cfg.rounds = o.targetRounds;
            cfg.initSeed = o.seed;
            cfg.clientSeeds = fl::EgaClientSeeds(o.seed, o.clients);
            cfg.select = fl::UniformClientSampler(o.clients, o.perRound, o.seed);
            cfg.lossWeightExponent = q;
            cfg.uplinkCodec = withEga ? std::shared_ptr<const fl::UplinkCodec>(
                                            std::make_shared<fl::EgaUplinkCodec>(ega1x, o.s))
                                      : std::make_shared<fl::Float64UplinkCodec>();
            double last = 0.0;
            auto onAccuracy = [&](uint32_t r, double acc, double) {
                last = acc;
                csv.Row("algorithms", name, r, -1, "accuracy", acc);
            };
            const double best = fl::RunFedAvgToTarget(*task, cfg, 0.0, false, onAccuracy).best;
            csv.Row("algorithms", name, -1, -1, "final_accuracy", last);
            csv.Row("algorithms", name, -1, -1, "best_accuracy", best);
            std::cout << "  " << name << ": final accuracy " << last << ", best " << best
                      << std::endl;
        }
    }
}

/// FedAvg and EGA over one Wi-Fi cell (FlRunEgaNetwork), every client in every round.
void
RunNetwork(const Options& o, Csv& csv)
{
    // One Wi-Fi cell with perRound clients, every client in every round (the codec's m).
    Options small = o;
    small.clients = o.perRound;
    auto task = BuildTask(small);
    std::cout << "fl-ega: network (Fig. 5) over 802.11n Wi-Fi, TCP, " << small.clients
              << " clients, " << o.networkRounds << " rounds; " << task->Describe() << std::endl;
    FlSecAggHelper secagg;
    if (o.secure != "none")
    {
        // The codec's phase 1 (max |update| and weight per client) stays in the clear; the codes
        // are masked and the server decodes only their sum over the survivors.
        secagg.SetAttribute("Variant", StringValue(o.secure));
        secagg.SetAttribute("FractionBits", UintegerValue(32));
        secagg.AssignStreams(1 << 21);
        std::cout << secagg.Describe(small.clients) << "\n"
                  << "  with EGA: each client's phase-1 report (max |update|, weight) is sent in "
                     "the clear; its codes only as part of the masked sum"
                  << std::endl;
    }
    for (const auto& st : fl::MakeEgaSettings(o.codecDir, o.quick, small.clients, o.s))
    {
        FlEgaNetworkConfig cfg;
        cfg.clients = small.clients;
        cfg.rounds = o.networkRounds;
        cfg.initSeed = o.seed;
        cfg.codec = st.codec;
        cfg.s = o.s;
        cfg.secagg = o.secure != "none" ? &secagg : nullptr;
        const FlEgaNetworkResult res = FlRunEgaNetwork(task, cfg);
        for (const auto& r : res.rounds)
        {
            auto row = [&](const char* metric, double value) {
                csv.Row("network", st.name, r.round, -1, metric, value);
            };
            row("uplink_bytes", static_cast<double>(r.bytesUp));
            row("downlink_bytes", static_cast<double>(r.bytesDown));
            row("round_time_s", r.end - r.start);
            if (st.codec) // EGA: phase 1 (agreement) and phase 2 (upload)
            {
                row("agreement_time_s", r.agreed - r.start);
                row("upload_time_s", r.end - r.agreed);
            }
            row("accuracy", r.accuracy);
        }
        const double roundTime = res.MeanRoundSeconds();
        const double enc = res.EncodeSecondsPerUpload();
        for (const auto& [metric, value] : std::vector<std::pair<const char*, double>>{
                 {"uplink_bytes_per_round", res.MeanUplinkBytes()},
                 {"payload_bytes_per_client", static_cast<double>(res.payloadBytes)},
                 {"round_time_s_mean", roundTime},
                 {"encode_seconds_per_client", enc},
                 {"encode_share_of_round", roundTime > 0 ? enc / roundTime : 0.0},
                 {"wall_seconds", res.wallSeconds}})
        {
            csv.Row("network", st.name, -1, -1, metric, value);
        }
        for (std::size_t i = 0; i < res.probes.size(); ++i)
        {
            const auto& p = res.probes[i];
            const auto round = static_cast<int64_t>(1 + i / small.clients);
            csv.Row("network", st.name, round, p.client, "probe_relative_error", p.relativeError);
            csv.Row("network", st.name, round, p.client, "probe_cosine", p.cosine);
        }
        const double rel = res.MeanProbeRelativeError();
        const double cos = res.MeanProbeCosine();
        if (!res.probes.empty())
        {
            csv.Row("network", st.name, -1, -1, "probe_relative_error_mean", rel);
            csv.Row("network", st.name, -1, -1, "probe_cosine_mean", cos);
        }
        std::cout << "  " << st.name << ": " << res.completedRounds << " rounds, uplink "
                  << res.MeanUplinkBytes() / 1e3 << " kB/round ("
                  << (st.codec ? "codes " : "model ") << res.payloadBytes << " B/client), round "
                  << roundTime << " s simulated"
                  << (st.codec ? ", encoder " + std::to_string(enc * 1e3) + " ms/client (" +
                                     std::to_string(100.0 * enc / roundTime) +
                                     " % of the simulated round)"
                               : std::string())
                  << (res.probes.empty() ? std::string()
                                         : ", probe relative error " + std::to_string(rel) +
                                               ", cosine " + std::to_string(cos))
                  << std::endl;
    }
}

/// Input reconstruction from a single-sample update, raw against EGA (fl::RunEgaLeakage).
void
RunLeakage(const Options& o, Csv& csv)
{
    // Images: Fashion-MNIST test images (or synthetic 8 x 8 patterns with --quick).
    fl::EgaLeakageConfig cfg;
    cfg.side = 28;
    fl::Rng rng(o.seed);
    if (!o.quick)
    {
        const std::string dir =
            FashionMnist("sudo apt-get install dataset-fashion-mnist, or --quick");
        fl::AppendDatasetImages(fl::ReadIdxDataset<double>(dir + "/t10k-images-idx3-ubyte.gz",
                                                           dir + "/t10k-labels-idx1-ubyte.gz",
                                                           64),
                                cfg);
    }
    else
    {
        cfg.side = 8;
        fl::MakeStripeImages(16, cfg.side, rng, cfg.images, cfg.labels);
    }
    // The model: softmax regression, 10 classes, weights N(0, 0.01^2), bias 0.
    fl::InitLeakageModel(cfg, 10, 0.01, rng);
    cfg.clients = 10;       // the codecs' m
    cfg.learningRate = 0.1; // update = -0.1 x gradient
    cfg.trials = o.quick ? 3 : 8;
    cfg.s = o.s;
    cfg.seed = o.seed;
    std::cout << "fl-ega: leakage, input reconstruction from a single-sample softmax-regression "
                 "update (x = dW row / db entry), "
              << cfg.clients << " clients, victim = client 0" << std::endl;
    // Codecs: the learned default (m = 10, s = 64, the real thing), a noisy compressing
    // setting (2x surrogate) and the linear negative control.
    const auto settings = fl::MakeEgaSettings(o.codecDir, o.quick, cfg.clients, o.s);
    for (std::size_t k : {1, 2}) // FedAvg first, then EGA 1x, 2x, ...
    {
        cfg.cases.emplace_back(settings.at(k).name, settings.at(k).codec);
    }
    fl::Rng lrng(9);
    cfg.cases.emplace_back("ega-linear", std::make_shared<fl::EgaLinearCodec>(32, 32, lrng));
    const fl::EgaLeakageResult res = fl::RunEgaLeakage(cfg);
    fl::WriteImageMatrix(o.imageDir + "/fl-ega-leak-original.txt", cfg.images[0], cfg.side);
    for (const auto& r : res.records)
    {
        csv.Row("leakage", r.setting, r.trial, 0, "psnr_db", r.psnr);
        if (r.setting != "raw")
        {
            csv.Row("leakage", r.setting, r.trial, 0, "update_relative_error", r.relativeError);
            csv.Row("leakage", r.setting, r.trial, 0, "update_cosine", r.cosine);
        }
        if (r.trial == 0) // the first victim's image and its reconstructions
        {
            fl::WriteImageMatrix(o.imageDir + "/fl-ega-leak-" + r.setting + ".txt",
                                 r.reconstruction,
                                 cfg.side);
        }
    }
    for (const auto& kv : res.meanPsnr)
    {
        csv.Row("leakage", kv.first, -1, 0, "psnr_db_mean", kv.second);
        std::cout << "  " << kv.first << ": mean PSNR " << kv.second << " dB over " << cfg.trials
                  << " victims" << std::endl;
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    Options o;
    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage("EGA experiments (Zeng et al., \"Encoded Gradients Aggregation against "
                      "Gradient Leakage in Federated Learning\", arXiv:2205.13216, 2022): codec "
                      "sigma (Fig. 3), rounds to target (Table 2) and uplink volume, a Wi-Fi "
                      "network run (bytes, uplink time, encoder time, curious-server probe), and "
                      "input reconstruction (PSNR raw vs EGA). One tidy CSV.");
    flags.AddBool("quick",
                  "Synthetic data, few rounds (seconds; used by the test suite): at most 20 "
                  "clients, 10 per round, 10 target rounds, 20 rounds per setting and 2 network "
                  "rounds, unless those flags are given",
                  o.quick);
    flags.AddChoice("experiment",
                    "Which experiment: sigma, rounds, algorithms, network, leakage or all",
                    o.experiment,
                    {"sigma", "rounds", "algorithms", "network", "leakage", "all"});
    flags.AddOutput("output", "CSV file (experiment,setting,round,client,metric,value)", o.output,
                    false);
    flags.AddText("codecDir", "Folder with ega-default-codec.bin and ega-b32-h<h>-codec.bin",
                  o.codecDir);
    flags.AddText("imageDir", "Folder for the reconstructed images (text matrices)", o.imageDir);
    flags.AddWhole<uint32_t>("clients", "Clients of the rounds experiment", o.clients, 10, 1000);
    flags.AddWhole<uint32_t>("perRound",
                             "Clients per round (the codecs' m; 10 for the checked-in codecs)",
                             o.perRound, 1, 1000);
    flags.AddWhole<uint32_t>("targetRounds", "FedAvg rounds whose best accuracy is the target",
                             o.targetRounds, 1, 100000);
    flags.AddWhole<uint32_t>("maxRounds", "Most rounds of an EGA setting", o.maxRounds, 1, 100000);
    flags.AddWhole<uint32_t>("networkRounds", "Rounds of the network experiment", o.networkRounds,
                             1, 10000);
    flags.AddRefusedAlias("seed",
                          "--RngRun=N",
                          " (the run number, ns-3's --RngRun >= 1, seeds the data, partition, "
                          "sampling and training)");
    flags.AddChoice("secure",
                    "Network experiment: secure aggregation of the uploads, none, secagg "
                    "(Bonawitz et al., ACM CCS 2017) or secaggplus (Bell et al., ACM CCS 2020); "
                    "EGA's codes are masked as fixed-point words and the server decodes their "
                    "sum over the survivors (the curious-server probe then has nothing to probe)",
                    o.secure,
                    {"none", "secagg", "secaggplus"});
    flags.AddCheck([&o]() {
        if (o.secure != "none" && o.perRound < 2)
        {
            throw fl::ConfigError("--perRound",
                                  "1 with --secure=" + o.secure,
                                  "aggregate at least 2 clients (the sum of one upload is the "
                                  "upload), or use --secure=none");
        }
    });
    flags.AddCheck([&o, &flags]() {
        // the seed of data, partition, sampling and training: the run number
        o.seed = RngSeedManager::GetRun();
        if (o.seed == 0)
        {
            throw fl::ConfigError("--RngRun",
                                  "0 (the seed of the data, partition, sampling and training)",
                                  "give a run number >= 1");
        }
        // --quick: small defaults; a flag given explicitly wins
        if (o.quick)
        {
            o.clients = flags.Given("clients") ? o.clients : std::min<uint32_t>(o.clients, 20);
            o.perRound = flags.Given("perRound") ? o.perRound : 10;
            o.targetRounds = flags.Given("targetRounds") ? o.targetRounds
                                                         : std::min<uint32_t>(o.targetRounds, 10);
            o.maxRounds =
                flags.Given("maxRounds") ? o.maxRounds : std::min<uint32_t>(o.maxRounds, 20);
            o.networkRounds = flags.Given("networkRounds") ? o.networkRounds
                                                           : std::min<uint32_t>(o.networkRounds, 2);
        }
    });
    flags.AddCheck([&o]() {
        if (o.perRound > o.clients)
        {
            throw fl::ConfigError("--perRound",
                                  std::to_string(o.perRound) + " exceeds --clients",
                                  "select at most --clients per round");
        }
    });
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }
    Eigen::setNbThreads(1);
    try
    {
        Csv csv(o.output);
        const std::vector<std::pair<std::string, void (*)(const Options&, Csv&)>> runs{
            {"sigma", RunSigma},
            {"rounds", RunRounds},
            {"algorithms", RunAlgorithms},
            {"network", RunNetwork},
            {"leakage", RunLeakage}};
        for (const auto& [name, run] : runs)
        {
            if (o.experiment == "all" || o.experiment == name)
            {
                run(o, csv);
            }
        }
        if (!csv.out.good())
        {
            std::cerr << "fl-ega: could not write " << o.output << std::endl;
            return 1;
        }
    }
    catch (const fl::ConfigError& e)
    {
        std::cerr << "fl-ega: " << e.what() << std::endl;
        return flexample::kExitBadFlag;
    }
    catch (const std::exception& e)
    {
        std::cerr << "fl-ega: " << e.what() << std::endl;
        return 1;
    }
    std::cout << "fl-ega: wrote " << o.output << std::endl;
    return 0;
}
