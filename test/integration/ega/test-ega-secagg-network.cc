/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * EGA (Zeng et al., "Encoded Gradients Aggregation against Gradient Leakage in Federated
 * Learning") under secure aggregation (Bonawitz et al., ACM CCS 2017; SecAgg+ of Bell et al.,
 * ACM CCS 2020) over an 802.11 cell: the codec's two phases run in the clear, then each client
 * masks its codes as fixed-point words and the server decodes only their sum over the survivors
 * U3 (UplinkAggregator::AddSum).
 *  - a lossless run equals the in-process mirror (RunFedAvgReference with the codec and
 *    secureFractionBits) bit for bit, in both key modes and for SecAgg+;
 *  - a client that drops before its masked input is not in the sum: the decoded aggregate
 *    equals the mirror with that client's upload dropped (its slot filled with E(0));
 *  - the curious-server probe, which needs single clients' codes, never runs;
 *  - FlFedAvgHelper refuses a codec whose payloads do not add.
 */
#include "fl-test-config-error.h"
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/ega-codec.h"
#include "ns3/ega-uplink-codec.h"
#include "ns3/fedavg-reference.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/learning-monitor.h"
#include "ns3/secagg-helper.h"

#include <gtest/gtest.h>

using namespace ns3;
using fltest::ExpectConfigError;
using fltest::MakeTask;

namespace
{

constexpr unsigned kFractionBits = 32;
constexpr uint64_t kInitSeed = 2024;

struct EgaSecureRun
{
    std::vector<fl::ParamVector> globals; ///< round 0 .. last
    std::vector<FlRoundReport> reports;   ///< rounds 1 .. last, globalModel cleared
    std::vector<SecAggRoundReport> secagg;
    std::vector<uint64_t> clientSeeds;
    FlServerApplication::Counters app;
    uint32_t completed{0};
};

struct Spec
{
    std::string variant{"secagg"};
    std::string keyMode{"random"};
    uint32_t rounds{2};
    int dropClient{-1};     ///< a client that goes silent before its masked input
    std::string dropRounds; ///< in these rounds
};

EgaSecureRun
RunEgaSecure(std::shared_ptr<const fl::LearningTask> task,
             std::shared_ptr<const fl::UplinkCodec> codec,
             const Spec& spec)
{
    EgaSecureRun out;
    FlWifiScenarioHelper wifi;
    FlScene scene = wifi.Build(static_cast<uint32_t>(task->NumClients()));
    FlSecAggHelper secagg;
    secagg.SetAttribute("Variant", StringValue(spec.variant));
    secagg.SetAttribute("KeyMode", StringValue(spec.keyMode));
    secagg.SetAttribute("FractionBits", UintegerValue(kFractionBits));
    secagg.SetServerAttribute("Timeout", TimeValue(Seconds(2)));
    secagg.AssignStreams(7);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(spec.rounds));
    fedavg.SetServerAttribute("InitSeed", UintegerValue(kInitSeed));
    fedavg.SetServerAttribute("RoundDeadline", TimeValue(Seconds(20)));
    fedavg.SetUplinkCodec(codec);
    fedavg.SetSecureAggregation(secagg);
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    for (uint32_t i = 0; i < stack.clientApps.GetN(); ++i)
    {
        out.clientSeeds.push_back(555 + 31 * i);
        stack.clientApps.Get(i)->SetAttribute("TrainingSeed", UintegerValue(out.clientSeeds[i]));
    }
    if (spec.dropClient >= 0)
    {
        auto step = stack.secAgg.clients.at(static_cast<uint32_t>(spec.dropClient));
        step->SetAttribute("DropBeforePhase", StringValue("input"));
        step->SetAttribute("DropRounds", StringValue(spec.dropRounds));
    }
    stack.server->TraceConnectWithoutContext(
        "RoundEnd",
        FlCallback<void, const FlRoundReport&>([&out](const FlRoundReport& r) {
            out.globals.push_back(*r.globalModel);
            if (r.round > 0)
            {
                out.reports.push_back(r);
                out.reports.back().globalModel = nullptr;
            }
        }));
    stack.secAgg.server->TraceConnectWithoutContext(
        "RoundEnd",
        FlCallback<void, const SecAggRoundReport&>(
            [&out](const SecAggRoundReport& r) { out.secagg.push_back(r); }));
    Simulator::Stop(Seconds(2000));
    Simulator::Run();
    out.app = stack.server->GetCounters();
    out.completed = stack.server->GetCompletedRounds();
    Simulator::Destroy();
    return out;
}

std::vector<fl::ParamVector>
Mirror(const fl::LearningTask& task,
       std::shared_ptr<const fl::UplinkCodec> codec,
       uint32_t rounds,
       const std::vector<uint64_t>& seeds,
       std::function<bool(uint32_t, uint32_t)> dropUpload = {})
{
    std::vector<fl::ParamVector> globals;
    fl::FedAvgReferenceConfig cfg;
    cfg.rounds = rounds;
    cfg.initSeed = kInitSeed;
    cfg.clientSeeds = seeds;
    cfg.uplinkCodec = codec;
    cfg.secureFractionBits = kFractionBits;
    cfg.dropUpload = std::move(dropUpload);
    cfg.onRound = [&globals](uint32_t, const fl::ParamVector& g) { globals.push_back(g); };
    fl::RunFedAvgReference(task, cfg);
    return globals;
}

std::shared_ptr<fl::EgaUplinkCodec>
LinearEga()
{
    fl::Rng rng(3);
    return std::make_shared<fl::EgaUplinkCodec>(std::make_shared<fl::EgaLinearCodec>(8, 8, rng),
                                                64);
}

void
ExpectSameRun(const EgaSecureRun& net, const std::vector<fl::ParamVector>& ref, uint32_t rounds)
{
    ASSERT_EQ(net.completed, rounds);
    ASSERT_EQ(net.globals.size(), rounds + 1);
    ASSERT_EQ(ref.size(), rounds + 1);
    for (uint32_t r = 0; r <= rounds; ++r)
    {
        EXPECT_TRUE(net.globals[r] == ref[r]) << "global model of round " << r << " differs";
    }
    for (uint32_t r = 1; r <= rounds; ++r)
    {
        EXPECT_FALSE(net.globals[r] == net.globals[r - 1]) << "round " << r << " did nothing";
    }
    ASSERT_EQ(net.secagg.size(), rounds);
    for (const auto& s : net.secagg)
    {
        EXPECT_TRUE(s.ok) << s.statusText;
    }
    EXPECT_EQ(net.app.strategyRejected, 0u);
    EXPECT_EQ(net.app.malformed, 0u);
    EXPECT_EQ(net.app.unexpectedMessages, 0u);
}

} // namespace

TEST(EgaSecAggNetwork, LosslessRunEqualsTheMirrorInBothKeyModes)
{
    auto task = MakeTask<double>(5, "softmax:l2=0.001");
    auto codec = LinearEga();
    uint32_t probes = 0;
    codec->SetProbeSink([&probes](const fl::EgaProbeRecord&) { ++probes; });
    const uint32_t rounds = 2;
    std::vector<fl::ParamVector> first;
    for (const std::string mode : {"random", "reproducible"})
    {
        Spec spec;
        spec.keyMode = mode;
        spec.rounds = rounds;
        EgaSecureRun net = RunEgaSecure(task, codec, spec);
        SCOPED_TRACE("KeyMode " + mode);
        ExpectSameRun(net, Mirror(*task, codec, rounds, net.clientSeeds), rounds);
        for (const auto& rep : net.reports)
        {
            EXPECT_EQ(rep.codecReports, 5u);
            EXPECT_EQ(rep.participants.size(), 5u);
            EXPECT_EQ(rep.uplinkStatus, "ok");
        }
        for (const auto& s : net.secagg)
        {
            EXPECT_EQ(s.sets[2], 5u); // U3
        }
        if (first.empty())
        {
            first = net.globals;
        }
        else
        {
            // the keys differ, the decoded sums do not
            EXPECT_TRUE(first.back() == net.globals.back());
        }
    }
    EXPECT_EQ(probes, 0u) << "the probe needs single clients' codes, which the server never sees";
    // The same aggregate as EGA without secure aggregation, up to the 2^-32 grid of the codes.
    fl::FedAvgReferenceConfig plain;
    plain.rounds = rounds;
    plain.initSeed = kInitSeed;
    for (uint32_t i = 0; i < 5; ++i)
    {
        plain.clientSeeds.push_back(555 + 31 * i);
    }
    plain.uplinkCodec = codec;
    const fl::ParamVector p = fl::RunFedAvgReference(*task, plain).finalModel;
    EXPECT_LT((p.Get<double>() - first.back().Get<double>()).norm(), 1e-6 * p.Get<double>().norm());
}

TEST(EgaSecAggNetwork, SecAggPlusEqualsTheMirror)
{
    auto task = MakeTask<double>(6, "softmax:l2=0.001");
    auto codec =
        std::make_shared<fl::EgaUplinkCodec>(std::make_shared<fl::EgaGaussianCodec>(16, 0.3, 32, 6),
                                             32);
    Spec spec;
    spec.variant = "secaggplus";
    spec.keyMode = "reproducible";
    EgaSecureRun net = RunEgaSecure(task, codec, spec);
    ExpectSameRun(net, Mirror(*task, codec, spec.rounds, net.clientSeeds), spec.rounds);
}

TEST(EgaSecAggNetwork, DropoutBeforeTheMaskedInputEqualsTheMirrorWithoutThatClient)
{
    // Client 2 reports in phase 1, advertises keys and shares them, then goes silent before its
    // masked input in round 2: U3 = {0, 1, 3, 4}; its pairwise masks are removed with its
    // reconstructed key, its codes are not in the sum and its slot is filled with E(0).
    auto task = MakeTask<double>(5, "softmax:l2=0.001");
    auto codec = LinearEga();
    Spec spec;
    spec.rounds = 3;
    spec.dropClient = 2;
    spec.dropRounds = "2";
    EgaSecureRun net = RunEgaSecure(task, codec, spec);
    auto drop = [](uint32_t r, uint32_t c) { return r == 2 && c == 2; };
    ExpectSameRun(net, Mirror(*task, codec, spec.rounds, net.clientSeeds, drop), spec.rounds);
    ASSERT_EQ(net.reports.size(), 3u);
    EXPECT_EQ(net.reports[1].codecReports, 5u);
    EXPECT_EQ(net.reports[1].participants, (std::vector<uint32_t>{0, 1, 3, 4}));
    EXPECT_EQ(net.secagg[1].sets[1], 5u); // U2
    EXPECT_EQ(net.secagg[1].sets[2], 4u); // U3
    // and it is not the run without the dropout
    auto full = Mirror(*task, codec, spec.rounds, net.clientSeeds);
    EXPECT_FALSE(full[2] == net.globals[2]);
}

TEST(EgaSecAggNetwork, HelperRefusesACodecWithoutASumPath)
{
    class Plain : public fl::UplinkCodec
    {
      public:
        std::string Name() const override
        {
            return "plain";
        }

        fl::UplinkRoundParams Agree(const std::vector<fl::UplinkReport>&) const override
        {
            return fl::UplinkRoundParams{1.0, 1.0, 1};
        }

        std::vector<uint8_t> Encode(const fl::ParamVector&,
                                    const fl::UplinkRoundParams&,
                                    uint32_t,
                                    double,
                                    fl::Rng&) const override
        {
            return {};
        }

        std::unique_ptr<fl::UplinkAggregator> Begin(const fl::UplinkRoundParams&,
                                                    std::size_t,
                                                    fl::Precision) const override
        {
            return nullptr;
        }
    };

    auto task = MakeTask<double>(3, "softmax:l2=0.001");
    FlWifiScenarioHelper wifi;
    FlScene scene = wifi.Build(3);
    {
        FlFedAvgHelper fedavg(task);
        fedavg.SetUplinkCodec(std::make_shared<Plain>());
        fedavg.SetSecureAggregation(FlSecAggHelper());
        ExpectConfigError(
            [&] { fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress); },
            "SetSecureAggregation");
    }
    {
        FlFedAvgHelper fedavg(task);
        fedavg.SetUplinkCodec(LinearEga());
        fedavg.SetSecureAggregation(FlSecAggHelper());
        EXPECT_NO_THROW(fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress));
    }
    Simulator::Destroy();
}
