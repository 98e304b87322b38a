/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The uplink codec as a strategy pair (CodecServerStrategy, CodecClientStrategy), hook by hook
 * without a network: what each phase accepts, sends and aggregates, against the codec called
 * directly.
 */
#include "fl-test-config-error.h"
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/ega-codec.h"
#include "ns3/ega-uplink-codec.h"
#include "ns3/fl-codec-strategy.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/perturbation.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using namespace ns3;
using fltest::ExpectConfigError;
using fltest::MakeTask;

namespace
{

std::shared_ptr<const fl::UplinkCodec>
LinearEga()
{
    fl::Rng rng(3);
    return std::make_shared<fl::EgaUplinkCodec>(std::make_shared<fl::EgaLinearCodec>(8, 8, rng),
                                                64);
}

/// A Control message the strategy sent through its port.
struct Sent
{
    uint32_t client;
    uint32_t round;
    uint32_t tag;
    std::vector<uint8_t> bytes;
};

Ptr<CodecServerStrategy>
MakeServer(std::shared_ptr<const fl::UplinkCodec> codec, std::vector<Sent>* sent, uint64_t seed)
{
    auto s = CreateObject<CodecServerStrategy>();
    s->SetCodec(codec);
    FlServerPort port;
    port.sendControl =
        [sent](uint32_t client, uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes) {
            sent->push_back({client, round, tag, bytes});
            return true;
        };
    port.seed = [seed]() { return seed; };
    s->SetPort(port);
    return s;
}

fl::ParamVector
Delta(std::size_t d, double scale)
{
    Eigen::VectorXd v(d);
    for (std::size_t i = 0; i < d; ++i)
    {
        v[i] = scale * std::sin(1.0 + static_cast<double>(i));
    }
    return fl::ParamVector(v);
}

/// What the server tells a strategy when it starts.
FlStrategySetup
StartSetup(std::size_t numParameters, bool acceptsStale, bool hasUplinkStep)
{
    FlStrategySetup setup;
    setup.numParameters = numParameters;
    setup.acceptsStale = acceptsStale;
    setup.hasUplinkStep = hasUplinkStep;
    return setup;
}

} // namespace

TEST(CodecServerStrategy, PhaseOneAcceptsOneWellFormedReportPerClient)
{
    std::vector<Sent> sent;
    auto s = MakeServer(LinearEga(), &sent, 7);
    s->Start(StartSetup(16, false, false));
    FlServerStrategy::Context ctx;
    FlRoundConfig config;
    ctx.round = 3;
    s->ConfigureRound(ctx, {1, 2}, config);
    using V = FlPhaseHooks::Verdict;
    const auto good = fl::PackUplinkReport({1, 0.5, 20.0});
    EXPECT_EQ(s->PhaseMessage(ctx, 1, fl::kUplinkParamsTag, good), V::Unexpected);
    EXPECT_EQ(s->PhaseMessage(ctx, 1, fl::kUplinkReportTag, {1, 2, 3}), V::Malformed);
    EXPECT_EQ(s->PhaseMessage(ctx, 1, fl::kUplinkReportTag, good), V::Accepted);
    EXPECT_EQ(s->PhaseMessage(ctx, 1, fl::kUplinkReportTag, good), V::Unexpected); // duplicate
    std::vector<uint32_t> uploaders;
    EXPECT_FALSE(s->PhasesDone(ctx, {1, 2}, false, uploaders)); // client 2 not heard yet
    EXPECT_TRUE(sent.empty());
    FlRoundReport rep;
    rep.round = 3;
    s->DescribeRound(rep);
    EXPECT_EQ(rep.codecReports, 1u);
    EXPECT_EQ(rep.codecScale, 0.0); // nothing agreed yet
}

TEST(CodecServerStrategy, AgreementGoesToTheReportersAsTheCodecAgrees)
{
    auto codec = LinearEga();
    std::vector<Sent> sent;
    auto s = MakeServer(codec, &sent, 7);
    s->Start(StartSetup(16, false, false));
    FlServerStrategy::Context ctx;
    FlRoundConfig config;
    ctx.round = 2;
    s->ConfigureRound(ctx, {0, 4, 5}, config);
    const fl::UplinkReport a{0, 0.25, 10.0};
    const fl::UplinkReport b{5, 0.75, 30.0};
    ASSERT_EQ(s->PhaseMessage(ctx, 5, fl::kUplinkReportTag, fl::PackUplinkReport(b)),
              FlPhaseHooks::Verdict::Accepted);
    ASSERT_EQ(s->PhaseMessage(ctx, 0, fl::kUplinkReportTag, fl::PackUplinkReport(a)),
              FlPhaseHooks::Verdict::Accepted);
    s->ClientLeft(4); // client 4 left without a report: the round no longer waits for it
    std::vector<uint32_t> uploaders;
    ASSERT_TRUE(s->PhasesDone(ctx, {0, 5}, false, uploaders));
    EXPECT_EQ(uploaders, (std::vector<uint32_t>{0, 5}));
    const fl::UplinkRoundParams expected = codec->Agree({a, b});
    ASSERT_EQ(sent.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i)
    {
        EXPECT_EQ(sent[i].client, uploaders[i]);
        EXPECT_EQ(sent[i].round, 2u);
        EXPECT_EQ(sent[i].tag, fl::kUplinkParamsTag);
        EXPECT_EQ(sent[i].bytes, expected.Pack());
    }
    FlRoundReport rep;
    rep.round = 2;
    s->DescribeRound(rep);
    EXPECT_EQ(rep.codecReports, 2u);
    EXPECT_EQ(rep.codecScale, expected.scale);
    FlRoundReport other;
    other.round = 1;
    s->DescribeRound(other); // another round's report is left as it is
    EXPECT_EQ(other.codecReports, 0u);
}

TEST(CodecServerStrategy, DeadlineWithoutReportsEndsThePhasesEmpty)
{
    std::vector<Sent> sent;
    auto s = MakeServer(LinearEga(), &sent, 7);
    FlServerStrategy::Context ctx;
    FlRoundConfig config;
    ctx.round = 1;
    s->ConfigureRound(ctx, {0, 1}, config);
    std::vector<uint32_t> uploaders{9};
    EXPECT_TRUE(s->PhasesDone(ctx, {0, 1}, true, uploaders));
    EXPECT_TRUE(uploaders.empty());
    EXPECT_TRUE(sent.empty());
}

TEST(CodecServerStrategy, PayloadsAggregateAsTheCodecDirectly)
{
    auto codec = LinearEga();
    const std::size_t d = 16;
    std::vector<Sent> sent;
    auto s = MakeServer(codec, &sent, 99);
    FlServerStrategy::Context ctx;
    FlRoundConfig config;
    ctx.round = 4;
    s->ConfigureRound(ctx, {1, 3}, config);
    const fl::ParamVector u1 = Delta(d, 0.1);
    const fl::ParamVector u3 = Delta(d, -0.3);
    const fl::UplinkReport r1{1, codec->Statistic(u1), 12.0};
    const fl::UplinkReport r3{3, codec->Statistic(u3), 4.0};
    s->PhaseMessage(ctx, 1, fl::kUplinkReportTag, fl::PackUplinkReport(r1));
    const fl::UplinkReport r2{2, 0.01, 1.0};
    s->PhaseMessage(ctx, 2, fl::kUplinkReportTag, fl::PackUplinkReport(r2));
    s->PhaseMessage(ctx, 3, fl::kUplinkReportTag, fl::PackUplinkReport(r3));
    std::vector<uint32_t> uploaders;
    ASSERT_TRUE(s->PhasesDone(ctx, {1, 2, 3}, false, uploaders));
    const fl::UplinkRoundParams params = codec->Agree({r1, r2, r3});
    fl::Rng e1(11);
    fl::Rng e3(13);
    const auto p1 = codec->Encode(u1, params, 1, 12.0, e1);
    const auto p3 = codec->Encode(u3, params, 3, 4.0, e3);

    // the codec called directly, as the server did before the seam
    fl::ParamVector direct(Eigen::VectorXd(Eigen::VectorXd::Constant(d, 0.5)));
    auto agg = codec->Begin(params, d, direct.GetPrecision());
    ASSERT_TRUE(agg->Add(1, p1, 12.0));
    ASSERT_TRUE(agg->Add(3, p3, 4.0));
    fl::Rng dec(fl::UplinkDecodeSeed(99, 4));
    fl::AddInPlace(direct, agg->Finish(dec));

    fl::ParamVector model(Eigen::VectorXd(Eigen::VectorXd::Constant(d, 0.5)));
    std::vector<double> weights;
    const std::vector<uint8_t> bad{1, 2, 3};
    FlAggregationInput in;
    in.clients = {1, 2, 3, 4};
    in.payloads = {&p1, &bad, &p3, &p3};
    EXPECT_TRUE(s->Aggregate(ctx, in, model, weights))
        << "client 2's malformed payload and client 4's (no report) are left out";
    ASSERT_EQ(weights.size(), 4u);
    EXPECT_EQ(weights[0], 12.0);
    EXPECT_TRUE(std::isnan(weights[1]));
    EXPECT_EQ(weights[2], 4.0);
    EXPECT_TRUE(std::isnan(weights[3]));
    EXPECT_TRUE(model == direct);
    EXPECT_FALSE(model == fl::ParamVector(Eigen::VectorXd(Eigen::VectorXd::Constant(d, 0.5))));
}

TEST(CodecServerStrategy, RefusesStaleUpdatesAndAStepWithoutASumPath)
{
    std::vector<Sent> sent;
    auto s = MakeServer(LinearEga(), &sent, 1);
    ExpectConfigError([&] { s->Start(StartSetup(16, true, false)); }, "StragglerPolicy");
    EXPECT_NO_THROW(s->Start(StartSetup(16, false, true))); // EGA's codes add: a step may sum them
    EXPECT_EQ(s->Traits(16).uploadValues, LinearEga()->SumSize(16));
    EXPECT_TRUE(s->Traits(16).rawUploads);
    EXPECT_FALSE(s->Traits(16).staleUpdates);
    auto none = CreateObject<CodecServerStrategy>();
    ExpectConfigError([&] { none->Start(StartSetup(16, false, false)); }, "CodecServerStrategy");
}

TEST(CodecClientStrategy, ReportsStatisticAndLossWeightThenEncodes)
{
    auto task = MakeTask<double>(3, "softmax:l2=0.001");
    auto codec = LinearEga();
    const std::size_t d = task->NumParameters();
    auto c = CreateObject<CodecClientStrategy>();
    c->SetCodec(codec);
    c->SetAttribute("LossWeightExponent", DoubleValue(2.0));
    std::vector<Sent> sent;
    std::vector<std::vector<uint8_t>> uploads;
    uint32_t unexpected = 0;
    FlClientPort port;
    port.sendControl = [&sent](uint32_t round, uint32_t tag, const std::vector<uint8_t>& b) {
        sent.push_back({0, round, tag, b});
    };
    port.uploadRaw = [&uploads](uint32_t, const std::vector<uint8_t>& b) { uploads.push_back(b); };
    port.hasUplinkStep = []() { return false; };
    port.unexpected = [&unexpected]() { ++unexpected; };
    port.trainingSeed = []() { return uint64_t{555}; };
    c->SetPort(port);
    c->Start(*task, 1, false);

    const fl::ParamVector received(Eigen::VectorXd(Eigen::VectorXd::Constant(d, 0.25)));
    const fl::ParamVector delta = Delta(d, 0.2);
    fl::ParamVector upload = received;
    fl::AddInPlace(upload, delta);
    const double loss = 0.5;
    c->UploadReady(*task, 1, 6, received, upload, loss);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].round, 6u);
    EXPECT_EQ(sent[0].tag, fl::kUplinkReportTag);
    fl::UplinkReport r;
    ASSERT_TRUE(fl::UnpackUplinkReport(sent[0].bytes, r));
    // loss-weighted FedAvg's weight: samples x loss^q, q = 2
    const double samples = static_cast<double>(task->ClientSamples(1));
    EXPECT_NEAR(r.weight, samples * 0.25, 1e-12 * samples);
    const fl::ParamVector exactDelta = fl::Difference(upload, received);
    EXPECT_EQ(r.statistic, codec->Statistic(exactDelta));

    fl::UplinkReport other{2, 0.1, 5.0};
    const fl::UplinkRoundParams params = codec->Agree({other, r});
    EXPECT_TRUE(c->Receive(5, fl::kUplinkParamsTag, params.Pack())); // another round's
    EXPECT_EQ(unexpected, 1u);
    EXPECT_FALSE(c->Receive(6, fl::kUplinkReportTag, params.Pack())); // not the strategy's tag
    EXPECT_TRUE(c->Receive(6, fl::kUplinkParamsTag, params.Pack()));
    ASSERT_EQ(uploads.size(), 1u);
    fl::Rng rng(fl::UplinkEncodeSeed(555, 6));
    EXPECT_EQ(uploads[0], codec->Encode(exactDelta, params, 1, r.weight, rng));
    EXPECT_EQ(c->GetUploads(), 1u);
    EXPECT_TRUE(c->Receive(6, fl::kUplinkParamsTag, params.Pack())); // answered already
    EXPECT_EQ(unexpected, 2u);
    EXPECT_EQ(uploads.size(), 1u);

    c->UploadReady(*task, 1, 7, received, upload, loss);
    c->Superseded(); // a newer model: the report of round 7 waits for nothing any more
    EXPECT_TRUE(c->Receive(7, fl::kUplinkParamsTag, params.Pack()));
    EXPECT_EQ(uploads.size(), 1u);
    EXPECT_EQ(unexpected, 3u);
}

TEST(CodecStrategyHelper, WrapsTheStrategyPairAndRefusesOneWithoutAMean)
{
    auto task = MakeTask<double>(3, "softmax:l2=0.001");
    FlWifiScenarioHelper wifi;
    FlScene scene = wifi.Build(3);
    {
        FlFedAvgHelper fedavg(task);
        fedavg.SetUplinkCodec(LinearEga(), 1.5);
        FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
        EXPECT_NE(DynamicCast<CodecServerStrategy>(stack.server->GetStrategy()), nullptr);
        for (uint32_t i = 0; i < stack.clientApps.GetN(); ++i)
        {
            auto c = DynamicCast<CodecClientStrategy>(
                DynamicCast<FlClientApplication>(stack.clientApps.Get(i))->GetStrategy());
            ASSERT_NE(c, nullptr);
            DoubleValue q;
            c->GetAttribute("LossWeightExponent", q);
            EXPECT_EQ(q.Get(), 1.5);
        }
    }
    {
        FlFedAvgHelper fedavg(task);
        fedavg.SetUplinkCodec(LinearEga());
        fedavg.SetStrategy("ns3::FedBuffStrategy"); // asynchronous: no round for the phases
        ExpectConfigError(
            [&] { fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress); },
            "strategy");
    }
    {
        FlFedAvgHelper fedavg(task);
        fedavg.SetUplinkCodec(LinearEga());
        fedavg.SetStrategy("qffl"); // needs each client's update
        ExpectConfigError(
            [&] { fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress); },
            "strategy");
    }
    {
        // uplink noise with a loss-weighted codec: the weight leaks the unnoised loss
        FlFedAvgHelper fedavg(task);
        fedavg.SetUplinkCodec(LinearEga(), 1.5);
        fedavg.SetUplinkPerturbation([]() {
            return std::make_shared<fl::GaussianPerturbation>(0.1, fl::NoiseScope::PerLink);
        });
        ExpectConfigError(
            [&] { fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress); },
            "SetUplinkPerturbation");
    }
    {
        // ... and is a post-processing of the noised upload at exponent 0: installed
        FlFedAvgHelper fedavg(task);
        fedavg.SetUplinkCodec(LinearEga(), 0.0);
        fedavg.SetUplinkPerturbation([]() {
            return std::make_shared<fl::GaussianPerturbation>(0.1, fl::NoiseScope::PerLink);
        });
        FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
        EXPECT_NE(DynamicCast<CodecServerStrategy>(stack.server->GetStrategy()), nullptr);
    }
    {
        // FedAvgM takes the decoded mean (the inner strategy keeps its attributes)
        FlFedAvgHelper fedavg(task);
        fedavg.SetUplinkCodec(LinearEga());
        fedavg.SetStrategyAttribute("ServerMomentum", DoubleValue(0.9));
        FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
        auto codec = DynamicCast<CodecServerStrategy>(stack.server->GetStrategy());
        ASSERT_NE(codec, nullptr);
        DoubleValue momentum;
        codec->GetInner()->GetAttribute("ServerMomentum", momentum);
        EXPECT_EQ(momentum.Get(), 0.9);
    }
    Simulator::Destroy();
}
