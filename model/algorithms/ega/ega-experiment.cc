/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ega-experiment.h"

#include "ega-aggregate.h"
#include "ega-mlp-codec.h"
#include "ega-uplink-codec.h"

#include "ns3/data-io.h"
#include "ns3/gradient-leakage.h"
#include "ns3/linear-models.h"
#include "ns3/model-message.h"
#include "ns3/partition.h"
#include "ns3/synthetic-data.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>

namespace ns3
{
namespace fl
{

std::shared_ptr<SupervisedTask<double>>
MakeEgaTask(const std::string& fashionMnistDir, uint32_t clients, uint64_t seed, double proxMu)
{
    Rng rng(seed);
    Dataset<double> train;
    Dataset<double> test;
    if (fashionMnistDir.empty())
    {
        GaussianMixtureConfig cfg;
        cfg.dim = 16;
        cfg.classes = 10;
        cfg.separation = 1.5;
        const Eigen::MatrixXd centres = MakeMixtureCentres(cfg, rng);
        train = SampleGaussianMixture<double>(centres, clients * 40, rng);
        test = SampleGaussianMixture<double>(centres, 500, rng);
    }
    else
    {
        const std::string& dir = fashionMnistDir;
        train = ReadIdxDataset<double>(dir + "/train-images-idx3-ubyte.gz",
                                       dir + "/train-labels-idx1-ubyte.gz");
        test = ReadIdxDataset<double>(dir + "/t10k-images-idx3-ubyte.gz",
                                      dir + "/t10k-labels-idx1-ubyte.gz",
                                      2000);
    }
    const Partition part = PartitionShards(train, clients, 2, rng);
    std::vector<Dataset<double>> parts;
    for (const auto& p : part)
    {
        parts.push_back(train.Subset(p));
    }
    auto model =
        std::make_shared<SoftmaxRegression<double>>(train.Dim(),
                                                    static_cast<std::size_t>(train.numClasses),
                                                    1e-4);
    LocalTrainerConfig tc;
    tc.batchSize = 32;
    tc.learningRate = 0.05;
    tc.localEpochs = 1.0;
    tc.proxMu = proxMu;
    return std::make_shared<SupervisedTask<double>>(model, tc, std::move(parts), std::move(test));
}

std::vector<EgaSetting>
MakeEgaSettings(const std::string& codecDir, bool surrogateOnly, uint32_t m, uint32_t s)
{
    std::vector<EgaSetting> out;
    out.push_back({"fedavg", 0, nullptr, 0.0, "none"});
    const uint32_t b = 32;
    for (uint32_t c : {1u, 2u, 4u, 8u})
    {
        EgaSetting st;
        st.name = "ega-" + std::to_string(c) + "x";
        st.compression = c;
        const uint32_t h = b / c;
        const std::string file = c == 1
                                     ? codecDir + "/ega-default-codec.bin"
                                     : codecDir + "/ega-b32-h" + std::to_string(h) + "-codec.bin";
        std::ifstream probe(file);
        if (!surrogateOnly && probe.good())
        {
            auto codec = std::make_shared<EgaMlpCodec>(EgaMlpCodec::Load(file));
            if (codec->DesignClients() == m && codec->DesignLevel() == s)
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
                sigma = EgaLookupSigma(b, h, 64, 10);
            }
            catch (const ConfigError&)
            {
                sigma = 11.74 * std::sqrt(1.0 - static_cast<double>(h) / b);
            }
            st.sigma = sigma;
            st.codec = std::make_shared<EgaGaussianCodec>(b, sigma, s, m);
            st.source = "gaussian-surrogate";
        }
        out.push_back(st);
    }
    return out;
}

uint64_t
EgaCodesBytes(uint64_t d, uint32_t compression)
{
    const uint64_t b = 32;
    return 4 * ((d + b - 1) / b) * (b / compression);
}

uint64_t
EgaUplinkBytesPerClientRound(uint64_t d, uint32_t compression)
{
    const uint64_t header = MessageHeader::kSize;
    if (compression == 0)
    {
        return header + 4 * d;
    }
    return (header + 16) + (header + EgaCodesBytes(d, compression));
}

std::vector<uint64_t>
EgaClientSeeds(uint64_t seed, uint32_t n)
{
    std::vector<uint64_t> seeds(n);
    for (uint32_t k = 0; k < n; ++k)
    {
        seeds[k] = DeriveSeed(seed, k, 0xC1);
    }
    return seeds;
}

RoundsToTarget
RunFedAvgToTarget(const LearningTask& task,
                  FedAvgReferenceConfig config,
                  double target,
                  bool stopAtTarget,
                  const std::function<void(uint32_t, double, double)>& onAccuracy)
{
    RoundsToTarget out;

    // Stop early once the target is reached: the onRound hook throws a marker.
    struct Reached
    {
    };

    config.onRound = [&](uint32_t r, const ParamVector& g) {
        const double acc = task.Evaluate(g).accuracy;
        out.best = std::max(out.best, acc);
        if (onAccuracy)
        {
            onAccuracy(r, acc, out.best);
        }
        if (stopAtTarget && r > 0 && acc >= target && out.reached == 0)
        {
            out.reached = r;
            throw Reached{};
        }
    };
    try
    {
        RunFedAvgReference(task, config);
    }
    catch (const Reached&)
    {
    }
    return out;
}

std::function<std::vector<uint32_t>(uint32_t)>
UniformClientSampler(uint32_t n, uint32_t k, uint64_t seed)
{
    return [n, k, seed](uint32_t round) {
        Rng rng(DeriveSeed(seed, round, 0x5A));
        std::vector<uint32_t> all(n);
        std::iota(all.begin(), all.end(), 0u);
        std::shuffle(all.begin(), all.end(), rng);
        all.resize(std::min(k, n));
        std::sort(all.begin(), all.end());
        return all;
    };
}

// ---------------------------------------------------------------------------------------------
std::string
Float64UplinkCodec::Name() const
{
    return "float64";
}

UplinkRoundParams
Float64UplinkCodec::Agree(const std::vector<UplinkReport>& reports) const
{
    UplinkRoundParams p;
    p.slots = static_cast<uint32_t>(reports.size());
    p.scale = 1.0;
    for (const auto& r : reports)
    {
        p.totalWeight += r.weight;
    }
    return p;
}

std::vector<uint8_t>
Float64UplinkCodec::Encode(const ParamVector& update,
                           const UplinkRoundParams& params,
                           uint32_t,
                           double weight,
                           Rng&) const
{
    const Eigen::VectorXd u =
        update.ConvertedTo(Precision::Float64).Get<double>() * (weight / params.totalWeight);
    return PackF64(std::vector<double>(u.data(), u.data() + u.size()));
}

namespace
{
/// Sums the float64 payloads of Float64UplinkCodec (a malformed one is refused).
class Float64Aggregator : public UplinkAggregator
{
  public:
    explicit Float64Aggregator(std::size_t d)
        : m_sum(Eigen::VectorXd::Zero(static_cast<Eigen::Index>(d)))
    {
    }

    bool Add(uint32_t, const std::vector<uint8_t>& payload, double) override
    {
        std::vector<double> v;
        if (!UnpackF64(payload, v) || v.size() != static_cast<std::size_t>(m_sum.size()))
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

    ParamVector Finish(Rng&) override
    {
        return ParamVector(m_sum);
    }

  private:
    Eigen::VectorXd m_sum;
    uint32_t m_count{0};
};
} // namespace

std::unique_ptr<UplinkAggregator>
Float64UplinkCodec::Begin(const UplinkRoundParams&, std::size_t parameters, Precision) const
{
    return std::make_unique<Float64Aggregator>(parameters);
}

// ---------------------------------------------------------------------------------------------
Eigen::VectorXd
EgaProbeEstimate(const std::shared_ptr<const EgaCodec>& codec,
                 uint32_t s,
                 const std::vector<Eigen::VectorXd>& updates,
                 uint32_t victim,
                 uint64_t seed,
                 uint64_t trial)
{
    if (updates.empty() || victim >= updates.size())
    {
        throw ConfigError("victim",
                          std::to_string(victim) + " with " + std::to_string(updates.size()) +
                              " updates",
                          "probe one of the clients whose updates are given");
    }
    EgaUplinkCodec ega(codec, s);
    const auto m = static_cast<uint32_t>(updates.size());
    std::vector<UplinkReport> reports;
    for (uint32_t i = 0; i < m; ++i)
    {
        reports.push_back({i, ega.Statistic(ParamVector(updates[i])), 1.0});
    }
    const UplinkRoundParams params = ega.Agree(reports);
    Eigen::VectorXd leaked;
    ega.SetProbeSink([&leaked, victim](const EgaProbeRecord& r) {
        if (r.client == victim)
        {
            leaked = r.leaked;
        }
    });
    auto agg = ega.Begin(params, static_cast<std::size_t>(updates[0].size()), Precision::Float64);
    for (uint32_t i = 0; i < m; ++i)
    {
        Rng erng(DeriveSeed(seed, trial, i));
        agg->Add(i, ega.Encode(ParamVector(updates[i]), params, i, 1.0, erng), 1.0);
    }
    Rng drng(DeriveSeed(seed, trial, 0xDD));
    agg->Finish(drng);
    return leaked;
}

EgaLeakageResult
RunEgaLeakage(const EgaLeakageConfig& c)
{
    if (c.images.empty() || c.labels.size() != c.images.size())
    {
        throw ConfigError("images", "empty or not one label per image", "give labelled images");
    }
    const Eigen::Index D = static_cast<Eigen::Index>(c.side) * c.side;
    const Eigen::Index C = c.W.rows();
    if (c.W.cols() != D || c.bias.size() != C)
    {
        throw ConfigError("W",
                          "not C x side^2 with a bias of C",
                          "size the model to the images (C x side^2 weights, C biases)");
    }
    EgaLeakageResult result;
    std::map<std::string, double> psnrSum;
    for (uint32_t t = 0; t < c.trials; ++t)
    {
        // Client i's update: -lr x gradient of one sample (image t * m + i).
        std::vector<Eigen::VectorXd> updates;
        for (uint32_t i = 0; i < c.clients; ++i)
        {
            const std::size_t idx = (t * c.clients + i) % c.images.size();
            updates.push_back(
                -c.learningRate *
                SoftmaxSingleSampleGradient(c.W, c.bias, c.images[idx], c.labels[idx]));
        }
        const Eigen::VectorXd& victimImage = c.images[(t * c.clients) % c.images.size()];
        // Raw: the server sees the victim's update itself.
        EgaLeakageRecord raw;
        raw.trial = t;
        raw.setting = "raw";
        raw.reconstruction = ReconstructSoftmaxInput(updates[0], C, D);
        raw.psnr = ClippedPsnr(raw.reconstruction, victimImage);
        psnrSum["raw"] += raw.psnr;
        result.records.push_back(raw);
        for (const auto& cs : c.cases)
        {
            const Eigen::VectorXd leaked = EgaProbeEstimate(cs.second, c.s, updates, 0, c.seed, t);
            EgaLeakageRecord rec;
            rec.trial = t;
            rec.setting = cs.first;
            rec.reconstruction = ReconstructSoftmaxInput(leaked, C, D);
            rec.psnr = ClippedPsnr(rec.reconstruction, victimImage);
            rec.relativeError = EgaRelativeError(leaked, updates[0]);
            rec.cosine = EgaCosineSimilarity(leaked, updates[0]);
            psnrSum[cs.first] += rec.psnr;
            result.records.push_back(rec);
        }
    }
    for (const auto& kv : psnrSum)
    {
        result.meanPsnr.emplace_back(kv.first, kv.second / c.trials);
    }
    return result;
}

void
AppendDatasetImages(const Dataset<double>& data, EgaLeakageConfig& c)
{
    for (std::size_t i = 0; i < data.Size(); ++i)
    {
        c.images.push_back(data.features.row(static_cast<Eigen::Index>(i)).transpose());
        c.labels.push_back(static_cast<int>(data.targets(static_cast<Eigen::Index>(i))));
    }
}

void
InitLeakageModel(EgaLeakageConfig& c, int classes, double stddev, Rng& rng)
{
    std::normal_distribution<double> nd(0.0, stddev);
    c.W.resize(classes, static_cast<Eigen::Index>(c.side) * c.side);
    for (Eigen::Index i = 0; i < c.W.size(); ++i)
    {
        c.W.data()[i] = nd(rng);
    }
    c.bias = Eigen::VectorXd::Zero(classes);
}

void
MakeStripeImages(int count,
                 int side,
                 Rng& rng,
                 std::vector<Eigen::VectorXd>& images,
                 std::vector<int>& labels)
{
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int i = 0; i < count; ++i)
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

} // namespace fl
} // namespace ns3
