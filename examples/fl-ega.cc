/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-ega: the experiments of EGA (D. Zeng, S. Liu, S. Liang, Z. Li, H. Wang, I. King, Z. Xu,
 * "Encoded Gradients Aggregation against Gradient Leakage in Federated Learning",
 * arXiv:2205.13216, 2022), one flag picks which.
 *
 *   --experiment=sigma     codec error sigma against m, s, b, h (the paper's Fig. 3), from the
 *                          measured codec table (EgaMeasuredSigmas, fl-ega-train runs)
 *   --experiment=rounds    Table 2's protocol: rounds to reach FedAvg's best accuracy within
 *                          100 rounds, for EGA 1x, 2x, 4x, 8x; Fashion-MNIST, softmax regression,
 *                          100 clients (shards, 2 per client), 10 per round; in-process reference
 *                          runner (RunFedAvgReference, the same seam as the apps), with uplink
 *                          bytes per setting (Fig. 5)
 *   --experiment=algorithms  FedAvg, FedProx and q-FedAvg with and without EGA 1x (Fig. 4),
 *                          in process, --targetRounds rounds
 *   --experiment=network   FedAvg and EGA 1x/2x/4x/8x over a real ns-3 Wi-Fi network
 *                          (FlFedAvgHelper, TCP): uplink bytes, simulated uplink time (phase 1 and
 *                          phase 2), encoder time per client and its share of the round, and the
 *                          curious-server probe (Eq. 2) of every client in every round;
 *                          --secure=secagg|secaggplus masks every upload (EGA: the codes as
 *                          fixed-point words) and the server decodes only their sum
 *   --experiment=leakage   input reconstruction from a single-sample softmax-regression update:
 *                          raw gradient (exact: x = dW row / db entry) against the Eq. 2 estimate
 *                          under EGA; PSNR; the images as matrices for utils/plot-ega.sh
 *   --experiment=all       all four
 *
 * Output: one tidy CSV (--output) with columns experiment,setting,round,client,metric,value.
 * --quick: synthetic data and a few rounds (seconds; used by the test suite).
 */
#include "fl-example-flags.h"

#include "ns3/core-module.h"
#include "ns3/data-io.h"
#include "ns3/ega-aggregate.h"
#include "ns3/ega-codec.h"
#include "ns3/ega-mlp-codec.h"
#include "ns3/ega-quantizer.h"
#include "ns3/ega-uplink-codec.h"
#include "ns3/fedavg-reference.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/learning-monitor.h"
#include "ns3/learning-task.h"
#include "ns3/linear-models.h"
#include "ns3/model-message.h"
#include "ns3/partition.h"
#include "ns3/synthetic-data.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>

#ifndef FL_EGA_DATA_DIR
#define FL_EGA_DATA_DIR "data"
#endif

using namespace ns3;

namespace
{

/// The tidy CSV.
class Csv
{
  public:
    explicit Csv(const std::string& path)
        : m_out(path)
    {
        m_out << "experiment,setting,round,client,metric,value\n";
        m_out << std::setprecision(10);
    }

    void Row(const std::string& exp,
             const std::string& setting,
             int64_t round,
             int64_t client,
             const std::string& metric,
             double value)
    {
        m_out << exp << ',' << setting << ',' << round << ',' << client << ',' << metric << ','
              << value << '\n';
    }

    bool Good() const
    {
        return m_out.good();
    }

  private:
    std::ofstream m_out;
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

/// One EGA setting: compression b/h and its codec.
struct Setting
{
    std::string name;    ///< "fedavg", "ega-1x", ...
    uint32_t compression{0}; ///< 0 = FedAvg (no codec)
    std::shared_ptr<const fl::EgaCodec> codec;
    double sigma{0.0};
    std::string source; ///< where the codec came from
};

/// The EGA settings: learned codecs from data/ (b = 32, m = 10, s = 64; h = 32, 16, 8, 4), or a
/// Gaussian surrogate with the measured sigma where the file is missing.
std::vector<Setting>
MakeSettings(const Options& o, uint32_t m)
{
    std::vector<Setting> out;
    out.push_back({"fedavg", 0, nullptr, 0.0, "none"});
    const uint32_t b = 32;
    for (uint32_t c : {1u, 2u, 4u, 8u})
    {
        Setting st;
        st.name = "ega-" + std::to_string(c) + "x";
        st.compression = c;
        const uint32_t h = b / c;
        const std::string file =
            c == 1 ? o.codecDir + "/ega-default-codec.bin"
                   : o.codecDir + "/ega-b32-h" + std::to_string(h) + "-codec.bin";
        std::ifstream probe(file);
        if (!o.quick && probe.good())
        {
            auto codec = std::make_shared<fl::EgaMlpCodec>(fl::EgaMlpCodec::Load(file));
            if (codec->DesignClients() == m && codec->DesignLevel() == o.s)
            {
                st.sigma = codec->HeldOutSigma();
                st.codec = codec;
                st.source = file;
            }
        }
        if (!st.codec)
        {
            // Surrogate: the measured sigma (8x extrapolated with sigma0 sqrt(1 - h/b)).
            double sigma = 0.0;
            try
            {
                sigma = fl::EgaLookupSigma(b, h, 64, 10);
            }
            catch (const fl::ConfigError&)
            {
                sigma = 11.74 * std::sqrt(1.0 - static_cast<double>(h) / b);
            }
            st.sigma = sigma;
            st.codec = std::make_shared<fl::EgaGaussianCodec>(b, sigma, o.s, m);
            st.source = "gaussian-surrogate";
        }
        out.push_back(st);
    }
    return out;
}

/// Uplink payload bytes of one client for a model of d parameters (the real codes: h per block).
uint64_t
EgaPayloadBytes(uint64_t d, uint32_t compression)
{
    const uint64_t b = 32;
    return 4 * ((d + b - 1) / b) * (b / compression);
}

std::shared_ptr<fl::SupervisedTask<double>>
BuildTask(const Options& o, double proxMu = 0.0)
{
    fl::Rng rng(o.seed);
    fl::Dataset<double> train;
    fl::Dataset<double> test;
    if (o.quick)
    {
        fl::GaussianMixtureConfig cfg;
        cfg.dim = 16;
        cfg.classes = 10;
        cfg.separation = 1.5;
        const Eigen::MatrixXd centres = fl::MakeMixtureCentres(cfg, rng);
        train = fl::SampleGaussianMixture<double>(centres, o.clients * 40, rng);
        test = fl::SampleGaussianMixture<double>(centres, 500, rng);
    }
    else
    {
        const std::string dir = fl::FindFashionMnistDirectory();
        if (dir.empty())
        {
            throw fl::ConfigError("--quick",
                                  "Fashion-MNIST is not installed",
                                  "sudo apt-get install dataset-fashion-mnist (or set "
                                  "FL_FASHION_MNIST_DIR), or run with --quick (synthetic data)");
        }
        std::cout << "fl-ega: loading Fashion-MNIST from " << dir << std::endl;
        train = fl::ReadIdxDataset<double>(dir + "/train-images-idx3-ubyte.gz",
                                           dir + "/train-labels-idx1-ubyte.gz");
        test = fl::ReadIdxDataset<double>(dir + "/t10k-images-idx3-ubyte.gz",
                                          dir + "/t10k-labels-idx1-ubyte.gz",
                                          2000);
    }
    const fl::Partition part = fl::PartitionShards(train, o.clients, 2, rng);
    std::vector<fl::Dataset<double>> parts;
    for (const auto& p : part)
    {
        parts.push_back(train.Subset(p));
    }
    auto model = std::make_shared<fl::SoftmaxRegression<double>>(train.Dim(),
                                                                 static_cast<std::size_t>(
                                                                     train.numClasses),
                                                                 1e-4);
    fl::LocalTrainerConfig tc;
    tc.batchSize = 32;
    tc.learningRate = 0.05;
    tc.localEpochs = 1.0;
    tc.proxMu = proxMu;
    return std::make_shared<fl::SupervisedTask<double>>(model,
                                                        tc,
                                                        std::move(parts),
                                                        std::move(test));
}

/// Uniform sampling of k of n clients per round, the same for every setting.
std::function<std::vector<uint32_t>(uint32_t)>
Sampler(uint32_t n, uint32_t k, uint64_t seed)
{
    return [n, k, seed](uint32_t round) {
        fl::Rng rng(fl::DeriveSeed(seed, round, 0x5A));
        std::vector<uint32_t> all(n);
        std::iota(all.begin(), all.end(), 0u);
        std::shuffle(all.begin(), all.end(), rng);
        all.resize(std::min(k, n));
        std::sort(all.begin(), all.end());
        return all;
    };
}

/// Plain FedAvg in process with client sampling (the reference runner trains every client, so
/// sampled FedAvg is run through the seam with an exact float64 pass-through codec).
class PassThroughCodec : public fl::UplinkCodec
{
  public:
    std::string Name() const override
    {
        return "float64";
    }

    fl::UplinkRoundParams Agree(const std::vector<fl::UplinkReport>& reports) const override
    {
        fl::UplinkRoundParams p;
        p.slots = static_cast<uint32_t>(reports.size());
        p.scale = 1.0;
        for (const auto& r : reports)
        {
            p.totalWeight += r.weight;
        }
        return p;
    }

    std::vector<uint8_t> Encode(const fl::ParamVector& update,
                                const fl::UplinkRoundParams& params,
                                uint32_t,
                                double weight,
                                fl::Rng&) const override
    {
        const Eigen::VectorXd u =
            update.ConvertedTo(fl::Precision::Float64).Get<double>() * (weight / params.totalWeight);
        return fl::PackF64(std::vector<double>(u.data(), u.data() + u.size()));
    }

    class Agg : public fl::UplinkAggregator
    {
      public:
        explicit Agg(std::size_t d)
            : m_sum(Eigen::VectorXd::Zero(static_cast<Eigen::Index>(d)))
        {
        }

        bool Add(uint32_t, const std::vector<uint8_t>& payload, double) override
        {
            std::vector<double> v;
            if (!fl::UnpackF64(payload, v) || v.size() != static_cast<std::size_t>(m_sum.size()))
            {
                return false;
            }
            m_sum += Eigen::Map<const Eigen::VectorXd>(v.data(), m_sum.size());
            ++m_count;
            return true;
        }

        uint32_t Count() const override
        {
            return m_count;
        }

        fl::ParamVector Finish(fl::Rng&) override
        {
            return fl::ParamVector(m_sum);
        }

      private:
        Eigen::VectorXd m_sum;
        uint32_t m_count{0};
    };

    std::unique_ptr<fl::UplinkAggregator> Begin(const fl::UplinkRoundParams&,
                                                std::size_t parameters,
                                                fl::Precision) const override
    {
        return std::make_unique<Agg>(parameters);
    }
};

// ---------------------------------------------------------------------------------------------
void
RunSigma(const Options& o, Csv& csv)
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
    (void)o;
}

// ---------------------------------------------------------------------------------------------
void
RunRounds(const Options& o, Csv& csv)
{
    auto task = BuildTask(o);
    const uint64_t d = task->NumParameters();
    std::cout << "fl-ega: rounds to target (Table 2 protocol), in-process reference runner; "
              << task->Describe() << ", " << o.clients << " clients (2 label shards each), "
              << o.perRound << " per round" << std::endl;
    std::vector<uint64_t> seeds(o.clients);
    for (uint32_t k = 0; k < o.clients; ++k)
    {
        seeds[k] = fl::DeriveSeed(o.seed, k, 0xC1);
    }
    const auto select = Sampler(o.clients, o.perRound, o.seed);
    const auto settings = MakeSettings(o, o.perRound);
    double target = 0.0;
    for (const auto& st : settings)
    {
        fl::FedAvgReferenceConfig cfg;
        cfg.initSeed = o.seed;
        cfg.clientSeeds = seeds;
        cfg.select = select;
        std::shared_ptr<fl::EgaUplinkCodec> ega;
        if (st.codec)
        {
            ega = std::make_shared<fl::EgaUplinkCodec>(st.codec, o.s);
            cfg.uplinkCodec = ega;
        }
        else
        {
            cfg.uplinkCodec = std::make_shared<PassThroughCodec>();
        }
        const bool baseline = st.compression == 0;
        cfg.rounds = baseline ? o.targetRounds : o.maxRounds;
        double best = 0.0;
        uint32_t reached = 0;
        const auto t0 = std::chrono::steady_clock::now();
        // Stop early once the target is reached: the onRound hook throws a marker.
        struct Reached
        {
        };
        cfg.onRound = [&](uint32_t r, const fl::ParamVector& g) {
            const double acc = task->Evaluate(g).accuracy;
            best = std::max(best, acc);
            csv.Row("rounds", st.name, r, -1, "accuracy", acc);
            if (r > 0 && r % 25 == 0)
            {
                std::cout << "  " << st.name << " round " << r << ": accuracy " << acc
                          << " (best " << best << ")" << std::endl;
            }
            if (!baseline && r > 0 && acc >= target && reached == 0)
            {
                reached = r;
                throw Reached{};
            }
        };
        try
        {
            fl::RunFedAvgReference(*task, cfg);
        }
        catch (const Reached&)
        {
        }
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                                .count();
        uint64_t perClientUp = 0;
        if (baseline)
        {
            target = best;
            reached = o.targetRounds;
            perClientUp = fl::MessageHeader::kSize + 4 * d; // float32 model message
        }
        else
        {
            // The report (16-byte payload) and the codes, each a model message.
            perClientUp = (fl::MessageHeader::kSize + 16) +
                          (fl::MessageHeader::kSize + EgaPayloadBytes(d, st.compression));
        }
        const uint64_t roundsUsed = reached > 0 ? reached : o.maxRounds;
        const double volume = static_cast<double>(roundsUsed) * o.perRound * perClientUp;
        csv.Row("rounds", st.name, -1, -1, "target_accuracy", target);
        csv.Row("rounds", st.name, -1, -1, "best_accuracy", best);
        csv.Row("rounds", st.name, -1, -1, "rounds_to_target", reached > 0 ? static_cast<double>(reached) : -1.0);
        csv.Row("rounds", st.name, -1, -1, "uplink_bytes_per_client_round", perClientUp);
        csv.Row("rounds", st.name, -1, -1, "uplink_bytes_total", volume);
        csv.Row("rounds", st.name, -1, -1, "sigma", st.sigma);
        csv.Row("rounds", st.name, -1, -1, "learned_codec", st.source == "gaussian-surrogate" || !st.codec ? 0 : 1);
        csv.Row("rounds", st.name, -1, -1, "wall_seconds", wall);
        std::cout << "  " << st.name << " (" << st.source << ", sigma " << st.sigma
                  << "): rounds to " << target << " = "
                  << (reached > 0 ? std::to_string(reached)
                                  : "not within " + std::to_string(o.maxRounds))
                  << ", uplink " << volume / 1e6 << " MB, " << wall << " s" << std::endl;
    }
}

// ---------------------------------------------------------------------------------------------
/// Fig. 4: FedAvg, FedProx (mu = 0.1) and q-FedAvg (q = 1) with and without EGA (default codec),
/// in process, --targetRounds rounds, the rounds experiment's data and sampling.
void
RunAlgorithms(const Options& o, Csv& csv)
{
    std::cout << "fl-ega: algorithms (Fig. 4), in-process reference runner, " << o.targetRounds
              << " rounds" << std::endl;
    std::vector<uint64_t> seeds(o.clients);
    for (uint32_t k = 0; k < o.clients; ++k)
    {
        seeds[k] = fl::DeriveSeed(o.seed, k, 0xC1);
    }
    const auto select = Sampler(o.clients, o.perRound, o.seed);
    std::shared_ptr<const fl::EgaCodec> ega1x;
    for (const auto& st : MakeSettings(o, o.perRound))
    {
        if (st.compression == 1)
        {
            ega1x = st.codec;
        }
    }
    struct Alg
    {
        const char* name;
        double mu;
        double q;
    };
    for (const Alg& alg : {Alg{"fedavg", 0.0, 0.0}, Alg{"fedprox", 0.1, 0.0}, Alg{"qfedavg", 0.0, 1.0}})
    {
        auto task = BuildTask(o, alg.mu);
        for (bool withEga : {false, true})
        {
            const std::string name = std::string(alg.name) + (withEga ? "-ega" : "");
            fl::FedAvgReferenceConfig cfg;
            cfg.rounds = o.targetRounds;
            cfg.initSeed = o.seed;
            cfg.clientSeeds = seeds;
            cfg.select = select;
            cfg.qFedAvg = alg.q;
            if (withEga)
            {
                cfg.uplinkCodec = std::make_shared<fl::EgaUplinkCodec>(ega1x, o.s);
            }
            else
            {
                cfg.uplinkCodec = std::make_shared<PassThroughCodec>();
            }
            double best = 0.0;
            double last = 0.0;
            cfg.onRound = [&](uint32_t r, const fl::ParamVector& g) {
                last = task->Evaluate(g).accuracy;
                best = std::max(best, last);
                csv.Row("algorithms", name, r, -1, "accuracy", last);
            };
            fl::RunFedAvgReference(*task, cfg);
            csv.Row("algorithms", name, -1, -1, "final_accuracy", last);
            csv.Row("algorithms", name, -1, -1, "best_accuracy", best);
            std::cout << "  " << name << ": final accuracy " << last << ", best " << best
                      << std::endl;
        }
    }
}

// ---------------------------------------------------------------------------------------------
void
RunNetwork(const Options& o, Csv& csv)
{
    // One Wi-Fi cell with perRound clients, every client in every round (the codec's m).
    Options small = o;
    small.clients = o.perRound;
    auto task = BuildTask(small);
    const uint64_t d = task->NumParameters();
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
        std::cout << secagg.Describe() << "\n"
                  << "  with EGA: each client's phase-1 report (max |update|, weight) is sent in "
                     "the clear; its codes only as part of the masked sum"
                  << std::endl;
    }
    for (const auto& st : MakeSettings(o, small.clients))
    {
        FlWifiScenarioHelper wifi;
        FlScene scene = wifi.Build(small.clients);
        FlFedAvgHelper fedavg(task);
        fedavg.SetServerAttribute("Rounds", UintegerValue(o.networkRounds));
        fedavg.SetServerAttribute("InitSeed", UintegerValue(o.seed));
        fedavg.SetTransportAttribute("WirePrecision", StringValue("float32"));
        std::shared_ptr<fl::EgaUplinkCodec> ega;
        std::map<uint32_t, Eigen::VectorXd> truth;
        struct Probe
        {
            uint32_t client;
            double rel;
            double cos;
        };
        std::vector<Probe> probes;
        if (st.codec)
        {
            ega = std::make_shared<fl::EgaUplinkCodec>(st.codec, o.s);
            ega->SetEncodeSink(
                [&truth](uint32_t c, const Eigen::VectorXd& u, double) { truth[c] = u; });
            ega->SetProbeSink([&truth, &probes](const fl::EgaProbeRecord& r) {
                const Eigen::VectorXd& t = truth.at(r.client);
                probes.push_back({r.client,
                                  fl::EgaRelativeError(r.leaked, t),
                                  fl::EgaCosineSimilarity(r.leaked, t)});
            });
            fedavg.SetUplinkCodec(ega);
        }
        if (o.secure != "none")
        {
            fedavg.SetSecureAggregation(secagg);
        }
        FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
        struct RoundRow
        {
            uint32_t round;
            double start, agreed, end;
            uint64_t up, down;
            double acc;
        };
        std::vector<RoundRow> rows;
        auto* rowsPtr = &rows;
        auto taskPtr = task;
        stack.server->TraceConnectWithoutContext(
            "RoundEnd",
            FlCallback<void, const FlRoundReport&>([v = rowsPtr,
                                                    t = taskPtr](const FlRoundReport& r) {
                if (r.round == 0)
                {
                    return;
                }
                v->push_back({r.round,
                              r.start.GetSeconds(),
                              r.agreed.GetSeconds(),
                              r.end.GetSeconds(),
                              r.bytesUp,
                              r.bytesDown,
                              t->Evaluate(*r.globalModel).accuracy});
            }));
        // Simulated training: the clients' compute time (1e-4 s per sample, the default).
        std::map<uint32_t, double> trainEnd; // last client's compute end per round
        const auto t0 = std::chrono::steady_clock::now();
        Simulator::Stop(Seconds(5000));
        Simulator::Run();
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        double encodeSeconds = 0.0;
        uint32_t uploads = 0;
        for (uint32_t i = 0; i < stack.clientApps.GetN(); ++i)
        {
            auto c = DynamicCast<CodecClientStrategy>(
                DynamicCast<FlClientApplication>(stack.clientApps.Get(i))->GetStrategy());
            if (c)
            {
                encodeSeconds += c->GetEncodeSeconds();
                uploads += c->GetUploads();
            }
        }
        const uint32_t completed = stack.server->GetCompletedRounds();
        Simulator::Destroy();
        double upBytes = 0.0;
        double roundTime = 0.0;
        for (const auto& r : rows)
        {
            csv.Row("network", st.name, r.round, -1, "uplink_bytes", static_cast<double>(r.up));
            csv.Row("network", st.name, r.round, -1, "downlink_bytes", static_cast<double>(r.down));
            csv.Row("network", st.name, r.round, -1, "round_time_s", r.end - r.start);
            if (st.codec)
            {
                csv.Row("network", st.name, r.round, -1, "agreement_time_s", r.agreed - r.start);
                csv.Row("network", st.name, r.round, -1, "upload_time_s", r.end - r.agreed);
            }
            csv.Row("network", st.name, r.round, -1, "accuracy", r.acc);
            upBytes += static_cast<double>(r.up);
            roundTime += r.end - r.start;
        }
        const double n = rows.empty() ? 1.0 : static_cast<double>(rows.size());
        const double encPerClient = uploads > 0 ? encodeSeconds / uploads : 0.0;
        csv.Row("network", st.name, -1, -1, "uplink_bytes_per_round", upBytes / n);
        csv.Row("network",
                st.name,
                -1,
                -1,
                "payload_bytes_per_client",
                static_cast<double>(ega ? ega->PayloadBytes(d) : 4 * d));
        csv.Row("network", st.name, -1, -1, "round_time_s_mean", roundTime / n);
        csv.Row("network", st.name, -1, -1, "encode_seconds_per_client", encPerClient);
        csv.Row("network",
                st.name,
                -1,
                -1,
                "encode_share_of_round",
                roundTime > 0 ? encPerClient / (roundTime / n) : 0.0);
        csv.Row("network", st.name, -1, -1, "wall_seconds", wall);
        double rel = 0.0;
        double cos = 0.0;
        uint32_t i = 0;
        for (const auto& p : probes)
        {
            const uint32_t round = 1 + i / small.clients;
            csv.Row("network", st.name, round, p.client, "probe_relative_error", p.rel);
            csv.Row("network", st.name, round, p.client, "probe_cosine", p.cos);
            rel += p.rel;
            cos += p.cos;
            ++i;
        }
        if (!probes.empty())
        {
            csv.Row("network", st.name, -1, -1, "probe_relative_error_mean", rel / probes.size());
            csv.Row("network", st.name, -1, -1, "probe_cosine_mean", cos / probes.size());
        }
        std::cout << "  " << st.name << ": " << completed << " rounds, uplink "
                  << upBytes / n / 1e3 << " kB/round ("
                  << (ega ? "codes " + std::to_string(ega->PayloadBytes(d))
                          : "model " + std::to_string(4 * d))
                  << " B/client), round "
                  << roundTime / n << " s simulated"
                  << (st.codec ? ", encoder " + std::to_string(encPerClient * 1e3) +
                                     " ms/client (" +
                                     std::to_string(100.0 * encPerClient / (roundTime / n)) +
                                     " % of the simulated round)"
                               : std::string())
                  << (probes.empty() ? std::string()
                                     : ", probe relative error " +
                                           std::to_string(rel / probes.size()) + ", cosine " +
                                           std::to_string(cos / probes.size()))
                  << std::endl;
    }
}

// ---------------------------------------------------------------------------------------------
/// Softmax regression, one sample: dW = (p - e_y) x^T (C x D), db = p - e_y. Flattened as
/// [W row-major, b].
Eigen::VectorXd
SingleSampleGradient(const Eigen::MatrixXd& W,
                     const Eigen::VectorXd& bias,
                     const Eigen::VectorXd& x,
                     int y)
{
    Eigen::VectorXd z = W * x + bias;
    z.array() -= z.maxCoeff();
    Eigen::VectorXd p = z.array().exp();
    p /= p.sum();
    p(y) -= 1.0;
    const Eigen::Index C = W.rows();
    const Eigen::Index D = W.cols();
    Eigen::VectorXd g(C * D + C);
    for (Eigen::Index c = 0; c < C; ++c)
    {
        g.segment(c * D, D) = p(c) * x;
    }
    g.tail(C) = p;
    return g;
}

/// The attack: x = dW row k / db_k for the class k with the largest |db_k|.
Eigen::VectorXd
Reconstruct(const Eigen::VectorXd& g, Eigen::Index C, Eigen::Index D)
{
    Eigen::Index k = 0;
    g.tail(C).cwiseAbs().maxCoeff(&k);
    const double bk = g(C * D + k);
    if (bk == 0.0)
    {
        return Eigen::VectorXd::Zero(D);
    }
    return g.segment(k * D, D) / bk;
}

double
Psnr(const Eigen::VectorXd& a, const Eigen::VectorXd& ref)
{
    // Images in [0, 1]; the reconstruction is clipped to [0, 1] first.
    const Eigen::VectorXd c = a.cwiseMax(0.0).cwiseMin(1.0);
    const double mse = (c - ref).squaredNorm() / static_cast<double>(ref.size());
    return mse == 0.0 ? 99.0 : std::min(99.0, 10.0 * std::log10(1.0 / mse));
}

/// The image as a side x side matrix of values in [0, 1] (gnuplot: matrix with image).
void
WriteImage(const std::string& path, const Eigen::VectorXd& img, int side)
{
    std::ofstream f(path);
    f << std::setprecision(4);
    for (int i = 0; i < side * side; ++i)
    {
        f << std::clamp(img(i), 0.0, 1.0) << ((i + 1) % side == 0 ? "\n" : " ");
    }
}

void
RunLeakage(const Options& o, Csv& csv)
{
    // Images: Fashion-MNIST test images (or synthetic 8 x 8 patterns with --quick).
    int side = 28;
    std::vector<Eigen::VectorXd> images;
    std::vector<int> labels;
    fl::Rng rng(o.seed);
    if (!o.quick)
    {
        const std::string dir = fl::FindFashionMnistDirectory();
        if (dir.empty())
        {
            throw fl::ConfigError("--quick",
                                  "Fashion-MNIST is not installed",
                                  "sudo apt-get install dataset-fashion-mnist, or --quick");
        }
        auto test = fl::ReadIdxDataset<double>(dir + "/t10k-images-idx3-ubyte.gz",
                                               dir + "/t10k-labels-idx1-ubyte.gz",
                                               64);
        for (std::size_t i = 0; i < test.Size(); ++i)
        {
            images.push_back(test.features.row(static_cast<Eigen::Index>(i)).transpose());
            labels.push_back(static_cast<int>(test.targets(static_cast<Eigen::Index>(i))));
        }
    }
    else
    {
        side = 8;
        std::uniform_real_distribution<double> u(0.0, 1.0);
        for (int i = 0; i < 16; ++i)
        {
            Eigen::VectorXd x(side * side);
            for (int k = 0; k < side * side; ++k)
            {
                x(k) = ((k / side + k % side + i) % 4 < 2) ? 0.9 * u(rng) + 0.1 : 0.0;
            }
            images.push_back(x);
            labels.push_back(i % 10);
        }
    }
    const Eigen::Index D = side * side;
    const Eigen::Index C = 10;
    std::normal_distribution<double> nd(0.0, 0.01);
    Eigen::MatrixXd W(C, D);
    for (Eigen::Index i = 0; i < W.size(); ++i)
    {
        W.data()[i] = nd(rng);
    }
    Eigen::VectorXd bias = Eigen::VectorXd::Zero(C);
    const uint32_t m = 10;
    const double lr = 0.1;
    std::cout << "fl-ega: leakage, input reconstruction from a single-sample softmax-regression "
                 "update (x = dW row / db entry), "
              << m << " clients, victim = client 0" << std::endl;

    // Codecs: the learned default (m = 10, s = 64, the real thing), a noisy compressing
    // setting (2x surrogate) and the linear negative control.
    struct Case
    {
        std::string name;
        std::shared_ptr<const fl::EgaCodec> codec;
    };
    std::vector<Case> cases;
    for (const auto& st : MakeSettings(o, m))
    {
        if (st.compression == 1 || st.compression == 2)
        {
            cases.push_back({st.name, st.codec});
        }
    }
    fl::Rng lrng(9);
    cases.push_back({"ega-linear", std::make_shared<fl::EgaLinearCodec>(32, 32, lrng)});

    const int trials = o.quick ? 3 : 8;
    std::map<std::string, double> psnrSum;
    for (int t = 0; t < trials; ++t)
    {
        // Client i's update: -lr x gradient of one sample (image t * m + i).
        std::vector<Eigen::VectorXd> updates;
        for (uint32_t i = 0; i < m; ++i)
        {
            const std::size_t idx = (t * m + i) % images.size();
            updates.push_back(-lr * SingleSampleGradient(W, bias, images[idx], labels[idx]));
        }
        const Eigen::VectorXd& victimImage = images[(t * m) % images.size()];
        // Raw: the server sees the victim's update itself.
        const Eigen::VectorXd raw = Reconstruct(updates[0], C, D);
        const double psnrRaw = Psnr(raw, victimImage);
        csv.Row("leakage", "raw", t, 0, "psnr_db", psnrRaw);
        psnrSum["raw"] += psnrRaw;
        if (t == 0)
        {
            WriteImage(o.imageDir + "/fl-ega-leak-original.txt", victimImage, side);
            WriteImage(o.imageDir + "/fl-ega-leak-raw.txt", raw, side);
        }
        for (const auto& cs : cases)
        {
            fl::EgaUplinkCodec codec(cs.codec, o.s);
            std::vector<fl::UplinkReport> reports;
            for (uint32_t i = 0; i < m; ++i)
            {
                reports.push_back({i, codec.Statistic(fl::ParamVector(updates[i])), 1.0});
            }
            const fl::UplinkRoundParams params = codec.Agree(reports);
            Eigen::VectorXd leaked;
            codec.SetProbeSink(
                [&leaked](const fl::EgaProbeRecord& r) {
                    if (r.client == 0)
                    {
                        leaked = r.leaked;
                    }
                });
            auto agg = codec.Begin(params, static_cast<std::size_t>(updates[0].size()),
                                   fl::Precision::Float64);
            for (uint32_t i = 0; i < m; ++i)
            {
                fl::Rng erng(fl::DeriveSeed(o.seed, t, i));
                agg->Add(i,
                         codec.Encode(fl::ParamVector(updates[i]), params, i, 1.0, erng),
                         1.0);
            }
            fl::Rng drng(fl::DeriveSeed(o.seed, t, 0xDD));
            agg->Finish(drng);
            const Eigen::VectorXd rec = Reconstruct(leaked, C, D);
            const double psnr = Psnr(rec, victimImage);
            csv.Row("leakage", cs.name, t, 0, "psnr_db", psnr);
            csv.Row("leakage",
                    cs.name,
                    t,
                    0,
                    "update_relative_error",
                    fl::EgaRelativeError(leaked, updates[0]));
            csv.Row("leakage",
                    cs.name,
                    t,
                    0,
                    "update_cosine",
                    fl::EgaCosineSimilarity(leaked, updates[0]));
            psnrSum[cs.name] += psnr;
            if (t == 0)
            {
                WriteImage(o.imageDir + "/fl-ega-leak-" + cs.name + ".txt", rec, side);
            }
        }
    }
    for (const auto& kv : psnrSum)
    {
        csv.Row("leakage", kv.first, -1, 0, "psnr_db_mean", kv.second / trials);
        std::cout << "  " << kv.first << ": mean PSNR " << kv.second / trials << " dB over "
                  << trials << " victims" << std::endl;
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
    flags.AddBool("quick", "Synthetic data, few rounds (seconds; used by the test suite)", o.quick);
    flags.AddChoice("experiment",
                    "Which experiment: sigma, rounds, algorithms, network, leakage or all",
                    o.experiment,
                    {"sigma", "rounds", "algorithms", "network", "leakage", "all"});
    flags.AddOutput("output", "CSV file (experiment,setting,round,client,metric,value)", o.output, false);
    flags.AddText("codecDir", "Folder with ega-default-codec.bin and ega-b32-h<h>-codec.bin",
                  o.codecDir);
    flags.AddText("imageDir", "Folder for the reconstructed images (text matrices)", o.imageDir);
    flags.AddWhole<uint32_t>("clients", "Clients of the rounds experiment", o.clients, 10, 1000);
    flags.AddWhole<uint32_t>("perRound",
                             "Clients per round (the codecs' m; 10 for the checked-in codecs)",
                             o.perRound,
                             1,
                             1000);
    flags.AddWhole<uint32_t>("targetRounds",
                             "FedAvg rounds whose best accuracy is the target",
                             o.targetRounds,
                             1,
                             100000);
    flags.AddWhole<uint32_t>("maxRounds", "Most rounds of an EGA setting", o.maxRounds, 1, 100000);
    flags.AddWhole<uint32_t>("networkRounds",
                             "Rounds of the network experiment",
                             o.networkRounds,
                             1,
                             10000);
    flags.AddWhole<uint64_t>("seed", "Seed of data, partition, sampling and training", o.seed, 1);
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
    if (o.quick)
    {
        o.clients = std::min<uint32_t>(o.clients, 20);
        o.perRound = 10;
        o.targetRounds = std::min<uint32_t>(o.targetRounds, 10);
        o.maxRounds = std::min<uint32_t>(o.maxRounds, 20);
        o.networkRounds = std::min<uint32_t>(o.networkRounds, 2);
    }
    Eigen::setNbThreads(1);
    try
    {
        Csv csv(o.output);
        const bool all = o.experiment == "all";
        if (all || o.experiment == "sigma")
        {
            RunSigma(o, csv);
        }
        if (all || o.experiment == "rounds")
        {
            RunRounds(o, csv);
        }
        if (all || o.experiment == "algorithms")
        {
            RunAlgorithms(o, csv);
        }
        if (all || o.experiment == "network")
        {
            RunNetwork(o, csv);
        }
        if (all || o.experiment == "leakage")
        {
            RunLeakage(o, csv);
        }
        if (!csv.Good())
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
